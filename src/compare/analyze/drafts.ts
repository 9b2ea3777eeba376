import {
  describeMetric,
  isGuardMetric,
  type LatencyStatistic,
  latencyMetricName,
  type MetricName,
  metricNames,
  metricSpecs,
  metricsMeasuredIn,
} from "../../config/metric-names.js";
import type { GateConfig } from "../../config/schema.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { errorIncreaseMinP, errorIncreaseP } from "../../stats/error-rate.js";
import {
  type LogRatioTest,
  logRatioTest,
  type MetricVerdict,
  type StartProjection,
} from "../../stats/metric-test.js";
import { hodgesLehmann, mannWhitney } from "../../stats/rank-tests.js";
import type {
  RunVariancePrior,
  StartVariancePrior,
  TwoLevelResult,
  VariancePrior,
} from "../../stats/two-level.js";
import { smallest } from "../../util/extremes.js";
import { startOf } from "../inputs/server-starts.js";
import type { PriorDescription } from "../noise/prior-basis.js";
import { startNoiseOf } from "../noise/start-noise.js";
import type { Comparison } from "../verdict/verdict-schema.js";
import type { ComparedCell } from "./cells.js";
import { designNote, effectiveCounts, pooledCountsDesign } from "./pooled-counts.js";

/** One metric of one cell before multiplicity: its estimates, raw p-values and what forced its verdict. */
export interface Draft {
  cell: string;
  metric: MetricName;
  gated: boolean;
  higherIsBetter: boolean;
  tolerance: number;
  baseline: number | null;
  candidate: number | null;
  ratio: number | null;
  ci: [number, number] | null;
  worse: number | null;
  pWorse: number | null;
  pBetter: number | null;
  pWithinTolerance: number | null;
  /** Regression / improvement tests against the tolerance margin. */
  pBeyond: number | null;
  pBetterBeyond: number | null;
  /** The smallest p each of those tests can attain (absent: 0, a continuous test); see gated-family.ts. */
  minPBeyond?: number;
  minPBetterBeyond?: number;
  test: LogRatioTest | null;
  /** The metric whose values were judged when the gated one is absent from the inputs. */
  judgedOn: MetricName | null;
  /** Set when the verdict is decided without a test (missing data, error-rate limit). */
  forced: MetricVerdict | null;
  /** Why more runs can never decide this check (null when they might). */
  unfixable: string | null;
  notes: string[];
  runs: { baseline: number; candidate: number };
  crossCheck: Comparison["crossCheck"];
  /**
   * Variances of per-run logs, for the futility check of adaptive repeats: each side's run-to-run
   * variance, the known extra (session drift) and the start-to-start variance used (0 when every run was
   * its own start, which the run variances then hold).
   */
  variances: {
    baseline: number;
    candidate: number;
    extra: number;
    start: number;
    /** Σn_g²/N² of each side as measured (the share of the start variance in its mean). */
    startWeights: { baseline: number; candidate: number };
  } | null;
  /** The noise levels for verdict.json (null: not tested on per-run logs). */
  noise: Comparison["noise"];
}

/** What every per-metric draft of a comparison shares. */
export interface DraftSettings {
  gate: GateConfig;
  gatedSet: ReadonlySet<MetricName>;
  /**
   * Quality cells (their runs kept outputs: greedy-output or task cells, docs/quality.md): sent greedy at
   * low load for their outputs, so their speed checks are advisory and never ask for more runs.
   */
  advisoryCells?: ReadonlySet<string>;
  /** Level of each side of the within-tolerance test. */
  passAlpha: number;
  /** Between-session drift variance of a metric's ln values (0 when both sides share a session). */
  driftVarianceFor: (metric: MetricName) => number;
  /** The baseline's run-to-run variance pooled over main's history (stored mode with a history), if any. */
  baselineVariancePriorFor?: (
    cell: string,
    metric: MetricName,
  ) => (VariancePrior & { description?: PriorDescription }) | undefined;
  /** The start-to-start variance believed for a cell's metric before its runs (none: the starts alone). */
  startPriorFor?: (
    cell: string,
    metric: MetricName,
  ) => (StartVariancePrior & { source: string; description?: PriorDescription }) | undefined;
  /** The run-to-run variance measured on this runner for both sides (interleaved: a calibration), if any. */
  runPriorFor?: (
    cell: string,
    metric: MetricName,
  ) => (RunVariancePrior & { description: PriorDescription }) | undefined;
}

