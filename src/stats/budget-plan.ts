import { logRatioOf, toleranceMargin } from "./margin.js";
import { type DetectableInput, minimumDetectableChange, powerAtChange } from "./metric-test.js";

/**
 * A plan chosen by its cost (docs/compare.md, "A budget per pull request"): within a budget of
 * GPU-minutes, the runs per side, runs per server start and requests per run of every cell that decide
 * as many gated checks as possible at the change the gate must catch (gate.detect_change); of those, the
 * plan whose tests have the most power at detect_change for the checks it cannot decide (a check out of
 * reach still catches more of the changes it can with more of the budget), and of plans of about the
 * same power the cheapest: money that could not change a decision or the power is not spent.
 *
 * A check is decided at the plan when its minimum detectable change (stats/metric-test.ts, the same
 * function the report prints) is at most detect_change: the plan's runs block a worsening of that size
 * with 90% power. Its variance on the ln scale of one side's mean of R runs in starts of k runs:
 *   (runVariance + withinVariance1 / requests) / R + startVariance · Σn²/N²
 * (stats/two-level.ts), for both sides measured in the job.
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

export interface BudgetPlanInput {
  cells: readonly BudgetCell[];
  budgetMinutes: number;
  tolerance: number;
  detectChange: number;
  /** The regression test's one-sided level at its strictest Holm step (family level / gated checks). */
  alpha: number;
  minRuns: number;
  maxRuns: number;
  maxRequests: number;
  /** Runs per server start the planner may choose (repeats.block candidates). */
  blocks: readonly number[];
  /** Server starts of R runs a side in blocks of k, every side and server counted. */
  startsFor: (runs: number, block: number) => number;
  /** Σn²/N² of the side whose runs share starts the most, R runs a side in blocks of k. */
  startWeightAt: (runs: number, block: number) => number;
  /** Server starts of one side for R runs a side in blocks of k (the fewer side's). */
  startsPerSide: (runs: number, block: number) => number;
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

export interface BudgetPlan {
  runsPerSide: number;
  runsPerStart: number;
  serverStarts: number;
  gpuMinutes: number;
  budgetMinutes: number;
  cells: PlannedCell[];
  decided: number;
  checks: number;
  /** Summed power at detect_change over the checks (their mean times `checks`). */
  power: number;
}

/**
 * The largest standard error of the difference at which a check is decided: the detectable change is
 * exp(ln(1 + tolerance) + q·se) − 1 with q fixed by the df and the levels, so q is read off one call of
 * the report's own function.
 */
function standardErrorToDecide(
  input: Pick<BudgetPlanInput, "tolerance" | "alpha" | "detectChange">,
  df: number,
): number {
  const q = detectableQuantile(input, df);
  return (logRatioOf(input.detectChange) - toleranceMargin(input.tolerance)) / q;
}

