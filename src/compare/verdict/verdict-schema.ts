import { z } from "zod";
import { metricNames } from "../../config/metric-names.js";
import { noiseLevelsSchema } from "../noise/start-noise.js";
import { capacityComparisonSchema, sweepCurveSchema } from "./capacity-schema.js";
import { qualityVerdictSchema } from "./quality-schema.js";
import { specDecodeCellSchema } from "./spec-decode-schema.js";

/**
 * `verdict.json`: the machine-readable outcome of `compare`, read by the action (to label the PR,
 * add runs, fail the job) and by people re-analysing a decision. Versioned like every file we write.
 */
export const verdictSchemaVersion = 2;

const overallVerdicts = ["pass", "regression", "inconclusive", "not-comparable", "error"] as const;
const metricVerdicts = ["regression", "improvement", "within-tolerance", "inconclusive"] as const;
const comparisonModes = ["stored", "interleaved"] as const;

const baselineInfoSchema = z.object({
  commit: z.string().optional(),
  runId: z.string().optional(),
  date: z.string().optional(),
  ref: z.string().optional(),
  url: z.string().optional(),
  note: z.string().optional(),
});

const interval = z.tuple([z.number(), z.number()]);

/** What a budget could do for one gated check (docs/compare.md, "A budget per pull request"). */
const checkBudgetSchema = z.object({
  /** More runs within gate.budget_gpu_minutes could catch gate.detect_change (90% power). */
  decidable: z.boolean(),
  /** The smallest worsening the runs measured catch with 90% power (the check's detectableChange). */
  detectableAtSpend: z.number().nullable(),
  /** About how many GPU-minutes in all would catch gate.detect_change in this check; null: not within 100 runs. */
  gpuMinutesToDecide: z.number().nullable(),
});

const comparisonSchema = z.object({
  cell: z.string(),
  metric: z.enum(metricNames),
  /** The metric whose values were judged when `metric` is absent from the inputs (e.g. p99 for p95). */
  judgedOn: z.enum(metricNames).nullable(),
  /** In the blocking family (Holm) or advisory (BH). */
  gated: z.boolean(),
  higherIsBetter: z.boolean(),
  tolerance: z.number(),
  /** Geometric mean of the per-run values (error_rate: pooled failed / total). */
  baseline: z.number().nullable(),
  candidate: z.number().nullable(),
  /** candidate / baseline. */
  ratio: z.number().nullable(),
  /**
   * The interval the verdict was decided on, in the metric's direction: its worse end at the level the
   * regression test faced after Holm and the look's α (regression exactly when it is beyond the
   * tolerance), its better end at the within-tolerance level (or the improvement test's level when that
   * decided). Stored-mode drift is included. error_rate: null.
   */
  ci: interval.nullable(),
  /** One-sided levels of ci's lower and upper end. */
  ciLevels: interval.nullable(),
  /** The plain two-sided 1 − 2·passAlpha interval (same width on both sides), for reference. */
  ci90: interval.nullable(),
  /** Adjusted one-sided p of the test against the tolerance, in the direction observed (worse or better). */
  p: z.number().nullable(),
  pRaw: z.number().nullable(),
  /** Adjusted one-sided p of "moved at all" (against 0) in the direction observed: used for mixed results. */
  pChange: z.number().nullable(),
  /**
   * Minimum detectable change: the smallest true worsening this run count blocks with 90% power at the
   * strictest level the check can face (gated, tested checks only).
   */
  detectableChange: z.number().nullable(),
  /** Runs per side at which the check would catch gate.detect_change with 90% power; null: not within 100. */
  runsToDetectChange: z.number().int().nullable().optional(),
  /** What a budget (gate.budget_gpu_minutes) could do for this check; absent without a budget. */
  budget: checkBudgetSchema.optional(),
  verdict: z.enum(metricVerdicts),
  note: z.string().nullable(),
  runs: z.object({ baseline: z.number().int(), candidate: z.number().int() }),
  noise: noiseLevelsSchema.nullable().optional(),
  crossCheck: z
    .object({ mannWhitneyP: z.number(), hodgesLehmannRatio: z.number() })
    .nullable()
    .describe("Rank-based cross-check at >= 5 runs per side (one-sided MWU p for 'worse'; never blocks)."),
});

