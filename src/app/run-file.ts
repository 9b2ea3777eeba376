import { type DesignedSharing, designedSharing } from "../config/dataset-kinds.js";
import { type CellSchedule, cellSchedule, scheduleCondition } from "../config/schedule.js";
import { type CellConfig, isSessionDataset, isTraceDataset, scoresAnswers } from "../config/schema.js";
import { checkCacheState } from "../metrics/cache-check.js";
import { collectOutputs, computeGuards } from "../metrics/guards.js";
import { computeRunMetrics } from "../metrics/run-metrics.js";
import {
  type RunFile,
  runFileSchema,
  runFileSchemaVersion,
  type ServerMetricsSummary,
} from "../metrics/run-schema.js";
import { summarizeServerMetrics } from "../metrics/server-metrics.js";
import { computeSessionMetrics } from "../metrics/session-metrics.js";
import { summarize } from "../metrics/summary.js";
import type { CellContext } from "../runner/cell-context.js";
import { clientBoundReasons } from "../runner/client-bound.js";
import type { DispatchResult } from "../runner/dispatch.js";
import { type LoadPlan, targetConcurrencyOf, targetRateOf } from "../runner/load-plan.js";
import type { MetricsScrape } from "../runner/metrics-scraper.js";
import type { RequestRecord, UsageIssueKind } from "../runner/request-schema.js";
import { runEnd } from "../runner/run-recorder.js";
import { serverStarvedReasons } from "../runner/server-starved.js";
import type { ServerStart } from "../server/server-start.js";
import { toolName, toolVersion } from "../version.js";
import { traceReplay } from "../workload/trace-replay.js";
import type { Workload, WorkloadInfo } from "../workload/workload.js";

/** Everything a finished run measured, gathered by runOnce. Times are on the run's monotonic clock. */
export interface RunFacts {
  context: CellContext;
  workload: Workload;
  plan: LoadPlan;
  runIndex: number;
  side?: string;
  /** Measured requests, any order. */
  records: RequestRecord[];
  warmupCount: number;
  /** Start of the measured phase, and the last response's end. */
  origin: number;
  lastEnd: number;
  startedAtEpochMs: number;
  dispatch: DispatchResult;
  eventLoopLagP99Ms: number | null;
  peakOnSocket: number;
  scrapes: readonly MetricsScrape[];
  /** Why the server exited during the run, or null. */
  crashReason: string | null;
  /** Refused connections in a row that stopped the run, or null. */
  refusedInARow: number | null;
  aborted: boolean;
  notes: readonly string[];
  prefix: RunFile["prefix"];
  serverFingerprint: Record<string, unknown>;
  /** The server start the run was measured on (run.json `serverStart`, with the run's side). */
  serverStart: ServerStart;
  /** GPU telemetry summary of the measured phase; null where nothing about the GPUs was sampled. */
  telemetry?: RunFile["telemetry"];
}

/**
 * Prompt tokens a session's first turn may legitimately find cached (the common system prompt and its
 * role token, as its kind declares); null where first turns share prefixes by design (a trace): no
 * first-turn check then.
 */
function sharedPrefixTokensOf(sharing: DesignedSharing): number | null {
  return sharing.kind === "conversation" ? sharing.firstTurnTokens : null;
}

