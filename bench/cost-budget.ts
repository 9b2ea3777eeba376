/**
 * bench:cost --budget N: what a budget per pull request buys (docs/compare.md, "What a budget buys,
 * measured"). The PR tier of examples/matrix-18.yml (`--cells`, default chat-reuse-usual,
 * rag-fresh-usual, longgen-fresh-usual) with gate.budget_gpu_minutes N through the gate's real
 * functions: the budget's plan (app/budget-plan.ts configWithinBudget: runs per side, runs per server
 * start, requests per run), the runs measured as the plan's blocks (runner/interleaved.ts
 * alternatingBlocks: one server start per block shared by every cell of the side, its id on each run),
 * each measuring step costed by planStep, the adaptive loop (app/adaptive.ts addRunsUntilDecided) and
 * compare (compareRecords with budgetedSettings: the settings `compare --config` derives, budget
 * included).
 *
 * Noise: bench/noise.ts at the published magnitudes per metric (publishedRuns, publishedStartLevel; with
 * --slow-starts publishedStarts, the fat tail of 3% of starts 1.08x slower). Two
 * runners: uncalibrated (the planner and compare know gate.noise_prior only) and calibrated (a
 * CheckNoiseSource with the true variances, with the degrees of freedom a default `calibrate` of the
 * tier records, found by running compare/calibration/calibration.ts calibrateFromRuns on a simulated A/A
 * session; compare gets the start variances as its calibration start priors, as `compare --calibration`
 * does).
 *
 * The oracle knows the true variances (normal quantiles) and searches every runs-per-side,
 * server-start schedule and requests-per-run split of the same budget for the highest mean power at +detect_change over the
 * gated checks, at the level the plan's tests face (family α / gated checks).
 */
import {
  type BudgetMode,
  type BudgetPlan,
  type BudgetPlanInput,
  budgetedSettings,
  budgetPlanInput,
  type CheckNoiseSource,
  calibratedCheckNoise,
  configWithinBudget,
} from "../src/app/budget-plan.js";
import { firstLookPlans } from "../src/app/measure-on-devices.js";
import {
  type CalibrationFile,
  calibrateFromRuns,
  calibrationRunPriors,
  calibrationStartPriors,
} from "../src/compare/calibration/calibration.js";
import { type CompareRecordsInput, type CompareSettings, settingsFromConfig } from "../src/compare/index.js";
import type { OverallVerdict } from "../src/compare/verdict/verdict-schema.js";
import { type Alternation, alternationOf, alternationWords } from "../src/config/alternation.js";
import { loadConfig } from "../src/config/load.js";
import type { Config } from "../src/config/schema.js";
import {
  alternation,
  baselineRunsPerStart,
  baselineStartGroups,
  runsPerBlock,
} from "../src/config/summary.js";
import type { RunRecord } from "../src/metrics/run-record.js";
import { alternatingBlocks } from "../src/runner/interleaved.js";
import { wilsonInterval } from "../src/stats/accuracy.js";
import type { CheckNoise } from "../src/stats/budget-plan.js";
import { normalCdf, normalQuantile } from "../src/stats/distributions.js";
import { logRatioOf, toleranceMargin } from "../src/stats/margin.js";
import { percentileSorted } from "../src/stats/percentile.js";
import { mulberry32 } from "../src/util/random.js";
import {
  type Change,
  type ModelMetric,
  publishedRuns,
  type StartNoise,
  sigmaW1,
  World,
  withinRunPool,
} from "./noise.js";
import { simulateInterleavedPr } from "./simulate-pr.js";

export interface BudgetBenchOptions {
  /** Budgets in GPU-minutes, each measured in full. */
  budgets: readonly number[];
  cells: readonly string[];
  reps: number;
  seed: number;
  /** Sections to run (plans, rows, mdc, oracle, nightly); null: all. */
  only: ReadonlySet<string> | null;
  /** The start level: the published magnitudes, with or without the slow starts' fat tail (--slow-starts). */
  starts: StartNoise;
  /** Runs a side of the simulated calibration (--calibration-runs); null: calibrate's default, repeats.max. */
  calibrationRuns: number | null;
}

export const prTierCells = ["chat-reuse-usual", "rag-fresh-usual", "longgen-fresh-usual"] as const;

const mode: BudgetMode = "interleaved";
/** The gated per-run metrics the World draws, throughput last. */
const worldMetrics = [
  "ttft_p95",
  "tpot_p95",
  "e2el_p95",
  "output_throughput",
] as const satisfies readonly ModelMetric[];
type WorldMetric = (typeof worldMetrics)[number];
const isWorldMetric = (metric: string): metric is WorldMetric =>
  (worldMetrics as readonly string[]).includes(metric);
