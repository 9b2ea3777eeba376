/**
 * The metric catalogue shared by config, metrics, stats and report. A name is `<phase>_<statistic>`
 * for latencies (ttft, tpot, itl, e2el, queue) and a plain name for rates.
 */
export const latencyPhases = ["ttft", "tpot", "itl", "e2el"] as const;
export const latencyStatistics = ["mean", "p50", "p90", "p95", "p99", "p99_9"] as const;
export const rateMetrics = [
  "request_throughput",
  "output_throughput",
  "total_token_throughput",
  "request_goodput",
  "error_rate",
] as const;

export type LatencyPhase = (typeof latencyPhases)[number];
export type LatencyStatistic = (typeof latencyStatistics)[number];

export const metricNames = [
  ...latencyPhases.flatMap((phase) => latencyStatistics.map((statistic) => `${phase}_${statistic}` as const)),
  ...rateMetrics,
] as const;

export type MetricName = (typeof metricNames)[number];

/** The default blocking family per cell (statistics.md §4: keep it small). */
export const gatedMetricNames = [
  "ttft_p95",
  "tpot_p95",
  "e2el_p95",
  "output_throughput",
  "error_rate",
] as const satisfies readonly MetricName[];

/** Higher is better for these; lower is better for every latency and for error_rate. */
export const higherIsBetter: ReadonlySet<MetricName> = new Set<MetricName>([
  "request_throughput",
  "output_throughput",
  "total_token_throughput",
  "request_goodput",
]);
