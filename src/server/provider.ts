import { join } from "node:path";
import { type ConfigInterpolation, noInterpolation, templateView } from "../config/interpolate.js";
import type { Config, ModelConfig, SamplingConfig, ServerConfig } from "../config/schema.js";
import { systemClock, type TimerClock } from "../util/clock.js";
import { toolName, toolVersion } from "../version.js";
import { diagnoseLog } from "./diagnose.js";
import { launchDocker } from "./docker-launcher.js";
import { ServerStartError } from "./errors.js";
import { buildFingerprint, type Fingerprint, hashConfig, serverSettings } from "./fingerprint.js";
import type { LaunchedServer, LaunchServices } from "./launch.js";
import { NvidiaSmi } from "./nvidia-smi.js";
import { isPortFree } from "./port.js";
import { getServedModels, getText, getVllmVersion, type ServedModel } from "./probe.js";
import { launchCommand, launchSim } from "./process-kinds.js";
import { cacheConfigFromMetrics, parsePrometheusText } from "./prometheus-text.js";
import { waitForReady } from "./readiness.js";
import { createRedactor, secretValues } from "./redact.js";
import { ServerLog } from "./server-log.js";
import { trackLaunchedServer, untrackLaunchedServer } from "./signals.js";
import { addLiveServer, newServerId, removeLiveServer } from "./state.js";
import { startTelemetry, type TelemetrySampler } from "./telemetry.js";
import type { ServerProvider, ServerSession, ServerStartContext } from "./types.js";

/** Environment variables redacted from logs whenever they are set, passed or not (a server may echo them). */
const wellKnownSecrets = [
  "HF_TOKEN",
  "HUGGING_FACE_HUB_TOKEN",
  "VLLM_API_KEY",
  "OPENAI_API_KEY",
  "GITHUB_TOKEN",
];

export interface ServerProviderOptions {
  readonly model: ModelConfig;
  /** Environment the server and its helpers see, and where api_key_env and passed names are looked up. */
  readonly env?: NodeJS.ProcessEnv;
  /** Overrides the start context's log directory. */
  readonly logDir?: string;
  /** Where live servers are recorded for `cleanupFromState` (the action's post step); none when unset. */
  readonly stateFile?: string;
  readonly clock?: TimerClock;
  readonly sampling?: SamplingConfig;
  /** For the fingerprint: hash of the parsed config (see hashConfig) and dataset sha256 by name. */
  readonly configHash?: string;
  readonly datasetChecksums?: Readonly<Record<string, string>>;
  /**
   * What loading the config interpolated (templates by path from the config's top, values read): the
   * values are redacted from the log and messages, and the fingerprint records the templates.
   */
  readonly interpolation?: ConfigInterpolation;
  /** Argv that runs this tool's CLI (the launcher appends `sim ...`); default: dist/cli.js, else tsx src/cli.ts. */
  readonly cliCommand?: readonly string[];
  readonly dockerCommand?: string;
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
}

