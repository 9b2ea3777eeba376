import { higherIsBetter as higherIsBetterSet, type MetricName, metricNames } from "../config/metric-names.js";
import type { GateConfig } from "../config/schema.js";
import { errorIncreaseP } from "../stats/error-rate.js";
import {
  classify,
  type LogRatioTest,
  logRatioTest,
  type MetricVerdict,
  minimumDetectableChange,
  resolvableWithMoreRuns,
  runsToDetect,
  runsToSettle,
  worseBound,
} from "../stats/metric-test.js";
import { bhAdjust, holmAdjust } from "../stats/multiplicity.js";
import { screenOutliers } from "../stats/outlier-screen.js";
import { hodgesLehmann, mannWhitney } from "../stats/rank-tests.js";
import { lookSchedule, nextLookAfter, passLevel, perLookLevel } from "../stats/sequential.js";
import { addedGpuMinutes, type CostRates } from "./cost.js";
import { describeDifference, diffFingerprints, flattenFingerprint } from "./fingerprint.js";
import { describeMetric } from "./metric-labels.js";
import type { RunRecord } from "./run-record.js";
import { type DriftEstimate, estimateSessionDrift } from "./session-drift.js";
import { headlineFor, impactOf, mixedResults } from "./summary.js";
import {
  type BaselineInfo,
  type Comparison,
  type ComparisonMode,
  type OverallVerdict,
  type VerdictFile,
  verdictSchemaVersion,
} from "./verdict-schema.js";

export interface AnalyzeInput {
  baseline: readonly RunRecord[];
  candidate: readonly RunRecord[];
  gate: GateConfig;
  repeats: { min: number; max: number; block?: number };
  mode: ComparisonMode;
  baselineInfo?: BaselineInfo | null;
  /**
   * Stored mode: runs of earlier baseline sessions of the base branch (each with its `session`), used only
   * to estimate the between-session drift; the baseline side itself is `baseline`.
   */
  history?: readonly RunRecord[];
  /** ISO time stamped into verdict.json (injected: the core stays deterministic). */
  now: string;
  tool: { name: string; version: string };
  /** Minutes of one cell-run for the GPU-time estimates (config run length; default 1). */
  runMinutes?: number;
}

type Side = "baseline" | "candidate";

interface Draft {
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
  /** Variances of per-run logs, for the futility check of adaptive repeats. */
  variances: { baseline: number; candidate: number; extra: number } | null;
}

const minimumRequestKey: Partial<Record<string, keyof GateConfig["min_requests"]>> = {
  p90: "p90",
  p95: "p95",
  p99: "p99",
  p99_9: "p99_9",
};

function geometricMean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += Math.log(v);
  return Math.exp(sum / values.length);
}

function groupByCell(runs: readonly RunRecord[]): Map<string, RunRecord[]> {
  const cells = new Map<string, RunRecord[]>();
  for (const run of runs) {
    const list = cells.get(run.cell);
    if (list) list.push(run);
    else cells.set(run.cell, [run]);
  }
  return cells;
}

function metricValues(
  runs: readonly RunRecord[],
  metric: MetricName,
): { values: number[]; missing: number; nonPositive: number } {
  const values: number[] = [];
  let missing = 0;
  let nonPositive = 0;
  for (const run of runs) {
    const value = run.metrics[metric];
    if (value === undefined || value === null || !Number.isFinite(value)) missing++;
    else if (value <= 0) nonPositive++;
    else values.push(value);
  }
  return { values, missing, nonPositive };
}

function percentileStatistic(metric: MetricName): keyof GateConfig["min_requests"] | undefined {
  const statistic = metric.replace(/^(ttft|tpot|itl|e2el)_/, "");
  return statistic === metric ? undefined : minimumRequestKey[statistic];
}

function toleranceFor(gate: GateConfig, metric: MetricName): number {
  return gate.metric_tolerance[metric] ?? gate.tolerance;
}

