import { describe, expect, it } from "vitest";
import { computeRunMetrics } from "../../src/metrics/run-metrics.js";
import { histogramQuantile, summarizeServerMetrics } from "../../src/metrics/server-metrics.js";
import { summarize } from "../../src/metrics/summary.js";
import { requestRecord } from "./records.js";

const record = requestRecord;

describe("summarize", () => {
  it("matches numpy (linear percentiles, population std)", () => {
    const summary = summarize([10, 1, 9, 2, 8, 3, 7, 4, 6, 5]);
    // np.percentile(range(1, 11), [50, 90, 95, 99, 99.9]); np.std(range(1, 11))
    expect(summary.p50).toBeCloseTo(5.5, 12);
    expect(summary.p90).toBeCloseTo(9.1, 12);
    expect(summary.p95).toBeCloseTo(9.55, 12);
    expect(summary.p99).toBeCloseTo(9.91, 12);
    expect(summary.p99_9).toBeCloseTo(9.991, 12);
    expect(summary.std).toBeCloseTo(2.8722813232690143, 12);
    expect(summary.mean).toBe(5.5);
  });

  it("reports no sample as null, never zero", () => {
    expect(summarize([])).toMatchObject({ count: 0, mean: null, p99: null });
  });
});

describe("computeRunMetrics", () => {
  it("defines TTFT, TPOT, ITL and E2E as vllm bench serve does", () => {
    const records = [
      record({ chunksUs: [100000, 110000, 130000, 160000], outputTokens: 4 }),
      // one chunk carrying 3 tokens: ITL is per chunk, TPOT per token
      record({ chunksUs: [50000, 80000], outputTokens: 4 }),
      record({ chunksUs: [20000], outputTokens: 1 }),
      record({
        ok: false,
        errorKind: "stream_error",
        chunksUs: [5000, 6000],
        outputTokens: 2,
        finishReason: null,
      }),
      record({ ok: false, errorKind: "http_500", chunksUs: [], outputTokens: null, finishReason: null }),
    ];
    const metrics = computeRunMetrics(records, { durationS: 2, slo: { ttft_ms: 60 }, warmup: 3 });
    expect(metrics.requests).toEqual({
      total: 5,
      completed: 3,
      failed: 2,
      errorsByKind: { stream_error: 1, http_500: 1 },
      finishReasons: { length: 3 },
      warmup: 3,
    });
    expect(metrics.latency.ttft.count).toBe(3);
    expect(metrics.latency.ttft.mean).toBeCloseTo((100 + 50 + 20) / 3, 12);
    expect(metrics.latency.e2el.median).toBe(80);
    // TPOT: (160-100)/3 = 20 and (80-50)/3 = 10; the single-token request has none.
    expect(metrics.latency.tpot.count).toBe(2);
    expect(metrics.latency.tpot.mean).toBeCloseTo(15, 12);
    expect(metrics.latency.itl.count).toBe(4);
    expect(metrics.latency.itl.mean).toBeCloseTo((10 + 20 + 30 + 30) / 4, 12);
    expect(metrics.tokens.output).toBe(9);
    expect(metrics.tokens.input).toBe(30);
    expect(metrics.throughput.request).toBe(1.5);
    expect(metrics.throughput.output).toBe(4.5);
    expect(metrics.throughput.total).toBe(19.5);
    // Good: TTFT <= 60 ms: the 50 and 20 ms requests; attainment over all 5 requests.
    expect(metrics.throughput.goodput).toBe(1);
    expect(metrics.throughput.sloAttainment).toBeCloseTo(0.4, 12);
  });

  it("has no goodput without objectives", () => {
    const metrics = computeRunMetrics([record({ chunksUs: [1000, 2000], outputTokens: 2 })], {
      durationS: 1,
    });
    expect(metrics.throughput.goodput).toBeNull();
    expect(metrics.throughput.sloAttainment).toBeNull();
  });
});

describe("server metrics", () => {
  const scrape = (phase: "before" | "during" | "after", text: string) => ({
    phase,
    atMs: 0,
    status: 200,
    text,
    error: null,
  });
  const exposition = (n: number, running: number) =>
    [
      "# HELP vllm:num_preemptions_total preemptions",
      `vllm:num_preemptions_total{engine="0",model_name="m"} ${n}`,
      `vllm:prefix_cache_queries_total{engine="0",model_name="m"} ${100 * n}`,
      `vllm:prefix_cache_hits_total{engine="0",model_name="m"} ${25 * n}`,
      `vllm:num_requests_running{engine="0",model_name="m"} ${running}`,
      `vllm:kv_cache_usage_perc{engine="0",model_name="m"} ${running / 10}`,
      `vllm:request_success_total{finished_reason="length",engine="0",model_name="m"} ${10 * n}`,
      `vllm:request_success_total{finished_reason="stop",engine="0",model_name="m"} ${n}`,
      `vllm:time_to_first_token_seconds_bucket{le="0.01",engine="0",model_name="m"} ${4 * n}`,
      `vllm:time_to_first_token_seconds_bucket{le="0.1",engine="0",model_name="m"} ${8 * n}`,
      `vllm:time_to_first_token_seconds_bucket{le="+Inf",engine="0",model_name="m"} ${10 * n}`,
    ].join("\n");

  it("takes counter deltas, gauge max and mean, and histogram percentiles", () => {
    const summary = summarizeServerMetrics([
      scrape("before", exposition(1, 0)),
      scrape("during", exposition(2, 4)),
      scrape("during", exposition(3, 8)),
      scrape("after", exposition(5, 0)),
    ])!;
    expect(summary.preemptions).toBe(4);
    expect(summary.prefix_cache_hits).toBe(100);
    expect(summary.prefix_cache_hit_rate).toBe(0.25);
    expect(summary.running_max).toBe(8);
    expect(summary.kv_cache_usage_mean).toBeCloseTo(0.6, 12);
    expect(summary.requests_completed).toBe(44);
    // Deltas: 16 below 10 ms, 32 below 100 ms, 40 in all. p50 = rank 20: 10 + 90 * (20-16)/16 ms.
    expect(summary.server_ttft_p50_ms).toBeCloseTo(32.5, 9);
    expect(summary.server_ttft_p95_ms).toBeCloseTo(100, 9);
    expect(summary.waiting_max).toBeNull();
    expect(summary.server_queue_p50_ms).toBeNull();
    expect(summary.missing).toEqual(
      expect.arrayContaining(["vllm:num_requests_waiting", "vllm:request_queue_time_seconds"]),
    );
  });

  it("reads deprecated names and reports nothing without before/after scrapes", () => {
    const old = "vllm:gpu_prefix_cache_queries_total 10\nvllm:gpu_prefix_cache_hits_total 5\n";
    const summary = summarizeServerMetrics([scrape("before", ""), scrape("after", old)])!;
    expect(summary.prefix_cache_hits).toBe(5);
    expect(summarizeServerMetrics([scrape("after", old)])).toBeNull();
  });

  it("interpolates within a bucket and caps at the highest finite bound", () => {
    const before = new Map<number, number>();
    const after = new Map([
      [1, 0],
      [2, 10],
      [Number.POSITIVE_INFINITY, 20],
    ]);
    expect(histogramQuantile(before, after, 0.25)).toBe(1.5);
    expect(histogramQuantile(before, after, 0.99)).toBe(2);
    expect(histogramQuantile(before, new Map([[1, 0]]), 0.5)).toBeNull();
  });
});
