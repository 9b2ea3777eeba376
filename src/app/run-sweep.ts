import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type CapacityCell,
  capacityObjectivesOf,
  capacityRunsOf,
  searchSettingsOf,
} from "../compare/capacity/capacity.js";
import { capacityMaxRuns } from "../config/capacity-summary.js";
import { type CellConfig, isSearchedCell } from "../config/schema.js";
import { selectCells } from "../config/select-cells.js";
import { type RunRecord, runRecordFromRunFile } from "../metrics/run-record.js";
import { runFileSchema } from "../metrics/run-schema.js";
import { nextSearchStep, type SearchSettings, type SearchStep } from "../stats/capacity-plan.js";
import { InputError } from "../util/errors.js";
import {
  existingRunIndices,
  type RunCellsOptions,
  type RunCellsResult,
  type RunOutput,
} from "./run-cells.js";
import { runLoadSearch, sweepLoads } from "./sweep.js";
import { writeCurveOfDir } from "./sweep-curve.js";
import { writeSweepReport } from "./sweep-report.js";

/**
 * `run --sweep` (docs/capacity.md): each selected cell measured over loads instead of N times at its one
 * load. A capacity cell is searched (stats/capacity-plan.ts plans the loads from the runs so far, at most
 * repeats.max runs); a cell with `sweep` measures its list or geometric series. The loop is
 * app/sweep.ts, the plan stats/, the reading of runs compare/capacity/capacity.ts.
 */
export async function runSweepCells(options: SweepCellsOptions): Promise<RunCellsResult> {
  const cells = selectCells(options.config, options.cells);
  for (const cell of cells) {
    if (!isSearchedCell(cell))
      throw new InputError(
        `--sweep: cell "${cell.name}" has neither capacity nor sweep (docs/capacity.md); select cells with --cells or add one`,
      );
  }
  const runs: RunOutput[] = [];
  for (const cell of cells) {
    if (options.signal?.aborted) break;
    const firstRun = options.firstRunByCell?.[cell.name] ?? options.firstRun ?? 0;
    const next =
      cell.capacity !== undefined
        ? capacitySearch(options, cell as CapacityCell, firstRun)
        : fixedSweep(cell.sweep!, cell.load.type === "concurrency");
    const result = await runLoadSearch({ ...options, cell, firstRun, next });
    runs.push(...result.runs);
    if (result.runs.length > 0) await writeCellCurve(options, cell);
    if (result.stoppedBecause === "aborted") break;
  }
  return { runs };
}

type SweepCellsOptions = RunCellsOptions & {
  /**
   * A resumed capacity search refines on to this many runs of the cell, past its precision stop (the
   * gate's next look for an undecided capacity verdict, compare/capacity/capacity-looks.ts); "capacity.max_runs":
   * to each cell's own most (a stored baseline being recorded).
   */
  targetRuns?: number | "capacity.max_runs";
};

/** The loads to measure next from the cell's runs so far; null when the sweep is done. */
type NextLoads = (outputs: readonly RunOutput[]) => readonly number[] | null;

/** A cell with `sweep`: its list or geometric series, once. */
function fixedSweep(sweep: NonNullable<CellConfig["sweep"]>, concurrency: boolean): NextLoads {
  const loads = sweepLoads(sweep, concurrency);
  return (outputs) => (outputs.length === 0 ? loads : null);
}

/**
 * A capacity cell's search: each step planned from every run so far (with `--append`, the runs already
 * in the cell's directory too: an interrupted search resumed, counted against repeats.max), said as it goes.
 */
function capacitySearch(options: SweepCellsOptions, cell: CapacityCell, firstRun: number): NextLoads {
  const progress = options.progress;
  const targetRuns =
    options.targetRuns === "capacity.max_runs"
      ? capacityMaxRuns(options.config.repeats.max, cell)
      : options.targetRuns;
  const settings = searchSettingsOf(options.config, cell, targetRuns);
  const earlier = firstRun > 0 ? existingRecords(join(options.outDir, cell.name)) : [];
  if (earlier.length > 0)
    progress?.message(
      `${cell.name}: capacity search resumes from ${earlier.length} run(s) already in the directory`,
    );
  return (outputs) => {
    const records = [...earlier, ...outputs.map((output) => runRecordFromRunFile(output.file, output.dir))];
    if (records.length >= settings.maxRuns) {
      progress?.message(
        `${cell.name}: capacity search stopped at ${targetRuns === undefined ? "repeats.max" : options.targetRuns === "capacity.max_runs" ? "capacity.max_runs," : "the look's"} ${settings.maxRuns} runs`,
      );
      return null;
    }
    const step = capacitySearchStep(cell, records, settings);
    if (step.kind === "measure") {
      progress?.message(`${cell.name}: capacity search: ${step.reason}: loads ${step.loads.join(", ")}`);
      return step.loads;
    }
    const found = step.estimate;
    const interval = step.interval;
    progress?.message(
      `${cell.name}: capacity search done (${step.reason}): ${step.message}` +
        (found && found.bound === "inside"
          ? `; capacity ${found.capacity.toPrecision(3)} (${found.limiting})${interval ? `, ${Math.round(interval.level * 100)}% interval ${interval.low.toPrecision(3)} to ${interval.high.toPrecision(3)}` : ""}`
          : ""),
    );
    if (step.reason === "below-range" || step.reason === "above-range")
      progress?.message(`warning: ${cell.name}: ${step.message}`);
    return null;
  };
}

/** The cell's load curve (curve.json) and its charts (report.html), once it has runs. */
async function writeCellCurve(options: SweepCellsOptions, cell: CellConfig): Promise<void> {
  const progress = options.progress;
  const cellDir = join(options.outDir, cell.name);
  const curve = writeCurveOfDir(cellDir, cell.name, options.outbound);
  progress?.message(`${cell.name}: load curve written to ${curve}`);
  // The picture never fails a sweep whose runs are on disk: a drawing error is said and the sweep goes on.
  try {
    const report = await writeSweepReport(cellDir, cell, options.config.gate.confidence, options.outbound);
    progress?.message(`${cell.name}: its charts written to ${report} (and report-charts/*.svg beside it)`);
  } catch (error) {
    progress?.message(
      `warning: ${cell.name}: report.html not written (${error instanceof Error ? error.message : String(error)}); the runs and curve.json are kept`,
    );
  }
}

/**
 * The search's next step from every run of the cell so far (excluded runs are not used but count
 * against the budget): the one place `run --sweep`, the gate's later looks and bench/capacity.ts plan
 * a capacity search.
 */
export function capacitySearchStep(
  cell: CapacityCell,
  records: readonly RunRecord[],
  settings: SearchSettings,
): SearchStep {
  const usable = capacityRunsOf(cell, records);
  return nextSearchStep(usable, capacityObjectivesOf(cell), {
    ...settings,
    maxRuns: settings.maxRuns - (records.length - usable.length),
  });
}

/** The runs of a cell directory (run-<k>/run.json) as records; unreadable ones are skipped. */
function existingRecords(cellDir: string): RunRecord[] {
  return existingRunIndices(cellDir)
    .sort((a, b) => a - b)
    .flatMap((index) => {
      const path = join(cellDir, `run-${index}`, "run.json");
      try {
        return [runRecordFromRunFile(runFileSchema.parse(JSON.parse(readFileSync(path, "utf8"))), path)];
      } catch {
        return [];
      }
    });
}
