/**
 * Change points after merge (src/stats/change-point.ts) on simulated base-branch series: one point per
 * merged commit, each a baseline session (the mean of its runs' ln values). After every commit the
 * detector looks at the last `window` points, as the action does on every base-branch session; a change
 * point counts once, when first seen (the rule the action uses to report it once).
 *
 * Noise (`--noise extended`, the default: the extended model of bench/gate.ts), per session and
 * run, on ln values:
 * - session drift: N(0, 0.02²) per session (gate.session_drift_sd's default), shared by a family's metrics;
 * - run effect: run sd (0.05: the per-run sd of ln p95 at the moderate noise of statistics.md §6) times a
 *   Student t with 3 df scaled to unit variance, 0.7 of its variance common to the run's metrics;
 * - 5% of runs 1.3x slower on every metric of the run (a thermal dip, a neighbour).
 * `--noise normal`: drift and run noise normal, no slow runs (the model of the first figures).
 *
 * Prints, for +5% and +10% steps (--steps) with 1 and 3 runs per commit: detection within 10 commits (--within), median and
 * 90th percentile lateness (commits after the step until it is reported), the share located within 2
 * commits; and on clean series of 120 commits: the share of series with any false alarm, and false
 * alarms per 100 clean commits, for one metric and for a family of 3 metrics sharing the session.
 * Last, a step in all 3 metrics of a family: found on one metric alone and on the family's mean series.
 * Usage: npx tsx bench/history.ts [--reps 2000] [--window 60] [--seed 20] [--detector rank|t]
 *   [--noise extended|normal] [--run-sd 0.05] [--alpha A] [--min-magnitude M] [--min-segment K]
 *   [--no-combined] [--runs 1,3] (runs per commit; the action records repeats.baseline, 10 by default)
 *   [--drift-sd 0.02] (sd of a session's level) [--slow-rate 0.05] [--steps 0.05,0.1] [--within 10]
 *   (a step counts as detected when reported within this many sessions after it)
 */
import {
  type ChangePointOptions,
  defaultChangePointOptions,
  detectChangePoints,
  tChangePointOptions,
} from "../src/stats/change-point.js";
import { logRatioOf } from "../src/stats/margin.js";
import { boxMuller, mulberry32 } from "../src/util/random.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}
function choice<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = process.argv[index + 1] as T;
  if (!allowed.includes(value)) throw new Error(`--${name} expects ${allowed.join(" or ")}, got ${value}`);
  return value;
}

const reps = option("reps", 2000);
const window = option("window", 60);
const seed = option("seed", 20);
const method = choice("detector", ["rank", "t"] as const, "rank");
const noise = choice("noise", ["extended", "normal"] as const, "extended");
const base =
  method === "t" ? { ...defaultChangePointOptions, ...tChangePointOptions } : defaultChangePointOptions;
const detector: Partial<ChangePointOptions> = {
  method,
  alpha: option("alpha", base.alpha),
  minMagnitude: option("min-magnitude", base.minMagnitude),
  minSegment: option("min-segment", base.minSegment),
};
/** Runs per commit (per baseline session): `--runs 1,3,10`; the action records repeats.baseline (10) by default. */
const runCounts = process.argv.includes("--runs")
  ? process.argv[process.argv.indexOf("--runs") + 1]!.split(",").map(Number)
  : [1, 3];
const runSds = process.argv.includes("--run-sd") ? [option("run-sd", 0.05)] : [0.05, 0.03];
let runSd = runSds[0]!;
/** Sd of a session's level (drift between sessions; a nightly session on one server start: the start's sd). */
const driftSd = option("drift-sd", 0.02);
const commonShare = 0.7;
/** Share of runs 1.3x slower (extended noise). */
const slowRate = option("slow-rate", 0.05);
const slowFactor = Math.log(1.3);
const warmup = 40;
const cleanCommits = 120;
/** A step counts as detected when reported within this many sessions (commits) after it. */
const maxLate = option("within", 10);
/** The steps whose detection is measured: `--steps 0.03,0.05`. */
const steps = process.argv.includes("--steps")
  ? process.argv[process.argv.indexOf("--steps") + 1]!.split(",").map(Number)
  : [0.05, 0.1];

