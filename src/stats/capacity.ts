import { percentileSorted } from "../metrics/percentile.js";
import { boxMuller, mulberry32 } from "../util/random.js";
import { normalQuantile, studentTQuantile } from "./distributions.js";

/**
 * Capacity at the SLO (docs/capacity.md): from runs measured at several loads, the highest load at which
 * every objective holds. Each objective's per-run value is fitted against load with a nondecreasing
 * (isotonic) step function, the crossing of its threshold is interpolated between the last load that meets
 * it and the first that does not, and the capacity is the lowest crossing. The interval comes from a
 * residual bootstrap of runs: each run's value is its load's fitted value plus the deviation of a replicated
 * run from its load's mean, refitted and crossed again (seeded).
 */

/** One objective: the run's value must be at most `threshold`. */
export interface CapacityObjective {
  name: string;
  threshold: number;
  /** log: latencies (multiplicative noise, interpolated on ln); linear: fractions such as the error rate. */
  scale: "log" | "linear";
}

/** One run: its load and one value per objective (in the objectives' order; null = not measured). */
export interface CapacityRun {
  load: number;
  values: readonly (number | null)[];
}

/** inside: the crossing lies within the loads measured; above: every load met it; below: none did. */
export type CapacityBound = "inside" | "above" | "below";

export interface ObjectiveCrossing {
  name: string;
  /** The load where the fit crosses the threshold (the highest load measured for "above", the lowest for "below"). */
  crossing: number;
  bound: CapacityBound;
}

export interface CapacityEstimate {
  /** The highest load meeting every objective (see `bound` when it is an edge of the loads measured). */
  capacity: number;
  bound: CapacityBound;
  /** The objective whose crossing is the capacity; null when every objective held at every load. */
  limiting: string | null;
  objectives: ObjectiveCrossing[];
  /** Loads measured on either side of the crossing: the last meeting every objective, the first not. */
  bracket: [number, number] | null;
  /** Distinct loads measured, ascending, and the runs at each. */
  loads: { load: number; runs: number }[];
}

/** Weighted pool-adjacent-violators: the nondecreasing fit of `values` (in order) with `weights`. */
export function isotonicFit(values: readonly number[], weights: readonly number[]): number[] {
  const blocks: { mean: number; weight: number; count: number }[] = [];
  values.forEach((value, index) => {
    blocks.push({ mean: value, weight: weights[index]!, count: 1 });
    while (blocks.length > 1 && blocks[blocks.length - 2]!.mean > blocks[blocks.length - 1]!.mean) {
      const last = blocks.pop()!;
      const previous = blocks[blocks.length - 1]!;
      const weight = previous.weight + last.weight;
      previous.mean = (previous.mean * previous.weight + last.mean * last.weight) / weight;
      previous.weight = weight;
      previous.count += last.count;
    }
  });
  return blocks.flatMap((block) => new Array<number>(block.count).fill(block.mean));
}

const tinyValue = 1e-9;

function transform(value: number, scale: CapacityObjective["scale"]): number {
  return scale === "log" ? Math.log(Math.max(value, tinyValue)) : value;
}

interface Grouped {
  loads: number[];
  /** Per load, per objective: the transformed values of its runs (missing values left out). */
  values: number[][][];
  counts: number[];
}

