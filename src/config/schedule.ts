import type { CellConfig, Config } from "./schema.js";

/**
 * The schedule a cell's open-loop arrivals are timed by (docs/run.md, Schedules), resolved once from the
 * config so that both sides of a comparison run the same one; it is recorded with every run
 * (run.json `load.schedule` and the workload fingerprint, where a difference makes runs not comparable).
 */
export type CellSchedule =
  | { kind: "idle-elided"; settleMs: number }
  | { kind: "real-time"; reason: "configured" | "closed-loop" };

export function cellSchedule(config: Pick<Config, "runner">, cell: CellConfig): CellSchedule {
  if ((cell.schedule ?? config.runner.schedule) === "real-time")
    return { kind: "real-time", reason: "configured" };
  // Closed loop: each request is sent as the one before it ends, so nothing is ever idle to elide.
  const openLoop =
    cell.load.type === "rate" ||
    (cell.load.type === "stages" && cell.load.stages.some((stage) => stage.rate !== undefined));
  if (!openLoop) return { kind: "real-time", reason: "closed-loop" };
  return { kind: "idle-elided", settleMs: config.runner.settle_ms };
}

/** The schedule as a condition of the run: what the fingerprint records (no reason, only what ran). */
export function scheduleCondition(schedule: CellSchedule): { kind: CellSchedule["kind"]; settleMs?: number } {
  return schedule.kind === "idle-elided"
    ? { kind: schedule.kind, settleMs: schedule.settleMs }
    : { kind: schedule.kind };
}

export function describeSchedule(schedule: CellSchedule): string {
  if (schedule.kind === "idle-elided") return `idle gaps elided (settle ${schedule.settleMs} ms)`;
  return schedule.reason === "configured" ? "real time (configured)" : "real time (closed loop: never idle)";
}
