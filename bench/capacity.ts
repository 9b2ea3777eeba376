/**
 * The capacity search, interval and verdict against a known truth, in the flow a gate runs.
 * Usage: npx tsx bench/capacity.ts [--reps 100] [--sim-reps 20] [--sd 0.05] [--precision 0.05]
 *          [--max-runs 25] [--capacity-max-runs 50] [--requests 300] [--no-false-blocks] [--stored]
 *          [--truth-seeds 600] [--fresh-arrivals] [--workload-seed 0]
 *
 * Each A/B pair goes through the same functions as the action (interleaved mode; --stored: the baseline
 * searched once, as a stored baseline is recorded, on to capacity.max_runs, and only the candidate's
 * search resumed): each side's capacity
 * search (app/run-sweep.ts capacitySearchStep with compare/capacity/capacity.ts searchSettingsOf), then the
 * comparison (compare/index.ts compareRecords, with its capacity looks, compare/capacity/capacity-looks.ts)
 * inside the gate's adaptive loop (app/adaptive.ts addRunsUntilDecided, the runs added in alternating blocks
 * by measureAlternately): while the capacity verdict is inconclusive the searches refine on to
 * capacity.max_runs runs per side. Only the measuring is simulated: a run is a record with its load and
 * its SLO values.
 *
 * 1. Synthetic noisy curves with a known knee: p95 TTFT(λ) = 100 ms / (1 − λ/K), SLO 200 ms, so the true
 *    capacity is K/2; each run's value is that times exp(sd·N(0,1)). Baseline K = 20 (capacity 10),
 *    candidate K = 18 (capacity 9, a 10% drop). Range 1..40.
 * 2. The simulator's engine on virtual time (bench/sim-capacity.ts): a profile whose decode step is
 *    compute-bound past about 18 sequences (decode_compute_per_token_ms 0.6, 10 ms step overhead; its
 *    max_num_seqs of 256 is never reached), SLOs p95 TTFT <= 100 ms and p95 TPOT <= 14 ms, against the same
 *    with a 10% slower decode step (0.66). Every run sends the cell's one seeded Poisson schedule, as the
 *    client does (--fresh-arrivals: a new schedule per run), the engine seeded per run (its server speed
 *    and step jitter); the truth is computed on virtual time for that schedule over --truth-seeds engine
 *    seeds. Range 10..300. Simulated GPU-minutes are the virtual runs' lengths.
 * Printed per design (the search's first look, the search with the gate's next look, a plain geometric
 * sweep of 8 loads x 3 runs): median relative error against the truth (absolute, and signed: the bias), the 90% interval's coverage and
 * median relative width, runs and simulated GPU-minutes per search, and the share of pairs called a
 * regression by the capacity verdict (tolerance 5%, confidence 0.95). With equal capacities and with the
 * candidate exactly at the tolerance (capacity / 1.05) that share is the false-block rate, which the
 * sequential looks keep at or below alpha = 0.05 at the tolerance.
 */

import { addRunsUntilDecided, measureAlternately } from "../src/app/adaptive.js";
import { capacitySearchStep } from "../src/app/run-sweep.js";
import { type CapacityCell, capacityCells, searchSettingsOf } from "../src/compare/capacity/capacity.js";
import { compareRecords, settingsFromConfig } from "../src/compare/index.js";
import type { CapacityComparison } from "../src/compare/verdict/capacity-schema.js";
import { capacityMaxRuns } from "../src/config/capacity-summary.js";
import { type Config, configSchema } from "../src/config/schema.js";
import { runsPerBlock } from "../src/config/summary.js";
import type { RunRecord } from "../src/metrics/run-record.js";
import { applyOverrides, builtInProfile, type SimProfile } from "../src/sim/profile.js";
import { geometricLoads } from "../src/stats/capacity-plan.js";
import { boxMuller, createRng, mulberry32 } from "../src/util/random.js";
import { countedArrivals } from "../src/workload/arrivals.js";
import { virtualCapacity, virtualRun } from "./sim-capacity.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

/** count seeds from `from` on (distinct from the searches' seeds, 1000 * pair + run). */
const seedsFrom = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

const reps = option("reps", 100);
const simReps = option("sim-reps", 20);
const sd = option("sd", 0.05);
const precision = option("precision", 0.05);
const maxRuns = option("max-runs", 25);
const maxRunsOption = option("capacity-max-runs", Number.NaN);
const falseBlocks = !process.argv.includes("--no-false-blocks");
// --stored: the baseline searched once, on to capacity.max_runs, as the action records a stored baseline
// (app/gate/measure-candidate.ts); a later look resumes only the candidate's search.
const mode = process.argv.includes("--stored") ? ("stored" as const) : ("interleaved" as const);

