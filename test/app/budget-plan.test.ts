import { describe, expect, it } from "vitest";
import {
  BudgetError,
  type CheckNoiseSource,
  calibratedCheckNoise,
  configWithinBudget,
  decideBudget,
  priorCheckNoise,
} from "../../src/app/budget-plan.js";
import { planStep } from "../../src/app/measure-on-devices.js";
import { repeatsBlockOf } from "../../src/config/alternation.js";
import { parseConfigText } from "../../src/config/load.js";
import { configSchema } from "../../src/config/schema.js";
import { alternation, summarizeConfig } from "../../src/config/summary.js";

/**
 * The budget applied to a config (app/budget-plan.ts): each check's own noise from gate.noise_prior
 * (or a calibration), the plan's sizes and runs in the config that measures it, the cells a job
 * measures, and a budget too small to measure them named as an input error.
 */
const configText = `version: 1
server: { kind: sim, profile: noiseless }
model: { name: sim-model }
cost: { server_start_s: 180 }
gate: { budget_gpu_minutes: 240 }
cells:
  - name: chat
    dataset: { type: synthetic, input_tokens: 128, output_tokens: 64 }
    load: { type: rate, rate: 4 }
    size: { requests: 300 }
  - name: long
    dataset: { type: synthetic, input_tokens: 2048, output_tokens: 256 }
    load: { type: concurrency, concurrency: 8 }
    size: { requests: 300 }
`;
const { config } = parseConfigText(configText, "gate.yml");

