import type { Comparison, VerdictFile } from "../compare/verdict/verdict-schema.js";
import { describeMetric, metricNames } from "../config/metric-names.js";
import { escapeCell, escapeHtml, escapeInline } from "./escape.js";
import {
  formatChange,
  formatFractionAsPercent,
  formatInterval,
  formatIntervalOneLine,
  formatMetricValue,
  formatP,
  formatValuePair,
} from "./format.js";
import { checkMatrix, fold, table } from "./markdown-blocks.js";

/**
 * The tables of the per-metric checks: every gated check (the long form's acceptance table), the gated
 * checks within tolerance (a fold of the comment), and every metric of each cell (the long form's folds).
 * Verdict first; a check's note is a footnote under its table.
 */

const metricVerdictLabels: Record<Comparison["verdict"], string> = {
  regression: "🔴 regression",
  improvement: "🟢 improvement",
  "within-tolerance": "⚪ within tolerance",
  inconclusive: "🟡 inconclusive",
};

/**
 * A check's verdict as the tables say it. Within tolerance is decided on the interval's better end at the
 * within-tolerance level, an improvement on the Holm-adjusted improvement test at the gate's level
 * (docs/compare.md): a row can be within tolerance with its whole decision interval past the tolerance
 * on the better side. Its label says so instead of contradicting the interval shown.
 */
export function metricVerdictLabel(c: Comparison): string {
  if (c.verdict === "within-tolerance" && c.ci !== null) {
    const [low, high] = c.ci;
    const betterBeyond = c.higherIsBetter ? low > 1 + c.tolerance : high < 1 / (1 + c.tolerance);
    if (betterBeyond)
      return "⚪ within tolerance: better beyond it, but not a significant improvement at the adjusted level";
  }
  return metricVerdictLabels[c.verdict];
}

/** "+12%": the smallest true worsening this run count catches with 90% power. */
export function formatDetectable(c: Pick<Comparison, "detectableChange" | "higherIsBetter">): string {
  if (c.detectableChange === null) return "–";
  // In the metric's own direction: a throughput worsening is a drop.
  if (c.higherIsBetter) return `−${((1 - 1 / (1 + c.detectableChange)) * 100).toFixed(1)}%`;
  return `+${(c.detectableChange * 100).toFixed(1)}%`;
}

/** Notes as numbered footnotes: equal notes share a number. */
export class Footnotes {
  private readonly notes: string[] = [];

  /** The mark to put after a cell ("¹"), "" for no note. */
  mark(note: string | null): string {
    if (!note) return "";
    let index = this.notes.indexOf(note);
    if (index < 0) index = this.notes.push(note) - 1;
    return footnoteMark(index);
  }

  /** The footnotes, each escaped by `escape`: "¹ runs nearly identical … · ² …", or "" without any. */
  text(escapeNote: (note: string) => string = (note) => escapeInline(note, 200)): string {
    return this.notes.map((note, i) => `${footnoteMark(i)} ${escapeNote(note)}`).join(" · ");
  }
}

const superscripts = ["¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"];

function footnoteMark(index: number): string {
  return superscripts[index] ?? `⁽${index + 1}⁾`;
}

const arrow = (c: Comparison) => (c.higherIsBetter ? " ↑" : " ↓");

/** The header of checkRow's columns: the two are kept side by side so they cannot drift apart. */
function checkHeader(withCell: boolean): string[] {
  return [
    "Verdict",
    ...(withCell ? ["Cell"] : []),
    "Metric",
    "Tolerance",
    "Baseline",
    "Candidate",
    "Change",
    "Decision interval",
    "p (adj.)",
    "Detectable",
  ];
}

function checkRow(c: Comparison, withCell: boolean, notes: Footnotes): string[] {
  return [
    metricVerdictLabel(c) + notes.mark(c.note),
    ...(withCell ? [escapeCell(c.cell, 60)] : []),
    describeMetric(c.metric) + arrow(c),
    `±${formatFractionAsPercent(c.tolerance)}`,
    formatMetricValue(c.metric, c.baseline),
    formatMetricValue(c.metric, c.candidate),
    formatChange(c.ratio),
    formatInterval(c.ci),
    formatP(c.p),
    formatDetectable(c),
  ];
}

/**
 * Per gated check, the smallest worsening this runner and run count catch at 90% power (the
 * comparison's detectable change, with a calibration's or main's pooled variance when one was used):
 * "catches ≥ +7.0% chat TTFT p95, ≥ −9.1% chat Output throughput".
 */
function catchesPerCheckLine(
  gated: readonly Pick<Comparison, "cell" | "metric" | "detectableChange" | "higherIsBetter">[],
): string | null {
  const known = gated.filter((c) => c.detectableChange !== null);
  if (known.length === 0) return null;
  const cells = new Set(known.map((c) => c.cell));
  const items = known.map(
    (c) =>
      `≥ ${formatDetectable(c)} ${cells.size > 1 ? `${escapeInline(c.cell, 60)} ` : ""}${describeMetric(c.metric)}`,
  );
  return `Per check at 90% power, these runs catch: ${items.join(", ")}.`;
}

