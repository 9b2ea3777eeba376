import type { MetricName } from "../config/metric-names.js";

const phaseLabels: Record<string, string> = {
  ttft: "TTFT",
  tpot: "TPOT",
  itl: "ITL",
  e2el: "E2E latency",
};

const rateLabels: Record<string, string> = {
  request_throughput: "Request throughput",
  output_throughput: "Output throughput",
  total_token_throughput: "Total token throughput",
  request_goodput: "Goodput",
  error_rate: "Error rate",
};

const rateUnits: Record<string, string> = {
  request_throughput: "req/s",
  output_throughput: "tok/s",
  total_token_throughput: "tok/s",
  request_goodput: "req/s",
  error_rate: "",
};

/** "TTFT p95", "Output throughput". */
export function describeMetric(metric: MetricName): string {
  const rate = rateLabels[metric];
  if (rate) return rate;
  const [phase, ...rest] = metric.split("_");
  const statistic = rest.join("_").replace("p99_9", "p99.9");
  return `${phaseLabels[phase ?? ""] ?? phase} ${statistic}`;
}

export function metricUnit(metric: MetricName): string {
  return rateUnits[metric] ?? "ms";
}

/** A metric, or `cell/metric` for one in a named cell (mixed results across cells). */
export function describeMetricRef(ref: string): string {
  const slash = ref.lastIndexOf("/");
  if (slash < 0) return describeMetric(ref as MetricName);
  return `${ref.slice(0, slash)} ${describeMetric(ref.slice(slash + 1) as MetricName)}`;
}
