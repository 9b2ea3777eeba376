import { normalQuantile, studentTQuantile } from "./distributions.js";
import {
  type RunVariancePrior,
  type StartVariancePrior,
  startWeightFor,
  type TwoLevelResult,
  twoLevelWelch,
  type WelchResult,
} from "./two-level.js";
import { interval, pAbove, pBelow } from "./welch.js";

/**
 * The per-metric comparison of statistics.md §0 on the log scale, oriented so that a positive
 * difference is always "worse" (latency up, throughput down).
 *
 * The tolerance means what users read: the regression test is against the margin (H0: worse <= d,
 * d = ln(1 + tolerance)), so a true change at or inside the tolerance is blocked with probability at
 * most the test's level. Improvement mirrors it (H0: worse >= −d). "Within tolerance" is
 * non-inferiority (H0: worse >= d rejected).
 */
export interface LogRatioTest {
  /** exp(mean ln candidate − mean ln baseline): candidate / baseline, in the metric's own direction. */
  ratio: number;
  /** ln-scale difference oriented so that + is worse. */
  worse: number;
  standardError: number;
  df: number;
  /** One-sided p, H0: not worse (worse <= 0): "did it move at all". */
  pWorse: number;
  /** One-sided p, H0: not better (worse >= 0). */
  pBetter: number;
  /** One-sided p, H0: worse <= d (at most the tolerance worse): the regression test. */
  pBeyondTolerance: number;
  /** One-sided p, H0: worse >= −d (at most the tolerance better): the improvement test. */
  pBetterBeyondTolerance: number;
  /** One-sided p, H0: worse by at least the tolerance (worse >= d); small means within tolerance. */
  pWithinTolerance: number;
  /** Two-sided ratio interval for the chosen per-side level, in the metric's direction. */
  ratioInterval: [number, number];
  /** Interval of `worse` at the same level. */
  worseInterval: [number, number];
  /** Sample variances of the per-run logs (after the floor), for projecting how more runs narrow it. */
  baselineVariance: number;
  candidateVariance: number;
  /** True when a side's run-to-run variance was below the floor and the floor was used instead. */
  floored: boolean;
  /** Both levels of the noise (stats/two-level.ts): starts per side, the start variance used and its parts. */
  levels: TwoLevelResult;
}

export interface LogRatioOptions {
  higherIsBetter: boolean;
  /** Relative tolerance δ; the margin is d = ln(1 + δ). */
  tolerance: number;
  /** Per-side level of the displayed interval (0.05 → 90% two-sided). */
  alphaEachSide: number;
  extraVariance?: number;
  /**
   * Smallest run-to-run sd of ln(metric) believed (gate.min_run_sd): identical runs (a deterministic
   * simulator) would otherwise read as infinite certainty.
   */
  minRunSd?: number;
  /** The baseline's run-to-run variance of ln(metric) pooled over main's earlier sessions (welch.ts). */
  baselineVariancePrior?: { variance: number; df: number };
  /**
   * The server start each run was measured on, per side (same order as the values); absent: every run
   * its own start (plain Welch on the runs).
   */
  starts?: { baseline: readonly string[]; candidate: readonly string[] };
  /** The start-to-start variance of ln(metric) believed before these runs (stats/two-level.ts). */
  startPrior?: StartVariancePrior;
  /** The run-to-run variance of ln(metric) believed for both sides (a calibration; stats/two-level.ts). */
  runPrior?: RunVariancePrior;
}

