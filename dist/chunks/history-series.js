import { lstat, readFile } from 'node:fs/promises';
import { ah as seriesOf, s as scanChangePoints, r as runsFromHistory, ai as historyLevels, M as defaultHistoryLimits, N as parseHistory } from './format.js';
import { U as UsageError, I as InputError } from './version.js';

/**
 * Reads a JSON Lines history file as untrusted input: refused before reading when it is not a file or is
 * over the size limit, then every line checked (`parseHistory`). `file` names it in messages.
 */
async function readHistoryFile(path, file) {
    const stat = await lstat(path).catch(() => null);
    if (!stat?.isFile())
        throw new InputError(`history ${file}: not a file`);
    if (stat.size > defaultHistoryLimits.maxBytes)
        throw new InputError(`history ${file}: ${stat.size} bytes, more than the ${defaultHistoryLimits.maxBytes} allowed (limit maxHistoryBytes)`);
    return parseHistory(await readFile(path, "utf8"), file);
}
async function historySeries(request) {
    const { file, metric, window } = request;
    const records = await readHistoryFile(request.path, file);
    const cells = [...new Set(records.map((r) => r.cell))].sort();
    const cell = request.cell ?? (cells.length === 1 ? cells[0] : undefined);
    if (!cell)
        throw new UsageError(`--cell: the history has ${cells.length} cells (${cells.join(", ") || "none"})`);
    if (!cells.includes(cell))
        throw new InputError(`history ${file}: no cell "${cell}" (it has ${cells.join(", ")})`);
    const ofCell = records.filter((r) => r.cell === cell);
    const points = seriesOf(ofCell, cell, metric);
    const geometricMean = (logs) => Math.exp(logs.reduce((s, v) => s + v, 0) / logs.length);
    const sessions = ofCell
        .filter((record) => record.metric === metric)
        .map((record) => {
        const point = points.find((p) => p.session.id === record.session.id);
        return {
            session: record.session.id,
            commit: record.session.commit,
            recordedAt: record.session.recordedAt,
            values: record.values,
            excluded: record.health.excluded,
            mean: point ? geometricMean(point.logs) : null,
        };
    })
        .sort((a, b) => a.recordedAt.localeCompare(b.recordedAt));
    const changePoints = scanChangePoints(ofCell, [metric], { window }).changePoints.map((cp) => ({
        firstAfter: cp.firstAfter.id,
        lastBefore: cp.lastBefore.id,
        ratio: cp.ratio,
        ratioLow: cp.ratioLow,
        ratioHigh: cp.ratioHigh,
        worse: cp.worse,
    }));
    // The levels over the same sessions the scan reads: the last `window`, under any conditions (the
    // history command has no baseline to match), as the gate reads them for an interleaved PR's prior.
    const recent = runsFromHistory(ofCell.filter((record) => record.metric === metric), { fingerprint: null, lastSessions: window });
    const level = historyLevels(recent.runs).get(`${cell}\u0000${metric}`);
    return {
        cell,
        metric,
        window,
        scanned: Math.min(window, points.length),
        sessions,
        changePoints,
        levels: level
            ? {
                startSd: Math.sqrt(level.startVariance),
                startDf: level.startDf,
                runSd: Math.sqrt(level.runVariance),
                runDf: level.runDf,
                sessions: level.sessions,
                starts: level.starts,
                screenedSessions: level.screenedSessions,
            }
            : null,
    };
}

export { historySeries as h, readHistoryFile as r };
