import { type CostMode, serverStartsPerCell } from "../config/summary.js";
import type { RunRecord } from "./run-record.js";
import type { ComparisonMode, GpuMinutesSpent } from "./verdict-schema.js";

/** What compare knows of how the runs were measured: the config's server start cost and lifecycle. */
export interface CostModel {
  /** GPU seconds one server start costs (cost.server_start_s or the server kind's default). */
  serverStartS: number;
  lifecycle: "per-cell" | "per-run";
}

/** Without a config: the model of a vLLM container, 3 minutes a start, one server per cell. */
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
  for (const count of perCell.values())
    serverStarts += serverStartsPerCell(costMode, count, looks, model.lifecycle);
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
