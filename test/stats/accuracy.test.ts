import { describe, expect, it } from "vitest";
import { mcnemarWorseP, twoProportionWorseP, wilsonInterval } from "../../src/stats/accuracy.js";

describe("wilsonInterval (values computed independently from the closed form)", () => {
  it("80 of 100 at 95%: 0.711171 to 0.866633", () => {
    const [low, high] = wilsonInterval(80, 100, 0.95);
    expect(low).toBeCloseTo(0.7111708, 6);
    expect(high).toBeCloseTo(0.8666331, 6);
  });

  it("20 of 20 at 95%: 0.838875 to 1; 0 of n mirrors it; no data is [0, 1]", () => {
    const [low, high] = wilsonInterval(20, 20, 0.95);
    expect(low).toBeCloseTo(0.8388748, 6);
    expect(high).toBe(1);
    const [low0, high0] = wilsonInterval(0, 20, 0.95);
    expect(low0).toBe(0);
    expect(high0).toBeCloseTo(1 - 0.8388748, 6);
    expect(wilsonInterval(0, 0, 0.95)).toEqual([0, 1]);
  });
});

describe("mcnemarWorseP (exact binomial tail on the discordant pairs, by hand)", () => {
  it("12 against 3: P(X >= 12 | 15, 1/2) = 576 / 32768", () => {
    expect(mcnemarWorseP(12, 3)).toBeCloseTo(576 / 32768, 12);
  });

  it("7 against 3: (120 + 45 + 10 + 1) / 1024 = 0.171875", () => {
    expect(mcnemarWorseP(7, 3)).toBeCloseTo(0.171875, 12);
  });

  it("no discordant pairs, or none against the candidate: 1; all against it: 2^-n", () => {
    expect(mcnemarWorseP(0, 0)).toBe(1);
    expect(mcnemarWorseP(0, 9)).toBe(1);
    expect(mcnemarWorseP(10, 0)).toBeCloseTo(1 / 1024, 12);
  });
});

describe("twoProportionWorseP (pooled one-sided z, computed by hand)", () => {
  it("90/100 against 80/100: z = 0.1 / sqrt(0.85 × 0.15 × 0.02) = 1.98030, p = 0.023835", () => {
    expect(twoProportionWorseP(90, 100, 80, 100)).toBeCloseTo(0.0238352, 5);
  });

  it("a better candidate (450/500 against 460/500) is far from worse: p = 0.86542", () => {
    expect(twoProportionWorseP(450, 500, 460, 500)).toBeCloseTo(0.8654179, 5);
  });

  it("no samples on a side, or every answer right (or wrong) on both, is no evidence: 1", () => {
    expect(twoProportionWorseP(0, 0, 5, 10)).toBe(1);
    expect(twoProportionWorseP(10, 10, 10, 10)).toBe(1);
    expect(twoProportionWorseP(0, 10, 0, 10)).toBe(1);
  });
});
