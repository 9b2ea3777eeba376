import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cellSchema } from "../../src/config/schema.js";
import { clientBoundReasons } from "../../src/runner/client-bound.js";
import { JsonlAppender } from "../../src/runner/jsonl-appender.js";
import { loadPlanOf, poolSizeOf, targetConcurrencyOf, targetRateOf } from "../../src/runner/load-plan.js";
import { formatProgress, streamProgress } from "../../src/runner/progress.js";
import { noSecrets } from "../job-outbound.js";

const cell = (load: unknown, size: unknown = { requests: 10 }) =>
  cellSchema.parse({
    name: "c",
    dataset: { type: "synthetic", input_tokens: 1, output_tokens: 1 },
    load,
    size,
  });

describe("load plans", () => {
  it("sizes the pool to the load and knows what was asked", () => {
    const closed = loadPlanOf(cell({ type: "concurrency", concurrency: 64 }, { requests: 100 }));
    expect(poolSizeOf(closed)).toBe(64);
    // No more connections than requests: concurrency 4096 with 10 requests opens 10.
    expect(poolSizeOf(loadPlanOf(cell({ type: "concurrency", concurrency: 4096 })))).toBe(10);
    expect(targetConcurrencyOf(closed)).toBe(64);
    const open = loadPlanOf(cell({ type: "rate", rate: 5 }, { duration_s: 30 }));
    expect(poolSizeOf(open)).toBeNull();
    expect(open.maxDurationMs).toBe(30_000);
    expect(targetRateOf(open)).toBe(5);
    const capped = loadPlanOf(cell({ type: "rate", rate: 5, max_concurrency: 8 }));
    expect(poolSizeOf(capped)).toBe(8);
    const stages = loadPlanOf(
      cell(
        {
          type: "stages",
          stages: [
            { duration_s: 2, rate: 3 },
            { duration_s: 4, concurrency: 16 },
          ],
          max_concurrency: 32,
        },
        { duration_s: 5 },
      ),
    );
    expect(stages.maxDurationMs).toBe(5000);
    expect(poolSizeOf(stages)).toBe(32);
  });
});

describe("client-bound decision", () => {
  const thresholds = { maxScheduleLagMs: 10, maxEventLoopLagMs: 50 };
  it("names each reason, and none for a healthy run", () => {
    expect(
      clientBoundReasons({
        scheduleLagP50Ms: 1,
        eventLoopLagP99Ms: 12,
        targetConcurrency: 8,
        peakOnSocket: 8,
        completed: 100,
        exactRate: { target: 10, achieved: 9.9, requests: 100 },
        thresholds,
      }),
    ).toEqual([]);
    const reasons = clientBoundReasons({
      scheduleLagP50Ms: 25,
      eventLoopLagP99Ms: 120,
      targetConcurrency: 100,
      peakOnSocket: 10,
      completed: 500,
      exactRate: { target: 10, achieved: 9.7, requests: 500 },
      thresholds,
    });
    expect(reasons).toHaveLength(4);
    expect(reasons[3]).toMatch(/achieved rate 9.70\/s < 98% of the target 10\/s/);
    expect(reasons[2]).toMatch(/achieved concurrency 10 < asked 100/);
    expect(reasons[3]).toContain("the sends ended 1.55 s behind the schedule");
  });

  it("tolerates a short run's rate shortfall up to a send window late by client.max_schedule_lag_ms", () => {
    // 4 requests at 8/s: 0.5 s scheduled. Sent in 0.6 s (6.67/s, 17% short) the window slipped 0.1 s.
    const shortRun = (maxScheduleLagMs: number) =>
      clientBoundReasons({
        scheduleLagP50Ms: 1,
        eventLoopLagP99Ms: 1,
        targetConcurrency: null,
        peakOnSocket: 4,
        completed: 4,
        exactRate: { target: 8, achieved: 4 / 0.6, requests: 4 },
        thresholds: { maxScheduleLagMs, maxEventLoopLagMs: 50 },
      });
    expect(shortRun(1000)).toEqual([]);
    expect(shortRun(150)).toEqual([]);
    expect(shortRun(10)).toEqual([
      "achieved rate 6.67/s < 98% of the target 8/s (the sends ended 0.10 s behind the schedule)",
    ]);
  });
});

describe("JsonlAppender", () => {
  it("puts lines in the file without waiting for close", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vpg-jsonl-"));
    try {
      const appender = new JsonlAppender(join(dir, "a.jsonl"), noSecrets, 10);
      appender.append({ a: 1 });
      appender.append({ b: 2 });
      await new Promise((resolve) => setTimeout(resolve, 40));
      expect(readFileSync(join(dir, "a.jsonl"), "utf8")).toBe('{"a":1}\n{"b":2}\n');
      appender.append({ c: 3 });
      appender.close();
      expect(readFileSync(join(dir, "a.jsonl"), "utf8").trim().split("\n")).toHaveLength(3);
      expect(() => appender.append({})).toThrow(/after close/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("progress", () => {
  const event = {
    cell: "c",
    run: 0,
    runs: 3,
    phase: "measure" as const,
    done: 50,
    total: 200,
    errors: 2,
    elapsedS: 10,
    plannedS: null,
  };
  it("says done/total, rate, errors and ETA", () => {
    expect(formatProgress(event)).toBe("[c run-0 (1 of 3)] 50/200 requests  5.0 req/s  errors 2  ETA 30s");
  });
  it("names the run as its directory and counts this invocation's runs, after existing ones too", () => {
    // Run 5 of a cell whose runs 0-4 exist, one run added: never "run 6/1".
    expect(formatProgress({ ...event, run: 5, runs: 1, firstRun: 5 })).toBe(
      "[c run-5 (1 of 1)] 50/200 requests  5.0 req/s  errors 2  ETA 30s",
    );
  });
  it("counts a session dataset's sessions against its planned sessions, its requests beside them", () => {
    // Requests against planned sessions would pass the total with the first sessions' later turns.
    expect(formatProgress({ ...event, unit: "sessions", done: 5, total: 20, requests: 37 })).toBe(
      "[c run-0 (1 of 3)] 5/20 sessions (37 requests)  0.5 sessions/s  errors 2  ETA 30s",
    );
  });
  it("prints a line every interval on a plain stream, and the final one", () => {
    const lines: string[] = [];
    let now = 0;
    const sink = streamProgress(
      { write: (text: string) => lines.push(text) },
      { intervalMs: 5000, now: () => now },
    );
    sink.update(event);
    now = 1000;
    sink.update({ ...event, done: 60 });
    now = 6000;
    sink.update({ ...event, done: 120 });
    now = 6500;
    sink.update({ ...event, done: 200 });
    expect(lines.map((line) => /\] (\S+) requests/.exec(line)?.[1])).toEqual([
      "50/200",
      "120/200",
      "200/200",
    ]);
  });
});
