import { alternationOf } from "../../config/alternation.js";
import { costRatesOf } from "../budget/cost.js";
import type { GreedyCheck, GuardCheck, TaskCheck } from "../verdict/quality-schema.js";
import type { Comparison, FamilyFinding, OverallVerdict, VerdictFile } from "../verdict/verdict-schema.js";
import type { checkComparability } from "./cells.js";
import type { AdjustedChecks, QualityDrafts, SpeedChecks } from "./checks.js";
import { decideFamilies } from "./families.js";
import { greedyChecks } from "./greedy.js";
import { decideGuards } from "./guards.js";
import type { AnalyzeInput } from "./input.js";
import type { Levels } from "./levels.js";
import {
  atToleranceChecks,
  countGated,
  detectionSummary,
  futilityModel,
  futilityWarnings,
  overallVerdict,
  planNextLook,
  runsToDetectChange,
  settleEstimate,
} from "./outcome.js";
import { decideTasks } from "./tasks.js";

/** What the checks decided, before the overall verdict. */
interface DecidedChecks {
  speed: SpeedChecks;
  quality: QualityDrafts;
  family: AdjustedChecks;
  comparisons: Comparison[];
  comparability: ReturnType<typeof checkComparability>;
}

/** The overall verdict, with the speed checks', the family tests' and the quality checks' parts of it. */
export interface DecidedVerdict {
  verdict: OverallVerdict;
  /** The speed checks' verdict alone, and with the family tests. */
  speedVerdict: OverallVerdict;
  speedAndFamilies: OverallVerdict;
  counts: VerdictFile["counts"];
  families: FamilyFinding[];
  familyRegressions: FamilyFinding[];
  brokenCells: VerdictFile["cells"];
  quality: DecidedQuality;
}

/** Stage 5: the family tests and the quality checks decided, and the overall verdict. */
export function decideVerdict(
  input: AnalyzeInput,
  levels: Levels,
  checks: DecidedChecks,
  warnings: string[],
): DecidedVerdict {
  const { gate } = input;
  const { speed, family, comparisons } = checks;
  const { alpha, passAlpha } = levels;
  const counts = countGated(comparisons);
  const families = decideFamilies(
    family.family.familyTests,
    (key) => family.groups.get(key)!,
    (index) => family.speedDrafts[index]!.cell,
    comparisons,
    alpha,
    passAlpha,
  );
  const familyRegressions = families.filter((f) => f.verdict === "regression");
  const brokenCells = speed.pairing.cells.filter(
    (cell) => cell.status === "missing-baseline" || cell.status === "missing-candidate",
  );
  const quality = decideQuality(input, checks.quality, family, alpha, warnings);
  const speedVerdict = overallVerdict(
    // So a config of quality cells alone is no empty comparison.
    { ...counts, gated: counts.gated + quality.compared },
    brokenCells.length,
    speed.pairing.allCells.length,
    checks.comparability.notComparable.length,
    gate.on_not_comparable,
  );
  // A family regression (docs/compare.md, "Family tests") and a guard regression (docs/quality.md) are
  // regressions whatever the single checks found.
  const speedAndFamilies =
    familyRegressions.length > 0 && speedVerdict !== "not-comparable" ? "regression" : speedVerdict;
  const verdict =
    quality.regressions > 0 && speedAndFamilies !== "not-comparable" ? "regression" : speedAndFamilies;
  return {
    verdict,
    speedVerdict,
    speedAndFamilies,
    counts,
    families,
    familyRegressions,
    brokenCells,
    quality,
  };
}

/** The quality checks decided (null: that kind of check did not run). */
interface DecidedQuality {
  guards: GuardCheck[] | null;
  greedy: GreedyCheck[] | null;
  tasks: TaskCheck[] | null;
  /** The quality checks that are regressions. */
  regressions: number;
  /** The greedy and task checks: the compared checks of quality cells (whose speed checks are advisory). */
  compared: number;
}

function decideQuality(
  input: AnalyzeInput,
  quality: QualityDrafts,
  family: AdjustedChecks,
  alpha: number,
  warnings: string[],
): DecidedQuality {
  const guards = quality.guards === null ? null : decideGuards(quality.guards, family.guardsAdjusted, alpha);
  const greedy = greedyChecks(quality.cells, input.quality?.greedy, warnings);
  const tasks = quality.tasks === null ? null : decideTasks(quality.tasks, family.tasksAdjusted, alpha);
  const regressions = (checks: readonly { verdict: string }[] | null) =>
    checks?.filter((check) => check.verdict === "regression").length ?? 0;
  return {
    guards,
    greedy,
    tasks,
    regressions: regressions(guards) + regressions(greedy) + regressions(tasks),
    compared: (greedy?.length ?? 0) + (tasks?.length ?? 0),
  };
}

/** What more runs would do: the next look, the checks at the tolerance, settling's cost, the detection. */
export interface LookAhead {
  nextLook: VerdictFile["nextLook"];
  atTolerance: NonNullable<VerdictFile["atTolerance"]>;
  settle: VerdictFile["settle"];
  detection: VerdictFile["detection"];
}

/**
 * Stage 6: the next look and what settling would cost; a verdict that no look can change says why (the
 * futility warnings), and each gated check gets the runs that would detect gate.detect_change.
 */
export function lookAhead(
  input: AnalyzeInput,
  levels: Levels,
  speed: SpeedChecks,
  gatedCount: number,
  comparisons: Comparison[],
  verdict: OverallVerdict,
  warnings: string[],
): LookAhead {
  const { gate, mode } = input;
  const { alpha, passAlpha, looks } = levels;
  const { cells, unfixableCells } = speed.pairing;
  const rates = costRatesOf(input.runMinutes, input.repeats.block, input.cost);
  const maxRuns = input.repeats.max;
  const runsPerStart =
    mode === "interleaved" ? alternationOf(input.repeats.block ?? 1).runsPerGroup : maxRuns;
  const { draftOf, futilityInput, resolvable } = futilityModel(
    speed.drafts,
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
    measuredRuns: speed.pairing.measuredRuns,
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
  const detect = [gate.detect_change, alphaAtRuns, mode, maxRuns, runsPerStart] as const;
  const detection = detectionSummary(comparisons, draftOf, ...detect);
  for (const comparison of comparisons)
    if (comparison.gated && comparison.detectableChange !== null)
      comparison.runsToDetectChange = runsToDetectChange(comparison, draftOf(comparison), ...detect);
  return { nextLook, atTolerance, settle, detection };
}
