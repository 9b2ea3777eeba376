import { describe, expect, it } from "vitest";
import { planCells } from "../../src/app/run-plan.js";
import { configSchema } from "../../src/config/schema.js";
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
