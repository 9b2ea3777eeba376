import { describe, expect, it } from "vitest";
import { compareAndRender } from "../../../src/app/compare.js";
import { defaultCompareSettings } from "../../../src/compare/index.js";
import { verdictFileSchema } from "../../../src/compare/verdict/verdict-schema.js";
import { runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import type { RunFile } from "../../../src/metrics/run-schema.js";
import { runsWithFactors, steadyFactors } from "../fixtures.js";

const records = (runs: RunFile[], side: string) =>
  runs.map((run, i) => runRecordFromRunFile(run, `${side}/${run.cell}/run-${i}/run.json`));

function compareAt(runs: number, shift: number) {
  const settings = defaultCompareSettings();
  const outcome = compareAndRender({
    baseline: records(runsWithFactors(steadyFactors.slice(0, runs)), "baseline"),
    candidate: records(
      runsWithFactors(steadyFactors.slice(0, runs).map((f, k) => f * shift * (k % 2 ? 1.002 : 0.998))),
      "candidate",
    ),
    settings,
    mode: "interleaved",
    now: new Date("2026-12-02T05:00:00Z"),
  });
  verdictFileSchema.parse(outcome.verdict);
  return outcome;
}

describe("at the tolerance", () => {
  it("stops asking for runs when the estimate sits on the tolerance, and says so with the interval", () => {
    // Every latency +5% at a 5% tolerance: undecidable by design; at 10 runs a side the projection to
    // repeats.max (25) cannot decide it either way.
    const outcome = compareAt(10, 1.05);
    const { verdict } = outcome;
    expect(verdict.verdict).toBe("inconclusive");
    expect(verdict.nextLook).toBeNull();
    const ttft = verdict.atTolerance?.find((c) => c.metric === "ttft_p95");
    expect(ttft).toBeDefined();
    expect(ttft!.ci[0]).toBeLessThan(1.05);
    expect(ttft!.ci[1]).toBeGreaterThan(1.05);
    expect(outcome.reportMarkdown).toMatch(
      /At the tolerance:\*\* .*TTFT p95.* in chat \+\d+\.\d% … \+\d+\.\d% \(tolerance 5%\)/,
    );
    expect(outcome.commentMarkdown).toContain("At the tolerance:");
  });

  it("keeps adding runs below the runs a side it trusts the variance estimates at", () => {
    const { verdict } = compareAt(5, 1.05);
    expect(verdict.nextLook).not.toBeNull();
    expect(verdict.atTolerance).toBeUndefined();
  });

  it("keeps adding runs for a change more runs can still decide", () => {
    // +10%: blocked or on its way to it, never called at the tolerance.
    const { verdict } = compareAt(10, 1.1);
    expect(verdict.atTolerance).toBeUndefined();
  });
});