type DescribedStartPrior = StartVariancePrior & { source: string; description?: PriorDescription };
type DescribedBaselinePrior = VariancePrior & { description?: PriorDescription };
type DescribedRunPrior = RunVariancePrior & { description: PriorDescription };

/**
 * Stage 3: the per-metric drafts of one compared cell: the test on per-run logs (or the pooled error
 * count), a stand-in percentile for one the inputs lack, and the reasons a check is forced. Metrics absent
 * from every input and not gated get no draft.
 */
export function draftsForCell(compared: ComparedCell, settings: DraftSettings, warnings: string[]): Draft[] {
  const { base, cand } = compared;
  const runs = [...base, ...cand];
  const drafts: Draft[] = [];
  for (const metric of metricNames) {
    // The guards are a family of their own (guards.ts), never traded against speed.
    if (isGuardMetric(metric)) continue;
    // The floor counts the requests the metric's value summarises (a depth bucket's, not the run's).
    const fewestCompleted = smallest(
      runs.map((run) =>
        Math.min(run.requests.completed, run.metricRequests?.[metric] ?? Number.POSITIVE_INFINITY),
      ),
    );
    const draft = metricDraft(compared, metric, fewestCompleted, settings, warnings);
    if (draft !== null) drafts.push(draft);
  }
  return drafts;
}

function metricDraft(
  compared: ComparedCell,
  metric: MetricName,
  fewestCompleted: number,
  settings: DraftSettings,
  warnings: string[],
): Draft | null {
  const { cell, base, cand, tooFew } = compared;
  const { gate } = settings;
  const gatedSet: ReadonlySet<MetricName> = settings.advisoryCells?.has(cell) ? new Set() : settings.gatedSet;
  const tolerance = toleranceFor(gate, metric);
  if (metricSpecs[metric].judged === "pooled-failures") {
    return pooledCountDraft(cell, metric, base, cand, gatedSet.has(metric), tolerance, gate.error_rate_limit);
  }
  const draft = untestedDraft(cell, metric, gatedSet.has(metric), tolerance, {
    baseline: base.length,
    candidate: cand.length,
  });
  const found = sampleOf(draft, compared, fewestCompleted, warnings);
  if (found === "no-check") return null;
  if (found === "forced") return draft;
  const sample = leaveOutShortRuns(draft, compared, found, gate);
  const { b, c } = sample;
  draft.baseline = b.values.length > 0 ? geometricMean(b.values) : null;
  draft.candidate = c.values.length > 0 ? geometricMean(c.values) : null;
  if (decidedWithoutTest(draft, sample, tooFew, gate)) return draft;
  const judged = draft.judgedOn ?? metric;
  testOnRunLogs(draft, b, c, {
    extraVariance: settings.driftVarianceFor(metric),
    minRunSd: gate.min_run_sd,
    passAlpha: settings.passAlpha,
    baselineVariancePrior: settings.baselineVariancePriorFor?.(cell, judged),
    startPrior: settings.startPriorFor?.(cell, judged),
    runPrior: settings.runPriorFor?.(cell, judged),
  });
  return draft;
}

/** A draft with nothing measured yet: every estimate and p-value null, no note. */
function untestedDraft(
  cell: string,
  metric: MetricName,
  gated: boolean,
  tolerance: number,
  runs: Draft["runs"],
): Draft {
  return {
    cell,
    metric,
    gated,
    higherIsBetter: metricSpecs[metric].higherIsBetter,
    tolerance,
    baseline: null,
    candidate: null,
    ratio: null,
    ci: null,
    worse: null,
    pWorse: null,
    pBetter: null,
    pWithinTolerance: null,
    pBeyond: null,
    pBetterBeyond: null,
    test: null,
    judgedOn: null,
    forced: null,
    unfixable: null,
    notes: [],
    runs,
    crossCheck: null,
    variances: null,
    noise: null,
  };
}

