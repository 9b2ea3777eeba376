import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/load.js";
import {
  describeMetric,
  gatableMetricNames,
  gatedMetricNames,
  guardMetrics,
  isGuardMetric,
  latencyPhases,
  latencyStatistics,
  type MetricName,
  metricNames,
  metricSpecs,
  sessionMetrics,
  specDecodeMetrics,
} from "../../src/config/metric-names.js";
import { presetText } from "../../src/config/presets.js";
import { computeGuards } from "../../src/metrics/guards.js";
import { runFileMetrics } from "../../src/metrics/metric-values.js";
import { computeRunMetrics } from "../../src/metrics/run-metrics.js";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { type RunFile, runFileSchema } from "../../src/metrics/run-schema.js";
import { summarizeServerMetrics } from "../../src/metrics/server-metrics.js";
import { computeSessionMetrics } from "../../src/metrics/session-metrics.js";
import { runRecordFromVllmResult, vllmResultSchema } from "../../src/metrics/vllm-result.js";
import { toVllmResult } from "../../src/metrics/vllm-result-writer.js";
import { describeMetricRef, formatMetricValue } from "../../src/report/format.js";
import type { RequestRecord } from "../../src/runner/request-schema.js";
import { makeRunFile } from "../compare/fixtures.js";

const request = {
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
  maxTokens: 4,
  prefixGroup: null,
  firstAnswerTokenMs: null,
  reasoningTokens: null,
  answerTokens: null,
  reasoningField: null,
  toolCalls: [],
  malformedToolCalls: 0,
  ok: true,
  outputTokens: 4,
};

/** Two requests reasoned first (two tokens, then the answer), one of them made a good and a malformed tool call. */
const reasoned = { reasoningTokens: 2, answerTokens: 2, reasoningField: "reasoning" as const };

/** Four successful requests (every latency phase has samples, one misses the TTFT objective) and one failure. */
const records: RequestRecord[] = [
  {
    ...request,
    ...reasoned,
    index: 0,
    requestId: "a",
    sentMs: 0,
    chunksUs: [40000, 52000, 61000, 75000],
    endMs: 75,
    firstAnswerTokenMs: 61,
    toolCalls: [{ id: "call-1", name: "lookup", arguments: '{"q": 1}' }],
    malformedToolCalls: 1,
  },
  {
    ...request,
    ...reasoned,
    index: 1,
    requestId: "b",
    sentMs: 4,
    chunksUs: [31000, 45000, 47000, 66000],
    endMs: 70,
    firstAnswerTokenMs: 47,
  },
  { ...request, index: 2, requestId: "c", sentMs: 9, chunksUs: [27000, 29000, 58000, 61000], endMs: 70 },
  { ...request, index: 3, requestId: "d", sentMs: 12, chunksUs: [55000, 56000, 70000, 99000], endMs: 111 },
  {
    ...request,
    index: 4,
    requestId: "e",
    sentMs: 15,
    chunksUs: [20000],
    endMs: 40,
    ok: false,
    errorKind: "stream_error",
    error: "engine died",
    outputTokens: 1,
    finishReason: null,
  },
];

/** Requests that give every guard share a count: an abort, a zero output, a usage mismatch (guards only). */
const guardRecords: RequestRecord[] = [
  ...records,
  {
    ...request,
    index: 5,
    requestId: "f",
    sentMs: 0,
    chunksUs: [9000],
    endMs: 9,
    finishReason: "abort",
    outputTokens: 1,
  },
  {
    ...request,
    index: 6,
    requestId: "g",
    sentMs: 0,
    chunksUs: [],
    endMs: 9,
    ok: false,
    errorKind: "no_output",
    outputTokens: null,
    finishReason: null,
  },
  {
    ...request,
    index: 7,
    requestId: "h",
    sentMs: 0,
    chunksUs: [9000, 9500],
    endMs: 9,
    outputTokens: 2,
    outputTokensSource: "chunks",
    usageIssue: {
      kind: "usage_exceeds_chunks",
      detail: "usage.completion_tokens 99 > 16 x 2 chunks received",
    },
  },
];