/**
 * A family test (docs/compare.md, "Family tests"): one gated metric across the cells of one workload
 * family, the hypothesis "their average change (the mean of the cells' log ratios) is within the
 * tolerance" tested beside the per-cell checks in the gated family.
 */
const familyFindingSchema = z.object({
  family: z.string(),
  metric: z.enum(metricNames),
  /** The cells pooled (those whose check of this metric was tested on per-run logs). */
  cells: z.array(z.string()),
  higherIsBetter: z.boolean(),
  tolerance: z.number(),
  /** The geometric mean over the cells of candidate / baseline. */
  ratio: z.number(),
  /** The decision interval of that ratio, as a check's `ci` (worse end at the level the test faced). */
  ci: interval,
  ciLevels: interval,
  /** One-sided p of the family test against the tolerance in the direction observed, adjusted in the gated family. */
  p: z.number(),
  pRaw: z.number(),
  standardError: z.number().describe("Of the mean log ratio."),
  df: z
    .number()
    .nullable()
    .describe("Satterthwaite degrees of freedom; null when no variance was estimated."),
  /** regression: the family's average change is beyond the tolerance (blocking); improvement: the mirror. */
  verdict: z.enum(["regression", "improvement", "no-finding"]),
  /** The pooled cells whose own check of this metric is a regression (named on their own). */
  regressedCells: z.array(z.string()),
});

/** The budget a comparison was measured under (gate.budget_gpu_minutes) and what it decided. */
const budgetSchema = z.object({
  limitGpuMinutes: z.number(),
  spentGpuMinutes: z.number(),
  /** The plan the budget bought (app/budget-plan.ts): its predicted GPU-minutes, runs and starts. */
  plan: z
    .object({
      gpuMinutes: z.number(),
      runsPerSide: z.number().int(),
      /** Runs per side per group of the A/B alternation (repeats.block). */
      runsPerStart: z.number().int(),
      /** Every group of a side on a server start of its own (groups of one run: repeats.block fresh). */
      startEachGroup: z.boolean().optional(),
      requests: z.record(z.string(), z.number().int().nullable()),
    })
    .nullable(),
  /** Gated checks left undecided because the budget cannot catch gate.detect_change in them. */
  notDecidable: z.number().int(),
});

const runRefSchema = z.object({
  side: z.enum(["baseline", "candidate"]),
  cell: z.string(),
  run: z.number().int().nullable(),
  source: z.string(),
});

const fingerprintDifferenceSchema = z.object({
  field: z.string(),
  cells: z.array(z.string()),
  baseline: z.unknown(),
  candidate: z.unknown(),
  /** Does not block: the thing under test (allowed_differences and what follows from it) or informational. */
  allowed: z.boolean(),
  /** Recorded only (tool build, runner name, whole-config hash): never a reason to call runs not comparable. */
  informational: z.boolean().default(false),
});

const nextLookSchema = z.object({
  runsPerSide: z.number().int().positive(),
  addCandidateRuns: z.number().int().nonnegative(),
  addBaselineRuns: z.number().int().nonnegative(),
  cells: z.array(z.string()),
  reason: z.string(),
  /**
   * GPU-minutes the added runs cost (src/compare/budget/cost.ts: 3 min per server start, run length per
   * cell-run).
   */
  gpuMinutes: z.number().nonnegative().optional(),
});

const settleSchema = z.object({
  /** Runs per side at which every inconclusive gated check would decide if its estimates held; null: not within repeats.max. */
  runsPerSide: z.number().int().nullable(),
  addRuns: z.number().int().nullable(),
  gpuMinutes: z.number().nullable(),
  cells: z.array(z.string()),
});

const impactSchema = z.object({
  cell: z.string(),
  successfulPerHour: z.object({ baseline: z.number(), candidate: z.number(), change: z.number() }).nullable(),
  ttftP95Ms: z.object({ baseline: z.number(), candidate: z.number(), change: z.number() }).nullable(),
  e2elP95Ms: z.object({ baseline: z.number(), candidate: z.number(), change: z.number() }).nullable(),
});

