/**
 * The noise model of the gate benchmarks (bench:gate, bench:cost), in one place; bench/gate.ts's header
 * documents it. Per cell and metric, on the ln scale of one run's statistic:
 *   ln y = μ + session shift + τ·u_run + σ_w·w_run (+ ln(1+Δ) for an injected change)
 * with u_run Student t(3) (unit variance, correlated across a run's metrics), w_run drawn from a pool of
 * real p95 computations over heavy-tailed autocorrelated request latencies, 5% of runs 1.3x slower on
 * every latency, failed requests Poisson(0.1%). σ_w is the caller's per cell: 0.0166 at 1,000 requests,
 * as 1/√requests (bench:gate: 1,000 requests a minute, so 0.0166/√L for a run of L minutes).
 *
 * The server start is a level of its own (docs/compare.md, "Server starts"): every run measured on one
 * start shares that start's draw, in every cell the server serves, per metric family:
 *   ln y += s_start,  s_start ~ N(0, σ_start²) per metric, the same in every cell of the start,
 * with a fat tail: `slowStartRate` of the starts are `slowStartFactor` slower on every latency and
 * throughput (a bimodal spawn state, an autotuning pick that lost a near-tie). `StartNoise` says how
 * large; `noStarts` is the model before the start level (every run independent).
 */
import type { RunGuards } from "../src/metrics/guards.js";
import type { RunRecord } from "../src/metrics/run-record.js";
import { logRatioOf } from "../src/stats/margin.js";
import { percentileSorted } from "../src/stats/percentile.js";
import { mulberry32 } from "../src/util/random.js";

export function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(Math.max(random(), 1e-300))) * Math.cos(2 * Math.PI * random());
}

/** Student t with 3 df, scaled to unit variance (var t₃ = 3). */
export function t3(random: () => number): number {
  const z = normal(random);
  let chi = 0;
  for (let k = 0; k < 3; k++) chi += normal(random) ** 2;
  return z / Math.sqrt(chi / 3) / Math.sqrt(3);
}

export function poisson(random: () => number, mean: number): number {
  let k = 0;
  let p = Math.exp(-mean);
  let cumulative = p;
  const u = random();
  while (u > cumulative && k < 1000) {
    k++;
    p *= mean / k;
    cumulative += p;
  }
  return k;
}

