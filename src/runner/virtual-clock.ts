import type { ScheduleClock } from "../util/clock.js";

/**
 * A clock that only moves when told: sleepers wake in time order, and between wake-ups every pending
 * promise settles first (macrotask turns), so schedules are tested exactly and instantly.
 */
export class VirtualClock implements ScheduleClock {
  private time = 0;
  private sequence = 0;
  private readonly sleepers: { at: number; order: number; wake: () => void }[] = [];

  now(): number {
    return this.time;
  }

  sleepUntil(at: number): Promise<void> {
    if (at <= this.time) return Promise.resolve();
    return new Promise((wake) => {
      this.sleepers.push({ at, order: this.sequence++, wake });
    });
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
