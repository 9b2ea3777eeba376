import { performance } from "node:perf_hooks";

/**
 * Bookkeeping moved off a closed loop's critical path: a finished request's record is built and written
 * after the next request is on its way, not before. When a wave of requests ends at once (equal lengths
 * at a fixed concurrency), the last of them would otherwise wait for the records of all the others.
 * The work runs in slices of at most `sliceMs`, one per turn of the event loop, so that reading the
 * streams still in flight is never held up by more than one slice.
 */
export class DeferredWork {
  private readonly queue: (() => void)[] = [];
  private head = 0;
  private scheduled = false;
  private whenIdle: (() => void) | null = null;
  private failure: { error: unknown } | null = null;

  constructor(private readonly sliceMs = 0.25) {}

  later(work: () => void): void {
    this.queue.push(work);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.runSlice());
    }
  }

  /** Resolves when every piece of work has run; rejects with the first error one of them threw. */
  async settled(): Promise<void> {
    if (this.scheduled) {
      await new Promise<void>((resolve) => {
        this.whenIdle = resolve;
      });
    }
    if (this.failure) throw this.failure.error;
  }

  private runSlice(): void {
    const until = performance.now() + this.sliceMs;
    do {
      const work = this.queue[this.head++]!;
      try {
        work();
      } catch (error) {
        this.failure ??= { error };
      }
    } while (this.head < this.queue.length && performance.now() < until);
    if (this.head < this.queue.length) {
      setImmediate(() => this.runSlice());
      return;
    }
    this.queue.length = 0;
    this.head = 0;
    this.scheduled = false;
    const resolve = this.whenIdle;
    this.whenIdle = null;
    resolve?.();
  }
}
