import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { describeValue } from "../config/fields.js";

/**
 * Every knob of the simulator in one table: the zod schema is the single source of truth for profile
 * files, `--set`, POST /admin/config, `sim --help` and docs/sim.md.
 */
const int = (min: number) => z.number().int().min(min);
const num = (min: number) => z.number().min(min).finite();
const frac = () => z.number().min(0).max(1);

export const knobSpecs = {
  // Engine (vLLM's own flags).
  max_num_seqs: { schema: int(1), help: "most sequences running at once (vLLM --max-num-seqs)" },
  max_num_batched_tokens: {
    schema: int(1),
    help: "token budget of one step: decodes + prefill chunks (vLLM --max-num-batched-tokens)",
  },
  max_model_len: { schema: int(2), help: "context length: prompt + output tokens (vLLM --max-model-len)" },
  block_size: { schema: int(1), help: "tokens per KV-cache block (vLLM --block-size)" },
  num_gpu_blocks: { schema: int(1), help: "KV-cache capacity in blocks (before the fp8 capacity factor)" },
  enable_prefix_caching: {
    schema: z.boolean(),
    help: "reuse full prompt blocks across requests (vLLM --[no-]enable-prefix-caching)",
  },
  cache_dtype: {
    schema: z.string().min(1),
    help: 'KV-cache dtype (vLLM --kv-cache-dtype); "fp8*" applies the fp8_* factors below',
  },
  gpu_memory_utilization: { schema: frac(), help: "reported in cache_config_info only" },
  // Step timing (milliseconds).
  step_overhead_ms: { schema: num(0), help: "fixed cost of every engine step" },
  prefill_per_token_ms: { schema: num(0), help: "cost per prompt token computed in a step" },
  decode_per_seq_ms: { schema: num(0), help: "cost per sequence decoding one token in a step" },
  attention_per_context_token_ms: {
    schema: num(0),
    help: "cost per context token (prompt + output so far) of each decoding sequence",
  },
  decode_compute_per_token_ms: {
    schema: num(0),
    help: "compute time per token decoded in a step (roofline): the decode part of a step takes the larger of its memory-bound time (step_overhead_ms + decode_per_seq_ms and attention terms) and this x decoded tokens, so past the knee step time grows faster and throughput flattens before max_num_seqs; 0 = memory-bound only",
  },
  prefill_attention_per_token_pair_ms: {
    schema: num(0),
    help: "cost per (prefill token x earlier token it attends to): makes prefill grow with the prompt length squared",
  },
  speed_factor: { schema: num(0.001), help: "fixed multiplier of every step time (1 = profile speed)" },
  device_speed_factors: {
    schema: z
      .string()
      .regex(
        /^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/,
        'expected comma-separated positive numbers, e.g. "1,1.1" (device 0 at profile speed, device 1 10% slower)',
      ),
    help: "step-time multiplier of each simulated GPU, by device index (--device K, as runner.devices assigns them): the K-th entry from 0; devices beyond the list run at 1 (a runner whose GPUs are not all equally fast)",
  },
  speed_sigma: {
    schema: num(0),
    help: "log-normal sigma of the per-server-start speed factor of every step, drawn from --seed: the start-to-start spread of throughput and TPOT (0.01 = about 1%, as between fresh vLLM starts on one GPU)",
  },
  prefill_speed_sigma: {
    schema: num(0),
    help: "log-normal sigma of a second per-server-start factor, on the prefill cost terms only (prefill_per_token_ms, prefill_attention_per_token_pair_ms), drawn from --seed: the heavier start-to-start spread of TTFT (0.03 = about 3% on prefill)",
  },
  slow_start_share: {
    schema: frac(),
    help: "chance that a server start is a slow one (drawn from --seed): every step of that start takes slow_start_factor times as long, a fat tail of start-to-start speed (a kernel or tile choice made at start); 0 = never",
  },
  slow_start_factor: {
    schema: num(1),
    help: "step-time multiplier of a slow start (slow_start_share)",
  },
  jitter_sigma: {
    schema: num(0),
    help: "log-normal sigma of the per-step time multiplier (step-to-step noise)",
  },
  fp8_kv_capacity_factor: { schema: num(0.001), help: "with cache_dtype fp8*: multiplies num_gpu_blocks" },
  fp8_prefill_factor: { schema: num(0.001), help: "with cache_dtype fp8*: multiplies prefill_per_token_ms" },
  fp8_decode_factor: {
    schema: num(0.001),
    help: "with cache_dtype fp8*: multiplies decode_per_seq_ms and attention_per_context_token_ms",
  },
  // Outputs.
  eos_mean_tokens: {
    schema: num(0),
    help: "mean output length when ignore_eos is false (seeded geometric EOS); 0 = never EOS",
  },
  tokens_per_chunk: { schema: int(1), help: "tokens per SSE chunk (k > 1 bundles tokens, as a fault)" },
  coalesce_late_tokens: {
    schema: z.boolean(),
    help: "when the simulator falls behind its timeline, a request's tokens from the steps already due go as one chunk (as vLLM V1's output collector merges outputs its lagging front end has not sent); false = one chunk per token, written back to back",
  },
  vllm_version: {
    schema: z
      .string()
      .regex(
        /^(0\.(1[0-9]|[2-9][0-9])|[1-9][0-9]*\.[0-9]+)(\.[0-9]+)?(([.+-]|[a-z])[0-9A-Za-z.+-]*)?$/,
        "expected a vLLM version of 0.10 or later, such as 0.10.2, 0.11.0 or 0.12.0",
      ),
    help: "what GET /version reports; its minor line selects the exported metric families (0.10, 0.11, 0.12 and later = current)",
  },
  // Speculative decoding (off at 0 drafts).
  spec_decode_num_tokens: {
    schema: int(0),
    help: "draft tokens proposed per decode step (vLLM num_speculative_tokens); 0 = no speculative decoding",
  },
  spec_decode_acceptance_t0: {
    schema: frac(),
    help: "chance that each draft token is accepted (given the ones before it were) at temperature 0",
  },
  spec_decode_acceptance_t1: {
    schema: frac(),
    help: "the same at temperature 1; linear in between, extended to temperature 2",
  },
  spec_decode_draft_per_token_ms: {
    schema: num(0),
    help: "cost of proposing one draft token for one sequence (the draft model's share of the step)",
  },
  disable_log_stats: {
    schema: z.boolean(),
    help: "/metrics carries no vllm:* metrics, as with vLLM --disable-log-stats",
  },
  enable_prompt_tokens_details: {
    schema: z.boolean(),
    help: "final usage carries prompt_tokens_details.cached_tokens (vLLM --enable-prompt-tokens-details)",
  },
  // Reasoning and tool calls (docs/sim.md): what a chat answer is made of, drawn per request.
  reasoning_tokens_mean: {
    schema: num(0),
    help: "mean reasoning tokens a chat answer streams before its answer (as with vLLM --reasoning-parser), drawn per request from (prompt, seed, model_revision); the field is delta.reasoning from vllm_version 0.16 on, delta.reasoning_content before; 0 = no reasoning",
  },
  reasoning_tokens_spread: {
    schema: frac(),
    help: "the reasoning tokens are uniform within mean x (1 ± spread)",
  },
  tool_call_share: {
    schema: frac(),
    help: "share of chat requests declaring tools whose answer (after any reasoning) is one tool call to a declared tool, finish_reason tool_calls",
  },
  tool_call_malformed_share: {
    schema: frac(),
    help: "share of those tool calls whose arguments are streamed cut short (not JSON)",
  },
  // Output quality (docs/quality.md): what the outputs are, and faults that change them.
  model_revision: {
    schema: int(0),
    help: "the weights' revision: at temperature 0 a request's tokens and EOS are a function of (prompt, model_revision)",
  },
  logprob_drift: {
    schema: num(0),
    help: "nats taken off each chosen token's logprob (a numerics change that keeps the tokens)",
  },
  task_accuracy: {
    schema: frac(),
    help: "chance that a built-in task (dataset type tasks) is answered right, drawn per prompt and model_revision",
  },
  quality_changed_share: {
    schema: frac(),
    help: "share of prompts whose greedy output diverges from the unchanged model's (same length, other tokens after a seeded position)",
  },
  quality_truncate_share: {
    schema: frac(),
    help: "share of requests that stop early (EOS at a quarter of the planned length, finish_reason stop)",
  },
  quality_garbage_share: {
    schema: frac(),
    help: "share of requests that emit garbage tokens and never EOS (run to max_tokens), as the FP8 KV-cache bugs did",
  },
  quality_garbage_keeps_length: {
    schema: z.boolean(),
    help: "garbage keeps the planned length and finish reason (only the greedy-output check sees it)",
  },
  // Faults.
  fault_error_rate: {
    schema: frac(),
    help: "share of /v1 generation requests answered with an error status",
  },
  fault_error_status: { schema: int(400).max(599), help: "HTTP status of fault_error_rate errors" },
  fault_midstream_error_rate: {
    schema: frac(),
    help: 'share of streams that send data: {"error":...} then [DONE] after fault_after_tokens tokens',
  },
  fault_reset_rate: {
    schema: frac(),
    help: "share of streams whose connection is reset after fault_after_tokens",
  },
  fault_after_tokens: { schema: int(0), help: "tokens sent before a mid-stream error or reset" },
  fault_exit_after_requests: {
    schema: int(0),
    help: "the engine dies (process exits under the CLI) after N generation requests; 0 = never",
  },
  fault_hang_after_requests: {
    schema: int(0),
    help: "after N generation requests every stream stops sending (health stays 200); 0 = never",
  },
  fault_stall_ms: {
    schema: num(0),
    help: "the simulator's process blocks this long (ms) after every fault_stall_every_steps-th step delivery, as a starved host would; 0 = never",
  },
  fault_stall_every_steps: { schema: int(1), help: "step deliveries between two fault_stall_ms stalls" },
  startup_delay_s: { schema: num(0), help: "slow start: /health and /v1 answer 503 for this many seconds" },
  engine_dead: { schema: z.boolean(), help: "the engine is dead: /health 503, generation requests 500" },
} as const;

