import { b as systemClock, U as UsageError, I as InputError, F as FailureError } from './version.js';
import { readFileSync } from 'node:fs';
import { d as distExports, a as describeValue } from './index.js';
import { b as boolean, s as string, n as number, c as strictObject, l as literal } from './schemas.js';
import { createServer } from 'node:http';
import { s as seededRandom, m as mixSeed } from './random.js';
import { randomUUID } from 'node:crypto';
import { n as numberWords } from './number-words.js';
import { p as parseCommandArgs, i as integerOption, s as stringOption, a as stringListOption } from './command.js';
import 'node:child_process';
import 'node:perf_hooks';
import 'process';
import 'buffer';
import 'node:util';

/**
 * Every knob of the simulator in one table: the zod schema is the single source of truth for profile
 * files, `--set`, POST /admin/config, `sim --help` and docs/sim.md.
 */
const int = (min) => number().int().min(min);
const num = (min) => number().min(min).finite();
const frac = () => number().min(0).max(1);
const knobSpecs = {
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
        schema: boolean(),
        help: "reuse full prompt blocks across requests (vLLM --[no-]enable-prefix-caching)",
    },
    cache_dtype: {
        schema: string().min(1),
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
        schema: string()
            .regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, 'expected comma-separated positive numbers, e.g. "1,1.1" (device 0 at profile speed, device 1 10% slower)'),
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
        schema: boolean(),
        help: "when the simulator falls behind its timeline, a request's tokens from the steps already due go as one chunk (as vLLM V1's output collector merges outputs its lagging front end has not sent); false = one chunk per token, written back to back",
    },
    vllm_version: {
        schema: string()
            .regex(/^(0\.(1[0-9]|[2-9][0-9])|[1-9][0-9]*\.[0-9]+)(\.[0-9]+)?(([.+-]|[a-z])[0-9A-Za-z.+-]*)?$/, "expected a vLLM version of 0.10 or later, such as 0.10.2, 0.11.0 or 0.12.0"),
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
        schema: boolean(),
        help: "/metrics carries no vllm:* metrics, as with vLLM --disable-log-stats",
    },
    enable_prompt_tokens_details: {
        schema: boolean(),
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
        schema: boolean(),
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
    engine_dead: { schema: boolean(), help: "the engine is dead: /health 503, generation requests 500" },
};
const knobNames = Object.keys(knobSpecs);
const knobsSchema = strictObject(Object.fromEntries(knobNames.map((name) => [name, knobSpecs[name].schema])));
const simProfileFileSchema = strictObject({
    schemaVersion: literal(1),
    name: string().min(1).optional(),
    description: string().optional(),
    base: string().min(1).default("small-gpu").describe("built-in profile the file's knobs override"),
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
};
const smallGpu = {
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
const builtInProfiles = {
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
        description: "the load shape of a GPU: throughput bends well before max_num_seqs, prefill grows with the prompt squared",
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
        description: "small-gpu with a draft model proposing 3 tokens per step; acceptance falls with temperature (0.8 at 0, 0.6 at 1)",
        spec_decode_num_tokens: 3,
    },
};
class ProfileError extends Error {
    name = "ProfileError";
}
function builtInProfile(name) {
    const profile = builtInProfiles[name];
    if (!profile) {
        throw new ProfileError(`unknown simulator profile "${name}": expected one of ${Object.keys(builtInProfiles).join(", ")} or a profile file path`);
    }
    return { ...profile };
}
function formatIssues(where, error) {
    return error.issues
        .map((issue) => {
        const field = issue.path.length > 0 ? issue.path.join(".") : "(top level)";
        return `${where}: field "${field}": ${issue.message}`;
    })
        .join("\n");
}
/** Applies overrides atomically: all valid or none applied. */
function applyOverrides(profile, overrides, where = "override") {
    const parsed = knobsSchema.partial().safeParse(overrides);
    if (!parsed.success)
        throw new ProfileError(formatIssues(where, parsed.error));
    return { ...profile, ...parsed.data };
}
/** `--set key=value` text to a typed value, using the knob's own type. */
function parseSetting(text) {
    const eq = text.indexOf("=");
    if (eq <= 0)
        throw new ProfileError(`--set ${describeValue(text)}: expected key=value`);
    const key = text.slice(0, eq).trim().replaceAll("-", "_");
    const raw = text.slice(eq + 1).trim();
    if (!(key in knobSpecs)) {
        throw new ProfileError(`--set: unknown knob "${key}": expected one of ${knobNames.join(", ")}`);
    }
    return [key, coerceKnob(key, raw)];
}
function coerceKnob(key, raw) {
    if (typeof raw !== "string")
        return raw;
    const sample = builtInProfiles["small-gpu"][key];
    if (typeof sample === "number") {
        const value = Number(raw);
        return raw === "" || !Number.isFinite(value) ? raw : value;
    }
    if (typeof sample === "boolean") {
        if (/^(true|1|yes|on)$/i.test(raw))
            return true;
        if (/^(false|0|no|off)$/i.test(raw))
            return false;
    }
    return raw;
}
function coerceOverrides(set) {
    const out = {};
    for (const [rawKey, value] of Object.entries(set)) {
        const key = rawKey.replaceAll("-", "_");
        out[key] = key in knobSpecs ? coerceKnob(key, value) : value;
    }
    return out;
}
/** A profile file (JSON or YAML): `schemaVersion: 1`, `base`, `knobs`. */
function loadProfileFile(path) {
    let text;
    try {
        text = readFileSync(path, "utf8");
    }
    catch (error) {
        throw new ProfileError(`${path}: cannot read the profile file (${error.message})`);
    }
    let data;
    try {
        data = distExports.parse(text);
    }
    catch (error) {
        throw new ProfileError(`${path}: not valid YAML/JSON (${error.message})`);
    }
    const parsed = simProfileFileSchema.safeParse(data);
    if (!parsed.success)
        throw new ProfileError(formatIssues(path, parsed.error));
    let base;
    try {
        base = builtInProfile(parsed.data.base);
    }
    catch (error) {
        throw new ProfileError(`${path}: field "base": ${error.message}`);
    }
    return {
        ...base,
        ...parsed.data.knobs,
        name: parsed.data.name ?? path,
        description: parsed.data.description ?? `${parsed.data.base} with overrides from ${path}`,
    };
}
/** A name of a built-in profile, or else a path to a profile file. */
function resolveProfile(profile) {
    if (profile === undefined)
        return builtInProfile("small-gpu");
    if (typeof profile !== "string") {
        const { name, description, ...knobs } = profile;
        return applyOverrides({ ...builtInProfile("small-gpu"), name, description }, knobs, `profile ${name}`);
    }
    if (profile in builtInProfiles)
        return builtInProfile(profile);
    if (/[/\\.]/.test(profile))
        return loadProfileFile(profile);
    return builtInProfile(profile);
}
/**
 * vLLM refuses to start when the KV cache cannot hold one request of max_model_len tokens
 * (check_enough_kv_cache_memory in vllm/v1/core/kv_cache_utils.py @ v0.11.0); so does the simulator.
 */
function checkKvCapacity(profile, where = "profile") {
    const blocks = effectiveCosts(profile).numGpuBlocks;
    const needed = Math.ceil(profile.max_model_len / profile.block_size);
    if (blocks >= needed)
        return;
    const estimated = blocks * profile.block_size;
    throw new ProfileError(`${where}: field "num_gpu_blocks": to serve at least one request with the model's max seq len (${profile.max_model_len}), ${needed} KV-cache blocks of ${profile.block_size} tokens are needed, more than the ${blocks} available. Based on the available memory, the estimated maximum model length is ${estimated}. Try increasing \`gpu_memory_utilization\` (num_gpu_blocks) or decreasing \`max_model_len\` when initializing the engine.`);
}
function metricSetOf(version) {
    const [major, minor] = version.split(".").map((part) => Number.parseInt(part, 10));
    if (major === 0 && minor <= 10)
        return "0.10";
    if (major === 0 && minor === 11)
        return "0.11";
    return "current";
}
function effectiveCosts(profile) {
    const fp8 = profile.cache_dtype.toLowerCase().startsWith("fp8");
    return {
        numGpuBlocks: fp8
            ? Math.max(1, Math.floor(profile.num_gpu_blocks * profile.fp8_kv_capacity_factor))
            : profile.num_gpu_blocks,
        prefillPerTokenMs: profile.prefill_per_token_ms * (fp8 ? profile.fp8_prefill_factor : 1),
        decodePerSeqMs: profile.decode_per_seq_ms * (fp8 ? profile.fp8_decode_factor : 1),
        attentionPerContextTokenMs: profile.attention_per_context_token_ms * (fp8 ? profile.fp8_decode_factor : 1),
        decodeComputePerTokenMs: profile.decode_compute_per_token_ms,
    };
}
/** The step-time multiplier of simulated device `device` (profile device_speed_factors; 1 beyond the list). */
function deviceSpeedFactor(profile, device) {
    const factor = Number(profile.device_speed_factors.split(",")[device]);
    return Number.isFinite(factor) && factor > 0 ? factor : 1;
}

/**
 * Block accounting of a paged KV cache with a prefix cache. Private blocks belong to one sequence; full
 * prompt blocks are promoted to shared, hash-addressed blocks with a reference count. Shared blocks nobody
 * references stay cached (and count as free, as vLLM reports usage) until evicted least recently used.
 */
class KvCache {
    total;
    privateInUse = 0;
    shared = new Map();
    /** Unreferenced shared blocks, oldest first (Map keeps insertion order). */
    evictable = new Map();
    constructor(total) {
        this.total = total;
    }
    get cachedCount() {
        return this.shared.size;
    }
    /** Fraction of blocks held by running sequences (vLLM's kv_cache_usage_perc). */
    get usage() {
        const inUse = this.privateInUse + this.shared.size - this.evictable.size;
        return this.total > 0 ? Math.min(1, inUse / this.total) : 0;
    }
    resize(total) {
        this.total = total;
    }
    /** Chained hashes of the full blocks of a prompt, salted so different salts never share. */
    hashPromptBlocks(tokens, blockSize, salt) {
        const hashes = [];
        let a = 0x811c9dc5;
        let b = 0x01000193;
        for (let i = 0; i < salt.length; i++) {
            a = Math.imul(a ^ salt.charCodeAt(i), 0x01000193);
            b = Math.imul(b ^ salt.charCodeAt(i), 0x5bd1e995);
        }
        const full = Math.floor(tokens.length / blockSize);
        for (let block = 0; block < full; block++) {
            for (let i = block * blockSize; i < (block + 1) * blockSize; i++) {
                const token = tokens[i];
                a = Math.imul(a ^ token, 0x01000193);
                b = Math.imul(b ^ token ^ (b >>> 15), 0x5bd1e995);
            }
            hashes.push(`${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}.${block}`);
        }
        return hashes;
    }
    /** The longest run of leading blocks that are cached, at most `limit`. */
    lookup(hashes, limit) {
        const hits = [];
        const end = Math.min(limit, hashes.length);
        for (let i = 0; i < end; i++) {
            const hash = hashes[i];
            if (!this.shared.has(hash))
                break;
            hits.push(hash);
        }
        return hits;
    }
    freeCount() {
        return this.total - this.privateInUse - this.shared.size;
    }
    /** Makes room by evicting unreferenced cached blocks; false if even that is not enough. */
    ensureFree(blocks) {
        if (this.freeCount() + this.evictable.size < blocks)
            return false;
        for (const hash of this.evictable.keys()) {
            if (this.freeCount() >= blocks)
                break;
            this.evictable.delete(hash);
            this.shared.delete(hash);
        }
        return this.freeCount() >= blocks;
    }
    acquire(hashes) {
        for (const hash of hashes) {
            const block = this.shared.get(hash);
            if (block.refs === 0)
                this.evictable.delete(hash);
            block.refs++;
        }
        return true;
    }
    /**
     * A sequence's blocks in chain order, released tail first, as vLLM frees a request's blocks (in reverse,
     * `free` in vllm/v1/core/single_type_kv_cache_manager.py): when the cache runs short, the end of a
     * cached prompt is evicted before its start, so a later request with that prefix still reuses the
     * leading blocks (a chain is only reused up to its first missing block).
     */
    release(hashes) {
        for (let i = hashes.length - 1; i >= 0; i--) {
            const hash = hashes[i];
            const block = this.shared.get(hash);
            if (!block)
                continue;
            block.refs--;
            if (block.refs <= 0) {
                block.refs = 0;
                this.evictable.set(hash, true);
            }
        }
    }
    allocatePrivate(blocks) {
        if (!this.ensureFree(blocks))
            return false;
        this.privateInUse += blocks;
        return true;
    }
    freePrivate(blocks) {
        this.privateInUse = Math.max(0, this.privateInUse - blocks);
    }
    /** A private block became a full prompt block: share it, or drop it for an identical cached one. */
    promote(hash) {
        this.privateInUse--;
        const existing = this.shared.get(hash);
        if (existing) {
            if (existing.refs === 0)
                this.evictable.delete(hash);
            existing.refs++;
            return;
        }
        this.shared.set(hash, { refs: 1 });
    }
    /** Drops every unreferenced cached block (POST /reset_prefix_cache). */
    resetEvictable() {
        for (const hash of this.evictable.keys())
            this.shared.delete(hash);
        this.evictable.clear();
        return true;
    }
}

/**
 * What the engine counts, in vLLM V1's units (seconds, tokens). Plain data, so the engine stays pure and
 * the Prometheus rendering (which families a vLLM version exports) lives in metrics-text.ts.
 * Bucket boundaries: vllm/v1/metrics/loggers.py @ v0.10 (005a810b) and the 0.11 / 0.12+ lines, which keep
 * the same boundaries.
 */
const ttftBuckets = [
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640,
    2560,
];
const itlBuckets = [
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80,
];
const requestLatencyBuckets = [
    0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680,
];
/** vllm:iteration_tokens_total: fixed boundaries (loggers.py @ 005a810b and v0.11.0), not 1-2-5. */
const iterationTokenBuckets = [
    1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
];
/** vllm:request_params_n. */
const nParamBuckets = [1, 2, 5, 10, 20];
/** vllm:time_per_prefill_token_request_seconds (the 0.10 line only, loggers.py @ 005a810b). */
const prefillPerTokenBuckets = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1];
/** 1-2-5 steps up to the context length, as vLLM builds token histograms (build_1_2_5_buckets). */
function tokenBuckets(maxModelLen) {
    const out = [];
    for (let exponent = 1;; exponent *= 10) {
        for (const mantissa of [1, 2, 5]) {
            const value = mantissa * exponent;
            if (value > maxModelLen)
                return out;
            out.push(value);
        }
    }
}
class Histogram {
    buckets;
    counts;
    count = 0;
    sum = 0;
    constructor(buckets) {
        this.buckets = buckets;
        this.counts = new Array(buckets.length).fill(0);
    }
    observe(value) {
        this.count++;
        this.sum += value;
        // Non-cumulative per bucket; rendering accumulates.
        const buckets = this.buckets;
        for (let i = 0; i < buckets.length; i++) {
            if (value <= buckets[i]) {
                this.counts[i]++;
                return;
            }
        }
    }
}
/** Speculative-decoding counters (vllm/v1/spec_decode/metrics.py @ 016a8587). */
class SpecDecodeStats {
    drafts = 0;
    draftTokens = 0;
    acceptedTokens = 0;
    /** Accepted drafts by position (0 = the first draft token). */
    acceptedPerPosition = [];
}
class EngineStats {
    preemptions = 0;
    promptTokens = 0;
    generationTokens = 0;
    /** Prefix-cache lookups of requests scheduled for the first time; re-lookups after a preemption are not counted (vLLM 0.11+). */
    prefixQueries = 0;
    prefixHits = 0;
    success = { stop: 0, length: 0, abort: 0 };
    ttft = new Histogram(ttftBuckets);
    /** One observation per engine step that gave a request output after its first (vLLM's inter-token latency). */
    itl = new Histogram(itlBuckets);
    /** Per finished request: decode time / (outputs - 1), 0 for a request with one output token. */
    tpot = new Histogram(itlBuckets);
    e2e = new Histogram(requestLatencyBuckets);
    queue = new Histogram(requestLatencyBuckets);
    inference = new Histogram(requestLatencyBuckets);
    prefill = new Histogram(requestLatencyBuckets);
    decode = new Histogram(requestLatencyBuckets);
    prefillPerToken = new Histogram(prefillPerTokenBuckets);
    promptTokensPerRequest;
    generationTokensPerRequest;
    maxTokensParam;
    maxGenerationTokens;
    nParam = new Histogram(nParamBuckets);
    iterationTokens = new Histogram(iterationTokenBuckets);
    specDecode = new SpecDecodeStats();
    constructor(maxModelLen) {
        const tokens = tokenBuckets(maxModelLen);
        this.promptTokensPerRequest = new Histogram(tokens);
        this.generationTokensPerRequest = new Histogram(tokens);
        this.maxTokensParam = new Histogram(tokens);
        this.maxGenerationTokens = new Histogram(tokens);
    }
}

