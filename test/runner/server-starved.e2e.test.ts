import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compareAndRender } from "../../src/app/compare.js";
import { runCells } from "../../src/app/run-cells.js";
import { defaultCompareSettings } from "../../src/compare/index.js";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import type { RunFile } from "../../src/metrics/run-schema.js";
import { summarizeServerMetrics } from "../../src/metrics/server-metrics.js";
import type { MetricsScrape } from "../../src/runner/metrics-scraper.js";
import { serverStarvedReasons } from "../../src/runner/server-starved.js";
import { baseUrlProvider } from "../../src/server/base-url.js";
import { type RunningSimulator, startSimulator } from "../../src/sim/index.js";
import { noisyRuns } from "../compare/fixtures.js";
import { noSecrets } from "../job-outbound.js";
import { testConfig } from "./helpers/run-config.js";

let sim: RunningSimulator | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  sim = undefined;
  dir = undefined;
});

describe("serverStarvedReasons", () => {
  it("judges only a server that exports the simulator's lateness", () => {
    expect(
      serverStarvedReasons({ stepLatenessP99Ms: undefined, steps: undefined, maxServerLatenessMs: 50 }),
    ).toEqual([]);
    expect(serverStarvedReasons({ stepLatenessP99Ms: null, steps: 0, maxServerLatenessMs: 50 })).toEqual([]);
    expect(serverStarvedReasons({ stepLatenessP99Ms: 49.9, steps: 800, maxServerLatenessMs: 50 })).toEqual(
      [],
    );
    expect(serverStarvedReasons({ stepLatenessP99Ms: 180, steps: 800, maxServerLatenessMs: 50 })).toEqual([
      "simulator step lateness p99 180.0 ms over 800 steps > 50 ms (client.max_server_lateness_ms)",
    ]);
  });
});

describe("the simulator's lateness in the server summary", () => {
  const scrape = (phase: MetricsScrape["phase"], text: string): MetricsScrape => ({
    phase,
    atMs: 0,
    status: 200,
    text,
    error: null,
  });
  const lateness = (within10ms: number, within100ms: number, all: number) =>
    [
      "# TYPE sim:step_lateness_seconds histogram",
      `sim:step_lateness_seconds_bucket{le="0.01"} ${within10ms}`,
      `sim:step_lateness_seconds_bucket{le="0.1"} ${within100ms}`,
      `sim:step_lateness_seconds_bucket{le="1.0"} ${all}`,
      `sim:step_lateness_seconds_bucket{le="+Inf"} ${all}`,
      `sim:step_lateness_seconds_count ${all}`,
      "vllm:num_requests_running 1",
    ].join("\n");

  it("reads the deltas over the run: the steps and the p99 of their lateness", () => {
    // 1000 steps before the run (all on time); in it, 200 steps of which 190 on time and 10 at 0.1-1 s.
    const summary = summarizeServerMetrics([
      scrape("before", lateness(1000, 1000, 1000)),
      scrape("after", lateness(1190, 1190, 1200)),
    ]);
    expect(summary?.sim_steps).toBe(200);
    // rank 198 of 200 lies in the 0.1-1 s bucket, 8 of its 10 steps in: 0.1 + 0.9 * 8/10 s.
    expect(summary?.sim_step_lateness_p99_ms).toBeCloseTo(820, 6);
    expect(summary?.missing).not.toContain("sim:step_lateness_seconds");
  });

  it("leaves the fields out for a server without the family, as every vLLM", () => {
    const vllm = "vllm:num_requests_running 1";
    const summary = summarizeServerMetrics([scrape("before", vllm), scrape("after", vllm)])!;
    expect("sim_steps" in summary).toBe(false);
    expect("sim_step_lateness_p99_ms" in summary).toBe(false);
    expect(summary.missing.some((name) => name.startsWith("sim:"))).toBe(false);
  });
});

const cell = {
  name: "steady",
  dataset: { type: "synthetic", input_tokens: 8, output_tokens: 24 },
  load: { type: "concurrency", concurrency: 4 },
  size: { requests: 24 },
  warmup: { requests: 0 },
};
// The client's own limits sit far above anything the stalled simulator could cause on the client side.
const client = { max_schedule_lag_ms: 5000, max_event_loop_lag_ms: 5000, max_server_lateness_ms: 50 };

