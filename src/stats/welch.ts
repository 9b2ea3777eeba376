import { studentTCdf, studentTQuantile } from "./distributions.js";
import { twoLevelWelch, type WelchResult } from "./two-level.js";

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
   * baseline's own: ((n−1)·s² + df·variance) / (n − 1 + df), the prior a mean square of its own in
   * Satterthwaite's degrees of freedom; a prior the baseline's runs contradict is widened (two-level.ts).
   */
  baselineVariancePrior?: { variance: number; df: number };
}

/**
 * Welch's unequal-variance t for candidate minus baseline: the two-level test (stats/two-level.ts) with
 * every run its own start. With extraVariance the Satterthwaite df gets only the estimated components in
 * its denominator.
 */
export function welch(
  baseline: readonly number[],
  candidate: readonly number[],
  options: WelchOptions = {},
): WelchResult {
  const { difference, standardError, df, t } = twoLevelWelch(
    { values: baseline },
    { values: candidate },
    {
      ...(options.extraVariance !== undefined ? { extraVariance: options.extraVariance } : {}),
      ...(options.varianceFloor !== undefined ? { varianceFloor: options.varianceFloor } : {}),
      ...(options.baselineVariancePrior ? { baselineVariancePrior: options.baselineVariancePrior } : {}),
    },
  );
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