/**
 * The simulator's tokenizer. Rule: one token per whitespace-separated word. So a prompt of exactly N
 * tokens is N words joined by spaces, and `usage`, /tokenize and the KV accounting all count the same.
 *
 * Ids: the first `vocabularySize` ids are synthetic two-syllable words ("baba", "babe", ...), which is
 * what the simulator generates and what /detokenize returns; `t<N>` spells any other id; any other word
 * gets a stable 31-bit hash id at or above the vocabulary. detokenize(tokenize(x)) keeps the count.
 */
const consonants = "bdfghjklmnprstvwzcyq";
const vowels = "aeiou";
const syllables = [];
for (const c of consonants)
    for (const v of vowels)
        syllables.push(c + v);
const vocabularySize = syllables.length * syllables.length;
const idsByWord = new Map();
const words = [];
for (let id = 0; id < vocabularySize; id++) {
    const word = syllables[Math.floor(id / syllables.length)] + syllables[id % syllables.length];
    words.push(word);
    idsByWord.set(word, id);
}
/** The token id's text without its separator. */
function wordOf(id) {
    return id >= 0 && id < vocabularySize ? words[id] : `t${id}`;
}
function hashWord(word) {
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) {
        h ^= word.charCodeAt(i);
        h = Math.imul(h, 0x01000193);
    }
    return vocabularySize + ((h >>> 0) % (0x7fffffff - vocabularySize));
}
function tokenIdOf(word) {
    const known = idsByWord.get(word);
    if (known !== undefined)
        return known;
    if (/^t\d{1,10}$/.test(word)) {
        const id = Number(word.slice(1));
        if (id <= 0x7fffffff)
            return id;
    }
    return hashWord(word);
}
function splitWords(text) {
    const out = [];
    for (const word of text.split(/\s+/))
        if (word !== "")
            out.push(word);
    return out;
}
function tokenize(text) {
    return splitWords(text).map(tokenIdOf);
}
function detokenize(ids) {
    return ids.map(wordOf).join(" ");
}
/** The text a generated token adds to a stream: a space before every word but the first. */
function tokenText(id, first) {
    return first ? wordOf(id) : ` ${wordOf(id)}`;
}
/**
 * The chat template: each message is its role as one word, then its content ("user hello there" is 3
 * tokens). The assistant reply starts a new word, so nothing else is added.
 */
function chatPromptText(messages) {
    return messages.map((message) => `${message.role} ${message.content}`).join(" ");
}

/**
 * The continuous-batching model, pure and deterministic: the caller owns time. `beginStep(now)` picks
 * the batch and says how long the step takes; `endStep()` applies it at now + duration and returns the
 * tokens produced. Same profile, seed and arrivals give the same timeline, on virtual or real time.
 */
/** The id the simulator samples as end-of-sequence; it has no text. */
const eosTokenId = vocabularySize;
/** FNV-1a over the prompt's token ids: the greedy outputs' seed. */
function hashTokens(tokens) {
    let hash = 0x811c9dc5;
    for (const token of tokens) {
        hash ^= token & 0xffff;
        hash = Math.imul(hash, 0x01000193);
        hash ^= token >>> 16;
        hash = Math.imul(hash, 0x01000193);
    }
    return hash >>> 0;
}
/**
 * The logprob of the token at `position` (natural log): a confident pick (-0.02 to about -1.5) from the
 * request's own seed, lower for a token of a changed or garbage output, minus `drift` nats.
 */
function tokenLogprob(seed, position, diverged, drift) {
    const u = seededRandom(mixSeed(seed, position)).next();
    const base = diverged ? -(1 + 3 * u) : -(0.02 + 1.5 * u ** 4);
    return base - drift;
}
class Engine {
    seed;
    device;
    stats;
    profile;
    costs;
    kv;
    noise;
    speedNormal;
    /** The start's own draws for its prefill factor (a normal) and whether it is a slow start (a uniform). */
    startDraws;
    waiting = [];
    running = [];
    byId = new Map();
    cachedPromptTokens = new Map();
    arrivals = 0;
    rejected = [];
    current;
    /** The simulated GPU's own speed (device_speed_factors at this engine's device index). */
    deviceFactor;
    constructor(profile, seed = 0, 
    /** The simulated GPU this engine runs on (sim --device K): selects its device_speed_factors entry. */
    device = 0) {
        this.seed = seed;
        this.device = device;
        this.profile = { ...profile };
        this.deviceFactor = deviceSpeedFactor(profile, device);
        this.costs = effectiveCosts(profile);
        this.kv = new KvCache(this.costs.numGpuBlocks);
        this.noise = seededRandom(mixSeed(seed, 0x5eed));
        // One draw per engine (= per server start); sigma scales it later, so changing sigma keeps the draw.
        this.speedNormal = this.noise.normal();
        // The start's prefill and slow-start draws come from a stream of their own, so the step jitter
        // (this.noise) of a seed is the same whether they are used or not.
        const startNoise = seededRandom(mixSeed(seed, 0x57a7));
        this.startDraws = { prefillNormal: startNoise.normal(), slowUniform: startNoise.next() };
        this.stats = new EngineStats(profile.max_model_len);
    }
    get config() {
        return this.profile;
    }
    /** The per-server-start multiplier of every step time (times the device's own speed; a slow start's). */
    get speedFactor() {
        const p = this.profile;
        return (p.speed_factor * this.deviceFactor * Math.exp(p.speed_sigma * this.speedNormal) * this.slowStartFactor);
    }
    /** slow_start_factor when this start drew a slow one (slow_start_share), else 1. */
    get slowStartFactor() {
        return this.startDraws.slowUniform < this.profile.slow_start_share ? this.profile.slow_start_factor : 1;
    }
    /** The per-server-start multiplier of the prefill cost terms (prefill_speed_sigma), on top of speedFactor. */
    get prefillFactor() {
        return Math.exp(this.profile.prefill_speed_sigma * this.startDraws.prefillNormal);
    }
    /** Takes effect from the next step. block_size may only change while idle (blocks are sized by it). */
    setProfile(profile) {
        if (profile.block_size !== this.profile.block_size) {
            if (this.hasWork())
                throw new Error("block_size can only change while no request is in flight");
            this.resetPrefixCache();
        }
        this.profile = { ...profile };
        this.costs = effectiveCosts(profile);
        this.kv.resize(this.costs.numGpuBlocks);
        this.deviceFactor = deviceSpeedFactor(profile, this.device);
    }
    get numRunning() {
        return this.running.length;
    }
    get numWaiting() {
        return this.waiting.length;
    }
    get kvUsage() {
        return this.kv.usage;
    }
    get kvCapacityBlocks() {
        return this.kv.total;
    }
    hasWork() {
        return this.running.length > 0 || this.waiting.length > 0;
    }
    get stepInProgress() {
        return this.current !== undefined;
    }
    /** Whether a request with this id is still tracked (in flight, or finished and not yet forgotten). */
    knows(id) {
        return this.byId.has(id);
    }
    timesOf(id) {
        return this.byId.get(id)?.times;
    }
    addRequest(spec, now) {
        if (this.byId.has(spec.id))
            throw new Error(`duplicate request id ${spec.id}`);
        const ordinal = this.arrivals++;
        // Greedy decoding is a function of the prompt and the weights: at temperature 0 the tokens and the
        // EOS come from (prompt, model_revision), not from the seed or the arrival order.
        const greedySeed = spec.temperature === 0 ? mixSeed(hashTokens(spec.promptTokens), this.profile.model_revision) : null;
        const outputSeed = greedySeed ?? (spec.seed !== undefined ? mixSeed(spec.seed, 0x7e57) : mixSeed(this.seed, ordinal + 1));
        const rng = seededRandom(outputSeed);
        const planned = this.answerOutput(spec) ?? this.plannedOutput(spec, rng);
        const faults = this.qualityFaults(spec, outputSeed, planned);
        const { outputLength, reason } = faults;
        const specSeed = spec.seed !== undefined ? mixSeed(spec.seed, 0x5bec) : mixSeed(this.seed, -(ordinal + 1));
        const seq = {
            spec,
            promptLen: spec.promptTokens.length,
            outputLength,
            plannedReason: reason,
            outputs: [],
            rng,
            divergeAt: faults.divergeAt,
            altRng: seededRandom(mixSeed(outputSeed, 0xa17e)),
            logprobSeed: mixSeed(outputSeed, 0x10b9),
            specRng: this.profile.spec_decode_num_tokens > 0 ? seededRandom(specSeed) : undefined,
            numComputed: 0,
            blockHashes: undefined,
            sharedBlocks: [],
            privateBlocks: 0,
            times: { arrival: now },
            preemptions: 0,
            state: "waiting",
        };
        this.byId.set(spec.id, seq);
        this.waiting.push(seq);
    }
    /**
     * Client gone or stream faulted: free its KV. As in vLLM, a client abort is not a finished request: no
     * request_success_total, no per-request histogram (its TTFT and ITLs, observed per step, stay).
     */
    abort(id, now) {
        const seq = this.byId.get(id);
        if (!seq || seq.state === "finished")
            return false;
        this.removeFrom(this.waiting, seq);
        this.removeFrom(this.running, seq);
        if (this.current)
            this.current.work = this.current.work.filter((work) => work.seq !== seq);
        this.finish(seq, "abort", now, false);
        return true;
    }
    /** Forget a finished request's record (the server calls this once the response is written). */
    forget(id) {
        const seq = this.byId.get(id);
        if (seq?.state === "finished")
            this.byId.delete(id);
    }
    resetPrefixCache() {
        return this.kv.resetEvictable();
    }
    /** Schedules the next step at `now`; undefined when there is nothing to run. */
    beginStep(now) {
        if (this.current)
            throw new Error("beginStep while a step is in progress");
        const work = this.schedule(now);
        if (work.length === 0)
            return undefined;
        let prefillTokens = 0;
        let decodeSequences = 0;
        let contextTokens = 0;
        // Sum over prefill tokens of the context each attends to (tokens before it): attention makes a
        // prompt's prefill cost grow with its length squared.
        let prefillContext = 0;
        let draftTokens = 0;
        for (const { seq, tokens, decode, drafts } of work) {
            if (decode) {
                decodeSequences++;
                contextTokens += seq.numComputed + 1;
                draftTokens += drafts;
            }
            else {
                prefillTokens += tokens;
                prefillContext += tokens * seq.numComputed + (tokens * (tokens - 1)) / 2;
            }
        }
        const p = this.profile;
        const c = this.costs;
        // Roofline: the memory-bound part (the weights read once per step, the KV of each decoding
        // sequence) or the decoded tokens' compute, whichever is longer; 0 compute = memory-bound only.
        const memoryBound = p.step_overhead_ms + c.decodePerSeqMs * decodeSequences + c.attentionPerContextTokenMs * contextTokens;
        const computeBound = c.decodeComputePerTokenMs * (decodeSequences + draftTokens);
        const prefill = (c.prefillPerTokenMs * prefillTokens + p.prefill_attention_per_token_pair_ms * prefillContext) *
            this.prefillFactor;
        const base = Math.max(memoryBound, computeBound) +
            prefill +
            c.prefillPerTokenMs * draftTokens +
            p.spec_decode_draft_per_token_ms * draftTokens;
        const jitter = p.jitter_sigma > 0 ? Math.exp(p.jitter_sigma * this.noise.normal()) : 1;
        const durationMs = base * this.speedFactor * jitter;
        this.current = { start: now, end: now + durationMs, work };
        return { durationMs, prefillTokens, decodeSequences };
    }
    /** Applies the step begun last; returns one event per sequence that sampled a token. */
    endStep() {
        const step = this.current;
        if (!step)
            throw new Error("endStep without beginStep");
        this.current = undefined;
        const now = step.end;
        const events = [];
        // vllm:iteration_tokens_total observes, per step with output, the prompt length of each request that
        // got its first token plus the tokens generated (IterationStats in vllm/v1/metrics/stats.py).
        let iterationTokens = 0;
        for (const { seq, tokens, decode, drafts } of step.work) {
            if (seq.state !== "running")
                continue;
            let produce = 1;
            if (decode) {
                const accepted = drafts > 0 ? this.acceptDrafts(seq, drafts) : 0;
                seq.numComputed += 1 + accepted;
                produce = 1 + accepted;
            }
            else {
                seq.numComputed += tokens;
                if (seq.numComputed < seq.promptLen + seq.outputs.length)
                    continue;
            }
            if (seq.outputs.length === 0)
                iterationTokens += seq.promptLen;
            iterationTokens += produce;
            this.observeStepOutput(seq, now);
            for (let i = 0; i < produce && seq.state === "running"; i++)
                events.push(this.sample(seq, now));
        }
        if (iterationTokens > 0)
            this.stats.iterationTokens.observe(iterationTokens);
        return events;
    }
    /** Drafts accepted in a chain: position j counts only if every draft before it was accepted. */
    acceptDrafts(seq, drafts) {
        const p = this.profile;
        const t = Math.min(2, Math.max(0, seq.spec.temperature ?? 1));
        const rate = Math.min(1, Math.max(0, p.spec_decode_acceptance_t0 + (p.spec_decode_acceptance_t1 - p.spec_decode_acceptance_t0) * t));
        const s = this.stats.specDecode;
        s.drafts++;
        s.draftTokens += drafts;
        let accepted = 0;
        const rng = seq.specRng ?? seededRandom(mixSeed(this.seed, 0x5bec));
        seq.specRng = rng;
        while (accepted < drafts && rng.next() < rate) {
            s.acceptedPerPosition[accepted] = (s.acceptedPerPosition[accepted] ?? 0) + 1;
            accepted++;
        }
        s.acceptedTokens += accepted;
        return accepted;
    }
    /** TTFT at the first output, else one inter-token latency per step with output (not per token). */
    observeStepOutput(seq, now) {
        const times = seq.times;
        if (seq.outputs.length === 0) {
            times.firstToken = now;
            this.stats.ttft.observe((now - times.arrival) / 1000);
            this.stats.promptTokens += seq.promptLen;
        }
        else if (times.lastToken !== undefined) {
            this.stats.itl.observe((now - times.lastToken) / 1000);
        }
        times.lastToken = now;
    }
    sample(seq, now) {
        const isLast = seq.outputs.length + 1 >= seq.outputLength;
        const eos = isLast && seq.plannedReason === "stop";
        const position = seq.outputs.length;
        const diverged = seq.divergeAt !== null && position >= seq.divergeAt;
        const token = eos ? eosTokenId : Math.floor((diverged ? seq.altRng : seq.rng).next() * vocabularySize);
        seq.outputs.push(token);
        const first = seq.outputs.length === 1;
        this.stats.generationTokens++;
        const event = {
            id: seq.spec.id,
            token,
            logprob: tokenLogprob(seq.logprobSeed, position, diverged, this.profile.logprob_drift),
            diverged,
            eos,
            first,
            outputTokens: seq.outputs.length,
            promptTokens: seq.promptLen,
            cachedPromptTokens: this.cachedPromptTokens.get(seq.spec.id) ?? 0,
        };
        if (isLast) {
            this.removeFrom(this.running, seq);
            this.finish(seq, seq.plannedReason, now);
            event.finishReason = seq.plannedReason;
        }
        return event;
    }
    plannedOutput(spec, rng) {
        const maxTokens = Math.max(1, Math.min(spec.maxTokens, this.profile.max_model_len - spec.promptTokens.length));
        const mean = this.profile.eos_mean_tokens;
        if (spec.ignoreEos || mean <= 0)
            return { outputLength: maxTokens, reason: "length" };
        // The EOS ends the answer, so it comes after the reasoning (and never before min_tokens).
        const minTokens = (spec.minTokens ?? 0) + (spec.reasoningTokens ?? 0);
        const p = Math.min(1, 1 / mean);
        // Geometric position of the EOS among the outputs, never before min_tokens real tokens.
        const u = 1 - rng.next();
        const draw = p >= 1 ? 1 : 1 + Math.floor(Math.log(u) / Math.log(1 - p));
        const eosAt = minTokens + draw;
        return eosAt <= maxTokens
            ? { outputLength: eosAt, reason: "stop" }
            : { outputLength: maxTokens, reason: "length" };
    }
    /** A task's answer: its tokens and EOS (unless ignore_eos), within max_tokens. */
    answerOutput(spec) {
        if (spec.answerTokens === undefined)
            return null;
        const maxTokens = Math.max(1, Math.min(spec.maxTokens, this.profile.max_model_len - spec.promptTokens.length));
        if (spec.ignoreEos)
            return { outputLength: maxTokens, reason: "length" };
        const length = spec.answerTokens + 1;
        return length <= maxTokens
            ? { outputLength: length, reason: "stop" }
            : { outputLength: maxTokens, reason: "length" };
    }
    /**
     * The output-quality faults of a request (knobs quality_*, docs/quality.md), drawn from their own stream
     * so that the outputs of the unchanged requests stay as they were: truncation (an early EOS), garbage
     * (other tokens and, unless it keeps the length, no EOS until max_tokens) and a changed output (other
     * tokens from a seeded position on, same length).
     */
    qualityFaults(spec, outputSeed, planned) {
        const p = this.profile;
        const draws = seededRandom(mixSeed(outputSeed, 0x9a11));
        const truncate = draws.next() < p.quality_truncate_share;
        const garbage = draws.next() < p.quality_garbage_share;
        const changed = draws.next() < p.quality_changed_share;
        const at = draws.next();
        let { outputLength, reason } = planned;
        let divergeAt = null;
        if (garbage) {
            divergeAt = 0;
            if (!p.quality_garbage_keeps_length) {
                outputLength = Math.max(1, Math.min(spec.maxTokens, p.max_model_len - spec.promptTokens.length));
                reason = "length";
            }
        }
        else if (changed)
            divergeAt = Math.floor(at * Math.max(1, outputLength - 1));
        if (truncate && outputLength > 1) {
            outputLength = Math.max(1, Math.ceil(outputLength / 4));
            reason = "stop";
        }
        return { outputLength, reason, divergeAt };
    }
    schedule(now) {
        const p = this.profile;
        let budget = p.max_num_batched_tokens;
        const work = [];
        let preempted = false;
        // Running sequences first, oldest first, as vLLM V1's scheduler does.
        for (let i = 0; i < this.running.length && budget > 0; i++) {
            const seq = this.running[i];
            const remaining = seq.promptLen + seq.outputs.length - seq.numComputed;
            const decode = seq.outputs.length > 0 && remaining === 1;
            // Speculative decoding: a decode verifies up to k drafts, never more than the output still to come.
            const drafts = decode
                ? Math.max(0, Math.min(p.spec_decode_num_tokens, seq.outputLength - seq.outputs.length - 1, budget - 1))
                : 0;
            const tokens = decode ? 1 + drafts : Math.min(remaining, budget);
            if (tokens <= 0)
                continue;
            let fits = this.allocate(seq, seq.numComputed + tokens);
            while (!fits) {
                const victim = this.running[this.running.length - 1];
                this.preempt(victim);
                preempted = true;
                if (victim === seq)
                    break;
                fits = this.allocate(seq, seq.numComputed + tokens);
            }
            if (!fits)
                break;
            if (!decode)
                this.registerFullPromptBlocks(seq, seq.numComputed + tokens);
            work.push({ seq, tokens, decode, drafts });
            budget -= tokens;
        }
        if (!preempted) {
            while (this.waiting.length > 0 && this.running.length < p.max_num_seqs && budget > 0) {
                const seq = this.waiting[0];
                // A step placed on the timeline before a request arrived cannot serve it (the real-time loop
                // runs steps it was late for at their own times).
                if (seq.times.arrival > now)
                    break;
                const admitted = this.admit(seq, budget, now);
                if (!admitted) {
                    if (this.running.length > 0 || work.length > 0)
                        break;
                    this.rejectUnfittable(seq, now);
                    continue;
                }
                this.waiting.shift();
                this.running.push(seq);
                work.push(admitted);
                budget -= admitted.tokens;
            }
        }
        return work;
    }
    /** A request that cannot fit even in an empty cache would block the queue forever. */
    rejectUnfittable(seq, now) {
        this.waiting.shift();
        // The engine gave up on it: vLLM counts an engine-side abort as a finished request.
        this.finish(seq, "abort", now, true);
        this.rejected.push(seq.spec.id);
    }
    /** Ids of requests the engine gave up on (they could never fit in the KV cache); cleared on read. */
    takeRejected() {
        return this.rejected.splice(0, this.rejected.length);
    }
    admit(seq, budget, now) {
        const p = this.profile;
        const numTokens = seq.promptLen + seq.outputs.length;
        let hitBlocks = [];
        if (p.enable_prefix_caching) {
            seq.blockHashes ??= this.kv.hashPromptBlocks(seq.spec.promptTokens, p.block_size, seq.spec.cacheSalt ?? "");
            // At least one token is always computed, so the last token's logits exist.
            const maxHit = Math.floor((numTokens - 1) / p.block_size);
            hitBlocks = this.kv.lookup(seq.blockHashes, maxHit);
        }
        const hitTokens = hitBlocks.length * p.block_size;
        const tokens = Math.min(numTokens - hitTokens, budget);
        if (!this.kv.acquire(hitBlocks))
            return undefined;
        seq.sharedBlocks = hitBlocks;
        seq.numComputed = hitTokens;
        if (!this.allocate(seq, hitTokens + tokens)) {
            this.kv.release(hitBlocks);
            seq.sharedBlocks = [];
            seq.numComputed = 0;
            return undefined;
        }
        // vLLM 0.11+ keeps the re-lookups of preempted requests out of the exported counters
        // (PrefixCacheStats.preempted_* in vllm/v1/core/kv_cache_manager.py), so the hit rate stays the
        // share of prompt tokens served from the cache.
        if (p.enable_prefix_caching && seq.preemptions === 0) {
            this.stats.prefixQueries += numTokens;
            this.stats.prefixHits += hitTokens;
        }
        if (seq.outputs.length === 0)
            this.cachedPromptTokens.set(seq.spec.id, hitTokens);
        this.registerFullPromptBlocks(seq, hitTokens + tokens);
        seq.state = "running";
        seq.times.firstScheduled ??= now;
        return { seq, tokens, decode: false, drafts: 0 };
    }
    allocate(seq, tokens) {
        const needed = Math.ceil(tokens / this.profile.block_size) - seq.sharedBlocks.length - seq.privateBlocks;
        if (needed <= 0)
            return true;
        if (!this.kv.allocatePrivate(needed))
            return false;
        seq.privateBlocks += needed;
        return true;
    }
    /**
     * Registers the prompt blocks that are full once the step computes up to `computedBy` tokens, when the
     * step is scheduled, as vLLM caches them when it allocates the step's slots (`cache_blocks` up to
     * num_computed_tokens + num_new_tokens in vllm/v1/core/kv_cache_manager.py `allocate_slots`): a request
     * admitted later in the same step, or while this one's prefill is still chunked over steps, finds them
     * cached. So requests sent at once over one new prefix (a session's fan-out branches) compute it once.
     */
    registerFullPromptBlocks(seq, computedBy) {
        if (!this.profile.enable_prefix_caching || !seq.blockHashes)
            return;
        const full = Math.min(Math.floor(Math.min(computedBy, seq.promptLen) / this.profile.block_size), seq.blockHashes.length);
        while (seq.sharedBlocks.length < full && seq.privateBlocks > 0) {
            const hash = seq.blockHashes[seq.sharedBlocks.length];
            this.kv.promote(hash);
            seq.privateBlocks--;
            seq.sharedBlocks.push(hash);
        }
    }
    releaseBlocks(seq) {
        this.kv.release(seq.sharedBlocks);
        this.kv.freePrivate(seq.privateBlocks);
        seq.sharedBlocks = [];
        seq.privateBlocks = 0;
    }
    /** Recompute preemption: the newest running sequence loses its KV and goes back to the queue's head. */
    preempt(seq) {
        this.removeFrom(this.running, seq);
        this.releaseBlocks(seq);
        seq.numComputed = 0;
        seq.state = "waiting";
        seq.preemptions++;
        this.waiting.unshift(seq);
        this.stats.preemptions++;
    }
    /**
     * `counted`: a finished request in vLLM's sense (stop, length, an engine-side abort), observed in
     * request_success_total and the per-request histograms (FinishedRequestStats in vllm/v1/metrics/stats.py).
     */
    finish(seq, reason, now, counted = true) {
        this.releaseBlocks(seq);
        seq.state = "finished";
        this.cachedPromptTokens.delete(seq.spec.id);
        const t = seq.times;
        t.finished = now;
        if (!counted)
            return;
        const s = this.stats;
        s.success[reason]++;
        s.e2e.observe((now - t.arrival) / 1000);
        s.queue.observe(((t.firstScheduled ?? now) - t.arrival) / 1000);
        if (t.firstScheduled !== undefined) {
            s.inference.observe(((t.lastToken ?? now) - t.firstScheduled) / 1000);
            const prefillS = ((t.firstToken ?? now) - t.firstScheduled) / 1000;
            s.prefill.observe(prefillS);
            if (seq.promptLen > 0)
                s.prefillPerToken.observe(prefillS / seq.promptLen);
        }
        const decodeS = t.firstToken !== undefined && t.lastToken !== undefined ? (t.lastToken - t.firstToken) / 1000 : 0;
        if (t.firstToken !== undefined)
            s.decode.observe(decodeS);
        // vLLM records 0 for a request with at most one output token (mean_time_per_output_token).
        s.tpot.observe(seq.outputs.length > 1 ? decodeS / (seq.outputs.length - 1) : 0);
        s.promptTokensPerRequest.observe(seq.promptLen);
        s.generationTokensPerRequest.observe(seq.outputs.length);
        // Observed at finish, as vLLM does, and only for requests that finished.
        s.maxTokensParam.observe(seq.spec.maxTokens);
        s.maxGenerationTokens.observe(seq.outputs.length);
        s.nParam.observe(1);
    }
    removeFrom(list, seq) {
        const index = list.indexOf(seq);
        if (index >= 0)
            list.splice(index, 1);
    }
}

