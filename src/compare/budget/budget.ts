import { exitCodeFor } from "../verdict/exit-code.js";
import type { Comparison, VerdictFile } from "../verdict/verdict-schema.js";
import { addedGpuMinutes, type CostRates } from "./cost.js";

/**
 * A comparison under a budget (gate.budget_gpu_minutes; docs/compare.md, "A budget per pull request"):
 * each gated check says whether more runs within the budget could catch gate.detect_change in it, the
 * smallest worsening its runs catch, and about what deciding it would cost. A check the budget cannot
 * decide does not hold the verdict open and asks for no runs: it is reported as such. A regression its
 * runs show beyond doubt still blocks. No look is asked for past the budget.
 */

export interface BudgetSettings {
  limitGpuMinutes: number;
  /** The plan the budget bought (app/budget-plan.ts), for the record. */
  plan: NonNullable<VerdictFile["budget"]>["plan"];
}

function checkBudget(
  comparison: Comparison,
  limit: number,
  spent: number,
  mode: VerdictFile["mode"],
  rates: CostRates,
): NonNullable<Comparison["budget"]> {
  const runs = comparison.runsToDetectChange ?? null;
  const now = comparison.runs.candidate;
  const toDecide =
    runs === null
      ? null
      : runs <= now
        ? spent
        : spent + addedGpuMinutes(mode === "interleaved" ? "interleaved" : "stored", 1, now, runs, rates);
  return {
    decidable: toDecide !== null && toDecide <= limit,
    detectableAtSpend: comparison.detectableChange,
    gpuMinutesToDecide: toDecide,
  };
}

/** The checks the budget cannot decide that were left undecided: inconclusive and out of its reach. */
function notDecidableAtBudget(comparisons: readonly Comparison[]): Comparison[] {
  return comparisons.filter((c) => c.gated && c.verdict === "inconclusive" && c.budget?.decidable === false);
}

export function withBudget(verdict: VerdictFile, budget: BudgetSettings, rates: CostRates): VerdictFile {
  const spent = verdict.gpuMinutes?.total ?? 0;
  const limit = budget.limitGpuMinutes;
  const comparisons = verdict.comparisons.map((c) =>
    c.gated ? { ...c, budget: checkBudget(c, limit, spent, verdict.mode, rates) } : c,
  );
  const undecidable = notDecidableAtBudget(comparisons);
  const warnings = [...verdict.warnings];
  let nextLook = verdict.nextLook;
  if (nextLook && spent + (nextLook.gpuMinutes ?? 0) > limit) {
    warnings.push(
      `no further look: it would cost about ${Math.round(nextLook.gpuMinutes ?? 0)} GPU-minutes, past the budget (${Math.round(spent)} of ${limit} spent; gate.budget_gpu_minutes)`,
    );
    nextLook = null;
  }
  // Undecided only where the budget cannot reach: every other check settled, nothing left to measure.
  let overall = verdict.verdict;
  const stillOpen = verdict.counts.inconclusive - undecidable.length;
  if (overall === "inconclusive" && stillOpen === 0 && undecidable.length > 0 && !capacityOpen(verdict)) {
    overall = "pass";
    nextLook = null;
  }
  return {
    ...verdict,
    verdict: overall,
    exitCode: exitCodeFor(overall, verdict.settings.failOn),
    headline:
      overall === verdict.verdict
        ? verdict.headline
        : `Pass at this budget: no gated check it can decide is worse; ${undecidable.length} ${undecidable.length === 1 ? "check is" : "checks are"} not decidable at ${limit} GPU-minutes`,
    comparisons,
    nextLook,
    settle: overall === "pass" ? null : verdict.settle,
    warnings,
    budget: {
      limitGpuMinutes: limit,
      spentGpuMinutes: spent,
      plan: budget.plan,
      notDecidable: undecidable.length,
    },
  };
}

/** A capacity check still undecided holds the verdict whatever the budget says of the speed checks. */
function capacityOpen(verdict: VerdictFile): boolean {
  return (verdict.capacity ?? []).some((check) => check.gated && check.verdict === "inconclusive");
}
