import type { Rng } from "../util/random.js";

/**
 * Open-loop arrival times (ms from the start of a segment) with gamma-distributed gaps: shape = burstiness
 * (1 = Poisson, < 1 burstier, large = regular), mean gap = 1/rate. The schedule is absolute, so a late
 * send never shifts later arrivals (the drift of sleep-per-gap clients).
 */
function gammaGapMs(rng: Rng, rate: number, burstiness: number): number {
  if (!Number.isFinite(burstiness)) return 1000 / rate;
  return rng.gamma(burstiness, 1 / (rate * burstiness)) * 1000;
}

/**
 * Exactly `count` arrivals, rescaled as vLLM's client does so the last one lands at count/rate: the
 * realised mean rate equals the target whatever the seed, and the gaps keep their shape.
 */
export function countedArrivals(rng: Rng, count: number, rate: number, burstiness: number): number[] {
  const times = new Array<number>(count);
  let elapsed = 0;
  for (let index = 0; index < count; index++) {
    elapsed += gammaGapMs(rng, rate, burstiness);
    times[index] = elapsed;
  }
  const target = (count / rate) * 1000;
  const scale = elapsed > 0 ? target / elapsed : 1;
  // vLLM's client sends the first request at its first gap; so do we.
  for (let index = 0; index < count; index++) times[index] = times[index]! * scale;
  return times;
}

/** An endless arrival stream for duration-bound segments: next() gives the next absolute time in ms. */
export function arrivalStream(rng: Rng, rate: number, burstiness: number): { next(): number } {
  let elapsed = 0;
  return {
    next() {
      elapsed += gammaGapMs(rng, rate, burstiness);
      return elapsed;
    },
  };
}
