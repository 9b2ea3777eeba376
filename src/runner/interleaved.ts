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

/**
 * Measures the sides alternately (A B, then B A, ...) so that slow drift of the machine (temperature,
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
  while (completed < target) {
    if (options.shouldAbort?.() || options.signal?.aborted)
      return { runsPerSide: completed, runs, stoppedBecause: "aborted" };
    for (const side of alternatingOrder(completed, options.sides)) {
      options.progress?.message(
        `${side.name}: run ${completed + 1} of ${target} (at most ${options.maxRuns})`,
      );
      const result = await runCells({
        config: side.config,
        provider: side.provider,
        outDir: side.outDir,
        baseDir: side.baseDir,
        runs: 1,
        firstRun: completed,
        side: side.name,
        ...(options.cells ? { cells: options.cells } : {}),
        ...(options.progress ? { progress: options.progress } : {}),
        ...(options.shouldAbort ? { shouldAbort: options.shouldAbort } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.calibrate === undefined ? {} : { calibrate: options.calibrate }),
      });
      runs.push(...result.runs.map((run) => ({ ...run, side: side.name })));
    }
    if (options.shouldAbort?.() || options.signal?.aborted)
      return { runsPerSide: completed, runs, stoppedBecause: "aborted" };
    completed++;
    if (completed < target) continue;
    if (completed >= options.maxRuns) return { runsPerSide: completed, runs, stoppedBecause: "max-runs" };
    const wanted = await options.decide(completed);
    if (wanted === null) return { runsPerSide: completed, runs, stoppedBecause: "decided" };
    target = Math.min(Math.max(wanted, completed + 1), options.maxRuns);
  }
  return { runsPerSide: completed, runs, stoppedBecause: "decided" };
}