export type KnobName = keyof typeof knobSpecs;
export const knobNames = Object.keys(knobSpecs) as KnobName[];

type KnobValues = { [K in KnobName]: z.infer<(typeof knobSpecs)[K]["schema"]> };
export type SimProfile = KnobValues & { name: string; description: string };

export const knobsSchema = z.strictObject(
  Object.fromEntries(knobNames.map((name) => [name, knobSpecs[name].schema])) as {
    [K in KnobName]: (typeof knobSpecs)[K]["schema"];
  },
);

const simProfileFileSchema = z.strictObject({
  schemaVersion: z.literal(1),
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  base: z.string().min(1).default("small-gpu").describe("built-in profile the file's knobs override"),
  knobs: knobsSchema.partial().default({}),
});

const noFaults = {
  model_revision: 0,
  logprob_drift: 0,
  task_accuracy: 0.95,
  quality_changed_share: 0,
  quality_truncate_share: 0,
  quality_garbage_share: 0,
  quality_garbage_keeps_length: false,
  fault_error_rate: 0,
  fault_error_status: 500,
  fault_midstream_error_rate: 0,
  fault_reset_rate: 0,
  fault_after_tokens: 1,
  fault_exit_after_requests: 0,
  fault_hang_after_requests: 0,
  fault_stall_ms: 0,
  fault_stall_every_steps: 100,
  startup_delay_s: 0,
  engine_dead: false,
} as const;

