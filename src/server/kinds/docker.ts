import { dockerCliOf } from "../docker-cli.js";
import { launchDocker } from "../docker-launcher.js";
import type { ServerKindEntry } from "./entry.js";

/** A pinned container started through the docker CLI (docker-launcher.ts), in dev mode when a cell shares it. */
export const dockerEntry: ServerKindEntry<"docker"> = {
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
};
