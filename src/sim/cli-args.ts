import {
  builtInProfiles,
  type KnobName,
  knobNames,
  knobSpecs,
  ProfileError,
  parseSetting,
} from "./profile.js";

/**
 * `vllm serve` engine flags the simulator honours, as aliases of profile knobs, so a fake
 * `docker run vllm/vllm-openai ... <engine args>` can pass its arguments straight through.
 */
export const engineFlagKnobs = {
  "max-num-seqs": "max_num_seqs",
  "max-num-batched-tokens": "max_num_batched_tokens",
  "max-model-len": "max_model_len",
  "block-size": "block_size",
  "num-gpu-blocks-override": "num_gpu_blocks",
  "kv-cache-dtype": "cache_dtype",
  "gpu-memory-utilization": "gpu_memory_utilization",
} as const satisfies Record<string, KnobName>;

/** vLLM flags that change nothing in the simulator; accepted so pass-through command lines work. */
export const ignoredEngineFlags = [
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
] as const;
export const ignoredEngineSwitches = [
  "trust-remote-code",
  "enforce-eager",
  "disable-log-requests",
  "disable-uvicorn-access-log",
  "enable-chunked-prefill",
  "no-enable-chunked-prefill",
  "disable-frontend-multiprocessing",
  "enable-log-requests",
] as const;

/** Boolean vLLM switches that set a knob to true. */
export const engineSwitchKnobs = {
  "enable-prompt-tokens-details": "enable_prompt_tokens_details",
  "disable-log-stats": "disable_log_stats",
} as const satisfies Record<string, KnobName>;

/** `1k` / `1K` / `2m`, as vLLM's --max-model-len accepts. */
export function parseHumanInt(flag: string, raw: string): number {
  const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(raw.trim());
  if (!match) throw new ProfileError(`--${flag} expects a whole number (1k = 1024 allowed), got "${raw}"`);
  const unit = match[2]!.toLowerCase();
  const value = Number(match[1]) * (unit === "k" ? 1024 : unit === "m" ? 1024 * 1024 : 1);
  if (!Number.isInteger(value)) throw new ProfileError(`--${flag} expects a whole number, got "${raw}"`);
  return value;
}

export const faultForms = [
  ["error:STATUS:RATE", "answer RATE (0-1) of generation requests with HTTP STATUS"],
  ["midstream-error:RATE[:AFTER]", 'RATE of streams send data: {"error":...} then [DONE] after AFTER tokens'],
  ["reset:RATE[:AFTER]", "RATE of requests have their connection reset after AFTER tokens"],
  ["exit-after:N", "the engine dies after N completed requests (the process exits 1)"],
  ["hang-after:N", "after N completed requests every response stops sending"],
  ["slow-start:SECONDS", "/health (and /v1) answer 503 for SECONDS after start"],
  ["tokens-per-chunk:K", "bundle K tokens into each SSE chunk"],
  ["dead", "the engine is dead from the start: /health 503, generation 500"],
] as const;

function rate(spec: string, raw: string | undefined): number {
  const value = Number(raw);
  if (raw === undefined || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new ProfileError(`--fault ${spec}: expected a rate between 0 and 1, got "${raw ?? ""}"`);
  }
  return value;
}

function whole(spec: string, raw: string | undefined, min = 0): number {
  const value = Number(raw);
  if (raw === undefined || !Number.isInteger(value) || value < min) {
    throw new ProfileError(`--fault ${spec}: expected a whole number >= ${min}, got "${raw ?? ""}"`);
  }
  return value;
}

/** One `--fault` spec to the knobs it sets. */
export function parseFault(spec: string): Partial<Record<KnobName, number | boolean>> {
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
      throw new ProfileError(
        `--fault "${spec}": unknown fault; expected one of ${faultForms.map(([form]) => form).join(", ")}`,
      );
  }
}

export function parseSettings(settings: readonly string[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const text of settings) {
    const [key, value] = parseSetting(text);
    out[key] = value as string | number | boolean;
  }
  return out;
}

export function knobHelp(): string {
  const width = Math.max(...knobNames.map((name) => name.length));
  return knobNames.map((name) => `  ${name.padEnd(width)}  ${knobSpecs[name].help}`).join("\n");
}

export function profileHelp(): string {
  const names = Object.keys(builtInProfiles);
  const width = Math.max(...names.map((name) => name.length));
  return names.map((name) => `  ${name.padEnd(width)}  ${builtInProfiles[name]!.description}`).join("\n");
}
