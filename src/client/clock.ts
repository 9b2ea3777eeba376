import { performance } from "node:perf_hooks";

/**
 * Monotonic milliseconds with sub-microsecond resolution. Injected everywhere time matters so schedules
 * and timeouts can be tested on virtual time.
 */
export interface Clock {
  now(): number;
  /** Resolves at or after `at` (same scale as now()). */
  sleepUntil(at: number): Promise<void>;
}

const spinWindowMs = 1.5;

export const monotonicClock: Clock = {
  now: () => performance.now(),
  sleepUntil(at) {
    if (at - performance.now() <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      // Timers fire on whole milliseconds, often a millisecond late: sleep on a timer to within
      // `spinWindowMs`, then yield turn by turn (I/O still runs between turns) until the moment comes.
      const wait = () => {
        const delay = at - performance.now();
        if (delay <= 0) resolve();
        else if (delay <= spinWindowMs) setImmediate(wait);
        else setTimeout(wait, Math.max(1, Math.floor(delay - spinWindowMs)));
      };
      wait();
    });
  },
};

/** performance.timeOrigin + now() as epoch milliseconds, for ISO timestamps tied to the monotonic clock. */
export function epochMsOf(monotonicMs: number): number {
  return performance.timeOrigin + monotonicMs;
}
