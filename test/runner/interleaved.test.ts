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