/** The config of one capacity cell, as a user writes it. */
function configOf(slo: Record<string, number>, range: { min: number; max: number }): Config {
  return configSchema.parse({
    version: 1,
    server: { kind: "sim" },
    model: { name: "m" },
    cells: [
      {
        name: "cap",
        dataset: { type: "synthetic", input_tokens: 64, output_tokens: 16 },
        load: { type: "rate", rate: range.min },
        size: { requests: 300 },
        slo,
        capacity: {
          range,
          precision,
          ...(Number.isNaN(maxRunsOption) ? {} : { max_runs: maxRunsOption }),
        },
      },
    ],
    repeats: { min: 5, max: maxRuns },
  });
}

/** One side: its runs so far and how a run at a load is measured. */
interface Side {
  records: RunRecord[];
  measure: (load: number) => RunRecord;
}

function record(load: number, index: number, metrics: RunRecord["metrics"], durationS: number): RunRecord {
  return {
    source: `run-${index}`,
    cell: "cap",
    run: index,
    startedAt: null,
    durationS,
    metrics: { ...metrics, error_rate: 0, request_throughput: load },
    requests: { total: 300, completed: 300, failed: 0 },
    fingerprint: {},
    exclusionReasons: [],
    load: { targetRate: load, targetConcurrency: null },
  };
}

/** The side's search, as run --sweep and the action's measure step run it (to `target` runs on a later look). */
function search(config: Config, cell: CapacityCell, side: Side, target?: number): void {
  const settings = searchSettingsOf(config, cell, target);
  while (side.records.length < settings.maxRuns) {
    const step = capacitySearchStep(cell, side.records, settings);
    if (step.kind !== "measure") return;
    for (const load of step.loads) side.records.push(side.measure(load));
  }
}

/** What one search (one side) ended with. */
interface Found {
  capacity: number | null;
  interval: [number, number] | null;
  runs: number;
  minutes: number;
}

interface PairOutcome {
  base: Found;
  candidate: Found;
  called: boolean;
}

function outcomeOf(check: CapacityComparison, base: Side, candidate: Side): PairOutcome {
  const found = (side: CapacityComparison["baseline"], records: RunRecord[]): Found => ({
    capacity: side.bound === "inside" ? side.capacity : null,
    interval: side.interval as [number, number] | null,
    runs: records.length,
    minutes: records.reduce((sum, r) => sum + (r.durationS ?? 0), 0) / 60,
  });
  return {
    base: found(check.baseline, base.records),
    candidate: found(check.candidate, candidate.records),
    called: check.verdict === "regression",
  };
}

/** One A/B pair through the gate's flow: the first look (the searches alone) and the last. */
async function gatePair(
  config: Config,
  base: Side,
  candidate: Side,
): Promise<{ first: PairOutcome; last: PairOutcome }> {
  const cell = capacityCells(config)[0]!;
  const settings = settingsFromConfig(config);
  search(config, cell, base, mode === "stored" ? capacityMaxRuns(config.repeats.max, cell) : undefined);
  search(config, cell, candidate);
  let first: PairOutcome | null = null;
  let last: PairOutcome | null = null;
  await addRunsUntilDecided({
    look: async () => {
      const { verdict } = compareRecords({
        baseline: base.records,
        candidate: candidate.records,
        settings,
        mode,
        now: new Date(0),
      });
      last = outcomeOf(verdict.capacity![0]!, base, candidate);
      first ??= last;
      return { verdict: verdict.verdict, nextLook: verdict.nextLook };
    },
    measure: (step) =>
      measureAlternately(
        mode === "stored" ? [candidate] : [base, candidate],
        step,
        runsPerBlock(config),
        async (side, block) => search(config, cell, side, block.firstRun + block.runs),
      ),
    runsMeasured: async () => candidate.records.length,
    cells: null,
    maxRuns: Number.POSITIVE_INFINITY,
  });
  return { first: first!, last: last! };
}