/** A p95's sampling sd of ln at a run's requests (the pool's: 1.66% at 1,000), where the model draws it. */
const samplingVariance1 = (metric: WorldMetric) =>
  metric !== "output_throughput" && publishedRuns.sampling[metric] ? sigmaW1 ** 2 * 1000 : 0;
/** The World's per-cell shape: a p95's sampling sd at the run's requests. */
const shapeAt = (requests: number) => ({ withinSd: sigmaW1 * Math.sqrt(1000 / requests), requests });

/** The true start variance of ln(metric): the normal part and the slow starts' two-point tail. */
function trueStartVariance(metric: WorldMetric, starts: StartNoise): number {
  const p = starts.slowStartRate;
  return starts[metric] ** 2 + p * (1 - p) * Math.log(starts.slowStartFactor) ** 2;
}

/** The true noise of a check in the World, with degrees of freedom behind each level. */
function trueNoise(
  metric: WorldMetric,
  df: { within: number; start: number; perRun: number },
  starts: StartNoise,
): CheckNoise {
  return {
    metric,
    startVariance: trueStartVariance(metric, starts),
    runVariance: publishedRuns.runSd[metric] ** 2,
    withinVariance1: samplingVariance1(metric),
    priorDf: df.within,
    startDf: df.start,
    perRunDf: df.perRun,
  };
}

type StartPriors = NonNullable<CompareRecordsInput["startVariancePriors"]>;
type RunPriors = NonNullable<CompareRecordsInput["runVariancePriors"]>;
type Entry<M> = M extends ReadonlyMap<string, infer V> ? V : never;

interface Runner {
  label: string;
  noiseOf?: CheckNoiseSource;
  /** compare's calibration priors (as `compare --calibration` passes them), given the plan's requests per cell. */
  priorsAt?: (requests: readonly number[]) => { start: StartPriors; run: RunPriors };
}

/** What one simulated PR spent and decided. */
interface PrOutcome {
  verdict: OverallVerdict;
  /** compare's account of the PR (verdict.gpuMinutes.total) and the runner's (planStep of each step). */
  spent: number;
  planned: number;
  runsPerSide: number;
  /** Per `cell\u0000metric`: the detectable change the verdict printed. */
  detectable: Map<string, number | null>;
  notDecidable: number;
}

/** A runner's plan, the config that measures it and compare's settings for its runs. */
interface Setup {
  runner: Runner;
  planned: Config;
  plan: BudgetPlan;
  settings: CompareSettings;
  cells: string[];
  requests: number[];
  seconds: number[];
  priors: { start: StartPriors; run: RunPriors } | undefined;
}

function setupFor(config: Config, runner: Runner): Setup {
  const cells = config.cells.map((cell) => cell.name);
  const noise = runner.noiseOf ? { noiseOf: runner.noiseOf } : {};
  const { config: planned, budget } = configWithinBudget(config, { mode, cells, ...noise });
  if (budget === null) throw new Error("the config has no gate.budget_gpu_minutes");
  // What `compare --config` derives for these runs: it must judge the plan that was measured.
  const settings = budgetedSettings(config, { cells, mode, ...noise });
  const sameSchedule =
    JSON.stringify(alternationOf(settings.repeats.block ?? 1)) === JSON.stringify(alternation(planned));
  if (settings.repeats.min !== planned.repeats.min || !sameSchedule)
    throw new Error("compare re-planned another budget plan than the one measured");
  const requests = planned.cells.map((cell) => ("requests" in cell.size ? cell.size.requests : 1000));
  // A run lasts what the plan priced it at (app/budget-plan.ts: validate's estimate, warm-up included).
  const seconds = budget.plan.cells.map((cell) => cell.secondsPerRun);
  const priors = runner.priorsAt?.(requests);
  return { runner, planned, plan: budget.plan, settings, cells, requests, seconds, priors };
}

async function simulatePr(
  world: World,
  setup: Setup,
  change: Change,
  starts: StartNoise,
): Promise<PrOutcome> {
  const pr = await simulateInterleavedPr(
    world,
    {
      config: setup.planned,
      settings: setup.settings,
      secondsPerRun: setup.seconds,
      starts,
      ...(setup.priors
        ? { startVariancePriors: setup.priors.start, runVariancePriors: setup.priors.run }
        : {}),
    },
    change,
  );
  const verdict = pr.verdict;
  const detectable = new Map<string, number | null>();
  for (const c of verdict.comparisons)
    if (c.gated) detectable.set(`${c.cell}\u0000${c.metric}`, c.detectableChange);
  return {
    verdict: verdict.verdict,
    spent: verdict.gpuMinutes?.total ?? Number.NaN,
    planned: pr.gpuMinutes[0]!,
    runsPerSide: pr.runsPerSide,
    detectable,
    notDecidable: verdict.budget?.notDecidable ?? 0,
  };
}

