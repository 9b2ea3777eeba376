import { createHash } from "node:crypto";
import { z } from "zod";
import { type MetricName, metricNames, metricSpecs } from "../../config/metric-names.js";
import { type RunRecord, serverStartBases } from "../../metrics/run-record.js";
import { maxServerStartIdLength } from "../../server/server-start.js";
import { detectChangePoints } from "../../stats/change-point.js";
import { InputError } from "../../util/errors.js";
import { flattenFingerprint, isInformationalField, retiredFields } from "../inputs/fingerprint.js";
import { assignServerStarts } from "../inputs/server-starts.js";

/**
 * Main's history: one compact record per baseline session, cell and metric (the per-run values, the
 * conditions' fingerprint, commit, time and each run's health), stored as JSON Lines (one record a line)
 * where it outlives artifact retention (github/history-store.ts). This module is the pure part: the
 * schema (the single source of truth of the file), the records made from a session's runs, reading a
 * history text as untrusted input (size, line and schema checks; any failure refuses the whole file), the
 * compaction that keeps it inside its size bound, and the runs a gate reads back from it.
 */

export const historyRecordSchemaVersion = 1;

/**
 * The documented limits of a history (docs/history.md). `maxBytes` stays well below the 100 MB up to which
 * the contents API serves a file (raw media type above 1 MB,
 * https://docs.github.com/en/rest/repos/contents#get-repository-content), and keeps a read and a write of
 * the whole file to a few seconds.
 */
export interface HistoryLimits {
  /** Largest history file read or written (limit maxHistoryBytes). */
  maxBytes: number;
  /** Largest single line (limit maxHistoryLineBytes). */
  maxLineBytes: number;
  /** Most sessions kept; compaction drops the oldest beyond it (limit maxHistorySessions). */
  maxSessions: number;
}

export const defaultHistoryLimits: Readonly<HistoryLimits> = Object.freeze({
  maxBytes: 8_000_000,
  maxLineBytes: 64 * 1024,
  maxSessions: 200,
});

const sha = z.string().regex(/^[0-9a-f]{40,64}$/, "expected a full commit sha");
const cellName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]*$/)
  .max(200);

const historySessionSchema = z.object({
  /** `<runId>-<runAttempt>`: unique per baseline job. */
  id: z
    .string()
    .regex(/^[0-9]+-[0-9]+$/, "expected <runId>-<runAttempt>")
    .max(50),
  commit: sha,
  ref: z.string().max(255),
  runId: z.number().int().nonnegative(),
  runAttempt: z.number().int().positive(),
  recordedAt: z.iso.datetime(),
});
export type HistorySession = z.output<typeof historySessionSchema>;

const historyRecordSchema = z.object({
  schemaVersion: z.literal(historyRecordSchemaVersion),
  session: historySessionSchema,
  cell: cellName,
  metric: z.enum(metricNames as [MetricName, ...MetricName[]]),
  /** Per run, in run order: the metric's value (ms, per second, fraction), null when the run has none. */
  values: z.array(z.number().finite().nonnegative().nullable()).min(1).max(1000),
  /** The run's health: indices (into `values`) of runs the gate must not use, and why (deduplicated). */
  health: z.object({
    excluded: z.array(z.number().int().nonnegative()).max(1000),
    reasons: z.array(z.string().max(300)).max(20),
  }),
  /** The comparable conditions (fingerprint without the informational fields): sha256, first 16 hex digits. */
  fingerprint: z.string().regex(/^[0-9a-f]{16}$/, "expected 16 hex digits (a truncated sha256)"),
  /**
   * The server start of each run (absent in records of earlier versions: their runs are taken to share
   * one start per session): the distinct starts (`ids`, each with its `basis`) and, per run in `values`'
   * order, the index of its start in `ids`. A start the run recorded keeps its id; one compare assumed or
   * the user declared is stored as `<basis>:<hash>` (no machine paths).
   */
  serverStarts: z
    .object({
      ids: z.array(z.string().min(1).max(maxServerStartIdLength)).min(1).max(1000),
      basis: z.array(z.enum(serverStartBases)).min(1).max(1000),
      runs: z.array(z.number().int().nonnegative()).min(1).max(1000),
    })
    .optional(),
});
export type HistoryRecord = z.output<typeof historyRecordSchema>;

/** A history that failed a check: the gate falls back to the artifacts' history and says why. */
export class UntrustedHistoryError extends InputError {}

/**
 * The hash that says two sessions ran under the same conditions: every recorded field but the
 * informational ones (tool build, runner name, config hash; compare/inputs/fingerprint.ts), in a stable
 * order. A retired field (`retiredFields`) counts at the value it always had, recorded or not.
 */
