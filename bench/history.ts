/**
 * Change points after merge (src/stats/change-point.ts) on simulated base-branch series: one point per
 * merged commit, each a baseline session whose level moves with a session drift (ln sd 0.02 per session,
 * gate.session_drift_sd's default) and whose runs vary around it with a run noise (ln sd 0.05 per run:
 * the per-run sd of ln p95 at the moderate noise of statistics.md §6), the point being the mean of the
 * session's runs. After every commit the detector looks at the last `window` points, as the action does
 * on every base-branch session; a change point counts once, when first seen (the rule the action uses
 * to report it once).
 *
 * Prints, for +5% and +10% steps with 1 and 3 runs per commit: detection within 10 commits, median and
 * 90th percentile lateness (commits after the step until it is reported), the share located within 2
 * commits; and on clean series of 120 commits: the share of series with any false alarm, and false
 * alarms per 100 clean commits, for one metric and for a family of 3 metrics sharing the session drift.
 * Usage: npx tsx bench/history.ts [--reps 2000] [--window 40] [--seed 20]
 */
import { defaultChangePointOptions, detectChangePoints } from "../src/stats/change-point.js";
import { boxMuller, mulberry32 } from "../src/util/random.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const reps = option("reps", 2000);
const window = option("window", 40);
const seed = option("seed", 20);
const alpha = option("alpha", defaultChangePointOptions.alpha);
const minMagnitude = option("min-magnitude", defaultChangePointOptions.minMagnitude);
const runSds = process.argv.includes("--run-sd") ? [option("run-sd", 0.05)] : [0.03, 0.05];
let runSd = runSds[0]!;
const driftSd = 0.02;
const warmup = 40;
const cleanCommits = 120;
const maxLate = 10;

type Random = () => number;
const normal = (random: Random) => boxMuller(Math.max(random(), 1e-12), random());

/** One commit's point: the session drift plus the mean of its runs' noise, around `level`. */
function point(random: Random, level: number, runs: number): number {
  let sum = 0;
  for (let r = 0; r < runs; r++) sum += runSd * normal(random);
  return level + driftSd * normal(random) + sum / runs;
}

/**
 * Feeds a series commit by commit; returns the new alarms: the absolute index of each change point the
 * first time it is seen (one already reported within 2 commits is the same change point).
 */
function watch(series: readonly number[], from: number): { at: number; index: number; ratio: number }[] {
  const alarms: { at: number; index: number; ratio: number }[] = [];
  for (let end = from; end <= series.length; end++) {
    const start = Math.max(0, end - window);
    for (const cp of detectChangePoints(series.slice(start, end), { alpha, minMagnitude })) {
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

/** Detection of a `step` with `runs` per commit: within 10 commits, lateness, location, early alarms. */
function detection(step: number, runs: number) {
  const random = mulberry32(seed * 1000 + Math.round(step * 100) * 10 + runs);
  let detected = 0;
  let located = 0;
  let early = 0;
  const lateness: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const series: number[] = [];
    for (let i = 0; i < warmup; i++) series.push(point(random, 0, runs));
    for (let i = 0; i < maxLate + 10; i++) series.push(point(random, Math.log1p(step), runs));
    const alarms = watch(series, 2 * 4);
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
    // The session drift is shared by the family's metrics; the run noise is each metric's own.
    const drift = Array.from({ length: cleanCommits }, () => driftSd * normal(random));
    let any = false;
    for (let m = 0; m < metrics; m++) {
      const series = drift.map((d) => {
        let sum = 0;
        for (let r = 0; r < runs; r++) sum += runSd * normal(random);
        return d + sum / runs;
      });
      const found = watch(series, 8);
      alarms += found.length;
      if (found.length > 0) any = true;
    }
    if (any) seriesWithAlarm++;
  }
  return { seriesWithAlarm, perHundred: (100 * alarms) / (reps * cleanCommits) };
}

for (const sd of runSds) {
  runSd = sd;
  console.log(
    `Change points after merge: best-split pooled t, alpha ${alpha} per window (Bonferroni over splits), min magnitude ${minMagnitude * 100}%, min segment 4, window ${window}; session drift sd ${driftSd}, run sd ${runSd}; ${reps} series per row, seed ${seed}.`,
  );
  console.log("");
  console.log(
    "| step | runs/commit | detected within 10 | median late | p90 late | located within 2 | false alarm before the step |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const step of [0.05, 0.1]) {
    for (const runs of [1, 3]) {
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
  for (const runs of [1, 3]) {
    for (const metrics of [1, 3]) {
      const { seriesWithAlarm, perHundred } = falseAlarms(runs, metrics);
      console.log(`| ${runs} | ${metrics} | ${pct(seriesWithAlarm, reps)} | ${perHundred.toFixed(3)} |`);
    }
  }
  console.log("");
}

/*
 * The issue's goal (issue 20 "Measured"): at least 95% detection of +10% steps within 10 commits and at
 * most 1 false alarm per 100 clean commits per metric family (3 metrics sharing the drift). The issue's
 * own simulation assumed session drift 0.02, one run per commit and "realistic run noise": for p95 that
 * is the moderate noise of statistics.md §6 (per-run sd of ln p95 ≈ 0.05; 0.03 is p50's, about 0.02
 * throughput's). First row: that model; the others: what it takes to meet the goal.
 */
if (!process.argv.includes("--run-sd")) {
  console.log(
    "Goal (issue 20): >= 95% detection of +10% within 10 commits, <= 1 false alarm per 100 clean commits per family of 3 metrics.",
  );
  console.log("");
  console.log(
    "| model | run sd | runs/commit | detected within 10 | false alarms per 100 commits (family of 3) | goal |",
  );
  console.log("| --- | --- | --- | --- | --- | --- |");
  const rows = [
    { model: "the issue's (drift 0.02, realistic p95 noise, 1 run)", sd: 0.05, runs: 1 },
    { model: "p95 noise, 3 runs per commit", sd: 0.05, runs: 3 },
    { model: "p50-like noise, 1 run per commit", sd: 0.03, runs: 1 },
    { model: "p50-like noise, 3 runs per commit", sd: 0.03, runs: 3 },
  ];
  for (const row of rows) {
    runSd = row.sd;
    const { detected } = detection(0.1, row.runs);
    const { perHundred } = falseAlarms(row.runs, 3);
    const met = detected / reps >= 0.95 && perHundred <= 1;
    console.log(
      `| ${row.model} | ${row.sd} | ${row.runs} | ${pct(detected, reps)} | ${perHundred.toFixed(3)} | ${met ? "met" : "NOT met"} |`,
    );
  }
}
