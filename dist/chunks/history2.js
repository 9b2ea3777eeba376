import { d as describeMetric } from './metric-names.js';
import { e as escapeInline, c as escapeCell } from './distributions.js';
import { b as formatChange, c as formatInterval } from './format.js';

/** The store's description as a code span (backticks removed: it comes from inputs). */
const store = (text) => `\`${text.replace(/[`\r\n]/g, "").slice(0, 200)}\``;
/** A commit's first 12 characters as code; only letters and digits (a history is untrusted input). */
const short = (commit) => `\`${commit.slice(0, 12).replace(/[^0-9A-Za-z]/g, "") || "?"}\``;
function changePointTable(points) {
    if (points.length === 0)
        return [];
    return [
        "| cell | metric | step | 95% interval | between commits | moved with |",
        "| --- | --- | --- | --- | --- | --- |",
        ...points.map((cp) => `| ${escapeCell(cp.cell, 100)} | ${describeMetric(cp.metric)} | ${formatChange(cp.ratio)} ${cp.worse ? "(worse)" : "(better)"} | ${formatInterval([cp.ratioLow, cp.ratioHigh])} | ${short(cp.lastBefore.commit)} … ${short(cp.firstAfter.commit)} | ${cp.movedWith.map(describeMetric).join(", ") || "–"} |`),
    ];
}
function renderHistorySection(report) {
    const lines = ["### Main's history", ""];
    if (report.refused !== null) {
        lines.push("> [!WARNING]", `> Main's history (${store(report.store)}) was refused: ${escapeInline(report.refused, 400)}. The gate fell back to the baseline artifacts' sessions (gate.baseline_sessions) for the drift, without the pooled run variance.`, "");
    }
    else if (report.written) {
        const w = report.written;
        lines.push(`Recorded ${w.appended} record(s) of this session in ${store(report.store)}${w.conflicts > 0 ? ` (after ${w.conflicts} concurrent write(s) retried)` : ""}${w.droppedSessions > 0 ? `; compaction dropped the ${w.droppedSessions} oldest session(s) (limits maxHistorySessions / maxHistoryBytes)` : ""}.`, "");
    }
    else {
        lines.push(`Used ${report.sessionsUsed} earlier session(s) of main from ${store(report.store)} for the between-session drift${report.pooledDf ? ` and the baseline's run-to-run variance (+${report.pooledDf} degrees of freedom)` : ""}.`, "");
    }
    if (report.leftOut.length > 0) {
        const shown = report.leftOut.slice(0, 5);
        lines.push(`Left out ${report.leftOut.length} session(s) recorded under other conditions: ${shown.map((l) => `${short(l.commit)} (${escapeInline(l.reason, 160)})`).join("; ")}${report.leftOut.length > shown.length ? "; …" : ""}.`, "");
    }
    const main = report.alreadyOnMain;
    if (main && main.explained.length > 0) {
        lines.push(main.onlyReproduces && !main.blocking ? "> [!NOTE]" : "> [!IMPORTANT]");
        lines.push(`> **Main already regressed.** ${main.explained
            .map((e) => `${describeMetric(e.metric)} of ${escapeInline(e.cell, 100)} is ${formatChange(e.prRatio)} here, and main itself moved ${formatChange(e.mainRatio)} (${formatInterval([e.mainLow, e.mainHigh])}) since the stored baseline, between ${short(e.lastBefore.commit)} and ${short(e.firstAfter.commit)} (${e.sessionsSince} session(s) since)`)
            .join("; ")}.`);
        lines.push(main.onlyReproduces
            ? main.blocking
                ? "> This pull request only reproduces main's level; it is still blocked (history-main-regressed: block). The stored baseline is unchanged."
                : "> This pull request only reproduces main's level, so it is not blocked (history-main-regressed: pass). The stored baseline is unchanged: fix main, or record a new baseline on purpose."
            : "> Other regressions of this pull request go beyond main's level and still count.", "");
    }
    if (report.changePoints.length > 0) {
        lines.push(report.written
            ? "Change points in main's series, first seen with this session:"
            : "Change points in main's series:", "", ...changePointTable(report.changePoints), "");
    }
    return lines.join("\n").trimEnd();
}
/**
 * A cell/metric series as a terminal table, oldest first, the first session after each change point
 * marked with the step and its interval (`vllm-perf-gate history`).
 */
function renderSeriesTable(title, rows, steps, format) {
    const header = ["session", "commit", "recorded", "runs", "mean", ""];
    const body = rows.map((row) => {
        const step = steps.find((s) => s.firstAfter === row.session);
        const healthy = row.values.filter((v, i) => v !== null && !row.excluded.includes(i)).length;
        return [
            row.session,
            row.commit.slice(0, 12),
            row.recordedAt.slice(0, 16).replace("T", " "),
            `${healthy}/${row.values.length}`,
            row.mean === null ? "–" : format(row.mean),
            step
                ? `<- step ${formatChange(step.ratio)} (${formatInterval([step.ratioLow, step.ratioHigh])}) ${step.worse ? "worse" : "better"}`
                : "",
        ];
    });
    const widths = header.map((h, c) => Math.max(h.length, ...body.map((r) => r[c].length)));
    const line = (cells) => cells
        .map((cell, c) => cell.padEnd(widths[c]))
        .join("  ")
        .trimEnd();
    return [title, "", line(header), ...body.map(line), ""].join("\n");
}
/**
 * The issue comment for the new worsening change points of one cell at one step on main
 * (history-change-point-issue): what moved, by how much, between which commits, which job saw it first.
 */
function renderChangePointComment(changePoints, jobUrl) {
    const first = changePoints[0];
    return [
        `### vllm-perf-gate: main stepped in ${escapeInline(first.cell, 100)}`,
        "",
        `Between ${short(first.lastBefore.commit)} and ${short(first.firstAfter.commit)}, worse:`,
        "",
        ...changePoints.map((cp) => `- ${describeMetric(cp.metric)}: ${formatChange(cp.ratio)} (${formatInterval([cp.ratioLow, cp.ratioHigh])})`),
        "",
        `First seen by the baseline session of ${short(first.firstAfter.commit)}${jobUrl ? ` ([job](${jobUrl}))` : ""}; posted once per change point (docs/history.md).`,
    ].join("\n");
}
/**
 * The calibrate mode's line on main's history (job summary): how many sessions the between-session drift
 * came from, or why there is none. `history` null: the history input is off.
 */
function renderCalibrationHistoryLine(history) {
    if (!history)
        return "Between-session drift: none (history: off).";
    if (history.refused !== null)
        return `Main's history (${store(history.store)}) was refused: ${escapeInline(history.refused, 400)}. No between-session drift recorded.`;
    const leftOut = history.leftOut > 0 ? `, ${history.leftOut} left out (recorded under other conditions)` : "";
    return `Between-session drift from ${history.sessionsUsed} session(s) of main's history (${store(history.store)})${leftOut}.`;
}

export { renderChangePointComment as a, renderSeriesTable as b, renderCalibrationHistoryLine as c, renderHistorySection as r };
