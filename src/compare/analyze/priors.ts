import { type MetricName, metricSpecs } from "../../config/metric-names.js";
import type { GateConfig } from "../../config/schema.js";
import type { RunVariancePrior, StartVariancePrior, VariancePrior } from "../../stats/two-level.js";
import {
  describePrior,
  type PriorDescription,
  type PriorOrigin,
  stalePriorWarning,
} from "../noise/prior-basis.js";
import { withConfigStartPrior } from "../noise/start-noise.js";
import type { Draft } from "./drafts.js";

/**
 * The noise a check believes before its runs, looked up per `cell\u0000metric`: the priors measured on
 * this runner (a calibration, main's history) and gate.noise_prior, each described with its age at `now`.
 */
export interface PriorSources {
  gate: Pick<GateConfig, "noise_prior">;
  /** ISO time the priors' ages are counted to. */
  now: string;
  startVariancePriors?: ReadonlyMap<
    string,
    { variance: number; df: number; source: string } & Partial<Omit<PriorOrigin, "source">>
  >;
  runVariancePriors?: ReadonlyMap<string, RunVariancePrior & PriorOrigin>;
  baselineVariancePriorOrigin?: PriorOrigin;
}

function describeAt(sources: PriorSources, origin: PriorOrigin): PriorDescription {
  return describePrior(origin, sources.now, sources.gate.noise_prior.max_age_days);
}

/**
 * The start-to-start variance believed for a check before its runs: a measured one for this runner (a
 * calibration, main's history) where there is one, else gate.noise_prior's for the metric's family,
 * weighted gate.noise_prior.weight_starts degrees of freedom.
 */
export function startPriorOf(
  sources: PriorSources,
): (
  cell: string,
  metric: MetricName,
) => StartVariancePrior & { source: string; description: PriorDescription } {
  const prior = sources.gate.noise_prior;
  return (cell, metric) => {
    const family = metricSpecs[metric].noise;
    const sd = prior[family].start_sd;
    const source = `gate.noise_prior.${family}`;
    const configPrior = { variance: sd * sd, df: prior.weight_starts };
    const found = sources.startVariancePriors?.get(`${cell}\u0000${metric}`);
    if (found) {
      const measured = withConfigStartPrior(found, configPrior);
      const origin: PriorOrigin = {
        source: measured.source,
        basis: measured.basis ?? (/history/i.test(measured.source) ? "history" : "calibration"),
        measuredAt: measured.measuredAt ?? null,
        ...(measured.since ? { since: measured.since } : {}),
      };
      const pooledSource = configPrior.df > 0 ? `${measured.source} + ${source}` : measured.source;
      return { ...measured, source: pooledSource, description: describeAt(sources, origin) };
    }
    return {
      ...configPrior,
      source,
      description: describeAt(sources, { source, basis: "config", measuredAt: null }),
    };
  };
}

/** Interleaved mode: the run-to-run variance measured on this runner for a check, for both sides. */
export function runPriorOf(
  sources: PriorSources,
): (cell: string, metric: MetricName) => (RunVariancePrior & { description: PriorDescription }) | undefined {
  return (cell, metric) => {
    const measured = sources.runVariancePriors?.get(`${cell}\u0000${metric}`);
    return measured ? { ...measured, description: describeAt(sources, measured) } : undefined;
  };
}

/** Stored mode: the baseline's run-to-run variance from earlier sessions, with where it came from. */
export function baselinePriorOf(
  sources: PriorSources,
  priors: ReadonlyMap<string, { variance: number; df: number }>,
): (cell: string, metric: MetricName) => (VariancePrior & { description: PriorDescription }) | undefined {
  const description = describeAt(
    sources,
    sources.baselineVariancePriorOrigin ?? { source: "main's history", basis: "history", measuredAt: null },
  );
  return (cell, metric) => {
    const prior = priors.get(`${cell}\u0000${metric}`);
    return prior ? { ...prior, description } : undefined;
  };
}

/** One warning per stale prior a check used, naming gate.noise_prior.max_age_days. */
export function stalePriorWarnings(drafts: readonly Draft[], maxAgeDays: number): string[] {
  const stale = new Map<string, PriorDescription>();
  for (const draft of drafts)
    for (const prior of [draft.noise?.priors?.start, draft.noise?.priors?.run])
      if (prior?.stale && prior.use !== "unused") stale.set(`${prior.basis}:${prior.date}`, prior);
  return [...stale.values()].map((prior) => stalePriorWarning(prior, maxAgeDays));
}
