import type { OverallVerdict, VerdictFile } from "../compare/verdict/verdict-schema.js";
import type { Alternation } from "../config/alternation.js";
import type { LoopEvent } from "../report/status.js";
import { alternatingBlocks } from "../runner/interleaved.js";

/**
 * The one adaptive-repeats loop (sequential looks), shared by the action's gate and the demo: compare
 * what was measured, and while the comparison asks for a next look, measure the runs
 * it asks for (an injected step) and compare again.
 */

/** `runs` more runs per side of `cells` (null: every cell), numbered from `firstRun`. */
export interface MeasureStep {
  firstRun: number;
  runs: number;
  cells: string[] | null;
}

/** What the loop needs of a comparison's outcome. */
export interface LookOutcome {
  verdict: OverallVerdict;
  /**
   * The runs to add before looking again, planned by the comparison for an inconclusive verdict and for
   * an "error" one whose excluded runs more runs can replace (exclude and replace within
   * repeats.max); null when no more looks are allowed or would help.
   */
  nextLook: VerdictFile["nextLook"];
}

/** What the loop reports, for the log (declared and rendered by report/status.ts). */
export type { LoopEvent };

export interface AdaptiveRepeats<Outcome extends LookOutcome> {
  /** Compares what was measured so far. */
  look(): Promise<Outcome>;
  /** Runs the step (both sides alternately in interleaved mode, the candidate alone in stored mode). */
  measure(step: MeasureStep): Promise<void>;
  /** The fewest runs measured of these cells (null: every cell) on the candidate side, as counted on disk. */
  runsMeasured(cells: string[] | null): Promise<number>;
  /** The cells measured when a look names none (null: every cell). */
  cells: string[] | null;
  /** Runs per side never exceeded (the action's max-runs; compare itself stops asking at repeats.max). */
  maxRuns: number;
  onEvent?(event: LoopEvent): void;
  /** An interrupt: after a step it stopped, no more looks are taken. */
  stopped?(): boolean;
}

export interface AdaptiveResult<Outcome> {
  /** The last look's outcome (when stopped by an interrupt: of the runs measured before the last step). */
  outcome: Outcome;
  stoppedBecause: "decided" | "max-runs" | "no-progress" | "aborted";
}

/** The smallest run count among the given cells (all cells when null). */
export function fewestRuns(counts: ReadonlyMap<string, number>, cells: readonly string[] | null): number {
  const relevant = cells ? cells.map((cell) => counts.get(cell) ?? 0) : [...counts.values()];
  return relevant.length === 0 ? 0 : Math.min(...relevant);
}

/** A bound on looks that only guards against a comparison that never stops asking. */
const maxLooks = 100;

/**
 * Looks, then adds runs while the comparison asks for a next look (it asks only while the verdict is
 * inconclusive, or "error" with runs it can replace): per
 * side as many as its larger request (candidate or baseline runs), counted from the fewest runs the
 * looked-at cells have, to the cells it names, never beyond `maxRuns`. Stops when a step added no run
 * to those cells.
 */
export async function addRunsUntilDecided<Outcome extends LookOutcome>(
  loop: AdaptiveRepeats<Outcome>,
): Promise<AdaptiveResult<Outcome>> {
  let outcome = await loop.look();
  for (let look = 0; look < maxLooks && outcome.nextLook; look++) {
    const next = outcome.nextLook;
    const cells = next.cells.length > 0 ? next.cells : loop.cells;
    const have = await loop.runsMeasured(cells);
    const add = Math.min(Math.max(next.addCandidateRuns, next.addBaselineRuns), loop.maxRuns - have);
    if (add <= 0) {
      loop.onEvent?.({ kind: "max-runs", runs: have, maxRuns: loop.maxRuns });
      return { outcome, stoppedBecause: "max-runs" };
    }
    loop.onEvent?.({ kind: "adding", reason: next.reason, runs: add, cells });
    await loop.measure({ firstRun: have, runs: add, cells });
    if (loop.stopped?.()) return { outcome, stoppedBecause: "aborted" };
    // A step that added no run leaves the comparison as it was: looking again would ask for the same
    // runs, up to maxLooks times, each look a full compare and report for nothing.
    if ((await loop.runsMeasured(cells)) <= have) {
      loop.onEvent?.({ kind: "no-progress", runs: have, cells });
      return { outcome, stoppedBecause: "no-progress" };
    }
    outcome = await loop.look();
  }
  return { outcome, stoppedBecause: "decided" };
}

/**
 * The step's runs of every side in alternating order, in groups of `runsPerBlock` runs per side (A B,
 * B A, ...; see alternatingBlocks): consecutive runs of one side are one `measureBlock` call, so one
 * server start per cell, ⌈R / k⌉ + 1 starts per cell for R runs per side; with an alternation that
 * gives every group a start of its own, each group is a call (2⌈R / k⌉ starts). Stops between blocks
 * when `stopped` says so.
 */
export async function measureAlternately<Side>(
  sides: readonly Side[],
  step: MeasureStep,
  runsPerBlock: number | Alternation,
  measureBlock: (side: Side, block: MeasureStep) => Promise<void>,
  stopped?: () => boolean,
): Promise<void> {
  for (const block of alternatingBlocks(step.firstRun, step.runs, sides, runsPerBlock)) {
    if (stopped?.()) return;
    await measureBlock(block.side, { firstRun: block.firstRun, runs: block.runs, cells: step.cells });
  }
}
