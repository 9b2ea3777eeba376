import { describe, expect, it } from "vitest";
import { compareAndRender } from "../../../src/app/compare.js";
import {
  addedGpuMinutes,
  gpuMinutes,
  interleavedStarts,
  planGpuMinutes,
} from "../../../src/compare/budget/cost.js";
import { defaultCompareSettings } from "../../../src/compare/index.js";
import { verdictFileSchema } from "../../../src/compare/verdict/verdict-schema.js";
import { runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { noisyRuns } from "../fixtures.js";

describe("GPU-time cost model (src/compare/budget/cost.ts)", () => {
  it("charges 3 minutes per server start and the run length per cell-run", () => {
    expect(gpuMinutes(2, 10)).toBe(16);
    expect(gpuMinutes(2, 10, { runMinutes: 0.5, startMinutes: 5 })).toBe(15);
  });

  it("counts R + 1 starts per cell for A B B A with the server kept up across same-side runs", () => {
    expect(interleavedStarts(1)).toBe(2);
    expect(interleavedStarts(10)).toBe(11);
    expect(interleavedStarts(20, 5)).toBe(5);
    expect(interleavedStarts(0)).toBe(0);
    // 3 cells, 10 runs per side, 1-minute runs: 3 × (11 × 3 + 20).
    expect(planGpuMinutes({ mode: "interleaved", cells: 3, candidateRuns: 10 })).toBe(159);
    // In blocks of 5 runs per start (A5 B10 A10 B10 A5 for 20 runs per side): 5 starts per cell.
    expect(planGpuMinutes({ mode: "interleaved", cells: 1, candidateRuns: 20, runsPerBlock: 5 })).toBe(
      5 * 3 + 40,
    );
    // Stored: only the candidate is measured, one start per cell per round.
    expect(planGpuMinutes({ mode: "stored", cells: 3, candidateRuns: 10, rounds: 2 })).toBe(48);
  });

  it("prices added runs as one more measuring step, its first block a new server start", () => {
    // 5 -> 10 runs per side at one run per block: B, AA, BB, AA, BB, A is 6 starts per cell (not 5).
    expect(addedGpuMinutes("interleaved", 2, 5, 10)).toBe(2 * (6 * 3 + 10));
    // In blocks of 5 (repeats.block): B5 A5, 2 starts per cell.
    expect(addedGpuMinutes("interleaved", 2, 5, 10, { runsPerBlock: 5 })).toBe(2 * (2 * 3 + 10));
    expect(addedGpuMinutes("stored", 2, 5, 10, { runMinutes: 0.5 })).toBe(2 * (3 + 2.5));
    expect(addedGpuMinutes("stored", 2, 10, 10)).toBe(0);
  });

  it("counts a step's server starts once for all cells under per-side servers", () => {
    // 19 cells, 3 -> 5 runs per side in blocks of 5: B2 A2 on one server per side, 2 starts in all.
    const perSide = { runsPerBlock: 5, lifecycle: "per-side" as const, runMinutes: 0.5, startMinutes: 2 };
    expect(addedGpuMinutes("interleaved", 19, 3, 5, perSide)).toBe(2 * 2 + 19 * 2 * 2 * 0.5);
    expect(addedGpuMinutes("interleaved", 19, 3, 5, { ...perSide, lifecycle: "per-cell" })).toBe(
      19 * 2 * 2 + 19 * 2 * 2 * 0.5,
    );
    expect(addedGpuMinutes("stored", 19, 3, 5, perSide)).toBe(2 + 19 * 2 * 0.5);
  });
});

// The fixtures' runs have a measured phase of 60 s each (test/compare/fixtures.ts makeRunFile).
const side = (count: number, seed: number, name: string) =>
  noisyRuns(count, { seed, sd: 0.01 }).map((run, i) =>
    runRecordFromRunFile(run, `${name}/chat/run-${i}/run.json`),
  );

// Looks at 3, 5 and 10 runs per side, so the 5 runs below are reached in two measuring steps.
const threeToTen = { ...defaultCompareSettings(), repeats: { min: 3, max: 10 } };

function compare(mode: "stored" | "interleaved", settings = threeToTen) {
  const outcome = compareAndRender({
    baseline: side(5, 1, "b"),
    candidate: side(5, 2, "c"),
    settings,
    mode,
    now: new Date("2026-12-01T09:00:00Z"),
  });
  verdictFileSchema.parse(outcome.verdict);
  return outcome;
}

describe("GPU-minutes spent", () => {
  it("interleaved: both sides' runs plus R + 1 starts per look, printed in the report", () => {
    const outcome = compare("interleaved");
    // 5 runs per side reached through the looks at 3 and 5: (3 + 1) + (2 + 1) = 7 starts of 3 min.
    expect(outcome.verdict.gpuMinutes).toEqual({
      total: 10 + 21,
      runs: 10,
      serverStarts: 7,
      serverStartMinutes: 21,
      serverStartS: 180,
      sides: "both",
      runsWithoutDuration: 0,
    });
    expect(outcome.reportMarkdown).toContain(
      "GPU time: ~31 GPU-minutes: 10 min of measured runs on both sides plus 7 server starts at 3.0 min each.",
    );
  });

  it("stored: the candidate's runs and one start per measuring step, at the configured start cost", () => {
    const settings = {
      ...threeToTen,
      cost: { serverStartS: 60, lifecycle: "per-cell" as const },
    };
    const outcome = compare("stored", settings);
    expect(outcome.verdict.gpuMinutes).toMatchObject({
      total: 5 + 2,
      runs: 5,
      serverStarts: 2,
      sides: "candidate",
    });
    expect(outcome.reportMarkdown).toContain(
      "GPU time: ~7.0 GPU-minutes: 5.0 min of the candidate's measured runs plus 2 server starts at 1.0 min each (the stored baseline was measured once, in its own job).",
    );
  });
});

describe("one estimate of a run's length", () => {
  it("compare prices runs not yet measured at validate's estimate of them", async () => {
    const { parseConfigText } = await import("../../../src/config/load.js");
    const { summarizeConfig } = await import("../../../src/config/summary.js");
    const { settingsFromConfig } = await import("../../../src/compare/index.js");
    const { config } = parseConfigText(
      `version: 1
server: { kind: sim }
model: { name: sim-model }
cells:
  - name: a
    dataset: { type: synthetic, input_tokens: 100, output_tokens: 64 }
    load: { type: rate, rate: 2 }
    size: { requests: 300 }
  - name: b
    dataset: { type: synthetic, input_tokens: 100, output_tokens: 32 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 400 }
`,
      "gate.yml",
    );
    const seconds = summarizeConfig(config).cells.map((cell) => cell.estimatedSecondsPerRun);
    expect(settingsFromConfig(config).runMinutes).toBeCloseTo((seconds[0]! + seconds[1]!) / 2 / 60, 9);
  });
});
