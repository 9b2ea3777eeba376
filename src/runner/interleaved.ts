import type { Config } from "../config/schema.js";
import type { ServerProvider } from "../server/types.js";
import type { ProgressSink } from "./progress.js";
import { type RunOutput, runCells } from "./run-cells.js";

/** One side of an A/B comparison measured in the same job. */
export interface SideSpec {
  readonly name: "baseline" | "candidate";
  readonly config: Config;
  readonly provider: ServerProvider;
  /** Results go to outDir/<cell>/run-<k>/. */
  readonly outDir: string;
  /** Relative dataset paths are resolved from here. */
  readonly baseDir: string;
}

export interface AdaptiveRunOptions {
  /** Measured alternately, one run of every selected cell at a time. One side: plain adaptive repeats. */
  readonly sides: readonly SideSpec[];
  readonly cells?: readonly string[];
  readonly minRuns: number;
  readonly maxRuns: number;
  /**
   * Called when every side has the runs asked for so far. Returns the total runs per side still wanted
   * (e.g. compare's next look while the verdict is inconclusive), or null when the data has decided.
   */
  decide(runsPerSide: number): Promise<number | null>;
  readonly progress?: ProgressSink;
  readonly shouldAbort?: () => boolean;
  /** An interrupt: ends the run in progress (marked interrupted, see runCells) and starts no more. */
  readonly signal?: AbortSignal;
  /** Fit prompt lengths with POST /tokenize (default true). */
  readonly calibrate?: boolean;
  /** Runs per side measured back to back on one server start (repeats.block; default 1). */
  readonly runsPerBlock?: number;
}

export interface AdaptiveRunResult {
  runsPerSide: number;
  runs: (RunOutput & { side: SideSpec["name"] })[];
  /** Why measuring stopped. */
  stoppedBecause: "decided" | "max-runs" | "aborted";
}

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
 */
export function alternatingBlocks<Side>(
  firstRun: number,
  runs: number,
  sides: readonly Side[],
  runsPerBlock = 1,
): SideBlock<Side>[] {
  const k = Math.max(1, Math.floor(runsPerBlock));
  const end = firstRun + runs;
  const blocks: SideBlock<Side>[] = [];
  for (let group = Math.floor(firstRun / k); group * k < end; group++) {
    const from = Math.max(group * k, firstRun);
    const to = Math.min((group + 1) * k, end);
    for (const side of alternatingOrder(group, sides)) {
      const last = blocks.at(-1);
      if (last && last.side === side && last.firstRun + last.runs === from) last.runs += to - from;
      else blocks.push({ side, firstRun: from, runs: to - from });
    }
  }
  return blocks;
}

/**
 * Measures the sides alternately (A B, then B A, ..., in groups of `runsPerBlock` runs) so that slow drift of the machine (temperature,
 * clocks, neighbours) falls on both sides equally instead of biasing the later one, and adds runs only
 * while `decide` asks for them, up to `maxRuns`.
 */
export async function runAdaptive(options: AdaptiveRunOptions): Promise<AdaptiveRunResult> {
  if (options.minRuns < 1 || options.maxRuns < options.minRuns) {
    throw new RangeError(`runs: expected 1 <= min (${options.minRuns}) <= max (${options.maxRuns})`);
  }
  const runs: AdaptiveRunResult["runs"] = [];
  let target = options.minRuns;
  let completed = 0;
  /** Per side, the run index its measuring has reached; pairs done = the smallest (for an abort). */
  const measuredUpTo = new Map<SideSpec, number>(options.sides.map((side) => [side, 0]));
  const pairsDone = () => Math.min(...measuredUpTo.values());
  while (completed < target) {
    // Every pair up to the target in one go: consecutive runs of a side share a server start.
    for (const block of alternatingBlocks(
      completed,
      target - completed,
      options.sides,
      options.runsPerBlock,
    )) {
      if (options.shouldAbort?.() || options.signal?.aborted)
        return { runsPerSide: pairsDone(), runs, stoppedBecause: "aborted" };
      const side = block.side;
      const last = block.firstRun + block.runs;
      options.progress?.message(
        `${side.name}: run${block.runs === 1 ? "" : "s"} ${block.firstRun + 1}${block.runs === 1 ? "" : `-${last}`} of ${target} (at most ${options.maxRuns})`,
      );
      const result = await runCells({
        config: side.config,
        provider: side.provider,
        outDir: side.outDir,
        baseDir: side.baseDir,
        runs: block.runs,
        firstRun: block.firstRun,
        side: side.name,
        ...(options.cells ? { cells: options.cells } : {}),
        ...(options.progress ? { progress: options.progress } : {}),
        ...(options.shouldAbort ? { shouldAbort: options.shouldAbort } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.calibrate === undefined ? {} : { calibrate: options.calibrate }),
      });
      runs.push(...result.runs.map((run) => ({ ...run, side: side.name })));
      // Runs of every cell of this block that were measured (fewer when the block was stopped).
      const cellNames = options.cells ?? side.config.cells.map((cell) => cell.name);
      const fewest = Math.min(
        ...cellNames.map((cell) => result.runs.filter((run) => run.cell === cell).length),
      );
      measuredUpTo.set(side, block.firstRun + fewest);
    }
    if (options.shouldAbort?.() || options.signal?.aborted)
      return { runsPerSide: pairsDone(), runs, stoppedBecause: "aborted" };
    completed = target;
    if (completed >= options.maxRuns) return { runsPerSide: completed, runs, stoppedBecause: "max-runs" };
    const wanted = await options.decide(completed);
    if (wanted === null) return { runsPerSide: completed, runs, stoppedBecause: "decided" };
    target = Math.min(Math.max(wanted, completed + 1), options.maxRuns);
  }
  return { runsPerSide: completed, runs, stoppedBecause: "decided" };
}
