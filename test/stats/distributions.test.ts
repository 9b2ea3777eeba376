import { describe, expect, it } from "vitest";
import {
  binomialCdf,
  chiSquareQuantile,
  noncentralityForPower,
  noncentralTSurvival,
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

  it("matches scipy's chi-square quantile, including fractional df", () => {
    expect(chiSquareQuantile(0.5, 1)).toBeCloseTo(0.454936423119572, 12);
    expect(chiSquareQuantile(0.5, 10)).toBeCloseTo(9.34181776559197, 11);
    expect(chiSquareQuantile(0.5, 3.7)).toBeCloseTo(3.058889359041863, 11);
    expect(chiSquareQuantile(0.9, 2)).toBeCloseTo(4.605170185988092, 11);
    expect(chiSquareQuantile(0.01, 5)).toBeCloseTo(0.5542980767282772, 12);
    expect(chiSquareQuantile(0.5, 1000)).toBeCloseTo(999.333412403381, 8);
  });

  it("matches scipy's noncentral t survival (nct.sf) at small and fractional df", () => {
    const cases: [number, number, number, number][] = [
      [2, 10, 3, 0.8315141614119566],
      [5.5, 10.3, 7.4, 0.9015779364161303],
      [1.8, 3, 2, 0.6157303251980848],
      [3, 1, 4, 0.7940986802493275],
      [2.5, 50, 3, 0.6905537835256812],
      [4, 1000, 5, 0.8406227798534627],
      [0.5, 2, 0.1, 0.3694880499230111],
      [6, 4.2, 9, 0.925201547964402],
    ];
    for (const [t, df, ncp, expected] of cases)
      expect(noncentralTSurvival(t, df, ncp)).toBeCloseTo(expected, 11);
    // Zero noncentrality is the central t.
    expect(noncentralTSurvival(1.8124611228107335, 10, 0)).toBeCloseTo(0.05, 11);
  });

  it("finds the noncentrality of a given power: scipy's nct solved with brentq", () => {
    // λ with nct.sf(t.ppf(1 − α, df), df, λ) = 0.9.
    const cases: [number, number, number][] = [
      [0.05, 8, 3.2138909897398893],
      [0.000222, 10, 6.956714609997417],
      [0.01, 4, 5.640111453047722],
      [0.0027, 7.3, 5.605040115122364],
    ];
    for (const [alpha, df, expected] of cases)
      expect(noncentralityForPower(studentTQuantile(1 - alpha, df), df, 0.9)).toBeCloseTo(expected, 9);
    // Infinite df: the normal's c + z(power).
    expect(noncentralityForPower(1.6448536269514722, Number.POSITIVE_INFINITY, 0.9)).toBeCloseTo(
      1.6448536269514722 + 1.2815515655446004,
      12,
    );
  });
});
