import { boxMuller, mulberry32 } from "../util/random.js";
import { normalQuantile, studentTQuantile } from "./distributions.js";
import { toleranceMargin } from "./margin.js";
import { percentileSorted } from "./percentile.js";
import { type StartGroupedSample, startLevels } from "./two-level.js";

/**
 * Capacity at the SLO (docs/capacity.md): from runs measured at several loads, the highest load at which
 * every objective holds. Each objective's per-run value is fitted against load with a nondecreasing
 * (isotonic) step function, which locates its threshold's crossing robustly: interpolated between the last
 * load that meets it and the first that does not. Where the runs near that crossing allow it (loads within
 * ±15% of it on both sides, `localWindow`), the crossing is then refined by a straight line fitted to those
 * runs' values against ln(load). Why: a search crowds its runs round the crossing at many nearby loads,
 * where the run-to-run noise exceeds the curve's rise, and the step fit's crossing then sits on a noisy
 * step; drawn about that step, the bootstrap's 90% intervals covered the simulator's true capacity in 65%
 * of searches, about the line in 85% (docs/capacity.md "How the capacity and its interval are computed").
 * The capacity is the lowest crossing. The interval comes from a parametric bootstrap (seeded): every
 * run's value redrawn about the fitted curve (the line near the crossing, the isotonic fit elsewhere) with
 * the estimated run-to-run noise, refitted and crossed again. Runs measured on one server start share
 * what it drew: a start that is slower serves every load it measured as a higher load would be served,
 * so each draw also shifts the loads of each start's runs by a start effect (docs/capacity.md, "Server
 * starts"), which no number of runs on that start averages away.
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
  /** The server start that measured the run (absent: a start of its own). */
  start?: string;
}

/** inside: the crossing lies within the loads measured; above: every load met it; below: none did. */
type CapacityBound = "inside" | "above" | "below";

interface ObjectiveCrossing {
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
  /** Per load, per objective: the server start of each value's run (aligned with `values`). */
  starts: string[][][];
}