/** run.json from a run's facts (pure): metrics, load fidelity, the client-bound verdict, flags, conditions. */
export function assembleRunFile(facts: RunFacts): RunFile {
  const { context, workload, records, dispatch: result } = facts;
  const { cell, config } = context;
  const sorted = [...records].sort((a, b) => a.index - b.index);
  const schedule = cellSchedule(config, cell);
  const durationS = Math.max(0, facts.lastEnd - facts.origin) / 1000;
  const metrics = computeRunMetrics(sorted, { durationS, slo: cell.slo, warmup: facts.warmupCount });
  const outputs = collectOutputs(sorted);
  const { load, clientBound } = loadFidelity(facts, metrics, durationS);
  const usage = usageVerdict(records);
  const server = withFiniteValues(summarizeServerMetrics(facts.scrapes));
  const cache = cacheState(facts, sorted, durationS, server);
  const notes = runNotes(facts, usage.notes, cache, server);
  // A fresh run with a warm cache is unusable; a reuse run's contaminated first turns are noted.
  const unusable = [...usage.unusable, ...(cache.check.status === "flagged" ? [cache.check.reason] : [])];
  const starved = serverStarvedReasons({
    stepLatenessP99Ms: server?.sim_step_lateness_p99_ms,
    steps: server?.sim_steps,
    maxServerLatenessMs: config.client.max_server_lateness_ms,
  });
  const crashed = facts.crashReason;
  return runFileSchema.parse({
    schemaVersion: runFileSchemaVersion,
    tool: { name: toolName, version: toolVersion },
    cell: cell.name,
    run: facts.runIndex,
    ...(facts.side ? { side: facts.side } : {}),
    serverStart: {
      id: facts.serverStart.id,
      startedAt: facts.serverStart.startedAt,
      side: facts.side ?? null,
    },
    startedAt: new Date(facts.startedAtEpochMs).toISOString(),
    durationS,
    load: {
      ...load,
      schedule: {
        ...scheduleCondition(schedule),
        elidedS: result.elidedMs / 1000,
        wallClockS: Math.max(0, durationS - result.elidedMs / 1000),
      },
    },
    ...metrics,
    server,
    cacheCheck: cache.check,
    ...(cache.sessions !== null ? { sessions: cache.sessions, cacheProtocol: cacheProtocol(facts) } : {}),
    guards: computeGuards(sorted, guardIgnoreEos(context)),
    ...(outputs.length > 0 ? { outputs } : {}),
    flags: {
      clientBound: clientBound.length > 0,
      ...(clientBound.length > 0 ? { clientBoundReason: clientBound.join("; ") } : {}),
      serverCrashed: crashed !== null,
      ...(server?.sim_step_lateness_p99_ms !== undefined ? { serverStarved: starved.length > 0 } : {}),
      ...(starved.length > 0 ? { serverStarvedReason: starved.join("; ") } : {}),
      cutShort: runEnd(facts).cutShort,
      notes: crashed !== null ? [`server exited during the run: ${crashed}`, ...notes] : notes,
      ...(Object.keys(usage.counts).length > 0 ? { usageIssues: usage.counts } : {}),
      ...(unusable.length > 0 ? { unusableReasons: unusable } : {}),
    },
    prefix: facts.prefix,
    fingerprint: {
      ...facts.serverFingerprint,
      workload: workloadConditions(cell, context.seed, schedule, workload.info),
    },
    telemetry: facts.telemetry ?? null,
  });
}

type RunMetrics = ReturnType<typeof computeRunMetrics>;

/**
 * What the load achieved against its target (run.json `load`, its schedule aside) and why the client,
 * not the server, may have set the pace (the client-bound reasons).
 */
function loadFidelity(
  facts: RunFacts,
  metrics: RunMetrics,
  durationS: number,
): { load: Omit<RunFile["load"], "schedule">; clientBound: string[] } {
  const { context, plan, records, dispatch: result } = facts;
  const { cell, config } = context;
  const lagSummary = summarize(records.map((record) => record.readyMs - record.scheduledMs));
  const targetConcurrency = targetConcurrencyOf(plan);
  const sendWindowS = result.lastReadyAt === null ? 0 : (result.lastReadyAt - result.startedAt) / 1000;
  const achievedRate =
    cell.load.type === "concurrency"
      ? metrics.throughput.request
      : sendWindowS > 0
        ? result.dispatched / sendWindowS
        : 0;
  const exactSchedule = cell.load.type === "rate" && plan.maxRequests !== null && plan.maxDurationMs === null;
  // A trace on an open-loop load arrives on its own timestamps (times time_scale), not at the cell's
  // rate: its target is the trace's own schedule, the sessions planned over their span (null when they
  // all arrive at once, which no achieved rate can be checked against).
  const replay =
    cell.load.type === "rate" && isTraceDataset(cell.dataset) ? traceReplay(cell, context.file) : null;
  const targetRate =
    replay === null ? targetRateOf(plan) : replay.spanS > 0 ? replay.sessions / replay.spanS : null;
  // A session dataset's concurrency counts sessions: a session holds no connection in its think time or
  // tool latency, and a run of fewer sessions than its concurrency cannot reach it, so the check reads the
  // sessions the client held in flight at once against the sessions that got an answer.
  const sessionCell = isSessionDataset(cell.dataset);
  const answeredSessions = sessionCell
    ? new Set(records.flatMap((record) => (record.ok && record.session ? [record.session.index] : []))).size
    : 0;
  const clientBound = clientBoundReasons({
    exactRate:
      exactSchedule && targetRate !== null && result.dispatched === plan.maxRequests
        ? { target: targetRate, achieved: achievedRate, requests: result.dispatched }
        : null,
    scheduleLagP50Ms: lagSummary.p50,
    eventLoopLagP99Ms: facts.eventLoopLagP99Ms,
    targetConcurrency,
    peakOnSocket: sessionCell ? result.peakInFlight : facts.peakOnSocket,
    completed: sessionCell ? answeredSessions : metrics.requests.completed,
    thresholds: {
      maxScheduleLagMs: config.client.max_schedule_lag_ms,
      maxEventLoopLagMs: config.client.max_event_loop_lag_ms,
    },
  });
  const busyMs = records.reduce((sum, record) => sum + (record.endMs - record.sentMs), 0);
  const load = {
    type: cell.load.type,
    targetRate,
    targetConcurrency,
    achievedRate,
    achievedConcurrencyMean: durationS > 0 ? busyMs / (durationS * 1000) : 0,
    peakConcurrency: facts.peakOnSocket,
    scheduleLagP50Ms: lagSummary.p50,
    scheduleLagP99Ms: lagSummary.p99,
    eventLoopLagP99Ms: facts.eventLoopLagP99Ms,
  };
  return { load, clientBound };
}

