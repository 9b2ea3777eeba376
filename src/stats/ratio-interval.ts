import { logRatioTest } from "./metric-test.js";
import type { StartVariancePrior } from "./two-level.js";

/** A change as a ratio candidate / baseline with its interval. */
export interface RatioInterval {
  /** exp(mean ln candidate − mean ln baseline): the ratio of the geometric means. */
  ratio: number;
  /** Two-sided (1 − 2·alphaEachSide) interval of the ratio. */
  interval: [number, number];
}

export interface RatioIntervalOptions {
  /** Per-side level of the interval (0.05 → 90% two-sided). */
  alphaEachSide: number;
  /** Smallest run-to-run sd of the logs believed (gate.min_run_sd). */
  minRunSd?: number;
  /** Variance more runs cannot shrink (a stored baseline's session drift). */
  extraVariance?: number;
  /** The server start of each value's run, per side (absent: every run its own start). */
  starts?: { baseline: readonly string[]; candidate: readonly string[] };
  /** The start-to-start variance believed before these runs. */
  startPrior?: StartVariancePrior;
}

/**
 * The plain interval of candidate / baseline from per-run values, by the machinery compare judges a
 * metric with (stats/metric-test.ts: the per-run logs at both levels, runs and server starts, the run sd
 * floored, the drift added):
 * one place, so a change to the variance model reaches every interval built on it. At least 2 values
 * per side, all positive.
 */
export function logRatioInterval(
  baseline: readonly number[],
  candidate: readonly number[],
  options: RatioIntervalOptions,
): RatioInterval {
  const test = logRatioTest(baseline, candidate, {
    higherIsBetter: false,
    tolerance: 0,
    alphaEachSide: options.alphaEachSide,
    extraVariance: options.extraVariance ?? 0,
    minRunSd: options.minRunSd ?? 0,
    ...(options.starts ? { starts: options.starts } : {}),
    ...(options.startPrior ? { startPrior: options.startPrior } : {}),
  });
  return { ratio: test.ratio, interval: test.ratioInterval };
}