/** A share with its 95% Wilson interval. */
function rate(hits: number, n: number): string {
  const [low, high] = wilsonInterval(hits, n, 0.95);
  const pct = (v: number) => `${(v * 100).toFixed(1)}`;
  return `${pct(hits / n)}% (${pct(low)}-${pct(high)})`;
}

const median = (values: readonly number[]) =>
  percentileSorted(Float64Array.from([...values].sort((a, b) => a - b)), 0.5);

/** The simulated default calibration of the tier: its runs per side, runs per start and degrees of freedom. */
interface SimulatedCalibration {
  file: CalibrationFile;
  runs: number;
  block: number;
  starts: number;
  /** The least degrees of freedom over the gated per-run checks: within a start, a run on its own start, the starts. */
  withinDf: number;
  perRunDf: number;
  startDf: number;
  detail: string;
}

/** A default `calibrate` of the tier on the World: its file, and the degrees of freedom it records. */
function simulatedCalibration(
  declared: Config,
  tier: Config,
  pool: Float64Array,
  seed: number,
  starts: StartNoise,
  calibrationRuns: number | null,
): SimulatedCalibration {
  // `calibrate` measures the config as declared: repeats.max runs a side in groups of repeats.block
  // (resolved on the whole config, as the CLI and the action's calibrate mode do; --cells the tier).
  const runs = calibrationRuns ?? declared.repeats.max;
  const block = runsPerBlock(declared);
  const names = tier.cells.map((cell) => cell.name);
  const requests = tier.cells.map((cell) => ("requests" in cell.size ? cell.size.requests : 1000));
  const world = new World(seed, pool, (cell) => shapeAt(requests[cell]!), "ignore-eos", names, publishedRuns);
  const a: RunRecord[] = [];
  const b: RunRecord[] = [];
  for (const group of alternatingBlocks(0, runs, ["a", "b"] as const, block)) {
    const start = { id: `${group.side}:${group.firstRun}`, shift: world.start(starts) };
    for (let cell = 0; cell < names.length; cell++)
      for (let run = group.firstRun; run < group.firstRun + group.runs; run++)
        (group.side === "a" ? a : b).push(
          world.run(cell, run, [0, 0, 0, 0], { kind: "none" }, group.side, "aa", 0, start),
        );
  }
  const file = calibrateFromRuns({ a, b, settings: settingsFromConfig(tier), now: calibratedAt });
  const keys = names.flatMap((cell) => worldMetrics.map((metric) => `${cell}\u0000${metric}`));
  const runPriors = calibrationRunPriors(file, "simulated");
  const startPriors = calibrationStartPriors(file, "simulated");
  const dfs = (f: (key: string) => number | undefined) => keys.map((key) => f(key) ?? 0);
  const within = dfs((key) => runPriors.get(key)?.withinStart?.df);
  const perRun = dfs((key) => runPriors.get(key)?.perRun?.df);
  const start = dfs((key) => startPriors.get(key)?.df);
  const span = (values: number[]) =>
    Math.min(...values) === Math.max(...values)
      ? Number(values[0]!.toFixed(1)).toString()
      : `${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)}`;
  const levels = file.cells[0]?.metrics.find((m) => m.levels)?.levels;
  return {
    file,
    runs,
    block,
    starts: levels?.starts ?? 0,
    withinDf: Math.min(...within),
    perRunDf: Math.min(...perRun),
    startDf: Math.min(...start),
    detail: `df within a start ${span(within)}, of a run on its own start ${span(perRun)}, of the starts ${span(start)}, over its ${keys.length} gated per-run checks; its estimates against the truth, sd within a start / between starts: ${worldMetrics
      .map((metric) => {
        const sds = (f: (key: string) => number | undefined) => {
          const values = names.map((cell) => Math.sqrt(f(`${cell}\u0000${metric}`) ?? 0) * 100);
          return `${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)}%`;
        };
        const trueWithin = Math.sqrt(
          publishedRuns.runSd[metric] ** 2 + samplingVariance1(metric) / requests[0]!,
        );
        return `${metricLabel[metric]} ${sds((key) => runPriors.get(key)?.withinStart?.variance)} (${(trueWithin * 100).toFixed(1)}%) / ${sds((key) => startPriors.get(key)?.variance)} (${(Math.sqrt(trueStartVariance(metric, starts)) * 100).toFixed(1)}%)`;
      })
      .join(", ")}`,
  };
}

/** When the simulated calibration was measured (its age at the comparisons: none). */
const calibratedAt = new Date(0);