/** The run's sessions (a session dataset's) and the check of the prefix cache it found (metrics/cache-check.ts). */
function cacheState(
  facts: RunFacts,
  sorted: readonly RequestRecord[],
  durationS: number,
  server: ServerMetricsSummary | null,
): { sessions: ReturnType<typeof computeSessionMetrics>; check: ReturnType<typeof checkCacheState> } {
  const cell = facts.context.cell;
  const sharing = designedSharing(cell.dataset);
  const sessions = computeSessionMetrics(sorted, {
    durationS,
    slo: cell.slo,
    sharedPrefixTokens: sharedPrefixTokensOf(sharing),
    serverHitRate: server?.prefix_cache_hit_rate ?? null,
  });
  const check = checkCacheState({
    records: sorted,
    policy: facts.prefix.policy,
    sharing,
    serverHitRate: server?.prefix_cache_hit_rate ?? null,
    cacheReset: facts.prefix.cacheReset,
    firstTurns: sessions?.contamination ?? null,
  });
  return { sessions, check };
}

/** How a session run's cache was prepared (run.json `cacheProtocol`). */
function cacheProtocol(facts: RunFacts) {
  const warmup = facts.context.cell.warmup;
  return {
    reset: facts.prefix.cacheReset,
    salted: facts.prefix.cacheSalt !== null,
    warmup: "requests" in warmup ? { sessions: warmup.requests } : { durationS: warmup.duration_s },
    warmupRequests: facts.warmupCount,
  };
}

/**
 * The run's notes, in order: the runner's, then what the records, the usage checks, the cache check, the
 * server's metrics and the token model say; a run stopped by refused connections says so first.
 */
function runNotes(
  facts: RunFacts,
  usageNotes: readonly string[],
  cache: ReturnType<typeof cacheState>,
  server: ServerMetricsSummary | null,
): string[] {
  const { records, workload } = facts;
  const notes = [...facts.notes];
  if (records.some((record) => record.ok && record.outputTokensSource === "chunks" && !record.usageIssue)) {
    notes.push("the server sent no usage for some requests: their output tokens are counted as chunks");
  }
  const unscored = records.filter((record) => record.task?.error !== undefined);
  if (unscored.length > 0)
    notes.push(
      `${unscored.length} answers could not be scored and count as wrong (e.g. request ${unscored[0]!.index}: ${unscored[0]!.task!.error})`,
    );
  notes.push(...usageNotes);
  if (cache.check.status === "not-checked" && facts.prefix.policy === "fresh")
    notes.push(`cache state not checked: ${cache.check.reason}`);
  const contamination = cache.sessions?.contamination;
  if (facts.prefix.policy === "reuse" && contamination?.flagged === true)
    notes.push(
      `${contamination.aboveSharedPrefix} of ${contamination.firstTurns} sessions' first turns were served from the prefix cache beyond the common system prompt: the cache held an earlier run's conversations (use prefix: fresh, or reset the server's cache)`,
    );
  if (server !== null && (server.notFinite?.length ?? 0) > 0) {
    notes.push(
      `/metrics gave no finite number (NaN or Inf samples) for ${server.notFinite!.join(", ")}: recorded as null`,
    );
  }
  if (workload.info.tokenModel.source === "tokenize") {
    const model = workload.info.tokenModel;
    notes.push(
      `prompt lengths calibrated with POST /tokenize: ${model.tokensPerWord} tokens/word + ${model.offset}`,
    );
  }
  if (facts.refusedInARow !== null) {
    const last = [...records].reverse().find((record) => record.errorKind === "connect");
    notes.unshift(
      `stopped after ${facts.refusedInARow} refused connections in a row: the server is unreachable${last?.error ? ` (${last.error})` : ""}`,
    );
  }
  return notes;
}

