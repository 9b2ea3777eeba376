/**
 * The capacity search and interval (src/stats/capacity.ts, capacity-plan.ts) against a known truth.
 * Usage: npx tsx bench/capacity.ts [--reps 100] [--sd 0.05] [--precision 0.05] [--max-runs 25] [--sim-reps 20] [--requests 300]
 *
 * 1. Synthetic noisy curves with a known knee: p95 TTFT(λ) = 100 ms / (1 − λ/K), SLO 200 ms, so the true
 *    capacity is K/2; each run's value is that times exp(sd·N(0,1)). Baseline K = 20 (capacity 10),
 *    candidate K = 18 (capacity 9, a 10% drop). Range 1..40.
 * 2. The simulator's engine on virtual time (src/stats/sim-capacity.ts): two profiles, the candidate's
 *    steps slower so that its true capacity at p95 TTFT <= 100 ms is about 10% lower; the truth computed
 *    on virtual time over 41 seeds; every run of a search is a virtual run with its own seed (its own
 *    Poisson arrivals and server speed). Range 4..100. Simulated GPU-minutes are the virtual runs' lengths.
 * Printed per design (the adaptive search at precision / repeats.max, and a plain geometric sweep of 8
 * loads x 3 runs): median relative error against the truth, the 90% interval's coverage and median
 * relative width, runs (and simulated GPU-minutes) per search, and the share of A/B pairs called a
 * regression at tolerance 5% (the capacity verdict's test at confidence 0.95 without other checks).
 */
import { applyOverrides, builtInProfile } from "../src/sim/profile.js";
import {
  type CapacityRun,
  capacityInterval,
  capacityRatio,
  estimateCapacity,
} from "../src/stats/capacity.js";
import { geometricLoads, nextSearchStep } from "../src/stats/capacity-plan.js";
import { virtualCapacity, virtualRun } from "../src/stats/sim-capacity.js";
import { boxMuller, mulberry32 } from "../src/util/random.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const reps = option("reps", 100);
// Requests per simulated run (--requests).

const simReps = option("sim-reps", 20);
const sd = option("sd", 0.05);
const precision = option("precision", 0.05);
const maxRuns = option("max-runs", 25);
const level = 0.9;
const tolerance = 0.05;
const objectives = [{ name: "ttft_p95", threshold: 200, scale: "log" as const }];

/** One run at a load: its value and the GPU-minutes it took. */
type Measure = (load: number) => { run: CapacityRun; minutes: number };

interface Found {
  capacity: number;
  low: number;
  high: number;
  draws: number[];
  runs: number;
  minutes: number;
}

function search(
  measure: Measure,
  range: { min: number; max: number },
  seed: number,
  objective = objectives,
): Found | null {
  const settings = { range, initialLoads: 4, precision, maxRuns, level, seed };
  const runs: CapacityRun[] = [];
  let minutes = 0;
  let step = nextSearchStep(runs, objective, settings);
  while (step.kind === "measure") {
    for (const load of step.loads) {
      const m = measure(load);
      runs.push(m.run);
      minutes += m.minutes;
    }
    step = nextSearchStep(runs, objective, settings);
  }
  if (!step.estimate || !step.interval || step.estimate.bound !== "inside") return null;
  return {
    capacity: step.estimate.capacity,
    low: step.interval.low,
    high: step.interval.high,
    draws: step.interval.draws,
    runs: runs.length,
    minutes,
  };
}

