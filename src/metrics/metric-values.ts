import {
  type MetricName,
  type MetricSource,
  metricNames,
  metricSpecs,
  type SessionField,
  type SpecDecodeField,
} from "../config/metric-names.js";
import { guardShareCount } from "./guards.js";
import type { RunFile, SessionsSummary } from "./run-schema.js";

/** Per-run metric values: latencies in ms, throughputs per second, error_rate as a fraction. */
export type MetricValues = Partial<Record<MetricName, number | null>>;

/** Failed / total requests; null without requests. */
export function errorRate(requests: { total: number; failed: number }): number | null {
  return requests.total > 0 ? requests.failed / requests.total : null;
}

/** Malformed / all tool calls; null without any tool call (or in files without `answer`). */
function malformedToolCallShare(
  answer: { toolCalls: number; malformedToolCalls: number } | undefined,
): number | null {
  if (answer === undefined) return null;
  const calls = answer.toolCalls + answer.malformedToolCalls;
  return calls > 0 ? answer.malformedToolCalls / calls : null;
}

/** Marks a switch as exhaustive: a new `MetricSource` kind fails to compile until each reader handles it. */
export function unknownSource(source: never): never {
  throw new Error(`unknown metric source ${JSON.stringify(source)}`);
}

/** One catalogue metric of a run.json; null when the run has no value for it. */
function runFileMetric(file: RunFile, source: MetricSource): number | null {
  switch (source.kind) {
    case "latency": {
      const summary = file.latency[source.phase];
      return source.statistic === "p50" ? (summary.p50 ?? summary.median) : summary[source.statistic];
    }
    case "throughput":
      return file.throughput[source.field];
    case "failed-fraction":
      return errorRate(file.requests);
    case "guard-share": {
      // A run.json from before the guards (or without requests) has no value.
      const guards = file.guards;
      if (guards === undefined || guards.requests === 0) return null;
      return guardShareCount(guards, source.field) / guards.requests;
    }
    case "guard-length":
      return file.guards?.outputTokens.mean ?? null;
    case "reasoning-tokens": {
      const answer = file.answer;
      return answer !== undefined && answer.reasoningRequests > 0 ? answer.reasoningTokens.mean : null;
    }
    case "malformed-tool-calls":
      return malformedToolCallShare(file.answer);
    case "session":
      return file.sessions === undefined ? null : sessionValue(file.sessions, source.field);
    case "spec-decode": {
      const server = file.server;
      return specDecodeValue(
        {
          drafts: server?.spec_decode_drafts ?? null,
          draftTokens: server?.spec_decode_draft_tokens ?? null,
          acceptedTokens: server?.spec_decode_accepted_tokens ?? null,
        },
        source.field,
      );
    }
    default:
      return unknownSource(source);
  }
}

/** vLLM's speculative-decoding counters over a run (deltas of the `vllm:spec_decode_*` counters). */
export interface SpecDecodeCounts {
  /** Draft rounds: one per request and engine step that verified drafts. */
  drafts: number | null;
  draftTokens: number | null;
  acceptedTokens: number | null;
}

/**
 * An acceptance figure of the counters, as vLLM defines it (vllm/v1/spec_decode/metrics.py @ 016a8587):
 * the rate is accepted / draft tokens, the mean acceptance length 1 + accepted tokens / drafts (the
 * tokens one draft round gives a request, the target model's own token included); null without drafts.
 */
export function specDecodeValue(counts: SpecDecodeCounts, field: SpecDecodeField): number | null {
  const { drafts, draftTokens, acceptedTokens } = counts;
  // A counter that went down (a restarted server) gives no figure.
  if (acceptedTokens === null || acceptedTokens < 0) return null;
  if (field === "acceptance_rate")
    return draftTokens !== null && draftTokens > 0 ? acceptedTokens / draftTokens : null;
  return drafts !== null && drafts > 0 ? 1 + acceptedTokens / drafts : null;
}

/** A session metric's value of run.json `sessions` (null when the run has none for it). */
function sessionValue(sessions: SessionsSummary, field: SessionField): number | null {
  switch (field) {
    case "duration_p50":
      return sessions.duration.p50;
    case "duration_p95":
      return sessions.duration.p95;
    case "goodput":
      return sessions.goodput;
    case "throughput":
      return sessions.throughput;
    case "cache_hit_rate":
      return sessions.cacheHitRate;
    default: {
      const bucket = field.slice("ttft_p95_depth_".length);
      return sessions.ttftByDepth.find((entry) => entry.bucket === bucket)?.p95 ?? null;
    }
  }
}

/**
 * The requests a metric's value of this run summarises, for the metrics computed from fewer than the
 * run's completed requests: a context-depth bucket's TTFT p95 counts the bucket's requests. Compare's
 * request floor for gating a percentile reads these (a run's 600 turns can leave 40 at depth 4-7).
 */
export function runFileMetricRequests(file: RunFile): Partial<Record<MetricName, number>> {
  const counts: Partial<Record<MetricName, number>> = {};
  if (file.sessions === undefined) return counts;
  for (const entry of file.sessions.ttftByDepth) {
    counts[`ttft_p95_depth_${entry.bucket}` as MetricName] = entry.requests;
  }
  return counts;
}

/** Every catalogue metric of a run.json. */
export function runFileMetrics(file: RunFile): MetricValues {
  const values: MetricValues = {};
  for (const metric of metricNames) values[metric] = runFileMetric(file, metricSpecs[metric].source);
  return values;
}