/** The values a check is judged on: each side's, the statistic whose request floor applies, the shortest run. */
interface Sample {
  b: MetricValues;
  c: MetricValues;
  statistic: (typeof metricSpecs)[MetricName]["minRequests"];
  fewestCompleted: number;
}

/**
 * The values of the draft's metric, or of its stand-in percentile when the inputs lack it. "no-check":
 * nothing to check (not gated, or a part or a server feature neither side has); "forced": gated, with no
 * stand-in, the draft is forced inconclusive.
 */
function sampleOf(
  draft: Draft,
  { base, cand }: ComparedCell,
  fewestCompleted: number,
  warnings: string[],
): Sample | "no-check" | "forced" {
  const { metric } = draft;
  const b = metricValues(base, metric);
  const c = metricValues(cand, metric);
  const absent = (v: MetricValues) => v.values.length === 0 && v.nonPositive === 0;
  if (!absent(b) || !absent(c)) return { b, c, statistic: metricSpecs[metric].minRequests, fewestCompleted };
  // Absent from every input: vLLM's `--metric-percentiles` defaults to 99, so p95 is often missing.
  if (!draft.gated) return "no-check";
  // A session metric is measured by a session dataset's cells only, a fan-out metric by those with
  // fan-outs (docs/workloads.md): a cell without that part has none to gate, which is no gap in its inputs.
  const part = metricSpecs[metric].measuredIn;
  if (part !== undefined && withoutPart(base, part) && withoutPart(cand, part)) return "no-check";
  // Nor is acceptance a gap where neither side's server speculates (docs/metrics.md).
  if (metricSpecs[metric].source.kind === "spec-decode") return "no-check";
  const substitute = judgeOnStandIn(draft, base, cand, warnings);
  if (substitute === null) return "forced";
  return {
    b: metricValues(base, substitute),
    c: metricValues(cand, substitute),
    statistic: metricSpecs[substitute].minRequests,
    fewestCompleted,
  };
}

/**
 * A few short runs (failed requests in a run planned near the floor) are left out of a gated check rather
 * than turning it advisory, which would let a regression pass unblocked: when most runs of each side
 * (two at least) reach gate.min_requests, the others are left out, with a note.
 */
function leaveOutShortRuns(
  draft: Draft,
  { base, cand }: ComparedCell,
  sample: Sample,
  gate: GateConfig,
): Sample {
  const { statistic, fewestCompleted } = sample;
  if (!draft.gated || statistic === null || fewestCompleted >= gate.min_requests[statistic]) return sample;
  const { metric } = draft;
  const floor = gate.min_requests[statistic];
  const enough = (run: RunRecord) =>
    Math.min(run.requests.completed, run.metricRequests?.[metric] ?? Number.POSITIVE_INFINITY) >= floor;
  const keptBase = base.filter(enough);
  const keptCand = cand.filter(enough);
  const most = (kept: readonly RunRecord[], all: readonly RunRecord[]) =>
    kept.length >= Math.max(2, all.length / 2);
  if (draft.judgedOn !== null || !most(keptBase, base) || !most(keptCand, cand)) return sample;
  const left = base.length - keptBase.length + cand.length - keptCand.length;
  draft.runs = { baseline: keptBase.length, candidate: keptCand.length };
  draft.notes.push(
    `${left} run${left === 1 ? "" : "s"} with fewer than ${floor} successful requests left out of this check (gate.min_requests.${statistic})`,
  );
  return {
    b: metricValues(keptBase, metric),
    c: metricValues(keptCand, metric),
    statistic,
    fewestCompleted: floor,
  };
}

/**
 * The reasons a check is decided without a test, applied to the draft: runs too short to gate its
 * statistic (advisory, or inconclusive for a stand-in), values missing or zero, fewer than 2 usable runs
 * on a side. True when one applied and the draft is final.
 */
