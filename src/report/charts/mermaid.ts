import type { Comparison, VerdictFile } from "../../compare/verdict/verdict-schema.js";
import { describeMetric } from "../../config/metric-names.js";
import { largest } from "../../util/extremes.js";
import { capacityLoadPicture, depthAxis, depthMetric, sweepLoadPicture } from "./data.js";

/**
 * The comment's pictures: at most `maxCommentCharts` small mermaid `xychart-beta` charts, which GitHub
 * renders in markdown. The markdown report sheds this section first when the comment is over budget.
 * Labels are reduced to letters, digits and a few safe marks (mermaid reads quotes, brackets and HTML in
 * them), so no outside string can change the chart or the page.
 */

/** Most mermaid charts in a comment. */
const maxCommentCharts = 2;
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
const intervalChart: CommentChart = (verdict) => {
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

/** Loads the comment's latency-vs-load chart is drawn at. */
const loadChartPoints = 8;

/** Linear interpolation of a side's curve at `load` (inside its measured range only). */
function interpolate(points: readonly { load: number; value: number }[], load: number): number | null {
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!;
    if (p.load === load) return p.value;
    const next = points[i + 1];
    if (next && p.load < load && load < next.load)
      return p.value + ((next.value - p.value) * (load - p.load)) / (next.load - p.load);
  }
  return null;
}

/**
 * For the first capacity cell with a load curve on both sides (else the first sweep compared without a
 * capacity config): TTFT at the cell's percentile (E2E when no TTFT was measured) against load, one line
 * per side (baseline first), resampled at `loadChartPoints` evenly spaced loads over the range both sides
 * measured (xychart-beta spaces its points evenly), and the SLO as a third line when the cell has one.
 */
const loadCurveCommentChart: CommentChart = (verdict) => {
  const pictures = [
    ...(verdict.capacity ?? []).flatMap((check) => capacityLoadPicture(check) ?? []),
    ...(verdict.sweeps ?? []).map(sweepLoadPicture),
  ];
  for (const picture of pictures) {
    for (const figure of ["ttftMs", "e2elMs"] as const) {
      const side = (name: "baseline" | "candidate") =>
        (picture.series.find((s) => s.side === name)?.points ?? []).flatMap((p) =>
          p[figure] === null ? [] : [{ load: p.load, value: p[figure]! }],
        );
      const b = side("baseline");
      const c = side("candidate");
      if (b.length < 2 || c.length < 2) continue;
      const lo = Math.max(b[0]!.load, c[0]!.load);
      const hi = Math.min(b[b.length - 1]!.load, c[c.length - 1]!.load);
      if (!(hi > lo)) continue;
      const loads = Array.from(
        { length: loadChartPoints },
        (_, i) => lo + ((hi - lo) * i) / (loadChartPoints - 1),
      );
      loads[loads.length - 1] = hi; // exactly the last load measured, not a rounding of it
      const bv = loads.map((load) => interpolate(b, load)!);
      const cv = loads.map((load) => interpolate(c, load)!);
      const slo = figure === "ttftMs" ? picture.slo.ttft_ms : picture.slo.e2el_ms;
      const all = [...bv, ...cv, ...(slo === undefined ? [] : [slo])];
      const top = Math.ceil((largest(all) * 1.05) / 10) * 10;
      const what = `${figure === "ttftMs" ? "TTFT" : "E2E"} ${mermaidLabel(picture.percentile, 4)} ms`;
      const unit = picture.dimension === "concurrency" ? "concurrency" : "requests per s";
      const source = [
        "xychart-beta",
        `  title "${mermaidLabel(picture.cell, 40)} ${what} against load"`,
        `  x-axis "${unit}" [${loads.map((l) => `"${round(l)}"`).join(", ")}]`,
        `  y-axis "${what}" 0 --> ${top}`,
        `  line [${bv.map(round).join(", ")}]`,
        `  line [${cv.map(round).join(", ")}]`,
        ...(slo === undefined ? [] : [`  line [${loads.map(() => round(slo)).join(", ")}]`]),
      ].join("\n");
      const reading =
        picture.kind === "capacity"
          ? " Where a side's line crosses the SLO is its capacity."
          : slo === undefined
            ? " A load sweep without a capacity config: no capacity was computed."
            : " A load sweep without a capacity config: where a side's line crosses the SLO is where its capacity would be.";
      return {
        source,
        caption: `Lines: the baseline's (first) and the candidate's ${what} against load, interpolated between the loads measured over the range both sides measured${slo === undefined ? "" : "; flat line: the SLO"}.${reading}`,
      };
    }
  }
  return null;
};

/**
 * For the first session cell with at least two context-depth buckets both sides have a TTFT p95 in:
 * each side's TTFT p95 (the geometric mean over runs compare judged) per depth bucket, shallow to deep,
 * one line per side (baseline first). xychart-beta draws a line through every x label, so a bucket only
 * one side has is left out here (report.html draws it, with every run).
 */
export const depthCommentChart: CommentChart = (verdict) => {
  const cells = [...new Set(verdict.comparisons.map((c) => c.cell))];
  const drawable = cells.flatMap((cell) => {
    const points = depthAxis.flatMap(({ bucket, label }) => {
      const c = verdict.comparisons.find((x) => x.cell === cell && x.metric === depthMetric(bucket));
      return c && c.baseline !== null && c.candidate !== null
        ? [{ label, baseline: c.baseline, candidate: c.candidate }]
        : [];
    });
    return points.length >= 2 ? [{ cell, points }] : [];
  });
  const first = drawable[0];
  if (!first) return null;
  const top = Math.ceil((largest(first.points.flatMap((p) => [p.baseline, p.candidate])) * 1.05) / 10) * 10;
  const source = [
    "xychart-beta",
    `  title "${mermaidLabel(first.cell, 40)} TTFT p95 ms against context depth"`,
    `  x-axis "turn number" [${first.points.map((p) => `"${mermaidLabel(p.label, 12)}"`).join(", ")}]`,
    `  y-axis "TTFT p95 ms" 0 --> ${top}`,
    `  line [${first.points.map((p) => round(p.baseline)).join(", ")}]`,
    `  line [${first.points.map((p) => round(p.candidate)).join(", ")}]`,
  ].join("\n");
  const others = drawable.length - 1;
  return {
    source,
    caption: `Lines: the baseline's (first) and the candidate's TTFT p95 per context-depth bucket (the turn number of the request, 1 = a session's first), geometric means over runs, the buckets both sides have. The candidate's line climbing faster with depth is a cost that grows with the conversation.${others > 0 ? ` ${others} more session cell${others === 1 ? " is" : "s are"} drawn in report.html.` : ""}`,
  };
};

/**
 * The chart kinds of the comment, in order; capacity load curves add theirs here. At most
 * `maxCommentCharts` are drawn.
 */
const commentCharts: CommentChart[] = [intervalChart, loadCurveCommentChart, depthCommentChart];

/**
 * The section with the charts, or "" when there is nothing to draw; `pointer` adds where the other
 * charts are (the comment's first screen links there already).
 */
export function commentChartsSection(
  verdict: VerdictFile,
  charts: readonly CommentChart[] = commentCharts,
  { pointer = true }: { pointer?: boolean } = {},
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
    ...(pointer
      ? [
          "Every run of both sides, the latency distributions, a run timeline, the load curves of capacity cells and sweeps and the TTFT against context depth of session cells are drawn in `report.html`, written next to `report.md` (in the action: `compare/report.html` in the evidence artifact).",
        ]
      : []),
  ].join("\n");
}
