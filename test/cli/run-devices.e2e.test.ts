import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { cli } from "./helpers.js";

/**
 * `run` with `runner.devices: 2` measures on both devices, through the plan the action's gate uses
 * (app/measure-on-devices.ts): the simulator on device 1 is set half again as slow
 * (`device_speed_factors`), and each cell's runs carry the device they ran on, the one the plan gave it.
 * With --base-url the devices cannot be used, and `run` says so.
 */
const dir = mkdtempSync(join(tmpdir(), "vpg-cli-devices-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = `version: 1
server:
  kind: sim
  profile: noiseless
  set: { device_speed_factors: "1,1.5" }
  startup_timeout_s: 120
model: { name: sim-model }
runner: { devices: 2 }
cells:
  - { name: a, dataset: { type: synthetic, input_tokens: 64, output_tokens: 32 }, load: { type: concurrency, concurrency: 4 }, size: { requests: 16 }, warmup: { requests: 1 } }
  - { name: b, dataset: { type: synthetic, input_tokens: 64, output_tokens: 32 }, load: { type: concurrency, concurrency: 4 }, size: { requests: 16 }, warmup: { requests: 1 } }
repeats: { min: 2, max: 2 }
client: { max_event_loop_lag_ms: 500, max_schedule_lag_ms: 200 }
`;

const runOf = (out: string, cell: string, run: number) =>
  runFileSchema.parse(JSON.parse(readFileSync(join(dir, out, cell, `run-${run}`, "run.json"), "utf8")));

describe("run on several devices", () => {
  it("measures the cells on both devices, each cell's runs on its own", async () => {
    writeFileSync(join(dir, "devices.yml"), config);
    const run = await cli(["run", "--config", "devices.yml", "--out", "out"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const deviceOf = (cell: string, k: number) =>
      (runOf("out", cell, k).fingerprint.runner as { device?: string }).device;
    const devices = ["a", "b"].map((cell) => [deviceOf(cell, 0), deviceOf(cell, 1)]);
    // A cell stays on one device; the two cells are balanced over both.
    for (const [first, second] of devices) expect(first).toBe(second);
    expect(new Set(devices.map(([device]) => device))).toEqual(new Set(["0", "1"]));
    expect(run.stderr).toMatch(/device 0: [ab]; 2 run\(s\) each/);
    expect(run.stderr).toMatch(/device 1: [ab]; 2 run\(s\) each/);
    // Each server ran as its device: the one on device 1 is the slower.
    const slow = devices.findIndex(([device]) => device === "1") === 0 ? "a" : "b";
    const fast = slow === "a" ? "b" : "a";
    expect(runOf("out", slow, 0).latency.tpot.p50!).toBeGreaterThan(
      1.3 * runOf("out", fast, 0).latency.tpot.p50!,
    );
    expect(readdirSync(join(dir, "out", slow))).toContain("server-" + slow + "-device1.log");

    // --append adds each cell's runs after its own, still on the devices.
    const again = await cli(["run", "--config", "devices.yml", "--out", "out", "--append", "--runs", "1"], {
      cwd: dir,
    });
    expect(again.code, again.stderr).toBe(0);
    for (const cell of ["a", "b"]) expect(runOf("out", cell, 2).run).toBe(2);
  }, 240_000);

  it("says that --base-url leaves runner.devices unused", async () => {
    const sim = await cli(
      [
        "run",
        "--config",
        "devices.yml",
        "--out",
        "unused",
        "--base-url",
        "http://127.0.0.1:9",
        "--cells",
        "a",
        "--runs",
        "1",
      ],
      { cwd: dir },
    );
    expect(sim.stderr).toContain(
      "warning: runner.devices (0, 1) is not used with --base-url: the cells run one after the other on the server given",
    );
  }, 60_000);
});
