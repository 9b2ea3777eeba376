import { dockerCliOf, labelledContainersOnPort } from "../docker-cli.js";
import { launchDocker } from "../docker-launcher.js";
import type { ServerKindEntry } from "./entry.js";

/** A pinned container started through the docker CLI (docker-launcher.ts), in dev mode when a cell shares it. */
export const dockerEntry: ServerKindEntry<"docker"> = {
  launch: ({ config, model, services, sharedByCell, recorded }) =>
    launchDocker(config, model, {
      ...services,
      dockerCommand: dockerCliOf(config),
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
  runningOnPort: (server, port, env) => labelledContainersOnPort(dockerCliOf(server), port, { env }),
  passedEnv: (server) => server.env,
};
