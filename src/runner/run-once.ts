import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ControlClient, createStreamClient, type StreamOutcome } from "../client/stream-client.js";
import type { RequestRecord } from "../metrics/request-record.js";
import type { RunFile } from "../metrics/run-schema.js";
import { toVllmResult } from "../metrics/vllm-result-writer.js";
import { runTelemetry, type TelemetrySampler } from "../server/telemetry.js";
import type { ServerSession } from "../server/types.js";
import { epochMsOf, type ScheduleClock, systemClock } from "../util/clock.js";
import { buildRequestBody, endpointPath, wantsPerChunkUsage } from "../workload/request-body.js";
import type { Phase, Workload } from "../workload/workload.js";
import type { CellContext } from "./cell-context.js";
import { startEventLoopProbe } from "./client-bound.js";
import { DeferredWork } from "./deferred-work.js";
import { dispatchLoad, type Ticket } from "./dispatch.js";
import { JsonlAppender } from "./jsonl-appender.js";
import { type LoadPlan, loadPlanOf, poolSizeOf, warmupPlanOf } from "./load-plan.js";
import { MetricsScraper } from "./metrics-scraper.js";
import type { ProgressSink } from "./progress.js";
import { toRecord } from "./request-record.js";
import { assembleRunFile } from "./run-file.js";

export type OutputFormat = "vllm";

export interface RunOnceOptions {
  context: CellContext;
  workload: Workload;
  session: ServerSession;
  control: ControlClient;
  runIndex: number;
  runs: number;
  /** DIR/<cell>/run-<k> */
  dir: string;
  formats: readonly OutputFormat[];
  side?: string;
  progress: ProgressSink;
  clock?: ScheduleClock;
  /** Set by the caller to end the run early (Ctrl-C); what was measured is kept. */
  shouldAbort?: () => boolean;
  /** Fingerprint of the server session, gathered once per session. */
  serverFingerprint: Record<string, unknown>;
  /** Notes about the run's preparation (e.g. prompt-length check), copied into run.json. */
  notes?: readonly string[];
  /** Called right before the first measured dispatch and right after the last completion (benchmarks). */
  onMeasuredPhase?: (edge: "start" | "end", epochMs: number) => void;
}

/** Consecutive refused connections after which a run stops (and is marked cut short). */
const unreachableAfterRefusals = 20;

/** Connections opened ahead of an open-loop run without a concurrency cap (more open on demand). */
const defaultOpenLoopConnections = 32;

/** Bodies are serialised before the measured phase when the run's size is known (up to this many). */
const prebuildLimit = 20_000;

/**
 * One run of one cell: prefix policy, warm-up (excluded), the measured phase with /metrics scraped
 * before, during and after, and its files: requests.jsonl (as requests finish), scrapes.jsonl, run.json.
 */
