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
