import { type Config, configSchema } from "../../../src/config/schema.js";

/** A parsed config with one or more cells, defaults filled in by the schema itself. */
export function testConfig(cells: unknown[], extra: Record<string, unknown> = {}): Config {
  return configSchema.parse({
    version: 1,
    server: { kind: "external", base_url: "http://127.0.0.1:1" },
    model: { name: "m" },
    cells,
    telemetry: { metrics_interval_s: 0.2 },
    ...extra,
  });
}
