import { Engine } from "../src/sim/engine.js";
import type { SimProfile } from "../src/sim/profile.js";
import { runVirtual, type VirtualArrival } from "../src/sim/virtual.js";
import { percentileSorted, sortNumbers } from "../src/stats/percentile.js";
import { mulberry32 } from "../src/util/random.js";

/**
 * The true capacity of a simulator profile at given SLOs, on virtual time (docs/capacity.md): the engine's
 * own step model (sim/virtual.ts), no HTTP, no host noise. A run is `requests` Poisson arrivals at `rate`
 * (the same unit gaps for every rate of one seed, so latency grows with the rate run by run: common random
 * numbers), with distinct prompts (no prefix-cache hits); its TTFT, TPOT and E2E at the percentile are
 * read as vLLM's client reads them (numpy-linear over the requests). The truth is the rate at which the
 * geometric mean over seeds of the run values crosses the thresholds, by bisection: the same summary of
 * runs as the capacity fit (stats/capacity.ts fits ln values) and every comparison here (geometric means
 * over runs). Near the knee a run's p95 is right-skewed (a burst of arrivals), so a median over runs
 * would put the capacity higher than the mean of the logs does.
 */

export interface VirtualWorkload {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  /**
   * The arrival times (ms from the run's start) of a run at `rate`, for a workload whose schedule is
   * known (the client's seeded schedule, as an HTTP run sends it); default: Poisson arrivals from the seed.
   */
  arrivals?: (rate: number) => readonly number[];
}

export interface VirtualRunValues {
  ttft: number;
  tpot: number;
  e2el: number;
  /** Simulated time from the first arrival to the last token (GPU time the run occupies), ms. */
  durationMs?: number;
}

/** One virtual run of the workload at `rate` requests/s: TTFT, TPOT and E2E at quantile q, in ms. */
export function virtualRun(
  profile: SimProfile,
  rate: number,
  workload: VirtualWorkload,
  seed: number,
  q: number,
): VirtualRunValues {
  const random = mulberry32(seed);
  let at = 0;
  const arrivals: VirtualArrival[] = [];
  const given = workload.arrivals?.(rate);
  for (let i = 0; i < workload.requests; i++) {
    at = given ? given[i]! : at + (-Math.log(1 - random()) / rate) * 1000;
    arrivals.push({
      at,
      spec: {
        id: `r${i}`,
        promptTokens: Array.from({ length: workload.inputTokens }, (_, t) => (i * 7919 + t) % 30000),
        maxTokens: workload.outputTokens,
        ignoreEos: true,
      },
    });
  }
  const run = runVirtual(new Engine(profile, seed), arrivals);
  const ttft: number[] = [];
  const tpot: number[] = [];
  const e2el: number[] = [];
  for (const outcome of run.outcomes.values()) {
    const times = outcome.tokenTimes;
    if (times.length === 0) continue;
    ttft.push(times[0]! - outcome.arrival);
    e2el.push(times[times.length - 1]! - outcome.arrival);
    if (times.length > 1) tpot.push((times[times.length - 1]! - times[0]!) / (times.length - 1));
  }
  const at_ = (values: number[]) => percentileSorted(sortNumbers(values), q);
  const first = arrivals[0]?.at ?? 0;
  return {
    ttft: at_(ttft),
    tpot: tpot.length > 0 ? at_(tpot) : 0,
    e2el: at_(e2el),
    durationMs: run.endTime - first,
  };
}

export interface VirtualSlo {
  ttft_ms?: number;
  tpot_ms?: number;
  e2el_ms?: number;
  /** The percentile as a quantile, e.g. 0.95. */
  quantile: number;
}

function meets(values: VirtualRunValues, slo: VirtualSlo): boolean {
  return (
    (slo.ttft_ms === undefined || values.ttft <= slo.ttft_ms) &&
    (slo.tpot_ms === undefined || values.tpot <= slo.tpot_ms) &&
    (slo.e2el_ms === undefined || values.e2el <= slo.e2el_ms)
  );
}

const geometricMean = (values: number[]) =>
  Math.exp(values.reduce((sum, v) => sum + Math.log(Math.max(v, 1e-9)), 0) / values.length);

/** The geometric mean over seeds of each value at `rate`. */
export function virtualMeanRun(
  profile: SimProfile,
  rate: number,
  workload: VirtualWorkload,
  seeds: readonly number[],
  q: number,
): VirtualRunValues {
  const runs = seeds.map((seed) => virtualRun(profile, rate, workload, seed, q));
  return {
    ttft: geometricMean(runs.map((r) => r.ttft)),
    tpot: geometricMean(runs.map((r) => r.tpot)),
    e2el: geometricMean(runs.map((r) => r.e2el)),
  };
}

/**
 * The highest rate in [min, max] at which the mean run meets every SLO, to `relativeTolerance`; null
 * when even `min` misses them, `max` when it meets them.
 */
export function virtualCapacity(
  profile: SimProfile,
  slo: VirtualSlo,
  workload: VirtualWorkload,
  range: { min: number; max: number },
  seeds: readonly number[],
  relativeTolerance = 0.002,
): number | null {
  const ok = (rate: number) => meets(virtualMeanRun(profile, rate, workload, seeds, slo.quantile), slo);
  if (!ok(range.min)) return null;
  if (ok(range.max)) return range.max;
  let low = range.min;
  let high = range.max;
  while (high / low > 1 + relativeTolerance) {
    const mid = Math.sqrt(low * high);
    if (ok(mid)) low = mid;
    else high = mid;
  }
  return Math.sqrt(low * high);
}
