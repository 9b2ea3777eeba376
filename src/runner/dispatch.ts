import type { ScheduleClock } from "../util/clock.js";
import { createRng } from "../util/random.js";
import { arrivalStream, countedArrivals } from "../workload/arrivals.js";
import { maxTraceArrivals } from "../workload/trace-replay.js";
import type { LoadPlan } from "./load-plan.js";

/** One request the dispatcher decided to send. Times are on the injected clock. */
export interface Ticket {
  index: number;
  stage: number;
  /** When the schedule wanted it (open loop) or when the previous request on its slot ended (closed loop). */
  scheduledAt: number;
  /** When the dispatcher actually got to it; readyAt - scheduledAt is the client's own lag. */
  readyAt: number;
  /** When it obtained a concurrency slot (== readyAt without a cap). */
  slotAt: number;
  /**
   * Idle time elided before it (IdleElision): the clock plus this is the request's time on the schedule's
   * own timeline, where the real-time schedule would have had it. 0 (or absent) on real time.
   */
  elidedMs?: number;
  /** A session's turn (session datasets, docs/workloads.md): which session, which turn, of how many. */
  session?: SessionPosition;
}

/**
 * Where a request is in its session: `index` the session, `turn` its turn (0-based: the context depth in
 * turns), `turns` the turns the session has, `toolRound` 0 for the user's message and r for the r-th
 * mocked tool result answering the turn's tool calls; at a fan-out turn, `branch` of `branches` (each
 * branch's tool rounds counted on their own).
 */
interface SessionPosition {
  index: number;
  turn: number;
  turns: number;
  toolRound: number;
  branch?: number;
  branches?: number;
}

/**
 * Eliding idle gaps (docs/run.md, Schedules): when no request is in flight or waiting for a slot, the
 * server's state does not depend on how long it stays idle, so the next arrival is sent once the last
 * request ended `settleMs` ago instead of at its time, and every later arrival moves as much earlier.
 * Each request then meets the same requests in flight and the same queue as on real time; only the
 * time nothing happens is cut. Never while anything is in flight: that would change the batching.
 */
export interface IdleElision {
  settleMs: number;
}

/**
 * Sends one request (or, for a session dataset, one session: its turns one after the other) and resolves
 * with the time its response ended (the next closed-loop request's schedule).
 */
type SendFn = (ticket: Ticket) => Promise<number>;

export interface DispatchResult {
  /** ScheduleClock time the measured phase began (before the first arrival's wait). */
  startedAt: number;
  dispatched: number;
  /** When the last request was ready, on the schedule's timeline (the clock plus the idle time elided before it). */
  lastReadyAt: number | null;
  peakInFlight: number;
  /** Idle time elided in all (0 on real time). */
  elidedMs: number;
}

