import { describe, expect, it } from "vitest";
import { virtualCapacity, virtualRun } from "../../bench/sim-capacity.js";
import { applyOverrides, builtInProfile } from "../../src/sim/profile.js";
import type { CapacityRun } from "../../src/stats/capacity.js";
import { nextSearchStep } from "../../src/stats/capacity-plan.js";

/** About 10 ms steps, 8 sequences at once, 16 output tokens: saturates near 47 requests/s. */
const profile = applyOverrides(builtInProfile("small-gpu"), { max_num_seqs: 8, step_overhead_ms: 10 });
const workload = { requests: 100, inputTokens: 64, outputTokens: 16 };
const slo = { ttft_ms: 100, quantile: 0.95 };
const seeds = Array.from({ length: 41 }, (_, i) => i + 1);

describe("a simulator profile's true capacity on virtual time", () => {
  it("scales as time does: a step s times slower serves s times fewer requests at an SLO s times looser", () => {
    // Every step time x s and every gap x s is the same system on a clock s times slower (noiseless
    // profile, same seeds), so capacity_s(T) = capacity_1(T / s) / s.
    const noiseless = applyOverrides(builtInProfile("noiseless"), { max_num_seqs: 8, step_overhead_ms: 10 });
    const slower = applyOverrides(noiseless, { speed_factor: 1.25 });
    const range = { min: 1, max: 200 };
    const atOne = virtualCapacity(noiseless, { ttft_ms: 80, quantile: 0.95 }, workload, range, seeds)!;
    // The range scaled too, so that the bisection visits the same (scaled) rates.
    const scaled = { min: range.min / 1.25, max: range.max / 1.25 };
    const atSlower = virtualCapacity(slower, { ttft_ms: 100, quantile: 0.95 }, workload, scaled, seeds)!;
    expect(Math.abs(atSlower / (atOne / 1.25) - 1)).toBeLessThan(1e-6);
    // At the same SLO the slower step lowers the capacity by more than 1 - 1/1.25 = 20%: the SLO is tighter
    // against its slower baseline latency.
    const sameSlo = virtualCapacity(slower, { ttft_ms: 80, quantile: 0.95 }, workload, range, seeds)!;
    expect(sameSlo).toBeLessThan(atOne / 1.25);
  });

  it("the capacity search over virtual-time runs finds the truth within its interval", () => {
    const truth = virtualCapacity(profile, slo, workload, { min: 1, max: 200 }, seeds)!;
    expect(truth).toBeGreaterThan(30);
    expect(truth).toBeLessThan(50);
    const objectives = [{ name: "ttft_p95", threshold: slo.ttft_ms, scale: "log" as const }];
    let covered = 0;
    const errors: number[] = [];
    for (let search = 0; search < 10; search++) {
      const settings = {
        range: { min: 4, max: 100 },
        initialLoads: 4,
        precision: 0.05,
        maxRuns: 25,
        level: 0.9,
        seed: search,
      };
      const runs: CapacityRun[] = [];
      let step = nextSearchStep(runs, objectives, settings);
      while (step.kind === "measure") {
        // Every run its own seed: its own Poisson arrivals and server speed (speed_sigma), as a new run is.
        for (const load of step.loads)
          runs.push({
            load,
            values: [virtualRun(profile, load, workload, 1000 * search + runs.length, 0.95).ttft],
          });
        step = nextSearchStep(runs, objectives, settings);
      }
      expect(step.estimate?.bound).toBe("inside");
      errors.push(Math.abs(step.estimate!.capacity / truth - 1));
      if (step.interval && step.interval.low <= truth && truth <= step.interval.high) covered++;
    }
    errors.sort((a, b) => a - b);
    // Measured at these seeds: median error 3.3%, 7 of 10 intervals cover the truth (docs/capacity.md);
    // the goals of 3% and 8 of 10 are not met yet, these bounds guard against getting worse.
    expect(errors[4]!).toBeLessThan(0.05);
    expect(covered).toBeGreaterThanOrEqual(6);
  });
});
