/**
 * Monte-Carlo check of the gate's error rates and GPU cost (statistics.md §6), run through the real
 * decision code (`analyze`, the decision `compare` makes) with the default config: 3 cells × 5 gated
 * metrics (TTFT p95, TPOT p95, E2E p95, output throughput, error rate).
 *
 * Usage: npx tsx bench/gate.ts [--reps 1000] [--seed 1] [--quick] [--only interleaved|stored|starts|matrix|length|calibrated|mdc]
 *                               [--family-weight W]
 *
 * Noise model, per cell and metric, on the log scale of one run's statistic (what real GPU runners do):
 *   ln y = μ + session shift + τ·u_run + σ_w(L)·w_run (+ ln(1+Δ) for an injected change)
 * - u_run: run-level effect (allocator and KV state, clocks, host noise), heavy-tailed: Student t with
 *   3 df scaled to unit variance; correlated across a run's metrics (common factor, 0.7 of the variance
 *   of each latency; throughput moves against latency with 0.5). τ = 0.025 (latencies), 0.02 (throughput).
 * - w_run: sampling noise of the run's p95, drawn from a pool of real percentile computations over
 *   heavy-tailed, autocorrelated request latencies (AR(1) ρ = 0.5 on ln latency, σ = 0.5, 2% stalls
 *   ×(1 + Pareto(2.5))), standardised. σ_w = 0.0166 for a 1-minute run (1,000 requests) and scales as
 *   1/√L with the run length L, so per-run sd(ln p95) = 0.030 at 1 minute; the run-level effect is 69%
 *   of the variance, which is what makes many shorter runs cheaper per unit of power than few long ones.
 * - 5% of runs are 1.3x slower on every latency (and 1/1.3 on throughput): a thermal dip, a neighbour.
 * - session shift (stored baseline only): each job moves every metric by N(0, s²/2) (half shared by all
 *   metrics of the job, half per metric), so two sessions differ by sd s; s = 0.02 (the assumed
 *   gate.session_drift_sd) and, in the "drift larger than assumed" rows, s = 0.04.
 * - failed requests: Poisson(0.1% of the requests) per run, on both sides.
 * - quality guards: every run carries clean guard counts (no change on either side), which join the gated
 *   family (src/compare/analyze/gated-family.ts): at the default sampling (ignore_eos) every request runs to
 *   max_tokens at its fixed length, so no guard test can reach the level and the family is the speed
 *   tests'; the "EOS honoured" row has ~10% finished at max_tokens and lengths with sd 40, so each cell's
 *   length share and mean length are tested (2 more tests per cell); "no guard counts" leaves them out.
 * Injected changes: "+10% on one p95": TTFT p95 of the first cell of the candidate only. "at the
 * tolerance": every gated latency of every cell × (1 + tolerance) and throughput ÷ (1 + tolerance).
 *
 * Modes: interleaved (baseline re-measured in the PR's job, A B B A order in groups of repeats.block
 * runs per side as `auto` resolves it for this shape: a start per run, 2R server starts per R runs a
 * side; "block k" rows keep the server up across consecutive same-side groups: ⌈R / k⌉ + 1 starts per
 * cell and measuring step, src/runner/interleaved.ts alternatingBlocks); stored (as the action records it:
 * gate.baseline_sessions push jobs of repeats.baseline runs each, the newest the baseline and the rest
 * compare's history for the drift estimate; the PR measures only the candidate, one server start per
 * cell per measuring round). Cost: src/compare/budget/cost.ts and serverStartsPerCell (3 min per start, L min
 * per cell-run). Rows marked "job drift" add a linear drift of every latency within the interleaved job
 * (5% per hour of GPU time on the job's clock): what the coarser alternation of larger blocks risks.
 * "GPU-min per decisive +10%" = mean GPU-minutes per PR at +10% ÷ fraction of those PRs blocked.
 * The one-run 10% rule (what simple peer actions do): one candidate run vs one baseline run, block if
 * any gated latency rises or throughput falls by more than 10%.
 *
 * The matrix section (--only matrix) is the seeds' matrix, examples/matrix-18.yml's shape: 19 cells named
 * as there (chat, rag and longgen families of 6 cells, whose names give their workload family, and the
 * spike alone), 5 gated metrics, 95 checks, the same noise model. Every scenario runs twice on the same
 * simulated PRs (common random numbers): with gate.family_weight 0 (Holm over the checks alone, the
 * procedure before the family tests) and with the family tests (the default weight, or --family-weight W).
 * Scenarios: no change; every metric at the tolerance; one phase +10% across one family; needles +10% and
 * +20% in one cell of a family and +10% in the spike; one check at the tolerance (its "pass" is a false
 * pass); job drift. The 3-cell rows above name their cells cell-0..2, one family by the name rule.
 *
 * The mdc section (--only mdc, bench/detectable.ts) asks whether the minimum detectable change the gate
 * prints is honest: for checks of different noise, the median printed over clean PRs, then how often a
 * true change of exactly that size is blocked (the promise: 90%), with 95% Wilson intervals.
 */
