import { logRatioOf, toleranceMargin } from "./margin.js";
import { type DetectableInput, minimumDetectableChange, powerAtChange } from "./metric-test.js";

/**
 * A plan chosen by its cost (docs/compare.md, "A budget per pull request"): within a budget of
 * GPU-minutes, the runs per side, how they fall into server starts and the requests per run of every
 * cell that decide as many gated checks as possible at the change the gate must catch
 * (gate.detect_change); of those, the
 * plan whose tests have the most power at detect_change for the checks it cannot decide (a check out of
 * reach still catches more of the changes it can with more of the budget), and of plans of about the
 * same power the cheapest: money that could not change a decision or the power is not spent.
 *
 * A check is decided at the plan when its minimum detectable change (stats/metric-test.ts, the same
 * function the report prints) is at most detect_change: the plan's runs block a worsening of that size
 * with 90% power. Its variance on the ln scale of one side's mean of R runs in starts that share runs:
 *   (runVariance + withinVariance1 / requests) / R + startVariance · Σn²/N²
 * (stats/two-level.ts), for both sides measured in the job; with every run on a start of its own the
 * start level is inside the runs' own spread, as compare's test sees it:
 *   (runVariance + startVariance + withinVariance1 / requests) / R.
 * How a side's runs fall into server starts (a `Schedule`) is the caller's notion (app/budget-plan.ts:
 * config/alternation.ts's Alternation); the planner sees it through its starts and weights.
 */

/** The noise of one gated check (a cell's metric), on the ln scale of one run's statistic. */
export interface CheckNoise {
  metric: string;
  startVariance: number;
  runVariance: number;
  /** Sampling variance of one request's worth: var = withinVariance1 / requests. */
  withinVariance1: number;
  /** Degrees of freedom the run-level variance comes with (a calibration's); 0: a prior with no data behind it. */
  priorDf: number;
  /** Degrees of freedom of the start-level variance when measured (a calibration's); absent: priorDf. */
  startDf?: number;
  /**
   * Degrees of freedom of the variance of a run on its own start, σ_r² + σ_s² (a calibration's perRun):
   * what compare pools the runs of a schedule of a start per run with; absent: none (their own df only).
   */
  perRunDf?: number;
}

export interface BudgetCell {
  name: string;
  /** Seconds of schedule per measured request; null: a fixed-length run. */
  secondsPerRequest: number | null;
  /** Seconds of a run beyond its requests' share. */
  fixedSecondsPerRun: number;
  /** A fixed-length run's requests (also the declared size of a request-sized cell). */
  declaredRequests: number;
  minRequests: number;
  checks: readonly CheckNoise[];
}

export interface BudgetPlanInput<Schedule> {
  cells: readonly BudgetCell[];
  budgetMinutes: number;
  tolerance: number;
  detectChange: number;
  /** The regression test's one-sided level at its strictest Holm step (family level / gated checks). */
  alpha: number;
  minRuns: number;
  maxRuns: number;
  maxRequests: number;
  /**
   * The schedules the planner may choose at R runs a side (repeats.block candidates), each once: the
   * same value for the same choice, as the functions below may remember it.
   */
  schedulesAt: (runs: number) => readonly Schedule[];
  /** Server starts of R runs a side in a schedule, every side and server counted. */
  startsFor: (runs: number, schedule: Schedule) => number;
  /** Σn²/N² of the side whose runs share starts the most, R runs a side in a schedule. */
  startWeightAt: (runs: number, schedule: Schedule) => number;
  /** Server starts of one side for R runs a side in a schedule (the fewer side's): R, every run its own. */
  startsPerSide: (runs: number, schedule: Schedule) => number;
  /** Weight of the prior start variance in df (gate.noise_prior.weight_starts). */
  startPriorDf: number;
  startSeconds: number;
  /** Sides measured in the job: 2 interleaved, 1 against a stored baseline. */
  sides: 1 | 2;
}

