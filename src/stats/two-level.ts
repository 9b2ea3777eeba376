import { fSurvival } from "./distributions.js";

/** Welch's statistic of a difference of two means, with its standard error and degrees of freedom. */
export interface WelchResult {
  /** ȳ_candidate − ȳ_baseline. */
  difference: number;
  standardError: number;
  df: number;
  t: number;
}

/** One-sided level at which the starts' variance is taken to contradict the prior's. */
const priorContradictionLevel = 0.1;

/**
 * Two levels of noise under a side's mean (docs/compare.md, "Server starts"): runs measured on one server
 * start share whatever that start drew (allocator and KV layout, CUDA graphs, autotuning picks), so
 *   y_run = μ + u_start + e_run,   u ~ (0, σ_s²),   e ~ (0, σ_r²)
 * and the mean of a side's N runs in starts of n_g runs has variance σ_s²·Σn_g²/N² + σ_r²/N: with one
 * start the whole σ_s² stays, whatever N is. The one-way random-effects moments (unbalanced groups) give
 * σ_r² from the spread within starts (N − G degrees of freedom, per side) and σ_s² from the spread of
 * the start means beyond what σ_r² explains, pooled over both sides (the start effect is the runner's and
 * the server's, not the change's). A prior for σ_s² (per metric: published figures, a calibration or
 * main's history) is pooled with the measured part by degrees of freedom, so a side with one start gets
 * the prior's, and many starts outweigh it. A prior for σ_r² (a calibration of this runner, main's
 * history for a stored baseline) is pooled the same way with each side's run-level estimate. A prior the
 * runs contradict (their variance significantly above it) is widened to what they show: their own
 * estimate stands, with their own degrees of freedom. The test is Welch's on the two means with
 * Satterthwaite's degrees of freedom over the estimated components, a prior counted as its own.
 */

/** One side's per-run values (ln scale) with the server start each run was measured on. */
export interface StartGroupedSample {
  values: readonly number[];
  /** Same length as `values`: the start identity of each run; absent: every run its own start. */
  starts?: readonly string[];
}

/** A variance believed before these runs, with its weight in degrees of freedom. */
export interface VariancePrior {
  variance: number;
  /** Degrees of freedom the prior counts as when pooled with the measured variance (0: none). */
  df: number;
}

/** The start-to-start variance believed before these runs, with its weight in degrees of freedom. */
export type StartVariancePrior = VariancePrior;

/**
 * The run-to-run variance believed before these runs (a calibration of this runner), for both sides. A
 * side's runs hold σ_r² alone when its starts have several runs, σ_r² + σ_s² when every run had its own
 * start: each side is pooled with the prior of its kind, and a side whose kind the prior lacks keeps its
 * own runs' estimate.
 */
export interface RunVariancePrior {
  /** σ_r²: the spread of runs within one server start. */
  withinStart?: VariancePrior;
  /** σ_r² + σ_s²: the spread of runs each measured on its own server start. */
  perRun?: VariancePrior;
}

export interface TwoLevelOptions {
  /** Smallest run-to-run variance believed per side (gate.min_run_sd²). */
  varianceFloor?: number;
  /** Known variance added to the difference (a stored baseline's session drift). */
  extraVariance?: number;
  /** The start-to-start variance's prior; absent: no prior (only what the starts show). */
  startPrior?: StartVariancePrior;
  /** The baseline's run-to-run variance from earlier sessions (main's history), pooled with its own. */
  baselineVariancePrior?: { variance: number; df: number };
  /**
   * The run-to-run variance believed for both sides (interleaved: a calibration of this runner), pooled
   * with each side's own by degrees of freedom unless that side's runs contradict it; on the baseline
   * it takes the place of `baselineVariancePrior`.
   */
  runPrior?: RunVariancePrior;
}

/** What one side's runs say at each level. */
interface SideLevels {
  runs: number;
  starts: number;
  /** Σ n_g² / N²: the share of σ_s² that stays in the side's mean (1 for one start, 1/G balanced). */
  startWeight: number;
  /** σ_r² estimate (within starts, after the floor); for a side of single-run starts, its total variance. */
  runVariance: number;
  runVarianceDf: number;
  /** True when every start has one run: run and start parts cannot be told apart, the total is used. */
  singleRunStarts: boolean;
  floored: boolean;
  /** The run-to-run variance this side's runs alone showed (before any prior and the floor), with its df. */
  measuredRunVariance: number;
  measuredRunDf: number;
  /**
   * What became of a run-level prior offered for this side: pooled with its runs, widened (its runs
   * were significantly noisier, one-sided F at 10%: the runs' own estimate stands) or none offered.
   */
  runPrior: "pooled" | "widened" | "none";
  /** Degrees of freedom of the run-level prior pooled into `runVariance` (0: none). */
  runPriorDf: number;
  /**
   * The start means' mean square (SS between / (G − 1)), whose expectation is σ_r² + coefficient·σ_s²,
   * with its G − 1 degrees of freedom; null with fewer than two starts.
   */
  betweenStarts: { meanSquare: number; df: number; coefficient: number } | null;
}