/**
 * The HTTP families prometheus_fastapi_instrumentator's default metrics export on vLLM's API server
 * (Instrumentator().add(metrics.default()) in vllm/entrypoints/openai/api_server.py @ v0.11.0), recorded
 * when a response ends, as the instrumentator's middleware does: a stream counts once it is over.
 */
const durationHighrBuckets = [
    0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 7.5, 10, 30, 60,
];
const durationLowrBuckets = [0.1, 0.5, 1];
/** Handlers vLLM's instrumentator leaves out (excluded_handlers). */
const uninstrumentedHandlers = new Set(["/health", "/metrics", "/version"]);
class HttpMetrics {
    /** "handler method 2xx" -> count. */
    requests = new Map();
    /** By handler: the Content-Length of requests (0 without one). */
    requestSize = new Map();
    /** By handler: the Content-Length of responses (0 for a stream, which has none). */
    responseSize = new Map();
    durationHighr = new Histogram(durationHighrBuckets);
    /** "handler method" -> latency with few buckets. */
    duration = new Map();
    record(handler, method, status, requestBytes, responseBytes, seconds) {
        if (uninstrumentedHandlers.has(handler))
            return;
        const key = `${handler} ${method} ${Math.floor(status / 100)}xx`;
        this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
        add(this.requestSize, handler, requestBytes);
        add(this.responseSize, handler, responseBytes);
        this.durationHighr.observe(seconds);
        const durationKey = `${handler} ${method}`;
        let histogram = this.duration.get(durationKey);
        if (!histogram) {
            histogram = new Histogram(durationLowrBuckets);
            this.duration.set(durationKey, histogram);
        }
        histogram.observe(seconds);
    }
}
function add(map, key, value) {
    const summary = map.get(key) ?? { count: 0, sum: 0 };
    summary.count++;
    summary.sum += value;
    map.set(key, summary);
}

/**
 * The simulator's responses as uvicorn writes them, and their HTTP metrics: each response is recorded
 * when it ends, as vLLM's instrumentator does.
 */
class HttpResponder {
    clock;
    httpMetrics = new HttpMetrics();
    /** What the instrumentator will record for a response when it ends. */
    httpRecords = new WeakMap();
    constructor(clock) {
        this.clock = clock;
    }
    /**
     * The HTTP metrics of a response, recorded when it ends (as vLLM's instrumentator does: grouped status,
     * and nothing for the handlers it excludes).
     */
    count(res, handler, status, responseBytes = 0) {
        this.httpRecords.set(res, { handler, status, responseBytes });
    }
    instrument(req, res, receivedAt) {
        let done = false;
        const record = () => {
            if (done)
                return;
            done = true;
            const info = this.httpRecords.get(res);
            if (!info)
                return;
            const requestBytes = Number(req.headers["content-length"] ?? 0) || 0;
            const seconds = (this.clock.now() - receivedAt) / 1000;
            this.httpMetrics.record(info.handler, req.method ?? "GET", info.status, requestBytes, info.responseBytes, seconds);
        };
        res.once("finish", record);
        res.once("close", record);
    }
    /** Starlette's StreamingResponse(media_type="text/event-stream") under uvicorn: no cache headers. */
    writeHead(res, status, contentType, handler) {
        this.count(res, handlerPath(handler), status);
        res.writeHead(status, { server: "uvicorn", "content-type": contentType });
    }
    sendJson(res, status, body, handler, extra = {}) {
        const text = JSON.stringify(body);
        this.count(res, handlerPath(handler), status, Buffer.byteLength(text));
        res.writeHead(status, {
            server: "uvicorn",
            "content-length": Buffer.byteLength(text),
            "content-type": "application/json",
            ...extra,
        });
        res.end(text);
    }
    sendEmpty(res, status, handler) {
        this.count(res, handler, status);
        res.writeHead(status, { server: "uvicorn", "content-length": 0 });
        res.end();
    }
}
function handlerPath(handler) {
    if (handler === "chat")
        return "/v1/chat/completions";
    if (handler === "completions")
        return "/v1/completions";
    return handler;
}

/**
 * Drives the pure engine on real time: one loop for all streams, no per-request timers. Steps run
 * back to back on the engine's own timeline (the next starts when the last should have ended), so small
 * timer delays do not accumulate into the model.
 */
/** Nothing ever notifies it: Atomics.wait on it is a sub-millisecond sleep. */
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
class StepLoop {
    engine;
    clock;
    deliver;
    idle = true;
    stopped = false;
    timer;
    immediate;
    spinMs;
    resyncAfterMs;
    sleepSliceMs;
    latenessBuffer = new Float64Array(4096);
    deliveryBuffer = new Float64Array(4096);
    probeBuffer = new Float64Array(0);
    stepProbe;
    lastProbe = 0;
    samples = 0;
    steps = 0;
    constructor(engine, clock, deliver, options = {}) {
        this.engine = engine;
        this.clock = clock;
        this.deliver = deliver;
        this.spinMs = options.spinMs ?? 1.2;
        this.resyncAfterMs = options.resyncAfterMs ?? 100;
        this.stepProbe = options.stepProbe;
        if (this.stepProbe) {
            this.probeBuffer = new Float64Array(4096);
            this.lastProbe = this.stepProbe();
        }
        this.sleepSliceMs = options.sleepSliceMs ?? 0.1;
    }
    /**
     * Call after adding a request that arrived at `arrival`: starts stepping if the engine was idle. The
     * first step starts at that arrival, not after the simulator's own handling of the request.
     */
    wake(arrival) {
        if (!this.idle || this.stopped)
            return;
        this.idle = false;
        // setImmediate lets every request parsed in this tick join the first step (if it had arrived by then).
        this.immediate = setImmediate(() => {
            this.immediate = undefined;
            this.startStep(Math.min(arrival, this.clock.now()));
        });
    }
    stop() {
        this.stopped = true;
        if (this.timer)
            clearTimeout(this.timer);
        if (this.immediate)
            clearImmediate(this.immediate);
    }
    latency() {
        return {
            lateness: this.latenessBuffer.subarray(0, this.samples),
            delivery: this.deliveryBuffer.subarray(0, this.samples),
            probe: this.probeBuffer.subarray(0, this.stepProbe ? this.samples : 0),
            count: this.samples,
        };
    }
    resetLatency() {
        this.samples = 0;
    }
    record(lateness, delivery) {
        if (this.samples === this.latenessBuffer.length) {
            const grow = (old) => {
                const next = new Float64Array(old.length * 2);
                next.set(old);
                return next;
            };
            this.latenessBuffer = grow(this.latenessBuffer);
            this.deliveryBuffer = grow(this.deliveryBuffer);
            if (this.stepProbe)
                this.probeBuffer = grow(this.probeBuffer);
        }
        this.latenessBuffer[this.samples] = lateness;
        this.deliveryBuffer[this.samples] = delivery;
        if (this.stepProbe) {
            const value = this.stepProbe();
            this.probeBuffer[this.samples] = value - this.lastProbe;
            this.lastProbe = value;
        }
        this.samples++;
    }
    startStep(start) {
        if (this.stopped)
            return;
        const plan = this.engine.beginStep(start);
        const rejected = this.engine.takeRejected();
        if (rejected.length > 0)
            this.deliver([], rejected, start);
        if (!plan) {
            this.idle = true;
            return;
        }
        const end = start + plan.durationMs;
        this.waitUntil(end, () => this.finishStep(end));
    }
    /**
     * Ends the step due at `end`, then begins the next one on the engine's own timeline: the timeline does
     * not slip when this process falls behind, as a GPU keeps stepping while vLLM's front end is busy.
     * Later steps that are already due run at once and their tokens leave in the same delivery, a
     * request's tokens in one chunk, as vLLM V1's output collector merges deltas its front end has not
     * sent yet (profile knob coalesce_late_tokens; without it each late step is delivered on its own).
     */
    finishStep(end) {
        if (this.stopped)
            return;
        const handledAt = this.clock.now();
        const events = this.engine.endStep();
        const rejected = [];
        const boundaries = [end];
        let boundary = end;
        let next;
        for (;;) {
            // Far behind (the process was stopped, the machine overloaded): restart the timeline at "now"
            // instead of bursting the backlog.
            let start = handledAt - boundary > this.resyncAfterMs ? this.clock.now() : boundary;
            let plan = this.engine.beginStep(start);
            if (!plan && this.engine.hasWork()) {
                // Only requests that arrived after that boundary are waiting: serve them from now.
                start = this.clock.now();
                plan = this.engine.beginStep(start);
            }
            for (const id of this.engine.takeRejected())
                rejected.push(id);
            if (!plan)
                break;
            const stepEnd = start + plan.durationMs;
            // Zero-length steps (a profile with no costs: "as fast as possible") are never late: one per turn.
            if (stepEnd > this.clock.now() || plan.durationMs <= 0 || !this.engine.config.coalesce_late_tokens) {
                next = stepEnd;
                break;
            }
            for (const event of this.engine.endStep())
                events.push(event);
            boundaries.push(stepEnd);
            boundary = stepEnd;
        }
        this.steps += boundaries.length;
        this.deliver(events, rejected, boundary);
        const delivered = this.clock.now();
        for (const due of boundaries)
            this.record(handledAt - due, delivered - handledAt);
        if (next === undefined) {
            this.idle = true;
            return;
        }
        const target = next;
        this.waitUntil(target, () => this.finishStep(target));
    }
    waitUntil(target, then) {
        const remaining = target - this.clock.now();
        if (remaining <= 0) {
            // Not a direct call: steps that are already due must still let sockets be served in between.
            this.immediate = setImmediate(() => {
                this.immediate = undefined;
                then();
            });
            return;
        }
        if (remaining > this.spinMs) {
            this.timer = setTimeout(() => {
                this.timer = undefined;
                this.waitUntil(target, then);
            }, Math.max(0, Math.floor(remaining - this.spinMs)));
            return;
        }
        const spin = () => {
            this.immediate = undefined;
            if (this.stopped)
                return;
            const left = target - this.clock.now();
            if (left > 0 && this.sleepSliceMs > 0)
                Atomics.wait(sleepCell, 0, 0, Math.min(left, this.sleepSliceMs));
            if (this.clock.now() >= target)
                then();
            else
                this.immediate = setImmediate(spin);
        };
        this.immediate = setImmediate(spin);
    }
}

