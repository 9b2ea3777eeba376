import { toleranceMargin } from "../../stats/margin.js";
import { graphAdjust, holmAdjust, type TestGraph } from "../../stats/multiplicity.js";
import { type LogRatioComponent, pooledLogRatio } from "../../stats/pooled-log-ratio.js";
import type { WelchResult } from "../../stats/two-level.js";
import { pAbove, pBelow } from "../../stats/welch.js";

/**
 * The gated (blocking) family of a comparison, assembled in one place (docs/compare.md, "The gated
 * family"): every gated check's one-sided test against its tolerance, adjusted together whatever the
 * check measures: the gated speed checks, the gated capacity checks, the quality guards and the
 * task-accuracy checks. Two families, one per direction: the regression tests (H0: worse by at most the
 * tolerance) and the improvement tests of the checks that can improve (speed, capacity). Pure.
 *
 * Family tests (docs/compare.md, "Family tests"): the speed checks of one metric in the cells of one
 * workload family also form a combined hypothesis, "the family's average change (the mean of the cells'
 * log ratios) is at most the tolerance", tested by the pooled log ratio (stats/pooled-log-ratio.ts). The
 * checks and the family hypotheses are tested together by a graphical procedure (Bretz et al. 2009, a
 * shortcut of Marcus-Peritz-Gabriel closed testing with weighted Bonferroni tests): each grouped check
 * gives `familyWeight` of its Holm share 1/m to its family's test; a rejected family test passes its
 * share back to its own cells (so they are then tested at the full 1/m each), and a rejected check passes
 * its share to every open hypothesis in proportion to their initial shares (Holm's step). The family-wise
 * error rate over the checks and the family hypotheses together is at most the look's α, in the strong
 * sense. With `familyWeight` 0, or no family of two checks, it is Holm exactly.
 *
 * A test that cannot reach the level whatever its data (a discrete test whose smallest attainable p,
 * given what it conditions on, is above the look's α: a share test with no event on either side, the
 * paired test with no discordant pair) is left out of the family before the adjustment (Tarone's
 * refinement for discrete tests, 1990): it could never be rejected, so counting it would only make the
 * others stricter. Its adjusted p is its raw p, which is above α.
 */

type FamilySource = "speed" | "capacity" | "guard" | "task";

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
  /**
   * A check that pools with the others of its workload family and metric (a speed check tested on per-run
   * logs): the group it belongs to (family and metric, one tolerance), and its estimate.
   */
  pool?: { group: string; tolerance: number; component: LogRatioComponent };
}

export interface AdjustedMember {
  /** Adjusted p within the family; the raw p of a test left out; null without a test. */
  regression: number | null;
  improvement: number | null;
  /** Whether the regression test is one of the family's (false: no test, or it cannot reach α). */
  inFamily: boolean;
}

/** One family test: a metric across the cells of one workload family. */
export interface AdjustedFamilyTest {
  group: string;
  /** Indexes of its checks among the members. */
  members: number[];
  tolerance: number;
  /** The pooled log ratio (oriented: + is worse) with its standard error and degrees of freedom. */
  test: WelchResult;
  /** One-sided p of H0 "the family's average change is at most the tolerance worse", and adjusted. */
  regression: { p: number; adjusted: number };
  /** The mirror: H0 "at most the tolerance better". */
  improvement: { p: number; adjusted: number };
}

interface FamilySummary {
  /** The look's α the family is tested at. */
  alpha: number;
  /** Regression tests in the family, in all and per source. */
  regression: Record<FamilySource, number> & { total: number; leftOut: number };
  improvement: { total: number; leftOut: number };
  /** The family tests beside the checks: their share of a grouped check's level, and how many there are. */
  familyTests: { weight: number; total: number };
  /**
   * The smallest share of α a regression test in the family starts with (1/m under Holm; (1 − weight)/m
   * for a grouped check): the strictest level a check can face, for the detectable change.
   */
  strictestShare: number;
}

export interface AdjustedFamily {
  members: AdjustedMember[];
  familyTests: AdjustedFamilyTest[];
  summary: FamilySummary;
}

