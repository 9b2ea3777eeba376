import type { Alternation } from "../config/alternation.js";
import { cellFamily } from "../config/families.js";
import type { Config, GateConfig, QualityConfig } from "../config/schema.js";
import { configSchema, isSearchedCell } from "../config/schema.js";
import { alternation, serverLifecycle, serverStartSeconds, summarizeConfig } from "../config/summary.js";
import type { RunRecord } from "../metrics/run-record.js";
import { toolName, toolVersion } from "../version.js";
import { analyzeWithFamily } from "./analyze/analyze.js";
import type { AdjustedMember } from "./analyze/gated-family.js";
import type { AnalyzeInput } from "./analyze/input.js";
import { type BudgetSettings, withBudget } from "./budget/budget.js";
import { type CostModel, costRatesOf, defaultCostModel, gpuMinutesSpent } from "./budget/cost.js";
import {
  type CapacityCell,
  type CapacityDraft,
  type CapacityStageInput,
  capacityCells,
  capacityDrafts,
  capacityMembers,
  decideCapacity,
  mixedLoadWarnings,
  withCapacity,
} from "./capacity/capacity.js";
import { capacityLookLevel, capacityLooks, capacityNextLook } from "./capacity/capacity-looks.js";
import { type SweepCellHint, sweepCurves } from "./capacity/sweep-curves.js";
import type { PriorOrigin } from "./noise/prior-basis.js";
import type { BaselineInfo, ComparisonMode, VerdictFile } from "./verdict/verdict-schema.js";

export { verdictFileSchema } from "./verdict/verdict-schema.js";

/** What compare needs of the config; everything else in it is irrelevant here. */
export interface CompareSettings {
  gate: GateConfig;
  /** `block`: how the runs fall into server starts (repeats.block resolved: config/alternation.ts). */
  repeats: { min: number; max: number; block?: number | Alternation };
  /** Minutes of one cell-run for GPU-time estimates before any run was measured (validate's estimate). */
  runMinutes?: number;
  /** For the GPU-minutes spent; without a config, 3 minutes a start and one server per cell. */
  cost?: CostModel;
  /** Capacity cells (docs/capacity.md): their runs go to the capacity stage instead of the per-metric checks. */
  capacity?: { cells: CapacityCell[]; cost: Config["cost"] };
  /** The quality checks (config `quality`); their defaults without a config. */
  quality?: QualityConfig;
  /**
   * Each cell's load dimension and SLOs from the config, for the sweeps' curves
   * (compare/capacity/sweep-curves.ts).
   */
  sweepCells?: readonly SweepCellHint[];
  /** The pull request's budget (gate.budget_gpu_minutes) and the plan it bought: compare/budget/budget.ts. */
  budget?: BudgetSettings;
  /** Each cell's workload family (config/families.ts), for the family tests; without a config, derived from the names. */
  cellFamilies?: Readonly<Record<string, string>>;
}

export function defaultCompareSettings(): CompareSettings {
  return {
    gate: configSchema.shape.gate.parse(undefined),
    // Without a config nothing says how future runs fall into server starts: one start each.
    repeats: { ...configSchema.shape.repeats.parse(undefined), block: 1 },
  };
}

export function settingsFromConfig(config: Config): CompareSettings {
  // The one estimate of a run's length (config/summary.ts), as validate, the run plan and the budget use it.
  const summary = summarizeConfig(config);
  const minutes = config.cells
    .map((cell, index) => (isSearchedCell(cell) ? null : summary.cells[index]!.estimatedSecondsPerRun / 60))
    .filter((m): m is number => m !== null);
  const runMinutes = minutes.length > 0 ? minutes.reduce((sum, m) => sum + m, 0) / minutes.length : undefined;
  // A number where consecutive groups of a side share a start (as repeats.block states it), the
  // alternation itself where every group has a start of its own.
  const chosen = alternation(config);
  const block = chosen.startEachGroup ? chosen : chosen.runsPerGroup;
  return {
    gate: config.gate,
    repeats: { ...config.repeats, block },
    quality: config.quality,
    runMinutes,
    cost: {
      serverStartS: serverStartSeconds(config),
      lifecycle: serverLifecycle(config),
      runsPerBlock: block,
    },
    ...(capacityCells(config).length > 0
      ? { capacity: { cells: capacityCells(config), cost: config.cost } }
      : {}),
    cellFamilies: Object.fromEntries(config.cells.map((cell) => [cell.name, cellFamily(cell)])),
    sweepCells: config.cells.map((cell) => ({
      name: cell.name,
      load: { type: cell.load.type },
      ...(cell.slo ? { slo: cell.slo } : {}),
    })),
  };
}

