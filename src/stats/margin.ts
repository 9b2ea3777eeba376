/**
 * The log scale the gate's statistics work on, and the tolerance margin on it. A relative change c
 * (0.05: 5% higher) is the log ratio ln(1 + c); a log ratio x is the relative change exp(x) − 1. The
 * tests compare the worse-side log ratio of a check with its margin ln(1 + tolerance): beyond it is a
 * regression, within it a pass (docs/compare.md). log1p and expm1 keep small changes exact.
 */

/** A relative change (0.05 = +5%, -0.05 = −5%) as a log ratio: ln(1 + change). */
export function logRatioOf(change: number): number {
  return Math.log1p(change);
}

/** A log ratio as a relative change: exp(logRatio) − 1 (ln 1.05 → 0.05). */
export function relativeChangeOf(logRatio: number): number {
  return Math.expm1(logRatio);
}

/** The tolerance margin: a check's relative tolerance (gate.tolerance, 0.05 = 5%) on the log scale. */
export function toleranceMargin(tolerance: number): number {
  return logRatioOf(tolerance);
}
