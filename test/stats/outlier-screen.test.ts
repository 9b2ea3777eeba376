import { describe, expect, it } from "vitest";
import { defaultScreenOptions, screenOutliers } from "../../src/stats/outlier-screen.js";
import { boxMuller, mulberry32 } from "../../src/util/random.js";

function normal(random: () => number): number {
  return boxMuller(Math.max(random(), 1e-300), random());
}

/** One side of one cell: `runs` runs × 4 metrics, a run effect shared by the metrics (corr 0.7). */
function side(random: () => number, runs: number, sd: number, shift = 0): number[][] {
  return Array.from({ length: runs }, () => {
    const common = normal(random);
    return Array.from(
      { length: 4 },
      () => shift + sd * (Math.sqrt(0.7) * common + Math.sqrt(0.3) * normal(random)),
    );
  });
}

describe("robust outlier-run screen", () => {
  it("rarely fires on clean data (seeded: 2,000 PRs of 3 cells × 2 sides × 5-25 runs)", () => {
    const random = mulberry32(12);
    let runs = 0;
    let screened = 0;
    for (let pr = 0; pr < 2000; pr++) {
      const perSide = 5 + (pr % 5) * 5;
      // As compare pools them: both sides of a cell share a scale.
      const groups = Array.from({ length: 6 }, (_, g) => ({
        pool: `cell-${g >> 1}`,
        values: side(random, perSide, 0.03),
      }));
      runs += 6 * perSide;
      screened += screenOutliers(groups, 4).screened.length;
    }
    expect(screened / runs).toBeLessThan(0.001);
  });

  it("finds a run 1.3x slower on every metric, and only that run", () => {
    const random = mulberry32(3);
    const groups = Array.from({ length: 6 }, () => ({ values: side(random, 10, 0.03) }));
    groups[1]!.values[7] = groups[1]!.values[7]!.map((v) => v + Math.log(1.3));
    const result = screenOutliers(groups, 4);
    expect(result.screened.map((s) => [s.group, s.run])).toEqual([[1, 7]]);
    expect(result.screened[0]!.score).toBeGreaterThan(defaultScreenOptions.threshold);
    expect(result.screened[0]!.ratios[0]).toBeGreaterThan(1.2);
  });

  it("never screens a shift that every run of a side shares", () => {
    const random = mulberry32(4);
    const groups = [{ values: side(random, 10, 0.03) }, { values: side(random, 10, 0.03, Math.log(1.3)) }];
    expect(screenOutliers(groups, 4).screened).toHaveLength(0);
  });

  it("gives each pool its own scale: a noisier cell's ordinary runs are not outliers", () => {
    const random = mulberry32(6);
    const groups = [
      ...Array.from({ length: 4 }, (_, i) => ({ pool: `quiet-${i >> 1}`, values: side(random, 10, 0.02) })),
      { pool: "noisy", values: side(random, 10, 0.1) },
      { pool: "noisy", values: side(random, 10, 0.1) },
    ];
    expect(screenOutliers(groups, 4).screened).toHaveLength(0);
    // One pool for all: the quiet cells set the unit and the noisy cell's runs look far out.
    const pooled = screenOutliers(
      groups.map((g) => ({ values: g.values })),
      4,
    );
    expect(pooled.screened.length + pooled.tooManyOutliers.length).toBeGreaterThan(0);
  });

  it("leaves sides under 5 runs alone and refuses to screen more than 1 run in 5", () => {
    const random = mulberry32(5);
    const small = [{ values: side(random, 4, 0.03) }, { values: side(random, 10, 0.03) }];
    small[0]!.values[0] = small[0]!.values[0]!.map((v) => v + 0.3);
    expect(screenOutliers(small, 4).screened).toHaveLength(0);
    const split = [{ values: side(random, 10, 0.03) }, { values: side(random, 10, 0.03) }];
    for (const r of [0, 1, 2]) split[0]!.values[r] = split[0]!.values[r]!.map((v) => v + 0.3);
    const result = screenOutliers(split, 4);
    expect(result.screened).toHaveLength(0);
    expect(result.tooManyOutliers).toEqual([0]);
  });
});
