/**
 * Adaptive repeats (statistics.md §7): decide at a few looks (3, 5, 7, 10 runs per side by default),
 * adding runs only while the verdict is inconclusive. Each look tests at the same (Pocock-like)
 * level, a fraction of the family level chosen so the false-block rate over all looks stays within
 * target; `bench/gate.ts` is the calibration that backs the factor.
 */

export const standardLooks = [3, 5, 7, 10] as const;

/**
 * Fraction of the family level spent over all looks, by comparison mode. The regression test is against
 * the tolerance margin, so the binding case is a true change at the tolerance, and Holm within a look
 * plus Bonferroni over looks (share 1) bounds the chance of blocking it by the family level under any
 * dependence between looks and metrics. bench/gate.ts measures how far below the bound it stays.
 */
export const lookLevelShare = { interleaved: 1, stored: 1 } as const;

/** Look points within [min, max]: min, every standard look above it, and max. */
export function lookSchedule(minRuns: number, maxRuns: number): number[] {
  const looks = new Set<number>([minRuns]);
  for (const look of standardLooks) if (look > minRuns && look < maxRuns) looks.add(look);
  looks.add(maxRuns);
  return [...looks].sort((a, b) => a - b);
}

/**
 * Share of the family level spent at each look, by number of looks. Calibrated by bench/gate.ts
 * (Pocock's constant-level idea: the same threshold at every look, stricter than one fixed test).
 */
export function perLookLevel(
  familyAlpha: number,
  lookCount: number,
  mode: keyof typeof lookLevelShare,
): number {
  return (familyAlpha * lookLevelShare[mode]) / Math.max(1, lookCount);
}

/**
 * Level of the non-inferiority bound behind "within tolerance" (U < d). A false pass can only happen
 * for a change at or near the tolerance itself, so it is not split over looks; it is the family level.
 */
export function passLevel(familyAlpha: number): number {
  return familyAlpha;
}

export interface NextLook {
  /** Runs per side the next decision needs. */
  runsPerSide: number;
  /** Runs to add to each side to get there (baseline 0 for a stored baseline that is not re-run). */
  addCandidateRuns: number;
  addBaselineRuns: number;
  reason: string;
}

export function nextLookAfter(
  candidateRuns: number,
  baselineRuns: number,
  looks: readonly number[],
  interleaved: boolean,
  reason: string,
): NextLook | null {
  const target = looks.find((look) => look > candidateRuns);
  if (target === undefined) return null;
  return {
    runsPerSide: target,
    addCandidateRuns: target - candidateRuns,
    addBaselineRuns: interleaved ? Math.max(0, target - baselineRuns) : 0,
    reason,
  };
}
