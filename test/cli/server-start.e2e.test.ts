import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadRuns } from "../../src/compare/inputs/load.js";
import { type RunFile, runFileSchema } from "../../src/metrics/run-schema.js";
import { type RunningSimulator, startSimulator } from "../../src/sim/index.js";
import { cli } from "./helpers.js";

/**
 * `run` records in every run.json the server start that measured it (docs/server.md, Server starts), and
 * in its vLLM form the same id as `server_start`, as `vllm bench serve --metadata server_start=<id>`
 * writes it: under lifecycle per-side the runs of every cell share one start, under per-run each has its
 * own, and a server run does not start gets one per invocation unless --server-start names it.
 */
let dir: string | undefined;
let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const cells = `cells:
  - name: a
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: concurrency, concurrency: 2 }
    size: { requests: 4 }
    warmup: { requests: 0 }
  - name: b
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: concurrency, concurrency: 2 }
    size: { requests: 4 }
    warmup: { requests: 0 }
# A shared machine: a late event loop is not what this test is about.
client: { max_event_loop_lag_ms: 1000, max_schedule_lag_ms: 1000, max_server_lateness_ms: 1000 }
`;

function simConfig(lifecycle: "per-side" | "per-run"): string {
  return `version: 1
server: { kind: sim, profile: noiseless, lifecycle: ${lifecycle}, startup_timeout_s: 60 }
model: { name: sim-model }
${cells}`;
}

function readRun(out: string, cell: string, run: number): { file: RunFile; vllm: Record<string, unknown> } {
  const runDir = join(out, cell, `run-${run}`);
  return {
    file: runFileSchema.parse(JSON.parse(readFileSync(join(runDir, "run.json"), "utf8"))),
    vllm: JSON.parse(readFileSync(join(runDir, "vllm-result.json"), "utf8")) as Record<string, unknown>,
  };
}

async function runAndRead(
  config: string,
  extra: string[],
): Promise<{
  code: number;
  stderr: string;
  out: string;
  runs: { file: RunFile; vllm: Record<string, unknown> }[];
}> {
  dir ??= mkdtempSync(join(tmpdir(), "vpg-starts-"));
  writeFileSync(join(dir, "gate.yml"), config);
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}`);
  const result = await cli(
    ["run", "--config", "gate.yml", "--out", out, "--runs", "2", "--format", "vllm", "--quiet", ...extra],
    {
      cwd: dir,
    },
  );
  const runs =
    result.code === 0 ? ["a", "b"].flatMap((cell) => [0, 1].map((run) => readRun(out, cell, run))) : [];
  return { code: result.code, stderr: result.stderr, out, runs };
}

describe("run records each run's server start", () => {
  it("per-side: one start for every run of every cell, with its side; the vLLM form says the same", async () => {
    const { code, stderr, out, runs } = await runAndRead(simConfig("per-side"), ["--side", "baseline"]);
    expect(code, stderr).toBe(0);
    const starts = runs.map(({ file }) => file.serverStart);
    expect(new Set(starts.map((start) => start?.id)).size).toBe(1);
    const start = starts[0]!;
    expect(start.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(start.side).toBe("baseline");
    // Launched before the first run's measured phase began.
    expect(Date.parse(start.startedAt)).toBeLessThanOrEqual(Date.parse(runs[0]!.file.startedAt));
    for (const { vllm } of runs) expect(vllm.server_start).toBe(start.id);
    // compare reads it as recorded.
    const records = await loadRuns([out], "baseline");
    expect(records.map((record) => record.serverStart)).toEqual(
      Array(4).fill({ id: start.id, basis: "recorded" }),
    );
  }, 120_000);

  it("per-run: every run its own start, unlabelled side null", async () => {
    const { code, stderr, runs } = await runAndRead(simConfig("per-run"), []);
    expect(code, stderr).toBe(0);
    const ids = runs.map(({ file }) => file.serverStart?.id);
    expect(new Set(ids).size).toBe(4);
    expect(runs.every(({ file }) => file.serverStart?.side === null)).toBe(true);
    for (const { file, vllm } of runs) expect(vllm.server_start).toBe(file.serverStart?.id);
  }, 120_000);

  it("--base-url: one start per invocation, or the one --server-start names", async () => {
    sim = await startSimulator({ model: "sim-model", profile: "noiseless" });
    const config = `version: 1\nserver: { kind: external, base_url: "http://127.0.0.1:1" }\nmodel: { name: sim-model }\n${cells}`;
    const reached = await runAndRead(config, ["--base-url", sim.baseUrl]);
    expect(reached.code, reached.stderr).toBe(0);
    expect(new Set(reached.runs.map(({ file }) => file.serverStart?.id)).size).toBe(1);
    const named = await runAndRead(config, ["--base-url", sim.baseUrl, "--server-start", "pod-7/restart-3"]);
    expect(named.code, named.stderr).toBe(0);
    expect(named.runs.map(({ file }) => file.serverStart?.id)).toEqual(Array(4).fill("pod-7/restart-3"));
    expect(named.runs.map(({ vllm }) => vllm.server_start)).toEqual(Array(4).fill("pod-7/restart-3"));
  }, 60_000);

  it("refuses --server-start for a server run starts itself, and an id with spaces", async () => {
    dir = mkdtempSync(join(tmpdir(), "vpg-starts-"));
    writeFileSync(join(dir, "gate.yml"), simConfig("per-run"));
    const launched = await cli(["run", "--config", "gate.yml", "--out", "o", "--server-start", "x"], {
      cwd: dir,
    });
    expect(launched.code).toBe(2);
    expect(launched.stderr).toMatch(
      /--server-start names the start of a server run does not start .*kind sim/,
    );
    const spaced = await cli(
      [
        "run",
        "--config",
        "gate.yml",
        "--out",
        "o",
        "--base-url",
        "http://127.0.0.1:1",
        "--server-start",
        "a b",
      ],
      { cwd: dir },
    );
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toMatch(/--server-start: expected printable ASCII without spaces/);
  });
});
