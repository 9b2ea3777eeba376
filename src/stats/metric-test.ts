import { normalQuantile } from "./distributions.js";
import { interval, pAbove, pBelow, summarize, type WelchResult, welch } from "./welch.js";

function variance(values: readonly number[]): number {
  return summarize(values).variance;
}

/**
 * The per-metric comparison of statistics.md §0 on the log scale, oriented so that a positive
 * difference is always "worse" (latency up, throughput down).
 */
export interface LogRatioTest {
  /** exp(mean ln candidate − mean ln baseline): candidate / baseline, in the metric's own direction. */
  ratio: number;
  /** ln-scale difference oriented so that + is worse. */
  worse: number;
  standardError: number;
  df: number;
  /** One-sided p, H0: not worse (worse <= 0). */
  pWorse: number;
  /** One-sided p, H0: not better (worse >= 0). */
  pBetter: number;
  /** One-sided p, H0: worse by at least the tolerance (worse >= d); small means non-inferior. */
  pWithinTolerance: number;
  /** Two-sided two-sided ratio interval for the chosen per-side level, in the metric's direction. */
  ratioInterval: [number, number];
  /** Interval of `worse` at the same level. */
  worseInterval: [number, number];
  /** Sample variances of the per-run logs, for projecting how more runs would narrow the interval. */
  baselineVariance: number;
  candidateVariance: number;
}

export interface LogRatioOptions {
  higherIsBetter: boolean;
  /** Relative tolerance δ; the margin is d = ln(1 + δ). */
  tolerance: number;
  /** Per-side level of the displayed interval (0.05 → 90% two-sided). */
  alphaEachSide: number;
  extraVariance?: number;
}

export function logRatioTest(
  baseline: readonly number[],
  candidate: readonly number[],
  options: LogRatioOptions,
): LogRatioTest {
  const lb = baseline.map(Math.log);
  const lc = candidate.map(Math.log);
  const raw = welch(lb, lc, { extraVariance: options.extraVariance ?? 0 });
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
    pWithinTolerance: pBelow(oriented, margin),
    ratioInterval: [Math.exp(lo), Math.exp(hi)],
    worseInterval: [wLo, wHi],
    baselineVariance: variance(lb),
    candidateVariance: variance(lc),
  };
}

export type MetricVerdict = "regression" | "improvement" | "no-change" | "inconclusive";

export interface ClassifyInput {
  /** Oriented ln difference (+ = worse). */
  worse: number;
  tolerance: number;
  /** Multiplicity-adjusted one-sided p values. */
  pWorseAdjusted: number;
  pBetterAdjusted: number;
  /** Non-inferiority p; not adjusted: a pass needs every metric within tolerance (intersection-union). */
  pWithinTolerance: number;
  /** Level for regression and improvement (per look). */
  alpha: number;
  /** Level of the non-inferiority bound (defaults to alpha). */
  passAlpha?: number;
}

/**
 * statistics.md §0: regression = significantly worse and beyond tolerance; improvement = the mirror;
 * no-change = the upper bound is within tolerance; otherwise inconclusive (more runs needed).
 */
export function classify(input: ClassifyInput): MetricVerdict {
  const margin = Math.log(1 + input.tolerance);
  if (input.pWorseAdjusted <= input.alpha && input.worse > margin) return "regression";
  if (input.pBetterAdjusted <= input.alpha && input.worse < -margin) return "improvement";
  if (input.pWithinTolerance <= (input.passAlpha ?? input.alpha)) return "no-change";
  return "inconclusive";
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
  /** Strictest level the regression test could face (α per look / family size). */
  regressionAlpha: number;
  passAlpha: number;
}

/**
 * Futility check for adaptive repeats: with the current estimates, could the added runs make this
 * metric decisive? A stored baseline's drift term does not shrink with runs, so often they cannot.
 */
export function resolvableWithMoreRuns(input: ResolvableInput): boolean {
  const se = Math.sqrt(
    input.baselineVariance / input.baselineRuns +
      input.candidateVariance / input.candidateRuns +
      input.extraVariance,
  );
  const margin = Math.log(1 + input.tolerance);
  const canPass = input.worse + normalQuantile(1 - input.passAlpha) * se < margin;
  const canBlock = input.worse > margin && input.worse - normalQuantile(1 - input.regressionAlpha) * se > 0;
  return canPass || canBlock;
}
