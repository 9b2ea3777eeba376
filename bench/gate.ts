/**
 * Monte-Carlo check of the gate's error rates (statistics.md §6), run through the real decision code
 * (`analyze`, the decision `compare` makes).
 * Usage: npx tsx bench/gate.ts [--reps 1500] [--reps18 500] [--seed 1] [--sd 0.03] [--no-18] [--no-stored]
 * (--reps: simulated PRs per row for 3 cells; --reps18: for the 18-cell matrix, which costs 6x more).
 *
 * Noise model, per cell and metric, on the log scale of one run's statistic:
 *   ln y = μ + session shift + τ·u_run + σ_w·w_run (+ ln(1+Δ) for the injected regression)
 * - u_run: run-level random effect (server start, allocator state, host noise), correlated across a
 *   run's metrics (0.7 among latencies; throughput moves against latency with 0.5).
 * - w_run: sampling noise of the run's p95, drawn from a pool of real percentile computations over
 *   1,000 heavy-tailed, autocorrelated request latencies (AR(1) ρ = 0.5 on ln latency, σ = 0.5, plus
 *   2% stalls ×(1 + Pareto(2.5))), standardised, so its shape (skew, tails) is kept.
 * - per-run sd(ln p95) = √(τ² + σ_w²) = 0.03 by default (τ = 0.0224, σ_w = 0.02); throughput sd 0.02.
 * - session shift (stored baseline only): each job's session moves every metric by N(0, s²/2) (half
 *   shared by all metrics of the job, half per metric), so two sessions differ by sd s = 0.02, the
 *   default gate.session_drift_sd the gate assumes.
 * - failed requests: Poisson(1) per run of 1,000 requests (0.1%), on both sides.
 * Regression: ×(1 + Δ) on TTFT p95 of the first cell of the candidate only.
 * Fixed-threshold rule (what simple peer actions do): one candidate run vs one baseline run, block if
 * any gated latency rises or throughput falls by more than 10%.
 */
import { analyze } from "../src/compare/analyze.js";
import { defaultCompareSettings } from "../src/compare/index.js";
import type { RunRecord } from "../src/compare/run-record.js";
import { percentileSorted } from "../src/stats/percentile.js";
import { lookSchedule, perLookLevel } from "../src/stats/sequential.js";
import { mulberry32 } from "../src/util/random.js";

interface Options {
  reps: number;
  reps18: number;
  seed: number;
  eighteen: boolean;
  stored: boolean;
  sd: number;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { reps: 1500, reps18: 500, seed: 1, eighteen: true, stored: true, sd: 0.03 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--reps") options.reps = Number(argv[++i]);
    else if (arg === "--reps18") options.reps18 = Number(argv[++i]);
    else if (arg === "--seed") options.seed = Number(argv[++i]);
    else if (arg === "--sd") options.sd = Number(argv[++i]);
    else if (arg === "--no-18") options.eighteen = false;
    else if (arg === "--no-stored") options.stored = false;
    else
      throw new Error(
        `unknown argument ${arg}; expected --reps N, --reps18 N, --seed N, --sd X, --no-18, --no-stored`,
      );
  }
  if (
    !(
      Number.isInteger(options.reps) &&
      options.reps > 0 &&
      Number.isInteger(options.reps18) &&
      options.reps18 > 0
    )
  )
    throw new Error("--reps and --reps18 expect a whole number > 0");
  return options;
}

function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(Math.max(random(), 1e-300))) * Math.cos(2 * Math.PI * random());
}

function poisson(random: () => number, mean: number): number {
  let k = 0;
  let p = Math.exp(-mean);
  let cumulative = p;
  const u = random();
  while (u > cumulative) {
    k++;
    p *= mean / k;
    cumulative += p;
  }
  return k;
}

