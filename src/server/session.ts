import { join } from "node:path";
import type { ModelConfig, SamplingConfig, ServerConfig, ServerLifecycle } from "../config/schema.js";
import { serverKindFacts } from "../config/server-kinds.js";
import type { TimerClock } from "../util/clock.js";
import { portHolders } from "./cleanup.js";
import { collectFingerprint } from "./collect-fingerprint.js";
import { diagnoseLog } from "./diagnose.js";
import { type DockerCli, dockerCliOf } from "./docker-cli.js";
import { ServerStartError } from "./errors.js";
import type { Fingerprint } from "./fingerprint.js";
import { kindEntry } from "./kinds.js";
import type { LaunchedServer, LaunchServices } from "./launch.js";
import type { NvidiaSmi } from "./nvidia-smi.js";
import type { Outbound } from "./outbound.js";
import { isPortFree } from "./port.js";
import type { ServedModel } from "./probe.js";
import { formatReadinessWait, waitForReady } from "./readiness.js";
import { ServerLog } from "./server-log.js";
import { newServerStart, reachedServerStart } from "./server-start.js";
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
  readonly cliCommand?: readonly string[] | undefined;
  /** Overrides the config's `server.docker_command` when set. */
  readonly dockerCommand: DockerCli | undefined;
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
  const { env, clock, nvidiaSmi } = setup;
  // On one of several devices: its own port (the config's plus its slot) and its own GPUs.
  const device = context.device;
  const serverConfig = onDevice(setup.server, device);
  const recordedServer = onDevice(setup.recorded.server, device);
  const kind = kindEntry(serverConfig);
  const id = newServerId();
  // A server we launch is a new start; one we only reach (external) is, once it is reached, the one
  // start this process knows of at its address (reachedServerStart).
  const launchedStart = serverKindFacts[serverConfig.kind].launchesProcess ? newServerStart(clock) : null;
  const apiKeyName = serverConfig.api_key_env;
  const apiKey = apiKeyName ? env[apiKeyName] : undefined;
  const logName = `server-${context.cell}${device ? `-device${device.spec.replaceAll(",", "-")}` : ""}${context.run === undefined ? "" : `-run${context.run}`}.log`;
  const log = new ServerLog(join(setup.logDir ?? context.logDir, logName), setup.outbound);
  // Warnings, progress lines and errors leave through the job's root, which writes them through the seam.
  const noteWarning = (message: string) => {
    log.note(`warning: ${message}`);
    setup.warn(message);
  };
  const fail = (summary: string, stage: "launch" | "readiness") =>
    new ServerStartError({
      summary,
      stage,
      diagnosis: diagnoseLog(log.lastLines(50)),
      lastLogLines: log.lastLines(20),
      logFile: log.path,
    });

  if (apiKeyName && !apiKey) {
    await log.close();
    throw fail(`server.api_key_env names ${apiKeyName}, but that environment variable is not set.`, "launch");
  }
  await setup.removeLeftovers();
  const fixedPort = kind.fixedPort(serverConfig);
  if (fixedPort !== 0 && !(await isPortFree(fixedPort))) {
    log.note(`port ${fixedPort} is already in use`);
    await log.close();
    const holders = await portHolders(fixedPort, {
      stateFile: setup.stateFile,
      docker: serverConfig.kind === "docker" ? (setup.dockerCommand ?? dockerCliOf(serverConfig)) : undefined,
      env,
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
  const localGpus = kind.usesLocalGpu ? nvidiaSmi : null;
  // Memory release and telemetry are this server's devices', whatever the servers beside it do.
  const ownGpus = localGpus && device ? localGpus.only(deviceIndices(device)) : localGpus;
  const gpuBaseline = ownGpus ? await ownGpus.usage() : null;

  const services: LaunchServices = {
    env,
    clock,
    log,
    id,
    warn: noteWarning,
    warnOnce: (message) => {
      if (setup.warnedOnce.has(message)) return log.note(`warning: ${message}`);
      setup.warnedOnce.add(message);
      noteWarning(message);
    },
    stopGraceMs: setup.stopGraceMs,
    startupTimeoutMs: serverConfig.startup_timeout_s * 1000,
    nvidiaSmi,
    device,
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
        startedAt: launchedStart?.startedAt ?? clock.wallTime().toISOString(),
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

  // Until the launch returns, a stopAll() (an interrupt) waits for it and then stops what it started.
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
    launched = await kind.launch({
      config: serverConfig,
      recorded: { server: recordedServer as typeof serverConfig, model: setup.recorded.model },
      model: setup.model,
      apiKey,
      services,
      startIndex,
      sharedByCell: setup.lifecycle !== "per-run",
      dockerCommand: setup.dockerCommand,
      cliCommand: setup.cliCommand,
    });
  } catch (error) {
    await forget();
    await log.close();
    launchSettled();
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
    nvidiaSmi: ownGpus,
    gpuBaseline,
    releaseTimeoutMs: setup.releaseTimeoutMs,
    warn: noteWarning,
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
    throw fail("The server was stopped while it was being launched.", "launch");
  }
  launchSettled();
  const target = { baseUrl: launched.baseUrl, apiKey };
  const outcome = await waitForReady({
    target,
    timeoutMs: Math.max(0, services.startupTimeoutMs - (clock.now() - (launched.launchedAt ?? clock.now()))),
    pollMs: setup.pollIntervalMs,
    clock,
    exited: Promise.race([launched.exited, stopRequested]),
    expectedModel: setup.model.name,
    onWaiting: (wait) =>
      setup.progress(
        `${context.cell}: ${formatReadinessWait(wait, {
          seconds: serverConfig.startup_timeout_s,
          name: "server.startup_timeout_s, from the launch",
        })}`,
      ),
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
  return {
    id,
    start: launchedStart ?? reachedServerStart(launched.baseUrl, clock, setup.serverStartId),
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
        target,
        metricsUrl: launched.metricsUrl,
        server: {
          kind: serverConfig.kind,
          ...launched.conditions,
          settings: kind.settings(setup.recorded.server as typeof serverConfig),
        },
        readyModels: outcome.models,
        model: setup.recorded.model,
        sampling: setup.recorded.sampling,
        nvidiaSmi: localGpus,
        device: device?.spec ?? null,
        env,
        configHash: setup.configHash,
      });
      return fingerprint;
    },
    startTelemetry(intervals) {
      return startTelemetry({
        metricsUrl: launched.metricsUrl,
        apiKey,
        clock,
        ...intervals,
        queryGpus: ownGpus ? () => ownGpus.usage() : null,
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
