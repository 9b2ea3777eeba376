import type { InFlightRequest } from "../client/stream-client.js";
import { runName } from "./progress.js";

/** After how long without a chunk a request in flight is reported as stalled, by default: 30 s. */
export const defaultStallReportMs = 30_000;

/** How many stalled requests one line names; the rest are counted. */
const namedPerLine = 3;

export interface StallReporter {
  /**
   * The line to print now, or null: requests in flight that went `thresholdMs` (again: 2x, 3x, ...)
   * without a chunk since they were last reported. `now` is on the client's clock (performance.now()).
   */
  check(now: number, inFlight: readonly InFlightRequest[]): string | null;
}

/**
 * Reports a stream that stops producing tokens while it stalls, not only when its request times out:
 * once after `thresholdMs` without a chunk (or without a first chunk after it was sent), again at each
 * further multiple, naming the requests. Pure: the caller polls it with the time and what is in flight.
 */
export function stallReporter(options: {
  cell: string;
  runIndex: number;
  thresholdMs: number;
}): StallReporter {
  const { thresholdMs } = options;
  /** Per request (and its last sign of life), how many thresholds of quiet were reported. */
  const reported = new Map<string, number>();
  return {
    check(now, inFlight) {
      const current = new Set<string>();
      const stalled: { request: InFlightRequest; quietMs: number }[] = [];
      for (const request of inFlight) {
        const key = `${request.requestId ?? request.sentAt}@${request.lastActivityAt}`;
        current.add(key);
        const quietMs = now - request.lastActivityAt;
        const level = Math.floor(quietMs / thresholdMs);
        if (level >= 1 && level > (reported.get(key) ?? 0)) {
          reported.set(key, level);
          stalled.push({ request, quietMs });
        }
      }
      for (const key of reported.keys()) if (!current.has(key)) reported.delete(key);
      if (stalled.length === 0) return null;
      stalled.sort((a, b) => b.quietMs - a.quietMs);
      const named = stalled.slice(0, namedPerLine).map(({ request, quietMs }) => {
        const seconds = Math.floor(quietMs / 1000);
        const what =
          request.chunks === 0
            ? `no first chunk ${seconds} s after it was sent`
            : `no chunk for ${seconds} s, after ${request.chunks} chunk(s)`;
        return `${request.requestId ?? "a request"} (${what})`;
      });
      const more = stalled.length - named.length;
      const timeoutS = Math.round(stalled[0]!.request.timeoutMs / 1000);
      return `[${options.cell} ${runName(options.runIndex)}] ${stalled.length} request(s) in flight stalled: ${named.join(", ")}${more > 0 ? ` and ${more} more` : ""}; a request gives up after ${timeoutS} s (timeout_s)`;
    },
  };
}