const smallGpu: SimProfile = {
  name: "small-gpu",
  description: "default; fast steps (about 2 ms) so a 200-request cell finishes in seconds",
  max_num_seqs: 256,
  max_num_batched_tokens: 2048,
  max_model_len: 4096,
  block_size: 16,
  num_gpu_blocks: 8192,
  enable_prefix_caching: true,
  cache_dtype: "auto",
  gpu_memory_utilization: 0.9,
  step_overhead_ms: 2,
  prefill_per_token_ms: 0.004,
  decode_per_seq_ms: 0.03,
  attention_per_context_token_ms: 0.000004,
  decode_compute_per_token_ms: 0,
  prefill_attention_per_token_pair_ms: 0,
  speed_factor: 1,
  device_speed_factors: "1",
  // Start-to-start spread at the published magnitudes (docs/sim.md, Server starts): about 1% on every
  // step (throughput, TPOT), about 3% more on prefill (TTFT); no slow starts unless asked for.
  speed_sigma: 0.01,
  prefill_speed_sigma: 0.03,
  slow_start_share: 0,
  slow_start_factor: 1.15,
  jitter_sigma: 0.02,
  fp8_kv_capacity_factor: 2,
  fp8_prefill_factor: 1.1,
  fp8_decode_factor: 0.95,
  eos_mean_tokens: 256,
  tokens_per_chunk: 1,
  coalesce_late_tokens: false,
  vllm_version: "0.11.0",
  spec_decode_num_tokens: 0,
  spec_decode_acceptance_t0: 0.8,
  spec_decode_acceptance_t1: 0.6,
  spec_decode_draft_per_token_ms: 0.01,
  enable_prompt_tokens_details: false,
  reasoning_tokens_mean: 0,
  reasoning_tokens_spread: 0.5,
  tool_call_share: 0,
  tool_call_malformed_share: 0,
  disable_log_stats: false,
  ...noFaults,
};

