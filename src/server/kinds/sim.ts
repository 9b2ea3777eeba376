import type { ModelConfig } from "../../config/schema.js";
import type { ServerConfigOf } from "../../config/server-kinds.js";
import { ServerStartError } from "../errors.js";
import type { LaunchedServer, LaunchServices } from "../launch.js";
import { deviceEnv, devModeEnv } from "../process-kinds.js";
import { spawnServerProcess } from "../process-launcher.js";
import { defaultCliCommand } from "../sim-command.js";
import { nothingElseOnPort, type ServerKindEntry } from "./entry.js";

type SimConfig = ServerConfigOf<"sim">;

/** Simulator flags as the sim command takes them; also what the fingerprint records (no machine paths). */
function simArgs(config: SimConfig, model: ModelConfig, seed: number): string[] {
  return [
    "--host",
    "127.0.0.1",
    "--port",
    String(config.port),
    "--profile",
    config.profile,
    "--seed",
    String(seed),
    ...Object.entries(config.set)
      .sort(([a], [b]) => a.localeCompare(b))
      .flatMap(([key, value]) => ["--set", `${key}=${value}`]),
    "--served-model-name",
    model.name,
    ...config.args,
  ];
}

const listeningLine = /vllm-perf-gate sim listening on (https?:\/\/\S+)/;

/**
 * The simulator's environment: the job's, with `VLLM_API_KEY` (where it reads its key, as vLLM does) set to
 * exactly the key the client sends, or removed when the client sends none. A `VLLM_API_KEY` the job's
 * environment holds for some other server must not make the simulator refuse this tool's own client, and a
 * key named by `server.api_key_env` must be the one it requires. The key travels in the environment, never
 * on the command line, which the log and the process list show.
 */
function simEnv(env: NodeJS.ProcessEnv, apiKey: string | undefined): NodeJS.ProcessEnv {
  const { VLLM_API_KEY: _inherited, ...rest } = env;
  return apiKey === undefined ? rest : { ...rest, VLLM_API_KEY: apiKey };
}

async function launchSim(
  config: SimConfig,
  model: ModelConfig,
  services: LaunchServices,
  options: {
    apiKey: string | undefined;
    startIndex: number;
    devMode: boolean;
    recorded?: { server: SimConfig; model: ModelConfig };
  },
): Promise<LaunchedServer> {
  // Each start draws its own noise from the configured seed, so per-run servers are not identical replicas.
  const args = simArgs(config, model, config.seed + options.startIndex);
  // The simulated GPU: its device index (the first of the server's devices) selects its speed.
  const device = services.device ? ["--device", services.device.spec.split(",")[0]!] : [];
  const argv = [...defaultCliCommand(), "sim", ...args, ...device];
  // Printed as the config writes it: `${VAR}` stays a template (it may be a secret).
  const recordedConfig = options.recorded?.server ?? config;
  const recordedModel = options.recorded?.model ?? model;
  const shownSeed =
    typeof recordedConfig.seed === "number" ? recordedConfig.seed + options.startIndex : recordedConfig.seed;
  services.log.note(
    `starting simulator: vllm-perf-gate sim ${[...simArgs(recordedConfig, recordedModel, shownSeed), ...device].join(" ")}`,
  );
  const announcement = listenForAddress(services);
  const launchedAt = services.clock.now();
  const spawned = await spawnServerProcess(
    argv,
    {
      env: {
        ...simEnv(services.env, options.apiKey),
        ...devModeEnv(options.devMode),
        ...deviceEnv(services.device),
      },
      kind: "sim",
      port: config.port,
    },
    services,
  );
  if ("spawnError" in spawned) {
    announcement.stop();
    throw new ServerStartError({
      summary: `The simulator could not be started: ${spawned.spawnError}.`,
      stage: "launch",
      logFile: services.log.path,
    });
  }
  // The port is only known once the simulator says where it listens (port 0: it picks one).
  const baseUrl =
    config.port === 0
      ? await announcedAddress(announcement, spawned, services)
      : `http://127.0.0.1:${config.port}`;
  announcement.stop();
  const port = Number(new URL(baseUrl).port);
  // The configured seed is the condition; the per-start seed derived from it is in the log. Recorded
  // from the config as written (templates for values from the environment).
  const recordedArgs = simArgs(recordedConfig, recordedModel, recordedConfig.seed);
  return {
    baseUrl,
    metricsUrl: `${baseUrl}/metrics`,
    port,
    exited: spawned.exited,
    launchedAt,
    conditions: {
      command: ["vllm-perf-gate", "sim", ...recordedArgs.filter((_, i) => !isPortPair(recordedArgs, i))],
      args: recordedConfig.args,
    },
    stop: () => spawned.stop(),
  };
}

/** The address the simulator announces in its log ("vllm-perf-gate sim listening on URL"), once it does. */
function listenForAddress(services: LaunchServices): { address: Promise<string>; stop: () => void } {
  let announced: (url: string) => void = () => {};
  const address = new Promise<string>((resolve) => {
    announced = resolve;
  });
  const stop = services.log.onLine((line) => {
    const url = listeningLine.exec(line)?.[1];
    if (url) announced(url.replace("//0.0.0.0:", "//127.0.0.1:").replace(/\/+$/, ""));
  });
  return { address, stop };
}

/** The announced address; a simulator that exits or times out first is stopped and the start fails. */
async function announcedAddress(
  announcement: { address: Promise<string>; stop: () => void },
  spawned: { exited: Promise<unknown>; stop: () => Promise<unknown> },
  services: LaunchServices,
): Promise<string> {
  const timeout = services.clock.sleep(services.startupTimeoutMs).then(() => undefined);
  const url = await Promise.race([announcement.address, spawned.exited.then(() => undefined), timeout]);
  if (url !== undefined) return url;
  announcement.stop();
  await spawned.stop();
  throw new ServerStartError({
    summary:
      'The simulator did not announce its address ("vllm-perf-gate sim listening on ...") before it exited or timed out.',
    stage: "readiness",
    lastLogLines: services.log.lastLines(20),
    logFile: services.log.path,
  });
}

/** A picked port is incidental, not a condition: drop `--port N` from the recorded command line. */
function isPortPair(args: readonly string[], index: number): boolean {
  return args[index] === "--port" || args[index - 1] === "--port";
}

/** The built-in simulator, started as a `vllm-perf-gate sim` process that announces its address. */
export const simEntry: ServerKindEntry<"sim"> = {
  launch: ({ config, model, apiKey, services, startIndex, sharedByCell, recorded }) =>
    launchSim(config, model, services, {
      apiKey,
      startIndex,
      devMode: sharedByCell,
      recorded,
    }),
  settings: (server) => ({ lifecycle: server.lifecycle }),
  usesLocalGpu: false,
  fixedPort: (server) => server.port,
  runningOnPort: nothingElseOnPort,
  passedEnv: () => [],
};