async function oneRun(set: Record<string, number>, name: string): Promise<RunFile> {
  sim = await startSimulator({ seed: 3, set: { step_overhead_ms: 5, ...set } });
  dir ??= mkdtempSync(join(tmpdir(), "vpg-starved-"));
  const config = testConfig([cell], { client, model: { name: "sim-model" } });
  const provider = baseUrlProvider({ baseUrl: sim.baseUrl, model: config.model });
  const result = await runCells({
    outbound: noSecrets,
    config,
    provider,
    outDir: join(dir, name),
    baseDir: dir,
    runs: 1,
  });
  await sim.close();
  sim = undefined;
  return result.runs[0]!.file;
}

describe("a run whose simulator was starved", () => {
  it("records the simulator's lateness, is flagged server host starved, and compare excludes and lists it", async () => {
    // The simulator's process blocks 150 ms after every 4th step of 5 ms: a quarter of its steps are
    // handled 145 ms or more late, three times the limit.
    const stalled = await oneRun({ fault_stall_ms: 150, fault_stall_every_steps: 4 }, "stalled");
    expect(stalled.server?.sim_steps).toBeGreaterThanOrEqual(24);
    expect(stalled.server?.sim_step_lateness_p99_ms).toBeGreaterThan(100);
    expect(stalled.flags.serverStarved).toBe(true);
    expect(stalled.flags.serverStarvedReason).toMatch(
      /^simulator step lateness p99 \d+\.\d ms over \d+ steps > 50 ms \(client\.max_server_lateness_ms\)$/,
    );
    expect(stalled.flags.clientBound).toBe(false);
    const record = runRecordFromRunFile(stalled, "c/steady/run-0/run.json");
    expect(record.exclusionReasons).toEqual([`server host starved: ${stalled.flags.serverStarvedReason}`]);

    // The same server without the fault: the family is there (the flag is judged), with far fewer late steps.
    const quiet = await oneRun({}, "quiet");
    expect(quiet.server?.sim_steps).toBeGreaterThanOrEqual(24);
    expect(typeof quiet.flags.serverStarved).toBe("boolean");
    expect(quiet.server!.sim_step_lateness_p99_ms!).toBeLessThan(stalled.server!.sim_step_lateness_p99_ms!);

    // compare lists the starved run among the excluded runs with its reason, and asks for a replacement.
    const records = (runs: RunFile[], side: string) =>
      runs.map((run, i) => runRecordFromRunFile(run, `${side}/${run.cell}/run-${i}/run.json`));
    // A 5% shift in 5 runs a side cannot be decided at the first look: the gate's next look must
    // replace the excluded run as well as add the look's runs.
    const candidate = noisyRuns(5, { seed: 306, shift: 1.05 });
    candidate[1] = {
      ...candidate[1]!,
      flags: {
        ...candidate[1]!.flags,
        serverStarved: true,
        serverStarvedReason: stalled.flags.serverStarvedReason!,
      },
    };
    const outcome = compareAndRender({
      baseline: records(noisyRuns(5, { seed: 305 }), "b"),
      candidate: records(candidate, "c"),
      settings: defaultCompareSettings(),
      mode: "interleaved",
      now: new Date("2026-12-01T12:00:00Z"),
    });
    const excluded = outcome.verdict.runs.excluded.filter((run) => run.side === "candidate");
    expect(excluded.map((run) => run.reasons)).toEqual([
      [`server host starved: ${stalled.flags.serverStarvedReason}`],
    ]);
    expect(outcome.verdict.cells[0]!.candidateRuns).toBe(4);
    expect(outcome.reportMarkdown).toMatch(
      /### Runs excluded[\s\S]*server host starved: simulator step lateness p99/,
    );
    expect(outcome.verdict.verdict).toBe("inconclusive");
    expect(outcome.verdict.nextLook).toMatchObject({
      runsPerSide: 6,
      addCandidateRuns: 1,
      addBaselineRuns: 1,
    });
    expect(outcome.verdict.nextLook!.reason).toMatch(/1 excluded run replaced/);
  }, 60_000);
});
