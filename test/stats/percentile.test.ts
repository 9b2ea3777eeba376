import { describe, expect, it } from "vitest";
import { percentile } from "../../src/stats/percentile.js";

// Every value below is from statistics.md §8 (computed with numpy 2.4.6 / scipy 1.17.1).
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("numpy linear percentiles (§8)", () => {
  it("1..10", () => {
    const x = range(1, 10);
    expect(percentile(x, 0.5)).toBeCloseTo(5.5, 12);
    expect(percentile(x, 0.9)).toBeCloseTo(9.1, 12);
    expect(percentile(x, 0.95)).toBeCloseTo(9.55, 12);
    expect(percentile(x, 0.99)).toBeCloseTo(9.91, 12);
  });
  it("1..100", () => {
    const x = range(1, 100);
    expect(percentile(x, 0.5)).toBeCloseTo(50.5, 12);
    expect(percentile(x, 0.95)).toBeCloseTo(95.05, 12);
    expect(percentile(x, 0.99)).toBeCloseTo(99.01, 12);
  });
  it("unsorted with an outlier", () => {
    const x = [12, 15.5, 11.2, 30.1, 14.8, 13.3, 90];
    expect(percentile(x, 0.5)).toBeCloseTo(14.8, 12);
    expect(percentile(x, 0.9)).toBeCloseTo(54.06, 10);
    expect(percentile(x, 0.95)).toBeCloseTo(72.03, 10);
    expect(percentile(x, 0.99)).toBeCloseTo(86.406, 10);
  });
  it("1..1000 at p99", () => {
    expect(percentile(range(1, 1000), 0.99)).toBeCloseTo(990.01, 10);
  });
  it("is NaN for no data and rejects q outside [0, 1]", () => {
    expect(percentile([], 0.5)).toBeNaN();
    expect(() => percentile([1], 95)).toThrow(RangeError);
  });
});
