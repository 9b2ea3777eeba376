import { describe, expect, it } from "vitest";
import { classify, logRatioTest } from "../../src/stats/metric-test.js";
import { bhAdjust, holmAdjust } from "../../src/stats/multiplicity.js";
import { hodgesLehmann, mannWhitney } from "../../src/stats/rank-tests.js";
import { interval, pAbove, twoSidedP, welch } from "../../src/stats/welch.js";

// Every value below is from statistics.md §8 (computed with numpy 2.4.6 / scipy 1.17.1).

describe("Welch on logs (§8)", () => {
  const base = [812, 798, 845, 806, 830];
  const cand = [880, 902, 861, 915, 874];
  const result = welch(base.map(Math.log), cand.map(Math.log));
  it("gives the ratio, SE, df, t and p", () => {
    expect(Math.exp(result.difference)).toBeCloseTo(1.083326, 6);
    expect(result.standardError).toBeCloseTo(0.015101, 6);
    expect(result.df).toBeCloseTo(7.9747, 4);
    expect(result.t).toBeCloseTo(5.3001, 4);
    expect(twoSidedP(result)).toBeCloseTo(7.359e-4, 7);
  });
  it("gives the 90% and 95% ratio intervals", () => {
    const [lo90, hi90] = interval(result, 0.05).map(Math.exp) as [number, number];
    expect(lo90).toBeCloseTo(1.05332, 5);
    expect(hi90).toBeCloseTo(1.11419, 5);
    const [lo95, hi95] = interval(result, 0.025).map(Math.exp) as [number, number];
    expect(lo95).toBeCloseTo(1.04623, 5);
    expect(hi95).toBeCloseTo(1.12174, 5);
  });
  it("tests H0: ratio <= 1.05 and classifies as regression", () => {
    expect(pAbove(result, Math.log(1.05))).toBeCloseTo(0.03622, 5);
    const test = logRatioTest(base, cand, { higherIsBetter: false, tolerance: 0.05, alphaEachSide: 0.05 });
    expect(test.ratio).toBeCloseTo(1.083326, 6);
    expect(test.ratioInterval[0]).toBeCloseTo(1.05332, 5);
    // The regression test is against the margin: p(H0: ratio <= 1.05) = 0.03622 (statistics.md §8).
    expect(test.pBeyondTolerance).toBeCloseTo(0.03622, 5);
    expect(
      classify({
        pBeyondToleranceAdjusted: test.pBeyondTolerance,
        pBetterBeyondToleranceAdjusted: test.pBetterBeyondTolerance,
        pWithinTolerance: test.pWithinTolerance,
        alpha: 0.05,
      }),
    ).toBe("regression");
  });
  it("cross-checks: HL ratio and exact MWU", () => {
    const hl = hodgesLehmann(base.map(Math.log), cand.map(Math.log));
    expect(Math.exp(hl.shift)).toBeCloseTo(1.083744, 6);
    expect(mannWhitney(cand, base).pGreater).toBeCloseTo(0.0039683, 7);
  });
});

describe("Mann-Whitney and Hodges-Lehmann (§3, §8)", () => {
  it("exact, complete separation", () => {
    const r = mannWhitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]);
    expect(r.method).toBe("exact");
    expect(r.u).toBe(0);
    expect(r.pTwoSided).toBeCloseTo(0.0079365, 7);
    expect(r.pLess).toBeCloseTo(0.0039683, 7);
  });
  it("exact with one inversion, HL shift and Moses intervals", () => {
    const x = [10.2, 10.5, 10.1, 10.8, 10.4];
    const y = [10.9, 11.3, 10.6, 11.0, 11.5];
    const r = mannWhitney(x, y);
    expect(r.u).toBe(1);
    expect(r.pTwoSided).toBeCloseTo(0.015873, 6);
    expect(r.pLess).toBeCloseTo(0.0079365, 7);
    const hl90 = hodgesLehmann(x, y, 0.9);
    expect(hl90.shift).toBeCloseTo(0.7, 10);
    expect(hl90.interval![0]).toBeCloseTo(0.2, 10);
    expect(hl90.interval![1]).toBeCloseTo(1.1, 10);
    expect(hl90.coverage).toBeCloseTo(0.9048, 4);
    const hl95 = hodgesLehmann(x, y, 0.95);
    expect(hl95.interval![0]).toBeCloseTo(0.1, 10);
    expect(hl95.interval![1]).toBeCloseTo(1.2, 10);
    expect(hl95.coverage).toBeCloseTo(0.9683, 4);
  });
  it("R = 3 can never reach two-sided 0.05", () => {
    const r = mannWhitney([100, 102, 101], [103, 105, 104]);
    expect(r.pTwoSided).toBeCloseTo(0.1, 10);
    expect(r.pLess).toBeCloseTo(0.05, 10);
  });
  it("asymptotic with ties and continuity correction", () => {
    const r = mannWhitney([1, 2, 2, 3, 4, 5, 5, 6], [3, 4, 5, 6, 6, 7, 8, 9, 9, 10]);
    expect(r.method).toBe("asymptotic");
    expect(r.u).toBe(11);
    expect(r.pTwoSided).toBeCloseTo(0.0108306, 6);
  });
});

describe("Holm and BH (§8)", () => {
  const p = [0.0005, 0.004, 0.012, 0.02, 0.03, 0.2];
  it("Holm", () => {
    const adjusted = holmAdjust(p);
    [0.003, 0.02, 0.048, 0.06, 0.06, 0.2].forEach((v, i) => {
      expect(adjusted[i]).toBeCloseTo(v, 12);
    });
    expect(adjusted.filter((a) => a <= 0.05)).toHaveLength(3);
  });
  it("BH", () => {
    const adjusted = bhAdjust(p);
    [0.003, 0.012, 0.024, 0.03, 0.036, 0.2].forEach((v, i) => {
      expect(adjusted[i]).toBeCloseTo(v, 12);
    });
    expect(adjusted.filter((a) => a <= 0.05)).toHaveLength(5);
  });
  it("keeps input order", () => {
    expect(holmAdjust([0.2, 0.0005])).toEqual([0.2, 0.001]);
    expect(bhAdjust([0.2, 0.0005])).toEqual([0.2, 0.001]);
  });
});

describe("numerical edge cases", () => {
  it("identical runs give a finite, degenerate interval", () => {
    const r = welch(
      [Math.log(52.5), Math.log(52.5), Math.log(52.5)],
      [Math.log(52.5), Math.log(52.5) + 1e-16, Math.log(52.5)],
    );
    const [lo, hi] = interval(r, 0.05);
    expect(Number.isFinite(lo) && Number.isFinite(hi)).toBe(true);
  });
});
