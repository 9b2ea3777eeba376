import { describe, expect, it } from "vitest";
import { describeCapacityCost } from "../../src/config/capacity-summary.js";
import { delayMean } from "../../src/config/dataset-kinds/fields.js";
import { configSchema } from "../../src/config/schema.js";
import { sessionEstimate, summarizeConfig } from "../../src/config/summary.js";

const base = { version: 1, server: { kind: "sim" }, model: { name: "m" }, repeats: { min: 3, max: 20 } };

const sessionCell = (extra: Record<string, unknown> = {}) => ({
  name: "chat",
  endpoint: "chat",
  dataset: {
    type: "sessions",
    turns: 5,
    message_tokens: 50,
    output_tokens: 100,
    think_time_s: { distribution: "exponential", mean: 2 },
    ...extra,
  },
  load: { type: "concurrency", concurrency: 4 },
  size: { requests: 40 },
});

describe("sessionEstimate (validate's run estimate for session datasets)", () => {
  it("counts turns x answer plus (turns - 1) think means", () => {
    const config = configSchema.parse({ ...base, cells: [sessionCell()] });
    const estimate = sessionEstimate(config.cells[0]!)!;
    // 100 tokens x 0.03 s = 3 s per answer; 5 answers = 15 s; 4 waits x 2 s = 8 s.
    expect(estimate.turns).toBe(5);
    expect(estimate.answerSeconds).toBeCloseTo(3, 9);
    expect(estimate.thinkSeconds).toBeCloseTo(8, 9);
    expect(estimate.seconds).toBeCloseTo(23, 9);
    // Closed loop, 40 sessions at 4 in flight: 10 x 23 s.
    expect(summarizeConfig(config).cells[0]!.estimatedSecondsPerRun).toBeCloseTo(230, 6);
  });

  it("adds a tool round per turn (latency mean + answer) where tools are declared", () => {
    const config = configSchema.parse({
      ...base,
      cells: [
        sessionCell({ tools: { names: ["lookup"], latency_s: { distribution: "uniform", min: 1, max: 3 } } }),
      ],
    });
    const estimate = sessionEstimate(config.cells[0]!)!;
    // 5 turns x (2 s + 3 s).
    expect(estimate.toolSeconds).toBeCloseTo(25, 9);
    expect(estimate.seconds).toBeCloseTo(48, 9);
  });

  it("is null for a dataset of single requests, whose estimate is unchanged", () => {
    const config = configSchema.parse({
      ...base,
      cells: [
        {
          name: "one",
          dataset: { type: "synthetic", input_tokens: 8, output_tokens: 100 },
          load: { type: "concurrency", concurrency: 4 },
          size: { requests: 40 },
        },
      ],
    });
    expect(sessionEstimate(config.cells[0]!)).toBeNull();
    expect(summarizeConfig(config).cells[0]!.estimatedSecondsPerRun).toBeCloseTo(30, 6);
  });

  it("takes a clipped exponential's mean and caps a lognormal's at its max", () => {
    expect(delayMean({ distribution: "exponential", mean: 2, max: 2 })).toBeCloseTo(
      2 * (1 - Math.exp(-1)),
      9,
    );
    expect(delayMean({ distribution: "lognormal", median: 1, sigma: 1 })).toBeCloseTo(Math.exp(0.5), 9);
    expect(delayMean({ distribution: "lognormal", median: 1, sigma: 1, max: 1.2 })).toBe(1.2);
  });

  it("prices a session capacity search in sessions, each session its turns long", () => {
    const config = configSchema.parse({
      ...base,
      cost: { server_start_s: 60 },
      cells: [
        {
          ...sessionCell(),
          load: { type: "rate", rate: 1 },
          slo: { ttft_ms: 500 },
          capacity: { range: { min: 1, max: 4 } },
        },
      ],
    });
    // At 2 sessions/s: 40 / 2 = 20 s + one session's 23 s = 43 s; 20 runs = 14.3 min + 1 min start.
    const [line] = describeCapacityCost(config);
    expect(line).toContain("1 to 4 sessions/s");
    expect(line).toContain("about 15 GPU-minutes per side");
  });
});

