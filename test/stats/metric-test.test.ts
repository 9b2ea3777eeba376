import { describe, expect, it } from "vitest";
import { normalCdf, studentTQuantile } from "../../src/stats/distributions.js";
import {
  logRatioTest,
  minimumDetectableChange,
  powerAtChange,
  runsToDetect,
} from "../../src/stats/metric-test.js";
import { mulberry32 } from "../../src/util/random.js";

/**
 * P(T′ > c) for the noncentral t by Simpson's rule over V ~ χ²_df itself (not the log-scale trapezoid
 * the product uses): an independent reference for integer df ≥ 3.
 */
function simpsonNoncentralPower(c: number, df: number, ncp: number): number {
  const upper = df + 60 * Math.sqrt(2 * df) + 60;
  const n = 40_000;
  const h = upper / n;
  let logNorm = (df / 2) * Math.log(2);
  for (let k = df / 2 - 1; k > 0; k--) logNorm += Math.log(k);
  if (df % 2 === 1) throw new Error("even df only in this reference");
  const f = (v: number) =>
    v <= 0
      ? 0
      : Math.exp((df / 2 - 1) * Math.log(v) - v / 2 - logNorm) * normalCdf(ncp - c * Math.sqrt(v / df));
  let sum = f(0) + f(upper);
  for (let i = 1; i < n; i++) sum += (i % 2 === 1 ? 4 : 2) * f(i * h);
  return (sum * h) / 3;
}

const margin = Math.log(1.05);

/** The formula before: t(1 − α, df) + z(0.9) times the estimated sd, no median correction. */
function normalApproximation(se: number, alpha: number, df: number): number {
  return Math.exp(margin + (studentTQuantile(1 - alpha, df) + 1.2815515655446004) * se) - 1;
}

