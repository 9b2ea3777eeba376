import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type ComparisonReport, compareAndRender } from "../../src/app/compare.js";
import { defaultCompareSettings } from "../../src/compare/index.js";
import { parseConfigText } from "../../src/config/load.js";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { noisyRuns } from "../compare/fixtures.js";

const repoRoot = resolve(import.meta.dirname, "../..");

/** The cell names of examples/matrix-18.yml (18 cells and the spike), read from the example itself. */
export function matrixCellNames(): string[] {
  const path = resolve(repoRoot, "examples/matrix-18.yml");
  return parseConfigText(readFileSync(path, "utf8"), path, { env: {} }).config.cells.map((cell) => cell.name);
}

/**
 * A comparison of the matrix's 19 cells, 10 runs per side each, where one cell's TTFT is 1.6 times the
 * baseline's (one regression) and every other check is within noise.
 */
export function matrixComparison(): ComparisonReport {
  const cells = matrixCellNames();
  const toRecords = (runs: ReturnType<typeof noisyRuns>, side: string) =>
    runs.map((run) =>
      runRecordFromRunFile(run, `/home/runner/work/_temp/${side}/${run.cell}/run-${run.run}/run.json`),
    );
  const base = cells.flatMap((cell, i) => noisyRuns(10, { seed: i, cell, sd: 0.02 }));
  const cand = cells.flatMap((cell, i) =>
    noisyRuns(10, { seed: 100 + i, cell, sd: 0.02, ttftFactor: i === 0 ? 1.6 : 1 }),
  );
  return compareAndRender({
    baseline: toRecords(base, "baseline"),
    candidate: toRecords(cand, "candidate"),
    settings: defaultCompareSettings(),
    mode: "interleaved",
    now: new Date("2026-11-30T05:00:00Z"),
  });
}