/** q of the detectable change at `df` (its value at 3 significant digits of df: the planner asks often). */
const quantiles = new Map<string, number>();
function detectableQuantile(input: Pick<BudgetPlanInput, "tolerance" | "alpha">, df: number): number {
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

/**
 * Satterthwaite's df of the difference's variance from its two parts, as the two-level test estimates
 * them (stats/two-level.ts): the run part from the runs within starts (a side's R − G), the start part
 * from the starts (G − 1 a side) pooled with the prior's weight; a calibration adds its own df to both.
 */
function checkDf(
  input: Pick<BudgetPlanInput, "sides" | "startsPerSide" | "startWeightAt" | "startPriorDf">,
  check: CheckNoise,
  runs: number,
  block: number,
  requests: number,
): number {
  const starts = Math.max(1, Math.min(runs, input.startsPerSide(runs, block)));
  const runPart = (check.runVariance + check.withinVariance1 / Math.max(1, requests)) / runs;
  const startPart = check.startVariance * input.startWeightAt(runs, block);
  const runDf = Math.max(1, input.sides * (runs - starts) + check.priorDf);
  const startDf = Math.max(
    1,
    input.sides * (starts - 1) + input.startPriorDf + (check.startDf ?? check.priorDf),
  );
  if (startPart <= 0) return runDf;
  return (runPart + startPart) ** 2 / (runPart ** 2 / runDf + startPart ** 2 / startDf);
}

/** Requests that bring a check to detect_change at R runs in blocks of k; null when none up to the cap. */
function requestsToDecide(
  input: BudgetPlanInput,
  cell: BudgetCell,
  check: CheckNoise,
  runs: number,
  block: number,
): number | null {
  const roomAt = (requests: number) => {
    const se = standardErrorToDecide(input, checkDf(input, check, runs, block, requests));
    // se² = 2·(runVariance + withinVariance1/n)/R + 2·startVariance·Σn²/N²
    return (se ** 2 / 2 - check.startVariance * input.startWeightAt(runs, block)) * runs;
  };
  const fits = (requests: number) => check.runVariance + check.withinVariance1 / requests <= roomAt(requests);
  if (cell.secondsPerRequest === null) return fits(cell.declaredRequests) ? cell.declaredRequests : null;
  const floor = Math.max(1, cell.minRequests);
  if (fits(floor)) return floor;
  // The df grow as the run part shrinks: two rounds from the floor's df settle the length.
  let needed = floor;
  for (let round = 0; round < 3; round++) {
    const room = roomAt(needed);
    if (room <= check.runVariance) return null;
    needed = Math.max(floor, Math.ceil(check.withinVariance1 / (room - check.runVariance)));
    if (needed > input.maxRequests) return null;
  }
  while (!fits(needed)) {
    needed = Math.ceil(needed * 1.05);
    if (needed > input.maxRequests) return null;
  }
  return needed;
}

type CheckInput = Pick<
  BudgetPlanInput,
  "tolerance" | "alpha" | "startWeightAt" | "sides" | "startsPerSide" | "startPriorDf"
>;

/** The report's detectable-change input for a check at R runs a side in blocks of k, `requests` per run. */
function detectableInput(
  input: CheckInput,
  check: CheckNoise,
  runs: number,
  block: number,
  requests: number,
): DetectableInput {
  const perRun = check.runVariance + check.withinVariance1 / Math.max(1, requests);
  const weight = input.startWeightAt(runs, block);
  // Against a stored baseline the other side is the baseline's, taken as measured like ours.
  return {
    baselineVariance: perRun,
    candidateVariance: perRun,
    baselineRuns: runs,
    candidateRuns: runs,
    extraVariance: 0,
    start: {
      startVariance: check.startVariance,
      runsPerStart: block,
      fixedWeights: { baseline: weight, candidate: weight },
    },
    tolerance: input.tolerance,
    alpha: input.alpha,
    df: checkDf(input, check, runs, block, requests),
  };
}

/** The minimum detectable change of a check at R runs a side in blocks of k, at `requests` per run. */
export function detectableAt(
  input: CheckInput,
  check: CheckNoise,
  runs: number,
  block: number,
  requests: number,
): number {
  return minimumDetectableChange(detectableInput(input, check, runs, block, requests));
}

/** The power at detect_change of a check at R runs a side in blocks of k, its variances taken as true. */
function powerAt(input: BudgetPlanInput, check: CheckNoise, runs: number, block: number, requests: number) {
  return powerAtChange(detectableInput(input, check, runs, block, requests), input.detectChange);
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
function minutesOf(input: BudgetPlanInput, runs: number, block: number, runSeconds: number): number {
  return (input.sides * runs * runSeconds + input.startsFor(runs, block) * input.startSeconds) / 60;
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
 * A cell's choices at R runs in blocks of k within `runSeconds` a run of every cell: its floor (every cell
 * is measured, decided or not), each length at which one more of its checks is decided, and a geometric
 * grid of lengths up to the longest affordable for the power of the checks it cannot decide.
 */
function cellOptions(
  input: BudgetPlanInput,
  cell: BudgetCell,
  runs: number,
  block: number,
  runSeconds: number,
): CellOption[] {
  const floor = floorRequests(cell);
  const needs = cell.checks
    .map((check) => requestsToDecide(input, cell, check, runs, block))
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
      power: cell.checks.reduce((sum, check) => sum + powerAt(input, check, runs, block, requests), 0),
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
function better(a: BudgetPlan, b: BudgetPlan): boolean {
  if (a.decided !== b.decided) return a.decided > b.decided;
  if (Math.abs(a.power - b.power) >= powerStep) return a.power > b.power;
  return a.gpuMinutes < b.gpuMinutes - 1e-9;
}

/**
 * The plan within the budget: over runs per side and runs per start, the options that decide the most
 * checks, then have the most power at detect_change, the cheapest of those. Null when not even the
 * fewest runs of every cell at its floor fit.
 */
export function planWithinBudget(input: BudgetPlanInput): BudgetPlan | null {
  let best: BudgetPlan | null = null;
  const checks = input.cells.reduce((n, cell) => n + cell.checks.length, 0);
  for (let runs = Math.max(2, input.minRuns); runs <= Math.max(input.minRuns, input.maxRuns); runs++) {
    for (const block of new Set(input.blocks.map((k) => Math.max(1, Math.min(runs, k))))) {
      const startMinutes = minutesOf(input, runs, block, 0);
      const runSecondsLeft = ((input.budgetMinutes - startMinutes) * 60) / (input.sides * runs);
      if (!(runSecondsLeft >= 0)) continue;
      const floorSeconds = input.cells.reduce(
        (sum, cell) => sum + secondsPerRun(cell, floorRequests(cell)),
        0,
      );
      if (floorSeconds > runSecondsLeft) continue;
      const options = input.cells.map((cell) => cellOptions(input, cell, runs, block, runSecondsLeft));
      const chosen = bestOptions(options, runSecondsLeft);
      if (chosen === null) continue;
      const seconds = chosen.reduce((sum, option) => sum + option.seconds, 0);
      const plan = describe(input, runs, block, chosen, minutesOf(input, runs, block, seconds), checks);
      if (best === null || better(plan, best)) best = plan;
    }
  }
  return best;
}

function describe(
  input: BudgetPlanInput,
  runs: number,
  block: number,
  chosen: readonly CellOption[],
  gpuMinutes: number,
  checks: number,
): BudgetPlan {
  const cells = input.cells.map((cell, i): PlannedCell => {
    const option = chosen[i]!;
    return {
      name: cell.name,
      requests: cell.secondsPerRequest === null ? null : option.requests,
      secondsPerRun: option.seconds,
      checks: cell.checks.map((check) => {
        const detectable = detectableAt(input, check, runs, block, option.requests);
        const power = powerAt(input, check, runs, block, option.requests);
        return { metric: check.metric, detectable, decided: detectable <= input.detectChange, power };
      }),
    };
  });
  return {
    runsPerSide: runs,
    runsPerStart: block,
    serverStarts: input.startsFor(runs, block),
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
export function budgetToDecide(
  input: BudgetPlanInput,
  plan: BudgetPlan,
  cellName: string,
  metric: string,
): number | null {
  const keep = (cell: PlannedCell, check: PlannedCheck) =>
    check.decided || (cell.name === cellName && check.metric === metric);
  let least: number | null = null;
  for (let runs = Math.max(2, input.minRuns); runs <= Math.max(input.minRuns, input.maxRuns); runs++) {
    for (const block of new Set(input.blocks.map((k) => Math.max(1, Math.min(runs, k))))) {
      let seconds = 0;
      let possible = true;
      for (const [i, cell] of input.cells.entries()) {
        const planned = plan.cells[i]!;
        let requests = floorRequests(cell);
        for (const [j, check] of cell.checks.entries()) {
          if (!keep(planned, planned.checks[j]!)) continue;
          const needed = requestsToDecide(input, cell, check, runs, block);
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
      const minutes = minutesOf(input, runs, block, seconds);
      if (least === null || minutes < least) least = minutes;
    }
  }
  return least;
}

/** GPU-minutes of the cheapest plan that measures every cell: the fewest runs, each cell at its floor. */
export function leastMinutes(input: BudgetPlanInput): number {
  const floorSeconds = input.cells.reduce((sum, cell) => sum + secondsPerRun(cell, floorRequests(cell)), 0);
  const runs = input.minRuns;
  return Math.min(
    ...input.blocks.map((block) => minutesOf(input, runs, Math.min(block, runs), floorSeconds)),
  );
}
