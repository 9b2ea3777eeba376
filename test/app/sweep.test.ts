import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sweepLoads } from "../../src/app/sweep.js";
import { curveFileSchema } from "../../src/app/sweep-curve.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { cli } from "../cli/helpers.js";
import { type FakeServer, startFakeServer } from "../runner/helpers/fake-openai-server.js";

let server: FakeServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

describe("sweepLoads", () => {
  it("lists each load runs times, ascending, a geometric series rounded to 3 digits", () => {
    expect(sweepLoads({ loads: [4, 1, 2, 2], runs: 2 }, false)).toEqual([1, 1, 2, 2, 4, 4]);
    expect(sweepLoads({ from: 1, to: 100, count: 3, runs: 1 }, false)).toEqual([1, 10, 100]);
    expect(sweepLoads({ from: 1, to: 10, count: 4, runs: 1 }, true)).toEqual([1, 2, 5, 10]);
  });
});

describe("run --sweep with a sweep form", () => {
  it("measures each load, records it in run.json and writes the load curve", async () => {
    server = await startFakeServer();
    dir = mkdtempSync(join(tmpdir(), "vpg-sweep-"));
    writeFileSync(
      join(dir, "gate.yml"),
      `version: 1
server: { kind: external, base_url: "http://127.0.0.1:1" }
model: { name: m }
cells:
  - name: sw
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: concurrency, concurrency: 1 }
    size: { requests: 6 }
    warmup: { requests: 0 }
    sweep: { loads: [1, 3], runs: 2 }
`,
    );
    const result = await cli(
      ["run", "--config", "gate.yml", "--out", "out", "--sweep", "--base-url", server.baseUrl],
      {
        cwd: dir,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    const cellDir = join(dir, "out", "sw");
    const loads = readdirSync(cellDir)
      .filter((name) => name.startsWith("run-"))
      .sort()
      .map((name) => runFileSchema.parse(JSON.parse(readFileSync(join(cellDir, name, "run.json"), "utf8"))))
      .map((run) => [run.run, run.load.targetConcurrency]);
    expect(loads).toEqual([
      [0, 1],
      [1, 1],
      [2, 3],
      [3, 3],
    ]);
    const curve = curveFileSchema.parse(JSON.parse(readFileSync(join(cellDir, "curve.json"), "utf8")));
    expect(curve.dimension).toBe("concurrency");
    expect(curve.points.map((point) => [point.load, point.runs])).toEqual([
      [1, [0, 1]],
      [3, [2, 3]],
    ]);
    expect(curve.points[0]!.errorRate).toBe(0);
    expect(curve.points[1]!.completedPerSecond).toBeGreaterThan(0);
  });
});

describe("run --sweep with a capacity cell", () => {
  it("stops when every load meets the SLOs, and with --append resumes from the runs already there", async () => {
    server = await startFakeServer();
    dir = mkdtempSync(join(tmpdir(), "vpg-sweep-"));
    writeFileSync(
      join(dir, "gate.yml"),
      `version: 1
server: { kind: external, base_url: "http://127.0.0.1:1" }
model: { name: m }
cells:
  - name: cap
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: rate, rate: 1 }
    size: { requests: 4 }
    warmup: { requests: 0 }
    slo: { ttft_ms: 60000 }
    capacity: { range: { min: 2, max: 8 }, initial_loads: 3 }
repeats: { max: 10 }
# A shared machine: a late event loop is not what this test is about.
client: { max_event_loop_lag_ms: 1000, max_schedule_lag_ms: 1000 }
`,
    );
    const args = ["run", "--config", "gate.yml", "--out", "out", "--sweep", "--base-url", server.baseUrl];
    const first = await cli(args, { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    // 3 loads, then a second run at the highest to confirm: the capacity is above the range.
    const runsIn = () =>
      readdirSync(join(dir!, "out", "cap")).filter((name) => name.startsWith("run-")).length;
    expect(runsIn(), first.stderr).toBe(4);
    expect(first.stderr).toContain("every load measured meets the SLOs, up to 8 (capacity.range.max)");
    const again = await cli([...args, "--append"], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("capacity search resumes from 4 run(s)");
    expect(runsIn()).toBe(4);
  });
});