export interface ManagedServerSession extends ServerSession {
  readonly id: string;
  /** The redacted server log, kept with the results. */
  readonly logFile: string;
  /** Models listed by /v1/models when the server became ready. */
  readonly servedModels: readonly ServedModel[];
  readonly readyAfterMs: number;
  fingerprint(): Promise<Fingerprint>;
  /**
   * POST /reset_prefix_cache, so the next run of a shared (per-cell) server starts cold. True when the
   * server did it; false when it does not offer it (vLLM outside dev mode answers 404) or is unreachable.
   */
  resetPrefixCache(): Promise<boolean>;
  startTelemetry(intervals: { metricsIntervalMs: number; gpuIntervalMs: number }): TelemetrySampler;
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

export function createServerProvider(
  serverConfig: ServerConfig,
  options: ServerProviderOptions,
): ManagedServerProvider {
  const env = options.env ?? process.env;
  const clock = options.clock ?? systemClock;
  const warn = options.warn ?? (() => {});
  const nvidiaSmi =
    options.nvidiaSmiCommand === null ? null : new NvidiaSmi(options.nvidiaSmiCommand ?? "nvidia-smi", env);
  /** Teardowns of every server launched and not yet stopped, ready or still starting. */
  const live = new Set<() => Promise<void>>();
  let starts = 0;
  const lifecycle = serverConfig.kind === "external" ? "per-cell" : serverConfig.lifecycle;
  const interpolation = options.interpolation ?? noInterpolation;
  // What is recorded and printed: the config with templates where values came from the environment.
  const recorded = {
    server: templateView(serverConfig, interpolation.templates, ["server"]),
    model: templateView(options.model, interpolation.templates, ["model"]),
    sampling: templateView(options.sampling ?? null, interpolation.templates, ["sampling"]),
  };

  async function start(context: ServerStartContext): Promise<ManagedServerSession> {
    const id = newServerId();
    const startIndex = starts++;
    const apiKeyName = serverConfig.api_key_env;
    const apiKey = apiKeyName ? env[apiKeyName] : undefined;
    const passedNames = serverConfig.kind === "docker" ? serverConfig.env : [];
    const redactor = createRedactor([
      ...secretValues(env, [...passedNames, ...wellKnownSecrets]),
      apiKey,
      ...interpolation.values.map((entry) => entry.value),
    ]);
    const logName = `server-${context.cell}${context.run === undefined ? "" : `-run${context.run}`}.log`;
    const log = new ServerLog(join(options.logDir ?? context.logDir, logName), redactor);
    const noteWarning = (message: string) => {
      log.note(`warning: ${message}`);
      warn(redactor.redact(message));
    };
    const fail = (summary: string, stage: "launch" | "readiness") =>
      new ServerStartError({
        summary: redactor.redact(summary),
        stage,
        diagnosis: diagnoseLog(log.lastLines(50)),
        lastLogLines: log.lastLines(20),
        logFile: log.path,
      });

    if (apiKeyName && !apiKey) {
      await log.close();
      throw fail(
        `server.api_key_env names ${apiKeyName}, but that environment variable is not set.`,
        "launch",
      );
    }
    const fixedPort = serverConfig.kind === "external" ? 0 : serverConfig.port;
    if (fixedPort !== 0 && !(await isPortFree(fixedPort))) {
      log.note(`port ${fixedPort} is already in use`);
      await log.close();
      throw new ServerStartError({
        summary: `Port ${fixedPort} is already in use, so the server (server.port: ${fixedPort}) cannot listen on it; another server may still be running.`,
        stage: "launch",
        diagnosis: diagnoseLog(["address already in use"]),
        logFile: log.path,
      });
    }
    const usesLocalGpu = serverConfig.kind === "docker" || serverConfig.kind === "command";
    const gpuBaseline = usesLocalGpu && nvidiaSmi ? await nvidiaSmi.usage() : null;

    const services: LaunchServices = {
      env,
      clock,
      log,
      id,
      warn: noteWarning,
      stopGraceMs: options.stopGraceMs ?? 30_000,
      startupTimeoutMs: serverConfig.startup_timeout_s * 1000,
      nvidiaSmi,
      remember: async (server) => {
        trackLaunchedServer({
          id,
          processGroup: server.processGroup,
          container: server.container,
          dockerCommand: server.dockerCommand,
          env,
        });
        if (!options.stateFile) return;
        await addLiveServer(options.stateFile, {
          ...server,
          id,
          startedAt: clock.wallTime().toISOString(),
          cell: context.cell,
          run: context.run ?? null,
        });
      },
    };
    const forget = async () => {
      untrackLaunchedServer(id);
      if (options.stateFile) await removeLiveServer(options.stateFile, id).catch(() => {});
    };

    let launched: LaunchedServer;
    try {
      launched = await launchKind(
        serverConfig,
        options,
        services,
        startIndex,
        lifecycle === "per-cell",
        recorded,
      );
    } catch (error) {
      await forget();
      await log.close();
      if (error instanceof ServerStartError) throw error;
      throw fail(`The server could not be launched: ${(error as Error).message}`, "launch");
    }

    let stoppedWhileStarting: () => void = () => {};
    const stopRequested = new Promise<{ reason: string }>((resolve) => {
      stoppedWhileStarting = () => resolve({ reason: "stopped by vllm-perf-gate while starting" });
    });
    const stopOnce = createTeardown(launched, {
      log,
      clock,
      nvidiaSmi,
      gpuBaseline,
      releaseTimeoutMs: options.releaseTimeoutMs ?? 15_000,
      warn: noteWarning,
      forget,
    });
    const teardown = async () => {
      stoppedWhileStarting();
      await stopOnce();
      live.delete(teardown);
    };
    live.add(teardown);
    const target = { baseUrl: launched.baseUrl, apiKey };
    const outcome = await waitForReady({
      target,
      timeoutMs: Math.max(
        0,
        services.startupTimeoutMs - (clock.now() - (launched.launchedAt ?? clock.now())),
      ),
      pollMs: options.pollIntervalMs ?? 1_000,
      clock,
      exited: Promise.race([launched.exited, stopRequested]),
      expectedModel: options.model.name,
    });
    if (!outcome.ready) {
      log.note(`not ready: ${outcome.detail}`);
      await teardown();
      const timeoutS = serverConfig.startup_timeout_s;
      throw fail(
        outcome.reason === "exited"
          ? `The server stopped before it was ready (${outcome.detail}).`
          : outcome.reason === "timeout"
            ? `The server was not ready within server.startup_timeout_s (${timeoutS} s): ${outcome.detail}.`
            : outcome.reason === "unauthorized"
              ? `The server is up but ${outcome.detail}.`
              : `The server is up but ${outcome.detail}; set model.name to the served model name.`,
        "readiness",
      );
    }
    log.note(`ready after ${(outcome.waitedMs / 1000).toFixed(1)} s at ${launched.baseUrl}`);

    let fingerprint: Promise<Fingerprint> | undefined;
    const session: ManagedServerSession = {
      id,
      logFile: log.path,
      redact: redactor.redact,
      servedModels: outcome.models,
      readyAfterMs: outcome.waitedMs,
      endpoint: { baseUrl: launched.baseUrl, metricsUrl: launched.metricsUrl, ...(apiKey ? { apiKey } : {}) },
      exited: launched.exited.then((exit) => {
        log.note(`server exited on its own: ${exit.reason}`);
        return exit;
      }),
      fingerprint() {
        fingerprint ??= collectFingerprint(launched, target, outcome.models, {
          ...options,
          model: recorded.model,
          sampling: recorded.sampling,
          environment: interpolation.values,
          kind: serverConfig.kind,
          settings: serverSettings(recorded.server as ServerConfig),
          env,
          nvidiaSmi: usesLocalGpu ? nvidiaSmi : null,
        });
        return fingerprint;
      },
      async resetPrefixCache() {
        try {
          const response = await fetch(`${launched.baseUrl}/reset_prefix_cache`, {
            method: "POST",
            headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
            signal: AbortSignal.timeout(30_000),
          });
          await response.body?.cancel();
          log.note(`POST /reset_prefix_cache: HTTP ${response.status}`);
          return response.ok;
        } catch (error) {
          log.note(`POST /reset_prefix_cache failed: ${(error as Error).message}`);
          return false;
        }
      },
      startTelemetry(intervals) {
        const gpus = usesLocalGpu ? nvidiaSmi : null;
        return startTelemetry({
          metricsUrl: launched.metricsUrl,
          apiKey,
          clock,
          ...intervals,
          queryGpus: gpus ? () => gpus.usage() : null,
        });
      },
      stop: teardown,
    };
    return session;
  }

  return {
    lifecycle,
    start,
    async stopAll() {
      await Promise.all([...live].map((teardown) => teardown()));
    },
  };
}

function launchKind(
  config: ServerConfig,
  options: ServerProviderOptions,
  services: LaunchServices,
  startIndex: number,
  sharedByCell: boolean,
  recorded: { server: ServerConfig; model: ModelConfig },
): Promise<LaunchedServer> {
  switch (config.kind) {
    case "docker":
      return launchDocker(config, options.model, {
        ...services,
        dockerCommand: options.dockerCommand ?? "docker",
        devMode: sharedByCell,
        recorded: { server: recorded.server as typeof config, model: recorded.model },
      });
    case "command":
      return launchCommand(config, services, {
        devMode: sharedByCell,
        recorded: recorded.server as typeof config,
      });
    case "sim":
      return launchSim(config, options.model, services, {
        cliCommand: options.cliCommand,
        startIndex,
        devMode: sharedByCell,
        recorded: { server: recorded.server as typeof config, model: recorded.model },
      });
    case "external": {
      const baseUrl = config.base_url.replace(/\/+$/, "");
      const shown = (recorded.server as typeof config).base_url;
      services.log.note(`external server at ${shown}: nothing to launch`);
      return Promise.resolve({
        baseUrl,
        metricsUrl: config.metrics_url ?? `${baseUrl}/metrics`,
        // An external server is not ours to watch or stop.
        exited: new Promise<{ reason: string }>(() => {}),
        conditions: { args: [] },
        stop: async () => ({ escalated: false, survived: false, notes: [] }),
      });
    }
  }
}

function createTeardown(
  launched: LaunchedServer,
  context: {
    log: ServerLog;
    clock: TimerClock;
    nvidiaSmi: NvidiaSmi | null;
    gpuBaseline: Awaited<ReturnType<NvidiaSmi["usage"]>>;
    releaseTimeoutMs: number;
    warn: (message: string) => void;
    forget: () => Promise<void>;
  },
): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= (async () => {
      const { log, clock } = context;
      const began = clock.now();
      const elapsed = () => `${((clock.now() - began) / 1000).toFixed(1)} s`;
      try {
        const result = await launched.stop();
        log.note(`server process stopped after ${elapsed()}`);
        for (const note of result.notes) context.warn(note);
        if (launched.port !== undefined && launched.port !== 0) {
          const port = launched.port;
          if (!(await pollUntil(() => isPortFree(port), context.releaseTimeoutMs, clock))) {
            context.warn(
              `port ${port} is still in use ${context.releaseTimeoutMs} ms after the server was stopped`,
            );
          }
        }
        const baseline = context.gpuBaseline;
        const nvidiaSmi = context.nvidiaSmi;
        if (baseline && nvidiaSmi) {
          const before = totalMemory(baseline);
          // A small allowance: the driver's own bookkeeping moves by a few MiB between queries.
          const released = await pollUntil(
            async () => totalMemory((await nvidiaSmi.usage()) ?? []) <= before + 512,
            context.releaseTimeoutMs,
            clock,
          );
          if (!released) {
            context.warn(
              `GPU memory was not released after the server stopped (used before start: ${before} MiB); check nvidia-smi for leftover processes`,
            );
          }
        }
        log.note(`teardown complete after ${elapsed()}`);
      } catch (error) {
        context.warn(`teardown error: ${(error as Error).message}`);
      } finally {
        await context.forget();
        await log.close();
      }
    })();
    return done;
  };
}