export function conditionsHash(fingerprint: Record<string, unknown>): string {
  const flat = flattenFingerprint(fingerprint);
  for (const [field, value] of Object.entries(retiredFields))
    if (!Object.keys(flat).some((key) => key === field || key.startsWith(`${field}.`))) flat[field] = value;
  const kept = Object.keys(flat)
    .filter((field) => !isInformationalField(field))
    .sort()
    .map((field) => [field, flat[field]]);
  return createHash("sha256").update(JSON.stringify(kept)).digest("hex").slice(0, 16);
}

/** One record per cell and per-run metric of one baseline session, from its runs (run order kept). */
export function historyRecordsFromRuns(runs: readonly RunRecord[], session: HistorySession): HistoryRecord[] {
  const byCell = new Map<string, RunRecord[]>();
  for (const run of runs) byCell.set(run.cell, [...(byCell.get(run.cell) ?? []), run]);
  const records: HistoryRecord[] = [];
  for (const [cell, cellRuns] of [...byCell].sort(([a], [b]) => a.localeCompare(b))) {
    const ordered = [...cellRuns].sort((a, b) => (a.run ?? 0) - (b.run ?? 0));
    const excluded = ordered.flatMap((run, index) => (run.exclusionReasons.length > 0 ? [index] : []));
    const reasons = [...new Set(ordered.flatMap((run) => run.exclusionReasons))]
      .slice(0, 20)
      .map((reason) => reason.slice(0, 300));
    const fingerprint = conditionsHash(ordered[0]?.fingerprint ?? {});
    const serverStarts = serverStartsOf(ordered);
    for (const metric of metricNames) {
      if (metricSpecs[metric].judged !== "per-run") continue;
      const values = ordered.map((run) => {
        const value = run.metrics[metric];
        // Six significant digits: far below run-to-run noise, and about half the bytes of a full double.
        return typeof value === "number" && Number.isFinite(value) && value >= 0
          ? Number(value.toPrecision(6))
          : null;
      });
      if (values.every((value) => value === null)) continue;
      records.push(
        historyRecordSchema.parse({
          schemaVersion: historyRecordSchemaVersion,
          session,
          cell,
          metric,
          values,
          health: { excluded, reasons },
          fingerprint,
          ...(serverStarts ? { serverStarts } : {}),
        }),
      );
    }
  }
  return records;
}

/**
 * A cell's runs' server starts as a history record keeps them (see `serverStarts` in the schema); none
 * when a run has no start assigned. A start compare assumed or the user declared is named by a hash of
 * its id, which holds the input's path on the machine.
 */
function serverStartsOf(runs: readonly RunRecord[]): HistoryRecord["serverStarts"] {
  if (runs.length === 0 || runs.some((run) => run.serverStart === undefined)) return undefined;
  const ids: string[] = [];
  const basis: NonNullable<HistoryRecord["serverStarts"]>["basis"] = [];
  const runsStart = runs.map((run) => {
    const start = run.serverStart!;
    const id =
      start.basis === "recorded"
        ? start.id
        : `${start.basis}:${createHash("sha256").update(start.id).digest("hex").slice(0, 16)}`;
    let index = ids.indexOf(id);
    if (index < 0) {
      index = ids.push(id) - 1;
      basis.push(start.basis);
    }
    return index;
  });
  return { ids, basis, runs: runsStart };
}

/** JSON Lines: one record a line, each line ending in a newline. */
export function serializeHistory(records: readonly HistoryRecord[]): string {
  return records.map((record) => `${JSON.stringify(record)}\n`).join("");
}

/**
 * Reads a history text as untrusted input: over `maxBytes`, a line over `maxLineBytes`, a line that is
 * not JSON or not a record of this schema, or two records for one session, cell and metric, refuse the
 * whole file (a partly read history would bias the drift and the change points without saying so).
 * `source` names the file in messages.
 */