import { analyze } from "../src/compare/analyze/analyze.js";
import { gpuMinutes, planGpuMinutes } from "../src/compare/budget/cost.js";
import {
  calibrateFromRuns,
  calibrationRunPriors,
  calibrationStartPriors,
} from "../src/compare/calibration/calibration.js";
import { defaultCompareSettings } from "../src/compare/index.js";
import { type Alternation, alternationOf, calibrationAlternation } from "../src/config/alternation.js";
import { configSchema, maxFamilyWeight } from "../src/config/schema.js";
import { autoAlternation, baselineRunsPerStartOf, serverStartsPerCell } from "../src/config/summary.js";
import type { RunRecord } from "../src/metrics/run-record.js";
import { alternatingBlocks } from "../src/runner/interleaved.js";
import { percentileSorted } from "../src/stats/percentile.js";
import { mulberry32 } from "../src/util/random.js";
import { detectableSection } from "./detectable.js";
import {
  type Change,
  type GuardKind,
  latencyMetrics,
  noStarts,
  onePercentile,
  publishedStarts,
  type StartNoise,
  sigmaW1,
  tau,
  uniformStarts,
  World,
  withinRunPool,
} from "./noise.js";

interface Options {
  reps: number;
  seed: number;
  quick: boolean;
  only: string | null;
  /** The matrix section's "after" gate.family_weight (default: the config's). */
  familyWeight: number | null;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { reps: 1000, seed: 1, quick: false, only: null, familyWeight: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--reps") options.reps = Number(argv[++i]);
    else if (arg === "--seed") options.seed = Number(argv[++i]);
    else if (arg === "--quick") options.quick = true;
    else if (arg === "--only") options.only = argv[++i] ?? null;
    else if (arg === "--family-weight") options.familyWeight = Number(argv[++i]);
    else
      throw new Error(
        `unknown argument ${arg}; expected --reps N, --seed N, --quick, --only interleaved|stored|starts|matrix|length|calibrated|mdc, --family-weight W`,
      );
  }
  if (!(Number.isInteger(options.reps) && options.reps > 0))
    throw new Error("--reps expects a whole number > 0");
  if (
    options.familyWeight !== null &&
    !(options.familyWeight >= 0 && options.familyWeight <= maxFamilyWeight)
  )
    throw new Error(
      `--family-weight expects a fraction from 0 to ${maxFamilyWeight} (gate.family_weight's limit)`,
    );
  return options;
}

interface Design {
  mode: "stored" | "interleaved";
  cells: number;
  runMinutes: number;
  repeats: { min: number; max: number };
  /** True session drift sd (stored mode). */
  driftSd: number;
  /** Stored mode: baseline sessions the action reads (gate.baseline_sessions): the newest is the baseline, the rest its drift history. */
  historySessions: number;
  /** Runs per baseline session (repeats.baseline). */
  runsPerSession: number;
  /** Runs per server start of a baseline session (config/summary.ts baselineRunsPerStart). */
  runsPerBaselineStart: number;
  screen: boolean;
  /**
   * Interleaved: runs per side per group of the alternation (repeats.block; consecutive groups of a side
   * share a start), or the alternation itself (a start per group: repeats.block fresh).
   */
  runsPerBlock: number | Alternation;
  /** Interleaved: a linear drift of every latency within the job, ln units per hour of GPU time (0: none). */
  jobDriftPerHour: number;
  /** The runs' quality-guard counts (clean): none, ignore_eos (the default cells), or EOS honoured. */
  guards: GuardKind;
  /** The server start's level of the noise (bench/noise.ts StartNoise); noStarts: every run independent. */
  starts: StartNoise;
  /** Whether the runs say which start measured them (run.json serverStart); false: each its own start. */
  startsRecorded: boolean;
  /** The run effect's sd on the latencies (τ, default 0.025). */
  runTau: number;
  /**
   * Cell names (their workload families follow from them, src/config/families.ts); absent: cell-0,
   * cell-1, ... (one family).
   */
  cellNames?: readonly string[];
  /** gate.family_weight; absent: the default. 0 is Holm over the checks alone (before the family tests). */
  familyWeight?: number;
  /**
   * Interleaved: a calibration of the runner (compare/calibration/calibration.ts) as the noise priors;
   * absent: none.
   */
  priors?: CalibrationPriors;
}

interface CalibrationPriors {
  start: ReturnType<typeof calibrationStartPriors>;
  run: ReturnType<typeof calibrationRunPriors>;
}

/** How a design's runs fall into starts, for a row's label: "a start per run", "block 5" (shared starts). */
function alternationLabel(runsPerBlock: number | Alternation): string {
  const { runsPerGroup, startEachGroup } = alternationOf(runsPerBlock);
  if (startEachGroup) return runsPerGroup === 1 ? "a start per run" : `a start per group of ${runsPerGroup}`;
  return `block ${runsPerGroup}`;
}

function cellNamesOf(design: Design): string[] {
  return Array.from({ length: design.cells }, (_, k) => design.cellNames?.[k] ?? `cell-${k}`);
}

interface Outcome {
  blocked: boolean;
  inconclusive: boolean;
  passed: boolean;
  runsPerSide: number;
  /** GPU-minutes of the PR as measured (interleaved: in blocks of design.runsPerBlock runs per start). */
  gpuMinutes: number;
  /** The same runs with the A B B A alternation one run per block (interleaved). */
  gpuMinutesPerRun: number;
}

type Settings = ReturnType<typeof defaultCompareSettings>;

