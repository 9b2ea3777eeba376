import { join } from "node:path";
import type { ControlClient } from "../client/stream-client.js";
import { cellSchedule } from "../config/schedule.js";
import type { Outbound } from "../server/outbound.js";
import type { TelemetryRecord, TelemetrySampler } from "../server/telemetry.js";
import type { ServerSession } from "../server/types.js";
import { epochMsOf, type ScheduleClock } from "../util/clock.js";
import type { CellContext } from "./cell-context.js";
import { startEventLoopProbe } from "./client-bound.js";
import { type DispatchResult, dispatchLoad } from "./dispatch.js";
import { JsonlAppender } from "./jsonl-appender.js";
import type { LoadPlan } from "./load-plan.js";
import { type MetricsScrape, MetricsScraper } from "./metrics-scraper.js";
import { type PhaseSenderSetup, phaseSender } from "./phase-sender.js";
import { type CellBodies, phaseBodies, prebuildMeasuredBodies } from "./request-bodies.js";
import type { RequestRecord } from "./request-schema.js";

export interface MeasuredPhaseSetup {
  sender: PhaseSenderSetup;
  context: CellContext;
  session: ServerSession;
  control: ControlClient;
  plan: LoadPlan;
  dir: string;
  clock: ScheduleClock;
  bodies: CellBodies;
  /** The job's output seam: every file of the phase is written through it. */
  outbound: Outbound;
  onMeasuredPhase: ((edge: "start" | "end", epochMs: number) => void) | undefined;
}

/** What the measured phase leaves for run.json: its records (by index), its time span, scrapes, telemetry. */
export interface Measurement {
  records: RequestRecord[];
  origin: number;
  /** The last response's end on the schedule's timeline (the clock plus the idle time elided, dispatch.elidedMs). */
  lastEnd: number;
  startedAtEpochMs: number;
  dispatch: DispatchResult;
  eventLoopLagP99Ms: number | null;
  scrapes: MetricsScrape[];
  telemetry: TelemetryRecord | null;
}

/**
 * The measured phase: /metrics scraped before, periodically during and after, GPU telemetry sampled
 * (telemetry.json), requests.jsonl appended as requests finish. `finish` writes the run's files from the
 * measurement while the phase still holds its scraper, telemetry and logs; they are released after it.
 */
export async function runMeasuredPhase<T>(
  setup: MeasuredPhaseSetup,
  finish: (measurement: Measurement) => T,
): Promise<T> {
  const { sender, context, session, control, plan, dir, clock, bodies, outbound } = setup;
  const { config } = context;
  const prebuilt = prebuildMeasuredBodies(plan, bodies);

  const scrapeLog = new JsonlAppender(join(dir, "scrapes.jsonl"), outbound);
  const requestLog = new JsonlAppender(join(dir, "requests.jsonl"), outbound);
  let origin = clock.now();
  const scraper = new MetricsScraper(control, session.endpoint.metricsUrl, clock, () => origin, scrapeLog);
  const records: RequestRecord[] = [];
  const measured = phaseSender(
    sender,
    "measure",
    plan,
    requestLog,
    () => origin,
    phaseBodies(bodies, "measure", prebuilt),
    records,
  );
  let telemetry: TelemetrySampler | undefined;
  try {
    await scraper.scrape("before");
    scraper.startPeriodic(config.telemetry.metrics_interval_s * 1000);
    sender.client.resetPeak();
    // GPU and compact /metrics time series; absent for servers without a launcher (--base-url).
    telemetry = session.startTelemetry?.({
      metricsIntervalMs: config.telemetry.metrics_interval_s * 1000,
      gpuIntervalMs: config.telemetry.nvidia_smi_interval_s * 1000,
    });
    const loopProbe = startEventLoopProbe();
    origin = clock.now();
    const startedAtEpochMs = epochMsOf(origin);
    setup.onMeasuredPhase?.("start", startedAtEpochMs);
    // The last end on the schedule's timeline (with idle gaps elided: the clock plus the idle time cut
    // before that request), so the run's duration is the one its schedule has on real time.
    let lastEnd = origin;
    const schedule = cellSchedule(config, context.cell);
    const result = await dispatchLoad({
      plan,
      clock,
      seed: context.seed,
      shouldStop: sender.guard.stop,
      traceArrivalsMs: bodies.sessions?.sessions.arrivalsMs ?? null,
      ...(schedule.kind === "idle-elided" ? { elideIdle: { settleMs: schedule.settleMs } } : {}),
      send: async (ticket) => {
        const outcome = await measured.send(ticket);
        lastEnd = Math.max(lastEnd, outcome.endAt + (ticket.elidedMs ?? 0));
        return outcome.endAt;
      },
    });
    await sender.bookkeeping.settled();
    await sender.guard.settle(clock);
    const loop = loopProbe.stop();
    setup.onMeasuredPhase?.("end", epochMsOf(clock.now()));
    await scraper.stopPeriodic();
    await scraper.scrape("after");
    const telemetryRecord = telemetry ? await telemetry.stop() : null;
    if (telemetryRecord)
      outbound.writeFileSync(join(dir, "telemetry.json"), `${JSON.stringify(telemetryRecord)}\n`);
    requestLog.close();
    scrapeLog.close();

    records.sort((a, b) => a.index - b.index);
    return finish({
      records,
      origin,
      lastEnd,
      startedAtEpochMs,
      dispatch: result,
      eventLoopLagP99Ms: loop.p99Ms,
      scrapes: scraper.scrapes,
      telemetry: telemetryRecord,
    });
  } finally {
    await scraper.stopPeriodic();
    await telemetry?.stop();
    requestLog.close();
    scrapeLog.close();
  }
}
