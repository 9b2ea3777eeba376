import type { StreamOutcome } from "../client/stream-client.js";
import { type CellSchedule, cellSchedule } from "../config/schedule.js";
import { type CellConfig, type Config, isFileBacked } from "../config/schema.js";
import type { RunMetrics } from "../metrics/run-metrics.js";
import type { RunFile } from "../metrics/run-schema.js";
import { dispatchLoad, type Ticket } from "../runner/dispatch.js";
import { loadPlanOf } from "../runner/load-plan.js";
import type { MetricsScrape } from "../runner/metrics-scraper.js";
import { requestIdOf, toRecord } from "../runner/request-record.js";
import type { RequestRecord } from "../runner/request-schema.js";
import { runSession } from "../runner/session-runner.js";
import {
  chatPromptTokens,
  clockedEngine,
  detokenize,
  Engine,
  engineMetricsText,
  eosTokenId,
  type SimProfile,
  tokenize,
  type VirtualOutcome,
} from "../sim/index.js";
import { VirtualClock } from "../util/virtual-clock.js";
import type { DatasetFile } from "../workload/dataset-file.js";
import { forEndpoint } from "../workload/request-body.js";
import { createWorkload } from "../workload/workload.js";
import type { Workload, WorkloadRequest } from "../workload/workload-types.js";
import { assembleRunFile } from "./run-file.js";

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
  /** The simulated GPU (device_speed_factors' entry); recorded as the run's device. */
  device?: number;
  runIndex?: number;
  side?: string;
  /** The schedule to run; the config's for the cell when omitted. */
  schedule?: CellSchedule;
  /**
   * The dataset file of a file-backed cell, read by the caller (workload/dataset-file.ts): a trace is
   * replayed on its timestamps as `run` replays it.
   */
  file?: DatasetFile;
}

export interface VirtualRunResult {
  /** The run as run.json would hold it (its server figures from the engine's /metrics before and after). */
  file: RunFile;
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
  if (isFileBacked(cell.dataset) && options.file === undefined)
    throw new Error(
      `cell ${cell.name}: ${cell.dataset.type} reads a file; give the file read (options.file) to run it virtually`,
    );
  const seed = cell.seed ?? config.seed;
  const workload = createWorkload(cell, { seed, ...(options.file ? { file: options.file } : {}) });
  const plan = loadPlanOf(cell);
  const schedule = options.schedule ?? cellSchedule(config, cell);
  const server = virtualServer(options);
  const before = server.scrape("before");
  const dispatch = await server.clock.runUntilSettled(
    dispatchLoad({
      plan,
      clock: server.clock,
      seed,
      traceArrivalsMs: workload.sessions?.arrivalsMs ?? null,
      ...(schedule.kind === "idle-elided" ? { elideIdle: { settleMs: schedule.settleMs } } : {}),
      send: virtualSend(server, workload),
    }),
  );
  server.records.sort((a, b) => a.index - b.index);
  const file = assembleRunFile({
    context: { config, cell, seed, file: options.file },
    workload,
    plan,
    runIndex: server.runIndex,
    ...(options.side ? { side: options.side } : {}),
    records: server.records,
    warmupCount: 0,
    origin: server.origin,
    lastEnd: server.lastEnd,
    startedAtEpochMs: Date.UTC(2026, 0, 1),
    // The engine's draws are its seed's (and device's): one start per seed, whichever run measures on it.
    serverStart: {
      id: `virtual-seed-${options.serverSeed}${options.device === undefined ? "" : `-device-${options.device}`}`,
      startedAt: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    },
    dispatch,
    eventLoopLagP99Ms: null,
    peakOnSocket: server.peak,
    scrapes: [before, server.scrape("after")],
    crashReason: null,
    refusedInARow: null,
    aborted: false,
    notes: [],
    prefix: { policy: cell.prefix, cacheSalt: server.cacheSalt, cacheReset: server.cacheSalt !== null },
    serverFingerprint: options.device === undefined ? {} : { runner: { device: String(options.device) } },
  });
  return {
    file,
    metrics: file,
    records: server.records,
    durationS: file.durationS,
    wallClockS: file.load.schedule?.wallClockS ?? file.durationS,
    elidedS: file.load.schedule?.elidedS ?? 0,
  };
}

/** What a request asks of the engine: a workload request's text and lengths, or a session turn's. */
type AskedRequest = Pick<
  WorkloadRequest,
  "prompt" | "messages" | "maxTokens" | "targetInputTokens" | "prefixGroup"
>;

