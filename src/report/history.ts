import type { AlreadyOnMain, SeriesChangePoint } from "../compare/history/history-analysis.js";
import { describeMetric, type MetricName } from "../config/metric-names.js";
import { escapeCell, escapeInline } from "./escape.js";
import { formatChange, formatInterval, formatMetricValue, formatNumber } from "./format.js";

/**
 * The "Main's history" section of the PR comment and of the baseline job's summary: where the history
 * came from (or why it was refused and what the gate did instead), the sessions it used and left out,
 * main's change points, and "main already regressed". Pure: every string from the history is escaped.
 */

export interface HistoryReport {
  /** "branch perf-history (vllm-perf-gate/history.jsonl)" or "artifact file …". */
  store: string;
  /** A refused history: the message, and what the gate used instead. */
  refused: string | null;
  /** Sessions whose runs the gate used (drift and pooled run variance). */
  sessionsUsed: number;
  /** Degrees of freedom the baseline's run variance gained from the history (fewest over checks). */
  pooledDf: number | null;
  leftOut: { session: string; commit: string; reason: string }[];
  /** Baseline job: what was written. */
  written: { appended: number; droppedSessions: number; conflicts: number } | null;
  changePoints: SeriesChangePoint[];
  /** Regressions of the PR that main already has; `blocking` when history-main-regressed is block. */
  alreadyOnMain: { explained: AlreadyOnMain[]; onlyReproduces: boolean; blocking: boolean } | null;
}

/** The store's description as a code span (backticks removed: it comes from inputs). */
const store = (text: string) => `\`${text.replace(/[`\r\n]/g, "").slice(0, 200)}\``;

/** A commit's first 12 characters as code; only letters and digits (a history is untrusted input). */
const short = (commit: string) => `\`${commit.slice(0, 12).replace(/[^0-9A-Za-z]/g, "") || "?"}\``;

function changePointTable(points: readonly SeriesChangePoint[]): string[] {
  if (points.length === 0) return [];
  return [
    "| cell | metric | step | 95% interval | between commits | moved with |",
    "| --- | --- | --- | --- | --- | --- |",
    ...points.map(
      (cp) =>
        `| ${escapeCell(cp.cell, 100)} | ${describeMetric(cp.metric)} | ${formatChange(cp.ratio)} ${cp.worse ? "(worse)" : "(better)"} | ${formatInterval([cp.ratioLow, cp.ratioHigh])} | ${short(cp.lastBefore.commit)} … ${short(cp.firstAfter.commit)} | ${cp.movedWith.map(describeMetric).join(", ") || "–"} |`,
    ),
  ];
}

