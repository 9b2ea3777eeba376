import { type MetricName, metricSpecs } from "../../config/metric-names.js";
import { toleranceMargin } from "../../stats/margin.js";
import {
  classify,
  type LogRatioTest,
  type MetricVerdict,
  minimumDetectableChange,
  worseBound,
} from "../../stats/metric-test.js";
import { bhAdjust, holmAdjust } from "../../stats/multiplicity.js";
import type { Comparison } from "../verdict/verdict-schema.js";
import { type Draft, startProjectionOf } from "./drafts.js";
import type { FamilyMember } from "./gated-family.js";

/** `{ start }` when there is a start level to project, else nothing (exactOptionalPropertyTypes). */
export function withStart<T>(start: T | undefined): { start?: T } {
  return start === undefined ? {} : { start };
}

/** The gated drafts that have tests against the tolerance: the speed checks' part of the gated family. */
export function familyDrafts(drafts: readonly Draft[]): Draft[] {
  return drafts.filter((d) => d.gated && d.forced === null && d.pBeyond !== null && d.pBetterBeyond !== null);
}

/** A family test's group: one gated metric in the cells of one workload family. */
export interface FamilyGroup {
  family: string;
  metric: MetricName;
}

/** The group key of a family and metric (compare/analyze/gated-family.ts groups by it). */
export function familyGroupKey(group: FamilyGroup): string {
  return `${group.family}\u0000${group.metric}`;
}

/**
 * The gated family's members of those drafts (compare/analyze/gated-family.ts). A check tested on per-run
 * logs of its own metric pools with the other cells of its workload family (`familyOf`); an error rate (a
 * pooled count) and a check judged on a stand-in percentile stay single.
 */
export function speedMembers(drafts: readonly Draft[], familyOf: (cell: string) => string): FamilyMember[] {
  return drafts.map((d) => ({
    source: "speed",
    regression: { p: d.pBeyond!, minP: d.minPBeyond ?? 0 },
    improvement: { p: d.pBetterBeyond!, minP: d.minPBetterBeyond ?? 0 },
    ...(d.test !== null && d.judgedOn === null
      ? {
          pool: {
            group: familyGroupKey({ family: familyOf(d.cell), metric: d.metric }),
            tolerance: d.tolerance,
            component: {
              worse: d.test.worse,
              standardError: d.test.standardError,
              df: d.test.df,
              // The start level is shared by every cell a server start measured (one server per side):
              // like the drift, it is taken as fully correlated across the family's cells.
              extraVariance: (d.variances?.extra ?? 0) + Math.max(d.test.levels.startPart, 0),
            },
          },
        }
      : {}),
  }));
}

/** The gated family's adjusted p-values of the speed checks (from adjustGatedFamily). */
export type FamilyAdjusted = ReadonlyMap<Draft, { beyond: number; betterBeyond: number }>;

/**
 * Stage 4: multiplicity and classification. The gated checks' tests against the tolerance come adjusted
 * from the gated family (Holm together with the capacity and quality checks: `familyAdjusted`);
 * Benjamini-Hochberg over the advisory ones. The tests of any change (pChange, for the mixed-results
 * summary) are Holm-adjusted over the gated speed checks. Each draft is classified on its adjusted
 * p-values, with the interval it was decided on. `familySize` is the number of regression tests in the
 * gated family (the strictest Holm step, for the detectable change).
 */
export function decide(
  drafts: Draft[],
  alpha: number,
  passAlpha: number,
  familySize: number,
  familyAdjusted: FamilyAdjusted,
): Comparison[] {
  const adjusted = adjustedPValues(drafts, familyAdjusted);
  return drafts.map((draft) => {
    const adj = adjusted.get(draft);
    const verdict = verdictOf(draft, adj, alpha, passAlpha);
    const towardsWorse = (draft.worse ?? 0) >= 0;
    const { ci, ciLevels, detectable } = decidedOn(draft, adj, verdict, { alpha, passAlpha, familySize });
    return {
      cell: draft.cell,
      metric: draft.metric,
      judgedOn: draft.judgedOn,
      gated: draft.gated,
      higherIsBetter: draft.higherIsBetter,
      tolerance: draft.tolerance,
      baseline: draft.baseline,
      candidate: draft.candidate,
      ratio: draft.ratio,
      ci,
      ciLevels,
      ci90: draft.ci,
      p: adj ? (towardsWorse ? adj.beyond : adj.betterBeyond) : null,
      pRaw: draft.pBeyond === null ? null : towardsWorse ? draft.pBeyond : draft.pBetterBeyond,
      pChange: adj ? (towardsWorse ? adj.worse : adj.better) : null,
      detectableChange: detectable,
      verdict,
      note: draft.notes.length > 0 ? draft.notes.join("; ") : null,
      runs: draft.runs,
      ...(draft.noise ? { noise: draft.noise } : {}),
      crossCheck: draft.crossCheck,
    };
  });
}

/** A tested draft's adjusted p-values: against the tolerance either way, and of any change either way. */
interface AdjustedP {
  beyond: number;
  betterBeyond: number;
  worse: number;
  better: number;
}

/**
 * The adjusted p-values of the tested drafts: the gated ones' tests against the tolerance from the gated
 * family, their tests of any change Holm-adjusted among themselves; the advisory ones' Benjamini-Hochberg.
 */
