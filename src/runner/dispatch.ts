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

/** What dispatchLoad is given: the plan, the clock, the seed of its arrivals and how one request is sent. */
interface DispatchOptions {
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
}

/**
 * Executes a load plan: open-loop segments send on an absolute gamma schedule (waiting for a slot under
 * max_concurrency), closed-loop segments keep N requests in flight. Stops at the request count or the
 * duration, whichever comes first, then waits for everything in flight. Pure scheduling: the clock and
 * the send function are injected, so it runs on virtual time in tests. With `elideIdle` the schedule
 * runs on its own timeline (the clock plus the idle time elided so far), and durations, stages and
 * arrivals are measured on it.
 */
export async function dispatchLoad(options: DispatchOptions): Promise<DispatchResult> {
  const { plan, clock } = options;
  const startedAt = clock.now();
  const deadline = plan.maxDurationMs === null ? Number.POSITIVE_INFINITY : startedAt + plan.maxDurationMs;
  const dispatch = new LoadDispatch(options, new ScheduleTimeline(clock, options.elideIdle, startedAt));
  let segmentStart = startedAt;
  for (let stage = 0; stage < plan.segments.length; stage++) {
    const segment = plan.segments[stage]!;
    const segmentEnd = Math.min(
      deadline,
      segment.durationMs === null ? Number.POSITIVE_INFINITY : segmentStart + segment.durationMs,
    );
    if (dispatch.exhausted() || segmentStart >= deadline) break;
    if (segment.kind === "rate") await dispatch.openLoop(segment, stage, segmentStart, segmentEnd);
    else await dispatch.closedLoop(segment.concurrency, stage, segmentEnd);
    segmentStart = segmentEnd === Number.POSITIVE_INFINITY ? dispatch.timeline.now() : segmentEnd;
  }
  return dispatch.finish(startedAt);
}

type Segment = LoadPlan["segments"][number];

/**
 * The schedule's timeline: the clock plus the idle time elided so far (0 on real time), the requests in
 * flight or waiting for a slot, and the wait that elides the idle part of a wait (see IdleElision).
 */
class ScheduleTimeline {
  elided = 0;
  private busy = 0;
  private idleSince: number;
  private onIdle: (() => void) | null = null;

  constructor(
    private readonly clock: ScheduleClock,
    private readonly elideIdle: IdleElision | undefined,
    startedAt: number,
  ) {
    this.idleSince = startedAt;
  }

  now(): number {
    return this.clock.now() + this.elided;
  }

  /** A request is in flight or waiting for a slot. */
  enter(): void {
    this.busy++;
  }

  /** A request ended: when it was the last, the idle time starts (and a wait for it wakes). */
  leave(): void {
    if (--this.busy > 0) return;
    this.idleSince = this.clock.now();
    this.onIdle?.();
  }

  /** Waits until `at` on the schedule's timeline, eliding the idle part of the wait (see IdleElision). */
  async waitUntil(at: number): Promise<void> {
    const elide = this.elideIdle;
    const clock = this.clock;
    if (!elide) return clock.sleepUntil(at - this.elided);
    // One wait per moment: waking on idle without cutting anything keeps waiting on the same one.
    let sleeping: { until: number; done: Promise<void> } | null = null;
    const sleep = (until: number) => {
      if (sleeping?.until !== until) sleeping = { until, done: clock.sleepUntil(until) };
      return sleeping.done;
    };
    for (;;) {
      if (this.busy === 0) {
        const earliest = Math.max(clock.now(), this.idleSince + elide.settleMs);
        if (at - this.elided > earliest) this.elided = at - earliest;
        return sleep(at - this.elided);
      }
      const idle = new Promise<"idle">((resolve) => {
        this.onIdle = () => resolve("idle");
      });
      const woke = await Promise.race([sleep(at - this.elided).then(() => "time" as const), idle]);
      this.onIdle = null;
      if (woke === "time") return;
    }
  }
}

/** One dispatch of a plan: its requests counted, in flight and at most at once, its segments sent. */
class LoadDispatch {
  private nextIndex = 0;
  private inFlightCount = 0;
  private peakInFlight = 0;
  private lastReadyAt: number | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly slots: Slots;