function group(runs: readonly CapacityRun[], objectives: readonly CapacityObjective[]): Grouped {
  const byLoad = new Map<number, CapacityRun[]>();
  for (const run of runs) {
    if (!(run.load > 0) || !Number.isFinite(run.load)) continue;
    const list = byLoad.get(run.load) ?? [];
    list.push(run);
    byLoad.set(run.load, list);
  }
  const loads = [...byLoad.keys()].sort((a, b) => a - b);
  const values = loads.map((load) =>
    objectives.map((objective, k) =>
      byLoad.get(load)!.flatMap((run) => {
        const value = run.values[k];
        return value === null || value === undefined || !Number.isFinite(value)
          ? []
          : [transform(value, objective.scale)];
      }),
    ),
  );
  return { loads, values, counts: loads.map((load) => byLoad.get(load)!.length) };
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/** The crossing of one objective from its fitted values at the loads (those without values skipped). */
function crossingOf(
  loads: readonly number[],
  fitted: readonly (number | null)[],
  threshold: number,
  name: string,
): ObjectiveCrossing {
  const points = loads.flatMap((load, i) => (fitted[i] === null ? [] : [{ load, value: fitted[i]! }]));
  if (points.length === 0) return { name, crossing: loads[0] ?? 0, bound: "below" };
  if (points[0]!.value > threshold) return { name, crossing: points[0]!.load, bound: "below" };
  const last = points[points.length - 1]!;
  if (last.value <= threshold) return { name, crossing: last.load, bound: "above" };
  let j = 0;
  while (points[j + 1]!.value <= threshold) j++;
  const a = points[j]!;
  const b = points[j + 1]!;
  const share = (threshold - a.value) / (b.value - a.value);
  return { name, crossing: a.load + share * (b.load - a.load), bound: "inside" };
}

/** Fitted transformed values per objective at each load (null where no run has a value). */
function fitAll(grouped: Grouped, objectiveCount: number): (number | null)[][] {
  return Array.from({ length: objectiveCount }, (_, k) => {
    const present = grouped.loads.flatMap((_, i) =>
      grouped.values[i]![k]!.length > 0
        ? [{ i, mean: mean(grouped.values[i]![k]!), w: grouped.values[i]![k]!.length }]
        : [],
    );
    const fit = isotonicFit(
      present.map((p) => p.mean),
      present.map((p) => p.w),
    );
    const out: (number | null)[] = grouped.loads.map(() => null);
    present.forEach((p, index) => {
      out[p.i] = fit[index]!;
    });
    return out;
  });
}

function estimateFromFit(
  grouped: Grouped,
  fitted: readonly (readonly (number | null)[])[],
  objectives: readonly CapacityObjective[],
): CapacityEstimate {
  const crossings = objectives.map((objective, k) =>
    crossingOf(grouped.loads, fitted[k]!, transform(objective.threshold, objective.scale), objective.name),
  );
  const loads = grouped.loads.map((load, i) => ({ load, runs: grouped.counts[i]! }));
  const below = crossings.find((c) => c.bound === "below");
  if (below)
    return {
      capacity: below.crossing,
      bound: "below",
      limiting: below.name,
      objectives: crossings,
      bracket: null,
      loads,
    };
  const inside = crossings.filter((c) => c.bound === "inside");
  if (inside.length === 0) {
    const top = grouped.loads[grouped.loads.length - 1]!;
    return { capacity: top, bound: "above", limiting: null, objectives: crossings, bracket: null, loads };
  }
  const limiting = inside.reduce((low, c) => (c.crossing < low.crossing ? c : low));
  const passing = grouped.loads.filter((load) => load <= limiting.crossing);
  const failing = grouped.loads.filter((load) => load > limiting.crossing);
  const bracket: [number, number] | null =
    passing.length > 0 && failing.length > 0 ? [passing[passing.length - 1]!, failing[0]!] : null;
  return {
    capacity: limiting.crossing,
    bound: "inside",
    limiting: limiting.name,
    objectives: crossings,
    bracket,
    loads,
  };
}

/**
 * The capacity estimate from all runs. Throws on no runs; a capacity "below" means no load measured met
 * every objective, "above" that all did (the capacity is then at least the highest load).
 */
export function estimateCapacity(
  runs: readonly CapacityRun[],
  objectives: readonly CapacityObjective[],
): CapacityEstimate {
  const grouped = group(runs, objectives);
  if (grouped.loads.length === 0) throw new Error("estimateCapacity: no runs with a positive load");
  return estimateFromFit(grouped, fitAll(grouped, objectives.length), objectives);
}

export interface IntervalOptions {
  /** Two-sided coverage of the interval, e.g. 0.9. */
  level: number;
  resamples?: number;
  seed?: number;
}

export interface CapacityInterval {
  low: number;
  high: number;
  level: number;
  /** The bootstrap capacities (for comparisons between sides: same seed and count give paired draws). */
  draws: number[];
  /** Share of draws whose capacity lay at an edge of the loads measured (censored). */
  censored: number;
}

export const defaultResamples = 1000;

/**
 * The bootstrap interval of the capacity, or null when no objective's run-to-run noise can be estimated
 * (no load measured twice). Per objective the noise sd is the pure error of the replicated loads
 * (deviations from their load's mean, sqrt(SS / df)), widened by t(df)/z at the interval's level so that a
 * noise estimate from few runs gives a wider interval, never a falsely tight one. Each draw adds normal
 * noise of that sd to every run's fitted value, refits and crosses again.
 */
export function capacityInterval(
  runs: readonly CapacityRun[],
  objectives: readonly CapacityObjective[],
  options: IntervalOptions,
): CapacityInterval | null {
  const grouped = group(runs, objectives);
  if (grouped.loads.length === 0) return null;
  const fitted = fitAll(grouped, objectives.length);
  const tail = (1 - options.level) / 2;
  const sds = objectives.map((_, k) => {
    let ss = 0;
    let df = 0;
    grouped.loads.forEach((_, i) => {
      const values = grouped.values[i]![k]!;
      if (values.length < 2) return;
      const m = mean(values);
      for (const v of values) ss += (v - m) ** 2;
      df += values.length - 1;
    });
    if (df === 0) return null;
    const widen = studentTQuantile(1 - tail, df) / normalQuantile(1 - tail);
    return Math.sqrt(ss / df) * widen;
  });
  if (sds.every((sd) => sd === null)) return null;
  const random = mulberry32(options.seed ?? 1);
  const resamples = options.resamples ?? defaultResamples;
  const draws: number[] = [];
  let censored = 0;
  for (let b = 0; b < resamples; b++) {
    const values: number[][][] = grouped.loads.map((_, i) =>
      objectives.map((_, k) => {
        const count = grouped.values[i]![k]!.length;
        const out: number[] = [];
        for (let r = 0; r < count; r++)
          out.push(fitted[k]![i]! + (sds[k] ?? 0) * boxMuller(random(), random()));
        return out;
      }),
    );
    const draw = { loads: grouped.loads, values, counts: grouped.counts };
    const estimate = estimateFromFit(draw, fitAll(draw, objectives.length), objectives);
    if (estimate.bound !== "inside") censored++;
    draws.push(estimate.capacity);
  }
  const sorted = [...draws].sort((a, b) => a - b);
  return {
    low: percentileSorted(sorted, tail),
    high: percentileSorted(sorted, 1 - tail),
    level: options.level,
    draws,
    censored: censored / resamples,
  };
}

/**
 * Interpolation of per-load means of `values` at `load` (clamped to the loads measured): linear, or on ln
 * for a log-scale value (latencies, as the crossing is found), so a latency read at the capacity is its SLO.
 */
export function valueAtLoad(
  points: readonly { load: number; value: number | null }[],
  load: number,
  scale: CapacityObjective["scale"] = "linear",
): number | null {
  const byLoad = new Map<number, number[]>();
  for (const point of points) {
    if (point.value === null || !Number.isFinite(point.value)) continue;
    byLoad.set(point.load, [...(byLoad.get(point.load) ?? []), point.value]);
  }
  const loads = [...byLoad.keys()].sort((a, b) => a - b);
  if (loads.length === 0) return null;
  const at = (x: number) => transform(mean(byLoad.get(x)!), scale);
  const back = (y: number) => (scale === "log" ? Math.exp(y) : y);
  if (load <= loads[0]!) return back(at(loads[0]!));
  if (load >= loads[loads.length - 1]!) return back(at(loads[loads.length - 1]!));
  let j = 0;
  while (loads[j + 1]! < load) j++;
  const a = loads[j]!;
  const b = loads[j + 1]!;
  return back(at(a) + ((load - a) / (b - a)) * (at(b) - at(a)));
}

export interface CapacityRatio {
  /** candidate / baseline capacity. */
  ratio: number;
  /** Interval of the ratio at `level` from the two sides' bootstrap draws. */
  ci: [number, number];
  level: number;
  /** One-sided bootstrap p-values on the worse scale w = -ln(ratio) (higher capacity is better), margin d = ln(1+tolerance). */
  pBeyond: number;
  pBetterBeyond: number;
  pWithinTolerance: number;
  pWorse: number;
  pBetter: number;
}

/**
 * The capacity ratio candidate/baseline and its bootstrap p-values: draw b of each side paired by index
 * (independent seeds per side), w* = ln(base*) - ln(cand*). p of H0 "w <= d" is the share of w* <= d
 * (the level at which the percentile interval's lower bound would pass d), and likewise for the others.
 */
export function capacityRatio(
  baseline: { capacity: number; draws: readonly number[] },
  candidate: { capacity: number; draws: readonly number[] },
  tolerance: number,
  level: number,
): CapacityRatio {
  const n = Math.min(baseline.draws.length, candidate.draws.length);
  if (n === 0) throw new Error("capacityRatio: no bootstrap draws");
  const worse: number[] = [];
  for (let i = 0; i < n; i++) worse.push(Math.log(baseline.draws[i]!) - Math.log(candidate.draws[i]!));
  worse.sort((a, b) => a - b);
  const d = Math.log(1 + tolerance);
  const share = (test: (w: number) => boolean) => (worse.filter(test).length + 1) / (n + 1);
  const tail = (1 - level) / 2;
  return {
    ratio: candidate.capacity / baseline.capacity,
    ci: [Math.exp(-percentileSorted(worse, 1 - tail)), Math.exp(-percentileSorted(worse, tail))],
    level,
    pBeyond: share((w) => w <= d),
    pBetterBeyond: share((w) => w >= -d),
    pWithinTolerance: share((w) => w >= d),
    pWorse: share((w) => w <= 0),
    pBetter: share((w) => w >= 0),
  };
}