export function parseHistory(
  text: string,
  source: string,
  limits: HistoryLimits = defaultHistoryLimits,
): HistoryRecord[] {
  const bytes = Buffer.byteLength(text);
  if (bytes > limits.maxBytes)
    throw new UntrustedHistoryError(
      `history ${source}: ${bytes} bytes, more than the ${limits.maxBytes} allowed (limit maxHistoryBytes)`,
    );
  const records: HistoryRecord[] = [];
  const seen = new Set<string>();
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === "") continue;
    const where = `history ${source} line ${index + 1}`;
    if (Buffer.byteLength(line) > limits.maxLineBytes)
      throw new UntrustedHistoryError(
        `${where}: longer than ${limits.maxLineBytes} bytes (limit maxHistoryLineBytes)`,
      );
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      throw new UntrustedHistoryError(`${where}: not JSON (${(error as Error).message})`);
    }
    const result = historyRecordSchema.safeParse(raw);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new UntrustedHistoryError(
        `${where}: field ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`,
      );
    }
    const record = result.data;
    const bad = record.health.excluded.find((i) => i >= record.values.length);
    if (bad !== undefined)
      throw new UntrustedHistoryError(
        `${where}: field health.excluded: run ${bad} is not among the ${record.values.length} values`,
      );
    const startsProblem = serverStartsProblem(record);
    if (startsProblem) throw new UntrustedHistoryError(`${where}: field serverStarts.${startsProblem}`);
    const key = `${record.session.id}\u0000${record.cell}\u0000${record.metric}`;
    if (seen.has(key))
      throw new UntrustedHistoryError(
        `${where}: a second record for session ${record.session.id}, cell ${record.cell}, metric ${record.metric}`,
      );
    seen.add(key);
    records.push(record);
  }
  return records;
}

/** What is inconsistent in a record's server starts (field and message), or null. */
function serverStartsProblem(record: HistoryRecord): string | null {
  const starts = record.serverStarts;
  if (starts === undefined) return null;
  if (starts.basis.length !== starts.ids.length)
    return `basis: ${starts.basis.length} entries, but ${starts.ids.length} ids (one basis per id)`;
  if (starts.runs.length !== record.values.length)
    return `runs: ${starts.runs.length} entries, but ${record.values.length} values (one start per run)`;
  const outside = starts.runs.find((index) => index >= starts.ids.length);
  if (outside !== undefined) return `runs: start ${outside} is not among the ${starts.ids.length} ids`;
  return null;
}

/** The sessions of a history, oldest first (by recording time, then run id). */
export function historySessions(records: readonly HistoryRecord[]): HistorySession[] {
  const sessions = new Map<string, HistorySession>();
  for (const record of records)
    if (!sessions.has(record.session.id)) sessions.set(record.session.id, record.session);
  return [...sessions.values()].sort(
    (a, b) => a.recordedAt.localeCompare(b.recordedAt) || a.runId - b.runId || a.runAttempt - b.runAttempt,
  );
}

export interface Compaction {
  records: HistoryRecord[];
  /** Sessions dropped, oldest first. */
  droppedSessions: string[];
}

/**
 * Keeps a history inside its bound: while it has more than `maxSessions` sessions or its text is over
 * `maxBytes`, the oldest sessions go; when the bytes were the reason, down to three quarters of the bound,
 * so that the next appends do not compact again at once. Whole sessions only: a session is never split.
 */
export function compactHistory(
  records: readonly HistoryRecord[],
  limits: HistoryLimits = defaultHistoryLimits,
): Compaction {
  const sessions = historySessions(records);
  const bytesOf = new Map<string, number>();
  for (const record of records)
    bytesOf.set(
      record.session.id,
      (bytesOf.get(record.session.id) ?? 0) + Buffer.byteLength(JSON.stringify(record)) + 1,
    );
  let total = [...bytesOf.values()].reduce((s, b) => s + b, 0);
  const target = total > limits.maxBytes ? Math.floor(limits.maxBytes * 0.75) : limits.maxBytes;
  const dropped = new Set<string>();
  let kept = sessions.length;
  for (const session of sessions) {
    if (kept <= 1) break;
    if (kept <= limits.maxSessions && total <= target) break;
    dropped.add(session.id);
    total -= bytesOf.get(session.id) ?? 0;
    kept--;
  }
  return {
    records: records.filter((record) => !dropped.has(record.session.id)),
    droppedSessions: sessions.filter((s) => dropped.has(s.id)).map((s) => s.id),
  };
}

export interface HistoryRuns {
  /** Runs of the kept sessions (each with `session` set), for compare's between-session drift. */
  runs: RunRecord[];
  /** Sessions used, oldest first. */
  sessions: HistorySession[];
  /** Sessions left out, and why (another fingerprint). */
  leftOut: { session: HistorySession; reason: string }[];
}

