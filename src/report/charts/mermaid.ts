import type { Comparison, VerdictFile } from "../../compare/verdict-schema.js";
import { describeMetric } from "../../config/metric-names.js";

/**
 * The comment's pictures: at most `maxCommentCharts` small mermaid `xychart-beta` charts, which GitHub
 * renders in markdown. The markdown report sheds this section first when the comment is over budget.
 * Labels are reduced to letters, digits and a few safe marks (mermaid reads quotes, brackets and HTML in
 * them), so no outside string can change the chart or the page.
 */

/** Most mermaid charts in a comment. */
export const maxCommentCharts = 2;
/** Most gated checks one chart shows (the ones with the largest worsening). */
export const maxChartChecks = 12;

/** A mermaid-safe label: letters, digits, space and . _ / - only, at most `max` characters. */
export function mermaidLabel(value: string, max = 28): string {
  const cleaned = value
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9 ._/-]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return cleaned.length > max ? `${cleaned.slice(0, max - 1).trimEnd()}.` : cleaned || "-";
}

/** Worsening in percent for a ratio in the metric's direction (a throughput drop counts as worse). */
function worsening(c: Pick<Comparison, "higherIsBetter">, ratio: number): number {
  return ((c.higherIsBetter ? 1 / ratio : ratio) - 1) * 100;
}

function round(value: number): string {
  const r = Math.round(value * 10) / 10;
  return String(Object.is(r, -0) ? 0 : r);
}

/** One chart kind: its mermaid source and a line saying how to read it, or null when there is nothing to draw. */
export type CommentChart = (verdict: VerdictFile) => { source: string; caption: string } | null;

/**
 * Per gated check with an interval: the worse and the better end of the decision interval as
 * worsening in %, against the tolerance (a line). Regression: both bars above the line; within
 * tolerance: the taller bar below it.
 */
export const intervalChart: CommentChart = (verdict) => {
  const checks = verdict.comparisons
    .filter((c) => c.gated && c.ci !== null)
    .map((c) => {
      const ends = [worsening(c, c.ci![0]), worsening(c, c.ci![1])].sort((a, b) => a - b);
      return { c, better: ends[0]!, worse: ends[1]! };
    });
  if (checks.length === 0) return null;
  const shown = [...checks]
    .sort((a, b) => b.worse - a.worse)
    .slice(0, maxChartChecks)
    .sort((a, b) => checks.indexOf(a) - checks.indexOf(b));
  const cells = new Set(shown.map((s) => s.c.cell));
  const labels = shown.map((s) =>
    mermaidLabel(cells.size > 1 ? `${s.c.cell} ${describeMetric(s.c.metric)}` : describeMetric(s.c.metric)),
  );
  const values = shown.flatMap((s) => [s.better, s.worse, s.c.tolerance * 100]);
  const top = Math.ceil(Math.max(5, ...values) / 5) * 5;
  const bottom = Math.floor(Math.min(0, ...values) / 5) * 5;
  const more = checks.length > shown.length ? ` (${shown.length} of ${checks.length}, most worsened)` : "";
  const source = [
    "xychart-beta",
    `  title "Decision interval per gated check, worsening %${more}"`,
    `  x-axis [${labels.map((l) => `"${l}"`).join(", ")}]`,
    `  y-axis "worsening %" ${bottom} --> ${top}`,
    `  bar [${shown.map((s) => round(s.worse)).join(", ")}]`,
    `  bar [${shown.map((s) => round(s.better)).join(", ")}]`,
    `  line [${shown.map((s) => round(s.c.tolerance * 100)).join(", ")}]`,
  ].join("\n");
  return {
    source,
    caption:
      "Bars: the worse and the better end of each check's decision interval as worsening in %; line: the tolerance. Regression when both ends are above the line, within tolerance when the worse end is below it.",
  };
};

/**
 * The chart kinds of the comment, in order; capacity load curves add theirs here. At most
 * `maxCommentCharts` are drawn.
 */
export const commentCharts: CommentChart[] = [intervalChart];

/** The comment section with the charts, or "" when there is nothing to draw. */
export function commentChartsSection(
  verdict: VerdictFile,
  charts: readonly CommentChart[] = commentCharts,
): string {
  const drawn = charts
    .map((chart) => chart(verdict))
    .filter((chart) => chart !== null)
    .slice(0, maxCommentCharts);
  if (drawn.length === 0) return "";
  return [
    "### Pictures",
    "",
    ...drawn.flatMap((chart) => ["```mermaid", chart.source, "```", "", chart.caption, ""]),
    "Every run of both sides, the latency distributions and a run timeline are drawn in `report.html`, written next to `report.md` (in the action: `compare/report.html` in the evidence artifact).",
  ].join("\n");
}
