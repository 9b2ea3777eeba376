import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Clock, epochMsOf, monotonicClock } from "../client/clock.js";
import { type ControlClient, createStreamClient, type StreamOutcome } from "../client/stream-client.js";
import type { RequestRecord } from "../metrics/request-record.js";
import { requestRecordSchemaVersion } from "../metrics/request-record.js";
import { computeRunMetrics } from "../metrics/run-metrics.js";
import { type RunFile, runFileSchema, runFileSchemaVersion } from "../metrics/run-schema.js";
import { summarizeServerMetrics } from "../metrics/server-metrics.js";
import { summarize } from "../metrics/summary.js";
import { toVllmResult } from "../metrics/vllm-result-writer.js";
import type { ServerSession } from "../server/types.js";
import { toolName, toolVersion } from "../version.js";
import { buildRequestBody, endpointPath, wantsPerChunkUsage } from "../workload/request-body.js";
import type { Phase, Workload, WorkloadRequest } from "../workload/workload.js";
import type { CellContext } from "./cell-context.js";
import { clientBoundReasons, startEventLoopProbe } from "./client-bound.js";
import { dispatchLoad, type Ticket } from "./dispatch.js";
import { JsonlAppender } from "./jsonl-appender.js";
import { type LoadPlan, loadPlanOf, poolSizeOf, targetConcurrencyOf, targetRateOf } from "./load-plan.js";
import { MetricsScraper } from "./metrics-scraper.js";
import type { ProgressSink } from "./progress.js";

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
  clock?: Clock;
  /** Set by the caller to end the run early (Ctrl-C); what was measured is kept. */
  shouldAbort?: () => boolean;
  /** Fingerprint of the server session, gathered once per session. */
  serverFingerprint: Record<string, unknown>;
  /** Called right before the first measured dispatch and right after the last completion (benchmarks). */
  onMeasuredPhase?: (edge: "start" | "end", epochMs: number) => void;
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

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
  const clock = options.clock ?? monotonicClock;
  mkdirSync(dir, { recursive: true });
  const notes: string[] = [];

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
        maxTokens: request.maxTokens,
        prefixGroup: request.prefixGroup,
      },
    };
  };
  const timeoutMs = cell.timeout_s * 1000;
  let crashed: string | null = null;
  void session.exited.then(({ reason }) => {
    crashed = reason;
  });
  const stop = () => crashed !== null || options.shouldAbort?.() === true;

  try {
    await client.prime(poolSize ?? defaultOpenLoopConnections);
    // Warm-up: closed loop at the run's concurrency, its own prompts, results kept apart.
    const warmupPlan = warmupPlanOf(cell, plan);
    let warmupCount = 0;
    if (warmupPlan !== null) {
      const warmupLog = new JsonlAppender(join(dir, "warmup.jsonl"));
      const origin = clock.now();
      let errors = 0;
      try {
        await dispatchLoad({
          plan: warmupPlan,
          clock,
          seed: context.seed,
          shouldStop: stop,
          send: async (ticket) => {
            const body = bodyFor("warmup", ticket.index);
            const outcome = await client.stream({
              path,
              body: body.bytes,
              requestId: `${cell.name}-${runIndex}-warmup-${ticket.index}`,
              timeoutMs,
              perChunkUsage: body.perChunkUsage,
            });
            const record = toRecord("warmup", ticket, outcome, body.meta, origin, cell.name, runIndex);
            warmupLog.append(record);
            warmupCount++;
            if (!record.ok) errors++;
            progress.update({
              cell: cell.name,
              run: runIndex,
              runs: options.runs,
              phase: "warmup",
              done: warmupCount,
              total: warmupPlan.maxRequests,
              errors,
              elapsedS: (clock.now() - origin) / 1000,
              plannedS: warmupPlan.maxDurationMs === null ? null : warmupPlan.maxDurationMs / 1000,
            });
            return outcome.endAt;
          },
        });
      } finally {
        warmupLog.close();
      }
      if (errors > 0) notes.push(`${errors} of ${warmupCount} warm-up requests failed`);
    }

    // Serialise bodies before the clock starts when the size is known: the send path then only dispatches.
    const prebuilt =
      plan.maxRequests !== null && plan.maxRequests <= prebuildLimit
        ? Array.from({ length: plan.maxRequests }, (_, index) => bodyFor("measure", index))
        : null;

    const scrapeLog = new JsonlAppender(join(dir, "scrapes.jsonl"));
    const requestLog = new JsonlAppender(join(dir, "requests.jsonl"));
    let origin = clock.now();
    const scraper = new MetricsScraper(control, session.endpoint.metricsUrl, clock, () => origin, scrapeLog);
    const records: RequestRecord[] = [];
    let errors = 0;
    try {
      await scraper.scrape("before");
      scraper.startPeriodic(config.telemetry.metrics_interval_s * 1000);
      client.resetPeak();
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
          const body = prebuilt?.[ticket.index] ?? bodyFor("measure", ticket.index);
          const outcome = await client.stream({
            path,
            body: body.bytes,
            requestId: `${cell.name}-${runIndex}-${ticket.index}`,
            timeoutMs,
            perChunkUsage: body.perChunkUsage,
          });
          const record = toRecord("measure", ticket, outcome, body.meta, origin, cell.name, runIndex);
          requestLog.append(record);
          records.push(record);
          if (!record.ok) errors++;
          lastEnd = Math.max(lastEnd, outcome.endAt);
          progress.update({
            cell: cell.name,
            run: runIndex,
            runs: options.runs,
            phase: "measure",
            done: records.length,
            total: plan.maxRequests,
            errors,
            elapsedS: (clock.now() - origin) / 1000,
            plannedS: plan.maxDurationMs === null ? null : plan.maxDurationMs / 1000,
          });
          return outcome.endAt;
        },
      });
      const loop = loopProbe.stop();
      options.onMeasuredPhase?.("end", epochMsOf(clock.now()));
      await scraper.stopPeriodic();
      await scraper.scrape("after");
      requestLog.close();
      scrapeLog.close();

      records.sort((a, b) => a.index - b.index);
      const durationS = Math.max(0, lastEnd - origin) / 1000;
      const metrics = computeRunMetrics(records, { durationS, slo: cell.slo, warmup: warmupCount });
      const lags = records.map((record) => record.readyMs - record.scheduledMs);
      const lagSummary = summarize(lags);
      const targetConcurrency = targetConcurrencyOf(plan);
      const reasons = clientBoundReasons({
        scheduleLagP50Ms: lagSummary.p50,
        eventLoopLagP99Ms: loop.p99Ms,
        targetConcurrency,
        peakOnSocket: client.peakOnSocket,
        completed: metrics.requests.completed,
        thresholds: {
          maxScheduleLagMs: config.client.max_schedule_lag_ms,
          maxEventLoopLagMs: config.client.max_event_loop_lag_ms,
        },
      });
      const sendWindowS = result.lastReadyAt === null ? 0 : (result.lastReadyAt - result.startedAt) / 1000;
      const busyMs = records.reduce((sum, record) => sum + (record.endMs - record.sentMs), 0);
      if (records.some((record) => record.ok && record.outputTokensSource === "chunks")) {
        notes.push("the server sent no usage for some requests: their output tokens are counted as chunks");
      }
      if (workload.info.tokenModel.source === "tokenize") {
        const model = workload.info.tokenModel;
        notes.push(
          `prompt lengths calibrated with POST /tokenize: ${model.tokensPerWord} tokens/word + ${model.offset}`,
        );
      }
      const cutShort = crashed !== null || options.shouldAbort?.() === true;
      const runFile: RunFile = runFileSchema.parse({
        schemaVersion: runFileSchemaVersion,
        tool: { name: toolName, version: toolVersion },
        cell: cell.name,
        run: runIndex,
        ...(options.side ? { side: options.side } : {}),
        startedAt: new Date(startedAtEpochMs).toISOString(),
        durationS,
        load: {
          type: cell.load.type,
          targetRate: targetRateOf(plan),
          targetConcurrency,
          achievedRate:
            cell.load.type === "concurrency"
              ? metrics.throughput.request
              : sendWindowS > 0
                ? result.dispatched / sendWindowS
                : 0,
          achievedConcurrencyMean: durationS > 0 ? busyMs / (durationS * 1000) : 0,
          peakConcurrency: client.peakOnSocket,
          scheduleLagP50Ms: lagSummary.p50,
          scheduleLagP99Ms: lagSummary.p99,
          eventLoopLagP99Ms: loop.p99Ms,
        },
        ...metrics,
        server: summarizeServerMetrics(scraper.scrapes),
        flags: {
          clientBound: reasons.length > 0,
          ...(reasons.length > 0 ? { clientBoundReason: reasons.join("; ") } : {}),
          serverCrashed: crashed !== null,
          cutShort,
          notes: crashed !== null ? [`server exited during the run: ${crashed}`, ...notes] : notes,
        },
        prefix: { policy: cell.prefix, cacheSalt, cacheReset },
        fingerprint: {
          ...options.serverFingerprint,
          workload: {
            cell: cell.name,
            endpoint: cell.endpoint,
            dataset: cell.dataset,
            load: cell.load,
            size: cell.size,
            warmup: cell.warmup,
            prefix: cell.prefix,
            seed: context.seed,
            datasetSha256: workload.info.datasetSha256,
            tokenModel: workload.info.tokenModel,
          },
        },
        telemetry: null,
      });
      writeFileSync(join(dir, "run.json"), `${JSON.stringify(runFile, null, 2)}\n`);
      if (options.formats.includes("vllm")) {
        const vllm = toVllmResult(records, runFile, {
          model: config.model.name,
          endpoint: cell.endpoint,
          startedAtMs: startedAtEpochMs,
          burstiness: cell.load.type === "rate" ? cell.load.burstiness : null,
          maxConcurrency: plan.maxConcurrency,
        });
        writeFileSync(join(dir, "vllm-result.json"), `${JSON.stringify(vllm)}\n`);
      }
      return runFile;
    } finally {
      await scraper.stopPeriodic();
      requestLog.close();
      scrapeLog.close();
    }
  } finally {
    await client.close();
  }
}

