import { type Alternation, alternationOf } from "../config/alternation.js";

/**
 * The A/B schedule of interleaved runs: which side runs when, and which consecutive runs of a side share
 * a server start. The use cases measure by it (src/app/adaptive.ts measureAlternately), and bench:gate.
 */

/**
 * The order of the sides in pair k: A B, then B A, ... Each pair flips the order so that slow drift of the
 * machine (temperature, clocks, neighbours) falls on both sides equally instead of on the later one.
 */
export function alternatingOrder<Side>(pair: number, sides: readonly Side[]): readonly Side[] {
  return pair % 2 === 0 ? sides : [...sides].reverse();
}

/** Consecutive runs of one side, measured on one server start (per-cell lifecycle). */
export interface SideBlock<Side> {
  side: Side;
  firstRun: number;
  runs: number;
}

/**
 * The runs firstRun .. firstRun + runs − 1 of every side in alternating order, with consecutive runs of
 * the same side merged into one block. The alternation is in groups of `runsPerBlock` runs per side,
 * group g in the order of pair g (A B, then B A, ...): with 1, A B | B A | A B gives A, BB, AA, B; with
 * 5 and 20 runs, A5 B10 A10 B10 A5. Each block is one server start per cell, so R runs per side cost
 * ⌈R / k⌉ + 1 starts per cell (R + 1 with k = 1) instead of 2R, and every two groups stay balanced
 * against linear drift (A B B A). A group cut by `firstRun` or the end is measured in the same order.
 * With an alternation whose `startEachGroup` is set, the groups are not merged: every group of a side is
 * a block (a start) of its own, in the same order of runs (2⌈R / k⌉ blocks; 2R with k = 1).
 */
export function alternatingBlocks<Side>(
  firstRun: number,
  runs: number,
  sides: readonly Side[],
  runsPerBlock: number | Alternation = 1,
): SideBlock<Side>[] {
  const alternation = alternationOf(runsPerBlock);
  const k = Math.max(1, Math.floor(alternation.runsPerGroup));
  const end = firstRun + runs;
  const blocks: SideBlock<Side>[] = [];
  for (let group = Math.floor(firstRun / k); group * k < end; group++) {
    const from = Math.max(group * k, firstRun);
    const to = Math.min((group + 1) * k, end);
    for (const side of alternatingOrder(group, sides)) {
      const last = blocks.at(-1);
      const merge = !alternation.startEachGroup && last?.side === side && last.firstRun + last.runs === from;
      if (merge) last.runs += to - from;
      else blocks.push({ side, firstRun: from, runs: to - from });
    }
  }
  return blocks;
}
