import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { budgetedSettings, type CheckNoiseSource, configWithinBudget } from "../../src/app/budget-plan.js";
import { settingsFromConfig } from "../../src/compare/index.js";
import { alternationOf } from "../../src/config/alternation.js";
import { loadConfig } from "../../src/config/load.js";
import type { Config } from "../../src/config/schema.js";
import { alternation } from "../../src/config/summary.js";

/** The PR tier of examples/matrix-18.yml (docs/action.md, Tiers). */
const tierCells = ["chat-reuse-usual", "rag-fresh-usual", "longgen-fresh-usual"];

let declared: Config;
beforeAll(async () => {
  ({ config: declared } = await loadConfig(resolve(import.meta.dirname, "../../examples/matrix-18.yml"), {
    env: {},
  }));
});

const withBudget = (budget: number | undefined): Config => ({
  ...declared,
  gate: { ...declared.gate, budget_gpu_minutes: budget },
});

/** A runner far quieter than the prior: every check decided by the fewest runs. */
const quiet: CheckNoiseSource = (_cell, metric) => ({
  metric,
  startVariance: 1e-6,
  runVariance: 1e-6,
  withinVariance1: 1e-3,
  priorDf: 20,
});

describe("budgetedSettings: compare's settings for runs measured under a budget", () => {
  it("is the config's settings when the config has no budget", () => {
    const settings = budgetedSettings(withBudget(undefined), { cells: tierCells, mode: "interleaved" });
    expect(settings).toEqual(settingsFromConfig(declared));
    expect(settings.budget).toBeUndefined();
  });

  it("judges the plan run measured: its runs per side in one look, its runs per start, and records it", () => {
    const config = withBudget(60);
    const { config: planned, budget } = configWithinBudget(config, { cells: tierCells, mode: "interleaved" });
    const settings = budgetedSettings(config, { cells: tierCells, mode: "interleaved" });
    expect(settings.repeats).toMatchObject({
      min: budget!.plan.runsPerSide,
      max: budget!.plan.runsPerSide,
    });
    // The schedule compare projects with is the one planned (a number, or the alternation itself).
    expect(alternationOf(settings.repeats.block!)).toEqual(budget!.plan.schedule);
    expect(alternation(planned)).toEqual(budget!.plan.schedule);
    expect(settings.budget).toEqual({
      limitGpuMinutes: 60,
      plan: {
        gpuMinutes: budget!.plan.gpuMinutes,
        runsPerSide: budget!.plan.runsPerSide,
        runsPerStart: budget!.plan.schedule.runsPerGroup,
        ...(budget!.plan.schedule.startEachGroup ? { startEachGroup: true } : {}),
        requests: Object.fromEntries(budget!.plan.cells.map((cell) => [cell.name, cell.requests])),
      },
    });
    // The config the plan applied, judged again, is judged the same (the action compares it so).
    expect(budgetedSettings(planned, { cells: tierCells, mode: "interleaved" })).toEqual(settings);
  });

  // Budgets at which planning the planned config again bought another plan, or none, while the run
  // seconds were priced in proportion to the declared size (compare and the action's base side plan again).
  it.each([53.1, 119, 446, 500])(
    "buys the same plan again from the config it applied (budget %d)",
    (budget) => {
      const options = { cells: tierCells, mode: "interleaved" as const };
      const first = configWithinBudget(withBudget(budget), options);
      const again = configWithinBudget(first.config, options);
      expect(again.config).toEqual(first.config);
      const { gpuMinutes, cells, ...plan } = first.budget!.plan;
      expect(again.budget!.plan).toMatchObject(plan);
      expect(again.budget!.plan.gpuMinutes).toBeCloseTo(gpuMinutes, 9);
      expect(again.budget!.plan.cells.map((cell) => cell.requests)).toEqual(
        cells.map((cell) => cell.requests),
      );
    },
  );

  it("follows the noise the plan was chosen with, so a calibrated runner's runs are judged as planned", () => {
    const config = withBudget(200);
    const prior = budgetedSettings(config, { cells: tierCells, mode: "interleaved" });
    const calibrated = budgetedSettings(config, { cells: tierCells, mode: "interleaved", noiseOf: quiet });
    const plan = configWithinBudget(config, { cells: tierCells, mode: "interleaved", noiseOf: quiet }).budget!
      .plan;
    expect(calibrated.repeats.min).toBe(plan.runsPerSide);
    expect(calibrated.repeats.min).toBeLessThan(prior.repeats.min);
  });

  it("still limits the judgement when the budget cannot buy a plan for the measured cells", () => {
    const settings = budgetedSettings(withBudget(45), { cells: tierCells, mode: "interleaved" });
    expect(settings.budget).toEqual({ limitGpuMinutes: 45, plan: null });
    expect(settings.repeats).toEqual(settingsFromConfig(declared).repeats);
  });
});