interface PlannedCheck {
  metric: string;
  /** The plan's minimum detectable change for this check (relative worsening). */
  detectable: number;
  decided: boolean;
  /** Power at detect_change, the plan's variances taken as true. */
  power: number;
}

interface PlannedCell {
  name: string;
  /** Requests per run; null for a fixed-length run. */
  requests: number | null;
  secondsPerRun: number;
  checks: PlannedCheck[];
}

export interface BudgetPlan<Schedule> {
  runsPerSide: number;
  /** How a side's runs fall into server starts. */
  schedule: Schedule;
  serverStarts: number;
  gpuMinutes: number;
  budgetMinutes: number;
  cells: PlannedCell[];
  decided: number;
  checks: number;
  /** Summed power at detect_change over the checks (their mean times `checks`). */
  power: number;
}

/** The planner's scalar settings: what the tests face, whatever the schedules. */
type Levels = Pick<BudgetPlanInput<unknown>, "tolerance" | "alpha" | "detectChange">;

/**
 * The largest standard error of the difference at which a check is decided: the detectable change is
 * exp(ln(1 + tolerance) + q·se) − 1 with q fixed by the df and the levels, so q is read off one call of
 * the report's own function.
 */
function standardErrorToDecide(input: Levels, df: number): number {
  const q = detectableQuantile(input, df);
  return (logRatioOf(input.detectChange) - toleranceMargin(input.tolerance)) / q;
}

/** q of the detectable change at `df` (its value at 3 significant digits of df: the planner asks often). */
const quantiles = new Map<string, number>();
function detectableQuantile(input: Omit<Levels, "detectChange">, df: number): number {
  const grid = Number.isFinite(df) ? Number(df.toPrecision(3)) : df;
  const key = `${input.tolerance}\u0000${input.alpha}\u0000${grid}`;
  const known = quantiles.get(key);
  if (known !== undefined) return known;
  const probe = 0.01;
  const detectable = minimumDetectableChange({
    baselineVariance: probe ** 2,
    candidateVariance: 0,
    baselineRuns: 1,
    candidateRuns: 1,
    extraVariance: 0,
    tolerance: input.tolerance,
    alpha: input.alpha,
    df: grid,
  });
  const q = (logRatioOf(detectable) - toleranceMargin(input.tolerance)) / probe;
  if (quantiles.size > 10_000) quantiles.clear();
  quantiles.set(key, q);
  return q;
}

type CheckInput<Schedule> = Pick<
  BudgetPlanInput<Schedule>,
  "tolerance" | "alpha" | "startWeightAt" | "sides" | "startsPerSide" | "startPriorDf"
>;

/** How a check's noise falls into a side's mean at R runs a side in a schedule (stats/two-level.ts). */
interface CheckLevels {
  /** A run's variance beyond its sampling: σ_r², or σ_r² + σ_s² when every run has a start of its own. */
  fixed: number;
  /** Σn²/N² of σ_s² in a side's mean; 0 when every run has a start of its own (σ_s² is in `fixed`). */
  startWeight: number;
  /** Server starts of the fewer side. */
  starts: number;
  /** Every run on a start of its own: compare's test sees one level, the runs' whole spread. */
  ownStarts: boolean;
}

function levelsAt<Schedule>(
  input: CheckInput<Schedule>,
  check: CheckNoise,
  runs: number,
  schedule: Schedule,
): CheckLevels {
  const starts = Math.max(1, Math.min(runs, input.startsPerSide(runs, schedule)));
  if (starts >= runs)
    return { fixed: check.runVariance + check.startVariance, startWeight: 0, starts, ownStarts: true };
  return {
    fixed: check.runVariance,
    startWeight: input.startWeightAt(runs, schedule),
    starts,
    ownStarts: false,
  };
}

/**
 * Satterthwaite's df of the run part of the difference as compare estimates it (stats/two-level.ts
 * runLevelDfTerms): each of `sides` sides' variance from its own `own` df pooled with a prior of `prior`
 * df that both share, so counted once: s·(own + prior)² / (own + s·prior) when the variances agree.
 */
