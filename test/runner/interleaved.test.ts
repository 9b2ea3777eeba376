import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  alternatingBlocks,
  alternatingOrder,
  runAdaptive,
  type SideSpec,
} from "../../src/runner/interleaved.js";
import { baseUrlProvider } from "../../src/server/base-url.js";
import type { ServerProvider } from "../../src/server/types.js";
import { type FakeServer, startFakeServer } from "./helpers/fake-openai-server.js";
import { testConfig, tinyCell } from "./helpers/run-config.js";

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

describe("runAdaptive", () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("measures the sides A B, B A, ... and adds runs only while decide asks, up to max", async () => {
    server = await startFakeServer();
    const dir = mkdtempSync(join(tmpdir(), "vpg-adaptive-"));
    const config = testConfig([tinyCell("a")]);
    const starts: string[] = [];
    const recording = (name: string): ServerProvider => {
      const inner = baseUrlProvider({ baseUrl: server!.baseUrl, model: config.model });
      return {
        lifecycle: "per-cell",
        start(context) {
          starts.push(name);
          return inner.start(context);
        },
      };
    };
    const side = (name: SideSpec["name"]): SideSpec => ({
      name,
      config,
      provider: recording(name),
      outDir: join(dir, name),
      baseDir: dir,
    });
    const looks: number[] = [];
    const result = await runAdaptive({
      sides: [side("baseline"), side("candidate")],
      minRuns: 2,
      maxRuns: 4,
      calibrate: false,
      // Inconclusive at 2 runs (asks for 3), still at 3 (asks for 5, capped at the maximum of 4).
      decide: async (runs) => {
        looks.push(runs);
        return runs === 2 ? 3 : 5;
      },
    });
    expect(looks).toEqual([2, 3]);
    expect(result.stoppedBecause).toBe("max-runs");
    expect(result.runsPerSide).toBe(4);
    // One start per block of consecutive same-side runs: A | BB A (look at 2), then A B (3), then B A (4).
    expect(starts).toEqual([
      "baseline",
      "candidate",
      "baseline",
      "baseline",
      "candidate",
      "candidate",
      "baseline",
    ]);
    expect(result.runs.map((run) => `${run.side}/${run.run}`)).toEqual([
      "baseline/0",
      "candidate/0",
      "candidate/1",
      "baseline/1",
      "baseline/2",
      "candidate/2",
      "candidate/3",
      "baseline/3",
    ]);
  });

  it("keeps one server per block: 5 pairs in one look cost 6 starts per cell, not 10", async () => {
    server = await startFakeServer();
    const dir = mkdtempSync(join(tmpdir(), "vpg-adaptive-"));
    const config = testConfig([tinyCell("a"), tinyCell("b")]);
    const starts: string[] = [];
    const side = (name: SideSpec["name"]): SideSpec => {
      const inner = baseUrlProvider({ baseUrl: server!.baseUrl, model: config.model });
      return {
        name,
        config,
        provider: {
          lifecycle: "per-cell",
          start(context) {
            starts.push(`${name}/${context.cell}`);
            return inner.start(context);
          },
        },
        outDir: join(dir, name),
        baseDir: dir,
      };
    };
    const result = await runAdaptive({
      sides: [side("baseline"), side("candidate")],
      minRuns: 5,
      maxRuns: 5,
      calibrate: false,
      decide: async () => null,
    });
    expect(result.runs).toHaveLength(20);
    expect(starts.filter((s) => s.endsWith("/a"))).toHaveLength(6);
    expect(starts.filter((s) => s.endsWith("/b"))).toHaveLength(6);
  });

  it("in blocks of 5 (repeats.block), 10 runs per side in two looks cost 2 starts per look and cell", async () => {
    server = await startFakeServer();
    const dir = mkdtempSync(join(tmpdir(), "vpg-adaptive-"));
    const config = testConfig([tinyCell("a")]);
    const starts: string[] = [];
    const side = (name: SideSpec["name"]): SideSpec => {
      const inner = baseUrlProvider({ baseUrl: server!.baseUrl, model: config.model });
      return {
        name,
        config,
        provider: {
          lifecycle: "per-cell",
          start(context) {
            starts.push(name);
            return inner.start(context);
          },
        },
        outDir: join(dir, name),
        baseDir: dir,
      };
    };
    const result = await runAdaptive({
      sides: [side("baseline"), side("candidate")],
      minRuns: 5,
      maxRuns: 10,
      runsPerBlock: 5,
      calibrate: false,
      decide: async (runs) => (runs === 5 ? 10 : null),
    });
    expect(result).toMatchObject({ runsPerSide: 10, stoppedBecause: "max-runs" });
    // A5 B5 at the first look, then B5 A5: 4 starts, against 5 + 1 + 5 + 1 = 12 at one run per block.
    expect(starts).toEqual(["baseline", "candidate", "candidate", "baseline"]);
    expect(result.runs.map((run) => `${run.side[0]}${run.run}`).join(" ")).toBe(
      "b0 b1 b2 b3 b4 c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 b5 b6 b7 b8 b9",
    );
  });

  it("stops at the first look that decides", async () => {
    server = await startFakeServer();
    const dir = mkdtempSync(join(tmpdir(), "vpg-adaptive-"));
    const config = testConfig([tinyCell("a")]);
    const provider = baseUrlProvider({ baseUrl: server.baseUrl, model: config.model });
    const result = await runAdaptive({
      sides: [{ name: "candidate", config, provider, outDir: dir, baseDir: dir }],
      minRuns: 3,
      maxRuns: 10,
      calibrate: false,
      decide: async () => null,
    });
    expect(result).toMatchObject({ runsPerSide: 3, stoppedBecause: "decided" });
    expect(result.runs).toHaveLength(3);
  });
});
