import { higherIsBetter as higherIsBetterSet, type MetricName, metricNames } from "../config/metric-names.js";
import type { GateConfig } from "../config/schema.js";
import { errorIncreaseP } from "../stats/error-rate.js";
import { classify, logRatioTest, type MetricVerdict, resolvableWithMoreRuns } from "../stats/metric-test.js";
import { bhAdjust, holmAdjust } from "../stats/multiplicity.js";
import { hodgesLehmann, mannWhitney } from "../stats/rank-tests.js";
import { lookSchedule, nextLookAfter, passLevel, perLookLevel } from "../stats/sequential.js";
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
  repeats: { min: number; max: number };
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
  /** Set when the verdict is decided without a test (missing data, error-rate limit). */
  forced: MetricVerdict | null;
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
  const alpha = perLookLevel(familyAlpha, looks.length, mode);
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
  const used: VerdictFile["runs"]["used"] = [];
  const excluded: VerdictFile["runs"]["excluded"] = [];
  const usable = { baseline: [] as RunRecord[], candidate: [] as RunRecord[] };
  for (const side of ["baseline", "candidate"] as const) {
    for (const run of sides[side]) {
      const ref = { side, cell: run.cell, run: run.run, source: run.source };
      if (run.exclusionReasons.length > 0) excluded.push({ ...ref, reasons: run.exclusionReasons });
      else {
        used.push(ref);
        usable[side].push(run);
      }
    }
  }
  const cellsBySide = { baseline: groupByCell(usable.baseline), candidate: groupByCell(usable.candidate) };
  const allCells = [
    ...new Set([...sides.baseline.map((r) => r.cell), ...sides.candidate.map((r) => r.cell)]),
  ];

  const cells: VerdictFile["cells"] = [];
  const drafts: Draft[] = [];
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
    const fewestCompleted = Math.min(...[...base, ...cand].map((run) => run.requests.completed));
    for (const metric of metricNames) {
      const higher = higherIsBetterSet.has(metric);
      const tolerance = toleranceFor(gate, metric);
      const runs = { baseline: base.length, candidate: cand.length };
      if (metric === "error_rate") {
        drafts.push(errorRateDraft(cell, base, cand, gatedSet.has(metric), tolerance, gate.error_rate_limit));
        continue;
      }
      const b = metricValues(base, metric);
      const c = metricValues(cand, metric);
      const draft: Draft = {
        cell,
        metric,
        gated: gatedSet.has(metric),
        higherIsBetter: higher,
        tolerance,
        baseline: b.values.length > 0 ? geometricMean(b.values) : null,
        candidate: c.values.length > 0 ? geometricMean(c.values) : null,
        ratio: null,
        ci: null,
        worse: null,
        pWorse: null,
        pBetter: null,
        pWithinTolerance: null,
        forced: null,
        notes: [],
        runs,
        crossCheck: null,
        variances: null,
      };
      if (b.values.length === 0 && c.values.length === 0 && b.nonPositive === 0 && c.nonPositive === 0) {
        // Absent from every input (e.g. a vLLM result without that percentile): nothing to judge.
        if (draft.gated)
          warnings.push(
            `${describeMetric(metric)} is not in the inputs of cell "${cell}", so it was not judged`,
          );
        continue;
      }
      const statistic = percentileStatistic(metric);
      if (draft.gated && statistic !== undefined && fewestCompleted < gate.min_requests[statistic]) {
        draft.gated = false;
        draft.notes.push(
          `advisory: gating ${statistic} needs >= ${gate.min_requests[statistic]} successful requests in every run (fewest: ${fewestCompleted})`,
        );
      }
      if (b.missing + c.missing + b.nonPositive + c.nonPositive > 0) {
        draft.forced = "inconclusive";
        draft.notes.push(
          `missing or zero in ${b.missing + b.nonPositive} baseline and ${c.missing + c.nonPositive} candidate runs`,
        );
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
      });
      draft.ratio = test.ratio;
      draft.ci = test.ratioInterval;
      draft.worse = test.worse;
      draft.pWorse = test.pWorse;
      draft.pBetter = test.pBetter;
      draft.pWithinTolerance = test.pWithinTolerance;
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

  const comparisons = decide(drafts, alpha, passAlpha);
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
    noChange: count("no-change"),
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

  const gatedCount = comparisons.filter((c) => c.gated).length;
  const resolvable = (c: Comparison): boolean => {
    const draft = drafts.find((d) => d.cell === c.cell && d.metric === c.metric);
    // Only a floor that more runs cannot lower (a stored baseline's drift) justifies stopping early:
    // without one, more runs always narrow the interval, and 3-run variance estimates are too noisy
    // to predict by how much.
    if (!draft?.variances || draft.worse === null || draft.variances.extra === 0) return true;
    return resolvableWithMoreRuns({
      worse: draft.worse,
      tolerance: draft.tolerance,
      baselineVariance: draft.variances.baseline,
      candidateVariance: draft.variances.candidate,
      baselineRuns:
        mode === "interleaved" ? Math.max(input.repeats.max, draft.runs.baseline) : draft.runs.baseline,
      candidateRuns: Math.max(input.repeats.max, draft.runs.candidate),
      extraVariance: draft.variances.extra,
      regressionAlpha: alpha / Math.max(1, gatedCount),
      passAlpha,
    });
  };
  const nextLook = planNextLook(verdict, cells, comparisons, looks, mode, input.repeats.max, resolvable);
  if (verdict === "inconclusive" && nextLook === null) {
    const stuck = comparisons.filter((c) => c.gated && c.verdict === "inconclusive");
    if (
      stuck.length > 0 &&
      stuck.every((c) => !resolvable(c)) &&
      Math.min(...cells.map((c) => c.candidateRuns)) < input.repeats.max
    ) {
      warnings.push(
        `more runs would not settle the ${stuck.length} inconclusive check${stuck.length === 1 ? "" : "s"}: the stored baseline's session drift does not shrink with runs; compare against a baseline run in the same job (mode interleaved) or widen the tolerance`,
      );
    }
  }
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
    warnings,
  };
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
    forced: null,
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
  }
  return draft;
}

