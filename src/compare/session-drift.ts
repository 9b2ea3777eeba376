import { type MetricName, metricNames } from "../config/metric-names.js";
import { varianceComponents } from "../stats/variance-components.js";
import type { RunRecord } from "./run-record.js";

function groupByCell(runs: readonly RunRecord[]): Map<string, RunRecord[]> {
  const cells = new Map<string, RunRecord[]>();
  for (const run of runs) cells.set(run.cell, [...(cells.get(run.cell) ?? []), run]);
  return cells;
}

export interface DriftEstimate {
  /** Variance of the shift between the candidate's session and the mean of the baseline sessions. */
  differenceVariance: number;
  sessions: number;
}

/**
 * Between-session variance of ln(metric) from baseline runs spread over >= 3 sessions (Kalibera-Jones
 * T₂², per cell on balanced groups, averaged over cells). The candidate is one more session, the
 * baseline the mean of k: the shift between them has variance T₂²·(1 + 1/k).
 */
export function estimateSessionDrift(baseline: readonly RunRecord[]): Map<MetricName, DriftEstimate> {
  const estimates = new Map<MetricName, DriftEstimate>();
  const byCell = groupByCell(baseline);
  for (const metric of metricNames) {
    if (metric === "error_rate") continue;
    const perCell: { t2: number; sessions: number }[] = [];
    for (const runs of byCell.values()) {
      const sessions = new Map<string, number[]>();
      for (const run of runs) {
        const value = run.metrics[metric];
        if (value === null || value === undefined || !(value > 0) || !run.session) continue;
        const list = sessions.get(run.session) ?? [];
        list.push(Math.log(value));
        sessions.set(run.session, list);
      }
      const groups = [...sessions.values()].filter((g) => g.length >= 2);
      if (groups.length < 3) continue;
      const size = Math.min(...groups.map((g) => g.length));
      perCell.push({
        t2: varianceComponents(groups.map((g) => g.slice(0, size))).t2,
        sessions: groups.length,
      });
    }
    if (perCell.length === 0) continue;
    const t2 = perCell.reduce((s, c) => s + c.t2, 0) / perCell.length;
    const sessions = Math.min(...perCell.map((c) => c.sessions));
    estimates.set(metric, { differenceVariance: t2 * (1 + 1 / sessions), sessions });
  }
  return estimates;
}
