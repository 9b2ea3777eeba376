import { type MetricName, metricSpecs } from "../../config/metric-names.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { type ChangePointOptions, detectChangePoints, levelShift } from "../../stats/change-point.js";
import { fSurvival } from "../../stats/distributions.js";
import { type StartGroupedSample, type StartLevels, startLevels } from "../../stats/two-level.js";
import { startOf } from "../inputs/server-starts.js";
import type { MeasuredStartPrior } from "../noise/start-noise.js";
import type { VerdictFile } from "../verdict/verdict-schema.js";
import { type HistoryRecord, type HistorySession, type SessionPoint, seriesOf } from "./history.js";

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

/**
 * The two levels of one cell's metric in main's history (docs/history.md, "The start and run levels"):
 * each baseline session's runs grouped by the server start that measured them, as compare groups a
 * side's (stats/two-level.ts), pooled over the sessions.
 */
export interface HistoryLevels {
  /** σ_s² of ln(metric) between the starts of a session (moments, pooled over sessions), and its df. */
  startVariance: number;
  startDf: number;
  /** σ_r² of ln(metric) between the runs of a start, pooled, and its df. */
  runVariance: number;
  runDf: number;
  /** Sessions and server starts the estimate used. */
  sessions: number;
  starts: number;
  /** Sessions left out for an odd start: their starts' spread improbable beside the others'. */
  screenedSessions: string[];
  /** The newest and oldest run time of the sessions used (ISO; null when the runs say none). */
  newest: string | null;
  oldest: string | null;
}

/** One-sided level of the F test that takes a baseline session's starts to be odd beside the history's other baseline sessions. */
const oddStartLevel = 0.01;

const positiveLog = (value: number | null | undefined): number | null =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.log(value) : null;

/**
 * Per `cell\u0000metric`, the start and run levels of main's history (its runs as compare reads them,
 * each with its session and server start; healthy runs only). A session counts when it holds two
 * starts or more and a start with two runs or more (a baseline job records at least two,
 * config/summary.ts baselineRunsPerStart; older sessions had one). Robust to an odd start: with three
 * such sessions or more, a session whose start means spread beyond what the others' levels make likely
 * (one-sided F at 1% against σ_r² + c·σ_s² of the others) is left out and named; a start that is odd
 * only beside its own session's other start cannot be told from it, so the session goes whole.
 */
export function historyLevels(runs: readonly RunRecord[]): Map<string, HistoryLevels> {
  const groups = new Map<string, Map<string, SessionSample>>();
  for (const run of runs) {
    if (run.exclusionReasons.length > 0 || !run.session) continue;
    for (const [metric, value] of Object.entries(run.metrics)) {
      const log = positiveLog(value);
      if (log === null || metricSpecs[metric as MetricName]?.judged !== "per-run") continue;
      const key = `${run.cell}\u0000${metric}`;
      const sessions = groups.get(key) ?? new Map<string, SessionSample>();
      const sample = sessions.get(run.session) ?? { values: [], starts: [], times: [] };
      sample.values.push(log);
      sample.starts.push(startOf(run));
      if (run.startedAt) sample.times.push(run.startedAt);
      sessions.set(run.session, sample);
      groups.set(key, sessions);
    }
  }
  const levels = new Map<string, HistoryLevels>();
  for (const [key, sessions] of groups) {
    const usable = [...sessions].filter(([, sample]) => {
      const distinct = new Set(sample.starts).size;
      return distinct >= 2 && distinct < sample.starts.length;
    });
    if (usable.length === 0) continue;
    const screened = oddSessions(usable);
    const kept = usable.filter(([session]) => !screened.includes(session));
    const estimate = startLevels(kept.map(([, sample]) => sample));
    const measured = estimate.measuredStartVariance;
    if (measured === null) continue;
    const run = pooledRunLevel(estimate);
    const times = kept.flatMap(([, sample]) => sample.times).sort();
    levels.set(key, {
      startVariance: measured.variance,
      startDf: measured.df,
      runVariance: run.variance,
      runDf: run.df,
      sessions: kept.length,
      starts: kept.reduce((sum, [, sample]) => sum + new Set(sample.starts).size, 0),
      screenedSessions: screened,
      newest: times.at(-1) ?? null,
      oldest: times[0] ?? null,
    });
  }
  return levels;
}

/** One session's ln values of a cell's metric, each run's start, and the runs' times. */
interface SessionSample extends StartGroupedSample {
  values: number[];
  starts: string[];
  times: string[];
}

/** The run level of every sample, pooled by degrees of freedom. */
function pooledRunLevel(levels: StartLevels): { variance: number; df: number } {
  const df = levels.sides.reduce((sum, side) => sum + side.runVarianceDf, 0);
  const ss = levels.sides.reduce((sum, side) => sum + side.runVariance * side.runVarianceDf, 0);
  return { variance: df > 0 ? ss / df : 0, df };
}

/** Baseline sessions whose start means spread improbably far beside the levels of the history's other baseline sessions (≥ 3 of them). */
function oddSessions(sessions: readonly (readonly [string, StartGroupedSample])[]): string[] {
  if (sessions.length < 3) return [];
  return sessions.flatMap(([session, sample], index) => {
    const between = startLevels([sample]).sides[0]?.betweenStarts;
    const others = startLevels(sessions.filter((_, i) => i !== index).map(([, other]) => other));
    if (!between || others.measuredStartVariance === null) return [];
    const expected =
      pooledRunLevel(others).variance + between.coefficient * others.measuredStartVariance.variance;
    if (!(expected > 0)) return [];
    const p = fSurvival(between.meanSquare / expected, between.df, others.measuredStartVariance.df);
    return p < oddStartLevel ? [session] : [];
  });
}

/**
 * Main's history as compare's start priors (interleaved mode; docs/compare.md, "Server starts"): per
 * cell and metric where it measured the start level, its start variance, degrees of freedom and what it
 * came from ("history: N sessions, M starts").
 */
export function historyStartPriors(runs: readonly RunRecord[]): Map<string, MeasuredStartPrior> {
  const priors = new Map<string, MeasuredStartPrior>();
  for (const [key, level] of historyLevels(runs)) {
    if (level.startDf <= 0) continue;
    const odd = level.screenedSessions.length;
    priors.set(key, {
      variance: level.startVariance,
      df: level.startDf,
      source: `history: ${level.sessions} session${level.sessions === 1 ? "" : "s"}, ${level.starts} starts${odd > 0 ? `; ${odd} session${odd === 1 ? "" : "s"} with an odd start left out` : ""}`,
      basis: "history",
      measuredAt: level.newest,
      since: level.oldest,
    });
  }
  return priors;
}