describe("the budget applied to a config", () => {
  it("takes each gated metric's own prior: throughput steadier than TTFT p95, both levels", () => {
    const throughput = priorCheckNoise(config, "output_throughput");
    const ttft = priorCheckNoise(config, "ttft_p95");
    expect(throughput.startVariance).toBeCloseTo(config.gate.noise_prior.throughput.start_sd ** 2, 12);
    expect(ttft.startVariance).toBeCloseTo(config.gate.noise_prior.ttft.start_sd ** 2, 12);
    expect(throughput.runVariance).toBeLessThan(ttft.runVariance);
    expect(throughput.withinVariance1).toBeLessThan(ttft.withinVariance1);
  });

  it("gives the config that measures its plan: one look at the planned runs, blocks and requests", () => {
    const { config: planned, budget } = configWithinBudget(config);
    const plan = budget!.plan;
    expect(plan.gpuMinutes).toBeLessThanOrEqual(240);
    expect(planned.repeats.min).toBe(plan.runsPerSide);
    expect(planned.repeats.max).toBe(plan.runsPerSide);
    expect(planned.repeats.block).toBe(repeatsBlockOf(plan.schedule));
    for (const cell of plan.cells) {
      const size = planned.cells.find((c) => c.name === cell.name)!.size;
      expect(size).toEqual({ requests: cell.requests });
    }
    // Throughput is decided before TTFT p95 in every cell.
    for (const cell of plan.cells) {
      const decided = new Map(cell.checks.map((c) => [c.metric, c.decided]));
      if (decided.get("ttft_p95")) expect(decided.get("output_throughput")).toBe(true);
    }
  });

  it("plans the cells a job measures, and leaves the others as declared", () => {
    const { config: planned, budget } = configWithinBudget(config, { cells: ["chat"] });
    expect(budget!.plan.cells.map((c) => c.name)).toEqual(["chat"]);
    expect(planned.cells.find((c) => c.name === "long")!.size).toEqual({ requests: 300 });
  });

  it("a budget that cannot measure every cell is an input error naming the file, the field and the least", () => {
    expect(() => decideBudget(config, 2, { file: "gate.yml" })).toThrow(BudgetError);
    expect(() => decideBudget(config, 2, { file: "gate.yml" })).toThrow(
      /^gate\.yml: gate\.budget_gpu_minutes: 2 GPU-minutes cannot measure 3 runs a side .* \(the least: \d+ GPU-minutes\)/,
    );
  });

  it("noise known in advance pays: the same variances known with many df decide more at the same budget", () => {
    const prior = decideBudget(config, 60).plan;
    const calibrated = decideBudget(config, 60, {
      noiseOf: (_cell, metric) => ({ ...priorCheckNoise(config, metric), priorDf: 60, startDf: 20 }),
    }).plan;
    expect(calibrated.decided).toBeGreaterThan(prior.decided);
    expect(calibrated.gpuMinutes).toBeLessThanOrEqual(60);
  });

  it("reads a calibration's levels per cell and family, the prior where it measured nothing", () => {
    const file = {
      schemaVersion: 1,
      createdAt: "2026-12-01T00:00:00.000Z",
    } as unknown as Parameters<typeof calibratedCheckNoise>[1];
    // A file with no cells measured nothing: every check keeps the prior.
    const noiseOf = calibratedCheckNoise(config, { ...file, cells: [] } as typeof file, new Date());
    expect(noiseOf("chat", "ttft_p95")).toBeNull();
  });

  /** A runner whose noise is the start's: 2% start to start, 0.2% run to run, a calibration's df behind both. */
  const startBound: CheckNoiseSource = (_cell, metric) => ({
    ...priorCheckNoise(config, metric),
    startVariance: 0.02 ** 2,
    runVariance: 0.002 ** 2,
    priorDf: 20,
    startDf: 20,
    perRunDf: 20,
  });
  const cheapStarts = { ...config, cost: { ...config.cost, server_start_s: 20 } };

  it("buys every run a start of its own where that decides more for less, and measures it as repeats.block fresh", () => {
    const { config: planned, budget } = configWithinBudget(cheapStarts, { noiseOf: startBound });
    const plan = budget!.plan;
    expect(plan.schedule).toEqual({ runsPerGroup: 1, startEachGroup: true });
    expect(planned.repeats.block).toBe("fresh");
    expect(configSchema.safeParse(planned).success).toBe(true);
    // The applied config measures what was planned: its alternation, and the starts validate counts for it.
    expect(alternation(planned)).toEqual(plan.schedule);
    const interleaved = summarizeConfig(planned).gpuMinutes.find((e) => e.mode === "interleaved")!;
    expect(interleaved.runs.first).toBe(plan.runsPerSide);
    expect(interleaved.serverStarts.first).toBe(plan.serverStarts);
    expect(plan.serverStarts).toBe(2 * plan.runsPerSide);
    expect(interleaved.minutes.first).toBeLessThanOrEqual(240);
    // The runner's plan of the step: both sides, or one side of it measured alone (`run --side`).
    const step = { firstRun: 0, runs: plan.runsPerSide, cells: null };
    const both = ["baseline", "candidate"].map((side) => ({ side, config: planned }));
    expect(planStep({ sides: both, step, config: planned }).serverStarts).toBe(plan.serverStarts);
    const alone = { sides: [{ side: "candidate", config: planned }], step, config: planned };
    expect(planStep({ ...alone, aloneStartsEachGroup: true }).serverStarts).toBe(plan.runsPerSide);
    // A stored step's one side keeps one start a step.
    expect(planStep(alone).serverStarts).toBe(1);
  });

  it("keeps starts shared where they are dear, and never restarts a server the runner does not start", () => {
    const dear = decideBudget(config, 240, {
      noiseOf: (cell, metric) => ({ ...startBound(cell, metric)!, startVariance: 0.002 ** 2 }),
    }).plan;
    expect(dear.schedule.startEachGroup).toBe(false);
    const { config: external } = parseConfigText(
      configText
        .replace("kind: sim, profile: noiseless", 'kind: external, base_url: "http://127.0.0.1:8000"')
        .replace("server_start_s: 180", "server_start_s: 20"),
      "external.yml",
    );
    const { config: planned, budget } = configWithinBudget(external, { noiseOf: startBound });
    expect(budget!.plan.schedule.startEachGroup).toBe(false);
    expect(configSchema.safeParse(planned).success).toBe(true);
  });
});
