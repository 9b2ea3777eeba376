import type { CapacityComparison, CapacitySide } from "../compare/verdict/capacity-schema.js";
import type { VerdictFile } from "../compare/verdict/verdict-schema.js";
import {
  describeMetric,
  isMetricName,
  type LatencyStatistic,
  latencyPhaseLabel,
  latencyStatisticSpec,
  metricSpecs,
} from "../config/metric-names.js";
import { escapeCell, escapeHtml, escapeInline } from "./escape.js";
import {
  formatChange,
  formatDuration,
  formatInterval,
  formatNumber,
  formatP,
  formatSignedNumber,
  slowestUsers,
} from "./format.js";
import { fold, table } from "./markdown-blocks.js";
import { type Markup, markdownMarkup } from "./markup.js";

/**
 * The capacity section of the report (docs/capacity.md): per capacity cell one sentence answering "how
 * many more requests per hour at our SLOs, what 1,000 of them cost, how long the slowest users wait", the
 * acceptance table (each SLO, its threshold, each side's value at the baseline's capacity, pass/fail) and
 * the figures per side. Empty when the comparison has no capacity cell.
 */

const verdictLabels: Record<CapacityComparison["verdict"], string> = {
  regression: "🔴 capacity regression",
  improvement: "🟢 capacity improvement",
  "within-tolerance": "⚪ capacity within tolerance",
  inconclusive: "🟡 capacity inconclusive",
};

/**
 * An objective (a catalogue metric, compare/capacity/capacity.ts `capacityObjectivesOf`) as the acceptance
 * table names it, "p95 TTFT" or "error rate": its words from the catalogue, so no second list of phase
 * labels.
 */
function describeObjective(name: string): string {
  if (!isMetricName(name)) return escapeCell(name, 100);
  const source = metricSpecs[name].source;
  return source.kind === "latency"
    ? `${latencyStatisticSpec(source.statistic).label} ${latencyPhaseLabel(source.phase)}`
    : describeMetric(name).toLowerCase();
}

function formatObjectiveValue(name: string, value: number | null): string {
  if (value === null || !Number.isFinite(value)) return "–";
  return name === "error_rate" ? `${(value * 100).toFixed(2)}%` : formatMs(value);
}

const formatMs = formatDuration;

function loadUnit(check: CapacityComparison): string {
  if (check.unit === "sessions") return check.dimension === "rate" ? "sessions/s" : "sessions in flight";
  return check.dimension === "rate" ? "req/s" : "in flight";
}

