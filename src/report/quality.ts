import type { GuardCheck } from "../compare/quality-schema.js";
import type { VerdictFile } from "../compare/verdict-schema.js";
import { describeMetric } from "../config/metric-names.js";
import { escapeMarkdown } from "./escape.js";
import { formatFractionAsPercent, formatMetricValue, formatP } from "./format.js";

/** Guard rows shown in full; beyond it the within-tolerance ones are only counted. */
export const guardRowLimit = 40;

const guardVerdictLabels: Record<GuardCheck["verdict"], string> = {
  regression: "🔴 regression",
  "within-tolerance": "⚪ within tolerance",
  inconclusive: "🟡 not judged",
};

function guardRow(check: GuardCheck): string[] {
  const tolerance =
    check.toleranceKind === "points"
      ? `+${Number((check.tolerance * 100).toPrecision(3))} pts`
      : `±${formatFractionAsPercent(check.tolerance)}`;
  const side = (value: number | null, counts: GuardCheck["counts"]["baseline"]) =>
    check.toleranceKind === "points"
      ? `${formatMetricValue(check.metric, value)} (${counts.count}/${counts.requests})`
      : formatMetricValue(check.metric, value);
  return [
    escapeMarkdown(check.cell, 60),
    describeMetric(check.metric),
    tolerance,
    side(check.baseline, check.counts.baseline),
    side(check.candidate, check.counts.candidate),
    formatP(check.p),
    guardVerdictLabels[check.verdict] + (check.note ? ` (${escapeMarkdown(check.note, 160)})` : ""),
  ];
}

/**
 * The quality guards of the report (docs/quality.md): every regression and check not judged in a table,
 * the within-tolerance ones too while the table stays short. Empty when the verdict has no guards.
 */
export function qualityGuardSection(verdict: VerdictFile): string {
  const guards = verdict.quality?.guards;
  if (guards === undefined || guards.length === 0) return "";
  const flagged = guards.filter((check) => check.verdict !== "within-tolerance");
  const shown = guards.length <= guardRowLimit ? guards : flagged.slice(0, guardRowLimit);
  const hidden = guards.length - shown.length;
  const regressions = guards.filter((check) => check.verdict === "regression").length;
  const summary =
    regressions > 0
      ? `**${regressions}** of ${guards.length} guard checks regressed: the outputs changed, so no speed result here is an improvement.`
      : `All ${guards.length - flagged.length} judged guard checks are within tolerance.`;
  const header = ["Cell", "Guard", "Tolerance", "Baseline", "Candidate", "p (adj.)", "Verdict"];
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  const table =
    shown.length > 0
      ? [line(header), line(header.map(() => "---")), ...shown.map((check) => line(guardRow(check)))]
      : [];
  return [
    "### Quality guards",
    "",
    summary,
    ...(table.length > 0 ? ["", ...table] : []),
    ...(hidden > 0 ? ["", `_${hidden} more guard checks within tolerance (verdict.json has them)._`] : []),
    "",
    "Shares of the measured requests pooled over a side's runs (requests counted / measured); a share is a regression when it rose significantly by more than its points, the output length when its mean moved significantly either way by more than its tolerance; Holm over the guard family, apart from the speed checks.",
  ].join("\n");
}
