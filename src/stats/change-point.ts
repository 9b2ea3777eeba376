import { mixSeed, mulberry32 } from "../util/random.js";
import { normalQuantile, studentTQuantile, studentTSurvival } from "./distributions.js";
import { relativeChangeOf } from "./margin.js";
import { hodgesLehmann } from "./rank-tests.js";

/**
 * Change points in a series of baseline sessions (one point per merged commit: the mean of the session's
 * ln per-run values), by a best split with binary segmentation. Two statistics for the split:
 *
 * `rank` (the default): the standardised Mann-Whitney (Wilcoxon rank-sum) statistic of the right part
 * against the left, for every split with at least `minSegment` points a side, the largest |z| taken.
 * Its null distribution does not depend on the noise: under sessions that only vary (any continuous
 * distribution, heavy tails, slow runs), every order of the ranks is equally likely, so the threshold is
 * the exact permutation quantile of the largest |z| for the window's length (simulated once per length
 * with a fixed seed, `nullDraws` permutations, memoised: deterministic and pure). A lone slow session is
 * one point with the top rank: with at least `minSegment` points a side it cannot make a step alone.
 * The step's size is the Hodges-Lehmann shift (the median of the pairwise differences right − left) with
 * its Moses interval, and it must be at least `minMagnitude` on the ratio scale.
 *
 * `t` (the earlier detector, kept for comparison in `npm run bench:history -- --detector t`): the pooled
 * two-sample t of the means, Bonferroni over the splits, the medians of the parts required to move as
 * far; its threshold assumes normal noise, so heavy tails and 1.3x slow runs force it to be strict.
 *
 * When a split passes, both parts are searched again the same way (binary segmentation), so a window
 * with two steps reports both; then every change point is tested again between its neighbours and moved
 * to that segment's best split, and one that fails there is dropped. A short bump that comes back down
 * (up for 15 commits, then back) can hide from the first split of a wide window; on a base branch the
 * detector runs after every commit, so the step up is found while the window still ends inside the bump.
 *
 * Why not E-divisive means (Hunter/Otava): the thing to find is a step in the level, which a two-sample
 * location statistic at the best split targets directly; E-divisive's advantage, distribution changes
 * other than the level, is not what a latency gate looks for, and its permutation test per window is
 * random unless seeded. `npm run bench:history` measures detection, lateness and false alarms.
 */

export interface ChangePointOptions {
  /** `rank` (Mann-Whitney best split, permutation threshold) or `t` (pooled t, Bonferroni). */
  method: "rank" | "t";
  /**
   * Chance that noise alone yields a change point in one window: for `rank` exactly (the permutation
   * null), for `t` a Bonferroni bound under normal noise.
   */
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

/**
 * alpha 0.012 per window: calibrated by `npm run bench:history` (window 60) so that clean series stay
 * inside the goal of at most 1 false alarm per 100 commits per family of 3 metrics, at 0.71 (the detector
 * runs after every commit on overlapping windows, so alarms per commit are far fewer than alpha).
 */
export const defaultChangePointOptions: Readonly<ChangePointOptions> = Object.freeze({
  method: "rank",
  alpha: 0.012,
  minMagnitude: 0.03,
  minSegment: 4,
  confidence: 0.95,
  maxChangePoints: 5,
});

/** The `t` detector's settings as first shipped (alpha 0.001, Bonferroni over the splits). */
export const tChangePointOptions: Readonly<Partial<ChangePointOptions>> = Object.freeze({
  method: "t",
  alpha: 0.001,
});

export interface ChangePoint {
  /** Index of the first point after the step (the step happened between index - 1 and index). */
  index: number;
  /** The step as a ratio (rank: exp of the Hodges-Lehmann shift; t: of the difference of means). */
  ratio: number;
  /** The ratio's interval at `confidence` (conditional on the split found, so somewhat optimistic). */
  ratioLow: number;
  ratioHigh: number;
  /** The best split's statistic: the standardised rank sum z (rank) or t (t). */
  statistic: number;
  /** p of the best split over all splits of the segment (rank: permutation; t: Bonferroni). */
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
  statistic: number;
}

function bestTSplit(
  values: readonly number[],
  minSegment: number,
): (Split & { diff: number; se: number; df: number }) | null {
  const n = values.length;
  if (n < 2 * minSegment) return null;
  // Prefix sums make each split O(1): the whole scan is linear in the window.
  const sum = [0];
  const sumSq = [0];
  for (const v of values) {
    sum.push(sum.at(-1)! + v);
    sumSq.push(sumSq.at(-1)! + v * v);
  }
  let best: (Split & { diff: number; se: number; df: number }) | null = null;
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
    if (!best || Math.abs(t) > Math.abs(best.statistic)) best = { index: k, statistic: t, diff, se, df };
  }
  return best;
}

