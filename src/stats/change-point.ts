import { studentTQuantile, studentTSurvival } from "./distributions.js";

/**
 * Change points in a series of baseline sessions (one point per merged commit: the mean of the session's
 * ln per-run values), by best-split t-tests with binary segmentation:
 *
 * 1. For every split of the window into a left part [0, k) and a right part [k, n), each at least
 *    `minSegment` points, the two-sample t statistic of the means, with the variance pooled over both
 *    parts (a step moves the level, not the noise; Welch's per-part variance would leave a 4-point part
 *    with about 3 degrees of freedom and no power at the moment a step is fresh).
 * 2. The split with the largest |t| is tested against a strict threshold: its two-sided p times the
 *    number of splits tried (Bonferroni over the splits, so the chance that noise alone yields a change
 *    point somewhere in the window is at most `alpha`), and the step must be at least `minMagnitude` on
 *    the ratio scale (a significant 0.3% step on a quiet runner is not news).
 *    The medians of the two parts must differ by `minMagnitude` too, the same way: a single outlier
 *    session drags a part's mean but not its median.
 * 3. When a split passes, both parts are searched again the same way (binary segmentation), so a window
 *    with two steps reports both. A short bump that comes back down (up for 15 commits, then back)
 *    can hide from the first split of a wide window; on a base branch the detector runs after every
 *    commit, so the step up is found while the window still ends inside the bump.
 *
 * Why not E-divisive means (Hunter/Otava): with one point per commit and steps in the mean as the thing
 * to find, the t statistic is the better-powered statistic for a mean shift, its null distribution is
 * known (no permutations, so the result is deterministic and cheap), and the magnitude is reported with a
 * t interval directly. E-divisive's advantage, distribution changes other than the mean, is not what a
 * latency gate looks for. `npm run bench:history` measures detection, lateness and false alarms.
 */

export interface ChangePointOptions {
  /** Chance that noise alone yields a change point in one window (Bonferroni over the splits). */
  alpha: number;
  /** Smallest step reported, as a fraction of the level (0.03 = 3%). */
  minMagnitude: number;
  /** Fewest points on each side of a split. */
  minSegment: number;
  /** Confidence of the step's interval. */
  confidence: number;
  /** Most change points reported per window (binary segmentation depth guard). */
  maxChangePoints: number;
}

export const defaultChangePointOptions: Readonly<ChangePointOptions> = Object.freeze({
  alpha: 0.001,
  minMagnitude: 0.03,
  minSegment: 4,
  confidence: 0.95,
  maxChangePoints: 5,
});

export interface ChangePoint {
  /** Index of the first point after the step (the step happened between index - 1 and index). */
  index: number;
  /** exp(mean right - mean left): 1.1 = the level went up 10%. */
  ratio: number;
  /** The ratio's interval at `confidence` (pooled t, conditional on the split found). */
  ratioLow: number;
  ratioHigh: number;
  t: number;
  /** Bonferroni-adjusted p of the best split. */
  p: number;
  /** Points in the segments either side, as tested. */
  before: number;
  after: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Split {
  index: number;
  t: number;
  diff: number;
  se: number;
  df: number;
  splits: number;
}

function bestSplit(values: readonly number[], minSegment: number): Split | null {
  const n = values.length;
  if (n < 2 * minSegment) return null;
  // Prefix sums make each split O(1): the whole scan is linear in the window.
  const sum = [0];
  const sumSq = [0];
  for (const v of values) {
    sum.push(sum.at(-1)! + v);
    sumSq.push(sumSq.at(-1)! + v * v);
  }
  let best: Split | null = null;
  const splits = n - 2 * minSegment + 1;
  for (let k = minSegment; k <= n - minSegment; k++) {
    const nl = k;
    const nr = n - k;
    const ml = sum[k]! / nl;
    const mr = (sum[n]! - sum[k]!) / nr;
    const ssl = Math.max(0, sumSq[k]! - nl * ml * ml);
    const ssr = Math.max(0, sumSq[n]! - sumSq[k]! - nr * mr * mr);
    const df = n - 2;
    const pooled = (ssl + ssr) / df;
    const se = Math.sqrt(pooled * (1 / nl + 1 / nr));
    const diff = mr - ml;
    const t = se > 0 ? diff / se : diff === 0 ? 0 : Math.sign(diff) * Number.POSITIVE_INFINITY;
    if (!best || Math.abs(t) > Math.abs(best.t)) best = { index: k, t, diff, se, df, splits };
  }
  return best;
}

/** The change points of one series (ln scale, oldest first), in index order. Pure. */
export function detectChangePoints(
  values: readonly number[],
  options: Partial<ChangePointOptions> = {},
): ChangePoint[] {
  const settings = { ...defaultChangePointOptions, ...options };
  const found: ChangePoint[] = [];
  const search = (from: number, to: number) => {
    if (found.length >= settings.maxChangePoints) return;
    const segment = values.slice(from, to);
    const split = bestSplit(segment, settings.minSegment);
    if (!split || !Number.isFinite(split.diff)) return;
    const rawP = Number.isFinite(split.t) ? 2 * studentTSurvival(Math.abs(split.t), split.df) : 0;
    const p = Math.min(1, rawP * split.splits);
    if (p > settings.alpha || Math.abs(Math.expm1(split.diff)) < settings.minMagnitude) return;
    // The medians of the parts must have moved as far, the same way: one outlier session at the end of
    // the window drags a part's mean, not its median (the false change point Otava's review met).
    const medianShift = median(segment.slice(split.index)) - median(segment.slice(0, split.index));
    if (
      Math.sign(medianShift) !== Math.sign(split.diff) ||
      Math.abs(Math.expm1(medianShift)) < settings.minMagnitude
    )
      return;
    const q = studentTQuantile(1 - (1 - settings.confidence) / 2, split.df);
    found.push({
      index: from + split.index,
      ratio: Math.exp(split.diff),
      ratioLow: Math.exp(split.diff - q * split.se),
      ratioHigh: Math.exp(split.diff + q * split.se),
      t: split.t,
      p,
      before: split.index,
      after: segment.length - split.index,
    });
    search(from, from + split.index);
    search(from + split.index, to);
  };
  search(0, values.length);
  return found.sort((a, b) => a.index - b.index);
}

/** A shift of level between two groups of points, with its interval (pooled t): main's latest level. */
export interface LevelShift {
  ratio: number;
  ratioLow: number;
  ratioHigh: number;
}

export function levelShift(
  before: readonly number[],
  after: readonly number[],
  confidence = 0.95,
): LevelShift | null {
  if (before.length < 1 || after.length < 1 || before.length + after.length < 3) return null;
  const mean = (xs: readonly number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
  const ml = mean(before);
  const mr = mean(after);
  const ss = (xs: readonly number[], m: number) => xs.reduce((s, v) => s + (v - m) ** 2, 0);
  const df = before.length + after.length - 2;
  const se = Math.sqrt(((ss(before, ml) + ss(after, mr)) / df) * (1 / before.length + 1 / after.length));
  const q = studentTQuantile(1 - (1 - confidence) / 2, df);
  const diff = mr - ml;
  return { ratio: Math.exp(diff), ratioLow: Math.exp(diff - q * se), ratioHigh: Math.exp(diff + q * se) };
}
