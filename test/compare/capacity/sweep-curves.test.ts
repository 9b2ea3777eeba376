import { describe, expect, it } from "vitest";
import { compareAndRender } from "../../../src/app/compare.js";
import { sweepCurves } from "../../../src/compare/capacity/sweep-curves.js";
import { settingsFromConfig } from "../../../src/compare/index.js";
import { configSchema } from "../../../src/config/schema.js";
import type { RunRecord } from "../../../src/metrics/run-record.js";

/** Run records of one cell at these loads (two runs each), TTFT p95 = 10 ms x load x scale. */
function runs(
  cell: string,
  loads: readonly number[],
  dimension: "rate" | "concurrency",
  scale = 1,
  exclude: number[] = [],
): RunRecord[] {
  return loads.flatMap((load, i) =>
    [0.98, 1.02].map((jitter, k) => ({
      source: `${cell}/${load}/${k}`,
      cell,
      run: i * 2 + k,
      startedAt: null,
      metrics: {
        ttft_p95: 10 * load * scale * jitter,
        e2el_p95: 100 * load * scale * jitter,
        request_throughput: load * jitter,
        output_throughput: 8 * load * jitter,
        error_rate: 0,
      },
      requests: { total: 50, completed: 50, failed: 0 },
      fingerprint: {},
      exclusionReasons: exclude.includes(i * 2 + k) ? ["client-bound"] : [],
      load:
        dimension === "rate"
          ? { targetRate: load, targetConcurrency: 64 }
          : { targetRate: null, targetConcurrency: load },
    })),
  );
}

describe("sweepCurves", () => {
  it("finds a cell run at several loads, in the dimension that varies, from usable runs only", () => {
    const [rate] = sweepCurves(runs("a", [1, 2, 4], "rate"), runs("a", [1, 2, 4], "rate", 2, [0, 1]));
    expect(rate!.dimension).toBe("rate");
    expect(rate!.curve.baseline.map((p) => [p.load, p.runs, p.ttftMs])).toEqual([
      [1, 2, 10],
      [2, 2, 20],
      [4, 2, 40],
    ]);
    // The candidate's two runs at load 1 are client-bound: not drawn.
    expect(rate!.curve.candidate.map((p) => p.load)).toEqual([2, 4]);
    expect(rate!.curve.candidate[0]!.e2elMs).toBeCloseTo(400, 9);
    const [concurrency] = sweepCurves(runs("c", [1, 8], "concurrency"), runs("c", [1, 8], "concurrency"));
    expect(concurrency!.dimension).toBe("concurrency");
    expect(concurrency!.slo).toEqual({});
  });

  it("is not a sweep at one load, nor for a stages cell of the config, nor without two points a side", () => {
    expect(sweepCurves(runs("a", [2], "rate"), runs("a", [2], "rate"))).toEqual([]);
    const hint = [{ name: "a", load: { type: "stages" as const } }];
    expect(sweepCurves(runs("a", [1, 2], "rate"), runs("a", [1, 2], "rate"), hint)).toEqual([]);
    // Two loads over both sides together, but one point a side.
    expect(sweepCurves(runs("a", [1], "rate"), runs("a", [2], "rate"))).toEqual([]);
    // The config's dimension wins: a rate cell whose runs only varied in concurrency is not a sweep.
    const rateHint = [{ name: "c", load: { type: "rate" as const } }];
    expect(sweepCurves(runs("c", [1, 8], "concurrency"), runs("c", [1, 8], "concurrency"), rateHint)).toEqual(
      [],
    );
  });

  it("takes the SLOs from the config and leaves capacity cells to the capacity stage", () => {
    const config = configSchema.parse({
      version: 1,
      server: { kind: "sim" },
      model: { name: "m" },
      cells: [
        {
          name: "sw",
          dataset: { type: "synthetic", input_tokens: 8, output_tokens: 8 },
          load: { type: "rate", rate: 1 },
          size: { requests: 50 },
          slo: { ttft_ms: 25 },
          sweep: { loads: [1, 2, 4], runs: 2 },
        },
        {
          name: "cap",
          dataset: { type: "synthetic", input_tokens: 8, output_tokens: 8 },
          load: { type: "rate", rate: 1 },
          size: { requests: 50 },
          slo: { ttft_ms: 25 },
          capacity: { range: { min: 1, max: 4 } },
        },
      ],
    });
    const outcome = compareAndRender({
      baseline: [...runs("sw", [1, 2, 4], "rate"), ...runs("cap", [1, 2, 4], "rate")],
      candidate: [...runs("sw", [1, 2, 4], "rate", 1.2), ...runs("cap", [1, 2, 4], "rate", 1.2)],
      settings: settingsFromConfig(config),
      mode: "interleaved",
    });
    expect(outcome.verdict.sweeps!.map((s) => [s.cell, s.slo])).toEqual([["sw", { ttft_ms: 25 }]]);
    expect(outcome.verdict.capacity!.map((c) => c.cell)).toEqual(["cap"]);
  });
});
