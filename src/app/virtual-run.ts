import type { StreamOutcome } from "../client/stream-client.js";
import { type CellSchedule, cellSchedule } from "../config/schedule.js";
import { type CellConfig, type Config, isFileBacked } from "../config/schema.js";
import { computeRunMetrics, type RunMetrics } from "../metrics/run-metrics.js";
import { dispatchLoad } from "../runner/dispatch.js";
import { loadPlanOf } from "../runner/load-plan.js";
import { toRecord } from "../runner/request-record.js";
import type { RequestRecord } from "../runner/request-schema.js";
import { chatPromptTokens, clockedEngine, Engine, type SimProfile, tokenize } from "../sim/index.js";
import { VirtualClock } from "../util/virtual-clock.js";
import { createWorkload } from "../workload/workload.js";

/**
 * One run of a cell on the simulator's engine on virtual time, through the runner's own dispatcher (its
 * schedule, real time or idle-elided), request records and the metrics' definitions: what `run` would
 * measure against the simulator, in a fraction of a second and without the test machine's noise. The
 * schedule benchmark (bench/schedule.ts) compares the two schedules with it.
 */
export interface VirtualRunOptions {
  config: Config;
  cell: CellConfig;
  profile: SimProfile;
  /** Seeds the engine (its per-start speed factor and step jitter): one server start. */
  serverSeed: number;
  runIndex?: number;
  /** The schedule to run; the config's for the cell when omitted. */
  schedule?: CellSchedule;
}

export interface VirtualRunResult {
  metrics: RunMetrics;
  records: RequestRecord[];
  /** The measured phase on the schedule's timeline (run.json durationS). */
  durationS: number;
  /** What it took on the (virtual) clock. */
  wallClockS: number;
  elidedS: number;
}

export async function runCellVirtually(options: VirtualRunOptions): Promise<VirtualRunResult> {
  const { config, cell } = options;
  if (isFileBacked(cell.dataset))
    throw new Error(
      `cell ${cell.name}: a virtual run builds its prompts from the config; ${cell.dataset.type} reads a file`,
    );
  const runIndex = options.runIndex ?? 0;
  const seed = cell.seed ?? config.seed;
  const workload = createWorkload(cell, { seed });
  const plan = loadPlanOf(cell);
  const schedule = options.schedule ?? cellSchedule(config, cell);
  const clock = new VirtualClock();
  const engine = clockedEngine(new Engine(options.profile, options.serverSeed), clock);
  const cacheSalt = cell.prefix === "fresh" ? `${cell.name}-${runIndex}` : undefined;
  const origin = clock.now();
  const records: RequestRecord[] = [];
  let lastEnd = origin;
  const dispatch = await clock.runUntilSettled(
    dispatchLoad({
      plan,
      clock,
      seed,
      ...(schedule.kind === "idle-elided" ? { elideIdle: { settleMs: schedule.settleMs } } : {}),
      send: async (ticket) => {
        const request = workload.request(ticket.index);
        const promptTokens = request.messages
          ? chatPromptTokens(request.messages)
          : tokenize(request.prompt ?? "");
        const sentAt = clock.now();
        const outcome = await engine.submit({
          id: `${cell.name}-${runIndex}-${ticket.index}`,
          promptTokens,
          maxTokens: request.maxTokens,
          ignoreEos: config.sampling.ignore_eos,
          temperature: config.sampling.temperature,
          ...(cacheSalt ? { cacheSalt } : {}),
        });
        const endAt = outcome.tokenTimes.at(-1) ?? clock.now();
        const ok = outcome.finishReason !== "abort";
        const streamed: StreamOutcome = {
          ok,
          errorKind: ok ? null : "http_500",
          errorMessage: ok ? null : "aborted by the engine",
          httpStatus: ok ? 200 : 500,
          sentAt,
          onSocketAt: sentAt,
          headersAt: sentAt,
          chunkTimes: outcome.tokenTimes,
          chunkTokens: null,
          endAt,
          promptTokens: promptTokens.length,
          completionTokens: outcome.tokenTimes.length,
          cachedTokens: outcome.cachedPromptTokens,
          finishReason: outcome.finishReason ?? null,
        };
        const record = toRecord("measure", ticket, streamed, request, origin, cell.name, runIndex);
        records.push(record);
        lastEnd = Math.max(lastEnd, endAt + (ticket.elidedMs ?? 0));
        return endAt;
      },
    }),
  );
  records.sort((a, b) => a.index - b.index);
  const durationS = (lastEnd - origin) / 1000;
  return {
    metrics: computeRunMetrics(records, { durationS, slo: cell.slo }),
    records,
    durationS,
    wallClockS: durationS - dispatch.elidedMs / 1000,
    elidedS: dispatch.elidedMs / 1000,
  };
}
