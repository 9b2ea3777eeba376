import { createHash } from "node:crypto";
import { z } from "zod";
import type { ModelConfig, SamplingConfig } from "../config/schema.js";
import { serverKinds } from "../config/server-kinds.js";
import type { GpuInventory } from "./nvidia-smi.js";
import type { ServedModel } from "./probe.js";

/**
 * The conditions of a run, as a plain record that two runs can be diffed on field by field. Built purely
 * from facts gathered elsewhere (probes, nvidia-smi, docker inspect, the environment), so it is testable and
 * identical inputs always give an identical fingerprint.
 */
const fingerprintSchemaVersion = 1;

const nullableString = z.string().nullable();

export const fingerprintSchema = z.object({
  schemaVersion: z.literal(fingerprintSchemaVersion),
  tool: z.object({ name: z.string(), version: z.string() }),
  server: z.object({
    kind: z.enum(serverKinds),
    image: nullableString.describe("Image reference as configured (docker)."),
    imageDigest: nullableString.describe("Resolved repo digest, e.g. vllm/vllm-openai@sha256:... (docker)."),
    imageId: nullableString
      .optional()
      .describe(
        "Local image ID (docker image inspect .Id, sha256:...): the identity of an image without a repo digest (built, imported or loaded) (docker).",
      ),
    command: z
      .array(z.string())
      .nullable()
      .describe("Command line (command and sim kinds), secrets redacted."),
    args: z.array(z.string()).describe("Engine arguments passed to vLLM (or the simulator)."),
    vllmVersion: nullableString.describe("From GET /version."),
    servedModels: z.array(z.string()),
    maxModelLen: z.number().nullable(),
    cacheConfig: z.record(z.string(), z.string()).nullable().describe("Labels of vllm:cache_config_info."),
    settings: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "How the server was started beyond image, command and args (docker gpus and docker_args, names of the variables passed, lifecycle), as the config says it (templates).",
      ),
  }),
  model: z.object({
    name: z.string(),
    source: nullableString,
    revision: nullableString,
    tokenizerRevision: nullableString,
  }),
  sampling: z.record(z.string(), z.unknown()).nullable(),
  gpu: z
    .object({
      count: z.number().int().nonnegative(),
      names: z.array(z.string()),
      memoryTotalMiB: z.array(z.number()),
      driverVersion: nullableString,
      cudaVersion: nullableString,
    })
    .nullable(),
  runner: z.object({
    os: nullableString,
    name: nullableString,
    arch: nullableString,
    device: nullableString
      .optional()
      .describe(
        "The devices the server ran on (runner.devices: docker --gpus device=K, CUDA_VISIBLE_DEVICES=K, the simulator's --device K); absent: the GPUs its config names. Informational: a crossover measures both sides on every device by design.",
      ),
  }),
  configHash: nullableString,
});

export type Fingerprint = z.output<typeof fingerprintSchema>;

export interface FingerprintFacts {
  readonly tool: { name: string; version: string };
  readonly server: {
    kind: Fingerprint["server"]["kind"];
    image?: string | null;
    imageDigest?: string | null;
    imageId?: string | null;
    command?: readonly string[] | null;
    args: readonly string[];
    /** See serverSettings (kinds.ts). */
    settings?: Readonly<Record<string, unknown>>;
  };
  readonly probes: {
    vllmVersion: string | null;
    servedModels: readonly ServedModel[];
    cacheConfig: Record<string, string> | null;
  };
  readonly model: ModelConfig;
  readonly sampling?: SamplingConfig | Record<string, unknown> | null;
  readonly gpu: GpuInventory | null;
  /** The devices the server runs on (runner.devices); null: the GPUs its config names. */
  readonly device?: string | null;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly configHash?: string | null;
}

/**
 * The conditions of a run as the server and the config state them. The config's fields arrive as
 * templates (templateView); any secret value still found anywhere (a server echoing it in /v1/models or
 * its cache config, an engine flag built from it) is recorded as its reference `${NAME}` by the runner,
 * through the job's output seam (outbound.ts `references`).
 */
export function buildFingerprint(facts: FingerprintFacts): Fingerprint {
  const served = facts.probes.servedModels;
  const primary = served.find((model) => model.id === facts.model.name) ?? served[0];
  return {
    schemaVersion: fingerprintSchemaVersion,
    tool: { ...facts.tool },
    server: {
      kind: facts.server.kind,
      image: facts.server.image ?? null,
      imageDigest: facts.server.imageDigest ?? null,
      ...(facts.server.imageId !== undefined ? { imageId: facts.server.imageId } : {}),
      command: facts.server.command ? [...facts.server.command] : null,
      args: [...facts.server.args],
      vllmVersion: facts.probes.vllmVersion,
      servedModels: served.map((model) => model.id).sort(),
      maxModelLen: primary?.maxModelLen ?? null,
      cacheConfig: facts.probes.cacheConfig,
      ...(facts.server.settings ? { settings: sortKeys(facts.server.settings) } : {}),
    },
    model: {
      name: facts.model.name,
      source: facts.model.source ?? null,
      revision: facts.model.revision ?? null,
      tokenizerRevision: facts.model.tokenizer_revision ?? null,
    },
    sampling: facts.sampling ? sortKeys(facts.sampling) : null,
    gpu: facts.gpu
      ? {
          count: facts.gpu.count,
          names: [...facts.gpu.names],
          memoryTotalMiB: [...facts.gpu.memoryTotalMiB],
          driverVersion: facts.gpu.driverVersion,
          cudaVersion: facts.gpu.cudaVersion,
        }
      : null,
    runner: {
      os: facts.env.RUNNER_OS ?? null,
      name: facts.env.RUNNER_NAME ?? null,
      arch: facts.env.RUNNER_ARCH ?? null,
      ...(facts.device ? { device: facts.device } : {}),
    },
    configHash: facts.configHash ?? null,
  };
}

function sortKeys(record: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** JSON with object keys sorted at every level: equal values always serialise identically. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? sortKeys(inner as Record<string, unknown>)
      : inner,
  );
}

/** sha256 of the canonical JSON of a (parsed) config, so key order and formatting do not change it. */
export function hashConfig(config: unknown): string {
  return createHash("sha256").update(canonicalJson(config)).digest("hex");
}
