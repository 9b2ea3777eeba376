import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { type ControlClient, createStreamClient, type StreamClient } from "../client/stream-client.js";
import { requestsPerSessionInFlight } from "../config/dataset-kinds/fan-out.js";
import type { Outbound } from "../server/outbound.js";
import type { ServerSession } from "../server/types.js";
import { type ScheduleClock, systemClock } from "../util/clock.js";
import { endpointPath } from "../workload/request-body.js";
import type { Workload } from "../workload/workload.js";
import type { CellContext } from "./cell-context.js";
import { DeferredWork } from "./deferred-work.js";
import { loadPlanOf, poolSizeOf } from "./load-plan.js";
import { runMeasuredPhase } from "./measured-phase.js";
import { type PhaseSenderSetup, runGuard } from "./phase-sender.js";
import type { ProgressSink } from "./progress.js";
import { requestBodies } from "./request-bodies.js";
import { type OutputFormat, type RunOutcome, type RunRecorder, runEnd } from "./run-recorder.js";
import { defaultStallReportMs, stallReporter } from "./stall-report.js";
import { runWarmup } from "./warmup.js";

export type { OutputFormat } from "./run-recorder.js";

export interface RunOnceOptions<Recorded> {
  context: CellContext;
  workload: Workload;
  session: ServerSession;
  control: ControlClient;
  runIndex: number;
  runs: number;
  /** DIR/<cell>/run-<k> */
  dir: string;
  formats: readonly OutputFormat[];
  /** Summarises the finished run and writes its run.json (and vllm-result.json). */
  recorder: RunRecorder<Recorded>;
  /** The job's output seam: everything the run writes goes through it (a server may echo a secret). */
  outbound: Outbound;
  side?: string;
  progress: ProgressSink;
  clock?: ScheduleClock;
  /** Set by the caller to end the run early (Ctrl-C); what was measured is kept. */
  shouldAbort?: () => boolean;
  /** Fingerprint of the server session, gathered once per session. */
  serverFingerprint: Record<string, unknown>;
  /** Notes about the run's preparation (e.g. prompt-length check), copied into run.json. */
  notes?: readonly string[];
  /** After how long without a chunk a request in flight is reported (default defaultStallReportMs). */
  stallReportMs?: number;
  /** Called right before the first measured dispatch and right after the last completion (benchmarks). */
  onMeasuredPhase?: (edge: "start" | "end", epochMs: number) => void;
}

/** How often the requests in flight are checked for stalls. */
const stallCheckEveryMs = 1_000;

/** Connections opened ahead of an open-loop run without a concurrency cap (more open on demand). */
const defaultOpenLoopConnections = 32;

/** A finished run: the recorder's summary of it, and how it ended. */
export interface RunOnceResult<Recorded> extends ReturnType<typeof runEnd> {
  recorded: Recorded;
}

/**
 * One run of one cell: prefix policy, warm-up (excluded), the measured phase with /metrics scraped
 * before, during and after, and its files: requests.jsonl (as requests finish), scrapes.jsonl, and
 * what the recorder writes (run.json).
 */
export async function runOnce<Recorded>(options: RunOnceOptions<Recorded>): Promise<RunOnceResult<Recorded>> {
  const { context, workload, session, control, runIndex, dir, progress } = options;
  const { cell } = context;
  const clock = options.clock ?? systemClock;
  mkdirSync(dir, { recursive: true });
  const notes: string[] = [...(options.notes ?? [])];
  const { cacheSalt, cacheReset } = await applyPrefixPolicy(cell, runIndex, control, notes);

  const plan = loadPlanOf(cell);
  // A session's fan-out branches are in flight at once: each needs a connection of its own.
  const poolSize = poolSizeOf(plan, requestsPerSessionInFlight(cell.dataset));
  const client = createStreamClient({
    baseUrl: session.endpoint.baseUrl,
    ...(session.endpoint.apiKey ? { apiKey: session.endpoint.apiKey } : {}),
    connections: poolSize,
  });
  const bodies = requestBodies(context, workload, cacheSalt);
  const guard = runGuard(session, options.shouldAbort);

  // An interrupt ends the requests in flight too, not just new sends (a dead server fails them itself);
  // a stream that stops producing tokens is reported while it stalls, not only at its timeout.
  const stalls = stallReporter({
    cell: cell.name,
    runIndex,
    thresholdMs: options.stallReportMs ?? defaultStallReportMs,
  });
  let stallCheckedAt = performance.now();
  const watchdog = setInterval(() => {
    if (options.shouldAbort?.() === true) client.abortAll();
    const now = performance.now();
    if (now - stallCheckedAt >= stallCheckEveryMs) {
      stallCheckedAt = now;
      const line = stalls.check(now, client.inFlight());
      if (line !== null) progress.message(line);
    }
  }, 200);
  watchdog.unref();
  const sender: PhaseSenderSetup = {
    client,
    path: endpointPath[cell.endpoint],
    cell: cell.name,
    runIndex,
    runs: options.runs,
    timeoutMs: cell.timeout_s * 1000,
    clock,
    progress,
    bookkeeping: new DeferredWork(),
    guard,
  };
  const { outbound } = options;
  try {
    await primeConnections(client, poolSize ?? defaultOpenLoopConnections, notes);
    const warmupCount = await runWarmup(sender, context, plan, dir, clock, bodies, outbound, notes);
    const measuredPhase = {
      sender,
      context,
      session,
      control,
      plan,
      dir,
      clock,
      bodies,
      outbound,
      onMeasuredPhase: options.onMeasuredPhase,
    };
    let outcome: RunOutcome | undefined;
    const recorded = await runMeasuredPhase(measuredPhase, (measurement) => {
      outcome = {
        context,
        workload,
        plan,
        runIndex,
        side: options.side,
        warmupCount,
        peakOnSocket: client.peakOnSocket,
        crashReason: guard.crashed(),
        refusedInARow: guard.unreachable() ? guard.refusedInARow() : null,
        aborted: guard.aborted(),
        notes,
        prefix: { policy: cell.prefix, cacheSalt, cacheReset },
        serverFingerprint: options.serverFingerprint,
        serverStart: session.start,
        formats: options.formats,
        dir,
        outbound,
      };
      return options.recorder.record(measurement, outcome);
    });
    return { recorded, ...runEnd(outcome!) };
  } finally {
    clearInterval(watchdog);
    await client.close();
  }
}

/**
 * Prefix policy: a salt per run keeps runs from sharing cached prefixes; the reset also clears what
 * earlier runs (or other jobs) left, where the server exposes it (vLLM dev mode).
 */
async function applyPrefixPolicy(
  cell: CellContext["cell"],
  runIndex: number,
  control: ControlClient,
  notes: string[],
): Promise<{ cacheSalt: string | null; cacheReset: boolean }> {
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
  return { cacheSalt, cacheReset };
}

/** Opens the run's connections before the clock starts; a shortfall is noted (the first TTFTs may include set-up). */
async function primeConnections(client: StreamClient, connections: number, notes: string[]): Promise<void> {
  const primed = await client.prime(connections);
  if (primed.problem !== null) {
    notes.push(
      `${primed.answered} of ${connections} connections opened before the run (${primed.problem}); the first requests' TTFT may include connection set-up`,
    );
  }
}