export function logRatioTest(
  baseline: readonly number[],
  candidate: readonly number[],
  options: LogRatioOptions,
): LogRatioTest {
  const lb = baseline.map(Math.log);
  const lc = candidate.map(Math.log);
  const floor = (options.minRunSd ?? 0) ** 2;
  const levels = twoLevelWelch(
    { values: lb, ...(options.starts ? { starts: options.starts.baseline } : {}) },
    { values: lc, ...(options.starts ? { starts: options.starts.candidate } : {}) },
    {
      extraVariance: options.extraVariance ?? 0,
      varianceFloor: floor,
      ...(options.startPrior ? { startPrior: options.startPrior } : {}),
      ...(options.baselineVariancePrior ? { baselineVariancePrior: options.baselineVariancePrior } : {}),
      ...(options.runPrior ? { runPrior: options.runPrior } : {}),
    },
  );
  const raw: WelchResult = {
    difference: levels.difference,
    standardError: levels.standardError,
    df: levels.df,
    t: levels.t,
  };
  const sign = options.higherIsBetter ? -1 : 1;
  const oriented: WelchResult = { ...raw, difference: sign * raw.difference, t: sign * raw.t };
  const margin = Math.log(1 + options.tolerance);
  const [lo, hi] = interval(raw, options.alphaEachSide);
  // The oriented interval is the raw one, mirrored for higher-is-better metrics.
  const [wLo, wHi] = sign > 0 ? [lo, hi] : [-hi, -lo];
  return {
    ratio: Math.exp(raw.difference),
    worse: oriented.difference,
    standardError: raw.standardError,
    df: raw.df,
    pWorse: pAbove(oriented, 0),
    pBetter: pBelow(oriented, 0),
    pBeyondTolerance: pAbove(oriented, margin),
    pBetterBeyondTolerance: pBelow(oriented, -margin),
    pWithinTolerance: pBelow(oriented, margin),
    ratioInterval: [Math.exp(lo), Math.exp(hi)],
    worseInterval: [wLo, wHi],
    baselineVariance: levels.baseline.runVariance,
    candidateVariance: levels.candidate.runVariance,
    floored: levels.baseline.floored || levels.candidate.floored,
    levels,
  };
}

/** One-sided bound of the oriented difference at level `alpha` (lower: worse − t·se; upper: +). */
export function worseBound(
  test: Pick<LogRatioTest, "worse" | "standardError" | "df">,
  alpha: number,
  side: "lower" | "upper",
): number {
  if (test.standardError === 0) return test.worse;
  const a = Math.min(0.5, Math.max(alpha, 1e-300));
  const q = studentTQuantile(1 - a, test.df);
  return side === "lower" ? test.worse - q * test.standardError : test.worse + q * test.standardError;
}

export type MetricVerdict = "regression" | "improvement" | "within-tolerance" | "inconclusive";

export interface ClassifyInput {
  /** Multiplicity-adjusted one-sided p of H0: worse <= d (regression test against the margin). */
  pBeyondToleranceAdjusted: number;
  /** Multiplicity-adjusted one-sided p of H0: worse >= −d (improvement test against the margin). */
  pBetterBeyondToleranceAdjusted: number;
  /** Non-inferiority p; not adjusted: a pass needs every metric within tolerance (intersection-union). */
  pWithinTolerance: number;
  /** Level for regression and improvement (per look). */
  alpha: number;
  /** Level of the non-inferiority bound (defaults to alpha). */
  passAlpha?: number;
}

/**
 * regression = significantly worse than the tolerance (the lower bound is beyond it); improvement =
 * the mirror; within tolerance = the upper bound is inside the tolerance; otherwise inconclusive.
 */
export function classify(input: ClassifyInput): MetricVerdict {
  if (input.pBeyondToleranceAdjusted <= input.alpha) return "regression";
  if (input.pBetterBeyondToleranceAdjusted <= input.alpha) return "improvement";
  if (input.pWithinTolerance <= (input.passAlpha ?? input.alpha)) return "within-tolerance";
  return "inconclusive";
}

/** Power the run plan is sized for at gate.detect_change (statistics.md §6 target). */
const plannedPower = 0.9;

/**
 * The start level of a projection: σ_s², and how the runs of each side fall into starts (runs per start
 * of the side's future runs; a side that does not grow keeps its current share of σ_s²).
 */
export interface StartProjection {
  startVariance: number;
  runsPerStart: number;
  /**
   * Σn_g²/N² of a side as measured, used instead of the projection: for a side that does not grow (a
   * stored baseline), or for both at the current run counts.
   */
  fixedWeights?: { baseline?: number; candidate?: number };
}

export interface DetectableInput {
  baselineVariance: number;
  candidateVariance: number;
  baselineRuns: number;
  candidateRuns: number;
  extraVariance: number;
  start?: StartProjection;
  tolerance: number;
  /** One-sided level the regression test faces (per look and Holm's strictest step). */
  alpha: number;
  power?: number;
}

