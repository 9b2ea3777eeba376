import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type CalibrationFile, calibrateFromRuns } from "../compare/calibration/calibration.js";
import { calibrationHistoryRuns, conditionsHash, type HistoryRecord } from "../compare/history/history.js";
import { settingsFromConfig } from "../compare/index.js";
import { loadRuns } from "../compare/inputs/load.js";
import { calibrationAlternation } from "../config/alternation.js";
import type { LoadedConfig } from "../config/load.js";
import { alternation } from "../config/summary.js";
import type { ProgressSink } from "../runner/progress.js";
import type { Outbound } from "../server/outbound.js";
import { providerForConfig } from "../server/provider.js";
import { measureAlternately } from "./adaptive.js";
import { runCells } from "./run-cells.js";

/**
 * The calibrate use case (the CLI's `calibrate`): the config measured as two sides A and B in
 * alternation (the adaptive loop's measureAlternately: A B, B A, ...), then summarised by the gate's own
 * analysis into DIR/calibration.json (compare/calibration/calibration.ts).
 */

export interface CalibrateOptions {
  config: LoadedConfig;
  outDir: string;
  /** Runs per side (at least 2). */
  runs: number;
  cells?: string[];
  /**
   * Main's history (compare/history/history.ts): its sessions under the A/A runs' conditions give the drift.
   */
  history?: readonly HistoryRecord[];
  env: Readonly<Record<string, string | undefined>>;
  /** The job's output seam (server/outbound.ts): every file and log of the runs, and calibration.json. */
  outbound: Outbound;
  progress: ProgressSink;
  warn: (message: string) => void;
  /** Where the servers are recorded so the next start stops those a killed process left (server/state.ts). */
  serverStateFile?: string;
  signal?: AbortSignal;
  now?: Date;
}

export interface CalibrateResult {
  file: CalibrationFile;
  path: string;
}

export async function calibrateRunner(options: CalibrateOptions): Promise<CalibrateResult> {
  const { config } = options.config;
  const provider = providerForConfig(config, {
    env: { ...options.env },
    interpolation: options.config.interpolation,
    outbound: options.outbound,
    ...(options.serverStateFile ? { stateFile: options.serverStateFile } : {}),
    warn: options.warn,
    progress: (line) => options.progress.message(line),
  });
  const sides = [
    { name: "a", dir: join(options.outDir, "a") },
    { name: "b", dir: join(options.outDir, "b") },
  ];
  try {
    await measureAlternately(
      sides,
      { firstRun: 0, runs: options.runs, cells: options.cells ?? null },
      calibrationAlternation(alternation(config)),
      async (side, block) => {
        await runCells({
          config,
          provider,
          outDir: side.dir,
          baseDir: dirname(options.config.path),
          runs: block.runs,
          firstRun: block.firstRun,
          side: `calibration-${side.name}`,
          ...(block.cells ? { cells: block.cells } : {}),
          progress: options.progress,
          outbound: options.outbound,
          ...(options.signal ? { signal: options.signal } : {}),
        });
      },
      () => options.signal?.aborted === true,
    );
  } finally {
    await provider.stopAll();
  }
  if (options.signal?.aborted)
    throw new Error(
      `interrupted by ${String(options.signal.reason)}: the A/A runs so far are kept in ${options.outDir}`,
    );
  const [a, b] = await Promise.all(sides.map((side) => loadRuns([side.dir], `calibration ${side.name}`)));
  const first = a![0] ?? b![0];
  const history =
    options.history && first
      ? calibrationHistoryRuns(options.history, conditionsHash(first.fingerprint), 40).runs
      : undefined;
  const file = calibrateFromRuns({
    a: a!,
    b: b!,
    settings: settingsFromConfig(config),
    ...(history ? { history } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  await mkdir(options.outDir, { recursive: true });
  const path = join(options.outDir, "calibration.json");
  await options.outbound.writeFile(path, `${JSON.stringify(file, null, 2)}\n`);
  return { file, path };
}
