import { holmAdjust } from "../stats/multiplicity.js";

/**
 * The gated (blocking) family of a comparison, assembled in one place (docs/compare.md, "The gated
 * family"): every gated check's one-sided test against its tolerance, Holm-adjusted together whatever
 * the check measures: the gated speed checks, the gated capacity checks, the quality guards and the
 * task-accuracy checks. Two families, one per direction: the regression tests (H0: worse by at most the
 * tolerance) and the improvement tests of the checks that can improve (speed, capacity). Pure.
 *
 * A test that cannot reach the level whatever its data (a discrete test whose smallest attainable p,
 * given what it conditions on, is above the look's α: a share test with no event on either side, the
 * paired test with no discordant pair) is left out of the family before Holm (Tarone's refinement for
 * discrete tests, 1990): it could never be rejected, so counting it would only make the others stricter.
 * Its adjusted p is its raw p, which is above α.
 */

export type FamilySource = "speed" | "capacity" | "guard" | "task";
export const familySources: readonly FamilySource[] = ["speed", "capacity", "guard", "task"];

/** One one-sided test: its p-value and the smallest p-value it can attain (0 for a continuous test). */
export interface FamilyTest {
  p: number;
  minP: number;
}

export interface FamilyMember {
  source: FamilySource;
  /** The test of "worse beyond the tolerance"; null when the check has none (missing data, no test). */
  regression: FamilyTest | null;
  /** The test of "better beyond the tolerance"; null for checks that have no improvement verdict. */
  improvement: FamilyTest | null;
}

export interface AdjustedMember {
  /** Holm-adjusted p within the family; the raw p of a test left out; null without a test. */
  regression: number | null;
  improvement: number | null;
  /** Whether the regression test is one of the family's (false: no test, or it cannot reach α). */
  inFamily: boolean;
}

export interface FamilySummary {
  /** The look's α the family is tested at. */
  alpha: number;
  /** Regression tests in the family, in all and per source. */
  regression: Record<FamilySource, number> & { total: number; leftOut: number };
  improvement: { total: number; leftOut: number };
}

export interface AdjustedFamily {
  members: AdjustedMember[];
  summary: FamilySummary;
}

function adjustDirection(
  tests: readonly (FamilyTest | null)[],
  alpha: number,
): { adjusted: (number | null)[]; joined: boolean[]; leftOut: number } {
  const joined = tests.map((test) => test !== null && test.minP <= alpha);
  const indexes = tests.flatMap((_, i) => (joined[i] ? [i] : []));
  const holm = holmAdjust(indexes.map((i) => tests[i]!.p));
  const adjusted = tests.map((test) => (test === null ? null : test.p));
  indexes.forEach((i, k) => {
    adjusted[i] = holm[k]!;
  });
  const leftOut = tests.filter((test, i) => test !== null && !joined[i]).length;
  return { adjusted, joined, leftOut };
}

/** Holm over the family's regression tests and, apart, over its improvement tests, at the look's α. */
export function adjustGatedFamily(members: readonly FamilyMember[], alpha: number): AdjustedFamily {
  const regression = adjustDirection(
    members.map((m) => m.regression),
    alpha,
  );
  const improvement = adjustDirection(
    members.map((m) => m.improvement),
    alpha,
  );
  const count = (source: FamilySource) =>
    members.filter((m, i) => m.source === source && regression.joined[i]).length;
  return {
    members: members.map((_, i) => ({
      regression: regression.adjusted[i]!,
      improvement: improvement.adjusted[i]!,
      inFamily: regression.joined[i]!,
    })),
    summary: {
      alpha,
      regression: {
        speed: count("speed"),
        capacity: count("capacity"),
        guard: count("guard"),
        task: count("task"),
        total: regression.joined.filter(Boolean).length,
        leftOut: regression.leftOut,
      },
      improvement: { total: improvement.joined.filter(Boolean).length, leftOut: improvement.leftOut },
    },
  };
}