/** Characters of the arguments' JSON text per streamed piece (one token each). */
const charsPerPiece = 4;
/** Arguments the simulator fills in per call, at most (the tool's first properties). */
const maxArguments = 8;
function planAnswer(promptHash, seed, tools, policy) {
    const random = seededRandom(mixSeed(mixSeed(promptHash, policy.model_revision), seed ?? 0x5eed));
    const mean = policy.reasoning_tokens_mean;
    let reasoningTokens = 0;
    if (mean > 0) {
        // Uniform within mean x (1 ± spread), at least one token.
        const low = Math.max(1, Math.round(mean * (1 - policy.reasoning_tokens_spread)));
        const high = Math.max(low, Math.round(mean * (1 + policy.reasoning_tokens_spread)));
        reasoningTokens = low + Math.floor(random.next() * (high - low + 1));
    }
    const callDraw = random.next();
    if (tools.length === 0 || callDraw >= policy.tool_call_share)
        return { reasoningTokens, toolCall: null };
    const tool = tools[Math.floor(random.next() * tools.length)];
    const args = {};
    for (const parameter of tool.parameters.slice(0, maxArguments)) {
        const value = Math.floor(random.next() * 1000);
        args[parameter.name] =
            parameter.type === "integer" || parameter.type === "number"
                ? value
                : parameter.type === "boolean"
                    ? value % 2 === 0
                    : `v${value}`;
    }
    let text = JSON.stringify(args);
    // A malformed call: the arguments stop short of their closing brace (not JSON), as a parser that
    // lost the end of a call streams them.
    if (random.next() < policy.tool_call_malformed_share)
        text = text.slice(0, Math.max(1, text.length - 2));
    const pieces = [];
    for (let at = 0; at < text.length; at += charsPerPiece)
        pieces.push(text.slice(at, at + charsPerPiece));
    let hex = "";
    while (hex.length < 32)
        hex += Math.floor(random.next() * 0x10000)
            .toString(16)
            .padStart(4, "0");
    return { reasoningTokens, toolCall: { id: `chatcmpl-tool-${hex}`, name: tool.name, pieces } };
}
/**
 * The tools of a chat request's `tools` (OpenAI's shape: `{type: "function", function: {name,
 * parameters}}`); entries without a function name are left out (vLLM's protocol.py rejects them, the
 * simulator need not).
 */
function declaredTools(tools) {
    if (!Array.isArray(tools))
        return [];
    const declared = [];
    for (const tool of tools) {
        const fn = tool?.function;
        if (typeof fn?.name !== "string" || fn.name === "")
            continue;
        const properties = fn.parameters?.properties;
        const parameters = properties !== null && typeof properties === "object"
            ? Object.entries(properties).map(([name, schema]) => ({
                name,
                type: String(schema?.type ?? "string"),
            }))
            : [];
        declared.push({ name: fn.name, parameters });
    }
    return declared;
}

function protocolShapeOf(version) {
    const [major = 0, minor = 0, patch = 0] = version
        .split(/[.+-]/)
        .map((part) => Number.parseInt(part, 10) || 0);
    const atLeast = (a, b, c) => major !== a ? major > a : minor !== b ? minor > b : patch >= c;
    return {
        tokenIdFields: atLeast(0, 10, 2),
        completionUsageNull: !atLeast(0, 12, 0),
        reasoningField: atLeast(0, 16, 0) ? "reasoning" : "reasoning_content",
    };
}
const errorTypes = {
    400: "BadRequestError",
    401: "UnauthorizedError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    408: "RequestTimeoutError",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
    500: "InternalServerError",
    502: "BadGatewayError",
    503: "ServiceUnavailableError",
    504: "GatewayTimeoutError",
};
function errorBody(code, message, param = null) {
    return {
        error: {
            message,
            type: errorTypes[code] ?? (code >= 500 ? "InternalServerError" : "BadRequestError"),
            param,
            code,
        },
    };
}
class ProtocolError extends Error {
    status;
    param;
    constructor(status, message, param = null) {
        super(message);
        this.status = status;
        this.param = param;
    }
}
function isRecord(value) {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}
function optionalInt(body, key, min) {
    const value = body[key];
    if (value === undefined || value === null)
        return undefined;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
        throw new ProtocolError(400, `${key} must be an integer >= ${min}, got ${JSON.stringify(value)}.`, key);
    }
    return value;
}
function optionalBool(body, key) {
    const value = body[key];
    if (value === undefined || value === null)
        return undefined;
    if (typeof value !== "boolean")
        throw new ProtocolError(400, `${key} must be a boolean.`, key);
    return value;
}
function promptTokensOf(prompt) {
    if (typeof prompt === "string")
        return tokenize(prompt);
    if (Array.isArray(prompt)) {
        if (prompt.length === 1 && (typeof prompt[0] === "string" || Array.isArray(prompt[0]))) {
            return promptTokensOf(prompt[0]);
        }
        if (prompt.every((id) => typeof id === "number" && Number.isInteger(id) && id >= 0))
            return prompt;
        if (prompt.length > 1)
            throw new ProtocolError(400, "The simulator serves one prompt per request.", "prompt");
    }
    throw new ProtocolError(400, "prompt must be a string, a list of token ids, or a list of one of those.", "prompt");
}
function messagesOf(messages) {
    if (!Array.isArray(messages) || messages.length === 0) {
        throw new ProtocolError(400, "messages must be a non-empty list.", "messages");
    }
    return messages.map((message, i) => {
        if (!isRecord(message) || typeof message.role !== "string") {
            throw new ProtocolError(400, `messages[${i}] must have a string role.`, "messages");
        }
        const content = message.content;
        if (typeof content === "string")
            return { role: message.role, content };
        if (content === null || content === undefined)
            return { role: message.role, content: "" };
        if (Array.isArray(content)) {
            const text = content
                .map((part) => isRecord(part) && part.type === "text" && typeof part.text === "string" ? part.text : "")
                .join(" ");
            return { role: message.role, content: text };
        }
        throw new ProtocolError(400, `messages[${i}].content must be a string or a list of text parts.`, "messages");
    });
}
function chatPromptTokens(messages) {
    return tokenize(chatPromptText(messagesOf(messages)));
}
function parseGenerationRequest(endpoint, body, ctx) {
    if (!isRecord(body))
        throw new ProtocolError(400, "The request body must be a JSON object.");
    const model = body.model;
    if (model !== undefined && model !== null && model !== ctx.servedModel) {
        throw new ProtocolError(404, `The model \`${String(model)}\` does not exist.`, "model");
    }
    const stream = optionalBool(body, "stream") ?? false;
    const streamOptions = checkedStreamOptions(body, stream);
    const n = optionalInt(body, "n", 1);
    if (n !== undefined && n !== 1)
        throw new ProtocolError(400, "The simulator supports n=1 only.", "n");
    const promptTokens = endpoint === "chat" ? chatPromptTokens(body.messages) : promptTokensOf(body.prompt);
    const { maxTokens, minTokens } = tokenLimits(endpoint, body, promptTokens.length, ctx.maxModelLen);
    const { salt, temperature } = samplingParams(body);
    const includeUsage = streamOptions ? streamOptions.include_usage !== false : false;
    return {
        endpoint,
        model: ctx.servedModel,
        promptTokens,
        maxTokens,
        minTokens,
        ignoreEos: optionalBool(body, "ignore_eos") ?? false,
        seed: optionalInt(body, "seed", Number.MIN_SAFE_INTEGER),
        cacheSalt: salt,
        stream,
        includeUsage,
        continuousUsage: includeUsage && streamOptions?.continuous_usage_stats === true,
        temperature: temperature ?? 1,
        logprobs: requestedLogprobs(endpoint, body),
        tools: endpoint === "chat" ? declaredTools(body.tools) : [],
    };
}
/** The stream options of a streamed request (undefined otherwise); only a streamed request may give them. */
function checkedStreamOptions(body, stream) {
    const streamOptions = body.stream_options;
    if (streamOptions !== undefined && streamOptions !== null) {
        // vLLM's validator tests `data.get("stream_options") and not data.get("stream")`: an empty object is
        // falsy in Python, so `stream_options: {}` without streaming is accepted (engine/protocol.py@040a2cc2).
        if (!stream && !(isRecord(streamOptions) && Object.keys(streamOptions).length === 0)) {
            throw new ProtocolError(400, "Stream options can only be defined when `stream=True`.", "stream_options");
        }
        if (!isRecord(streamOptions))
            throw new ProtocolError(400, "stream_options must be an object.", "stream_options");
    }
    return stream && isRecord(streamOptions) ? streamOptions : undefined;
}
/**
 * max_tokens (chat: max_completion_tokens first; default the rest of the context, 16 for completions)
 * and min_tokens, checked against the context length with vLLM V1's wording and params
 * (vllm/entrypoints/openai/serving_engine.py _validate_input @ v0.11.0).
 */
function tokenLimits(endpoint, body, promptLen, maxModelLen) {
    if (promptLen >= maxModelLen) {
        throw new ProtocolError(400, `This model's maximum context length is ${maxModelLen} tokens. However, your request has ${promptLen} input tokens. Please reduce the length of the input messages.`, "input_tokens");
    }
    const requested = endpoint === "chat"
        ? (optionalInt(body, "max_completion_tokens", 1) ?? optionalInt(body, "max_tokens", 1))
        : optionalInt(body, "max_tokens", 1);
    const maxTokens = requested ?? (endpoint === "chat" ? maxModelLen - promptLen : 16);
    if (promptLen + maxTokens > maxModelLen) {
        // Clients parse this sentence to retry with a smaller max_tokens.
        throw new ProtocolError(400, `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${maxModelLen} tokens and your request has ${promptLen} input tokens (${maxTokens} > ${maxModelLen} - ${promptLen}).`, "max_tokens");
    }
    const minTokens = optionalInt(body, "min_tokens", 0) ?? 0;
    if (minTokens > maxTokens) {
        throw new ProtocolError(400, `min_tokens must be less than or equal to max_tokens=${maxTokens}, got ${minTokens}.`, "min_tokens");
    }
    return { maxTokens, minTokens };
}
/** cache_salt (a non-empty string) and temperature (non-negative), when given. */
function samplingParams(body) {
    const salt = body.cache_salt;
    if (salt !== undefined && salt !== null && (typeof salt !== "string" || salt === "")) {
        throw new ProtocolError(400, "Parameter 'cache_salt' must be a non-empty string if provided.", "cache_salt");
    }
    const temperature = body.temperature;
    if (temperature !== undefined &&
        temperature !== null &&
        (typeof temperature !== "number" || !Number.isFinite(temperature) || temperature < 0)) {
        throw new ProtocolError(400, `temperature must be non-negative, got ${JSON.stringify(temperature)}.`, "temperature");
    }
    return {
        salt: typeof salt === "string" ? salt : undefined,
        temperature: typeof temperature === "number" ? temperature : undefined,
    };
}
/** The logprobs asked for (chat: top_logprobs with logprobs true), at most vLLM's default maximum; null: none. */
function requestedLogprobs(endpoint, body) {
    let logprobs;
    if (endpoint === "chat") {
        const top = optionalInt(body, "top_logprobs", 0);
        const wanted = optionalBool(body, "logprobs") ?? false;
        if (top !== undefined && top > 0 && !wanted)
            throw new ProtocolError(400, "when using `top_logprobs`, `logprobs` must be set to true.", "top_logprobs");
        logprobs = wanted ? (top ?? 0) : null;
    }
    else
        logprobs = optionalInt(body, "logprobs", 0) ?? null;
    if (logprobs !== null && logprobs > maxLogprobs)
        throw new ProtocolError(400, `Requested sample logprobs of ${logprobs}, which is greater than max allowed: ${maxLogprobs}`, "logprobs");
    return logprobs;
}
/** vLLM's default --max-logprobs. */
const maxLogprobs = 20;
/**
 * The `logprobs` value of a chunk carrying these tokens, in vLLM's shapes (vllm/entrypoints/openai/
 * protocol.py, commit 0052bed3): completions `CompletionLogProbs` {text_offset, token_logprobs, tokens,
 * top_logprobs: one {token: logprob} map per token}; chat `ChatCompletionLogProbs` {content: [{token,
 * logprob, bytes, top_logprobs: [{token, logprob, bytes}]}]}. `offset`: characters of output before them.
 */
function logprobsJson(endpoint, entries, offset) {
    if (endpoint === "chat") {
        const bytes = (token) => [...Buffer.from(token, "utf8")];
        return JSON.stringify({
            content: entries.map((entry) => ({
                token: entry.token,
                logprob: entry.logprob,
                bytes: bytes(entry.token),
                top_logprobs: entry.top.map((top) => ({
                    token: top.token,
                    logprob: top.logprob,
                    bytes: bytes(top.token),
                })),
            })),
        });
    }
    const textOffset = [];
    let at = offset;
    for (const entry of entries) {
        textOffset.push(at);
        at += entry.token.length;
    }
    return JSON.stringify({
        text_offset: textOffset,
        token_logprobs: entries.map((entry) => entry.logprob),
        tokens: entries.map((entry) => entry.token),
        top_logprobs: entries.map((entry) => Object.fromEntries(entry.top.map((top) => [top.token, top.logprob]))),
    });
}
/** `cachedTokens` only with --enable-prompt-tokens-details: vLLM adds the details then. */
/**
 * `reasoningTokens` when the answer reasoned: `completion_tokens_details.reasoning_tokens`, the OpenAI
 * API's field (vLLM's UsageInfo has no completion_tokens_details in engine/protocol.py@040a2cc2; the
 * simulator sends it so the client's reading of it is exercised).
 */
function usageOf(promptTokens, completionTokens, cachedTokens, reasoningTokens) {
    const usage = {
        prompt_tokens: promptTokens,
        total_tokens: promptTokens + completionTokens,
        completion_tokens: completionTokens,
    };
    if (cachedTokens !== undefined)
        usage.prompt_tokens_details = { cached_tokens: cachedTokens };
    if (reasoningTokens !== undefined)
        usage.completion_tokens_details = { reasoning_tokens: reasoningTokens };
    return usage;
}
/**
 * Pre-rendered pieces of one stream's chunks: only the text, finish reason and usage vary, so each chunk
 * is a concatenation instead of a JSON.stringify of the whole object.
 */
