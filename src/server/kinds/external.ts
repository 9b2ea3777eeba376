import type { ServerConfigOf } from "../../config/server-kinds.js";
import { nothingElseOnPort, type ServerKindEntry } from "./entry.js";

/** Where an external server (a config's or --base-url's) is reached. */
export function externalEndpoint(server: ServerConfigOf<"external">): {
  baseUrl: string;
  metricsUrl: string;
} {
  const baseUrl = server.base_url.replace(/\/+$/, "");
  return { baseUrl, metricsUrl: server.metrics_url ?? `${baseUrl}/metrics` };
}

/** A server someone else runs: reached, never started or stopped. */
export const externalEntry: ServerKindEntry<"external"> = {
  launch: ({ config, services, recorded }) => {
    services.log.note(`external server at ${recorded.server.base_url}: nothing to launch`);
    return Promise.resolve({
      ...externalEndpoint(config),
      // An external server is not ours to watch or stop.
      exited: new Promise<{ reason: string }>(() => {}),
      conditions: { args: [] },
      stop: async () => ({ escalated: false, survived: false, notes: [] }),
    });
  },
  settings: () => ({}),
  usesLocalGpu: false,
  fixedPort: () => 0,
  runningOnPort: nothingElseOnPort,
  passedEnv: () => [],
};
