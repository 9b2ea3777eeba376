/**
 * Adaptive repeats (statistics.md §7): decide at a few looks (5, 10, 15, 20, 25 runs per side by default),
 * adding runs only while the verdict is inconclusive. The family level is spent over the looks in
 * proportion to their run counts (Bonferroni with unequal weights, so the sum over looks is the family
 * level): early looks, with little information, test strictly and catch only large regressions; the last
 * look gets the largest share, which is where a change near the tolerance is decided.
 */

const standardLooks = [3, 5, 10, 15, 20, 25, 30, 40] as const;

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

/** The look a decision at `runs` measured runs per side belongs to: the last look at or below it. */
export function lookIndex(looks: readonly number[], runs: number): number {
  let index = 0;
  looks.forEach((look, i) => {
    if (look <= runs) index = i;
  });
  return index;
}

/**
 * One-sided level of the regression and improvement tests (before Holm) at the look `runs` falls in:
 * familyAlpha × share × look / Σ looks.
 */
export function perLookLevel(
  familyAlpha: number,
  looks: readonly number[],
  runs: number,
  mode: keyof typeof lookLevelShare,
): number {
  const total = looks.reduce((sum, look) => sum + look, 0);
  if (total <= 0) return familyAlpha * lookLevelShare[mode];
  return (familyAlpha * lookLevelShare[mode] * looks[lookIndex(looks, runs)]!) / total;
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
