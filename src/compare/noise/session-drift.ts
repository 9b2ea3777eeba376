import { type MetricName, metricNames, metricSpecs } from "../../config/metric-names.js";
import type { RunRecord } from "../../metrics/run-record.js";

/**
 * Between-session drift for a stored baseline: how far the level of a metric moves from one job (session)
 * to the next on the same kind of runner, which more runs in one session cannot average away.
 *
 * It is estimated from the baseline history (the last N baseline sessions of the base branch, each one
 * directory of runs), robustly, and shrunk towards the configured prior when there are few sessions:
 *
 * 1. Per cell, the runs of each session on the log scale. A run further than `runCutoff` within-session sds
 *    from its session's median is screened (one throttled run must not read as drift). The within-session
 *    sd is pooled over sessions as a median of their variances (robust to one noisy session).
 * 2. A session whose mean is further than `sessionCutoff` robust sds (MAD) from the median of the session
 *    means is screened, when there are >= `minSessionsToScreen` sessions (an outlier day on a broken
 *    runner is not the drift to expect).
 * 3. T² = variance of the session means − within-variance · mean(1/runs) (Kalibera-Jones, floored at 0),
 *    averaged over cells, with k − 1 degrees of freedom for k sessions kept.
 * 4. Shrinkage (the scaled-inverse-χ² update): T² = (ν₀·T²_prior + (k−1)·T²_est) / (ν₀ + k − 1), where
 *    T²_prior = session_drift_sd² / 2 (the prior is the sd of the shift between two sessions). It moves
 *    the prior up or down: never a floor.
 * 5. The candidate is one session, the baseline the mean of its k_b sessions: the shift between them has
 *    variance T²·(1 + 1/k_b), which is what the test adds.
 */

export interface DriftSettings {
  /** Prior sd of the ln shift between two sessions (gate.session_drift_sd). */
  priorSd: number;
  /** Sessions averaged in the baseline side of the comparison (k_b). */
  baselineSessions: number;
  /** Weight of the prior, in sessions' degrees of freedom (ν₀). */
  priorWeight?: number;
  runCutoff?: number;
  sessionCutoff?: number;
  minSessionsToScreen?: number;
}

const driftDefaults = {
  priorWeight: 4,
  runCutoff: 4,
  sessionCutoff: 3.5,
  minSessionsToScreen: 4,
} as const;