/** The simulator's engine on a virtual clock, as one run sees it: its requests' records and in-flight peak. */
interface VirtualServer {
  readonly clock: VirtualClock;
  readonly runIndex: number;
  readonly cacheSalt: string | null;
  readonly origin: number;
  readonly records: RequestRecord[];
  /** The latest end of a request on the schedule's timeline (elided idle time added back). */
  lastEnd: number;
  peak: number;
  scrape(phase: "before" | "after"): MetricsScrape;
  /** One request to the engine: its record kept, and the answer's tokens (what a session sends back). */
  send(ticket: Ticket, asked: AskedRequest): Promise<{ endAt: number; ok: boolean; tokens: number[] }>;
}

function virtualServer(options: VirtualRunOptions): VirtualServer {
  const { config, cell } = options;
  const runIndex = options.runIndex ?? 0;
  const clock = new VirtualClock();
  const simulated = new Engine(options.profile, options.serverSeed, options.device ?? 0);
  const engine = clockedEngine(simulated, clock);
  const cacheSalt = cell.prefix === "fresh" ? `${cell.name}-${runIndex}` : null;
  const origin = clock.now();
  let inFlight = 0;
  const server: VirtualServer = {
    clock,
    runIndex,
    cacheSalt,
    origin,
    records: [],
    lastEnd: origin,
    peak: 0,
    scrape: (phase) => ({
      phase,
      atMs: clock.now() - origin,
      status: 200,
      text: engineMetricsText(simulated),
      error: null,
    }),
    async send(ticket, asked) {
      // As the endpoint takes it: a trace's turn on completions is its prompt (runner/request-bodies.ts).
      const request = forEndpoint({ index: 0, phase: "measure", ...asked }, cell.endpoint);
      const promptTokens = request.messages
        ? chatPromptTokens(request.messages)
        : tokenize(request.prompt ?? "");
      const sentAt = clock.now();
      server.peak = Math.max(server.peak, ++inFlight);
      const outcome = await engine.submit({
        id: requestIdOf(cell.name, runIndex, "measure", ticket),
        promptTokens,
        maxTokens: request.maxTokens,
        ignoreEos: config.sampling.ignore_eos,
        temperature: config.sampling.temperature,
        ...(cacheSalt ? { cacheSalt } : {}),
      });
      inFlight--;
      const streamed = streamOutcomeOf(outcome, sentAt, promptTokens.length, clock.now());
      server.records.push(toRecord("measure", ticket, streamed, request, origin, cell.name, runIndex));
      server.lastEnd = Math.max(server.lastEnd, streamed.endAt + (ticket.elidedMs ?? 0));
      return { endAt: streamed.endAt, ok: streamed.ok, tokens: outcome.tokens };
    },
  };
  return server;
}

/** An engine's answer as the streaming client would have recorded it. */
function streamOutcomeOf(
  outcome: VirtualOutcome,
  sentAt: number,
  promptTokens: number,
  now: number,
): StreamOutcome {
  const ok = outcome.finishReason !== "abort";
  return {
    ok,
    errorKind: ok ? null : "http_500",
    errorMessage: ok ? null : "aborted by the engine",
    httpStatus: ok ? 200 : 500,
    sentAt,
    onSocketAt: sentAt,
    headersAt: sentAt,
    chunkTimes: outcome.tokenTimes,
    chunkTokens: null,
    endAt: outcome.tokenTimes.at(-1) ?? now,
    promptTokens,
    completionTokens: outcome.tokenTimes.length,
    cachedTokens: outcome.cachedPromptTokens,
    finishReason: outcome.finishReason ?? null,
    // The engine streams tokens, not the HTTP layer's reasoning or tool calls: every token is answer.
    answer: {
      firstAnswerChunk: outcome.tokenTimes.length > 0 ? 0 : null,
      reasoningField: null,
      reasoningChunkTokens: 0,
      reportedReasoningTokens: null,
      toolCalls: [],
      malformedToolCalls: 0,
    },
  };
}

/** The dispatcher's send: one workload request, or one session's turns (each answer sent back as text). */
function virtualSend(server: VirtualServer, workload: Workload): (ticket: Ticket) => Promise<number> {
  const sessions = workload.sessions;
  let nextRequest = 0;
  return async (ticket) => {
    if (sessions === null) return (await server.send(ticket, workload.request(ticket.index))).endAt;
    return runSession({
      script: sessions.session(ticket.index, "measure"),
      ticket,
      clock: server.clock,
      nextIndex: () => nextRequest++,
      send: async (turn) => {
        const answered = await server.send(turn.ticket, {
          prompt: null,
          messages: turn.messages,
          maxTokens: turn.maxTokens,
          targetInputTokens: turn.targetMessageTokens,
          prefixGroup: turn.prefixGroup,
        });
        return {
          endAt: answered.endAt,
          ok: answered.ok,
          text: detokenize(answered.tokens.filter((token) => token !== eosTokenId)),
          // The engine answers in tokens: tool calls are the HTTP layer's (sim/active-request.ts).
          toolCalls: [],
        };
      },
    });
  };
}
