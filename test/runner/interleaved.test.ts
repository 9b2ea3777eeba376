import { describe, expect, it } from "vitest";
import { alternatingBlocks, alternatingOrder } from "../../src/runner/interleaved.js";

describe("alternatingOrder", () => {
  it("flips the order of the sides with every pair", () => {
    expect([0, 1, 2, 3].map((pair) => alternatingOrder(pair, ["A", "B"]).join(""))).toEqual([
      "AB",
      "BA",
      "AB",
      "BA",
    ]);
  });
});

describe("alternatingBlocks", () => {
  it("merges consecutive runs of a side: R pairs need R + 1 blocks, in the same order of runs", () => {
    const blocks = alternatingBlocks(0, 4, ["A", "B"]);
    expect(blocks.map((b) => `${b.side}${b.firstRun}+${b.runs}`)).toEqual([
      "A0+1",
      "B0+2",
      "A1+2",
      "B2+2",
      "A3+1",
    ]);
    const order = blocks.flatMap((b) =>
      Array.from({ length: b.runs }, (_, i) => `${b.side}${b.firstRun + i}`),
    );
    expect(order).toEqual(
      [0, 1, 2, 3].flatMap((pair) => alternatingOrder(pair, ["A", "B"]).map((side) => `${side}${pair}`)),
    );
    for (const pairs of [1, 2, 3, 5, 10])
      expect(alternatingBlocks(0, pairs, ["A", "B"])).toHaveLength(pairs + 1);
    // A later look continues the order where the last one stopped.
    expect(alternatingBlocks(3, 2, ["A", "B"]).map((b) => `${b.side}${b.firstRun}+${b.runs}`)).toEqual([
      "B3+1",
      "A3+2",
      "B4+1",
    ]);
  });

  it("with a start per group, merges nothing: every run its own block (start), the order and balance kept", () => {
    const fresh = { runsPerGroup: 1, startEachGroup: true };
    const blocks = alternatingBlocks(0, 4, ["A", "B"], fresh);
    expect(blocks.map((b) => `${b.side}${b.firstRun}+${b.runs}`)).toEqual([
      "A0+1",
      "B0+1",
      "B1+1",
      "A1+1",
      "A2+1",
      "B2+1",
      "B3+1",
      "A3+1",
    ]);
    // The same runs in the same order as the merged schedule: only the starts differ (2R instead of R + 1).
    const order = (list: typeof blocks) =>
      list.flatMap((b) => Array.from({ length: b.runs }, (_, i) => `${b.side}${b.firstRun + i}`));
    expect(order(blocks)).toEqual(order(alternatingBlocks(0, 4, ["A", "B"], 1)));
    for (const runs of [1, 5, 25])
      expect(alternatingBlocks(0, runs, ["A", "B"], fresh)).toHaveLength(2 * runs);
    // A later look continues the order; groups of 5 with a start each: A5 | B5 | B5 | A5.
    expect(alternatingBlocks(3, 2, ["A", "B"], fresh).map((b) => `${b.side}${b.firstRun}`)).toEqual([
      "B3",
      "A3",
      "A4",
      "B4",
    ]);
    expect(
      alternatingBlocks(0, 10, ["A", "B"], { runsPerGroup: 5, startEachGroup: true }).map(
        (b) => `${b.side}${b.firstRun}+${b.runs}`,
      ),
    ).toEqual(["A0+5", "B0+5", "B5+5", "A5+5"]);
  });

  it("in blocks of 5 runs per side: 20 runs are A5 B10 A10 B10 A5, balanced like A B B A", () => {
    const blocks = alternatingBlocks(0, 20, ["A", "B"], 5);
    expect(blocks.map((b) => `${b.side}${b.firstRun}+${b.runs}`)).toEqual([
      "A0+5",
      "B0+10",
      "A5+10",
      "B10+10",
      "A15+5",
    ]);
    // ⌈R / k⌉ + 1 blocks (server starts per cell); k = 1 gives R + 1.
    for (const [runs, expected] of [
      [1, 2],
      [5, 2],
      [6, 3],
      [10, 3],
      [25, 6],
    ] as const)
      expect(alternatingBlocks(0, runs, ["A", "B"], 5)).toHaveLength(expected);
    expect(alternatingBlocks(0, 20, ["A", "B"], 1)).toHaveLength(21);
    // Against linear drift: over every 2k runs the mean position (time) of A and B is equal.
    const position = (side: string) => {
      let t = 0;
      let sum = 0;
      for (const b of blocks) for (let i = 0; i < b.runs; i++, t++) if (b.side === side) sum += t;
      return sum / 20;
    };
    expect(position("A")).toBe(position("B"));
    // Later looks continue the groups: runs 5..9 are group 1 (B first), and a look that cuts a group
    // keeps that group's order.
    expect(alternatingBlocks(5, 5, ["A", "B"], 5).map((b) => `${b.side}${b.firstRun}+${b.runs}`)).toEqual([
      "B5+5",
      "A5+5",
    ]);
    expect(alternatingBlocks(3, 4, ["A", "B"], 5).map((b) => `${b.side}${b.firstRun}+${b.runs}`)).toEqual([
      "A3+2",
      "B3+4",
      "A5+2",
    ]);
  });
});
