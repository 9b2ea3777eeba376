import { z } from "zod";
import { envVarName, nonEmptyString, port, strictObject } from "../fields.js";
import { apiKeyEnv, serverLifecycle, startupTimeout } from "./fields.js";
import type { ServerKindModule } from "./kind.js";

/** A pinned vLLM container (docker or podman), started per the lifecycle. */
const dockerServer = strictObject({
  kind: z.literal("docker"),
  image: nonEmptyString("a container image such as vllm/vllm-openai@sha256:...").describe(
    "The vLLM image, pinned by digest (vllm/vllm-openai@sha256:...) for reproducibility; a tag-only pin gets a warning.",
  ),
  args: z
    .array(z.string())
    .default([])
    .describe("vLLM engine arguments passed after the image, e.g. [--max-num-seqs, '256']."),
  env: z
    .array(envVarName())
    .default([])
    .describe(
      "Names of environment variables passed through to the container, e.g. [HF_TOKEN]. Their values are redacted from logs.",
    ),
  gpus: nonEmptyString()
    .default("all")
    .describe(
      "Value for docker --gpus (all, a count, or device=0,1); none: no --gpus flag (a CPU-only image, or a runtime that hands out GPUs itself).",
    ),
  port: port().default(8000).describe("Host port the server listens on."),
  publish_address: nonEmptyString()
    .default("127.0.0.1")
    .describe(
      "Host address the port is published on (docker --publish ADDRESS:PORT:...): loopback by default, so the dev-mode endpoints of a shared server are not reachable from the network; 0.0.0.0 publishes on every interface.",
    ),
  hf_cache_dir: z
    .string()
    // docker takes a bare name as a named volume (an empty cache) and does not expand ~.
    .refine((path) => path.startsWith("/"), {
      message:
        "expected an absolute host directory such as /home/runner/.cache/huggingface (docker takes a bare name as a named volume, and does not expand ~)",
    })
    .optional()
    .describe("Host directory mounted as /root/.cache/huggingface so weights are not downloaded each run."),
  docker_args: z
    .array(z.string())
    .default([])
    .refine(
      (args) =>
        !args.some(
          (arg, i) =>
            /^--net(work)?=host$/.test(arg) || (/^--net(work)?$/.test(arg) && args[i + 1] === "host"),
        ),
      {
        message:
          "--network host is not supported: docker then drops --publish, and the server is never reached at server.port (remove it; the port is published on server.publish_address)",
      },
    )
    .describe("Extra arguments for docker run itself (before the image)."),
  docker_command: z
    .array(nonEmptyString())
    .min(1, "expected a non-empty list such as [docker] or [podman]")
    .default(["docker"])
    .describe(
      "The docker command line, before each subcommand: [docker], [podman], [sudo, docker], a wrapper script, or [docker, --context, NAME] for a remote daemon.",
    ),
  api_key_env: apiKeyEnv,
  startup_timeout_s: startupTimeout,
  lifecycle: serverLifecycle,
});

export const dockerKind = {
  schema: dockerServer,
  launchesProcess: true,
  sidesShareOneServer: null,
  defaultStartSeconds: 180,
  lifecycle: (server) => server.lifecycle,
  describe: (server) => `docker ${server.image}${server.args.length ? ` ${server.args.join(" ")}` : ""}`,
  warnings: (server, shown) =>
    /@sha256:[0-9a-f]{64}$/.test(server.image)
      ? []
      : [
          `server.image is pinned by tag only (${shown.image}): a re-pushed tag changes the server silently; pin it by digest (image@sha256:...)`,
        ],
  preset: {
    server: `
# How the server is started. The image is pinned by digest so that a new image is a declared change, not noise.
# REPLACE the zeros below with the digest of the tag you want; it is printed by:
#   docker pull vllm/vllm-openai:v0.11.0 && docker inspect --format '{{index .RepoDigests 0}}' vllm/vllm-openai:v0.11.0
# (until then pulling the image fails: no image has that digest).
server:
  kind: docker
  image: vllm/vllm-openai:v0.11.0@sha256:0000000000000000000000000000000000000000000000000000000000000000
  args: [--max-num-seqs, "256", --max-num-batched-tokens, "8192", --generation-config, vllm]
  env: [HF_TOKEN]            # names only: values come from the runner's environment and are redacted from logs
  gpus: all
  port: 8000
  hf_cache_dir: /opt/hf-cache
  startup_timeout_s: 900
  lifecycle: per-side        # one server per side for every cell, prefix cache reset between cells; per-cell / per-run start more often
`,
    modelName: "Qwen/Qwen3-0.6B",
  },
} as const satisfies ServerKindModule<typeof dockerServer>;