function group(runs: readonly CapacityRun[], objectives: readonly CapacityObjective[]): Grouped {
  const byLoad = new Map<number, { run: CapacityRun; start: string }[]>();
  runs.forEach((run, index) => {
    if (!(run.load > 0) || !Number.isFinite(run.load)) return;
    const list = byLoad.get(run.load) ?? [];
    list.push({ run, start: run.start ?? `run-${index}` });
    byLoad.set(run.load, list);
  });
  const loads = [...byLoad.keys()].sort((a, b) => a - b);
  const present = (value: number | null | undefined): value is number =>
    value !== null && value !== undefined && Number.isFinite(value);
  const values = loads.map((load) =>
    objectives.map((objective, k) =>
      byLoad.get(load)!.flatMap(({ run }) => {
        const value = run.values[k];
        return present(value) ? [transform(value, objective.scale)] : [];
      }),
    ),
  );
  const starts = loads.map((load) =>
    objectives.map((_, k) =>
      byLoad.get(load)!.flatMap(({ run, start }) => (present(run.values[k]) ? [start] : [])),
    ),
  );
  return { loads, values, counts: loads.map((load) => byLoad.get(load)!.length), starts };
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

/** Half-width on ln(load) of the runs a crossing's local line is fitted to: loads within a factor 1.15. */
const localWindow = Math.log(1.15);

/** The straight line y = a + b·ln(load / center) fitted to the runs near one objective's crossing. */
interface LocalLine {
  center: number;
  a: number;
  b: number;
  /** Residual sd of the runs about the line, and its degrees of freedom (runs − 2). */
  sd: number;
  df: number;
  crossing: number;
}

/**
 * The local line of objective k around `center` (its isotonic crossing), or null where the runs cannot
 * carry one: fewer than 3 distinct loads or 4 runs within the window, no load on one side of the center,
 * a slope that is not positive, or a crossing outside the window (the step fit's crossing stands then).
 */
function localLine(grouped: Grouped, k: number, center: number, threshold: number): LocalLine | null {
  const xs: number[] = [];
  const ys: number[] = [];
  let loads = 0;
  let below = false;
  let above = false;
  grouped.loads.forEach((load, i) => {
    const x = Math.log(load / center);
    const values = grouped.values[i]![k]!;
    if (Math.abs(x) > localWindow || values.length === 0) return;
    loads++;
    below ||= x < 0;
    above ||= x > 0;
    for (const value of values) {
      xs.push(x);
      ys.push(value);
    }
  });
  if (loads < 3 || xs.length < 4 || !below || !above) return null;
  const mx = mean(xs);
  const my = mean(ys);
  let sxx = 0;
  let sxy = 0;
  xs.forEach((x, i) => {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * (ys[i]! - my);
  });
  const b = sxy / sxx;
  if (!(b > 0)) return null;
  const a = my - b * mx;
  const x = (threshold - a) / b;
  if (Math.abs(x) > localWindow) return null;
  const ssr = xs.reduce((sum, xi, i) => sum + (ys[i]! - a - b * xi) ** 2, 0);
  const df = xs.length - 2;
  return { center, a, b, sd: Math.sqrt(ssr / df), df, crossing: center * Math.exp(x) };
}

/** The values of objective k's runs within its local line's window, less the line, with their runs' starts. */
function lineResiduals(
  grouped: Grouped,
  k: number,
  line: LocalLine,
): StartGroupedSample & { starts: string[] } {
  const values: number[] = [];
  const starts: string[] = [];
  grouped.loads.forEach((load, i) => {
    const x = Math.log(load / line.center);
    if (Math.abs(x) > localWindow) return;
    grouped.values[i]![k]!.forEach((value, r) => {
      values.push(value - line.a - line.b * x);
      starts.push(grouped.starts[i]![k]![r]!);
    });
  });
  return { values, starts };
}

/** Whether some start holds two or more of these runs (else every run was its own start). */
function sharesStarts(starts: readonly string[]): boolean {
  return new Set(starts).size < starts.length;
}

/**
 * The runs near the capacity's crossing as deviations in ln(load) (docs/capacity.md, "Server starts"):
 * each run's value of the limiting objective less its local line, over the line's slope, i.e. how much
 * higher a load the run behaved like. A start's speed shifts all its runs alike, so their start means
 * carry the start level and their spread within a start the run level (stats/two-level.ts). Null when
 * the capacity is not crossed inside the loads measured or its objective has no local line.
 */
export function crossingDeviations(
  runs: readonly CapacityRun[],
  objectives: readonly CapacityObjective[],
): (StartGroupedSample & { starts: string[] }) | null {
  const grouped = group(runs, objectives);
  if (grouped.loads.length === 0) return null;
  const { lines, estimate } = fitCurves(grouped, objectives);
  if (estimate.bound !== "inside") return null;
  const k = objectives.findIndex((objective) => objective.name === estimate.limiting);
  const line = k >= 0 ? lines[k] : null;
  if (!line) return null;
  const residuals = lineResiduals(grouped, k, line);
  if (residuals.values.length < 2) return null;
  return { values: residuals.values.map((value) => value / line.b), starts: residuals.starts };
}

/** One fit of every objective: the isotonic values at the loads, and the local line where one was fitted. */
interface CurveFit {
  fitted: (number | null)[][];
  lines: (LocalLine | null)[];
  estimate: CapacityEstimate;
}

function fitCurves(grouped: Grouped, objectives: readonly CapacityObjective[]): CurveFit {
  const fitted = fitAll(grouped, objectives.length);
  const lines: (LocalLine | null)[] = objectives.map(() => null);
  const crossings = objectives.map((objective, k) => {
    const threshold = transform(objective.threshold, objective.scale);
    const crossing = crossingOf(grouped.loads, fitted[k]!, threshold, objective.name);
    if (crossing.bound !== "inside") return crossing;
    lines[k] = localLine(grouped, k, crossing.crossing, threshold);
    return lines[k] ? { ...crossing, crossing: lines[k]!.crossing } : crossing;
  });
  return { fitted, lines, estimate: estimateFromCrossings(grouped, crossings) };
}

function estimateFromCrossings(grouped: Grouped, crossings: ObjectiveCrossing[]): CapacityEstimate {
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
  return fitCurves(grouped, objectives).estimate;
}

export interface IntervalOptions {
  /** Two-sided coverage of the interval, e.g. 0.9. */
  level: number;
  resamples?: number;
  seed?: number;
  /**
   * The start-to-start variance of ln(load) a start's speed shifts its runs by, with its degrees of
   * freedom (compare/capacity/capacity.ts: measured from both sides' crossings pooled with the throughput
   * prior); absent or 0: no start effect drawn. Drawn only where some start holds two or more runs: runs on
   * their own starts carry it in their spread already.
   */
  startEffect?: { variance: number; df: number };
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

const defaultResamples = 1000;

/**
 * The bootstrap interval of the capacity, or null when no objective's run-to-run noise can be estimated
 * (no local line and no load measured twice). Per objective the noise sd is the residual sd of its local
 * line where one was fitted (the noise near the crossing, which grows with the load), else the pure error
 * of the replicated loads (deviations from their load's mean, sqrt(SS / df)); either is widened by t(df)/z
 * at the interval's level. Each draw adds normal noise of that sd to every run's value on the fitted curve
 * (the line within its window, the isotonic fit elsewhere), refits and crosses again.
 */
export function capacityInterval(
  runs: readonly CapacityRun[],
  objectives: readonly CapacityObjective[],
  options: IntervalOptions,
): CapacityInterval | null {
  const grouped = group(runs, objectives);
  if (grouped.loads.length === 0) return null;
  const { fitted, lines } = fitCurves(grouped, objectives);
  const tail = (1 - options.level) / 2;
  // A t(df)/z widening, so a noise estimate from few runs gives a wider interval, never a falsely tight one.
  const widen = (df: number) => studentTQuantile(1 - tail, df) / normalQuantile(1 - tail);
  const sds = objectives.map((_, k) => objectiveNoiseSd(grouped, k, lines[k] ?? null, widen));
  if (sds.every((sd) => sd === null)) return null;
  // The curve the draws are made about: the local line within its window, the isotonic fit elsewhere.
  const model = grouped.loads.map((load, i) =>
    objectives.map((_, k) => {
      const line = lines[k];
      const x = line ? Math.log(load / line.center) : Number.POSITIVE_INFINITY;
      return line && Math.abs(x) <= localWindow ? line.a + line.b * x : fitted[k]![i]!;
    }),
  );
  const resamples = options.resamples ?? defaultResamples;
  const { draws, censored } = bootstrapCapacities(grouped, objectives, {
    model,
    sds,
    startSd: startEffectSd(runs, options, widen),
    random: mulberry32(options.seed ?? 1),
    resamples,
  });
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
 * One objective's run-to-run noise sd, widened by `widen(df)`: about its local line (within a start when
 * runs of several starts share it, the start level being drawn on its own), else the pure error of the
 * replicated loads; null when neither can be estimated.
 */
function objectiveNoiseSd(
  grouped: Grouped,
  k: number,
  line: LocalLine | null,
  widen: (df: number) => number,
): number | null {
  if (line) {
    // Runs of several starts near the crossing: their spread within a start is the run level; one
    // start, or every run its own: the spread about the line.
    const residuals = lineResiduals(grouped, k, line);
    if (new Set(residuals.starts).size > 1 && sharesStarts(residuals.starts)) {
      const [within] = startLevels([residuals]).sides;
      if (within && within.runVarianceDf > 0)
        return Math.sqrt(within.runVariance) * widen(within.runVarianceDf);
    }
    return line.sd * widen(line.df);
  }
  let ss = 0;
  let df = 0;
  grouped.loads.forEach((_, i) => {
    const values = grouped.values[i]![k]!;
    if (values.length < 2) return;
    const m = mean(values);
    for (const v of values) ss += (v - m) ** 2;
    df += values.length - 1;
  });
  return df === 0 ? null : Math.sqrt(ss / df) * widen(df);
}

/** The sd of the start effect each draw adds, widened by its df; 0 when none is given or no start holds two runs. */
function startEffectSd(
  runs: readonly CapacityRun[],
  options: IntervalOptions,
  widen: (df: number) => number,
): number {
  const effect = options.startEffect;
  if (!effect || effect.variance <= 0) return 0;
  if (!sharesStarts(runs.flatMap((run, index) => (run.load > 0 ? [run.start ?? `run-${index}`] : []))))
    return 0;
  return Math.sqrt(effect.variance) * (effect.df > 0 && Number.isFinite(effect.df) ? widen(effect.df) : 1);
}

/**
 * The bootstrap: each draw puts normal noise of its objective's sd on every run's value on the model
 * curve, moves each start's loads by a drawn start effect, refits and crosses again.
 */
function bootstrapCapacities(
  grouped: Grouped,
  objectives: readonly CapacityObjective[],
  draw: {
    model: number[][];
    sds: readonly (number | null)[];
    startSd: number;
    random: () => number;
    resamples: number;
  },
): { draws: number[]; censored: number } {
  const { model, sds, startSd, random } = draw;
  const startsOfRuns = [...new Set(grouped.starts.flat(2))].sort();
  const draws: number[] = [];
  let censored = 0;
  for (let b = 0; b < draw.resamples; b++) {
    const values: number[][][] = grouped.loads.map((_, i) =>
      objectives.map((_, k) => {
        const count = grouped.values[i]![k]!.length;
        const out: number[] = [];
        for (let r = 0; r < count; r++)
          out.push(model[i]![k]! + (sds[k] ?? 0) * boxMuller(random(), random()));
        return out;
      }),
    );
    const drawn = { loads: grouped.loads, values, counts: grouped.counts, starts: grouped.starts };
    const shifts =
      startSd > 0
        ? new Map(startsOfRuns.map((start) => [start, startSd * boxMuller(random(), random())]))
        : null;
    const { estimate } = fitCurves(shifts ? shiftedByStart(drawn, shifts) : drawn, objectives);
    if (estimate.bound !== "inside") censored++;
    draws.push(estimate.capacity);
  }
  return { draws, censored };
}

/**
 * A draw's runs with each start's loads moved by its start effect: a run of a start drawn `shift`
 * slower is placed at load·e^shift, the load it behaved like. Runs regroup by their moved loads.
 */
function shiftedByStart(grouped: Grouped, shifts: ReadonlyMap<string, number>): Grouped {
  const objectives = grouped.values[0]?.length ?? 0;
  const byLoad = new Map<number, { values: number[][]; starts: string[][] }>();
  grouped.loads.forEach((load, i) => {
    for (let k = 0; k < objectives; k++) {
      grouped.values[i]![k]!.forEach((value, r) => {
        const start = grouped.starts[i]![k]![r]!;
        const moved = load * Math.exp(shifts.get(start) ?? 0);
        let entry = byLoad.get(moved);
        if (!entry) {
          entry = {
            values: Array.from({ length: objectives }, () => []),
            starts: Array.from({ length: objectives }, () => []),
          };
          byLoad.set(moved, entry);
        }
        entry.values[k]!.push(value);
        entry.starts[k]!.push(start);
      });
    }
  });
  const loads = [...byLoad.keys()].sort((a, b) => a - b);
  return {
    loads,
    values: loads.map((load) => byLoad.get(load)!.values),
    starts: loads.map((load) => byLoad.get(load)!.starts),
    // Runs at a moved load: those of the objective with the most values there.
    counts: loads.map((load) => Math.max(...byLoad.get(load)!.values.map((values) => values.length))),
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
  const d = toleranceMargin(tolerance);
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
