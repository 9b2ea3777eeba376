import { describe, expect, it } from "vitest";
import {
  defaultChangePointOptions,
  detectChangePoints,
  levelShift,
  nullDraws,
  rankSplitNull,
  tChangePointOptions,
} from "../../src/stats/change-point.js";
import { boxMuller, mulberry32 } from "../../src/util/random.js";

// Reference values computed with scipy 1.17.1 (stats.ttest_ind equal_var=True over every split with at
// least 4 points a side; stats.t.ppf for the 95% interval).
const left = [0.01, -0.01, 0.02, -0.02, 0, 0.01, -0.01, 0];
const right = [0.1, 0.11, 0.09, 0.1, 0.12, 0.08];

function noisy(seed: number, n: number, sd: number, level = 0): number[] {
  const random = mulberry32(seed);
  return Array.from({ length: n }, () => level + sd * boxMuller(Math.max(random(), 1e-12), random()));
}

/** Student t with 3 df scaled to unit variance, and 5% of points 1.3x slower: the extended noise model. */
function heavy(seed: number, n: number, sd: number): number[] {
  const random = mulberry32(seed);
  const normal = () => boxMuller(Math.max(random(), 1e-12), random());
  return Array.from({ length: n }, () => {
    const chi = normal() ** 2 + normal() ** 2 + normal() ** 2;
    const t3 = normal() / Math.sqrt(chi / 3) / Math.sqrt(3);
    return sd * t3 + (random() < 0.05 ? Math.log(1.3) : 0);
  });
}

