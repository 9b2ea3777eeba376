import { describe, expect, it } from "vitest";
import { compareRecords, defaultCompareSettings } from "../../src/compare/index.js";
import { runRecordFromRunFile } from "../../src/compare/run-record.js";
import { verdictFileSchema } from "../../src/compare/verdict-schema.js";
import { noisyRuns } from "./fixtures.js";

// The fixtures' runs have a measured phase of 60 s each (test/compare/fixtures.ts makeRunFile).
const side = (count: number, seed: number, name: string) =>
  noisyRuns(count, { seed, sd: 0.01 }).map((run, i) =>
    runRecordFromRunFile(run, `${name}/chat/run-${i}/run.json`),
  );

function compare(mode: "stored" | "interleaved", settings = defaultCompareSettings()) {
  const outcome = compareRecords({
    baseline: side(5, 1, "b"),
    candidate: side(5, 2, "c"),
    settings,
    mode,
    now: new Date("2026-12-01T09:00:00Z"),
  });
  verdictFileSchema.parse(outcome.verdict);
  return outcome;
}

describe("GPU-minutes spent", () => {
  it("interleaved: both sides' runs plus R + 1 starts per look, printed in the report", () => {
    const outcome = compare("interleaved");
    // 5 runs per side reached through the looks at 3 and 5: (3 + 1) + (2 + 1) = 7 starts of 3 min.
    expect(outcome.verdict.gpuMinutes).toEqual({
      total: 10 + 21,
      runs: 10,
      serverStarts: 7,
      serverStartMinutes: 21,
      serverStartS: 180,
      sides: "both",
      runsWithoutDuration: 0,
    });
    expect(outcome.reportMarkdown).toContain(
      "GPU time: ~31 GPU-minutes: 10 min of measured runs on both sides plus 7 server starts at 3.0 min each.",
    );
  });

  it("stored: the candidate's runs and one start per measuring step, at the configured start cost", () => {
    const settings = {
      ...defaultCompareSettings(),
      cost: { serverStartS: 60, lifecycle: "per-cell" as const },
    };
    const outcome = compare("stored", settings);
    expect(outcome.verdict.gpuMinutes).toMatchObject({
      total: 5 + 2,
      runs: 5,
      serverStarts: 2,
      sides: "candidate",
    });
    expect(outcome.reportMarkdown).toContain(
      "GPU time: ~7.0 GPU-minutes: 5.0 min of the candidate's measured runs plus 2 server starts at 1.0 min each (the stored baseline was measured once, in its own job).",
    );
  });
});
