import { normalCdf, normalQuantile, studentTQuantile } from "./distributions.js";
import { toleranceMargin } from "./margin.js";

/**
 * Runs sized by information (docs/compare.md, The run plan): choose each cell's requests per run and the
 * runs per side of the first look so that the first look is expected to decide a PR with no change
 * (every check's upper bound inside the tolerance) at the least GPU time, every server start counted.
 *
 * The model, per cell, on the ln scale of a run's gated statistic (its noisiest gated metric):
 *   var(one run) = runVariance + withinVariance1 / requests
 * a run-level part that more requests do not shrink (allocator and KV state, clocks, host noise) and the
 * sampling noise of the run's percentile, which falls as 1/requests. The difference of the two sides'
 * means at R runs a side has variance 2·var(one run)/R; the first look decides a clean PR with
 * probability `power` when every one of its `checks` gated checks passes, each with probability
 * power^(1/checks): (t(pass level) + z(power^(1/checks)))·sd(difference) ≤ ln(1 + tolerance). A run costs
 * requests × secondsPerRequest + fixedSecondsPerRun; a server start costs startSeconds. For each R the
 * cheapest requests per run that meet the variance target is closed-form, so the plan is exact over R.
 */

export interface RunNoise {
  /** Variance of ln(statistic) between server starts, shared by a start's runs (0: none). */
  startVariance?: number;
  /** Variance of ln(statistic) between runs that more requests do not shrink. */
  runVariance: number;
  /** Sampling variance of ln(statistic) of one request's worth: var = withinVariance1 / requests. */
  withinVariance1: number;
  /** Where the numbers come from: "prior" (docs/compare.md), or the runs they were measured from. */
  basis: string;
}

/**
 * The prior when nothing was measured: a run effect of sd 0.025 and a p95's sampling sd of 0.0166 at
 * 1,000 requests (bench/noise.ts, the noise model bench:gate and bench:cost simulate; per-run sd 0.030
 * at 1,000 requests, run effect 69% of it).
 */
export const priorRunNoise: RunNoise = {
  runVariance: 0.025 ** 2,
  withinVariance1: 0.0166 ** 2 * 1000,
  basis: "prior (run effect sd 2.5%, p95 sampling sd 1.66% at 1,000 requests)",
};

/**
 * Splits a measured run-to-run variance at `requests` requests per run into the two parts, in the
 * prior's proportion when the runs cannot separate them (one run length): the within part at most
 * what the prior's sampling noise gives at that length.
 */
export function noiseFromMeasured(
  variance: number,
  requests: number,
  runs: number,
  prior: RunNoise = priorRunNoise,
): RunNoise {
  const within = Math.min(variance, prior.withinVariance1 / requests);
  return {
    runVariance: Math.max(0, variance - within),
    withinVariance1: within * requests,
    basis: `measured: ${runs} runs at ${requests} requests`,
  };
}

export interface PlanCell {
  name: string;
  /** Seconds of schedule per measured request (1 / rate, idle gaps cut); null: a fixed-length run. */
  secondsPerRequest: number | null;
  /** Seconds of a run beyond its requests' share: warm-up, the last requests' tail, the cache reset. */
  fixedSecondsPerRun: number;
  /**
   * Requests per run the config declares (a fixed-length run: the requests it holds). For a cell whose
   * size counts sessions (`sizeUnit: "sessions"`) every "request" of the plan is a session: seconds,
   * the floor and `noise.withinVariance1` are then per session.
   */
  declaredRequests: number;
  sizeUnit?: "requests" | "sessions";
  /** Fewest requests a run may have: gate.min_requests of the gated percentiles. */
  minRequests: number;
  noise: RunNoise;
}

export interface RunPlanInput {
  cells: readonly PlanCell[];
  tolerance: number;
  /** Level of the within-tolerance bound (1 − confidence). */
  passAlpha: number;
  /** Chance that the first look decides a PR with no change: every gated check passes. */
  power: number;
  /**
   * Gated checks that must all pass (cells × gated metrics): each check's own chance is power^(1/checks),
   * independence being the conservative case for a joint pass.
   */
  checks: number;
  minRuns: number;
  maxRuns: number;
  /** Server starts of the look, every side, for R runs a side of every cell (the lifecycle and the block). */
  startsFor: (runsPerSide: number) => number;
  startSeconds: number;
  /** Sides measured in the PR's job: 2 interleaved, 1 against a stored baseline. */
  sides: 1 | 2;
  /** Most requests per run the planner may choose (configLimits.requestsPerRun). */
  maxRequests: number;
  /** The variances are known (an oracle's plan): normal quantiles instead of Student t. */
  knownVariance?: boolean;
  /**
   * How a side's R runs fall into server starts: the start variance's share of the side's mean,
   * Σn²/N² (stats/two-level.ts). Absent: one start a side (the share is 1).
   */
  startWeightAt?: (runsPerSide: number) => number;
}

interface CellPlan {
  name: string;
  /** Requests (or sessions, see PlanCell.sizeUnit) per run; null for a fixed-length run. */
  requests: number | null;
  sizeUnit: "requests" | "sessions";
  secondsPerRun: number;
  /** Predicted sd of ln(statistic) of one run at that length. */
  runSd: number;
}

export interface RunPlan {
  runsPerSide: number;
  cells: CellPlan[];
  /** Server starts of the first look (both sides when interleaved). */
  serverStarts: number;
  /** GPU-minutes of the first look, starts included. */
  gpuMinutes: number;
  /** GPU-minutes of one more look of `runsPerSide` runs a side (a new step: its own starts). */
  nextLookGpuMinutes: number;
  basis: string;
}

