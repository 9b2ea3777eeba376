import { lstat, readFile } from "node:fs/promises";
import {
  defaultHistoryLimits,
  type HistoryRecord,
  parseHistory,
  runsFromHistory,
  seriesOf,
} from "../compare/history/history.js";
import { historyLevels, scanChangePoints } from "../compare/history/history-analysis.js";
import type { MetricName } from "../config/metric-names.js";
import type { HistorySeries, SeriesRow } from "../report/history.js";
import { InputError, UsageError } from "../util/errors.js";

/**
 * The history use case (the CLI's `history`): one cell/metric series of main's history read from a file,
 * oldest session first, with the change points the action's own scan (`scanChangePoints`) finds over the
 * last `window` sessions. Returns the series as data; `report/history.ts` renders it.
 */

export interface HistorySeriesRequest {
  /** The history file (absolute); `file` names it in messages, as the user gave it. */
  path: string;
  file: string;
  /** The cell; undefined: the history's only cell. */
  cell: string | undefined;
  metric: MetricName;
  /** Sessions the change-point test looks at. */
  window: number;
}

/**
 * Reads a JSON Lines history file as untrusted input: refused before reading when it is not a file or is
 * over the size limit, then every line checked (`parseHistory`). `file` names it in messages.
 */
export async function readHistoryFile(path: string, file: string): Promise<HistoryRecord[]> {
  const stat = await lstat(path).catch(() => null);
  if (!stat?.isFile()) throw new InputError(`history ${file}: not a file`);
  if (stat.size > defaultHistoryLimits.maxBytes)
    throw new InputError(
      `history ${file}: ${stat.size} bytes, more than the ${defaultHistoryLimits.maxBytes} allowed (limit maxHistoryBytes)`,
    );
  return parseHistory(await readFile(path, "utf8"), file);
}

export async function historySeries(request: HistorySeriesRequest): Promise<HistorySeries> {
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
  const geometricMean = (logs: readonly number[]) => Math.exp(logs.reduce((s, v) => s + v, 0) / logs.length);
  const sessions: SeriesRow[] = ofCell
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
  const recent = runsFromHistory(
    ofCell.filter((record) => record.metric === metric),
    { fingerprint: null, lastSessions: window },
  );
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
