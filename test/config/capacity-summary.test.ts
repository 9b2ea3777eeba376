import { describe, expect, it } from "vitest";
import { describeCapacityCost } from "../../src/config/capacity-summary.js";
import { configSchema } from "../../src/config/schema.js";
import { renderSummary, summarizeConfig } from "../../src/config/summary.js";

const base = {
  version: 1,
  server: { kind: "sim" },
  model: { name: "m" },
  repeats: { min: 3, max: 20 },
  cost: { gpu_hourly_usd: 3, server_start_s: 60 },
};

describe("describeCapacityCost (validate)", () => {
  it("prices a capacity search at repeats.max runs of the range's geometric middle load plus one start", () => {
    const config = configSchema.parse({
      ...base,
      cells: [
        {
          name: "cap",
          dataset: { type: "synthetic", input_tokens: 8, output_tokens: 100 },
          load: { type: "rate", rate: 1 },
          size: { requests: 120 },
          slo: { ttft_ms: 500 },
          capacity: { range: { min: 1, max: 4 } },
        },
      ],
    });
    // A run at 2 req/s: 120 / 2 = 60 s + 100 tokens x 0.03 s = 63 s; 20 runs = 21 min, + 1 min start = 22.
    expect(describeCapacityCost(config)).toEqual([
      "capacity search cap (run --sweep): 1 to 4 req/s, 4 loads first, then 4 runs per round until the interval is within 5%; at most 20 runs per side (repeats.max), about 22 GPU-minutes per side, about $1.10, twice that for an A/B comparison; an undecided capacity verdict adds runs up to 40 per side (capacity.max_runs), about 43 GPU-minutes per side at most, and a stored baseline is recorded with 40",
    ]);
  });

  it("prices a sweep as its loads x runs", () => {
    const config = configSchema.parse({
      ...base,
      cells: [
        {
          name: "sw",
          dataset: { type: "synthetic", input_tokens: 8, output_tokens: 100 },
          load: { type: "rate", rate: 1 },
          size: { requests: 60 },
          sweep: { loads: [1, 2], runs: 2 },
        },
      ],
    });
    // (60 + 3) x 2 + (30 + 3) x 2 = 192 s = 3.2 min, + 1 min start.
    expect(describeCapacityCost(config)).toEqual([
      "load sweep sw (run --sweep): 2 loads x 2 runs = 4 runs per side, about 4.2 GPU-minutes per side, about $0.21",
    ]);
  });

  it("times a request by its dataset kind's answer length: configured, else the assumed length of a file's", () => {
    const sweep = (dataset: Record<string, unknown>) =>
      describeCapacityCost(
        configSchema.parse({
          ...base,
          cells: [
            {
              name: "sw",
              dataset,
              load: { type: "rate", rate: 1 },
              size: { requests: 60 },
              sweep: { loads: [1], runs: 1 },
            },
          ],
        }),
      );
    const synthetic = sweep({ type: "synthetic", input_tokens: 8, output_tokens: 100 });
    // A file with its answer lengths configured is timed as a generated dataset with the same lengths.
    expect(sweep({ type: "jsonl", path: "p.jsonl", output_tokens: 100 })).toEqual(synthetic);
    // Without them, 256 tokens are assumed (validate's assumption for lengths only the file knows): 60 + 7.68 s.
    expect(sweep({ type: "jsonl", path: "p.jsonl" })).toEqual([
      "load sweep sw (run --sweep): 1 loads x 1 runs = 1 runs per side, about 2.1 GPU-minutes per side, about $0.11",
    ]);
  });

  it("leaves capacity and sweep cells out of the fixed-load cells' GPU-minutes, which it names", () => {
    const fixed = {
      name: "chat",
      dataset: { type: "synthetic", input_tokens: 8, output_tokens: 100 },
      load: { type: "rate", rate: 2 },
      size: { requests: 120 },
    };
    const capacity = {
      ...fixed,
      name: "cap",
      slo: { ttft_ms: 500 },
      capacity: { range: { min: 1, max: 4 } },
    };
    const both = configSchema.parse({ ...base, cells: [fixed, capacity] });
    const alone = configSchema.parse({ ...base, cells: [fixed] });
    // The fixed-load cell's figures are the same with or without the capacity cell beside it.
    expect(summarizeConfig(both, []).gpuMinutes).toEqual(summarizeConfig(alone, []).gpuMinutes);
    expect(renderSummary("c.yml", summarizeConfig(both, []))).toContain(
      "estimated GPU-minutes of the fixed-load cells (measured runs plus every server start; cap costed below):",
    );
    const onlyCapacity = configSchema.parse({ ...base, cells: [capacity] });
    expect(renderSummary("c.yml", summarizeConfig(onlyCapacity, []))).toContain(
      "estimated GPU-minutes: every cell is a capacity or sweep cell, costed below",
    );
  });
});
