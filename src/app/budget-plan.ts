import { type CalibrationFile, calibratedNoiseByFamily } from "../compare/calibration/calibration.js";
import { type CompareSettings, settingsFromConfig } from "../compare/index.js";
import { withConfigStartPrior } from "../compare/noise/start-noise.js";
import { type Alternation, repeatsBlockOf } from "../config/alternation.js";
import { type MetricName, metricSpecs } from "../config/metric-names.js";
import { type Config, configLimits } from "../config/schema.js";
import { serverKindFacts } from "../config/server-kinds.js";
import {
  serverLifecycle,
  serverStartSeconds,
  serverStartsPerCell,
  startedServers,
  type TraceReplays,
} from "../config/summary.js";
import {
  type BudgetCell,
  budgetToDecide,
  type CheckNoise,
  leastMinutes,
  type BudgetPlanInput as PlanInputOf,
  type BudgetPlan as PlanOf,
  planWithinBudget,
} from "../stats/budget-plan.js";
import type { PlanCell } from "../stats/run-plan.js";
import { InputError } from "../util/errors.js";
import { interleavedStartShape, interleavedStartWeight, planCells, runPlans } from "./run-plan.js";

/** A budget's plan: its runs, requests and how a side's runs fall into server starts (an Alternation). */
export type BudgetPlan = PlanOf<Alternation>;
export type BudgetPlanInput = PlanInputOf<Alternation>;

/**
 * A pull request's budget applied (gate.budget_gpu_minutes, docs/action.md "Choosing a budget"): the
 * plan of stats/budget-plan.ts for the config's fixed-load cells and gated metrics, each check with its
 * own noise (gate.noise_prior of its family at both levels, or what a calibration measured), and the
 * config that measures it. `run`, the action, `compare` and `validate` all take the config through
 * `configWithinBudget`, so what validate prints is what is measured and judged.
 */

/**
 * A percentile's sampling sd on the ln scale at 1,000 requests, by the statistic a gated metric is
 * judged on (bench/noise.ts measures the p95's: 1.66% over heavy-tailed, autocorrelated latencies; the
 * others scale with the tail's sparsity). A rate or a mean over the run: 0.5%.
 */
const samplingSdAt1000 = { p90: 0.013, p95: 0.0166, p99: 0.03, p99_9: 0.06, none: 0.005 } as const;

/** The prior noise of one gated metric: gate.noise_prior of its family and its statistic's sampling. */
export function priorCheckNoise(config: Pick<Config, "gate">, metric: MetricName): CheckNoise {
  const spec = metricSpecs[metric];
  const prior = config.gate.noise_prior[spec.noise];
  const sampling = samplingSdAt1000[spec.minRequests ?? "none"];
  return {
    metric,
    startVariance: prior.start_sd ** 2,
    runVariance: prior.run_sd ** 2,
    withinVariance1: sampling ** 2 * 1000,
    priorDf: 0,
  };
}

/** A check's noise: measured on this runner (a calibration) where known, else null for the prior. */
export type CheckNoiseSource = (cell: string, metric: MetricName) => CheckNoise | null;

/**
 * The noise a calibration measured on this runner (compare/calibration/calibration.ts
 * calibratedNoiseByFamily), per cell and metric family, with its degrees of freedom: the run-to-run variance
 * within a start, split into the part more requests do not shrink and the statistic's sampling noise (at most
 * the prior's at the calibration's run length), and the start-to-start variance where it measured starts. A
 * level it did not measure keeps gate.noise_prior's, with no df.
 */
