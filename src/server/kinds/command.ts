import type { ServerConfigOf } from "../../config/server-kinds.js";
import { ServerStartError } from "../errors.js";
import type { LaunchedServer, LaunchServices } from "../launch.js";
import { deviceEnv, devModeEnv, withDevice } from "../process-kinds.js";
import { spawnServerProcess } from "../process-launcher.js";
import { nothingElseOnPort, type ServerKindEntry } from "./entry.js";

type CommandConfig = ServerConfigOf<"command">;

async function launchCommand(
  config: CommandConfig,
  services: LaunchServices,
  options: { devMode: boolean; recorded?: CommandConfig },
): Promise<LaunchedServer> {
  const argv = withDevice(config.argv, services.device, config.port);
  // Printed and recorded as the config writes it: `${VAR}` stays a template (it may be a secret; the log
  // and the run's fingerprint go through the job's output seam too); the condition keeps `{port}` and
  // `{device}` as written, so the servers of several devices record alike.
  const recordedArgv = (options.recorded ?? config).argv;
  services.log.note(`starting: ${withDevice(recordedArgv, services.device, config.port).join(" ")}`);
  const spawned = await spawnServerProcess(
    argv,
    {
      cwd: config.cwd,
      env: { ...services.env, ...devModeEnv(options.devMode), ...deviceEnv(services.device), ...config.env },
      kind: "command",
      port: config.port,
    },
    services,
  );
  if ("spawnError" in spawned) {
    throw new ServerStartError({
      summary: `server.argv could not be started: ${spawned.spawnError}.`,
      stage: "launch",
      logFile: services.log.path,
    });
  }
  const baseUrl = `http://${config.host}:${config.port}`;
  return {
    baseUrl,
    metricsUrl: `${baseUrl}/metrics`,
    port: config.port,
    exited: spawned.exited,
    conditions: { command: recordedArgv, args: recordedArgv.slice(1) },
    stop: () => spawned.stop(),
  };
}

/** Any command line, started as the leader of its own process group. */
export const commandEntry: ServerKindEntry<"command"> = {
  launch: ({ config, services, sharedByCell, recorded }) =>
    launchCommand(config, services, { devMode: sharedByCell, recorded: recorded.server }),
  settings: (server) => ({ env: Object.keys(server.env).sort(), lifecycle: server.lifecycle }),
  usesLocalGpu: true,
  fixedPort: (server) => server.port,
  runningOnPort: nothingElseOnPort,
  passedEnv: () => [],
};