/**
 * The most variance one run of a cell may have at R runs a side, after the start level's share of the
 * side's mean (σ_s²·Σn²/N² for the starts its runs fall into); below 0 when the starts alone leave no room.
 */
function runVarianceTarget(input: RunPlanInput, cell: PlanCell, runs: number): number {
  const total = varianceTarget(input, runs);
  const start = cell.noise.startVariance ?? 0;
  if (start <= 0) return total;
  const weight = input.startWeightAt?.(runs) ?? 1;
  return total - runs * weight * start;
}

/** The variance of a side's mean difference the first look needs at R runs a side. */
function varianceTarget(input: RunPlanInput, runs: number): number {
  const df = Math.max(1, 2 * runs - 2);
  const perCheck = input.power ** (1 / Math.max(1, input.checks));
  const pass = input.knownVariance
    ? normalQuantile(1 - input.passAlpha)
    : studentTQuantile(1 - input.passAlpha, df);
  const z = pass + normalQuantile(perCheck);
  const margin = toleranceMargin(input.tolerance);
  // 2 v / R ≤ (margin / z)²  ⇒  v ≤ R (margin / z)² / 2
  return (runs * (margin / z) ** 2) / 2;
}

function cellAt(cell: PlanCell, target: number, maxRequests: number): CellPlan | null {
  const { runVariance, withinVariance1 } = cell.noise;
  if (target <= 0) return null;
  if (cell.secondsPerRequest === null) {
    const v = runVariance + withinVariance1 / cell.declaredRequests;
    if (v > target) return null;
    return {
      name: cell.name,
      requests: null,
      sizeUnit: cell.sizeUnit ?? "requests",
      secondsPerRun: cell.fixedSecondsPerRun,
      runSd: Math.sqrt(v),
    };
  }
  if (target <= runVariance) return null;
  const needed = Math.ceil(withinVariance1 / (target - runVariance));
  const requests = Math.max(cell.minRequests, needed);
  if (requests > maxRequests) return null;
  return {
    name: cell.name,
    requests,
    sizeUnit: cell.sizeUnit ?? "requests",
    secondsPerRun: requests * cell.secondsPerRequest + cell.fixedSecondsPerRun,
    runSd: Math.sqrt(runVariance + withinVariance1 / requests),
  };
}

/**
 * The cheapest first look: over R from minRuns to maxRuns, each cell at the fewest requests that meet
 * the variance target at R (never below its floor), priced with every start; the smallest total wins.
 * When no R in range meets the target (run effects too large for the tolerance), the plan is the last
 * R at the floor, and `basis` says so.
 */
export function planRuns(input: RunPlanInput): RunPlan {
  let best: RunPlan | null = null;
  const minRuns = Math.max(2, input.minRuns);
  for (let runs = minRuns; runs <= Math.max(minRuns, input.maxRuns); runs++) {
    const cells = input.cells.map((cell) =>
      cellAt(cell, runVarianceTarget(input, cell, runs), input.maxRequests),
    );
    if (cells.some((cell) => cell === null)) continue;
    const plan = priced(input, runs, cells as CellPlan[], "");
    if (best === null || plan.gpuMinutes < best.gpuMinutes) best = plan;
  }
  if (best) return { ...best, basis: basisOf(input) };
  const runs = Math.max(minRuns, input.maxRuns);
  const floor = input.cells.map((cell) => cellAt(cell, Number.POSITIVE_INFINITY, input.maxRequests)!);
  return priced(
    input,
    runs,
    floor,
    `${basisOf(input)}; no run count up to ${runs} a side is expected to decide the first look: the run-to-run noise is large for a ${(input.tolerance * 100).toFixed(1)}% tolerance`,
  );
}

function priced(input: RunPlanInput, runs: number, cells: CellPlan[], basis: string): RunPlan {
  const runSeconds = cells.reduce((sum, cell) => sum + cell.secondsPerRun, 0);
  const starts = input.startsFor(runs);
  const gpuMinutes = (input.sides * runs * runSeconds + starts * input.startSeconds) / 60;
  return {
    runsPerSide: runs,
    cells,
    serverStarts: starts,
    gpuMinutes,
    nextLookGpuMinutes: gpuMinutes,
    basis,
  };
}

function basisOf(input: RunPlanInput): string {
  const bases = [...new Set(input.cells.map((cell) => cell.noise.basis))];
  return bases.length === 1 ? bases[0]! : `${bases.length} bases (per cell)`;
}

/**
 * The model's chance that a look at `runs` runs a side of the cells at the given requests per run (the
 * config's, null: a fixed-length run) decides a PR with no change: every check passes, independently.
 */
export function cleanPassChance(
  input: Pick<RunPlanInput, "cells" | "tolerance" | "passAlpha" | "checks" | "startWeightAt">,
  runs: number,
  requestsOf: (cell: PlanCell) => number,
): number {
  const df = Math.max(1, 2 * runs - 2);
  const margin = toleranceMargin(input.tolerance);
  const t = studentTQuantile(1 - input.passAlpha, df);
  const metricsPerCell = input.checks / Math.max(1, input.cells.length);
  let chance = 1;
  for (const cell of input.cells) {
    const v = cell.noise.runVariance + cell.noise.withinVariance1 / requestsOf(cell);
    const start = (cell.noise.startVariance ?? 0) * (input.startWeightAt?.(runs) ?? 1);
    const sd = Math.sqrt(2 * (v / runs + start));
    chance *= normalCdf(margin / sd - t) ** metricsPerCell;
  }
  return chance;
}
