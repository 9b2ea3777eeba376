import { z } from "zod";
import type { VerdictFile } from "../compare/verdict/verdict-schema.js";
import { type MetricUnit, metricSpecs } from "../config/metric-names.js";
import type { RunRecord } from "../metrics/run-record.js";
import { type ExportFormat, finiteRunMetrics } from "./export-runs.js";

/**
 * A comparison's candidate as Bencher Metric Format JSON (bencher.dev docs, reference/bencher-metric-format):
 * `{benchmark: {measure: {value, lower_value?, upper_value?}}}`. One benchmark per cell
 * (`vllm-perf-gate/<cell>`), one measure per metric (its name in kebab case with the unit, e.g.
 * `ttft-p95-ms`, at most 64 characters as Bencher's measure slugs). `value` is the candidate's geometric
 * mean over runs; `lower_value`/`upper_value` are the baseline times the ends of the decision interval
 * (the range of candidate values the interval allows), when there is one. Upload with
 * `bencher run --adapter json --file bencher.json`.
 */

const bencherMetricSchema = z
  .object({
    value: z.number().finite(),
    lower_value: z.number().finite().optional(),
    upper_value: z.number().finite().optional(),
  })
  .strict();

const bencherReportSchema = z.record(
  z.string().min(1).max(1024),
  z.record(z.string().min(1).max(64), bencherMetricSchema),
);

export type BencherReport = z.infer<typeof bencherReportSchema>;

/** Each unit's slug in a measure name; typed by the catalogue's units, so a new unit must name its slug. */
const unitSlug: Record<MetricUnit, string> = {
  ms: "ms",
  "req/s": "req-s",
  "sessions/s": "sessions-s",
  "tok/s": "tok-s",
  fraction: "fraction",
  tokens: "tokens",
};

export function bencherMeasure(metric: keyof typeof metricSpecs): string {
  return `${metric.replace(/_/g, "-")}-${unitSlug[metricSpecs[metric].unit]}`;
}

function bencherBenchmark(cell: string): string {
  return `vllm-perf-gate/${cell}`;
}

/**
 * One run (`run --format bencher`) as Bencher Metric Format: the cell's benchmark with one measure per
 * metric, `value` the run's own value (no bounds: one run has no interval).
 */
function runToBencherReport(run: RunRecord): BencherReport {
  const measures: Record<string, z.infer<typeof bencherMetricSchema>> = {};
  for (const [metric, value] of finiteRunMetrics(run)) measures[bencherMeasure(metric)] = { value };
  return bencherReportSchema.parse({ [bencherBenchmark(run.cell)]: measures });
}

export function toBencherReport(verdict: VerdictFile): BencherReport {
  const report: BencherReport = {};
  for (const c of verdict.comparisons) {
    if (c.candidate === null || !Number.isFinite(c.candidate)) continue;
    const metric: z.infer<typeof bencherMetricSchema> = { value: c.candidate };
    if (c.ci && c.baseline !== null) {
      const [low, high] = [c.baseline * c.ci[0], c.baseline * c.ci[1]];
      if (Number.isFinite(low) && Number.isFinite(high)) {
        metric.lower_value = Math.min(low, high);
        metric.upper_value = Math.max(low, high);
      }
    }
    const benchmark = bencherBenchmark(c.cell);
    report[benchmark] = { ...report[benchmark], [bencherMeasure(c.metric)]: metric };
  }
  return bencherReportSchema.parse(report);
}

export const bencherExport: ExportFormat = {
  fileName: "bencher.json",
  ofComparison: (verdict) => toBencherReport(verdict),
  ofRun: (run) => runToBencherReport(run),
};
