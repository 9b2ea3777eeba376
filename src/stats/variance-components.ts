import { studentTQuantile } from "./distributions.js";

/**
 * Two-level random-effects variance components (Kalibera & Jones, "Rigorous Benchmarking in
 * Reasonable Time", ISMM'13), for balanced data: groups (e.g. sessions or runs) of equal size.
 * Level 1 is within a group, level 2 between groups.
 */
export interface VarianceComponents {
  /** Biased per-level variances S₁² (within) and S₂² (of group means). */
  s1: number;
  s2: number;
  /** Unbiased estimates: T₁² = S₁², T₂² = S₂² − S₁²/r₁ (floored at 0). */
  t1: number;
  t2: number;
  groups: number;
  perGroup: number;
  grandMean: number;
}

export function varianceComponents(groups: readonly (readonly number[])[]): VarianceComponents {
  const count = groups.length;
  const size = groups[0]?.length ?? 0;
  if (count < 2 || size < 2 || groups.some((g) => g.length !== size)) {
    throw new RangeError("variance components need >= 2 groups of the same size >= 2");
  }
  const means = groups.map((g) => g.reduce((s, v) => s + v, 0) / size);
  const grandMean = means.reduce((s, m) => s + m, 0) / count;
  let within = 0;
  groups.forEach((g, i) => {
    for (const v of g) within += (v - means[i]!) ** 2;
  });
  const s1 = within / (count * (size - 1));
  const s2 = means.reduce((s, m) => s + (m - grandMean) ** 2, 0) / (count - 1);
  return { s1, s2, t1: s1, t2: Math.max(0, s2 - s1 / size), groups: count, perGroup: size, grandMean };
}

/** Kalibera-Jones optimal repetitions at level 1 per level-2 unit: √(c₂T₁² / (c₁T₂²)). */
export function optimalRepetitions(components: VarianceComponents, costRatio: number): number {
  if (components.t2 === 0) return Number.POSITIVE_INFINITY;
  return Math.sqrt((costRatio * components.t1) / components.t2);
}

/** Half-width of the two-sided CI of the grand mean, with the top level as the replicate. */
export function grandMeanHalfWidth(components: VarianceComponents, confidence = 0.95): number {
  const t = studentTQuantile(1 - (1 - confidence) / 2, components.groups - 1);
  return t * Math.sqrt(components.s2 / components.groups);
}
