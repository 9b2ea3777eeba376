import type { LoadedConfig } from "../../config/load.js";
import type { Config } from "../../config/schema.js";
import { applyBudgetPlan, type BudgetDecision, configWithinBudget } from "../budget-plan.js";
import type { ActionInputs } from "./inputs.js";
import type { RunPlan } from "./plan.js";

/**
 * A job's budget (input `budget`, else gate.budget_gpu_minutes): the config as its plan measures it
 * (app/budget-plan.ts), over the job's cells, for the PR's mode: a gate against a stored baseline
 * measures one side; every other job measures as the pull requests do, interleaved.
 */
export function budgetedJobConfig(
  loaded: LoadedConfig,
  inputs: Pick<ActionInputs, "budget" | "cells">,
  plan: Pick<RunPlan, "role" | "source">,
): { loaded: LoadedConfig; budget: BudgetDecision | null } {
  const declared: Config =
    inputs.budget == null
      ? loaded.config
      : { ...loaded.config, gate: { ...loaded.config.gate, budget_gpu_minutes: inputs.budget } };
  const { config, budget } = configWithinBudget(declared, {
    ...(inputs.cells ? { cells: inputs.cells } : {}),
    mode: plan.role === "gate" && plan.source === "measure" ? "stored" : "interleaved",
    file: loaded.path,
  });
  return { loaded: { ...loaded, config }, budget };
}

/** The base commit's config measured as the PR's plan says (the PR's config says how both sides are measured). */
export function baseSideWithinBudget(
  base: LoadedConfig,
  head: Config,
  cells: readonly string[] | null,
): LoadedConfig {
  const { budget } = configWithinBudget(head, cells ? { cells } : {});
  return budget === null ? base : { ...base, config: applyBudgetPlan(base.config, budget.plan) };
}