/** Power of one check at a true worsening `effect`, the variances known (normal quantiles). */
function knownPower(
  input: BudgetPlanInput,
  check: CheckNoise,
  runs: number,
  schedule: Alternation,
  requests: number,
  effect: number,
): number {
  const perRun = check.runVariance + check.withinVariance1 / Math.max(1, requests);
  const se = Math.sqrt(
    (input.sides === 2 ? 2 : 1) * (perRun / runs + check.startVariance * input.startWeightAt(runs, schedule)),
  );
  const margin = logRatioOf(effect) - toleranceMargin(input.tolerance);
  return normalCdf(margin / se - normalQuantile(1 - input.alpha));
}

interface Split {
  runs: number;
  schedule: Alternation;
  requests: number[];
  minutes: number;
  /** Per cell, per check: power at +detect_change with the variances known. */
  power: number[][];
}

const meanPower = (split: Split) => {
  const all = split.power.flat();
  return all.reduce((a, b) => a + b, 0) / all.length;
};

/** A split's power per check with the variances known. */
function splitPower(
  input: BudgetPlanInput,
  runs: number,
  schedule: Alternation,
  requests: readonly number[],
) {
  return input.cells.map((cell, i) =>
    cell.checks.map((check) => knownPower(input, check, runs, schedule, requests[i]!, input.detectChange)),
  );
}

const secondsOf = (cell: BudgetPlanInput["cells"][number], requests: number) =>
  cell.secondsPerRequest === null
    ? cell.fixedSecondsPerRun
    : requests * cell.secondsPerRequest + cell.fixedSecondsPerRun;

/**
 * The oracle: every runs per side and schedule of server starts the planner may choose (shared, or a start per run), and per cell a grid of
 * requests per run, the split of highest mean power at +detect_change within the budget (a knapsack
 * over cells on a grid of 1,000 cost steps, costs rounded up).
 */
function oracleSplit(input: BudgetPlanInput): Split | null {
  let best: Split | null = null;
  const steps = 1000;
  for (let runs = Math.max(2, input.minRuns); runs <= input.maxRuns; runs++) {
    for (const schedule of input.schedulesAt(runs)) {
      const startMinutes = (input.startsFor(runs, schedule) * input.startSeconds) / 60;
      const runSeconds = ((input.budgetMinutes - startMinutes) * 60) / (input.sides * runs);
      if (!(runSeconds > 0)) continue;
      const unit = runSeconds / steps;
      // Per cell: requests on a geometric grid from the floor to what the whole budget would afford.
      const options = input.cells.map((cell) => {
        const floor = cell.secondsPerRequest === null ? cell.declaredRequests : Math.max(1, cell.minRequests);
        const top =
          cell.secondsPerRequest === null
            ? floor
            : Math.min(
                input.maxRequests,
                Math.floor((runSeconds - cell.fixedSecondsPerRun) / cell.secondsPerRequest),
              );
        const grid = new Set<number>([floor]);
        for (let g = 0; g <= 60 && top > floor; g++) grid.add(Math.round(floor * (top / floor) ** (g / 60)));
        return [...grid]
          .filter((n) => secondsOf(cell, n) <= runSeconds)
          .map((n) => ({
            requests: n,
            cost: Math.ceil(secondsOf(cell, n) / unit - 1e-9),
            value: cell.checks.reduce(
              (sum, check) => sum + knownPower(input, check, runs, schedule, n, input.detectChange),
              0,
            ),
          }));
      });
      if (options.some((list) => list.length === 0)) continue;
      // value[c]: best summed power at cost ≤ c after each cell; choice for the trace-back.
      let value = new Float64Array(steps + 1).fill(0);
      const choices: Int32Array[] = [];
      const froms: Int32Array[] = [];
      for (const list of options) {
        const next = new Float64Array(steps + 1).fill(-1);
        const choice = new Int32Array(steps + 1).fill(-1);
        const from = new Int32Array(steps + 1).fill(-1);
        for (let c = 0; c <= steps; c++)
          for (let o = 0; o < list.length; o++) {
            const before = c - list[o]!.cost;
            if (before < 0 || value[before]! < 0) continue;
            const v = value[before]! + list[o]!.value;
            if (v > next[c]!) {
              next[c] = v;
              choice[c] = o;
              from[c] = before;
            }
          }
        value = next;
        choices.push(choice);
        froms.push(from);
      }
      if (value[steps]! < 0) continue;
      const requests: number[] = [];
      let c = steps;
      for (let i = options.length - 1; i >= 0; i--) {
        requests.unshift(options[i]![choices[i]![c]!]!.requests);
        c = froms[i]![c]!;
      }
      const seconds = input.cells.reduce((sum, cell, i) => sum + secondsOf(cell, requests[i]!), 0);
      const split: Split = {
        runs,
        schedule,
        requests,
        minutes: startMinutes + (input.sides * runs * seconds) / 60,
        power: splitPower(input, runs, schedule, requests),
      };
      if (best === null || meanPower(split) > meanPower(best) + 1e-12) best = split;
    }
  }
  return best;
}