/** Illustrative shapes, not measurements of any GPU: each exists because a test or the demo needs it. */
export const builtInProfiles: Readonly<Record<string, SimProfile>> = {
  "small-gpu": smallGpu,
  noiseless: {
    ...smallGpu,
    name: "noiseless",
    description: "small-gpu without speed noise or jitter: timings equal the formula (fidelity tests)",
    speed_sigma: 0,
    prefill_speed_sigma: 0,
    jitter_sigma: 0,
  },
  "large-gpu": {
    ...smallGpu,
    name: "large-gpu",
    description: "an 80 GB-class card: vLLM's large defaults (1024 seqs, 8192 tokens), 4x KV, cheaper decode",
    max_num_seqs: 1024,
    max_num_batched_tokens: 8192,
    max_model_len: 8192,
    num_gpu_blocks: 32768,
    step_overhead_ms: 1.5,
    prefill_per_token_ms: 0.002,
    decode_per_seq_ms: 0.015,
    attention_per_context_token_ms: 0.000002,
  },
  "slow-gpu": {
    ...smallGpu,
    name: "slow-gpu",
    description: "realistic-looking latencies for the demo (ITL from about 15 ms, TTFT tens of ms)",
    max_num_seqs: 128,
    step_overhead_ms: 15,
    prefill_per_token_ms: 0.05,
    decode_per_seq_ms: 0.1,
    attention_per_context_token_ms: 0.00002,
  },
  "tiny-kv": {
    ...smallGpu,
    name: "tiny-kv",
    description: "small-gpu with a KV cache of 64 blocks x 16 tokens (1024 tokens): preemptions under load",
    num_gpu_blocks: 64,
    max_model_len: 1024,
  },
  "fp8-kv": {
    ...smallGpu,
    name: "fp8-kv",
    description: "small-gpu with cache_dtype fp8: 2x KV capacity, 5% cheaper decode, 10% costlier prefill",
    cache_dtype: "fp8",
  },
  "gpu-shaped": {
    ...smallGpu,
    name: "gpu-shaped",
    description:
      "the load shape of a GPU: throughput bends well before max_num_seqs, prefill grows with the prompt squared",
    step_overhead_ms: 6,
    prefill_per_token_ms: 0.02,
    prefill_attention_per_token_pair_ms: 0.000004,
    decode_per_seq_ms: 0.08,
    attention_per_context_token_ms: 0.00004,
    // Compute-bound past about 64 decoding sequences (6 ms / (0.2 - 0.08 - attention)): throughput
    // flattens there, as a GPU's does once a decode step is no longer bound by reading the weights.
    decode_compute_per_token_ms: 0.2,
  },
  "spec-decode": {
    ...smallGpu,
    name: "spec-decode",
    description:
      "small-gpu with a draft model proposing 3 tokens per step; acceptance falls with temperature (0.8 at 0, 0.6 at 1)",
    spec_decode_num_tokens: 3,
  },
};