/** What the least sensitive gated check catches, against gate.detect_change; null without one. */
export function detectionLine(verdict: VerdictFile): string | null {
  const d = verdict.detection;
  if (!d) return null;
  const reach =
    d.detectableChange <= d.detectChange
      ? `that covers the +${formatFractionAsPercent(d.detectChange)} the gate must catch (gate.detect_change).`
      : d.runsPerSideForDetectChange === null
        ? `catching +${formatFractionAsPercent(d.detectChange)} (gate.detect_change) is out of reach with these conditions${verdict.mode === "stored" ? " (the stored baseline's drift does not shrink with runs)" : ""}.`
        : `catching +${formatFractionAsPercent(d.detectChange)} (gate.detect_change) needs about ${d.runsPerSideForDetectChange} runs per side.`;
  return `These runs catch a worsening of ${formatDetectable({ detectableChange: d.detectableChange, higherIsBetter: false })} or more with 90% power (least sensitive check: ${escapeInline(d.cell, 60)} ${describeMetric(d.metric)}); ${reach}`;
}

/** The long form's table of every gated check, with what the runs can catch and how to read it. */
export function acceptanceSection(verdict: VerdictFile): string {
  const gated = verdict.comparisons.filter((c) => c.gated);
  const notes = new Footnotes();
  const body =
    gated.length > 0
      ? table(
          checkHeader(true),
          gated.map((c) => checkRow(c, true, notes)),
        )
      : "_No gated metric could be compared._";
  const detection = detectionLine(verdict);
  const perCheck = catchesPerCheckLine(gated);
  const footnotes = notes.text();
  return [
    "### Gated checks",
    "",
    body,
    ...(footnotes ? ["", footnotes] : []),
    ...(detection ? ["", detection] : []),
    ...(perCheck ? ["", perCheck] : []),
    "",
    "↓ lower is better · ↑ higher is better · baseline and candidate are geometric means over runs · " +
      "decision interval: its worse end at the level the regression test faced (after Holm and the look's α" +
      (verdict.mode === "stored" ? ", with the session drift" : "") +
      "), its better end at the within-tolerance level: regression when the whole interval is beyond the tolerance, within tolerance when its worse end is inside; improvement needs the Holm-adjusted improvement test, so a row within tolerance can lie wholly beyond the tolerance on the better side · " +
      `p (adj.): Holm-adjusted p of the test against the tolerance · detectable: the smallest worsening these runs catch with 90% power (gate.detect_change ${formatFractionAsPercent(verdict.settings.detectChange)})`,
  ].join("\n");
}

/**
 * The comment's fold of the gated checks within tolerance, as a matrix of cells and metrics: each
 * crossing the change and its decision interval (or both values for a pooled count). Empty without any.
 */
export function withinToleranceFold(verdict: VerdictFile): string {
  const within = verdict.comparisons.filter((c) => c.gated && c.verdict === "within-tolerance");
  if (within.length === 0) return "";
  const column = (c: Comparison) => describeMetric(c.metric) + arrow(c);
  const items = within.map((c) => ({
    cell: escapeCell(c.cell, 40),
    column: column(c),
    value:
      c.ratio === null ? valuesOnBothSides(c) : `${formatChange(c.ratio)} (${formatIntervalOneLine(c.ci)})`,
  }));
  // Columns in the catalogue's order, whatever order the cells list them in.
  const order = [
    ...new Set(
      [...within].sort((a, b) => metricNames.indexOf(a.metric) - metricNames.indexOf(b.metric)).map(column),
    ),
  ];
  return fold(
    `${within.length} check${within.length === 1 ? "" : "s"} within tolerance`,
    [
      checkMatrix("Cell", items, order),
      "",
      "Change of each check, its decision interval in brackets; every value is in the full report.",
    ].join("\n"),
  );
}

/** "both 0.00%", or "0.10% → 0.20%". */
export function valuesOnBothSides(c: Pick<Comparison, "metric" | "baseline" | "candidate">): string {
  const base = formatMetricValue(c.metric, c.baseline);
  return base === formatMetricValue(c.metric, c.candidate)
    ? `both ${base}`
    : formatValuePair(c.metric, c.baseline, c.candidate);
}

/** The long form's folds: every metric of each cell, gated and advisory. */
export function perCellDetails(verdict: VerdictFile): string {
  const blocks: string[] = [];
  for (const cell of verdict.cells) {
    const rows = verdict.comparisons.filter((c) => c.cell === cell.name);
    if (rows.length === 0) continue;
    const notes = new Footnotes();
    const body = rows.map((c) => [...checkRow(c, false, notes), c.gated ? "gated" : "advisory"]);
    const cross = rows.filter((c) => c.crossCheck && c.gated);
    const footnotes = notes.text();
    blocks.push(
      fold(
        `All metrics: ${escapeHtml(cell.name, 60)} (${cell.baselineRuns} baseline, ${cell.candidateRuns} candidate runs)`,
        [
          table([...checkHeader(false), "Family"], body),
          ...(footnotes ? ["", footnotes] : []),
          ...(cross.length > 0
            ? [
                "",
                `Rank cross-check (never blocks): ${cross
                  .map(
                    (c) =>
                      `${describeMetric(c.metric)} Mann-Whitney p ${formatP(c.crossCheck!.mannWhitneyP)}, Hodges-Lehmann ${formatChange(c.crossCheck!.hodgesLehmannRatio)}`,
                  )
                  .join("; ")}.`,
              ]
            : []),
        ].join("\n"),
      ),
    );
  }
  return blocks.join("\n\n");
}
