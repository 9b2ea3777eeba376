/**
 * Bookkeeping moved off a closed loop's critical path: a finished request's record is built and written
 * after the next request is on its way, not before. When a wave of requests ends at once (equal lengths
 * at a fixed concurrency), the last of them would otherwise wait for the records of all the others.
 */
export class DeferredWork {
  private pending = 0;
  private whenIdle: (() => void) | null = null;
  private failure: { error: unknown } | null = null;

  later(work: () => void): void {
    this.pending++;
    setImmediate(() => {
      try {
        work();
      } catch (error) {
        this.failure ??= { error };
      }
      this.pending--;
      if (this.pending === 0 && this.whenIdle) {
        const resolve = this.whenIdle;
        this.whenIdle = null;
        resolve();
      }
    });
  }

  /** Resolves when every piece of work has run; rejects with the first error one of them threw. */
  async settled(): Promise<void> {
    if (this.pending > 0) {
      await new Promise<void>((resolve) => {
        this.whenIdle = resolve;
      });
    }
    if (this.failure) throw this.failure.error;
  }
}