function standardErrorAt(input: {
  baselineVariance: number;
  candidateVariance: number;
  baselineRuns: number;
  candidateRuns: number;
  extraVariance: number;
  start?: StartProjection;
}): number {
  return Math.sqrt(
    input.baselineVariance / input.baselineRuns +
      input.candidateVariance / input.candidateRuns +
      input.extraVariance +
      startPartAt(input),
  );
}

/** The start level's part of the variance of the difference at these run counts (stats/two-level.ts). */
function startPartAt(input: {
  baselineRuns: number;
  candidateRuns: number;
  start?: StartProjection;
}): number {
  const start = input.start;
  if (!start || start.startVariance <= 0) return 0;
  const baselineWeight =
    start.fixedWeights?.baseline ?? startWeightFor(input.baselineRuns, start.runsPerStart);
  const candidateWeight =
    start.fixedWeights?.candidate ?? startWeightFor(input.candidateRuns, start.runsPerStart);
  return start.startVariance * (baselineWeight + candidateWeight);
}

/**
 * Minimum detectable effect: the smallest true relative worsening that this run count blocks with
 * probability `power` (0.9) at level `alpha`, for a test against the tolerance margin (normal
 * approximation with the t quantile at the Welch df of the current data).
 */
export function minimumDetectableChange(input: DetectableInput & { df?: number }): number {
  const se = standardErrorAt(input);
  const df = input.df ?? Number.POSITIVE_INFINITY;
  const q = studentTQuantile(1 - input.alpha, df) + normalQuantile(input.power ?? plannedPower);
  return Math.exp(Math.log(1 + input.tolerance) + q * se) - 1;
}

export interface ResolvableInput {
  worse: number;
  tolerance: number;
  baselineVariance: number;
  candidateVariance: number;
  /** Runs per side if the remaining runs were added. */
  baselineRuns: number;
  candidateRuns: number;
  extraVariance: number;
  start?: StartProjection;
  /** Strictest level the regression test could face (α per look / family size). */
  regressionAlpha: number;
  passAlpha: number;
}

/**
 * Could this metric become decisive with the given run counts, if the point estimate and run
 * variances stayed as they are? (The futility check of adaptive repeats and the "runs to settle"
 * estimate.)
 */
export function resolvableWithMoreRuns(input: ResolvableInput): boolean {
  const se = standardErrorAt(input);
  const margin = Math.log(1 + input.tolerance);
  const canPass = input.worse + normalQuantile(1 - input.passAlpha) * se < margin;
  const canBlock = input.worse - normalQuantile(1 - input.regressionAlpha) * se > margin;
  return canPass || canBlock;
}

/**
 * Fewest runs per side (from `from` up to `max`) at which resolvableWithMoreRuns holds, or null when
 * even `max` would not settle it. `interleaved`: both sides grow; otherwise only the candidate.
 */
export function runsToSettle(
  input: Omit<ResolvableInput, "baselineRuns" | "candidateRuns">,
  current: { baseline: number; candidate: number },
  max: number,
  interleaved: boolean,
): number | null {
  for (let runs = Math.max(current.candidate, 2); runs <= max; runs++) {
    const ok = resolvableWithMoreRuns({
      ...input,
      baselineRuns: interleaved ? Math.max(runs, current.baseline) : current.baseline,
      candidateRuns: runs,
    });
    if (ok) return runs;
  }
  return null;
}

/**
 * Runs per side (from `from` up to `max`) at which the minimum detectable change reaches `target`
 * (gate.detect_change), or null when `max` runs do not get there (a stored baseline's drift or too
 * wide a run variance). `interleaved`: both sides grow; otherwise the baseline stays as it is.
 */
export function runsToDetect(
  input: Omit<DetectableInput, "baselineRuns" | "candidateRuns"> & { df?: number },
  current: { baseline: number; candidate: number },
  target: number,
  max: number,
  interleaved: boolean,
): number | null {
  for (let runs = Math.max(2, current.candidate); runs <= max; runs++) {
    const mde = minimumDetectableChange({
      ...input,
      baselineRuns: interleaved ? Math.max(runs, current.baseline) : current.baseline,
      candidateRuns: runs,
    });
    if (mde <= target) return runs;
  }
  return null;
}
