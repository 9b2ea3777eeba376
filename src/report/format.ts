import {
  describeMetric,
  isMetricName,
  type LatencyStatistic,
  latencyStatisticSpec,
  type MetricName,
  metricSpecs,
} from "../config/metric-names.js";

/** Numbers for people: 3 significant figures is plenty for latencies and rates. */
export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value).toLocaleString("en-US");
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  if (abs === 0) return "0";
  return value.toPrecision(3);
}

/** A value in its catalogue unit and format: "1,234 ms", "512 tok/s", "0.50%". */
export function formatMetricValue(metric: MetricName, value: number | null): string {
  if (value === null) return "–";
  const { format, unit } = metricSpecs[metric];
  switch (format) {
    case "percent":
      return `${(value * 100).toFixed(2)}%`;
    case "number":
      return `${formatNumber(value)} ${unit}`;
  }
}

/** A metric, or `cell/metric` for one in a named cell (mixed results across cells). */
export function describeMetricRef(ref: string): string {
  const slash = ref.lastIndexOf("/");
  const name = ref.slice(slash + 1);
  const label = isMetricName(name) ? describeMetric(name) : name;
  return slash < 0 ? label : `${ref.slice(0, slash)} ${label}`;
}

export function formatChange(ratio: number | null): string {
  if (ratio === null || !Number.isFinite(ratio)) return "–";
  const percent = (ratio - 1) * 100;
  const sign = percent > 0 ? "+" : percent < 0 ? "−" : "±";
  return `${sign}${Math.abs(percent).toFixed(1)}%`;
}

export function formatInterval(ci: readonly [number, number] | null): string {
  if (ci === null) return "–";
  return `${formatChange(ci[0])} … ${formatChange(ci[1])}`;
}

export function formatP(p: number | null): string {
  if (p === null) return "–";
  if (p < 0.0001) return "<0.0001";
  return p.toFixed(4);
}

export function formatSignedNumber(value: number, unit: string): string {
  const sign = value > 0 ? "+" : value < 0 ? "−" : "±";
  return `${sign}${formatNumber(Math.abs(value))}${unit}`;
}

/** 0.05 → "5%", 0.025 → "2.5%". */
export function formatFractionAsPercent(fraction: number): string {
  return `${Number((fraction * 100).toPrecision(3))}%`;
}

/** A no-break space: keeps a figure and its unit, or an interval, on one line in a narrow table. */
export const noBreakSpace = "\u00a0";

/** "+15.7 … +23.2%": an interval on one line (no-break spaces), the percent sign once. */
export function formatIntervalOneLine(ci: readonly [number, number] | null): string {
  if (ci === null) return "–";
  const low = formatChange(ci[0]).replace(/%$/, "");
  return `${low}${noBreakSpace}…${noBreakSpace}${formatChange(ci[1])}`;
}

/** "1,096 → 1,333 ms": both sides' values on one line, the unit once. */
export function formatValuePair(
  metric: MetricName,
  baseline: number | null,
  candidate: number | null,
): string {
  const { format, unit } = metricSpecs[metric];
  if (format === "number" && baseline !== null && candidate !== null)
    return `${formatNumber(baseline)}${noBreakSpace}→${noBreakSpace}${formatNumber(candidate)}${noBreakSpace}${unit}`;
  return `${formatMetricValue(metric, baseline)}${noBreakSpace}→${noBreakSpace}${formatMetricValue(metric, candidate)}`.replaceAll(
    " ",
    noBreakSpace,
  );
}

/** Who a latency statistic speaks for: "the slowest 5%" (p95), "half of the users" (p50), "users on average". */
export function slowestUsers(statistic: LatencyStatistic): string {
  const { quantile } = latencyStatisticSpec(statistic);
  if (quantile === null) return "users on average";
  if (quantile === 0.5) return "half of the users";
  return `the slowest ${Number(((1 - quantile) * 100).toPrecision(3))}%`;
}

/** "850 ms", "1.20 s": a duration in milliseconds for people. */
export function formatDuration(ms: number): string {
  return ms >= 1000 ? `${formatNumber(ms / 1000)} s` : `${formatNumber(ms)} ms`;
}

/** "4 regressed", "5 within tolerance": each count that is not 0, with its word (`show` marks it up). */
export function nonZeroCounts(
  counts: readonly (readonly [number, string])[],
  show: (count: number) => string = String,
): string[] {
  return counts.filter(([count]) => count > 0).map(([count, word]) => `${show(count)} ${word}`);
}