describe("detectChangePoints (rank, the default)", () => {
  it("is the default detector", () => {
    expect(defaultChangePointOptions.method).toBe("rank");
  });

  it("finds a crafted step at the right index, with the rank z, the Hodges-Lehmann size and its Moses interval", () => {
    // By hand (mid-ranks, tie-corrected variance): the split at 8 has the right part's ranks 9..14,
    // rank sum 69 against 6·15/2 = 45, z = 3.112096 (splits 4..10: 1.70, 2.01, 2.07, 2.70, 3.11, 2.68,
    // 2.06). The 48 differences right − left have median 0.10; the exact 95% Moses interval for 8 and 6
    // points is the 9th smallest to the 9th largest: 0.08 … 0.12.
    const [cp, ...rest] = detectChangePoints([...left, ...right]);
    expect(rest).toEqual([]);
    expect(cp?.index).toBe(8);
    expect(cp?.statistic).toBeCloseTo(3.112096, 5);
    expect(cp?.p).toBeLessThan(defaultChangePointOptions.alpha);
    expect(cp?.ratio).toBeCloseTo(Math.exp(0.1), 12);
    expect(cp?.ratioLow).toBeCloseTo(Math.exp(0.08), 12);
    expect(cp?.ratioHigh).toBeCloseTo(Math.exp(0.12), 12);
    expect([cp?.before, cp?.after]).toEqual([8, 6]);
  });

  it("gives the permutation p of the best split: with 8 points and 4 a side, 2 of the 70 orders separate completely", () => {
    const [cp] = detectChangePoints([0, 0.01, 0.02, 0.03, 0.2, 0.21, 0.22, 0.23], { alpha: 0.05 });
    expect(cp?.index).toBe(4);
    // Monte-Carlo p of 2/70 = 0.0286 from 20,000 draws: standard error 0.0012.
    expect(cp?.p).toBeGreaterThan(2 / 70 - 0.005);
    expect(cp?.p).toBeLessThan(2 / 70 + 0.005);
    // At the default alpha 0.01 eight points cannot show a step at all.
    expect(detectChangePoints([0, 0.01, 0.02, 0.03, 0.2, 0.21, 0.22, 0.23])).toEqual([]);
  });

  it("has a null that does not depend on the noise: heavy tails and slow points alarm in about alpha of windows", () => {
    let alarms = 0;
    const windows = 1500;
    for (let seed = 1; seed <= windows; seed++)
      if (detectChangePoints(heavy(seed, 40, 0.05), { minMagnitude: 0 }).length > 0) alarms++;
    // alpha 0.012: expected 18 of 1,500 (Monte-Carlo sd 4.2); the t detector's normal-theory threshold
    // is not exact here, which is what the rank null fixes.
    expect(alarms / windows).toBeGreaterThan(0.003);
    expect(alarms / windows).toBeLessThan(0.02);
  });

  it("draws its null once per window length, the same every time (pure)", () => {
    const once = rankSplitNull(20, 4);
    expect(once).toHaveLength(nullDraws);
    expect(rankSplitNull(20, 4)).toBe(once);
    expect(once[0]).toBeLessThanOrEqual(once.at(-1)!);
  });

  it("does not call a lone slow session a step, at the end of the window or inside it", () => {
    const series = noisy(9, 40, 0.02);
    expect(detectChangePoints([...series, Math.log(1.3)])).toEqual([]);
    const inside = [...series];
    inside[20] = Math.log(1.3);
    inside[30] = Math.log(1.3);
    expect(detectChangePoints(inside)).toEqual([]);
  });

  it("reports a step once it holds for several points, not after its first point", () => {
    const base = noisy(3, 30, 0.01);
    const step = noisy(4, 6, 0.01, Math.log(1.2));
    expect(detectChangePoints([...base, ...step.slice(0, 1)])).toEqual([]);
    const found = detectChangePoints([...base, ...step]);
    expect(found.map((cp) => cp.index)).toEqual([30]);
    expect(found[0]!.ratio).toBeGreaterThan(1.18);
  });

  it("refuses a significant step smaller than the minimum magnitude", () => {
    const tiny = [...left.map((v) => v / 10), ...right.map((v) => v / 10)];
    expect(detectChangePoints(tiny, { minMagnitude: 0.03 })).toEqual([]);
    expect(detectChangePoints(tiny, { minMagnitude: 0.005 })).toHaveLength(1);
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

  it("reports a slow ramp (+0.5% per commit for 20 commits) as a worsening inside the ramp", () => {
    const flat = noisy(11, 20, 0.01);
    const ramp = noisy(12, 20, 0.01).map((v, i) => v + Math.log1p(0.005 * (i + 1)));
    const found = detectChangePoints([...flat, ...ramp]);
    expect(found.length).toBeGreaterThan(0);
    for (const cp of found) {
      expect(cp.index).toBeGreaterThanOrEqual(20);
      expect(cp.ratio).toBeGreaterThan(1.03);
    }
  });

  it("finds a +10% step 10 points old in heavy-tailed noise with slow points far more often than the t detector", () => {
    let rank = 0;
    let t = 0;
    const series = 300;
    for (let seed = 1; seed <= series; seed++) {
      const x = [
        ...heavy(2 * seed, 30, 0.05),
        ...heavy(2 * seed + 1, 10, 0.05).map((v) => v + Math.log(1.1)),
      ];
      const near = (found: { index: number }[]) => found.some((cp) => Math.abs(cp.index - 30) <= 2);
      if (near(detectChangePoints(x))) rank++;
      if (near(detectChangePoints(x, tChangePointOptions))) t++;
    }
    // Measured 82% and 30% over 400 such series (Monte-Carlo sd about 2.3 points each at 300).
    expect(rank / series).toBeGreaterThan(0.72);
    expect(t / series).toBeLessThan(0.4);
  });
});

describe("detectChangePoints (t, the earlier detector)", () => {
  it("finds a crafted step where scipy's best split is, with its size and interval", () => {
    const [cp, ...rest] = detectChangePoints([...left, ...right], tChangePointOptions);
    expect(rest).toEqual([]);
    expect(cp?.index).toBe(8);
    expect(cp?.statistic).toBeCloseTo(13.675269175156554, 9);
    expect(cp?.p).toBeCloseTo(7.79367699930444e-8, 12);
    expect(cp?.ratio).toBeCloseTo(1.1051709180756477, 12);
    expect(cp?.ratioLow).toBeCloseTo(1.0877023067165477, 9);
    expect(cp?.ratioHigh).toBeCloseTo(1.122920077136937, 9);
    expect([cp?.before, cp?.after]).toEqual([8, 6]);
  });

  it("reports nothing on a flat noisy series", () => {
    for (let seed = 1; seed <= 20; seed++)
      expect(detectChangePoints(noisy(seed, 40, 0.05), tChangePointOptions)).toEqual([]);
  });

  it("is strict: one outlier session does not make a change point", () => {
    const series = noisy(9, 40, 0.02);
    series[20] = 0.3;
    expect(detectChangePoints(series, tChangePointOptions)).toEqual([]);
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
