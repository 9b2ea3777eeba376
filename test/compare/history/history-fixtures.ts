import {
  conditionsHash,
  type HistoryRecord,
  type HistorySession,
  historyRecordSchemaVersion,
} from "../../../src/compare/history/history.js";
import type { MetricName } from "../../../src/config/metric-names.js";

export const fingerprintA = conditionsHash({ gpu: { names: ["H100"], driverVersion: "550.1" } });
export const fingerprintB = conditionsHash({ gpu: { names: ["H100"], driverVersion: "560.2" } });

/** Session `runId`, its commit the run id zero-padded to 40 digits (unique per session). */
export function session(runId: number, day = runId): HistorySession {
  const time = new Date(Date.UTC(2026, 10, 1) + day * 3_600_000).toISOString();
  return {
    id: `${runId}-1`,
    commit: commitOf(runId),
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

export function commitOf(runId: number): string {
  return String(runId).padStart(40, "0");
}