export function calibratedCheckNoise(
  config: Pick<Config, "gate">,
  file: CalibrationFile,
  now: Date,
): CheckNoiseSource {
  const byCell = calibratedNoiseByFamily(file, now);
  return (cell, metric) => {
    const measured = byCell.get(cell)?.get(metricSpecs[metric].noise);
    if (!measured) return null;
    const prior = priorCheckNoise(config, metric);
    const within = measured.withinStart ?? measured.perRun;
    if (!within) return null;
    const requests = measured.requestsPerRun ?? 1000;
    const sampling = Math.min(within.variance, prior.withinVariance1 / requests);
    return {
      metric,
      // The measured start level pooled with the config's, as compare pools it (compare/start-noise.ts).
      startVariance: measured.start
        ? withConfigStartPrior(measured.start, {
            variance: prior.startVariance,
            df: config.gate.noise_prior.weight_starts,
          }).variance
        : prior.startVariance,
      runVariance: Math.max(0, within.variance - sampling),
      withinVariance1: sampling * requests,
      priorDf: within.df,
      startDf: measured.start?.df ?? 0,
      // What compare pools the runs of a start each with (two-level.ts RunVariancePrior.perRun).
      perRunDf: measured.perRun?.df ?? 0,
    };
  };
}

/** Runs per side per group the budget planner chooses from, consecutive groups of a side sharing a start. */
const blockChoices = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 40] as const;
/** Every run of a side on a start of its own (repeats.block fresh): a choice where the runner starts its server. */
const freshStarts: Alternation = { runsPerGroup: 1, startEachGroup: true };
/** Most runs per side a budget plan considers (the largest standard look). */
const budgetMaxRuns = 40;
/** Fewest runs per side a budget plan measures: fewer can rarely support a verdict. */
const budgetMinRuns = 3;

export type BudgetMode = "interleaved" | "stored";

/** The planner's input for a config and budget: its cells, checks, costs and how runs fall into starts. */
export function budgetPlanInput(
  config: Config,
  budgetMinutes: number,
  options: { mode?: BudgetMode; noiseOf?: CheckNoiseSource; traces?: TraceReplays } = {},
): BudgetPlanInput {
  const mode = options.mode ?? "interleaved";
  const gated = config.gate.metrics.filter((metric) => metricSpecs[metric].judged === "per-run");
  // A unit sampling variance shows each cell's scale: 1 per request, 1/turns per session of a session cell.
  const unit = { runVariance: 0, withinVariance1: 1, basis: "unit" };
  const twice = planCells(doubledSizes(config), () => unit, options.traces);
  const cells = planCells(config, () => unit, options.traces).map(
    (cell, i): BudgetCell => ({
      name: cell.name,
      ...runSecondsOf(cell, twice[i]!),
      declaredRequests: cell.declaredRequests,
      minRequests: cell.minRequests,
      checks: gated.map((metric) => {
        const noise = options.noiseOf?.(cell.name, metric) ?? priorCheckNoise(config, metric);
        // A session cell's "requests" are sessions of several turns (run-plan.ts planCells).
        return { ...noise, withinVariance1: noise.withinVariance1 * cell.noise.withinVariance1 };
      }),
    }),
  );
  const lifecycle = serverLifecycle(config);
  const servers = startedServers(lifecycle, cells.length);
  const familyAlpha = 1 - config.gate.confidence;
  const checks = cells.reduce((n, cell) => n + cell.checks.length, 0);
  return {
    cells,
    budgetMinutes,
    tolerance: config.gate.tolerance,
    detectChange: config.gate.detect_change,
    // One look (the plan is measured at once): the family level, at Holm's strictest step.
    alpha: familyAlpha / Math.max(1, checks),
    minRuns: budgetMinRuns,
    maxRuns: budgetMaxRuns,
    maxRequests: configLimits.requestsPerRun,
    schedulesAt: schedulesOf(config, mode),
    startsFor: bySchedule(
      (runs, schedule) => servers * serverStartsPerCell(mode, runs, [], lifecycle, schedule),
    ),
    startWeightAt: bySchedule((runs, schedule) =>
      lifecycle === "per-run"
        ? 1 / runs
        : mode === "interleaved"
          ? interleavedStartWeight(runs, schedule)
          : 1,
    ),
    startsPerSide: bySchedule((runs, schedule) =>
      lifecycle === "per-run"
        ? runs
        : mode === "interleaved"
          ? interleavedStartShape(runs, schedule).fewestStarts
          : 1,
    ),
    startPriorDf: config.gate.noise_prior.weight_starts,
    startSeconds: serverStartSeconds(config),
    sides: mode === "interleaved" ? 2 : 1,
  };
}

