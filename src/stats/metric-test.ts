import {
  chiSquareQuantile,
  noncentralityForPower,
  normalCdf,
  normalQuantile,
  studentTQuantile,
} from "./distributions.js";
import { logRatioOf, relativeChangeOf, toleranceMargin } from "./margin.js";
import {
  type RunVariancePrior,
  type StartVariancePrior,
  startWeightFor,
  type TwoLevelResult,
  twoLevelWelch,
  type WelchResult,
} from "./two-level.js";
import { interval, pAbove, pBelow } from "./welch.js";

/**
 * The per-metric comparison of statistics.md §0 on the log scale, oriented so that a positive
 * difference is always "worse" (latency up, throughput down).
 *
 * The tolerance means what users read: the regression test is against the margin (H0: worse <= d,
 * d = ln(1 + tolerance)), so a true change at or inside the tolerance is blocked with probability at
 * most the test's level. Improvement mirrors it (H0: worse >= −d). "Within tolerance" is
 * non-inferiority (H0: worse >= d rejected).
 */
export interface LogRatioTest {
  /** exp(mean ln candidate − mean ln baseline): candidate / baseline, in the metric's own direction. */
  ratio: number;
  /** ln-scale difference oriented so that + is worse. */
  worse: number;
  standardError: number;
  df: number;
  /** One-sided p, H0: not worse (worse <= 0): "did it move at all". */
  pWorse: number;
  /** One-sided p, H0: not better (worse >= 0). */
  pBetter: number;
  /** One-sided p, H0: worse <= d (at most the tolerance worse): the regression test. */
  pBeyondTolerance: number;
  /** One-sided p, H0: worse >= −d (at most the tolerance better): the improvement test. */
  pBetterBeyondTolerance: number;
  /** One-sided p, H0: worse by at least the tolerance (worse >= d); small means within tolerance. */
  pWithinTolerance: number;
  /** Two-sided ratio interval for the chosen per-side level, in the metric's direction. */
  ratioInterval: [number, number];
  /** Interval of `worse` at the same level. */
  worseInterval: [number, number];
  /** Sample variances of the per-run logs (after the floor), for projecting how more runs narrow it. */
  baselineVariance: number;
  candidateVariance: number;
  /** True when a side's run-to-run variance was below the floor and the floor was used instead. */
  floored: boolean;
  /** Both levels of the noise (stats/two-level.ts): starts per side, the start variance used and its parts. */
  levels: TwoLevelResult;
}

export interface LogRatioOptions {
  higherIsBetter: boolean;
  /** Relative tolerance δ; the margin is d = ln(1 + δ). */
  tolerance: number;
  /** Per-side level of the displayed interval (0.05 → 90% two-sided). */
  alphaEachSide: number;
  extraVariance?: number;
  /**
   * Smallest run-to-run sd of ln(metric) believed (gate.min_run_sd): identical runs (a deterministic
   * simulator) would otherwise read as infinite certainty.
   */
  minRunSd?: number;
  /** The baseline's run-to-run variance of ln(metric) pooled over main's earlier sessions (welch.ts). */
  baselineVariancePrior?: { variance: number; df: number };
  /**
   * The server start each run was measured on, per side (same order as the values); absent: every run
   * its own start (plain Welch on the runs).
   */
  starts?: { baseline: readonly string[]; candidate: readonly string[] };
  /** The start-to-start variance of ln(metric) believed before these runs (stats/two-level.ts). */
  startPrior?: StartVariancePrior;
  /** The run-to-run variance of ln(metric) believed for both sides (a calibration; stats/two-level.ts). */
  runPrior?: RunVariancePrior;
}

