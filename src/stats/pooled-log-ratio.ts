import type { WelchResult } from "./two-level.js";

/**
 * The combined statistic of one metric across the cells of a workload family: the mean of the cells'
 * log ratios (the log of the geometric mean of their ratios candidate / baseline), oriented so that +
 * is worse, with its standard error and Satterthwaite degrees of freedom. The cells weigh equally, so
 * the estimand is fixed before the data are seen ("the family's average change"), not tilted towards
 * the cells whose runs happened to agree.
 *
 * Each cell brings its Welch test on per-run logs (welch.ts): the estimate, its standard error, its
 * degrees of freedom and the part of its variance that more runs cannot shrink (a stored baseline's
 * session drift). The cells' run-level noise is independent (different runs), so those parts add with
 * weight 1/n²; the drift is one session shift shared by the cells of a job, so it is taken as fully
 * correlated across them: its sds add before squaring, which never understates the variance of the mean.
 * The degrees of freedom are Satterthwaite's over every estimated variance component of every cell
 * (each cell's own Welch denominator, scaled), the drift treated as known as in welch.ts.
 */
export interface LogRatioComponent {
  /** Oriented ln-scale difference of the cell (+ is worse). */
  worse: number;
  standardError: number;
  /** Welch-Satterthwaite degrees of freedom of the cell's test (Infinity when no variance was estimated). */
  df: number;
  /** Variance in standardError² that is not estimated from these runs (session drift); 0 when none. */
  extraVariance: number;
}

export function pooledLogRatio(components: readonly LogRatioComponent[]): WelchResult {
  const n = components.length;
  if (n === 0) throw new RangeError("pooledLogRatio needs at least one cell");
  let worse = 0;
  let estimated = 0;
  let denominator = 0;
  let sharedSd = 0;
  for (const c of components) {
    const total = c.standardError * c.standardError;
    worse += c.worse / n;
    estimated += Math.max(0, total - c.extraVariance) / (n * n);
    // The cell's Satterthwaite denominator is total² / df (welch.ts); scaling its components by 1/n²
    // scales it by 1/n⁴.
    if (total > 0 && c.df > 0) denominator += (total * total) / c.df / (n * n * n * n);
    sharedSd += Math.sqrt(Math.max(0, c.extraVariance)) / n;
  }
  const variance = estimated + sharedSd * sharedSd;
  const standardError = Math.sqrt(variance);
  const df = denominator > 0 ? (variance * variance) / denominator : Number.POSITIVE_INFINITY;
  const t =
    standardError > 0 ? worse / standardError : worse === 0 ? 0 : Math.sign(worse) * Number.POSITIVE_INFINITY;
  return { difference: worse, standardError, df, t };
}
