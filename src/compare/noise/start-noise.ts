import { z } from "zod";
import type { StartLevels, StartVariancePrior } from "../../stats/two-level.js";
import type { PriorOrigin } from "./prior-basis.js";

/**
 * The server-start level of a check as verdict.json reports it (docs/compare.md, "Server starts"): the
 * starts each side's runs were measured on, the start-to-start sd the check carried, its degrees of
 * freedom and where it came from. The metric tests, the capacity checks and the pooled counts (guards,
 * error rate) each report it from stats/two-level.ts `startLevels`, so one rule names the basis.
 */
export const startNoiseSchema = z.object({
  starts: z.object({ baseline: z.number().int(), candidate: z.number().int() }),
  /** sd between server starts used in the check (0 when every run was its own start). */
  startSd: z.number(),
  /** Degrees of freedom of that start variance (measured starts plus the prior's weight). */
  startDf: z.number(),
  /**
   * Where the start sd came from: "fresh" (every run its own start: in the runs' own spread), "prior"
   * (too few starts: the prior alone), "measured" (the starts alone), "measured+prior" (pooled), "none"
   * (neither: no prior for this check and too few starts to measure it).
   */
  startBasis: z.enum(["fresh", "prior", "measured", "measured+prior", "none"]),
  /** What the prior was (gate.noise_prior, a calibration, main's history), when one was used. */
  priorSource: z.string().nullable(),
  /**
   * The starts varied significantly more than the prior said (one-sided F at 10%): the prior was widened
   * to what the starts show (their own estimate, with their df).
   */
  priorContradicted: z.boolean().optional(),
});

export type StartNoise = z.output<typeof startNoiseSchema>;

/**
 * A prior a check's noise was offered at one level (docs/compare.md, "Noise known in advance"): where it
 * came from, its sd and degrees of freedom, when it was measured and how old it was, and what the test
 * did with it.
 */
const priorUseSchema = z.object({
  /** "config" (gate.noise_prior), "calibration" (this runner's A/A), "history" (main's baseline sessions). */
  basis: z.enum(["config", "calibration", "history", "calibration+history"]),
  source: z.string(),
  /** sd of ln(metric) the prior believes at this level, and its weight in degrees of freedom. */
  sd: z.number(),
  df: z.number(),
  /** The day it was measured (the newest measurement it holds); null for the config's figures. */
  date: z.string().nullable(),
  /** The oldest measurement it holds (a history's first session); null for one. */
  since: z.string().nullable(),
  ageDays: z.number().nullable(),
  /** Older than gate.noise_prior.max_age_days: used, and flagged. */
  stale: z.boolean(),
  /**
   * "pooled" with the runs' own estimate by degrees of freedom; "widened": the runs were significantly
   * noisier (one-sided F at 10%), so on `widenedOn` their own estimate stands with their own df;
   * "unused": the level was already in the runs' own spread (every run its own start).
   */
  use: z.enum(["pooled", "widened", "unused"]),
  widenedOn: z.array(z.enum(["baseline", "candidate"])),
});

/**
 * The two levels of noise under a check tested on per-run values (verdict.json `comparisons[].noise`,
 * `quality.guards[].noise`): the start level, each side's run-to-run sd within a start, and the share of
 * the difference's variance that the start level makes.
 */
export const noiseLevelsSchema = startNoiseSchema.extend({
  runSd: z.object({ baseline: z.number(), candidate: z.number() }),
  /** Share of the variance of the difference due to the start level. */
  startShare: z.number(),
  /**
   * Where the run-to-run sd came from: the runs alone ("measured") or pooled with a prior measured on
   * this runner ("measured+prior"), and each side's degrees of freedom. Absent in files written before.
   */
  runBasis: z.enum(["measured", "measured+prior"]).optional(),
  runDf: z.object({ baseline: z.number(), candidate: z.number() }).optional(),
  /** The priors offered at each level (null: none); absent in files written before they were recorded. */
  priors: z.object({ start: priorUseSchema.nullable(), run: priorUseSchema.nullable() }).optional(),
  /**
   * A check on counts pooled over the runs (error_rate, malformed_tool_call_share, the quality guards):
   * the factor its request-level variance was widened by for what the runs and starts showed beyond it
   * (1: none), its counts divided by it (docs/compare.md, "Server starts"). Its sds are on the
   * count's own scale: a share of requests (the mean output length: ln).
   */
  designEffect: z.number().optional(),
});

