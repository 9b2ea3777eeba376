import type { TraceReplay } from "../config/dataset-kinds/trace-fields.js";
import { type CellConfig, configLimits, isTraceDataset } from "../config/schema.js";
import type { DatasetFile } from "./dataset-file.js";
import { traceArrivals } from "./sessions.js";

/** Arrivals a duration-bound trace replay plans at most (the limit on measured requests per run). */
export const maxTraceArrivals = configLimits.requestsPerRun;

/**
 * One run's replay of a trace cell (config's TraceReplay): the sessions its size takes, on the trace's
 * own clock times time_scale, the ones before the run's duration when it is sized by time. null for a
 * cell that is not a trace or whose file holds no sessions.
 */
export function traceReplay(cell: CellConfig, file: DatasetFile | undefined): TraceReplay | null {
  const dataset = cell.dataset;
  const sessions = file?.sessions;
  if (!isTraceDataset(dataset) || !sessions || sessions.length === 0) return null;
  const count = "requests" in cell.size ? cell.size.requests : maxTraceArrivals;
  const durationMs = "duration_s" in cell.size ? cell.size.duration_s * 1000 : Number.POSITIVE_INFINITY;
  const offsets = traceArrivals(sessions, count)
    .map((offset) => offset * dataset.time_scale)
    .filter((offset) => offset < durationMs);
  let requests = 0;
  let outputTokens = 0;
  let lastRequestMs = 0;
  offsets.forEach((offset, index) => {
    const turns = sessions[index % sessions.length]!.turns;
    const start = turns[0]!.timestampMs ?? 0;
    for (const turn of turns) {
      requests++;
      outputTokens += turn.maxTokens ?? 0;
      lastRequestMs = Math.max(
        lastRequestMs,
        offset + ((turn.timestampMs ?? start) - start) * dataset.time_scale,
      );
    }
  });
  return {
    sessions: offsets.length,
    requests,
    spanS: (offsets.at(-1) ?? 0) / 1000,
    lastRequestS: lastRequestMs / 1000,
    outputTokensMean: requests > 0 ? outputTokens / requests : 0,
  };
}