function formatUsd(value: number): string {
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toPrecision(2)}`;
}

function sloClause(check: CapacityComparison): string {
  const parts: string[] = [];
  if (check.slo.ttft_ms !== undefined)
    parts.push(`${check.percentile} TTFT ≤ ${formatMs(check.slo.ttft_ms)}`);
  if (check.slo.tpot_ms !== undefined)
    parts.push(`${check.percentile} TPOT ≤ ${formatMs(check.slo.tpot_ms)}`);
  if (check.slo.e2el_ms !== undefined) parts.push(`${check.percentile} E2E ≤ ${formatMs(check.slo.e2el_ms)}`);
  parts.push(`errors ≤ ${Number((check.errorRateLimit * 100).toPrecision(3))}%`);
  return parts.join(", ");
}

function perHour(side: CapacitySide): string {
  return side.successfulPerHour === null ? "–" : Math.round(side.successfulPerHour).toLocaleString("en-US");
}

/**
 * What a capacity cell's answer counts per hour: successful requests, or for a session cell completed
 * sessions per GPU-hour (a session is many requests; what an agent's operator plans by).
 */
function answerOf(check: CapacityComparison) {
  if (check.unit === "sessions")
    return {
      value: (side: CapacitySide) => side.sessionsPerGpuHour,
      unit: "sessions per GPU-hour",
      per: "per GPU-hour",
    };
  return { value: (side: CapacitySide) => side.successfulPerHour, unit: "requests/h", per: "per hour" };
}

function countOf(value: number | null): string {
  return value === null ? "–" : Math.round(value).toLocaleString("en-US");
}

/**
 * The one sentence of a capacity cell, both sides: requests per hour at the SLOs, how long the slowest
 * users wait for their first token there, what 1,000 successful requests cost.
 */
export function capacitySentence(check: CapacityComparison, markup: Markup = markdownMarkup): string {
  const { baseline: b, candidate: c } = check;
  const answer = answerOf(check);
  const lead = `At ${sloClause(check)},`;
  if (c.bound === "below")
    return `${lead} the candidate meets the SLOs at no load measured (${markup.text(c.note ?? "", 200)}); the baseline completes ${countOf(answer.value(b))} ${answer.unit}.`;
  if (b.capacity === null || c.capacity === null)
    return `${lead.slice(0, -1)}: ${markup.text(check.note ?? "no capacity", 200)}.`;
  const change =
    check.ratio === null
      ? ""
      : ` (capacity ${formatChange(check.ratio)}${check.ci ? `, ${Math.round(check.ciLevel * 100)}% CI ${formatInterval(check.ci).replace(" … ", " to ")}` : ""})`;
  const atLeast = (side: CapacitySide) => (side.bound === "above" ? "at least " : "");
  const bValue = answer.value(b);
  const cValue = answer.value(c);
  const more =
    bValue !== null && cValue !== null && b.bound === "inside" && c.bound === "inside"
      ? `, ${Math.abs(Math.round(cValue - bValue)).toLocaleString("en-US")} ${cValue >= bValue ? "more" : "fewer"} ${answer.per}`
      : "";
  const parts = [
    `${lead} the candidate completes ${atLeast(c)}${countOf(cValue)} ${answer.unit} against the baseline's ${atLeast(b)}${countOf(bValue)}${more}${change}`,
  ];
  if (c.ttftAtCapacityMs !== null)
    parts.push(
      `at that load ${slowestUsers(check.percentile as LatencyStatistic)} wait ${formatMs(c.ttftAtCapacityMs)} for their first token${b.ttftAtCapacityMs === null ? "" : ` (baseline, at its capacity: ${formatMs(b.ttftAtCapacityMs)})`}`,
    );
  if (c.costPer1000 !== null)
    parts.push(
      `${formatUsd(c.costPer1000)} per 1,000 successful requests${b.costPer1000 === null ? "" : ` against ${formatUsd(b.costPer1000)}`}${check.costRatio === null ? "" : ` (${formatChange(check.costRatio)})`}`,
    );
  return `${parts.join("; ")}.`;
}

function sideRow(name: string, check: CapacityComparison, side: CapacitySide): string[] {
  const capacity =
    side.capacity === null
      ? "–"
      : `${side.bound === "above" ? "≥ " : side.bound === "below" ? "< " : ""}${formatNumber(side.capacity)} ${loadUnit(check)}`;
  const interval =
    side.interval === null ? "–" : `${formatNumber(side.interval[0])} to ${formatNumber(side.interval[1])}`;
  return [
    name,
    capacity,
    interval,
    `${side.runs} at ${side.loads} loads`,
    ...(check.unit === "sessions" ? [countOf(side.sessionsPerGpuHour)] : []),
    perHour(side),
    side.outputTokensPerSecondPerGpu === null ? "–" : formatNumber(side.outputTokensPerSecondPerGpu),
    side.outputTokensPerSecondPerUser === null ? "–" : formatNumber(side.outputTokensPerSecondPerUser),
    side.ttftAtCapacityMs === null ? "–" : formatMs(side.ttftAtCapacityMs),
    side.costPer1000 === null ? "–" : formatUsd(side.costPer1000),
  ];
}

const passMark = (pass: boolean | null) => (pass === null ? "" : pass ? " ✅" : " ❌");

/** A capacity cell's tables: each SLO at the highest load the baseline met them all, and both sides' figures. */
function capacityTables(check: CapacityComparison): string {
  const load = check.acceptance.load;
  return [
    load === null
      ? "Acceptance: no load measured at which the baseline met every SLO and a higher one missed it, so no stated load to read the SLOs at."
      : `Acceptance at ${formatNumber(load)} ${loadUnit(check)}, the highest load measured at which the baseline met every SLO (thresholds from the config):`,
    "",
    table(
      ["SLO", "Threshold", "Baseline", "Candidate"],
      check.acceptance.rows.map((row) => [
        describeObjective(row.objective),
        `≤ ${formatObjectiveValue(row.objective, row.threshold)}`,
        `${formatObjectiveValue(row.objective, row.baseline)}${passMark(row.baselinePass)}`,
        `${formatObjectiveValue(row.objective, row.candidate)}${passMark(row.candidatePass)}`,
      ]),
    ),
    "",
    table(
      [
        "Side",
        "Capacity",
        `${Math.round(check.ciLevel * 100)}% interval`,
        "Runs",
        ...(check.unit === "sessions" ? ["Sessions per GPU-hour"] : []),
        "Successful req/h",
        "Output tok/s per GPU",
        "Output tok/s per user",
        `${check.percentile} TTFT there`,
        "$ per 1,000",
      ],
      [sideRow("Baseline", check, check.baseline), sideRow("Candidate", check, check.candidate)],
    ),
  ].join("\n");
}