describe("minimum detectable change", () => {
  // 6 runs a side, run sd 3%, the first look's level of the default schedule after Holm's strictest step:
  // 0.05 × 5/75 × 0.8 / 15.
  const alpha = (0.05 * 5 * 0.8) / (75 * 15);
  const issueSetting = {
    baselineVariance: 0.0009,
    candidateVariance: 0.0009,
    baselineRuns: 6,
    candidateRuns: 6,
    extraVariance: 0,
    tolerance: 0.05,
    alpha,
    df: 10,
  };

  it("is the noncentral-t noncentrality of 90% power times the median-unbiased sd (scipy reference)", () => {
    // scipy: λ = brentq(nct.sf(t.ppf(1 − α, 10), 10, λ) − 0.9) = 7.140551954808851;
    // √(chi2.median(10)/10) = 0.966530794418469; δ = exp(ln 1.05 + λ·se/m) − 1.
    expect(minimumDetectableChange(issueSetting)).toBeCloseTo(0.19333379188767075, 9);
    expect(minimumDetectableChange({ ...issueSetting, df: 9.3 })).toBeCloseTo(0.19910856217472617, 9);
  });

  it("rises above the normal approximation it replaces where that was optimistic", () => {
    const se = 0.03 * Math.sqrt(2 / 6);
    const before = normalApproximation(se, alpha, 10);
    expect(before).toBeCloseTo(0.17646046715285424, 9);
    expect(minimumDetectableChange(issueSetting) - before).toBeGreaterThan(0.015);
  });

  it("agrees with an independent integration of the noncentral t: power 0.9 at the change it gives", () => {
    for (const [df, level] of [
      [4, 0.01],
      [10, 0.000222],
      [18, 0.0033],
    ] as const) {
      const se = 0.02;
      const known = minimumDetectableChange({
        ...issueSetting,
        alpha: level,
        df: undefined,
        testDf: df,
        baselineVariance: ((se * se) / 2) * 6,
        candidateVariance: ((se * se) / 2) * 6,
      });
      const lambda = (Math.log(1 + known) - margin) / se;
      expect(simpsonNoncentralPower(studentTQuantile(1 - level, df), df, lambda)).toBeCloseTo(0.9, 8);
    }
  });

  it("reproduces the noncentral-t table of statistics.md: the largest run sd for 90% power at +10%", () => {
    // Test against 0 (tolerance 0), ν = 2R − 2, known run sd: τ_max = ln 1.1 / (λ·√(2/R)).
    const tauMax = (alpha: number, runs: number) => {
      const mdc = minimumDetectableChange({
        baselineVariance: 1,
        candidateVariance: 1,
        baselineRuns: runs,
        candidateRuns: runs,
        extraVariance: 0,
        tolerance: 0,
        alpha,
        testDf: 2 * runs - 2,
      });
      return Math.log(1.1) / Math.log(1 + mdc);
    };
    const table: [number, [number, number, number]][] = [
      [0.05, [0.032, 0.047, 0.07]],
      [0.01, [0.021, 0.034, 0.055]],
      [0.0038, [0.016, 0.029, 0.049]],
      [0.00077, [0.011, 0.023, 0.041]],
    ];
    for (const [alpha, row] of table)
      for (const [i, runs] of [3, 5, 10].entries())
        expect(Math.abs(tauMax(alpha, runs) - row[i]!)).toBeLessThan(0.0006);
  });

  it("with known variances (no df) is the normal formula z(1 − α) + z(power)", () => {
    const { df: _estimate, ...known } = issueSetting;
    const se = 0.03 * Math.sqrt(2 / 6);
    const z = 3.5710481220413044 + 1.2815515655446004; // norm.ppf(1 − 0.000177...), norm.ppf(0.9)
    expect(minimumDetectableChange(known)).toBeCloseTo(Math.exp(margin + z * se) - 1, 8);
  });

  it("is blocked about 90% of the time at its median over clean samples; the old formula was not", () => {
    // Seeded Monte-Carlo of the issue's setting through the regression test itself (Welch on the logs).
    const random = mulberry32(37);
    const normal = () =>
      Math.sqrt(-2 * Math.log(Math.max(random(), 1e-300))) * Math.cos(2 * Math.PI * random());
    const sample = (shift: number) => Array.from({ length: 6 }, () => Math.exp(shift + 0.03 * normal()));
    const options = { higherIsBetter: false, tolerance: 0.05, alphaEachSide: 0.05 };
    const reps = 3000;
    const printed: number[] = [];
    const before: number[] = [];
    for (let i = 0; i < reps; i++) {
      const test = logRatioTest(sample(0), sample(0), options);
      printed.push(
        minimumDetectableChange({
          ...issueSetting,
          baselineVariance: test.baselineVariance,
          candidateVariance: test.candidateVariance,
          df: test.df,
        }),
      );
      before.push(normalApproximation(test.standardError, alpha, test.df));
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
    const blockedAt = (change: number) => {
      let blocked = 0;
      for (let i = 0; i < reps; i++)
        if (logRatioTest(sample(0), sample(Math.log(1 + change)), options).pBeyondTolerance <= alpha)
          blocked++;
      return blocked / reps;
    };
    const now = blockedAt(median(printed));
    expect(now).toBeGreaterThan(0.87);
    expect(now).toBeLessThan(0.93);
    expect(blockedAt(median(before))).toBeLessThan(0.84);
  });
});

describe("runs to detect", () => {
  const input = {
    baselineVariance: 0.0009,
    candidateVariance: 0.0009,
    extraVariance: 0,
    tolerance: 0.05,
    alpha: 0.001,
    df: 8,
  };

  it("finds the first run count whose detectable change reaches the target (a scan agrees)", () => {
    const target = 0.12;
    const found = runsToDetect(input, { baseline: 5, candidate: 5 }, target, 100, true)!;
    const at = (runs: number) =>
      minimumDetectableChange({ ...input, baselineRuns: runs, candidateRuns: runs });
    expect(at(found)).toBeLessThanOrEqual(target);
    expect(at(found - 1)).toBeGreaterThan(target);
    expect(runsToDetect(input, { baseline: 5, candidate: 5 }, 0.051, 100, true)).toBeNull();
    // A stored baseline's drift keeps it above the tolerance for any number of runs.
    expect(
      runsToDetect({ ...input, extraVariance: 0.0004 }, { baseline: 10, candidate: 5 }, 0.08, 100, false),
    ).toBeNull();
  });

  it("projects the test's df and level to the runs it would be decided at", () => {
    const current = { baseline: 5, candidate: 5 };
    const fixed = runsToDetect(input, current, 0.1, 100, true)!;
    // Satterthwaite at more runs: each side's variance gains the added runs' df (equal variances: 2n − 2).
    const withDf = runsToDetect(
      { ...input, varianceDf: { baseline: 4, candidate: 4, start: 0 } },
      current,
      0.1,
      100,
      true,
    )!;
    expect(withDf).toBeLessThan(fixed);
    const expected = minimumDetectableChange({
      ...input,
      baselineRuns: withDf,
      candidateRuns: withDf,
      testDf: 2 * withDf - 2,
    });
    expect(expected).toBeLessThanOrEqual(0.1);
    // A later look's larger share of the family level: fewer runs again.
    const withLooks = runsToDetect(
      {
        ...input,
        varianceDf: { baseline: 4, candidate: 4, start: 0 },
        alphaAt: (runs) => 0.001 * (runs / 5),
      },
      current,
      0.1,
      100,
      true,
    )!;
    expect(withLooks).toBeLessThan(withDf);
  });
});

describe("power at a true change (the budget planner's ranking)", () => {
  const alpha = 0.05 / 12;
  const at = (df: number) => ({
    baselineVariance: 0.0001,
    candidateVariance: 0.0001,
    baselineRuns: 1,
    candidateRuns: 1,
    extraVariance: 0,
    tolerance: 0.05,
    alpha,
    df,
  });
  it("is within two points of the exact noncentral t (Simpson's reference) at even df from 4", () => {
    const se = Math.sqrt(0.0002);
    for (const df of [4, 6, 10, 30])
      for (const ncp of [1, 2, 3, 4, 5]) {
        const change = Math.exp(margin + ncp * se) - 1;
        const exact = simpsonNoncentralPower(studentTQuantile(1 - alpha, df), df, ncp);
        expect(Math.abs(powerAtChange(at(df), change) - exact)).toBeLessThan(0.02);
      }
  });
  it("is 90% at the minimum detectable change when the variances are known", () => {
    const known = { ...at(Number.POSITIVE_INFINITY) };
    delete (known as { df?: number }).df;
    expect(powerAtChange(known, minimumDetectableChange(known))).toBeCloseTo(0.9, 6);
  });
});
