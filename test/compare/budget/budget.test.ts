import { describe, expect, it } from "vitest";
import { compareRecords, defaultCompareSettings } from "../../../src/compare/index.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { makeRunFile, steadyFactors } from "../fixtures.js";

/**
 * A comparison under a budget (compare/budget/budget.ts): a check whose runs cannot catch gate.detect_change
 * within the budget is "not decidable at this budget": it holds no verdict open and asks for no runs,
 * while what the budget can decide is decided as before.
 */
function side(name: string, slowdown: number, runs: number, spread = 1): RunRecord[] {
  return ["chat"].flatMap((cell) =>
    Array.from({ length: runs }, (_, run) => {
      const factor = 1 + (steadyFactors[run % steadyFactors.length]! - 1) * spread;
      const record = runRecordFromRunFile(
        makeRunFile({ cell, run, slowdown: factor * slowdown }),
        `${name}/${cell}/run-${run}/run.json`,
      );
      return { ...record, durationS: 60, serverStart: { id: `${name}-${run}`, basis: "recorded" as const } };
    }),
  );
}

function judge(candidateSlowdown: number, spread: number, limit: number | null) {
  const settings = defaultCompareSettings();
  return compareRecords({
    baseline: side("base", 1, 5, spread),
    candidate: side("cand", candidateSlowdown, 5, spread),
    settings: {
      ...settings,
      repeats: { ...settings.repeats, min: 5, max: 5, block: 1 },
      ...(limit === null
        ? {}
        : {
            budget: {
              limitGpuMinutes: limit,
              plan: { gpuMinutes: 40, runsPerSide: 5, runsPerStart: 1, requests: { chat: 200 } },
            },
          }),
    },
    mode: "interleaved",
    now: new Date("2026-12-07T00:00:00Z"),
  }).verdict;
}

describe("a comparison under a budget", () => {
  it("reports a check it cannot decide within the budget, and no longer holds the verdict open for it", () => {
    // Runs that vary by ~25x the steady spread: at 5 runs a side some checks stay undecided.
    const without = judge(1, 25, null);
    expect(without.verdict).toBe("inconclusive");
    const within = judge(1, 25, 30);
    expect(within.budget?.limitGpuMinutes).toBe(30);
    const open = within.comparisons.filter((c) => c.gated && c.verdict === "inconclusive");
    expect(open.length).toBeGreaterThan(0);
    for (const check of open) {
      expect(check.budget?.decidable).toBe(false);
      expect(check.budget?.detectableAtSpend).toBe(check.detectableChange);
      if (check.budget?.gpuMinutesToDecide != null)
        expect(check.budget.gpuMinutesToDecide).toBeGreaterThan(30);
    }
    expect(within.budget?.notDecidable).toBe(open.length);
    expect(within.verdict).toBe("pass");
    expect(within.exitCode).toBe(0);
    expect(within.nextLook).toBeNull();
  });

  it("still blocks a regression its runs show beyond doubt", () => {
    const verdict = judge(1.5, 1, 30);
    expect(verdict.verdict).toBe("regression");
    expect(verdict.exitCode).toBe(1);
  });

  it("a budget with room left keeps an undecided check open for the runs it can still buy", () => {
    const verdict = judge(1, 25, 1_000_000);
    const open = verdict.comparisons.filter((c) => c.gated && c.verdict === "inconclusive");
    for (const check of open)
      if (check.runsToDetectChange != null) expect(check.budget?.decidable).toBe(true);
    expect(verdict.budget?.notDecidable).toBe(open.filter((c) => c.budget?.decidable === false).length);
  });
});
