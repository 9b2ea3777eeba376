import { describe, expect, it } from "vitest";
import { errorIncreaseP } from "../../src/stats/error-rate.js";
import {
  classify,
  logRatioTest,
  minimumDetectableChange,
  resolvableWithMoreRuns,
} from "../../src/stats/metric-test.js";
import { mannWhitney } from "../../src/stats/rank-tests.js";
import { lookSchedule, nextLookAfter, passLevel, perLookLevel } from "../../src/stats/sequential.js";

describe("looks", () => {
  it("places looks at 3/5/10/15/20 within the repeats range", () => {
    expect(lookSchedule(5, 20)).toEqual([5, 10, 15, 20]);
    expect(lookSchedule(3, 10)).toEqual([3, 5, 10]);
    expect(lookSchedule(2, 6)).toEqual([2, 3, 5, 6]);
    expect(lookSchedule(5, 5)).toEqual([5]);
    expect(lookSchedule(4, 12)).toEqual([4, 5, 10, 12]);
  });

  it("spends a calibrated share of the family level per look", () => {
    // Bonferroni over looks, weighted by runs: the levels sum to α, so the chance of blocking a change
    // at the tolerance stays within α over all looks.
    const looks = [5, 10, 15, 20];
    expect(perLookLevel(0.05, looks, 5, "interleaved")).toBeCloseTo(0.005, 12);
    expect(perLookLevel(0.05, looks, 12, "interleaved")).toBeCloseTo(0.01, 12);
    expect(perLookLevel(0.05, looks, 20, "stored")).toBeCloseTo(0.02, 12);
    expect(looks.reduce((sum, look) => sum + perLookLevel(0.05, looks, look, "interleaved"), 0)).toBeCloseTo(
      0.05,
      12,
    );
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

describe("verdict rule: tests against the tolerance margin", () => {
  const base = {
    pBeyondToleranceAdjusted: 1,
    pBetterBeyondToleranceAdjusted: 1,
    pWithinTolerance: 1,
    alpha: 0.01,
    passAlpha: 0.05,
  };
  it("blocks only when significantly worse than the tolerance", () => {
    expect(classify({ ...base, pBeyondToleranceAdjusted: 0.001 })).toBe("regression");
    expect(classify({ ...base, pBeyondToleranceAdjusted: 0.02 })).toBe("inconclusive");
    expect(classify({ ...base, pWithinTolerance: 0.01 })).toBe("within-tolerance");
  });
  it("mirrors for improvements and uses the pass level for within tolerance", () => {
    expect(classify({ ...base, pBetterBeyondToleranceAdjusted: 0.001 })).toBe("improvement");
    expect(classify({ ...base, pWithinTolerance: 0.04 })).toBe("within-tolerance");
    expect(classify({ ...base, pWithinTolerance: 0.06 })).toBe("inconclusive");
  });
  it("a point estimate just beyond the tolerance, significantly above 0, is not a regression", () => {
    // 10 runs per side, sd 0.03, true change +5.5%: old rule (p vs 0 plus point estimate) blocked it.
    const base10 = Array.from({ length: 10 }, (_, i) => 100 * Math.exp(0.03 * Math.sin(i * 2.1)));
    const cand10 = base10.map(
      (v, i) => v * 1.055 * Math.exp(0.03 * Math.cos(i * 1.7) - 0.03 * Math.sin(i * 2.1)),
    );
    const test = logRatioTest(base10, cand10, {
      higherIsBetter: false,
      tolerance: 0.05,
      alphaEachSide: 0.05,
    });
    expect(test.worse).toBeGreaterThan(Math.log(1.05));
    expect(test.pWorse).toBeLessThan(0.001);
    expect(test.pBeyondTolerance).toBeGreaterThan(0.05);
    expect(
      classify({
        pBeyondToleranceAdjusted: test.pBeyondTolerance,
        pBetterBeyondToleranceAdjusted: test.pBetterBeyondTolerance,
        pWithinTolerance: test.pWithinTolerance,
        alpha: 0.05,
      }),
    ).toBe("inconclusive");
  });
});

describe("variance floor and detectability", () => {
  it("identical runs do not read as infinite certainty", () => {
    const same = [100, 100, 100];
    const test = logRatioTest(same, [106, 106, 106], {
      higherIsBetter: false,
      tolerance: 0.05,
      alphaEachSide: 0.05,
      minRunSd: 0.005,
    });
    expect(test.floored).toBe(true);
    expect(test.standardError).toBeCloseTo(0.005 * Math.sqrt(2 / 3), 12);
    expect(Number.isFinite(test.df)).toBe(true);
    expect(test.pBeyondTolerance).toBeGreaterThan(0.01);
    expect(test.ratioInterval[1] - test.ratioInterval[0]).toBeGreaterThan(0.01);
  });
  it("the minimum detectable change shrinks with runs and sits above the tolerance", () => {
    const at = (runs: number) =>
      minimumDetectableChange({
        baselineVariance: 0.0009,
        candidateVariance: 0.0009,
        baselineRuns: runs,
        candidateRuns: runs,
        extraVariance: 0,
        tolerance: 0.05,
        alpha: 0.0125 / 15,
      });
    expect(at(5)).toBeGreaterThan(at(10));
    expect(at(10)).toBeGreaterThan(at(20));
    expect(at(20)).toBeGreaterThan(0.05);
    // (z_{1-α} + z_0.9) · sd·√(2/R) beyond the margin: R = 10 → ln(1.05) + (3.15 + 1.28)·0.0134.
    expect(at(10)).toBeCloseTo(Math.exp(Math.log(1.05) + 4.43 * 0.03 * Math.sqrt(0.2)) - 1, 2);
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
    // Beyond the tolerance but not by enough to clear the margin test: cannot block either.
    expect(resolvableWithMoreRuns({ ...input, worse: 0.06, extraVariance: 0.0004 })).toBe(false);
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

describe("Mann-Whitney with every value tied", () => {
  it("gives p = 1 instead of NaN (identical runs of a deterministic simulator)", () => {
    const result = mannWhitney([5, 5, 5, 5, 5], [5, 5, 5, 5, 5, 5, 5, 5, 5]);
    expect(result.pLess).toBe(1);
    expect(result.pGreater).toBe(1);
    expect(result.pTwoSided).toBe(1);
  });
});
