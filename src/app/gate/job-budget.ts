import { resolve } from "node:path";
import type { LoadedConfig } from "../../config/load.js";
import type { Config } from "../../config/schema.js";
import {
  applyBudgetPlan,
  type BudgetDecision,
  type BudgetPlan,
  calibratedCheckNoise,
  configWithinBudget,
} from "../budget-plan.js";
import { readCalibration } from "../compare.js";
import type { ActionInputs } from "./inputs.js";
import type { RunPlan } from "./plan.js";

/**
 * A job's budget (input `budget`, else gate.budget_gpu_minutes): the config as its plan measures it
 * (app/budget-plan.ts), over the job's cells, for the PR's mode (a gate against a stored baseline
 * measures one side; every other job measures as the pull requests do, interleaved), with the noise the
 * runner's calibration measured (input `calibration`) in place of the prior where it has it, as compare
 * plans it again when it judges.
 */
export async function budgetedJobConfig(
  loaded: LoadedConfig,
  inputs: Pick<ActionInputs, "budget" | "cells" | "calibration">,
  plan: Pick<RunPlan, "role" | "source">,
  context: { workingDirectory: string; now: Date },
): Promise<{ loaded: LoadedConfig; budget: BudgetDecision | null }> {
  const declared: Config =
    inputs.budget == null
      ? loaded.config
      : { ...loaded.config, gate: { ...loaded.config.gate, budget_gpu_minutes: inputs.budget } };
  if (declared.gate.budget_gpu_minutes === undefined) return { loaded, budget: null };
  const calibration = inputs.calibration
    ? await readCalibration(resolve(context.workingDirectory, inputs.calibration), inputs.calibration)
    : null;
  const { config, budget } = configWithinBudget(declared, {
    ...(inputs.cells ? { cells: inputs.cells } : {}),
    mode: plan.role === "gate" && plan.source === "measure" ? "stored" : "interleaved",
    ...(calibration ? { noiseOf: calibratedCheckNoise(declared, calibration.file, context.now) } : {}),
    file: loaded.path,
  });
  return { loaded: { ...loaded, config }, budget };
}

/** The base commit's config measured as the PR's budget plan says (the PR's config says how both sides are measured). */
export function baseSideWithinBudget(base: LoadedConfig, plan: BudgetPlan | undefined): LoadedConfig {
  return plan === undefined ? base : { ...base, config: applyBudgetPlan(base.config, plan) };
}