function totalMemory(usage: readonly { memoryUsedMiB: number | null }[]): number {
  return usage.reduce((sum, gpu) => sum + (gpu.memoryUsedMiB ?? 0), 0);
}

async function pollUntil(
  check: () => Promise<boolean>,
  timeoutMs: number,
  clock: TimerClock,
  pollMs = 100,
): Promise<boolean> {
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (clock.now() >= deadline) return false;
    await clock.sleep(pollMs);
  }
}

async function collectFingerprint(
  launched: LaunchedServer,
  target: { baseUrl: string; apiKey?: string | undefined },
  readyModels: ServedModel[],
  options: Omit<ServerProviderOptions, "sampling"> & {
    sampling: SamplingConfig | null;
    environment: ConfigInterpolation["values"];
    kind: ServerConfig["kind"];
    settings: Record<string, unknown>;
    env: NodeJS.ProcessEnv;
    nvidiaSmi: NvidiaSmi | null;
  },
): Promise<Fingerprint> {
  const [vllmVersion, servedModels, metricsText, gpu] = await Promise.all([
    getVllmVersion(target),
    getServedModels(target).catch(() => readyModels),
    getText(launched.metricsUrl, target.apiKey).catch(() => null),
    options.nvidiaSmi ? options.nvidiaSmi.inventory() : Promise.resolve(null),
  ]);
  return buildFingerprint({
    tool: { name: toolName, version: toolVersion },
    server: { kind: options.kind, ...launched.conditions, settings: options.settings },
    probes: {
      vllmVersion,
      servedModels,
      cacheConfig: metricsText === null ? null : cacheConfigFromMetrics(parsePrometheusText(metricsText)),
    },
    model: options.model,
    sampling: options.sampling ?? null,
    gpu,
    env: options.env,
    configHash: options.configHash ?? null,
    datasetChecksums: options.datasetChecksums ?? {},
    environment: options.environment,
  });
}