function decidedWithoutTest(draft: Draft, sample: Sample, tooFew: boolean, gate: GateConfig): boolean {
  const { b, c, statistic, fewestCompleted } = sample;
  const { cell, metric } = draft;
  if (draft.gated && statistic !== null && fewestCompleted < gate.min_requests[statistic]) {
    const why = `gating ${statistic} needs >= ${gate.min_requests[statistic]} successful requests in every run (fewest: ${fewestCompleted})`;
    if (draft.judgedOn !== null) {
      // A stand-in for a gated metric must not turn into an advisory one: that would let it pass.
      draft.forced = "inconclusive";
      draft.unfixable = `${describeMetric(metric)} is missing and its stand-in cannot be gated: ${why}`;
      draft.notes.push(why);
      return true;
    }
    draft.gated = false;
    draft.notes.push(`advisory: ${why}`);
  }
  if (b.missing + c.missing + b.nonPositive + c.nonPositive > 0) {
    draft.forced = "inconclusive";
    const note = `missing or zero in ${b.missing + b.nonPositive} baseline and ${c.missing + c.nonPositive} candidate runs`;
    draft.notes.push(note);
    // Those runs stay in the sample, so more runs cannot fill the gap.
    draft.unfixable = `${describeMetric(metric)} is ${note} of cell "${cell}"`;
    return true;
  }
  if (tooFew) {
    draft.forced = "inconclusive";
    draft.ratio = draft.candidate! / draft.baseline!;
    draft.notes.push("fewer than 2 usable runs on a side");
    return true;
  }
  return false;
}

/**
 * A gated metric in none of the inputs: the nearest percentile every run has stands in for it (noted and
 * warned), or the check is forced inconclusive, for good, when there is none. Returns the stand-in.
 */
function judgeOnStandIn(
  draft: Draft,
  base: readonly RunRecord[],
  cand: readonly RunRecord[],
  warnings: string[],
): MetricName | null {
  const { cell, metric } = draft;
  const substitute = fallbackPercentile(metric, base, cand);
  const flag = "add --metric-percentiles 95,99 (or --save-detailed) to vllm bench serve";
  if (substitute === null) {
    draft.forced = "inconclusive";
    draft.unfixable = `${describeMetric(metric)} is in none of the inputs; ${flag}`;
    draft.notes.push(`not in the inputs; ${flag}`);
    warnings.push(
      `${describeMetric(metric)} is gated but not in the inputs of cell "${cell}", so the cell cannot pass: ${flag}`,
    );
    return null;
  }
  draft.judgedOn = substitute;
  draft.notes.push(
    `judged on ${describeMetric(substitute)}: the inputs have no ${describeMetric(metric)}; ${flag}`,
  );
  warnings.push(
    `${describeMetric(metric)} is not in the inputs of cell "${cell}"; it was judged on ${describeMetric(substitute)} instead (${flag})`,
  );
  return substitute;
}

/** The test on per-run logs (both levels: runs and server starts), with the rank tests as a cross-check from 5 runs a side: fills the draft. */
function testOnRunLogs(
  draft: Draft,
  baseline: MetricValues,
  candidate: MetricValues,
  options: {
    extraVariance: number;
    minRunSd: number;
    passAlpha: number;
    baselineVariancePrior: DescribedBaselinePrior | undefined;
    startPrior: DescribedStartPrior | undefined;
    runPrior: DescribedRunPrior | undefined;
  },
): void {
  const { extraVariance, minRunSd, passAlpha, baselineVariancePrior, startPrior, runPrior } = options;
  const test = logRatioTest(baseline.values, candidate.values, {
    higherIsBetter: draft.higherIsBetter,
    tolerance: draft.tolerance,
    alphaEachSide: passAlpha,
    extraVariance,
    minRunSd,
    starts: { baseline: baseline.starts, candidate: candidate.starts },
    ...(baselineVariancePrior ? { baselineVariancePrior } : {}),
    ...(startPrior ? { startPrior } : {}),
    ...(runPrior ? { runPrior } : {}),
  });
  draft.test = test;
  draft.ratio = test.ratio;
  draft.ci = test.ratioInterval;
  draft.worse = test.worse;
  draft.pWorse = test.pWorse;
  draft.pBetter = test.pBetter;
  draft.pBeyond = test.pBeyondTolerance;
  draft.pBetterBeyond = test.pBetterBeyondTolerance;
  draft.pWithinTolerance = test.pWithinTolerance;
  if (test.floored)
    draft.notes.push(`runs nearly identical: run-to-run sd floored at ${minRunSd} (gate.min_run_sd)`);
  const levels = test.levels;
  const sharedStarts = !levels.baseline.singleRunStarts || !levels.candidate.singleRunStarts;
  draft.variances = {
    baseline: test.baselineVariance,
    candidate: test.candidateVariance,
    extra: extraVariance,
    start: sharedStarts ? levels.startVariance : 0,
    startWeights: {
      baseline: levels.baseline.singleRunStarts ? 0 : levels.baseline.startWeight,
      candidate: levels.candidate.singleRunStarts ? 0 : levels.candidate.startWeight,
    },
  };
  draft.noise = noiseLevels(levels, sharedStarts, startPrior, runPrior ?? baselineVariancePrior);
  if (baseline.values.length >= 5 && candidate.values.length >= 5) {
    const mwu = mannWhitney(candidate.values, baseline.values);
    const hl = hodgesLehmann(baseline.values.map(Math.log), candidate.values.map(Math.log));
    draft.crossCheck = {
      mannWhitneyP: draft.higherIsBetter ? mwu.pLess : mwu.pGreater,
      hodgesLehmannRatio: Math.exp(hl.shift),
    };
  }
}

