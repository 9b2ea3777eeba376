import { describe, expect, it } from "vitest";
import { computeRunMetrics } from "../../src/metrics/run-metrics.js";
import { type RunFile, runFileSchema } from "../../src/metrics/run-schema.js";
import { runRecordFromVllmResult, vllmResultSchema } from "../../src/metrics/vllm-result.js";
import { toVllmResult } from "../../src/metrics/vllm-result-writer.js";
import type { RequestRecord } from "../../src/runner/request-schema.js";

const base = {
  v: 1 as const,
  phase: "measure" as const,
  stage: 0,
  scheduledMs: 0,
  readyMs: 0,
  queueMs: 0,
  socketMs: 0,
  headersMs: 0,
  chunkTokens: null,
  errorKind: null,
  error: null,
  httpStatus: 200,
  finishReason: "length",
  promptTokens: 12,
  outputTokensSource: "usage" as const,
  cachedTokens: null,
  targetInputTokens: 12,
  maxTokens: 3,
  prefixGroup: null,
  firstAnswerTokenMs: null,
  reasoningTokens: null,
  answerTokens: null,
  reasoningField: null,
  toolCalls: [],
  malformedToolCalls: 0,
};

const records: RequestRecord[] = [
  {
    ...base,
    index: 0,
    requestId: "a",
    sentMs: 0,
    chunksUs: [40000, 50000, 70000],
    endMs: 70,
    ok: true,
    outputTokens: 3,
  },
  {
    ...base,
    index: 1,
    requestId: "b",
    sentMs: 5,
    chunksUs: [30000, 60000, 61000],
    endMs: 66,
    ok: true,
    outputTokens: 3,
  },
  {
    ...base,
    index: 2,
    requestId: "c",
    sentMs: 8,
    chunksUs: [20000],
    endMs: 40,
    ok: false,
    errorKind: "stream_error",
    error: "engine died",
    outputTokens: 1,
    finishReason: null,
  },
];

function runFile(): RunFile {
  const metrics = computeRunMetrics(records, { durationS: 0.5 });
  return runFileSchema.parse({
    schemaVersion: 1,
    tool: { name: "t", version: "0" },
    cell: "c",
    run: 0,
    startedAt: "2026-11-30T04:00:00.000Z",
    durationS: 0.5,
    load: {
      type: "concurrency",
      targetRate: null,
      targetConcurrency: 3,
      achievedRate: 6,
      achievedConcurrencyMean: 1,
      peakConcurrency: 3,
      scheduleLagP50Ms: 0,
      scheduleLagP99Ms: 0,
      eventLoopLagP99Ms: 0,
    },
    ...metrics,
    server: null,
    flags: { clientBound: false, serverCrashed: false, cutShort: false, notes: [] },
    prefix: { policy: "fresh", cacheSalt: "s", cacheReset: true },
    fingerprint: {},
  });
}

describe("toVllmResult", () => {
  it("writes vllm bench serve keys, in seconds and ms, that the result reader accepts", () => {
    const result = toVllmResult(records, runFile(), {
      model: "m",
      endpoint: "completions",
      startedAtMs: Date.UTC(2026, 10, 30, 4, 5, 6),
      burstiness: null,
      maxConcurrency: 3,
    });
    const parsed = vllmResultSchema.parse(result);
    expect(parsed.date).toBe("20261130-040506");
    expect(parsed.request_rate).toBe("inf");
    expect(parsed.completed).toBe(2);
    expect(parsed.failed).toBe(1);
    expect(parsed.total_output_tokens).toBe(6);
    expect(result.mean_ttft_ms).toBe(35);
    expect(result.median_e2el_ms).toBe(65.5);
    expect(result["p99.9_itl_ms"]).toBeGreaterThan(0);
    expect(parsed.ttfts).toEqual([0.04, 0.03, 0]);
    expect(parsed.itls?.[0]).toEqual([0.01, 0.02]);
    expect(parsed.itls?.[2]).toEqual([]);
    expect(parsed.errors).toEqual(["", "", "engine died"]);
    expect(parsed.start_times).toEqual([0, 0.005, 0.008]);
    expect(parsed.max_concurrent_requests).toBe(3);
  });

  it("writes the run's server start as server_start, where and as vllm bench serve --metadata does", () => {
    const run = {
      ...runFile(),
      serverStart: {
        id: "5f0c4b1e-2d6a-4c31-9a57-0d3c2f8e7b11",
        startedAt: "2026-11-30T03:58:00.000Z",
        side: null,
      },
    };
    const result = toVllmResult(records, run, {
      model: "m",
      endpoint: "completions",
      startedAtMs: 0,
      burstiness: null,
      maxConcurrency: 3,
    });
    // A top-level string after num_prompts, as vLLM places its --metadata pairs (test/metrics/vllm-fixtures.ts).
    const keys = Object.keys(result);
    expect(keys.indexOf("server_start")).toBe(keys.indexOf("num_prompts") + 1);
    const parsed = vllmResultSchema.parse(JSON.parse(JSON.stringify(result)));
    expect(parsed.server_start).toBe(run.serverStart.id);
    expect(runRecordFromVllmResult(parsed, "vllm-result.json", 0).serverStart).toEqual({
      id: run.serverStart.id,
      basis: "recorded",
    });
    // A run.json of an earlier version has no start: nor has its vLLM form.
    expect(
      toVllmResult(records, runFile(), {
        model: "m",
        endpoint: "chat",
        startedAtMs: 0,
        burstiness: null,
        maxConcurrency: 3,
      }),
    ).not.toHaveProperty("server_start");
  });

  it("names the cell as label, so compare groups the files into the run's cells", () => {
    const result = toVllmResult(records, runFile(), {
      model: "m",
      endpoint: "chat",
      startedAtMs: 0,
      burstiness: null,
      maxConcurrency: 3,
    });
    expect(vllmResultSchema.parse(result).label).toBe("c");
  });
});
