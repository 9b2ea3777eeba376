import { describe, expect, it } from "vitest";
import { analyze } from "../../src/compare/analyze.js";
import { defaultCompareSettings } from "../../src/compare/index.js";
import { type RunRecord, runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { makeRunFile, steadyFactors } from "./fixtures.js";

/**
 * An A/A whose sides each ran on one server start: the runs of a side agree within 0.4%, but the two
 * starts drew speeds 3% apart (what a start does on a GPU: allocator and KV layout, autotuning picks).
 */
function side(name: string, startFactor: number, start: RunRecord["serverStart"] | null): RunRecord[] {
  return ["chat", "rag", "longgen"].flatMap((cell) =>
    steadyFactors.slice(0, 5).map((factor, run) => {
      const record = runRecordFromRunFile(
        makeRunFile({ cell, run, slowdown: factor * startFactor }),
        `${name}/${cell}/run-${run}/run.json`,
      );
      return start ? { ...record, serverStart: start } : record;
    }),
  );
}

function compareSides(baseline: RunRecord[], candidate: RunRecord[]) {
  const settings = defaultCompareSettings();
  return analyze({
    baseline,
    candidate,
    gate: settings.gate,
    repeats: { ...settings.repeats, block: 5 },
    mode: "interleaved",
    now: "2026-12-07T00:00:00.000Z",
    tool: { name: "test", version: "0" },
  });
}

describe("the server start as a level of the noise", () => {
  it("does not call an A/A of one start a side a significant change, however tightly its runs agree", () => {
    const verdict = compareSides(
      side("a", 1, { id: "start-a", basis: "recorded" }),
      side("b", 1.03, { id: "start-b", basis: "recorded" }),
    );
    const tested = verdict.comparisons.filter((c) => c.gated && c.ci90 !== null);
    expect(tested.length).toBeGreaterThan(0);
    for (const check of tested) {
      // The 90% interval holds "no change": one start a side cannot tell the change from the starts.
      expect(check.ci90![0]).toBeLessThan(1);
      expect(check.ci90![1]).toBeGreaterThan(1);
      expect(check.verdict).not.toBe("regression");
      expect(check.noise?.starts).toEqual({ baseline: 1, candidate: 1 });
      expect(check.noise?.startBasis).toBe("prior");
    }
    expect(verdict.verdict).not.toBe("regression");
  });

  it("reads the same runs as a certain 3% change when each run is taken as its own start", () => {
    // What compare concluded before it knew the start: the runs' tight spread alone.
    const verdict = compareSides(side("a", 1, null), side("b", 1.03, null));
    const ttft = verdict.comparisons.find((c) => c.cell === "chat" && c.metric === "ttft_p95")!;
    expect(ttft.ci90![0]).toBeGreaterThan(1.02);
    expect(ttft.noise?.startBasis).toBe("fresh");
  });

  it("says when the runs did not record their start and were taken as one start per input", () => {
    const verdict = compareSides(
      side("a", 1, { id: "unrecorded:baseline:a", basis: "assumed-shared" }),
      side("b", 1, { id: "unrecorded:candidate:b", basis: "assumed-shared" }),
    );
    expect(verdict.warnings.join("\n")).toMatch(/15 baseline runs did not record the server start/);
    expect(verdict.warnings.join("\n")).toMatch(/--fresh-starts/);
  });

  it("measures the start level from several starts a side and says so", () => {
    const starts = (name: string) => (run: RunRecord, i: number) => ({
      ...run,
      serverStart: { id: `${name}-${i % 5 < 2 ? 0 : i % 5 < 4 ? 1 : 2}`, basis: "recorded" as const },
    });
    const verdict = compareSides(side("a", 1, null).map(starts("a")), side("b", 1, null).map(starts("b")));
    const check = verdict.comparisons.find((c) => c.cell === "chat" && c.metric === "ttft_p95")!;
    expect(check.noise?.starts).toEqual({ baseline: 3, candidate: 3 });
    expect(check.noise?.startBasis).toBe("measured+prior");
    expect(check.noise?.priorSource).toBe("gate.noise_prior.ttft");
  });
});
