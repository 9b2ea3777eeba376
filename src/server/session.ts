import { join } from "node:path";
import type { ModelConfig, SamplingConfig, ServerConfig, ServerLifecycle } from "../config/schema.js";
import { type ServerKind, serverKindFacts } from "../config/server-kinds.js";
import type { TimerClock } from "../util/clock.js";
import { portHolders } from "./cleanup.js";
import { collectFingerprint } from "./collect-fingerprint.js";
import { diagnoseLog } from "./diagnose.js";
import { ServerStartError } from "./errors.js";
import type { Fingerprint } from "./fingerprint.js";
import { kindEntry, type ServerKindEntry } from "./kinds.js";
import type { LaunchedServer, LaunchServices } from "./launch.js";
import type { NvidiaSmi } from "./nvidia-smi.js";
import type { Outbound } from "./outbound.js";
import { isPortFree } from "./port.js";
import type { ServedModel } from "./probe.js";
import { formatReadinessWait, type ReadinessOutcome, waitForReady } from "./readiness.js";
import { ServerLog } from "./server-log.js";
import { newServerStart, reachedServerStart, type ServerStart } from "./server-start.js";
import { trackLaunchedServer, trackLaunching, untrackLaunchedServer } from "./signals.js";
import { addLiveServer, newServerId, removeLiveServer } from "./state.js";
import { createTeardown } from "./teardown.js";
import { startTelemetry, type TelemetrySampler } from "./telemetry.js";
import { deviceIndices, type ServerDevice, type ServerSession, type ServerStartContext } from "./types.js";

/** Lines of the server's log kept with a crash's reason (each cut at 300 characters). */
const logTailLines = 5;

export interface ManagedServerSession extends ServerSession {
  readonly id: string;
  /** The server log (written through the job's output seam), kept with the results. */
  readonly logFile: string;
  /** Models listed by /v1/models when the server became ready. */
  readonly servedModels: readonly ServedModel[];
  readonly readyAfterMs: number;
  fingerprint(): Promise<Fingerprint>;
  startTelemetry(intervals: { metricsIntervalMs: number; gpuIntervalMs: number }): TelemetrySampler;
}

/** What every session of one provider shares (see provider.ts). */
export interface SessionEnvironment {
  readonly server: ServerConfig;
  readonly model: ModelConfig;
  /** The config as recorded and printed: templates where values came from the environment. */
  readonly recorded: { server: ServerConfig; model: ModelConfig; sampling: SamplingConfig | null };
  /** The job's output seam (outbound.ts): the server's log is written through it. */
  readonly outbound: Outbound;
  readonly lifecycle: ServerLifecycle;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: TimerClock;
  readonly warn: (message: string) => void;
  /** Warnings already given by this provider's sessions (LaunchServices.warnOnce). */
  readonly warnedOnce: Set<string>;
  /** Progress lines for the user while a server starts (readiness.ts: at least every 10 s). */
  readonly progress: (line: string) => void;
  readonly nvidiaSmi: NvidiaSmi | null;
  readonly logDir?: string | undefined;
  readonly stateFile?: string | undefined;
  /**
   * Stops what a killed process left in the state file (cleanup.ts `removeLeftoverServers`), once per
   * provider, before its first launch; never throws.
   */
  readonly removeLeftovers: () => Promise<void>;
  readonly configHash?: string | undefined;
  /** The start of an external server as the caller names it (`run --server-start`); see reachedServerStart. */
  readonly serverStartId?: string | undefined;
  readonly pollIntervalMs: number;
  readonly stopGraceMs: number;
  readonly releaseTimeoutMs: number;
}

/**
 * Starts one server of the provider's kind and waits until it is ready: checks the API key and the port,
 * launches through the kind's registry entry (recording it for signal handlers and the post step),
 * waits for /health and /v1/models, and returns the session with its one teardown. A failure is a
 * ServerStartError with the (cleaned) log's diagnosis; nothing it started is left running.
 */
export async function startServerSession(
  setup: SessionEnvironment,
  context: ServerStartContext,
  startIndex: number,
  /** The provider's set of teardowns of servers not yet stopped; the session adds and removes its own. */
  live: Set<() => Promise<void>>,
): Promise<ManagedServerSession> {
  const start = openStart(setup, context);
  await checkBeforeLaunch(start);
  const gpus = await localGpusOf(start);
  const started = await launchGuarded(start, gpus, startIndex, live);
  const outcome = await awaitReadiness(start, started);
  return readySession(start, gpus, started, outcome);
}