class ChunkWriter {
    endpoint;
    id;
    shape;
    head;
    tokenIds;
    constructor(endpoint, id, created, model, shape = protocolShapeOf("0.11.0")) {
        this.endpoint = endpoint;
        this.id = id;
        this.shape = shape;
        const object = endpoint === "chat" ? "chat.completion.chunk" : "text_completion";
        this.head = `data: {"id":${JSON.stringify(id)},"object":"${object}","created":${created},"model":${JSON.stringify(model)},"choices":[`;
        this.tokenIds = shape.tokenIdFields
            ? endpoint === "chat"
                ? ',"token_ids":null'
                : ',"prompt_token_ids":null,"token_ids":null'
            : "";
    }
    /** Chat only: the first chunk, sent with the first engine output; 0.10.2+ sets prompt_token_ids on it. */
    role(usage) {
        const promptIds = this.shape.tokenIdFields ? ',"prompt_token_ids":null' : "";
        return `${this.head}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]${usageTail(usage)}${promptIds}}\n\n`;
    }
    /**
     * `logprobs`: the chunk's logprobs value (logprobsJson), or null as without logprobs asked. `delta`: a
     * chat delta other than content (deltaOf), as a reasoning parser or tool parser sets it.
     */
    content(text, finishReason, usage, logprobs = null, delta = null) {
        const reason = finishReason === null ? "null" : `"${finishReason}"`;
        const lp = logprobs ?? "null";
        if (this.endpoint === "chat") {
            // vLLM sets stop_reason only on the chat stream's final choice, so only that one carries it.
            const choice = `{"index":0,"delta":${delta ?? `{"content":${JSON.stringify(text)}}`},"logprobs":${lp},"finish_reason":${reason}${finishReason === null ? "" : ',"stop_reason":null'}${this.tokenIds}}`;
            return `${this.head}${choice}]${usageTail(usage)}}\n\n`;
        }
        const choice = `{"index":0,"text":${JSON.stringify(text)},"logprobs":${lp},"finish_reason":${reason},"stop_reason":null${this.tokenIds}}`;
        const tail = usage ? usageTail(usage) : this.shape.completionUsageNull ? ',"usage":null' : "";
        return `${this.head}${choice}]${tail}}\n\n`;
    }
    usage(usage) {
        return `${this.head}]${usageTail(usage)}}\n\n`;
    }
}
/**
 * A chat delta as vLLM's parsers set it (exclude_unset: only the fields set): reasoning text
 * (`DeltaMessage(reasoning=...)`), a tool call's first delta (`DeltaToolCall(index, type, id,
 * function={name})`) or a piece of its arguments (`DeltaToolCall(index, function={arguments})`),
 * vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py@00854322.
 */
function deltaOf(part) {
    switch (part.kind) {
        case "reasoning":
            return `{"${part.field}":${JSON.stringify(part.text)}}`;
        case "tool-start":
            return `{"tool_calls":[{"id":${JSON.stringify(part.id)},"type":"function","index":0,"function":{"name":${JSON.stringify(part.name)}}}]}`;
        case "tool-arguments":
            return `{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(part.text)}}}]}`;
    }
}
function usageTail(usage) {
    return usage ? `,"usage":${JSON.stringify(usage)}` : "";
}
const doneEvent = "data: [DONE]\n\n";
function streamErrorEvent(code, message) {
    return `data: ${JSON.stringify(errorBody(code, message))}\n\n`;
}
function completionResponse(req, id, created, text, finishReason, completionTokens, cachedTokens, shape = protocolShapeOf("0.11.0"), answer = { reasoning: null, reasoningTokens: 0, toolCall: null }) {
    const counted = usageOf(req.promptTokens.length, completionTokens, cachedTokens, answer.reasoning !== null ? answer.reasoningTokens : undefined);
    const usage = { ...counted, prompt_tokens_details: counted.prompt_tokens_details ?? null };
    const head = { id, created, model: req.model };
    return req.endpoint === "chat"
        ? chatCompletionBody(head, text, finishReason, usage, shape, answer)
        : textCompletionBody(head, text, finishReason, usage, shape);
}
/** A chat.completion as vLLM writes it (its message, tool calls and reasoning field; token-id fields per version). */
function chatCompletionBody(head, text, finishReason, usage, shape, answer) {
    const ids = shape.tokenIdFields;
    return {
        id: head.id,
        object: "chat.completion",
        created: head.created,
        model: head.model,
        choices: [
            {
                index: 0,
                message: {
                    role: "assistant",
                    content: text,
                    refusal: null,
                    annotations: null,
                    audio: null,
                    function_call: null,
                    tool_calls: answer.toolCall === null
                        ? []
                        : [
                            {
                                id: answer.toolCall.id,
                                type: "function",
                                function: { name: answer.toolCall.name, arguments: answer.toolCall.arguments },
                            },
                        ],
                    [shape.reasoningField]: answer.reasoning,
                },
                logprobs: null,
                finish_reason: finishReason,
                stop_reason: null,
                ...(ids ? { token_ids: null } : {}),
            },
        ],
        service_tier: null,
        system_fingerprint: null,
        usage,
        prompt_logprobs: null,
        ...(ids ? { prompt_token_ids: null } : {}),
        kv_transfer_params: null,
    };
}
/** A text_completion as vLLM writes it (token-id fields per version). */
function textCompletionBody(head, text, finishReason, usage, shape) {
    const ids = shape.tokenIdFields;
    return {
        id: head.id,
        object: "text_completion",
        created: head.created,
        model: head.model,
        choices: [
            {
                index: 0,
                text,
                logprobs: null,
                finish_reason: finishReason,
                stop_reason: null,
                prompt_logprobs: null,
                ...(ids ? { prompt_token_ids: null, token_ids: null } : {}),
            },
        ],
        service_tier: null,
        system_fingerprint: null,
        usage,
        kv_transfer_params: null,
    };
}

/** Largest request body the simulator reads; a larger one is answered 400 "body too large". */
const maxBodyBytes = 64 * 1024 * 1024;
function headerValue(value) {
    return Array.isArray(value) ? value[0] : value;
}
/** Reads and discards a body the route does not use. */
async function drain(req) {
    if (req.readableEnded)
        return;
    for await (const _ of req) {
        // discard
    }
}
/**
 * Plain 'data'/'end' events rather than an async iterator: a closed-loop client sends a whole wave of
 * requests at once, and the per-request cost of reading them is time every one of them waits.
 */
function readJson(req) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        let size = 0;
        const onData = (chunk) => {
            size += chunk.length;
            if (size <= maxBodyBytes) {
                chunks.push(chunk);
                return;
            }
            req.off("data", onData);
            req.off("end", onEnd);
            req.destroy();
            resolve({ ok: false, error: "body too large" });
        };
        const onEnd = () => {
            const text = chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks).toString("utf8");
            try {
                resolve({ ok: true, value: JSON.parse(text) });
            }
            catch (error) {
                resolve({ ok: false, error: error.message });
            }
        };
        req.on("data", onData);
        req.on("end", onEnd);
        req.once("error", reject);
    });
}

/** GET /admin/config (and dev mode's /server_info): the profile and the engine's state. */
function adminView(server) {
    return {
        profile: server.profile,
        model: server.options.model,
        seed: server.options.seed,
        device: server.engine.device,
        speedFactor: server.engine.speedFactor,
        prefillFactor: server.engine.prefillFactor,
        kvCapacityBlocks: server.engine.kvCapacityBlocks,
        completedRequests: server.completedRequests,
    };
}
/** POST /admin/config: knobs changed at run time, checked as a profile file's are. */
async function adminConfig(server, req, res) {
    const body = await readJson(req);
    if (!body.ok || typeof body.value !== "object" || body.value === null || Array.isArray(body.value)) {
        server.responses.sendJson(res, 400, errorBody(400, "POST /admin/config expects a JSON object of knobs"), "/admin/config");
        return;
    }
    try {
        server.setProfile(coerceOverrides(body.value), "POST /admin/config");
    }
    catch (error) {
        if (error instanceof ProfileError) {
            server.responses.sendJson(res, 400, errorBody(400, error.message), "/admin/config");
            return;
        }
        throw error;
    }
    server.responses.sendJson(res, 200, adminView(server), "/admin/config");
}
/** GET /admin/chunks: the chunk-time truth for a client in another process; ?offset=N skips records already fetched. */
function adminChunks(server, req, res, path) {
    const offset = Number(new URL(req.url ?? "/", "http://sim").searchParams.get("offset") ?? 0);
    const from = Number.isInteger(offset) && offset > 0 ? offset : 0;
    server.responses.sendJson(res, 200, {
        recording: server.options.recordChunkTimes,
        total: server.chunkLog.length,
        records: server.chunkLog.slice(from),
    }, path);
}

/**
 * Writes one SSE chunk of a streaming response as HTTP/1.1 chunked transfer encoding.
 *
 * `res.write` on a chunked response corks the socket, queues the size line, the data and two CRLFs as
 * four writes and flushes them as one writev on the next tick: about a third more CPU per chunk and
 * several short-lived objects, at 50,000 chunks a second the simulator's largest cost and the source of
 * the garbage collections that made its steps late. When nothing of the response is held back inside
 * Node (headers already on the socket, no queued output), the framed chunk goes to the socket as one
 * write; otherwise, e.g. for an HTTP/1.0 client without chunked encoding, it takes the ordinary path.
 */
function writeEventChunk(res, text) {
    const socket = res.socket;
    if (socket !== null &&
        res.headersSent &&
        res.chunkedEncoding === true &&
        res.writableLength === socket.writableLength) {
        socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
        return;
    }
    res.write(text);
}

/**
 * A token's logprobs as the simulator gives them: the chosen (greedy) token first with the engine's
 * logprob, then k - 1 alternatives, each less likely than the one before it.
 */
function tokenLogprobs(event, text, k) {
    const top = [{ token: text, logprob: event.logprob }];
    for (let rank = 1; rank < k; rank++) {
        const alternative = (event.token + rank * 7919) % vocabularySize;
        top.push({
            token: tokenText(alternative, event.outputTokens === 1),
            logprob: event.logprob - 0.5 - rank,
        });
    }
    return { token: text, logprob: event.logprob, top: k > 0 ? top : [] };
}
/** One generation request in flight: turns engine events into the response the client reads. */
class ActiveRequest {
    server;
    req;
    res;
    id;
    created;
    clientRequestId;
    fault;
    answer;
    plan;
    writer;
    pendingText = "";
    pendingTokens = 0;
    /** What the pending tokens are: each part of the answer goes in chunks of its own. */
    pendingPart = "content";
    /** Non-streamed: the reasoning text and the tool call's arguments so far. */
    reasoningText = "";
    toolArguments = "";
    /** Logprobs of the pending tokens (when the request asked for them), and the output characters sent. */
    pendingLogprobs = [];
    sentChars = 0;
    sentTokens = 0;
    /** SSE events produced by the current delivery, written together by flush(). */
    outgoing = "";
    lastEvent;
    /** In the server's flush list for the current delivery. */
    queued = false;
    fullText = "";
    done = false;
    constructor(server, req, res, id, created, clientRequestId, fault, 
    /** A built-in task's answer words (sim/tasks.ts): the text of the first output tokens. */
    answer = null, 
    /** Reasoning before the answer and a tool call as the answer (sim/answer-plan.ts). */
    plan = { reasoningTokens: 0, toolCall: null }) {
        this.server = server;
        this.req = req;
        this.res = res;
        this.id = id;
        this.created = created;
        this.clientRequestId = clientRequestId;
        this.fault = fault;
        this.answer = answer;
        this.plan = plan;
        this.writer = new ChunkWriter(req.endpoint, id, created, req.model, server.protocolShape);
    }
    start() {
        if (!this.req.stream)
            return;
        this.server.responses.writeHead(this.res, 200, "text/event-stream; charset=utf-8", this.req.endpoint);
        // Headers go out now, as vLLM's streaming response sends them before the first token; otherwise Node
        // holds them for the first chunk and that chunk leaves later than the time recorded for it.
        this.res.flushHeaders();
        if (this.fault?.afterTokens === 0)
            this.applyFault();
    }
    /** Which part of the answer output token `index` (1-based) is, and its text. */
    partOf(event) {
        const index = event.outputTokens;
        const reasoning = this.plan.reasoningTokens;
        const call = this.plan.toolCall;
        if (event.eos)
            return { part: "content", text: "" };
        if (index <= reasoning)
            return { part: "reasoning", text: tokenText(event.token, index === 1) };
        if (call !== null && index === reasoning + 1)
            return { part: "tool-start", text: "" };
        if (call !== null && index <= reasoning + 1 + call.pieces.length)
            return { part: "tool-arguments", text: call.pieces[index - reasoning - 2] };
        const answerIndex = index - reasoning - 1;
        const answerWord = this.answer !== null && !event.diverged ? this.answer[answerIndex] : undefined;
        const first = answerIndex === 0;
        return {
            part: "content",
            text: answerWord !== undefined ? (first ? answerWord : ` ${answerWord}`) : tokenText(event.token, first),
        };
    }
    onEvent(event) {
        if (this.done || this.server.hung)
            return;
        const { part, text } = this.partOf(event);
        let finish = event.finishReason ?? null;
        // vLLM reports a stop after a tool call as tool_calls.
        if (finish === "stop" && this.plan.toolCall !== null && event.outputTokens > this.plan.reasoningTokens)
            finish = "tool_calls";
        if (!this.req.stream) {
            if (part === "reasoning")
                this.reasoningText += text;
            else if (part === "tool-arguments")
                this.toolArguments += text;
            else if (part === "content")
                this.fullText += text;
            this.sentTokens = event.outputTokens;
            if (this.fault && this.sentTokens >= this.fault.afterTokens && this.fault.kind === "reset") {
                this.applyFault();
                return;
            }
            if (finish)
                this.finishPlain(finish, event.outputTokens, this.cachedTokens(event));
            return;
        }
        if (event.first && this.req.endpoint === "chat") {
            this.outgoing += this.writer.role(this.req.continuousUsage ? usageOf(event.promptTokens, 0) : undefined);
            this.record("role", 0);
        }
        // A part of its own starts: what is pending goes first, as its own chunk.
        if (this.pendingTokens > 0 && part !== this.pendingPart && this.lastEvent)
            this.outgoing += this.contentChunk(this.lastEvent, null);
        this.pendingPart = part;
        this.pendingText += text;
        this.pendingTokens++;
        if (this.req.logprobs !== null)
            this.pendingLogprobs.push(tokenLogprobs(event, text, this.req.logprobs));
        this.lastEvent = event;
        if (finish !== null) {
            this.finishStream(event, finish);
            return;
        }
        // A fault fires at its token, also when this delivery carries later steps (coalesce_late_tokens
        // merges them) whose last token would otherwise end the stream before the fault.
        const fault = this.fault;
        if (fault &&
            this.sentTokens + this.pendingTokens >= fault.afterTokens &&
            this.pendingTokens >= this.server.profile.tokens_per_chunk) {
            this.flush();
        }
    }
    /**
     * Sends what this delivery's events produced as one write: one step's tokens (one token, or a step's
     * accepted drafts). With coalesce_late_tokens a delivery carries every step already due when the
     * simulator was late, and their tokens go as one chunk (as vLLM V1's output collector merges outputs its
     * lagging front end has not sent yet); by default each late step is its own delivery and chunk.
     */
    flush() {
        if (this.done || this.server.hung || !this.req.stream)
            return;
        const event = this.lastEvent;
        if (event && this.pendingTokens >= this.server.profile.tokens_per_chunk) {
            this.outgoing += this.contentChunk(event, null);
        }
        if (this.outgoing === "")
            return;
        writeEventChunk(this.res, this.outgoing);
        this.outgoing = "";
        if (this.fault && this.sentTokens >= this.fault.afterTokens)
            this.applyFault();
    }
    contentChunk(event, finish) {
        const usage = this.req.continuousUsage ? usageOf(event.promptTokens, event.outputTokens) : undefined;
        const logprobs = this.req.logprobs !== null
            ? logprobsJson(this.req.endpoint, this.pendingLogprobs, this.sentChars)
            : null;
        const chunk = this.writer.content(this.pendingText, finish, usage, logprobs, this.pendingDelta());
        this.record("content", this.pendingTokens);
        this.sentTokens += this.pendingTokens;
        this.sentChars += this.pendingText.length;
        this.pendingText = "";
        this.pendingTokens = 0;
        this.pendingLogprobs = [];
        return chunk;
    }
    /** The chat delta of the pending tokens when they are not content (null: content). */
    pendingDelta() {
        const call = this.plan.toolCall;
        switch (this.pendingPart) {
            case "content":
                return null;
            case "reasoning":
                return deltaOf({
                    kind: "reasoning",
                    field: this.server.protocolShape.reasoningField,
                    text: this.pendingText,
                });
            case "tool-start":
                return deltaOf({ kind: "tool-start", id: call.id, name: call.name });
            case "tool-arguments":
                return deltaOf({ kind: "tool-arguments", text: this.pendingText });
        }
    }
    /** Reasoning tokens of the output so far (sent in usage when the answer policy reasons). */
    reasoningTokensAt(outputTokens) {
        const reasoning = this.plan.reasoningTokens;
        return reasoning > 0 ? Math.min(reasoning, outputTokens) : undefined;
    }
    finishStream(event, finish) {
        let out = this.outgoing + this.contentChunk(event, finish);
        this.outgoing = "";
        if (this.req.includeUsage) {
            out += this.writer.usage(usageOf(event.promptTokens, event.outputTokens, this.cachedTokens(event), this.reasoningTokensAt(event.outputTokens)));
            this.record("usage", 0);
        }
        out += doneEvent;
        this.record("done", 0);
        this.done = true;
        this.res.end(out);
        this.server.completed(this);
    }
    cachedTokens(event) {
        return this.server.profile.enable_prompt_tokens_details ? event.cachedPromptTokens : undefined;
    }
    finishPlain(finish, completionTokens, cachedTokens) {
        this.done = true;
        const body = completionResponse(this.req, this.id, this.created, this.fullText, finish, completionTokens, cachedTokens, this.server.protocolShape, {
            reasoning: this.plan.reasoningTokens > 0 ? this.reasoningText : null,
            reasoningTokens: this.reasoningTokensAt(completionTokens) ?? 0,
            toolCall: this.plan.toolCall !== null && completionTokens > this.plan.reasoningTokens
                ? { id: this.plan.toolCall.id, name: this.plan.toolCall.name, arguments: this.toolArguments }
                : null,
        });
        this.server.responses.sendJson(this.res, 200, body, this.req.endpoint);
        this.server.completed(this);
    }
    /** The engine gave up on the request (it can never fit in the KV cache). */
    reject() {
        if (this.done)
            return;
        this.done = true;
        const message = "The request cannot fit in the KV cache and was aborted.";
        if (this.req.stream) {
            this.record("error", 0);
            this.record("done", 0);
            this.res.end(streamErrorEvent(500, message) + doneEvent);
        }
        else {
            this.server.responses.sendJson(this.res, 500, errorBody(500, message), this.req.endpoint);
        }
        this.server.forget(this);
    }
    applyFault() {
        const fault = this.fault;
        this.done = true;
        this.server.abort(this);
        if (fault.kind === "reset") {
            const socket = this.res.socket;
            if (socket?.resetAndDestroy)
                socket.resetAndDestroy();
            else
                socket?.destroy();
            return;
        }
        this.record("error", 0);
        this.record("done", 0);
        this.res.end(streamErrorEvent(500, "Simulated fault: the engine failed mid-stream.") + doneEvent);
    }
    record(kind, tokens) {
        if (!this.server.options.recordChunkTimes)
            return;
        this.server.chunkLog.push({
            requestId: this.id,
            clientRequestId: this.clientRequestId,
            timeMs: performance.timeOrigin + performance.now(),
            tokens,
            kind,
        });
    }
}