/** Standardised within-run noise of ln p95 from simulated request streams. */
function withinRunPool(random: () => number, runs: number, requests: number): Float64Array {
  const values = new Float64Array(runs);
  const latencies = new Float64Array(requests);
  const rho = 0.5;
  const sigma = 0.5;
  for (let r = 0; r < runs; r++) {
    let e = normal(random);
    for (let j = 0; j < requests; j++) {
      e = rho * e + Math.sqrt(1 - rho * rho) * normal(random);
      let latency = Math.exp(sigma * e);
      if (random() < 0.02) latency *= 1 + Math.max(random(), 1e-12) ** (-1 / 2.5);
      latencies[j] = latency;
    }
    latencies.sort();
    values[r] = Math.log(percentileSorted(latencies, 0.95));
  }
  let mean = 0;
  for (const v of values) mean += v;
  mean /= runs;
  let ss = 0;
  for (const v of values) ss += (v - mean) ** 2;
  const sd = Math.sqrt(ss / (runs - 1));
  return values.map((v) => (v - mean) / sd);
}

interface Scenario {
  cells: number;
  mode: "stored" | "interleaved";
  /** Relative regression injected on TTFT p95 of cell 0. */
  effect: number;
  /** Fixed runs per side, or "adaptive". */
  rule: number | "adaptive";
}

const latencyMetrics = ["ttft_p95", "tpot_p95", "e2el_p95"] as const;
const medians = { ttft_p95: 250, tpot_p95: 30, e2el_p95: 4000, output_throughput: 2000 };

class World {
  private readonly random: () => number;
  constructor(
    seed: number,
    private readonly pool: Float64Array,
    private readonly sd: number,
  ) {
    this.random = mulberry32(seed);
  }

  /** A job's session shift per cell and metric (stored baseline only). */
  session(cells: number, driftSd: number): number[][] {
    const shared = normal(this.random) * (driftSd / Math.SQRT2) * Math.SQRT1_2;
    return Array.from({ length: cells }, () =>
      Array.from({ length: 4 }, () => shared + normal(this.random) * (driftSd / Math.SQRT2) * Math.SQRT1_2),
    );
  }

  run(cell: number, index: number, shift: number[], effect: number, side: string): RunRecord {
    const random = this.random;
    const tau = Math.sqrt(Math.max(0, this.sd ** 2 - ((this.sd * 2) / 3) * ((this.sd * 2) / 3)));
    const within = (this.sd * 2) / 3;
    const common = normal(random);
    const metrics: RunRecord["metrics"] = {};
    latencyMetrics.forEach((metric, k) => {
      const u = Math.sqrt(0.7) * common + Math.sqrt(0.3) * normal(random);
      const w = this.pool[Math.floor(random() * this.pool.length)]!;
      const regression = metric === "ttft_p95" && cell === 0 ? Math.log(1 + effect) : 0;
      metrics[metric] = medians[metric] * Math.exp(shift[k]! + tau * u + within * w + regression);
    });
    const uThroughput = -(Math.SQRT1_2 * common + Math.SQRT1_2 * normal(random));
    metrics.output_throughput = medians.output_throughput * Math.exp(shift[3]! + 0.02 * uThroughput);
    const failed = poisson(random, 1);
    return {
      source: `${side}/${cell}/${index}`,
      cell: `cell-${cell}`,
      run: index,
      startedAt: null,
      metrics,
      requests: { total: 1000, completed: 1000 - failed, failed },
      fingerprint: {},
      exclusionReasons: [],
    };
  }
}

interface Outcome {
  blocked: boolean;
  /** Gated metrics that blocked, with the look (runs per side) at which they did. */
  blockers: string[];
  inconclusive: boolean;
  runsPerSide: number;
}

