import type { ModelConfig, ServerConfig } from "../config/schema.js";
import type { ServerConfigOf, ServerKind } from "../config/server-kinds.js";
import { type DockerCli, dockerCliOf } from "./docker-cli.js";
import { launchDocker } from "./docker-launcher.js";
import type { LaunchedServer, LaunchServices } from "./launch.js";
import { launchCommand, launchSim } from "./process-kinds.js";

/**
 * The server-kind registry: per kind, how it is launched (or reached), what of its config the fingerprint
 * records, whether it runs on this machine's GPU, its fixed port and the variables it is handed. The
 * config side of a kind (start cost, lifecycle, the `validate` line) is in config/server-kinds.ts; the
 * kinds themselves are the branches of `serverSchema`. `--base-url` is an `external` server given on the
 * command line (base-url.ts), so it is reached and fingerprinted by this entry too.
 */
export interface KindLaunch<K extends ServerKind> {
  readonly config: ServerConfigOf<K>;
  /** The config as recorded and printed: templates where values came from the environment. */
  readonly recorded: { server: ServerConfigOf<K>; model: ModelConfig };
  readonly model: ModelConfig;
  readonly services: LaunchServices;
  /** How many servers the provider started before this one (the simulator's seed draws from it). */
  readonly startIndex: number;
  /** A cell's runs share this server: it must offer POST /reset_prefix_cache (vLLM dev mode). */
  readonly sharedByCell: boolean;
  /** Overrides `server.docker_command` (tests, library callers). */
  readonly dockerCommand: DockerCli | undefined;
  readonly cliCommand: readonly string[] | undefined;
}

export interface ServerKindEntry<K extends ServerKind> {
  launch(launch: KindLaunch<K>): Promise<LaunchedServer>;
  /**
   * The settings that change what is measured and are not already recorded as image, command or args,
   * so compare can diff them field by field (pass the template view). Ports, paths on the machine and
   * timeouts are left out: they do not change the measurement.
   */
  settings(server: ServerConfigOf<K>): Record<string, unknown>;
  /** The server runs on this machine's GPUs: nvidia-smi is queried for the fingerprint, telemetry, teardown. */
  readonly usesLocalGpu: boolean;
  /** A port that must be free before the start and is checked for release after the stop (0: none). */
  fixedPort(server: ServerConfigOf<K>): number;
  /** Names of variables handed to the server, whose values are redacted from its log. */
  passedEnv(server: ServerConfigOf<K>): readonly string[];
}

/** Where an external server (a config's or --base-url's) is reached. */
export function externalEndpoint(server: ServerConfigOf<"external">): {
  baseUrl: string;
  metricsUrl: string;
} {
  const baseUrl = server.base_url.replace(/\/+$/, "");
  return { baseUrl, metricsUrl: server.metrics_url ?? `${baseUrl}/metrics` };
}

export const serverKindRegistry = {
  docker: {
    launch: ({ config, model, services, sharedByCell, recorded, dockerCommand }) =>
      launchDocker(config, model, {
        ...services,
        dockerCommand: dockerCommand ?? dockerCliOf(config),
        devMode: sharedByCell,
        recorded,
      }),
    settings: (server) => ({
      gpus: server.gpus,
      dockerArgs: [...server.docker_args],
      env: [...server.env].sort(),
      lifecycle: server.lifecycle,
    }),
    usesLocalGpu: true,
    fixedPort: (server) => server.port,
    passedEnv: (server) => server.env,
  },
  command: {
    launch: ({ config, services, sharedByCell, recorded }) =>
      launchCommand(config, services, { devMode: sharedByCell, recorded: recorded.server }),
    settings: (server) => ({ env: Object.keys(server.env).sort(), lifecycle: server.lifecycle }),
    usesLocalGpu: true,
    fixedPort: (server) => server.port,
    passedEnv: () => [],
  },
  external: {
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
    passedEnv: () => [],
  },
  sim: {
    launch: ({ config, model, services, startIndex, sharedByCell, recorded, cliCommand }) =>
      launchSim(config, model, services, {
        cliCommand,
        startIndex,
        devMode: sharedByCell,
        recorded,
      }),
    settings: (server) => ({ lifecycle: server.lifecycle }),
    usesLocalGpu: false,
    fixedPort: (server) => server.port,
    passedEnv: () => [],
  },
} as const satisfies { readonly [K in ServerKind]: ServerKindEntry<K> };

/** The registry entry of a config's kind, typed for that config. */
export function kindEntry<K extends ServerKind>(server: ServerConfigOf<K>): ServerKindEntry<K> {
  return serverKindRegistry[server.kind] as unknown as ServerKindEntry<K>;
}

/** See ServerKindEntry.settings. */
export function serverSettings(server: ServerConfig): Record<string, unknown> {
  return kindEntry(server).settings(server);
}