function simulatePr(world: World, design: Design, change: Change, settings: Settings): Outcome {
  const stored = design.mode === "stored";
  const cells = design.cells;
  const baseline: RunRecord[] = [];
  const history: RunRecord[] = [];
  const candidate: RunRecord[] = [];
  const zero = Array.from({ length: cells }, () => [0, 0, 0, 0]);
  // One start per key (a side's block under the per-side lifecycle; a stored job), shared by its cells.
  const startShifts = new Map<string, number[]>();
  const onStart = (key: string) => {
    let shift = startShifts.get(key);
    if (!shift) {
      shift = world.start(design.starts);
      startShifts.set(key, shift);
    }
    return { id: design.startsRecorded ? key : null, shift };
  };
  if (stored) {
    // As the action records and reads it: baseline_sessions push jobs of repeats.baseline runs each;
    // the newest is the baseline, the earlier ones only feed the drift estimate (compare's history).
    for (let s = 0; s < design.historySessions; s++) {
      const shift = world.session(cells, design.driftSd);
      const target = s === 0 ? baseline : history;
      for (let k = 0; k < design.runsPerSession; k++)
        for (let cell = 0; cell < cells; cell++)
          target.push(
            world.run(
              cell,
              k,
              shift[cell]!,
              { kind: "none" },
              "baseline",
              `base-${s}`,
              0,
              // As the action records a baseline job: over starts of runsPerBaselineStart runs.
              onStart(`base-${s}-${Math.floor(k / design.runsPerBaselineStart)}`),
            ),
          );
    }
  }
  const candShift = stored ? world.session(cells, design.driftSd) : zero;
  const measured = new Array<number>(cells).fill(0);
  /** Per cell, the runs per side at which each measuring step ended (the looks reached). */
  const steps: number[][] = Array.from({ length: cells }, () => []);
  // GPU time elapsed in the job per cell, for the within-job drift (a start, then the runs, per block).
  const clock = new Array<number>(cells).fill(0);
  const rates = { runMinutes: design.runMinutes };
  const startMinutes = gpuMinutes(1, 0, rates);
  const measure = (cell: number, target: number) => {
    const from = measured[cell]!;
    if (target <= from) return;
    if (stored) {
      for (let k = from; k < target; k++)
        candidate.push(
          world.run(cell, k, candShift[cell]!, change, "candidate", "candidate", 0, onStart(`cand-${from}`)),
        );
    } else {
      for (const block of alternatingBlocks(
        from,
        target - from,
        ["baseline", "candidate"] as const,
        design.runsPerBlock,
      )) {
        clock[cell]! += startMinutes;
        for (let k = block.firstRun; k < block.firstRun + block.runs; k++) {
          clock[cell]! += design.runMinutes / 2;
          const drift = (design.jobDriftPerHour * clock[cell]!) / 60;
          clock[cell]! += design.runMinutes / 2;
          const list = block.side === "baseline" ? baseline : candidate;
          list.push(
            world.run(
              cell,
              k,
              zero[cell]!,
              block.side === "candidate" ? change : { kind: "none" },
              block.side,
              block.side,
              drift,
              onStart(`${block.side}:${block.firstRun}`),
            ),
          );
        }
      }
    }
    if (from > 0) steps[cell]!.push(from);
    measured[cell] = target;
  };
  for (let cell = 0; cell < cells; cell++) measure(cell, design.repeats.min);
  for (let look = 0; look < 50; look++) {
    const verdict = analyze({
      baseline,
      ...(history.length > 0 ? { history } : {}),
      candidate,
      gate: settings.gate,
      repeats: settings.repeats,
      mode: design.mode,
      now: "1970-01-01T00:00:00.000Z",
      tool: { name: "bench", version: "0" },
      runMinutes: design.runMinutes,
      ...(design.priors
        ? { startVariancePriors: design.priors.start, runVariancePriors: design.priors.run }
        : {}),
    });
    const next = verdict.nextLook;
    if (next === null || verdict.verdict !== "inconclusive") {
      // One server per side serves every cell (the default lifecycle, per-side): the starts are the
      // most-measured cell's, counted once; every cell's runs are counted.
      const costWith = (runsPerBlock: number | Alternation) => {
        let cost = 0;
        let widest = 0;
        for (let cell = 0; cell < cells; cell++) {
          cost += gpuMinutes(0, (stored ? 1 : 2) * measured[cell]!, rates);
          if (measured[cell]! > measured[widest]!) widest = cell;
        }
        const starts = serverStartsPerCell(
          stored ? "stored" : "interleaved",
          measured[widest]!,
          steps[widest]!,
          "per-side",
          runsPerBlock,
        );
        return cost + gpuMinutes(starts, 0, rates);
      };
      return {
        blocked: verdict.verdict === "regression",
        inconclusive: verdict.verdict === "inconclusive",
        passed: verdict.verdict === "pass",
        runsPerSide: Math.max(...measured),
        gpuMinutes: costWith(design.runsPerBlock),
        gpuMinutesPerRun: costWith(1),
      };
    }
    const names = cellNamesOf(design);
    const wanted = new Set(next.cells.map((name) => names.indexOf(name)));
    for (let cell = 0; cell < cells; cell++) {
      if (!wanted.has(cell)) continue;
      measure(cell, Math.min(design.repeats.max, measured[cell]! + Math.max(1, next.addCandidateRuns)));
    }
  }
  throw new Error("the gate never stopped asking for runs");
}

/** One candidate run vs one baseline run; block beyond ±10% on any gated latency or throughput. */
function simulateThresholdRule(world: World, design: Design, change: Change): Outcome {
  const stored = design.mode === "stored";
  const zero = Array.from({ length: design.cells }, () => [0, 0, 0, 0]);
  const baseShift = stored ? world.session(design.cells, design.driftSd) : zero;
  const candShift = stored ? world.session(design.cells, design.driftSd) : zero;
  let blocked = false;
  for (let cell = 0; cell < design.cells; cell++) {
    const b = world.run(cell, 0, baseShift[cell]!, { kind: "none" }, "baseline", "b");
    const c = world.run(cell, 0, candShift[cell]!, change, "candidate", "c");
    for (const metric of latencyMetrics) if (c.metrics[metric]! > b.metrics[metric]! * 1.1) blocked = true;
    if (c.metrics.output_throughput! < b.metrics.output_throughput! / 1.1) blocked = true;
  }
  const rates = { runMinutes: design.runMinutes };
  const cost = stored
    ? design.cells * gpuMinutes(1, 1, rates)
    : planGpuMinutes({ mode: "interleaved", cells: design.cells, candidateRuns: 1, baselineRuns: 1 }, rates);
  return {
    blocked,
    inconclusive: false,
    passed: !blocked,
    runsPerSide: 1,
    gpuMinutes: cost,
    gpuMinutesPerRun: cost,
  };
}

