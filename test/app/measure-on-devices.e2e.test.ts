import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { MeasureRequest } from "../../src/app/gate/dependencies.js";
import { type DeviceBlock, measureOnDevices, planStep } from "../../src/app/measure-on-devices.js";
import { measureRequestedRuns } from "../../src/app/measure-requested.js";
import { runCellVirtually } from "../../src/app/virtual-run.js";
import { compareRecords, settingsFromConfig } from "../../src/compare/index.js";
import { type LoadedConfig, loadConfig, parseConfigText } from "../../src/config/load.js";
import { type RunRecord, runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { applyOverrides, builtInProfile } from "../../src/sim/index.js";
import { outboundFor } from "../job-outbound.js";

const work = mkdtempSync(join(tmpdir(), "vpg-devices-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Two simulated GPUs, device 1 half again as slow as device 0 (device_speed_factors). */
function writeConfig(name: string): string {
  const path = join(work, `${name}.yml`);
  const cell = (cellName: string) => `  - name: ${cellName}
    dataset: { type: synthetic, input_tokens: 16, output_tokens: 24 }
    load: { type: concurrency, concurrency: 1 }
    size: { requests: 12 }
    warmup: { requests: 1 }`;
  writeFileSync(
    path,
    `version: 1
server: { kind: sim, profile: noiseless, set: { device_speed_factors: "1,1.5", step_overhead_ms: 4 }, startup_timeout_s: 60 }
model: { name: sim-model }
runner: { devices: 2 }
cells:
${cell("a")}
${cell("b")}
repeats: { min: 2, max: 4, block: 5 }
gate: { min_requests: { p95: 10 } }
client: { max_event_loop_lag_ms: 1000, max_schedule_lag_ms: 1000, max_server_lateness_ms: 1000 }
`,
  );
  return path;
}

async function measureInto(
  config: LoadedConfig,
  configPath: string,
  resultsDir: string,
  side: "baseline" | "candidate",
  block: DeviceBlock,
) {
  const request: MeasureRequest = {
    configPath,
    config,
    outbound: outboundFor({}, [config]),
    resultsDir,
    cells: block.cells,
    firstRun: block.firstRun,
    runs: block.runs,
    side,
    serverStateFile: join(work, "state.json"),
    workingDirectory: work,
    ...(block.device ? { device: block.device } : {}),
  };
  await measureRequestedRuns(request, {
    env: { ...process.env },
    progress: { update() {}, message() {} },
    warn() {},
  });
}

describe("several GPUs at once, through the runner and the simulator's processes", () => {
  it("plans each cell's two sides on one device, the devices at once, and measures it so", async () => {
    const configPath = writeConfig("crossover");
    const config = await loadConfig(configPath, { env: {}, cwd: work });
    const step = { firstRun: 0, runs: 2, cells: null };
    const sides = [
      { side: "baseline" as const, config: config.config },
      { side: "candidate" as const, config: config.config },
    ];
    const plan = planStep({ sides, step, config: config.config });
    // One cell per device, each device runs the cell's baseline then candidate runs (device 1 the
    // other way round), one start per side and device.
    expect(
      plan.devices.map((timeline) =>
        timeline.blocks.map((block) => `${block.side}:${block.runs.map((r) => r.cell)}`),
      ),
    ).toEqual([
      ["baseline:a", "candidate:a"],
      ["candidate:b", "baseline:b"],
    ]);
    expect(plan.serverStarts).toBe(4);

    const dirs = { baseline: join(work, "x-baseline"), candidate: join(work, "x-candidate") };
    const executed = await measureOnDevices({
      sides,
      step,
      config: config.config,
      measureBlock: (side, block) => measureInto(config, configPath, dirs[side], side, block),
    });
    expect(executed).toEqual(plan);
    // The device is recorded with every run.
    const device = (side: "baseline" | "candidate", cell: string) =>
      runFileSchema.parse(JSON.parse(readFileSync(join(dirs[side], cell, "run-0", "run.json"), "utf8")))
        .fingerprint.runner as { device?: string };
    expect([device("baseline", "a").device, device("candidate", "a").device]).toEqual(["0", "0"]);
    expect([device("baseline", "b").device, device("candidate", "b").device]).toEqual(["1", "1"]);
    expect(readdirSync(join(dirs.baseline, "b"))).toContain("server-b-device1.log");

    // Each server ran on its device: cell b's simulated GPU is half again as slow, on both sides alike.
    const tpot = (side: "baseline" | "candidate", cell: string) =>
      runFileSchema.parse(JSON.parse(readFileSync(join(dirs[side], cell, "run-0", "run.json"), "utf8")))
        .latency.tpot.p50!;
    for (const side of ["baseline", "candidate"] as const)
      expect(tpot(side, "b")).toBeGreaterThan(1.2 * tpot(side, "a"));
  }, 180_000);
});

describe("several GPUs at once: the crossover cancels a device's speed (the engine on virtual time)", () => {
  // Both sides the same config (no change at all), device 1 a fifth slower than device 0: only where
  // each side ran can make one of them look slower.
  const profile = applyOverrides(
    builtInProfile("small-gpu"),
    { device_speed_factors: "1,1.2", speed_sigma: 0.01, jitter_sigma: 0.01 },
    "test",
  );
  const config = parseConfigText(
    `version: 1
server: { kind: sim }
model: { name: sim-model }
runner: { devices: 2 }
cells:
  - { name: a, dataset: { type: synthetic, input_tokens: 64, output_tokens: 32 }, load: { type: concurrency, concurrency: 4 }, size: { requests: 60 } }
  - { name: b, dataset: { type: synthetic, input_tokens: 256, output_tokens: 16 }, load: { type: rate, rate: 20 }, size: { requests: 120 } }
repeats: { min: 4, max: 4, block: 5 }
gate: { min_requests: { p95: 50 } }
`,
    "devices.yml",
    { env: {} },
  ).config;
  const sides = [
    { side: "baseline" as const, config },
    { side: "candidate" as const, config },
  ];
  /** One run of a cell on a simulated device, each its own server start (seed). */
  const runOn = async (side: "baseline" | "candidate", cell: string, run: number, device: number) => {
    const measured = await runCellVirtually({
      config,
      cell: config.cells.find((candidate) => candidate.name === cell)!,
      profile,
      serverSeed: 1000 * device + 100 * run + (side === "baseline" ? 0 : 50) + cell.charCodeAt(0),
      device,
      runIndex: run,
      side,
    });
    return runRecordFromRunFile(measured.file, `${side}/${cell}/run-${run}/run.json`);
  };
  const verdictOf = (runs: { baseline: RunRecord[]; candidate: RunRecord[] }) =>
    compareRecords({ ...runs, mode: "interleaved", settings: settingsFromConfig(config) }).verdict;

  it("with the plan's crossover, no verdict against an unchanged PR", async () => {
    const runs = { baseline: [] as RunRecord[], candidate: [] as RunRecord[] };
    await measureOnDevices({
      sides,
      step: { firstRun: 0, runs: 4, cells: null },
      config,
      measureBlock: async (side, block) => {
        for (const cell of block.cells ?? config.cells.map((c) => c.name))
          for (let k = block.firstRun; k < block.firstRun + block.runs; k++)
            runs[side].push(await runOn(side, cell, k, block.device!.slot));
      },
    });
    const verdict = verdictOf(runs);
    expect(verdict.verdict).toBe("pass");
    for (const comparison of verdict.comparisons.filter((c) => c.gated && c.ratio !== null))
      expect(Math.abs(Math.log(comparison.ratio!))).toBeLessThan(0.03);
  });

  it("with each side pinned to its own device, the slower device reads as a regression", async () => {
    const runs = { baseline: [] as RunRecord[], candidate: [] as RunRecord[] };
    for (const cell of ["a", "b"])
      for (let k = 0; k < 4; k++) {
        runs.baseline.push(await runOn("baseline", cell, k, 0));
        runs.candidate.push(await runOn("candidate", cell, k, 1));
      }
    const verdict = verdictOf(runs);
    expect(verdict.verdict).toBe("regression");
  });
});
