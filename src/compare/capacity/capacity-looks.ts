import { capacityMaxRuns } from "../../config/capacity-summary.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { lookIndex, perLookLevel } from "../../stats/sequential.js";
import type { CapacityComparison } from "../verdict/capacity-schema.js";
import type { ComparisonMode, VerdictFile } from "../verdict/verdict-schema.js";

/**
 * More runs for an undecided capacity comparison (docs/capacity.md): a capacity verdict is decided at two
 * looks, the searches' own stop (at precision, at most repeats.max runs per side) and, while the verdict
 * is inconclusive, `capacity.max_runs` runs per side, which the gate's adaptive loop (app/adaptive.ts)
 * measures by resuming the searches past their precision. The family level is spent over the two looks
 * in proportion to their run counts (stats/sequential.ts perLookLevel, the gate's rule), so a capacity
 * change at the tolerance is blocked with probability at most 1 − confidence over both looks.
 */

export { capacityMaxRuns };

/** What the looks need of a capacity cell. */
interface CellRuns {
  name: string;
  capacity: { max_runs?: number | undefined; gated: boolean };
}

/** The looks (runs per side) of the capacity verdicts: repeats.max, and the largest max_runs above it. */
export function capacityLooks(repeatsMax: number, cells: readonly CellRuns[]): number[] {
  const last = Math.max(repeatsMax, ...cells.map((cell) => capacityMaxRuns(repeatsMax, cell)));
  return last > repeatsMax ? [repeatsMax, last] : [repeatsMax];
}

/** Runs of a cell on one side as measured (excluded runs included: they count against the budget). */
function measured(records: readonly RunRecord[], cell: string): number {
  return records.filter((record) => record.cell === cell).length;
}

/**
 * The one-sided level of the capacity regression and improvement tests at this look: the family level
 * spent over `looks` by the most candidate runs of any capacity cell (as the fixed-load checks' stage).
 */
export function capacityLookLevel(
  familyAlpha: number,
  looks: readonly number[],
  cells: readonly CellRuns[],
  candidate: readonly RunRecord[],
  mode: ComparisonMode,
): number {
  const stage = Math.max(0, ...cells.map((cell) => measured(candidate, cell.name)));
  return perLookLevel(familyAlpha, looks, stage, mode);
}

/**
 * The next look for the gated capacity checks that are inconclusive with a ratio (both sides found a
 * capacity with an interval): the next look's runs per side, the candidate's searches resumed (and, in
 * interleaved mode, the baseline's); null when none is undecided or the last look is reached.
 */
export function capacityNextLook(input: {
  checks: readonly CapacityComparison[];
  cells: readonly CellRuns[];
  looks: readonly number[];
  baseline: readonly RunRecord[];
  candidate: readonly RunRecord[];
  mode: ComparisonMode;
}): NonNullable<VerdictFile["nextLook"]> | null {
  const undecided = input.checks.filter(
    (check) => check.gated && check.verdict === "inconclusive" && check.ratio !== null,
  );
  if (undecided.length === 0) return null;
  const names = undecided.map((check) => check.cell);
  const stage = Math.max(...names.map((name) => measured(input.candidate, name)));
  // The look after the one this comparison belongs to (a search that stopped before repeats.max is at
  // the first look already), so that each look's level is spent once.
  const target = input.looks[lookIndex(input.looks, stage) + 1];
  if (target === undefined) return null;
  const fewest = (records: readonly RunRecord[]) => Math.min(...names.map((name) => measured(records, name)));
  const candidateRuns = fewest(input.candidate);
  return {
    runsPerSide: target,
    addCandidateRuns: Math.max(0, target - candidateRuns),
    addBaselineRuns: input.mode === "interleaved" ? Math.max(0, target - fewest(input.baseline)) : 0,
    cells: names,
    reason: `capacity of ${names.join(", ")} inconclusive at ${candidateRuns} candidate run${candidateRuns === 1 ? "" : "s"}: the search refines on to ${target} runs per side (capacity.max_runs)`,
  };
}