/** One session of 8 turns, every turn answered within the SLOs, half of each prompt cached: every depth bucket. */
const sessionRecords: RequestRecord[] = Array.from({ length: 8 }, (_, turn) => ({
  ...request,
  index: turn,
  requestId: `s0-t${turn}`,
  sentMs: turn * 100,
  chunksUs: [10000 + turn * 1000, 20000 + turn * 1000],
  endMs: turn * 100 + 30,
  promptTokens: 12 * (turn + 1),
  cachedTokens: 6 * (turn + 1),
  session: { index: 0, turn, turns: 8, toolRound: 0 },
}));

/**
 * A run.json with a value for every metric: goodput needs an SLO, error_rate a failure, sessions a
 * session, the acceptance a drafter (40 draft rounds of 3 tokens, 90 of the 120 accepted).
 */
function completeRun(): RunFile {
  const measured = computeRunMetrics(records, { durationS: 0.25, slo: { ttft_ms: 50 } });
  const counters = (drafts: number, draftTokens: number, accepted: number) =>
    [
      `vllm:spec_decode_num_drafts_total ${drafts}`,
      `vllm:spec_decode_num_draft_tokens_total ${draftTokens}`,
      `vllm:spec_decode_num_accepted_tokens_total ${accepted}`,
    ].join("\n");
  const scrape = (phase: "before" | "after", text: string) =>
    ({ phase, atMs: 0, status: 200, text: `${text}\n`, error: null }) as const;
  return runFileSchema.parse({
    ...makeRunFile(),
    ...measured,
    server: summarizeServerMetrics([
      scrape("before", counters(10, 30, 20)),
      scrape("after", counters(50, 150, 110)),
    ]),
    durationS: 0.25,
    guards: computeGuards(guardRecords, false),
    sessions: computeSessionMetrics(sessionRecords, {
      durationS: 1,
      slo: { ttft_ms: 50 },
      sharedPrefixTokens: 0,
      serverHitRate: null,
    }),
  });
}