export interface TwoLevelResult extends WelchResult {
  baseline: SideLevels;
  candidate: SideLevels;
  /** σ_s² used (measured pooled with the prior), its degrees of freedom and the parts it came from. */
  startVariance: number;
  startVarianceDf: number;
  /** σ_s² the starts alone showed (see PooledStartLevel); null: < 2 starts anywhere. */
  measuredStartVariance: { variance: number; estimate: number; df: number } | null;
  /**
   * True when the starts showed significantly more variance than the prior: the prior was widened to
   * what the starts show (the starts' own estimate stands, with their degrees of freedom).
   */
  priorContradicted: boolean;
  /** Variance of the difference of the means due to the start level (Σ sides startWeight·σ_s²). */
  startPart: number;
  /** Variance of the difference of the means due to the run level. */
  runPart: number;
}

interface SideMoments {
  n: number;
  groups: { n: number; mean: number }[];
  mean: number;
  ssWithin: number;
  ssBetween: number;
  /** N − Σn_g²/N: the coefficient of σ_s² in E[SS between]. */
  startCoefficient: number;
}

function moments(sample: StartGroupedSample): SideMoments {
  const { values } = sample;
  const starts = sample.starts ?? values.map((_, i) => `run-${i}`);
  if (values.length !== starts.length)
    throw new RangeError(`two-level: ${values.length} values but ${starts.length} start identities`);
  const byStart = new Map<string, number[]>();
  values.forEach((value, i) => {
    const key = starts[i]!;
    const list = byStart.get(key);
    if (list) list.push(value);
    else byStart.set(key, [value]);
  });
  const n = values.length;
  const mean = values.reduce((sum, v) => sum + v, 0) / n;
  let ssWithin = 0;
  let ssBetween = 0;
  let sumSquares = 0;
  const groups: SideMoments["groups"] = [];
  for (const list of byStart.values()) {
    const groupMean = list.reduce((sum, v) => sum + v, 0) / list.length;
    for (const v of list) ssWithin += (v - groupMean) ** 2;
    ssBetween += list.length * (groupMean - mean) ** 2;
    sumSquares += list.length * list.length;
    groups.push({ n: list.length, mean: groupMean });
  }
  return { n, groups, mean, ssWithin, ssBetween, startCoefficient: n - sumSquares / n };
}

/** What one side's runs alone say of the run-to-run level: within starts, or their total spread. */
function measuredRunLevel(m: SideMoments): VariancePrior & { single: boolean } {
  const single = m.groups.length === m.n;
  // Within starts, N − G df; a side of single-run starts has only its total spread (N − 1 df).
  const df = single ? m.n - 1 : m.n - m.groups.length;
  const variance = single ? (m.n > 1 ? m.ssBetween / (m.n - 1) : 0) : m.ssWithin / df;
  return { variance, df, single };
}

/**
 * True when a variance measured with its degrees of freedom is significantly above the prior's
 * (one-sided F test at 10%): the runner is noisier than the prior believes.
 */
export function contradictsPrior(measured: VariancePrior, prior: VariancePrior): boolean {
  if (!(measured.df > 0) || !(prior.df > 0) || !(measured.variance > prior.variance)) return false;
  return (
    prior.variance <= 0 ||
    fSurvival(measured.variance / prior.variance, measured.df, prior.df) < priorContradictionLevel
  );
}

function sideLevels(
  m: SideMoments,
  floor: number,
  runPrior: VariancePrior | null,
  widened: boolean,
): SideLevels {
  const starts = m.groups.length;
  const measured = measuredRunLevel(m);
  const startWeight = m.groups.reduce((sum, g) => sum + g.n * g.n, 0) / (m.n * m.n);
  const pooled = runPrior !== null && !widened;
  const df = measured.df + (pooled ? runPrior.df : 0);
  const variance = pooled
    ? (measured.df * measured.variance + runPrior.df * runPrior.variance) / df
    : measured.variance;
  return {
    runs: m.n,
    starts,
    startWeight,
    runVariance: Math.max(variance, floor),
    runVarianceDf: df,
    singleRunStarts: measured.single,
    floored: variance < floor,
    measuredRunVariance: measured.variance,
    measuredRunDf: measured.df,
    runPrior: runPrior === null ? "none" : widened ? "widened" : "pooled",
    runPriorDf: pooled ? runPrior.df : 0,
    betweenStarts:
      starts < 2
        ? null
        : {
            meanSquare: m.ssBetween / (starts - 1),
            df: starts - 1,
            coefficient: m.startCoefficient / (starts - 1),
          },
  };
}