function sweep(
  measure: Measure,
  range: { min: number; max: number },
  seed: number,
  objective = objectives,
): Found | null {
  let minutes = 0;
  const runs = geometricLoads(range.min, range.max, 8).flatMap((load) =>
    [0, 1, 2].map(() => {
      const m = measure(load);
      minutes += m.minutes;
      return m.run;
    }),
  );
  const estimate = estimateCapacity(runs, objective);
  const interval = capacityInterval(runs, objective, { level, seed });
  if (!interval || estimate.bound !== "inside") return null;
  return {
    capacity: estimate.capacity,
    low: interval.low,
    high: interval.high,
    draws: interval.draws,
    runs: runs.length,
    minutes,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function report(
  name: string,
  pairs: readonly [Found | null, Found | null][],
  truth: { base: number; candidate: number },
): void {
  const errors: number[] = [];
  const widths: number[] = [];
  let covered = 0;
  let found = 0;
  let runs = 0;
  let minutes = 0;
  let regressions = 0;
  let compared = 0;
  for (const [base, candidate] of pairs) {
    for (const [result, value] of [
      [base, truth.base],
      [candidate, truth.candidate],
    ] as const) {
      if (!result) continue;
      found++;
      runs += result.runs;
      minutes += result.minutes;
      errors.push(Math.abs(result.capacity / value - 1));
      widths.push((result.high - result.low) / result.capacity);
      if (result.low <= value && value <= result.high) covered++;
    }
    if (base && candidate) {
      compared++;
      if (capacityRatio(base, candidate, tolerance, level).pBeyond <= (1 - level) / 2) regressions++;
    }
  }
  const n = Math.max(1, found);
  console.log(
    `  ${name.padEnd(24)} found ${found}/${2 * pairs.length}  median |error| ${pct(median(errors))}  covered ${pct(covered / n)}  median width ${pct(median(widths))}  runs ${(runs / n).toFixed(1)}${minutes > 0 ? `  GPU-min ${(minutes / n).toFixed(2)}` : ""}  drop called regression ${pct(regressions / Math.max(1, compared))} of ${compared}`,
  );
}

// 1. Synthetic curves.
const curve = (saturation: number) => (load: number) => 100 / Math.max(0.02, 1 - load / saturation);
const synthetic = (saturation: number, seed: number): Measure => {
  const random = mulberry32(seed);
  return (load) => ({
    run: { load, values: [curve(saturation)(load) * Math.exp(sd * boxMuller(random(), random()))] },
    minutes: 0,
  });
};
console.log(
  `synthetic curves: ${reps} A/B pairs, run-to-run sd ${sd} on ln p95, true capacities 10 and 9 (-10%), precision ${precision}, repeats.max ${maxRuns}`,
);
const range = { min: 1, max: 40 };
for (const [name, design] of [
  ["adaptive search", search],
  ["sweep 8 loads x 3 runs", sweep],
] as const) {
  const pairs = Array.from(
    { length: reps },
    (_, rep) =>
      [
        design(synthetic(20, 1 + rep * 2), range, rep),
        design(synthetic(18, 2 + rep * 2), range, rep + 7919),
      ] as [Found | null, Found | null],
  );
  report(name, pairs, { base: 10, candidate: 9 });
}

// 2. The simulator on virtual time.
const base = applyOverrides(builtInProfile("small-gpu"), { max_num_seqs: 8, step_overhead_ms: 10 });
const slower = applyOverrides(base, { speed_factor: 1.08 });
const workload = { requests: option("requests", 300), inputTokens: 64, outputTokens: 16 };
const slo = { ttft_ms: 100, quantile: 0.95 };
const seeds = Array.from({ length: 41 }, (_, i) => i + 1);
const simRange = { min: 4, max: 100 };
const truth = {
  base: virtualCapacity(base, slo, workload, simRange, seeds)!,
  candidate: virtualCapacity(slower, slo, workload, simRange, seeds)!,
};
const simObjectives = [{ name: "ttft_p95", threshold: slo.ttft_ms, scale: "log" as const }];
const virtual = (profile: typeof base, seed: number): Measure => {
  let k = 0;
  return (load) => {
    const values = virtualRun(profile, load, workload, seed * 1000 + k++, slo.quantile);
    return { run: { load, values: [values.ttft] }, minutes: (values.durationMs ?? 0) / 60_000 };
  };
};
console.log(
  `simulator on virtual time: ${simReps} A/B pairs, small-gpu (8 seqs, 10 ms steps) against speed_factor 1.08; true capacities at p95 TTFT <= 100 ms ${truth.base.toFixed(2)} and ${truth.candidate.toFixed(2)} req/s (${pct(truth.candidate / truth.base - 1)})`,
);
for (const [name, design] of [
  ["adaptive search", search],
  ["sweep 8 loads x 3 runs", sweep],
] as const) {
  const pairs = Array.from(
    { length: simReps },
    (_, rep) =>
      [
        design(virtual(base, 1 + rep * 2), simRange, rep, simObjectives),
        design(virtual(slower, 2 + rep * 2), simRange, rep + 7919, simObjectives),
      ] as [Found | null, Found | null],
  );
  report(name, pairs, truth);
}