describe("session datasets in capacity and sweep cells (config validation)", () => {
  const trace = { type: "mooncake_trace", path: "trace.jsonl" };
  const searched = (dataset: Record<string, unknown>, load: Record<string, unknown>) => ({
    ...base,
    cells: [
      {
        name: "cap",
        endpoint: "chat",
        dataset,
        load,
        size: { requests: 40 },
        slo: { ttft_ms: 500 },
        capacity: { range: { min: 1, max: 8 } },
      },
    ],
  });

  it("rejects a mooncake_trace capacity cell searched by rate, naming the field", () => {
    const result = configSchema.safeParse(searched(trace, { type: "rate", rate: 1 }));
    expect(result.success).toBe(false);
    const issue = result.error!.issues.find((i) => i.path.join(".") === "cells.0.load.type");
    expect(issue?.message).toContain(
      "expected concurrency in a cell with capacity and a mooncake_trace dataset",
    );
  });

  it("rejects a mooncake_trace sweep by rate", () => {
    const config = searched(trace, { type: "rate", rate: 1 });
    const cell = { ...config.cells[0]!, capacity: undefined, sweep: { loads: [1, 2], runs: 2 } };
    const result = configSchema.safeParse({ ...config, cells: [cell] });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.message).join("\n")).toContain(
      "a cell with sweep and a mooncake_trace",
    );
  });

  it("accepts a mooncake_trace capacity cell searched by concurrency, and generated sessions by rate", () => {
    expect(configSchema.safeParse(searched(trace, { type: "concurrency", concurrency: 2 })).success).toBe(
      true,
    );
    expect(
      configSchema.safeParse(
        searched(
          { type: "sessions", turns: 3, message_tokens: 20, output_tokens: 20 },
          { type: "rate", rate: 1 },
        ),
      ).success,
    ).toBe(true);
  });
});

describe("the request floor warning of a session cell", () => {
  const gate = { metrics: ["ttft_p95", "ttft_p95_depth_4_7", "session_goodput"] };
  it("counts the sessions' turns as requests: 40 sessions of 5 turns reach the p95 floor", () => {
    const config = configSchema.parse({ ...base, gate, cells: [sessionCell()] });
    expect(summarizeConfig(config).warnings.join("\n")).not.toContain("gate.min_requests.p95");
    // The load, size and warm-up count sessions, and say so.
    expect(summarizeConfig(config).cells[0]).toMatchObject({
      load: "concurrency 4 sessions",
      size: "40 sessions",
    });
  });
  it("warns with the requests it expects when the sessions' turns fall short, the depth buckets left to compare", () => {
    const config = configSchema.parse({
      ...base,
      gate,
      cells: [{ ...sessionCell(), size: { requests: 30 } }],
    });
    expect(summarizeConfig(config).warnings).toContain(
      'cells "chat": about 150 requests per run (30 sessions of 5 turns) is below gate.min_requests.p95 (200); ttft_p95 will be advisory only',
    );
  });
});

describe("validate's estimate of a session with fan-outs", () => {
  const fanned = (fanOut: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    configSchema.parse({
      ...base,
      gate: { metrics: ["ttft_p95"] },
      cells: [sessionCell({ fan_out: fanOut, ...extra })],
    });

  it("takes a fan-out turn as one branch's answer and counts its branches as requests", () => {
    const config = fanned({ turns: [2, 4], branches: 4, message_tokens: 20, output_tokens: 200 });
    const estimate = sessionEstimate(config.cells[0]!)!;
    // 3 turns x 3 s + 2 fan-outs x one branch of 200 tokens at 30 ms (6 s) + 4 waits of 2 s.
    expect(estimate.fanOuts).toBe(2);
    expect(estimate.fanOutSeconds).toBeCloseTo(12, 9);
    expect(estimate.seconds).toBeCloseTo(9 + 12 + 8, 9);
    // 3 turns of one request and 2 of 4 branches.
    expect(estimate.requests).toBe(11);
    expect(summarizeConfig(config).cells[0]!.estimatedSecondsPerRun).toBeCloseTo(10 * 29, 6);
  });

  it("takes a share of the turns, a range's mean branches and, with tools, one tool round per fan-out", () => {
    const config = fanned(
      { share: 0.4, branches: { min: 2, max: 6 }, message_tokens: 20, output_tokens: 100, tools: true },
      { tools: { names: ["grep"], latency_s: 1 } },
    );
    const estimate = sessionEstimate(config.cells[0]!)!;
    expect(estimate.fanOuts).toBeCloseTo(2, 9);
    expect(estimate.requests).toBeCloseTo(3 + 2 * 4, 9);
    // A tool round (1 s + one 3 s answer) per turn, the fan-outs' rounds run by their branches at once.
    expect(estimate.toolSeconds).toBeCloseTo(5 * 4, 9);
  });

  it("warns with the requests its fan-outs add when a gated percentile's floor is out of reach", () => {
    const config = fanned({ turns: [2], branches: 2, message_tokens: 20, output_tokens: 100 });
    const few = configSchema.parse({ ...config, cells: [{ ...config.cells[0]!, size: { requests: 20 } }] });
    expect(summarizeConfig(few).warnings).toContain(
      'cells "chat": about 120 requests per run (20 sessions of 5 turns, 6 requests each with the fan-outs\' branches) is below gate.min_requests.p95 (200); ttft_p95 will be advisory only',
    );
  });
});
