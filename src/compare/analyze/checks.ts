import { cellFamily } from "../../config/families.js";
import type { MetricName } from "../../config/metric-names.js";
import type { QualityConfig } from "../../config/schema.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { type CellPairing, type ComparedCell, pairCells } from "./cells.js";
import {
  type FamilyAdjusted,
  type FamilyGroup,
  familyDrafts,
  familyGroupKey,
  speedMembers,
} from "./decide.js";
import { type Draft, type DraftSettings, draftsForCell } from "./drafts.js";
import { type AdjustedFamily, type AdjustedMember, adjustGatedFamily } from "./gated-family.js";
import { type GuardDraft, guardDrafts, guardMembers } from "./guards.js";
import type { AnalyzeInput } from "./input.js";
import type { Levels, SessionDrift } from "./levels.js";
import { baselinePriorOf, runPriorOf, stalePriorWarnings, startPriorOf } from "./priors.js";
import { type TaskDraft, taskDrafts, taskMembers } from "./tasks.js";
import { groupByCell, selectUsableRuns, type UsableRuns } from "./usable-runs.js";

const defaultGuardSettings: QualityConfig["guards"] = {
  enabled: true,
  share_points: 0.02,
  output_length_tolerance: 0.1,
};

/** The speed checks before multiplicity: the usable runs, the cells paired and a draft per metric and cell. */
export interface SpeedChecks {
  runs: UsableRuns;
  pairing: CellPairing;
  drafts: Draft[];
  /** Interleaved mode: the start priors the drafts were tested with (the spec-decode split uses them too). */
  startPriorFor?: ReturnType<typeof startPriorOf>;
}

/** Stages 1 to 3: the usable runs (outliers screened), the cells paired and each cell's drafts. */
export function draftSpeedChecks(
  input: AnalyzeInput,
  levels: Levels,
  drift: SessionDrift,
  warnings: string[],
): SpeedChecks {
  const { gate, mode } = input;
  const runs = selectUsableRuns(input.baseline, input.candidate, gate, warnings);
  const pairing = pairCells(runs, mode);
  const startPriorFor = mode === "interleaved" ? startPriorOf(input) : undefined;
  const settings: DraftSettings = {
    gate,
    gatedSet: new Set<MetricName>(gate.metrics),
    advisoryCells: outputCells(input.baseline, input.candidate),
    passAlpha: levels.passAlpha,
    driftVarianceFor: drift.varianceFor,
    ...(mode === "stored" && input.baselineVariancePriors
      ? { baselineVariancePriorFor: baselinePriorOf(input, input.baselineVariancePriors) }
      : {}),
    ...(startPriorFor ? { startPriorFor, runPriorFor: runPriorOf(input) } : {}),
  };
  const drafts = pairing.compared.flatMap((cell) => draftsForCell(cell, settings, warnings));
  warnings.push(...stalePriorWarnings(drafts, gate.noise_prior.max_age_days));
  return { runs, pairing, drafts, ...(startPriorFor ? { startPriorFor } : {}) };
}

/** The quality checks' drafts (null: that kind of check is off or has nothing to judge). */
export interface QualityDrafts {
  /** Every cell both sides measured, with all its runs. */
  cells: ComparedCell[];
  guards: GuardDraft[] | null;
  tasks: TaskDraft[] | null;
}

export function draftQualityChecks(input: AnalyzeInput, warnings: string[]): QualityDrafts {
  // The quality checks read what the outputs were: a run excluded from the speed checks (client-bound,
  // an outlier) still answered its prompts, so every run of a cell present on both sides counts.
  const cells = qualityCellsOf(input.baseline, input.candidate);
  const guards = guardDrafts(
    cells,
    { guards: input.quality?.guards ?? defaultGuardSettings, metricTolerance: input.gate.metric_tolerance },
    warnings,
  );
  const tasks = taskDrafts(cells, {
    tasks: input.quality?.tasks ?? { tolerance_points: 0.02 },
    confidence: input.gate.confidence,
  });
  return { cells, guards, tasks };
}

/** The gated family adjusted, cut back into each kind of check's adjusted tests. */
export interface AdjustedChecks {
  /** The speed drafts in the family (gated, tested against the tolerance). */
  speedDrafts: Draft[];
  speedAdjusted: FamilyAdjusted;
  extrasAdjusted: AdjustedMember[];
  guardsAdjusted: AdjustedMember[];
  tasksAdjusted: AdjustedMember[];
  /** The family tests' groups by key: a workload family and a gated metric. */
  groups: Map<string, FamilyGroup>;
  family: AdjustedFamily;
  /**
   * The strictest level a check of the family starts at, as a count of tests (Holm's first step is α/m;
   * a grouped check's (1 − family_weight)·α/m): for the detectable change and the futility checks.
   */
  gatedCount: number;
}

/**
 * The gated family, one per comparison: the speed checks' tests against the tolerance, the capacity
 * checks', the guards' and the task checks', and the family tests of each gated metric across the cells
 * of a workload family, adjusted together at the look's α (compare/analyze/gated-family.ts).
 */
export function adjustFamily(
  input: AnalyzeInput,
  drafts: readonly Draft[],
  quality: QualityDrafts,
  alpha: number,
): AdjustedChecks {
  const speedDrafts = familyDrafts(drafts);
  const extras = input.familyExtras ?? [];
  const guards = quality.guards ?? [];
  const tasks = quality.tasks ?? [];
  const familyOf = (cell: string) => input.cellFamilies?.[cell] ?? cellFamily({ name: cell });
  const groups = new Map<string, FamilyGroup>();
  for (const d of speedDrafts) {
    const group = { family: familyOf(d.cell), metric: d.metric };
    groups.set(familyGroupKey(group), group);
  }
  const family = adjustGatedFamily(
    [...speedMembers(speedDrafts, familyOf), ...extras, ...guardMembers(guards), ...taskMembers(tasks)],
    alpha,
    input.gate.family_weight,
  );
  const at = (offset: number, count: number) => family.members.slice(offset, offset + count);
  const speedAdjusted = at(0, speedDrafts.length);
  const guardOffset = speedDrafts.length + extras.length;
  return {
    speedDrafts,
    speedAdjusted: new Map(
      speedDrafts.map((d, i) => [
        d,
        { beyond: speedAdjusted[i]!.regression!, betterBeyond: speedAdjusted[i]!.improvement! },
      ]),
    ),
    extrasAdjusted: at(speedDrafts.length, extras.length),
    guardsAdjusted: at(guardOffset, guards.length),
    tasksAdjusted: at(guardOffset + guards.length, tasks.length),
    groups,
    family,
    gatedCount: Math.max(1, 1 / family.summary.strictestShare),
  };
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