const planSplit = (input: BudgetPlanInput, plan: BudgetPlan): Split => {
  const requests = plan.cells.map((cell, i) => cell.requests ?? input.cells[i]!.declaredRequests);
  return {
    runs: plan.runsPerSide,
    schedule: plan.schedule,
    requests,
    minutes: plan.gpuMinutes,
    power: splitPower(input, plan.runsPerSide, plan.schedule, requests),
  };
};

const describeSplit = (split: Split) =>
  `${split.runs} runs a side ${alternationWords(split.schedule)}, ${[...new Set(split.requests)].join("/")} requests per run, ${split.minutes.toFixed(1)} GPU-min`;

const metricLabel: Record<WorldMetric, string> = {
  output_throughput: "output throughput",
  tpot_p95: "TPOT p95",
  e2el_p95: "E2E p95",
  ttft_p95: "TTFT p95",
};

export async function budgetBench(options: BudgetBenchOptions): Promise<void> {
  const started = performance.now();
  const print = (line = "") => console.log(line);
  const want = (part: string) => options.only === null || options.only.has(part);
  const { config: declared } = await loadConfig("examples/matrix-18.yml", { env: {}, cwd: process.cwd() });
  for (const name of options.cells)
    if (!declared.cells.some((cell) => cell.name === name))
      throw new Error(`--cells: ${name} is not a cell of examples/matrix-18.yml`);
  const tierOf = (budget: number): Config => ({
    ...declared,
    cells: declared.cells.filter((cell) => options.cells.includes(cell.name)),
    gate: { ...declared.gate, budget_gpu_minutes: budget },
  });
  const names = tierOf(0).cells.map((cell) => cell.name);
  const pool = withinRunPool(mulberry32(options.seed * 7919), 2000, 1000);
  const calibration = simulatedCalibration(
    declared,
    tierOf(1),
    pool,
    options.seed * 104_729,
    options.starts,
    options.calibrationRuns,
  );
  const origin = { basis: "calibration" as const, measuredAt: calibratedAt.toISOString() };
  // The truth, with the degrees of freedom the default calibration has at each level.
  const truePriorsAt = (requests: readonly number[]) => {
    const start = new Map<string, Entry<StartPriors>>();
    const run = new Map<string, Entry<RunPriors>>();
    names.forEach((cell, i) => {
      for (const metric of worldMetrics) {
        const key = `${cell}\u0000${metric}`;
        const within = publishedRuns.runSd[metric] ** 2 + samplingVariance1(metric) / requests[i]!;
        start.set(key, {
          variance: trueStartVariance(metric, options.starts),
          df: calibration.startDf,
          source: "calibration (true variances)",
          ...origin,
        });
        run.set(key, {
          withinStart: { variance: within, df: calibration.withinDf },
          perRun: { variance: within + trueStartVariance(metric, options.starts), df: calibration.perRunDf },
          source: "calibration (true variances)",
          ...origin,
        });
      }
    });
    return { start, run };
  };
  const runners: Runner[] = [
    { label: "uncalibrated" },
    {
      label: "calibrated",
      noiseOf: (_cell, metric) =>
        isWorldMetric(metric)
          ? trueNoise(
              metric,
              { within: calibration.withinDf, start: calibration.startDf, perRun: calibration.perRunDf },
              options.starts,
            )
          : null,
      priorsAt: truePriorsAt,
    },
    {
      label: "a calibrate",
      noiseOf: calibratedCheckNoise(tierOf(1), calibration.file, calibratedAt),
      priorsAt: () => ({
        start: calibrationStartPriors(calibration.file, "simulated"),
        run: calibrationRunPriors(calibration.file, "simulated"),
      }),
    },
  ];
  const tier = tierOf(options.budgets[0]!);
  const effectiveSd = worldMetrics
    .map(
      (metric) =>
        `${metricLabel[metric]} ${(Math.sqrt(trueStartVariance(metric, options.starts)) * 100).toFixed(2)}%`,
    )
    .join(", ");
  print(
    `# bench:cost --budget ${options.budgets.join(",")} — the PR tier of examples/matrix-18.yml (${names.join(", ")}; ${tier.gate.metrics.length} gated metrics, tolerance ${tier.gate.tolerance * 100}%, detect_change ${tier.gate.detect_change * 100}%), interleaved, one GPU, ${options.reps} simulated PRs per row, seed ${options.seed}`,
  );
  print();
  print(
    `Noise (bench/noise.ts): ${publishedRuns.label}; ${options.starts.label}; the start sd (any slow starts included): ${effectiveSd}.`,
  );
  print(
    `Runners. Uncalibrated: gate.noise_prior (the published sd's without the slow starts' tail; no df). Calibrated: the true variances, with the degrees of freedom of a default \`calibrate\` of the tier (${calibration.runs} runs a side in groups of ${calibration.block}, ${calibration.starts} server starts; calibrateFromRuns on a simulated A/A session: ${calibration.detail}), to the planner (priorDf ${calibration.withinDf}, startDf ${calibration.startDf.toFixed(1)}) and to compare as its calibration's run and start priors. A calibrate: that one simulated calibration.json itself, as \`run --calibration\` and \`compare --calibration\` use it (calibratedCheckNoise; calibrationRunPriors, calibrationStartPriors): its estimates, not the truth.`,
  );
  print();
  if (want("plans")) plansTable(tierOf, runners, print);
  for (const budget of options.budgets)
    await budgetSection(tierOf(budget), runners, pool, { ...options, budget }, print, want);
  if (want("nightly")) nightlySection(declared, options.starts, print);
  const seconds = (performance.now() - started) / 1000;
  print(
    `Elapsed ${seconds.toFixed(1)} s; ${simulated.prs} simulated PRs in ${simulated.seconds.toFixed(1)} s (${((simulated.seconds / Math.max(1, simulated.prs)) * 100).toFixed(1)} s per 100 PRs).`,
  );
}