/**
 * The start level of a draft's projections (stats/metric-test.ts StartProjection): future runs in starts
 * of `runsPerStart`; a stored baseline keeps its measured share; `current`: both sides as measured.
 */
export function startProjectionOf(
  draft: Draft,
  runsPerStart: number,
  how: "interleaved" | "stored" | "current",
): StartProjection | undefined {
  const v = draft.variances;
  if (!v || v.start <= 0) return undefined;
  const fixedWeights =
    how === "current"
      ? { baseline: v.startWeights.baseline, candidate: v.startWeights.candidate }
      : how === "stored"
        ? { baseline: v.startWeights.baseline }
        : undefined;
  return { startVariance: v.start, runsPerStart, ...(fixedWeights ? { fixedWeights } : {}) };
}

function noiseLevels(
  levels: TwoLevelResult,
  sharedStarts: boolean,
  prior: DescribedStartPrior | undefined,
  runPrior: DescribedRunPrior | DescribedBaselinePrior | undefined,
): NonNullable<Comparison["noise"]> {
  const total = levels.standardError ** 2;
  const sides = [levels.baseline, levels.candidate];
  return {
    ...startNoiseOf(
      levels,
      { baseline: levels.baseline.starts, candidate: levels.candidate.starts },
      sharedStarts,
      prior,
    ),
    runSd: {
      baseline: Math.sqrt(levels.baseline.runVariance),
      candidate: Math.sqrt(levels.candidate.runVariance),
    },
    startShare: total > 0 ? levels.startPart / total : 0,
    runBasis: sides.some((side) => side.runPrior === "pooled") ? "measured+prior" : "measured",
    runDf: { baseline: levels.baseline.runVarianceDf, candidate: levels.candidate.runVarianceDf },
    priors: {
      start: startPriorUse(levels, sharedStarts, prior),
      run: runPriorUse(levels, runPrior),
    },
  };
}

type PriorUse = NonNullable<NonNullable<Comparison["noise"]>["priors"]>["run"];

function priorUse(
  description: PriorDescription,
  prior: VariancePrior,
  use: NonNullable<PriorUse>["use"],
  widenedOn: NonNullable<PriorUse>["widenedOn"],
): NonNullable<PriorUse> {
  return { ...description, sd: Math.sqrt(prior.variance), df: prior.df, use, widenedOn };
}

function startPriorUse(
  levels: TwoLevelResult,
  sharedStarts: boolean,
  prior: DescribedStartPrior | undefined,
): PriorUse {
  if (!prior?.description || !(prior.df > 0)) return null;
  if (!sharedStarts) return priorUse(prior.description, prior, "unused", []);
  return levels.priorContradicted
    ? priorUse(prior.description, prior, "widened", ["baseline", "candidate"])
    : priorUse(prior.description, prior, "pooled", []);
}