/**
 * The run-level prior each side is offered and whether its runs contradict it: each side's runs are
 * tested alone (a change that made the candidate noisier widens the candidate's only) and, when neither
 * does and both share the prior (a calibration's, of the kind both sides' runs hold), both sides' runs
 * pooled: a runner that got noisier shows on both.
 */
function runPriorsOf(
  mb: SideMoments,
  mc: SideMoments,
  options: TwoLevelOptions,
): { baseline: VariancePrior | null; candidate: VariancePrior | null; widened: [boolean, boolean] } {
  const usable = (prior: VariancePrior | undefined) => (prior && prior.df > 0 ? prior : null);
  const rb = measuredRunLevel(mb);
  const rc = measuredRunLevel(mc);
  const pick = (level: { single: boolean }) =>
    usable(level.single ? options.runPrior?.perRun : options.runPrior?.withinStart);
  const baseline = options.runPrior ? pick(rb) : usable(options.baselineVariancePrior);
  const candidate = options.runPrior ? pick(rc) : null;
  let widenedB = baseline !== null && contradictsPrior(rb, baseline);
  let widenedC = candidate !== null && contradictsPrior(rc, candidate);
  // Both sides' runs pooled have more power to show a runner noisier on both; a side that alone
  // contradicts the prior already names where the extra noise is.
  if (baseline !== null && baseline === candidate && !widenedB && !widenedC) {
    const df = rb.df + rc.df;
    const both = { variance: (rb.df * rb.variance + rc.df * rc.variance) / df, df };
    if (contradictsPrior(both, baseline)) {
      widenedB = true;
      widenedC = true;
    }
  }
  return { baseline, candidate, widened: [widenedB, widenedC] };
}

/**
 * Satterthwaite's denominator terms of the run level: a side's variance pooled with a prior is a
 * linear combination of two independent mean squares, its runs' (their df) and the prior's (its df); a
 * prior shared by both sides is one mean square, counted once. A floored side's variance is believed
 * with the df it had.
 */
function runLevelDfTerms(sides: readonly { levels: SideLevels; prior: VariancePrior | null }[]): number {
  let denominator = 0;
  const priorParts = new Map<VariancePrior, number>();
  for (const { levels, prior } of sides) {
    const n = levels.runs;
    if (prior === null || levels.runPrior !== "pooled" || levels.floored) {
      const part = levels.runVariance / n;
      if (levels.runVarianceDf > 0) denominator += (part * part) / levels.runVarianceDf;
      continue;
    }
    const total = levels.measuredRunDf + levels.runPriorDf;
    const own = (levels.measuredRunDf * levels.measuredRunVariance) / total / n;
    if (levels.measuredRunDf > 0) denominator += (own * own) / levels.measuredRunDf;
    const shared = (levels.runPriorDf * prior.variance) / total / n;
    priorParts.set(prior, (priorParts.get(prior) ?? 0) + shared);
  }
  for (const [prior, part] of priorParts) denominator += (part * part) / prior.df;
  return denominator;
}

/**
 * σ_s² from the start means of both sides (moments): E[SS between] = (G − 1)·σ_r² + c·σ_s² per side.
 * Sides of single-run starts cannot separate the levels and are left out. Null when no side has two
 * starts with a run-level estimate beside them. `estimate` is the moment estimate itself, unbiased and
 * below 0 when the starts agree more closely than the runs within them; `variance` is it clamped at 0.
 */
function measuredStartVariance(
  sides: readonly { m: SideMoments; levels: SideLevels }[],
): { variance: number; estimate: number; df: number } | null {
  let numerator = 0;
  let coefficient = 0;
  let betweenDf = 0;
  for (const { m, levels } of sides) {
    if (levels.singleRunStarts || levels.starts < 2) continue;
    const g1 = levels.starts - 1;
    numerator += m.ssBetween - g1 * levels.runVariance;
    coefficient += m.startCoefficient;
    betweenDf += g1;
  }
  if (betweenDf === 0 || coefficient <= 0) return null;
  // Its degrees of freedom are the starts' (G − 1 a side): for balanced starts the variance of a side's
  // mean, σ_s²/G + σ_r²/N, is exactly the start means' mean square / G, with G − 1 df. (Satterthwaite's
  // df of the moment difference alone collapse towards 1 when σ_s² is near 0, which would let the prior
  // outweigh many starts that agree.)
  const estimate = numerator / coefficient;
  return { variance: Math.max(0, estimate), estimate, df: betweenDf };
}

