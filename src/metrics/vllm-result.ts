import { z } from "zod";
import type { MetricName } from "../config/metric-names.js";
import {
  type LatencyPhase,
  type LatencyStatistic,
  latencyPhases,
  latencyStatisticSpec,
  latencyStatistics,
  metricNames,
  metricSpecs,
} from "../config/metric-names.js";
import { maxServerStartIdLength } from "../server/server-start.js";
import { percentileSorted, sortNumbers } from "../stats/percentile.js";
import { errorRate, specDecodeValue, unknownSource } from "./metric-values.js";
import type { RunRecord } from "./run-record.js";

/**
 * The result file of `vllm bench serve --save-result` (keys per vllm/benchmarks/serve.py@009e6d4a,
 * summarised in shared/reference/vllm-protocol-and-metrics.md §1.6). Per selected metric m it holds
 * `mean_{m}_ms median_{m}_ms std_{m}_ms p{P}_{m}_ms`; `--save-detailed` adds per-request lists.
 * Loose: `--metadata K=V` add keys we keep but do not interpret, except one: `--metadata
 * server_start=<id>` (vLLM writes each pair as a top-level key with a string value, after `num_prompts`)
 * names the server start that measured the run, as `run --format vllm` writes it. With a drafter on the
 * server it also holds `spec_decode_*` (deltas of the server's counters over the benchmark,
 * vllm/benchmarks/serve.py after vllm PR #31739): the acceptance rate in percent, the mean acceptance
 * length, and the counts, from which the acceptance metrics are read.
 */
const count = z.number().int().nonnegative();

/**
 * Per-request lists hold thousands of numbers per file; a plain loop checks them ~20x faster than an
 * element-by-element schema, which matters when a comparison reads hundreds of detailed results.
 */
function numberList(what: string) {
  return z.custom<number[]>(
    (value) => {
      if (!Array.isArray(value)) return false;
      for (const item of value) if (typeof item !== "number" || !Number.isFinite(item)) return false;
      return true;
    },
    { error: `expected a list of numbers (${what})` },
  );
}

function numberListList(what: string) {
  return z.custom<number[][]>(
    (value) => {
      if (!Array.isArray(value)) return false;
      for (const inner of value) {
        if (!Array.isArray(inner)) return false;
        for (const item of inner) if (typeof item !== "number" || !Number.isFinite(item)) return false;
      }
      return true;
    },
    { error: `expected a list of lists of numbers (${what})` },
  );
}

const seconds = numberList("seconds per request");

export const vllmResultSchema = z.looseObject({
  date: z.string().optional(),
  backend: z.string().optional(),
  endpoint_type: z.string().optional(),
  label: z.string().nullable().optional(),
  model_id: z.string().optional(),
  tokenizer_id: z.string().optional(),
  num_prompts: count.optional(),
  server_start: z
    .string()
    .min(1, "expected the id of the server start that measured the run (--metadata server_start=<id>)")
    .max(
      maxServerStartIdLength,
      `expected at most ${maxServerStartIdLength} characters (limit maxServerStartIdLength)`,
    )
    .optional(),
  request_rate: z.union([z.number(), z.literal("inf"), z.string()]).optional(),
  burstiness: z.number().nullable().optional(),
  max_concurrency: z.number().nullable().optional(),
  duration: z.number().positive(),
  completed: count,
  failed: count.optional(),
  total_input_tokens: count.optional(),
  total_output_tokens: count.optional(),
  request_throughput: z.number().nonnegative(),
  request_goodput: z.number().nonnegative().nullable().optional(),
  output_throughput: z.number().nonnegative(),
  total_token_throughput: z.number().nonnegative().optional(),
  max_output_tokens_per_s: z.number().optional(),
  max_concurrent_requests: z.number().optional(),
  latencies: seconds.optional(),
  queue_times: seconds.optional(),
  input_lens: numberList("tokens per request").optional(),
  output_lens: numberList("tokens per request").optional(),
  start_times: seconds.optional(),
  ttfts: seconds.optional(),
  itls: numberListList("chunk gaps in seconds per request").optional(),
  generated_texts: z.array(z.string()).optional(),
  errors: z.array(z.string()).optional(),
  spec_decode_num_drafts: count.optional(),
  spec_decode_draft_tokens: count.optional(),
  spec_decode_accepted_tokens: count.optional(),
});

export type VllmResult = z.output<typeof vllmResultSchema>;

/** Per-request lists of `--save-detailed` (and `latencies`, `queue_times`): one entry per request each. */
const perRequestLists = [
  "latencies",
  "queue_times",
  "ttfts",
  "itls",
  "input_lens",
  "output_lens",
  "start_times",
  "generated_texts",
  "errors",
] as const;

