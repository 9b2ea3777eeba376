import { describe, expect, it } from "vitest";
import {
  type BudgetPlanInput,
  budgetToDecide,
  type CheckNoise,
  detectableAt,
  planWithinBudget,
} from "../../src/stats/budget-plan.js";
import { minimumDetectableChange, powerAtChange } from "../../src/stats/metric-test.js";
import { startWeightFor } from "../../src/stats/two-level.js";

const throughput: CheckNoise = {
  metric: "output_throughput",
  startVariance: 0.01 ** 2,
  runVariance: 0.005 ** 2,
  withinVariance1: 0.005 ** 2 * 1000,
  priorDf: 0,
};
const ttft: CheckNoise = {
  metric: "ttft_p95",
  startVariance: 0.03 ** 2,
  runVariance: 0.03 ** 2,
  withinVariance1: 0.0166 ** 2 * 1000,
  priorDf: 0,
};

/** Two cells of 2 s a request, 3-minute starts, starts in regular blocks of k runs (both sides). */
function input(budgetMinutes: number, checks: CheckNoise[] = [throughput, ttft]): BudgetPlanInput {
  return {
    cells: ["a", "b"].map((name) => ({
      name,
      secondsPerRequest: 0.2,
      fixedSecondsPerRun: 10,
      declaredRequests: 200,
      minRequests: 200,
      checks,
    })),
    budgetMinutes,
    tolerance: 0.05,
    detectChange: 0.1,
    alpha: 0.05 / 4,
    minRuns: 3,
    maxRuns: 40,
    maxRequests: 100_000,
    blocks: [1, 2, 3, 5, 10],
    startsFor: (runs, block) => 2 * Math.ceil(runs / block),
    startWeightAt: (runs, block) => startWeightFor(runs, block),
    startsPerSide: (runs, block) => Math.ceil(runs / block),
    startPriorDf: 4,
    startSeconds: 180,
    sides: 2,
  };
}

describe("a plan within a budget", () => {
  it("never plans past the budget, and a larger budget decides at least as many checks", () => {
    let decided = -1;
    for (const budget of [30, 60, 120, 240, 480, 960]) {
      const plan = planWithinBudget(input(budget))!;
      expect(plan.gpuMinutes).toBeLessThanOrEqual(budget);
      expect(plan.decided).toBeGreaterThanOrEqual(decided);
      decided = plan.decided;
    }
    // At the largest budget throughput is decided in both cells; TTFT p95's 3% start level needs more starts.
    expect(planWithinBudget(input(960))!.decided).toBeGreaterThanOrEqual(2);
  });

  it("a budget below the fewest runs of every cell at its floor buys no plan", () => {
    expect(planWithinBudget(input(5))).toBeNull();
  });

  it("spends no more than deciding its checks needs: with every check decided, a larger budget buys nothing more", () => {
    const small = planWithinBudget(input(2000, [throughput]))!;
    const large = planWithinBudget(input(8000, [throughput]))!;
    expect(small.decided).toBe(2);
    expect(large.decided).toBe(2);
    expect(large.gpuMinutes).toBeCloseTo(small.gpuMinutes, 6);
  });

  it("spends a budget that decides nothing on power: the plan's power at detect_change beats the cheapest plan's", () => {
    // TTFT p95 alone at a budget far below what deciding it needs: no plan decides it.
    const plan = planWithinBudget(input(60, [ttft]))!;
    expect(plan.decided).toBe(0);
    const cheapest = { runs: 3, block: 3, requests: 200 };
    const cheapestPower = powerAtChange(
      {
        baselineVariance: ttft.runVariance + ttft.withinVariance1 / cheapest.requests,
        candidateVariance: ttft.runVariance + ttft.withinVariance1 / cheapest.requests,
        baselineRuns: cheapest.runs,
        candidateRuns: cheapest.runs,
        extraVariance: 0,
        start: { startVariance: ttft.startVariance, runsPerStart: cheapest.block },
        tolerance: 0.05,
        alpha: 0.05 / 4,
        df: 4,
      },
      0.1,
    );
    const meanPower = plan.power / plan.checks;
    expect(meanPower).toBeGreaterThan(cheapestPower + 0.02);
    expect(plan.gpuMinutes).toBeLessThanOrEqual(60);
    // More starts pay for a check whose noise is mostly the start's.
    expect(plan.runsPerStart).toBeLessThan(3);
  });

  it("each planned check's detectable change is the report's formula at the plan's runs, starts and requests", () => {
    const plan = planWithinBudget(input(480))!;
    const cell = plan.cells[0]!;
    const requests = cell.requests!;
    const check = cell.checks.find((c) => c.metric === "output_throughput")!;
    expect(check.detectable).toBeCloseTo(
      detectableAt(input(480), throughput, plan.runsPerSide, plan.runsPerStart, requests),
      12,
    );
    // Without a start level and with plenty of df, it is minimumDetectableChange of two sides of R runs.
    const flat = { ...throughput, startVariance: 0, priorDf: 10_000 };
    const perRun = flat.runVariance + flat.withinVariance1 / 500;
    expect(detectableAt(input(480), flat, 10, 10, 500)).toBeCloseTo(
      minimumDetectableChange({
        baselineVariance: perRun,
        candidateVariance: perRun,
        baselineRuns: 10,
        candidateRuns: 10,
        extraVariance: 0,
        tolerance: 0.05,
        alpha: 0.05 / 4,
        df: 2 * 10 - 2 + 10_000,
      }),
      3,
    );
  });

  it("the budget that would decide an undecided check buys a plan that decides it", () => {
    const budget = 240;
    const plan = planWithinBudget(input(budget))!;
    const open = plan.cells[0]!.checks.find((c) => !c.decided);
    expect(open).toBeDefined();
    const needed = budgetToDecide(input(budget), plan, "a", open!.metric);
    expect(needed).not.toBeNull();
    expect(needed!).toBeGreaterThan(budget);
    const richer = planWithinBudget(input(needed! + 1))!;
    expect(richer.decided).toBeGreaterThan(plan.decided);
  });
});
