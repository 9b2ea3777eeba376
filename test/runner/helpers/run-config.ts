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

/** The smallest cell that measures anything: two one-at-a-time requests of 4 prompt and 2 output tokens. */
export function tinyCell(name: string): Record<string, unknown> {
  return {
    name,
    dataset: { type: "synthetic", input_tokens: 4, output_tokens: 2 },
    load: { type: "concurrency", concurrency: 1 },
    size: { requests: 2 },
    warmup: { requests: 0 },
  };
}
