/**
 * What a verdict on the seeds' matrix costs (docs/compare.md, The run plan): examples/matrix-18.yml
 * (19 cells, 5 gated metrics, tolerance 5%) through the gate's real functions: the run plan
 * (app/run-plan.ts), each measuring step planned on the runner's devices (app/measure-on-devices.ts
 * planStep: its server starts, GPU-minutes and wall-clock on 1, 4 and 8 GPUs), the adaptive loop
 * (app/adaptive.ts addRunsUntilDecided) and compare (compareRecords with the config's settings: the
 * family tests, the cost model), on the noise model of bench:gate (bench/noise.ts: t(3) run effects,
 * 5% outlier runs; σ_w of a cell's p95 0.0166 at 1,000 requests, as 1/√requests), interleaved.
 *
 * Before: the config as declared (its requests per run, repeats 3..10). After: the run plan applied
 * (applyRunPlan: the planned requests per run and runs per side, repeats.max at least that).
 * The oracle: the cheapest fixed-sample first look that decides a PR with no change 90% of the time if
 * it knew each cell's true run variance (planRuns with the true noise and normal quantiles); the ratio
 * is the GPU-minutes per decisive clean verdict over it.
 *
 * Usage: npx tsx bench/cost.ts [--reps 200] [--seed 1]
 *        npx tsx bench/cost.ts --budget 60[,200] [--cells chat-reuse-usual,rag-fresh-usual,longgen-fresh-usual]
 *          [--reps 1000] [--only plans,rows,mdc,oracle,nightly] [--slow-starts] [--calibration-runs N]   (what a budget buys: bench/cost-budget.ts;
 *          --slow-starts: the published start level with its fat tail, 3% of starts 1.08x slower)
 */
import { planStep } from "../src/app/measure-on-devices.js";
import { applyRunPlan, planCells, planPower, runPlans } from "../src/app/run-plan.js";
import { settingsFromConfig } from "../src/compare/index.js";
import { loadConfig } from "../src/config/load.js";
import type { Config } from "../src/config/schema.js";
import {
  alternation,
  serverLifecycle,
  serverStartSeconds,
  serverStartsPerCell,
  startedServers,
} from "../src/config/summary.js";
import { percentileSorted } from "../src/stats/percentile.js";
import { planRuns, type RunNoise } from "../src/stats/run-plan.js";
import { mulberry32 } from "../src/util/random.js";
import { budgetBench, prTierCells } from "./cost-budget.js";
import {
  type Change,
  publishedStartLevel,
  publishedStarts,
  sigmaW1,
  tau,
  World,
  withinRunPool,
} from "./noise.js";
import { simulateInterleavedPr } from "./simulate-pr.js";

interface Options {
  reps: number;
  seed: number;
  /** --budget N[,M]: the budget mode (bench/cost-budget.ts) on --cells, each budget in GPU-minutes. */
  budgets: number[] | null;
  cells: string[];
  only: Set<string> | null;
  /** --slow-starts: the published start level with its fat tail (3% of starts 1.08x slower). */
  slowStarts: boolean;
  /** --calibration-runs N: the simulated calibration's runs a side (default: calibrate's, repeats.max). */
  calibrationRuns: number | null;
}

const budgetSections = ["plans", "rows", "mdc", "oracle", "nightly"] as const;

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    reps: 200,
    seed: 1,
    budgets: null,
    cells: [...prTierCells],
    only: null,
    slowStarts: false,
    calibrationRuns: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--reps") options.reps = Number(argv[++i]);
    else if (arg === "--seed") options.seed = Number(argv[++i]);
    else if (arg === "--budget") options.budgets = (argv[++i] ?? "").split(",").map(Number);
    else if (arg === "--cells") options.cells = (argv[++i] ?? "").split(",").filter(Boolean);
    else if (arg === "--only") options.only = new Set((argv[++i] ?? "").split(",").filter(Boolean));
    else if (arg === "--slow-starts") options.slowStarts = true;
    else if (arg === "--calibration-runs") options.calibrationRuns = Number(argv[++i]);
    else
      throw new Error(
        `unknown argument ${arg}; expected --reps N, --seed N, --budget GPU-MINUTES, --cells a,b,c, --only ${budgetSections.join(",")}, --slow-starts, --calibration-runs N`,
      );
  }
  if (!(Number.isInteger(options.reps) && options.reps > 0))
    throw new Error("--reps expects a whole number > 0");
  if (options.budgets !== null && !options.budgets.every((budget) => budget > 0))
    throw new Error("--budget expects GPU-minutes > 0 (a comma list for several)");
  if (
    options.calibrationRuns !== null &&
    !(Number.isInteger(options.calibrationRuns) && options.calibrationRuns >= 2)
  )
    throw new Error("--calibration-runs expects a whole number of runs a side >= 2");
  if (options.cells.length === 0)
    throw new Error("--cells expects a comma list of cells of examples/matrix-18.yml");
  for (const part of options.only ?? [])
    if (!(budgetSections as readonly string[]).includes(part))
      throw new Error(`--only expects a comma list of ${budgetSections.join(", ")}, got ${part}`);
  return options;
}