export function logRatioTest(
  baseline: readonly number[],
  candidate: readonly number[],
  options: LogRatioOptions,
): LogRatioTest {
  const lb = baseline.map(Math.log);
  const lc = candidate.map(Math.log);
  const floor = (options.minRunSd ?? 0) ** 2;
  const levels = twoLevelWelch(
    { values: lb, ...(options.starts ? { starts: options.starts.baseline } : {}) },
    { values: lc, ...(options.starts ? { starts: options.starts.candidate } : {}) },
    {
      extraVariance: options.extraVariance ?? 0,
      varianceFloor: floor,
      ...(options.startPrior ? { startPrior: options.startPrior } : {}),
      ...(options.baselineVariancePrior ? { baselineVariancePrior: options.baselineVariancePrior } : {}),
      ...(options.runPrior ? { runPrior: options.runPrior } : {}),
    },
  );
  const raw: WelchResult = {
    difference: levels.difference,
    standardError: levels.standardError,
    df: levels.df,
    t: levels.t,
  };
  const sign = options.higherIsBetter ? -1 : 1;
  const oriented: WelchResult = { ...raw, difference: sign * raw.difference, t: sign * raw.t };
  const margin = toleranceMargin(options.tolerance);
  const [lo, hi] = interval(raw, options.alphaEachSide);
  // The oriented interval is the raw one, mirrored for higher-is-better metrics.
  const [wLo, wHi] = sign > 0 ? [lo, hi] : [-hi, -lo];
  return {
    ratio: Math.exp(raw.difference),
    worse: oriented.difference,
    standardError: raw.standardError,
    df: raw.df,
    pWorse: pAbove(oriented, 0),
    pBetter: pBelow(oriented, 0),
    pBeyondTolerance: pAbove(oriented, margin),
    pBetterBeyondTolerance: pBelow(oriented, -margin),
    pWithinTolerance: pBelow(oriented, margin),
    ratioInterval: [Math.exp(lo), Math.exp(hi)],
    worseInterval: [wLo, wHi],
    baselineVariance: levels.baseline.runVariance,
    candidateVariance: levels.candidate.runVariance,
    floored: levels.baseline.floored || levels.candidate.floored,
    levels,
  };
}

/** One-sided bound of the oriented difference at level `alpha` (lower: worse − t·se; upper: +). */
export function worseBound(
  test: Pick<LogRatioTest, "worse" | "standardError" | "df">,
  alpha: number,
  side: "lower" | "upper",
): number {
  if (test.standardError === 0) return test.worse;
  const a = Math.min(0.5, Math.max(alpha, 1e-300));
  const q = studentTQuantile(1 - a, test.df);
  return side === "lower" ? test.worse - q * test.standardError : test.worse + q * test.standardError;
}

export type MetricVerdict = "regression" | "improvement" | "within-tolerance" | "inconclusive";

export interface ClassifyInput {
  /** Multiplicity-adjusted one-sided p of H0: worse <= d (regression test against the margin). */
  pBeyondToleranceAdjusted: number;
  /** Multiplicity-adjusted one-sided p of H0: worse >= −d (improvement test against the margin). */
  pBetterBeyondToleranceAdjusted: number;
  /** Non-inferiority p; not adjusted: a pass needs every metric within tolerance (intersection-union). */
  pWithinTolerance: number;
  /** Level for regression and improvement (per look). */
  alpha: number;
  /** Level of the non-inferiority bound (defaults to alpha). */
  passAlpha?: number;
}

/**
 * regression = significantly worse than the tolerance (the lower bound is beyond it); improvement =
 * the mirror; within tolerance = the upper bound is inside the tolerance; otherwise inconclusive.
 */
export function classify(input: ClassifyInput): MetricVerdict {
  if (input.pBeyondToleranceAdjusted <= input.alpha) return "regression";
  if (input.pBetterBeyondToleranceAdjusted <= input.alpha) return "improvement";
  if (input.pWithinTolerance <= (input.passAlpha ?? input.alpha)) return "within-tolerance";
  return "inconclusive";
}

/** Power the run plan is sized for at gate.detect_change (statistics.md §6 target). */
const plannedPower = 0.9;

/**
 * The start level of a projection: σ_s², and how the runs of each side fall into starts (runs per start
 * of the side's future runs; a side that does not grow keeps its current share of σ_s²).
 */
