import type { FamilyFinding, VerdictFile } from "../compare/verdict/verdict-schema.js";
import { describeMetric } from "../config/metric-names.js";
import { escapeInline } from "./escape.js";
import { formatChange, formatFractionAsPercent, formatInterval, formatP } from "./format.js";

const familyVerdictIcons: Record<Exclude<FamilyFinding["verdict"], "no-finding">, string> = {
  regression: "🔴",
  improvement: "🟢",
};

/**
 * One line per family test that found something (docs/compare.md, "Family tests"): the metric's average
 * change across the family's cells with its decision interval, the adjusted p, and the cells that are
 * regressions on their own. Empty when no family test was rejected.
 */
export function familyFindingsSection(verdict: VerdictFile): string {
  const found = (verdict.families ?? []).filter((f) => f.verdict !== "no-finding");
  if (found.length === 0) return "";
  const lines = found.map((f) => {
    const verdictIcon = familyVerdictIcons[f.verdict as keyof typeof familyVerdictIcons];
    const beyond = f.verdict === "regression" ? "worse" : "better";
    const alone =
      f.verdict !== "regression"
        ? ""
        : f.regressedCells.length > 0
          ? `; a regression on its own in ${f.regressedCells.map((cell) => escapeInline(cell, 60)).join(", ")}`
          : "; no cell is one on its own yet";
    return `- ${verdictIcon} **${describeMetric(f.metric)} across the ${f.cells.length} ${escapeInline(f.family, 60)} cells**: ${formatChange(f.ratio)} (${formatInterval(f.ci)}), on average ${beyond} beyond the ±${formatFractionAsPercent(f.tolerance)} tolerance (family test, p (adj.) ${formatP(f.p)})${alone}.`;
  });
  return ["### Across cells", "", ...lines].join("\n");
}