interface Rate {
  p: number;
  se: number;
  n: number;
}

function rate(outcomes: readonly Outcome[], f: (o: Outcome) => boolean): Rate {
  const n = outcomes.length;
  const p = outcomes.filter(f).length / n;
  return { p, se: Math.sqrt((p * (1 - p)) / n), n };
}

function pct(r: Rate): string {
  // None observed: the rule-of-three 95% upper bound, 3/n.
  if (r.p === 0) return `0% (<${((3 / r.n) * 100).toFixed(1)}%)`;
  const se = r.se * 100;
  return `${(r.p * 100).toFixed(1)}% ±${se < 0.1 ? se.toFixed(2) : se.toFixed(1)}`;
}

function mean(outcomes: readonly Outcome[], f: (o: Outcome) => number): { m: number; se: number } {
  const values = outcomes.map(f);
  const m = values.reduce((s, v) => s + v, 0) / values.length;
  const variance = values.reduce((s, v) => s + (v - m) ** 2, 0) / Math.max(1, values.length - 1);
  return { m, se: Math.sqrt(variance / values.length) };
}

/** GPU-minutes per decisive verdict: mean cost per PR ÷ P(blocked), with a delta-method SE. */
function perDecisive(outcomes: readonly Outcome[], perRun = false): string {
  const cost = mean(outcomes, (o) => (perRun ? o.gpuMinutesPerRun : o.gpuMinutes));
  const power = rate(outcomes, (o) => o.blocked);
  if (power.p === 0) return "∞ (nothing blocked)";
  const value = cost.m / power.p;
  const se = value * Math.sqrt((cost.se / cost.m) ** 2 + (power.se / power.p) ** 2);
  return `${value.toFixed(0)} ±${se.toFixed(0)}`;
}

function settingsFor(design: Design): Settings {
  const settings = defaultCompareSettings();
  settings.repeats = { ...design.repeats, block: design.runsPerBlock };
  if (!design.screen) settings.gate.outlier_threshold = 0;
  if (design.familyWeight !== undefined) settings.gate.family_weight = design.familyWeight;
  return settings;
}

/** The cells of examples/matrix-18.yml by workload family: 3 families of 6 cells, and the spike alone. */
const matrixFamilies = ["chat", "rag", "longgen"] as const;
const matrixCellNames = [
  ...matrixFamilies.flatMap((family) =>
    ["fresh-low", "fresh-usual", "fresh-peak", "reuse-low", "reuse-usual", "reuse-peak"].map(
      (cell) => `${family}-${cell}`,
    ),
  ),
  "spike",
];
const familyCells = (family: (typeof matrixFamilies)[number]) => {
  const first = matrixFamilies.indexOf(family) * 6;
  return [first, first + 1, first + 2, first + 3, first + 4, first + 5];
};

type Simulate = (
  design: Design,
  change: Change,
  reps: number,
  rule?: "gate" | "threshold",
  fixedSeed?: number,
) => Outcome[];

/**
 * The seeds' matrix (examples/matrix-18.yml's shape: 19 cells × 5 gated metrics, 95 checks) through the
 * same gate twice on the same simulated PRs: Holm over the checks alone (gate.family_weight 0, the
 * procedure before the family tests) and with the family tests at the default weight.
 */