export interface StartProjection {
  startVariance: number;
  runsPerStart: number;
  /**
   * Σn_g²/N² of a side as measured, used instead of the projection: for a side that does not grow (a
   * stored baseline), or for both at the current run counts.
   */
  fixedWeights?: { baseline?: number; candidate?: number };
}

export interface DetectableInput {
  baselineVariance: number;
  candidateVariance: number;
  baselineRuns: number;
  candidateRuns: number;
  extraVariance: number;
  start?: StartProjection;
  tolerance: number;
  /** One-sided level the regression test faces (per look and Holm's strictest step). */
  alpha: number;
  power?: number;
  /**
   * Degrees of freedom of the variance estimate the variances are (the test's Satterthwaite df at the
   * measured runs): the test's df at these run counts, unless `testDf` says otherwise, and what the
   * estimate's median bias is corrected for. Absent: the variances are known (σ², no correction) and
   * the test's df infinite.
   */
  df?: number;
  /** The test's df at these run counts when they are not the measured ones (a projection); absent: df. */
  testDf?: number;
}

function standardErrorAt(input: {
  baselineVariance: number;
  candidateVariance: number;
  baselineRuns: number;
  candidateRuns: number;
  extraVariance: number;
  start?: StartProjection;
}): number {
  return Math.sqrt(
    input.baselineVariance / input.baselineRuns +
      input.candidateVariance / input.candidateRuns +
      input.extraVariance +
      startPartAt(input),
  );
}

/** The start level's part of the variance of the difference at these run counts (stats/two-level.ts). */
function startPartAt(input: {
  baselineRuns: number;
  candidateRuns: number;
  start?: StartProjection;
}): number {
  const start = input.start;
  if (!start || start.startVariance <= 0) return 0;
  const baselineWeight =
    start.fixedWeights?.baseline ?? startWeightFor(input.baselineRuns, start.runsPerStart);
  const candidateWeight =
    start.fixedWeights?.candidate ?? startWeightFor(input.candidateRuns, start.runsPerStart);
  return start.startVariance * (baselineWeight + candidateWeight);
}

/**
 * The estimate's median bias: an estimated variance with ν degrees of freedom is σ²·χ²_ν/ν, whose median
 * is below σ² (by 7% at ν = 10, 3% at ν = 20). Dividing an estimated sd by √(median χ²_ν / ν) makes it
 * median-unbiased for σ, so the detectable change computed from it is too. 1 for a known variance.
 */
function medianSdRatio(df: number): number {
  if (!(df > 0) || !Number.isFinite(df) || df > 1e7) return 1;
  return Math.sqrt(chiSquareQuantile(0.5, df) / df);
}

/**
 * Minimum detectable change: the smallest true relative worsening that these run counts block with
 * probability `power` (0.9) when the regression test is at level `alpha`, against the tolerance margin
 * d = ln(1 + tolerance) (docs/compare.md, "The minimum detectable change"). The test rejects when
 * (worse − d)/ŝ > t(1 − α, ν); for a true worsening δ that statistic is noncentral t with ν df and
 * noncentrality (δ − d)/σ_d, so δ = d + λ·σ_d with λ the noncentrality at which it rejects with the
 * power (exact, not t(1 − α) + z(power): the normal's z ignores that ŝ is estimated, which matters at
 * few df and small α). σ_d is the sd of the difference from the estimated variances, corrected for the
 * median bias of an estimate with `df` degrees of freedom, so the printed value is median-unbiased.
 */
export function minimumDetectableChange(input: DetectableInput): number {
  const se = standardErrorAt(input);
  const estimateDf = input.df ?? Number.POSITIVE_INFINITY;
  const testDf = input.testDf ?? estimateDf;
  const alpha = Math.min(0.5, Math.max(input.alpha, 1e-300));
  const critical = studentTQuantile(1 - alpha, testDf);
  const lambda = noncentralityForPower(critical, testDf, input.power ?? plannedPower);
  return relativeChangeOf(toleranceMargin(input.tolerance) + (lambda * se) / medianSdRatio(estimateDf));
}

