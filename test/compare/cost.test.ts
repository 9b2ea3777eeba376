import { describe, expect, it } from "vitest";
import {
  addedGpuMinutes,
  gpuMinutes,
  interleavedStarts,
  planGpuMinutes,
  runMinutesOf,
} from "../../src/compare/cost.js";

describe("GPU-time cost model (src/compare/cost.ts)", () => {
  it("charges 3 minutes per server start and the run length per cell-run", () => {
    expect(gpuMinutes(2, 10)).toBe(16);
    expect(gpuMinutes(2, 10, { runMinutes: 0.5, startMinutes: 5 })).toBe(15);
    expect(runMinutesOf({ duration_s: 30 })).toBe(0.5);
    expect(runMinutesOf({ requests: 300 })).toBe(1);
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

  it("prices added runs as the difference of the plans", () => {
    expect(addedGpuMinutes("interleaved", 2, 5, 10)).toBe(2 * (5 * 3 + 10));
    expect(addedGpuMinutes("stored", 2, 5, 10, { runMinutes: 0.5 })).toBe(2 * (3 + 2.5));
    expect(addedGpuMinutes("stored", 2, 10, 10)).toBe(0);
  });
});
