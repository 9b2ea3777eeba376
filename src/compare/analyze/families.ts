import { metricSpecs } from "../../config/metric-names.js";
import type { Comparison, FamilyFinding } from "../verdict/verdict-schema.js";
import { decisionInterval, type FamilyGroup } from "./decide.js";
import type { AdjustedFamilyTest } from "./gated-family.js";

/**
 * The family tests decided (docs/compare.md, "Family tests"): per workload family and gated metric, the
 * pooled change of its cells with the interval it was decided on, and the verdict from its adjusted p in
 * the gated family. A regression is a finding about the family's average change, beyond the tolerance at
 * the family-wise level; the cells that are regressions on their own are named beside it.
 */
export function decideFamilies(
  tests: readonly AdjustedFamilyTest[],
  groupOf: (key: string) => FamilyGroup,
  cellsOf: (memberIndex: number) => string,
  comparisons: readonly Comparison[],
  alpha: number,
  passAlpha: number,
): FamilyFinding[] {
  return tests.map((family) => {
    const { family: name, metric } = groupOf(family.group);
    const higherIsBetter = metricSpecs[metric].higherIsBetter;
    const verdict =
      family.regression.adjusted <= alpha
        ? "regression"
        : family.improvement.adjusted <= alpha
          ? "improvement"
          : "no-finding";
    const { ci, ciLevels } = decisionInterval({
      test: {
        worse: family.test.difference,
        standardError: family.test.standardError,
        df: family.test.df,
      },
      higherIsBetter,
      regression: family.regression,
      improvement: family.improvement,
      improved: verdict === "improvement",
      alpha,
      passAlpha,
    });
    const cells = family.members.map(cellsOf);
    const towardsWorse = family.test.difference >= 0;
    return {
      family: name,
      metric,
      cells,
      higherIsBetter,
      tolerance: family.tolerance,
      ratio: Math.exp(higherIsBetter ? -family.test.difference : family.test.difference),
      ci,
      ciLevels,
      p: towardsWorse ? family.regression.adjusted : family.improvement.adjusted,
      pRaw: towardsWorse ? family.regression.p : family.improvement.p,
      standardError: family.test.standardError,
      df: Number.isFinite(family.test.df) ? family.test.df : null,
      verdict,
      regressedCells: comparisons
        .filter((c) => c.metric === metric && cells.includes(c.cell) && c.verdict === "regression")
        .map((c) => c.cell),
    };
  });
}