/** t(1 − α, ν) for the planner's many power evaluations: ν on a grid of 3 significant digits. */
const criticalValues = new Map<string, number>();
function criticalAt(alpha: number, df: number): number {
  const grid = Number.isFinite(df) ? Number(df.toPrecision(3)) : df;
  const key = `${alpha}\u0000${grid}`;
  let value = criticalValues.get(key);
  if (value === undefined) {
    value = studentTQuantile(1 - alpha, grid);
    if (criticalValues.size > 10_000) criticalValues.clear();
    criticalValues.set(key, value);
  }
  return value;
}

/**
 * The power of the regression test against a true worsening `change` when the variances given are the
 * true ones: the probability that (worse − d)/ŝ exceeds c = t(1 − α, ν), for a noncentral t with ν df
 * and noncentrality λ = (ln(1 + change) − d)/σ_d, by the normal approximation of c·S (Jennett and Welch,
 * the start of noncentralityForPower): Φ((λ − c·(1 − 1/(4ν))) / √(1 + c²/(2ν))), within two points of power
 * of the exact value at ν ≥ 3, one at ν ≥ 5. The budget planner ranks plans that decide no more checks by it,
 * thousands of times a plan, where the exact integral would cost seconds.
 */
export function powerAtChange(input: DetectableInput, change: number): number {
  const se = standardErrorAt(input);
  const lambda = logRatioOf(change) - toleranceMargin(input.tolerance);
  if (!(se > 0)) return lambda > 0 ? 1 : 0;
  const df = input.testDf ?? input.df ?? Number.POSITIVE_INFINITY;
  const alpha = Math.min(0.5, Math.max(input.alpha, 1e-300));
  const c = criticalAt(alpha, df);
  if (!Number.isFinite(df) || df > 1e7) return normalCdf(lambda / se - c);
  return normalCdf((lambda / se - c * (1 - 1 / (4 * df))) / Math.sqrt(1 + (c * c) / (2 * df)));
}

export interface ResolvableInput {
  worse: number;
  tolerance: number;
  baselineVariance: number;
  candidateVariance: number;
  /** Runs per side if the remaining runs were added. */
  baselineRuns: number;
  candidateRuns: number;
  extraVariance: number;
  start?: StartProjection;
  /** Strictest level the regression test could face (α per look / family size). */
  regressionAlpha: number;
  passAlpha: number;
}

/**
 * Could this metric become decisive with the given run counts, if the point estimate and run
 * variances stayed as they are? (The futility check of adaptive repeats and the "runs to settle"
 * estimate.)
 */
export function resolvableWithMoreRuns(input: ResolvableInput): boolean {
  const se = standardErrorAt(input);
  const margin = toleranceMargin(input.tolerance);
  const canPass = input.worse + normalQuantile(1 - input.passAlpha) * se < margin;
  const canBlock = input.worse - normalQuantile(1 - input.regressionAlpha) * se > margin;
  return canPass || canBlock;
}

/**
 * Fewest runs per side (from `from` up to `max`) at which resolvableWithMoreRuns holds, or null when
 * even `max` would not settle it. `interleaved`: both sides grow; otherwise only the candidate.
 */
export function runsToSettle(
  input: Omit<ResolvableInput, "baselineRuns" | "candidateRuns">,
  current: { baseline: number; candidate: number },
  max: number,
  interleaved: boolean,
): number | null {
  for (let runs = Math.max(current.candidate, 2); runs <= max; runs++) {
    const ok = resolvableWithMoreRuns({
      ...input,
      baselineRuns: interleaved ? Math.max(runs, current.baseline) : current.baseline,
      candidateRuns: runs,
    });
    if (ok) return runs;
  }
  return null;
}