function runPartDf(sides: number, own: number, prior: number): number {
  if (!Number.isFinite(prior)) return Number.POSITIVE_INFINITY;
  const total = own + prior;
  return Math.max(1, (sides * total * total) / Math.max(1e-9, own + sides * prior));
}

/**
 * Satterthwaite's df of the difference's variance from its two parts, as the two-level test estimates
 * them (stats/two-level.ts): the run part from the runs within starts (a side's R − G) pooled with the
 * calibration's within-start prior, the start part from the starts (G − 1 a side) pooled with the
 * prior's weight and a calibration's start df. With every run on a start of its own there is one part:
 * the runs' whole spread (R − 1 a side) pooled with the calibration's variance of a run on its own start.
 * `levels`: the check's at R runs in the schedule (levelsAt), worked out once by the caller.
 */
function checkDf<Schedule>(
  input: CheckInput<Schedule>,
  check: CheckNoise,
  runs: number,
  levels: CheckLevels,
  requests: number,
): number {
  if (levels.ownStarts) return runPartDf(input.sides, runs - 1, check.perRunDf ?? 0);
  const runPart = (levels.fixed + check.withinVariance1 / Math.max(1, requests)) / runs;
  const startPart = check.startVariance * levels.startWeight;
  const runDf = runPartDf(input.sides, runs - levels.starts, check.priorDf);
  const startDf = Math.max(
    1,
    input.sides * (levels.starts - 1) + input.startPriorDf + (check.startDf ?? check.priorDf),
  );
  if (startPart <= 0) return runDf;
  return (runPart + startPart) ** 2 / (runPart ** 2 / runDf + startPart ** 2 / startDf);
}

/** Requests that bring a check to detect_change at R runs in a schedule; null when none up to the cap. */
function requestsToDecide<Schedule>(
  input: BudgetPlanInput<Schedule>,
  cell: BudgetCell,
  check: CheckNoise,
  runs: number,
  schedule: Schedule,
): number | null {
  const levels = levelsAt(input, check, runs, schedule);
  const roomAt = (requests: number) => {
    const se = standardErrorToDecide(input, checkDf(input, check, runs, levels, requests));
    // se² = 2·(fixed + withinVariance1/n)/R + 2·startVariance·Σn²/N²
    return (se ** 2 / 2 - check.startVariance * levels.startWeight) * runs;
  };
  const fits = (requests: number) => levels.fixed + check.withinVariance1 / requests <= roomAt(requests);
  if (cell.secondsPerRequest === null) return fits(cell.declaredRequests) ? cell.declaredRequests : null;
  const floor = Math.max(1, cell.minRequests);
  if (fits(floor)) return floor;
  // The df grow as the run part shrinks: two rounds from the floor's df settle the length.
  let needed = floor;
  for (let round = 0; round < 3; round++) {
    const room = roomAt(needed);
    if (room <= levels.fixed) return null;
    needed = Math.max(floor, Math.ceil(check.withinVariance1 / (room - levels.fixed)));
    if (needed > input.maxRequests) return null;
  }
  while (!fits(needed)) {
    needed = Math.ceil(needed * 1.05);
    if (needed > input.maxRequests) return null;
  }
  return needed;
}

/** The report's detectable-change input for a check at R runs a side in a schedule, `requests` per run. */
function detectableInput<Schedule>(
  input: CheckInput<Schedule>,
  check: CheckNoise,
  runs: number,
  schedule: Schedule,
  requests: number,
): DetectableInput {
  const levels = levelsAt(input, check, runs, schedule);
  const perRun = levels.fixed + check.withinVariance1 / Math.max(1, requests);
  const weight = levels.startWeight;
  // Against a stored baseline the other side is the baseline's, taken as measured like ours.
  return {
    baselineVariance: perRun,
    candidateVariance: perRun,
    baselineRuns: runs,
    candidateRuns: runs,
    extraVariance: 0,
    ...(weight > 0
      ? {
          start: {
            startVariance: check.startVariance,
            runsPerStart: Math.ceil(runs / levels.starts),
            fixedWeights: { baseline: weight, candidate: weight },
          },
        }
      : {}),
    tolerance: input.tolerance,
    alpha: input.alpha,
    df: checkDf(input, check, runs, levels, requests),
  };
}

