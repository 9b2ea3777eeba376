import { describe, expect, it } from "vitest";
import { noiseFromMeasured, type PlanCell, planRuns, priorRunNoise } from "../../src/stats/run-plan.js";

const cell = (name: string, overrides: Partial<PlanCell> = {}): PlanCell => ({
  name,
  secondsPerRequest: 1,
  fixedSecondsPerRun: 4,
  declaredRequests: 240,
  minRequests: 200,
  noise: priorRunNoise,
  ...overrides,
});

const input = (cells: PlanCell[], startSeconds = 180) => ({
  cells,
  tolerance: 0.05,
  passAlpha: 0.05,
  power: 0.9,
  checks: cells.length * 5,
  minRuns: 3,
  maxRuns: 40,
  startsFor: (runs: number) => 2 * Math.ceil(runs / 5),
  startSeconds,
  sides: 2 as const,
  maxRequests: 100_000,
});

describe("planRuns", () => {
  it("meets the variance target at the chosen runs and is the cheapest run count that does", () => {
    const cells = [cell("a"), cell("b", { secondsPerRequest: 0.25 })];
    const plan = planRuns(input(cells));
    const margin = Math.log1p(0.05);
    // Each planned cell's predicted per-run sd, at the planned runs, leaves the clean PR's bound inside.
    for (const planned of plan.cells) {
      const sdDifference = planned.runSd * Math.sqrt(2 / plan.runsPerSide);
      expect(sdDifference).toBeLessThan(margin / 2);
    }
    // One run fewer cannot meet it at any request count within the limit, or costs more.
    const fewer = planRuns({ ...input(cells), minRuns: plan.runsPerSide - 1, maxRuns: plan.runsPerSide - 1 });
    expect(fewer.gpuMinutes >= plan.gpuMinutes || fewer.basis.includes("no run count")).toBe(true);
    // The price counts every start at the start cost.
    const runSeconds = plan.cells.reduce((sum, c) => sum + c.secondsPerRun, 0);
    expect(plan.gpuMinutes).toBeCloseTo(
      (2 * plan.runsPerSide * runSeconds + plan.serverStarts * 180) / 60,
      6,
    );
  });

  it("buys fewer, longer runs when server starts are dear and run effects small, more short ones when not", () => {
    const quietRuns = { ...priorRunNoise, runVariance: 0.005 ** 2 };
    const perRunStarts = (runs: number) => 2 * runs;
    const dear = planRuns({ ...input([cell("a", { noise: quietRuns })], 600), startsFor: perRunStarts });
    const cheap = planRuns({ ...input([cell("a", { noise: quietRuns })], 0), startsFor: perRunStarts });
    expect(dear.runsPerSide).toBeLessThan(cheap.runsPerSide);
    expect(dear.cells[0]!.requests!).toBeGreaterThan(cheap.cells[0]!.requests!);
  });

  it("never plans a run below the gated percentiles' floor", () => {
    const plan = planRuns(input([cell("a", { minRequests: 500 })]));
    expect(plan.cells[0]!.requests).toBeGreaterThanOrEqual(500);
  });

  it("says so when no run count in range can decide the first look", () => {
    const noisy = { ...priorRunNoise, runVariance: 0.2 ** 2 };
    const plan = planRuns({ ...input([cell("a", { noise: noisy })]), maxRuns: 10 });
    expect(plan.runsPerSide).toBe(10);
    expect(plan.basis).toContain("no run count up to 10");
  });

  it("a fixed-length run keeps its length and sets the runs it needs", () => {
    const fixed = cell("spike", { secondsPerRequest: null, fixedSecondsPerRun: 75, declaredRequests: 1200 });
    const plan = planRuns(input([fixed]));
    expect(plan.cells[0]).toMatchObject({ requests: null, secondsPerRun: 75 });
  });
});

describe("noiseFromMeasured", () => {
  it("keeps the measured total and names its basis", () => {
    const noise = noiseFromMeasured(0.03 ** 2, 400, 10);
    expect(noise.runVariance + noise.withinVariance1 / 400).toBeCloseTo(0.03 ** 2, 10);
    expect(noise.basis).toBe("measured: 10 runs at 400 requests");
    // Quieter than the prior's sampling noise alone: all of it is sampling noise.
    const quiet = noiseFromMeasured(0.001 ** 2, 400, 10);
    expect(quiet.runVariance).toBe(0);
  });
});