/** Standardised within-run noise of ln p95 from simulated request streams. */
export function withinRunPool(random: () => number, runs: number, requests: number): Float64Array {
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

export const latencyMetrics = ["ttft_p95", "tpot_p95", "e2el_p95"] as const;
export const medians = { ttft_p95: 250, tpot_p95: 30, e2el_p95: 4000, output_throughput: 2000 };
export const tau = 0.025;
export const tauThroughput = 0.02;
export const sigmaW1 = 0.0166;
export const outlierRate = 0.05;
export const outlierFactor = 1.3;

export type LatencyMetric = (typeof latencyMetrics)[number];

/** The start level's sd of ln(metric) per metric, and its fat tail. */
export interface StartNoise {
  ttft_p95: number;
  tpot_p95: number;
  e2el_p95: number;
  output_throughput: number;
  slowStartRate: number;
  slowStartFactor: number;
  label: string;
}

export const noStarts: StartNoise = {
  ttft_p95: 0,
  tpot_p95: 0,
  e2el_p95: 0,
  output_throughput: 0,
  slowStartRate: 0,
  slowStartFactor: 1,
  label: "no start effect",
};

/** One sd for every metric, no fat tail (the settings of a start-to-start table). */
export function uniformStarts(sd: number): StartNoise {
  return {
    ttft_p95: sd,
    tpot_p95: sd,
    e2el_p95: sd,
    output_throughput: sd,
    slowStartRate: 0,
    slowStartFactor: 1,
    label: `start sd ${Number((sd * 100).toPrecision(3))}% on every metric`,
  };
}

/**
 * The published magnitudes (docs/compare.md, "Server starts"; vLLM and SGLang on H100/H200): throughput
 * and TPOT about 1% between starts, E2E 1%, TTFT p95 3%; 3% of the starts 1.08x slower.
 */
export const publishedStarts: StartNoise = {
  ttft_p95: 0.03,
  tpot_p95: 0.01,
  e2el_p95: 0.01,
  output_throughput: 0.01,
  slowStartRate: 0.03,
  slowStartFactor: 1.08,
  label: "published start noise (throughput, TPOT, E2E 1%, TTFT 3%; 3% of starts 1.08x slower)",
};

/** The published start level without the fat tail: the magnitudes alone (a start-to-start table's setting). */
export const publishedStartLevel: StartNoise = {
  ...publishedStarts,
  slowStartRate: 0,
  slowStartFactor: 1,
  label: "published start noise (throughput, TPOT, E2E 1%, TTFT 3%; no slow starts)",
};

/** The metrics World.run draws: the gated latencies and output throughput. */
export type ModelMetric = LatencyMetric | "output_throughput";

/**
 * The run level of the noise in full (World's last argument; a number there is τ of the default model):
 * per metric, the run effect's sd of ln(metric) and whether a latency's p95 also carries the within-run
 * sampling noise (the cell's σ_w); the run effect's distribution; the share of outlier runs.
 */
export interface RunNoise {
  runSd: Record<ModelMetric, number>;
  sampling: Record<LatencyMetric, boolean>;
  /** "t3": Student t with 3 df scaled to unit variance (the default model); "normal": Gaussian. */
  shape: "t3" | "normal";
  /** Runs 1.3x slower on every latency (and 1/1.3 on throughput); the default model's is 5%. */
  outlierRate: number;
  label: string;
}

/** The default model's run level at run effect τ on the latencies (throughput's scales as τ_throughput/τ). */
export function modelRunNoise(runTau: number = tau): RunNoise {
  return {
    runSd: {
      ttft_p95: runTau,
      tpot_p95: runTau,
      e2el_p95: runTau,
      output_throughput: (tauThroughput * runTau) / tau,
    },
    sampling: { ttft_p95: true, tpot_p95: true, e2el_p95: true },
    shape: "t3",
    outlierRate,
    label: `run effect τ ${runTau} (t, 3 df), p95 sampling noise, ${outlierRate * 100}% outlier runs`,
  };
}

/**
 * The published per-metric run-to-run magnitudes (docs/compare.md, "Server starts"; vLLM and SGLang on
 * H100/H200): output throughput 0.5%, TPOT p95 and E2E p95 1.5% (their sampling at a few hundred requests
 * included), TTFT p95 3% plus its p95's sampling noise (the cell's σ_w); the t(3) tails of the run
 * effect, no outlier runs beyond them.
 */
export const publishedRuns: RunNoise = {
  runSd: { ttft_p95: 0.03, tpot_p95: 0.015, e2el_p95: 0.015, output_throughput: 0.005 },
  sampling: { ttft_p95: true, tpot_p95: false, e2el_p95: false },
  shape: "t3",
  outlierRate: 0,
  label:
    "published run noise (t(3) run effect: throughput 0.5%, TPOT and E2E p95 1.5%, TTFT p95 3% plus a p95's sampling, 1.66% at 1,000 requests; no outlier runs)",
};

/**
 * An injected change: none; every gated latency of every cell × (1 + effect) and throughput ÷ it ("all");
 * or one metric in the listed cells (a needle in one cell, or one phase across a workload family): a
 * latency × (1 + effect), throughput ÷ (1 + effect).
 */
export type Change =
  | { kind: "none" }
  | { kind: "all"; effect: number }
  | { kind: "metric"; metric: ModelMetric; cells: readonly number[]; effect: number }
  /** Every gated latency of the listed cells × (1 + effect). */
  | { kind: "latencies"; cells: readonly number[]; effect: number };

/** TTFT p95 of the first cell: bench:gate's "+10% on one p95". */
export const onePercentile = (effect: number): Change => ({
  kind: "metric",
  metric: "ttft_p95",
  cells: [0],
  effect,
});

export type GuardKind = "none" | "ignore-eos" | "eos";

export class World {
  private readonly random: () => number;
  constructor(
    seed: number,
    private readonly pool: Float64Array,
    /** Per cell: the sd of the within-run noise of ln p95 and the run's requests. */
    private readonly shapeOf: (cell: number) => { withinSd: number; requests: number },
    readonly guards: GuardKind = "none",
    private readonly cellNames: readonly string[] = [],
    /** The run level: τ of the default model (modelRunNoise), or in full. */
    runLevel: number | RunNoise = tau,
  ) {
    this.random = mulberry32(seed);
    this.runNoise = typeof runLevel === "number" ? modelRunNoise(runLevel) : runLevel;
  }

  private readonly runNoise: RunNoise;

  /** One draw of the run effect's shape at unit variance. */
  private unit(): number {
    return this.runNoise.shape === "t3" ? t3(this.random) : normal(this.random);
  }

  /**
   * One server start's shift of ln(metric) (3 latencies, throughput), the same in every cell it serves:
   * add it to the session shift of each run measured on it.
   */
  start(noise: StartNoise): number[] {
    const slow = noise.slowStartRate > 0 && this.random() < noise.slowStartRate;
    const tail = slow ? Math.log(noise.slowStartFactor) : 0;
    return [
      noise.ttft_p95 * normal(this.random) + tail,
      noise.tpot_p95 * normal(this.random) + tail,
      noise.e2el_p95 * normal(this.random) + tail,
      noise.output_throughput * normal(this.random) - tail,
    ];
  }

  /** A job's session shift per cell and metric (4 per cell: 3 latencies, throughput). */
  session(cells: number, driftSd: number): number[][] {
    const part = (driftSd / Math.SQRT2) * Math.SQRT1_2;
    const shared = normal(this.random) * part;
    return Array.from({ length: cells }, () =>
      Array.from({ length: 4 }, () => shared + normal(this.random) * part),
    );
  }

  run(
    cell: number,
    index: number,
    shift: readonly number[],
    change: Change,
    side: string,
    session: string,
    latencyDrift = 0,
    /**
     * The server start the run is measured on: its shift (World.start) and the id its record carries
     * (null: the record says nothing, as older files); absent: its own start, no shift.
     */
    start?: { id: string | null; shift: readonly number[] },
  ): RunRecord {
    const random = this.random;
    const shape = this.shapeOf(cell);
    const within = shape.withinSd;
    const noise = this.runNoise;
    const common = this.unit();
    const outlier = random() < noise.outlierRate ? Math.log(outlierFactor) : 0;
    const metrics: RunRecord["metrics"] = {};
    latencyMetrics.forEach((metric, k) => {
      const u = Math.sqrt(0.7) * common + Math.sqrt(0.3) * this.unit();
      const w = noise.sampling[metric] ? this.pool[Math.floor(random() * this.pool.length)]! : 0;
      let injected = 0;
      if (change.kind === "all") injected = logRatioOf(change.effect);
      if (change.kind === "metric" && metric === change.metric && change.cells.includes(cell))
        injected = logRatioOf(change.effect);
      if (change.kind === "latencies" && change.cells.includes(cell)) injected = logRatioOf(change.effect);
      metrics[metric] =
        medians[metric] *
        Math.exp(
          shift[k]! +
            (start?.shift[k] ?? 0) +
            noise.runSd[metric] * u +
            within * w +
            injected +
            outlier +
            latencyDrift,
        );
    });
    const uThroughput = -(Math.SQRT1_2 * common + Math.SQRT1_2 * this.unit());
    const tpChange =
      change.kind === "all" ||
      (change.kind === "metric" && change.metric === "output_throughput" && change.cells.includes(cell))
        ? logRatioOf(change.effect)
        : 0;
    metrics.output_throughput =
      medians.output_throughput *
      Math.exp(
        shift[3]! +
          (start?.shift[3] ?? 0) +
          noise.runSd.output_throughput * uThroughput -
          outlier -
          tpChange -
          latencyDrift,
      );
    const total = shape.requests;
    const failed = poisson(random, total / 1000);
    const guards = guardCounts(random, this.guards, total - failed);
    return {
      source: `${side}/${session}/${cell}/${index}`,
      cell: this.cellNames[cell] ?? `cell-${cell}`,
      run: index,
      startedAt: null,
      metrics,
      requests: { total, completed: total - failed, failed },
      fingerprint: {},
      exclusionReasons: [],
      session,
      ...(guards ? { guards } : {}),
      ...(start?.id ? { serverStart: { id: start.id, basis: "recorded" as const } } : {}),
    };
  }
}

/**
 * The quality guards' counts of a clean run (no change on either side; src/metrics/guards.ts): with
 * ignore_eos (the default sampling) every request runs to max_tokens at the fixed length, so no guard
 * test can reach the level; with EOS honoured ~10% stop at max_tokens (binomial) and the lengths have
 * sd 40 around a mean of 100, so the length share and the mean length are tested, in the gated family.
 */
function guardCounts(random: () => number, kind: GuardKind, completed: number): RunGuards | undefined {
  if (kind === "none") return undefined;
  const eos = kind === "eos";
  const length = eos
    ? Math.max(0, Math.round(completed * 0.1 + Math.sqrt(completed * 0.09) * normal(random)))
    : completed;
  return {
    ignoreEos: !eos,
    requests: completed,
    finish: { stop: completed - length, length, abort: 0, other: 0 },
    zeroOutput: 0,
    usageMismatch: 0,
    outputTokens: eos
      ? { count: completed, mean: 100 + (40 / Math.sqrt(completed)) * normal(random), std: 40 }
      : { count: completed, mean: 128, std: 0 },
    outputToMaxTokens: eos ? 100 / 256 : 1,
  };
}
