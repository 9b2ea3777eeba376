import { describe, expect, it } from "vitest";
import { logRatioOf, relativeChangeOf, toleranceMargin } from "../../src/stats/margin.js";
import { logRatioTest, minimumDetectableChange } from "../../src/stats/metric-test.js";

describe("the tolerance margin and the log scale", () => {
  it("a 5% tolerance is the margin ln 1.05 = 0.048790164169432", () => {
    expect(toleranceMargin(0.05)).toBeCloseTo(0.048790164169432, 14);
    expect(toleranceMargin(0)).toBe(0);
  });

  it("a fall is a negative log ratio: -10% is ln 0.9 = -0.105360515657826", () => {
    expect(logRatioOf(-0.1)).toBeCloseTo(-0.105360515657826, 14);
    expect(logRatioOf(-1)).toBe(Number.NEGATIVE_INFINITY);
  });

  it("a log ratio back to a relative change: ln 1.05 is +5%, ln 0.8 is -20%", () => {
    expect(relativeChangeOf(Math.log(1.05))).toBeCloseTo(0.05, 14);
    expect(relativeChangeOf(Math.log(0.8))).toBeCloseTo(-0.2, 14);
    expect(relativeChangeOf(0)).toBe(0);
  });

  it("each is the other's inverse", () => {
    for (const change of [-0.5, -0.05, 1e-9, 0.02, 0.05, 0.3, 2])
      expect(relativeChangeOf(logRatioOf(change))).toBeCloseTo(change, 14);
    for (const logRatio of [-1, -0.01, 1e-9, 0.1, 1.5])
      expect(logRatioOf(relativeChangeOf(logRatio))).toBeCloseTo(logRatio, 14);
  });

  it("keeps a tiny change exact, where ln(1 + c) in doubles loses it", () => {
    // 1 + 1e-15 rounds to 1 + 1.11e-15 in doubles, so ln(1 + c) is 11% off; log1p is exact to 1e-30.
    expect(Math.abs(Math.log(1 + 1e-15) - 1e-15)).toBeGreaterThan(1e-16);
    expect(logRatioOf(1e-15)).toBeCloseTo(1e-15, 29);
    expect(relativeChangeOf(1e-15)).toBeCloseTo(1e-15, 29);
  });

  it("is the boundary the tests judge against: a change just beyond the tolerance is beyond it", () => {
    const baseline = [100, 101, 99, 100.5, 99.5, 100, 100.2, 99.8];
    const options = {
      higherIsBetter: false,
      tolerance: 0.05,
      alphaEachSide: 0.05,
      extraVariance: 0,
      minRunSd: 0,
    };
    const shifted = (change: number) => baseline.map((v) => v * Math.exp(logRatioOf(change)));
    const at = logRatioTest(baseline, shifted(0.05), options);
    expect(at.worse).toBeCloseTo(toleranceMargin(0.05), 12);
    // At the margin the regression test's p is one half; beyond it below, within it above.
    expect(at.pBeyondTolerance).toBeCloseTo(0.5, 6);
    expect(logRatioTest(baseline, shifted(0.06), options).pBeyondTolerance).toBeLessThan(0.5);
    expect(logRatioTest(baseline, shifted(0.04), options).pBeyondTolerance).toBeGreaterThan(0.5);
  });

  it("without noise the smallest detectable change is the tolerance itself", () => {
    const detectable = minimumDetectableChange({
      baselineVariance: 0,
      candidateVariance: 0,
      baselineRuns: 5,
      candidateRuns: 5,
      extraVariance: 0,
      tolerance: 0.07,
      alpha: 0.05,
    });
    expect(detectable).toBeCloseTo(0.07, 14);
  });
});