/**
 * Relations vLLM's writer guarantees between the fields of a result (vllm/benchmarks/serve.py@009e6d4a):
 * every per-request list has one entry per request (so all have the same length, between `completed`
 * and `completed + failed`), `completed + failed` never exceeds `num_prompts`, and each metric's
 * percentiles never decrease (median <= p90 <= p99 <= p99.9). A file that breaks one was edited or
 * forged; computing percentiles from misaligned lists would pair one request's TTFT with another's
 * latency. Returns dotted fields and messages, empty when consistent.
 */
export function vllmResultInvariantIssues(result: VllmResult): Array<{ field: string; message: string }> {
  const issues: Array<{ field: string; message: string }> = [];
  const failed = result.failed ?? 0;
  if (result.num_prompts !== undefined && result.completed + failed > result.num_prompts) {
    issues.push({
      field: "completed",
      message: `completed (${result.completed}) + failed (${failed}) = ${result.completed + failed}, more than num_prompts (${result.num_prompts})`,
    });
  }
  const lengths: Array<{ key: string; length: number }> = [];
  for (const key of perRequestLists) {
    const list = result[key];
    if (Array.isArray(list)) lengths.push({ key, length: list.length });
  }
  const first = lengths[0];
  if (first) {
    for (const other of lengths.slice(1)) {
      if (other.length !== first.length) {
        issues.push({
          field: other.key,
          message: `${other.length} entries, but ${first.key} has ${first.length} (per-request lists have one entry per request)`,
        });
      }
    }
    if (first.length < result.completed) {
      issues.push({
        field: first.key,
        message: `${first.length} entries, fewer than the ${result.completed} completed requests`,
      });
    }
    if (result.failed !== undefined && first.length > result.completed + result.failed) {
      issues.push({
        field: first.key,
        message: `${first.length} entries, more than completed + failed = ${result.completed + result.failed} requests`,
      });
    }
  }
  const percentiles = latencyStatistics.filter(
    (statistic) => latencyStatisticSpec(statistic).quantile !== null,
  );
  for (const phase of latencyPhases) {
    const ordered: Array<{ key: string; value: number }> = [];
    for (const key of percentiles.flatMap((statistic) => metricSpecs[`${phase}_${statistic}`].vllmKeys)) {
      const value = result[key];
      if (typeof value === "number") ordered.push({ key, value });
    }
    for (let i = 1; i < ordered.length; i++) {
      const previous = ordered[i - 1]!;
      const current = ordered[i]!;
      if (current.value < previous.value) {
        issues.push({
          field: current.key,
          message: `${current.value} is below ${previous.key} = ${previous.value} (percentiles never decrease)`,
        });
      }
    }
  }
  return issues;
}

/** Keys that describe the conditions of the run rather than its outcome: its fingerprint. */
const conditionKeys = [
  "backend",
  "endpoint_type",
  "model_id",
  "tokenizer_id",
  "num_prompts",
  "request_rate",
  "burstiness",
  "max_concurrency",
] as const;

/** True when a parsed JSON object looks like a vLLM result rather than our run.json. */
export function looksLikeVllmResult(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    !("schemaVersion" in value) &&
    "request_throughput" in value
  );
}

/** Each latency statistic of the samples (numpy-linear percentiles); empty without samples. */
function summaryFromSamples(samplesMs: number[]): Partial<Record<LatencyStatistic, number>> {
  if (samplesMs.length === 0) return {};
  const sorted = sortNumbers(samplesMs);
  let sum = 0;
  for (const v of samplesMs) sum += v;
  const summary: Partial<Record<LatencyStatistic, number>> = {};
  for (const statistic of latencyStatistics) {
    const { quantile } = latencyStatisticSpec(statistic);
    summary[statistic] = quantile === null ? sum / samplesMs.length : percentileSorted(sorted, quantile);
  }
  return summary;
}