/** The minimum detectable change of a check at R runs a side in a schedule, at `requests` per run. */
export function detectableAt<Schedule>(
  input: CheckInput<Schedule>,
  check: CheckNoise,
  runs: number,
  schedule: Schedule,
  requests: number,
): number {
  return minimumDetectableChange(detectableInput(input, check, runs, schedule, requests));
}

/** The power at detect_change of a check at R runs a side in a schedule, its variances taken as true. */
function powerAt<Schedule>(
  input: BudgetPlanInput<Schedule>,
  check: CheckNoise,
  runs: number,
  schedule: Schedule,
  requests: number,
) {
  return powerAtChange(detectableInput(input, check, runs, schedule, requests), input.detectChange);
}

/** A cell's fewest requests per run: a fixed-length run's own, else its floor (gate.min_requests). */
function floorRequests(cell: BudgetCell): number {
  return cell.secondsPerRequest === null ? cell.declaredRequests : Math.max(1, cell.minRequests);
}

function secondsPerRun(cell: BudgetCell, requests: number): number {
  return cell.secondsPerRequest === null
    ? cell.fixedSecondsPerRun
    : requests * cell.secondsPerRequest + cell.fixedSecondsPerRun;
}

/** GPU-minutes of a plan: every run of every cell on each side, and every server start. */
function minutesOf<Schedule>(
  input: BudgetPlanInput<Schedule>,
  runs: number,
  schedule: Schedule,
  runSeconds: number,
): number {
  return (input.sides * runs * runSeconds + input.startsFor(runs, schedule) * input.startSeconds) / 60;
}

interface CellOption {
  requests: number;
  seconds: number;
  decided: number;
  /** Summed power at detect_change of the cell's checks at this length (the variances taken as true). */
  power: number;
}

/** Lengths between a cell's floor and its longest affordable run the planner also weighs for power. */
const powerGridSteps = 12;

/**
 * A cell's choices at R runs in a schedule within `runSeconds` a run of every cell: its floor (every cell
 * is measured, decided or not), each length at which one more of its checks is decided, and a geometric
 * grid of lengths up to the longest affordable for the power of the checks it cannot decide.
 */
function cellOptions<Schedule>(
  input: BudgetPlanInput<Schedule>,
  cell: BudgetCell,
  runs: number,
  schedule: Schedule,
  runSeconds: number,
): CellOption[] {
  const floor = floorRequests(cell);
  const needs = cell.checks
    .map((check) => requestsToDecide(input, cell, check, runs, schedule))
    .filter((n): n is number => n !== null);
  const lengths = new Set<number>([floor, ...needs.filter((n) => n > floor)]);
  if (cell.secondsPerRequest !== null) {
    const top = Math.min(
      input.maxRequests,
      Math.floor((runSeconds - cell.fixedSecondsPerRun) / cell.secondsPerRequest),
    );
    for (let g = 1; g <= powerGridSteps && top > floor; g++)
      lengths.add(Math.round(floor * (top / floor) ** (g / powerGridSteps)));
  }
  const options = [...lengths]
    .sort((x, y) => x - y)
    .map((requests) => ({
      requests,
      seconds: secondsPerRun(cell, requests),
      decided: needs.filter((n) => n <= requests).length,
      power: cell.checks.reduce((sum, check) => sum + powerAt(input, check, runs, schedule, requests), 0),
    }));
  // A longer run worth no more than a shorter one is never bought.
  const kept: CellOption[] = [];
  for (const option of options)
    if (kept.length === 0 || worth(option) > worth(kept.at(-1)!)) kept.push(option);
  return kept;
}
/** Cost units of the knapsack over cells: a GPU-minute budget cut into this many steps. */
const costSteps = 2000;

