import type { ModelConfig } from "../../config/schema.js";
import type { ServerConfigOf, ServerKind } from "../../config/server-kinds.js";
import type { LaunchedServer, LaunchServices } from "../launch.js";

/** What a kind's launcher is given: the config (values and as recorded), the services, the start's context. */
interface KindLaunch<K extends ServerKind> {
  readonly config: ServerConfigOf<K>;
  /** The config as recorded and printed: templates where values came from the environment. */
  readonly recorded: { server: ServerConfigOf<K>; model: ModelConfig };
  readonly model: ModelConfig;
  /**
   * The API key the client sends (the value of the variable `server.api_key_env` names), or undefined
   * when it sends none: a server this tool starts itself requires exactly this key.
   */
  readonly apiKey: string | undefined;
  readonly services: LaunchServices;
  /** How many servers the provider started before this one (the simulator's seed draws from it). */
  readonly startIndex: number;
  /** A cell's runs share this server: it must offer POST /reset_prefix_cache (vLLM dev mode). */
  readonly sharedByCell: boolean;
}

/** `runningOnPort` of a kind that leaves nothing on a port but processes the state file records. */
export const nothingElseOnPort = (): Promise<readonly string[]> => Promise.resolve([]);

/**
 * A server kind's behaviour, one module per kind in this folder: how it is launched (or reached), what
 * of its config the fingerprint records, whether it runs on this machine's GPU, its fixed port, what else
 * may hold that port and the variables it is handed. The config side of the kind (schema branch, facts,
 * traits) is its module in config/server-kinds/.
 */
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
  /**
   * Servers of this kind this tool left on a busy fixed port that no state file names (docker: its
   * labelled containers publishing it), by container name, for the start's error. Bounded; never throws.
   */
  runningOnPort(server: ServerConfigOf<K>, port: number, env: NodeJS.ProcessEnv): Promise<readonly string[]>;
  /** Names of variables handed to the server, whose values are redacted from its log. */
  passedEnv(server: ServerConfigOf<K>): readonly string[];
}