export type NoiseLevels = z.output<typeof noiseLevelsSchema>;

/** A prior with what it came from, as compare hands it to a check. */
export type NamedStartPrior = StartVariancePrior & { source: string };

/** A start prior measured on this runner (a calibration, main's history), with its origin and age. */
export type MeasuredStartPrior = StartVariancePrior & PriorOrigin;

/**
 * The start level's report fields from an estimate of the levels. `sharedStarts`: some side has a start
 * holding two or more runs (otherwise every run was its own start and the basis is "fresh").
 */
export function startNoiseOf(
  levels: Pick<
    StartLevels,
    "startVariance" | "startVarianceDf" | "measuredStartVariance" | "priorContradicted"
  >,
  starts: { baseline: number; candidate: number },
  sharedStarts: boolean,
  prior: NamedStartPrior | undefined,
): StartNoise {
  const measured = levels.measuredStartVariance !== null;
  const withPrior = prior !== undefined && prior.df > 0 && !levels.priorContradicted;
  const basis = !sharedStarts
    ? "fresh"
    : measured && withPrior
      ? "measured+prior"
      : measured
        ? "measured"
        : withPrior
          ? "prior"
          : "none";
  return {
    starts,
    startSd: sharedStarts ? Math.sqrt(levels.startVariance) : 0,
    startDf: sharedStarts ? levels.startVarianceDf : 0,
    startBasis: basis,
    priorSource: sharedStarts && withPrior ? prior.source : null,
    ...(levels.priorContradicted ? { priorContradicted: true } : {}),
  };
}

/**
 * The start priors measured on this runner, per `cell\u0000metric`, from each source that has them (a
 * calibration, main's history), pooled by degrees of freedom where more than one measured a check: both
 * estimate the same start-to-start variance under the baseline's conditions (each checked against
 * them), so neither wins; the pooled prior names every source, its basis both, its date the newest
 * measurement and `since` the oldest. compare adds gate.noise_prior's where none measured a check.
 */
export function pooledStartPriors(
  ...sources: readonly (ReadonlyMap<string, MeasuredStartPrior> | undefined)[]
): Map<string, MeasuredStartPrior> {
  const pooled = new Map<string, MeasuredStartPrior>();
  for (const source of sources)
    for (const [key, prior] of source ?? []) {
      if (!(prior.df > 0)) continue;
      const known = pooled.get(key);
      if (!known) {
        pooled.set(key, { ...prior });
        continue;
      }
      const df = known.df + prior.df;
      const times = [known.measuredAt, prior.measuredAt, known.since, prior.since]
        .filter((time): time is string => typeof time === "string")
        .sort();
      pooled.set(key, {
        variance: (known.variance * known.df + prior.variance * prior.df) / df,
        df,
        source: `${known.source} + ${prior.source}`,
        basis: known.basis === prior.basis ? known.basis : "calibration+history",
        measuredAt:
          [known.measuredAt, prior.measuredAt]
            .filter((t) => t !== null)
            .sort()
            .at(-1) ?? null,
        since: times[0] ?? null,
      });
    }
  return pooled;
}

/**
 * A start variance measured on this runner pooled with gate.noise_prior's for the metric's family
 * (weighted gate.noise_prior.weight_starts df): a calibration or a history measures the start level from
 * a handful of starts, and a handful that happened to agree reads as no start effect at all (its moment
 * estimate is clamped at 0); the published figure keeps its weight beside them, as it does beside a pull
 * request's own starts. Many measured starts outweigh it. compare's checks and the budget planner both
 * take a measured start prior through here.
 */
export function withConfigStartPrior<P extends StartVariancePrior>(
  measured: P,
  config: StartVariancePrior,
): P {
  if (!(config.df > 0)) return measured;
  const df = measured.df + config.df;
  return { ...measured, variance: (measured.variance * measured.df + config.variance * config.df) / df, df };
}
