import { describe, expect, it } from "vitest";
import { detectChangePoints, levelShift } from "../../src/stats/change-point.js";
import { boxMuller, mulberry32 } from "../../src/util/random.js";

// Reference values computed with scipy 1.17.1 (stats.ttest_ind equal_var=True over every split with at
// least 4 points a side; stats.t.ppf for the 95% interval).
const left = [0.01, -0.01, 0.02, -0.02, 0, 0.01, -0.01, 0];
const right = [0.1, 0.11, 0.09, 0.1, 0.12, 0.08];

function noisy(seed: number, n: number, sd: number, level = 0): number[] {
  const random = mulberry32(seed);
  return Array.from({ length: n }, () => level + sd * boxMuller(Math.max(random(), 1e-12), random()));
}

describe("detectChangePoints", () => {
  it("finds a crafted step where scipy's best split is, with its size and interval", () => {
    const [cp, ...rest] = detectChangePoints([...left, ...right]);
    expect(rest).toEqual([]);
    expect(cp?.index).toBe(8);
    expect(cp?.t).toBeCloseTo(13.675269175156554, 9);
    expect(cp?.p).toBeCloseTo(7.79367699930444e-8, 12);
    expect(cp?.ratio).toBeCloseTo(1.1051709180756477, 12);
    expect(cp?.ratioLow).toBeCloseTo(1.0877023067165477, 9);
    expect(cp?.ratioHigh).toBeCloseTo(1.122920077136937, 9);
    expect([cp?.before, cp?.after]).toEqual([8, 6]);
  });

  it("reports nothing on a flat noisy series", () => {
    for (let seed = 1; seed <= 20; seed++) expect(detectChangePoints(noisy(seed, 40, 0.05))).toEqual([]);
  });

  it("refuses a significant step smaller than the minimum magnitude", () => {
    const tiny = [...left.map((v) => v / 10), ...right.map((v) => v / 10)];
    expect(detectChangePoints(tiny, { minMagnitude: 0.03 })).toEqual([]);
    expect(detectChangePoints(tiny, { minMagnitude: 0.005 })).toHaveLength(1);
  });

  it("does not take one outlier at the end of the window for a step; the step is reported once it holds", () => {
    const base = noisy(3, 30, 0.01);
    const step = noisy(4, 4, 0.01, Math.log(1.2));
    expect(detectChangePoints([...base, ...step.slice(0, 1)])).toEqual([]);
    const found = detectChangePoints([...base, ...step]);
    expect(found.map((cp) => cp.index)).toEqual([30]);
    expect(found[0]!.ratio).toBeGreaterThan(1.18);
  });

  it("finds two steps by binary segmentation, an improvement reported below 1", () => {
    const series = [
      ...noisy(6, 15, 0.01),
      ...noisy(7, 15, 0.01, Math.log(1.1)),
      ...noisy(8, 15, 0.01, Math.log(1.2)),
    ];
    expect(detectChangePoints(series).map((cp) => cp.index)).toEqual([15, 30]);
    const down = detectChangePoints([...noisy(6, 15, 0.01, Math.log(1.1)), ...noisy(8, 15, 0.01, 0)]);
    expect(down.map((cp) => cp.index)).toEqual([15]);
    expect(down[0]!.ratio).toBeLessThan(0.93);
  });

  it("is strict: one outlier session does not make a change point", () => {
    const series = noisy(9, 40, 0.02);
    series[20] = 0.3;
    expect(detectChangePoints(series)).toEqual([]);
  });
});

describe("levelShift", () => {
  it("matches scipy's pooled t interval", () => {
    const shift = levelShift([0, 0.01, -0.01], [0.05, 0.06]);
    expect(shift?.ratio).toBeCloseTo(1.0565406146754943, 12);
    expect(shift?.ratioLow).toBeCloseTo(1.028889035815022, 9);
    expect(shift?.ratioHigh).toBeCloseTo(1.084935334717242, 9);
  });

  it("needs three points", () => {
    expect(levelShift([0], [0.1])).toBeNull();
  });
});
