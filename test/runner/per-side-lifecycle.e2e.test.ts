import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { measureOnDevices } from "../../src/app/measure-on-devices.js";
import { runCells } from "../../src/app/run-cells.js";
import { loadRuns } from "../../src/compare/inputs/load.js";
import type { RunFile } from "../../src/metrics/run-schema.js";
import { baseUrlProvider } from "../../src/server/base-url.js";
import type { ServerProvider } from "../../src/server/types.js";
import { type RunningSimulator, startSimulator } from "../../src/sim/index.js";
import { noSecrets } from "../job-outbound.js";
import { testConfig, tinyCell } from "./helpers/run-config.js";

let dir: string | undefined;
const sims: RunningSimulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/**
 * Two cells that send the same four prompts (a JSONL file: each cell orders them its own way), with the
 * prefix cache kept warm across a cell's runs (reuse): a cell measured after the other on a server that
 * keeps its cache would find every prompt cached.
 */
function sameFileCells(root: string) {
  const words = (i: number) => Array.from({ length: 96 }, (_, w) => `p${i}w${w}`).join(" ");
  const file = join(root, "prompts.jsonl");
  writeFileSync(
    file,
    `${[0, 1, 2, 3].map((i) => JSON.stringify({ prompt: words(i), max_tokens: 2 })).join("\n")}\n`,
  );
  const cell = (name: string) => ({
    name,
    dataset: { type: "jsonl", path: file },
    load: { type: "concurrency", concurrency: 1 },
    size: { requests: 4 },
    warmup: { requests: 0 },
    prefix: "reuse",
  });
  return testConfig([cell("a"), cell("b")]);
}

/** A provider of simulators in this process, one per start, counting the starts. */
function simProvider(lifecycle: ServerProvider["lifecycle"], devMode: boolean) {
  const counts = { starts: 0 };
  const provider: ServerProvider = {
    lifecycle,
    async start(context) {
      counts.starts++;
      const sim = await startSimulator({ model: "m", devMode, profile: "noiseless" });
      sims.push(sim);
      const session = await baseUrlProvider({ baseUrl: sim.baseUrl, model: { name: "m" } }).start(context);
      return { ...session, stop: () => sim.close() };
    },
  };
  return { provider, counts };
}

function firstRunOf(runs: { cell: string; run: number; file: RunFile }[], cell: string): RunFile {
  return runs.find((run) => run.cell === cell && run.run === 0)!.file;
}

describe("lifecycle per-side: one server for every cell of a side", () => {
  it("starts once for all cells and resets the prefix cache between them", async () => {
    dir = mkdtempSync(join(tmpdir(), "vpg-side-"));
    const config = sameFileCells(dir);
    const { provider, counts } = simProvider("per-side", true);
    const result = await runCells({
      outbound: noSecrets,
      config,
      provider,
      outDir: join(dir, "out"),
      baseDir: dir,
      runs: 2,
    });
    expect(counts.starts).toBe(1);
    expect(result.runs.map((run) => `${run.cell}/${run.run}`)).toEqual(["a/0", "a/1", "b/0", "b/1"]);
    // b's first run finds nothing of a's prompts in the cache: a fresh server's share of hits (none).
    expect(firstRunOf(result.runs, "a").server?.prefix_cache_hits).toBe(0);
    expect(firstRunOf(result.runs, "b").server?.prefix_cache_hits).toBe(0);
    expect(firstRunOf(result.runs, "b").flags.notes).toContain(
      "server shared with the cells before it on this side (started for a; per-side lifecycle): prefix cache reset before this cell",
    );
    // The cell's own runs still share its cache (reuse): run 1 of a hits every full block of run 0.
    expect(
      result.runs.find((run) => run.cell === "a" && run.run === 1)!.file.server?.prefix_cache_hits,
    ).toBeGreaterThan(0);
  });

  it("without the reset the next cell would inherit the cache (one server kept, nothing reset)", async () => {
    dir = mkdtempSync(join(tmpdir(), "vpg-side-"));
    const config = sameFileCells(dir);
    const sim = await startSimulator({ model: "m", devMode: true, profile: "noiseless" });
    sims.push(sim);
    // A deployment we do not start (external): one server, its cache not reset between cells.
    const provider = baseUrlProvider({ baseUrl: sim.baseUrl, model: { name: "m" } });
    const result = await runCells({
      outbound: noSecrets,
      config,
      provider,
      outDir: join(dir, "out"),
      baseDir: dir,
      runs: 1,
    });
    expect(firstRunOf(result.runs, "b").server?.prefix_cache_hits).toBeGreaterThan(0);
  });

  it("falls back to a server per cell where the cache cannot be reset, and says so", async () => {
    dir = mkdtempSync(join(tmpdir(), "vpg-side-"));
    const config = sameFileCells(dir);
    const { provider, counts } = simProvider("per-side", false);
    const messages: string[] = [];
    const result = await runCells({
      outbound: noSecrets,
      config,
      provider,
      outDir: join(dir, "out"),
      baseDir: dir,
      runs: 1,
      progress: { update: () => {}, message: (text) => messages.push(text) },
    });
    expect(counts.starts).toBe(2);
    expect(firstRunOf(result.runs, "b").server?.prefix_cache_hits).toBe(0);
    expect(firstRunOf(result.runs, "b").flags.notes).toContain(
      "the shared server's prefix cache could not be reset (POST /reset_prefix_cache answered HTTP 404): a new server for this cell, as under lifecycle per-cell",
    );
    expect(messages.some((line) => /^b: the prefix cache .* could not be reset/.test(line))).toBe(true);
  });
});