function simulatePr(
  world: World,
  scenario: Scenario,
  settings: ReturnType<typeof defaultCompareSettings>,
  driftSd: number,
): Outcome {
  const stored = scenario.mode === "stored";
  const baseShift = stored
    ? world.session(scenario.cells, driftSd)
    : Array.from({ length: scenario.cells }, () => [0, 0, 0, 0]);
  const candShift = stored ? world.session(scenario.cells, driftSd) : baseShift;
  const baseline: RunRecord[] = [];
  const candidate: RunRecord[] = [];
  const addRuns = (side: "baseline" | "candidate", target: number) => {
    const list = side === "baseline" ? baseline : candidate;
    const perCell = list.length / scenario.cells;
    for (let k = perCell; k < target; k++) {
      for (let cell = 0; cell < scenario.cells; cell++) {
        list.push(
          world.run(
            cell,
            k,
            (side === "baseline" ? baseShift : candShift)[cell]!,
            side === "candidate" ? scenario.effect : 0,
            side,
          ),
        );
      }
    }
  };
  // A stored baseline was recorded once with the maximum number of runs.
  const initial = scenario.rule === "adaptive" ? settings.repeats.min : scenario.rule;
  addRuns("baseline", stored ? settings.repeats.max : initial);
  addRuns("candidate", initial);
  for (;;) {
    // The decision itself (what compare runs before rendering the report).
    const verdict = analyze({
      baseline,
      candidate,
      gate: settings.gate,
      repeats: settings.repeats,
      mode: scenario.mode,
      now: "1970-01-01T00:00:00.000Z",
      tool: { name: "bench", version: "0" },
    });
    const runs = candidate.length / scenario.cells;
    if (scenario.rule !== "adaptive" || verdict.nextLook === null) {
      const blockers = verdict.comparisons
        .filter((c) => c.gated && c.verdict === "regression")
        .map((c) => `${c.metric}@${runs}`);
      return {
        blocked: verdict.exitCode === 1,
        blockers,
        inconclusive: verdict.verdict === "inconclusive",
        runsPerSide: runs,
      };
    }
    addRuns("candidate", verdict.nextLook.runsPerSide);
    if (!stored) addRuns("baseline", verdict.nextLook.runsPerSide);
  }
}

function simulateThresholdRule(world: World, scenario: Scenario, driftSd: number): Outcome {
  const stored = scenario.mode === "stored";
  const baseShift = stored
    ? world.session(scenario.cells, driftSd)
    : Array.from({ length: scenario.cells }, () => [0, 0, 0, 0]);
  const candShift = stored ? world.session(scenario.cells, driftSd) : baseShift;
  let blocked = false;
  for (let cell = 0; cell < scenario.cells; cell++) {
    const b = world.run(cell, 0, baseShift[cell]!, 0, "baseline");
    const c = world.run(cell, 0, candShift[cell]!, scenario.effect, "candidate");
    for (const metric of latencyMetrics) if (c.metrics[metric]! > b.metrics[metric]! * 1.1) blocked = true;
    if (c.metrics.output_throughput! < b.metrics.output_throughput! / 1.1) blocked = true;
  }
  return { blocked, blockers: [], inconclusive: false, runsPerSide: 1 };
}