const deviceCounts = [1, 4, 8] as const;

interface Outcome {
  verdict: string;
  runsPerSide: number;
  /** Per device count: GPU-minutes (busy) and wall-clock of every measuring step. */
  gpuMinutes: number[];
  wallClock: number[];
}

/** The requests of one run of each cell as the config measures it (a fixed-length run: its schedule's). */
function requestsPerRun(config: Config): number[] {
  return config.cells.map((cell) => {
    if ("requests" in cell.size) return cell.size.requests;
    if (cell.load.type === "stages")
      return Math.round(cell.load.stages.reduce((n, s) => n + (s.rate ?? 0) * s.duration_s, 0));
    return 1000;
  });
}

async function simulatePr(world: World, config: Config, change: Change): Promise<Outcome> {
  const names = config.cells.map((cell) => cell.name);
  const secondsPerRun = planCells(config).map((cell) => {
    const requests = requestsPerRun(config)[names.indexOf(cell.name)]!;
    return cell.secondsPerRequest === null
      ? cell.fixedSecondsPerRun
      : requests * cell.secondsPerRequest + cell.fixedSecondsPerRun;
  });
  const pr = await simulateInterleavedPr(
    world,
    { config, settings: settingsFromConfig(config), secondsPerRun, starts: null, deviceCounts },
    change,
  );
  return {
    verdict: pr.verdict.verdict,
    runsPerSide: pr.runsPerSide,
    gpuMinutes: pr.gpuMinutes,
    wallClock: pr.wallClock,
  };
}

/** Minutes of one stored-baseline session (repeats.baseline runs of every cell, one side) on 1 device. */
function baselineSessionMinutes(config: Config): number {
  return planStep({
    sides: [{ side: "candidate", config }],
    step: { firstRun: 0, runs: config.repeats.baseline, cells: null },
    config,
  }).gpuMinutes;
}

function quantile(values: readonly number[], q: number): number {
  return percentileSorted(Float64Array.from([...values].sort((a, b) => a - b)), q);
}

const share = (outcomes: readonly Outcome[], verdict: string) =>
  outcomes.filter((o) => o.verdict === verdict).length / outcomes.length;