const gpuMinutesSpentSchema = z.object({
  total: z.number().nonnegative(),
  /** Measured phases of the runs read (durationS), in minutes. */
  runs: z.number().nonnegative(),
  /** Server starts the runs' schedule needed (per cell: one per measuring step, R + 1 per interleaved look). */
  serverStarts: z.number().int().nonnegative(),
  serverStartMinutes: z.number().nonnegative(),
  serverStartS: z.number().nonnegative(),
  /** Which runs were this job's: both sides (interleaved) or the candidate's (stored baseline). */
  sides: z.enum(["both", "candidate"]),
  runsWithoutDuration: z.number().int().nonnegative(),
});

export const verdictFileSchema = z.object({
  schemaVersion: z.literal(verdictSchemaVersion),
  tool: z.object({ name: z.string(), version: z.string() }),
  generatedAt: z.string(),
  verdict: z.enum(overallVerdicts),
  /** 0 passes, 1 fails, under the fail_on policy. */
  exitCode: z.union([z.literal(0), z.literal(1)]),
  headline: z.string(),
  counts: z.object({
    gated: z.number().int(),
    regression: z.number().int(),
    improvement: z.number().int(),
    withinTolerance: z.number().int(),
    inconclusive: z.number().int(),
  }),
  mode: z.enum(comparisonModes),
  baselineInfo: baselineInfoSchema.nullable(),
  settings: z.object({
    tolerance: z.number(),
    detectChange: z.number().describe("gate.detect_change: the regression the run plan is sized to catch."),
    metricTolerance: z.record(z.string(), z.number()),
    confidence: z.number(),
    familyAlpha: z.number(),
    lookAlpha: z
      .number()
      .describe(
        "One-sided level of the regression/improvement tests (against the tolerance) at this look, before Holm: α × look / Σ looks.",
      ),
    passAlpha: z
      .number()
      .describe(
        "One-sided level of the non-inferiority bound behind within-tolerance (the better end of the decision interval); ci90 is 1 − 2·passAlpha.",
      ),
    looks: z.array(z.number().int()),
    failOn: z.enum(["regression", "inconclusive", "never"]),
    errorRateLimit: z.number(),
    sessionDriftSd: z
      .number()
      .describe(
        "Prior sd of the ln shift between two sessions (gate.session_drift_sd) in stored mode; 0 in interleaved.",
      ),
    sessionDriftEstimates: z
      .record(
        z.string(),
        z.object({
          sd: z
            .number()
            .describe("sd of the ln shift between the candidate's session and the baseline, as used."),
          sessions: z
            .number()
            .int()
            .describe("Baseline sessions the estimate rests on (0: the prior alone)."),
          source: z.enum(["prior", "history"]).default("history"),
          historySd: z
            .number()
            .nullable()
            .default(null)
            .describe("The history's own estimate of the shift between two sessions, before shrinking."),
          historyWeight: z.number().default(1).describe("Weight of the history against the prior."),
          screenedSessions: z.array(z.string()).default([]),
          screenedRuns: z.number().int().default(0),
        }),
      )
      .describe(
        "Stored mode, per metric: the drift used, estimated from the baseline sessions (the last N of the base branch) and shrunk towards the prior session_drift_sd, or the prior alone with fewer than 2 sessions.",
      ),
    minRunSd: z.number().describe("Floor on the per-side run-to-run sd of ln(metric) (gate.min_run_sd)."),
    outlierThreshold: z.number().describe("Robust-sd threshold of the outlier-run screen; 0 = off."),
    gatedMetrics: z.array(z.string()),
    minRequests: z.record(z.string(), z.number()),
    allowedDifferences: z.array(z.string()),
    onNotComparable: z.enum(["fail", "warn"]),
    /**
     * The gated family Holm ran over at this look (compare/analyze/gated-family.ts, docs/compare.md "The
     * gated family"): its regression tests per kind of check, and the tests left out because they cannot
     * reach the level (Tarone); its improvement tests (speed and capacity checks). Absent in older files.
     */
    gatedFamily: z
      .object({
        regression: z.object({
          total: z.number().int(),
          speed: z.number().int(),
          capacity: z.number().int(),
          guard: z.number().int(),
          task: z.number().int(),
          leftOut: z.number().int(),
        }),
        improvement: z.object({ total: z.number().int(), leftOut: z.number().int() }),
        /**
         * The family tests beside the checks (docs/compare.md, "Family tests"): each grouped check's share
         * given to them (gate.family_weight) and how many there are per direction. Absent in older files.
         */
        familyTests: z.object({ weight: z.number(), total: z.number().int() }).optional(),
      })
      .optional(),
  }),
  cells: z.array(
    z.object({
      name: z.string(),
      baselineRuns: z.number().int(),
      candidateRuns: z.number().int(),
      status: z.enum(["compared", "too-few-runs", "missing-baseline", "missing-candidate"]),
      note: z.string().nullable(),
    }),
  ),
  comparisons: z.array(comparisonSchema),
  mixed: z.array(z.object({ cell: z.string(), better: z.array(z.string()), worse: z.array(z.string()) })),
  impact: z.array(impactSchema),
  fingerprints: z.object({
    baseline: z.record(z.string(), z.unknown()),
    candidate: z.record(z.string(), z.unknown()),
    differences: z.array(fingerprintDifferenceSchema),
  }),
  runs: z.object({
    used: z.array(runRefSchema),
    excluded: z.array(runRefSchema.extend({ reasons: z.array(z.string()) })),
  }),
  nextLook: nextLookSchema.nullable(),
  /** For an inconclusive verdict: how many runs and about how many GPU-minutes would settle it. */
  settle: settleSchema.nullable(),
  /**
   * The least sensitive gated check: the smallest worsening these runs catch with 90% power, and the
   * runs per side at which gate.detect_change would be caught (null: not within 100 runs).
   */
  detection: z
    .object({
      cell: z.string(),
      metric: z.enum(metricNames),
      detectableChange: z.number(),
      detectChange: z.number(),
      runsPerSideForDetectChange: z.number().int().nullable(),
    })
    .nullable(),
  warnings: z.array(z.string()),
  /**
   * The family tests of this look (docs/compare.md, "Family tests"), found or not; a regression among
   * them makes the verdict a regression. Absent in files written before them.
   */
  families: z.array(familyFindingSchema).optional(),
  /**
   * Gated checks whose estimate sits on the tolerance, so that more runs up to repeats.max would not
   * decide them (docs/compare.md, "At the tolerance"): the adaptive loop stopped asking for runs for
   * them. Their plain interval (ci90, as ratios). Absent in files written before it.
   */
  atTolerance: z
    .array(z.object({ cell: z.string(), metric: z.string(), ci: interval, tolerance: z.number() }))
    .optional(),
  /** Quality beside speed (docs/quality.md); absent when no run had guard counts. */
  quality: qualityVerdictSchema.optional(),
  /** GPU-minutes the comparison's runs cost, every server start counted (set by compare, after analyze). */
  gpuMinutes: gpuMinutesSpentSchema.optional(),
  budget: budgetSchema.optional(),
  /** Capacity at the SLO per capacity cell (compare/capacity/capacity.ts, docs/capacity.md). */
  capacity: z.array(capacityComparisonSchema).optional(),
  /**
   * Load curves of both sides per cell whose runs ran at several loads and that has no capacity config
   * (compare/capacity/sweep-curves.ts): drawn by report.html and the comment; the cell is still judged at a
   * fixed load.
   */
  sweeps: z.array(sweepCurveSchema).optional(),
  /**
   * Speculative decoding per cell whose server speculates (compare/verdict/spec-decode-schema.ts): each
   * side's acceptance, and TPOT's and output throughput's change taken apart into the acceptance length and
   * the engine step. Absent when no run had the counters, and in files written before it.
   */
  specDecode: z.array(specDecodeCellSchema).optional(),
});

export type VerdictFile = z.output<typeof verdictFileSchema>;
export type Comparison = z.output<typeof comparisonSchema>;
export type BaselineInfo = z.output<typeof baselineInfoSchema>;
export type ComparisonMode = (typeof comparisonModes)[number];
export type OverallVerdict = (typeof overallVerdicts)[number];
export type FingerprintDifference = z.output<typeof fingerprintDifferenceSchema>;
export type GpuMinutesSpent = z.output<typeof gpuMinutesSpentSchema>;
export type FamilyFinding = z.output<typeof familyFindingSchema>;