/** The run-level prior as offered to the sides: the kind each side's runs hold (two-level.ts). */
function runPriorUse(
  levels: TwoLevelResult,
  prior: DescribedRunPrior | DescribedBaselinePrior | undefined,
): PriorUse {
  if (!prior?.description) return null;
  const offeredTo = (side: TwoLevelResult["baseline"]): VariancePrior | undefined => {
    if (!("withinStart" in prior || "perRun" in prior)) return "variance" in prior ? prior : undefined;
    return side.singleRunStarts ? prior.perRun : prior.withinStart;
  };
  const sides = [
    ["candidate", levels.candidate],
    ["baseline", levels.baseline],
  ] as const;
  const offered = sides.filter(([, side]) => side.runPrior !== "none");
  const shown = offered.map(([, side]) => offeredTo(side)).find((p) => p !== undefined);
  if (!shown) return null;
  const widenedOn = offered.filter(([, side]) => side.runPrior === "widened").map(([name]) => name);
  return priorUse(prior.description, shown, widenedOn.length > 0 ? "widened" : "pooled", widenedOn.sort());
}

function toleranceFor(gate: GateConfig, metric: MetricName): number {
  return gate.metric_tolerance[metric] ?? gate.tolerance;
}

function geometricMean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += Math.log(v);
  return Math.exp(sum / values.length);
}

/**
 * Runs without that part (a cell of single requests or vLLM's results have no sessions; sessions without
 * fan_out no fan-outs): every metric of the part is missing.
 */
function withoutPart(runs: readonly RunRecord[], part: "sessions" | "fan-outs"): boolean {
  const names = metricsMeasuredIn(part);
  return runs.every((run) => names.every((name) => run.metrics[name] == null));
}

interface MetricValues {
  values: number[];
  /** The server start of each value's run (startOf), aligned with `values`. */
  starts: string[];
  missing: number;
  nonPositive: number;
}

function metricValues(runs: readonly RunRecord[], metric: MetricName): MetricValues {
  const values: number[] = [];
  const starts: string[] = [];
  let missing = 0;
  let nonPositive = 0;
  for (const run of runs) {
    const value = run.metrics[metric];
    if (value === undefined || value === null || !Number.isFinite(value)) missing++;
    else if (value <= 0) nonPositive++;
    else {
      values.push(value);
      starts.push(startOf(run));
    }
  }
  return { values, starts, missing, nonPositive };
}

/** A pooled count of one side: failed of all requests, or malformed of all tool calls. */
interface Count {
  failed: number;
  total: number;
}

/** What a pooled count counts in a run: its failed requests, or its malformed tool calls. */
function countOf(metric: MetricName): (run: RunRecord) => Count {
  if (metricSpecs[metric].source.kind !== "malformed-tool-calls")
    return (run) => ({ failed: run.requests.failed, total: run.requests.total });
  return (run) => ({
    failed: run.toolCalls?.malformed ?? 0,
    total: (run.toolCalls?.wellFormed ?? 0) + (run.toolCalls?.malformed ?? 0),
  });
}

/** A pooled count's draft (error_rate, malformed_tool_call_share); null when neither side has anything to count. */
function pooledCountDraft(
  cell: string,
  metric: MetricName,
  base: readonly RunRecord[],
  cand: readonly RunRecord[],
  gated: boolean,
  tolerance: number,
  limit: number,
): Draft | null {
  const toolCalls = metricSpecs[metric].source.kind === "malformed-tool-calls";
  const counts = countOf(metric);
  const pool = (runs: readonly RunRecord[]) =>
    runs.reduce(
      (acc, run) => {
        const count = counts(run);
        return { failed: acc.failed + count.failed, total: acc.total + count.total };
      },
      { failed: 0, total: 0 },
    );
  const b = pool(base);
  const c = pool(cand);
  // No tool call on either side: nothing to judge (a workload without tools).
  if (toolCalls && b.total === 0 && c.total === 0 && !gated) return null;
  const baseRate = b.total > 0 ? b.failed / b.total : null;
  const candRate = c.total > 0 ? c.failed / c.total : null;
  const design = countDesign(base, cand, counts, b, c);
  const asFailures = (side: Count) => {
    const effective = effectiveCounts({ count: side.failed, total: side.total }, design.factor);
    return { failed: effective.count, total: effective.total };
  };
  const eb = asFailures(b);
  const ec = asFailures(c);
  const pWorse = errorIncreaseP(eb, ec);
  const pBetter = errorIncreaseP(ec, eb);
  const draft: Draft = {
    ...untestedDraft(cell, metric, gated, tolerance, { baseline: base.length, candidate: cand.length }),
    baseline: baseRate,
    candidate: candRate,
    ratio: baseRate !== null && candRate !== null && baseRate > 0 ? candRate / baseRate : null,
    // Orientation for the shared rule: beyond tolerance only when the rate rose by more than δ relative.
    worse: baseRate !== null && candRate !== null ? Math.log((candRate + 1e-12) / (baseRate + 1e-12)) : null,
    pWorse,
    pBetter,
    // No estimate of run-to-run spread for a pooled count: "no change" means no significant increase.
    pWithinTolerance: null,
    pBeyond: pWorse,
    pBetterBeyond: pBetter,
    minPBeyond: errorIncreaseMinP(eb, ec),
    minPBetterBeyond: errorIncreaseMinP(ec, eb),
    noise: design.noise,
  };
  const note = designNote(design.factor);
  if (note !== null) draft.notes.push(note);
  forcePooledCount(draft, { toolCalls, candRate, limit, b, c });
  return draft;
}

