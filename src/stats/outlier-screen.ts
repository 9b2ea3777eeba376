import { appendAll } from "../util/extremes.js";
import { percentile } from "./percentile.js";

const median = (values: readonly number[]): number => percentile(values, 0.5);

/**
 * Robust screen for outlier runs (a thermal dip, a noisy neighbour: one run slower on every metric).
 *
 * Each group is the runs of one side of one cell; each run has one value per screened metric on the
 * log scale, oriented so that + is worse. A run's score is the mean over metrics of its distance from
 * its group's median in robust sd units: 1.4826 × the median absolute deviation pooled over all groups
 * (stable at 5 runs per side), or over the groups sharing its `pool` key (both sides of one cell) when
 * that is larger, so a noisier cell keeps its own wider scale. A run whose |score| exceeds the
 * threshold is an outlier. Because distances are from the run's own side's median, a shift that every
 * run of a side shares (a real regression) moves the median with it and is never screened.
 *
 * Guards: a group with fewer than `minRuns` runs is not screened (a median of 3 cannot tell which run
 * is odd); at most `maxShare` of a group's runs are screened, and when more would be, none are (a side
 * split in two is a finding, not an outlier).
 */
export interface ScreenOptions {
  /** |score| above this is an outlier (robust sd units). */
  threshold: number;
  minRuns: number;
  /** Largest fraction of one group's runs that may be screened. */
  maxShare: number;
  /** Smallest robust sd per metric (log scale), so near-identical runs do not make tiny gaps huge. */
  minScale: number;
}

export const defaultScreenOptions: ScreenOptions = {
  threshold: 5,
  minRuns: 5,
  maxShare: 0.2,
  minScale: 0.01,
};

export interface ScreenGroup {
  /** values[run][metric]: ln value oriented + = worse; NaN where the metric is missing. */
  values: readonly (readonly number[])[];
  /** Groups with the same key share one robust scale per metric (default: all groups). */
  pool?: string;
}

interface ScreenedRun {
  group: number;
  run: number;
  /** Mean robust distance over metrics (+ = slower/worse than the side's median). */
  score: number;
  /** Per metric: the run's ratio to its group's median, in the metric's "worse" orientation. */
  ratios: number[];
}

export interface ScreenResult {
  screened: ScreenedRun[];
  /** Robust sd per metric used as the unit, per group. */
  scales: number[][];
  /** Groups where more than maxShare of the runs were far out, so none were screened. */
  tooManyOutliers: number[];
}

function groupMedians(group: ScreenGroup, metrics: number): number[] {
  return Array.from({ length: metrics }, (_, k) => {
    const column = group.values.map((row) => row[k]!).filter((v) => Number.isFinite(v));
    return column.length > 0 ? median(column) : Number.NaN;
  });
}

export function screenOutliers(
  groups: readonly ScreenGroup[],
  metrics: number,
  options: ScreenOptions = defaultScreenOptions,
): ScreenResult {
  const medians = groups.map((group) => groupMedians(group, metrics));
  const poolOf = (group: ScreenGroup) => group.pool ?? "";
  const scaleOf = (members: { group: ScreenGroup; g: number }[]) =>
    Array.from({ length: metrics }, (_, k) => {
      const deviations: number[] = [];
      for (const { group, g } of members) {
        if (group.values.length < options.minRuns) continue;
        const centre = medians[g]![k]!;
        const column = group.values.map((row) => row[k]!).filter((v) => Number.isFinite(v));
        // The median run of an odd group sits at distance 0 by construction; leaving it out keeps the
        // pooled MAD from being biased low at 5 runs.
        const here = column.map((v) => Math.abs(v - centre)).sort((a, b) => a - b);
        appendAll(deviations, column.length % 2 === 1 ? here.slice(1) : here);
      }
      const mad = deviations.length > 0 ? median(deviations) : 0;
      return Math.max(options.minScale, 1.4826 * mad);
    });
  const scaleByPool = new Map<string, number[]>();
  for (const key of new Set(groups.map(poolOf)))
    scaleByPool.set(
      key,
      scaleOf(groups.map((group, g) => ({ group, g })).filter(({ group }) => poolOf(group) === key)),
    );
  // All groups together give the most stable scale; a pool whose own spread is wider (a noisier cell)
  // keeps its own. Never smaller than the all-groups scale, so a small pool's noisy MAD cannot shrink it.
  const overall = groups.length > 0 ? scaleOf(groups.map((group, g) => ({ group, g }))) : [];
  const scales = groups.map((group) =>
    scaleByPool.get(poolOf(group))!.map((scale, k) => Math.max(scale, overall[k] ?? 0)),
  );
  const screened: ScreenedRun[] = [];
  const tooManyOutliers: number[] = [];
  groups.forEach((group, g) => {
    const n = group.values.length;
    if (n < options.minRuns) return;
    const candidates: ScreenedRun[] = [];
    group.values.forEach((row, r) => {
      let sum = 0;
      let count = 0;
      const ratios: number[] = [];
      for (let k = 0; k < metrics; k++) {
        const v = row[k]!;
        const centre = medians[g]![k]!;
        if (!Number.isFinite(v) || !Number.isFinite(centre)) {
          ratios.push(Number.NaN);
          continue;
        }
        sum += (v - centre) / scales[g]![k]!;
        count++;
        ratios.push(Math.exp(v - centre));
      }
      if (count === 0) return;
      const score = sum / count;
      if (Math.abs(score) > options.threshold) candidates.push({ group: g, run: r, score, ratios });
    });
    if (candidates.length === 0) return;
    if (candidates.length > Math.floor(n * options.maxShare)) tooManyOutliers.push(g);
    else appendAll(screened, candidates);
  });
  return { screened, scales, tooManyOutliers };
}