/** One start's own pieces: its config on its device, its kind's entry, its log, and how it warns and fails. */
interface OpenStart {
  readonly setup: SessionEnvironment;
  readonly context: ServerStartContext;
  readonly device: ServerDevice | undefined;
  /** The config on this start's device, and its recorded view (templates). */
  readonly server: ServerConfig;
  readonly recordedServer: ServerConfig;
  readonly kind: ServerKindEntry<ServerKind>;
  readonly id: string;
  /** A start we launch; null for a server we only reach (its start is known once it is reached). */
  readonly launchedStart: ServerStart | null;
  readonly apiKey: string | undefined;
  readonly log: ServerLog;
  /** A warning in the log and for the user (the job's root writes it through the seam). */
  warn(message: string): void;
  /** The start's error, with the log's diagnosis and last lines. */
  fail(summary: string, stage: "launch" | "readiness"): ServerStartError;
}

function openStart(setup: SessionEnvironment, context: ServerStartContext): OpenStart {
  // On one of several devices: its own port (the config's plus its slot) and its own GPUs.
  const device = context.device;
  const server = onDevice(setup.server, device);
  const log = new ServerLog(join(setup.logDir ?? context.logDir, serverLogName(context)), setup.outbound);
  const apiKeyName = server.api_key_env;
  return {
    setup,
    context,
    device,
    server,
    recordedServer: onDevice(setup.recorded.server, device),
    kind: kindEntry(server),
    id: newServerId(),
    // A server we launch is a new start; one we only reach (external) is, once it is reached, the one
    // start this process knows of at its address (reachedServerStart).
    launchedStart: serverKindFacts[server.kind].launchesProcess ? newServerStart(setup.clock) : null,
    apiKey: apiKeyName ? setup.env[apiKeyName] : undefined,
    log,
    // Warnings, progress lines and errors leave through the job's root, which writes them through the seam.
    warn(message) {
      log.note(`warning: ${message}`);
      setup.warn(message);
    },
    fail: (summary, stage) =>
      new ServerStartError({
        summary,
        stage,
        diagnosis: diagnoseLog(log.lastLines(50)),
        lastLogLines: log.lastLines(20),
        logFile: log.path,
      }),
  };
}

function serverLogName(context: ServerStartContext): string {
  const device = context.device ? `-device${context.device.spec.replaceAll(",", "-")}` : "";
  return `server-${context.cell}${device}${context.run === undefined ? "" : `-run${context.run}`}.log`;
}

/**
 * What must hold before anything is launched: the API key's variable is set, the leftovers of killed
 * processes are gone, and the kind's fixed port is free (else the error names what holds it).
 */
async function checkBeforeLaunch(start: OpenStart): Promise<void> {
  const { setup, server, log } = start;
  const apiKeyName = server.api_key_env;
  if (apiKeyName && !start.apiKey) {
    await log.close();
    throw start.fail(
      `server.api_key_env names ${apiKeyName}, but that environment variable is not set.`,
      "launch",
    );
  }
  await setup.removeLeftovers();
  const fixedPort = start.kind.fixedPort(server);
  if (fixedPort === 0 || (await isPortFree(fixedPort))) return;
  log.note(`port ${fixedPort} is already in use`);
  await log.close();
  const holders = await portHolders(fixedPort, {
    stateFile: setup.stateFile,
    running: () => start.kind.runningOnPort(server, fixedPort, setup.env),
  });
  const held =
    holders.length > 0
      ? `; ${holders.join("; ")} ${holders.length === 1 ? "holds" : "hold"} it`
      : "; another server may still be running";
  throw new ServerStartError({
    summary: `Port ${fixedPort} is already in use, so the server (server.port: ${fixedPort}) cannot listen on it${held}.`,
    stage: "launch",
    diagnosis: diagnoseLog(["address already in use"]),
    logFile: log.path,
  });
}

/** The GPUs of a server on this machine: all it may see, and its own devices' with their usage before it starts. */
interface StartGpus {
  readonly local: NvidiaSmi | null;
  readonly own: NvidiaSmi | null;
  readonly baseline: Awaited<ReturnType<NvidiaSmi["usage"]>> | null;
}

async function localGpusOf(start: OpenStart): Promise<StartGpus> {
  const local = start.kind.usesLocalGpu ? start.setup.nvidiaSmi : null;
  // Memory release and telemetry are this server's devices', whatever the servers beside it do.
  const own = local && start.device ? local.only(deviceIndices(start.device)) : local;
  return { local, own, baseline: own ? await own.usage() : null };
}