/**
 * The runs a gate reads from a history: the last `lastSessions` sessions whose conditions hash equals
 * `fingerprint` (the stored baseline's), rebuilt as run records (one per session, cell and run; the
 * excluded runs keep their reasons). A session under other conditions (another GPU, driver, image) is
 * left out and named: its level says nothing about this baseline's drift.
 *
 * With `alignTo`, main's steps are taken out first: per cell and metric, the change points of the series
 * of matching sessions (stats/change-point.ts) cut it into stretches, and each stretch's runs are scaled
 * so its mean ln equals that of the stretch holding session `alignTo` (the stored baseline's; the last
 * stretch when it is not in the history). A step main took then reads as the step it is (reported by
 * "main already regressed"), not as between-session drift, which session-drift.ts estimates around one
 * level. The spread within sessions and between the sessions of a stretch is untouched.
 */
export function runsFromHistory(
  records: readonly HistoryRecord[],
  options: {
    fingerprint: string | null;
    lastSessions: number;
    excludeSessions?: readonly string[];
    alignTo?: string | null;
  },
): HistoryRuns {
  const excluded = new Set(options.excludeSessions ?? []);
  const leftOut: HistoryRuns["leftOut"] = [];
  const matching = historySessions(records).filter((session) => {
    if (options.fingerprint === null) return true;
    const other = records.find((r) => r.session.id === session.id && r.fingerprint !== options.fingerprint);
    if (other) {
      if (!excluded.has(session.id))
        leftOut.push({
          session,
          reason: `recorded under other conditions (fingerprint ${other.fingerprint.slice(0, 12)}, the baseline's ${options.fingerprint.slice(0, 12)})`,
        });
      return false;
    }
    return true;
  });
  const sessions = matching
    .filter((session) => !excluded.has(session.id))
    .slice(-Math.max(0, options.lastSessions));
  const kept = new Set(sessions.map((session) => session.id));
  const factors =
    options.alignTo === undefined
      ? new Map<string, number>()
      : stepFactors(records, matching, options.alignTo);
  const runs = new Map<string, RunRecord>();
  for (const record of records) {
    if (!kept.has(record.session.id)) continue;
    const factor = factors.get(`${record.session.id}\u0000${record.cell}\u0000${record.metric}`) ?? 1;
    record.values.forEach((value, index) => {
      const key = `${record.session.id}/${record.cell}/${index}`;
      let run = runs.get(key);
      if (!run) {
        run = {
          source: `history:${record.session.id}/${record.cell}/run-${index}`,
          cell: record.cell,
          run: index,
          // The record keeps no run's own start time: the session's, for the age of what it measured.
          startedAt: record.session.recordedAt,
          metrics: {},
          requests: { total: 0, completed: 0, failed: 0 },
          fingerprint: {},
          exclusionReasons: record.health.excluded.includes(index)
            ? record.health.reasons.length > 0
              ? [...record.health.reasons]
              : ["excluded when recorded"]
            : [],
          session: record.session.id,
          ...serverStartOfRun(record, index),
        };
        runs.set(key, run);
      }
      run.metrics[record.metric] = value === null ? null : value * factor;
    });
  }
  // Records of earlier versions: a session's runs are taken to share one start (the conservative reading).
  return {
    runs: assignServerStarts([...runs.values()], "history", { freshStarts: false }),
    sessions,
    leftOut,
  };
}

/**
 * Run `index`'s server start as the record keeps it; an assumed or declared start is prefixed with the
 * session, so that two sessions measured from the same directory never share one.
 */
function serverStartOfRun(record: HistoryRecord, index: number): Pick<RunRecord, "serverStart"> {
  const starts = record.serverStarts;
  const at = starts?.runs[index];
  if (starts === undefined || at === undefined) return {};
  const basis = starts.basis[at]!;
  const id = starts.ids[at]!;
  return { serverStart: { id: basis === "recorded" ? id : `history:${record.session.id}:${id}`, basis } };
}

/**
 * The history a calibration uses for the between-session drift (the CLI's `calibrate --history` and the
 * action's calibrate mode): the last `lastSessions` sessions under the A/A runs' conditions, main's steps
 * taken out with every stretch scaled to the newest one's level (the level the A/A runs measure now),
 * so a merged regression does not read as drift.
 */
export function calibrationHistoryRuns(
  records: readonly HistoryRecord[],
  fingerprint: string | null,
  lastSessions: number,
): HistoryRuns {
  return runsFromHistory(records, { fingerprint, lastSessions, alignTo: null });
}

