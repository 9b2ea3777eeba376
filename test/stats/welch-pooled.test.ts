import { describe, expect, it } from "vitest";
import { welch } from "../../src/stats/welch.js";

// Reference: numpy 2.4 (var ddof=1), pooled variance ((n−1)s² + df·v) / (n − 1 + df); Satterthwaite df
// over the independent mean squares: the baseline's pooled variance / n is a·s² + b·v with
// a = (n−1)/((n−1+df)·n), b = df/((n−1+df)·n), so its terms are (a·s²)²/(n−1) + (b·v)²/df
// (s² = 0.0025, n − 1 = 2, v = 0.002, df = 20; candidate s² = 0.0017667, 3 df).
describe("welch with the baseline's variance pooled over main's history", () => {
  const baseline = [0, 0.1, 0.05];
  const candidate = [0.2, 0.25, 0.15, 0.22];

  it("pools the prior into the baseline's variance and degrees of freedom", () => {
    const result = welch(baseline, candidate, { baselineVariancePrior: { variance: 0.002, df: 20 } });
    expect(result.difference).toBeCloseTo(0.155, 12);
    expect(result.standardError).toBeCloseTo(0.033518425507246735, 12);
    expect(result.df).toBeCloseTo(14.63301832601815, 9);
  });

  it("is the plain Welch test without a prior or with df 0", () => {
    const plain = welch(baseline, candidate);
    expect(welch(baseline, candidate, { baselineVariancePrior: { variance: 5, df: 0 } })).toEqual(plain);
    expect(plain.df).toBeLessThan(14);
  });
});
