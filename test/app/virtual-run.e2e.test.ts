import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runCellVirtually } from "../../src/app/virtual-run.js";
import { loadConfig } from "../../src/config/load.js";
import { applyOverrides, builtInProfile } from "../../src/sim/index.js";

// gpu-shaped, with room for the rag cells' 4,000-8,000-token prompts (as bench/schedule.ts runs it).
const profile = applyOverrides(
  builtInProfile("gpu-shaped"),
  { max_model_len: 16384, num_gpu_blocks: 16384 },
  "test",
);

describe("the idle-elided schedule on the simulator's engine (virtual time), matrix-18's low cells", () => {
  it("gives every gated metric of the real-time schedule in a fraction of the wall-clock", async () => {
    const { config } = await loadConfig(resolve(import.meta.dirname, "../../examples/matrix-18.yml"), {
      env: {},
    });
    const tolerance = config.gate.tolerance;
    for (const [name, wallShare] of [
      ["chat-fresh-low", 0.85],
      ["rag-reuse-low", 0.5],
    ] as const) {
      const cell = config.cells.find((candidate) => candidate.name === name)!;
      for (const seed of [1, 2]) {
        const seeded = { ...config, seed };
        const real = await runCellVirtually({
          config: seeded,
          cell,
          profile,
          serverSeed: seed,
          schedule: { kind: "real-time", reason: "configured" },
        });
        // The config's own schedule: idle gaps elided (the default), settle 100 ms.
        const elided = await runCellVirtually({ config: seeded, cell, profile, serverSeed: seed });
        expect(real.elidedS).toBe(0);
        expect(elided.wallClockS).toBeLessThan(wallShare * real.wallClockS);
        // Same duration on the schedule's timeline, and the gated metrics within a tenth of the tolerance.
        expect(elided.durationS).toBeCloseTo(real.durationS, 6);
        const pairs = [
          [elided.metrics.latency.ttft.p95, real.metrics.latency.ttft.p95],
          [elided.metrics.latency.tpot.p95, real.metrics.latency.tpot.p95],
          [elided.metrics.latency.e2el.p95, real.metrics.latency.e2el.p95],
          [elided.metrics.throughput.output, real.metrics.throughput.output],
        ];
        for (const [a, b] of pairs) expect(Math.abs(Math.log(a! / b!))).toBeLessThanOrEqual(tolerance / 10);
        expect(elided.metrics.requests.completed).toBe(240);
      }
    }
  });
});