export class ProfileError extends Error {
  override readonly name = "ProfileError";
}

export function builtInProfile(name: string): SimProfile {
  const profile = builtInProfiles[name];
  if (!profile) {
    throw new ProfileError(
      `unknown simulator profile "${name}": expected one of ${Object.keys(builtInProfiles).join(", ")} or a profile file path`,
    );
  }
  return { ...profile };
}

function formatIssues(where: string, error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join(".") : "(top level)";
      return `${where}: field "${field}": ${issue.message}`;
    })
    .join("\n");
}

/** Applies overrides atomically: all valid or none applied. */
export function applyOverrides(
  profile: SimProfile,
  overrides: Readonly<Record<string, unknown>>,
  where = "override",
): SimProfile {
  const parsed = knobsSchema.partial().safeParse(overrides);
  if (!parsed.success) throw new ProfileError(formatIssues(where, parsed.error));
  return { ...profile, ...parsed.data };
}

/** `--set key=value` text to a typed value, using the knob's own type. */
export function parseSetting(text: string): [KnobName, unknown] {
  const eq = text.indexOf("=");
  if (eq <= 0) throw new ProfileError(`--set ${describeValue(text)}: expected key=value`);
  const key = text.slice(0, eq).trim().replaceAll("-", "_");
  const raw = text.slice(eq + 1).trim();
  if (!(key in knobSpecs)) {
    throw new ProfileError(`--set: unknown knob "${key}": expected one of ${knobNames.join(", ")}`);
  }
  return [key as KnobName, coerceKnob(key as KnobName, raw)];
}

function coerceKnob(key: KnobName, raw: string | number | boolean): unknown {
  if (typeof raw !== "string") return raw;
  const sample = builtInProfiles["small-gpu"]![key];
  if (typeof sample === "number") {
    const value = Number(raw);
    return raw === "" || !Number.isFinite(value) ? raw : value;
  }
  if (typeof sample === "boolean") {
    if (/^(true|1|yes|on)$/i.test(raw)) return true;
    if (/^(false|0|no|off)$/i.test(raw)) return false;
  }
  return raw;
}

export function coerceOverrides(
  set: Readonly<Record<string, string | number | boolean>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [rawKey, value] of Object.entries(set)) {
    const key = rawKey.replaceAll("-", "_");
    out[key] = key in knobSpecs ? coerceKnob(key as KnobName, value) : value;
  }
  return out;
}

/** A profile file (JSON or YAML): `schemaVersion: 1`, `base`, `knobs`. */
function loadProfileFile(path: string): SimProfile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ProfileError(`${path}: cannot read the profile file (${(error as Error).message})`);
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new ProfileError(`${path}: not valid YAML/JSON (${(error as Error).message})`);
  }
  const parsed = simProfileFileSchema.safeParse(data);
  if (!parsed.success) throw new ProfileError(formatIssues(path, parsed.error));
  let base: SimProfile;
  try {
    base = builtInProfile(parsed.data.base);
  } catch (error) {
    throw new ProfileError(`${path}: field "base": ${(error as Error).message}`);
  }
  return {
    ...base,
    ...parsed.data.knobs,
    name: parsed.data.name ?? path,
    description: parsed.data.description ?? `${parsed.data.base} with overrides from ${path}`,
  };
}

