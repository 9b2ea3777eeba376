import { describe, expect, it } from "vitest";
import { alternatingBlocks } from "../../src/runner/interleaved.js";
import {
  type BudgetPlanInput,
  budgetToDecide,
  type CheckNoise,
  detectableAt,
  planWithinBudget,
} from "../../src/stats/budget-plan.js";
import { minimumDetectableChange, powerAtChange } from "../../src/stats/metric-test.js";
import { startWeightFor, twoLevelWelch } from "../../src/stats/two-level.js";

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

/** A schedule of the tests: starts of k runs, or every run on a start of its own. */
type Schedule = number | "fresh";

/** A side's starts and Σn²/N² when the runs alternate A B | B A in groups of k, a side's consecutive groups merged. */
function alternated(runs: number, schedule: Schedule): { starts: number; total: number; weight: number } {
  const blocks = alternatingBlocks(0, runs, ["a", "b"] as const, {
    runsPerGroup: schedule === "fresh" ? 1 : schedule,
    startEachGroup: schedule === "fresh",
  });
  const a = blocks.filter((block) => block.side === "a");
  const b = blocks.filter((block) => block.side === "b");
  const weight = (side: typeof a) => side.reduce((sum, block) => sum + block.runs ** 2, 0) / runs ** 2;
  return {
    starts: Math.min(a.length, b.length),
    total: blocks.length,
    weight: Math.max(weight(a), weight(b)),
  };
}

/**
 * Two cells of 2 s a request, 3-minute starts, starts in regular blocks of k runs (both sides); with
 * `alternating`, the runner's schedules: groups of k alternating A B | B A, a side's consecutive groups
 * on one start, and with `fresh` also every run on a start of its own.
 */
function input(
  budgetMinutes: number,
  checks: CheckNoise[] = [throughput, ttft],
  options: { alternating?: boolean; fresh?: boolean; startSeconds?: number } = {},
): BudgetPlanInput<Schedule> {
  const perSide = (runs: number, schedule: Schedule) =>
    options.alternating
      ? alternated(runs, schedule).starts
      : Math.ceil(runs / (schedule === "fresh" ? 1 : schedule));
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
    schedulesAt: (runs) => [
      ...new Set([1, 2, 3, 5, 10].map((k) => Math.min(runs, k))),
      ...(options.fresh ? ["fresh" as const] : []),
    ],
    startsFor: (runs, schedule) =>
      options.alternating ? alternated(runs, schedule).total : 2 * perSide(runs, schedule),
    startWeightAt: (runs, schedule) =>
      options.alternating
        ? alternated(runs, schedule).weight
        : startWeightFor(runs, schedule === "fresh" ? 1 : schedule),
    startsPerSide: perSide,
    startPriorDf: 4,
    startSeconds: options.startSeconds ?? 180,
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
    expect(plan.schedule).toBeLessThan(3);
  });

  it("each planned check's detectable change is the report's formula at the plan's runs, starts and requests", () => {
    const plan = planWithinBudget(input(480))!;
    const cell = plan.cells[0]!;
    const requests = cell.requests!;
    const check = cell.checks.find((c) => c.metric === "output_throughput")!;
    expect(check.detectable).toBeCloseTo(
      detectableAt(input(480), throughput, plan.runsPerSide, plan.schedule, requests),
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

  it("a start per run wins where the start level outweighs the runs' and a start is cheap", () => {
    // Throughput: 1% start to start, 0.5% run to run; a start costs 20 s beside a run of both cells' 100 s.
    const cheapStarts = { alternating: true, startSeconds: 20 };
    const plan = planWithinBudget(input(30, [throughput], { ...cheapStarts, fresh: true }))!;
    expect(plan.schedule).toBe("fresh");
    expect(plan.serverStarts).toBe(2 * plan.runsPerSide);
    expect(plan.gpuMinutes).toBeLessThanOrEqual(30);
    expect(plan.decided).toBe(2);
    // Shared starts alone decide as much only with more runs and GPU-minutes.
    const shared = planWithinBudget(input(30, [throughput], cheapStarts))!;
    expect(shared.schedule).not.toBe("fresh");
    expect(shared.decided).toBe(2);
    expect(shared.runsPerSide).toBeGreaterThan(plan.runsPerSide);
    expect(shared.gpuMinutes).toBeGreaterThan(plan.gpuMinutes);
  });

  it("shared starts win where a start is dear and the runs carry the noise", () => {
    const runBound: CheckNoise = { ...ttft, startVariance: 0.003 ** 2 };
    const plan = planWithinBudget(
      input(240, [runBound], { alternating: true, fresh: true, startSeconds: 600 }),
    )!;
    expect(plan.schedule).not.toBe("fresh");
  });

  it("with every run on a start of its own, plans the test compare runs: the runs' whole spread, their df pooled with the calibration's", () => {
    // Runs whose spread is exactly the planned per-run variance σ_r² + σ_s² + sampling, each its own start.
    const runs = 6;
    const requests = 400;
    const calibrated = { ...throughput, perRunDf: 12 };
    const perRun = throughput.runVariance + throughput.startVariance + throughput.withinVariance1 / requests;
    const pattern = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5];
    const patternVariance = pattern.reduce((sum, x) => sum + x * x, 0) / (runs - 1);
    const side = (prefix: string) => ({
      values: pattern.map((x) => x * Math.sqrt(perRun / patternVariance)),
      starts: pattern.map((_, i) => `${prefix}${i}`),
    });
    const welch = twoLevelWelch(side("a"), side("b"), {
      runPrior: { perRun: { variance: perRun, df: calibrated.perRunDf } },
      startPrior: { variance: throughput.startVariance, df: 4 },
    });
    expect(welch.startPart).toBe(0);
    expect(welch.standardError ** 2).toBeCloseTo((2 * perRun) / runs, 12);
    // compare's detectable change: the sides' variances and runs, at its test's df.
    const comparePrints = (df: number) =>
      minimumDetectableChange({
        baselineVariance: perRun,
        candidateVariance: perRun,
        baselineRuns: runs,
        candidateRuns: runs,
        extraVariance: 0,
        tolerance: 0.05,
        alpha: 0.05 / 4,
        df,
      });
    const planned = detectableAt(
      input(480, [calibrated], { alternating: true, fresh: true }),
      calibrated,
      runs,
      "fresh",
      requests,
    );
    expect(planned).toBeCloseTo(comparePrints(welch.df), 3);
    // Without a calibration the runs' own df alone: 2·(R − 1).
    const alone = twoLevelWelch(side("a"), side("b"));
    expect(
      detectableAt(
        input(480, [throughput], { alternating: true, fresh: true }),
        throughput,
        runs,
        "fresh",
        requests,
      ),
    ).toBeCloseTo(comparePrints(alone.df), 3);
    expect(alone.df).toBeCloseTo(2 * (runs - 1), 9);
  });
});
