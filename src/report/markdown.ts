import { impactMetrics, impactStanding, tallyOf } from "../compare/summary.js";
import type { Comparison, OverallVerdict, VerdictFile } from "../compare/verdict-schema.js";
import { describeMetric } from "../config/metric-names.js";
import { capacitySection } from "./capacity.js";
import { commentChartsSection } from "./charts/mermaid.js";
import { escapeHtml, escapeMarkdown, escapeValue } from "./escape.js";
import { familyFindingsSection } from "./families.js";
import {
  describeMetricRef,
  formatChange,
  formatFractionAsPercent,
  formatInterval,
  formatMetricValue,
  formatNumber,
  formatP,
  formatSignedNumber,
} from "./format.js";
import { qualitySection } from "./quality.js";

/** GitHub's limit on a comment body. */
export const commentBudget = 65_536;

export const verdictIcons: Record<OverallVerdict, string> = {
  pass: "✅",
  regression: "❌",
  inconclusive: "⚠️",
  "not-comparable": "🚫",
  error: "⛔",
};

export const metricVerdictLabels: Record<Comparison["verdict"], string> = {
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

const verdictTitles: Record<OverallVerdict, string> = {
  pass: "pass",
  regression: "regression",
  inconclusive: "inconclusive",
  "not-comparable": "not comparable",
  error: "error",
};

interface Section {
  /** Rendered in full. */
  full: string;
  /** What replaces it when the budget is short; null for the sections that are never shed. */
  short: string | null;
  /** Lower sheds first. */
  shedRank: number;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

function cellLabel(cell: string): string {
  return escapeMarkdown(cell, 60);
}

/** The interval column: the interval each verdict was decided on (levels in the note under the table). */
function confidenceLabel(): string {
  return "Decision interval";
}

/** "+12%": the smallest true worsening this run count catches with 90% power. */
export function formatDetectable(c: Pick<Comparison, "detectableChange" | "higherIsBetter">): string {
  if (c.detectableChange === null) return "–";
  // In the metric's own direction: a throughput worsening is a drop.
  if (c.higherIsBetter) return `−${((1 - 1 / (1 + c.detectableChange)) * 100).toFixed(1)}%`;
  return `+${(c.detectableChange * 100).toFixed(1)}%`;
}

/** "About 7 runs per side (+2) and ~24 GPU-minutes would settle it", for an inconclusive verdict. */
export function settleSentence(verdict: VerdictFile): string | null {
  const s = verdict.settle;
  if (!s) return null;
  if (s.runsPerSide === null)
    return `More runs up to repeats.max would not settle it with the current estimates (cell ${s.cells.join(", ")}).`;
  return `About ${s.runsPerSide} usable runs per side (${s.addRuns} more) and ~${Math.round(s.gpuMinutes ?? 0)} GPU-minutes would settle it if the estimates hold.`;
}

/** The headline's words, shared by the comment and report.html: verdict title, headline, counts (plain text). */
export function headlineWords(verdict: VerdictFile): { title: string; said: string; counts: string } {
  const c = verdict.counts;
  const counts = `${c.regression} regressed · ${c.improvement} improved · ${c.withinTolerance} within tolerance · ${c.inconclusive} inconclusive — ${c.gated} gated checks in ${verdict.cells.length} cell${verdict.cells.length === 1 ? "" : "s"}`;
  // The counts line says the tally the headline ends with: it is said once.
  const tally = ` (${tallyOf(verdict.counts)})`;
  const said = verdict.headline.endsWith(tally) ? verdict.headline.slice(0, -tally.length) : verdict.headline;
  return { title: verdictTitles[verdict.verdict], said, counts };
}

function headline(verdict: VerdictFile): string {
  const words = headlineWords(verdict);
  const title = `## ${verdictIcons[verdict.verdict]} vllm-perf-gate: ${words.title}`;
  // The headline and the next-look reason are our own words (counts only), so they are not escaped.
  const counts = words.counts.replace(/(^|· )(\d+) /g, "$1**$2** ");
  const lines = [title, "", `**${words.said}**`, "", counts];
  // The reason for "not comparable" is the verdict itself: it stays in the part no budget sheds.
  const blocking = blockingDifferenceLines(verdict, 5);
  if (blocking.length > 0) lines.push("", ...blocking);
  if (verdict.nextLook) {
    const n = verdict.nextLook;
    const added = `add ${n.addCandidateRuns} candidate${n.addBaselineRuns > 0 ? ` and ${n.addBaselineRuns} baseline` : ""} run${n.addCandidateRuns + n.addBaselineRuns === 1 ? "" : "s"}`;
    const cost = n.gpuMinutes === undefined ? "" : `, about ${Math.round(n.gpuMinutes)} GPU-minutes`;
    lines.push("", `**More runs needed:** ${n.runsPerSide} runs per side (${added}${cost}): ${n.reason}.`);
  }
  const settle = settleSentence(verdict);
  if (settle) lines.push("", settle);
  return lines.join("\n");
}

/**
 * What the changes mean for users at the measured load, quoting only what the verdict stands on: a
 * figure whose check was decided (regression or improvement) is quoted as a change; one that moved
 * for real but within tolerance says so; one within noise or not yet settled is named as such, with
 * no signed change a reader could take for a finding.
 */
function impactSection(verdict: VerdictFile): string {
  if (verdict.impact.length === 0) return "";
  const lines = ["### What it means at this load", ""];
  const alpha = verdict.settings.lookAlpha;
  for (const impact of verdict.impact) {
    const standing = (key: keyof typeof impactMetrics) =>
      impactStanding(
        verdict.comparisons.find((c) => c.cell === impact.cell && c.metric === impactMetrics[key]),
        alpha,
      );
    const figures: { key: keyof typeof impactMetrics; change: string; values: string; name: string }[] = [];
    if (impact.successfulPerHour) {
      const s = impact.successfulPerHour;
      figures.push({
        key: "successfulPerHour",
        name: "successful requests per hour",
        change: `${formatSignedNumber(s.change, "")} successful requests per hour`,
        values: `${formatNumber(s.baseline)} → ${formatNumber(s.candidate)}`,
      });
    }
    if (impact.ttftP95Ms) {
      const t = impact.ttftP95Ms;
      figures.push({
        key: "ttftP95Ms",
        name: "time to first token",
        change: `the slowest 5% wait ${formatSignedNumber(t.change, " ms")} for their first token`,
        values: `p95 ${formatNumber(t.baseline)} → ${formatNumber(t.candidate)} ms`,
      });
    }
    if (impact.e2elP95Ms) {
      const e = impact.e2elP95Ms;
      figures.push({
        key: "e2elP95Ms",
        name: "whole-answer time",
        change: `${formatSignedNumber(e.change, " ms")} for the whole answer`,
        values: `p95 ${formatNumber(e.baseline)} → ${formatNumber(e.candidate)} ms`,
      });
    }
    const parts: string[] = [];
    const quiet: Record<"noise" | "unsettled", string[]> = { noise: [], unsettled: [] };
    for (const figure of figures) {
      const judged = standing(figure.key);
      if (judged === "decided") parts.push(`${figure.change} (${figure.values})`);
      else if (judged === "within-tolerance")
        parts.push(`${figure.name} ${figure.values}: a real change, within tolerance`);
      else quiet[judged].push(`${figure.name} (${figure.values})`);
    }
    if (quiet.noise.length > 0)
      parts.push(
        `within noise (the runs cannot tell it from run-to-run variation): ${quiet.noise.join(", ")}`,
      );
    if (quiet.unsettled.length > 0) parts.push(`not settled yet: ${quiet.unsettled.join(", ")}`);
    if (parts.length > 0) lines.push(`- **${cellLabel(impact.cell)}**: ${parts.join("; ")}.`);
  }
  return lines.length > 2 ? lines.join("\n") : "";
}

function mixedSection(verdict: VerdictFile): string {
  if (verdict.mixed.length === 0) return "";
  const lines = ["> [!WARNING]", "> **Mixed result**: some phases got better while others got worse."];
  for (const mixed of verdict.mixed) {
    const names = (metrics: string[]) =>
      metrics.map((ref) => escapeMarkdown(describeMetricRef(ref), 120)).join(", ");
    lines.push(`> - ${cellLabel(mixed.cell)}: better ${names(mixed.better)}; worse ${names(mixed.worse)}.`);
  }
  return lines.join("\n");
}

/** The header of comparisonRow's columns: the two are kept side by side so they cannot drift apart. */
function comparisonHeader(withCell: boolean): string[] {
  const header = [
    "Metric",
    "Tolerance",
    "Baseline",
    "Candidate",
    "Change",
    confidenceLabel(),
    "p (adj.)",
    "Detectable",
    "Verdict",
  ];
  return withCell ? ["Cell", ...header] : header;
}

function comparisonRow(c: Comparison, withCell: boolean): string[] {
  const row = [
    describeMetric(c.metric) + (c.higherIsBetter ? " ↑" : " ↓"),
    `±${formatFractionAsPercent(c.tolerance)}`,
    formatMetricValue(c.metric, c.baseline),
    formatMetricValue(c.metric, c.candidate),
    formatChange(c.ratio),
    formatInterval(c.ci),
    formatP(c.p),
    formatDetectable(c),
    metricVerdictLabel(c) + (c.note ? ` (${escapeMarkdown(c.note, 160)})` : ""),
  ];
  return withCell ? [cellLabel(c.cell), ...row] : row;
}

/**
 * Per gated check, the smallest worsening this runner and run count catch at 90% power (the
 * comparison's detectable change, with a calibration's or main's pooled variance when one was used):
 * "catches ≥ +7.0% chat TTFT p95, ≥ −9.1% chat Output throughput".
 */
export function catchesPerCheckLine(
  gated: readonly Pick<Comparison, "cell" | "metric" | "detectableChange" | "higherIsBetter">[],
): string | null {
  const known = gated.filter((c) => c.detectableChange !== null);
  if (known.length === 0) return null;
  const cells = new Set(known.map((c) => c.cell));
  const items = known.map(
    (c) =>
      `≥ ${formatDetectable(c)} ${cells.size > 1 ? `${cellLabel(c.cell)} ` : ""}${describeMetric(c.metric)}`,
  );
  return `Per check at 90% power, these runs catch: ${items.join(", ")}.`;
}

function acceptanceSection(verdict: VerdictFile): string {
  const gated = verdict.comparisons.filter((c) => c.gated);
  const header = comparisonHeader(true);
  const body =
    gated.length > 0
      ? table(
          header,
          gated.map((c) => comparisonRow(c, true)),
        )
      : "_No gated metric could be compared._";
  const d = verdict.detection;
  const detection = d
    ? [
        "",
        `These runs catch a worsening of ${formatDetectable({ detectableChange: d.detectableChange, higherIsBetter: false })} or more with 90% power (least sensitive check: ${cellLabel(d.cell)} ${describeMetric(d.metric)}); ` +
          (d.detectableChange <= d.detectChange
            ? `that covers the +${formatFractionAsPercent(d.detectChange)} the gate must catch (gate.detect_change).`
            : d.runsPerSideForDetectChange === null
              ? `catching +${formatFractionAsPercent(d.detectChange)} (gate.detect_change) is out of reach with these conditions${verdict.mode === "stored" ? " (the stored baseline's drift does not shrink with runs)" : ""}.`
              : `catching +${formatFractionAsPercent(d.detectChange)} (gate.detect_change) needs about ${d.runsPerSideForDetectChange} runs per side.`),
      ]
    : [];
  const perCheck = catchesPerCheckLine(gated);
  return [
    "### Acceptance (gated metrics)",
    "",
    body,
    ...detection,
    ...(perCheck ? ["", perCheck] : []),
    "",
    "↓ lower is better · ↑ higher is better · baseline and candidate are geometric means over runs · " +
      "decision interval: its worse end at the level the regression test faced (after Holm and the look's α" +
      (verdict.mode === "stored" ? ", with the session drift" : "") +
      "), its better end at the within-tolerance level: regression when the whole interval is beyond the tolerance, within tolerance when its worse end is inside; improvement needs the Holm-adjusted improvement test, so a row within tolerance can lie wholly beyond the tolerance on the better side · " +
      `p (adj.): Holm-adjusted p of the test against the tolerance · detectable: the smallest worsening these runs catch with 90% power (gate.detect_change ${formatFractionAsPercent(verdict.settings.detectChange)})`,
  ].join("\n");
}

function cellsSection(verdict: VerdictFile): string {
  const problems = verdict.cells.filter((cell) => cell.status !== "compared");
  if (problems.length === 0) return "";
  return [
    "### Cells that could not be fully compared",
    "",
    ...problems.map(
      (cell) =>
        `- **${cellLabel(cell.name)}**: ${cell.status.replace(/-/g, " ")} (${cell.baselineRuns} baseline, ${cell.candidateRuns} candidate usable runs)${cell.note ? `: ${escapeMarkdown(cell.note, 200)}` : ""}`,
    ),
  ].join("\n");
}

/** What drift the stored comparison added, and where it came from (the prior or the baseline history). */
function driftNote(verdict: VerdictFile): string {
  const prior = formatNumber(verdict.settings.sessionDriftSd);
  const gated = new Set(verdict.settings.gatedMetrics);
  const all = Object.entries(verdict.settings.sessionDriftEstimates);
  const estimates =
    all.filter(([metric]) => gated.has(metric)).length > 0
      ? all.filter(([metric]) => gated.has(metric))
      : all;
  const fromHistory = estimates.filter(([, e]) => e.source === "history");
  if (fromHistory.length === 0)
    return `a between-session drift (sd ${prior} on the log scale, the prior \`gate.session_drift_sd\`: fewer than 2 baseline sessions to estimate it from) that more runs cannot remove is added to every interval.`;
  const sds = fromHistory.map(([, e]) => e.sd);
  const low = formatNumber(Math.min(...sds));
  const high = formatNumber(Math.max(...sds));
  const sessions = Math.min(...fromHistory.map(([, e]) => e.sessions));
  const weight = Math.min(...fromHistory.map(([, e]) => e.historyWeight));
  const screened = [...new Set(fromHistory.flatMap(([, e]) => e.screenedSessions))];
  const runs = Math.max(...fromHistory.map(([, e]) => e.screenedRuns));
  const screenedText = [
    screened.length > 0
      ? `${screened.length} outlier session${screened.length === 1 ? "" : "s"} screened (${screened.map((name) => escapeMarkdown(name.split(/[\\/]/).filter(Boolean).at(-1) ?? name, 60)).join(", ")})`
      : "",
    runs > 0 ? `${runs} outlier run${runs === 1 ? "" : "s"} screened` : "",
  ].filter((text) => text.length > 0);
  return `a between-session drift that more runs cannot remove is added to every interval: sd ${low === high ? low : `${low}–${high}`} on the log scale, estimated from ${sessions} baseline sessions and shrunk towards the prior ${prior} (history weight ${Number(weight.toFixed(2))})${screenedText.length > 0 ? `; ${screenedText.join(", ")}` : ""}.`;
}

function modeSection(verdict: VerdictFile, withMethod = true): string {
  const mode =
    verdict.mode === "interleaved"
      ? "**Mode: interleaved**: baseline and candidate ran in the same job on the same runner, so no session-drift term is added."
      : `**Mode: stored baseline**: the baseline came from another job, so ${driftNote(verdict)}`;
  const info = verdict.baselineInfo;
  const parts: string[] = [];
  if (info?.commit) parts.push(`commit ${escapeMarkdown(info.commit, 64)}`);
  if (info?.ref) parts.push(`ref ${escapeMarkdown(info.ref, 80)}`);
  if (info?.runId) parts.push(`run ${escapeMarkdown(info.runId, 64)}`);
  if (info?.date) parts.push(`date ${escapeMarkdown(info.date, 64)}`);
  if (info?.url) parts.push(`link ${escapeMarkdown(info.url, 200)}`);
  if (info?.note) parts.push(escapeMarkdown(info.note, 200));
  const baseline = parts.length > 0 ? `Baseline: ${parts.join(" · ")}.` : "Baseline: no provenance given.";
  const s = verdict.settings;
  const method = `Per cell and metric, one number per run (the run is the unit of replication); Welch's t on the logs; tolerance ±${formatFractionAsPercent(s.tolerance)} unless set per metric; ${gatedFamilyPhrase(s.gatedFamily)}, advisory metrics Benjamini-Hochberg; family confidence ${formatFractionAsPercent(s.confidence)}; regression means significantly worse than the tolerance (one-sided test against the margin at α = ${Number(s.lookAlpha.toPrecision(3))} per look before Holm; looks at ${s.looks.join("/")} runs per side), so a true change inside the tolerance is blocked at most ${formatFractionAsPercent(s.familyAlpha)} of the time; improvement is the mirror; within tolerance means the ${formatFractionAsPercent(1 - s.passAlpha)} upper bound is inside the tolerance; runs whose gated metrics sit more than ${s.outlierThreshold} robust sd from their side's median are screened out (sides of 5+ runs) and replaced; run-to-run sd is floored at ${s.minRunSd}.`;
  return [
    "### Comparison",
    "",
    mode,
    "",
    baseline,
    ...gpuMinutesLine(verdict),
    ...(withMethod ? ["", method] : []),
  ].join("\n");
}

/**
 * The gated family as the method line states it: how many tests Holm ran over, of which kinds, and the
 * tests left out because they cannot reach the level (compare/gated-family.ts).
 */
export function gatedFamilyPhrase(family: VerdictFile["settings"]["gatedFamily"]): string {
  if (!family) return "gated family Holm-corrected";
  const r = family.regression;
  const kinds = (
    [
      [r.speed, "speed"],
      [r.capacity, "capacity"],
      [r.guard, "guard"],
      [r.task, "task"],
    ] as const
  )
    .filter(([count]) => count > 0)
    .map(([count, kind]) => `${count} ${kind}`);
  const leftOut = r.leftOut > 0 ? `; ${r.leftOut} that cannot reach the level left out` : "";
  const detail = kinds.length > 0 || leftOut ? ` (${kinds.join(", ")}${leftOut})` : "";
  const tests = family.familyTests?.total ?? 0;
  if (tests > 0)
    return `gated family of ${r.total} test${r.total === 1 ? "" : "s"}${detail} and ${tests} family test${tests === 1 ? "" : "s"} (a metric across a workload family's cells, ${formatFractionAsPercent(family.familyTests!.weight)} of each grouped check's share) corrected together by a graphical procedure that is Holm's without them`;
  return `gated family of ${r.total} test${r.total === 1 ? "" : "s"}${detail} Holm-corrected together`;
}

/** One line: what the comparison's runs cost, every server start counted. */
function gpuMinutesLine(verdict: VerdictFile): string[] {
  const g = verdict.gpuMinutes;
  if (!g) return [];
  const round = (minutes: number) => (minutes < 10 ? minutes.toFixed(1) : String(Math.round(minutes)));
  const runs = g.sides === "both" ? "measured runs on both sides" : "the candidate's measured runs";
  const starts = `${g.serverStarts} server start${g.serverStarts === 1 ? "" : "s"} at ${round(g.serverStartS / 60)} min each`;
  const stored = g.sides === "both" ? "" : " (the stored baseline was measured once, in its own job)";
  return [
    "",
    `GPU time: ~${round(g.total)} GPU-minutes: ${round(g.runs)} min of ${runs} plus ${starts}${stored}.`,
  ];
}

function warningsSection(verdict: VerdictFile, limit: number): string {
  if (verdict.warnings.length === 0) return "";
  const shown = verdict.warnings.slice(0, limit).map((w) => `- ${escapeMarkdown(w, 300)}`);
  if (verdict.warnings.length > limit)
    shown.push(`- … and ${verdict.warnings.length - limit} more (see verdict.json)`);
  return ["### Warnings", "", ...shown].join("\n");
}

function excludedSection(verdict: VerdictFile, full: boolean): string {
  const excluded = verdict.runs.excluded;
  if (excluded.length === 0) return "";
  if (!full) return `### Runs excluded\n\n${excluded.length} runs were excluded (details in verdict.json).`;
  const rows = excluded.map((run) => [
    run.side,
    cellLabel(run.cell),
    run.run === null ? "–" : `run-${run.run}`,
    escapeMarkdown(run.reasons.join("; "), 200),
    escapeMarkdown(run.source, 120),
  ]);
  return ["### Runs excluded", "", table(["Side", "Cell", "Run", "Why", "File"], rows)].join("\n");
}

/** The fields that make the sides not comparable, each with its value on both sides (at most `limit`). */
function blockingDifferenceLines(verdict: VerdictFile, limit: number): string[] {
  const blocking = verdict.fingerprints.differences.filter((d) => !d.allowed && !d.informational);
  const lines = blocking
    .slice(0, limit)
    .map(
      (d) =>
        `- not comparable: ${escapeMarkdown(d.field, 80)}: ${escapeValue(d.baseline, 60)} (baseline) vs ${escapeValue(d.candidate, 60)} (candidate)`,
    );
  if (blocking.length > limit) lines.push(`- … and ${blocking.length - limit} more (see verdict.json)`);
  return lines;
}

/** Differing values are shown around where they differ, this many characters each in the table. */
const differenceExcerptLength = 60;
/** Full values of differing fields are wrapped at this width, and cut after this many characters. */
const fullValueWrap = 100;
export const fullValueMaxChars = 4000;

function valueText(value: unknown): string {
  if (value === undefined || value === null) return "–";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The part of `text` from a little before `from` (where the two values first differ), at most `width`
 * characters, with "…" where something was left out: a long `server.command` that differs only near its
 * end shows that end, not the shared beginning.
 */
export function excerptAround(
  text: string,
  from: number,
  width = differenceExcerptLength,
  /** The shorter of the two values, so both excerpts start at the same place and line up. */
  alignTo = text.length,
): string {
  const flat = text.replace(/[\r\n\t\u2028\u2029]+/g, " ");
  if (flat.length <= width) return flat;
  const lead = 12;
  const start = Math.max(0, Math.min(from - lead, Math.min(flat.length, alignTo) - (width - 1)));
  const head = start > 0 ? "…" : "";
  // The longer value gets its extra characters (up to `width` more), so both end at the same place.
  const room = width - head.length + Math.min(width, Math.max(0, flat.length - alignTo));
  const body = flat.slice(start, start + room);
  return start + room < flat.length ? `${head}${body.slice(0, -1)}…` : `${head}${body}`;
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** A long value as lines of at most `width` characters, broken after spaces or commas where possible. */
export function wrapValue(text: string, width = fullValueWrap): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let rest = paragraph;
    while (rest.length > width) {
      const window = rest.slice(0, width);
      const breakAt = Math.max(window.lastIndexOf(" "), window.lastIndexOf(","));
      const cut = breakAt > width / 2 ? breakAt + 1 : width;
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    lines.push(rest);
  }
  return lines;
}

/** One field's full value in a <pre> block: HTML-escaped, wrapped, cut at fullValueMaxChars. */
function fullValueBlock(value: unknown): string {
  const text = valueText(value);
  const cut = text.length > fullValueMaxChars;
  const shown = cut ? text.slice(0, fullValueMaxChars) : text;
  const lines = wrapValue(shown).map((line) => escapeHtml(line, Number.POSITIVE_INFINITY));
  if (cut) lines.push(`… ${text.length - fullValueMaxChars} more characters in verdict.json`);
  return `<pre>${lines.join("\n")}</pre>`;
}

/**
 * The differing fields only: each value in the table is an excerpt around where the two sides first
 * differ (so the real difference is visible however long the value), and the full values of those
 * fields follow, wrapped, in a collapsed section.
 */
function environmentSection(verdict: VerdictFile, full: boolean): string {
  const differences = verdict.fingerprints.differences;
  const lines = ["### Environment", ""];
  if (differences.length === 0) lines.push("Baseline and candidate ran under the same recorded conditions.");
  else if (!full) {
    lines.push(`${differences.length} recorded conditions differ (details in verdict.json).`);
    lines.push(...blockingDifferenceLines(verdict, 5));
  } else {
    const rows = differences.map((d) => {
      const base = valueText(d.baseline);
      const cand = valueText(d.candidate);
      const from = firstDifference(base, cand);
      return [
        escapeMarkdown(d.field, 80),
        escapeMarkdown(
          excerptAround(base, from, differenceExcerptLength, Math.min(base.length, cand.length)),
          Number.POSITIVE_INFINITY,
        ),
        escapeMarkdown(
          excerptAround(cand, from, differenceExcerptLength, Math.min(base.length, cand.length)),
          Number.POSITIVE_INFINITY,
        ),
        d.informational ? "yes (recorded only)" : d.allowed ? "yes (under test)" : "**no**",
        d.cells.length > 3 ? `${d.cells.length} cells` : d.cells.map((cell) => cellLabel(cell)).join(", "),
      ];
    });
    lines.push(table(["Field", "Baseline", "Candidate", "Allowed", "Cells"], rows));
    const long = differences.filter(
      (d) =>
        valueText(d.baseline).length > differenceExcerptLength ||
        valueText(d.candidate).length > differenceExcerptLength,
    );
    if (long.length > 0) {
      lines.push(
        "",
        "<details><summary>Full values of the differing fields</summary>",
        "",
        ...long.flatMap((d) => [
          `<b>${escapeHtml(d.field, 80)}</b>, baseline:`,
          fullValueBlock(d.baseline),
          "candidate:",
          fullValueBlock(d.candidate),
          "",
        ]),
        "</details>",
      );
    }
  }
  return lines.join("\n");
}

function fingerprintDetails(verdict: VerdictFile): string {
  const base = verdict.fingerprints.baseline;
  const cand = verdict.fingerprints.candidate;
  const fields = [...new Set([...Object.keys(base), ...Object.keys(cand)])].sort();
  if (fields.length === 0) return "";
  const rows = fields.map((field) => [
    escapeMarkdown(field, 80),
    escapeValue(base[field]),
    escapeValue(cand[field]),
  ]);
  return [
    "<details><summary>All recorded conditions</summary>",
    "",
    table(["Field", "Baseline", "Candidate"], rows),
    "",
    "</details>",
  ].join("\n");
}

function perCellDetails(verdict: VerdictFile): string {
  const blocks: string[] = [];
  for (const cell of verdict.cells) {
    const rows = verdict.comparisons.filter((c) => c.cell === cell.name);
    if (rows.length === 0) continue;
    const header = [...comparisonHeader(false), "Family"];
    const body = rows.map((c) => [...comparisonRow(c, false), c.gated ? "gated" : "advisory"]);
    const cross = rows.filter((c) => c.crossCheck && c.gated);
    blocks.push(
      [
        `<details><summary>All metrics: ${escapeHtml(cell.name, 60)} (${cell.baselineRuns} baseline, ${cell.candidateRuns} candidate runs)</summary>`,
        "",
        table(header, body),
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
        "",
        "</details>",
      ].join("\n"),
    );
  }
  return blocks.join("\n\n");
}

/**
 * The PR comment. Sections shed in a fixed order when the body would exceed the budget: the mermaid
 * pictures, then per-cell detail, then all conditions, then the excluded-run table, then the
 * environment differences, then warnings. The headline and the acceptance table are never shed.
 */
export function renderMarkdown(
  verdict: VerdictFile,
  budget = commentBudget,
  /** Sections rendered elsewhere (report/history.ts), after the acceptance table; shed before warnings. */
  extraSections: readonly string[] = [],
): string {
  const sections: Section[] = [
    { full: headline(verdict), short: null, shedRank: Number.POSITIVE_INFINITY },
    { full: mixedSection(verdict), short: null, shedRank: Number.POSITIVE_INFINITY },
    { full: impactSection(verdict), short: "", shedRank: 6 },
    {
      // A comparison of capacity cells only has no per-metric checks: its acceptance is the capacity section's.
      full:
        verdict.cells.length === 0 && (verdict.capacity?.length ?? 0) > 0 ? "" : acceptanceSection(verdict),
      short: null,
      shedRank: Number.POSITIVE_INFINITY,
    },
    { full: familyFindingsSection(verdict), short: null, shedRank: Number.POSITIVE_INFINITY },
    { full: capacitySection(verdict), short: null, shedRank: Number.POSITIVE_INFINITY },
    { full: qualitySection(verdict), short: null, shedRank: Number.POSITIVE_INFINITY },
    ...extraSections.map((full) => ({ full, short: "", shedRank: 4.5 })),
    // The pictures (mermaid, report/charts/mermaid.ts) go first when the comment is over budget.
    { full: commentChartsSection(verdict), short: "", shedRank: -1 },
    { full: cellsSection(verdict), short: "", shedRank: 5 },
    { full: modeSection(verdict), short: modeSection(verdict, false), shedRank: 7 },
    { full: warningsSection(verdict, 50), short: warningsSection(verdict, 3), shedRank: 4 },
    { full: excludedSection(verdict, true), short: excludedSection(verdict, false), shedRank: 2 },
    { full: environmentSection(verdict, true), short: environmentSection(verdict, false), shedRank: 3 },
    { full: fingerprintDetails(verdict), short: "", shedRank: 1 },
    { full: perCellDetails(verdict), short: "", shedRank: 0 },
  ];
  const footer = `<sub>vllm-perf-gate ${escapeHtml(verdict.tool.version, 40)} · verdict.json schema ${verdict.schemaVersion}</sub>`;
  const render = (parts: readonly string[]) =>
    [...parts.filter((p) => p.length > 0), footer].join("\n\n") + "\n";
  const current = sections.map((s) => s.full);
  let text = render(current);
  const order = sections
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => s.short !== null)
    .sort((a, b) => a.s.shedRank - b.s.shedRank);
  let shedAny = false;
  for (const { s, i } of order) {
    if (text.length <= budget) break;
    current[i] = s.short!;
    shedAny = true;
    text = render([
      ...current,
      "_Some detail was left out to fit the comment size limit; verdict.json has everything._",
    ]);
  }
  if (text.length > budget) {
    // Only reachable with hundreds of gated checks: keep the head, say so plainly.
    const note = "\n\n_Truncated to fit the comment size limit; verdict.json has everything._\n";
    text = text.slice(0, budget - note.length) + note;
  } else if (!shedAny) text = render(current);
  return text;
}