/** PRs simulated and the seconds they took (the bench's own speed, printed at the end). */
const simulated = { prs: 0, seconds: 0 };

/**
 * The whole matrix as a nightly baseline session (mode baseline: repeats.baseline runs of every cell, one
 * side, in the server starts a baseline job measures them in: app/measure-on-devices.ts baselineSteps): its GPU-minutes by planStep, and the noise of a session's mean per metric
 * that main's change points see (the start's sd with its slow starts; the run sd over the runs), the
 * parameters of bench:history for it.
 */
function nightlySection(declared: Config, starts: StartNoise, print: (line?: string) => void): void {
  const runs = declared.repeats.baseline;
  // A baseline job as the action measures it: its runs in starts of baselineRunsPerStart, one after another.
  const step = firstLookPlans(declared).find((mode) => mode.mode === "baseline")!.plan;
  const sizes = declared.cells.map((cell) => ("requests" in cell.size ? cell.size.requests : 0));
  const typical = median(sizes.filter((n) => n > 0));
  // A session's mean carries its starts' share of σ_s² (Σn²/N² over the job's start groups) and σ_r²/N.
  const groups = baselineStartGroups(runs, baselineRunsPerStart(declared, runs));
  const startWeight = groups.reduce((sum, n) => sum + n * n, 0) / (runs * runs);
  print("## The whole matrix as a nightly baseline");
  print();
  print(
    `examples/matrix-18.yml, all ${declared.cells.length} cells, ${runs} runs each (repeats.baseline), one side, ${step.serverStarts} server starts (${groups.join("+")} runs a start, as a baseline job measures them), one GPU: ${step.gpuMinutes.toFixed(0)} GPU-minutes a night (planStep). Per session, what the change points see (a session's mean of ln values; ${typical} requests per run):`,
  );
  print();
  print("| metric | run sd | sd of a session's level (its starts) | bench:history |");
  print("|---|---|---|---|");
  for (const metric of worldMetrics) {
    const runSd = Math.sqrt(publishedRuns.runSd[metric] ** 2 + samplingVariance1(metric) / typical);
    const levelSd = Math.sqrt(trueStartVariance(metric, starts) * startWeight);
    print(
      `| ${metricLabel[metric]} | ${(runSd * 100).toFixed(2)}% | ${(levelSd * 100).toFixed(2)}% | \`--runs ${runs} --run-sd ${runSd.toFixed(4)} --drift-sd ${levelSd.toFixed(4)} --slow-rate 0\` |`,
    );
  }
  print();
}

/** The plan each runner buys at a range of budgets (the planner alone, no simulation). */
function plansTable(
  tierOf: (budget: number) => Config,
  runners: readonly Runner[],
  print: (line?: string) => void,
): void {
  print("## The plan a budget buys (planner only)");
  print();
  print(
    "| budget | runner | plan (runs a side, their server starts; requests per run) | planned GPU-min | checks decided at detect_change | planned detectable change (worst cell) per metric |",
  );
  print("|---|---|---|---|---|---|");
  for (const budget of [45, 60, 90, 120, 150, 200, 300])
    for (const runner of runners) {
      let setup: Setup;
      try {
        setup = setupFor(tierOf(budget), runner);
      } catch (error) {
        print(`| ${budget} | ${runner.label} | ${(error as Error).message.split(";")[0]} | | | |`);
        continue;
      }
      const plan = setup.plan;
      const perMetric = worldMetrics
        .slice()
        .reverse()
        .map((metric) => {
          const values = plan.cells.flatMap((cell) =>
            cell.checks.filter((c) => c.metric === metric).map((c) => c.detectable),
          );
          return `${metricLabel[metric]} +${(Math.max(...values) * 100).toFixed(1)}%`;
        })
        .join(", ");
      print(
        `| ${budget} | ${runner.label} | ${plan.runsPerSide}, ${alternationWords(plan.schedule)}; ${plan.cells.map((c) => c.requests).join("/")} | ${plan.gpuMinutes.toFixed(1)} | ${plan.decided} of ${plan.checks} | ${perMetric} |`,
      );
    }
  print();
}