export function renderHistorySection(report: HistoryReport): string {
  const lines: string[] = ["### Main's history", ""];
  if (report.refused !== null) {
    lines.push(
      "> [!WARNING]",
      `> Main's history (${store(report.store)}) was refused: ${escapeInline(report.refused, 400)}. The gate fell back to the baseline artifacts' sessions (gate.baseline_sessions) for the drift, without the pooled run variance.`,
      "",
    );
  } else if (report.written) {
    const w = report.written;
    lines.push(
      `Recorded ${w.appended} record(s) of this session in ${store(report.store)}${w.conflicts > 0 ? ` (after ${w.conflicts} concurrent write(s) retried)` : ""}${w.droppedSessions > 0 ? `; compaction dropped the ${w.droppedSessions} oldest session(s) (limits maxHistorySessions / maxHistoryBytes)` : ""}.`,
      "",
    );
  } else {
    lines.push(
      `Used ${report.sessionsUsed} earlier session(s) of main from ${store(report.store)} for the between-session drift${report.pooledDf ? ` and the baseline's run-to-run variance (+${report.pooledDf} degrees of freedom)` : ""}.`,
      "",
    );
  }
  if (report.leftOut.length > 0) {
    const shown = report.leftOut.slice(0, 5);
    lines.push(
      `Left out ${report.leftOut.length} session(s) recorded under other conditions: ${shown.map((l) => `${short(l.commit)} (${escapeInline(l.reason, 160)})`).join("; ")}${report.leftOut.length > shown.length ? "; …" : ""}.`,
      "",
    );
  }
  const main = report.alreadyOnMain;
  if (main && main.explained.length > 0) {
    lines.push(main.onlyReproduces && !main.blocking ? "> [!NOTE]" : "> [!IMPORTANT]");
    lines.push(
      `> **Main already regressed.** ${main.explained
        .map(
          (e) =>
            `${describeMetric(e.metric)} of ${escapeInline(e.cell, 100)} is ${formatChange(e.prRatio)} here, and main itself moved ${formatChange(e.mainRatio)} (${formatInterval([e.mainLow, e.mainHigh])}) since the stored baseline, between ${short(e.lastBefore.commit)} and ${short(e.firstAfter.commit)} (${e.sessionsSince} session(s) since)`,
        )
        .join("; ")}.`,
    );
    lines.push(
      main.onlyReproduces
        ? main.blocking
          ? "> This pull request only reproduces main's level; it is still blocked (history-main-regressed: block). The stored baseline is unchanged."
          : "> This pull request only reproduces main's level, so it is not blocked (history-main-regressed: pass). The stored baseline is unchanged: fix main, or record a new baseline on purpose."
        : "> Other regressions of this pull request go beyond main's level and still count.",
      "",
    );
  }
  if (report.changePoints.length > 0) {
    lines.push(
      report.written
        ? "Change points in main's series, first seen with this session:"
        : "Change points in main's series:",
      "",
      ...changePointTable(report.changePoints),
      "",
    );
  }
  return lines.join("\n").trimEnd();
}

/** One session of a printed series: its runs' values, the healthy ones' geometric mean, a step marker. */
export interface SeriesRow {
  session: string;
  commit: string;
  recordedAt: string;
  values: (number | null)[];
  excluded: number[];
  /** Geometric mean of the healthy runs, null when there is none. */
  mean: number | null;
}

/** A change point of a printed series, between the sessions named by id. */
interface SeriesStep {
  firstAfter: string;
  lastBefore: string;
  ratio: number;
  ratioLow: number;
  ratioHigh: number;
  worse: boolean;
}

/** One cell/metric series of main's history with its change points (`vllm-perf-gate history`). */
export interface HistorySeries {
  cell: string;
  metric: MetricName;
  /** Sessions the change-point test looks at, and how many of them the series has. */
  window: number;
  scanned: number;
  /** Oldest first. */
  sessions: SeriesRow[];
  changePoints: SeriesStep[];
  /**
   * The start and run levels of the series' sessions (compare/history/history-analysis.ts historyLevels: sd
   * of ln(metric), their degrees of freedom, the sessions and starts used and those left out for an odd
   * start); null when no session holds two starts with a start of two runs.
   */
  levels: {
    startSd: number;
    startDf: number;
    runSd: number;
    runDf: number;
    sessions: number;
    starts: number;
    screenedSessions: string[];
  } | null;
}

export const historySeriesFormats = ["table", "json", "csv"] as const;
export type HistorySeriesFormat = (typeof historySeriesFormats)[number];

/**
 * A series as printed: a terminal table (the first session after each change point marked with the step
 * and its interval), JSON (the series and its change points) or CSV (one line per run).
 */
export function renderHistorySeries(series: HistorySeries, format: HistorySeriesFormat): string {
  const { cell, metric, window, sessions, changePoints, levels } = series;
  if (format === "json")
    return `${JSON.stringify({ cell, metric, window, sessions, changePoints, levels }, null, 2)}\n`;
  if (format === "csv") {
    const lines = ["session,commit,recorded_at,run,value,excluded"];
    for (const row of sessions)
      row.values.forEach((value, run) => {
        lines.push(
          `${row.session},${row.commit},${row.recordedAt},${run},${value ?? ""},${row.excluded.includes(run)}`,
        );
      });
    return `${lines.join("\n")}\n`;
  }
  return renderSeriesTable(series);
}

