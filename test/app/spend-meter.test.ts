import { describe, expect, it } from "vitest";
import {
  type DeviceBlock,
  measureOnDevices,
  planStep,
  spendMeter,
} from "../../src/app/measure-on-devices.js";
import { parseConfigText } from "../../src/config/load.js";

/**
 * A pull request's budget is a ceiling on what is measured, not only on what is planned: blocks are
 * metered on the job's clock, and a block whose planned length would take the spend past the budget is
 * not started (runs slower than estimated cannot carry a job past its budget).
 */
const { config } = parseConfigText(
  `version: 1
server: { kind: sim, profile: noiseless }
model: { name: sim-model }
cost: { server_start_s: 60 }
cells:
  - name: a
    dataset: { type: synthetic, input_tokens: 16, output_tokens: 24 }
    load: { type: concurrency, concurrency: 1 }
    size: { requests: 12 }
repeats: { min: 4, max: 4, block: 1 }
`,
  "gate.yml",
);

describe("the spend meter", () => {
  it("starts no block that would take the spend past the budget, on the job's clock", async () => {
    const sides = [
      { side: "baseline" as const, config },
      { side: "candidate" as const, config },
    ];
    const step = { firstRun: 0, runs: 4, cells: null };
    const plan = planStep({ sides, step, config });
    const blocks = plan.devices[0]!.blocks;
    expect(blocks.length).toBe(5);
    // Every block takes twice its planned length on the clock (a slower GPU than estimated).
    let clock = 0;
    const planned = blocks.map((b) => b.endAt - b.startAt);
    const limit = 2 * (planned[0]! + planned[1]!) + planned[2]! / 2;
    const meter = spendMeter(limit, () => clock);
    const cuts: number[] = [];
    meter.onCut = (plannedMinutes) => cuts.push(plannedMinutes);
    const measured: DeviceBlock[] = [];
    let index = 0;
    await measureOnDevices({
      sides,
      step,
      config,
      budget: meter,
      measureBlock: async (_side, block) => {
        measured.push(block);
        clock += 2 * planned[index++]! * 60_000;
      },
    });
    // Two blocks fit (4x their plan's minutes spent); the third would pass the limit and is not started.
    expect(measured).toHaveLength(2);
    expect(meter.spentMinutes).toBeCloseTo(2 * (planned[0]! + planned[1]!), 9);
    expect(meter.spentMinutes).toBeLessThanOrEqual(limit);
    expect(cuts).toEqual([planned[2]]);
    expect(meter.inFlightMinutes).toBeCloseTo(0, 12);
  });

  it("without a budget every block is measured", async () => {
    const sides = [{ side: "candidate" as const, config }];
    const step = { firstRun: 0, runs: 4, cells: null };
    let calls = 0;
    await measureOnDevices({
      sides,
      step,
      config,
      measureBlock: async () => {
        calls++;
      },
    });
    expect(calls).toBe(planStep({ sides, step, config }).devices[0]!.blocks.length);
  });
});