async function budgetSection(
  tier: Config,
  runners: readonly Runner[],
  pool: Float64Array,
  options: BudgetBenchOptions & { budget: number },
  print: (line?: string) => void,
  want: (part: string) => boolean,
): Promise<void> {
  const setups = runners.map((runner) => setupFor(tier, runner));
  const names = setups[0]!.cells;
  print(`## A budget of ${options.budget} GPU-minutes`);
  print();
  print(
    `Plans: ${setups.map((s) => `${s.runner.label} ${s.plan.runsPerSide} runs a side ${alternationWords(s.plan.schedule)}, ${s.plan.cells.map((c) => c.requests).join("/")} requests per run, ${s.plan.gpuMinutes.toFixed(1)} GPU-min planned, ${s.plan.decided} of ${s.plan.checks} checks decided`).join("; ")}.`,
  );
  print();
  let seedCounter = 0;
  const simulate = async (setup: Setup, change: Change, reps: number) => {
    const world = new World(
      options.seed * 1_000_003 + options.budget * 7919 + ++seedCounter * 7717,
      pool,
      (cell) => shapeAt(setup.requests[cell]!),
      "ignore-eos",
      setup.cells,
      publishedRuns,
    );
    const outcomes: PrOutcome[] = [];
    const from = performance.now();
    for (let i = 0; i < reps; i++) outcomes.push(await simulatePr(world, setup, change, options.starts));
    simulated.prs += reps;
    simulated.seconds += (performance.now() - from) / 1000;
    return outcomes;
  };
  const blocked = (o: readonly PrOutcome[]) => o.filter((x) => x.verdict === "regression").length;
  const maxSpend = { compare: 0, planned: 0 };
  const spendOf = (o: readonly PrOutcome[]) => {
    for (const x of o) {
      maxSpend.compare = Math.max(maxSpend.compare, x.spent);
      maxSpend.planned = Math.max(maxSpend.planned, x.planned);
    }
    return `${median(o.map((x) => x.spent)).toFixed(1)}, ${Math.max(...o.map((x) => x.spent)).toFixed(1)}, ${Math.max(...o.map((x) => x.planned)).toFixed(1)}`;
  };
  const measured = new Map<string, PrOutcome[]>();
  const tolerance = tier.gate.tolerance;
  const detect = tier.gate.detect_change;
  const one = (metric: WorldMetric, effect: number): Change => ({
    kind: "metric",
    metric,
    cells: [0],
    effect,
  });
  if (want("rows")) {
    print(
      `Each rate with its 95% Wilson interval; a change "in one cell" is in ${names[0]}. Targets (calibrated runner): clean PR blocked <= 1%, every metric at the tolerance <= 5%, a ${detect * 100}% fall of output throughput in one cell >= 90%; spend <= ${options.budget}.`,
    );
    print();
    const labels = setups.map((setup) => setup.runner.label);
    print(
      `| change | measure | ${labels.join(" | ")} | pass / inconclusive (${labels.join("; ")}) | GPU-min per PR: compare's median, its max, planStep's max (${labels.join("; ")}) |`,
    );
    print(`|---|---|${labels.map(() => "---|").join("")}---|---|`);
    const rows: { key: string; label: string; measure: string; change: Change }[] = [
      { key: "clean", label: "none", measure: "false block", change: { kind: "none" } },
      {
        key: "tolerance",
        label: `every metric of every cell +${tolerance * 100}% (at the tolerance)`,
        measure: "false block",
        change: { kind: "all", effect: tolerance },
      },
      ...worldMetrics
        .slice()
        .reverse()
        .map((metric) => ({
          key: metric,
          label:
            metric === "output_throughput"
              ? `output throughput ÷${1 + detect} in one cell`
              : `${metricLabel[metric]} +${detect * 100}% in one cell`,
          measure: "power",
          change: one(metric, detect),
        })),
    ];
    for (const row of rows) {
      const results: PrOutcome[][] = [];
      for (const setup of setups) results.push(await simulate(setup, row.change, options.reps));
      if (row.key === "clean") for (const [r, o] of results.entries()) measured.set(`clean:${r}`, o);
      const share = (o: readonly PrOutcome[], verdict: string) =>
        `${((o.filter((x) => x.verdict === verdict).length / o.length) * 100).toFixed(0)}%`;
      print(
        `| ${row.label} | ${row.measure} | ${results.map((o) => rate(blocked(o), options.reps)).join(" | ")} | ${results.map((o) => `${share(o, "pass")} / ${share(o, "inconclusive")}`).join("; ")} | ${results.map(spendOf).join("; ")} |`,
      );
    }
    print();
    print(
      `Spend: the most any PR spent, compare's account (verdict.gpuMinutes) ${maxSpend.compare.toFixed(1)} GPU-minutes, the runner's (planStep) ${maxSpend.planned.toFixed(1)}, of a budget of ${options.budget}: ${Math.max(maxSpend.compare, maxSpend.planned) <= options.budget ? "never exceeded" : "EXCEEDED"}.`,
    );
    print();
  }
  if (want("mdc")) {
    print(
      `## Is the printed detectable change honest? (${names[0]}; the median printed over clean PRs, then PRs with exactly that true worsening; the promise is 90%)`,
    );
    print();
    print("| check | runner | median printed detectable change (clean PRs) | PRs blocked at it |");
    print("|---|---|---|---|");
    for (const [r, setup] of setups.entries()) {
      const clean = measured.get(`clean:${r}`) ?? (await simulate(setup, { kind: "none" }, options.reps));
      for (const metric of ["output_throughput", "tpot_p95", "ttft_p95"] as const) {
        const key = `${names[0]}\u0000${metric}`;
        const printed = clean
          .map((o) => o.detectable.get(key))
          .filter((v): v is number => typeof v === "number");
        const mdc = median(printed);
        const outcomes = await simulate(setup, one(metric, mdc), options.reps);
        print(
          `| ${metricLabel[metric]} | ${setup.runner.label} | ${metric === "output_throughput" ? `÷${(1 + mdc).toFixed(3)} (${((1 / (1 + mdc) - 1) * 100).toFixed(1)}%)` : `+${(mdc * 100).toFixed(1)}%`} | ${rate(blocked(outcomes), options.reps)} |`,
        );
      }
    }
    print();
  }
  if (want("oracle")) {
    const truth: CheckNoiseSource = (_cell, metric) =>
      isWorldMetric(metric)
        ? trueNoise(
            metric,
            {
              within: Number.POSITIVE_INFINITY,
              start: Number.POSITIVE_INFINITY,
              perRun: Number.POSITIVE_INFINITY,
            },
            options.starts,
          )
        : null;
    const input = budgetPlanInput(tier, options.budget, { mode, noiseOf: truth });
    const best = oracleSplit(input);
    print(
      `## The plan against an oracle (the true variances known, normal quantiles; power at +${detect * 100}% at the plan's level α ${input.alpha.toPrecision(2)} per check)`,
    );
    print();
    print("| split | mean power | output throughput | TPOT p95 | E2E p95 | TTFT p95 |");
    print("|---|---|---|---|---|---|");
    const perMetric = (split: Split) =>
      worldMetrics
        .slice()
        .reverse()
        .map((metric) => {
          const values = input.cells.flatMap((cell, i) =>
            cell.checks.flatMap((check, j) => (check.metric === metric ? [split.power[i]![j]!] : [])),
          );
          return `${(Math.min(...values) * 100).toFixed(1)}%`;
        })
        .join(" | ");
    if (best)
      print(
        `| oracle: ${describeSplit(best)} | ${(meanPower(best) * 100).toFixed(1)}% | ${perMetric(best)} |`,
      );
    for (const setup of setups) {
      const split = planSplit(input, setup.plan);
      print(
        `| ${setup.runner.label} plan: ${describeSplit(split)} | ${(meanPower(split) * 100).toFixed(1)}% | ${perMetric(split)} |`,
      );
    }
    // What each plan's tests can reach when their variances are right but estimated: the planner's own
    // power, Welch's t at the degrees of freedom the runs and the runner's priors give (no prior set aside).
    for (const setup of setups) {
      const planned = worldMetrics
        .slice()
        .reverse()
        .map((metric) => {
          const values = setup.plan.cells.flatMap((cell) =>
            cell.checks.flatMap((check) => (check.metric === metric ? [check.power] : [])),
          );
          return `${(Math.min(...values) * 100).toFixed(1)}%`;
        })
        .join(" | ");
      print(
        `| ${setup.runner.label} plan, its tests' degrees of freedom | ${((setup.plan.power / setup.plan.checks) * 100).toFixed(1)}% | ${planned} |`,
      );
    }
    print();
    print(
      "Power per metric: the least over the cells, by the known-variance formula (\"its tests' degrees of freedom\": the planner's power, Welch's t at the degrees of freedom the runs and that runner's priors give, the priors' variances taken as true); the measured power of each plan is in the table above (its tests estimate the variances, and set aside a prior the runs contradict).",
    );
    print();
  }
}