class Slots {
  private readonly waiters: (() => void)[] = [];
  private used = 0;
  constructor(private readonly limit: number | null) {}
  acquire(): Promise<void> | null {
    if (this.limit === null || this.used < this.limit) {
      this.used++;
      return null;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.used--;
  }
}

/**
 * Executes a load plan: open-loop segments send on an absolute gamma schedule (waiting for a slot under
 * max_concurrency), closed-loop segments keep N requests in flight. Stops at the request count or the
 * duration, whichever comes first, then waits for everything in flight. Pure scheduling: the clock and
 * the send function are injected, so it runs on virtual time in tests. With `elideIdle` the schedule
 * runs on its own timeline (the clock plus the idle time elided so far), and durations, stages and
 * arrivals are measured on it.
 */
export async function dispatchLoad(options: {
  plan: LoadPlan;
  clock: ScheduleClock;
  seed: number;
  send: SendFn;
  shouldStop?: () => boolean;
  elideIdle?: IdleElision;
  /**
   * Arrival offsets (ms from the segment's start) for the first open-loop segment, from a trace's own
   * clock (a trace dataset), given the count wanted; they replace the rate's gamma gaps.
   */
  traceArrivalsMs?: ((count: number) => number[]) | null;
}): Promise<DispatchResult> {
  const { plan, clock, send } = options;
  const startedAt = clock.now();
  const deadline = plan.maxDurationMs === null ? Number.POSITIVE_INFINITY : startedAt + plan.maxDurationMs;
  const slots = new Slots(plan.maxConcurrency);
  const inFlight = new Set<Promise<unknown>>();
  let nextIndex = 0;
  let inFlightCount = 0;
  let peakInFlight = 0;
  let lastReadyAt: number | null = null;

  // The schedule's timeline: the clock plus the idle time elided so far (0 on real time).
  let elided = 0;
  const scheduleNow = () => clock.now() + elided;
  // Requests in flight or waiting for a slot, when the last of them ended, and who waits for that.
  let busy = 0;
  let idleSince = startedAt;
  let onIdle: (() => void) | null = null;
  const enter = () => {
    busy++;
  };
  const leave = () => {
    if (--busy > 0) return;
    idleSince = clock.now();
    onIdle?.();
  };
  /** Waits until `at` on the schedule's timeline, eliding the idle part of the wait (see IdleElision). */
  const waitUntil = async (at: number): Promise<void> => {
    const elide = options.elideIdle;
    if (!elide) return clock.sleepUntil(at - elided);
    // One wait per moment: waking on idle without cutting anything keeps waiting on the same one.
    let sleeping: { until: number; done: Promise<void> } | null = null;
    const sleep = (until: number) => {
      if (sleeping?.until !== until) sleeping = { until, done: clock.sleepUntil(until) };
      return sleeping.done;
    };
    for (;;) {
      if (busy === 0) {
        const earliest = Math.max(clock.now(), idleSince + elide.settleMs);
        if (at - elided > earliest) elided = at - earliest;
        return sleep(at - elided);
      }
      const idle = new Promise<"idle">((resolve) => {
        onIdle = () => resolve("idle");
      });
      const woke = await Promise.race([sleep(at - elided).then(() => "time" as const), idle]);
      onIdle = null;
      if (woke === "time") return;
    }
  };

  const exhausted = () =>
    (plan.maxRequests !== null && nextIndex >= plan.maxRequests) || options.shouldStop?.() === true;

  const run = async (ticket: Omit<Ticket, "slotAt">, slotted: boolean): Promise<number> => {
    inFlightCount++;
    if (inFlightCount > peakInFlight) peakInFlight = inFlightCount;
    try {
      return await send({ ...ticket, slotAt: slotted ? clock.now() : ticket.readyAt });
    } finally {
      inFlightCount--;
    }
  };

  let segmentStart = startedAt;
  for (let stage = 0; stage < plan.segments.length; stage++) {
    const segment = plan.segments[stage]!;
    const segmentEnd = Math.min(
      deadline,
      segment.durationMs === null ? Number.POSITIVE_INFINITY : segmentStart + segment.durationMs,
    );
    if (exhausted() || segmentStart >= deadline) break;

    if (segment.kind === "rate") {
      const rng = createRng(options.seed, "arrivals", stage);
      const trace = stage === 0 ? (options.traceArrivalsMs ?? null) : null;
      const counted =
        trace !== null
          ? trace(plan.maxRequests ?? maxTraceArrivals)
          : segment.durationMs === null && plan.maxRequests !== null && plan.maxDurationMs === null
            ? countedArrivals(rng, plan.maxRequests - nextIndex, segment.rate, segment.burstiness)
            : null;
      const stream = counted ? null : arrivalStream(rng, segment.rate, segment.burstiness);
      for (let arrival = 0; ; arrival++) {
        if (exhausted()) break;
        const offset = counted ? counted[arrival] : stream!.next();
        if (offset === undefined) break;
        const scheduledAt = segmentStart + offset;
        if (scheduledAt >= segmentEnd) break;
        await waitUntil(scheduledAt);
        if (options.shouldStop?.() === true) break;
        const readyAt = clock.now();
        lastReadyAt = readyAt + elided;
        const ticket = {
          index: nextIndex++,
          stage,
          scheduledAt: scheduledAt - elided,
          readyAt,
          elidedMs: elided,
        };
        enter();
        const waiting = slots.acquire();
        const task = (waiting ? waiting.then(() => run(ticket, true)) : run(ticket, false)).finally(() => {
          slots.release();
          inFlight.delete(task);
          leave();
        });
        inFlight.add(task);
      }
    } else {
      // Closed loop: a request follows the one before it at once, so there is no idle time to elide.
      const worker = async () => {
        let scheduledAt = clock.now();
        enter();
        try {
          while (!exhausted() && scheduleNow() < segmentEnd) {
            const readyAt = clock.now();
            lastReadyAt = readyAt + elided;
            const ticket = { index: nextIndex++, stage, scheduledAt, readyAt, elidedMs: elided };
            scheduledAt = await run(ticket, false);
          }
        } finally {
          leave();
        }
      };
      const workers = Array.from({ length: segment.concurrency }, worker);
      if (segmentEnd === Number.POSITIVE_INFINITY) await Promise.all(workers);
      else {
        // The next stage starts on time; this stage's requests still in flight finish in the background.
        const all: Promise<unknown> = Promise.all(workers).finally(() => inFlight.delete(all));
        inFlight.add(all);
        await Promise.race([all, waitUntil(segmentEnd)]);
      }
    }
    segmentStart = segmentEnd === Number.POSITIVE_INFINITY ? scheduleNow() : segmentEnd;
  }
  while (inFlight.size > 0) await Promise.all([...inFlight]);
  return { startedAt, dispatched: nextIndex, lastReadyAt, peakInFlight, elidedMs: elided };
}
