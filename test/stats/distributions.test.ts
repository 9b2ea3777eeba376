import { describe, expect, it } from "vitest";
import {
  binomialCdf,
  normalCdf,
  normalQuantile,
  regularizedIncompleteBeta,
  studentTCdf,
  studentTQuantile,
} from "../../src/stats/distributions.js";

// Expected values from scipy.stats (t.cdf, t.ppf, norm.cdf, norm.ppf, betainc, binom.cdf).
describe("distribution functions", () => {
  it("matches scipy's Student t CDF, including fractional Welch df", () => {
    expect(studentTCdf(2, 5)).toBeCloseTo(0.9490302605850709, 12);
    expect(studentTCdf(-1, 1)).toBeCloseTo(0.25, 12);
    expect(studentTCdf(0, 3.3)).toBe(0.5);
    // statistics.md §8: Welch t = 5.3001, ν = 7.9747, two-sided p = 7.359e-4.
    expect(2 * studentTCdf(-5.3001, 7.9747)).toBeCloseTo(7.359e-4, 6);
  });

  it("inverts the t CDF", () => {
    expect(studentTQuantile(0.975, 3)).toBeCloseTo(3.182446305284263, 9);
    expect(studentTQuantile(0.95, 10)).toBeCloseTo(1.8124611228107335, 9);
    expect(studentTQuantile(0.025, 3)).toBeCloseTo(-3.182446305284263, 9);
    expect(studentTQuantile(0.999, 4.5)).toBeCloseTo(6.43, 1);
    for (const df of [1.5, 2, 7.9747, 30]) {
      for (const p of [0.6, 0.9, 0.99, 0.9999])
        expect(studentTCdf(studentTQuantile(p, df), df)).toBeCloseTo(p, 10);
    }
  });

  it("matches the normal CDF and quantile in the centre and the tails", () => {
    expect(normalCdf(1.96)).toBeCloseTo(0.9750021048517795, 13);
    expect(normalCdf(-3)).toBeCloseTo(0.0013498980316301, 14);
    expect(normalCdf(-8) / 6.22096057427178e-16).toBeCloseTo(1, 8);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 10);
    expect(normalQuantile(1e-6)).toBeCloseTo(-4.753424308822899, 8);
  });

  it("matches the regularized incomplete beta and the binomial CDF", () => {
    expect(regularizedIncompleteBeta(0.3, 2, 3)).toBeCloseTo(0.3483, 12);
    expect(regularizedIncompleteBeta(0.9, 0.5, 0.5)).toBeCloseTo(0.7951672353008665, 12);
    expect(binomialCdf(3, 10, 0.5)).toBeCloseTo(0.171875, 12);
    expect(binomialCdf(-1, 10, 0.5)).toBe(0);
    expect(binomialCdf(10, 10, 0.5)).toBe(1);
  });
});