function adjustedPValues(drafts: readonly Draft[], familyAdjusted: FamilyAdjusted): Map<Draft, AdjustedP> {
  const adjusted = new Map<Draft, AdjustedP>();
  for (const gatedFamily of [true, false]) {
    const family = drafts.filter(
      (d) => d.gated === gatedFamily && d.forced === null && d.pBeyond !== null && d.pBetterBeyond !== null,
    );
    const adjust = gatedFamily ? holmAdjust : bhAdjust;
    const beyond = adjust(family.map((d) => d.pBeyond!));
    const betterBeyond = adjust(family.map((d) => d.pBetterBeyond!));
    const worse = adjust(family.map((d) => d.pWorse!));
    const better = adjust(family.map((d) => d.pBetter!));
    family.forEach((d, i) => {
      const joined = gatedFamily ? familyAdjusted.get(d) : undefined;
      if (gatedFamily && joined === undefined)
        throw new Error(`internal: gated check ${d.cell}/${d.metric} is missing from the gated family`);
      adjusted.set(d, {
        beyond: joined?.beyond ?? beyond[i]!,
        betterBeyond: joined?.betterBeyond ?? betterBeyond[i]!,
        worse: worse[i]!,
        better: better[i]!,
      });
    });
  }
  return adjusted;
}

/** A draft's verdict: the forced one, a pooled count's against its margin, else the classification. */
function verdictOf(
  draft: Draft,
  adj: AdjustedP | undefined,
  alpha: number,
  passAlpha: number,
): MetricVerdict {
  if (draft.forced !== null) return draft.forced;
  if (metricSpecs[draft.metric].judged === "pooled-failures") {
    // A pooled count has no run-to-run spread: significance against 0 plus the relative tolerance.
    const margin = toleranceMargin(draft.tolerance);
    // Its tests against the tolerance are the tests of any rise / fall (pBeyond = pWorse): a gated
    // one is adjusted in the gated family, an advisory one with the advisory tests of any change.
    const pRise = draft.gated ? adj!.beyond : adj!.worse;
    const pFall = draft.gated ? adj!.betterBeyond : adj!.better;
    if (pRise <= alpha && (draft.worse ?? 0) > margin) return "regression";
    if (pFall <= alpha && (draft.worse ?? 0) < -margin) return "improvement";
    return "within-tolerance";
  }
  return classify({
    pBeyondToleranceAdjusted: adj!.beyond,
    pBetterBeyondToleranceAdjusted: adj!.betterBeyond,
    pWithinTolerance: draft.pWithinTolerance!,
    alpha,
    passAlpha,
  });
}

/**
 * The interval a tested draft was decided on (decisionInterval) and, for a gated one, the smallest change
 * it could detect at the family's strictest level (`familySize` regression tests); the draft's own 90%
 * interval and no detectable change for an untested one.
 */
function decidedOn(
  draft: Draft,
  adj: AdjustedP | undefined,
  verdict: MetricVerdict,
  levels: { alpha: number; passAlpha: number; familySize: number },
): { ci: [number, number] | null; ciLevels: [number, number] | null; detectable: number | null } {
  const { alpha, passAlpha, familySize } = levels;
  if (!draft.test || !adj) return { ci: draft.ci, ciLevels: null, detectable: null };
  const { ci, ciLevels } = decisionInterval({
    test: draft.test,
    higherIsBetter: draft.higherIsBetter,
    regression: { p: draft.pBeyond!, adjusted: adj.beyond },
    improvement: { p: draft.pBetterBeyond!, adjusted: adj.betterBeyond },
    improved: verdict === "improvement",
    alpha,
    passAlpha,
  });
  const detectable =
    draft.gated && draft.variances
      ? minimumDetectableChange({
          baselineVariance: draft.variances.baseline,
          candidateVariance: draft.variances.candidate,
          baselineRuns: draft.runs.baseline,
          candidateRuns: draft.runs.candidate,
          extraVariance: draft.variances.extra,
          tolerance: draft.tolerance,
          alpha: alpha / Math.max(1, familySize),
          df: draft.test.df,
          ...withStart(startProjectionOf(draft, 1, "current")),
        })
      : null;
  return { ci, ciLevels, detectable };
}

/**
 * The interval a verdict was decided on, in the metric's own direction: the worse-side bound at the level
 * the regression test was passed after the family's adjustment (p·α/p_adj), the better-side bound at the
 * within-tolerance level, or at the improvement test's level when that decided. Regression ⇔ the worse
 * end's bound is beyond the tolerance. Shared by the checks and the family tests.
 */
export function decisionInterval(input: {
  test: Pick<LogRatioTest, "worse" | "standardError" | "df">;
  higherIsBetter: boolean;
  regression: { p: number; adjusted: number };
  improvement: { p: number; adjusted: number };
  improved: boolean;
  alpha: number;
  passAlpha: number;
}): { ci: [number, number]; ciLevels: [number, number] } {
  const { test, alpha } = input;
  const effective = (p: number, pAdj: number) => (pAdj > 0 ? (alpha * p) / pAdj : alpha);
  const lowerLevel = effective(input.regression.p, input.regression.adjusted);
  const upperLevel = input.improved
    ? effective(input.improvement.p, input.improvement.adjusted)
    : input.passAlpha;
  const lower = worseBound(test, lowerLevel, "lower");
  const upper = worseBound(test, upperLevel, "upper");
  // Back to the metric's own direction (higher-is-better metrics mirror).
  return input.higherIsBetter
    ? { ci: [Math.exp(-upper), Math.exp(-lower)], ciLevels: [upperLevel, lowerLevel] }
    : { ci: [Math.exp(lower), Math.exp(upper)], ciLevels: [lowerLevel, upperLevel] };
}