function decide(drafts: Draft[], alpha: number, passAlpha: number): Comparison[] {
  const adjustedP = new Map<Draft, { worse: number; better: number }>();
  for (const gatedFamily of [true, false]) {
    const family = drafts.filter(
      (d) => d.gated === gatedFamily && d.forced === null && d.pWorse !== null && d.pBetter !== null,
    );
    const adjust = gatedFamily ? holmAdjust : bhAdjust;
    const worse = adjust(family.map((d) => d.pWorse!));
    const better = adjust(family.map((d) => d.pBetter!));
    family.forEach((d, i) => {
      adjustedP.set(d, { worse: worse[i]!, better: better[i]! });
    });
  }
  return drafts.map((draft) => {
    const adjusted = adjustedP.get(draft);
    let verdict: MetricVerdict;
    if (draft.forced !== null) verdict = draft.forced;
    else if (draft.metric === "error_rate") {
      const margin = Math.log(1 + draft.tolerance);
      if (adjusted!.worse <= alpha && (draft.worse ?? 0) > margin) verdict = "regression";
      else if (adjusted!.better <= alpha && (draft.worse ?? 0) < -margin) verdict = "improvement";
      else verdict = "no-change";
    } else {
      verdict = classify({
        worse: draft.worse!,
        tolerance: draft.tolerance,
        pWorseAdjusted: adjusted!.worse,
        pBetterAdjusted: adjusted!.better,
        pWithinTolerance: draft.pWithinTolerance!,
        alpha,
        passAlpha,
      });
    }
    const towardsWorse = (draft.worse ?? 0) >= 0;
    return {
      cell: draft.cell,
      metric: draft.metric,
      gated: draft.gated,
      higherIsBetter: draft.higherIsBetter,
      tolerance: draft.tolerance,
      baseline: draft.baseline,
      candidate: draft.candidate,
      ratio: draft.ratio,
      ci: draft.ci,
      p: adjusted ? (towardsWorse ? adjusted.worse : adjusted.better) : null,
      pRaw: draft.pWorse === null ? null : towardsWorse ? draft.pWorse : draft.pBetter,
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

function planNextLook(
  verdict: OverallVerdict,
  cells: VerdictFile["cells"],
  comparisons: readonly Comparison[],
  looks: readonly number[],
  mode: ComparisonMode,
  maxRuns: number,
  resolvable: (comparison: Comparison) => boolean,
): VerdictFile["nextLook"] {
  if (verdict !== "inconclusive" && verdict !== "error") return null;
  const needy = cells.filter(
    (cell) =>
      (cell.status !== "compared" && cell.status !== "missing-baseline") ||
      comparisons.some(
        (c) => c.cell === cell.name && c.gated && c.verdict === "inconclusive" && resolvable(c),
      ),
  );
  if (needy.length === 0) return null;
  const candidateRuns = Math.min(...needy.map((cell) => cell.candidateRuns));
  const baselineRuns = Math.min(...needy.map((cell) => cell.baselineRuns));
  if (candidateRuns >= maxRuns) return null;
  const undecided = comparisons.filter((c) => c.gated && c.verdict === "inconclusive").length;
  const reason =
    undecided > 0
      ? `${undecided} gated check${undecided === 1 ? " is" : "s are"} inconclusive at ${candidateRuns} candidate run${candidateRuns === 1 ? "" : "s"}`
      : "too few usable runs";
  const next = nextLookAfter(candidateRuns, baselineRuns, looks, mode === "interleaved", reason);
  return next ? { ...next, cells: needy.map((cell) => cell.name) } : null;
}
