import { cellFamily } from "../config/families.js";
import { type MetricName, metricSpecs } from "../config/metric-names.js";
import type { GateConfig, QualityConfig } from "../config/schema.js";
import type { RunRecord } from "../metrics/run-record.js";
import { lookSchedule, passLevel, perLookLevel } from "../stats/sequential.js";
import type { RunVariancePrior, StartVariancePrior, VariancePrior } from "../stats/two-level.js";
import { type ComparedCell, checkComparability, pairCells } from "./analyze/cells.js";
import { decide, type FamilyGroup, familyDrafts, familyGroupKey, speedMembers } from "./analyze/decide.js";
import { type Draft, draftsForCell } from "./analyze/drafts.js";
import { decideFamilies } from "./analyze/families.js";
import { greedyChecks } from "./analyze/greedy.js";
import { decideGuards, guardDrafts, guardMembers } from "./analyze/guards.js";
import {
  atToleranceChecks,
  countGated,
  detectionSummary,
  exitCodeFor,
  futilityModel,
  futilityWarnings,
  overallVerdict,
  planNextLook,
  runsToDetectChange,
  settleEstimate,
} from "./analyze/outcome.js";
import { explainSpecDecode } from "./analyze/spec-decode.js";
import { decideTasks, taskDrafts, taskMembers } from "./analyze/tasks.js";
import { groupByCell, selectUsableRuns } from "./analyze/usable-runs.js";
import { type CostModel, costRatesOf } from "./cost.js";
import { flattenFingerprint } from "./fingerprint.js";
import { type AdjustedMember, adjustGatedFamily, type FamilyMember } from "./gated-family.js";
import { describePrior, type PriorDescription, type PriorOrigin, stalePriorWarning } from "./prior-basis.js";
import { type DriftEstimate, estimateSessionDrift } from "./session-drift.js";
import { withConfigStartPrior } from "./start-noise.js";
import { headlineFor, impactOf, mixedResults, withFamilyHeadline } from "./summary.js";
import {
  type BaselineInfo,
  type ComparisonMode,
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
  /**
   * Stored mode with main's history: per `cell\u0000metric`, the baseline's run-to-run variance of the ln
   * values pooled over the history's sessions (compare/history.ts pooledRunVariances), pooled with the
   * baseline's own in the test.
   */
  baselineVariancePriors?: ReadonlyMap<string, { variance: number; df: number }>;
  /**
   * Start-to-start variances of ln(metric) measured on this runner (a calibration, main's history), per
   * `cell\u0000metric`, with their degrees of freedom and what they came from: they replace
   * gate.noise_prior's for those checks (interleaved mode; stored mode's session drift holds the start).
   */
  startVariancePriors?: ReadonlyMap<
    string,
    { variance: number; df: number; source: string } & Partial<Omit<PriorOrigin, "source">>
  >;
  /**
   * Interleaved mode: run-to-run variances of ln(metric) measured on this runner (a calibration), per
   * `cell\u0000metric`, within a start and for a run on its own start, pooled with both sides' own.
   */
  runVariancePriors?: ReadonlyMap<string, RunVariancePrior & PriorOrigin>;
  /** Where `baselineVariancePriors` came from (main's history, a calibration) and when. */
  baselineVariancePriorOrigin?: PriorOrigin;
  /** ISO time stamped into verdict.json (injected: the core stays deterministic). */
  now: string;
  tool: { name: string; version: string };
  /** Minutes of one cell-run for the GPU-time estimates (the measured run length, else the config's; default 1). */
  runMinutes?: number;
  /** The config's server start cost and lifecycle, for what the next look costs (default: 3 min a start, per cell). */
  cost?: CostModel;
  /** The quality checks' settings (config `quality`); the defaults when absent. */
  quality?: QualityConfig;
  /**
   * Gated checks decided outside `analyze` that join its gated family (the capacity checks,
   * compare/capacity.ts): their tests, adjusted with the others; `analyzeWithFamily` returns theirs.
   */
  familyExtras?: readonly FamilyMember[];
  /**
   * Each cell's workload family from the config (`family`, or derived from the name: config/families.ts),
   * for the family tests; a cell not in it gets the derived family of its name.
   */
  cellFamilies?: Readonly<Record<string, string>>;
}

