import type { MonotonicClock } from "../util/clock.js";
import type { Engine, StepEvent } from "./engine.js";

export interface LoopOptions {
  /**
   * The last this-many milliseconds before a step boundary are waited by yielding to the event loop
   * (setImmediate) instead of a timer, because Node timers fire up to ~1 ms late.
   */
  spinMs?: number;
  /**
   * Inside that window the loop sleeps in slices this long (Atomics.wait) between turns of the event
   * loop instead of spinning: the wake-up is as precise, the CPU is left to the client sharing the
   * machine, and the scheduler favours a thread that sleeps over one that spins. 0 = spin.
   */
  sleepSliceMs?: number;
  /** Beyond this lateness the loop stops catching up and restarts the timeline at "now". */
  resyncAfterMs?: number;
  /**
   * A cumulative counter read at every step (for the bench: the loop thread's run-queue wait, ms); its
   * increase over each step is kept beside the step's lateness.
   */
  stepProbe?: () => number;
}

export interface LoopLateness {
  /** How late each step boundary was handled, ms (actual - intended). */
  lateness: Float64Array;
  count: number;
  /** Time spent delivering each step's events (writing chunks), ms. */
  delivery: Float64Array;
  /** The probe's increase since the previous step (empty without a probe). */
  probe: Float64Array;
}

/**
 * Drives the pure engine on real time: one loop for all streams, no per-request timers. Steps run
 * back to back on the engine's own timeline (the next starts when the last should have ended), so small
 * timer delays do not accumulate into the model.
 */
/** Nothing ever notifies it: Atomics.wait on it is a sub-millisecond sleep. */
const sleepCell = new Int32Array(new SharedArrayBuffer(4));

export class StepLoop {
  private idle = true;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private readonly spinMs: number;
  private readonly resyncAfterMs: number;
  private readonly sleepSliceMs: number;
  private latenessBuffer = new Float64Array(4096);
  private deliveryBuffer = new Float64Array(4096);
  private probeBuffer = new Float64Array(0);
  private readonly stepProbe: (() => number) | undefined;
  private lastProbe = 0;
  private samples = 0;
  steps = 0;

  constructor(
    private readonly engine: Engine,
    private readonly clock: MonotonicClock,
    private readonly deliver: (events: StepEvent[], rejected: string[], at: number) => void,
    options: LoopOptions = {},
  ) {
    this.spinMs = options.spinMs ?? 1.2;
    this.resyncAfterMs = options.resyncAfterMs ?? 100;
    this.stepProbe = options.stepProbe;
    if (this.stepProbe) {
      this.probeBuffer = new Float64Array(4096);
      this.lastProbe = this.stepProbe();
    }
    this.sleepSliceMs = options.sleepSliceMs ?? 0.1;
  }

  /**
   * Call after adding a request that arrived at `arrival`: starts stepping if the engine was idle. The
   * first step starts at that arrival, not after the simulator's own handling of the request.
   */
  wake(arrival: number): void {
    if (!this.idle || this.stopped) return;
    this.idle = false;
    // setImmediate lets every request parsed in this tick join the first step (if it had arrived by then).
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      this.startStep(Math.min(arrival, this.clock.now()));
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
  }

  latency(): LoopLateness {
    return {
      lateness: this.latenessBuffer.subarray(0, this.samples),
      delivery: this.deliveryBuffer.subarray(0, this.samples),
      probe: this.probeBuffer.subarray(0, this.stepProbe ? this.samples : 0),
      count: this.samples,
    };
  }

  resetLatency(): void {
    this.samples = 0;
  }

  private record(lateness: number, delivery: number): void {
    if (this.samples === this.latenessBuffer.length) {
      const grow = (old: Float64Array) => {
        const next = new Float64Array(old.length * 2);
        next.set(old);
        return next;
      };
      this.latenessBuffer = grow(this.latenessBuffer);
      this.deliveryBuffer = grow(this.deliveryBuffer);
      if (this.stepProbe) this.probeBuffer = grow(this.probeBuffer);
    }
    this.latenessBuffer[this.samples] = lateness;
    this.deliveryBuffer[this.samples] = delivery;
    if (this.stepProbe) {
      const value = this.stepProbe();
      this.probeBuffer[this.samples] = value - this.lastProbe;
      this.lastProbe = value;
    }
    this.samples++;
  }

  private startStep(start: number): void {
    if (this.stopped) return;
    const plan = this.engine.beginStep(start);
    const rejected = this.engine.takeRejected();
    if (rejected.length > 0) this.deliver([], rejected, start);
    if (!plan) {
      this.idle = true;
      return;
    }
    const end = start + plan.durationMs;
    this.waitUntil(end, () => this.finishStep(end));
  }

  /**
   * Ends the step due at `end`, then begins the next one on the engine's own timeline: the timeline does
   * not slip when this process falls behind, as a GPU keeps stepping while vLLM's front end is busy.
   * Later steps that are already due run at once and their tokens leave in the same delivery, a
   * request's tokens in one chunk, as vLLM V1's output collector merges deltas its front end has not
   * sent yet (profile knob coalesce_late_tokens; without it each late step is delivered on its own).
   */
  private finishStep(end: number): void {
    if (this.stopped) return;
    const handledAt = this.clock.now();
    const events = this.engine.endStep();
    const rejected: string[] = [];
    const boundaries = [end];
    let boundary = end;
    let next: number | undefined;
    for (;;) {
      // Far behind (the process was stopped, the machine overloaded): restart the timeline at "now"
      // instead of bursting the backlog.
      let start = handledAt - boundary > this.resyncAfterMs ? this.clock.now() : boundary;
      let plan = this.engine.beginStep(start);
      if (!plan && this.engine.hasWork()) {
        // Only requests that arrived after that boundary are waiting: serve them from now.
        start = this.clock.now();
        plan = this.engine.beginStep(start);
      }
      for (const id of this.engine.takeRejected()) rejected.push(id);
      if (!plan) break;
      const stepEnd = start + plan.durationMs;
      // Zero-length steps (a profile with no costs: "as fast as possible") are never late: one per turn.
      if (stepEnd > this.clock.now() || plan.durationMs <= 0 || !this.engine.config.coalesce_late_tokens) {
        next = stepEnd;
        break;
      }
      for (const event of this.engine.endStep()) events.push(event);
      boundaries.push(stepEnd);
      boundary = stepEnd;
    }
    this.steps += boundaries.length;
    this.deliver(events, rejected, boundary);
    const delivered = this.clock.now();
    for (const due of boundaries) this.record(handledAt - due, delivered - handledAt);
    if (next === undefined) {
      this.idle = true;
      return;
    }
    const target = next;
    this.waitUntil(target, () => this.finishStep(target));
  }

  private waitUntil(target: number, then: () => void): void {
    const remaining = target - this.clock.now();
    if (remaining <= 0) {
      // Not a direct call: steps that are already due must still let sockets be served in between.
      this.immediate = setImmediate(() => {
        this.immediate = undefined;
        then();
      });
      return;
    }
    if (remaining > this.spinMs) {
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.waitUntil(target, then);
        },
        Math.max(0, Math.floor(remaining - this.spinMs)),
      );
      return;
    }
    const spin = () => {
      this.immediate = undefined;
      if (this.stopped) return;
      const left = target - this.clock.now();
      if (left > 0 && this.sleepSliceMs > 0) Atomics.wait(sleepCell, 0, 0, Math.min(left, this.sleepSliceMs));
      if (this.clock.now() >= target) then();
      else this.immediate = setImmediate(spin);
    };
    this.immediate = setImmediate(spin);
  }
}