function matrixSection(
  simulate: Simulate,
  base: Design,
  {
    reps,
    light,
    seed,
    weight,
    print,
  }: { reps: number; light: number; seed: number; weight: number; print: (line?: string) => void },
): void {
  const tolerance = defaultCompareSettings().gate.tolerance;
  const matrix: Design = { ...base, cells: matrixCellNames.length, cellNames: matrixCellNames };
  print(
    `## The seeds' matrix: 19 cells (chat, rag, longgen: 6 each; spike alone) × 5 gated metrics = 95 checks, interleaved, adaptive ${base.repeats.min}..${base.repeats.max}`,
  );
  print();
  print(
    `Before: Holm over the 95 checks (gate.family_weight 0). After: with the family tests (gate.family_weight ${weight}: each grouped check gives ${Number((weight * 100).toPrecision(3))}% of its Holm share to its family's pooled test). Both on the same simulated PRs.`,
  );
  print();
  print(
    "| PRs | change | measure | before | after | mean runs/side, before → after | GPU-min per PR (median; p90), before → after | GPU-min per decisive verdict, before → after |",
  );
  print("|---|---|---|---|---|---|---|---|");
  let scenario = 0;
  const row = (
    n: number,
    label: string,
    measure: string,
    change: Change,
    counts: (o: Outcome) => boolean,
    design: Design = matrix,
  ) => {
    const fixedSeed = seed * 7_368_787 + ++scenario * 104_729;
    const before = simulate({ ...design, familyWeight: 0 }, change, n, "gate", fixedSeed);
    const after = simulate({ ...design, familyWeight: weight }, change, n, "gate", fixedSeed);
    const runs = (o: readonly Outcome[]) => mean(o, (x) => x.runsPerSide).m.toFixed(1);
    const cost = (o: readonly Outcome[]) => {
      const sorted = o.map((x) => x.gpuMinutes).sort((a, b) => a - b);
      const at = (q: number) => percentileSorted(Float64Array.from(sorted), q).toFixed(0);
      return `${at(0.5)}; ${at(0.9)}`;
    };
    const decisive = (o: readonly Outcome[]) => (measure === "power" ? perDecisive(o) : "–");
    print(
      `| ${n} | ${label} | ${measure} | ${pct(rate(before, counts))} | ${pct(rate(after, counts))} | ${runs(before)} → ${runs(after)} | ${cost(before)} → ${cost(after)} | ${decisive(before)} → ${decisive(after)} |`,
    );
  };
  const blocked = (o: Outcome) => o.blocked;
  const none: Change = { kind: "none" };
  const atTolerance: Change = { kind: "all", effect: tolerance };
  row(reps, "none", "false block", none, blocked);
  row(reps, "none", "inconclusive", none, (o) => o.inconclusive);
  row(
    reps,
    `every metric of every cell +${tolerance * 100}% (at the tolerance)`,
    "false block",
    atTolerance,
    blocked,
  );
  row(
    reps,
    "TTFT p95 +10% in the 6 rag cells",
    "power",
    { kind: "metric", metric: "ttft_p95", cells: familyCells("rag"), effect: 0.1 },
    blocked,
  );
  row(
    light,
    "TPOT p95 +10% in the 6 longgen cells",
    "power",
    { kind: "metric", metric: "tpot_p95", cells: familyCells("longgen"), effect: 0.1 },
    blocked,
  );
  row(
    light,
    `TTFT p95 +10% in the 6 rag cells, repeats 3..10 (examples/matrix-18.yml)`,
    "power",
    { kind: "metric", metric: "ttft_p95", cells: familyCells("rag"), effect: 0.1 },
    blocked,
    { ...matrix, repeats: { min: 3, max: 10 } },
  );
  for (const effect of [0.1, 0.2])
    row(
      light,
      `TTFT p95 +${effect * 100}% in one rag cell (a needle)`,
      "power",
      { kind: "metric", metric: "ttft_p95", cells: [familyCells("rag")[0]!], effect },
      blocked,
    );
  row(
    light,
    "TTFT p95 +10% in the spike (a needle in no family)",
    "power",
    { kind: "metric", metric: "ttft_p95", cells: [matrixCellNames.length - 1], effect: 0.1 },
    blocked,
  );
  row(
    light,
    `TTFT p95 +${tolerance * 100}% in one rag cell (at the tolerance), the rest unchanged`,
    "false pass",
    { kind: "metric", metric: "ttft_p95", cells: [familyCells("rag")[0]!], effect: tolerance },
    (o) => o.passed,
  );
  const drifting: Design = { ...matrix, jobDriftPerHour: 0.05 };
  row(light, "none, job drift 5%/h", "false block", none, blocked, drifting);
  row(
    light,
    `every metric +${tolerance * 100}%, job drift 5%/h`,
    "false block",
    atTolerance,
    blocked,
    drifting,
  );
  print();
}

/** A section's title, its note and the head of its table. */
function sectionHead(
  print: (line?: string) => void,
  title: string,
  note: string,
  columns: readonly string[],
): void {
  print(`## ${title}`);
  print();
  print(note);
  print();
  print(`| ${columns.join(" | ")} |`);
  print(`|${columns.map(() => "---|").join("")}`);
}

/**
 * The server start as a level of the noise: every block of a side's runs is measured on one server start,
 * shared by the block's runs and by every cell the server serves (the per-side lifecycle), and the start
 * draws its own shift of each metric. The default schedule (repeats.block auto, a start per run for this
 * shape) beside A B B A with a side's two consecutive runs on one start (repeats.block 1): "recorded",
 * the runs carry their start (run.json serverStart) and compare estimates both levels; "not recorded",
 * the runs say nothing and compare reads each run as its own start (what it did before the start level
 * existed).
 */
function startsSection(
  simulate: Simulate,
  base: Design,
  { reps, light, print }: { reps: number; light: number; print: (line?: string) => void },
): void {
  const tolerance = defaultCompareSettings().gate.tolerance;
  sectionHead(
    print,
    "The server start as a level of the noise (interleaved, adaptive, default config)",
    `Runs within a start: τ ${(base.runTau * 100).toFixed(1)}% on the latencies (t, 3 df), σ_w at ${base.runMinutes} min, 5% outlier runs; each block of a side's runs on one start shared by the 3 cells. Default schedule: ${alternationLabel(base.runsPerBlock)} (repeats.block auto). Change "cell 0": every gated latency of cell 0.`,
    [
      "start noise",
      "schedule",
      "start recorded",
      "PRs",
      "false block, no change",
      `blocked at the tolerance (cell 0 +${tolerance * 100}%)`,
      "blocked at +10% (cell 0)",
      "clean PR inconclusive",
      "mean runs/side (clean, +10%)",
      "GPU-min per PR (clean; +10%)",
    ],
  );
  const shared: Design = { ...base, runsPerBlock: 1 };
  const row = (starts: StartNoise, schedule: Design, recorded: boolean, n: number) => {
    const design: Design = { ...schedule, starts, startsRecorded: recorded };
    const clean = simulate(design, { kind: "none" }, n);
    const atTolerance = simulate(design, { kind: "latencies", cells: [0], effect: tolerance }, n);
    const plus10 = simulate(design, { kind: "latencies", cells: [0], effect: 0.1 }, n);
    const runs = (o: readonly Outcome[]) => mean(o, (x) => x.runsPerSide).m.toFixed(1);
    const cost = (o: readonly Outcome[]) => mean(o, (x) => x.gpuMinutes).m.toFixed(0);
    const scheduleLabel =
      schedule === base
        ? `${alternationLabel(base.runsPerBlock)} (auto)`
        : "block 1: A, BB, AA, … (two runs a start)";
    print(
      `| ${starts.label} | ${scheduleLabel} | ${recorded ? "yes" : "no (each run its own)"} | ${n} | ${pct(rate(clean, (o) => o.blocked))} | ${pct(rate(atTolerance, (o) => o.blocked))} | ${pct(rate(plus10, (o) => o.blocked))} | ${pct(rate(clean, (o) => o.inconclusive))} | ${runs(clean)}, ${runs(plus10)} | ${cost(clean)}; ${cost(plus10)} |`,
    );
  };
  row(noStarts, base, true, light);
  row(noStarts, shared, true, light);
  for (const sd of [0.02, 0.03]) {
    row(uniformStarts(sd), base, true, reps);
    row(uniformStarts(sd), shared, true, light);
    row(uniformStarts(sd), shared, false, light);
  }
  row(publishedStarts, base, true, reps);
  print();
}