export function analyze(input: AnalyzeInput): VerdictFile {
  const { gate, mode } = input;
  const familyAlpha = 1 - gate.confidence;
  const looks = lookSchedule(input.repeats.min, input.repeats.max);
  // The stage of the PR: the most candidate runs measured in any cell (screened runs included).
  const stage = Math.max(0, ...[...groupByCell(input.candidate).values()].map((runs) => runs.length));
  const alpha = perLookLevel(familyAlpha, looks, stage, mode);
  const passAlpha = passLevel(familyAlpha);
  const driftSd = mode === "stored" ? gate.session_drift_sd : 0;
  const defaultDriftVariance = driftSd * driftSd;
  const driftBaseline = input.baseline.filter((run) => run.exclusionReasons.length === 0);
  const driftRuns = [...driftBaseline];
  const driftSources = new Set(driftBaseline.map((run) => run.source));
  for (const run of input.history ?? [])
    if (run.exclusionReasons.length === 0 && !driftSources.has(run.source)) driftRuns.push(run);
  const driftEstimates =
    mode === "stored"
      ? estimateSessionDrift(driftRuns, {
          priorSd: driftSd,
          baselineSessions: Math.max(1, new Set(driftBaseline.map((run) => run.session ?? "")).size),
        })
      : new Map<MetricName, DriftEstimate>();
  // The history's estimate, shrunk towards the prior, replaces it (up or down): the prior is no floor.
  const driftVarianceFor = (metric: MetricName): number =>
    driftEstimates.get(metric)?.differenceVariance ?? defaultDriftVariance;
  const gatedSet = new Set<MetricName>(gate.metrics);
  const warnings: string[] = [];

  const candidateInput = pairSingleCells(input.baseline, input.candidate, warnings);
  const sides = { baseline: input.baseline, candidate: candidateInput };
  const excluded: VerdictFile["runs"]["excluded"] = [];
  const healthy = { baseline: [] as RunRecord[], candidate: [] as RunRecord[] };
  const refOf = (side: Side, run: RunRecord) => ({ side, cell: run.cell, run: run.run, source: run.source });
  for (const side of ["baseline", "candidate"] as const) {
    for (const run of sides[side]) {
      if (run.exclusionReasons.length > 0)
        excluded.push({ ...refOf(side, run), reasons: run.exclusionReasons });
      else healthy[side].push(run);
    }
  }
  const screened = screenRuns(healthy, gate, warnings);
  const usable = {
    baseline: healthy.baseline.filter((run) => !screened.has(run)),
    candidate: healthy.candidate.filter((run) => !screened.has(run)),
  };
  for (const side of ["baseline", "candidate"] as const)
    for (const run of healthy[side]) {
      const reason = screened.get(run);
      if (reason) excluded.push({ ...refOf(side, run), reasons: [reason] });
    }
  const used: VerdictFile["runs"]["used"] = [
    ...usable.baseline.map((run) => refOf("baseline", run)),
    ...usable.candidate.map((run) => refOf("candidate", run)),
  ];
  const cellsBySide = { baseline: groupByCell(usable.baseline), candidate: groupByCell(usable.candidate) };
  const allCells = [
    ...new Set([...sides.baseline.map((r) => r.cell), ...sides.candidate.map((r) => r.cell)]),
  ];
  const measuredRuns = (side: Side, cell: string) => sides[side].filter((run) => run.cell === cell).length;

  const cells: VerdictFile["cells"] = [];
  const drafts: Draft[] = [];
  /** Cells that more candidate runs cannot help, with the reason. */
  const unfixableCells = new Map<string, string>();
  const fingerprintPairs: {
    cell: string;
    baseline: Record<string, unknown>;
    candidate: Record<string, unknown>;
  }[] = [];
  const firstBySide = (side: Side, cell: string) =>
    cellsBySide[side].get(cell)?.[0] ?? sides[side].find((run) => run.cell === cell);

  for (const cell of allCells) {
    const base = cellsBySide.baseline.get(cell) ?? [];
    const cand = cellsBySide.candidate.get(cell) ?? [];
    const baseFirst = firstBySide("baseline", cell);
    const candFirst = firstBySide("candidate", cell);
    if (baseFirst && candFirst)
      fingerprintPairs.push({ cell, baseline: baseFirst.fingerprint, candidate: candFirst.fingerprint });
    if (base.length === 0 || cand.length === 0) {
      const side: Side = base.length === 0 ? "baseline" : "candidate";
      const present = sides[side].some((run) => run.cell === cell);
      cells.push({
        name: cell,
        baselineRuns: base.length,
        candidateRuns: cand.length,
        status: side === "baseline" ? "missing-baseline" : "missing-candidate",
        note: present ? `every ${side} run of this cell was excluded` : `no ${side} runs for this cell`,
      });
      if (side === "baseline" && mode === "stored")
        unfixableCells.set(cell, `the stored baseline has no usable run of cell "${cell}"`);
      continue;
    }
    const tooFew = base.length < 2 || cand.length < 2;
    cells.push({
      name: cell,
      baselineRuns: base.length,
      candidateRuns: cand.length,
      status: tooFew ? "too-few-runs" : "compared",
      note: tooFew ? "at least 2 usable runs per side are needed to estimate run-to-run noise" : null,
    });
    if (mode === "stored" && base.length < 2)
      unfixableCells.set(
        cell,
        `the stored baseline has ${base.length} usable run of cell "${cell}" and at least 2 are needed; record the baseline again with more runs`,
      );
    if (base.every((run) => run.requests.completed === 0))
      unfixableCells.set(cell, `every request of every baseline run of cell "${cell}" failed`);
    const fewestCompleted = Math.min(...[...base, ...cand].map((run) => run.requests.completed));
    for (const metric of metricNames) {
      const higher = higherIsBetterSet.has(metric);
      const tolerance = toleranceFor(gate, metric);
      const runs = { baseline: base.length, candidate: cand.length };
      if (metric === "error_rate") {
        drafts.push(errorRateDraft(cell, base, cand, gatedSet.has(metric), tolerance, gate.error_rate_limit));
        continue;
      }
      let b = metricValues(base, metric);
      let c = metricValues(cand, metric);
      const draft: Draft = {
        cell,
        metric,
        gated: gatedSet.has(metric),
        higherIsBetter: higher,
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
      };
      const absent = (v: ReturnType<typeof metricValues>) => v.values.length === 0 && v.nonPositive === 0;
      let statistic = percentileStatistic(metric);
      if (absent(b) && absent(c)) {
        // Absent from every input: vLLM's `--metric-percentiles` defaults to 99, so p95 is often missing.
        if (!draft.gated) continue;
        const substitute = fallbackPercentile(metric, base, cand);
        const flag = "add --metric-percentiles 95,99 (or --save-detailed) to vllm bench serve";
        if (substitute === null) {
          draft.forced = "inconclusive";
          draft.unfixable = `${describeMetric(metric)} is in none of the inputs; ${flag}`;
          draft.notes.push(`not in the inputs; ${flag}`);
          warnings.push(
            `${describeMetric(metric)} is gated but not in the inputs of cell "${cell}", so the cell cannot pass: ${flag}`,
          );
          drafts.push(draft);
          continue;
        }
        draft.judgedOn = substitute;
        b = metricValues(base, substitute);
        c = metricValues(cand, substitute);
        statistic = percentileStatistic(substitute);
        draft.notes.push(
          `judged on ${describeMetric(substitute)}: the inputs have no ${describeMetric(metric)}; ${flag}`,
        );
        warnings.push(
          `${describeMetric(metric)} is not in the inputs of cell "${cell}"; it was judged on ${describeMetric(substitute)} instead (${flag})`,
        );
      }
      draft.baseline = b.values.length > 0 ? geometricMean(b.values) : null;
      draft.candidate = c.values.length > 0 ? geometricMean(c.values) : null;
      if (draft.gated && statistic !== undefined && fewestCompleted < gate.min_requests[statistic]) {
        const why = `gating ${statistic} needs >= ${gate.min_requests[statistic]} successful requests in every run (fewest: ${fewestCompleted})`;
        if (draft.judgedOn !== null) {
          // A stand-in for a gated metric must not turn into an advisory one: that would let it pass.
          draft.forced = "inconclusive";
          draft.unfixable = `${describeMetric(metric)} is missing and its stand-in cannot be gated: ${why}`;
          draft.notes.push(why);
          drafts.push(draft);
          continue;
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
        drafts.push(draft);
        continue;
      }
      if (tooFew) {
        draft.forced = "inconclusive";
        draft.ratio = draft.candidate! / draft.baseline!;
        draft.notes.push("fewer than 2 usable runs on a side");
        drafts.push(draft);
        continue;
      }
      const extraVariance = driftVarianceFor(metric);
      const test = logRatioTest(b.values, c.values, {
        higherIsBetter: higher,
        tolerance,
        alphaEachSide: passAlpha,
        extraVariance,
        minRunSd: gate.min_run_sd,
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
        draft.notes.push(
          `runs nearly identical: run-to-run sd floored at ${gate.min_run_sd} (gate.min_run_sd)`,
        );
      draft.variances = {
        baseline: test.baselineVariance,
        candidate: test.candidateVariance,
        extra: extraVariance,
      };
      if (b.values.length >= 5 && c.values.length >= 5) {
        const mwu = mannWhitney(c.values, b.values);
        const hl = hodgesLehmann(b.values.map(Math.log), c.values.map(Math.log));
        draft.crossCheck = {
          mannWhitneyP: higher ? mwu.pLess : mwu.pGreater,
          hodgesLehmannRatio: Math.exp(hl.shift),
        };
      }
      drafts.push(draft);
    }
  }

  const gatedCount = drafts.filter((d) => d.gated).length;
  const rates: CostRates = {
    ...(input.runMinutes === undefined ? {} : { runMinutes: input.runMinutes }),
    ...(input.repeats.block === undefined ? {} : { runsPerBlock: input.repeats.block }),
  };
  const comparisons = decide(drafts, alpha, passAlpha, gatedCount);
  const differences = diffFingerprints(fingerprintPairs, gate.allowed_differences);
  const notComparable = differences.filter((difference) => !difference.allowed);
  if (notComparable.length > 0 && gate.on_not_comparable === "warn") {
    warnings.push(
      `conditions differ outside the allowed differences: ${notComparable.map((d) => describeDifference(d)).join("; ")}`,
    );
  }

  const gated = comparisons.filter((comparison) => comparison.gated);
  const count = (verdict: MetricVerdict) =>
    gated.filter((comparison) => comparison.verdict === verdict).length;
  const counts = {
    gated: gated.length,
    regression: count("regression"),
    improvement: count("improvement"),
    withinTolerance: count("within-tolerance"),
    inconclusive: count("inconclusive"),
  };
  const brokenCells = cells.filter(
    (cell) => cell.status === "missing-baseline" || cell.status === "missing-candidate",
  );
  let verdict: OverallVerdict;
  if (notComparable.length > 0 && gate.on_not_comparable === "fail") verdict = "not-comparable";
  else if (counts.regression > 0) verdict = "regression";
  else if (brokenCells.length > 0 || allCells.length === 0 || counts.gated === 0) verdict = "error";
  else if (counts.inconclusive > 0) verdict = "inconclusive";
  else verdict = "pass";

  const draftOf = (c: Comparison) => drafts.find((d) => d.cell === c.cell && d.metric === c.metric);
  const futilityInput = (draft: Draft) => ({
    worse: draft.worse!,
    tolerance: draft.tolerance,
    baselineVariance: draft.variances!.baseline,
    candidateVariance: draft.variances!.candidate,
    extraVariance: draft.variances!.extra,
    regressionAlpha: alpha / Math.max(1, gatedCount),
    passAlpha,
  });
  const resolvable = (c: Comparison): boolean => {
    const draft = draftOf(c);
    if (draft?.unfixable || unfixableCells.has(c.cell)) return false;
    // Only a floor that more runs cannot lower (a stored baseline's drift) justifies stopping early:
    // without one, more runs always narrow the interval, and 3-run variance estimates are too noisy
    // to predict by how much.
    if (!draft?.variances || draft.worse === null || draft.variances.extra === 0) return true;
    return resolvableWithMoreRuns({
      ...futilityInput(draft),
      baselineRuns:
        mode === "interleaved" ? Math.max(input.repeats.max, draft.runs.baseline) : draft.runs.baseline,
      candidateRuns: Math.max(input.repeats.max, draft.runs.candidate),
    });
  };
  const nextLook = planNextLook({
    verdict,
    cells,
    comparisons,
    looks,
    mode,
    maxRuns: input.repeats.max,
    resolvable,
    unfixableCells,
    measuredRuns,
    rates,
  });
  if ((verdict === "inconclusive" || verdict === "error") && nextLook === null) {
    warnings.push(
      ...futilityWarnings(comparisons, cells, input.repeats.max, resolvable, draftOf, unfixableCells),
    );
  }
  const settle =
    verdict === "inconclusive"
      ? settleEstimate(comparisons, draftOf, futilityInput, resolvable, mode, input.repeats.max, rates, looks)
      : null;
  const detection = detectionSummary(
    comparisons,
    draftOf,
    gate.detect_change,
    alpha / Math.max(1, gatedCount),
    mode,
    input.repeats.max,
  );
  const exitCode = exitCodeFor(verdict, gate.fail_on);
  const firstFingerprint = (side: Side) => flattenFingerprint(sides[side][0]?.fingerprint ?? {});

  return {
    schemaVersion: verdictSchemaVersion,
    tool: input.tool,
    generatedAt: input.now,
    verdict,
    exitCode,
    headline: headlineFor(verdict, counts, comparisons, brokenCells.length, notComparable.length),
    counts,
    mode,
    baselineInfo: input.baselineInfo ?? null,
    settings: {
      tolerance: gate.tolerance,
      detectChange: gate.detect_change,
      metricTolerance: gate.metric_tolerance as Record<string, number>,
      confidence: gate.confidence,
      familyAlpha,
      lookAlpha: alpha,
      passAlpha,
      looks,
      failOn: gate.fail_on,
      errorRateLimit: gate.error_rate_limit,
      sessionDriftSd: driftSd,
      sessionDriftEstimates: Object.fromEntries(
        [...driftEstimates].map(([metric, estimate]) => [
          metric,
          {
            sd: Math.sqrt(estimate.differenceVariance),
            sessions: estimate.sessions,
            source: estimate.source,
            historySd: estimate.historyT2 === null ? null : Math.sqrt(2 * estimate.historyT2),
            historyWeight: estimate.historyWeight,
            screenedSessions: estimate.screenedSessions,
            screenedRuns: estimate.screenedRuns,
          },
        ]),
      ),
      minRunSd: gate.min_run_sd,
      outlierThreshold: gate.outlier_threshold,
      gatedMetrics: [...gate.metrics],
      minRequests: { ...gate.min_requests },
      allowedDifferences: [...gate.allowed_differences],
      onNotComparable: gate.on_not_comparable,
    },
    cells,
    comparisons,
    mixed: mixedResults(comparisons, alpha),
    impact: impactOf(cells, comparisons),
    fingerprints: {
      baseline: firstFingerprint("baseline"),
      candidate: firstFingerprint("candidate"),
      differences,
    },
    runs: { used, excluded },
    nextLook,
    settle,
    detection,
    warnings,
  };
}

/** The least sensitive gated check: what these runs can catch, and the runs gate.detect_change needs. */
function detectionSummary(
  comparisons: readonly Comparison[],
  draftOf: (comparison: Comparison) => Draft | undefined,
  detectChange: number,
  alpha: number,
  mode: ComparisonMode,
  maxRuns: number,
): VerdictFile["detection"] {
  const checks = comparisons.filter((c) => c.gated && c.detectableChange !== null);
  if (checks.length === 0) return null;
  const worst = checks.reduce((a, b) => (b.detectableChange! > a.detectableChange! ? b : a));
  const draft = draftOf(worst);
  if (!draft?.variances || !draft.test) return null;
  const runs = runsToDetect(
    {
      baselineVariance: draft.variances.baseline,
      candidateVariance: draft.variances.candidate,
      extraVariance: draft.variances.extra,
      tolerance: draft.tolerance,
      alpha,
      df: draft.test.df,
    },
    worst.runs,
    detectChange,
    Math.max(maxRuns, 100),
    mode === "interleaved",
  );
  return {
    cell: worst.cell,
    metric: worst.metric,
    detectableChange: worst.detectableChange!,
    detectChange,
    runsPerSideForDetectChange: runs,
  };
}

/** Metrics screened for outlier runs: the gated ones measured per run (error rate is pooled). */
function screenRuns(
  healthy: { baseline: RunRecord[]; candidate: RunRecord[] },
  gate: GateConfig,
  warnings: string[],
): Map<RunRecord, string> {
  const reasons = new Map<RunRecord, string>();
  if (gate.outlier_threshold <= 0) return reasons;
  const metrics = gate.metrics.filter((metric) => metric !== "error_rate");
  if (metrics.length === 0) return reasons;
  const groups: { side: Side; cell: string; runs: RunRecord[] }[] = [];
  for (const side of ["baseline", "candidate"] as const)
    for (const [cell, runs] of groupByCell(healthy[side])) groups.push({ side, cell, runs });
  const result = screenOutliers(
    groups.map((group) => ({
      // Both sides of a cell share a scale: same workload, same spread; other cells may be noisier.
      pool: group.cell,
      values: group.runs.map((run) =>
        metrics.map((metric) => {
          const value = run.metrics[metric];
          if (value === null || value === undefined || !(value > 0)) return Number.NaN;
          return (higherIsBetterSet.has(metric) ? -1 : 1) * Math.log(value);
        }),
      ),
    })),
    metrics.length,
    { ...defaultScreenOptionsFor(gate) },
  );
  for (const flagged of result.screened) {
    const group = groups[flagged.group]!;
    const run = group.runs[flagged.run]!;
    const moved = metrics
      .map((metric, k) => ({ metric, ratio: flagged.ratios[k]! }))
      .filter((m) => Number.isFinite(m.ratio))
      .map(
        (m) => `${describeMetric(m.metric)} ${m.ratio >= 1 ? "+" : ""}${((m.ratio - 1) * 100).toFixed(1)}%`,
      )
      .join(", ");
    reasons.set(
      run,
      `outlier run: on average ${Math.abs(flagged.score).toFixed(1)} robust sd ${flagged.score > 0 ? "worse" : "better"} than the other ${group.side} runs of this cell on the gated metrics (${moved} vs their median; gate.outlier_threshold ${gate.outlier_threshold})`,
    );
  }
  for (const g of result.tooManyOutliers) {
    const group = groups[g]!;
    warnings.push(
      `the ${group.side} runs of cell "${group.cell}" split into groups too far apart to call one an outlier; none were screened`,
    );
  }
  return reasons;
}

function defaultScreenOptionsFor(gate: GateConfig) {
  return {
    threshold: gate.outlier_threshold,
    minRuns: 5,
    maxShare: 0.2,
    minScale: Math.max(0.01, 2 * gate.min_run_sd),
  };
}

/** Nearest percentile of the same phase that every run on both sides has (p95 → p99, then p90). */
const fallbackOrder: Record<string, readonly string[]> = {
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
  const match = /^(ttft|tpot|itl|e2el)_(.+)$/.exec(metric);
  if (!match) return null;
  for (const statistic of fallbackOrder[match[2]!] ?? []) {
    const other = `${match[1]}_${statistic}` as MetricName;
    const complete = (runs: readonly RunRecord[]) => metricValues(runs, other).values.length === runs.length;
    if (complete(base) && complete(cand)) return other;
  }
  return null;
}

/**
 * `vllm bench serve --label` often names the side ("main", "pr") rather than the workload: with one
 * cell per side under different names, they are the same cell. Said in a warning, never silent.
 */
function pairSingleCells(
  baseline: readonly RunRecord[],
  candidate: readonly RunRecord[],
  warnings: string[],
): readonly RunRecord[] {
  const baseCells = new Set(baseline.map((run) => run.cell));
  const candCells = new Set(candidate.map((run) => run.cell));
  if (baseCells.size !== 1 || candCells.size !== 1) return candidate;
  const [baseCell] = baseCells;
  const [candCell] = candCells;
  if (baseCell === candCell) return candidate;
  warnings.push(
    `one cell per side with different names: candidate "${candCell}" compared with baseline "${baseCell}"`,
  );
  return candidate.map((run) => ({ ...run, cell: baseCell! }));
}

function errorRateDraft(
  cell: string,
  base: readonly RunRecord[],
  cand: readonly RunRecord[],
  gated: boolean,
  tolerance: number,
  limit: number,
): Draft {
  const pool = (runs: readonly RunRecord[]) =>
    runs.reduce(
      (acc, run) => ({ failed: acc.failed + run.requests.failed, total: acc.total + run.requests.total }),
      { failed: 0, total: 0 },
    );
  const b = pool(base);
  const c = pool(cand);
  const baseRate = b.total > 0 ? b.failed / b.total : null;
  const candRate = c.total > 0 ? c.failed / c.total : null;
  const pWorse = errorIncreaseP(b, c);
  const pBetter = errorIncreaseP(c, b);
  const draft: Draft = {
    cell,
    metric: "error_rate",
    gated,
    higherIsBetter: false,
    tolerance,
    baseline: baseRate,
    candidate: candRate,
    ratio: baseRate !== null && candRate !== null && baseRate > 0 ? candRate / baseRate : null,
    ci: null,
    // Orientation for the shared rule: beyond tolerance only when the rate rose by more than δ relative.
    worse: baseRate !== null && candRate !== null ? Math.log((candRate + 1e-12) / (baseRate + 1e-12)) : null,
    pWorse,
    pBetter,
    // No estimate of run-to-run spread for a pooled count: "no change" means no significant increase.
    pWithinTolerance: null,
    pBeyond: pWorse,
    pBetterBeyond: pBetter,
    test: null,
    judgedOn: null,
    forced: null,
    unfixable: null,
    notes: [],
    runs: { baseline: base.length, candidate: cand.length },
    crossCheck: null,
    variances: null,
  };
  if (candRate !== null && candRate > limit) {
    // A candidate that fails more requests than allowed cannot pass on latency: always blocking.
    draft.gated = true;
    draft.forced = "regression";
    draft.notes.push(
      `candidate error rate ${(candRate * 100).toFixed(2)}% is above the ${(limit * 100).toFixed(2)}% limit`,
    );
  }
  if (b.total === 0 || c.total === 0) {
    draft.forced = "inconclusive";
    draft.notes.push("no requests recorded on a side");
    if (b.total === 0) draft.unfixable = `no baseline requests recorded in cell "${cell}"`;
  }
  return draft;
}

function decide(drafts: Draft[], alpha: number, passAlpha: number, gatedCount: number): Comparison[] {
  const adjusted = new Map<Draft, { beyond: number; betterBeyond: number; worse: number; better: number }>();
  for (const gatedFamily of [true, false]) {
    const family = drafts.filter(
      (d) => d.gated === gatedFamily && d.forced === null && d.pBeyond !== null && d.pBetterBeyond !== null,
    );
    const adjust = gatedFamily ? holmAdjust : bhAdjust;
    const beyond = adjust(family.map((d) => d.pBeyond!));
    const betterBeyond = adjust(family.map((d) => d.pBetterBeyond!));
    const worse = adjust(family.map((d) => d.pWorse!));
    const better = adjust(family.map((d) => d.pBetter!));
    family.forEach((d, i) => {
      adjusted.set(d, {
        beyond: beyond[i]!,
        betterBeyond: betterBeyond[i]!,
        worse: worse[i]!,
        better: better[i]!,
      });
    });
  }
  return drafts.map((draft) => {
    const adj = adjusted.get(draft);
    let verdict: MetricVerdict;
    if (draft.forced !== null) verdict = draft.forced;
    else if (draft.metric === "error_rate") {
      // A pooled count has no run-to-run spread: significance against 0 plus the relative tolerance.
      const margin = Math.log(1 + draft.tolerance);
      if (adj!.worse <= alpha && (draft.worse ?? 0) > margin) verdict = "regression";
      else if (adj!.better <= alpha && (draft.worse ?? 0) < -margin) verdict = "improvement";
      else verdict = "within-tolerance";
    } else {
      verdict = classify({
        pBeyondToleranceAdjusted: adj!.beyond,
        pBetterBeyondToleranceAdjusted: adj!.betterBeyond,
        pWithinTolerance: draft.pWithinTolerance!,
        alpha,
        passAlpha,
      });
    }
    const towardsWorse = (draft.worse ?? 0) >= 0;
    let ci = draft.ci;
    let ciLevels: [number, number] | null = null;
    let detectable: number | null = null;
    if (draft.test && adj) {
      // The interval the verdict was decided on: the worse-side bound at the level the regression test
      // was passed after Holm (p·α/p_adj), the better-side bound at the within-tolerance level, or at the
      // improvement test's level when that decided. Regression ⇔ lower bound beyond the tolerance.
      const effective = (p: number, pAdj: number) => (pAdj > 0 ? (alpha * p) / pAdj : alpha);
      const lowerLevel = effective(draft.pBeyond!, adj.beyond);
      const upperLevel =
        verdict === "improvement" ? effective(draft.pBetterBeyond!, adj.betterBeyond) : passAlpha;
      const lower = worseBound(draft.test, lowerLevel, "lower");
      const upper = worseBound(draft.test, upperLevel, "upper");
      // Back to the metric's own direction (higher-is-better metrics mirror).
      ci = draft.higherIsBetter ? [Math.exp(-upper), Math.exp(-lower)] : [Math.exp(lower), Math.exp(upper)];
      ciLevels = draft.higherIsBetter ? [upperLevel, lowerLevel] : [lowerLevel, upperLevel];
      if (draft.gated && draft.variances)
        detectable = minimumDetectableChange({
          baselineVariance: draft.variances.baseline,
          candidateVariance: draft.variances.candidate,
          baselineRuns: draft.runs.baseline,
          candidateRuns: draft.runs.candidate,
          extraVariance: draft.variances.extra,
          tolerance: draft.tolerance,
          alpha: alpha / Math.max(1, gatedCount),
          df: draft.test.df,
        });
    }
    return {
      cell: draft.cell,
      metric: draft.metric,
      judgedOn: draft.judgedOn,
      gated: draft.gated,
      higherIsBetter: draft.higherIsBetter,
      tolerance: draft.tolerance,
      baseline: draft.baseline,
      candidate: draft.candidate,
      ratio: draft.ratio,
      ci,
      ciLevels,
      ci90: draft.ci,
      p: adj ? (towardsWorse ? adj.beyond : adj.betterBeyond) : null,
      pRaw: draft.pBeyond === null ? null : towardsWorse ? draft.pBeyond : draft.pBetterBeyond,
      pChange: adj ? (towardsWorse ? adj.worse : adj.better) : null,
      detectableChange: detectable,
      verdict,
      note: draft.notes.length > 0 ? draft.notes.join("; ") : null,
      runs: draft.runs,
      crossCheck: draft.crossCheck,
    };
  });
}

function exitCodeFor(verdict: OverallVerdict, failOn: GateConfig["fail_on"]): 0 | 1 {
  if (failOn === "never") return 0;
  if (verdict === "pass") return 0;
  if (verdict === "inconclusive") return failOn === "inconclusive" ? 1 : 0;
  return 1;
}

interface NextLookInput {
  verdict: OverallVerdict;
  cells: VerdictFile["cells"];
  comparisons: readonly Comparison[];
  looks: readonly number[];
  mode: ComparisonMode;
  maxRuns: number;
  resolvable: (comparison: Comparison) => boolean;
  unfixableCells: ReadonlyMap<string, string>;
  measuredRuns: (side: Side, cell: string) => number;
  rates: CostRates;
}

/**
 * The next look, in measured runs per side (screened and excluded runs are replaced, so the usable
 * count reaches the look), never beyond repeats.max measured runs and never for cells that more
 * candidate runs cannot help.
 */
function planNextLook(input: NextLookInput): VerdictFile["nextLook"] {
  const { verdict, cells, comparisons, looks, mode, maxRuns, resolvable } = input;
  if (verdict !== "inconclusive" && verdict !== "error") return null;
  const needy = cells.filter(
    (cell) =>
      !input.unfixableCells.has(cell.name) &&
      ((cell.status !== "compared" && cell.status !== "missing-baseline") ||
        comparisons.some(
          (c) => c.cell === cell.name && c.gated && c.verdict === "inconclusive" && resolvable(c),
        )),
  );
  if (needy.length === 0) return null;
  const candidateRuns = Math.min(...needy.map((cell) => cell.candidateRuns));
  const baselineRuns = Math.min(...needy.map((cell) => cell.baselineRuns));
  const measuredCandidate = Math.max(...needy.map((cell) => input.measuredRuns("candidate", cell.name)));
  const measuredBaseline = Math.max(...needy.map((cell) => input.measuredRuns("baseline", cell.name)));
  if (measuredCandidate >= maxRuns) return null;
  const undecided = comparisons.filter((c) => c.gated && c.verdict === "inconclusive").length;
  const screened = measuredCandidate - candidateRuns;
  const reason =
    (undecided > 0
      ? `${undecided} gated check${undecided === 1 ? " is" : "s are"} inconclusive at ${candidateRuns} usable candidate run${candidateRuns === 1 ? "" : "s"}`
      : "too few usable runs") +
    (screened > 0 ? ` (${screened} excluded run${screened === 1 ? "" : "s"} replaced)` : "");
  const next = nextLookAfter(candidateRuns, baselineRuns, looks, mode === "interleaved", reason);
  if (!next) return null;
  const add = Math.min(next.addCandidateRuns, maxRuns - measuredCandidate);
  const runsPerSide = measuredCandidate + add;
  const addBaselineRuns =
    mode === "interleaved" ? Math.max(0, Math.min(maxRuns, runsPerSide) - measuredBaseline) : 0;
  return {
    runsPerSide,
    addCandidateRuns: add,
    addBaselineRuns,
    cells: needy.map((cell) => cell.name),
    reason: next.reason,
    gpuMinutes: addedGpuMinutes(mode, needy.length, measuredCandidate, runsPerSide, input.rates),
  };
}

/** Why no more runs are asked for although the verdict is undecided: the real cause, per check. */
function futilityWarnings(
  comparisons: readonly Comparison[],
  cells: VerdictFile["cells"],
  maxRuns: number,
  resolvable: (comparison: Comparison) => boolean,
  draftOf: (comparison: Comparison) => Draft | undefined,
  unfixableCells: ReadonlyMap<string, string>,
): string[] {
  const warnings: string[] = [];
  for (const reason of new Set(unfixableCells.values()))
    warnings.push(`more runs cannot settle this: ${reason}`);
  const stuck = comparisons.filter((c) => c.gated && c.verdict === "inconclusive" && !resolvable(c));
  const fixedReasons = new Set<string>();
  for (const c of stuck) {
    const draft = draftOf(c);
    if (draft?.unfixable && !unfixableCells.has(c.cell)) fixedReasons.add(draft.unfixable);
  }
  for (const reason of fixedReasons) warnings.push(`more runs cannot settle this: ${reason}`);
  const byNoise = stuck.filter((c) => {
    const draft = draftOf(c);
    return draft && !draft.unfixable && !unfixableCells.has(c.cell) && draft.variances;
  });
  const runsLeft = Math.min(...cells.map((c) => c.candidateRuns)) < maxRuns;
  if (byNoise.length > 0 && runsLeft) {
    // Name the larger part of the variance at the maximum: the runs' own spread or the session drift.
    const spread = byNoise.map((c) => {
      const v = draftOf(c)!.variances!;
      return { c, runVar: v.baseline / c.runs.baseline + v.candidate / maxRuns, extra: v.extra, v };
    });
    const driftBound = spread.filter((s) => s.extra >= s.runVar);
    const noiseBound = spread.filter((s) => s.extra < s.runVar);
    const plural = (n: number) => `${n} inconclusive check${n === 1 ? "" : "s"}`;
    if (driftBound.length > 0)
      warnings.push(
        `more runs would not settle the ${plural(driftBound.length)}: the stored baseline's session drift does not shrink with runs; compare against a baseline run in the same job (mode interleaved) or widen the tolerance`,
      );
    if (noiseBound.length > 0) {
      const widest = noiseBound.reduce((a, b) =>
        Math.max(b.v.baseline, b.v.candidate) > Math.max(a.v.baseline, a.v.candidate) ? b : a,
      );
      const side = widest.v.baseline >= widest.v.candidate ? "baseline" : "candidate";
      const sd = Math.sqrt(Math.max(widest.v.baseline, widest.v.candidate));
      warnings.push(
        `more runs would not settle the ${plural(noiseBound.length)}: the runs vary too widely (run-to-run sd ${(sd * 100).toFixed(1)}% on the ${side} side of ${describeMetric(widest.c.metric)} in cell "${widest.c.cell}"; look for an odd run in the table of runs), not the session drift`,
      );
    }
  }
  return warnings;
}

/** How many runs per side and about how many GPU-minutes would settle every inconclusive gated check. */
function settleEstimate(
  comparisons: readonly Comparison[],
  draftOf: (comparison: Comparison) => Draft | undefined,
  futilityInput: (draft: Draft) => Omit<Parameters<typeof runsToSettle>[0], never>,
  resolvable: (comparison: Comparison) => boolean,
  mode: ComparisonMode,
  maxRuns: number,
  rates: CostRates,
  looks: readonly number[],
): VerdictFile["settle"] {
  const stuck = comparisons.filter((c) => c.gated && c.verdict === "inconclusive");
  if (stuck.length === 0) return null;
  let runsPerSide = 0;
  let from = Number.POSITIVE_INFINITY;
  const cells = new Set<string>();
  for (const c of stuck) {
    const draft = draftOf(c);
    from = Math.min(from, c.runs.candidate);
    // Missing data or a stored baseline that cannot grow: no number of runs settles it.
    if (!resolvable(c)) return { runsPerSide: null, addRuns: null, gpuMinutes: null, cells: [c.cell] };
    // Too few runs to estimate the spread yet: no estimate for this check.
    if (!draft?.variances || draft.worse === null) continue;
    const runs = runsToSettle(futilityInput(draft), c.runs, maxRuns, mode === "interleaved");
    if (runs === null) return { runsPerSide: null, addRuns: null, gpuMinutes: null, cells: [c.cell] };
    runsPerSide = Math.max(runsPerSide, runs);
    cells.add(c.cell);
  }
  if (!Number.isFinite(from) || runsPerSide === 0) return null;
  // Decisions are taken at looks only: round up to the first look at or above the estimate.
  runsPerSide = Math.max(runsPerSide, from + 1);
  runsPerSide = looks.find((look) => look >= runsPerSide) ?? runsPerSide;
  return {
    runsPerSide,
    addRuns: runsPerSide - from,
    gpuMinutes: addedGpuMinutes(mode, cells.size, from, runsPerSide, rates),
    cells: [...cells],
  };
}
