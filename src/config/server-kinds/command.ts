import { z } from "zod";
import { nonEmptyString, port, strictObject } from "../fields.js";
import { apiKeyEnv, serverLifecycle, startupTimeout } from "./fields.js";
import type { ServerKindModule } from "./kind.js";

/** Any command line that serves vLLM's API (vLLM from a virtualenv, a wrapper script), started as its own process group. */
const commandServer = strictObject({
  kind: z.literal("command"),
  argv: z
    .array(z.string())
    .min(1, "expected a non-empty list such as [vllm, serve, MODEL]")
    .describe(
      "The command and its arguments, e.g. [.venv/bin/vllm, serve, Qwen/Qwen3-0.6B, --port, '8000'].",
    ),
  env: z.record(z.string(), z.string()).default({}).describe("Extra environment for the process."),
  cwd: z.string().optional().describe("Working directory of the process."),
  port: port().default(8000).describe("Port the command's server listens on."),
  host: nonEmptyString().default("127.0.0.1").describe("Host the client connects to."),
  api_key_env: apiKeyEnv,
  startup_timeout_s: startupTimeout,
  lifecycle: serverLifecycle,
});

export const commandKind = {
  schema: commandServer,
  launchesProcess: true,
  sidesShareOneServer: null,
  defaultStartSeconds: 180,
  lifecycle: (server) => server.lifecycle,
  describe: (server) => `command ${server.argv.join(" ")}`,
  deviceProblems: (server, devices) =>
    devices.length > 1 && !server.argv.some((arg) => arg.includes("{port}"))
      ? [
          {
            path: ["server", "argv"],
            message: `expected {port} in server.argv with ${devices.length} runner.devices (each device's server listens on server.port + its position: --port, "{port}")`,
          },
        ]
      : [],
  preset: {
    server: `
# How the server is started: any command line, e.g. vLLM from a virtualenv on the runner.
server:
  kind: command
  argv: [.venv/bin/vllm, serve, Qwen/Qwen3-0.6B, --port, "8000", --max-num-seqs, "256", --generation-config, vllm]
  env: { VLLM_SERVER_DEV_MODE: "1" }   # lets the gate reset the prefix cache between runs
  port: 8000
  startup_timeout_s: 900
  lifecycle: per-side
`,
    modelName: "Qwen/Qwen3-0.6B",
  },
} as const satisfies ServerKindModule<typeof commandServer>;
