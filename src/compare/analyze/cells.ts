import type { GateConfig } from "../../config/schema.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { describeDifference, diffFingerprints } from "../inputs/fingerprint.js";
import type { ComparisonMode, FingerprintDifference, VerdictFile } from "../verdict/verdict-schema.js";
import { groupByCell, type Side, type UsableRuns } from "./usable-runs.js";

/** A cell with usable runs on both sides: its drafts are tested metric by metric. */
export interface ComparedCell {
  cell: string;
  base: RunRecord[];
  cand: RunRecord[];
  /** Fewer than 2 usable runs on a side: no estimate of run-to-run noise. */
  tooFew: boolean;
}

export interface FingerprintPair {
  cell: string;
  baseline: Record<string, unknown>;
  candidate: Record<string, unknown>;
}

export interface CellPairing {
  /** Every cell of either side, in the order the runs name them. */
  allCells: string[];
  cells: VerdictFile["cells"];
  compared: ComparedCell[];
  /** Cells that more candidate runs cannot help, with the reason. */
  unfixableCells: Map<string, string>;
  fingerprintPairs: FingerprintPair[];
  /** Runs measured on a side of a cell, screened and excluded ones included. */
  measuredRuns: (side: Side, cell: string) => number;
}

/**
 * Stage 2: the cells of both sides paired. Each gets its status (compared, too few runs, a side missing)
 * and the fingerprints to check for comparability; a stored baseline that cannot grow marks its cell unfixable.
 */
export function pairCells(runs: UsableRuns, mode: ComparisonMode): CellPairing {
  const { sides, usable } = runs;
  const cellsBySide = { baseline: groupByCell(usable.baseline), candidate: groupByCell(usable.candidate) };
  const allCells = [
    ...new Set([...sides.baseline.map((r) => r.cell), ...sides.candidate.map((r) => r.cell)]),
  ];
  const measuredRuns = (side: Side, cell: string) => sides[side].filter((run) => run.cell === cell).length;

  const cells: VerdictFile["cells"] = [];
  const compared: ComparedCell[] = [];
  const unfixableCells = new Map<string, string>();
  const fingerprintPairs: FingerprintPair[] = [];
  const firstBySide = (side: Side, cell: string) =>
    cellsBySide[side].get(cell)?.[0] ?? sides[side].find((run) => run.cell === cell);

  for (const cell of allCells) {
    const base = cellsBySide.baseline.get(cell) ?? [];
    const cand = cellsBySide.candidate.get(cell) ?? [];
    const baseFirst = firstBySide("baseline", cell);
    const candFirst = firstBySide("candidate", cell);
    if (baseFirst && candFirst)
      fingerprintPairs.push({ cell, baseline: baseFirst.fingerprint, candidate: candFirst.fingerprint });
    if (base.length === 0 || cand.length === 0) {
      const side: Side = base.length === 0 ? "baseline" : "candidate";
      const present = sides[side].some((run) => run.cell === cell);
      cells.push({
        name: cell,
        baselineRuns: base.length,
        candidateRuns: cand.length,
        status: side === "baseline" ? "missing-baseline" : "missing-candidate",
        note: present ? `every ${side} run of this cell was excluded` : `no ${side} runs for this cell`,
      });
      if (side === "baseline" && mode === "stored")
        unfixableCells.set(cell, `the stored baseline has no usable run of cell "${cell}"`);
      continue;
    }
    const tooFew = base.length < 2 || cand.length < 2;
    cells.push({
      name: cell,
      baselineRuns: base.length,
      candidateRuns: cand.length,
      status: tooFew ? "too-few-runs" : "compared",
      note: tooFew ? "at least 2 usable runs per side are needed to estimate run-to-run noise" : null,
    });
    if (mode === "stored" && base.length < 2)
      unfixableCells.set(
        cell,
        `the stored baseline has ${base.length} usable run of cell "${cell}" and at least 2 are needed; record the baseline again with more runs`,
      );
    if (base.every((run) => run.requests.completed === 0))
      unfixableCells.set(cell, `every request of every baseline run of cell "${cell}" failed`);
    compared.push({ cell, base, cand, tooFew });
  }
  return { allCells, cells, compared, unfixableCells, fingerprintPairs, measuredRuns };
}

/** The comparability check: fingerprint differences per cell, and the ones the gate does not allow. */
export function checkComparability(
  fingerprintPairs: readonly FingerprintPair[],
  gate: GateConfig,
  warnings: string[],
): { differences: FingerprintDifference[]; notComparable: FingerprintDifference[] } {
  const differences = diffFingerprints(fingerprintPairs, gate.allowed_differences);
  const notComparable = differences.filter((difference) => !difference.allowed);
  if (notComparable.length > 0 && gate.on_not_comparable === "warn") {
    warnings.push(
      `conditions differ outside the allowed differences: ${notComparable.map((d) => describeDifference(d)).join("; ")}`,
    );
  }
  return { differences, notComparable };
}
