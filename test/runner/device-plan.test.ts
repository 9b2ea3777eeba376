import { describe, expect, it } from "vitest";
import { type DevicePlan, planDevices, type SideWork } from "../../src/runner/device-plan.js";
import { alternatingBlocks } from "../../src/runner/interleaved.js";

type Side = "baseline" | "candidate";
const sides: Side[] = ["baseline", "candidate"];

function work(
  cells: { name: string; minutes: number }[],
  firstRun: number,
  runs: number,
  stepSides: readonly Side[] = sides,
): SideWork<Side>[] {
  return cells.flatMap((cell) =>
    stepSides.map((side) => ({
      cell: cell.name,
      side,
      firstRun,
      runs,
      minutesPerRun: cell.minutes,
      serverGroup: side,
    })),
  );
}

/** Every (side, cell, run) the plan measures, with the device it runs on, in the order of each device. */
function measured(plan: DevicePlan<Side>): { device: number; side: Side; cell: string; run: number }[] {
  return plan.devices.flatMap((timeline) =>
    timeline.blocks.flatMap((block) =>
      block.runs.flatMap((runs) =>
        Array.from({ length: runs.runs }, (_, i) => ({
          device: timeline.device,
          side: block.side,
          cell: runs.cell,
          run: runs.firstRun + i,
        })),
      ),
    ),
  );
}

/** The options of a per-side step on these devices (3 minutes a start, blocks of 5). */
const onDevices = (devices: number[], extra: { splitCells?: boolean } = {}) => ({
  devices,
  sides,
  startMinutes: 3,
  runsPerBlock: 5,
  lifecycle: "per-side" as const,
  ...extra,
});

const threeCells = [
  { name: "a", minutes: 2 },
  { name: "b", minutes: 1 },
  { name: "c", minutes: 4 },
];