/**
 * An A/A calibration of the simulated runner as `calibrate` records it by default: `runsPerSide` runs a
 * side of every cell, alternating A and B in blocks of the design's repeats.block runs, each block on
 * its own server start; summarised by compare/calibration/calibration.ts into the priors compare takes.
 */
function simulateCalibration(world: World, design: Design, runsPerSide: number): CalibrationPriors {
  const a: RunRecord[] = [];
  const b: RunRecord[] = [];
  const zero = [0, 0, 0, 0];
  const schedule = calibrationAlternation(alternationOf(design.runsPerBlock));
  for (const block of alternatingBlocks(0, runsPerSide, ["a", "b"] as const, schedule)) {
    const start = { id: `cal-${block.side}:${block.firstRun}`, shift: world.start(design.starts) };
    for (let k = block.firstRun; k < block.firstRun + block.runs; k++)
      for (let cell = 0; cell < design.cells; cell++)
        (block.side === "a" ? a : b).push(
          world.run(cell, k, zero, { kind: "none" }, `cal-${block.side}`, "cal", 0, start),
        );
  }
  const file = calibrateFromRuns({
    a,
    b,
    settings: settingsFor(design),
    resplits: 0,
    now: new Date("1970-01-01T00:00:00.000Z"),
  });
  return {
    start: calibrationStartPriors(file, "bench"),
    run: calibrationRunPriors(file, "bench"),
  };
}

/**
 * Noise known in advance: the same PRs judged without and with a calibration of the runner (25 runs a
 * side, calibrate's default), at 3 and 5 runs a side (one look) and adaptive; and a runner that got noisier
 * since it was calibrated (the calibration measured at half the run noise), where the PR's runs
 * contradict the prior and it is widened.
 */
function calibratedSection(
  simulate: Simulate,
  base: Design,
  { light, seed, print }: { light: number; seed: number; print: (line?: string) => void },
): void {
  const tolerance = defaultCompareSettings().gate.tolerance;
  sectionHead(
    print,
    "Noise known in advance: a calibrated runner (interleaved, default config)",
    `Calibration: 25 runs a side of the 3 cells, A/B ${alternationLabel(calibrationAlternation(alternationOf(base.runsPerBlock)))} (calibrate's schedule), on the same noise model (compare/calibration/calibration.ts), its run-to-run and start-to-start variances as the priors. Same simulated PRs with and without it (common random numbers). Change "+10%": TTFT p95 of cell 0.`,
    [
      "runner",
      "repeats",
      "calibration",
      "PRs",
      "false block, no change",
      `blocked at the tolerance (all +${tolerance * 100}%)`,
      "blocked at +10%",
      "clean PR inconclusive",
      "mean runs/side (clean, +10%)",
    ],
  );
  let scenario = 0;
  const row = (label: string, design: Design, calibration: CalibrationPriors, n: number) => {
    const fixedSeed = seed * 9_176_941 + ++scenario * 7_919;
    for (const priors of [undefined, calibration]) {
      const judged: Design = { ...design, ...(priors ? { priors } : {}) };
      const clean = simulate(judged, { kind: "none" }, n, "gate", fixedSeed);
      const atTolerance = simulate(judged, { kind: "all", effect: tolerance }, n, "gate", fixedSeed + 1);
      const plus10 = simulate(judged, onePercentile(0.1), n, "gate", fixedSeed + 2);
      const runs = (o: readonly Outcome[]) => mean(o, (x) => x.runsPerSide).m.toFixed(1);
      print(
        `| ${label} | ${design.repeats.min}..${design.repeats.max} | ${priors ? "yes" : "no"} | ${n} | ${pct(rate(clean, (o) => o.blocked))} | ${pct(rate(atTolerance, (o) => o.blocked))} | ${pct(rate(plus10, (o) => o.blocked))} | ${pct(rate(clean, (o) => o.inconclusive))} | ${runs(clean)}, ${runs(plus10)} |`,
      );
    }
  };
  const calibrationWorld = (design: Design) =>
    new World(
      seed * 31_337,
      withinRunPool(mulberry32(seed * 7919), 2000, 1000),
      () => ({
        withinSd: sigmaW1 / Math.sqrt(design.runMinutes),
        requests: Math.round(1000 * design.runMinutes),
      }),
      design.guards,
      cellNamesOf(design),
      design.runTau,
    );
  const calibration = simulateCalibration(calibrationWorld(base), base, 25);
  row("as calibrated", { ...base, repeats: { min: 3, max: 3 } }, calibration, light);
  row("as calibrated", { ...base, repeats: { min: 5, max: 5 } }, calibration, light);
  row("as calibrated", base, calibration, light);
  // The schedule that shares a start between a side's two consecutive runs (repeats.block 1): its test
  // needs the start level, which the calibration measures on this runner (no start effect here).
  const shared: Design = { ...base, runsPerBlock: 1 };
  row(
    "as calibrated, block 1 (two runs a start)",
    shared,
    simulateCalibration(calibrationWorld(shared), shared, 25),
    light,
  );
  const quiet: Design = { ...base, runTau: base.runTau / 2 };
  const stale = simulateCalibration(calibrationWorld(quiet), quiet, 25);
  row("noisier than calibrated (τ 2x)", { ...base, repeats: { min: 3, max: 3 } }, stale, light);
  row("noisier than calibrated (τ 2x)", base, stale, light);
  print();
}