function warmupPlanOf(cell: RunOnceOptions["context"]["cell"], plan: LoadPlan): LoadPlan | null {
  const warmup = cell.warmup;
  const concurrency = Math.max(1, poolSizeOf(plan) ?? targetConcurrencyOf(plan) ?? 8);
  if ("requests" in warmup) {
    if (warmup.requests === 0) return null;
    return {
      segments: [
        { kind: "concurrency", concurrency: Math.min(concurrency, warmup.requests), durationMs: null },
      ],
      maxRequests: warmup.requests,
      maxDurationMs: null,
      maxConcurrency: null,
    };
  }
  if (warmup.duration_s === 0) return null;
  return {
    segments: [{ kind: "concurrency", concurrency, durationMs: null }],
    maxRequests: null,
    maxDurationMs: warmup.duration_s * 1000,
    maxConcurrency: null,
  };
}

function toRecord(
  phase: Phase,
  ticket: Ticket,
  outcome: StreamOutcome,
  request: Pick<WorkloadRequest, "targetInputTokens" | "maxTokens" | "prefixGroup">,
  origin: number,
  cell: string,
  run: number,
): RequestRecord {
  const sent = outcome.sentAt;
  const usageTokens = outcome.completionTokens;
  const outputTokens = usageTokens ?? (outcome.chunkTimes.length > 0 ? outcome.chunkTimes.length : null);
  return {
    v: requestRecordSchemaVersion,
    index: ticket.index,
    phase,
    requestId: `${cell}-${run}-${phase === "warmup" ? "warmup-" : ""}${ticket.index}`,
    stage: ticket.stage,
    scheduledMs: round3(ticket.scheduledAt - origin),
    readyMs: round3(ticket.readyAt - origin),
    queueMs: round3(Math.max(0, sent - ticket.readyAt)),
    sentMs: round3(sent - origin),
    socketMs: outcome.onSocketAt === null ? null : round3(outcome.onSocketAt - sent),
    headersMs: outcome.headersAt === null ? null : round3(outcome.headersAt - sent),
    chunksUs: outcome.chunkTimes.map((time) => Math.round((time - sent) * 1000)),
    chunkTokens: outcome.chunkTokens,
    endMs: round3(outcome.endAt - origin),
    ok: outcome.ok,
    errorKind: outcome.errorKind,
    error: outcome.errorMessage,
    httpStatus: outcome.httpStatus,
    finishReason: outcome.finishReason,
    promptTokens: outcome.promptTokens,
    outputTokens,
    outputTokensSource: usageTokens !== null ? "usage" : outputTokens !== null ? "chunks" : null,
    cachedTokens: outcome.cachedTokens,
    targetInputTokens: request.targetInputTokens,
    maxTokens: request.maxTokens,
    prefixGroup: request.prefixGroup,
  };
}