describe("planDevices on one device", () => {
  it("is alternatingBlocks over every cell, and counts starts as the lifecycle makes them", () => {
    for (const [firstRun, runs, block] of [
      [0, 3, 5],
      [0, 5, 5],
      [5, 5, 5],
      [3, 4, 5],
      [0, 20, 5],
      [0, 4, 1],
      [2, 3, 1],
    ] as const) {
      const options = { devices: [0], sides, startMinutes: 3, runsPerBlock: block };
      const expected = alternatingBlocks(firstRun, runs, sides, block);
      const perSide = planDevices(work(threeCells, firstRun, runs), { ...options, lifecycle: "per-side" });
      const blocks = perSide.devices[0]!.blocks;
      expect(blocks.map((b) => b.side)).toEqual(expected.map((b) => b.side));
      for (const [i, b] of blocks.entries()) {
        expect(b.runs.map((r) => [r.cell, r.firstRun, r.runs])).toEqual(
          threeCells.map((cell) => [cell.name, expected[i]!.firstRun, expected[i]!.runs]),
        );
      }
      // per-side: one start per block; per-cell: one per cell and block; per-run: one per run.
      expect(perSide.serverStarts).toBe(expected.length);
      const perCell = planDevices(work(threeCells, firstRun, runs), { ...options, lifecycle: "per-cell" });
      expect(perCell.serverStarts).toBe(3 * expected.length);
      const perRun = planDevices(work(threeCells, firstRun, runs), { ...options, lifecycle: "per-run" });
      expect(perRun.serverStarts).toBe(3 * 2 * runs);
      // One device: the wall-clock is every start and every run, one after the other.
      const runMinutes = 2 * runs * (2 + 1 + 4);
      expect(perSide.wallClockMinutes).toBeCloseTo(runMinutes + 3 * expected.length, 9);
      expect(perSide.gpuMinutes).toBeCloseTo(perSide.wallClockMinutes, 9);
      expect(perSide.reservedGpuMinutes).toBeCloseTo(perSide.wallClockMinutes, 9);
    }
  });

  it("with a start per group, every group of a side is a block and a start of its own", () => {
    const fresh = { devices: [0], sides, startMinutes: 3, runsPerBlock: 1, startEachGroup: true };
    for (const [firstRun, runs] of [
      [0, 5],
      [5, 5],
      [3, 4],
    ] as const) {
      const expected = alternatingBlocks(firstRun, runs, sides, { runsPerGroup: 1, startEachGroup: true });
      const perSide = planDevices(work(threeCells, firstRun, runs), { ...fresh, lifecycle: "per-side" });
      expect(perSide.devices[0]!.blocks.map((b) => [b.side, b.runs[0]!.firstRun, b.runs[0]!.runs])).toEqual(
        expected.map((b) => [b.side, b.firstRun, b.runs]),
      );
      expect(perSide.serverStarts).toBe(2 * runs);
      expect(
        planDevices(work(threeCells, firstRun, runs), { ...fresh, lifecycle: "per-cell" }).serverStarts,
      ).toBe(3 * 2 * runs);
    }
    // One side asked for a start per group (a side of an interleaved comparison measured alone): a
    // start per run; without it, one block.
    const alone = { ...fresh, sides: ["candidate"] as Side[], lifecycle: "per-side" as const };
    const oneSide = planDevices(work(threeCells, 0, 10, ["candidate"]), alone);
    expect(oneSide.serverStarts).toBe(10);
    expect(oneSide.devices[0]!.blocks.map((b) => b.runs[0]!.firstRun)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    const shared = planDevices(work(threeCells, 0, 10, ["candidate"]), { ...alone, startEachGroup: false });
    expect(shared.serverStarts).toBe(1);
  });

  it("a stored or baseline step (one side) is one block: one start per side, or per cell", () => {
    const options = { devices: [0], sides: ["candidate"] as Side[], startMinutes: 3, runsPerBlock: 5 };
    const stepWork = work(threeCells, 0, 10, ["candidate"]);
    const perSide = planDevices(stepWork, { ...options, lifecycle: "per-side" });
    expect(perSide.devices[0]!.blocks).toHaveLength(1);
    expect(perSide.serverStarts).toBe(1);
    expect(planDevices(stepWork, { ...options, lifecycle: "per-cell" }).serverStarts).toBe(3);
  });

  it("cells that need different servers do not share a start under per-side", () => {
    const stepWork = work(threeCells, 0, 3).map((entry) =>
      entry.cell === "b" ? { ...entry, serverGroup: `${entry.side}-other-flags` } : entry,
    );
    const plan = planDevices(stepWork, onDevices([0]));
    // a | b | c: three runs of consecutive cells with one group each, in each of the two blocks.
    expect(plan.devices[0]!.blocks.map((block) => block.serverStarts)).toEqual([3, 3]);
  });
});

describe("planDevices on several devices", () => {
  const matrixLike = Array.from({ length: 19 }, (_, i) => ({ name: `cell-${i}`, minutes: 1 + (i % 6) }));

  it("measures every run of every side exactly once", () => {
    const plan = planDevices(work(matrixLike, 0, 3), onDevices([0, 1, 2, 3, 4, 5, 6, 7]));
    const keys = measured(plan).map((run) => `${run.side}/${run.cell}/${run.run}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual(
      sides
        .flatMap((side) =>
          matrixLike.flatMap((cell) => [0, 1, 2].map((run) => `${side}/${cell.name}/${run}`)),
        )
        .sort(),
    );
  });

  it("crossover: each device measures both sides of every cell it holds equally often", () => {
    for (const devices of [[0, 1], [0, 1, 2, 3], [4, 5, 6, 7, 0, 1, 2, 3], [3]]) {
      for (const runs of [1, 3, 5, 7]) {
        const plan = planDevices(work(matrixLike, 0, runs), {
          devices,
          sides,
          startMinutes: 3,
          runsPerBlock: 5,
          lifecycle: "per-side",
        });
        const count = new Map<string, number>();
        for (const run of measured(plan)) {
          const key = `${run.device}/${run.cell}`;
          count.set(key, (count.get(key) ?? 0) + (run.side === "baseline" ? 1 : -1));
        }
        for (const balance of count.values()) expect(balance).toBe(0);
      }
    }
  });

  it("half the devices start with each side, so both sides are measured at once", () => {
    const plan = planDevices(work(matrixLike, 0, 3), onDevices([0, 1, 2, 3]));
    expect(plan.devices.map((timeline) => timeline.blocks[0]!.side)).toEqual([
      "baseline",
      "candidate",
      "baseline",
      "candidate",
    ]);
  });

  it("balances the devices: the wall-clock is near the total over the devices", () => {
    const devices = [0, 1, 2, 3, 4, 5, 6, 7];
    const plan = planDevices(work(matrixLike, 0, 3), {
      devices,
      sides,
      startMinutes: 3,
      runsPerBlock: 5,
      lifecycle: "per-side",
    });
    const runMinutes = 2 * 3 * matrixLike.reduce((sum, cell) => sum + cell.minutes, 0);
    // Every device used, each with its two starts (A then B).
    expect(plan.serverStarts).toBe(16);
    expect(plan.gpuMinutes).toBeCloseTo(runMinutes + 16 * 3, 9);
    const fair = runMinutes / devices.length + 2 * 3;
    expect(plan.wallClockMinutes).toBeGreaterThanOrEqual(fair - 1e-9);
    // Within one run of the longest cell on both sides of the fair share.
    expect(plan.wallClockMinutes).toBeLessThanOrEqual(fair + 2 * 6);
    expect(plan.reservedGpuMinutes).toBeCloseTo(8 * plan.wallClockMinutes, 9);
  });

  it("keeps a cell on one device unless asked to split it", () => {
    const plan = planDevices(work([{ name: "long", minutes: 8 }], 0, 4), onDevices([0, 1, 2, 3]));
    expect(plan.devices.map((timeline) => timeline.blocks.length)).toEqual([2, 0, 0, 0]);
  });

  it("splitCells: a cell longer than a device's share goes over devices in run ranges, both sides on each", () => {
    const plan = planDevices(
      work([{ name: "long", minutes: 8 }], 0, 4),
      onDevices([0, 1, 2, 3], { splitCells: true }),
    );
    expect(
      plan.devices.map((timeline) =>
        timeline.blocks.map(
          (block) => `${block.side}:${block.runs.map((r) => `${r.firstRun}+${r.runs}`).join(",")}`,
        ),
      ),
    ).toEqual([
      ["baseline:0+1", "candidate:0+1"],
      ["candidate:1+1", "baseline:1+1"],
      ["baseline:2+1", "candidate:2+1"],
      ["candidate:3+1", "baseline:3+1"],
    ]);
    expect(plan.wallClockMinutes).toBeCloseTo(2 * 3 + 2 * 8, 9);
  });

  it("leaves devices idle when there is less work than devices", () => {
    const plan = planDevices(work([{ name: "one", minutes: 1 }], 0, 1), onDevices([0, 1, 2]));
    expect(plan.devices.map((timeline) => timeline.blocks.length)).toEqual([2, 0, 0]);
    expect(plan.serverStarts).toBe(2);
    expect(plan.reservedGpuMinutes).toBeCloseTo(3 * plan.wallClockMinutes, 9);
  });

  it("refuses no devices, a device listed twice and an unknown side", () => {
    const options = { sides, startMinutes: 3, runsPerBlock: 5, lifecycle: "per-side" as const };
    expect(() => planDevices(work(threeCells, 0, 1), { ...options, devices: [] })).toThrow(
      /at least one device/,
    );
    expect(() => planDevices(work(threeCells, 0, 1), { ...options, devices: [1, 1] })).toThrow(/twice/);
    expect(() =>
      planDevices(work(threeCells, 0, 1), { ...options, devices: [0], sides: ["candidate"] as Side[] }),
    ).toThrow(/not one of/);
  });
});
