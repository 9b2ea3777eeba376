import type { Engine, StepEvent } from "./engine.js";

export interface Clock {
  /** Milliseconds, monotonic. */
  now(): number;
}

export const monotonicClock: Clock = { now: () => performance.now() };

export interface LoopOptions {
  /**
   * The last this-many milliseconds before a step boundary are waited by yielding to the event loop
   * (setImmediate) instead of a timer, because Node timers fire up to ~1 ms late.
   */
  spinMs?: number;
  /** Beyond this lateness the loop stops trying to catch up and restarts the timeline at "now". */
  resyncAfterMs?: number;
}

export interface LoopLateness {
  /** How late each step boundary was handled, ms (actual - intended). */
  lateness: Float64Array;
  count: number;
  /** Time spent delivering each step's events (writing chunks), ms. */
  delivery: Float64Array;
}

/**
 * Drives the pure engine on real time: one loop for all streams, no per-request timers. Steps run
 * back to back on the engine's own timeline (the next starts when the last should have ended), so small
 * timer delays do not accumulate into the model.
 */
export class StepLoop {
  private idle = true;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private readonly spinMs: number;
  private readonly resyncAfterMs: number;
  private latenessBuffer = new Float64Array(4096);
  private deliveryBuffer = new Float64Array(4096);
  private samples = 0;
  steps = 0;

  constructor(
    private readonly engine: Engine,
    private readonly clock: Clock,
    private readonly deliver: (events: StepEvent[], rejected: string[], at: number) => void,
    options: LoopOptions = {},
  ) {
    this.spinMs = options.spinMs ?? 1.2;
    this.resyncAfterMs = options.resyncAfterMs ?? 20;
  }

  /** Call after adding a request: starts stepping if the engine was idle. */
  wake(): void {
    if (!this.idle || this.stopped) return;
    this.idle = false;
    // setImmediate lets every request that arrived in this tick join the first step.
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      this.startStep(this.clock.now());
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
    }
    this.latenessBuffer[this.samples] = lateness;
    this.deliveryBuffer[this.samples] = delivery;
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

  private finishStep(end: number): void {
    if (this.stopped) return;
    const actual = this.clock.now();
    const events = this.engine.endStep();
    this.steps++;
    this.deliver(events, [], end);
    const delivered = this.clock.now();
    this.record(actual - end, delivered - actual);
    this.startStep(delivered - end > this.resyncAfterMs ? delivered : end);
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
      if (this.clock.now() >= target) then();
      else this.immediate = setImmediate(spin);
    };
    this.immediate = setImmediate(spin);
  }
}
