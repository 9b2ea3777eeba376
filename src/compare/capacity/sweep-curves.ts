import type { CellConfig } from "../../config/schema.js";
import type { RunRecord } from "../../metrics/run-record.js";
import type { SweepCurve } from "../verdict/capacity-schema.js";
import { type LoadDimension, loadCurveOf, loadOfRecord } from "./load-curve.js";

/**
 * The load curves of sweeps compared without a capacity config (docs/capacity.md, docs/compare.md): a
 * cell whose runs ran at two or more loads (a `sweep` cell, `run --sweep`, several `vllm bench serve`
 * files of one label at different rates) is still judged as one fixed-load cell (with the mixed-load
 * warning), and verdict.json's `sweeps` carries both sides' curves so report.html and the comment can
 * draw them: offered load against completed requests/s, goodput, TTFT and E2E p95 and output tok/s, with
 * the cell's SLO lines when the config states them, and no capacity point (no capacity was searched).
 */

/** The percentile a sweep's latencies are drawn at (a sweep has no capacity percentile of its own). */
const sweepPercentile = "p95" as const;

/** What compare knows of a cell from the config: its load dimension and its SLOs. */
export type SweepCellHint = Pick<CellConfig, "name" | "slo"> & { load: Pick<CellConfig["load"], "type"> };

/**
 * The dimension a cell's runs were swept in: the config's (rate or concurrency) when it names the cell,
 * else the one whose target varies over the runs (rate first); null when the runs ran at one load (or
 * the config's load is stages, which has no single dimension).
 */
function sweptDimension(
  records: readonly RunRecord[],
  hint: SweepCellHint | undefined,
): LoadDimension | null {
  const distinct = (dimension: LoadDimension) =>
    new Set(
      records.flatMap((record) => {
        const load = loadOfRecord(dimension, record);
        return load !== null && load > 0 ? [load] : [];
      }),
    ).size;
  if (hint) {
    if (hint.load.type === "stages") return null;
    const dimension = hint.load.type;
    return distinct(dimension) >= 2 ? dimension : null;
  }
  if (distinct("rate") >= 2) return "rate";
  if (distinct("concurrency") >= 2) return "concurrency";
  return null;
}

/**
 * The sweeps among the cells compared at a fixed load (capacity cells are left out by the caller), in
 * the order the cells first appear; a cell is a sweep when its runs (both sides together) ran at two or
 * more loads and one side's usable runs give a curve of two or more points.
 */
export function sweepCurves(
  baseline: readonly RunRecord[],
  candidate: readonly RunRecord[],
  hints: readonly SweepCellHint[] = [],
): SweepCurve[] {
  const cells = [...new Set([...baseline, ...candidate].map((record) => record.cell))];
  return cells.flatMap((cell) => {
    const hint = hints.find((h) => h.name === cell);
    const own = [...baseline, ...candidate].filter((record) => record.cell === cell);
    const dimension = sweptDimension(own, hint);
    if (dimension === null) return [];
    const curve = {
      baseline: loadCurveOf(cell, dimension, sweepPercentile, baseline),
      candidate: loadCurveOf(cell, dimension, sweepPercentile, candidate),
    };
    if (curve.baseline.length < 2 && curve.candidate.length < 2) return [];
    const slo = hint?.slo ?? {};
    return [
      {
        cell,
        dimension,
        percentile: sweepPercentile,
        slo: {
          ...(slo.ttft_ms === undefined ? {} : { ttft_ms: slo.ttft_ms }),
          ...(slo.tpot_ms === undefined ? {} : { tpot_ms: slo.tpot_ms }),
          ...(slo.e2el_ms === undefined ? {} : { e2el_ms: slo.e2el_ms }),
        },
        curve,
      },
    ];
  });
}
