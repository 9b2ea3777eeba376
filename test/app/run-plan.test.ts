import { describe, expect, it } from "vitest";
import { baselineSteps, firstLookPlans } from "../../src/app/measure-on-devices.js";
import { planCells, runPlans } from "../../src/app/run-plan.js";
import { configSchema } from "../../src/config/schema.js";
import { baselineRunsPerStart } from "../../src/config/summary.js";
import { priorRunNoise } from "../../src/stats/run-plan.js";

/** One cell of `dataset`, gating `metrics` (p95 floor 200 requests). */
const config = (dataset: Record<string, unknown>, metrics: string[]) =>
  configSchema.parse({
    version: 1,
    server: { kind: "sim" },
    model: { name: "m" },
    cells: [
      {
        name: "c",
        endpoint: "chat",
        dataset,
        load: { type: "concurrency", concurrency: 4 },
        size: { requests: 80 },
        warmup: { requests: 0 },
      },
    ],
    gate: { metrics },
  });

const sessions = {
  type: "sessions",
  turns: 10,
  message_tokens: 64,
  output_tokens: 32,
  think_time_s: 0,
};

describe("the run plan's prior", () => {
  it("takes the gated family with the most noise, and a throughput-only gate plans on throughput's", () => {
    const [throughput] = planCells(
      config({ type: "synthetic", input_tokens: 64, output_tokens: 32 }, ["output_throughput"]),
    );
    expect(throughput!.noise.startVariance).toBeCloseTo(0.01 ** 2, 12);
    expect(throughput!.noise.runVariance).toBeCloseTo(0.005 ** 2, 12);
  });
});

describe("the run plan of a session cell", () => {
  it("plans sessions, with the floor and the sampling variance of the requests they hold", () => {
    const [requests] = planCells(
      config({ type: "synthetic", input_tokens: 64, output_tokens: 32 }, ["ttft_p95"]),
    );
    // TTFT p95 gated: the prior is gate.noise_prior.ttft's, both levels (start and run sd 3%). The floor
    // is the 200 successful requests a p95 needs with room for the 1% failures gate.error_rate_limit
    // allows: ⌈200 / 0.99⌉ = 203.
    expect(requests).toMatchObject({
      minRequests: 203,
      noise: {
        startVariance: 0.03 ** 2,
        runVariance: 0.03 ** 2,
        withinVariance1: priorRunNoise.withinVariance1,
      },
    });
    expect(requests!.noise.basis).toMatch(/gate\.noise_prior\.ttft/);
    expect(requests).not.toHaveProperty("sizeUnit");
    const [session] = planCells(config(sessions, ["ttft_p95"]));
    // 10 turns a session: 21 sessions hold the 203 requests a gated p95 needs, and each session's
    // sampling variance is that of its 10 requests.
    expect(session).toMatchObject({ sizeUnit: "sessions", minRequests: 21 });
    expect(session!.noise.withinVariance1).toBeCloseTo(priorRunNoise.withinVariance1 / 10, 12);
  });

  it("counts a gated depth bucket's floor in the turns a session has there", () => {
    // Turns 8, 9 and 10 fall in the 8_up bucket: 203 / 3 sessions; turns 4-7 four a session: 51.
    expect(planCells(config(sessions, ["ttft_p95_depth_8_up"]))[0]!.minRequests).toBe(68);
    expect(planCells(config(sessions, ["ttft_p95_depth_4_7"]))[0]!.minRequests).toBe(51);
    // Sessions of 2 turns never reach depth 8: that check stays advisory, and sets no floor.
    expect(
      planCells(config({ ...sessions, turns: 2 }, ["ttft_p95", "ttft_p95_depth_8_up"]))[0]!.minRequests,
    ).toBe(102);
  });
});

describe("the baseline job's plan", () => {
  it("counts the server starts the job measures its runs over, at least two", () => {
    const base = config({ type: "synthetic", input_tokens: 64, output_tokens: 32 }, ["ttft_p95"]);
    // A docker server that takes 10 minutes to start: few, long starts (half the runs each).
    const slow = {
      ...base,
      server: { ...base.server, kind: "docker", image: `vllm/vllm-openai@sha256:${"a".repeat(64)}` },
      cost: { ...base.cost, server_start_s: 600 },
      repeats: { ...base.repeats, baseline: 10, block: "auto" as const },
    } as typeof base;
    const plan = runPlans(slow).find((entry) => entry.mode === "baseline")!.plan;
    expect(plan.runsPerSide).toBe(10);
    expect(baselineRunsPerStart(slow)).toBe(5);
    expect(plan.serverStarts).toBe(2);
    // The device plan validate prints: two steps, one after the other, a start each.
    const [, , baseline] = firstLookPlans(slow);
    expect(baseline!.plan.serverStarts).toBe(2);
    const steps = baselineSteps(slow, 10, null);
    expect(steps).toEqual([
      { firstRun: 0, runs: 5, cells: null },
      { firstRun: 5, runs: 5, cells: null },
    ]);
    const blocks = baseline!.plan.devices[0]!.blocks;
    expect(blocks.map((block) => [block.runs[0]!.firstRun, block.serverStarts])).toEqual([
      [0, 1],
      [5, 1],
    ]);
    // The second step starts when the first ends; both starts' 10 minutes are in the wall-clock.
    expect(blocks[1]!.startAt).toBeCloseTo(blocks[0]!.endAt, 9);
    expect(baseline!.plan.wallClockMinutes).toBeCloseTo(blocks[1]!.endAt, 9);
    expect(baseline!.plan.wallClockMinutes).toBeGreaterThan(20);
    expect(baseline!.plan.gpuMinutes).toBeCloseTo(baseline!.plan.wallClockMinutes, 9);
  });
});