/**
 * How the simulator answers the built-in tasks (dataset type `tasks`, docs/quality.md): it reads the
 * question as a model would and answers it right with probability `task_accuracy`, drawn per prompt and
 * model_revision (so a greedy model answers a prompt the same way every time). Questions it does not
 * recognise get no forced answer: their tokens are the usual seeded words, and a scorer marks them wrong.
 * This is the simulator's stand-in for a model's skill, not a check of the scorers: those are tested on
 * their own (test/workload/task-score.test.ts).
 */
const arithmetic = /What is (-?\d+) ([+\-*]) (-?\d+)\?/;
const numberWordsTask = /Write the number (\d+) in English words\./;
/** The answer's words, right or (with probability 1 - accuracy) wrong; null for any other prompt. */
function taskAnswer(prompt, accuracy, seed) {
    const right = seededRandom(mixSeed(seed, 0x7a5c)).next() < accuracy;
    const sum = arithmetic.exec(prompt);
    if (sum !== null) {
        const a = Number(sum[1]);
        const b = Number(sum[3]);
        const value = sum[2] === "+" ? a + b : sum[2] === "-" ? a - b : a * b;
        return [String(right ? value : value + 1)];
    }
    const words = numberWordsTask.exec(prompt);
    if (words !== null) {
        const n = Number(words[1]);
        if (n > 999_998)
            return null;
        return numberWords(right ? n : n + 1).split(" ");
    }
    return null;
}
/** The prompt text of a completions or chat body (the last message's text), "" when there is none. */
function promptText(body) {
    const record = body;
    if (typeof record?.prompt === "string")
        return record.prompt;
    if (Array.isArray(record?.messages)) {
        const last = record.messages[record.messages.length - 1];
        if (typeof last?.content === "string")
            return last.content;
    }
    return "";
}

/**
 * POST /v1/completions and /v1/chat/completions: the request checked and parsed, the injected faults
 * drawn, the response id chosen as vLLM does, and the request handed to the engine; the response is
 * written by its ActiveRequest as the engine produces tokens.
 *
 * `receivedAt` is when the request's headers were parsed: the engine sees the request from then, so
 * reading the body, tokenizing and checking it (the simulator's own work, not part of the modelled
 * server) do not add to its TTFT.
 */
async function generate(server, endpoint, req, res, receivedAt) {
    const handler = endpoint === "chat" ? "/v1/chat/completions" : "/v1/completions";
    const body = await readJson(req);
    if (server.hung)
        return;
    const accepted = acceptRequest(server, endpoint, body);
    if ("status" in accepted) {
        server.responses.sendJson(res, accepted.status, accepted.error, handler);
        return;
    }
    const parsed = accepted.parsed;
    const fault = drawFault(server, parsed);
    const { id, clientRequestId } = responseId(server, endpoint, req, accepted.raw);
    const p = server.profile;
    // A built-in task is answered (sim/tasks.ts): greedy, so per prompt and model_revision.
    const answer = taskAnswer(promptText(accepted.raw), p.task_accuracy, mixSeed(hashTokens(parsed.promptTokens), p.model_revision));
    // Reasoning and tool calls (chat only): the seeded answer policy; a task's answer takes no tool call.
    const plan = endpoint === "chat"
        ? planAnswer(hashTokens(parsed.promptTokens), parsed.seed, answer === null ? parsed.tools : [], p)
        : { reasoningTokens: 0, toolCall: null };
    const active = new ActiveRequest(server, parsed, res, id, Math.floor(Date.now() / 1000), clientRequestId, fault, answer, plan);
    server.active.set(id, active);
    server.engine.addRequest({
        id,
        promptTokens: parsed.promptTokens,
        maxTokens: parsed.maxTokens,
        minTokens: parsed.minTokens,
        ignoreEos: parsed.ignoreEos,
        seed: parsed.seed,
        cacheSalt: parsed.cacheSalt,
        temperature: parsed.temperature,
        ...(answer !== null
            ? { answerTokens: plan.reasoningTokens + answer.length }
            : plan.toolCall !== null
                ? // The call's first delta, then one token per piece of its arguments, then EOS.
                    { answerTokens: plan.reasoningTokens + 1 + plan.toolCall.pieces.length }
                : {}),
        ...(plan.reasoningTokens > 0 ? { reasoningTokens: plan.reasoningTokens } : {}),
    }, receivedAt);
    // A write racing a client reset reports the error here; the close handler does the cleanup.
    res.on("error", () => undefined);
    res.on("close", () => {
        if (!active.done) {
            active.done = true;
            server.abort(active);
        }
    });
    active.start();
    if (!active.done)
        server.loop.wake(receivedAt);
}
/**
 * The request parsed, or the error status it gets: the server still starting or its engine dead, a body
 * that is not JSON or not a valid request, or the injected error fault (drawn only for a valid request).
 */
function acceptRequest(server, endpoint, body) {
    const p = server.profile;
    if (server.starting())
        return { status: 503, error: errorBody(503, "The server is starting.") };
    if (p.engine_dead)
        return {
            status: 500,
            error: errorBody(500, "EngineCore encountered an issue. See stack trace for the root cause."),
        };
    if (!body.ok)
        return { status: 400, error: errorBody(400, `Invalid JSON body: ${body.error}`) };
    let parsed;
    try {
        parsed = parseGenerationRequest(endpoint, body.value, {
            servedModel: server.options.model,
            maxModelLen: p.max_model_len,
        });
    }
    catch (error) {
        if (error instanceof ProtocolError)
            return { status: error.status, error: errorBody(error.status, error.message, error.param) };
        throw error;
    }
    if (server.faultRandom.next() < p.fault_error_rate)
        return {
            status: p.fault_error_status,
            error: errorBody(p.fault_error_status, `Simulated fault: status ${p.fault_error_status}.`),
        };
    return { parsed, raw: body.value };
}
/** The injected stream fault of an accepted request: an error mid-stream, a connection reset, or none. */
function drawFault(server, parsed) {
    const p = server.profile;
    const faultDraw = server.faultRandom.next();
    if (parsed.stream && faultDraw < p.fault_midstream_error_rate)
        return { kind: "midstream", afterTokens: p.fault_after_tokens };
    if (faultDraw >= 1 - p.fault_reset_rate)
        return { kind: "reset", afterTokens: p.fault_after_tokens };
    return undefined;
}
/**
 * The response id, as vLLM makes it: the prefix plus X-Request-Id, else the body's request_id, else a
 * uuid (also when the wanted id is in use).
 */
function responseId(server, endpoint, req, raw) {
    const prefix = endpoint === "chat" ? "chatcmpl-" : "cmpl-";
    const clientRequestId = headerValue(req.headers["x-request-id"]);
    const bodyRequestId = raw.request_id;
    const base = clientRequestId ?? (typeof bodyRequestId === "string" ? bodyRequestId : undefined);
    const wanted = base !== undefined && base !== "" ? `${prefix}${base}` : undefined;
    const id = wanted !== undefined && !server.active.has(wanted) && !server.engine.knows(wanted)
        ? wanted
        : `${prefix}${randomUUID().replaceAll("-", "")}`;
    return { id, clientRequestId };
}

/**
 * prometheus_client renders floats with floatToGoString (prometheus_client/utils.py): Python's repr, whole
 * numbers with ".0", seven or more integer digits as an exponent.
 */
function formatValue(value) {
    if (value === Number.POSITIVE_INFINITY)
        return "+Inf";
    if (value === Number.NEGATIVE_INFINITY)
        return "-Inf";
    if (Number.isNaN(value))
        return "NaN";
    // Python's repr writes magnitudes below 1e-4 with an exponent of at least two digits ("4e-06").
    if (value !== 0 && Math.abs(value) < 1e-4) {
        return value.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
    }
    const text = Number.isInteger(value) && Math.abs(value) < 1e16 ? `${value}.0` : String(value);
    // Python's repr, then prometheus_client's floatToGoString: seven or more integer digits become an
    // exponent ("1.2345678e+07").
    const dot = text.indexOf(".");
    if (value > 0 && dot > 6 && !text.includes("e")) {
        const mantissa = `${text[0]}.${text.slice(1, dot)}${text.slice(dot + 1)}`.replace(/[0.]+$/, "");
        return `${mantissa}e+0${dot - 1}`;
    }
    return text;
}
function escapeLabel(value) {
    return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}
