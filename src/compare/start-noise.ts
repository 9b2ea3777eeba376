import { z } from "zod";
import type { StartLevels, StartVariancePrior } from "../stats/two-level.js";

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
  /** The starts varied significantly more than the prior said (one-sided F at 10%): the prior was set aside. */
  priorContradicted: z.boolean().optional(),
});

export type StartNoise = z.output<typeof startNoiseSchema>;

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
 * them), so neither wins; the pooled prior names every source. compare adds gate.noise_prior's where
 * none measured a check.
 */
export function pooledStartPriors(
  ...sources: readonly (ReadonlyMap<string, NamedStartPrior> | undefined)[]
): Map<string, NamedStartPrior> {
  const pooled = new Map<string, NamedStartPrior>();
  for (const source of sources)
    for (const [key, prior] of source ?? []) {
      if (!(prior.df > 0)) continue;
      const known = pooled.get(key);
      if (!known) {
        pooled.set(key, { ...prior });
        continue;
      }
      const df = known.df + prior.df;
      pooled.set(key, {
        variance: (known.variance * known.df + prior.variance * prior.df) / df,
        df,
        source: `${known.source} + ${prior.source}`,
      });
    }
  return pooled;
}
