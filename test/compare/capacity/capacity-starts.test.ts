import { describe, expect, it } from "vitest";
import { capacityCells, compareCapacity } from "../../../src/compare/capacity/capacity.js";
import { configSchema } from "../../../src/config/schema.js";
import type { RunRecord } from "../../../src/metrics/run-record.js";
import { crossingDeviations } from "../../../src/stats/capacity.js";
import { mulberry32 } from "../../../src/util/random.js";
import { capacityCell } from "./capacity-fixtures.js";

/**
 * The server-start level of the capacity checks (docs/capacity.md, "Server starts"): a capacity search's
 * runs share the server start that measured them, and a start's speed moves the whole curve.
 */

const config = configSchema.parse({
  version: 1,
  server: { kind: "sim" },
  model: { name: "m" },
  cells: [capacityCell({ capacity: { range: { min: 1, max: 2 } } })],
});

/** Loads crowded round the knee, two runs each, as a search measures them. */
const loads = [1.2, 1.3, 1.4, 1.45, 1.5, 1.55, 1.6, 1.7, 1.8, 1.9];

/**
 * A side's capacity runs: TTFT p95 = 100·e^{2(load/speed − 1)} ms (the SLO of 300 ms crossed at
 * load 1.549·speed), each run jittered by `runSd` (ln scale), every run of the list `starts[i]` on start
 * i with speed `speeds[i]`.
 */
function searchRuns(
  name: string,
  speeds: readonly number[],
  runSd: number,
  seed: number,
  options: { recordStarts?: boolean } = {},
): RunRecord[] {
  const random = mulberry32(seed);
  const runs: RunRecord[] = [];
  speeds.forEach((speed, s) => {
    loads.forEach((load, i) => {
      for (let k = 0; k < 2; k++) {
        const jitter = Math.exp(runSd * (random() * 2 - 1) * Math.sqrt(3));
        const index = runs.length;
        runs.push({
          source: `${name}/${s}/${i}/${k}`,
          cell: "cap",
          run: index,
          startedAt: null,
          metrics: {
            ttft_p95: 100 * Math.exp(2 * (load / speed - 1)) * jitter,
            error_rate: 0,
            request_throughput: load,
          },
          requests: { total: 100, completed: 100, failed: 0 },
          fingerprint: {},
          exclusionReasons: [],
          load: { targetRate: load, targetConcurrency: null },
          ...(options.recordStarts === false
            ? {}
            : { serverStart: { id: `${name}-start-${s}`, basis: "recorded" as const } }),
        });
      }
    });
  });
  return runs;
}

const compare = (baseline: RunRecord[], candidate: RunRecord[], gate = config.gate) =>
  compareCapacity({
    cells: capacityCells(config),
    baseline,
    candidate,
    gate,
    cost: config.cost,
    resamples: 400,
  })[0]!;

describe("capacity checks with server starts", () => {
  it("do not read an A/A whose sides each had one start as a change when the starts differ", () => {
    // One start a side, runs agreeing within 0.3%, the candidate's start 2% slower: the same server.
    const baseline = searchRuns("b", [1], 0.003, 1);
    const candidate = searchRuns("c", [0.98], 0.003, 2);
    const check = compare(baseline, candidate);
    expect(check.ratio).toBeCloseTo(0.98, 2);
    // The start level is the prior's (one start a side cannot show it), and it widens the interval to
    // hold no change; read as independent runs the interval is ±0.5% and excludes it.
    expect(check.noise).toMatchObject({
      starts: { baseline: 1, candidate: 1 },
      startBasis: "prior",
      priorSource: "gate.noise_prior.throughput",
    });
    expect(check.noise!.startSd).toBeCloseTo(0.01, 9);
    expect(check.ci![0]).toBeLessThan(1);
    expect(check.ci![1]).toBeGreaterThan(1);
    const asIndependent = compare(
      searchRuns("b", [1], 0.003, 1, { recordStarts: false }),
      searchRuns("c", [0.98], 0.003, 2, { recordStarts: false }),
    );
    expect(asIndependent.noise!.startBasis).toBe("fresh");
    expect(asIndependent.ci![1]).toBeLessThan(1);
  });

  it("measure the start level from several starts a side and pool it with the prior", () => {
    // Three starts a side whose speeds spread by about 4%: well beyond the 1% prior.
    const baseline = searchRuns("b", [1.04, 0.97, 1.0], 0.003, 3);
    const candidate = searchRuns("c", [0.96, 1.03, 1.0], 0.003, 4);
    const check = compare(baseline, candidate);
    expect(check.noise!.starts).toEqual({ baseline: 3, candidate: 3 });
    expect(["measured", "measured+prior"]).toContain(check.noise!.startBasis);
    expect(check.noise!.startSd).toBeGreaterThan(0.02);
    // 4 df of the prior beside 4 of the starts (G − 1 a side).
    expect(check.noise!.startDf).toBeGreaterThanOrEqual(4);
    expect(check.verdict).not.toBe("regression");
  });

  it("reads a start's speed as the same shift at every run near the crossing", () => {
    const objectives = [{ name: "ttft_p95", threshold: 300, scale: "log" as const }];
    const runs = searchRuns("b", [1.03, 0.97], 0, 5).map((run) => ({
      load: run.load!.targetRate!,
      values: [run.metrics.ttft_p95 ?? null],
      start: run.serverStart!.id,
    }));
    const deviations = crossingDeviations(runs, objectives)!;
    const byStart = new Map<string, number[]>();
    deviations.values.forEach((value, i) => {
      byStart.set(deviations.starts[i]!, [...(byStart.get(deviations.starts[i]!) ?? []), value]);
    });
    const means = [...byStart.values()].map((v) => v.reduce((a, b) => a + b, 0) / v.length);
    // The slower start behaved like a higher load by about ln(1.03/0.97) ≈ 6% over the faster.
    expect(Math.abs(means[0]! - means[1]!)).toBeCloseTo(Math.log(1.03 / 0.97), 1);
  });

  it("carry no prior of their own when gate.noise_prior.weight_starts is 0", () => {
    const gate = {
      ...config.gate,
      noise_prior: { ...config.gate.noise_prior, weight_starts: 0 },
    };
    const check = compare(searchRuns("b", [1], 0.003, 1), searchRuns("c", [0.98], 0.003, 2), gate);
    expect(check.noise!.startBasis).toBe("none");
    expect(check.ci![1]).toBeLessThan(1);
  });
});