/** The start level of one or more sides: measured from their start means, pooled with the prior. */
interface PooledStartLevel {
  /** σ_s² used (measured pooled with the prior) and its degrees of freedom. */
  startVariance: number;
  startVarianceDf: number;
  /**
   * σ_s² the starts alone showed (moments, clamped at 0), with its degrees of freedom and the moment
   * estimate itself (`estimate`, below 0 when the starts agree more closely than their runs); null: < 2
   * starts anywhere.
   */
  measuredStartVariance: { variance: number; estimate: number; df: number } | null;
  /** True when the starts showed significantly more variance than the prior, which was then set aside. */
  priorContradicted: boolean;
}

function pooledStartLevel(
  sides: readonly { m: SideMoments; levels: SideLevels }[],
  startPrior: StartVariancePrior | undefined,
): PooledStartLevel {
  const measured = measuredStartVariance(sides);
  const prior = startPrior && startPrior.df > 0 ? startPrior : null;
  // A prior the starts contradict (their variance significantly above it: one-sided F at 10%) is widened
  // to what they show: the runner got noisier than believed, so the starts' own estimate stands, with
  // its df (docs/compare.md, "Noise known in advance").
  const contradicted = prior !== null && measured !== null && contradictsPrior(measured, prior);
  const usedPrior = contradicted ? null : prior;
  const measuredDf = measured?.df ?? 0;
  const priorDf = usedPrior?.df ?? 0;
  const startDf = measuredDf + priorDf;
  // The starts' moment estimate enters the pool unclamped and only the pooled value is kept at 0 or
  // above: clamping each estimate first would add E[max(0, estimate)] > 0 to the pool at the starts'
  // full degrees of freedom whenever the true start level is small, the PR's own starts and the prior
  // both pointing at a start level that is not there (docs/compare.md, "Server starts").
  const startVariance =
    startDf > 0
      ? Math.max(0, (measuredDf * (measured?.estimate ?? 0) + priorDf * (usedPrior?.variance ?? 0)) / startDf)
      : 0;
  return {
    startVariance,
    startVarianceDf: startDf,
    measuredStartVariance: measured,
    priorContradicted: contradicted,
  };
}

/** What the runs of one or more sides say at each level, the start level pooled over them and the prior. */
export interface StartLevels extends PooledStartLevel {
  /** Per sample, in the order given. */
  sides: SideLevels[];
}

/**
 * The two levels of the noise from samples grouped by server start (one per side, or one for a single
 * set of runs; no run-level prior): each sample's run-to-run variance within its starts, and the
 * start-to-start variance from the start means of every sample, pooled with the prior by degrees of
 * freedom unless the starts contradict it. The one estimator of the levels: the two-level test, the
 * capacity interval, the pooled counts' design effect and main's history read it.
 */
export function startLevels(
  samples: readonly StartGroupedSample[],
  options: { varianceFloor?: number; startPrior?: StartVariancePrior } = {},
): StartLevels {
  const floor = options.varianceFloor ?? 0;
  const sides = samples.map((sample) => {
    const m = moments(sample);
    return { m, levels: sideLevels(m, floor, null, false) };
  });
  return { sides: sides.map((side) => side.levels), ...pooledStartLevel(sides, options.startPrior) };
}

/**
 * Welch's test of candidate minus baseline on per-run values grouped by server start, with both levels
 * of the noise in the variance of each side's mean. With every run its own start it is Welch's test on
 * the runs (plus nothing); with one start per side the prior's start variance is added to each side.
 */
