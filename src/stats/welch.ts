import { studentTCdf, studentTQuantile } from "./distributions.js";

interface SampleSummary {
  n: number;
  mean: number;
  /** Sample variance (n - 1 denominator); 0 when n < 2. */
  variance: number;
}

function summarize(values: readonly number[]): SampleSummary {
  const n = values.length;
  let mean = 0;
  for (const v of values) mean += v;
  mean /= n;
  let ss = 0;
  for (const v of values) ss += (v - mean) ** 2;
  return { n, mean, variance: n > 1 ? ss / (n - 1) : 0 };
}

export interface WelchOptions {
  /**
   * Variance added to the difference for effects that more runs cannot shrink (session drift of a
   * stored baseline). It is treated as known, so it adds no degrees-of-freedom terms.
   */
  extraVariance?: number;
  /**
   * Smallest per-run variance believed for each side: a side whose runs agree more closely (identical
   * runs of a deterministic simulator) is treated as having this variance, so the test never reads
   * zero spread as infinite certainty.
   */
  varianceFloor?: number;
  /**
   * The baseline's run-to-run variance from earlier sessions (main's history), pooled with this
   * baseline's own: ((n−1)·s² + df·variance) / (n − 1 + df), with n − 1 + df degrees of freedom.
   */
  baselineVariancePrior?: { variance: number; df: number };
}

export interface WelchResult {
  /** ȳ_candidate − ȳ_baseline. */
  difference: number;
  standardError: number;
  df: number;
  t: number;
}

/**
 * Welch's unequal-variance t for candidate minus baseline. With extraVariance the Satterthwaite df
 * gets only the estimated components in its denominator.
 */
export function welch(
  baseline: readonly number[],
  candidate: readonly number[],
  options: WelchOptions = {},
): WelchResult {
  const b = summarize(baseline);
  const c = summarize(candidate);
  if (b.n < 2 || c.n < 2)
    throw new RangeError(`Welch needs at least 2 values per side (got ${b.n} and ${c.n})`);
  const floor = options.varianceFloor ?? 0;
  const prior = options.baselineVariancePrior;
  const pooledDf = prior && prior.df > 0 ? b.n - 1 + prior.df : b.n - 1;
  const baselineVariance =
    prior && prior.df > 0 ? ((b.n - 1) * b.variance + prior.df * prior.variance) / pooledDf : b.variance;
  const vb = Math.max(baselineVariance, floor) / b.n;
  const vc = Math.max(c.variance, floor) / c.n;
  const extra = options.extraVariance ?? 0;
  const variance = vb + vc + extra;
  const difference = c.mean - b.mean;
  const denominator = (vb * vb) / pooledDf + (vc * vc) / (c.n - 1);
  // All-identical runs on both sides (a deterministic simulator) leave no estimated variance.
  const df = denominator > 0 ? (variance * variance) / denominator : Number.POSITIVE_INFINITY;
  const standardError = Math.sqrt(variance);
  const t =
    standardError > 0
      ? difference / standardError
      : difference === 0
        ? 0
        : Math.sign(difference) * Number.POSITIVE_INFINITY;
  return { difference, standardError, df, t };
}

/** One-sided p for H0: difference <= margin (large when the data say "not above the margin"). */
export function pAbove(result: WelchResult, margin = 0): number {
  if (result.standardError === 0) return result.difference > margin ? 0 : 1;
  return 1 - studentTCdf((result.difference - margin) / result.standardError, result.df);
}

/** One-sided p for H0: difference >= margin. */
export function pBelow(result: WelchResult, margin = 0): number {
  if (result.standardError === 0) return result.difference < margin ? 0 : 1;
  return studentTCdf((result.difference - margin) / result.standardError, result.df);
}

export function twoSidedP(result: WelchResult): number {
  return Math.min(1, 2 * Math.min(pAbove(result), pBelow(result)));
}

/** Two-sided (1 − 2·alphaEachSide) interval for the difference. */
export function interval(result: WelchResult, alphaEachSide: number): [number, number] {
  if (result.standardError === 0) return [result.difference, result.difference];
  const q = Number.isFinite(result.df)
    ? studentTQuantile(1 - alphaEachSide, result.df)
    : studentTQuantile(1 - alphaEachSide, Number.POSITIVE_INFINITY);
  return [result.difference - q * result.standardError, result.difference + q * result.standardError];
}
