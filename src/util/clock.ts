import { performance } from "node:perf_hooks";

/**
 * Time, injected wherever it matters, so that schedules, timeouts, readiness and the simulator's engine
 * run on virtual time in tests. One scale everywhere: monotonic milliseconds with sub-microsecond
 * resolution (performance.now()); only differences mean anything.
 */
export interface MonotonicClock {
  now(): number;
}

export interface Clock extends MonotonicClock {
  /** Resolves at or after `at` (same scale as now()): arrival schedules. */
  sleepUntil(at: number): Promise<void>;
  /** Resolves after `ms`, or early (without rejecting) when `signal` aborts: polling, escalation. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Wall-clock time for timestamps written to files. */
  wallTime(): Date;
}

/** What the load dispatcher and the scraper need: a precise wait until a moment. */
export type ScheduleClock = Pick<Clock, "now" | "sleepUntil">;
/** What the server launchers and samplers need: plain waits that a teardown can cut short, and dates. */
export type TimerClock = Pick<Clock, "now" | "sleep" | "wallTime">;

const spinWindowMs = 1.5;

export const systemClock: Clock = {
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
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      }
      signal?.addEventListener("abort", done, { once: true });
    }),
  wallTime: () => new Date(),
};

/** performance.timeOrigin + now() as epoch milliseconds, for ISO timestamps tied to the monotonic clock. */
export function epochMsOf(monotonicMs: number): number {
  return performance.timeOrigin + monotonicMs;
}