const defaultGuardSettings: QualityConfig["guards"] = {
  enabled: true,
  share_points: 0.02,
  output_length_tolerance: 0.1,
};

/** The test levels of this look: the family's alpha spent over the sequential looks, and the pass level. */
interface Levels {
  familyAlpha: number;
  looks: number[];
  /** Level of the regression and improvement tests at this look. */
  alpha: number;
  /** Level of each side of the within-tolerance test. */
  passAlpha: number;
  /**
   * Level of the regression tests decided at this many candidate runs in a cell: the look the PR would be
   * at then (never before this one; beyond repeats.max, the last look's).
   */
  alphaAtRuns: (runs: number) => number;
}

function levelsOf(input: AnalyzeInput): Levels {
  const familyAlpha = 1 - input.gate.confidence;
  const looks = lookSchedule(input.repeats.min, input.repeats.max);
  // The stage of the PR: the most candidate runs measured in any cell (screened runs included).
  const stage = Math.max(0, ...[...groupByCell(input.candidate).values()].map((runs) => runs.length));
  const alphaAtRuns = (runs: number) => perLookLevel(familyAlpha, looks, Math.max(stage, runs), input.mode);
  return { familyAlpha, looks, alpha: alphaAtRuns(stage), passAlpha: passLevel(familyAlpha), alphaAtRuns };
}

interface SessionDrift {
  /** The configured prior sd (0 unless mode stored). */
  driftSd: number;
  estimates: Map<MetricName, DriftEstimate>;
  varianceFor: (metric: MetricName) => number;
}

/** Stored mode: the between-session drift per metric from the baseline and its history, shrunk towards the prior. */
function sessionDriftOf(input: AnalyzeInput): SessionDrift {
  const { gate, mode } = input;
  const driftSd = mode === "stored" ? gate.session_drift_sd : 0;
  const defaultDriftVariance = driftSd * driftSd;
  const driftBaseline = input.baseline.filter((run) => run.exclusionReasons.length === 0);
  const driftRuns = [...driftBaseline];
  const driftSources = new Set(driftBaseline.map((run) => run.source));
  for (const run of input.history ?? [])
    if (run.exclusionReasons.length === 0 && !driftSources.has(run.source)) driftRuns.push(run);
  const estimates =
    mode === "stored"
      ? estimateSessionDrift(driftRuns, {
          priorSd: driftSd,
          baselineSessions: Math.max(1, new Set(driftBaseline.map((run) => run.session ?? "")).size),
        })
      : new Map<MetricName, DriftEstimate>();
  // The history's estimate, shrunk towards the prior, replaces it (up or down): the prior is no floor.
  const varianceFor = (metric: MetricName): number =>
    estimates.get(metric)?.differenceVariance ?? defaultDriftVariance;
  return { driftSd, estimates, varianceFor };
}

/**
 * The start-to-start variance believed for a check before its runs: a measured one for this runner (a
 * calibration, main's history) where there is one, else gate.noise_prior's for the metric's family,
 * weighted gate.noise_prior.weight_starts degrees of freedom.
 */
function startPriorOf(
  input: AnalyzeInput,
): (
  cell: string,
  metric: MetricName,
) => StartVariancePrior & { source: string; description: PriorDescription } {
  const prior = input.gate.noise_prior;
  return (cell, metric) => {
    const family = metricSpecs[metric].noise;
    const sd = prior[family].start_sd;
    const source = `gate.noise_prior.${family}`;
    const configPrior = { variance: sd * sd, df: prior.weight_starts };
    const found = input.startVariancePriors?.get(`${cell}\u0000${metric}`);
    if (found) {
      const measured = withConfigStartPrior(found, configPrior);
      const origin: PriorOrigin = {
        source: measured.source,
        basis: measured.basis ?? (/history/i.test(measured.source) ? "history" : "calibration"),
        measuredAt: measured.measuredAt ?? null,
        ...(measured.since ? { since: measured.since } : {}),
      };
      const pooledSource = configPrior.df > 0 ? `${measured.source} + ${source}` : measured.source;
      return { ...measured, source: pooledSource, description: describeAt(input, origin) };
    }
    return {
      ...configPrior,
      source,
      description: describeAt(input, { source, basis: "config", measuredAt: null }),
    };
  };
}

