import { pooledDesignEffect } from "../../stats/two-level.js";
import { type NoiseLevels, startNoiseOf } from "../noise/start-noise.js";

/**
 * The server-start and run levels of the checks on counts pooled over a side's runs (the error rate, the
 * malformed tool-call share and the quality guards; docs/compare.md, "Server starts"): their tests take
 * every request as independent, so the per-run values grouped by start (stats/two-level.ts) say how much
 * more the pooled figure varies than that, and the counts are divided by that design effect.
 */

/** The pooled-count noise as verdict.json reports it (Comparison.noise with its design effect). */
export type PooledNoise = NoiseLevels & { designEffect: number };

/** One run of a side: its value on the check's scale (null: none, left out) and its server start. */
export interface PooledRun {
  value: number | null;
  start: string;
}

/**
 * The design effect of a pooled check and its noise fields: `pooledVariance` is the variance of the
 * difference of the sides' pooled figures that the check's test assumes (requests independent). Without
 * two runs with a value on each side, a factor of 1 and no noise.
 */
export function pooledCountsDesign(
  baseline: readonly PooledRun[],
  candidate: readonly PooledRun[],
  pooledVariance: number,
): { factor: number; noise: PooledNoise | null } {
  const sample = (runs: readonly PooledRun[]) => {
    const kept = runs.filter((run): run is { value: number; start: string } => run.value !== null);
    return { values: kept.map((run) => run.value), starts: kept.map((run) => run.start) };
  };
  const b = sample(baseline);
  const c = sample(candidate);
  const { factor, levels } = pooledDesignEffect(b, c, pooledVariance);
  if (levels === null) return { factor, noise: null };
  const shared = !levels.baseline.singleRunStarts || !levels.candidate.singleRunStarts;
  const total = levels.standardError ** 2;
  return {
    factor,
    noise: {
      // No prior: published start-to-start figures are for speed, not for what the outputs were.
      ...startNoiseOf(
        levels,
        { baseline: levels.baseline.starts, candidate: levels.candidate.starts },
        shared,
        undefined,
      ),
      runSd: {
        baseline: Math.sqrt(levels.baseline.runVariance),
        candidate: Math.sqrt(levels.candidate.runVariance),
      },
      startShare: total > 0 ? levels.startPart / total : 0,
      designEffect: factor,
    },
  };
}

/** A count and its total divided by a design effect (whole numbers, for the exact tests). */
export function effectiveCounts(
  counts: { count: number; total: number },
  factor: number,
): { count: number; total: number } {
  if (factor <= 1) return counts;
  const count = Math.round(counts.count / factor);
  return { count, total: Math.max(count, Math.round(counts.total / factor)) };
}

/** The note of a pooled test whose counts a design effect divided (null: none). */
export function designNote(factor: number): string | null {
  return factor > 1
    ? `the runs and their server starts vary ${factor.toFixed(1)}x more than independent requests would: the counts were divided by that design effect`
    : null;
}
