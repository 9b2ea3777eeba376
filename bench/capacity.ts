/**
 * The capacity search and interval (src/stats/capacity.ts, capacity-plan.ts) on synthetic noisy latency
 * curves with a known knee. Usage: npx tsx bench/capacity.ts [--reps 200] [--sd 0.05] [--precision 0.05] [--max-runs 25]
 *
 * Model: p95 TTFT(λ) = 100 ms / (1 − λ/K) (a queue saturating at K requests/s), SLO 200 ms, so the true
 * capacity is K/2; each run's value is that times exp(sd·N(0,1)). The baseline has K = 20 (capacity 10),
 * the candidate K = 18 (capacity 9, a 10% drop). Range 1..40, precision 5% (--precision, the config default), repeats.max 25 (--max-runs).
 * Printed per design (the adaptive search, and a plain geometric sweep of 8 loads x 3 runs): the median
 * relative error of the capacity against the truth, the 90% interval's coverage and median relative width,
 * runs spent (mean), and the share of A/B pairs called a regression at tolerance 5% (90% interval).
 */
import {
  type CapacityRun,
  capacityInterval,
  capacityRatio,
  estimateCapacity,
} from "../src/stats/capacity.js";
import { geometricLoads, nextSearchStep } from "../src/stats/capacity-plan.js";
import { boxMuller, mulberry32 } from "../src/util/random.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const reps = option("reps", 200);
const sd = option("sd", 0.05);
const objectives = [{ name: "ttft_p95", threshold: 200, scale: "log" as const }];
const level = 0.9;
const tolerance = 0.05;
const precision = option("precision", 0.05);
const maxRuns = option("max-runs", 25);

const curve = (saturation: number) => (load: number) => 100 / Math.max(0.02, 1 - load / saturation);

function measure(saturation: number, random: () => number) {
  return (load: number): CapacityRun => ({
    load,
    values: [curve(saturation)(load) * Math.exp(sd * boxMuller(random(), random()))],
  });
}

interface Found {
  capacity: number;
  low: number;
  high: number;
  draws: number[];
  runs: number;
}

function search(saturation: number, seed: number): Found | null {
  const random = mulberry32(seed);
  const at = measure(saturation, random);
  const settings = { range: { min: 1, max: 40 }, initialLoads: 4, precision, maxRuns, level, seed };
  const runs: CapacityRun[] = [];
  let step = nextSearchStep(runs, objectives, settings);
  while (step.kind === "measure") {
    for (const load of step.loads) runs.push(at(load));
    step = nextSearchStep(runs, objectives, settings);
  }
  if (!step.estimate || !step.interval || step.estimate.bound !== "inside") return null;
  return {
    capacity: step.estimate.capacity,
    low: step.interval.low,
    high: step.interval.high,
    draws: step.interval.draws,
    runs: runs.length,
  };
}

function sweep(saturation: number, seed: number): Found | null {
  const random = mulberry32(seed);
  const at = measure(saturation, random);
  const runs = geometricLoads(1, 40, 8).flatMap((load) => [at(load), at(load), at(load)]);
  const estimate = estimateCapacity(runs, objectives);
  const interval = capacityInterval(runs, objectives, { level, seed });
  if (!interval || estimate.bound !== "inside") return null;
  return {
    capacity: estimate.capacity,
    low: interval.low,
    high: interval.high,
    draws: interval.draws,
    runs: runs.length,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};

function report(name: string, design: (saturation: number, seed: number) => Found | null): void {
  const truth = { base: 10, candidate: 9 };
  const errors: number[] = [];
  const widths: number[] = [];
  let covered = 0;
  let found = 0;
  let runs = 0;
  let regressions = 0;
  let pairs = 0;
  for (let rep = 0; rep < reps; rep++) {
    const base = design(20, 1 + rep * 2);
    const candidate = design(18, 2 + rep * 2);
    for (const [result, true_] of [
      [base, truth.base],
      [candidate, truth.candidate],
    ] as const) {
      if (!result) continue;
      found++;
      runs += result.runs;
      errors.push(Math.abs(result.capacity / true_ - 1));
      widths.push((result.high - result.low) / result.capacity);
      if (result.low <= true_ && true_ <= result.high) covered++;
    }
    if (base && candidate) {
      pairs++;
      const ratio = capacityRatio(base, candidate, tolerance, level);
      if (ratio.pBeyond <= (1 - level) / 2) regressions++;
    }
  }
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  console.log(
    `${name.padEnd(22)} searches ${found}/${2 * reps}  median |error| ${pct(median(errors))}  90% coverage ${pct(covered / Math.max(1, found))}  median width ${pct(median(widths))}  runs/search ${(runs / Math.max(1, found)).toFixed(1)}  10% drop called regression ${pct(regressions / Math.max(1, pairs))} (${pairs} pairs)`,
  );
}

console.log(
  `capacity at the SLO: ${reps} A/B pairs, run-to-run sd ${sd} on ln p95, true capacities 10 and 9 (-10%)`,
);
report("adaptive search", search);
report("sweep 8 loads x 3 runs", sweep);
