import { describe, expect, it } from "vitest";
import { fanOutTimes } from "../../src/metrics/fan-out-metrics.js";
import { computeSessionMetrics } from "../../src/metrics/session-metrics.js";
import type { RequestRecord } from "../../src/runner/request-schema.js";
import { requestRecord as record } from "./records.js";

let nextIndex = 0;
/** A request of session `session`'s turn `turn` (branch `branch` of `branches`), sent and ended at these ms. */
function turnRecord(
  session: number,
  turn: number,
  sentMs: number,
  endMs: number,
  extra: { branch?: number; branches?: number; toolRound?: number; ok?: boolean; cached?: number } = {},
): RequestRecord {
  const ok = extra.ok ?? true;
  return record({
    index: nextIndex,
    requestId: `r${nextIndex++}`,
    scheduledMs: sentMs,
    readyMs: sentMs,
    sentMs,
    socketMs: sentMs,
    headersMs: sentMs,
    chunksUs: ok ? [(sentMs + 5) * 1000, endMs * 1000] : [],
    endMs,
    ok,
    ...(ok
      ? { outputTokens: 2 }
      : { errorKind: "http_500", error: "boom", httpStatus: 500, finishReason: null }),
    promptTokens: 100,
    // Its own text is the whole prompt (no shared system prompt), long enough to be checked.
    targetInputTokens: 100,
    cachedTokens: extra.cached ?? 0,
    session: {
      index: session,
      turn,
      turns: 2,
      toolRound: extra.toolRound ?? 0,
      ...(extra.branch !== undefined ? { branch: extra.branch, branches: extra.branches ?? 3 } : {}),
    },
  });
}

describe("fan-out times of a run's records", () => {
  it("times each fan-out from its first branch's send to its slowest branch's last answer", () => {
    const records = [
      turnRecord(0, 0, 0, 50),
      // Three branches sent at 100 (one a millisecond late); branch 2's tool round ends last, at 400.
      turnRecord(0, 1, 100, 180, { branch: 0 }),
      turnRecord(0, 1, 101, 250, { branch: 1 }),
      turnRecord(0, 1, 100, 200, { branch: 2 }),
      turnRecord(0, 1, 300, 400, { branch: 2, toolRound: 1 }),
      turnRecord(1, 0, 10, 40, { branch: 0, branches: 2 }),
      turnRecord(1, 0, 10, 70, { branch: 1, branches: 2 }),
      turnRecord(1, 1, 90, 120),
    ];
    expect(fanOutTimes(records)).toEqual([
      { session: 0, turn: 1, branches: 3, sent: 3, completed: true, completionMs: 300, spreadMs: 220 },
      { session: 1, turn: 0, branches: 2, sent: 2, completed: true, completionMs: 60, spreadMs: 30 },
    ]);
    const summary = computeSessionMetrics(records, {
      durationS: 1,
      sharedPrefixTokens: 0,
      serverHitRate: null,
    })!;
    expect(summary.completed).toBe(2);
    expect(summary.fanOut).toMatchObject({ fanOuts: 2, completed: 2, branches: 5 });
    expect(summary.fanOut!.completion).toMatchObject({ count: 2, p50: 180, mean: 180 });
    expect(summary.fanOut!.spread).toMatchObject({ count: 2, p50: 125 });
  });

  it("leaves a fan-out with a failed or unsent branch out of the times, and its session incomplete", () => {
    const records = [
      turnRecord(0, 0, 0, 50, { branch: 0 }),
      turnRecord(0, 0, 0, 60, { branch: 1, ok: false }),
      turnRecord(0, 0, 0, 55, { branch: 2 }),
      // Session 1's fan-out sent two of its three branches (the run stopped).
      turnRecord(1, 0, 0, 40),
      turnRecord(1, 1, 50, 90, { branch: 0 }),
      turnRecord(1, 1, 50, 95, { branch: 1 }),
      // Session 2 completes.
      turnRecord(2, 0, 0, 30),
      turnRecord(2, 1, 40, 80, { branch: 0, branches: 1 }),
    ];
    const times = fanOutTimes(records);
    expect(times.map((time) => [time.session, time.sent, time.completed, time.completionMs])).toEqual([
      [0, 3, false, null],
      [1, 2, false, null],
      [2, 1, true, 40],
    ]);
    const summary = computeSessionMetrics(records, {
      durationS: 1,
      sharedPrefixTokens: 0,
      serverHitRate: null,
    })!;
    expect(summary.completed).toBe(1);
    expect(summary.fanOut).toMatchObject({ fanOuts: 3, completed: 1, branches: 6 });
    expect(summary.fanOut!.completion.count).toBe(1);
  });

  it("has no fan-out summary for sessions without fan-outs", () => {
    const summary = computeSessionMetrics([turnRecord(0, 0, 0, 10), turnRecord(0, 1, 20, 30)], {
      durationS: 1,
      sharedPrefixTokens: 0,
      serverHitRate: null,
    })!;
    expect(summary.fanOut).toBeUndefined();
  });

  it("checks a fanned-out first turn for an earlier run's cache by the branch that found the least", () => {
    // The first branch admitted computed the shared prefix; the others hit it. That is no contamination;
    // every branch finding it cached is.
    const clean = [0, 1, 2].map((branch) =>
      turnRecord(branch, 0, 0, 10, { branch: 0, branches: 3, cached: 0 }),
    );
    const fanned = [
      turnRecord(5, 0, 0, 10, { branch: 0, cached: 0 }),
      turnRecord(5, 0, 0, 10, { branch: 1, cached: 96 }),
      turnRecord(5, 0, 0, 10, { branch: 2, cached: 96 }),
    ];
    const warm = [
      turnRecord(6, 0, 0, 10, { branch: 0, cached: 96 }),
      turnRecord(6, 0, 0, 10, { branch: 1, cached: 96 }),
      turnRecord(6, 0, 0, 10, { branch: 2, cached: 96 }),
    ];
    const options = { durationS: 1, sharedPrefixTokens: 0, serverHitRate: null };
    const ok = computeSessionMetrics([...clean, ...fanned], options)!;
    expect(ok.contamination).toEqual({ firstTurns: 4, aboveSharedPrefix: 0, flagged: false, checked: true });
    const flagged = computeSessionMetrics([...clean, ...warm], options)!;
    expect(flagged.contamination).toEqual({
      firstTurns: 4,
      aboveSharedPrefix: 1,
      flagged: true,
      checked: true,
    });
  });
});