/** A name of a built-in profile, or else a path to a profile file. */
export function resolveProfile(profile: string | SimProfile | undefined): SimProfile {
  if (profile === undefined) return builtInProfile("small-gpu");
  if (typeof profile !== "string") {
    const { name, description, ...knobs } = profile;
    return applyOverrides({ ...builtInProfile("small-gpu"), name, description }, knobs, `profile ${name}`);
  }
  if (profile in builtInProfiles) return builtInProfile(profile);
  if (/[/\\.]/.test(profile)) return loadProfileFile(profile);
  return builtInProfile(profile);
}

/**
 * vLLM refuses to start when the KV cache cannot hold one request of max_model_len tokens
 * (check_enough_kv_cache_memory in vllm/v1/core/kv_cache_utils.py @ v0.11.0); so does the simulator.
 */
export function checkKvCapacity(profile: SimProfile, where = "profile"): void {
  const blocks = effectiveCosts(profile).numGpuBlocks;
  const needed = Math.ceil(profile.max_model_len / profile.block_size);
  if (blocks >= needed) return;
  const estimated = blocks * profile.block_size;
  throw new ProfileError(
    `${where}: field "num_gpu_blocks": to serve at least one request with the model's max seq len (${profile.max_model_len}), ${needed} KV-cache blocks of ${profile.block_size} tokens are needed, more than the ${blocks} available. Based on the available memory, the estimated maximum model length is ${estimated}. Try increasing \`gpu_memory_utilization\` (num_gpu_blocks) or decreasing \`max_model_len\` when initializing the engine.`,
  );
}

/** Which exported metric families a vLLM version has: the 0.10 line, the 0.11 line, or 0.12 and later. */
export type MetricSet = "0.10" | "0.11" | "current";

export function metricSetOf(version: string): MetricSet {
  const [major, minor] = version.split(".").map((part) => Number.parseInt(part, 10)) as [number, number];
  if (major === 0 && minor <= 10) return "0.10";
  if (major === 0 && minor === 11) return "0.11";
  return "current";
}

/** The effective engine numbers after the fp8 trade-off, so the engine reads one place. */
export interface EffectiveCosts {
  numGpuBlocks: number;
  prefillPerTokenMs: number;
  decodePerSeqMs: number;
  attentionPerContextTokenMs: number;
  decodeComputePerTokenMs: number;
}

export function effectiveCosts(profile: SimProfile): EffectiveCosts {
  const fp8 = profile.cache_dtype.toLowerCase().startsWith("fp8");
  return {
    numGpuBlocks: fp8
      ? Math.max(1, Math.floor(profile.num_gpu_blocks * profile.fp8_kv_capacity_factor))
      : profile.num_gpu_blocks,
    prefillPerTokenMs: profile.prefill_per_token_ms * (fp8 ? profile.fp8_prefill_factor : 1),
    decodePerSeqMs: profile.decode_per_seq_ms * (fp8 ? profile.fp8_decode_factor : 1),
    attentionPerContextTokenMs:
      profile.attention_per_context_token_ms * (fp8 ? profile.fp8_decode_factor : 1),
    decodeComputePerTokenMs: profile.decode_compute_per_token_ms,
  };
}

/** The step-time multiplier of simulated device `device` (profile device_speed_factors; 1 beyond the list). */
export function deviceSpeedFactor(profile: Pick<SimProfile, "device_speed_factors">, device: number): number {
  const factor = Number(profile.device_speed_factors.split(",")[device]);
  return Number.isFinite(factor) && factor > 0 ? factor : 1;
}
