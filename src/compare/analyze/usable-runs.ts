import { describeMetric, metricSpecs } from "../../config/metric-names.js";
import type { GateConfig } from "../../config/schema.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { screenOutliers } from "../../stats/outlier-screen.js";
import type { VerdictFile } from "../verdict/verdict-schema.js";

export type Side = "baseline" | "candidate";

export function groupByCell(runs: readonly RunRecord[]): Map<string, RunRecord[]> {
  const cells = new Map<string, RunRecord[]>();
  for (const run of runs) {
    const list = cells.get(run.cell);
    if (list) list.push(run);
    else cells.set(run.cell, [run]);
  }
  return cells;
}

export interface UsableRuns {
  /** Every run of each side as measured (the candidate's cell renamed when single cells were paired). */
  sides: { baseline: readonly RunRecord[]; candidate: readonly RunRecord[] };
  /** The runs the statistics use: not excluded while measuring and not screened as outliers. */
  usable: { baseline: RunRecord[]; candidate: RunRecord[] };
  used: VerdictFile["runs"]["used"];
  excluded: VerdictFile["runs"]["excluded"];
}

/**
 * Stage 1: the runs the comparison may use. Pairs a single cell per side, drops the runs excluded while
 * measuring, then screens the healthy ones for outlier runs; says what it left out and why.
 */
export function selectUsableRuns(
  baseline: readonly RunRecord[],
  candidate: readonly RunRecord[],
  gate: GateConfig,
  warnings: string[],
): UsableRuns {
  const candidateInput = pairSingleCells(baseline, candidate, warnings);
  const sides = { baseline, candidate: candidateInput };
  const excluded: VerdictFile["runs"]["excluded"] = [];
  const healthy = { baseline: [] as RunRecord[], candidate: [] as RunRecord[] };
  const refOf = (side: Side, run: RunRecord) => ({ side, cell: run.cell, run: run.run, source: run.source });
  for (const side of ["baseline", "candidate"] as const) {
    for (const run of sides[side]) {
      if (run.exclusionReasons.length > 0)
        excluded.push({ ...refOf(side, run), reasons: run.exclusionReasons });
      else healthy[side].push(run);
    }
  }
  const screened = screenRuns(healthy, gate, warnings);
  const usable = {
    baseline: healthy.baseline.filter((run) => !screened.has(run)),
    candidate: healthy.candidate.filter((run) => !screened.has(run)),
  };
  for (const side of ["baseline", "candidate"] as const)
    for (const run of healthy[side]) {
      const reason = screened.get(run);
      if (reason) excluded.push({ ...refOf(side, run), reasons: [reason] });
    }
  const used: VerdictFile["runs"]["used"] = [
    ...usable.baseline.map((run) => refOf("baseline", run)),
    ...usable.candidate.map((run) => refOf("candidate", run)),
  ];
  return { sides, usable, used, excluded };
}

/**
 * `vllm bench serve --label` often names the side ("main", "pr") rather than the workload: with one
 * cell per side under different names, they are the same cell. Said in a warning, never silent.
 */
function pairSingleCells(
  baseline: readonly RunRecord[],
  candidate: readonly RunRecord[],
  warnings: string[],
): readonly RunRecord[] {
  const baseCells = new Set(baseline.map((run) => run.cell));
  const candCells = new Set(candidate.map((run) => run.cell));
  if (baseCells.size !== 1 || candCells.size !== 1) return candidate;
  const [baseCell] = baseCells;
  const [candCell] = candCells;
  if (baseCell === candCell) return candidate;
  warnings.push(
    `one cell per side with different names: candidate "${candCell}" compared with baseline "${baseCell}"`,
  );
  return candidate.map((run) => ({ ...run, cell: baseCell! }));
}

/** Metrics screened for outlier runs: the gated ones measured per run (error rate is pooled). */
function screenRuns(
  healthy: { baseline: RunRecord[]; candidate: RunRecord[] },
  gate: GateConfig,
  warnings: string[],
): Map<RunRecord, string> {
  const reasons = new Map<RunRecord, string>();
  if (gate.outlier_threshold <= 0) return reasons;
  const metrics = gate.metrics.filter((metric) => metricSpecs[metric].judged === "per-run");
  if (metrics.length === 0) return reasons;
  const groups: { side: Side; cell: string; runs: RunRecord[] }[] = [];
  for (const side of ["baseline", "candidate"] as const)
    for (const [cell, runs] of groupByCell(healthy[side])) groups.push({ side, cell, runs });
  const result = screenOutliers(
    groups.map((group) => ({
      // Both sides of a cell share a scale: same workload, same spread; other cells may be noisier.
      pool: group.cell,
      values: group.runs.map((run) =>
        metrics.map((metric) => {
          const value = run.metrics[metric];
          if (value === null || value === undefined || !(value > 0)) return Number.NaN;
          return (metricSpecs[metric].higherIsBetter ? -1 : 1) * Math.log(value);
        }),
      ),
    })),
    metrics.length,
    { ...defaultScreenOptionsFor(gate) },
  );
  for (const flagged of result.screened) {
    const group = groups[flagged.group]!;
    const run = group.runs[flagged.run]!;
    const moved = metrics
      .map((metric, k) => ({ metric, ratio: flagged.ratios[k]! }))
      .filter((m) => Number.isFinite(m.ratio))
      .map(
        (m) => `${describeMetric(m.metric)} ${m.ratio >= 1 ? "+" : ""}${((m.ratio - 1) * 100).toFixed(1)}%`,
      )
      .join(", ");
    reasons.set(
      run,
      `outlier run: on average ${Math.abs(flagged.score).toFixed(1)} robust sd ${flagged.score > 0 ? "worse" : "better"} than the other ${group.side} runs of this cell on the gated metrics (${moved} vs their median; gate.outlier_threshold ${gate.outlier_threshold})`,
    );
  }
  for (const g of result.tooManyOutliers) {
    const group = groups[g]!;
    warnings.push(
      `the ${group.side} runs of cell "${group.cell}" split into groups too far apart to call one an outlier; none were screened`,
    );
  }
  return reasons;
}

function defaultScreenOptionsFor(gate: GateConfig) {
  return {
    threshold: gate.outlier_threshold,
    minRuns: 5,
    maxShare: 0.2,
    minScale: Math.max(0.01, 2 * gate.min_run_sd),
  };
}
