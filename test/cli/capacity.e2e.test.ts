import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { verdictFileSchema } from "../../src/compare/verdict-schema.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { cli } from "./helpers.js";

/**
 * A capacity cell end to end against the simulator over HTTP: `run --sweep` searches each side's capacity
 * (the candidate's simulator 25% slower per step, speed_factor 1.25), `compare` calls the lower capacity a
 * regression with the report's capacity sentence, acceptance table and cost per 1,000 requests.
 */
const dir = mkdtempSync(join(tmpdir(), "vpg-capacity-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(speedFactor: number): string {
  return `version: 1
server:
  kind: sim
  profile: small-gpu
  set: { max_num_seqs: 4, step_overhead_ms: 80, speed_factor: ${speedFactor} }
  startup_timeout_s: 120
model: { name: sim-model }
cells:
  - name: chat-cap
    dataset: { type: synthetic, input_tokens: 32, output_tokens: 8 }
    load: { type: rate, rate: 10 }
    size: { requests: 30 }
    warmup: { requests: 2 }
    slo: { ttft_ms: 1500, e2el_ms: 3000 }
    capacity: { percentile: p95, range: { min: 2, max: 12 }, precision: 0.15, initial_loads: 3 }
repeats: { min: 3, max: 8 }
# This machine is shared: a late event loop is not what this test is about.
client: { max_event_loop_lag_ms: 500, max_schedule_lag_ms: 100 }
cost: { gpu_hourly_usd: 2.5, gpus: 1 }
`;
}

describe("capacity cells against the simulator", () => {
  it("run --sweep finds each side's capacity and compare calls the slower candidate a capacity regression", async () => {
    writeFileSync(join(dir, "base.yml"), config(1));
    writeFileSync(join(dir, "cand.yml"), config(1.25));
    // One side after the other: two simulators and two clients at once would share two loaded cores.
    const base = await cli(
      ["run", "--config", "base.yml", "--out", "base", "--sweep", "--side", "baseline"],
      {
        cwd: dir,
      },
    );
    const cand = await cli(
      ["run", "--config", "cand.yml", "--out", "cand", "--sweep", "--side", "candidate"],
      {
        cwd: dir,
      },
    );
    expect(base.code, base.stderr).toBe(0);
    expect(cand.code, cand.stderr).toBe(0);
    expect(base.stderr).toMatch(/capacity search (done|stopped at repeats.max)/);
    // Each run records the load it ran at; the search measured several loads, the first pass geometric.
    const first = runFileSchema.parse(
      JSON.parse(readFileSync(join(dir, "base/chat-cap/run-0/run.json"), "utf8")),
    );
    expect(first.load.targetRate).toBe(2);
    const compare = await cli(
      [
        "compare",
        "--baseline",
        "base",
        "--candidate",
        "cand",
        "--config",
        "base.yml",
        "--out",
        "cmp",
        "--mode",
        "interleaved",
      ],
      { cwd: dir },
    );
    expect(compare.code, compare.stdout + compare.stderr).toBe(1);
    const verdict = verdictFileSchema.parse(JSON.parse(readFileSync(join(dir, "cmp/verdict.json"), "utf8")));
    expect(verdict.verdict).toBe("regression");
    const check = verdict.capacity![0]!;
    expect(check.verdict).toBe("regression");
    expect(check.baseline.bound).toBe("inside");
    expect(check.candidate.bound).toBe("inside");
    // A 25% slower step lowers the capacity by about 1 - 1/1.25 = 20%; the queueing adds some.
    expect(check.ratio!).toBeGreaterThan(0.6);
    expect(check.ratio!).toBeLessThan(0.9);
    expect(check.ci![1]).toBeLessThan(0.95);
    // Cost per 1,000 = $2.50 x 1 GPU / successful requests per hour x 1,000.
    expect(check.baseline.costPer1000!).toBeCloseTo((2.5 / check.baseline.successfulPerHour!) * 1000, 9);
    expect(check.costRatio!).toBeGreaterThan(1);
    const report = readFileSync(join(dir, "cmp/report.md"), "utf8");
    expect(report).toContain("### Capacity at the SLOs");
    expect(report).toMatch(
      /At p95 TTFT ≤ 1\.50 s, p95 E2E ≤ 3\.00 s, errors ≤ 1% the candidate completes [\d,]+ requests\/h \(capacity −/,
    );
    expect(report).toContain("per 1,000 successful requests");
    expect(report).toContain("| p95 TTFT | ≤ 1.50 s |");
  }, 300_000);
});

describe("capacity config errors", () => {
  const bad = (cell: string) => `version: 1
server: { kind: sim }
model: { name: m }
cells:
  - name: c
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
${cell}
    size: { requests: 10 }
`;
  it.each([
    [
      "no SLO",
      "    load: { type: rate, rate: 1 }\n    capacity: { range: { min: 1, max: 4 } }",
      "cells[0].slo: expected at least one of ttft_ms, tpot_ms, e2el_ms",
    ],
    [
      "a percentile out of range",
      "    load: { type: rate, rate: 1 }\n    slo: { ttft_ms: 100 }\n    capacity: { percentile: p97, range: { min: 1, max: 4 } }",
      "expected one of p50, p90, p95, p99",
    ],
    [
      "an unknown SLO metric",
      "    load: { type: rate, rate: 1 }\n    slo: { ttft_ms: 100, queue_ms: 5 }\n    capacity: { range: { min: 1, max: 4 } }",
      "queue_ms",
    ],
    [
      "stages",
      "    load: { type: stages, stages: [{ duration_s: 1, rate: 1 }] }\n    slo: { ttft_ms: 100 }\n    capacity: { range: { min: 1, max: 4 } }",
      "expected rate or concurrency in a cell with capacity",
    ],
    [
      "an empty range",
      "    load: { type: rate, rate: 1 }\n    slo: { ttft_ms: 100 }\n    capacity: { range: { min: 4, max: 4 } }",
      "expected max > min",
    ],
  ])("refuses %s with exit 2 naming the file and field", async (_name, cell, message) => {
    const path = join(dir, "bad.yml");
    writeFileSync(path, bad(cell));
    const result = await cli(["validate", "--config", path], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("bad.yml");
    expect(result.stderr).toContain(message);
  });

  it("refuses --sweep on a cell with neither capacity nor sweep, before measuring", async () => {
    const path = join(dir, "plain.yml");
    writeFileSync(path, bad("    load: { type: rate, rate: 1 }"));
    const result = await cli(
      ["run", "--config", path, "--out", "plain-out", "--sweep", "--base-url", "http://127.0.0.1:1"],
      {
        cwd: dir,
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--sweep: cell "c" has neither capacity nor sweep');
  });
});
