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

export const monotonicClock: Clock = {
  now: () => performance.now(),
  sleepUntil(at) {
    if (at - performance.now() <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      // Timers fire on whole milliseconds measured from a cached loop time, sometimes a little early.
      const wait = () => {
        const delay = at - performance.now();
        if (delay <= 0) resolve();
        else setTimeout(wait, Math.ceil(delay));
      };
      wait();
    });
  },
};

/** performance.timeOrigin + now() as epoch milliseconds, for ISO timestamps tied to the monotonic clock. */
export function epochMsOf(monotonicMs: number): number {
  return performance.timeOrigin + monotonicMs;
}