function describeAt(input: AnalyzeInput, origin: PriorOrigin): PriorDescription {
  return describePrior(origin, input.now, input.gate.noise_prior.max_age_days);
}

/** Interleaved mode: the run-to-run variance measured on this runner for a check, for both sides. */
function runPriorOf(
  input: AnalyzeInput,
): (cell: string, metric: MetricName) => (RunVariancePrior & { description: PriorDescription }) | undefined {
  return (cell, metric) => {
    const measured = input.runVariancePriors?.get(`${cell}\u0000${metric}`);
    return measured ? { ...measured, description: describeAt(input, measured) } : undefined;
  };
}

/** Stored mode: the baseline's run-to-run variance from earlier sessions, with where it came from. */
function baselinePriorOf(
  input: AnalyzeInput,
  priors: ReadonlyMap<string, { variance: number; df: number }>,
): (cell: string, metric: MetricName) => (VariancePrior & { description: PriorDescription }) | undefined {
  const description = describeAt(
    input,
    input.baselineVariancePriorOrigin ?? { source: "main's history", basis: "history", measuredAt: null },
  );
  return (cell, metric) => {
    const prior = priors.get(`${cell}\u0000${metric}`);
    return prior ? { ...prior, description } : undefined;
  };
}

/** One warning per stale prior a check used, naming gate.noise_prior.max_age_days. */
function stalePriorWarnings(drafts: readonly Draft[], maxAgeDays: number): string[] {
  const stale = new Map<string, PriorDescription>();
  for (const draft of drafts)
    for (const prior of [draft.noise?.priors?.start, draft.noise?.priors?.run])
      if (prior?.stale && prior.use !== "unused") stale.set(`${prior.basis}:${prior.date}`, prior);
  return [...stale.values()].map((prior) => stalePriorWarning(prior, maxAgeDays));
}

/**
 * The comparison of two sides, in stages: the usable runs (outliers screened), the cells paired, a draft
 * per metric and cell, multiplicity and classification, the comparability check, the overall verdict with
 * the next look and what settling would cost, then verdict.json assembled. Pure: same input, same file.
 */
export function analyze(input: AnalyzeInput): VerdictFile {
  return analyzeWithFamily(input).verdict;
}

