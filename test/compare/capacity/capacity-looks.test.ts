import { describe, expect, it } from "vitest";
import { capacityCells, searchSettingsOf } from "../../../src/compare/capacity/capacity.js";
import {
  capacityLookLevel,
  capacityLooks,
  capacityMaxRuns,
} from "../../../src/compare/capacity/capacity-looks.js";
import { compareRecords, settingsFromConfig } from "../../../src/compare/index.js";
import { configSchema } from "../../../src/config/schema.js";
import type { RunRecord } from "../../../src/metrics/run-record.js";
import { capacityCell, doublingCapacityRuns } from "./capacity-fixtures.js";

function configWith(capacity: Record<string, unknown> = {}) {
  return configSchema.parse({
    version: 1,
    server: { kind: "sim" },
    model: { name: "m" },
    cells: [capacityCell({ capacity })],
  });
}

/** Two runs per load 1..4 (./capacity-fixtures.ts). */
const side = (scale: number, name: string): RunRecord[] => doublingCapacityRuns(scale, name);

const compare = (
  config: ReturnType<typeof configWith>,
  baseline: RunRecord[],
  candidate: RunRecord[],
  mode: "interleaved" | "stored",
) =>
  compareRecords({ baseline, candidate, settings: settingsFromConfig(config), mode, now: new Date(0) })
    .verdict;

describe("the capacity verdict's looks", () => {
  it("are repeats.max and capacity.max_runs (default twice repeats.max), never below repeats.max", () => {
    const cells = capacityCells(configWith());
    expect(capacityMaxRuns(25, cells[0]!)).toBe(50);
    expect(capacityLooks(25, cells)).toEqual([25, 50]);
    expect(capacityLooks(25, capacityCells(configWith({ max_runs: 40 })))).toEqual([25, 40]);
    expect(capacityLooks(25, capacityCells(configWith({ max_runs: 10 })))).toEqual([25]);
  });

  it("spend the family level over the two looks by their runs, the gate's rule", () => {
    const cells = capacityCells(configWith());
    const first = capacityLookLevel(0.05, [25, 50], cells, side(1, "c"), "interleaved");
    const second = capacityLookLevel(
      0.05,
      [25, 50],
      cells,
      Array.from({ length: 7 }, () => side(1, "c")).flat(),
      "interleaved",
    );
    expect(first).toBeCloseTo((0.05 * 25) / 75, 12);
    expect(second).toBeCloseTo((0.05 * 50) / 75, 12);
    expect(first + second).toBeCloseTo(0.05, 12);
  });

  it("ask for the next look when the capacity verdict is inconclusive: the searches refine on to max_runs", () => {
    const config = configWith();
    // A candidate about 5% lower: its interval straddles the tolerance.
    const verdict = compare(config, side(1, "b"), side(1.09, "c"), "interleaved");
    expect(verdict.capacity![0]!.verdict).toBe("inconclusive");
    expect(verdict.verdict).toBe("inconclusive");
    expect(verdict.nextLook).toMatchObject({
      runsPerSide: 50,
      addCandidateRuns: 42,
      addBaselineRuns: 42,
      cells: ["cap"],
    });
    expect(verdict.nextLook!.reason).toContain("capacity of cap inconclusive at 8 candidate runs");
    // A stored baseline is not re-run: only the candidate's search goes on.
    expect(compare(config, side(1, "b"), side(1.09, "c"), "stored").nextLook).toMatchObject({
      addCandidateRuns: 42,
      addBaselineRuns: 0,
    });
    // At the last look nothing more is asked for.
    const last = compare(configWith({ max_runs: 8 }), side(1, "b"), side(1.09, "c"), "interleaved");
    expect(last.capacity![0]!.verdict).toBe("inconclusive");
    expect(last.nextLook).toBeNull();
  });

  it("ask for nothing once the capacity verdict is decided", () => {
    const verdict = compare(configWith(), side(1, "b"), side(2, "c"), "interleaved");
    expect(verdict.verdict).toBe("regression");
    expect(verdict.nextLook).toBeNull();
  });

  it("resume a search to the look's runs, at most max_runs", () => {
    const config = configWith({ max_runs: 40 });
    const cell = capacityCells(config)[0]!;
    expect(searchSettingsOf(config, cell)).toMatchObject({ maxRuns: 25 });
    expect(searchSettingsOf(config, cell).minRuns).toBeUndefined();
    expect(searchSettingsOf(config, cell, 30)).toMatchObject({ maxRuns: 30, minRuns: 30 });
    expect(searchSettingsOf(config, cell, 60)).toMatchObject({ maxRuns: 40, minRuns: 60 });
    // A target below repeats.max (a fixed-load cell's look) still lets an unfinished search reach it.
    expect(searchSettingsOf(config, cell, 10)).toMatchObject({ maxRuns: 25, minRuns: 10 });
  });
});