/**
 * The schedules a budget plan chooses from at R runs a side, each once: interleaved, groups of the
 * blockChoices' runs (at most R) whose consecutive groups of a side share a start, and where the runner
 * starts its server, every run on a start of its own (freshStarts: 2·R starts per server, the start
 * level inside the runs' own spread); against a stored baseline, the side's runs on one start a step.
 */
function schedulesOf(config: Config, mode: BudgetMode): (runs: number) => readonly Alternation[] {
  const fresh = serverKindFacts[config.server.kind].launchesProcess ? [freshStarts] : [];
  const known = new Map<number, readonly Alternation[]>();
  return (runs) => {
    let schedules = known.get(runs);
    if (schedules === undefined) {
      const groups =
        mode === "interleaved" ? [...new Set(blockChoices.map((k) => Math.min(runs, k)))] : [runs];
      schedules = [
        ...groups.map((runsPerGroup) => ({ runsPerGroup, startEachGroup: false })),
        ...(mode === "interleaved" ? fresh : []),
      ];
      known.set(runs, schedules);
    }
    return schedules;
  };
}

/** A function of (runs, schedule) remembered per pair: the planner asks each thousands of times a plan. */
function bySchedule(
  f: (runs: number, schedule: Alternation) => number,
): (runs: number, schedule: Alternation) => number {
  const known = new Map<Alternation, Map<number, number>>();
  return (runs, schedule) => {
    let byRuns = known.get(schedule);
    if (byRuns === undefined) {
      byRuns = new Map();
      known.set(schedule, byRuns);
    }
    let value = byRuns.get(runs);
    if (value === undefined) {
      value = f(runs, schedule);
      byRuns.set(runs, value);
    }
    return value;
  };
}

/** The config with every request-sized cell at twice its requests per run (the run length's slope). */
function doubledSizes(config: Config): Config {
  return {
    ...config,
    cells: config.cells.map((cell) =>
      "requests" in cell.size ? { ...cell, size: { requests: 2 * cell.size.requests } } : cell,
    ),
  };
}

/**
 * A run's seconds as a + b·requests, from validate's estimate at the config's size and at twice it: the
 * schedule's requests over its rate plus one request's answer. The plan then prices a size the same
 * whatever size the config declares, so a config with a plan applied, planned again (compare and the base
 * side of the action do), buys the same plan. A run whose estimate does not grow with its requests keeps
 * the estimate's share per request.
 */
function runSecondsOf(
  at: PlanCell,
  twice: PlanCell,
): Pick<BudgetCell, "secondsPerRequest" | "fixedSecondsPerRun"> {
  if (at.secondsPerRequest === null || twice.secondsPerRequest === null)
    return { secondsPerRequest: at.secondsPerRequest, fixedSecondsPerRun: at.fixedSecondsPerRun };
  const n = at.declaredRequests;
  const seconds = n * at.secondsPerRequest;
  const slope = (2 * n * twice.secondsPerRequest - seconds) / n;
  if (!(slope > 0))
    return { secondsPerRequest: at.secondsPerRequest, fixedSecondsPerRun: at.fixedSecondsPerRun };
  const warmup = at.secondsPerRequest > 0 ? at.fixedSecondsPerRun / at.secondsPerRequest : 0;
  return { secondsPerRequest: slope, fixedSecondsPerRun: seconds - slope * n + warmup * slope };
}

/** A budget that cannot measure every cell once at its floor: an input error (exit 2), before any GPU time. */
export class BudgetError extends InputError {}

