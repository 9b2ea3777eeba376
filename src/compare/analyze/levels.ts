import type { MetricName } from "../../config/metric-names.js";
import { lookSchedule, passLevel, perLookLevel } from "../../stats/sequential.js";
import { type DriftEstimate, estimateSessionDrift } from "../noise/session-drift.js";
import type { AnalyzeInput } from "./input.js";
import { groupByCell } from "./usable-runs.js";

/** The test levels of this look: the family's alpha spent over the sequential looks, and the pass level. */
export interface Levels {
  familyAlpha: number;
  looks: number[];
  /** Level of the regression and improvement tests at this look. */
  alpha: number;
  /** Level of each side of the within-tolerance test. */
  passAlpha: number;
  /**
   * Level of the regression tests decided at this many candidate runs in a cell: the look the PR would be
   * at then (never before this one; beyond repeats.max, the last look's).
   */
  alphaAtRuns: (runs: number) => number;
}

export function levelsOf(input: AnalyzeInput): Levels {
  const familyAlpha = 1 - input.gate.confidence;
  const looks = lookSchedule(input.repeats.min, input.repeats.max);
  // The stage of the PR: the most candidate runs measured in any cell (screened runs included).
  const stage = Math.max(0, ...[...groupByCell(input.candidate).values()].map((runs) => runs.length));
  const alphaAtRuns = (runs: number) => perLookLevel(familyAlpha, looks, Math.max(stage, runs), input.mode);
  return { familyAlpha, looks, alpha: alphaAtRuns(stage), passAlpha: passLevel(familyAlpha), alphaAtRuns };
}

export interface SessionDrift {
  /** The configured prior sd (0 unless mode stored). */
  driftSd: number;
  estimates: Map<MetricName, DriftEstimate>;
  varianceFor: (metric: MetricName) => number;
}

/** Stored mode: the between-session drift per metric from the baseline and its history, shrunk towards the prior. */
export function sessionDriftOf(input: AnalyzeInput): SessionDrift {
  const { gate, mode } = input;
  const driftSd = mode === "stored" ? gate.session_drift_sd : 0;
  const defaultDriftVariance = driftSd * driftSd;
  const driftBaseline = input.baseline.filter((run) => run.exclusionReasons.length === 0);
  const driftRuns = [...driftBaseline];
  const driftSources = new Set(driftBaseline.map((run) => run.source));
  for (const run of input.history ?? [])
    if (run.exclusionReasons.length === 0 && !driftSources.has(run.source)) driftRuns.push(run);
  const estimates =
    mode === "stored"
      ? estimateSessionDrift(driftRuns, {
          priorSd: driftSd,
          baselineSessions: Math.max(1, new Set(driftBaseline.map((run) => run.session ?? "")).size),
        })
      : new Map<MetricName, DriftEstimate>();
  // The history's estimate, shrunk towards the prior, replaces it (up or down): the prior is no floor.
  const varianceFor = (metric: MetricName): number =>
    estimates.get(metric)?.differenceVariance ?? defaultDriftVariance;
  return { driftSd, estimates, varianceFor };
}