/**
 * A run's workload conditions (run.json `fingerprint.workload`), diffed by compare field by field like the
 * server's: the cell's workload as configured (its dataset's kind, path template and configured sha256
 * among it), the seed and schedule, the sha256 of the dataset bytes read and the token model. A changed
 * dataset is a changed condition of its cell only.
 */
export function workloadConditions(
  cell: CellConfig,
  seed: number,
  schedule: CellSchedule,
  info: Pick<WorkloadInfo, "datasetSha256" | "tokenModel">,
) {
  return {
    cell: cell.name,
    endpoint: cell.endpoint,
    dataset: cell.dataset,
    load: cell.load,
    size: cell.size,
    warmup: cell.warmup,
    prefix: cell.prefix,
    seed,
    schedule: scheduleCondition(schedule),
    datasetSha256: info.datasetSha256,
    tokenModel: info.tokenModel,
  };
}

/**
 * Whether the requests asked for ignore_eos: the sampling setting, unless extra_body overrides it; never
 * in a greedy-output cell (request-body.ts).
 */
function guardIgnoreEos(context: CellContext): boolean | null {
  if (context.config.quality.greedy?.cells.includes(context.cell.name)) return false;
  if (scoresAnswers(context.cell.dataset)) return false;
  const sampling = context.config.sampling;
  const extra = sampling.extra_body.ignore_eos;
  if (extra === undefined) return sampling.ignore_eos;
  return typeof extra === "boolean" ? extra : null;
}

/**
 * Share of a run's measured requests with a usage issue above which the run is unusable: 5%. Below it the
 * flagged requests are counted (their output tokens come from the chunks) and the run is kept.
 */
export const usageIssueLimit = 0.05;

/** Counts the measured requests whose usage failed a check, and whether that makes the run unusable. */
function usageVerdict(records: readonly RequestRecord[]): {
  counts: Partial<Record<UsageIssueKind, number>>;
  notes: string[];
  unusable: string[];
} {
  const counts: Partial<Record<UsageIssueKind, number>> = {};
  let flagged = 0;
  let example: string | null = null;
  for (const record of records) {
    if (!record.usageIssue) continue;
    flagged++;
    counts[record.usageIssue.kind] = (counts[record.usageIssue.kind] ?? 0) + 1;
    example ??= `request ${record.index}: ${record.usageIssue.detail}`;
  }
  if (flagged === 0) return { counts, notes: [], unusable: [] };
  const kinds = Object.entries(counts)
    .map(([kind, count]) => `${count} ${kind}`)
    .join(", ");
  const share = flagged / records.length;
  const summary = `${flagged} of ${records.length} requests (${(share * 100).toFixed(1)}%) had usage that failed its checks (${kinds}; e.g. ${example})`;
  if (share > usageIssueLimit) {
    return {
      counts,
      notes: [],
      unusable: [
        `${summary}: more than ${usageIssueLimit * 100}% makes the run unusable, its token counts and throughputs cannot be trusted`,
      ],
    };
  }
  return {
    counts,
    notes: [`${summary}; their output tokens are counted as chunks where usage was wrong`],
    unusable: [],
  };
}

/**
 * NaN and +-Inf are legal sample values in the Prometheus text format; a server summary field they leave
 * without a finite number becomes null and is named in `notFinite` (run.json holds only finite numbers).
 */
function withFiniteValues(summary: ServerMetricsSummary | null): ServerMetricsSummary | null {
  if (summary === null) return null;
  const notFinite: string[] = [];
  const entries = Object.entries(summary).map(([key, value]) => {
    if (typeof value !== "number" || Number.isFinite(value)) return [key, value];
    notFinite.push(key);
    return [key, null];
  });
  return { ...(Object.fromEntries(entries) as ServerMetricsSummary), notFinite };
}