/** `analyze`, and the gated family's adjustment of `input.familyExtras` (in their order). */
export function analyzeWithFamily(input: AnalyzeInput): { verdict: VerdictFile; extras: AdjustedMember[] } {
  const { gate, mode } = input;
  const levels = levelsOf(input);
  const { alpha, passAlpha, looks } = levels;
  const drift = sessionDriftOf(input);
  const warnings: string[] = [];

  warnings.push(...startWarnings(input.baseline, input.candidate));
  const runs = selectUsableRuns(input.baseline, input.candidate, gate, warnings);
  const pairing = pairCells(runs, mode);
  const { cells, unfixableCells } = pairing;
  const draftSettings = {
    gate,
    gatedSet: new Set<MetricName>(gate.metrics),
    advisoryCells: outputCells(input.baseline, input.candidate),
    passAlpha,
    driftVarianceFor: drift.varianceFor,
    ...(mode === "stored" && input.baselineVariancePriors
      ? { baselineVariancePriorFor: baselinePriorOf(input, input.baselineVariancePriors) }
      : {}),
    ...(mode === "interleaved" ? { startPriorFor: startPriorOf(input), runPriorFor: runPriorOf(input) } : {}),
  };
  const drafts: Draft[] = pairing.compared.flatMap((cell) => draftsForCell(cell, draftSettings, warnings));
  warnings.push(...stalePriorWarnings(drafts, gate.noise_prior.max_age_days));

  const rates = costRatesOf(input.runMinutes, input.repeats.block, input.cost);
  // The quality checks read what the outputs were: a run excluded from the speed checks (client-bound,
  // an outlier) still answered its prompts, so every run of a cell present on both sides counts.
  const qualityCells = qualityCellsOf(input.baseline, input.candidate);
  const guardDraftList = guardDrafts(
    qualityCells,
    { guards: input.quality?.guards ?? defaultGuardSettings, metricTolerance: gate.metric_tolerance },
    warnings,
  );
  const taskDraftList = taskDrafts(qualityCells, {
    tasks: input.quality?.tasks ?? { tolerance_points: 0.02 },
    confidence: gate.confidence,
  });
  // The gated family, one per comparison: the speed checks' tests against the tolerance, the capacity
  // checks', the guards' and the task checks', and the family tests of each gated metric across the
  // cells of a workload family, adjusted together at the look's α (compare/gated-family.ts).
  const speedDrafts = familyDrafts(drafts);
  const extras = input.familyExtras ?? [];
  const familyOf = (cell: string) => input.cellFamilies?.[cell] ?? cellFamily({ name: cell });
  const groups = new Map<string, FamilyGroup>();
  for (const d of speedDrafts) {
    const group = { family: familyOf(d.cell), metric: d.metric };
    groups.set(familyGroupKey(group), group);
  }
  const family = adjustGatedFamily(
    [
      ...speedMembers(speedDrafts, familyOf),
      ...extras,
      ...guardMembers(guardDraftList ?? []),
      ...taskMembers(taskDraftList ?? []),
    ],
    alpha,
    gate.family_weight,
  );
  const at = (offset: number, count: number) => family.members.slice(offset, offset + count);
  const speedAdjusted = at(0, speedDrafts.length);
  const extrasAdjusted = at(speedDrafts.length, extras.length);
  const guardOffset = speedDrafts.length + extras.length;
  const guardAdjusted = at(guardOffset, guardDraftList?.length ?? 0);
  const taskAdjusted = at(guardOffset + (guardDraftList?.length ?? 0), taskDraftList?.length ?? 0);
  // The strictest level a check of the family starts at, as a count of tests (Holm's first step is α/m;
  // a grouped check's (1 − family_weight)·α/m): for the detectable change and the futility checks.
  const gatedCount = Math.max(1, 1 / family.summary.strictestShare);
  const comparisons = decide(
    drafts,
    alpha,
    passAlpha,
    gatedCount,
    new Map(
      speedDrafts.map((d, i) => [
        d,
        { beyond: speedAdjusted[i]!.regression!, betterBeyond: speedAdjusted[i]!.improvement! },
      ]),
    ),
  );
  const { differences, notComparable } = checkComparability(pairing.fingerprintPairs, gate, warnings);

  const counts = countGated(comparisons);
  const families = decideFamilies(
    family.familyTests,
    (key) => groups.get(key)!,
    (index) => speedDrafts[index]!.cell,
    comparisons,
    alpha,
    passAlpha,
  );
  const familyRegressions = families.filter((f) => f.verdict === "regression");
  const brokenCells = cells.filter(
    (cell) => cell.status === "missing-baseline" || cell.status === "missing-candidate",
  );
  const guards = guardDraftList === null ? null : decideGuards(guardDraftList, guardAdjusted, alpha);
  const greedy = greedyChecks(qualityCells, input.quality?.greedy, warnings);
  const tasks = taskDraftList === null ? null : decideTasks(taskDraftList, taskAdjusted, alpha);
  const guardRegressions =
    (guards?.filter((check) => check.verdict === "regression").length ?? 0) +
    (greedy?.filter((check) => check.verdict === "regression").length ?? 0) +
    (tasks?.filter((check) => check.verdict === "regression").length ?? 0);
  // The greedy and task checks are the compared checks of quality cells (whose speed checks are advisory).
  const qualityChecks = (greedy?.length ?? 0) + (tasks?.length ?? 0);
  const speedVerdict = overallVerdict(
    // So a config of quality cells alone is no empty comparison.
    { ...counts, gated: counts.gated + qualityChecks },
    brokenCells.length,
    pairing.allCells.length,
    notComparable.length,
    gate.on_not_comparable,
  );
  // A family regression (docs/compare.md, "Family tests") and a guard regression (docs/quality.md) are
  // regressions whatever the single checks found.
  const speedAndFamilies =
    familyRegressions.length > 0 && speedVerdict !== "not-comparable" ? "regression" : speedVerdict;
  const verdict =
    guardRegressions > 0 && speedAndFamilies !== "not-comparable" ? "regression" : speedAndFamilies;

  const maxRuns = input.repeats.max;
  const runsPerStart = mode === "interleaved" ? (input.repeats.block ?? 1) : maxRuns;
  const { draftOf, futilityInput, resolvable } = futilityModel(
    drafts,
    unfixableCells,
    { alpha, passAlpha, gatedCount },
    mode,
    maxRuns,
    runsPerStart,
  );
  const nextLook = planNextLook({
    verdict,
    cells,
    comparisons,
    looks,
    mode,
    maxRuns,
    resolvable,
    unfixableCells,
    measuredRuns: pairing.measuredRuns,
    rates,
  });
  const atTolerance = verdict === "inconclusive" ? atToleranceChecks(comparisons, resolvable, draftOf) : [];
  if ((verdict === "inconclusive" || verdict === "error") && nextLook === null) {
    warnings.push(...futilityWarnings(comparisons, cells, maxRuns, resolvable, draftOf, unfixableCells));
  }
  const settle =
    verdict === "inconclusive"
      ? settleEstimate(comparisons, draftOf, futilityInput, resolvable, mode, maxRuns, rates, looks)
      : null;
  const alphaAtRuns = (runs: number) => levels.alphaAtRuns(runs) / Math.max(1, gatedCount);
  const detection = detectionSummary(
    comparisons,
    draftOf,
    gate.detect_change,
    alphaAtRuns,
    mode,
    maxRuns,
    runsPerStart,
  );
  for (const comparison of comparisons)
    if (comparison.gated && comparison.detectableChange !== null)
      comparison.runsToDetectChange = runsToDetectChange(
        comparison,
        draftOf(comparison),
        gate.detect_change,
        alphaAtRuns,
        mode,
        maxRuns,
        runsPerStart,
      );
  const specDecode = explainSpecDecode(pairing.compared, {
    gatedMetrics: gate.metrics,
    passAlpha,
    minRunSd: gate.min_run_sd,
    driftVarianceFor: drift.varianceFor,
    ...(draftSettings.startPriorFor ? { startPriorFor: draftSettings.startPriorFor } : {}),
  });
  const firstFingerprint = (side: "baseline" | "candidate") =>
    flattenFingerprint(runs.sides[side][0]?.fingerprint ?? {});

  const verdictFile: VerdictFile = {
    schemaVersion: verdictSchemaVersion,
    tool: input.tool,
    generatedAt: input.now,
    verdict,
    exitCode: exitCodeFor(verdict, gate.fail_on),
    headline: withGuardHeadline(
      withFamilyHeadline(
        headlineFor(speedVerdict, counts, comparisons, brokenCells.length, notComparable.length),
        speedVerdict,
        familyRegressions,
        counts,
      ),
      verdict,
      speedAndFamilies,
      guardRegressions,
      counts.improvement,
    ),
    counts,
    mode,
    baselineInfo: input.baselineInfo ?? null,
    settings: settingsOf(gate, levels, drift),
    cells,
    comparisons,
    mixed: mixedResults(comparisons, alpha),
    impact: impactOf(cells, comparisons),
    fingerprints: {
      baseline: firstFingerprint("baseline"),
      candidate: firstFingerprint("candidate"),
      differences,
    },
    runs: { used: runs.used, excluded: runs.excluded },
    nextLook,
    settle,
    ...(atTolerance.length > 0 ? { atTolerance } : {}),
    detection,
    warnings,
    families,
    ...(guards !== null || greedy !== null || tasks !== null
      ? {
          quality: {
            guards: guards ?? [],
            ...(greedy !== null ? { greedy } : {}),
            ...(tasks !== null ? { tasks } : {}),
          },
        }
      : {}),
    ...(specDecode.length > 0 ? { specDecode } : {}),
  };
  verdictFile.settings.gatedFamily = {
    regression: family.summary.regression,
    improvement: family.summary.improvement,
    familyTests: family.summary.familyTests,
  };
  return { verdict: verdictFile, extras: extrasAdjusted };
}

