import type { TimerClock } from "../util/clock.js";
import type { NvidiaSmi } from "./nvidia-smi.js";
import type { ServerLog } from "./server-log.js";
import type { LiveServer } from "./state.js";
import type { ServerDevice } from "./types.js";

/** What every launcher hands to the session: how to reach the server, how it dies, how to stop it. */
export interface LaunchedServer {
  readonly baseUrl: string;
  readonly metricsUrl: string;
  /** Resolves when the server dies on its own; stays pending after a stop we asked for. */
  readonly exited: Promise<{ reason: string }>;
  /** Port to check for release after teardown (none for external servers). */
  readonly port?: number | undefined;
  /** Conditions only the launcher knows (image digest, command line, engine args). */
  readonly conditions: {
    image?: string | null;
    imageDigest?: string | null;
    imageId?: string | null;
    command?: readonly string[] | null;
    args: readonly string[];
  };
  /** TimerClock time the server process started; the startup timeout counts from here (a pull does not count). */
  readonly launchedAt?: number;
  /** Stops the server; must not throw. */
  stop(): Promise<TeardownNotes>;
}

export interface TeardownNotes {
  readonly escalated: boolean;
  readonly survived: boolean;
  readonly notes: readonly string[];
}

/** Services a launcher gets from the provider. */
export interface LaunchServices {
  readonly env: NodeJS.ProcessEnv;
  readonly clock: TimerClock;
  readonly log: ServerLog;
  readonly id: string;
  readonly stopGraceMs: number;
  readonly startupTimeoutMs: number;
  readonly warn: (message: string) => void;
  /** A warning given once per provider (a job's side), however many servers it starts. */
  readonly warnOnce: (message: string) => void;
  /** Records the server in the state file before it can outlive us; resolves once written. */
  readonly remember: (server: Omit<LiveServer, "id" | "startedAt" | "cell" | "run">) => Promise<void>;
  /**
   * The command that creates the server is in flight (`docker run`: its pid, and when it returns): a stop
   * meanwhile waits for it, or removes what it creates by name until it has returned (signals.ts).
   */
  readonly launching?: (pid: number | undefined, returned: Promise<unknown>) => void;
  readonly nvidiaSmi: NvidiaSmi | null;
  /** The devices of this server on a runner with several (runner.devices); absent: as the config says. */
  readonly device?: ServerDevice | undefined;
}

/** Engine flags are `--name value` or `--name=value`; finds a value either way. */
export function flagValue(args: readonly string[], flag: string): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === flag) return args[index + 1];
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
  }
  return undefined;
}

export function hasFlag(args: readonly string[], flag: string): boolean {
  return args.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
}
