import { describe, expect, it } from "vitest";
import { analyze } from "../../../src/compare/analyze/analyze.js";
import { defaultCompareSettings } from "../../../src/compare/index.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { makeRunFile, steadyFactors } from "../fixtures.js";

/** Five runs of 240 requests a side, the candidate 20% slower; `short` runs of it completed only 195. */
function sides(short: number): { baseline: RunRecord[]; candidate: RunRecord[] } {
  const side = (name: string, slowdown: number, shortRuns: number) =>
    steadyFactors
      .slice(0, 5)
      .map((factor, run) =>
        runRecordFromRunFile(
          makeRunFile({ run, slowdown: slowdown * factor, completed: run < shortRuns ? 195 : 240 }),
          `${name}/chat/run-${run}/run.json`,
        ),
      );
  return { baseline: side("a", 1, 0), candidate: side("b", 1.2, short) };
}

function ttft(short: number) {
  const settings = defaultCompareSettings();
  // The short runs' throughput is lower (fewer requests in the same time): no outlier screen here.
  const verdict = analyze({
    ...sides(short),
    gate: { ...settings.gate, outlier_threshold: 0 },
    repeats: settings.repeats,
    mode: "interleaved",
    now: "2026-12-07T00:00:00.000Z",
    tool: { name: "test", version: "0" },
  });
  return verdict.comparisons.find((c) => c.metric === "ttft_p95")!;
}

describe("runs below gate.min_requests", () => {
  it("leave a gated check, not turn it advisory, while most runs of each side have enough requests", () => {
    const check = ttft(1);
    expect(check.gated).toBe(true);
    expect(check.verdict).toBe("regression");
    expect(check.runs).toEqual({ baseline: 5, candidate: 4 });
    expect(check.note).toMatch(/1 run with fewer than 200 successful requests left out of this check/);
  });

  it("turn the check advisory when most runs of a side are short", () => {
    const check = ttft(3);
    expect(check.gated).toBe(false);
    expect(check.note).toMatch(/advisory: gating p95 needs >= 200 successful requests in every run/);
  });
});
