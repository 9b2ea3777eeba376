import { describe, expect, it } from "vitest";
import { optimalRunsPerStart, startWeightFor, twoLevelWelch } from "../../src/stats/two-level.js";
import { welch } from "../../src/stats/welch.js";

const own = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const startsOf = (sizes: readonly number[], prefix: string) =>
  sizes.flatMap((size, g) => Array.from({ length: size }, () => `${prefix}${g}`));

describe("twoLevelWelch", () => {
  it("is Welch's test on the runs when every run is its own start", () => {
    const b = [6.7, 6.68, 6.74, 6.69, 6.72];
    const c = [6.78, 6.8, 6.76, 6.81, 6.77, 6.79];
    const plain = welch(b, c);
    const two = twoLevelWelch({ values: b, starts: own("b", 5) }, { values: c, starts: own("c", 6) });
    expect(two.difference).toBeCloseTo(plain.difference, 12);
    expect(two.standardError).toBeCloseTo(plain.standardError, 12);
    expect(two.df).toBeCloseTo(plain.df, 9);
    expect(two.startPart).toBe(0);
  });

  it("reproduces the Kalibera-Jones two-level reference (3 starts x 4 runs; statistics.md §8)", () => {
    const values = [10, 11, 12, 11, 14, 15, 13, 14, 9, 10, 11, 10];
    const starts = startsOf([4, 4, 4], "s");
    // The same structure on both sides: σ_s² pooled over them is each side's.
    const result = twoLevelWelch({ values, starts }, { values, starts });
    expect(result.baseline.runVariance).toBeCloseTo(0.6667, 4);
    expect(result.measuredStartVariance?.variance).toBeCloseTo(4.1667, 4);
    // Variance of one side's mean: σ_s²/3 + σ_r²/12 = S₂²/3 (the variance of the start means / G).
    const sideVariance =
      result.startVariance * result.baseline.startWeight + result.baseline.runVariance / 12;
    expect(sideVariance).toBeCloseTo(4.3333 / 3, 4);
    expect(result.baseline.startWeight).toBeCloseTo(1 / 3, 12);
    // 95% half-width of one mean with the between-start df (2): t₂·√(S₂²/3) = 5.171.
    expect(4.302653 * Math.sqrt(sideVariance)).toBeCloseTo(5.171, 2);
  });

  it("adds the prior's start variance to each side that had one start, whatever its run count", () => {
    const b = [0.0, 0.001, -0.001, 0.0005, -0.0005, 0.0002, -0.0002, 0.0001];
    const c = b.map((v) => v + 0.002);
    const prior = { variance: 0.02 ** 2, df: 4 };
    const one = twoLevelWelch(
      { values: b, starts: startsOf([8], "b") },
      { values: c, starts: startsOf([8], "c") },
      { startPrior: prior },
    );
    expect(one.measuredStartVariance).toBeNull();
    expect(one.startVariance).toBeCloseTo(prior.variance, 12);
    expect(one.startPart).toBeCloseTo(2 * prior.variance, 12);
    // The interval is as wide as two starts' noise allows, not as the tight runs suggest.
    expect(one.standardError).toBeGreaterThan(0.028);
    expect(one.df).toBeLessThan(5);
    // Without a prior and with one start a side, nothing is known of the start level: plain runs.
    const none = twoLevelWelch(
      { values: b, starts: startsOf([8], "b") },
      { values: c, starts: startsOf([8], "c") },
    );
    expect(none.startPart).toBe(0);
  });

  it("lets many starts outweigh the prior (pooled by degrees of freedom)", () => {
    // 6 starts of 2 runs a side with start means spread by about 5%: far above a 1% prior.
    const startMeans = [0.05, -0.05, 0.04, -0.04, 0.06, -0.06];
    const side = (shift: number) => ({
      values: startMeans.flatMap((m) => [m + shift + 0.001, m + shift - 0.001]),
      starts: startsOf([2, 2, 2, 2, 2, 2], `s${shift}`),
    });
    const result = twoLevelWelch(side(0), side(0.01), { startPrior: { variance: 0.01 ** 2, df: 4 } });
    expect(result.measuredStartVariance!.df).toBeGreaterThan(8);
    // Starts this far above a 1% prior contradict it: the starts' own estimate stands, with its df.
    expect(result.priorContradicted).toBe(true);
    expect(result.startVariance).toBeCloseTo(result.measuredStartVariance!.variance, 12);
    expect(result.startVarianceDf).toBeCloseTo(result.measuredStartVariance!.df, 12);
  });

  it("pools a prior the starts agree with, by degrees of freedom", () => {
    const startMeans = [0.012, -0.01, 0.008, -0.011];
    const side = (shift: number) => ({
      values: startMeans.flatMap((m) => [m + shift + 0.002, m + shift - 0.002]),
      starts: startsOf([2, 2, 2, 2], `s${shift}`),
    });
    const prior = { variance: 0.01 ** 2, df: 4 };
    const result = twoLevelWelch(side(0), side(0.01), { startPrior: prior });
    const measured = result.measuredStartVariance!;
    expect(result.priorContradicted).toBe(false);
    expect(result.startVariance).toBeCloseTo(
      (measured.df * measured.variance + prior.df * prior.variance) / (measured.df + prior.df),
      12,
    );
  });
});

describe("startWeightFor", () => {
  it("is 1 for one start, 1/N for single-run starts and Σn²/N² for blocks", () => {
    expect(startWeightFor(5, 5)).toBe(1);
    expect(startWeightFor(5, 1)).toBeCloseTo(1 / 5, 12);
    expect(startWeightFor(5, 2)).toBeCloseTo((4 + 4 + 1) / 25, 12);
    expect(startWeightFor(10, 100)).toBe(1);
  });
});

describe("optimalRunsPerStart", () => {
  it("is √(c_start σ_r² / (c_run σ_s²)) (Kalibera-Jones reference: 4 at a cost ratio of 100)", () => {
    expect(
      optimalRunsPerStart({ startVariance: 4.1667, runVariance: 0.6667, startCost: 100, runCost: 1 }),
    ).toBeCloseTo(4, 2);
    expect(optimalRunsPerStart({ startVariance: 0, runVariance: 1, startCost: 1, runCost: 1 })).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});