/**
 * Power gains smaller than this (summed over the checks) do not buy GPU time: within it, plans count as
 * equally powerful and the cheaper is taken.
 */
const powerStep = 0.01;

/** An option's worth in the knapsack: a decided check outweighs any power, power counts in whole steps. */
const worth = (option: Pick<CellOption, "decided" | "power">) =>
  option.decided * 1e6 + Math.floor(option.power / powerStep + 1e-9);

/**
 * The options (one per cell) worth the most within `seconds` of runs, cheapest among the best: a knapsack
 * over cells on a grid of costSteps (costs rounded up, so never over budget).
 */
function bestOptions(options: readonly CellOption[][], seconds: number): CellOption[] | null {
  if (!(seconds >= 0)) return null;
  const unit = Math.max(seconds / costSteps, 1e-9);
  const steps = Math.floor(seconds / unit + 1e-9);
  // At cost ≤ c units after each cell: worth, exact seconds, and the option taken (-1: none).
  let value = new Float64Array(steps + 1);
  let spent = new Float64Array(steps + 1);
  const taken: Int16Array[] = [];
  const from: Int32Array[] = [];
  for (const list of options) {
    const nextValue = new Float64Array(steps + 1).fill(-1);
    const nextSpent = new Float64Array(steps + 1);
    const choice = new Int16Array(steps + 1).fill(-1);
    const previous = new Int32Array(steps + 1);
    const costs = list.map((option) => Math.ceil(option.seconds / unit - 1e-9));
    const worths = list.map(worth);
    for (let c = 0; c <= steps; c++) {
      for (let o = 0; o < list.length; o++) {
        const before = c - costs[o]!;
        if (before < 0 || value[before]! < 0) continue;
        const v = value[before]! + worths[o]!;
        const s = spent[before]! + list[o]!.seconds;
        if (v > nextValue[c]! || (v === nextValue[c]! && s < nextSpent[c]!)) {
          nextValue[c] = v;
          nextSpent[c] = s;
          choice[c] = o;
          previous[c] = before;
        }
      }
    }
    value = nextValue;
    spent = nextSpent;
    taken.push(choice);
    from.push(previous);
  }
  if (value[steps]! < 0) return null;
  const chosen: CellOption[] = [];
  let c = steps;
  for (let i = options.length - 1; i >= 0; i--) {
    chosen.unshift(options[i]![taken[i]![c]!]!);
    c = from[i]![c]!;
  }
  return chosen;
}

/** Plan a beats plan b: more checks decided, else more power by a step, else as powerful and cheaper. */
function better<Schedule>(a: BudgetPlan<Schedule>, b: BudgetPlan<Schedule>): boolean {
  if (a.decided !== b.decided) return a.decided > b.decided;
  if (Math.abs(a.power - b.power) >= powerStep) return a.power > b.power;
  return a.gpuMinutes < b.gpuMinutes - 1e-9;
}

/** Runs per side the planner weighs, from the fewest to the most. */
function runCounts(input: Pick<BudgetPlanInput<unknown>, "minRuns" | "maxRuns">): number[] {
  const counts: number[] = [];
  for (let runs = Math.max(2, input.minRuns); runs <= Math.max(input.minRuns, input.maxRuns); runs++)
    counts.push(runs);
  return counts;
}

/**
 * The plan within the budget: over runs per side and schedules, the options that decide the most
 * checks, then have the most power at detect_change, the cheapest of those. Null when not even the
 * fewest runs of every cell at its floor fit.
 */
