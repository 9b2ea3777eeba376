import type { TimerClock } from "../util/clock.js";
import type { LaunchedServer } from "./launch.js";
import type { NvidiaSmi } from "./nvidia-smi.js";
import { isPortFree } from "./port.js";
import type { ServerLog } from "./server-log.js";

export interface TeardownContext {
  readonly log: ServerLog;
  readonly clock: TimerClock;
  readonly nvidiaSmi: NvidiaSmi | null;
  /** GPU usage before the server started (local GPU kinds); null: memory release is not checked. */
  readonly gpuBaseline: Awaited<ReturnType<NvidiaSmi["usage"]>>;
  readonly releaseTimeoutMs: number;
  readonly warn: (message: string) => void;
  /** Drops the server from the signal handlers and the state file. */
  readonly forget: () => Promise<void>;
}

/**
 * The stop of one launched server, run once however often it is called: stop the process (or container),
 * wait for its port and GPU memory to be released (warning when they are not), forget it, close the log.
 * Never throws: a teardown error is a warning.
 */
export function createTeardown(launched: LaunchedServer, context: TeardownContext): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= (async () => {
      const { log, clock } = context;
      const began = clock.now();
      const elapsed = () => `${((clock.now() - began) / 1000).toFixed(1)} s`;
      try {
        const result = await launched.stop();
        log.note(`server process stopped after ${elapsed()}`);
        for (const note of result.notes) context.warn(note);
        if (launched.port !== undefined && launched.port !== 0) {
          const port = launched.port;
          if (!(await pollUntil(() => isPortFree(port), context.releaseTimeoutMs, clock))) {
            context.warn(
              `port ${port} is still in use ${context.releaseTimeoutMs} ms after the server was stopped`,
            );
          }
        }
        const baseline = context.gpuBaseline;
        const nvidiaSmi = context.nvidiaSmi;
        if (baseline && nvidiaSmi) {
          const before = totalMemory(baseline);
          // A small allowance: the driver's own bookkeeping moves by a few MiB between queries.
          const released = await pollUntil(
            async () => totalMemory((await nvidiaSmi.usage()) ?? []) <= before + 512,
            context.releaseTimeoutMs,
            clock,
          );
          if (!released) {
            context.warn(
              `GPU memory was not released after the server stopped (used before start: ${before} MiB); check nvidia-smi for leftover processes`,
            );
          }
        }
        log.note(`teardown complete after ${elapsed()}`);
      } catch (error) {
        context.warn(`teardown error: ${(error as Error).message}`);
      } finally {
        await context.forget();
        await log.close();
      }
    })();
    return done;
  };
}

function totalMemory(usage: readonly { memoryUsedMiB: number | null }[]): number {
  return usage.reduce((sum, gpu) => sum + (gpu.memoryUsedMiB ?? 0), 0);
}

async function pollUntil(
  check: () => Promise<boolean>,
  timeoutMs: number,
  clock: TimerClock,
  pollMs = 100,
): Promise<boolean> {
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (clock.now() >= deadline) return false;
    await clock.sleep(pollMs);
  }
}
