import { z } from "zod";
import { httpUrl, strictObject } from "../fields.js";
import { apiKeyEnv, startupTimeout } from "./fields.js";
import type { ServerKindModule } from "./kind.js";

/** A server someone else runs: nothing is started, it is probed and measured. */
const externalServer = strictObject({
  kind: z.literal("external"),
  base_url: httpUrl().describe(
    "Base URL of a running OpenAI-compatible server, e.g. https://vllm.internal:8000.",
  ),
  metrics_url: httpUrl()
    .optional()
    .describe("Where Prometheus metrics are scraped, when not base_url + /metrics."),
  api_key_env: apiKeyEnv,
  startup_timeout_s: startupTimeout,
});

export const externalKind = {
  schema: externalServer,
  launchesProcess: false,
  // An endpoint this job does not start is one deployment: both sides would measure the same server.
  sidesShareOneServer:
    "the server is external (server.kind: external): both sides would measure the same deployment",
  // Someone else started it: no start is ours to pay for, and one server serves every run (its cache is
  // not reset between cells: it is a deployment, not ours to reset beyond the fresh policy's).
  defaultStartSeconds: 0,
  lifecycle: () => "per-cell",
  describe: (server) => `external ${server.base_url}`,
  deviceProblems: () => [
    {
      path: ["runner", "devices"],
      message:
        "expected no runner.devices with server.kind external (a deployment we do not start cannot be placed on a device)",
    },
  ],
  preset: {
    server: `
# A server the team already runs (e.g. a multi-node deployment): nothing is started, it is probed and measured.
server:
  kind: external
  base_url: \${VLLM_BASE_URL:-http://127.0.0.1:8000}
  api_key_env: VLLM_API_KEY  # the name of the variable holding the key, never the key itself
  startup_timeout_s: 60
`,
    modelName: "Qwen/Qwen3-0.6B",
  },
} as const satisfies ServerKindModule<typeof externalServer>;