/** Mid-ranks (1-based) of the values: tied values share the mean of their ranks. */
function midRanks(values: readonly number[]): Float64Array {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const ranks = new Float64Array(values.length);
  let k = 0;
  while (k < order.length) {
    let j = k;
    while (j + 1 < order.length && order[j + 1]!.v === order[k]!.v) j++;
    for (let m = k; m <= j; m++) ranks[order[m]!.i] = (k + j) / 2 + 1;
    k = j + 1;
  }
  return ranks;
}

/**
 * The split with the largest Wilcoxon rank-sum |z| of the right part: (S − nr·r̄) over its permutation sd
 * √(nl·nr / (n(n − 1)) · Σ(r − r̄)²), exact for ties too. (The pooled t of the ranks is a monotone
 * function of it at every split, the ranks' total variance being fixed: the same test.) Ranks cap it:
 * with 10 points after a step in 40 it cannot exceed 4.69 however large the step.
 */
function bestRankSplit(ranks: ArrayLike<number>, minSegment: number): Split | null {
  const n = ranks.length;
  if (n < 2 * minSegment) return null;
  let total = 0;
  for (let i = 0; i < n; i++) total += ranks[i]!;
  const mean = total / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (ranks[i]! - mean) ** 2;
  if (!(ss > 0)) return null;
  let right = 0;
  for (let i = n - minSegment; i < n; i++) right += ranks[i]!;
  let best: Split | null = null;
  // From the split nearest the end backwards, adding one point to the right part each step.
  for (let k = n - minSegment; k >= minSegment; k--) {
    if (k < n - minSegment) right += ranks[k]!;
    const nr = n - k;
    const z = (right - nr * mean) / Math.sqrt(((k * nr) / (n * (n - 1))) * ss);
    if (!best || Math.abs(z) > Math.abs(best.statistic)) best = { index: k, statistic: z };
  }
  return best;
}

/** Permutations drawn for each window length's null distribution of the largest |z|. */
export const nullDraws = 20_000;
const nullCache = new Map<string, Float64Array>();

/**
 * The null distribution of the best split's |z| for `n` points (sorted ascending): `nullDraws` random
 * orders of the scores of the ranks 1..n, from a seed fixed by n and the minimum segment. Memoised.
 */
export function rankSplitNull(n: number, minSegment: number): Float64Array {
  const key = `${n},${minSegment}`;
  let draws = nullCache.get(key);
  if (draws) return draws;
  const random = mulberry32(mixSeed(n, minSegment));
  const values = Float64Array.from({ length: n }, (_, i) => i + 1);
  draws = new Float64Array(nullDraws);
  for (let d = 0; d < nullDraws; d++) {
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      const swap = values[i]!;
      values[i] = values[j]!;
      values[j] = swap;
    }
    draws[d] = Math.abs(bestRankSplit(values, minSegment)!.statistic);
  }
  draws.sort();
  nullCache.set(key, draws);
  return draws;
}

