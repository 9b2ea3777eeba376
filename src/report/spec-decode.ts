import type {
  SpecDecodeCell,
  SpecDecodeDecomposition,
  SpecDecodeFactor,
  SpecDecodeRole,
} from "../compare/verdict/spec-decode-schema.js";
import type { Comparison, VerdictFile } from "../compare/verdict/verdict-schema.js";
import { describeMetric, type MetricName } from "../config/metric-names.js";
import { escapeCell, escapeHtml, escapeInline } from "./escape.js";
import { formatChange, formatIntervalOneLine, formatValuePair } from "./format.js";
import { fold, table } from "./markdown-blocks.js";

/**
 * Speculative decoding in the report (docs/metrics.md, "Speculative decoding"), from verdict.json's
 * `specDecode`: each side's acceptance per cell, and each taken-apart change in words: "TPOT p95 +12%
 * (+9 … +15%): acceptance length −9% (…) (the drafter), time per step +2% (…) (within noise)". The long
 * form has every spec-decode cell; the comment folds the cells where something changed. The words here are
 * shared with report.html (`specDecodeLines`), so both say the same.
 */

const rateMetric: MetricName = "spec_decode_acceptance_rate";
const lengthMetric: MetricName = "spec_decode_acceptance_length";

/** "+12.0% (+9.1 … +15.0%)": a factor's change and its interval. */
function factorText(factor: SpecDecodeFactor): string {
  return `${formatChange(factor.ratio)} (${formatIntervalOneLine(factor.ci)})`;
}

const minorWords: Record<Exclude<SpecDecodeRole, "main">, string> = {
  minor: "a small part",
  "within-noise": "within noise",
};

/** Which way the engine step moved, in words; a small part, or within the runs' noise. */
function stepWords(d: SpecDecodeDecomposition): string {
  if (d.perStep.role !== "main") return minorWords[d.perStep.role];
  const up = d.perStep.ratio > 1;
  if (d.perStep.kind === "time-per-step") return up ? "slower steps" : "faster steps";
  return up ? "more steps per second" : "fewer steps per second";
}

/**
 * One taken-apart change as a sentence (plain text, the cell name left to the caller):
 * "TPOT p95 +35.2% (+33.1 … +37.4%): acceptance length −26.1% (…) (the drafter), time per step −0.4% (…) (within noise)".
 */
function decompositionSentence(d: SpecDecodeDecomposition): string {
  const perStep = d.perStep.kind === "time-per-step" ? "time per step" : "engine steps per second";
  const drafter = d.acceptanceLength.role === "main" ? "the drafter" : minorWords[d.acceptanceLength.role];
  return `${describeMetric(d.metric)} ${factorText(d.change)}: acceptance length ${factorText(d.acceptanceLength)} (${drafter}), ${perStep} ${factorText(d.perStep)} (${stepWords(d)})`;
}

/** The assumptions every decomposition rests on, said once under it. */
export const decompositionAssumptions =
  "Tokens per engine step of a request = the mean acceptance length (1 + accepted tokens / draft rounds), assuming one draft round per step; the counters are vLLM's, as deltas over the measured phase (scraped right before and after it); time per step = TPOT × tokens per step, engine steps per second = output throughput / tokens per step. Intervals are the plain two-sided ones of the checks (ci90); within noise: the interval holds 0%; a small part: beyond noise, but less than a quarter of the other factor's change.";

function comparisonOf(verdict: VerdictFile, cell: string, metric: MetricName): Comparison | undefined {
  return verdict.comparisons.find((c) => c.cell === cell && c.metric === metric);
}

/** A comparison moved beyond the runs' noise: its plain interval excludes no change. */
function moved(c: Comparison | undefined): boolean {
  return c?.ci90 != null && (c.ci90[0] > 1 || c.ci90[1] < 1);
}

/** Acceptance or a taken-apart change moved in this cell: what the comment shows. */
function changed(verdict: VerdictFile, cell: SpecDecodeCell): boolean {
  return (
    moved(comparisonOf(verdict, cell.cell, rateMetric)) ||
    moved(comparisonOf(verdict, cell.cell, lengthMetric)) ||
    cell.decompositions.some((d) => d.change.significant)
  );
}

/** "79.8% → 59.9% (−24.9%, −26.0 … −23.8%)": both sides and, when compared, the change with its interval. */
function acceptanceCell(
  verdict: VerdictFile,
  cell: SpecDecodeCell,
  metric: MetricName,
  pick: (side: SpecDecodeCell["baseline"]) => number | null,
): string {
  const values = formatValuePair(metric, pick(cell.baseline), pick(cell.candidate));
  const c = comparisonOf(verdict, cell.cell, metric);
  if (!c || c.ratio === null) return values;
  return `${values} (${formatChange(c.ratio)}${c.ci90 ? `, ${formatIntervalOneLine(c.ci90)}` : ""})`;
}

function acceptanceTable(verdict: VerdictFile, cells: readonly SpecDecodeCell[]): string {
  return table(
    ["Cell", "Draft acceptance rate", "Mean acceptance length", "Runs with counters"],
    cells.map((cell) => [
      escapeCell(cell.cell, 60),
      acceptanceCell(verdict, cell, rateMetric, (side) => side.acceptanceRate),
      acceptanceCell(verdict, cell, lengthMetric, (side) => side.acceptanceLength),
      `${cell.baseline.runs} / ${cell.candidate.runs}`,
    ]),
  );
}

/** Per cell its sentences (plain text): each decomposition, or why there is none. */
export function specDecodeLines(cell: SpecDecodeCell): string[] {
  if (cell.decompositions.length === 0) return cell.note ? [`not taken apart: ${cell.note}`] : [];
  return cell.decompositions.map(decompositionSentence);
}

function sentences(cells: readonly SpecDecodeCell[]): string[] {
  return cells.flatMap((cell) =>
    specDecodeLines(cell).map((line) => `- **${escapeInline(cell.cell, 60)}**: ${escapeInline(line, 400)}`),
  );
}

/** The long form's section: every spec-decode cell's acceptance and taken-apart changes; "" without any. */
export function specDecodeSection(verdict: VerdictFile): string {
  const cells = verdict.specDecode ?? [];
  if (cells.length === 0) return "";
  return [
    "### Speculative decoding",
    "",
    acceptanceTable(verdict, cells),
    "",
    "Baseline → candidate, geometric means over the runs with the counters; the change and its interval (ci90) as the advisory checks have them.",
    "",
    ...sentences(cells),
    "",
    `_${decompositionAssumptions}_`,
  ].join("\n");
}

/** The comment's fold: the cells whose acceptance or taken-apart change moved; "" when none did. */
export function specDecodeFold(verdict: VerdictFile): string {
  const cells = (verdict.specDecode ?? []).filter((cell) => changed(verdict, cell));
  if (cells.length === 0) return "";
  const names = cells.map((cell) => cell.cell);
  const shown = names.slice(0, 3).join(", ") + (names.length > 3 ? `, and ${names.length - 3} more` : "");
  return fold(
    escapeHtml(`Speculative decoding: acceptance and the engine step, taken apart (${shown})`, 200),
    [
      acceptanceTable(verdict, cells),
      "",
      ...sentences(cells),
      "",
      "One draft round per engine step assumed; the full report says how it is computed.",
    ].join("\n"),
  );
}