/** What a launcher is handed, with how the start remembers (signal handlers, state file) and forgets its server. */
function launchServices(start: OpenStart): { services: LaunchServices; forget: () => Promise<void> } {
  const { setup, context, id, log } = start;
  const { env, clock } = setup;
  const services: LaunchServices = {
    env,
    clock,
    log,
    id,
    warn: start.warn,
    warnOnce: (message) => {
      if (setup.warnedOnce.has(message)) return log.note(`warning: ${message}`);
      setup.warnedOnce.add(message);
      start.warn(message);
    },
    stopGraceMs: setup.stopGraceMs,
    startupTimeoutMs: start.server.startup_timeout_s * 1000,
    nvidiaSmi: setup.nvidiaSmi,
    device: start.device,
    launching: (pid, returned) => trackLaunching(id, pid, returned),
    remember: async (server) => {
      trackLaunchedServer({
        id,
        processGroup: server.processGroup,
        container: server.container,
        dockerCommand: server.dockerCommand,
        env,
      });
      if (!setup.stateFile) return;
      await addLiveServer(setup.stateFile, {
        ...server,
        id,
        startedAt: start.launchedStart?.startedAt ?? clock.wallTime().toISOString(),
        cell: context.cell,
        run: context.run ?? null,
        ownerPid: process.pid,
      });
    },
  };
  const forget = async () => {
    untrackLaunchedServer(id);
    if (setup.stateFile) await removeLiveServer(setup.stateFile, id).catch(() => {});
  };
  return { services, forget };
}

/** A launched server with its one teardown, and the exit a stop while it starts reads as. */
interface StartedServer {
  readonly launched: LaunchedServer;
  readonly services: LaunchServices;
  readonly teardown: () => Promise<void>;
  /** Resolves when the teardown runs before the server is ready (readiness then stops waiting). */
  readonly stopRequested: Promise<{ reason: string }>;
}

/**
 * Launches through the kind's entry, so that an interrupt at any point stops what was started: until
 * the launch returns, a stopAll() waits for it and then stops what it started; afterwards the start's
 * teardown is in the provider's live set.
 */
async function launchGuarded(
  start: OpenStart,
  gpus: StartGpus,
  startIndex: number,
  live: Set<() => Promise<void>>,
): Promise<StartedServer> {
  const { setup, log } = start;
  const { services, forget } = launchServices(start);
  let stopWhenLaunched = false;
  let launchSettled: () => void = () => {};
  const settledLaunch = new Promise<void>((resolve) => {
    launchSettled = resolve;
  });
  const stopWhileLaunching = async () => {
    stopWhenLaunched = true;
    await settledLaunch;
    live.delete(stopWhileLaunching);
  };
  live.add(stopWhileLaunching);
  let launched: LaunchedServer;
  try {
    launched = await start.kind.launch({
      config: start.server,
      recorded: { server: start.recordedServer, model: setup.recorded.model },
      model: setup.model,
      apiKey: start.apiKey,
      services,
      startIndex,
      sharedByCell: setup.lifecycle !== "per-run",
    });
  } catch (error) {
    await forget();
    await log.close();
    launchSettled();
    if (error instanceof ServerStartError) throw error;
    throw start.fail(`The server could not be launched: ${(error as Error).message}`, "launch");
  }

  let stoppedWhileStarting: () => void = () => {};
  const stopRequested = new Promise<{ reason: string }>((resolve) => {
    stoppedWhileStarting = () => resolve({ reason: "stopped by vllm-perf-gate while starting" });
  });
  const stopOnce = createTeardown(launched, {
    log,
    clock: setup.clock,
    nvidiaSmi: gpus.own,
    gpuBaseline: gpus.baseline,
    releaseTimeoutMs: setup.releaseTimeoutMs,
    warn: start.warn,
    forget,
  });
  const teardown = async () => {
    stoppedWhileStarting();
    await stopOnce();
    live.delete(teardown);
  };
  live.add(teardown);
  live.delete(stopWhileLaunching);
  if (stopWhenLaunched) {
    log.note("stopped while the server was being launched");
    await teardown();
    launchSettled();
    throw start.fail("The server was stopped while it was being launched.", "launch");
  }
  launchSettled();
  return { launched, services, teardown, stopRequested };
}

/**
 * Waits for /health and /v1/models within the startup timeout, counted from the launch (a pull does not
 * count), saying where it stands; a server that is not ready is stopped and the error says why.
 */