export async function runOnce(options: RunOnceOptions): Promise<RunFile> {
  const { context, workload, session, control, runIndex, dir, progress } = options;
  const { cell, config } = context;
  const clock = options.clock ?? systemClock;
  mkdirSync(dir, { recursive: true });
  const notes: string[] = [...(options.notes ?? [])];

  // Prefix policy: a salt per run keeps runs from sharing cached prefixes; the reset also clears what
  // earlier runs (or other jobs) left, where the server exposes it (vLLM dev mode).
  let cacheSalt: string | null = null;
  let cacheReset = false;
  if (cell.prefix === "fresh") {
    cacheSalt = `${cell.name}-${runIndex}-${randomUUID().slice(0, 8)}`;
    try {
      const response = await control.post("/reset_prefix_cache", {});
      cacheReset = response.status === 200;
      if (!cacheReset)
        notes.push(`POST /reset_prefix_cache answered HTTP ${response.status}; relying on cache_salt alone`);
    } catch (error) {
      notes.push(
        `POST /reset_prefix_cache failed (${(error as Error).message}); relying on cache_salt alone`,
      );
    }
  }

  const plan = loadPlanOf(cell);
  const poolSize = poolSizeOf(plan);
  const client = createStreamClient({
    baseUrl: session.endpoint.baseUrl,
    ...(session.endpoint.apiKey ? { apiKey: session.endpoint.apiKey } : {}),
    connections: poolSize,
  });
  const path = endpointPath[cell.endpoint];
  const bodyFor = (phase: Phase, index: number) => {
    const request = workload.request(index, phase);
    const body = buildRequestBody(request, {
      model: config.model.name,
      sampling: config.sampling,
      cacheSalt,
    });
    return {
      bytes: Buffer.from(JSON.stringify(body)),
      perChunkUsage: wantsPerChunkUsage(body),
      meta: {
        targetInputTokens: request.targetInputTokens,
        // What was asked, after sampling.extra_body (which may set max_tokens itself).
        maxTokens: Number.isSafeInteger(body.max_tokens) ? (body.max_tokens as number) : request.maxTokens,
        // Choices per request (extra_body may ask for n > 1): usage and chunks count all of them.
        choices: Number.isSafeInteger(body.n) && (body.n as number) > 1 ? (body.n as number) : 1,
        prefixGroup: request.prefixGroup,
      },
    };
  };
  const timeoutMs = cell.timeout_s * 1000;
  let crashed: string | null = null;
  void session.exited.then(({ reason }) => {
    crashed = reason;
  });
  // A server that refuses every connection would otherwise be hammered for the whole duration.
  let refusedInARow = 0;
  const unreachable = () => refusedInARow >= unreachableAfterRefusals;
  const noteRefusal = (record: RequestRecord) => {
    refusedInARow = record.errorKind === "connect" ? refusedInARow + 1 : 0;
  };
  const stop = () => crashed !== null || unreachable() || options.shouldAbort?.() === true;

  // An interrupt ends the requests in flight too, not just new sends (a dead server fails them itself).
  const watchdog = setInterval(() => {
    if (options.shouldAbort?.() === true) client.abortAll();
  }, 200);
  watchdog.unref();
  const bookkeeping = new DeferredWork();
  /**
   * Sends the requests of one phase. A request's record is built, logged and counted after the next
   * request is on its way (closed-loop waves), in `bookkeeping`.
   */
  const phaseSender = (
    phase: Phase,
    phasePlan: LoadPlan,
    log: JsonlAppender,
    phaseOrigin: () => number,
    bodyOf: (index: number) => ReturnType<typeof bodyFor>,
    kept: RequestRecord[] | null = null,
  ) => {
    const tally = { done: 0, errors: 0 };
    const send = async (ticket: Ticket): Promise<StreamOutcome> => {
      const body = bodyOf(ticket.index);
      const outcome = await client.stream({
        path,
        body: body.bytes,
        requestId: `${cell.name}-${runIndex}-${phase === "warmup" ? "warmup-" : ""}${ticket.index}`,
        timeoutMs,
        perChunkUsage: body.perChunkUsage,
        expectedChunks: body.meta.maxTokens + 1,
      });
      bookkeeping.later(() => {
        const record = toRecord(phase, ticket, outcome, body.meta, phaseOrigin(), cell.name, runIndex);
        log.append(record);
        kept?.push(record);
        tally.done++;
        if (!record.ok) tally.errors++;
        noteRefusal(record);
        progress.update({
          cell: cell.name,
          run: runIndex,
          runs: options.runs,
          phase,
          done: tally.done,
          total: phasePlan.maxRequests,
          errors: tally.errors,
          elapsedS: (clock.now() - phaseOrigin()) / 1000,
          plannedS: phasePlan.maxDurationMs === null ? null : phasePlan.maxDurationMs / 1000,
        });
      });
      return outcome;
    };
    return { send, tally };
  };
  // Everything this run writes passes through the server's redactor: a server may echo a secret.
  const redact = session.redact ?? ((text: string) => text);
  try {
    const connections = poolSize ?? defaultOpenLoopConnections;
    const primed = await client.prime(connections);
    if (primed.problem !== null) {
      notes.push(
        `${primed.answered} of ${connections} connections opened before the run (${primed.problem}); the first requests' TTFT may include connection set-up`,
      );
    }
    // Warm-up: closed loop at the run's concurrency, its own prompts, results kept apart.
    const warmupPlan = warmupPlanOf(cell, plan);
    let warmupCount = 0;
    if (warmupPlan !== null) {
      const warmupLog = new JsonlAppender(join(dir, "warmup.jsonl"), undefined, undefined, redact);
      const origin = clock.now();
      const warmup = phaseSender(
        "warmup",
        warmupPlan,
        warmupLog,
        () => origin,
        (index) => bodyFor("warmup", index),
      );
      try {
        await dispatchLoad({
          plan: warmupPlan,
          clock,
          seed: context.seed,
          shouldStop: stop,
          send: async (ticket) => (await warmup.send(ticket)).endAt,
        });
        await bookkeeping.settled();
      } finally {
        warmupLog.close();
      }
      warmupCount = warmup.tally.done;
      if (warmup.tally.errors > 0) {
        notes.push(`${warmup.tally.errors} of ${warmupCount} warm-up requests failed`);
      }
    }

    // Serialise bodies before the clock starts when the size is known: the send path then only dispatches.
    const prebuilt =
      plan.maxRequests !== null && plan.maxRequests <= prebuildLimit
        ? Array.from({ length: plan.maxRequests }, (_, index) => bodyFor("measure", index))
        : null;

    const scrapeLog = new JsonlAppender(join(dir, "scrapes.jsonl"), undefined, undefined, redact);
    const requestLog = new JsonlAppender(join(dir, "requests.jsonl"), undefined, undefined, redact);
    let origin = clock.now();
    const scraper = new MetricsScraper(control, session.endpoint.metricsUrl, clock, () => origin, scrapeLog);
    const records: RequestRecord[] = [];
    const measured = phaseSender(
      "measure",
      plan,
      requestLog,
      () => origin,
      (index) => prebuilt?.[index] ?? bodyFor("measure", index),
      records,
    );
    let telemetry: TelemetrySampler | undefined;
    try {
      await scraper.scrape("before");
      scraper.startPeriodic(config.telemetry.metrics_interval_s * 1000);
      client.resetPeak();
      // GPU and compact /metrics time series; absent for servers without a launcher (--base-url).
      telemetry = session.startTelemetry?.({
        metricsIntervalMs: config.telemetry.metrics_interval_s * 1000,
        gpuIntervalMs: config.telemetry.nvidia_smi_interval_s * 1000,
      });
      const loopProbe = startEventLoopProbe();
      origin = clock.now();
      const startedAtEpochMs = epochMsOf(origin);
      options.onMeasuredPhase?.("start", startedAtEpochMs);
      let lastEnd = origin;
      const result = await dispatchLoad({
        plan,
        clock,
        seed: context.seed,
        shouldStop: stop,
        send: async (ticket) => {
          const outcome = await measured.send(ticket);
          lastEnd = Math.max(lastEnd, outcome.endAt);
          return outcome.endAt;
        },
      });
      await bookkeeping.settled();
      const loop = loopProbe.stop();
      options.onMeasuredPhase?.("end", epochMsOf(clock.now()));
      await scraper.stopPeriodic();
      await scraper.scrape("after");
      const telemetryRecord = telemetry ? await telemetry.stop() : null;
      if (telemetryRecord)
        writeFileSync(join(dir, "telemetry.json"), redact(`${JSON.stringify(telemetryRecord)}\n`));
      requestLog.close();
      scrapeLog.close();

      records.sort((a, b) => a.index - b.index);
      const runFile = assembleRunFile({
        context,
        workload,
        plan,
        runIndex,
        ...(options.side ? { side: options.side } : {}),
        records,
        warmupCount,
        origin,
        lastEnd,
        startedAtEpochMs,
        dispatch: result,
        eventLoopLagP99Ms: loop.p99Ms,
        peakOnSocket: client.peakOnSocket,
        scrapes: scraper.scrapes,
        crashReason: crashed,
        refusedInARow: unreachable() ? refusedInARow : null,
        aborted: options.shouldAbort?.() === true,
        notes,
        prefix: { policy: cell.prefix, cacheSalt, cacheReset },
        serverFingerprint: options.serverFingerprint,
        telemetry: telemetryRecord ? runTelemetry(telemetryRecord.summary) : null,
      });
      writeFileSync(join(dir, "run.json"), redact(`${JSON.stringify(runFile, null, 2)}\n`));
      if (options.formats.includes("vllm")) {
        const vllm = toVllmResult(records, runFile, {
          model: config.model.name,
          endpoint: cell.endpoint,
          startedAtMs: startedAtEpochMs,
          burstiness: cell.load.type === "rate" ? cell.load.burstiness : null,
          maxConcurrency: plan.maxConcurrency,
        });
        writeFileSync(join(dir, "vllm-result.json"), redact(`${JSON.stringify(vllm)}\n`));
      }
      return runFile;
    } finally {
      await scraper.stopPeriodic();
      await telemetry?.stop();
      requestLog.close();
      scrapeLog.close();
    }
  } finally {
    clearInterval(watchdog);
    await client.close();
  }
}
