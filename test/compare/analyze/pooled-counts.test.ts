import { describe, expect, it } from "vitest";
import { analyze } from "../../../src/compare/analyze/analyze.js";
import { guardChecks } from "../../../src/compare/analyze/guards.js";
import { effectiveCounts, pooledCountsDesign } from "../../../src/compare/analyze/pooled-counts.js";
import { defaultCompareSettings } from "../../../src/compare/index.js";
import type { RunGuards } from "../../../src/metrics/guards.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { pooledDesignEffect } from "../../../src/stats/two-level.js";
import { makeRunFile, steadyFactors } from "../fixtures.js";

/**
 * The checks on counts pooled over a side's runs (error rate, quality guards) with server starts
 * (docs/compare.md, "Server starts"): failures and finish reasons come in bursts of a run or a start,
 * which a test on independent requests reads as certainty.
 */

/**
 * A side of `starts.length` server starts, 3 runs each, run i of start s failing `starts[s]` of its
 * 1,200 requests (the same count in each run of a start: the start is the burst).
 */
function side(name: string, starts: readonly number[]): RunRecord[] {
  return starts.flatMap((failed, s) =>
    [0, 1, 2].map((k) => {
      const run = s * 3 + k;
      const record = runRecordFromRunFile(
        makeRunFile({ run, slowdown: steadyFactors[run % 10]!, failed }),
        `${name}/chat/run-${run}/run.json`,
      );
      return { ...record, serverStart: { id: `${name}-start-${s}`, basis: "recorded" as const } };
    }),
  );
}

function compareSides(baseline: RunRecord[], candidate: RunRecord[]) {
  const settings = defaultCompareSettings();
  return analyze({
    baseline,
    candidate,
    gate: { ...settings.gate, error_rate_limit: 0.5 },
    repeats: { ...settings.repeats, block: 3 },
    mode: "interleaved",
    now: "2026-12-07T00:00:00.000Z",
    tool: { name: "test", version: "0" },
  });
}

describe("the error rate with server starts", () => {
  it("does not block an A/A whose one start failed a burst of requests", () => {
    // Both sides one server; one of the candidate's two starts failed 24 requests a run (2%).
    const verdict = compareSides(side("a", [1, 2]), side("b", [2, 24]));
    const errors = verdict.comparisons.find((c) => c.metric === "error_rate")!;
    // Read as 7,200 independent requests a side, 78 against 9 failures is certain; the starts say the
    // side's rate varies with its start far beyond that, and the counts shrink by that design effect.
    expect(errors.verdict).not.toBe("regression");
    expect(errors.noise?.designEffect).toBeGreaterThan(5);
    expect(errors.noise?.starts).toEqual({ baseline: 2, candidate: 2 });
    expect(errors.noise?.startBasis).toBe("measured");
    expect(errors.note).toMatch(/design effect/);
  });

  it("still blocks a rise that every start shows", () => {
    const verdict = compareSides(side("a", [1, 2]), side("b", [12, 13]));
    const errors = verdict.comparisons.find((c) => c.metric === "error_rate")!;
    expect(errors.verdict).toBe("regression");
    expect(errors.noise?.designEffect).toBe(1);
  });
});

describe("pooledDesignEffect", () => {
  it("is 1 when the runs vary as independent requests do, and their variance ratio when they vary more", () => {
    const share = 0.02;
    const requests = 1000;
    // Per-run shares spread exactly as binomial sampling would (sd √(p(1−p)/n) ≈ 0.0044).
    const binomial = [0.016, 0.024, 0.02, 0.0156, 0.0244, 0.02];
    const pooled = share * (1 - share) * (2 / (6 * requests));
    expect(pooledDesignEffect({ values: binomial }, { values: binomial }, pooled).factor).toBe(1);
    const bursty = [0.002, 0.004, 0.003, 0.05, 0.052, 0.051];
    const starts = ["s1", "s1", "s1", "s2", "s2", "s2"];
    const effect = pooledDesignEffect(
      { values: bursty, starts },
      { values: binomial, starts: ["t1", "t1", "t1", "t2", "t2", "t2"] },
      pooled,
    );
    expect(effect.factor).toBeCloseTo(effect.levels!.standardError ** 2 / pooled, 9);
    expect(effect.factor).toBeGreaterThan(10);
  });

  it("divides counts into whole numbers for the exact tests", () => {
    expect(effectiveCounts({ count: 30, total: 6000 }, 4)).toEqual({ count: 8, total: 1500 });
    expect(effectiveCounts({ count: 30, total: 6000 }, 1)).toEqual({ count: 30, total: 6000 });
    expect(pooledCountsDesign([{ value: 0.1, start: "a" }], [], 0.01)).toEqual({ factor: 1, noise: null });
  });
});

describe("the quality guards with server starts", () => {
  const guards = (requests: number, length: number, truncated: number): RunGuards => ({
    ignoreEos: false,
    requests,
    finish: { stop: requests - length, length, abort: 0, other: 0 },
    zeroOutput: 0,
    usageMismatch: 0,
    outputTokens: { count: requests, mean: 120 + truncated, std: 30 },
    outputToMaxTokens: 0.5,
  });
  const runs = (name: string, perStart: readonly number[]): RunRecord[] =>
    perStart.flatMap((length, s) =>
      [0, 1, 2].map((k) => ({
        ...runRecordFromRunFile(makeRunFile({ run: s * 3 + k }), `${name}/chat/run-${s * 3 + k}/run.json`),
        guards: guards(400, length, 0),
        serverStart: { id: `${name}-${s}`, basis: "recorded" as const },
      })),
    );

  it("widen the share's test by what the starts show, and report it", () => {
    // The candidate's second start truncates 40 of 400 (10%) where the others truncate 4 (1%).
    const checks = guardChecks(
      [{ cell: "chat", base: runs("a", [4, 4]), cand: runs("b", [4, 40]), tooFew: false }],
      {
        guards: { enabled: true, share_points: 0.02, output_length_tolerance: 0.1 },
        metricTolerance: {},
        alpha: 0.05,
      },
      [],
    )!;
    const length = checks.find((check) => check.metric === "finish_length_share")!;
    expect(length.candidate! - length.baseline!).toBeGreaterThan(0.02);
    // 216 against 24 of 2,400 requests a side is certain for Fisher's test; with the starts' design
    // effect it is not, and the check says why.
    expect(length.noise?.designEffect).toBeGreaterThan(5);
    expect(length.verdict).toBe("within-tolerance");
    expect(length.note).toMatch(/design effect/);
    const zero = checks.find((check) => check.metric === "zero_output_share")!;
    expect(zero.noise?.designEffect).toBe(1);
  });
});