/**
 * Runs whose files did not say which server start measured them: they were taken as one start per side
 * and input (compare/load.ts), the conservative reading, and the report says so.
 */
function startWarnings(baseline: readonly RunRecord[], candidate: readonly RunRecord[]): string[] {
  const warnings: string[] = [];
  for (const [side, runs] of [
    ["baseline", baseline],
    ["candidate", candidate],
  ] as const) {
    const assumed = runs.filter((run) => run.serverStart?.basis === "assumed-shared").length;
    if (assumed > 0)
      warnings.push(
        `${assumed} ${side} run${assumed === 1 ? "" : "s"} did not record the server start that measured ${assumed === 1 ? "it" : "them"} (older files, or vllm bench serve without --metadata server_start=<id>): the runs of each input were taken as one start, so the start-to-start noise is the prior's (declare each run a fresh start with --fresh-starts if it was)`,
      );
  }
  return warnings;
}

/** Cells whose runs kept outputs (greedy-output and task cells): their speed checks are advisory. */
function outputCells(baseline: readonly RunRecord[], candidate: readonly RunRecord[]): Set<string> {
  const cells = new Set<string>();
  for (const run of [...baseline, ...candidate]) if ((run.outputs?.length ?? 0) > 0) cells.add(run.cell);
  return cells;
}