export interface BudgetDecision {
  plan: BudgetPlan;
  input: BudgetPlanInput;
  /** Per undecided check (`cell\u0000metric`): the least budget that would decide it, null: none within reach. */
  budgetToDecide: ReadonlyMap<string, number | null>;
}

/** The plan of a budget, or a BudgetError naming the field when the budget cannot measure every cell. */
export function decideBudget(
  config: Config,
  budgetMinutes: number,
  options: { mode?: BudgetMode; noiseOf?: CheckNoiseSource; traces?: TraceReplays; file?: string } = {},
): BudgetDecision {
  const input = budgetPlanInput(config, budgetMinutes, options);
  const plan = planWithinBudget(input);
  if (plan === null)
    throw new BudgetError(
      `${options.file ? `${options.file}: ` : ""}gate.budget_gpu_minutes: ${budgetMinutes} GPU-minutes cannot measure ${budgetMinRuns} runs a side of every cell at its fewest requests with its server starts (the least: ${Math.ceil(leastMinutes(input))} GPU-minutes); raise the budget or measure fewer cells`,
    );
  const undecided = new Map<string, number | null>();
  for (const cell of plan.cells)
    for (const check of cell.checks)
      if (!check.decided)
        undecided.set(
          `${cell.name}\u0000${check.metric}`,
          budgetToDecide(input, plan, cell.name, check.metric),
        );
  return { plan, input, budgetToDecide: undecided };
}

/**
 * The config that measures a budget plan: each fixed-load cell at its planned requests per run, and the
 * runs per side in one look (repeats.min = repeats.max) in the planned schedule (repeats.block: its
 * runs per group, or "fresh" for every run on a start of its own).
 */
export function applyBudgetPlan(config: Config, plan: BudgetPlan): Config {
  const requests = new Map(plan.cells.map((cell) => [cell.name, cell.requests]));
  const block = repeatsBlockOf(plan.schedule);
  return {
    ...config,
    repeats: { ...config.repeats, min: plan.runsPerSide, max: plan.runsPerSide, block },
    cells: config.cells.map((cell) => {
      const planned = requests.get(cell.name);
      return planned != null && "requests" in cell.size ? { ...cell, size: { requests: planned } } : cell;
    }),
  };
}

/**
 * The config as a budget measures it: unchanged without gate.budget_gpu_minutes; else with its plan
 * applied, and the plan. Every use case calls this once after loading.
 */
export function configWithinBudget(
  config: Config,
  options: {
    mode?: BudgetMode;
    noiseOf?: CheckNoiseSource;
    traces?: TraceReplays;
    /** The cells measured (the action's `cells`, `run --cells`): the budget is theirs; absent: every cell. */
    cells?: readonly string[];
    /** The config file, named in a BudgetError. */
    file?: string;
  } = {},
): { config: Config; budget: BudgetDecision | null } {
  const budget = config.gate.budget_gpu_minutes;
  if (budget === undefined) return { config, budget: null };
  const measured = options.cells
    ? { ...config, cells: config.cells.filter((cell) => options.cells!.includes(cell.name)) }
    : config;
  const decision = decideBudget(measured, budget, options);
  return { config: applyBudgetPlan(config, decision.plan), budget: decision };
}

/**
 * compare's settings for runs measured under the config: under its budget when it has one, the plan
 * `run` and the action measured (`configWithinBudget` over the measured cells, for the comparison's mode
 * and the noise the plan was chosen with), recorded in the verdict. A budget that could not buy a plan
 * still limits the judgement: the runs are measured, judged without the plan.
 */