export interface CompareRecordsInput {
  baseline: readonly RunRecord[];
  candidate: readonly RunRecord[];
  settings?: CompareSettings;
  mode?: ComparisonMode;
  baselineInfo?: BaselineInfo | null;
  /** Stored mode: runs of earlier baseline sessions, for the between-session drift only. */
  history?: readonly RunRecord[];
  /** Stored mode with main's history: the baseline's run-to-run variances pooled over its sessions. */
  baselineVariancePriors?: ReadonlyMap<string, { variance: number; df: number }>;
  /** Where `baselineVariancePriors` came from (main's history, a calibration) and when. */
  baselineVariancePriorOrigin?: PriorOrigin;
  /** Start-to-start variances measured on this runner (a calibration), per `cell\u0000metric`. */
  startVariancePriors?: AnalyzeInput["startVariancePriors"];
  /** Interleaved mode: run-to-run variances measured on this runner (a calibration), for both sides. */
  runVariancePriors?: AnalyzeInput["runVariancePriors"];
  now?: Date;
  /** Notes about the inputs (duplicates dropped) that go first into the verdict's warnings. */
  inputNotes?: readonly string[];
}

/** What a comparison decided, as data (rendering is the use case's step: src/app/compare.ts). */
export interface CompareOutcome {
  verdict: VerdictFile;
  /** 0 gate passes, 1 gate fails (fail_on policy). Invalid input throws InputError instead (exit 2). */
  exitCode: 0 | 1;
  /** The run records compared (for the per-run values of the dashboard exports, src/report/export-*.ts). */
  runs: { baseline: readonly RunRecord[]; candidate: readonly RunRecord[] };
}

/**
 * The run length the next look is costed at: the mean measured length of the runs read (what the next
 * runs will take), else the config's.
 */
function runMinutesOfLook(
  records: readonly RunRecord[],
  configured: number | undefined,
): { runMinutes?: number } {
  const lengths = records
    .map((record) => record.durationS)
    .filter((s): s is number => typeof s === "number" && Number.isFinite(s) && s > 0);
  if (lengths.length > 0) return { runMinutes: lengths.reduce((a, b) => a + b, 0) / lengths.length / 60 };
  return configured === undefined ? {} : { runMinutes: configured };
}