  constructor(
    private readonly options: DispatchOptions,
    readonly timeline: ScheduleTimeline,
  ) {
    this.slots = new Slots(options.plan.maxConcurrency);
  }

  exhausted(): boolean {
    const max = this.options.plan.maxRequests;
    return (max !== null && this.nextIndex >= max) || this.options.shouldStop?.() === true;
  }

  /**
   * An open-loop segment: arrivals on the rate's gamma schedule (a counted one when the plan stops at a
   * request count alone, the trace's own in a trace's first segment), each sent once it has a slot.
   */
  async openLoop(segment: Extract<Segment, { kind: "rate" }>, stage: number, start: number, end: number) {
    const { plan, clock } = this.options;
    const timeline = this.timeline;
    const rng = createRng(this.options.seed, "arrivals", stage);
    const trace = stage === 0 ? (this.options.traceArrivalsMs ?? null) : null;
    const counted =
      trace !== null
        ? trace(plan.maxRequests ?? maxTraceArrivals)
        : segment.durationMs === null && plan.maxRequests !== null && plan.maxDurationMs === null
          ? countedArrivals(rng, plan.maxRequests - this.nextIndex, segment.rate, segment.burstiness)
          : null;
    const stream = counted ? null : arrivalStream(rng, segment.rate, segment.burstiness);
    for (let arrival = 0; ; arrival++) {
      if (this.exhausted()) break;
      const offset = counted ? counted[arrival] : stream!.next();
      if (offset === undefined) break;
      const scheduledAt = start + offset;
      if (scheduledAt >= end) break;
      await timeline.waitUntil(scheduledAt);
      if (this.options.shouldStop?.() === true) break;
      const readyAt = clock.now();
      this.lastReadyAt = readyAt + timeline.elided;
      const ticket = {
        index: this.nextIndex++,
        stage,
        scheduledAt: scheduledAt - timeline.elided,
        readyAt,
        elidedMs: timeline.elided,
      };
      timeline.enter();
      const waiting = this.slots.acquire();
      const task = (waiting ? waiting.then(() => this.run(ticket, true)) : this.run(ticket, false)).finally(
        () => {
          this.slots.release();
          this.inFlight.delete(task);
          timeline.leave();
        },
      );
      this.inFlight.add(task);
    }
  }

  /**
   * A closed-loop segment: `concurrency` workers, each sending its next request when its last ended, until
   * the segment's end. A request follows the one before it at once, so there is no idle time to elide.
   */
  async closedLoop(concurrency: number, stage: number, end: number) {
    const { clock } = this.options;
    const timeline = this.timeline;
    const worker = async () => {
      let scheduledAt = clock.now();
      timeline.enter();
      try {
        while (!this.exhausted() && timeline.now() < end) {
          const readyAt = clock.now();
          this.lastReadyAt = readyAt + timeline.elided;
          const ticket = { index: this.nextIndex++, stage, scheduledAt, readyAt, elidedMs: timeline.elided };
          scheduledAt = await this.run(ticket, false);
        }
      } finally {
        timeline.leave();
      }
    };
    const workers = Array.from({ length: concurrency }, worker);
    if (end === Number.POSITIVE_INFINITY) await Promise.all(workers);
    else {
      // The next stage starts on time; this stage's requests still in flight finish in the background.
      const all: Promise<unknown> = Promise.all(workers).finally(() => this.inFlight.delete(all));
      this.inFlight.add(all);
      await Promise.race([all, timeline.waitUntil(end)]);
    }
  }

  /** Waits for everything still in flight. */
  async finish(startedAt: number): Promise<DispatchResult> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    return {
      startedAt,
      dispatched: this.nextIndex,
      lastReadyAt: this.lastReadyAt,
      peakInFlight: this.peakInFlight,
      elidedMs: this.timeline.elided,
    };
  }

  private async run(ticket: Omit<Ticket, "slotAt">, slotted: boolean): Promise<number> {
    this.inFlightCount++;
    if (this.inFlightCount > this.peakInFlight) this.peakInFlight = this.inFlightCount;
    try {
      return await this.options.send({
        ...ticket,
        slotAt: slotted ? this.options.clock.now() : ticket.readyAt,
      });
    } finally {
      this.inFlightCount--;
    }
  }
}
