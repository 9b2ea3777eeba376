import { monitorEventLoopDelay } from "node:perf_hooks";

/** Event-loop delay while a run is measured, in ms. */
export interface EventLoopProbe {
  stop(): { p99Ms: number | null; maxMs: number | null };
}

const resolutionMs = 10;

/**
 * Samples the event loop's delay with perf_hooks (a timer every 10 ms records how late it fired). The
 * histogram's values include the sampling interval itself, which is subtracted.
 */
export function startEventLoopProbe(): EventLoopProbe {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  return {
    stop() {
      histogram.disable();
      if (histogram.count === 0) return { p99Ms: null, maxMs: null };
      const toMs = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs);
      return { p99Ms: toMs(histogram.percentile(99)), maxMs: toMs(histogram.max) };
    },
  };
}

export interface ClientBoundInput {
  scheduleLagP50Ms: number | null;
  eventLoopLagP99Ms: number | null;
  targetConcurrency: number | null;
  /** Most requests that held a connection at once (what the server could see). */
  peakOnSocket: number;
  /**
   * Open loop with a request count: the schedule is exact (rescaled to N / rate), so an achieved rate
   * short of the target can only be the client's lateness. null otherwise.
   */
  exactRate: { target: number; achieved: number; requests: number } | null;
  /** Successful requests: a run with fewer than its concurrency (or one the server refused) cannot reach it. */
  completed: number;
  thresholds: { maxScheduleLagMs: number; maxEventLoopLagMs: number };
}

/**
 * Whether the client, not the server, limited the run, and why. A tool must never report its own slowness
 * as the server's: the flag travels with run.json to the verdict.
 */
export function clientBoundReasons(input: ClientBoundInput): string[] {
  const reasons: string[] = [];
  if (input.scheduleLagP50Ms !== null && input.scheduleLagP50Ms > input.thresholds.maxScheduleLagMs) {
    reasons.push(
      `median send lag ${input.scheduleLagP50Ms.toFixed(1)} ms > ${input.thresholds.maxScheduleLagMs} ms (client.max_schedule_lag_ms)`,
    );
  }
  if (input.eventLoopLagP99Ms !== null && input.eventLoopLagP99Ms > input.thresholds.maxEventLoopLagMs) {
    reasons.push(
      `event-loop delay p99 ${input.eventLoopLagP99Ms.toFixed(1)} ms > ${input.thresholds.maxEventLoopLagMs} ms (client.max_event_loop_lag_ms)`,
    );
  }
  if (
    input.targetConcurrency !== null &&
    input.completed >= input.targetConcurrency &&
    input.peakOnSocket < input.targetConcurrency
  ) {
    reasons.push(
      `achieved concurrency ${input.peakOnSocket} < asked ${input.targetConcurrency} (a connection cap in the client)`,
    );
  }
  if (input.exactRate !== null) {
    const { target, achieved, requests } = input.exactRate;
    // How much later the sends ended than the schedule: a short run's window is short, so one send as late
    // as client.max_schedule_lag_ms allows would otherwise miss the rate by more than its tolerance.
    const slipS = achieved > 0 ? requests / achieved - requests / target : Number.POSITIVE_INFINITY;
    const toleratedSlipS = Math.max(
      (rateTolerance * requests) / target,
      input.thresholds.maxScheduleLagMs / 1000,
    );
    if (achieved < target * (1 - rateTolerance) && slipS > toleratedSlipS) {
      reasons.push(
        `achieved rate ${achieved.toFixed(2)}/s < ${((1 - rateTolerance) * 100).toFixed(0)}% of the target ${Number(target.toPrecision(4))}/s (the sends ended ${Number.isFinite(slipS) ? `${slipS.toFixed(2)} s` : "far"} behind the schedule)`,
      );
    }
  }
  return reasons;
}

/**
 * Shortfall of the achieved arrival rate tolerated before the client is blamed, or, when longer, a slip of
 * the whole send window by client.max_schedule_lag_ms.
 */
const rateTolerance = 0.02;
