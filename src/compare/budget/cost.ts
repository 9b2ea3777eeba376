import type { Alternation } from "../../config/alternation.js";
import type { ServerLifecycle } from "../../config/schema.js";
import {
  type CostMode,
  defaultServerStartSeconds,
  interleavedStepStarts,
  serverStartsPerCell,
} from "../../config/summary.js";
import type { RunRecord } from "../../metrics/run-record.js";
import type { ComparisonMode, GpuMinutesSpent } from "../verdict/verdict-schema.js";

/**
 * The GPU-time cost model, in one place: what a plan will cost (the report's "about N GPU-minutes would
 * settle it", bench/gate.ts) and what a comparison spent (`gpuMinutesSpent`, verdict.json). Every server
 * start costs `startMinutes` (load weights, compile, warm up: a vLLM container's 3 min by default), every
 * run of one cell costs `runMinutes` (the measured run length, else validate's estimate of it:
 * config/summary.ts, the one estimate the run plan and the budget use; 1 min without a config). How many
 * starts a schedule needs is one rule, `serverStartsPerCell` (config/summary.ts, which `validate` prints
 * from).
 */
const defaultStartMinutes = defaultServerStartSeconds.docker / 60;
const defaultRunMinutes = 1;

export interface CostRates {
  startMinutes?: number;
  runMinutes?: number;
  /**
   * Interleaved: runs per side per group of the alternation (repeats.block; default 1), or the
   * alternation itself (a start per group: config/alternation.ts).
   */
  runsPerBlock?: number | Alternation;
  /**
   * How servers are kept (server.lifecycle): per-side counts a step's starts once for all its cells (one
   * server per side serves them all); per-cell and per-run (the default here) once per cell.
   */
  lifecycle?: ServerLifecycle;
}

/** Cells whose server starts are counted separately: 1 under the per-side lifecycle, else each cell. */
function startedCells(cells: number, rates: CostRates): number {
  return rates.lifecycle === "per-side" ? Math.min(1, cells) : cells;
}

export function gpuMinutes(serverStarts: number, cellRuns: number, rates: CostRates = {}): number {
  return (
    serverStarts * (rates.startMinutes ?? defaultStartMinutes) +
    cellRuns * (rates.runMinutes ?? defaultRunMinutes)
  );
}

/**
 * Server starts to measure `runs` runs per side of one cell in one measuring step, alternating A B B A
 * A B ... with the server kept up across consecutive runs of the same side: R + 1 starts for R runs per
 * side (R >= 1). With the alternation in blocks of `runsPerBlock` runs (A^k B^k B^k A^k ...), ⌈R / k⌉ + 1.
 */
export function interleavedStarts(runsPerSide: number, runsPerBlock: number | Alternation = 1): number {
  return serverStartsPerCell("interleaved", runsPerSide, [], "per-cell", runsPerBlock);
}

export interface PlanCost {
  mode: "stored" | "interleaved";
  cells: number;
  /** Runs per side of each cell measured in this PR's job. */
  candidateRuns: number;
  /** Baseline runs measured in this PR's job (interleaved only; a stored baseline costs the PR nothing). */
  baselineRuns?: number;
  /** Separate measuring rounds (looks) in stored mode: each starts the candidate's server again. */
  rounds?: number;
  /** Interleaved: runs per side per group of the alternation (1: A B B A per run), or the alternation. */
  runsPerBlock?: number | Alternation;
  /**
   * Interleaved: runs per side at which earlier measuring steps (looks) ended; each step starts its
   * first block afresh (serverStartsPerCell). None: all runs in one step.
   */
  steps?: readonly number[];
}

/** GPU-minutes a PR spends on a plan (every server start counted). */
export function planGpuMinutes(plan: PlanCost, rates: CostRates = {}): number {
  if (plan.mode === "interleaved") {
    const runs = Math.max(plan.candidateRuns, plan.baselineRuns ?? plan.candidateRuns);
    return (
      plan.cells *
      gpuMinutes(
        serverStartsPerCell("interleaved", runs, plan.steps ?? [], "per-cell", plan.runsPerBlock),
        plan.candidateRuns + (plan.baselineRuns ?? plan.candidateRuns),
        rates,
      )
    );
  }
  return plan.cells * gpuMinutes(plan.candidateRuns > 0 ? (plan.rounds ?? 1) : 0, plan.candidateRuns, rates);
}

/**
 * GPU-minutes to go from `from` to `to` runs per side in `cells` cells in one more measuring step: the
 * step's runs (both sides when interleaved) and its server starts (interleaved: the blocks of the step,
 * as serverStartsPerCell counts them; stored: one more round).
 */