/** The plain sweep of 8 loads x 3 runs per side, compared once (as compare reads a swept capacity cell). */
function sweepPair(config: Config, base: Side, candidate: Side): PairOutcome {
  const cell = capacityCells(config)[0]!;
  const loads = geometricLoads(cell.capacity.range.min, cell.capacity.range.max, 8);
  for (const side of [base, candidate])
    for (const load of loads) for (let k = 0; k < 3; k++) side.records.push(side.measure(load));
  const { verdict } = compareRecords({
    baseline: base.records,
    candidate: candidate.records,
    settings: settingsFromConfig(config),
    mode: "interleaved",
    now: new Date(0),
  });
  return outcomeOf(verdict.capacity![0]!, base, candidate);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function report(name: string, pairs: readonly PairOutcome[], truth: { base: number; candidate: number }) {
  const errors: number[] = [];
  const signed: number[] = [];
  const widths: number[] = [];
  let covered = 0;
  let sides = 0;
  let runs = 0;
  let minutes = 0;
  for (const pair of pairs) {
    for (const [found, value] of [
      [pair.base, truth.base],
      [pair.candidate, truth.candidate],
    ] as const) {
      sides++;
      runs += found.runs;
      minutes += found.minutes;
      if (found.capacity === null) continue;
      errors.push(Math.abs(found.capacity / value - 1));
      signed.push(found.capacity / value - 1);
      if (found.interval) {
        widths.push((found.interval[1] - found.interval[0]) / found.capacity);
        if (found.interval[0] <= value && value <= found.interval[1]) covered++;
      }
    }
  }
  const called = pairs.filter((pair) => pair.called).length;
  console.log(
    `  ${name.padEnd(34)} median |error| ${pct(median(errors))} (signed ${pct(median(signed))})  covered ${pct(covered / sides)}  median width ${pct(median(widths))}  runs ${(runs / sides).toFixed(1)}${minutes > 0 ? `  GPU-min ${(minutes / sides).toFixed(2)}` : ""}  called regression ${pct(called / pairs.length)} of ${pairs.length}`,
  );
}

/** Every design on `count` pairs of (baseline, candidate) sides. */
async function designs(
  label: string,
  config: Config,
  count: number,
  sidesOf: (rep: number) => [Side, Side],
  truth: { base: number; candidate: number },
  sweep = true,
): Promise<void> {
  const first: PairOutcome[] = [];
  const last: PairOutcome[] = [];
  for (let rep = 0; rep < count; rep++) {
    const [base, candidate] = sidesOf(rep);
    const outcome = await gatePair(config, base, candidate);
    first.push(outcome.first);
    last.push(outcome.last);
  }
  console.log(label);
  report("search, first look", first, truth);
  report("search + the gate's next look", last, truth);
  if (sweep)
    report(
      "sweep 8 loads x 3 runs",
      Array.from({ length: count }, (_, rep) => sweepPair(config, ...sidesOf(rep))),
      truth,
    );
}

// 1. Synthetic curves.
const synthetic = (saturation: number, seed: number): Side => {
  const random = mulberry32(seed);
  return {
    records: [],
    measure(load) {
      const value =
        (100 / Math.max(0.02, 1 - load / saturation)) * Math.exp(sd * boxMuller(random(), random()));
      return record(load, this.records.length, { ttft_p95: value }, 0);
    },
  };
};
const syntheticConfig = configOf({ ttft_ms: 200 }, { min: 1, max: 40 });
console.log(
  `synthetic curves: ${reps} A/B pairs, run-to-run sd ${sd} on ln p95, precision ${precision}, repeats.max ${maxRuns}, capacity.max_runs ${capacityCells(syntheticConfig)[0]!.capacity.max_runs ?? "default"}`,
);
await designs(
  "  true capacities 10 and 9 (-10%)",
  syntheticConfig,
  reps,
  (rep) => [synthetic(20, 1 + rep * 2), synthetic(18, 2 + rep * 2)],
  { base: 10, candidate: 9 },
);
if (falseBlocks) {
  await designs(
    "  equal capacities, 10 and 10 (false blocks)",
    syntheticConfig,
    reps,
    (rep) => [synthetic(20, 1 + rep * 2), synthetic(20, 2 + rep * 2)],
    { base: 10, candidate: 10 },
    false,
  );
  await designs(
    "  candidate at the tolerance, 10 and 10/1.05 (-4.8%; false blocks at the margin)",
    syntheticConfig,
    reps,
    (rep) => [synthetic(20, 1 + rep * 2), synthetic(20 / 1.05, 2 + rep * 2)],
    { base: 10, candidate: 10 / 1.05 },
    false,
  );
}

// 2. The simulator on virtual time (skipped with --sim-reps 0: its truth alone takes a minute).
if (simReps > 0) {
  const base = applyOverrides(builtInProfile("small-gpu"), {
    step_overhead_ms: 10,
    decode_compute_per_token_ms: 0.6,
    // The per-start noise the figures of docs/capacity.md were measured with (small-gpu's defaults then).
    speed_sigma: 0.02,
    prefill_speed_sigma: 0,
  });
  const slower = applyOverrides(base, { decode_compute_per_token_ms: 0.66 });
  const requests = option("requests", 300);
  // As the tool runs a cell: every run sends the cell's one seeded arrival schedule (workload seed 0, the
  // default; src/runner/dispatch.ts), so the run-to-run noise is the server's (speed_sigma per run,
  // jitter_sigma per step), the engine seeded per run. --fresh-arrivals: every run its own Poisson
  // arrivals too, as if the workload seed changed from run to run (the tool never does that; near the knee
  // the schedule alone moves a run's p95 TPOT by about 16%, which no run length averages out).
  const freshArrivals = process.argv.includes("--fresh-arrivals");
  // --workload-seed: the cell's seed, whose one schedule every run sends (the config's default is 0).
  const workloadSeed = option("workload-seed", 0);
  const workload = {
    requests,
    inputTokens: 64,
    outputTokens: 16,
    ...(freshArrivals
      ? {}
      : {
          arrivals: (rate: number) =>
            countedArrivals(createRng(workloadSeed, "arrivals", 0), requests, rate, 1),
        }),
  };
  const slo = { ttft_ms: 100, tpot_ms: 14, quantile: 0.95 };
  const simRange = { min: 10, max: 300 };
  // The truth is itself a mean over runs: near the knee a run's p95 TPOT varies by about 8% (sd of ln; 16%
  // with --fresh-arrivals), so a truth from too few engine seeds is off by as much as the errors measured
  // (123 fresh-arrival seeds put it 1.7% low). First 40 seeds over the range, then --truth-seeds (default
  // 600) within 6% of that.
  const truthSeeds = option("truth-seeds", 600);
  const trueCapacity = (profile: SimProfile): number => {
    const coarse = virtualCapacity(profile, slo, workload, simRange, seedsFrom(1, 40), 0.01)!;
    const near = { min: coarse / 1.06, max: coarse * 1.06 };
    const fine = virtualCapacity(profile, slo, workload, near, seedsFrom(1_000_000, truthSeeds))!;
    if (fine <= near.min * 1.001 || fine >= near.max / 1.001)
      throw new Error(`the true capacity ${fine} lies at an edge of ${near.min} to ${near.max}: widen it`);
    return fine;
  };
  const truth = { base: trueCapacity(base), candidate: trueCapacity(slower) };
  const simConfig = configOf({ ttft_ms: slo.ttft_ms, tpot_ms: slo.tpot_ms }, simRange);
  const virtual = (profile: SimProfile, seed: number): Side => ({
    records: [],
    measure(load) {
      const values = virtualRun(profile, load, workload, seed * 1000 + this.records.length, slo.quantile);
      return record(
        load,
        this.records.length,
        { ttft_p95: values.ttft, tpot_p95: values.tpot },
        (values.durationMs ?? 0) / 1000,
      );
    },
  });
  console.log(
    `simulator on virtual time: ${simReps} A/B pairs, small-gpu with 10 ms steps, compute-bound decode (decode_compute_per_token_ms 0.6) against 0.66; SLOs p95 TTFT <= 100 ms, p95 TPOT <= 14 ms; ${freshArrivals ? "a new schedule per run" : `every run the schedule of workload seed ${workloadSeed}`}`,
  );
  await designs(
    `  true capacities ${truth.base.toFixed(2)} and ${truth.candidate.toFixed(2)} req/s (${pct(truth.candidate / truth.base - 1)})`,
    simConfig,
    simReps,
    (rep) => [virtual(base, 1 + rep * 2), virtual(slower, 2 + rep * 2)],
    truth,
  );
  if (falseBlocks)
    await designs(
      `  equal capacities, ${truth.base.toFixed(2)} and ${truth.base.toFixed(2)} req/s (false blocks)`,
      simConfig,
      simReps,
      (rep) => [virtual(base, 1 + rep * 2), virtual(base, 2 + rep * 2)],
      { base: truth.base, candidate: truth.base },
      false,
    );
}
