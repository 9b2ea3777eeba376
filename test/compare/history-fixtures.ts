import {
  conditionsHash,
  type HistoryRecord,
  type HistorySession,
  historyRecordSchemaVersion,
} from "../../src/compare/history.js";
import type { MetricName } from "../../src/config/metric-names.js";

export const fingerprintA = conditionsHash({ gpu: { names: ["H100"], driverVersion: "550.1" } });
export const fingerprintB = conditionsHash({ gpu: { names: ["H100"], driverVersion: "560.2" } });

export function session(runId: number, day = runId, commitDigit = (runId % 10).toString()): HistorySession {
  const time = new Date(Date.UTC(2026, 10, 1) + day * 3_600_000).toISOString();
  return {
    id: `${runId}-1`,
    commit: commitDigit.repeat(40).slice(0, 40),
    ref: "refs/heads/main",
    runId,
    runAttempt: 1,
    recordedAt: time,
  };
}

/** A record with plain values; `excluded` indices are unhealthy runs. */
export function record(
  s: HistorySession,
  values: (number | null)[],
  options: { cell?: string; metric?: MetricName; fingerprint?: string; excluded?: number[] } = {},
): HistoryRecord {
  return {
    schemaVersion: historyRecordSchemaVersion,
    session: s,
    cell: options.cell ?? "chat",
    metric: options.metric ?? "ttft_p95",
    values,
    health: {
      excluded: options.excluded ?? [],
      reasons: (options.excluded ?? []).length > 0 ? ["server crashed during the run"] : [],
    },
    fingerprint: options.fingerprint ?? fingerprintA,
  };
}
