import type { CellConfig } from "../config/schema.js";
import { SessionCache } from "../runner/run-cells.js";
import { InputError } from "../util/errors.js";
import { type RunCellsOptions, type RunOutput, runCells } from "./run-cells.js";

/**
 * Load sweeps and capacity searches (docs/capacity.md): one cell measured at several loads, one run per
 * load asked for, all in the cell's directory (DIR/<cell>/run-<k>/, numbered on) with the load each ran at
 * in run.json (`load.targetRate` or `load.targetConcurrency`). The loads come from the caller: a fixed list
 * for a sweep, or a planner that looks at the runs so far (the capacity search). Runs reuse the cell's
 * server (per-cell lifecycle) across loads, as runCells does across runs.
 */

/** The cell with its load dimension set to `load`: the rate (max_concurrency kept) or the concurrency. */
function cellAtLoad(cell: CellConfig, load: number): CellConfig {
  switch (cell.load.type) {
    case "rate":
      return { ...cell, load: { ...cell.load, rate: load } };
    case "concurrency":
      return { ...cell, load: { ...cell.load, concurrency: Math.max(1, Math.round(load)) } };
    case "stages":
      throw new InputError(
        `cells[${cell.name}].load.type: expected rate or concurrency for a sweep or capacity search (the load dimension searched), got stages`,
      );
  }
}

/** The loads of a sweep form, ascending, each `runs` times (runs of one load back to back). */
export function sweepLoads(sweep: NonNullable<CellConfig["sweep"]>, integer: boolean): number[] {
  const round = (x: number) => (integer ? Math.max(1, Math.round(x)) : Number(x.toPrecision(3)));
  const loads =
    "loads" in sweep
      ? [...new Set(sweep.loads.map(round))].sort((a, b) => a - b)
      : [
          ...new Set(
            Array.from({ length: sweep.count }, (_, i) =>
              round(sweep.from * (sweep.to / sweep.from) ** (i / (sweep.count - 1))),
            ),
          ),
        ].sort((a, b) => a - b);
  return loads.flatMap((load) => new Array<number>(sweep.runs).fill(load));
}

export interface LoadSearchOptions
  extends Omit<RunCellsOptions, "cells" | "runs" | "firstRun" | "firstRunByCell" | "sessions"> {
  cell: CellConfig;
  /** Index of the first run written (after existing runs with --append). */
  firstRun: number;
  /**
   * Given every run of this search so far (in order), the loads to measure next (one run each, in this
   * order), or null when the search is done.
   */
  next: (runs: readonly RunOutput[]) => readonly number[] | null;
}

export interface LoadSearchResult {
  runs: RunOutput[];
  stoppedBecause: "done" | "aborted";
}

/** Measures the loads `next` asks for until it returns null or the run is interrupted. */
export async function runLoadSearch(options: LoadSearchOptions): Promise<LoadSearchResult> {
  const { cell, next, firstRun, ...rest } = options;
  const sessions = new SessionCache();
  const runs: RunOutput[] = [];
  const aborted = () => options.signal?.aborted === true || options.shouldAbort?.() === true;
  try {
    for (let loads = next(runs); loads !== null && loads.length > 0; loads = next(runs)) {
      for (const load of loads) {
        if (aborted()) return { runs, stoppedBecause: "aborted" };
        const atLoad = cellAtLoad(cell, load);
        const index = firstRun + runs.length;
        options.progress?.message(`${cell.name}: load ${load} (${cell.load.type})`);
        const result = await runCells({
          ...rest,
          config: { ...options.config, cells: [atLoad] },
          runs: 1,
          firstRunByCell: { [cell.name]: index },
          sessions,
        });
        runs.push(...result.runs);
        if (result.runs.length === 0) return { runs, stoppedBecause: "aborted" };
      }
    }
    return { runs, stoppedBecause: aborted() ? "aborted" : "done" };
  } finally {
    await sessions.close();
  }
}