/** Per `session\u0000cell\u0000metric`, the factor that moves its stretch to the reference stretch's level. */
function stepFactors(
  records: readonly HistoryRecord[],
  sessions: readonly HistorySession[],
  alignTo: string | null,
): Map<string, number> {
  const order = new Map(sessions.map((session, index) => [session.id, index]));
  const groups = new Map<string, HistoryRecord[]>();
  for (const record of records) {
    if (!order.has(record.session.id)) continue;
    const key = `${record.cell}\u0000${record.metric}`;
    groups.set(key, [...(groups.get(key) ?? []), record]);
  }
  const factors = new Map<string, number>();
  for (const group of groups.values()) {
    const points = group
      .map((record) => ({
        record,
        logs: record.values.flatMap((value, index) =>
          value !== null && value > 0 && !record.health.excluded.includes(index) ? [Math.log(value)] : [],
        ),
      }))
      .filter((point) => point.logs.length > 0)
      .sort((a, b) => (order.get(a.record.session.id) ?? 0) - (order.get(b.record.session.id) ?? 0));
    const means = points.map((p) => p.logs.reduce((s, v) => s + v, 0) / p.logs.length);
    const steps = detectChangePoints(means).map((cp) => cp.index);
    if (steps.length === 0) continue;
    const bounds = [0, ...steps, means.length];
    const stretchOf = (index: number) =>
      bounds.findIndex((bound, b) => index >= bound && index < bounds[b + 1]!);
    const stretchMean = (b: number) =>
      means.slice(bounds[b], bounds[b + 1]).reduce((s, v) => s + v, 0) / (bounds[b + 1]! - bounds[b]!);
    const at = points.findIndex((p) => p.record.session.id === alignTo);
    const reference = stretchMean(at >= 0 ? stretchOf(at) : bounds.length - 2);
    points.forEach((point, index) => {
      const { record } = point;
      factors.set(
        `${record.session.id}\u0000${record.cell}\u0000${record.metric}`,
        Math.exp(reference - stretchMean(stretchOf(index))),
      );
    });
  }
  return factors;
}

/** One cell's metric as a series of sessions: the ln of each session's healthy runs, oldest first. */
export interface SessionPoint {
  session: HistorySession;
  /** ln of the healthy runs' values. */
  logs: number[];
}

export function seriesOf(
  records: readonly HistoryRecord[],
  cell: string,
  metric: MetricName,
): SessionPoint[] {
  const order = new Map(historySessions(records).map((session, index) => [session.id, index]));
  return records
    .filter((record) => record.cell === cell && record.metric === metric)
    .map((record) => ({
      session: record.session,
      logs: record.values.flatMap((value, index) =>
        value !== null && value > 0 && !record.health.excluded.includes(index) ? [Math.log(value)] : [],
      ),
    }))
    .filter((point) => point.logs.length > 0)
    .sort((a, b) => (order.get(a.session.id) ?? 0) - (order.get(b.session.id) ?? 0));
}

/**
 * The base's run-to-run variance pooled across the history's sessions, per `cell\u0000metric`: for each
 * session with 2 or more healthy runs, the sample variance of the ln values; sessions whose variance is
 * more than 9 times the median session's (an sd 3 times the usual: a broken runner that day) are left out;
 * the rest pooled as Σ(n−1)s² / Σ(n−1), with Σ(n−1) degrees of freedom. The test pools it with the
 * baseline's own runs (stats/welch.ts), so a baseline of 3 runs is no longer judged on 2 degrees of freedom.
 */
export function pooledRunVariances(
  runs: readonly RunRecord[],
): Map<string, { variance: number; df: number }> {
  const groups = new Map<string, Map<string, number[]>>();
  for (const run of runs) {
    if (run.exclusionReasons.length > 0 || !run.session) continue;
    for (const [metric, value] of Object.entries(run.metrics)) {
      if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) continue;
      const key = `${run.cell}\u0000${metric}`;
      const sessions = groups.get(key) ?? new Map<string, number[]>();
      sessions.set(run.session, [...(sessions.get(run.session) ?? []), Math.log(value)]);
      groups.set(key, sessions);
    }
  }
  const pooled = new Map<string, { variance: number; df: number }>();
  for (const [key, sessions] of groups) {
    const stats = [...sessions.values()]
      .filter((logs) => logs.length >= 2)
      .map((logs) => {
        const mean = logs.reduce((s, v) => s + v, 0) / logs.length;
        const ss = logs.reduce((s, v) => s + (v - mean) ** 2, 0);
        return { variance: ss / (logs.length - 1), df: logs.length - 1, ss };
      });
    if (stats.length === 0) continue;
    const sorted = stats.map((s) => s.variance).sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    const kept = stats.filter((s) => median === 0 || s.variance <= 9 * median);
    const df = kept.reduce((s, k) => s + k.df, 0);
    if (df === 0) continue;
    pooled.set(key, { variance: kept.reduce((s, k) => s + k.ss, 0) / df, df });
  }
  return pooled;
}
