import { type ConfigInterpolation, noInterpolation, templateView } from "../config/interpolate.js";
import type { Config, ModelConfig, SamplingConfig, ServerConfig } from "../config/schema.js";
import { serverLifecycle } from "../config/server-kinds.js";
import { systemClock, type TimerClock } from "../util/clock.js";
import { removeLeftoverServers } from "./cleanup.js";
import { hashConfig } from "./fingerprint.js";
import { NvidiaSmi } from "./nvidia-smi.js";
import type { Outbound } from "./outbound.js";
import { type ManagedServerSession, type SessionEnvironment, startServerSession } from "./session.js";
import type { ServerDevice, ServerProvider, ServerStartContext } from "./types.js";

export interface ServerProviderOptions {
  readonly model: ModelConfig;
  /** Environment the server and its helpers see, and where api_key_env and passed names are looked up. */
  readonly env?: NodeJS.ProcessEnv;
  /** Overrides the start context's log directory. */
  readonly logDir?: string;
  /**
   * Where live servers are recorded for `cleanupFromState` (the action's post step) and for the next
   * start, which stops those a killed process left (`removeLeftoverServers`); none when unset.
   */
  readonly stateFile?: string;
  readonly clock?: TimerClock;
  readonly sampling?: SamplingConfig;
  /** For the fingerprint: hash of the parsed config (see hashConfig). */
  readonly configHash?: string;
  /**
   * What loading the config interpolated (templates by path from the config's top, values read): the
   * fingerprint records the templates.
   */
  readonly interpolation?: ConfigInterpolation;
  /**
   * The job's output seam (outbound.ts), built at the job's root from its one secret set: the servers'
   * logs are written through it.
   */
  readonly outbound: Outbound;
  /** nvidia-smi executable; null disables GPU queries. */
  readonly nvidiaSmiCommand?: string | null;
  /** Readiness poll interval (default 1000 ms). */
  readonly pollIntervalMs?: number;
  /** SIGTERM-to-SIGKILL grace (default 30 s: vLLM frees GPU memory on a clean shutdown). */
  readonly stopGraceMs?: number;
  /** How long teardown waits for the port and GPU memory to be released (default 15 s). */
  readonly releaseTimeoutMs?: number;
  /** User-facing warnings (tag-only image pin, port or GPU memory not released, SIGKILL needed). */
  readonly warn?: (message: string) => void;
  /** Progress lines while a server starts (what readiness awaits, since when, the last problem, the limit). */
  readonly progress?: (line: string) => void;
  /** Every server of this provider runs on these devices (runner.devices; see ServerDevice). */
  readonly device?: ServerDevice;
  /**
   * An external server's start as the caller names it (`run --server-start`); default: one start per
   * process and address (server-start.ts reachedServerStart). Servers we launch record their own starts.
   */
  readonly serverStartId?: string;
}

export interface ManagedServerProvider extends ServerProvider {
  start(context: ServerStartContext): Promise<ManagedServerSession>;
  /** Stops every session this provider started and has not stopped (for signal handlers and finally blocks). */
  stopAll(): Promise<void>;
}

/**
 * The provider for a whole config: its server, recording the config's model, sampling and hash in every
 * fingerprint, so every entry point (run, demo, action) records the same conditions.
 */
export function providerForConfig(
  config: Config,
  options: Omit<ServerProviderOptions, "model" | "sampling" | "configHash">,
): ManagedServerProvider {
  const templates = options.interpolation?.templates ?? [];
  return createServerProvider(config.server, {
    ...options,
    model: config.model,
    sampling: config.sampling,
    // Of the config as the file says it: a hash of values read from the environment could be guessed back.
    configHash: hashConfig(templateView(config, templates)),
  });
}

/** The provider of one server config: its sessions (session.ts) and the teardowns of those not stopped. */
export function createServerProvider(
  serverConfig: ServerConfig,
  options: ServerProviderOptions,
): ManagedServerProvider {
  const env = options.env ?? process.env;
  const interpolation = options.interpolation ?? noInterpolation;
  const clock = options.clock ?? systemClock;
  const warn = options.warn ?? (() => {});
  const stopGraceMs = options.stopGraceMs ?? 30_000;
  let leftoversRemoved: Promise<void> | undefined;
  const removeLeftovers = () => {
    const stateFile = options.stateFile;
    if (!stateFile) return Promise.resolve();
    leftoversRemoved ??= removeLeftoverServers(stateFile, { env, clock, stopGraceMs, log: warn }).then(
      () => {},
      (error: unknown) =>
        warn(`could not stop the leftover servers of ${stateFile}: ${(error as Error).message}`),
    );
    return leftoversRemoved;
  };
  const setup: SessionEnvironment = {
    server: serverConfig,
    model: options.model,
    // What is recorded and printed: the config with templates where values came from the environment.
    recorded: {
      server: templateView(serverConfig, interpolation.templates, ["server"]),
      model: templateView(options.model, interpolation.templates, ["model"]),
      sampling: templateView(options.sampling ?? null, interpolation.templates, ["sampling"]),
    },
    outbound: options.outbound,
    lifecycle: serverLifecycle({ server: serverConfig }),
    env,
    clock,
    warn,
    warnedOnce: new Set(),
    progress: options.progress ?? (() => {}),
    nvidiaSmi:
      options.nvidiaSmiCommand === null ? null : new NvidiaSmi(options.nvidiaSmiCommand ?? "nvidia-smi", env),
    logDir: options.logDir,
    stateFile: options.stateFile,
    removeLeftovers,
    configHash: options.configHash,
    serverStartId: options.serverStartId,
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    stopGraceMs,
    releaseTimeoutMs: options.releaseTimeoutMs ?? 15_000,
  };
  /** Teardowns of every server launched and not yet stopped, ready or still starting. */
  const live = new Set<() => Promise<void>>();
  let starts = 0;
  return {
    lifecycle: setup.lifecycle,
    start: (context) =>
      startServerSession(
        setup,
        options.device && !context.device ? { ...context, device: options.device } : context,
        starts++,
        live,
      ),
    async stopAll() {
      await Promise.all([...live].map((teardown) => teardown()));
    },
  };
}