export function budgetedSettings(
  config: Config,
  options: { cells: readonly string[]; mode: BudgetMode; noiseOf?: CheckNoiseSource },
): CompareSettings {
  const limit = config.gate.budget_gpu_minutes;
  if (limit === undefined) return settingsFromConfig(config);
  let within: ReturnType<typeof configWithinBudget>;
  try {
    within = configWithinBudget(config, options);
  } catch (error) {
    if (!(error instanceof BudgetError)) throw error;
    return { ...settingsFromConfig(config), budget: { limitGpuMinutes: limit, plan: null } };
  }
  const { config: planned, budget } = within;
  const settings = settingsFromConfig(planned);
  if (budget === null) return settings;
  const plan = budget.plan;
  return {
    ...settings,
    budget: {
      limitGpuMinutes: plan.budgetMinutes,
      plan: {
        gpuMinutes: plan.gpuMinutes,
        runsPerSide: plan.runsPerSide,
        runsPerStart: plan.schedule.runsPerGroup,
        ...(plan.schedule.startEachGroup ? { startEachGroup: true } : {}),
        requests: Object.fromEntries(plan.cells.map((cell) => [cell.name, cell.requests])),
      },
    },
  };
}

/** What deciding one cell costs alone, and what the budget catches in it (validate --budget). */
interface CellBudgetRow {
  cell: string;
  /** GPU-minutes of the run plan that decides a PR with no change in this cell (at the tolerance). */
  atTolerance: number;
  /** GPU-minutes of the cheapest plan that catches gate.detect_change in every check of the cell; null: none does. */
  atDetectChange: number | null;
  /** Per gated metric: the smallest worsening the budget's plan catches (the cell alone within the budget). */
  detectable: ReadonlyMap<string, number> | null;
}

export interface BudgetOverview {
  budgetMinutes: number;
  rows: CellBudgetRow[];
  /** The cells whose every check the budget decides together, cheapest first, and their joint plan. */
  affordable: { cells: string[]; plan: BudgetPlan | null };
  /** The plan of every cell together, or why the budget cannot measure them all. */
  whole: BudgetPlan | string;
}

const unlimited = Number.MAX_SAFE_INTEGER / 1e6;

/** validate --budget's table: each cell alone, the set a budget decides, and the plan of them all. */
export function budgetOverview(
  config: Config,
  budgetMinutes: number,
  options: { noiseOf?: CheckNoiseSource; traces?: TraceReplays } = {},
): BudgetOverview {
  const fixedLoad = planCells(config, undefined, options.traces).map((cell) => cell.name);
  const only = (names: readonly string[]): Config => ({
    ...config,
    cells: config.cells.filter((cell) => names.includes(cell.name)),
  });
  const rows = fixedLoad.map((name): CellBudgetRow => {
    const alone = only([name]);
    const tolerancePlan = runPlans(alone, undefined, options.traces)[0]!.plan;
    const all = planWithinBudget(budgetPlanInput(alone, unlimited, options));
    const atDetectChange = all && all.decided === all.checks ? all.gpuMinutes : null;
    const within = planWithinBudget(budgetPlanInput(alone, budgetMinutes, options));
    return {
      cell: name,
      atTolerance: tolerancePlan.gpuMinutes,
      atDetectChange,
      detectable: within
        ? new Map(within.cells[0]!.checks.map((check) => [check.metric, check.detectable]))
        : null,
    };
  });
  // Cheapest to decide first; a cell joins while the joint plan still decides every check of the set.
  const order = rows
    .filter((row) => row.atDetectChange !== null && row.atDetectChange <= budgetMinutes)
    .sort((a, b) => a.atDetectChange! - b.atDetectChange!);
  let affordable: { cells: string[]; plan: BudgetPlan | null } = { cells: [], plan: null };
  for (const row of order) {
    const cells = [...affordable.cells, row.cell];
    const plan = planWithinBudget(budgetPlanInput(only(cells), budgetMinutes, options));
    if (plan && plan.decided === plan.checks) affordable = { cells, plan };
  }
  let whole: BudgetPlan | string;
  try {
    whole = decideBudget(config, budgetMinutes, options).plan;
  } catch (error) {
    if (!(error instanceof BudgetError)) throw error;
    whole = error.message;
  }
  return { budgetMinutes, rows, affordable, whole };
}
