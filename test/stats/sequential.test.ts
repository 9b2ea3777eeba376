import { describe, expect, it } from "vitest";
import { errorIncreaseP } from "../../src/stats/error-rate.js";
import { classify, resolvableWithMoreRuns } from "../../src/stats/metric-test.js";
import { lookSchedule, nextLookAfter, passLevel, perLookLevel } from "../../src/stats/sequential.js";

describe("looks", () => {
  it("places looks at 3/5/7/10 within the repeats range", () => {
    expect(lookSchedule(3, 10)).toEqual([3, 5, 7, 10]);
    expect(lookSchedule(2, 6)).toEqual([2, 3, 5, 6]);
    expect(lookSchedule(5, 5)).toEqual([5]);
    expect(lookSchedule(4, 12)).toEqual([4, 5, 7, 10, 12]);
  });

  it("spends a calibrated share of the family level per look", () => {
    expect(perLookLevel(0.05, 4, "interleaved")).toBeCloseTo(0.00625, 12);
    expect(perLookLevel(0.05, 4, "stored")).toBeCloseTo(0.003125, 12);
    expect(passLevel(0.05)).toBe(0.05);
  });

  it("asks for the next look, and for baseline runs only when interleaved", () => {
    expect(nextLookAfter(3, 3, [3, 5, 7, 10], true, "r")).toEqual({
      runsPerSide: 5,
      addCandidateRuns: 2,
      addBaselineRuns: 2,
      reason: "r",
    });
    expect(nextLookAfter(4, 10, [3, 5, 7, 10], false, "r")).toEqual({
      runsPerSide: 5,
      addCandidateRuns: 1,
      addBaselineRuns: 0,
      reason: "r",
    });
    expect(nextLookAfter(10, 10, [3, 5, 7, 10], true, "r")).toBeNull();
  });
});

describe("verdict rule (statistics.md §0)", () => {
  const base = {
    tolerance: 0.05,
    pWorseAdjusted: 1,
    pBetterAdjusted: 1,
    pWithinTolerance: 1,
    alpha: 0.01,
    passAlpha: 0.05,
  };
  it("needs both significance and magnitude for a regression", () => {
    expect(classify({ ...base, worse: 0.1, pWorseAdjusted: 0.001 })).toBe("regression");
    // Significant but within tolerance: not a regression; no change when the bound is inside.
    expect(classify({ ...base, worse: 0.03, pWorseAdjusted: 0.001, pWithinTolerance: 0.01 })).toBe(
      "no-change",
    );
    expect(classify({ ...base, worse: 0.03, pWorseAdjusted: 0.001 })).toBe("inconclusive");
    // Beyond tolerance but not significant at the adjusted level.
    expect(classify({ ...base, worse: 0.1, pWorseAdjusted: 0.02 })).toBe("inconclusive");
  });
  it("mirrors for improvements and uses the pass level for no change", () => {
    expect(classify({ ...base, worse: -0.1, pBetterAdjusted: 0.001 })).toBe("improvement");
    expect(classify({ ...base, worse: 0, pWithinTolerance: 0.04 })).toBe("no-change");
    expect(classify({ ...base, worse: 0, pWithinTolerance: 0.06 })).toBe("inconclusive");
  });
});

describe("futility of more runs", () => {
  const input = {
    tolerance: 0.05,
    baselineVariance: 0.0009,
    candidateVariance: 0.0009,
    baselineRuns: 10,
    candidateRuns: 10,
    regressionAlpha: 0.00625 / 15,
    passAlpha: 0.05,
  };
  it("more runs help without drift, not when drift dominates", () => {
    expect(resolvableWithMoreRuns({ ...input, worse: 0.02, extraVariance: 0 })).toBe(true);
    expect(resolvableWithMoreRuns({ ...input, worse: 0.035, extraVariance: 0.0004 })).toBe(false);
    expect(resolvableWithMoreRuns({ ...input, worse: 0.2, extraVariance: 0.0004 })).toBe(true);
  });
});

describe("error-rate increase test", () => {
  it("is exact and handles zero failures", () => {
    expect(errorIncreaseP({ failed: 0, total: 1000 }, { failed: 0, total: 1000 })).toBe(1);
    // All 5 failures on the candidate with equal totals: P = 0.5^5.
    expect(errorIncreaseP({ failed: 0, total: 1000 }, { failed: 5, total: 1000 })).toBeCloseTo(1 / 32, 12);
    expect(errorIncreaseP({ failed: 5, total: 1000 }, { failed: 0, total: 1000 })).toBe(1);
    // 2 of 4 failures on the candidate: P(X >= 2), X ~ Bin(4, 1/2) = 11/16.
    expect(errorIncreaseP({ failed: 2, total: 500 }, { failed: 2, total: 500 })).toBeCloseTo(11 / 16, 12);
  });
});