async function awaitReadiness(
  start: OpenStart,
  { launched, services, teardown, stopRequested }: StartedServer,
): Promise<Extract<ReadinessOutcome, { ready: true }>> {
  const { setup, context, server, log } = start;
  const clock = setup.clock;
  const outcome = await waitForReady({
    target: { baseUrl: launched.baseUrl, apiKey: start.apiKey },
    timeoutMs: Math.max(0, services.startupTimeoutMs - (clock.now() - (launched.launchedAt ?? clock.now()))),
    pollMs: setup.pollIntervalMs,
    clock,
    exited: Promise.race([launched.exited, stopRequested]),
    expectedModel: setup.model.name,
    onWaiting: (wait) =>
      setup.progress(
        `${context.cell}: ${formatReadinessWait(wait, {
          seconds: server.startup_timeout_s,
          name: "server.startup_timeout_s, from the launch",
        })}`,
      ),
  });
  if (!outcome.ready) {
    log.note(`not ready: ${outcome.detail}`);
    await teardown();
    throw start.fail(notReadySummary(outcome, server.startup_timeout_s), "readiness");
  }
  log.note(`ready after ${(outcome.waitedMs / 1000).toFixed(1)} s at ${launched.baseUrl}`);
  return outcome;
}

function notReadySummary(outcome: Extract<ReadinessOutcome, { ready: false }>, timeoutS: number): string {
  switch (outcome.reason) {
    case "exited":
      return `The server stopped before it was ready (${outcome.detail}).`;
    case "timeout":
      return `The server was not ready within server.startup_timeout_s (${timeoutS} s): ${outcome.detail}.`;
    case "unauthorized":
      return `The server is up but ${outcome.detail}.`;
    case "wrong-model":
      return `The server is up but ${outcome.detail}; set model.name to the served model name.`;
  }
}

/** The session of a ready server: its endpoint, its exit with the log's last lines, its fingerprint and telemetry. */
function readySession(
  start: OpenStart,
  gpus: StartGpus,
  { launched, teardown }: StartedServer,
  outcome: Extract<ReadinessOutcome, { ready: true }>,
): ManagedServerSession {
  const { setup, server, log, apiKey } = start;
  const clock = setup.clock;
  let fingerprint: Promise<Fingerprint> | undefined;
  return {
    id: start.id,
    start: start.launchedStart ?? reachedServerStart(launched.baseUrl, clock, setup.serverStartId),
    logFile: log.path,
    servedModels: outcome.models,
    readyAfterMs: outcome.waitedMs,
    endpoint: { baseUrl: launched.baseUrl, metricsUrl: launched.metricsUrl, ...(apiKey ? { apiKey } : {}) },
    exited: launched.exited.then((exit) => {
      // What the server printed last goes with the exit into run.json: often the reason it died.
      const tail = log.lastLines(logTailLines).map((line) => line.slice(0, 300));
      log.note(`server exited on its own: ${exit.reason}`);
      return {
        reason: tail.length > 0 ? `${exit.reason}; last log lines: ${tail.join(" | ")}` : exit.reason,
      };
    }),
    fingerprint() {
      fingerprint ??= collectFingerprint({
        target: { baseUrl: launched.baseUrl, apiKey },
        metricsUrl: launched.metricsUrl,
        server: {
          kind: server.kind,
          ...launched.conditions,
          settings: start.kind.settings(setup.recorded.server),
        },
        readyModels: outcome.models,
        model: setup.recorded.model,
        sampling: setup.recorded.sampling,
        nvidiaSmi: gpus.local,
        device: start.device?.spec ?? null,
        env: setup.env,
        configHash: setup.configHash,
      });
      return fingerprint;
    },
    startTelemetry(intervals) {
      const own = gpus.own;
      return startTelemetry({
        metricsUrl: launched.metricsUrl,
        apiKey,
        clock,
        ...intervals,
        queryGpus: own ? () => own.usage() : null,
      });
    },
    stop: teardown,
  };
}

/**
 * A server config on one of several devices: its port moved by the device's slot (0 stays 0: a port the
 * server picks), so the servers of a runner listen side by side.
 */
function onDevice(server: ServerConfig, device: ServerDevice | undefined): ServerConfig {
  if (!device || device.slot === 0 || !("port" in server)) return server;
  // The recorded view may hold a template where the port came from the environment: left as written.
  if (typeof server.port !== "number" || server.port === 0) return server;
  return { ...server, port: server.port + device.slot };
}
