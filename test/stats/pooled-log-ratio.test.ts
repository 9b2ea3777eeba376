import { describe, expect, it } from "vitest";
import { logRatioTest } from "../../src/stats/metric-test.js";
import { pooledLogRatio } from "../../src/stats/pooled-log-ratio.js";
import { pAbove, pBelow } from "../../src/stats/welch.js";

const margin = Math.log(1.05);

describe("pooledLogRatio: a metric across a family's cells", () => {
  it("is Satterthwaite over every cell's variance components (values from scipy 1.17.1)", () => {
    // Cell A: baseline [100, 104, 98, 101, 103], candidate [110, 112, 109, 115, 111]; cell B: baseline
    // [50, 51, 49.5, 50.5, 52], candidate [54, 55.5, 53, 56, 54.5]. By hand (numpy): mean of the two
    // cells' ln differences 0.0860584390804582, variance Σ(s²/n)/4 → SE 0.009536591391221347,
    // df = var² / Σ((s²/n)/4)²/(n − 1) = 15.592269894469958; scipy.stats.t.sf((mean − ln 1.05)/SE, df)
    // = 0.0006543527173292061.
    const cells = [
      { base: [100, 104, 98, 101, 103], cand: [110, 112, 109, 115, 111] },
      { base: [50, 51, 49.5, 50.5, 52], cand: [54, 55.5, 53, 56, 54.5] },
    ].map(({ base, cand }) =>
      logRatioTest(base, cand, { higherIsBetter: false, tolerance: 0.05, alphaEachSide: 0.05 }),
    );
    // Each cell alone: p 0.00498 and 0.0346 (scipy), both far above what a family of many checks needs.
    expect(cells[0]!.pBeyondTolerance).toBeCloseTo(0.00497861064227685, 10);
    expect(cells[1]!.pBeyondTolerance).toBeCloseTo(0.034622350372294934, 10);
    const pooled = pooledLogRatio(
      cells.map((c) => ({ worse: c.worse, standardError: c.standardError, df: c.df, extraVariance: 0 })),
    );
    expect(pooled.difference).toBeCloseTo(0.0860584390804582, 12);
    expect(pooled.standardError).toBeCloseTo(0.009536591391221347, 12);
    expect(pooled.df).toBeCloseTo(15.592269894469958, 9);
    expect(pAbove(pooled, margin)).toBeCloseTo(0.0006543527173292061, 10);
    // The mirror (improvement: better by more than the tolerance): p = t.cdf((mean + d)/SE, df).
    expect(pBelow(pooled, -margin)).toBeCloseTo(0.9999999998683102, 10);
  });

  it("is the cell's own test for one cell", () => {
    const one = { worse: 0.07, standardError: 0.02, df: 7.5, extraVariance: 0 };
    expect(pooledLogRatio([one])).toMatchObject({ difference: 0.07, standardError: 0.02 });
    expect(pooledLogRatio([one]).df).toBeCloseTo(7.5, 12);
  });

  it("takes a stored baseline's session drift as shared by the cells: it does not average away", () => {
    // Two cells, each SE² = 0.0004 from runs + 0.0001 drift. Independent parts: (0.0004 + 0.0004)/4 =
    // 0.0002; the drift's sd adds before squaring: (0.01/2 + 0.01/2)² = 0.0001 → SE √0.0003.
    const cell = { worse: 0.08, standardError: Math.sqrt(0.0005), df: 10, extraVariance: 0.0001 };
    const pooled = pooledLogRatio([cell, cell]);
    expect(pooled.standardError).toBeCloseTo(Math.sqrt(0.0003), 12);
    // As if the drift were independent per cell it would be √(0.0005/2) = √0.00025: narrower, and wrong.
    expect(pooled.standardError).toBeGreaterThan(Math.sqrt(0.00025));
    // df: var² / Σ (total²/df)/n⁴ = 0.0003² / (2 · 0.0005²/10 / 16) = 28.8.
    expect(pooled.df).toBeCloseTo(28.8, 9);
  });

  it("has no estimated variance when every cell's runs were identical: df infinite", () => {
    const pooled = pooledLogRatio([
      { worse: 0.06, standardError: 0.01, df: Number.POSITIVE_INFINITY, extraVariance: 0 },
      { worse: 0.04, standardError: 0.01, df: Number.POSITIVE_INFINITY, extraVariance: 0 },
    ]);
    expect(pooled.df).toBe(Number.POSITIVE_INFINITY);
    expect(pooled.difference).toBeCloseTo(0.05, 12);
  });

  it("refuses an empty family", () => {
    expect(() => pooledLogRatio([])).toThrow(/at least one cell/);
  });
});