describe("the interleaved schedule under per-side: the sides alternate across all cells of a block", () => {
  it("starts one server per block of a side, whatever the cells in it (per-cell: one per cell)", async () => {
    dir = mkdtempSync(join(tmpdir(), "vpg-side-"));
    const root = dir;
    const cells = [tinyCell("a"), tinyCell("b"), tinyCell("c")];
    for (const lifecycle of ["per-side", "per-cell"] as const) {
      const config = testConfig(cells, { repeats: { min: 5, max: 10, block: 5 } });
      const sides = { baseline: simProvider(lifecycle, true), candidate: simProvider(lifecycle, true) };
      const order: string[] = [];
      for (const step of [
        { firstRun: 0, runs: 5, cells: null },
        { firstRun: 5, runs: 5, cells: null },
      ]) {
        await measureOnDevices({
          sides: [
            { side: "baseline", config },
            { side: "candidate", config },
          ],
          step,
          config,
          measureBlock: async (side, block) => {
            // Every cell of the step is in each block: a request for every cell.
            order.push(
              `${side}:${block.cells === null ? "every cell" : block.cells.join("")} ${block.firstRun}+${block.runs}`,
            );
            await runCells({
              outbound: noSecrets,
              config,
              provider: sides[side].provider,
              outDir: join(root, lifecycle, side),
              baseDir: root,
              ...(block.cells ? { cells: block.cells } : {}),
              firstRun: block.firstRun,
              runs: block.runs,
            });
          },
        });
      }
      // A5 B5 | B5 A5: every cell in each block, the blocks in the alternation's order.
      expect(order).toEqual([
        "baseline:every cell 0+5",
        "candidate:every cell 0+5",
        "candidate:every cell 5+5",
        "baseline:every cell 5+5",
      ]);
      const perBlock = lifecycle === "per-side" ? 1 : cells.length;
      expect([sides.baseline.counts.starts, sides.candidate.counts.starts]).toEqual([
        2 * perBlock,
        2 * perBlock,
      ]);
      // Every run.json names its start: one per block of the side (per-side), one per cell and block (per-cell).
      const runs = await loadRuns([join(root, lifecycle, "baseline")], "baseline");
      const startOf = (cell: string, run: number) =>
        runs.find((record) => record.cell === cell && record.run === run)!.serverStart!;
      const groups = new Map<string, Set<string>>();
      for (const record of runs) {
        const block = record.run! < 5 ? 0 : 1;
        const key = lifecycle === "per-side" ? `${block}` : `${record.cell}/${block}`;
        groups.set(key, (groups.get(key) ?? new Set()).add(record.serverStart!.id));
      }
      expect([...groups.values()].every((ids) => ids.size === 1)).toBe(true);
      expect(new Set(runs.map((record) => record.serverStart!.id)).size).toBe(2 * perBlock);
      expect(startOf("a", 0).basis).toBe("recorded");
    }
  }, 120_000);
});
