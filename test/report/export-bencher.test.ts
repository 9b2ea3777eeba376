import { describe, expect, it } from "vitest";
import { metricNames } from "../../src/config/metric-names.js";
import { bencherMeasure } from "../../src/report/export-bencher.js";

describe("Bencher measure names", () => {
  it("name a token count's unit", () => {
    expect(bencherMeasure("output_tokens_mean")).toBe("output-tokens-mean-tokens");
    expect(bencherMeasure("ttft_p95")).toBe("ttft-p95-ms");
  });

  it("end in a unit slug for every metric of the catalogue, within Bencher's 64 characters", () => {
    for (const metric of metricNames) {
      expect(bencherMeasure(metric)).toMatch(
        /^[a-z0-9]+(-[a-z0-9]+)*-(ms|req-s|sessions-s|tok-s|fraction|tokens)$/,
      );
      expect(bencherMeasure(metric).length).toBeLessThanOrEqual(64);
      expect(bencherMeasure(metric)).not.toContain("undefined");
    }
  });

  it("are distinct: no two metrics of the catalogue share a measure", () => {
    const measures = metricNames.map(bencherMeasure);
    expect(new Set(measures).size).toBe(metricNames.length);
  });
});