/** Per-request samples (ms) from `--save-detailed` lists, successful requests only. */
function detailedSamples(result: VllmResult): Partial<Record<LatencyPhase, number[]>> {
  const n = result.ttfts?.length ?? result.latencies?.length ?? 0;
  const ok = new Uint8Array(n);
  const errors = result.errors && result.errors.length === n ? result.errors : null;
  for (let i = 0; i < n; i++) {
    // Without an error list, vLLM leaves 0 for requests that never produced a chunk.
    ok[i] = errors
      ? errors[i] === ""
        ? 1
        : 0
      : (result.ttfts?.[i] ?? result.latencies?.[i] ?? 0) > 0
        ? 1
        : 0;
  }
  const successfulMs = (values: readonly number[]): number[] => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) if (ok[i]) out.push(values[i]! * 1000);
    return out;
  };
  const out: Partial<Record<LatencyPhase, number[]>> = {};
  const { ttfts, latencies, output_lens: outputLens, itls } = result;
  if (ttfts) out.ttft = successfulMs(ttfts);
  if (latencies && latencies.length === n) out.e2el = successfulMs(latencies);
  if (ttfts && latencies && outputLens && latencies.length === n && outputLens.length === n) {
    const tpot: number[] = [];
    for (let i = 0; i < n; i++) {
      const outLen = outputLens[i]!;
      if (ok[i] && outLen > 1) tpot.push(((latencies[i]! - ttfts[i]!) / (outLen - 1)) * 1000);
    }
    out.tpot = tpot;
  }
  if (itls && itls.length === n) {
    const pooled: number[] = [];
    for (let i = 0; i < n; i++) if (ok[i]) for (const gap of itls[i]!) pooled.push(gap * 1000);
    out.itl = pooled;
  }
  return out;
}

/** Turns one `vllm bench serve` result into a run record; aggregates win, detail fills the gaps. */
export function runRecordFromVllmResult(result: VllmResult, source: string, index: number): RunRecord {
  const failed =
    result.failed ??
    (result.num_prompts !== undefined ? Math.max(0, result.num_prompts - result.completed) : 0);
  const total = result.completed + failed;
  const metrics: RunRecord["metrics"] = {};
  const samples = detailedSamples(result);
  const detail: Partial<Record<LatencyPhase, Partial<Record<LatencyStatistic, number>>>> = {};
  for (const phase of latencyPhases) {
    const phaseSamples = samples[phase];
    if (phaseSamples) detail[phase] = summaryFromSamples(phaseSamples);
  }
  for (const metric of metricNames) {
    const value = vllmResultMetric(result, metric, detail, { total, failed });
    if (value !== undefined) metrics[metric] = value;
  }
  const fingerprint: Record<string, unknown> = { source: "vllm bench serve" };
  for (const key of conditionKeys) if (result[key] !== undefined) fingerprint[key] = result[key];
  return {
    source,
    cell: result.label ? result.label : "default",
    run: index,
    startedAt: result.date ?? null,
    durationS: result.duration,
    metrics,
    requests: { total, completed: result.completed, failed },
    fingerprint,
    exclusionReasons: [],
    ...(result.server_start !== undefined
      ? { serverStart: { id: result.server_start, basis: "recorded" as const } }
      : {}),
    load: {
      targetRate: typeof result.request_rate === "number" ? result.request_rate : null,
      targetConcurrency: typeof result.max_concurrency === "number" ? result.max_concurrency : null,
    },
  };
}

/**
 * One catalogue metric of a vLLM result: the last of its `vllmKeys` that holds a number; a latency
 * without one falls back to the per-request lists (`detail`), a failed fraction comes from the counts.
 * Undefined when the result does not have the latency at all (vLLM writes only the chosen percentiles).
 */
function vllmResultMetric(
  result: VllmResult,
  metric: MetricName,
  detail: Partial<Record<LatencyPhase, Partial<Record<LatencyStatistic, number>>>>,
  requests: { total: number; failed: number },
): number | null | undefined {
  const { source, vllmKeys } = metricSpecs[metric];
  let aggregate: number | undefined;
  for (const key of vllmKeys) {
    const value = result[key];
    if (typeof value === "number") aggregate = value;
  }
  switch (source.kind) {
    case "latency":
      return aggregate ?? detail[source.phase]?.[source.statistic];
    case "throughput":
      return aggregate ?? null;
    case "failed-fraction":
      return errorRate(requests);
    case "guard-share":
    case "guard-length":
      // A vLLM result has no finish reasons or per-request usage checks: the guards are not in it.
      return null;
    case "session":
    case "reasoning-tokens":
    case "malformed-tool-calls":
      // Nor reasoning, tool calls or sessions (vllm bench serve sends single requests).
      return null;
    case "spec-decode":
      // From the counts: vLLM writes the rate in percent, the catalogue's is a fraction.
      return specDecodeValue(
        {
          drafts: result.spec_decode_num_drafts ?? null,
          draftTokens: result.spec_decode_draft_tokens ?? null,
          acceptedTokens: result.spec_decode_accepted_tokens ?? null,
        },
        source.field,
      );
    default:
      return unknownSource(source);
  }
}
