import { largest, smallest } from "../util/extremes.js";
import {
  type CapacityEstimate,
  type CapacityInterval,
  type CapacityObjective,
  type CapacityRun,
  capacityInterval,
  estimateCapacity,
} from "./capacity.js";

/**
 * The capacity search plan (docs/capacity.md), pure: given the runs so far, the loads to measure next or
 * the reason to stop. First a geometric pass over the range, one run per load, brackets the knee; then each
 * round measures four runs around the current estimate (at c(1 - p/2), twice at c, c(1 + p/2), p = precision), so
 * runs concentrate where the SLOs are crossed and replicated loads give the run-to-run noise the interval
 * needs. It stops when the interval's width is at most `precision` of the capacity, when the capacity lies
 * outside the range (no load meets the SLOs, or every load does), or when `maxRuns` are spent. With
 * `minRuns` (a comparison's next look) a precise interval does not stop it before that many runs.
 */

export interface SearchSettings {
  range: { min: number; max: number };
  /** Loads of the first geometric pass (>= 2). */
  initialLoads: number;
  /** Relative interval width to stop at. */
  precision: number;
  maxRuns: number;
  /**
   * Runs to reach before a precise interval stops the search (a comparison's next look asked for more:
   * docs/capacity.md "More runs for an undecided comparison"); the search refines on around its estimate
   * until then. Stops outside the range and at maxRuns are kept.
   */
  minRuns?: number;
  /** Interval coverage, e.g. 0.9. */
  level: number;
  seed?: number;
  resamples?: number;
  /** concurrency loads are whole numbers. */
  integer?: boolean;
}

export type SearchStep =
  | { kind: "measure"; loads: number[]; reason: string }
  | {
      kind: "stop";
      reason: "precise" | "budget" | "below-range" | "above-range";
      message: string;
      estimate: CapacityEstimate | null;
      interval: CapacityInterval | null;
    };

/** Loads rounded to 3 significant digits (integers for concurrency), so nearby proposals repeat a load. */
export function roundLoad(load: number, integer = false): number {
  if (integer) return Math.max(1, Math.round(load));
  const digits = 3 - Math.ceil(Math.log10(Math.abs(load)));
  const factor = 10 ** digits;
  return Math.round(load * factor) / factor;
}

/** count loads from min to max in geometric steps, rounded. */
export function geometricLoads(min: number, max: number, count: number, integer = false): number[] {
  if (count === 1) return [roundLoad(min, integer)];
  const loads = Array.from({ length: count }, (_, i) =>
    roundLoad(min * (max / min) ** (i / (count - 1)), integer),
  );
  return [...new Set(loads)];
}

export function nextSearchStep(
  runs: readonly CapacityRun[],
  objectives: readonly CapacityObjective[],
  settings: SearchSettings,
): SearchStep {
  const integer = settings.integer === true;
  if (runs.length === 0) {
    return {
      kind: "measure",
      loads: geometricLoads(settings.range.min, settings.range.max, settings.initialLoads, integer),
      reason: "first geometric pass over the range",
    };
  }
  const estimate = estimateCapacity(runs, objectives);
  const interval = capacityInterval(runs, objectives, {
    level: settings.level,
    ...(settings.seed === undefined ? {} : { seed: settings.seed }),
    ...(settings.resamples === undefined ? {} : { resamples: settings.resamples }),
  });
  const spent = runs.length;
  const stop = (reason: Extract<SearchStep, { kind: "stop" }>["reason"], message: string): SearchStep => ({
    kind: "stop",
    reason,
    message,
    estimate,
    interval,
  });
  const lowest = smallest(runs.map((run) => run.load));
  const highest = largest(runs.map((run) => run.load));
  if (estimate.bound === "below") {
    // Confirm at the lowest load with a second run before giving up on it.
    const atLowest = runs.filter((run) => run.load === lowest).length;
    if (atLowest < 2 && spent < settings.maxRuns)
      return { kind: "measure", loads: [lowest], reason: "confirming that the lowest load misses the SLOs" };
    return stop(
      "below-range",
      `no load measured meets the SLOs: ${estimate.limiting} is missed already at the lowest load, ${lowest} ${lowest > settings.range.min ? `(the lowest with usable runs; capacity.range.min is ${settings.range.min})` : "(capacity.range.min)"}; lower range.min or relax the SLO`,
    );
  }
  if (estimate.bound === "above") {
    const atHighest = runs.filter((run) => run.load === highest).length;
    if (atHighest < 2 && spent < settings.maxRuns)
      return { kind: "measure", loads: [highest], reason: "confirming that the highest load meets the SLOs" };
    return stop(
      "above-range",
      `every load measured meets the SLOs, up to ${highest} ${highest < settings.range.max ? `(the highest with usable runs; capacity.range.max is ${settings.range.max})` : "(capacity.range.max)"}: the capacity is at least that; raise range.max`,
    );
  }
  const c = estimate.capacity;
  // Both the noise (the interval) and the grid (the loads either side of the crossing, between which the
  // fit interpolates) must be within the precision.
  const bracketWidth = estimate.bracket
    ? estimate.bracket[1] - estimate.bracket[0]
    : Number.POSITIVE_INFINITY;
  if (
    interval !== null &&
    interval.censored === 0 &&
    (interval.high - interval.low) / c <= settings.precision &&
    bracketWidth / c <= settings.precision * 1.5 &&
    spent >= (settings.minRuns ?? 0)
  )
    return stop(
      "precise",
      `interval ${fmt(interval.low)} to ${fmt(interval.high)} is within ${Math.round(settings.precision * 100)}% of the capacity ${fmt(c)}`,
    );
  if (spent >= settings.maxRuns)
    return stop(
      "budget",
      `repeats.max (${settings.maxRuns} runs) spent before the interval reached the precision`,
    );
  const half = settings.precision / 2;
  const clamp = (x: number) => Math.min(settings.range.max, Math.max(settings.range.min, x));
  // Two runs at the estimate: a replicated load near the knee is where the run-to-run noise matters.
  const proposals = [c * (1 - half), c, c, c * (1 + half)].map((x) => roundLoad(clamp(x), integer));
  const loads = proposals.slice(0, Math.max(1, settings.maxRuns - spent));
  return { kind: "measure", loads, reason: `refining around the estimate ${fmt(c)}` };
}

function fmt(value: number): string {
  return Number(value.toPrecision(3)).toString();
}
