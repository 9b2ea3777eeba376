import type { Clock } from "./clock.js";

/**
 * The one virtual clock (tests, and the benches and analyses that run the runner's schedules on the
 * simulator's engine): virtual time that only moves when its owner says so. Sleepers wake in time order;
 * `runUntilSettled` jumps from one wake-up to the next with macrotask turns between (schedules tested
 * exactly and instantly), `advance` walks forward in steps letting woken tasks run (timeouts, polling),
 * `set` moves time for code that only reads `now()`.
 */
export class VirtualClock implements Clock {
  private time = 0;
  private sequence = 0;
  private sleepers: { at: number; order: number; wake: () => void }[] = [];

  now(): number {
    return this.time;
  }

  /** Wall time tied to the virtual clock, from 2026-01-01T00:00:00Z. */
  wallTime(): Date {
    return new Date(Date.UTC(2026, 0, 1) + this.time);
  }

  /** Moves time to `ms` without waking anyone. */
  set(ms: number): void {
    this.time = ms;
  }

  sleepUntil(at: number): Promise<void> {
    if (at <= this.time) return Promise.resolve();
    return new Promise((wake) => {
      this.sleepers.push({ at, order: this.sequence++, wake });
    });
  }

  /** Resolves once time has moved `ms` on (at the next step even for 0), or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((other) => other !== sleeper);
        resolve();
      };
      const sleeper = {
        at: this.time + ms,
        order: this.sequence++,
        wake: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Moves time forward in steps, letting every woken task run before the next step. */
  async advance(ms: number, stepMs = 1): Promise<void> {
    const target = this.time + ms;
    while (this.time < target) {
      this.time = Math.min(target, this.time + stepMs);
      const due = this.sleepers.filter((sleeper) => sleeper.at <= this.time);
      this.sleepers = this.sleepers.filter((sleeper) => sleeper.at > this.time);
      for (const sleeper of due) sleeper.wake();
      await flushMicrotasks();
    }
  }

  /** Advances through every timer until `done` settles (or no timer is left). */
  async runUntilSettled<T>(done: Promise<T>): Promise<T> {
    let settled = false;
    const result = done.finally(() => {
      settled = true;
    });
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) return result;
      if (this.sleepers.length === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        if (settled) return result;
        throw new Error("virtual clock: nothing left to wake but the task has not finished");
      }
      this.sleepers.sort((a, b) => a.at - b.at || a.order - b.order);
      const next = this.sleepers[0]!.at;
      this.time = Math.max(this.time, next);
      while (this.sleepers.length > 0 && this.sleepers[0]!.at <= this.time) this.sleepers.shift()!.wake();
    }
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let index = 0; index < 10; index++) await Promise.resolve();
}