export function addedGpuMinutes(
  mode: "stored" | "interleaved",
  cells: number,
  from: number,
  to: number,
  rates: CostRates = {},
): number {
  if (to <= from) return 0;
  const runMinutes = rates.runMinutes ?? defaultRunMinutes;
  const startMinutes = rates.startMinutes ?? defaultStartMinutes;
  // A new measuring step: its first block is a new server start even when it continues the last side.
  // Under per-side servers the step's starts serve every cell (counted once), else each cell's own.
  const startsPerCell = mode === "interleaved" ? interleavedStepStarts(from, to, rates.runsPerBlock) : 1;
  const sides = mode === "interleaved" ? 2 : 1;
  return startedCells(cells, rates) * startsPerCell * startMinutes + cells * sides * (to - from) * runMinutes;
}

/** What compare knows of how the runs were measured: the config's server start cost and lifecycle. */
export interface CostModel {
  /** GPU seconds one server start costs (cost.server_start_s or the server kind's default). */
  serverStartS: number;
  lifecycle: ServerLifecycle;
  /** Interleaved: runs per side per group of the alternation (repeats.block), or the alternation; 1 when not given. */
  runsPerBlock?: number | Alternation;
}

/** The rates of a comparison: its runs' length, the runs per start and the config's start cost and lifecycle. */
export function costRatesOf(
  runMinutes: number | undefined,
  runsPerBlock: number | Alternation | undefined,
  cost: CostModel | undefined,
): CostRates {
  return {
    ...(runMinutes === undefined ? {} : { runMinutes }),
    ...(runsPerBlock === undefined ? {} : { runsPerBlock }),
    ...(cost === undefined ? {} : { startMinutes: cost.serverStartS / 60, lifecycle: cost.lifecycle }),
  };
}

/** Without a config: a vLLM container's 3 minutes a start, one server per cell. */
export const defaultCostModel: CostModel = { serverStartS: 180, lifecycle: "per-cell" };

/**
 * GPU-minutes this comparison spent: the measured phases of the runs it read (both sides when
 * interleaved; the candidate's only for a stored baseline, measured once in another job) plus the server
 * starts their schedule needed (counted as validate counts them, per cell, from the runs and the looks).
 */
export function gpuMinutesSpent(
  mode: ComparisonMode,
  runs: { baseline: readonly RunRecord[]; candidate: readonly RunRecord[] },
  looks: readonly number[],
  model: CostModel,
): GpuMinutesSpent {
  const counted = mode === "interleaved" ? [...runs.baseline, ...runs.candidate] : [...runs.candidate];
  let runSeconds = 0;
  let withoutDuration = 0;
  for (const run of counted) {
    if (typeof run.durationS === "number" && Number.isFinite(run.durationS)) runSeconds += run.durationS;
    else withoutDuration++;
  }
  const perCell = new Map<string, number>();
  for (const run of runs.candidate) perCell.set(run.cell, (perCell.get(run.cell) ?? 0) + 1);
  const costMode: CostMode = mode === "interleaved" ? "interleaved" : "stored";
  let serverStarts = 0;
  // Per side's server (per-side: every cell shares the starts of the side's longest schedule), else per cell.
  const counts =
    model.lifecycle === "per-side" && perCell.size > 0 ? [Math.max(...perCell.values())] : perCell.values();
  for (const count of counts)
    serverStarts += serverStartsPerCell(costMode, count, looks, model.lifecycle, model.runsPerBlock);
  const startMinutes = (serverStarts * model.serverStartS) / 60;
  return {
    total: runSeconds / 60 + startMinutes,
    runs: runSeconds / 60,
    serverStarts,
    serverStartMinutes: startMinutes,
    serverStartS: model.serverStartS,
    sides: mode === "interleaved" ? "both" : "candidate",
    runsWithoutDuration: withoutDuration,
  };
}

/**
 * Dollars per 1,000 successful requests at a throughput (docs/capacity.md): the hourly price of the
 * server's GPUs (cost.gpu_hourly_usd per GPU x cost.gpus) over the successful requests it completes in
 * an hour, x 1,000. Null without a price or without throughput.
 */
export function costPerThousandRequests(
  gpuHourlyUsd: number | undefined,
  gpus: number,
  successfulPerHour: number | null,
): number | null {
  if (gpuHourlyUsd === undefined || successfulPerHour === null || !(successfulPerHour > 0)) return null;
  return ((gpuHourlyUsd * gpus) / successfulPerHour) * 1000;
}