function summarise(outcomes: readonly Outcome[]) {
  const n = outcomes.length;
  const rate = (f: (o: Outcome) => boolean) => outcomes.filter(f).length / n;
  return {
    block: rate((o) => o.blocked),
    inconclusive: rate((o) => o.inconclusive),
    meanRuns: outcomes.reduce((s, o) => s + o.runsPerSide, 0) / n,
  };
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

function main(): void {
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();
  const settings = defaultCompareSettings();
  const driftSd = settings.gate.session_drift_sd;
  const pool = withinRunPool(mulberry32(options.seed * 7919), 2000, 1000);
  const effects = [0, 0.05, 0.1, 0.2];
  const rules: (number | "adaptive")[] = [3, 5, 10, "adaptive"];
  const modes: ("interleaved" | "stored")[] = options.stored ? ["interleaved", "stored"] : ["interleaved"];
  const lines: string[] = [];
  const print = (line = "") => {
    lines.push(line);
    console.log(line);
  };
  const lookCount = lookSchedule(settings.repeats.min, settings.repeats.max).length;
  const look = (mode: "stored" | "interleaved") =>
    perLookLevel(1 - settings.gate.confidence, lookCount, mode).toFixed(5);
  print(
    `# bench:gate — simulated PRs per row: ${options.reps} (3 cells), ${options.reps18} (18 cells); per-run sd(ln p95) = ${options.sd}, seed ${options.seed}`,
  );
  print(
    `Defaults: tolerance ${settings.gate.tolerance}, confidence ${settings.gate.confidence}, looks 3/5/7/10, per-look one-sided α ${look("interleaved")} interleaved / ${look("stored")} stored (before Holm), session drift sd ${driftSd} (stored mode)`,
  );
  const cellCounts = options.eighteen ? [3, 18] : [3];
  for (const cells of cellCounts) {
    for (const mode of modes) {
      print();
      print(
        `## ${cells} cells × 5 gated metrics, ${mode} baseline${mode === "stored" ? " (baseline: 10 runs from another session)" : ""}`,
      );
      print();
      print(
        "| rule | false block (A/A) | A/A inconclusive | power +5% | power +10% | power +20% | mean runs/side A/A | mean runs/side +10% |",
      );
      print("|---|---|---|---|---|---|---|---|");
      const ruleList: (number | "adaptive" | "threshold")[] =
        cells === 18 ? [10, "adaptive", "threshold"] : [...rules, "threshold"];
      const falseBlockNotes: string[] = [];
      for (const rule of ruleList) {
        const row: ReturnType<typeof summarise>[] = [];
        const effectList = cells === 18 ? [0, 0.1] : effects;
        for (const [e, effect] of effectList.entries()) {
          const world = new World(
            options.seed * 1_000_003 + e * 7717 + cells * 31 + (mode === "stored" ? 17 : 0),
            pool,
            options.sd,
          );
          const scenario: Scenario = { cells, mode, effect, rule: rule === "threshold" ? 1 : rule };
          const outcomes: Outcome[] = [];
          const reps = cells === 18 ? options.reps18 : options.reps;
          for (let i = 0; i < reps; i++) {
            outcomes.push(
              rule === "threshold"
                ? simulateThresholdRule(world, scenario, driftSd)
                : simulatePr(world, scenario, settings, driftSd),
            );
          }
          row[e] = summarise(outcomes);
          if (effect === 0) {
            const tally = new Map<string, number>();
            for (const o of outcomes) for (const b of o.blockers) tally.set(b, (tally.get(b) ?? 0) + 1);
            if (tally.size > 0)
              falseBlockNotes.push(`${rule}: ${[...tally].map(([k, v]) => `${k} ×${v}`).join(", ")}`);
          }
        }
        const name =
          rule === "threshold"
            ? "fixed ±10%, 1 run vs 1"
            : rule === "adaptive"
              ? "adaptive 3/5/7/10"
              : `R = ${rule}`;
        const at = (effect: number) => row[(cells === 18 ? [0, 0.1] : effects).indexOf(effect)];
        print(
          `| ${name} | ${pct(at(0)!.block)} | ${pct(at(0)!.inconclusive)} | ${at(0.05) ? pct(at(0.05)!.block) : "–"} | ${pct(at(0.1)!.block)} | ${at(0.2) ? pct(at(0.2)!.block) : "–"} | ${at(0)!.meanRuns.toFixed(1)} | ${at(0.1)!.meanRuns.toFixed(1)} |`,
        );
      }
      if (falseBlockNotes.length > 0) print(`\nA/A blocks by metric@runs: ${falseBlockNotes.join("; ")}`);
    }
  }
  print();
  print(
    `Monte-Carlo SE at 1%: ±${pct(Math.sqrt((0.01 * 0.99) / options.reps))}; at 90%: ±${pct(Math.sqrt(0.09 / options.reps))}.`,
  );
  print(
    `Targets (3 cells, default settings, sd 0.03): false block <= 1% per PR; power >= 90% at +10% with adaptive mean <= 7 runs/side.`,
  );
  print(`Elapsed ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main();