function pct(p: number, n: number): string {
  if (p === 0) return `0% (<${((3 / n) * 100).toFixed(1)}%)`;
  return `${(p * 100).toFixed(1)}% ±${(Math.sqrt((p * (1 - p)) / n) * 100).toFixed(1)}`;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.budgets !== null) {
    await budgetBench({
      ...options,
      budgets: options.budgets,
      starts: options.slowStarts ? publishedStarts : publishedStartLevel,
    });
    return;
  }
  const started = performance.now();
  const { config: declared } = await loadConfig("examples/matrix-18.yml", { env: {}, cwd: process.cwd() });
  const plan = runPlans(declared)[0]!.plan;
  const planned = applyRunPlan(declared, plan);
  const pool = withinRunPool(mulberry32(options.seed * 7919), 2000, 1000);
  const names = declared.cells.map((cell) => cell.name);
  const rag = names.filter((name) => name.startsWith("rag-")).map((name) => names.indexOf(name));
  const needle = names.indexOf("rag-fresh-low");
  const scenarios: { label: string; change: Change; measure: string; counts: string }[] = [
    { label: "no change", change: { kind: "none" }, measure: "false block", counts: "regression" },
    {
      label: "every metric of every cell +5% (at the tolerance)",
      change: { kind: "all", effect: 0.05 },
      measure: "false block",
      counts: "regression",
    },
    {
      label: "TTFT p95 +10% in the 6 rag cells",
      change: { kind: "metric", metric: "ttft_p95", cells: rag, effect: 0.1 },
      measure: "power",
      counts: "regression",
    },
    {
      label: "TTFT p95 +10% in rag-fresh-low (a needle)",
      change: { kind: "metric", metric: "ttft_p95", cells: [needle], effect: 0.1 },
      measure: "power",
      counts: "regression",
    },
    {
      label: "TTFT p95 +20% in rag-fresh-low (a needle)",
      change: { kind: "metric", metric: "ttft_p95", cells: [needle], effect: 0.2 },
      measure: "power",
      counts: "regression",
    },
  ];
  const print = (line = "") => console.log(line);
  print(
    `# bench:cost — examples/matrix-18.yml (19 cells × 5 gated metrics, tolerance 5%), interleaved, ${options.reps} simulated PRs per row and design, seed ${options.seed}`,
  );
  print();
  print(
    `Before: as declared (${requestsPerRun(declared).slice(0, 18).join("/")} requests per run, spike 75 s; repeats ${declared.repeats.min}..${declared.repeats.max}).`,
  );
  print(
    `After: the run plan (${plan.cells
      .filter((c) => c.requests !== null)
      .map((c) => c.requests)
      .filter((v, i, a) => a.indexOf(v) === i)
      .join(
        "/",
      )} requests per run, spike 75 s; ${plan.runsPerSide} runs a side at the first look; basis: ${plan.basis}).`,
  );
  print(
    `Server: per-side lifecycle, ${serverStartSeconds(declared)} s a start, repeats.block ${declared.repeats.block}. Noise: bench/noise.ts (run effect τ ${tau}, t(3); σ_w ${sigmaW1} at 1,000 requests; 5% of runs 1.3x slower).`,
  );
  print();
  print(
    "| change | measure | design | rate | inconclusive | mean runs/side | GPU-min per PR (median; p90) | GPU-min per decisive verdict | wall-clock min on 1 / 4 / 8 GPUs (median) |",
  );
  print("|---|---|---|---|---|---|---|---|---|");
  let cleanAfter: Outcome[] = [];
  let cleanBefore: Outcome[] = [];
  let scenarioIndex = 0;
  for (const scenario of scenarios) {
    scenarioIndex++;
    for (const [design, config] of [
      ["before", declared],
      ["after", planned],
    ] as const) {
      const requests = requestsPerRun(config);
      const world = new World(
        options.seed * 1_000_003 + scenarioIndex * 7717,
        pool,
        (cell) => ({ withinSd: sigmaW1 * Math.sqrt(1000 / requests[cell]!), requests: requests[cell]! }),
        "ignore-eos",
        names,
      );
      const outcomes: Outcome[] = [];
      for (let i = 0; i < options.reps; i++) outcomes.push(await simulatePr(world, config, scenario.change));
      if (scenarioIndex === 1) {
        if (design === "before") cleanBefore = outcomes;
        else cleanAfter = outcomes;
      }
      const rate = share(outcomes, scenario.counts);
      const costs = outcomes.map((o) => o.gpuMinutes[0]!);
      const meanCost = costs.reduce((a, b) => a + b, 0) / costs.length;
      const decisive = scenario.measure === "power" ? rate : share(outcomes, "pass");
      const walls = deviceCounts.map((_, k) =>
        quantile(
          outcomes.map((o) => o.wallClock[k]!),
          0.5,
        ).toFixed(0),
      );
      print(
        `| ${scenario.label} | ${scenario.measure} | ${design} | ${pct(rate, outcomes.length)} | ${pct(share(outcomes, "inconclusive"), outcomes.length)} | ${(outcomes.reduce((s, o) => s + o.runsPerSide, 0) / outcomes.length).toFixed(1)} | ${quantile(costs, 0.5).toFixed(0)}; ${quantile(costs, 0.9).toFixed(0)} | ${decisive > 0 ? (meanCost / decisive).toFixed(0) : "∞"} | ${walls.join(" / ")} |`,
      );
    }
  }
  print();
  // The oracle: the true run variance of each cell at any length (run effect, sampling noise; the
  // outlier runs screened), normal quantiles (a known variance), the cheapest first look.
  const lifecycle = serverLifecycle(declared);
  const trueNoise: RunNoise = { runVariance: tau ** 2, withinVariance1: sigmaW1 ** 2 * 1000, basis: "true" };
  const cells = planCells(declared, () => trueNoise);
  const oracle = planRuns({
    cells,
    tolerance: declared.gate.tolerance,
    passAlpha: 1 - declared.gate.confidence,
    power: planPower,
    checks: cells.length * declared.gate.metrics.length,
    minRuns: 2,
    maxRuns: 200,
    startsFor: (runs) =>
      startedServers(lifecycle, cells.length) *
      serverStartsPerCell("interleaved", runs, [], lifecycle, alternation(declared)),
    startSeconds: serverStartSeconds(declared),
    sides: 2,
    maxRequests: 100_000,
    knownVariance: true,
  });
  const perDecisive = (outcomes: Outcome[]) => {
    const pass = share(outcomes, "pass");
    const mean = outcomes.reduce((s, o) => s + o.gpuMinutes[0]!, 0) / outcomes.length;
    return pass > 0 ? mean / pass : Number.POSITIVE_INFINITY;
  };
  print(
    `Oracle (known run variance, fixed sample, 90% of clean PRs decided): ${oracle.runsPerSide} runs a side at ${oracle.cells.find((c) => c.requests !== null)?.requests} requests, ${oracle.gpuMinutes.toFixed(0)} GPU-minutes. GPU-minutes per decisive clean verdict over the oracle: before ${(perDecisive(cleanBefore) / oracle.gpuMinutes).toFixed(2)}, after ${(perDecisive(cleanAfter) / oracle.gpuMinutes).toFixed(2)}.`,
  );
  print(
    `Baseline session (repeats.baseline ${declared.repeats.baseline} runs, one side, 1 GPU): before ${baselineSessionMinutes(declared).toFixed(0)} GPU-minutes, after ${baselineSessionMinutes(planned).toFixed(0)}.`,
  );
  print(`Elapsed ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await main();