/** Degrees of freedom of the estimated parts of the difference's variance at the measured runs. */
interface VarianceDf {
  baseline: number;
  candidate: number;
  /** The start variance's (measured starts and the prior's weight); 0 when there is no start part. */
  start: number;
}

export interface DetectionProjection
  extends Omit<DetectableInput, "baselineRuns" | "candidateRuns" | "testDf"> {
  /**
   * The parts' df at the measured runs: the test's df at more runs follows by Satterthwaite, each side's
   * run variance gaining the runs added less the new starts they need, the start variance the new
   * starts. Absent: the test's df stays `df` (conservative).
   */
  varianceDf?: VarianceDf;
  /**
   * The one-sided level the regression test would face decided at this many runs per side (a later look
   * has a larger share of the family level); absent: `alpha` at every run count. Must not fall as runs grow.
   */
  alphaAt?: (runsPerSide: number) => number;
}

/** The test's Satterthwaite df at projected run counts (see DetectionProjection.varianceDf). */
function projectedTestDf(
  input: DetectionProjection,
  measured: { baseline: number; candidate: number },
  runs: { baseline: number; candidate: number },
): number | undefined {
  const parts = input.varianceDf;
  if (!parts) return input.df;
  const start = input.start;
  const perStart = start ? Math.max(1, Math.floor(start.runsPerStart)) : Number.POSITIVE_INFINITY;
  const grows = (side: "baseline" | "candidate") =>
    start !== undefined && start.startVariance > 0 && start.fixedWeights?.[side] === undefined;
  const newStarts = (side: "baseline" | "candidate") => {
    const added = Math.max(0, runs[side] - measured[side]);
    return grows(side) && added > 0 ? Math.ceil(added / perStart) : 0;
  };
  const runDf = (side: "baseline" | "candidate") =>
    parts[side] + Math.max(0, runs[side] - measured[side]) - newStarts(side);
  const at = { ...input, baselineRuns: runs.baseline, candidateRuns: runs.candidate };
  const vb = input.baselineVariance / runs.baseline;
  const vc = input.candidateVariance / runs.candidate;
  const startPart = startPartAt(at);
  const total = vb + vc + startPart + input.extraVariance;
  const startDf = parts.start + newStarts("baseline") + newStarts("candidate");
  let denominator = 0;
  if (parts.baseline > 0) denominator += (vb * vb) / runDf("baseline");
  if (parts.candidate > 0) denominator += (vc * vc) / runDf("candidate");
  if (startPart > 0 && startDf > 0) denominator += (startPart * startPart) / startDf;
  return denominator > 0 ? (total * total) / denominator : Number.POSITIVE_INFINITY;
}

/**
 * Runs per side (from the measured count up to `max`) at which the minimum detectable change reaches
 * `target` (gate.detect_change), or null when `max` runs do not get there (a stored baseline's drift or
 * too wide a run variance). `interleaved`: both sides grow; otherwise the baseline stays as it is. The
 * variances keep their measured estimate (and its median-bias correction at `df`); the test's df and
 * level are those of the projected runs. The detectable change does not rise with runs (the standard
 * error and the df's λ fall, the level does not fall), so the first run count that reaches it is found
 * by bisection.
 */
export function runsToDetect(
  input: DetectionProjection,
  current: { baseline: number; candidate: number },
  target: number,
  max: number,
  interleaved: boolean,
): number | null {
  const at = (runs: number) => {
    const projected = {
      baseline: interleaved ? Math.max(runs, current.baseline) : current.baseline,
      candidate: runs,
    };
    const testDf = projectedTestDf(input, current, projected);
    return minimumDetectableChange({
      ...input,
      baselineRuns: projected.baseline,
      candidateRuns: projected.candidate,
      alpha: input.alphaAt?.(runs) ?? input.alpha,
      ...(testDf === undefined ? {} : { testDf }),
    });
  };
  let lo = Math.max(2, current.candidate);
  if (lo > max || at(max) > target) return null;
  let hi = max;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (at(mid) <= target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
