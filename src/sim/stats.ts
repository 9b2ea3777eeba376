/**
 * What the engine counts, in vLLM V1's units (seconds, tokens). Plain data, so the engine stays pure and
 * the Prometheus rendering lives elsewhere. Bucket boundaries: vllm/v1/metrics/loggers.py@005a810b.
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

/** 1-2-5 steps up to the context length, as vLLM builds token histograms. */
export function tokenBuckets(maxModelLen: number): number[] {
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

export class EngineStats {
  preemptions = 0;
  promptTokens = 0;
  generationTokens = 0;
  prefixQueries = 0;
  prefixHits = 0;
  readonly success: Record<FinishReason, number> = { stop: 0, length: 0, abort: 0 };
  readonly ttft = new Histogram(ttftBuckets);
  readonly itl = new Histogram(itlBuckets);
  readonly tpot = new Histogram(itlBuckets);
  readonly e2e = new Histogram(requestLatencyBuckets);
  readonly queue = new Histogram(requestLatencyBuckets);
  readonly inference = new Histogram(requestLatencyBuckets);
  readonly prefill = new Histogram(requestLatencyBuckets);
  readonly decode = new Histogram(requestLatencyBuckets);
  readonly promptTokensPerRequest: Histogram;
  readonly generationTokensPerRequest: Histogram;
  readonly maxTokensParam: Histogram;
  readonly iterationTokens: Histogram;
  constructor(maxModelLen: number, maxNumBatchedTokens: number) {
    const tokens = tokenBuckets(maxModelLen);
    this.promptTokensPerRequest = new Histogram(tokens);
    this.generationTokensPerRequest = new Histogram(tokens);
    this.maxTokensParam = new Histogram(tokens);
    this.iterationTokens = new Histogram(tokenBuckets(Math.max(maxNumBatchedTokens, 1)));
  }
}