/**
 * The first screen's answer for capacity cells, both sides side by side: at the SLOs (stated above the
 * rows), how many requests per hour each completes, how long the slowest users wait for their first
 * token there, and what 1,000 successful requests cost. Rows of escaped cells and our own figures.
 */
export function capacityAnswerRows(
  checks: readonly CapacityComparison[],
  cell: (value: string) => string,
): { slos: string[]; header: string[]; rows: string[][]; note: string } {
  const percentiles = new Set(checks.map((check) => check.percentile));
  const wait =
    percentiles.size === 1
      ? `How long ${slowestUsers([...percentiles][0] as LatencyStatistic)} wait for the first token there`
      : "How long the slowest users wait for the first token there";
  const bound = (side: CapacitySide) => (side.bound === "above" ? "≥ " : side.bound === "below" ? "< " : "");
  const units = new Set(checks.map((check) => check.unit));
  // One unit in the header when every row has it; with both, each session cell's value names its own.
  const header =
    units.size > 1
      ? "Per hour at the SLOs"
      : units.has("sessions")
        ? "Sessions per GPU-hour at the SLOs"
        : "Requests per hour at the SLOs";
  const rows = checks.flatMap((check) =>
    (["baseline", "candidate"] as const).map((name) => {
      const side = check[name];
      const answer = answerOf(check);
      const value = answer.value(side);
      const baseValue = answer.value(check.baseline);
      const change =
        name === "candidate" && check.ratio !== null && baseValue !== null && value !== null
          ? ` (${formatSignedNumber(value - baseValue, "")}, ${formatChange(check.ratio)})`
          : "";
      const unit = units.size > 1 ? (check.unit === "sessions" ? ` ${answer.unit}` : " requests") : "";
      return [
        name === "baseline" ? cell(check.cell) : "",
        name,
        value === null
          ? side.bound === "below"
            ? "none: no load met the SLOs"
            : "–"
          : `${bound(side)}${countOf(value)}${unit}${change}`,
        side.ttftAtCapacityMs === null
          ? "–"
          : `${formatMs(side.ttftAtCapacityMs)}${percentiles.size === 1 ? "" : ` (${check.percentile})`}`,
        side.costPer1000 === null ? "–" : formatUsd(side.costPer1000),
      ];
    }),
  );
  return {
    slos: checks.map((check) => `${cell(check.cell)} at ${sloClause(check)}`),
    header: ["Cell", "Side", header, wait, "$ per 1,000"],
    rows,
    note: [
      ...(units.has("requests")
        ? [
            "Requests per hour: successful requests at the highest load at which every SLO held (the capacity)",
          ]
        : []),
      ...(units.has("sessions")
        ? [
            "Sessions per GPU-hour: completed sessions at the highest load at which every SLO held (the capacity), per GPU (cost.gpus)",
          ]
        : []),
      "the wait: at that load",
    ].join("; "),
  };
}

/** The long form: per capacity cell its verdict and sentence, its note and its tables. */
export function capacitySection(verdict: VerdictFile): string {
  const checks = verdict.capacity ?? [];
  if (checks.length === 0) return "";
  const lines = ["### Capacity at the SLOs"];
  for (const check of checks) {
    lines.push(
      "",
      `**${escapeInline(check.cell, 60)}** — ${verdictLabels[check.verdict]}${check.gated ? "" : " (advisory)"}${check.p === null ? "" : `, p ${formatP(check.p)}`}: ${capacitySentence(check)}`,
    );
    if (check.note) lines.push("", `_${escapeInline(check.note, 300)}_`);
    lines.push("", capacityTables(check));
  }
  return lines.join("\n");
}

/** The comment: per capacity cell a fold with its tables (the first screen has its sentence). */
export function capacityFolds(verdict: VerdictFile): string {
  return (verdict.capacity ?? [])
    .map((check) =>
      fold(
        `Capacity of ${escapeHtml(check.cell, 60)}: ${verdictLabels[check.verdict].replace(/^\S+ /, "")}${check.p === null ? "" : `, p ${formatP(check.p)}`}; each SLO and both sides`,
        capacityTables(check),
      ),
    )
    .join("\n\n");
}
