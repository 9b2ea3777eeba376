import { z } from "zod";
import { nonEmptyString, nonNegativeInt, port, strictObject } from "../fields.js";
import { apiKeyEnv, serverLifecycle, startupTimeout } from "./fields.js";
import type { ServerKindModule } from "./kind.js";

/** The built-in vLLM-compatible simulator, started as a `vllm-perf-gate sim` process. */
const simServer = strictObject({
  kind: z.literal("sim"),
  profile: nonEmptyString()
    .default("small-gpu")
    .describe("A built-in simulator profile name or a path to a profile file."),
  set: z
    .record(z.string(), z.union([z.number(), z.string(), z.boolean()]))
    .default({})
    .describe("Profile overrides, as `vllm-perf-gate sim --set key=value`."),
  seed: nonNegativeInt()
    .default(0)
    .describe("Seed of the simulator's speed noise; each server start draws from it."),
  port: port().default(0).describe("Port to listen on; 0 picks a free one."),
  args: z
    .array(z.string())
    .default([])
    .describe("Extra vLLM engine flags for the simulator, e.g. [--max-num-seqs, '64']."),
  api_key_env: apiKeyEnv,
  startup_timeout_s: startupTimeout,
  lifecycle: serverLifecycle,
});

export const simKind = {
  schema: simServer,
  launchesProcess: true,
  sidesShareOneServer: null,
  defaultStartSeconds: 1,
  lifecycle: (server) => server.lifecycle,
  describe: (server) =>
    `simulator, profile ${server.profile}${
      Object.keys(server.set).length
        ? ` (${Object.entries(server.set)
            .map(([key, value]) => `${key}=${value}`)
            .join(", ")})`
        : ""
    }`,
  preset: {
    server: `
# The built-in vLLM-compatible simulator: no GPU needed (demos, trying the tool, testing the workflow).
server:
  kind: sim
  profile: small-gpu
  seed: 0
  lifecycle: per-side
`,
    modelName: "sim-model",
  },
} as const satisfies ServerKindModule<typeof simServer>;
