/**
 * What the engine counts, in vLLM V1's units (seconds, tokens). Plain data, so the engine stays pure and
 * the Prometheus rendering (which families a vLLM version exports) lives in metrics-text.ts.
 * Bucket boundaries: vllm/v1/metrics/loggers.py @ v0.10 (005a810b) and the 0.11 / 0.12+ lines, which keep
 * the same boundaries.
 */
export const ttftBuckets = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640,
  2560,
] as const;
export const itlBuckets = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80,
] as const;
export const requestLatencyBuckets = [
  0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680,
] as const;
/** vllm:iteration_tokens_total: fixed boundaries (loggers.py @ 005a810b and v0.11.0), not 1-2-5. */
export const iterationTokenBuckets = [
  1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
] as const;
/** vllm:request_params_n. */
const nParamBuckets = [1, 2, 5, 10, 20] as const;
/** vllm:time_per_prefill_token_request_seconds (the 0.10 line only, loggers.py @ 005a810b). */
const prefillPerTokenBuckets = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1] as const;

/** 1-2-5 steps up to the context length, as vLLM builds token histograms (build_1_2_5_buckets). */
function tokenBuckets(maxModelLen: number): number[] {
  const out: number[] = [];
  for (let exponent = 1; ; exponent *= 10) {
    for (const mantissa of [1, 2, 5]) {
      const value = mantissa * exponent;
      if (value > maxModelLen) return out;
      out.push(value);
    }
  }
}

export class Histogram {
  readonly counts: number[];
  count = 0;
  sum = 0;
  constructor(readonly buckets: readonly number[]) {
    this.counts = new Array<number>(buckets.length).fill(0);
  }
  observe(value: number): void {
    this.count++;
    this.sum += value;
    // Non-cumulative per bucket; rendering accumulates.
    const buckets = this.buckets;
    for (let i = 0; i < buckets.length; i++) {
      if (value <= buckets[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }
}

export type FinishReason = "stop" | "length" | "abort";

/** Speculative-decoding counters (vllm/v1/spec_decode/metrics.py @ 016a8587). */
class SpecDecodeStats {
  drafts = 0;
  draftTokens = 0;
  acceptedTokens = 0;
  /** Accepted drafts by position (0 = the first draft token). */
  acceptedPerPosition: number[] = [];
}

export class EngineStats {
  preemptions = 0;
  promptTokens = 0;
  generationTokens = 0;
  /** Prefix-cache lookups of requests scheduled for the first time; re-lookups after a preemption are not counted (vLLM 0.11+). */
  prefixQueries = 0;
  prefixHits = 0;
  readonly success: Record<FinishReason, number> = { stop: 0, length: 0, abort: 0 };
  readonly ttft = new Histogram(ttftBuckets);
  /** One observation per engine step that gave a request output after its first (vLLM's inter-token latency). */
  readonly itl = new Histogram(itlBuckets);
  /** Per finished request: decode time / (outputs - 1), 0 for a request with one output token. */
  readonly tpot = new Histogram(itlBuckets);
  readonly e2e = new Histogram(requestLatencyBuckets);
  readonly queue = new Histogram(requestLatencyBuckets);
  readonly inference = new Histogram(requestLatencyBuckets);
  readonly prefill = new Histogram(requestLatencyBuckets);
  readonly decode = new Histogram(requestLatencyBuckets);
  readonly prefillPerToken = new Histogram(prefillPerTokenBuckets);
  readonly promptTokensPerRequest: Histogram;
  readonly generationTokensPerRequest: Histogram;
  readonly maxTokensParam: Histogram;
  readonly maxGenerationTokens: Histogram;
  readonly nParam = new Histogram(nParamBuckets);
  readonly iterationTokens = new Histogram(iterationTokenBuckets);
  readonly specDecode = new SpecDecodeStats();
  constructor(maxModelLen: number) {
    const tokens = tokenBuckets(maxModelLen);
    this.promptTokensPerRequest = new Histogram(tokens);
    this.generationTokensPerRequest = new Histogram(tokens);
    this.maxTokensParam = new Histogram(tokens);
    this.maxGenerationTokens = new Histogram(tokens);
  }
}