export function twoLevelWelch(
  baseline: StartGroupedSample,
  candidate: StartGroupedSample,
  options: TwoLevelOptions = {},
): TwoLevelResult {
  if (baseline.values.length < 2 || candidate.values.length < 2)
    throw new RangeError(
      `two-level Welch needs at least 2 values per side (got ${baseline.values.length} and ${candidate.values.length})`,
    );
  const floor = options.varianceFloor ?? 0;
  const mb = moments(baseline);
  const mc = moments(candidate);
  const runPriors = runPriorsOf(mb, mc, options);
  const lb = sideLevels(mb, floor, runPriors.baseline, runPriors.widened[0]);
  const lc = sideLevels(mc, floor, runPriors.candidate, runPriors.widened[1]);
  const start = pooledStartLevel(
    [
      { m: mb, levels: lb },
      { m: mc, levels: lc },
    ],
    options.startPrior,
  );
  const { startVariance, startVarianceDf: startDf } = start;
  // A side of single-run starts carries σ_s² inside its total run variance already.
  const startWeightOf = (levels: SideLevels) => (levels.singleRunStarts ? 0 : levels.startWeight);
  const startPart = (startWeightOf(lb) + startWeightOf(lc)) * startVariance;
  const vb = lb.runVariance / lb.runs;
  const vc = lc.runVariance / lc.runs;
  const runPart = vb + vc;
  const extra = options.extraVariance ?? 0;
  const variance = startPart + runPart + extra;
  // Satterthwaite over the estimated components; the extra variance is treated as known.
  let denominator = runLevelDfTerms([
    { levels: lb, prior: runPriors.baseline },
    { levels: lc, prior: runPriors.candidate },
  ]);
  if (startPart > 0 && startDf > 0) denominator += (startPart * startPart) / startDf;
  const df = denominator > 0 ? (variance * variance) / denominator : Number.POSITIVE_INFINITY;
  const difference = mc.mean - mb.mean;
  const standardError = Math.sqrt(variance);
  const t =
    standardError > 0
      ? difference / standardError
      : difference === 0
        ? 0
        : Math.sign(difference) * Number.POSITIVE_INFINITY;
  return {
    difference,
    standardError,
    df,
    t,
    baseline: lb,
    candidate: lc,
    ...start,
    startPart,
    runPart,
  };
}

/**
 * The share of σ_s² that stays in a side's mean of `runs` runs measured in starts of `perStart` runs
 * (the last start may be shorter): Σ n_g² / N². One start: 1; every run its own start: 1/N.
 */
export function startWeightFor(runs: number, perStart: number): number {
  if (runs <= 0) return 1;
  const k = Math.max(1, Math.min(runs, Math.floor(perStart)));
  const full = Math.floor(runs / k);
  const rest = runs - full * k;
  return (full * k * k + rest * rest) / (runs * runs);
}

/**
 * Runs per server start that minimise the variance of a side's mean for its GPU time (Kalibera and Jones,
 * "Rigorous benchmarking in reasonable time": repetitions at a level ∝ √(variance / cost) of that level):
 * √(startCost·σ_r² / (runCost·σ_s²)), at least 1. Infinity when the start level has no variance.
 */
export function optimalRunsPerStart(input: {
  startVariance: number;
  runVariance: number;
  startCost: number;
  runCost: number;
}): number {
  if (input.startVariance <= 0) return Number.POSITIVE_INFINITY;
  if (input.runCost <= 0) return Number.POSITIVE_INFINITY;
  const ratio = (input.startCost * input.runVariance) / (input.runCost * input.startVariance);
  return Math.max(1, Math.sqrt(ratio));
}

/** One-sided level at which the runs' spread is taken to exceed what a pooled test assumes. */
const overdispersionLevel = 0.1;

/** Degrees of freedom standing in for "known" in the chi-square form of the F test below. */
const knownDf = 1e6;

/**
 * The design effect of a test on counts pooled over a side's runs (a share of requests, a mean output
 * length): such a test takes every request as independent, but the requests of one run share its moment
 * and the runs of one start share what it drew. The variance of the difference of the sides' per-run
 * means with both levels (twoLevelWelch) over the variance the pooled test assumes for it is the factor
 * its counts are divided by (Rao and Scott's first-order correction), when it is significantly above 1
 * (one-sided chi-square at 10% on the two-level variance's degrees of freedom, as a prior the starts
 * contradict); 1 otherwise, and when a side has fewer than 2 runs (null levels) or the pooled test
 * assumes no variance.
 */
export function pooledDesignEffect(
  baseline: StartGroupedSample,
  candidate: StartGroupedSample,
  pooledVariance: number,
  options: TwoLevelOptions = {},
): { factor: number; levels: TwoLevelResult | null } {
  if (baseline.values.length < 2 || candidate.values.length < 2) return { factor: 1, levels: null };
  const levels = twoLevelWelch(baseline, candidate, options);
  if (!(pooledVariance > 0)) return { factor: 1, levels };
  const ratio = levels.standardError ** 2 / pooledVariance;
  const df = Number.isFinite(levels.df) ? levels.df : knownDf;
  const significant = ratio > 1 && fSurvival(ratio, df, knownDf) < overdispersionLevel;
  return { factor: significant ? ratio : 1, levels };
}