function main(): void {
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();
  const defaults = defaultCompareSettings();
  // The config's defaults as the action uses them: runs per stored-baseline session and per block.
  const repeatDefaults = configSchema.shape.repeats.parse(undefined);
  const tolerance = defaults.gate.tolerance;
  const pool = withinRunPool(mulberry32(options.seed * 7919), 2000, 1000);
  const print = (line = "") => console.log(line);
  const base: Design = {
    mode: "interleaved",
    cells: 3,
    runMinutes: 0.5,
    repeats: { min: defaults.repeats.min, max: defaults.repeats.max },
    driftSd: 0.02,
    historySessions: defaults.gate.baseline_sessions,
    runsPerSession: repeatDefaults.baseline,
    runsPerBaselineStart: baselineRunsPerStartOf(repeatDefaults.baseline, {
      costs: {
        startSd: defaults.gate.noise_prior.ttft.start_sd,
        runSd: defaults.gate.noise_prior.ttft.run_sd,
        startSeconds: 180,
        runSeconds: 3 * 0.5 * 60,
      },
    }),
    screen: true,
    // repeats.block "auto" as `alternation` resolves it for this shape: TTFT p95 gated (the widest start
    // sd of gate.noise_prior), 3 cells of runMinutes on one server per side, 3 minutes a start: a start
    // per run (Kalibera and Jones' runs per start is √2, below two).
    runsPerBlock:
      repeatDefaults.block === "auto"
        ? autoAlternation({
            minRuns: defaults.repeats.min,
            startSd: defaults.gate.noise_prior.ttft.start_sd,
            runSd: defaults.gate.noise_prior.ttft.run_sd,
            tolerance: defaults.gate.tolerance,
            startSeconds: 180,
            runSeconds: 3 * 0.5 * 60,
          })
        : alternationOf(
            repeatDefaults.block === "fresh"
              ? { runsPerGroup: 1, startEachGroup: true }
              : repeatDefaults.block,
          ),
    jobDriftPerHour: 0,
    // Real runs carry guard counts; at the default sampling (ignore_eos) none can reach the level.
    guards: "ignore-eos",
    starts: noStarts,
    startsRecorded: true,
    runTau: tau,
  };
  let seedCounter = 0;
  const simulate = (
    design: Design,
    change: Change,
    reps: number,
    rule: "gate" | "threshold" = "gate",
    /** The same simulated PRs for two procedures side by side (common random numbers). */
    fixedSeed?: number,
  ) => {
    const world = new World(
      fixedSeed ?? options.seed * 1_000_003 + ++seedCounter * 7717,
      pool,
      () => ({
        withinSd: sigmaW1 / Math.sqrt(design.runMinutes),
        requests: Math.round(1000 * design.runMinutes),
      }),
      design.guards,
      cellNamesOf(design),
      design.runTau,
    );
    const settings = settingsFor(design);
    const outcomes: Outcome[] = [];
    for (let i = 0; i < reps; i++)
      outcomes.push(
        rule === "threshold"
          ? simulateThresholdRule(world, design, change)
          : simulatePr(world, design, change, settings),
      );
    return outcomes;
  };
  const reps = options.reps;
  const light = options.quick ? Math.max(100, Math.round(reps / 4)) : Math.max(200, Math.round(reps / 2));
  print(
    `# bench:gate — ${reps} simulated PRs per key cell (${light} for the others), seed ${options.seed}; 3 cells × 5 gated metrics, default config`,
  );
  print(
    `Defaults: tolerance ${tolerance}, detect_change ${defaults.gate.detect_change}, confidence ${defaults.gate.confidence}, repeats ${defaults.repeats.min}..${defaults.repeats.max}, block ${repeatDefaults.block}, baseline ${repeatDefaults.baseline} runs x ${defaults.gate.baseline_sessions} sessions, outlier screen ${defaults.gate.outlier_threshold} robust sd, min_run_sd ${defaults.gate.min_run_sd}, session_drift_sd ${defaults.gate.session_drift_sd}`,
  );
  print(
    "Noise: run effect τ 0.025 (t, 3 df, correlated across metrics), σ_w 0.0166/√L, 5% of runs 1.3x slower, session drift 0.02 (stored; 0.04 where marked). Figures: rate ± Monte-Carlo SE.",
  );
  print();
  const header =
    "| mode | rule | false block, no change | false block at tolerance (all metrics +" +
    `${tolerance * 100}%) | power, +10% on one p95 | clean PR inconclusive | mean runs/side (clean, +10%) | GPU-min per PR (+10%) | GPU-min per decisive +10% | same, A B B A one run per block |`;
  const separator = "|---|---|---|---|---|---|---|---|---|---|";
  const row = (mode: string, rule: string, design: Design, kind: "gate" | "threshold", heavy: boolean) => {
    const n = heavy ? reps : light;
    const clean = simulate(design, { kind: "none" }, n, kind);
    const atTolerance = simulate(design, { kind: "all", effect: tolerance }, heavy ? n : light, kind);
    const plus10 = simulate(design, onePercentile(0.1), n, kind);
    const runsClean = mean(clean, (o) => o.runsPerSide).m;
    const runs10 = mean(plus10, (o) => o.runsPerSide).m;
    const cost10 = mean(plus10, (o) => o.gpuMinutes);
    print(
      `| ${mode} | ${rule} | ${pct(rate(clean, (o) => o.blocked))} | ${pct(rate(atTolerance, (o) => o.blocked))} | ${pct(rate(plus10, (o) => o.blocked))} | ${kind === "threshold" ? "–" : pct(rate(clean, (o) => o.inconclusive))} | ${runsClean.toFixed(1)}, ${runs10.toFixed(1)} | ${cost10.m.toFixed(0)} | ${perDecisive(plus10)} | ${design.mode === "interleaved" && kind === "gate" ? perDecisive(plus10, true) : "–"} |`,
    );
  };
  const want = (part: string) => options.only === null || options.only === part;
  if (want("interleaved") || want("stored")) {
    print("## The gate at its defaults");
    print();
    print(header);
    print(separator);
    if (want("interleaved")) {
      row(
        "interleaved (default PR mode)",
        `adaptive ${defaults.repeats.min}..${defaults.repeats.max}`,
        base,
        "gate",
        true,
      );
      row(
        "interleaved, block 1",
        "adaptive, A, BB, AA, …: two runs a start",
        { ...base, runsPerBlock: 1 },
        "gate",
        false,
      );
      // Coarser alternation against drift within the job: every latency drifts 5% per hour of GPU time.
      const drifting = { ...base, jobDriftPerHour: 0.05 };
      row(
        `interleaved, job drift 5%/h`,
        `adaptive, ${alternationLabel(base.runsPerBlock)}`,
        drifting,
        "gate",
        false,
      );
      row(
        "interleaved, job drift 5%/h",
        "adaptive, block 1",
        { ...drifting, runsPerBlock: 1 },
        "gate",
        false,
      );
      row("interleaved", "adaptive, outlier screen off", { ...base, screen: false }, "gate", false);
      // The guards join the gated family: with EOS honoured, 2 tested guards per cell (15 + 6 tests).
      row(
        "interleaved, EOS honoured",
        "adaptive, guards in the family",
        { ...base, guards: "eos" },
        "gate",
        false,
      );
      row(
        "interleaved, no guard counts",
        "adaptive, speed tests only",
        { ...base, guards: "none" },
        "gate",
        false,
      );
      row("interleaved", "one-run 10% rule", base, "threshold", false);
    }
    if (want("stored")) {
      const stored: Design = { ...base, mode: "stored" };
      row(
        "stored, 10-session history",
        `adaptive ${defaults.repeats.min}..${defaults.repeats.max}`,
        stored,
        "gate",
        true,
      );
      row("stored, true drift 0.04", "adaptive", { ...stored, driftSd: 0.04 }, "gate", false);
      row("stored", "one-run 10% rule", stored, "threshold", false);
      row("stored, true drift 0.04", "one-run 10% rule", { ...stored, driftSd: 0.04 }, "threshold", false);
    }
    print();
  }
  if (want("starts")) startsSection(simulate, base, { reps, light, print });
  if (want("calibrated")) calibratedSection(simulate, base, { light, seed: options.seed, print });
  if (want("mdc")) detectableSection({ reps, seed: options.seed, pool, print });
  if (want("matrix"))
    matrixSection(simulate, base, {
      reps,
      light,
      seed: options.seed,
      weight: options.familyWeight ?? defaults.gate.family_weight,
      print,
    });
  if (want("length")) {
    print("## Run length against run count (interleaved, adaptive; same run-minutes at the maximum)");
    print();
    print(
      "| run length | repeats | power, +10% on one p95 | clean PR inconclusive | mean runs/side at +10% | GPU-min per decisive +10% | same, server kept up (1 start per cell and side) |",
    );
    print("|---|---|---|---|---|---|---|");
    const lengths: [number, number, number][] = options.quick
      ? [
          [0.5, 5, 20],
          [1, 3, 10],
        ]
      : [
          [0.25, 5, 40],
          [0.5, 5, 20],
          [0.5, 5, 25],
          [1, 3, 10],
          [2, 3, 5],
        ];
    for (const [runMinutes, min, max] of lengths) {
      const design: Design = { ...base, runMinutes, repeats: { min, max } };
      const clean = simulate(design, { kind: "none" }, light);
      const plus10 = simulate(design, onePercentile(0.1), light);
      // The same runs if the server stayed up for all runs of a side (2 starts per cell).
      const keptUp = plus10.map((o) => ({
        ...o,
        gpuMinutes: design.cells * gpuMinutes(2, 2 * o.runsPerSide, { runMinutes }),
      }));
      print(
        `| ${runMinutes} min | ${min}..${max} | ${pct(rate(plus10, (o) => o.blocked))} | ${pct(rate(clean, (o) => o.inconclusive))} | ${mean(plus10, (o) => o.runsPerSide).m.toFixed(1)} | ${perDecisive(plus10)} | ${perDecisive(keptUp)} |`,
      );
    }
    print();
  }
  print(
    "Targets: false block <= 1% with no change and <= 5% at the tolerance; power >= 90% at +10% (default PR mode); clean PRs inconclusive <= 20%; <= 100 GPU-minutes per decisive +10% verdict (default mode).",
  );
  print(`Elapsed ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main();
