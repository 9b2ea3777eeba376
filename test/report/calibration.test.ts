import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { calibrateFromRuns } from "../../src/compare/calibration/calibration.js";
import { defaultCompareSettings } from "../../src/compare/index.js";
import { loadRuns } from "../../src/compare/inputs/load.js";
import { renderCalibration, renderCalibrationReport } from "../../src/report/calibration.js";
import { noisyRuns, writeResultsDir } from "../compare/fixtures.js";

async function calibrationFile() {
  const dir = await mkdtemp(join(tmpdir(), "calibration-report-"));
  const a = await writeResultsDir(join(dir, "a"), noisyRuns(4, { seed: 1, sd: 0.03 }));
  const b = await writeResultsDir(join(dir, "b"), noisyRuns(4, { seed: 101, sd: 0.03 }));
  return calibrateFromRuns({
    a: await loadRuns([a], "a"),
    b: await loadRuns([b], "b"),
    settings: defaultCompareSettings(),
    now: new Date("2026-12-01T12:00:00Z"),
    resplits: 3,
  });
}

describe("renderCalibrationReport", () => {
  it("puts the summary in a code block, then the history line and where the file is", async () => {
    const file = await calibrationFile();
    const report = renderCalibrationReport(file, {
      store: "branch:perf-history",
      sessionsUsed: 5,
      leftOut: 2,
      refused: null,
    });
    const summary = renderCalibration(file);
    expect(summary.endsWith("\n")).toBe(true);
    expect(report).toBe(
      [
        "### vllm-perf-gate: A/A calibration of this runner",
        "",
        "```",
        `${summary}\`\`\``,
        "",
        "Between-session drift from 5 session(s) of main's history (`branch:perf-history`), 2 left out (recorded under other conditions).",
        "",
        "The file is `calibration.json` in the evidence artifact; give it to the gate with the `calibration` input (docs/calibration.md).",
        "",
      ].join("\n"),
    );
  });

  it("says when the history input is off, and escapes a refusal's reason", async () => {
    const file = await calibrationFile();
    expect(renderCalibrationReport(file, null)).toContain(
      "```\n\nBetween-session drift: none (history: off).\n\nThe file is `calibration.json`",
    );
    const refused = renderCalibrationReport(file, {
      store: "artifact",
      sessionsUsed: 0,
      leftOut: 0,
      refused: "<b>bad</b> [x](http://e)",
    });
    expect(refused).not.toContain("<b>");
    expect(refused).toContain("was refused:");
  });
});