/** The cells both sides measured, with every run of each (the quality checks' input). */
function qualityCellsOf(baseline: readonly RunRecord[], candidate: readonly RunRecord[]): ComparedCell[] {
  const base = groupByCell(baseline);
  const cand = groupByCell(candidate);
  return [...base.keys()]
    .filter((cell) => cand.has(cell))
    .sort()
    .map((cell) => ({ cell, base: base.get(cell)!, cand: cand.get(cell)!, tooFew: false }));
}

/**
 * The headline when quality guards regressed: it leads with them, and a speed improvement beside them is
 * named as coming with the regression, never as a plain improvement.
 */
function withGuardHeadline(
  speedHeadline: string,
  verdict: VerdictFile["verdict"],
  speedVerdict: VerdictFile["verdict"],
  guardRegressions: number,
  speedImprovements: number,
): string {
  if (guardRegressions === 0 || verdict !== "regression") return speedHeadline;
  const guards = `${guardRegressions} quality check${guardRegressions === 1 ? "" : "s"} got worse beyond tolerance`;
  if (speedVerdict === "regression")
    return `Regression: ${guards}; and ${speedHeadline.replace(/^Regression: /, "")}`;
  const speed =
    speedImprovements > 0
      ? `the speed ${speedImprovements === 1 ? "improvement comes" : `improvements (${speedImprovements}) come`} with changed outputs, not an improvement`
      : "the outputs changed";
  return `Regression: ${guards}: ${speed} (speed alone: ${speedHeadline})`;
}

/** The settings block of verdict.json: what the verdict was decided with. */
function settingsOf(gate: GateConfig, levels: Levels, drift: SessionDrift): VerdictFile["settings"] {
  return {
    tolerance: gate.tolerance,
    detectChange: gate.detect_change,
    metricTolerance: gate.metric_tolerance as Record<string, number>,
    confidence: gate.confidence,
    familyAlpha: levels.familyAlpha,
    lookAlpha: levels.alpha,
    passAlpha: levels.passAlpha,
    looks: levels.looks,
    failOn: gate.fail_on,
    errorRateLimit: gate.error_rate_limit,
    sessionDriftSd: drift.driftSd,
    sessionDriftEstimates: Object.fromEntries(
      [...drift.estimates].map(([metric, estimate]) => [
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
  };
}
