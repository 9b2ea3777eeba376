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
      const perHundred = (100 * alarms) / (reps * cleanCommits);
      console.log(`| ${runs} | ${metrics} | ${pct(seriesWithAlarm, reps)} | ${perHundred.toFixed(3)} |`);
    }
  }
  console.log("");
}
