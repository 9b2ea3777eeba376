import type { MetricName } from "../../config/metric-names.js";
import type { RunRecord } from "../../metrics/run-record.js";
import type { CapacityCurvePoint } from "../verdict/capacity-schema.js";

/**
 * The one definition of a load curve as the report draws it (pure): per load measured, the mean over a
 * cell's usable runs at that load (no exclusion reason of their own) of completed requests/s, goodput,
 * output tokens/s, and TTFT and E2E at a percentile. Rows ascend by load. Capacity cells
 * (compare/capacity/capacity.ts `capacityCurveOf`), sweeps compared at a fixed load
 * (compare/capacity/sweep-curves.ts) and one side's `run --sweep` report (app/sweep-report.ts) all read runs
 * through it.
 */

export type LoadDimension = "rate" | "concurrency";
/** The percentiles a curve's latencies can be read at (the capacity config's). */
export type CurvePercentile = "p50" | "p90" | "p95" | "p99";

/** The load a run was offered in `dimension` (null when the run does not say). */
export function loadOfRecord(dimension: LoadDimension, record: RunRecord): number | null {
  const load = record.load;
  if (!load) return null;
  return dimension === "concurrency" ? load.targetConcurrency : load.targetRate;
}

export function loadCurveOf(
  cell: string,
  dimension: LoadDimension,
  percentile: CurvePercentile,
  records: readonly RunRecord[],
): CapacityCurvePoint[] {
  const byLoad = new Map<number, RunRecord[]>();
  for (const record of records) {
    if (record.cell !== cell || record.exclusionReasons.length > 0) continue;
    const load = loadOfRecord(dimension, record);
    if (load === null || !(load > 0)) continue;
    byLoad.set(load, [...(byLoad.get(load) ?? []), record]);
  }
  return [...byLoad.entries()]
    .sort(([a], [b]) => a - b)
    .map(([load, runs]) => {
      const mean = (metric: MetricName): number | null => {
        const values = runs
          .map((run) => run.metrics[metric])
          .filter((v): v is number => v !== null && v !== undefined && Number.isFinite(v));
        return values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length;
      };
      return {
        load,
        runs: runs.length,
        completedPerSecond: mean("request_throughput"),
        goodput: mean("request_goodput"),
        outputTokensPerSecond: mean("output_throughput"),
        ttftMs: mean(`ttft_${percentile}`),
        e2elMs: mean(`e2el_${percentile}`),
      };
    });
}