/** Pure: decide from run records already in memory. */
export function compareRecords(input: CompareRecordsInput): CompareOutcome {
  const settings = input.settings ?? defaultCompareSettings();
  const capacityNames = new Set((settings.capacity?.cells ?? []).map((cell) => cell.name));
  const fixedLoad = (records: readonly RunRecord[]) =>
    records.filter((record) => !capacityNames.has(record.cell));
  // The capacity checks' tests join the gated family that analyze assembles and adjusts.
  const capacityStage: CapacityStageInput | null = settings.capacity
    ? {
        cells: settings.capacity.cells,
        baseline: input.baseline,
        candidate: input.candidate,
        gate: settings.gate,
        cost: settings.capacity.cost,
      }
    : null;
  const capacity = capacityStage ? capacityDrafts(capacityStage) : [];
  const analyzed = analyzeWithFamily({
    ...analyzeInputOf(input, settings, fixedLoad),
    familyExtras: capacityMembers(capacity),
  });
  let decided = analyzed.verdict;
  decided.gpuMinutes = gpuMinutesSpent(
    decided.mode,
    { baseline: input.baseline, candidate: input.candidate },
    decided.settings.looks,
    settings.cost ?? { ...defaultCostModel, runsPerBlock: settings.repeats.block ?? 1 },
  );
  if (capacityStage)
    decided = withCapacityChecks(decided, settings, capacityStage, capacity, analyzed.extras);
  if (settings.budget) {
    const look = runMinutesOfLook(fixedLoad(input.candidate), settings.runMinutes);
    decided = withBudget(
      decided,
      settings.budget,
      costRatesOf(look.runMinutes, settings.repeats.block, settings.cost),
    );
  }
  const sweeps = sweepCurves(fixedLoad(input.baseline), fixedLoad(input.candidate), settings.sweepCells);
  if (sweeps.length > 0) decided.sweeps = sweeps;
  const mixedLoads = mixedLoadWarnings([...fixedLoad(input.baseline), ...fixedLoad(input.candidate)]);
  if (mixedLoads.length > 0) decided.warnings = [...decided.warnings, ...mixedLoads];
  if (input.inputNotes && input.inputNotes.length > 0)
    decided.warnings = [...input.inputNotes, ...decided.warnings];
  // The use case cleans the verdict of secrets before it renders it (app/compare.ts).
  return {
    verdict: decided,
    exitCode: decided.exitCode,
    runs: { baseline: input.baseline, candidate: input.candidate },
  };
}

/** What the per-metric analysis is given: the fixed-load runs, the settings and the priors, but no capacity checks. */
function analyzeInputOf(
  input: CompareRecordsInput,
  settings: CompareSettings,
  fixedLoad: (records: readonly RunRecord[]) => RunRecord[],
): Omit<AnalyzeInput, "familyExtras"> {
  return {
    baseline: fixedLoad(input.baseline),
    candidate: fixedLoad(input.candidate),
    gate: settings.gate,
    repeats: settings.repeats,
    ...runMinutesOfLook(fixedLoad(input.candidate), settings.runMinutes),
    ...(settings.cost === undefined ? {} : { cost: settings.cost }),
    ...(settings.quality === undefined ? {} : { quality: settings.quality }),
    mode: input.mode ?? "stored",
    baselineInfo: input.baselineInfo ?? null,
    ...(input.history ? { history: input.history } : {}),
    ...(input.baselineVariancePriors ? { baselineVariancePriors: input.baselineVariancePriors } : {}),
    ...(input.startVariancePriors ? { startVariancePriors: input.startVariancePriors } : {}),
    ...(input.runVariancePriors ? { runVariancePriors: input.runVariancePriors } : {}),
    ...(input.baselineVariancePriorOrigin
      ? { baselineVariancePriorOrigin: input.baselineVariancePriorOrigin }
      : {}),
    now: (input.now ?? new Date()).toISOString(),
    tool: { name: toolName, version: toolVersion },
    ...(settings.cellFamilies === undefined ? {} : { cellFamilies: settings.cellFamilies }),
  };
}

/**
 * The capacity checks decided at this look's level from their adjustment in the gated family, joined to
 * the verdict; an undecided capacity verdict asks for its next look once the fixed-load cells ask for none.
 */
function withCapacityChecks(
  decided: VerdictFile,
  settings: CompareSettings,
  stage: CapacityStageInput,
  drafts: readonly CapacityDraft[],
  adjusted: readonly AdjustedMember[],
): VerdictFile {
  const { cells } = stage;
  const looks = capacityLooks(settings.repeats.max, cells);
  const alpha = capacityLookLevel(1 - settings.gate.confidence, looks, cells, stage.candidate, decided.mode);
  const checks = decideCapacity({ ...stage, alpha }, drafts, adjusted);
  const joined = withCapacity(decided, checks, settings.gate.fail_on);
  if (joined.verdict === "inconclusive" && joined.nextLook === null)
    joined.nextLook = capacityNextLook({
      checks,
      cells,
      looks,
      baseline: stage.baseline,
      candidate: stage.candidate,
      mode: joined.mode,
    });
  return joined;
}