type Random = () => number;
const normal = (random: Random) => boxMuller(Math.max(random(), 1e-12), random());
/** Student t with 3 df, scaled to unit variance (var t₃ = 3). */
function t3(random: Random): number {
  const z = normal(random);
  let chi = 0;
  for (let k = 0; k < 3; k++) chi += normal(random) ** 2;
  return z / Math.sqrt(chi / 3) / Math.sqrt(3);
}
const runEffect = (random: Random) => (noise === "extended" ? t3(random) : normal(random));

/**
 * `commits` points of a family of `metrics` series sharing each session's drift, each run's common
 * effect and its slowness; `level(i)` is the ln level of commit i (metric 0 only, the one that steps).
 */
function family(
  random: Random,
  commits: number,
  metrics: number,
  runs: number,
  level: (i: number) => number,
) {
  const series = Array.from({ length: metrics }, () => new Array<number>(commits).fill(0));
  for (let i = 0; i < commits; i++) {
    const drift = driftSd * normal(random);
    const sums = new Array<number>(metrics).fill(0);
    for (let r = 0; r < runs; r++) {
      const common = runEffect(random);
      const slow = noise === "extended" && random() < slowRate ? slowFactor : 0;
      for (let m = 0; m < metrics; m++) {
        const own =
          noise === "extended"
            ? Math.sqrt(commonShare) * common + Math.sqrt(1 - commonShare) * runEffect(random)
            : runEffect(random);
        sums[m]! += runSd * own + slow;
      }
    }
    for (let m = 0; m < metrics; m++) series[m]![i] = (m === 0 ? level(i) : 0) + drift + sums[m]! / runs;
  }
  return series;
}

/**
 * Feeds a series commit by commit; returns the new alarms: the absolute index of each change point the
 * first time it is seen (one already reported within 2 commits is the same change point).
 */
function watch(series: readonly number[], from: number): { at: number; index: number; ratio: number }[] {
  const alarms: { at: number; index: number; ratio: number }[] = [];
  for (let end = from; end <= series.length; end++) {
    const start = Math.max(0, end - window);
    for (const cp of detectChangePoints(series.slice(start, end), detector)) {
      const index = start + cp.index;
      if (alarms.some((a) => Math.abs(a.index - index) <= 2)) continue;
      alarms.push({ at: end, index, ratio: cp.ratio });
    }
  }
  return alarms;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const pct = (count: number, total: number) => {
  const p = count / total;
  return `${(100 * p).toFixed(1)}% ±${(100 * Math.sqrt((p * (1 - p)) / total)).toFixed(1)}`;
};

/** Detection of a `step` with `runs` per commit: within `maxLate` commits, lateness, location, early alarms. */
function detection(step: number, runs: number) {
  const random = mulberry32(seed * 1000 + Math.round(step * 100) * 10 + runs);
  let detected = 0;
  let located = 0;
  let early = 0;
  const lateness: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const [series] = family(random, warmup + maxLate + 10, 1, runs, (i) =>
      i >= warmup ? logRatioOf(step) : 0,
    );
    const alarms = watch(series!, 2 * detector.minSegment!);
    if (alarms.some((a) => a.at <= warmup)) early++;
    const hit = alarms.find((a) => a.at > warmup && a.ratio > 1 && Math.abs(a.index - warmup) <= 5);
    if (hit && hit.at - warmup <= maxLate) {
      detected++;
      lateness.push(hit.at - warmup);
      if (Math.abs(hit.index - warmup) <= 2) located++;
    }
  }
  lateness.sort((a, b) => a - b);
  return { detected, located, early, lateness };
}

/** Clean series of `cleanCommits` commits: series with any false alarm, and alarms in all. */
function falseAlarms(runs: number, metrics: number) {
  const random = mulberry32(seed * 7919 + runs * 10 + metrics);
  let seriesWithAlarm = 0;
  let alarms = 0;
  for (let rep = 0; rep < reps; rep++) {
    let any = false;
    for (const series of family(random, cleanCommits, metrics, runs, () => 0)) {
      const found = watch(series, 2 * detector.minSegment!);
      alarms += found.length;
      if (found.length > 0) any = true;
    }
    if (any) seriesWithAlarm++;
  }
  return { seriesWithAlarm, perHundred: (100 * alarms) / (reps * cleanCommits) };
}