describe("the metric catalogue", () => {
  it("names each metric once, in report order, each entry under its own name", () => {
    expect(new Set(metricNames).size).toBe(metricNames.length);
    expect(Object.keys(metricSpecs)).toEqual([...metricNames]);
    for (const name of metricNames) expect(metricSpecs[name].name).toBe(name);
    expect(metricNames).toHaveLength(
      latencyPhases.length * latencyStatistics.length + 7 + 2 + sessionMetrics.length + 5,
    );
    expect(metricNames.slice(0, 7)).toEqual([
      "ttft_mean",
      "ttft_p50",
      "ttft_p90",
      "ttft_p95",
      "ttft_p99",
      "ttft_p99_9",
      "tpot_mean",
    ]);
    expect(metricNames.slice(-23, -16)).toEqual([
      "request_throughput",
      "output_throughput",
      "total_token_throughput",
      "request_goodput",
      "reasoning_tokens_mean",
      "malformed_tool_call_share",
      "error_rate",
    ]);
    expect(metricNames.slice(-16, -14)).toEqual([...specDecodeMetrics]);
    expect(specDecodeMetrics).toEqual(["spec_decode_acceptance_rate", "spec_decode_acceptance_length"]);
    expect(metricNames.slice(-14, -5)).toEqual([...sessionMetrics]);
    expect(sessionMetrics).toEqual([
      "session_duration_p50",
      "session_duration_p95",
      "session_throughput",
      "session_goodput",
      "session_cache_hit_rate",
      "ttft_p95_depth_1",
      "ttft_p95_depth_2_3",
      "ttft_p95_depth_4_7",
      "ttft_p95_depth_8_up",
    ]);
    expect(metricNames.slice(-5)).toEqual([...guardMetrics]);
    expect(guardMetrics).toEqual([
      "finish_length_share",
      "finish_abort_share",
      "zero_output_share",
      "usage_mismatch_share",
      "output_tokens_mean",
    ]);
    expect(new Set(metricNames.map(describeMetric)).size).toBe(metricNames.length);
  });

  it("keeps the labels, directions and value formats of the report", () => {
    expect(describeMetric("ttft_p95")).toBe("TTFT p95");
    expect(describeMetric("e2el_p99_9")).toBe("E2E latency p99.9");
    expect(describeMetric("itl_mean")).toBe("ITL mean");
    expect(describeMetric("request_goodput")).toBe("Goodput");
    expect(describeMetricRef("chat/tpot_p50")).toBe("chat TPOT p50");
    expect(describeMetricRef("a/b/output_throughput")).toBe("a/b Output throughput");
    const higher = metricNames.filter((name) => metricSpecs[name].higherIsBetter);
    expect(higher).toEqual([
      "request_throughput",
      "output_throughput",
      "total_token_throughput",
      "request_goodput",
      "spec_decode_acceptance_rate",
      "spec_decode_acceptance_length",
      "session_throughput",
      "session_goodput",
      "session_cache_hit_rate",
    ]);
    expect(formatMetricValue("session_goodput", 0.5)).toBe("0.500 sessions/s");
    expect(formatMetricValue("ttft_p95", 1234.5)).toBe("1,235 ms");
    expect(formatMetricValue("output_throughput", 512.3)).toBe("512 tok/s");
    expect(formatMetricValue("request_goodput", 3.456)).toBe("3.46 req/s");
    expect(formatMetricValue("error_rate", 0.005)).toBe("0.50%");
    expect(formatMetricValue("error_rate", null)).toBe("–");
    for (const name of metricNames)
      expect(metricSpecs[name].format === "percent").toBe(metricSpecs[name].unit === "fraction");
  });

  it("gives gate.metrics its names and default family, and min_requests its percentiles", () => {
    const preset = presetText("chat", "sim", "schema.json");
    const { config } = parseConfigText(preset, "ok.yml");
    expect(config.gate.metrics).toEqual([
      "ttft_p95",
      "tpot_p95",
      "e2el_p95",
      "output_throughput",
      "error_rate",
    ]);
    expect(gatedMetricNames).toEqual(config.gate.metrics);
    const withoutGate = preset.replace(/^ {2}metrics: .*$/m, "");
    expect(withoutGate).not.toBe(preset);
    expect(parseConfigText(withoutGate, "ok.yml").config.gate.metrics).toEqual(gatedMetricNames);
    // The guards are judged as a family of their own, never in gate.metrics.
    expect(gatableMetricNames).toEqual(metricNames.filter((name) => !isGuardMetric(name)));
    expect(() =>
      parseConfigText(preset.replace(/^ {2}metrics: \[/m, "  metrics: [output_tokens_mean, "), "bad.yml"),
    ).toThrow(/gate\.metrics/);
    const every = preset.replace(/^ {2}metrics: .*$/m, `  metrics: [${gatableMetricNames.join(", ")}]`);
    expect(parseConfigText(every, "ok.yml").config.gate.metrics).toEqual(gatableMetricNames);
    expect(() =>
      parseConfigText(preset.replace(/^ {2}metrics: \[/m, "  metrics: [ttft_p98, "), "bad.yml"),
    ).toThrow(/gate\.metrics/);
    for (const name of metricNames) {
      const { minRequests, source } = metricSpecs[name];
      // TTFT p95 by context depth is a p95 too: gated only with gate.min_requests.p95 requests.
      const percentile =
        source.kind === "latency" && /^p(9|99)/.test(source.statistic)
          ? source.statistic
          : source.kind === "session" && source.field.startsWith("ttft_p95")
            ? "p95"
            : null;
      expect(minRequests, name).toBe(percentile);
      if (minRequests !== null) expect(config.gate.min_requests[minRequests]).toBeGreaterThan(0);
    }
  });

  it("has a run.json reader for every metric", () => {
    const run = completeRun();
    const values = runFileMetrics(run);
    for (const name of metricNames) {
      expect(Number.isFinite(values[name]), name).toBe(true);
      expect(values[name]!, name).toBeGreaterThan(0);
    }
    // 8 requests: 5 finished at max_tokens, 1 aborted, 1 without output, 1 with usage unlike its chunks.
    expect(values.finish_length_share).toBe(5 / 8);
    expect(values.finish_abort_share).toBe(1 / 8);
    expect(values.zero_output_share).toBe(1 / 8);
    expect(values.usage_mismatch_share).toBe(1 / 8);
    expect(values.output_tokens_mean).toBe((4 * 4 + 1 + 2) / 6);
    expect(runFileMetrics({ ...run, guards: undefined }).output_tokens_mean).toBeNull();
    expect(values.ttft_p99_9).toBe(run.latency.ttft.p99_9);
    expect(values.tpot_mean).toBe(run.latency.tpot.mean);
    expect(values.request_goodput).toBe(run.throughput.goodput);
    expect(values.error_rate).toBe(1 / 5);
    expect(values.session_cache_hit_rate).toBe(0.5);
    expect(values.session_duration_p95).toBe(7 * 100 + 30);
    expect(values.ttft_p95_depth_8_up).toBe(17);
    expect(values.session_goodput).toBe(1);
    expect(runFileMetrics({ ...run, sessions: undefined }).session_goodput).toBeNull();
    // Requests a and b reasoned: their answers started at 61 and 47 ms, their answer gaps 14 and 19 ms.
    expect(run.latency.answer_ttft).toMatchObject({ count: 2, mean: 54 });
    expect(run.latency.answer_itl).toMatchObject({ count: 2, mean: 16.5 });
    expect(values.reasoning_tokens_mean).toBe((2 + 2) / 4);
    expect(values.malformed_tool_call_share).toBe(1 / 2);
    expect(runFileMetrics({ ...run, answer: undefined }).malformed_tool_call_share).toBeNull();
    // vLLM's definitions: accepted / draft tokens, and 1 + accepted tokens per draft round.
    expect(values.spec_decode_acceptance_rate).toBe(90 / 120);
    expect(values.spec_decode_acceptance_length).toBe(1 + 90 / 40);
    expect(runFileMetrics({ ...run, server: null }).spec_decode_acceptance_length).toBeNull();
    expect(runRecordFromRunFile(run, "run.json").metrics).toEqual(values);
  });

  it("round-trips every metric through the vLLM result writer and reader", () => {
    const run = completeRun();
    const written = toVllmResult(records, run, {
      model: "m",
      endpoint: "chat",
      startedAtMs: Date.parse(run.startedAt),
      burstiness: null,
      maxConcurrency: 5,
    });
    const parsed = vllmResultSchema.parse(JSON.parse(JSON.stringify(written)));
    const fromVllm = runRecordFromVllmResult(parsed, "result.json", 0).metrics;
    const fromRun = runFileMetrics(run);
    const withKeys: MetricName[] = [];
    for (const name of metricNames) {
      const { vllmKeys } = metricSpecs[name];
      const source = metricSpecs[name].source.kind;
      if (
        isGuardMetric(name) ||
        source === "reasoning-tokens" ||
        source === "malformed-tool-calls" ||
        source === "session" ||
        (metricSpecs[name].source.kind === "latency" && vllmKeys.length === 0)
      ) {
        // A vLLM result has no finish reasons, usage checks, reasoning, tool calls or sessions: those are not in it.
        expect(fromVllm[name] ?? null, name).toBeNull();
        continue;
      }
      for (const key of vllmKeys) expect(typeof parsed[key], `${name}: ${key}`).toBe("number");
      if (vllmKeys.length > 0) withKeys.push(name);
      expect(fromVllm[name], name).toBeCloseTo(fromRun[name]!, 9);
    }
    // vLLM writes the acceptance rate in percent: both acceptance figures are read from its counts.
    expect(parsed.spec_decode_acceptance_rate).toBe(75);
    expect(parsed.spec_decode_acceptance_length).toBe(3.25);
    // The error rate and the acceptance are derived (from counts) rather than stored under a key.
    expect(
      metricNames.filter(
        (name) =>
          !withKeys.includes(name) && !isGuardMetric(name) && metricSpecs[name].source.kind !== "session",
      ),
    ).toEqual([
      ...latencyStatistics.map((statistic) => `answer_ttft_${statistic}`),
      ...latencyStatistics.map((statistic) => `answer_itl_${statistic}`),
      "reasoning_tokens_mean",
      "malformed_tool_call_share",
      "error_rate",
      ...specDecodeMetrics,
    ]);
  });

  it("declares each vLLM result key once, the rates among the keys the reader validates", () => {
    const keys = metricNames.flatMap((name) => metricSpecs[name].vllmKeys);
    expect(new Set(keys).size).toBe(keys.length);
    expect(metricSpecs.ttft_p50.vllmKeys).toEqual(["median_ttft_ms", "p50_ttft_ms"]);
    expect(metricSpecs.e2el_p99_9.vllmKeys).toEqual(["p99.9_e2el_ms"]);
    for (const name of metricNames) {
      if (metricSpecs[name].source.kind !== "throughput") continue;
      for (const key of metricSpecs[name].vllmKeys)
        expect(Object.keys(vllmResultSchema.shape)).toContain(key);
    }
  });
});