function labelText(labels) {
    const parts = Object.entries(labels).map(([key, value]) => `${key}="${escapeLabel(value)}"`);
    return parts.length > 0 ? `{${parts.join(",")}}` : "";
}
class Writer {
    createdAt;
    lines = [];
    constructor(createdAt) {
        this.createdAt = createdAt;
    }
    /**
     * prometheus_client's text output moves a family's `_created` samples into a gauge family of their own
     * right after it (generate_latest in prometheus_client/exposition.py).
     */
    created(name, help, labelSets) {
        if (labelSets.length === 0)
            return;
        this.family(`${name}_created`, "gauge", help);
        for (const labels of labelSets)
            this.sample(`${name}_created`, labels, this.createdAt);
    }
    family(name, type, help) {
        this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    }
    sample(name, labels, value) {
        this.lines.push(`${name}${labelText(labels)} ${formatValue(value)}`);
    }
    histogram(name, help, labels, histogram) {
        this.family(name, "histogram", help);
        this.histogramSamples(name, labels, histogram);
        this.created(name, help, [labels]);
    }
    histogramSamples(name, labels, histogram) {
        let cumulative = 0;
        histogram.buckets.forEach((bound, i) => {
            cumulative += histogram.counts[i];
            this.sample(`${name}_bucket`, { ...labels, le: formatValue(bound) }, cumulative);
        });
        this.sample(`${name}_bucket`, { ...labels, le: "+Inf" }, histogram.count);
        this.sample(`${name}_count`, labels, histogram.count);
        this.sample(`${name}_sum`, labels, histogram.sum);
    }
}
function renderMetrics({ engine, modelName, http, createdAt, stepLateness }) {
    const w = new Writer(createdAt);
    if (engine.config.disable_log_stats) {
        writeHttp(w, http);
        return `${w.lines.join("\n")}\n`;
    }
    if (stepLateness)
        writeSimOnly(w, stepLateness);
    const set = metricSetOf(engine.config.vllm_version);
    const labels = { model_name: modelName, engine: "0" };
    writeSchedulerState(w, labels, engine, set);
    writeCacheCounters(w, labels, engine, set);
    writeTokenCounters(w, labels, engine.stats);
    if (engine.config.spec_decode_num_tokens > 0)
        writeSpecDecode(w, labels, engine);
    for (const [name, help, histogram] of requestHistograms(engine.stats, set))
        w.histogram(name, help, labels, histogram);
    w.family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig");
    w.sample("vllm:cache_config_info", cacheConfigLabels(engine), 1);
    writeHttp(w, http);
    return `${w.lines.join("\n")}\n`;
}
function gauge(w, labels, name, help, value) {
    w.family(name, "gauge", help);
    w.sample(name, labels, value);
}
/** `name` without `_total`: the family, as prometheus_client names it; the sample gets `_total`. */
function counter(w, labels, name, help, value) {
    w.family(`${name}_total`, "counter", help);
    w.sample(`${name}_total`, labels, value);
    w.created(name, help, [labels]);
}
/** The requests running and waiting, and (current) the engine's sleep state: always awake. */
function writeSchedulerState(w, labels, engine, set) {
    gauge(w, labels, "vllm:num_requests_running", "Number of requests in model execution batches.", engine.numRunning);
    gauge(w, labels, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", engine.numWaiting);
    if (set !== "current")
        return;
    w.family("vllm:engine_sleep_state", "gauge", "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.");
    for (const [state, value] of [
        ["awake", 1],
        ["weights_offloaded", 0],
        ["discard_all", 0],
    ]) {
        w.sample("vllm:engine_sleep_state", { ...labels, sleep_state: state }, value);
    }
}
/**
 * The KV cache's usage and the prefix cache's queries and hits (0.10: the deprecated `gpu_` names beside
 * them; current: the external and multi-modal caches, always empty here).
 */
function writeCacheCounters(w, labels, engine, set) {
    const s = engine.stats;
    if (set === "0.10") {
        gauge(w, labels, "vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.", engine.kvUsage);
        counter(w, labels, "vllm:gpu_prefix_cache_queries", "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead.", s.prefixQueries);
        counter(w, labels, "vllm:gpu_prefix_cache_hits", "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.", s.prefixHits);
    }
    gauge(w, labels, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", engine.kvUsage);
    counter(w, labels, "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", s.prefixQueries);
    counter(w, labels, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", s.prefixHits);
    if (set !== "current")
        return;
    counter(w, labels, "vllm:external_prefix_cache_queries", "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens.", 0);
    counter(w, labels, "vllm:external_prefix_cache_hits", "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens.", 0);
    counter(w, labels, "vllm:mm_cache_queries", "Multi-modal cache queries, in terms of number of queried items.", 0);
    counter(w, labels, "vllm:mm_cache_hits", "Multi-modal cache hits, in terms of number of cached items.", 0);
}
/** Preemptions, prompt and generation tokens, and the finished requests by reason. */
function writeTokenCounters(w, labels, s) {
    counter(w, labels, "vllm:num_preemptions", "Cumulative number of preemption from the engine.", s.preemptions);
    counter(w, labels, "vllm:prompt_tokens", "Number of prefill tokens processed.", s.promptTokens);
    counter(w, labels, "vllm:generation_tokens", "Number of generation tokens processed.", s.generationTokens);
    w.family("vllm:request_success_total", "counter", "Count of successfully processed requests.");
    for (const reason of ["stop", "length", "abort"]) {
        w.sample("vllm:request_success_total", { ...labels, finished_reason: reason }, s.success[reason]);
    }
    w.created("vllm:request_success", "Count of successfully processed requests.", ["stop", "length", "abort"].map((reason) => ({ ...labels, finished_reason: reason })));
}
/** The request histograms, in vLLM's order, the per-token ones as the metric set names them. */
function requestHistograms(s, set) {
    const perToken = set === "0.10"
        ? [
            ["vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", s.itl],
            [
                "vllm:time_per_prefill_token_request_seconds",
                "Time spent per token during prefill  phase in seconds",
                s.prefillPerToken,
            ],
        ]
        : set === "0.11"
            ? [
                [
                    "vllm:time_per_output_token_seconds",
                    "Histogram of time per output token in seconds.DEPRECATED: Use vllm:inter_token_latency_seconds instead.",
                    s.itl,
                ],
                ["vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", s.itl],
            ]
            : [
                ["vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", s.itl],
                [
                    "vllm:request_time_per_output_token_seconds",
                    "Histogram of time_per_output_token_seconds per request.",
                    s.tpot,
                ],
            ];
    return [
        ["vllm:request_prompt_tokens", "Number of prefill tokens processed.", s.promptTokensPerRequest],
        [
            "vllm:request_generation_tokens",
            "Number of generation tokens processed.",
            s.generationTokensPerRequest,
        ],
        ["vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", s.iterationTokens],
        [
            "vllm:request_max_num_generation_tokens",
            "Histogram of maximum number of requested generation tokens.",
            s.maxGenerationTokens,
        ],
        ["vllm:request_params_n", "Histogram of the n request parameter.", s.nParam],
        ["vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", s.maxTokensParam],
        ["vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", s.ttft],
        ...perToken,
        ["vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", s.e2e],
        ["vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", s.queue],
        [
            "vllm:request_inference_time_seconds",
            "Histogram of time spent in RUNNING phase for request.",
            s.inference,
        ],
        ["vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", s.prefill],
        ["vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", s.decode],
    ];
}
/**
 * The simulator's own health, which no vLLM exports (prefix `sim:`, never `vllm:`): how late its step
 * loop handled each step boundary, i.e. how much the simulator's process was kept from running on time by
 * the host it shares with the client. The runner records it per run and excludes a run whose simulator
 * was starved (docs/run.md, Server host starved). Written first; hidden with disable_log_stats, as vLLM
 * then shows only the HTTP metrics.
 */
function writeSimOnly(w, stepLateness) {
    w.histogram("sim:step_lateness_seconds", "Simulator only (not a vLLM metric): how late the step loop handled each step boundary, in seconds.", {}, stepLateness);
}
/**
 * CacheConfig.metrics_info(): every field of vLLM's CacheConfig as a string label, plus engine
 * (vllm/config/cache.py @ v0.11.0; fields the simulator has no notion of carry vLLM's defaults). Sorted, as
 * prometheus_client orders the label names it is given by the dict, which is sorted here for stability.
 */
function cacheConfigLabels(engine) {
    const p = engine.config;
    const labels = {
        block_size: String(p.block_size),
        cache_dtype: p.cache_dtype,
        calculate_kv_scales: "False",
        cpu_offload_gb: "0",
        enable_prefix_caching: p.enable_prefix_caching ? "True" : "False",
        engine: "0",
        gpu_memory_utilization: String(p.gpu_memory_utilization),
        is_attention_free: "False",
        kv_sharing_fast_prefill: "False",
        mamba_cache_dtype: "auto",
        mamba_ssm_cache_dtype: "auto",
        num_cpu_blocks: "None",
        num_gpu_blocks: String(engine.kvCapacityBlocks),
        num_gpu_blocks_override: "None",
        prefix_caching_hash_algo: "sha256",
        sliding_window: "None",
        swap_space: "4",
    };
    return labels;
}
/** vllm/v1/spec_decode/metrics.py @ 016a8587 (SpecDecodingProm): counters, accepted per draft position. */
function writeSpecDecode(w, labels, engine) {
    const spec = engine.stats.specDecode;
    const one = (name, help, value) => {
        w.family(`${name}_total`, "counter", help);
        w.sample(`${name}_total`, labels, value);
        w.created(name, help, [labels]);
    };
    one("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", spec.drafts);
    one("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", spec.draftTokens);
    one("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", spec.acceptedTokens);
    const name = "vllm:spec_decode_num_accepted_tokens_per_pos";
    w.family(`${name}_total`, "counter", "Accepted tokens per draft position.");
    const positions = engine.config.spec_decode_num_tokens;
    for (let position = 0; position < positions; position++) {
        w.sample(`${name}_total`, { ...labels, position: String(position) }, spec.acceptedPerPosition[position] ?? 0);
    }
    w.created(name, "Accepted tokens per draft position.", Array.from({ length: positions }, (_, position) => ({ ...labels, position: String(position) })));
}
/**
 * prometheus_fastapi_instrumentator's default families, as vLLM's API server registers them: the request
 * counter, request and response sizes (summaries), and latency with many buckets and no labels and with
 * three buckets by handler and method.
 */
function writeHttp(w, http) {
    const totalHelp = "Total number of requests by method, status and handler.";
    w.family("http_requests_total", "counter", totalHelp);
    const keys = [...http.requests.keys()].map((key) => key.split(" "));
    const requestLabels = keys.map(([handler, method, status]) => ({
        handler: handler,
        method: method,
        status: status,
    }));
    for (const labels of requestLabels) {
        w.sample("http_requests_total", labels, http.requests.get(`${labels.handler} ${labels.method} ${labels.status}`));
    }
    w.created("http_requests", totalHelp, requestLabels);
    summary(w, "http_request_size_bytes", "Content length of incoming requests by handler. Only value of header is respected. Otherwise ignored. No percentile calculated. ", http.requestSize);
    summary(w, "http_response_size_bytes", "Content length of outgoing responses by handler. Only value of header is respected. Otherwise ignored. No percentile calculated. ", http.responseSize);
    w.histogram("http_request_duration_highr_seconds", "Latency with many buckets but no API specific labels. Made for more accurate percentile calculations. ", {}, http.durationHighr);
    const durationHelp = "Latency with only few buckets by handler. Made to be only used if aggregation by handler is important. ";
    w.family("http_request_duration_seconds", "histogram", durationHelp);
    const durationLabels = [];
    for (const [key, histogram] of http.duration) {
        const [handler, method] = key.split(" ");
        const labels = { handler: handler, method: method };
        durationLabels.push(labels);
        w.histogramSamples("http_request_duration_seconds", labels, histogram);
    }
    w.created("http_request_duration_seconds", durationHelp, durationLabels);
}
function summary(w, name, help, sizes) {
    w.family(name, "summary", help);
    const labelSets = [];
    for (const [handler, size] of sizes) {
        labelSets.push({ handler });
        w.sample(`${name}_count`, { handler }, size.count);
        w.sample(`${name}_sum`, { handler }, size.sum);
    }
    w.created(name, help, labelSets);
}

/** GET /v1/models: the one served model, in vLLM's shape. */
function models(server) {
    const created = Math.floor(Date.now() / 1000);
    const model = server.options.model;
    return {
        object: "list",
        data: [
            {
                id: model,
                object: "model",
                created,
                owned_by: "vllm",
                root: model,
                parent: null,
                max_model_len: server.profile.max_model_len,
                permission: [
                    {
                        id: `modelperm-${randomUUID().replaceAll("-", "")}`,
                        object: "model_permission",
                        created,
                        allow_create_engine: false,
                        allow_sampling: true,
                        allow_logprobs: true,
                        allow_search_indices: false,
                        allow_view: true,
                        allow_fine_tuning: false,
                        organization: "*",
                        group: null,
                        is_blocking: false,
                    },
                ],
            },
        ],
    };
}
/** POST /tokenize: a prompt or chat messages to token ids. */
async function tokenizeRoute(server, req, res) {
    const body = await readJson(req);
    const value = body.ok ? body.value : null;
    let tokens;
    try {
        if (value && typeof value.prompt === "string")
            tokens = tokenize(value.prompt);
        else if (value && value.messages !== undefined)
            tokens = chatPromptTokens(value.messages);
        else
            throw new ProtocolError(400, "POST /tokenize expects a prompt string or a messages list.");
    }
    catch (error) {
        const e = error instanceof ProtocolError ? error : new ProtocolError(400, String(error));
        server.responses.sendJson(res, e.status, errorBody(e.status, e.message, e.param), "/tokenize");
        return;
    }
    server.responses.sendJson(res, 200, { count: tokens.length, max_model_len: server.profile.max_model_len, tokens, token_strs: null }, "/tokenize");
}
/** POST /detokenize: token ids back to text. */
async function detokenizeRoute(server, req, res) {
    const body = await readJson(req);
    const value = body.ok ? body.value : null;
    const tokens = value?.tokens;
    if (!Array.isArray(tokens) || !tokens.every((id) => Number.isInteger(id) && id >= 0)) {
        server.responses.sendJson(res, 400, errorBody(400, "POST /detokenize expects tokens: a list of token ids.", "tokens"), "/detokenize");
        return;
    }
    server.responses.sendJson(res, 200, { prompt: detokenize(tokens) }, "/detokenize");
}

/**
 * The routing of one request: the API key on /v1, then the route table (health, version, models,
 * metrics, generation, tokenizer, admin; the dev-mode routes when enabled), else 405 or 404 as
 * Starlette answers them.
 */
async function handleRequest(server, req, res) {
    const receivedAt = server.options.clock.now();
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").split("?")[0];
    if (server.dead) {
        res.destroy();
        return;
    }
    server.responses.instrument(req, res, receivedAt);
    const o = server.options;
    if (o.apiKey !== undefined &&
        path.startsWith("/v1") &&
        req.headers.authorization !== `Bearer ${o.apiKey}`) {
        await drain(req);
        server.responses.sendJson(res, 401, { error: "Unauthorized" }, path);
        return;
    }
    const route = `${method} ${path}`;
    if (await serveRoute(server, route, path, req, res, receivedAt))
        return;
    if (o.devMode && (await serveDevRoute(server, route, path, req, res)))
        return;
    await drain(req);
    // A path served with other methods: Starlette answers 405 with Allow (the instrumentator labels
    // requests that match no route fully handler="none").
    const allowed = routeMethods(path, o.devMode);
    if (allowed.length > 0) {
        server.responses.sendJson(res, 405, { detail: "Method Not Allowed" }, "none", {
            allow: allowed.join(", "),
        });
        return;
    }
    server.responses.sendJson(res, 404, { detail: "Not Found" }, "none");
}
/** The route table: true when `route` ("METHOD /path") is one of its routes, once answered. */
async function serveRoute(server, route, path, req, res, receivedAt) {
    switch (route) {
        case "GET /health":
        case "GET /ping":
        case "POST /ping":
            await drain(req);
            server.responses.sendEmpty(res, server.starting() || server.profile.engine_dead ? 503 : 200, path);
            return true;
        case "GET /version":
            server.responses.sendJson(res, 200, { version: server.profile.vllm_version }, path);
            return true;
        case "GET /v1/models":
            server.responses.sendJson(res, 200, models(server), path);
            return true;
        case "GET /metrics":
            server.responses.count(res, path, 200);
            res.writeHead(200, { server: "uvicorn", "content-type": "text/plain; version=0.0.4; charset=utf-8" });
            res.end(renderMetrics({
                engine: server.engine,
                modelName: server.options.model,
                http: server.httpMetrics,
                createdAt: server.createdAt,
                stepLateness: server.stepLatenessHistogram(),
            }));
            return true;
        case "POST /v1/completions":
            await generate(server, "completions", req, res, receivedAt);
            return true;
        case "POST /v1/chat/completions":
            await generate(server, "chat", req, res, receivedAt);
            return true;
        case "POST /tokenize":
            await tokenizeRoute(server, req, res);
            return true;
        case "POST /detokenize":
            await detokenizeRoute(server, req, res);
            return true;
        case "GET /admin/config":
            server.responses.sendJson(res, 200, adminView(server), path);
            return true;
        case "GET /admin/chunks":
            adminChunks(server, req, res, path);
            return true;
        case "POST /admin/config":
            await adminConfig(server, req, res);
            return true;
    }
    return false;
}
/** vLLM's dev-mode routes (VLLM_SERVER_DEV_MODE): the cache resets and /server_info. */
async function serveDevRoute(server, route, path, req, res) {
    if (route === "POST /reset_prefix_cache") {
        await drain(req);
        server.engine.resetPrefixCache();
        server.responses.sendEmpty(res, 200, path);
        return true;
    }
    if (route === "POST /reset_mm_cache" || route === "POST /reset_encoder_cache") {
        await drain(req);
        server.responses.sendEmpty(res, 200, path);
        return true;
    }
    if (route === "GET /server_info") {
        server.responses.sendJson(res, 200, { vllm_config: adminView(server) }, path);
        return true;
    }
    return false;
}
const routes = {
    "/health": ["GET"],
    "/ping": ["GET", "POST"],
    "/version": ["GET"],
    "/v1/models": ["GET"],
    "/metrics": ["GET"],
    "/v1/completions": ["POST"],
    "/v1/chat/completions": ["POST"],
    "/tokenize": ["POST"],
    "/detokenize": ["POST"],
    "/admin/config": ["GET", "POST"],
    "/admin/chunks": ["GET"],
};
const devRoutes = {
    "/reset_prefix_cache": ["POST"],
    "/reset_mm_cache": ["POST"],
    "/reset_encoder_cache": ["POST"],
    "/server_info": ["GET"],
};
function routeMethods(path, devMode) {
    return routes[path] ?? (devMode ? devRoutes[path] : undefined) ?? [];
}

/**
 * Upper bounds (s) of sim:step_lateness_seconds: from well under a step of the demo's engine (35 ms) to
 * the stalls of a starved host (hundreds of ms) and beyond the loop's resync point.
 */
const stepLatenessBuckets = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1, 2.5,
];
/** Nothing ever notifies it: Atomics.wait on it blocks the process for the fault_stall_ms fault. */
const stallCell = new Int32Array(new SharedArrayBuffer(4));
/**
 * The simulated vLLM server: the engine and its step loop, the HTTP listener, the requests in flight and
 * the injected faults that end the server. Routing is `routes.ts`, generation `generation.ts`, a
 * response in flight `active-request.ts`, the admin and model routes `admin.ts` and `model-routes.ts`.
 * The members without `private` are read by those modules through `RouteHost` (`route-host.ts`) and
 * `RequestHost` (they are the simulator's own, not an API).
 */
class SimServer {
    options;
    engine;
    loop;
    http;
    chunkLog = [];
    responses;
    hung = false;
    dead = false;
    /** The requests in flight, by response id. */
    active = new Map();
    faultRandom;
    startedAt;
    /** Unix seconds the server started: the metrics' `_created` samples. */
    createdAt = Date.now() / 1000;
    completedCount = 0;
    sockets = new Set();
    /** Requests with output from the delivery in progress (reused to spare an allocation per step). */
    touched = [];
    /** Step deliveries so far (the fault_stall_ms fault counts them). */
    deliveries = 0;
    /** The loop's lateness samples folded into `stepLateness` so far. */
    latenessFolded = 0;
    stepLateness = new Histogram(stepLatenessBuckets);
    constructor(options) {
        this.options = options;
        this.responses = new HttpResponder(options.clock);
        this.engine = new Engine(options.profile, options.seed, options.device ?? 0);
        this.loop = new StepLoop(this.engine, options.clock, (events, rejected) => this.deliver(events, rejected), {
            spinMs: options.spinMs,
            stepProbe: options.loopProbe,
        });
        this.faultRandom = seededRandom(mixSeed(options.seed, 0xfa17));
        this.startedAt = options.clock.now();
        this.http = createServer({ noDelay: true, keepAlive: true }, (req, res) => {
            handleRequest(this, req, res).catch((error) => {
                if (!res.headersSent)
                    this.responses.sendJson(res, 500, errorBody(500, String(error)), "other");
                else
                    res.destroy();
            });
        });
        this.http.on("connection", (socket) => {
            this.sockets.add(socket);
            socket.on("close", () => this.sockets.delete(socket));
        });
    }
    get profile() {
        return this.engine.config;
    }
    get protocolShape() {
        return protocolShapeOf(this.engine.config.vllm_version);
    }
    get httpMetrics() {
        return this.responses.httpMetrics;
    }
    /** Requests completed since the server started (the injected exit and hang faults count them). */
    get completedRequests() {
        return this.completedCount;
    }
    setProfile(overrides, where) {
        const next = applyOverrides(this.engine.config, overrides, where);
        checkKvCapacity(next, where);
        if (next.block_size !== this.engine.config.block_size && this.engine.hasWork()) {
            throw new ProfileError(`${where}: field "block_size": can only change while no request is in flight`);
        }
        this.engine.setProfile(next);
        return next;
    }
    deliver(events, rejected) {
        // One broken response must not stop the loop that serves every other stream.
        const touched = this.touched;
        for (const event of events) {
            const request = this.active.get(event.id);
            if (!request)
                continue;
            this.guarded(request, () => request.onEvent(event));
            if (!request.queued) {
                request.queued = true;
                touched.push(request);
            }
        }
        for (const request of touched) {
            request.queued = false;
            this.guarded(request, () => request.flush());
        }
        touched.length = 0;
        for (const id of rejected)
            this.active.get(id)?.reject();
        const p = this.profile;
        if (p.fault_stall_ms > 0 && ++this.deliveries % p.fault_stall_every_steps === 0) {
            // The whole process stops, as one the host's scheduler starved would: timers, sockets, the loop.
            Atomics.wait(stallCell, 0, 0, p.fault_stall_ms);
        }
    }
    /**
     * Every step's lateness since the server started, in seconds (the simulator-only family
     * sim:step_lateness_seconds on /metrics): the loop's samples not yet counted are folded in when asked.
     * A resetLatency() in between (the benchmark's) restarts the loop's buffer; its unread samples are lost.
     */
    stepLatenessHistogram() {
        const { lateness, count } = this.loop.latency();
        if (count < this.latenessFolded)
            this.latenessFolded = 0;
        for (let index = this.latenessFolded; index < count; index++)
            this.stepLateness.observe(Math.max(0, lateness[index]) / 1000);
        this.latenessFolded = count;
        return this.stepLateness;
    }
    guarded(request, action) {
        try {
            action();
        }
        catch {
            request.res.destroy();
            this.abort(request);
        }
    }
    completed(request) {
        this.forget(request);
        this.completedCount++;
        const p = this.profile;
        if (p.fault_exit_after_requests > 0 && this.completedCount >= p.fault_exit_after_requests) {
            this.die(`injected fault: the engine exits after ${p.fault_exit_after_requests} requests`);
        }
        if (p.fault_hang_after_requests > 0 && this.completedCount >= p.fault_hang_after_requests)
            this.hung = true;
    }
    forget(request) {
        this.active.delete(request.id);
        this.engine.forget(request.id);
    }
    abort(request) {
        this.engine.abort(request.id, this.options.clock.now());
        this.forget(request);
    }
    die(reason) {
        if (this.dead)
            return;
        this.dead = true;
        this.loop.stop();
        setImmediate(() => {
            for (const socket of this.sockets)
                socket.destroy();
            this.options.onEngineDeath(reason);
        });
    }
    /** Stops everything: the loop, every connection, the listener. */
    async close() {
        this.loop.stop();
        await new Promise((resolve) => {
            this.http.close(() => resolve());
            for (const socket of this.sockets)
                socket.destroy();
        });
    }
    /** Within the profile's startup delay: health and generation answer 503. */
    starting() {
        return this.options.clock.now() - this.startedAt < this.profile.startup_delay_s * 1000;
    }
}

/**
 * `vllm serve` engine flags the simulator honours, as aliases of profile knobs, so a fake
 * `docker run vllm/vllm-openai ... <engine args>` can pass its arguments straight through.
 */
const engineFlagKnobs = {
    "max-num-seqs": "max_num_seqs",
    "max-num-batched-tokens": "max_num_batched_tokens",
    "max-model-len": "max_model_len",
    "block-size": "block_size",
    "num-gpu-blocks-override": "num_gpu_blocks",
    "kv-cache-dtype": "cache_dtype",
    "gpu-memory-utilization": "gpu_memory_utilization",
};
/** vLLM flags that change nothing in the simulator; accepted so pass-through command lines work. */
const ignoredEngineFlags = [
    "tensor-parallel-size",
    "pipeline-parallel-size",
    "dtype",
    "revision",
    "tokenizer",
    "tokenizer-revision",
    "generation-config",
    "download-dir",
    "swap-space",
    "uvicorn-log-level",
    "quantization",
    "load-format",
    "tokenizer-mode",
    "max-logprobs",
];
const ignoredEngineSwitches = [
    "trust-remote-code",
    "enforce-eager",
    "disable-log-requests",
    "disable-uvicorn-access-log",
    "enable-chunked-prefill",
    "no-enable-chunked-prefill",
    "disable-frontend-multiprocessing",
    "enable-log-requests",
];
/** Boolean vLLM switches that set a knob to true. */
const engineSwitchKnobs = {
    "enable-prompt-tokens-details": "enable_prompt_tokens_details",
    "disable-log-stats": "disable_log_stats",
};
/** `1k` / `1K` / `2m`, as vLLM's --max-model-len accepts. */
function parseHumanInt(flag, raw) {
    const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(raw.trim());
    if (!match)
        throw new ProfileError(`--${flag} expects a whole number (1k = 1024 allowed), got "${raw}"`);
    const unit = match[2].toLowerCase();
    const value = Number(match[1]) * (unit === "k" ? 1024 : unit === "m" ? 1024 * 1024 : 1);
    if (!Number.isInteger(value))
        throw new ProfileError(`--${flag} expects a whole number, got "${raw}"`);
    return value;
}
const faultForms = [
    ["error:STATUS:RATE", "answer RATE (0-1) of generation requests with HTTP STATUS"],
    ["midstream-error:RATE[:AFTER]", 'RATE of streams send data: {"error":...} then [DONE] after AFTER tokens'],
    ["reset:RATE[:AFTER]", "RATE of requests have their connection reset after AFTER tokens"],
    ["exit-after:N", "the engine dies after N completed requests (the process exits 1)"],
    ["hang-after:N", "after N completed requests every response stops sending"],
    ["slow-start:SECONDS", "/health (and /v1) answer 503 for SECONDS after start"],
    ["tokens-per-chunk:K", "bundle K tokens into each SSE chunk"],
    ["dead", "the engine is dead from the start: /health 503, generation 500"],
];
function rate(spec, raw) {
    const value = Number(raw);
    if (raw === undefined || !Number.isFinite(value) || value < 0 || value > 1) {
        throw new ProfileError(`--fault ${spec}: expected a rate between 0 and 1, got "${raw ?? ""}"`);
    }
    return value;
}
function whole(spec, raw, min = 0) {
    const value = Number(raw);
    if (raw === undefined || !Number.isInteger(value) || value < min) {
        throw new ProfileError(`--fault ${spec}: expected a whole number >= ${min}, got "${raw ?? ""}"`);
    }
    return value;
}
/** One `--fault` spec to the knobs it sets. */
function parseFault(spec) {
    const [kind, a, b] = spec.split(":");
    switch (kind) {
        case "error":
            return { fault_error_status: whole(spec, a, 400), fault_error_rate: rate(spec, b) };
        case "midstream-error":
            return {
                fault_midstream_error_rate: rate(spec, a),
                ...(b !== undefined ? { fault_after_tokens: whole(spec, b) } : {}),
            };
        case "reset":
            return {
                fault_reset_rate: rate(spec, a),
                ...(b !== undefined ? { fault_after_tokens: whole(spec, b) } : {}),
            };
        case "exit-after":
            return { fault_exit_after_requests: whole(spec, a, 1) };
        case "hang-after":
            return { fault_hang_after_requests: whole(spec, a, 1) };
        case "slow-start": {
            const seconds = Number(a);
            if (a === undefined || !Number.isFinite(seconds) || seconds < 0) {
                throw new ProfileError(`--fault ${spec}: expected seconds >= 0`);
            }
            return { startup_delay_s: seconds };
        }
        case "tokens-per-chunk":
            return { tokens_per_chunk: whole(spec, a, 1) };
        case "dead":
            return { engine_dead: true };
        default:
            throw new ProfileError(`--fault "${spec}": unknown fault; expected one of ${faultForms.map(([form]) => form).join(", ")}`);
    }
}
function parseSettings(settings) {
    const out = {};
    for (const text of settings) {
        const [key, value] = parseSetting(text);
        out[key] = value;
    }
    return out;
}
function knobHelp() {
    const width = Math.max(...knobNames.map((name) => name.length));
    return knobNames.map((name) => `  ${name.padEnd(width)}  ${knobSpecs[name].help}`).join("\n");
}
function profileHelp() {
    const names = Object.keys(builtInProfiles);
    const width = Math.max(...names.map((name) => name.length));
    return names.map((name) => `  ${name.padEnd(width)}  ${builtInProfiles[name].description}`).join("\n");
}

async function startSimulator(options = {}) {
    let profile = resolveProfile(options.profile);
    const overrides = coerceOverrides(options.set ?? {});
    if (Object.keys(overrides).length > 0) {
        profile = applyOverrides(profile, overrides, "--set");
    }
    // As vLLM: a KV cache that cannot hold one max_model_len request refuses to start.
    checkKvCapacity(profile, `profile ${profile.name}`);
    let resolveClosed;
    const closed = new Promise((resolve) => {
        resolveClosed = resolve;
    });
    let server;
    const close = async () => {
        if (server)
            await server.close();
        resolveClosed();
    };
    server = new SimServer({
        profile,
        seed: options.seed ?? 0,
        device: options.device ?? 0,
        model: options.model ?? "sim-model",
        apiKey: options.apiKey,
        devMode: options.devMode ?? process.env.VLLM_SERVER_DEV_MODE === "1",
        recordChunkTimes: options.recordChunkTimes ?? false,
        clock: systemClock,
        spinMs: options.loopSpinMs,
        loopProbe: options.loopProbe,
        onEngineDeath: (reason) => {
            if (options.onEngineDeath)
                options.onEngineDeath(reason);
            else
                void close();
        },
    });
    const host = options.host ?? "127.0.0.1";
    const http = server.http;
    await new Promise((resolve, reject) => {
        http.once("error", reject);
        // A deep accept backlog: a benchmark opens hundreds of connections at once, and SYNs dropped from a
        // full backlog come back only after a 1 s retransmit, which would read as server latency.
        http.listen({ port: options.port ?? 0, host, backlog: 4096 }, () => {
            http.off("error", reject);
            resolve();
        });
    });
    const port = http.address().port;
    const urlHost = host.includes(":") ? `[${host}]` : host;
    const running = server;
    return {
        baseUrl: `http://${urlHost}:${port}`,
        port,
        close,
        chunkRecords: () => running.chunkLog.slice(),
        profile: () => ({ ...running.profile }),
        configure: (set) => running.setProfile(coerceOverrides(set), "configure()"),
        loopLateness: () => running.loop.latency(),
        resetLoopLateness: () => running.loop.resetLatency(),
        closed,
    };
}

function wrap(words, width, indent) {
    const lines = [];
    let line = indent;
    for (const word of words) {
        if (line.length + word.length + 2 > width && line.trim() !== "") {
            lines.push(line.trimEnd());
            line = indent;
        }
        line += `${word}, `;
    }
    lines.push(line.replace(/, $/, "."));
    return lines.join("\n");
}
const usage = `Usage: vllm-perf-gate sim [options] [MODEL]

A vLLM-compatible OpenAI server whose timing follows a continuous-batching model (no GPU needed).
Prints "vllm-perf-gate sim listening on http://HOST:PORT" once listening; runs until SIGTERM/SIGINT.

Options:
  --host H                    listen address (default 127.0.0.1)
  --port N                    port (default 8000; 0 picks a free port)
  --profile NAME|FILE         built-in profile or a profile file (YAML/JSON, schemaVersion 1)
  --set KEY=VALUE             override a profile knob (repeatable)
  --seed N                    seeds speed noise, jitter, EOS positions and fault draws (default 0)
  --model NAME, [MODEL]       served model name (default sim-model)
  --served-model-name NAME    served model name (wins over --model, as in vLLM)
  --api-key KEY               /v1/* needs "Authorization: Bearer KEY" (default: $VLLM_API_KEY)
  --dev-mode                  enable POST /reset_prefix_cache (also VLLM_SERVER_DEV_MODE=1)
  --device K                  the simulated GPU's index: its speed is the K-th device_speed_factors entry
                              (default: the first of CUDA_VISIBLE_DEVICES, else 0)
  --fault SPEC                inject a fault (repeatable), see Faults
  --record-chunk-times        keep when each chunk was written; read it at GET /admin/chunks
  --list-profiles             print the built-in profiles and exit
  -h, --help                  show this help

vLLM engine flags (aliases of knobs): --max-num-seqs, --max-num-batched-tokens, --max-model-len (1k ok),
  --block-size, --num-gpu-blocks-override, --kv-cache-dtype, --gpu-memory-utilization,
  --enable-prefix-caching / --no-enable-prefix-caching, --enable-prompt-tokens-details, --disable-log-stats.
Accepted and ignored:
${wrap([...ignoredEngineFlags, ...ignoredEngineSwitches].map((flag) => `--${flag}`), 100, "  ")}

Profiles (illustrative shapes, not measurements of any GPU):
${profileHelp()}

Knobs (--set, profile files, POST /admin/config; times in ms):
${knobHelp()}

Step time = (step_overhead_ms + prefill_per_token_ms x prefill tokens + decode_per_seq_ms x decoding
sequences + attention_per_context_token_ms x their context tokens) x speed factor x step jitter.

Faults (--fault):
${faultForms.map(([form, help]) => `  ${form.padEnd(30)}${help}`).join("\n")}

Endpoints: GET /health /ping /version /v1/models /metrics; POST /v1/completions /v1/chat/completions
/tokenize /detokenize; dev mode: POST /reset_prefix_cache. Simulator only: GET /admin/config (the
effective profile), POST /admin/config with a JSON object of knobs (validated, applied atomically),
GET /admin/chunks[?offset=N] (with --record-chunk-times: when each chunk was really written).
Tokenizer: one token per whitespace-separated word. See docs/sim.md.
`;
const options = {
    host: { type: "string" },
    port: { type: "string" },
    profile: { type: "string" },
    set: { type: "string", multiple: true },
    seed: { type: "string" },
    model: { type: "string" },
    "served-model-name": { type: "string" },
    "api-key": { type: "string" },
    "dev-mode": { type: "boolean" },
    device: { type: "string" },
    fault: { type: "string", multiple: true },
    "list-profiles": { type: "boolean" },
    "record-chunk-times": { type: "boolean" },
    "enable-prefix-caching": { type: "boolean" },
    "no-enable-prefix-caching": { type: "boolean" },
    ...Object.fromEntries(Object.keys(engineFlagKnobs).map((flag) => [flag, { type: "string" }])),
    ...Object.fromEntries(Object.keys(engineSwitchKnobs).map((flag) => [flag, { type: "boolean" }])),
    ...Object.fromEntries(ignoredEngineFlags.map((flag) => [flag, { type: "string" }])),
    ...Object.fromEntries(ignoredEngineSwitches.map((flag) => [flag, { type: "boolean" }])),
};
function engineOverrides(args) {
    const out = {};
    for (const [flag, knob] of Object.entries(engineFlagKnobs)) {
        const raw = stringOption(args, flag);
        if (raw === undefined)
            continue;
        if (knob === "cache_dtype")
            out[knob] = raw;
        else if (knob === "gpu_memory_utilization")
            out[knob] = Number(raw);
        else
            out[knob] = parseHumanInt(flag, raw);
    }
    for (const [flag, knob] of Object.entries(engineSwitchKnobs))
        if (args.values[flag] === true)
            out[knob] = true;
    if (args.values["enable-prefix-caching"] === true)
        out.enable_prefix_caching = true;
    if (args.values["no-enable-prefix-caching"] === true)
        out.enable_prefix_caching = false;
    return out;
}
const simCommand = {
    name: "sim",
    usage,
    async run(argv, io) {
        const args = parseCommandArgs(argv, options, { allowPositionals: true });
        if (args.help) {
            io.stdout.write(usage);
            return 0;
        }
        if (args.values["list-profiles"] === true) {
            io.stdout.write(`${profileHelp()}\n`);
            return 0;
        }
        const start = simulatorOptions(args, io.env);
        let death;
        const sim = await listen({
            ...start,
            onEngineDeath: (reason) => {
                death = reason;
                void sim.close();
            },
        });
        const effective = sim.profile();
        io.stderr.write(`sim: profile ${effective.name}, model ${start.model}, seed ${start.seed}${start.device ? `, device ${start.device}` : ""}\n`);
        // vLLM's own readiness lines, for log watchers written against the real server.
        io.stderr.write(`INFO: Starting vLLM API server 0 on ${sim.baseUrl}\nINFO: Application startup complete.\n`);
        io.stdout.write(`vllm-perf-gate sim listening on ${sim.baseUrl}\n`);
        const stop = () => void sim.close();
        process.once("SIGTERM", stop);
        process.once("SIGINT", stop);
        await sim.closed;
        process.off("SIGTERM", stop);
        process.off("SIGINT", stop);
        if (death !== undefined) {
            io.stderr.write(`sim: ${death}\n`);
            return 1;
        }
        return 0;
    },
};
/** The simulator as the flags (vLLM's among them) and the environment describe it. */
function simulatorOptions(args, env) {
    if (args.positionals.length > 1) {
        throw new UsageError(`expected at most one positional MODEL, got ${args.positionals.join(" ")}`);
    }
    const port = integerOption(args, "port") ?? 8000;
    if (port > 65535)
        throw new UsageError(`--port expects a TCP port (0-65535), got ${port}`);
    // The simulated GPU: --device, else the first GPU CUDA_VISIBLE_DEVICES gives the process (as a CUDA
    // program on that GPU would run), else 0.
    const visible = Number(env.CUDA_VISIBLE_DEVICES?.split(",")[0]);
    const device = integerOption(args, "device") ?? (Number.isInteger(visible) && visible >= 0 ? visible : 0);
    let set;
    let profile;
    try {
        profile = resolveProfile(stringOption(args, "profile"));
        set = { ...engineOverrides(args) };
        for (const fault of stringListOption(args, "fault"))
            Object.assign(set, parseFault(fault));
        Object.assign(set, parseSettings(stringListOption(args, "set")));
    }
    catch (error) {
        if (error instanceof ProfileError)
            throw new InputError(error.message);
        throw error;
    }
    return {
        profile,
        set,
        seed: integerOption(args, "seed") ?? 0,
        device,
        host: stringOption(args, "host") ?? "127.0.0.1",
        port,
        model: stringOption(args, "served-model-name") ??
            stringOption(args, "model") ??
            args.positionals[0] ??
            "sim-model",
        apiKey: stringOption(args, "api-key") ?? env.VLLM_API_KEY,
        devMode: args.values["dev-mode"] === true || env.VLLM_SERVER_DEV_MODE === "1",
        recordChunkTimes: args.values["record-chunk-times"] === true,
    };
}
/** Starts the simulator; a port it cannot listen on is a FailureError naming the address. */
async function listen(start) {
    try {
        return await startSimulator(start);
    }
    catch (error) {
        if (error instanceof ProfileError)
            throw new InputError(error.message);
        const code = error.code;
        if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL") {
            throw new FailureError(`cannot listen on ${start.host}:${start.port}: ${error.message}`);
        }
        throw error;
    }
}

export { simCommand };
