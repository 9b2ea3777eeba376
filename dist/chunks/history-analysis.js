import { d as describeMetric, m as metricSpecs } from './metric-names.js';
import { e as escapeInline, f as escapeCell } from './server-start.js';
import { b as formatChange, c as formatInterval, e as formatMetricValue } from './format.js';
import { i as seriesOf, j as detectChangePoints, l as levelShift } from './history.js';

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
const historySeriesFormats = ["table", "json", "csv"];
/**
 * A series as printed: a terminal table (the first session after each change point marked with the step
 * and its interval), JSON (the series and its change points) or CSV (one line per run).
 */
function renderHistorySeries(series, format) {
    const { cell, metric, window, sessions, changePoints } = series;
    if (format === "json")
        return `${JSON.stringify({ cell, metric, window, sessions, changePoints }, null, 2)}\n`;
    if (format === "csv") {
        const lines = ["session,commit,recorded_at,run,value,excluded"];
        for (const row of sessions)
            row.values.forEach((value, run) => {
                lines.push(`${row.session},${row.commit},${row.recordedAt},${run},${value ?? ""},${row.excluded.includes(run)}`);
            });
        return `${lines.join("\n")}\n`;
    }
    return renderSeriesTable(series);
}
function renderSeriesTable(series) {
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

const sessionMean = (point) => point.logs.reduce((s, v) => s + v, 0) / point.logs.length;
function pairsOf(records, metrics) {
    const wanted = new Set(metrics);
    const seen = new Set();
    const pairs = [];
    for (const record of records) {
        const key = `${record.cell}\u0000${record.metric}`;
        if (!wanted.has(record.metric) || seen.has(key))
            continue;
        seen.add(key);
        pairs.push([record.cell, record.metric]);
    }
    return pairs.sort(([a, m], [b, n]) => a.localeCompare(b) || m.localeCompare(n));
}
/**
 * Change points over the last `window` sessions of each gated series. A change point is new when the
 * series without its newest session shows none within 2 sessions of it: that is the session that
 * reports it, so a step is reported once however many sessions later still show it.
 */
function scanChangePoints(records, metrics, options) {
    const found = [];
    const pairs = pairsOf(records, metrics);
    for (const [cell, metric] of pairs) {
        const full = seriesOf(records, cell, metric);
        const means = full.map(sessionMean);
        // Absolute indices into the full series, now and as the previous session saw it.
        const scan = (end) => {
            const start = Math.max(0, end - options.window);
            return detectChangePoints(means.slice(start, end), options.detector).map((cp) => ({
                ...cp,
                index: cp.index + start,
            }));
        };
        const now = scan(means.length);
        const before = scan(means.length - 1).map((cp) => cp.index);
        const higherIsBetter = metricSpecs[metric].higherIsBetter;
        for (const cp of now) {
            found.push({
                cell,
                metric,
                lastBefore: full[cp.index - 1].session,
                firstAfter: full[cp.index].session,
                ratio: cp.ratio,
                ratioLow: cp.ratioLow,
                ratioHigh: cp.ratioHigh,
                worse: higherIsBetter ? cp.ratio < 1 : cp.ratio > 1,
                isNew: !before.some((index) => Math.abs(index - cp.index) <= 2),
                movedWith: [],
                at: sessionPosition(records, cell, full[cp.index].session.id),
            });
        }
    }
    for (const cp of found)
        cp.movedWith = found
            .filter((other) => other !== cp && other.cell === cp.cell && Math.abs(other.at - cp.at) <= 2)
            .map((other) => other.metric);
    return {
        window: options.window,
        series: pairs.length,
        changePoints: found.map(({ at: _at, ...cp }) => cp),
    };
}
/** A session's position among the sessions of a cell's history, oldest first. */
function sessionPosition(records, cell, id) {
    const sessions = new Map();
    for (const record of records)
        if (record.cell === cell)
            sessions.set(record.session.id, record.session);
    return [...sessions.values()]
        .sort((a, b) => a.recordedAt.localeCompare(b.recordedAt) || a.runId - b.runId)
        .findIndex((session) => session.id === id);
}
/**
 * "Main already regressed": for each metric the verdict calls a regression, main's sessions recorded
 * after the stored baseline's session (found in the history by its commit) are compared with the
 * sessions up to it (pooled t on session means, at `confidence`). When main's latest level is worse
 * than the baseline by more than the metric's tolerance, significantly, and the pull request is not
 * worse than main's latest level by more than the tolerance, the regression is main's: it arrived
 * between the commits named (the change point after the baseline, when the detector finds one).
 * The stored baseline is not touched: the report says what happened and where.
 */
function mainAlreadyRegressed(verdict, records, options = {}) {
    const latestCount = options.latestSessions ?? 5;
    const baselineCount = options.baselineSessions ?? 5;
    const regressions = verdict.comparisons.filter((c) => c.verdict === "regression" && c.ratio !== null);
    const commit = verdict.baselineInfo?.commit;
    const explained = [];
    if (!commit || regressions.length === 0)
        return { explained, onlyReproduces: false };
    for (const comparison of regressions) {
        const series = seriesOf(records, comparison.cell, comparison.metric);
        let at = -1;
        for (let i = series.length - 1; i >= 0; i--)
            if (series[i].session.commit === commit) {
                at = i;
                break;
            }
        if (at < 0 || at === series.length - 1)
            continue;
        const before = series.slice(Math.max(0, at + 1 - baselineCount), at + 1).map(sessionMean);
        const since = series.slice(at + 1);
        const after = since.slice(-latestCount).map(sessionMean);
        const shift = levelShift(before, after, options.confidence ?? 0.95);
        if (!shift)
            continue;
        // Both in the metric's worse direction: > 1 is worse.
        const worse = (ratio) => (comparison.higherIsBetter ? 1 / ratio : ratio);
        const mainWorse = worse(shift.ratio);
        const mainWorseLow = comparison.higherIsBetter ? 1 / shift.ratioHigh : shift.ratioLow;
        const prWorse = worse(comparison.ratio);
        const tolerance = comparison.tolerance;
        if (!(mainWorse > 1 + tolerance && mainWorseLow > 1))
            continue;
        if (prWorse / mainWorse > 1 + tolerance)
            continue;
        const window = series.slice(Math.max(0, at + 1 - baselineCount));
        const steps = detectChangePoints(window.map(sessionMean), options.detector).filter((cp) => cp.index > at - Math.max(0, at + 1 - baselineCount));
        const step = steps[0];
        const offset = Math.max(0, at + 1 - baselineCount);
        explained.push({
            cell: comparison.cell,
            metric: comparison.metric,
            prRatio: comparison.ratio,
            mainRatio: shift.ratio,
            mainLow: shift.ratioLow,
            mainHigh: shift.ratioHigh,
            lastBefore: step ? series[offset + step.index - 1].session : series[at].session,
            firstAfter: step ? series[offset + step.index].session : series.at(-1).session,
            sessionsSince: since.length,
        });
    }
    return { explained, onlyReproduces: explained.length === regressions.length };
}

export { renderChangePointComment as a, renderHistorySeries as b, renderCalibrationHistoryLine as c, historySeriesFormats as h, mainAlreadyRegressed as m, renderHistorySection as r, scanChangePoints as s };