export interface DriftEstimate {
  /** Variance of the ln shift between the candidate's session and the baseline, as the test uses it. */
  differenceVariance: number;
  /** "history" when baseline sessions contributed, "prior" when the configured prior alone was used. */
  source: "prior" | "history";
  /** Sessions the estimate rests on after screening (fewest over cells); 0 with the prior alone. */
  sessions: number;
  /** The history's own T², before shrinking; null with fewer than 2 sessions. */
  historyT2: number | null;
  /** Weight the history got against the prior, (k−1)/(ν₀+k−1); 0 with the prior alone. */
  historyWeight: number;
  /** Sessions screened as outliers, and runs screened within sessions (over all cells). */
  screenedSessions: string[];
  screenedRuns: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

function sampleVariance(values: readonly number[]): number {
  const m = mean(values);
  return values.reduce((s, v) => s + (v - m) ** 2, 0) / (values.length - 1);
}

/** Median of χ²_ν/ν (Wilson-Hilferty): turns a median of sample variances into a variance estimate. */
function chiSquareMedianFactor(df: number): number {
  return (1 - 2 / (9 * df)) ** 3;
}

interface CellDrift {
  t2: number;
  sessions: number;
  screenedSessions: string[];
  screenedRuns: number;
}

/** One cell, one metric: sessions of ln values in, T² out (null with fewer than 2 usable sessions). */
export function cellSessionDrift(
  sessions: ReadonlyMap<string, readonly number[]>,
  settings: Pick<DriftSettings, "runCutoff" | "sessionCutoff" | "minSessionsToScreen"> = {},
): CellDrift | null {
  const runCutoff = settings.runCutoff ?? driftDefaults.runCutoff;
  const sessionCutoff = settings.sessionCutoff ?? driftDefaults.sessionCutoff;
  const minToScreen = settings.minSessionsToScreen ?? driftDefaults.minSessionsToScreen;
  const entries = [...sessions].filter(([, values]) => values.length > 0);
  const withSpread = entries.filter(([, values]) => values.length >= 2);
  const withinVariance = (groups: readonly (readonly number[])[]) => {
    const usable = groups.filter((g) => g.length >= 2);
    if (usable.length === 0) return 0;
    const df = median(usable.map((g) => g.length - 1));
    return median(usable.map(sampleVariance)) / chiSquareMedianFactor(df);
  };
  // 1. Runs far from their session's median, in pooled within-session sds.
  const within = withinVariance(withSpread.map(([, values]) => values));
  let screenedRuns = 0;
  const screened = entries
    .map(([name, values]): [string, number[]] => {
      if (values.length < 3 || within === 0) return [name, [...values]];
      const center = median(values);
      const kept = values.filter((v) => Math.abs(v - center) <= runCutoff * Math.sqrt(within));
      screenedRuns += values.length - kept.length;
      return [name, kept];
    })
    // A session split in two clusters can lose every run around a median between them: it is left
    // out, never averaged as an empty session (which made the drift NaN and the gate throw).
    .filter(([, values]) => values.length > 0);
  // 2. Sessions far from the others, in robust sds of the session means.
  let kept = screened;
  const screenedSessions: string[] = [];
  if (screened.length >= minToScreen) {
    const means = screened.map(([, values]) => mean(values));
    const center = median(means);
    const mad = 1.4826 * median(means.map((m) => Math.abs(m - center)));
    // The spread a session mean has from its own runs alone: a MAD below it is luck, not a scale.
    const floor = Math.sqrt(within / Math.max(1, median(screened.map(([, v]) => v.length))));
    const scale = Math.max(mad, floor);
    if (scale > 0) {
      kept = screened.filter(([name], i) => {
        const outlier = Math.abs(means[i]! - center) > sessionCutoff * scale;
        if (outlier) screenedSessions.push(name);
        return !outlier;
      });
    }
  }
  if (kept.length < 2) return null;
  // 3. Between-session variance beyond what the runs' own noise explains.
  const keptWithin = withinVariance(kept.map(([, values]) => values));
  const means = kept.map(([, values]) => mean(values));
  const inverseRuns = mean(kept.map(([, values]) => 1 / values.length));
  const t2 = Math.max(0, sampleVariance(means) - keptWithin * inverseRuns);
  return { t2, sessions: kept.length, screenedSessions, screenedRuns };
}

/**
 * The drift to add per metric, from the runs of the baseline history (each with its `session`). Every
 * metric but error_rate gets an estimate: from the prior alone when fewer than 2 sessions are usable.
 */
export function estimateSessionDrift(
  runs: readonly RunRecord[],
  settings: DriftSettings,
): Map<MetricName, DriftEstimate> {
  const priorWeight = settings.priorWeight ?? driftDefaults.priorWeight;
  const priorT2 = (settings.priorSd * settings.priorSd) / 2;
  const difference = (t2: number) => t2 * (1 + 1 / Math.max(1, settings.baselineSessions));
  const byCell = new Map<string, RunRecord[]>();
  for (const run of runs) {
    if (!run.session) continue;
    byCell.set(run.cell, [...(byCell.get(run.cell) ?? []), run]);
  }
  const estimates = new Map<MetricName, DriftEstimate>();
  for (const metric of metricNames) {
    if (metricSpecs[metric].judged !== "per-run") continue;
    const perCell: CellDrift[] = [];
    for (const cellRuns of byCell.values()) {
      const sessions = new Map<string, number[]>();
      for (const run of cellRuns) {
        const value = run.metrics[metric];
        if (value === null || value === undefined || !(value > 0) || !Number.isFinite(value)) continue;
        sessions.set(run.session!, [...(sessions.get(run.session!) ?? []), Math.log(value)]);
      }
      const drift = cellSessionDrift(sessions, settings);
      if (drift) perCell.push(drift);
    }
    if (perCell.length === 0) {
      estimates.set(metric, {
        differenceVariance: difference(priorT2),
        source: "prior",
        sessions: 0,
        historyT2: null,
        historyWeight: 0,
        screenedSessions: [],
        screenedRuns: 0,
      });
      continue;
    }
    const historyT2 = mean(perCell.map((c) => c.t2));
    const sessions = Math.min(...perCell.map((c) => c.sessions));
    const weight = (sessions - 1) / (priorWeight + sessions - 1);
    const t2 = (1 - weight) * priorT2 + weight * historyT2;
    estimates.set(metric, {
      differenceVariance: difference(t2),
      source: "history",
      sessions,
      historyT2,
      historyWeight: weight,
      screenedSessions: [...new Set(perCell.flatMap((c) => c.screenedSessions))].sort(),
      screenedRuns: perCell.reduce((s, c) => s + c.screenedRuns, 0),
    });
  }
  return estimates;
}
