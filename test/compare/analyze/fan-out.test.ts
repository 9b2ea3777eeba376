import { describe, expect, it } from "vitest";
import { compareAndRender } from "../../../src/app/compare.js";
import { defaultCompareSettings } from "../../../src/compare/index.js";
import { verdictFileSchema } from "../../../src/compare/verdict/verdict-schema.js";
import { runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import type { RunFile } from "../../../src/metrics/run-schema.js";
import { summarize } from "../../../src/metrics/summary.js";
import { noisyRuns } from "../fixtures.js";

/**
 * Session runs of cell `cell`: its e2e latencies as session durations, and, with `fanOutMs`, fan-outs
 * whose completion is that many ms times the run's own noise.
 */
function sessionRuns(cell: string, seed: number, fanOutMs: number | null): RunFile[] {
  return noisyRuns(5, { seed, cell, sd: 0.01 }).map((run) => {
    const noise = run.latency.e2el.p50! / noisyRuns(1, { seed: 0, sd: 0 })[0]!.latency.e2el.p50!;
    return {
      ...run,
      sessions: {
        started: 40,
        completed: 40,
        requests: 400,
        throughput: 1,
        goodput: null,
        duration: run.latency.e2el,
        cacheHitRate: 0.8,
        serverCacheHitRate: 0.8,
        ttftByDepth: [],
        contamination: { firstTurns: 40, aboveSharedPrefix: 0, flagged: false },
        ...(fanOutMs === null
          ? {}
          : {
              fanOut: {
                fanOuts: 40,
                completed: 40,
                branches: 160,
                completion: summarize(
                  Array.from({ length: 40 }, (_, k) => fanOutMs * noise * (1 + (k % 5) / 20)),
                ),
                spread: summarize(Array.from({ length: 40 }, () => fanOutMs * noise * 0.1)),
              },
            }),
      },
    };
  });
}

function compare(base: RunFile[], cand: RunFile[]) {
  const settings = defaultCompareSettings();
  settings.gate.metrics = ["fan_out_completion_p95", "session_duration_p95"];
  const records = (runs: RunFile[], side: string) =>
    runs.map((run) => runRecordFromRunFile(run, `${side}/${run.cell}/run-${run.run}/run.json`));
  const outcome = compareAndRender({
    baseline: records(base, "b"),
    candidate: records(cand, "c"),
    settings,
    mode: "interleaved",
    now: new Date("2026-11-30T05:00:00Z"),
  });
  verdictFileSchema.parse(outcome.verdict);
  return outcome;
}

describe("the fan-out completion time in compare", () => {
  it("gates it in the cells that fan out and skips it in the session cells that do not", () => {
    const base = [...sessionRuns("fanout", 1, 800), ...sessionRuns("plain", 2, null)];
    // The candidate's branches serialize: each fan-out waits about four times as long.
    const cand = [...sessionRuns("fanout", 3, 3200), ...sessionRuns("plain", 4, null)];
    const outcome = compare(base, cand);
    const row = (cell: string, metric: string) =>
      outcome.verdict.comparisons.find((entry) => entry.cell === cell && entry.metric === metric);
    expect(row("fanout", "fan_out_completion_p95")).toMatchObject({ gated: true, verdict: "regression" });
    expect(row("fanout", "fan_out_completion_p95")!.ratio!).toBeGreaterThan(3.5);
    // The advisory p50 has a value on both sides; a cell without fan-outs has no fan-out rows at all,
    // not an open check.
    expect(row("fanout", "fan_out_completion_p50")).toMatchObject({ gated: false });
    expect(row("plain", "fan_out_completion_p95")).toBeUndefined();
    expect(row("plain", "session_duration_p95")).toMatchObject({ gated: true, verdict: "within-tolerance" });
    expect(outcome.verdict.verdict).toBe("regression");
    expect(outcome.reportMarkdown).toContain("Fan-out completion p95");
    expect(outcome.reportMarkdown).toContain("for a fan-out's slowest branch");
  });

  it("passes the same fan-outs on both sides", () => {
    const outcome = compare(
      [...sessionRuns("fanout", 5, 800), ...sessionRuns("plain", 6, null)],
      [...sessionRuns("fanout", 7, 800), ...sessionRuns("plain", 8, null)],
    );
    expect(outcome.verdict.verdict).toBe("pass");
  });
});
