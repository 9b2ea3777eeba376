import { type MetricName, type MetricSource, metricNames, metricSpecs } from "../config/metric-names.js";
import { guardShareCount } from "./guards.js";
import type { RunFile } from "./run-schema.js";

/** Per-run metric values: latencies in ms, throughputs per second, error_rate as a fraction. */
export type MetricValues = Partial<Record<MetricName, number | null>>;

/** Failed / total requests; null without requests. */
export function errorRate(requests: { total: number; failed: number }): number | null {
  return requests.total > 0 ? requests.failed / requests.total : null;
}

/** Malformed / all tool calls; null without any tool call (or in files without `answer`). */
export function malformedToolCallShare(
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
export function runFileMetric(file: RunFile, source: MetricSource): number | null {
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
    default:
      return unknownSource(source);
  }
}

/** Every catalogue metric of a run.json. */
export function runFileMetrics(file: RunFile): MetricValues {
  const values: MetricValues = {};
  for (const metric of metricNames) values[metric] = runFileMetric(file, metricSpecs[metric].source);
  return values;
}
