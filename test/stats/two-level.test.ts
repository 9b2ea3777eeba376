import { describe, expect, it } from "vitest";
import {
  contradictsPrior,
  optimalRunsPerStart,
  startWeightFor,
  twoLevelWelch,
} from "../../src/stats/two-level.js";
import { welch } from "../../src/stats/welch.js";
import { mulberry32 } from "../../src/util/random.js";

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

describe("twoLevelWelch: the starts' estimate pooled with the prior unclamped", () => {
  it("pools starts that agree more closely than their runs as a negative estimate, clamping only the pool", () => {
    // 4 starts of 2 runs a side, every start mean the same, the runs ±0.5% around it: MS_between 0,
    // MS_within 2·0.005², so the moment estimate of σ_s² is −MS_within / 2 = −0.005² on 6 df.
    const side = (shift: number) => ({
      values: [0, 0, 0, 0].flatMap(() => [shift + 0.005, shift - 0.005]),
      starts: startsOf([2, 2, 2, 2], `s${shift}`),
    });
    const prior = { variance: 0.01 ** 2, df: 4 };
    const result = twoLevelWelch(side(0), side(0.01), { startPrior: prior });
    expect(result.measuredStartVariance).toMatchObject({ variance: 0, df: 6 });
    expect(result.measuredStartVariance!.estimate).toBeCloseTo(-(0.005 ** 2), 15);
    expect(result.priorContradicted).toBe(false);
    expect(result.startVarianceDf).toBe(10);
    expect(result.startVariance).toBeCloseTo((6 * -(0.005 ** 2) + 4 * 0.01 ** 2) / 10, 15);
    // Without a prior nothing is left to pool: the estimate is clamped at 0.
    expect(twoLevelWelch(side(0), side(0.01)).startVariance).toBe(0);
  });

  it("is unbiased with no start effect: the pooled start variance averages the prior's share", () => {
    // Runs on 8 starts of 2 a side, no start effect (σ_r 0.5%), a prior of 1% at 4 df: the pool's
    // expectation is 4·0.01² / (14 + 4). Clamping each estimate at 0 before pooling adds 14/18 of
    // E[max(0, estimate)], about 9% here.
    const random = mulberry32(7);
    const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const starts = startsOf([2, 2, 2, 2, 2, 2, 2, 2], "s");
    const prior = { variance: 0.01 ** 2, df: 4 };
    let sum = 0;
    const reps = 4000;
    for (let i = 0; i < reps; i++) {
      const draw = () => ({ values: starts.map(() => 0.005 * normal()), starts });
      sum += twoLevelWelch(draw(), draw(), { startPrior: prior }).startVariance;
    }
    const expected = (4 * 0.01 ** 2) / 18;
    expect(Math.abs(sum / reps / expected - 1)).toBeLessThan(0.025);
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

describe("twoLevelWelch with a run-level prior (a calibration of this runner)", () => {
  // Three runs a side, each on its own start; sums of squares about the side means (by hand):
  // baseline 0, 0.03, −0.02: mean 0.01/3, SS = 0.0012667; candidate 0.05, 0.02, 0.06: SS = 0.00086667.
  const b = [0.0, 0.03, -0.02];
  const c = [0.05, 0.02, 0.06];
  const ssB = 0.0038 / 3;
  const ssC = 0.0026 / 3;
  const perRun = { variance: 0.0009, df: 40 };

  it("pools each side's variance with the prior and counts the shared prior once in Satterthwaite's df", () => {
    const result = twoLevelWelch({ values: b }, { values: c }, { runPrior: { perRun } });
    // Each side: (SS + 40·0.0009) / (2 + 40).
    const vb = (ssB + 40 * 0.0009) / 42;
    const vc = (ssC + 40 * 0.0009) / 42;
    expect(result.baseline.runVariance).toBeCloseTo(vb, 12);
    expect(result.candidate.runVariance).toBeCloseTo(vc, 12);
    expect(result.baseline.runPrior).toBe("pooled");
    expect(result.baseline.runPriorDf).toBe(40);
    expect(result.baseline.measuredRunVariance).toBeCloseTo(ssB / 2, 12);
    const variance = vb / 3 + vc / 3;
    expect(result.standardError).toBeCloseTo(Math.sqrt(variance), 12);
    expect(result.standardError).toBeCloseTo(0.024256128882403895, 12);
    // Mean squares: each side's own (2 df) and the one prior both sides share (40 df).
    const ownB = ssB / 42 / 3;
    const ownC = ssC / 42 / 3;
    const prior = (2 * 40 * 0.0009) / 42 / 3;
    const df = variance ** 2 / (ownB ** 2 / 2 + ownC ** 2 / 2 + prior ** 2 / 40);
    expect(result.df).toBeCloseTo(df, 9);
    expect(result.df).toBeCloseTo(42.02358538657605, 9);
    // Uncalibrated, the same runs have 3.86 df: the t quantile a decision faces drops from 2.13 to 1.68.
    expect(twoLevelWelch({ values: b }, { values: c }).df).toBeCloseTo(3.8641509433962264, 9);
  });

  it("pools a side with the prior of its kind: within a start for shared starts, per run for fresh ones", () => {
    const withinStart = { variance: 0.0001, df: 20 };
    // Baseline: two starts of three runs (within-start SS by hand: 0.0002 + 0.0002 = 0.0004, 4 df).
    const shared = { values: [0.01, 0.02, 0.0, 0.05, 0.06, 0.04], starts: startsOf([3, 3], "s") };
    const result = twoLevelWelch(shared, { values: c }, { runPrior: { withinStart, perRun } });
    expect(result.baseline.measuredRunVariance).toBeCloseTo(0.0004 / 4, 12);
    expect(result.baseline.runVariance).toBeCloseTo((0.0004 + 20 * 0.0001) / 24, 12);
    expect(result.candidate.runVariance).toBeCloseTo((ssC + 40 * 0.0009) / 42, 12);
    // A prior without the kind a side needs leaves that side with its own runs.
    const only = twoLevelWelch(shared, { values: c }, { runPrior: { withinStart } });
    expect(only.candidate.runPrior).toBe("none");
    expect(only.candidate.runVariance).toBeCloseTo(ssC / 2, 12);
  });

  it("widens a prior both sides' runs contradict (a runner that got noisier): their own estimates stand", () => {
    // Runs spread by about 5% against a calibrated 1%: F = s²/0.0001 with (4, 40) df, far in the tail.
    const loudB = [0.0, 0.06, -0.05, 0.04, -0.06];
    const loudC = [0.02, -0.04, 0.07, -0.03, 0.05];
    const tight = { variance: 0.0001, df: 40 };
    const result = twoLevelWelch({ values: loudB }, { values: loudC }, { runPrior: { perRun: tight } });
    const plain = welch(loudB, loudC);
    expect(result.baseline.runPrior).toBe("widened");
    expect(result.candidate.runPrior).toBe("widened");
    expect(result.baseline.runPriorDf).toBe(0);
    expect(result.standardError).toBeCloseTo(plain.standardError, 12);
    expect(result.df).toBeCloseTo(plain.df, 9);
    // Not narrower than the runs alone: the calibrated prior would have cut the standard error to a third.
    const trusted = Math.sqrt((4 * 0.0001 + 40 * 0.0001) / 44 / 5 + (4 * 0.0001 + 40 * 0.0001) / 44 / 5);
    expect(result.standardError).toBeGreaterThan(2.5 * trusted);
  });

  it("widens the prior on the side whose runs contradict it and keeps it where they agree", () => {
    // A change that made the candidate noisier: its runs spread 6%, the baseline's agree with 3%.
    const quietB = [0.0, 0.03, -0.03, 0.02, -0.02];
    const loudC = [0.08, -0.06, 0.07, -0.05, 0.06];
    const prior = { variance: 0.03 ** 2, df: 40 };
    const result = twoLevelWelch({ values: quietB }, { values: loudC }, { runPrior: { perRun: prior } });
    expect(result.baseline.runPrior).toBe("pooled");
    expect(result.candidate.runPrior).toBe("widened");
    expect(result.candidate.runVariance).toBeCloseTo(result.candidate.measuredRunVariance, 12);
  });

  it("tests both sides' runs pooled when neither alone contradicts a shared prior", () => {
    // Each side's variance 0.00282 is 1.94× a prior of 0.00145: F(4, 40) p ≈ 0.12 per side, but with
    // both sides' 8 df F(8, 40) p ≈ 0.08, below 10%.
    const side = [0.0, 0.06, -0.05, 0.04, -0.06];
    const prior = { variance: 0.00145, df: 40 };
    expect(contradictsPrior({ variance: 0.00282, df: 4 }, prior)).toBe(false);
    expect(contradictsPrior({ variance: 0.00282, df: 8 }, prior)).toBe(true);
    const result = twoLevelWelch(
      { values: side },
      { values: side.map((v) => v + 0.01) },
      { runPrior: { perRun: prior } },
    );
    expect(result.baseline.runPrior).toBe("widened");
    expect(result.candidate.runPrior).toBe("widened");
  });

  it("widens a stored baseline's history prior its runs contradict, as at the start level", () => {
    const loud = [0.0, 0.06, -0.05, 0.04, -0.06];
    const cand = [0.01, 0.02, 0.0, 0.015, 0.005];
    const result = twoLevelWelch(
      { values: loud },
      { values: cand },
      { baselineVariancePrior: { variance: 0.0001, df: 30 } },
    );
    expect(result.baseline.runPrior).toBe("widened");
    expect(result.baseline.runVariance).toBeCloseTo(result.baseline.measuredRunVariance, 12);
  });
});

describe("contradictsPrior", () => {
  it("is the one-sided F test at 10% of the measured variance over the prior's", () => {
    // F(4, 40) upper 10% point is 2.09 (tables): 2.0× does not contradict, 2.2× does.
    expect(contradictsPrior({ variance: 2.0, df: 4 }, { variance: 1, df: 40 })).toBe(false);
    expect(contradictsPrior({ variance: 2.2, df: 4 }, { variance: 1, df: 40 })).toBe(true);
    // Quieter than the prior never contradicts it (the prior is then only conservative).
    expect(contradictsPrior({ variance: 0.1, df: 40 }, { variance: 1, df: 40 })).toBe(false);
    expect(contradictsPrior({ variance: 1, df: 4 }, { variance: 0, df: 40 })).toBe(true);
  });
});