/** Permutation p of an observed best-split |z|: (1 + draws at least as large) / (draws + 1). */
function rankSplitP(n: number, minSegment: number, z: number): number {
  const draws = rankSplitNull(n, minSegment);
  // First draw >= |z| - a hair (float noise between the observed and the permuted sums).
  const target = Math.abs(z) - 1e-9;
  let lo = 0;
  let hi = draws.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (draws[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return (1 + draws.length - lo) / (draws.length + 1);
}

/** Exact Moses intervals while the two sides' product is small; the normal approximation beyond. */
const exactIntervalLimit = 1_000;

function shiftInterval(
  left: readonly number[],
  right: readonly number[],
  confidence: number,
): { shift: number; low: number; high: number } {
  const m = left.length;
  const r = right.length;
  if (m * r <= exactIntervalLimit) {
    const hl = hodgesLehmann(left, right, confidence);
    if (hl.interval) return { shift: hl.shift, low: hl.interval[0], high: hl.interval[1] };
  }
  const differences: number[] = [];
  for (const y of right) for (const x of left) differences.push(y - x);
  differences.sort((a, b) => a - b);
  const mn = differences.length;
  const mid = mn >> 1;
  const shift = mn % 2 === 1 ? differences[mid]! : (differences[mid - 1]! + differences[mid]!) / 2;
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const c = Math.max(1, Math.floor((m * r) / 2 - z * Math.sqrt((m * r * (m + r + 1)) / 12)));
  return { shift, low: differences[c - 1]!, high: differences[mn - c]! };
}

type Found = Omit<ChangePoint, "index" | "before" | "after"> & { split: number };

function testRank(segment: readonly number[], settings: ChangePointOptions): Found | null {
  const split = bestRankSplit(midRanks(segment), settings.minSegment);
  if (!split) return null;
  const p = rankSplitP(segment.length, settings.minSegment, split.statistic);
  if (p > settings.alpha) return null;
  const { shift, low, high } = shiftInterval(
    segment.slice(0, split.index),
    segment.slice(split.index),
    settings.confidence,
  );
  if (
    Math.sign(shift) !== Math.sign(split.statistic) ||
    Math.abs(relativeChangeOf(shift)) < settings.minMagnitude
  )
    return null;
  return {
    split: split.index,
    ratio: Math.exp(shift),
    ratioLow: Math.exp(low),
    ratioHigh: Math.exp(high),
    statistic: split.statistic,
    p,
  };
}

function testT(segment: readonly number[], settings: ChangePointOptions): Found | null {
  const split = bestTSplit(segment, settings.minSegment);
  if (!split || !Number.isFinite(split.diff)) return null;
  const splits = segment.length - 2 * settings.minSegment + 1;
  const rawP = Number.isFinite(split.statistic)
    ? 2 * studentTSurvival(Math.abs(split.statistic), split.df)
    : 0;
  const p = Math.min(1, rawP * splits);
  if (p > settings.alpha || Math.abs(relativeChangeOf(split.diff)) < settings.minMagnitude) return null;
  // The medians of the parts must have moved as far, the same way: one outlier session at the end of
  // the window drags a part's mean, not its median (the false change point Otava's review met).
  const medianShift = median(segment.slice(split.index)) - median(segment.slice(0, split.index));
  if (
    Math.sign(medianShift) !== Math.sign(split.diff) ||
    Math.abs(relativeChangeOf(medianShift)) < settings.minMagnitude
  )
    return null;
  const q = studentTQuantile(1 - (1 - settings.confidence) / 2, split.df);
  return {
    split: split.index,
    ratio: Math.exp(split.diff),
    ratioLow: Math.exp(split.diff - q * split.se),
    ratioHigh: Math.exp(split.diff + q * split.se),
    statistic: split.statistic,
    p,
  };
}

/** The change points of one series (ln scale, oldest first), in index order. Pure. */
export function detectChangePoints(
  values: readonly number[],
  options: Partial<ChangePointOptions> = {},
): ChangePoint[] {
  const settings = { ...defaultChangePointOptions, ...options };
  const test = settings.method === "t" ? testT : testRank;
  // Binary segmentation: the best split of the window, then of each part, while splits pass.
  const candidates: number[] = [];
  const search = (from: number, to: number) => {
    if (candidates.length >= settings.maxChangePoints) return;
    const result = test(values.slice(from, to), settings);
    if (!result) return;
    candidates.push(from + result.split);
    search(from, from + result.split);
    search(from + result.split, to);
  };
  search(0, values.length);
  // Each change point is tested again between its neighbours and moved to that segment's best split;
  // one that fails there goes, and the rest are tested again. A staircase of two steps can make the
  // first best split land inside the middle stair (ranks see order, not size): between its neighbours
  // that split has nothing on either side and is dropped.
  let points = candidates.sort((a, b) => a - b);
  for (let round = 0; round < 4 * settings.maxChangePoints + 4; round++) {
    const tested = points.map((_, i) => {
      const from = i > 0 ? points[i - 1]! : 0;
      const to = i + 1 < points.length ? points[i + 1]! : values.length;
      return { from, to, result: test(values.slice(from, to), settings) };
    });
    const failed = tested.findIndex((t) => !t.result);
    if (failed >= 0) {
      points = points.filter((_, i) => i !== failed);
      continue;
    }
    const moved = tested.map((t) => t.from + t.result!.split);
    if (moved.every((index, i) => index === points[i])) {
      return tested.map(({ from, to, result }) => {
        const { split, ...rest } = result!;
        return { ...rest, index: from + split, before: split, after: to - from - split };
      });
    }
    points = [...new Set(moved)].sort((a, b) => a - b);
  }
  // Did not settle (moving splits): report the last consistent set, each from its own segment.
  return points.flatMap((index, i) => {
    const from = i > 0 ? points[i - 1]! : 0;
    const to = i + 1 < points.length ? points[i + 1]! : values.length;
    const result = test(values.slice(from, to), settings);
    if (!result || from + result.split !== index) return [];
    const { split, ...rest } = result;
    return [{ ...rest, index, before: split, after: to - from - split }];
  });
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
