import type { TimerClock } from "../../src/util/clock.js";

/** Virtual time: sleeps resolve only when the test advances the clock past their deadline. */
export class ManualClock implements TimerClock {
  #now = 0;
  #sleepers: { until: number; resolve: () => void }[] = [];

  now(): number {
    return this.#now;
  }

  wallTime(): Date {
    return new Date(Date.UTC(2026, 0, 1) + this.#now);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = () => {
        this.#sleepers = this.#sleepers.filter((other) => other !== sleeper);
        resolve();
      };
      const sleeper = {
        until: this.#now + ms,
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      this.#sleepers.push(sleeper);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Moves time forward in steps, letting every woken task run before the next step. */
  async advance(ms: number, stepMs = 1): Promise<void> {
    const target = this.#now + ms;
    while (this.#now < target) {
      this.#now = Math.min(target, this.#now + stepMs);
      const due = this.#sleepers.filter((sleeper) => sleeper.until <= this.#now);
      this.#sleepers = this.#sleepers.filter((sleeper) => sleeper.until > this.#now);
      for (const sleeper of due) sleeper.resolve();
      await flush();
    }
  }
}

async function flush(): Promise<void> {
  for (let index = 0; index < 10; index++) await Promise.resolve();
}
