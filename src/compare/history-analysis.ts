import { type MetricName, metricSpecs } from "../config/metric-names.js";
import { type ChangePointOptions, detectChangePoints, levelShift } from "../stats/change-point.js";
import { type HistoryRecord, type HistorySession, type SessionPoint, seriesOf } from "./history.js";
import type { VerdictFile } from "./verdict-schema.js";

/**
 * What main's history says, pure: the change points of each gated series (reported once, when first
 * seen), and whether a pull request's regression is one main already has ("main already regressed").
 */

export interface SeriesChangePoint {
  cell: string;
  metric: MetricName;
  /** The step happened after `lastBefore` and by `firstAfter` (commits of the sessions either side). */
  lastBefore: HistorySession;
  firstAfter: HistorySession;
  /** Level after / level before, and its interval (the metric's own direction: > 1 = value went up). */
  ratio: number;
  ratioLow: number;
  ratioHigh: number;
  /** Worse in the metric's direction (latency up, throughput down). */
  worse: boolean;
  /** First seen with the newest session: the one time it is reported. */
  isNew: boolean;
  /** Other metrics of the same cell that stepped within 2 sessions of this one. */
  movedWith: MetricName[];
}

export interface ChangePointScan {
  /** How many sessions of history the scan looked at (the window). */
  window: number;
  series: number;
  changePoints: SeriesChangePoint[];
}

const sessionMean = (point: SessionPoint) => point.logs.reduce((s, v) => s + v, 0) / point.logs.length;

function pairsOf(records: readonly HistoryRecord[], metrics: readonly MetricName[]): [string, MetricName][] {
  const wanted = new Set(metrics);
  const seen = new Set<string>();
  const pairs: [string, MetricName][] = [];
  for (const record of records) {
    const key = `${record.cell}\u0000${record.metric}`;
    if (!wanted.has(record.metric) || seen.has(key)) continue;
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
export function scanChangePoints(
  records: readonly HistoryRecord[],
  metrics: readonly MetricName[],
  options: { window: number; detector?: Partial<ChangePointOptions> },
): ChangePointScan {
  const found: (SeriesChangePoint & { at: number })[] = [];
  const pairs = pairsOf(records, metrics);
  for (const [cell, metric] of pairs) {
    const full = seriesOf(records, cell, metric);
    const means = full.map(sessionMean);
    // Absolute indices into the full series, now and as the previous session saw it.
    const scan = (end: number) => {
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
        lastBefore: full[cp.index - 1]!.session,
        firstAfter: full[cp.index]!.session,
        ratio: cp.ratio,
        ratioLow: cp.ratioLow,
        ratioHigh: cp.ratioHigh,
        worse: higherIsBetter ? cp.ratio < 1 : cp.ratio > 1,
        isNew: !before.some((index) => Math.abs(index - cp.index) <= 2),
        movedWith: [],
        at: sessionPosition(records, cell, full[cp.index]!.session.id),
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
function sessionPosition(records: readonly HistoryRecord[], cell: string, id: string): number {
  const sessions = new Map<string, HistorySession>();
  for (const record of records) if (record.cell === cell) sessions.set(record.session.id, record.session);
  return [...sessions.values()]
    .sort((a, b) => a.recordedAt.localeCompare(b.recordedAt) || a.runId - b.runId)
    .findIndex((session) => session.id === id);
}

export interface AlreadyOnMain {
  cell: string;
  metric: MetricName;
  /** The pull request's ratio against the stored baseline. */
  prRatio: number;
  /** Main's latest level against the stored baseline's session, with its interval. */
  mainRatio: number;
  mainLow: number;
  mainHigh: number;
  /** Where main stepped: the change point after the baseline's session, or the sessions since it. */
  lastBefore: HistorySession;
  firstAfter: HistorySession;
  /** Sessions of main recorded after the stored baseline's. */
  sessionsSince: number;
}

export interface MainAlreadyRegressed {
  /** Regressions of the pull request that main already shows (not caused by the pull request). */
  explained: AlreadyOnMain[];
  /** True when every regression of the verdict is explained: the pull request only reproduces main. */
  onlyReproduces: boolean;
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
export function mainAlreadyRegressed(
  verdict: Pick<VerdictFile, "comparisons" | "baselineInfo">,
  records: readonly HistoryRecord[],
  options: {
    latestSessions?: number;
    baselineSessions?: number;
    confidence?: number;
    detector?: Partial<ChangePointOptions>;
  } = {},
): MainAlreadyRegressed {
  const latestCount = options.latestSessions ?? 5;
  const baselineCount = options.baselineSessions ?? 5;
  const regressions = verdict.comparisons.filter((c) => c.verdict === "regression" && c.ratio !== null);
  const commit = verdict.baselineInfo?.commit;
  const explained: AlreadyOnMain[] = [];
  if (!commit || regressions.length === 0) return { explained, onlyReproduces: false };
  for (const comparison of regressions) {
    const series = seriesOf(records, comparison.cell, comparison.metric);
    let at = -1;
    for (let i = series.length - 1; i >= 0; i--)
      if (series[i]!.session.commit === commit) {
        at = i;
        break;
      }
    if (at < 0 || at === series.length - 1) continue;
    const before = series.slice(Math.max(0, at + 1 - baselineCount), at + 1).map(sessionMean);
    const since = series.slice(at + 1);
    const after = since.slice(-latestCount).map(sessionMean);
    const shift = levelShift(before, after, options.confidence ?? 0.95);
    if (!shift) continue;
    // Both in the metric's worse direction: > 1 is worse.
    const worse = (ratio: number) => (comparison.higherIsBetter ? 1 / ratio : ratio);
    const mainWorse = worse(shift.ratio);
    const mainWorseLow = comparison.higherIsBetter ? 1 / shift.ratioHigh : shift.ratioLow;
    const prWorse = worse(comparison.ratio!);
    const tolerance = comparison.tolerance;
    if (!(mainWorse > 1 + tolerance && mainWorseLow > 1)) continue;
    if (prWorse / mainWorse > 1 + tolerance) continue;
    const window = series.slice(Math.max(0, at + 1 - baselineCount));
    const steps = detectChangePoints(window.map(sessionMean), options.detector).filter(
      (cp) => cp.index > at - Math.max(0, at + 1 - baselineCount),
    );
    const step = steps[0];
    const offset = Math.max(0, at + 1 - baselineCount);
    explained.push({
      cell: comparison.cell,
      metric: comparison.metric,
      prRatio: comparison.ratio!,
      mainRatio: shift.ratio,
      mainLow: shift.ratioLow,
      mainHigh: shift.ratioHigh,
      lastBefore: step ? series[offset + step.index - 1]!.session : series[at]!.session,
      firstAfter: step ? series[offset + step.index]!.session : series.at(-1)!.session,
      sessionsSince: since.length,
    });
  }
  return { explained, onlyReproduces: explained.length === regressions.length };
}
