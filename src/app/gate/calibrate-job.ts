import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { calibrateFromRuns } from "../../compare/calibration/calibration.js";
import { conditionsHash } from "../../compare/history/history.js";
import { settingsFromConfig } from "../../compare/index.js";
import { loadRuns } from "../../compare/inputs/load.js";
import { renderCalibrationReport } from "../../report/calibration.js";
import { measureOnDevices } from "../measure-on-devices.js";
import { readHistoryForCalibration } from "./history.js";
import { outputNames } from "./job-io.js";
import type { JobScope } from "./job-scope.js";
import { measureRequestOf, measureRuns } from "./measure-candidate.js";
import type { ActionResult } from "./orchestrator-types.js";

/**
 * The action's `calibrate` mode (docs/calibration.md): the job's config measured as two sides in
 * alternation (side A in the evidence's baseline directory, B in its candidate directory, the order of
 * the interleaved gate), summarised into evidence/calibration.json by the gate's own analysis; the
 * summary shows it. `max-runs` is the runs per side (default repeats.max), `cells` limits the cells.
 * Main's history (the history input's store, read and checked as the gate reads it) gives the
 * between-session drift: its last history-sessions sessions under the A/A runs' conditions.
 */
export async function calibrateJob(scope: JobScope): Promise<ActionResult> {
  const { config } = scope.config;
  const { layout, inputs, io } = scope;
  const runs = inputs.maxRuns ?? config.repeats.max;
  if (runs < 2)
    throw new Error(`mode calibrate needs at least 2 runs per side (input max-runs), got ${runs}`);
  const dirs = { baseline: layout.baselineSideDir, candidate: layout.candidateDir };
  for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
  // The interleaved gate's schedule, on the runner's devices as the gate measures (measure-on-devices.ts).
  await measureOnDevices({
    sides: [
      { side: "baseline", config },
      { side: "candidate", config },
    ],
    step: { firstRun: 0, runs, cells: inputs.cells },
    config,
    measureBlock: (side, block) =>
      measureRuns(scope, {
        configPath: scope.configPath,
        config: scope.config,
        resultsDir: dirs[side],
        side,
        ...measureRequestOf(block),
      }),
  });
  const a = await loadRuns([layout.baselineSideDir], "calibration a");
  const b = await loadRuns([layout.candidateDir], "calibration b");
  const first = a[0] ?? b[0];
  const history = await readHistoryForCalibration(scope, first ? conditionsHash(first.fingerprint) : null);
  const file = calibrateFromRuns({
    a,
    b,
    settings: settingsFromConfig(config),
    ...(history && history.runs.length > 0 ? { history: history.runs } : {}),
    now: scope.deps.now(),
  });
  const path = join(layout.evidenceDir, "calibration.json");
  await scope.outbound.writeFile(path, `${JSON.stringify(file, null, 2)}\n`);
  const report = renderCalibrationReport(file, history);
  await scope.outbound.writeFile(layout.reportPath, report);
  await io.appendSummary(report);
  io.info(`A/A calibration written to ${path}`);
  io.setOutput(outputNames.verdict, "calibrated");
  io.setOutput(outputNames.reportPath, layout.reportPath);
  return {
    verdict: "calibrated",
    failed: false,
    failureMessage: null,
    reportPath: layout.reportPath,
    resultsDir: layout.candidateDir,
    commentUrl: null,
    baselineSha: null,
  };
}
