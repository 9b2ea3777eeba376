import { dirname, join } from "node:path";
import { type Config, isSearchedCell } from "../config/schema.js";
import { selectCells } from "../config/select-cells.js";
import { cutShortLine } from "../report/status.js";
import type { ProgressSink } from "../runner/progress.js";
import type { Outbound } from "../server/outbound.js";
import { providerForConfig } from "../server/provider.js";
import type { ServerProvider } from "../server/types.js";
import type { MeasureRequest } from "./gate/dependencies.js";
import { existingRunIndices, type RunOutput, runCells } from "./run-cells.js";
import { runSweepCells } from "./run-sweep.js";

/**
 * Measuring for a job (the action's measure step, both sides): the cells measured at one load get the
 * runs the job asks for (./run-cells.ts); capacity cells are searched and sweep cells swept
 * (./run-sweep.ts, docs/capacity.md), so compare reads a curve on each side and gives the capacity verdict.
 */

/** What measuring for a job needs from outside: the environment, where progress and warnings go, an interrupt. */
export interface MeasureAdapters {
  env: Readonly<Record<string, string | undefined>>;
  progress: ProgressSink;
  warn: (message: string) => void;
  signal?: AbortSignal;
}

/**
 * The runs a job asked for, on servers of the config it loaded (recorded in the state file so the
 * post step can stop what a cancelled job left), stopped afterwards. An interrupt keeps the runs so
 * far and then throws; cut-short runs are kept and flagged, compare decides what they may still prove.
 */
export async function measureRequestedRuns(
  request: MeasureRequest,
  adapters: MeasureAdapters,
): Promise<void> {
  const { signal } = adapters;
  const loaded = request.config;
  const provider = providerForConfig(loaded.config, {
    env: { ...adapters.env },
    interpolation: loaded.interpolation,
    outbound: request.outbound,
    stateFile: request.serverStateFile,
    warn: adapters.warn,
    // A server start is never silent in the job's log: what it awaits, every 10 s (server/readiness.ts).
    progress: (line) => adapters.progress.message(line),
    ...(request.device ? { device: request.device } : {}),
  });
  try {
    const runs = await runRequestedCells(request, {
      config: loaded.config,
      provider,
      baseDir: dirname(loaded.path),
      progress: adapters.progress,
      env: adapters.env,
      outbound: request.outbound,
      ...(signal ? { signal } : {}),
    });
    if (signal?.aborted) {
      throw new Error(
        `interrupted by ${String(signal.reason)}: ${runs.length} run(s) kept in ${request.resultsDir}, the interrupted one marked in its run.json`,
      );
    }
    const cut = runs.filter((run) => run.file.flags.cutShort);
    if (cut.length > 0) adapters.warn(cutShortLine(cut));
  } finally {
    await provider.stopAll();
  }
}

/** What measuring cells needs besides the request: the config, where servers come from, where progress goes. */
export interface CellsMeasuring {
  config: Config;
  provider: ServerProvider;
  /** Directory relative dataset paths are resolved from. */
  baseDir: string;
  progress: ProgressSink;
  env: Readonly<Record<string, string | undefined>>;
  /** The job's output seam: every file of the runs is written through it. */
  outbound: Outbound;
  signal?: AbortSignal;
}

/**
 * The one split of a measuring step (the action's, the demo's): the cells measured at one load get the
 * runs asked for; a capacity cell's search decides its own runs (at most repeats.max per side); asked
 * again (a later look, a later block of interleaved runs) it resumes from the runs in its directory and
 * adds runs only while its interval is wider than its precision. A stored baseline's search
 * (`searchToMaxRuns`) goes on to capacity.max_runs. A sweep cell is measured once, when its directory
 * holds no runs yet. Servers come from `measuring.provider`, which the caller stops.
 */
export async function runRequestedCells(
  request: Pick<
    MeasureRequest,
    | "cells"
    | "firstRun"
    | "runs"
    | "side"
    | "resultsDir"
    | "searchToMaxRuns"
    | "firstRunByCell"
    | "runsByCell"
  >,
  measuring: CellsMeasuring,
): Promise<RunOutput[]> {
  const { config, signal } = measuring;
  const selected = selectCells(config, request.cells ?? undefined);
  const fixed = selected.filter((cell) => !isSearchedCell(cell)).map((cell) => cell.name);
  const searched: string[] = [];
  const firstRunByCell: Record<string, number> = {};
  for (const cell of selected.filter(isSearchedCell)) {
    // A resumed search numbers on after the runs already there (the job's firstRun counts the
    // fixed-load cells' runs, not the search's).
    const next = request.firstRun === 0 ? 0 : nextRunIndex(join(request.resultsDir, cell.name));
    if (cell.capacity === undefined && next > 0) continue;
    searched.push(cell.name);
    firstRunByCell[cell.name] = next;
  }
  const common = {
    config,
    provider: measuring.provider,
    outDir: request.resultsDir,
    baseDir: measuring.baseDir,
    ...(request.side ? { side: request.side } : {}),
    progress: measuring.progress,
    env: measuring.env,
    outbound: measuring.outbound,
    ...(signal ? { signal } : {}),
  };
  const runs: RunOutput[] = [];
  if (fixed.length > 0) {
    const result = await runCells({
      ...common,
      cells: fixed,
      ...(request.runs !== null ? { runs: request.runs } : {}),
      firstRun: request.firstRun,
      ...(request.firstRunByCell ? { firstRunByCell: request.firstRunByCell } : {}),
      ...(request.runsByCell ? { runsByCell: request.runsByCell } : {}),
    });
    runs.push(...result.runs);
  }
  if (searched.length > 0 && !signal?.aborted) {
    const result = await runSweepCells({
      ...common,
      cells: searched,
      firstRun: request.firstRun,
      firstRunByCell,
      // A later look: the searches refine on to the runs per side it asks for
      // (compare/capacity/capacity-looks.ts); a stored baseline's to capacity.max_runs.
      ...(request.searchToMaxRuns === true
        ? { targetRuns: "capacity.max_runs" as const }
        : request.firstRun > 0 && request.runs !== null
          ? { targetRuns: request.firstRun + request.runs }
          : {}),
    });
    runs.push(...result.runs);
  }
  return runs;
}

/** One past the highest run-<k> of a cell directory (0 when it has none). */
function nextRunIndex(cellDir: string): number {
  const indices = existingRunIndices(cellDir);
  return indices.length === 0 ? 0 : Math.max(...indices) + 1;
}