/**
 * The exact test takes every request as independent; failures come in bursts of a run or a start, so
 * the counts are divided by the design effect the per-run rates grouped by start show (pooled-counts.ts).
 */
function countDesign(
  base: readonly RunRecord[],
  cand: readonly RunRecord[],
  counts: (run: RunRecord) => Count,
  b: Count,
  c: Count,
): ReturnType<typeof pooledCountsDesign> {
  if (!(b.total > 0 && c.total > 0)) return { factor: 1, noise: null };
  const perRun = (runs: readonly RunRecord[]) =>
    runs.map((run) => {
      const count = counts(run);
      return { value: count.total > 0 ? count.failed / count.total : null, start: startOf(run) };
    });
  const pooledRate = (b.failed + c.failed) / Math.max(1, b.total + c.total);
  return pooledCountsDesign(
    perRun(base),
    perRun(cand),
    pooledRate * (1 - pooledRate) * (1 / b.total + 1 / c.total),
  );
}

/** A pooled count's forced verdicts: an error rate above the limit blocks; a side without counts is inconclusive. */
function forcePooledCount(
  draft: Draft,
  {
    toolCalls,
    candRate,
    limit,
    b,
    c,
  }: {
    toolCalls: boolean;
    candRate: number | null;
    limit: number;
    b: Count;
    c: Count;
  },
): void {
  if (!toolCalls && candRate !== null && candRate > limit) {
    // A candidate that fails more requests than allowed cannot pass on latency: always blocking.
    draft.gated = true;
    draft.forced = "regression";
    draft.notes.push(
      `candidate error rate ${(candRate * 100).toFixed(2)}% is above the ${(limit * 100).toFixed(2)}% limit`,
    );
  }
  if (b.total === 0 || c.total === 0) {
    const what = toolCalls ? "tool calls" : "requests";
    draft.forced = "inconclusive";
    draft.notes.push(`no ${what} recorded on a side`);
    if (b.total === 0) draft.unfixable = `no baseline ${what} recorded in cell "${draft.cell}"`;
  }
}

/** Nearest percentile of the same phase that every run on both sides has (p95 → p99, then p90). */
const fallbackOrder: Partial<Record<LatencyStatistic, readonly LatencyStatistic[]>> = {
  p90: ["p95", "p99"],
  p95: ["p99", "p90"],
  p99: ["p99_9", "p95"],
  p99_9: ["p99"],
};

function fallbackPercentile(
  metric: MetricName,
  base: readonly RunRecord[],
  cand: readonly RunRecord[],
): MetricName | null {
  const source = metricSpecs[metric].source;
  if (source.kind !== "latency") return null;
  for (const statistic of fallbackOrder[source.statistic] ?? []) {
    const other = latencyMetricName(source.phase, statistic);
    const complete = (runs: readonly RunRecord[]) => metricValues(runs, other).values.length === runs.length;
    if (complete(base) && complete(cand)) return other;
  }
  return null;
}
