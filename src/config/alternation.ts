/**
 * How the runs of the two sides of an interleaved comparison alternate and fall into server starts
 * (repeats.block, docs/compare.md "Server starts"): groups of `runsPerGroup` runs per side in the order
 * A B, then B A, ...; consecutive groups of one side share one start (A, BB, AA, B), or with
 * `startEachGroup` every group has a start of its own (A, B, B, A, A, B: with groups of one run, every
 * run its own start, so the start-to-start noise is inside the runs' own spread).
 */
export interface Alternation {
  runsPerGroup: number;
  startEachGroup: boolean;
}

/** An alternation from a number of runs per group (consecutive groups of a side sharing a start), or itself. */
export function alternationOf(block: number | Alternation): Alternation {
  return typeof block === "number" ? { runsPerGroup: block, startEachGroup: false } : block;
}

/**
 * The schedule `calibrate` measures in: the interleaved gate's, except that a start per group becomes
 * shared starts (a side's consecutive groups on one start). A calibration must see both levels (the
 * start level from its starts' means, the run level within them): a calibration of runs on their own
 * starts cannot tell them apart, and its runs' whole spread, taken as the per-run prior at all its
 * degrees of freedom, outweighs what a few runs of a pull request can contradict.
 */
export function calibrationAlternation(alternation: Alternation): Alternation {
  return { runsPerGroup: alternation.runsPerGroup, startEachGroup: false };
}

/**
 * The repeats.block that measures an alternation (the inverse of config/summary.ts `alternation` for
 * a number or "fresh"): its runs per group, or "fresh" for every run of a side on a start of its own.
 * Groups of several runs each on a start of their own have no repeats.block.
 */
export function repeatsBlockOf(alternation: Alternation): number | "fresh" {
  if (!alternation.startEachGroup) return alternation.runsPerGroup;
  if (alternation.runsPerGroup === 1) return "fresh";
  throw new RangeError(
    `repeats.block: groups of ${alternation.runsPerGroup} runs each on a start of its own cannot be declared (a number shares starts, "fresh" is one run a start)`,
  );
}

/** How a side's runs fall into server starts, in words: "in starts of 5", "each run on a start of its own". */
export function alternationWords(alternation: Alternation): string {
  const k = alternation.runsPerGroup;
  if (!alternation.startEachGroup) return `in starts of ${k}`;
  return k === 1 ? "each run on a start of its own" : `in groups of ${k}, each on a start of its own`;
}