function renderSeriesTable(series: HistorySeries): string {
  const { sessions: rows, changePoints: steps, metric } = series;
  const title = `${describeMetric(metric)} of cell ${series.cell}: ${rows.length} session(s), ${steps.length} change point(s) in the last ${series.scanned}`;
  const header = ["session", "commit", "recorded", "runs", "mean", ""];
  const body = rows.map((row) => {
    const step = steps.find((s) => s.firstAfter === row.session);
    const healthy = row.values.filter((v, i) => v !== null && !row.excluded.includes(i)).length;
    return [
      row.session,
      row.commit.slice(0, 12),
      row.recordedAt.slice(0, 16).replace("T", " "),
      `${healthy}/${row.values.length}`,
      row.mean === null ? "–" : formatMetricValue(metric, row.mean),
      step
        ? `<- step ${formatChange(step.ratio)} (${formatInterval([step.ratioLow, step.ratioHigh])}) ${step.worse ? "worse" : "better"}`
        : "",
    ];
  });
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((r) => r[c]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd();
  return [title, "", line(header), ...body.map(line), "", levelsLine(series.levels), ""].join("\n");
}

/** The series' start and run levels in one line (what an interleaved PR takes as its start prior). */
function levelsLine(levels: HistorySeries["levels"]): string {
  if (levels === null)
    return "Start and run levels: not measured (no session holds two server starts with two runs on one).";
  const sd = (value: number) => `${formatNumber(value * 100)}%`;
  const odd = levels.screenedSessions;
  return `Start and run levels: between starts ${sd(levels.startSd)} (${Math.round(levels.startDf)} df), between runs of a start ${sd(levels.runSd)} (${Math.round(levels.runDf)} df), from ${levels.sessions} session(s) and ${levels.starts} starts${odd.length > 0 ? `; left out for an odd start: ${odd.join(", ")}` : ""}.`;
}

/**
 * The issue comment for the new worsening change points of one cell at one step on main
 * (history-change-point-issue): what moved, by how much, between which commits, which job saw it first.
 */
export function renderChangePointComment(
  changePoints: readonly SeriesChangePoint[],
  jobUrl: string | null,
): string {
  const first = changePoints[0]!;
  return [
    `### vllm-perf-gate: main stepped in ${escapeInline(first.cell, 100)}`,
    "",
    `Between ${short(first.lastBefore.commit)} and ${short(first.firstAfter.commit)}, worse:`,
    "",
    ...changePoints.map(
      (cp) =>
        `- ${describeMetric(cp.metric)}: ${formatChange(cp.ratio)} (${formatInterval([cp.ratioLow, cp.ratioHigh])})`,
    ),
    "",
    `First seen by the baseline session of ${short(first.firstAfter.commit)}${jobUrl ? ` ([job](${jobUrl}))` : ""}; posted once per change point (docs/history.md).`,
  ].join("\n");
}

/** What the calibrate mode read of main's history: the store, sessions used and left out, or why it was refused. */
export interface CalibrationHistory {
  store: string;
  sessionsUsed: number;
  leftOut: number;
  refused: string | null;
}

/**
 * The calibrate mode's line on main's history (job summary): how many sessions the between-session drift
 * came from, or why there is none. `history` null: the history input is off.
 */
export function renderCalibrationHistoryLine(history: CalibrationHistory | null): string {
  if (!history) return "Between-session drift: none (history: off).";
  if (history.refused !== null)
    return `Main's history (${store(history.store)}) was refused: ${escapeInline(history.refused, 400)}. No between-session drift recorded.`;
  const leftOut =
    history.leftOut > 0 ? `, ${history.leftOut} left out (recorded under other conditions)` : "";
  return `Between-session drift from ${history.sessionsUsed} session(s) of main's history (${store(history.store)})${leftOut}.`;
}