/**
 * A step that moves a family's 3 metrics together (one regression in the engine: every latency of the
 * cell slower), tested on the family's mean ln series (the evidence of the metrics combined) against each
 * metric alone; and the combined series' false alarms on clean families (one series per family).
 */
function combined(runs: number) {
  const random = mulberry32(seed * 31 + runs);
  let alone = 0;
  let together = 0;
  for (let rep = 0; rep < reps; rep++) {
    const family3 = family(random, warmup + maxLate + 10, 3, runs, () => 0).map((series) =>
      series.map((v, i) => (i >= warmup ? v + Math.log(1.1) : v)),
    );
    const mean = family3[0]!.map((_, i) => (family3[0]![i]! + family3[1]![i]! + family3[2]![i]!) / 3);
    const hit = (series: readonly number[]) =>
      watch(series, 2 * detector.minSegment!).some(
        (a) => a.at > warmup && a.at - warmup <= maxLate && a.ratio > 1 && Math.abs(a.index - warmup) <= 5,
      );
    if (hit(family3[0]!)) alone++;
    if (hit(mean)) together++;
  }
  let alarms = 0;
  for (let rep = 0; rep < reps; rep++) {
    const clean = family(random, cleanCommits, 3, runs, () => 0);
    const mean = clean[0]!.map((_, i) => (clean[0]![i]! + clean[1]![i]! + clean[2]![i]!) / 3);
    alarms += watch(mean, 2 * detector.minSegment!).length;
  }
  return { alone, together, perHundred: (100 * alarms) / (reps * cleanCommits) };
}

const describeDetector =
  method === "rank"
    ? `best-split Mann-Whitney, permutation alpha ${detector.alpha} per window`
    : `best-split pooled t, alpha ${detector.alpha} per window (Bonferroni over splits)`;
const describeNoise =
  noise === "extended"
    ? `run effect t(3), 0.7 common to a run's metrics, ${slowRate * 100}% of runs 1.3x slower`
    : "run noise normal";
const started = Date.now();
for (const sd of runSds) {
  runSd = sd;
  console.log(
    `Change points after merge: ${describeDetector}, min magnitude ${detector.minMagnitude! * 100}%, min segment ${detector.minSegment}, window ${window}; session drift sd ${driftSd}, run sd ${runSd}, ${describeNoise}; ${reps} series per row, seed ${seed}.`,
  );
  console.log("");
  console.log(
    `| step | runs/commit | detected within ${maxLate} | median late | p90 late | located within 2 | false alarm before the step |`,
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const step of steps) {
    for (const runs of runCounts) {
      const { detected, located, early, lateness } = detection(step, runs);
      console.log(
        `| +${step * 100}% | ${runs} | ${pct(detected, reps)} | ${quantile(lateness, 0.5)} | ${quantile(lateness, 0.9)} | ${pct(located, detected || 1)} | ${pct(early, reps)} |`,
      );
    }
  }

  console.log("");
  console.log(`Clean series of ${cleanCommits} commits (no step):`);
  console.log("");
  console.log("| runs/commit | metrics | series with a false alarm | false alarms per 100 commits |");
  console.log("| --- | --- | --- | --- |");
  for (const runs of runCounts) {
    for (const metrics of [1, 3]) {
      const { seriesWithAlarm, perHundred } = falseAlarms(runs, metrics);
      console.log(`| ${runs} | ${metrics} | ${pct(seriesWithAlarm, reps)} | ${perHundred.toFixed(3)} |`);
    }
  }
  console.log("");
}
if (!process.argv.includes("--no-combined")) {
  runSd = runSds[0]!;
  console.log(
    `A +10% step in all 3 metrics of a family (run sd ${runSd}): detected within ${maxLate} commits on one metric alone, and on the family's mean series; false alarms of the mean series per 100 clean commits.`,
  );
  console.log("");
  console.log("| runs/commit | one metric | family mean | family mean: false alarms per 100 commits |");
  console.log("| --- | --- | --- | --- |");
  for (const runs of runCounts) {
    const { alone, together, perHundred } = combined(runs);
    console.log(`| ${runs} | ${pct(alone, reps)} | ${pct(together, reps)} | ${perHundred.toFixed(3)} |`);
  }
  console.log("");
}
console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s)`);