export function planWithinBudget<Schedule>(input: BudgetPlanInput<Schedule>): BudgetPlan<Schedule> | null {
  let best: BudgetPlan<Schedule> | null = null;
  const checks = input.cells.reduce((n, cell) => n + cell.checks.length, 0);
  const floorSeconds = input.cells.reduce((sum, cell) => sum + secondsPerRun(cell, floorRequests(cell)), 0);
  for (const runs of runCounts(input)) {
    for (const schedule of input.schedulesAt(runs)) {
      const startMinutes = minutesOf(input, runs, schedule, 0);
      const runSecondsLeft = ((input.budgetMinutes - startMinutes) * 60) / (input.sides * runs);
      if (!(runSecondsLeft >= 0) || floorSeconds > runSecondsLeft) continue;
      const options = input.cells.map((cell) => cellOptions(input, cell, runs, schedule, runSecondsLeft));
      const chosen = bestOptions(options, runSecondsLeft);
      if (chosen === null) continue;
      const seconds = chosen.reduce((sum, option) => sum + option.seconds, 0);
      const plan = describe(input, runs, schedule, chosen, minutesOf(input, runs, schedule, seconds), checks);
      if (best === null || better(plan, best)) best = plan;
    }
  }
  return best;
}

function describe<Schedule>(
  input: BudgetPlanInput<Schedule>,
  runs: number,
  schedule: Schedule,
  chosen: readonly CellOption[],
  gpuMinutes: number,
  checks: number,
): BudgetPlan<Schedule> {
  const cells = input.cells.map((cell, i): PlannedCell => {
    const option = chosen[i]!;
    return {
      name: cell.name,
      requests: cell.secondsPerRequest === null ? null : option.requests,
      secondsPerRun: option.seconds,
      checks: cell.checks.map((check) => {
        const detectable = detectableAt(input, check, runs, schedule, option.requests);
        const power = powerAt(input, check, runs, schedule, option.requests);
        return { metric: check.metric, detectable, decided: detectable <= input.detectChange, power };
      }),
    };
  });
  return {
    runsPerSide: runs,
    schedule,
    serverStarts: input.startsFor(runs, schedule),
    gpuMinutes,
    budgetMinutes: input.budgetMinutes,
    cells,
    decided: cells.reduce((n, cell) => n + cell.checks.filter((c) => c.decided).length, 0),
    checks,
    power: cells.reduce((sum, cell) => sum + cell.checks.reduce((p, c) => p + c.power, 0), 0),
  };
}

/**
 * The least GPU-minutes at which one check is decided (with the checks the plan decides kept decided):
 * the budget that would decide it, or null when no plan up to the largest runs and requests does.
 */
export function budgetToDecide<Schedule>(
  input: BudgetPlanInput<Schedule>,
  plan: BudgetPlan<Schedule>,
  cellName: string,
  metric: string,
): number | null {
  const keep = (cell: PlannedCell, check: PlannedCheck) =>
    check.decided || (cell.name === cellName && check.metric === metric);
  let least: number | null = null;
  for (const runs of runCounts(input)) {
    for (const schedule of input.schedulesAt(runs)) {
      let seconds = 0;
      let possible = true;
      for (const [i, cell] of input.cells.entries()) {
        const planned = plan.cells[i]!;
        let requests = floorRequests(cell);
        for (const [j, check] of cell.checks.entries()) {
          if (!keep(planned, planned.checks[j]!)) continue;
          const needed = requestsToDecide(input, cell, check, runs, schedule);
          if (needed === null) {
            possible = false;
            break;
          }
          requests = Math.max(requests, needed);
        }
        if (!possible) break;
        seconds += secondsPerRun(cell, requests);
      }
      if (!possible) continue;
      const minutes = minutesOf(input, runs, schedule, seconds);
      if (least === null || minutes < least) least = minutes;
    }
  }
  return least;
}

/** GPU-minutes of the cheapest plan that measures every cell: the fewest runs, each cell at its floor. */
export function leastMinutes<Schedule>(input: BudgetPlanInput<Schedule>): number {
  const floorSeconds = input.cells.reduce((sum, cell) => sum + secondsPerRun(cell, floorRequests(cell)), 0);
  const runs = input.minRuns;
  return Math.min(
    ...input.schedulesAt(runs).map((schedule) => minutesOf(input, runs, schedule, floorSeconds)),
  );
}