/** The family tests: per group of at least two testable checks, the pooled log ratio. */
function familyTestsOf(
  members: readonly FamilyMember[],
  joined: readonly boolean[],
): { group: string; members: number[]; tolerance: number; test: WelchResult }[] {
  const groups = new Map<string, number[]>();
  members.forEach((member, i) => {
    if (!member.pool || !joined[i]) return;
    const key = `${member.pool.group}\u0000${member.pool.tolerance}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  return [...groups.values()]
    .filter((indexes) => indexes.length >= 2)
    .map((indexes) => {
      const first = members[indexes[0]!]!.pool!;
      return {
        group: first.group,
        members: indexes,
        tolerance: first.tolerance,
        test: pooledLogRatio(indexes.map((i) => members[i]!.pool!.component)),
      };
    });
}

/**
 * The graph over the family's tests (the joined checks, then the family tests): the initial shares and
 * the edges described above.
 */
function familyGraph(
  joinedIndexes: readonly number[],
  groups: readonly { members: readonly number[] }[],
  weight: number,
): { graph: TestGraph; shares: number[] } {
  const m = joinedIndexes.length;
  const position = new Map(joinedIndexes.map((index, k) => [index, k]));
  const grouped = new Set(groups.flatMap((g) => g.members));
  const shares = [
    ...joinedIndexes.map((index) => (grouped.has(index) ? 1 - weight : 1) / m),
    ...groups.map((g) => (weight * g.members.length) / m),
  ];
  const n = shares.length;
  const transitions = shares.map((share, j) => {
    const row = new Array<number>(n).fill(0);
    if (j < m) {
      // A rejected check: Holm's step, its share to every open test in proportion to the initial shares.
      for (let k = 0; k < n; k++) if (k !== j && share < 1) row[k] = shares[k]! / (1 - share);
    } else {
      // A rejected family test: its share back to its own cells.
      const members = groups[j - m]!.members;
      for (const index of members) row[position.get(index)!] = 1 / members.length;
    }
    return row;
  });
  return { graph: { weights: shares, transitions }, shares };
}

interface DirectionResult {
  adjusted: (number | null)[];
  joined: boolean[];
  leftOut: number;
  familyAdjusted: number[];
  strictestShare: number;
}

function adjustDirection(
  tests: readonly (FamilyTest | null)[],
  familyP: readonly number[],
  groups: readonly { members: readonly number[] }[],
  weight: number,
  alpha: number,
): DirectionResult {
  const joined = tests.map((test) => test !== null && test.minP <= alpha);
  const indexes = tests.flatMap((_, i) => (joined[i] ? [i] : []));
  const adjusted = tests.map((test) => (test === null ? null : test.p));
  const leftOut = tests.filter((test, i) => test !== null && !joined[i]).length;
  const p = indexes.map((i) => tests[i]!.p);
  if (groups.length === 0 || weight === 0) {
    holmAdjust(p).forEach((value, k) => {
      adjusted[indexes[k]!] = value;
    });
    return { adjusted, joined, leftOut, familyAdjusted: [], strictestShare: 1 / Math.max(1, indexes.length) };
  }
  const { graph, shares } = familyGraph(indexes, groups, weight);
  const all = graphAdjust([...p, ...familyP], graph);
  indexes.forEach((i, k) => {
    adjusted[i] = all[k]!;
  });
  return {
    adjusted,
    joined,
    leftOut,
    familyAdjusted: all.slice(indexes.length),
    strictestShare: Math.min(...shares.slice(0, indexes.length)),
  };
}

/**
 * The family's adjustment at the look's α, the regression tests and, apart, the improvement tests, each
 * with the family tests of their direction (`familyWeight`: gate.family_weight).
 */
export function adjustGatedFamily(
  members: readonly FamilyMember[],
  alpha: number,
  familyWeight = 0,
): AdjustedFamily {
  const reaches = (test: FamilyTest | null) => test !== null && test.minP <= alpha;
  // A family test pools checks that are in both directions' families.
  const joinedBoth = members.map((m) => reaches(m.regression) && reaches(m.improvement));
  const families = familyWeight > 0 ? familyTestsOf(members, joinedBoth) : [];
  const worseP = families.map((f) => pAbove(f.test, toleranceMargin(f.tolerance)));
  const betterP = families.map((f) => pBelow(f.test, -toleranceMargin(f.tolerance)));
  const regression = adjustDirection(
    members.map((m) => m.regression),
    worseP,
    families,
    familyWeight,
    alpha,
  );
  const improvement = adjustDirection(
    members.map((m) => m.improvement),
    betterP,
    families,
    familyWeight,
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
    familyTests: families.map((family, k) => ({
      ...family,
      regression: { p: worseP[k]!, adjusted: regression.familyAdjusted[k]! },
      improvement: { p: betterP[k]!, adjusted: improvement.familyAdjusted[k]! },
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
      familyTests: { weight: familyWeight, total: families.length },
      strictestShare: regression.strictestShare,
    },
  };
}
