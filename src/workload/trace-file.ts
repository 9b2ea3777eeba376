import { CsvError, parse as parseCsv } from "csv-parse/sync";
import type { TimestampUnit, TraceLayout } from "../config/dataset-kinds/trace-fields.js";
import { configLimits } from "../config/schema.js";
import { InputError } from "../util/errors.js";
import { createRng } from "../util/random.js";
import { shuffledIndexes } from "./text.js";

/**
 * The one trace pipeline (docs/workloads.md, "Traces"): every trace kind's file, CSV or JSON Lines, read
 * through the layout its kind declares (config/dataset-kinds/trace-fields.ts), checked row by row (a bad
 * row is an input error naming the file, the line, the column and what was expected), filtered (column
 * values, a time window, the first N rows), grouped into sessions, and sampled with the cell's seed. Pure:
 * the caller reads the bytes.
 */

/** One request of a trace, as the session source replays it. */
interface TraceTurn {
  /** Arrival on the trace's clock: ms after the file's first row (before time_scale). */
  timestampMs: number;
  inputTokens: number;
  maxTokens: number;
  hashIds: number[];
}

/** What a trace's selection kept of its file, for `validate` and the run's notes. */
export interface TraceSummary {
  /** Data rows read (the header and blank lines not counted). */
  rows: number;
  /** Rows without tokens to replay (0 output or 0 input tokens: BurstGPT's failed requests). */
  empty: number;
  /** Rows left out by the column filters or the window. */
  filtered: number;
  /** Rows kept (after max_rows, before the sample). */
  kept: number;
  /** Sessions replayed (after the sample) and their requests. */
  sessions: number;
  requests: number;
}

export interface TraceSelection {
  window?: { start_s: number; end_s?: number | undefined } | undefined;
  max_rows?: number | undefined;
  sample?: number | undefined;
}

export interface TraceRead {
  /** Sessions in the order of their first request (stable for equal times), each its turns in time order. */
  sessions: { turns: TraceTurn[] }[];
  summary: TraceSummary;
}

/** A row as read: its line and a value per column (CSV strings, or a JSON object's values). */
interface RawRow {
  line: number;
  value(column: string): unknown;
}

class EnoughRows extends Error {}

export function readTrace(
  bytes: Buffer,
  options: { path: string; layout: TraceLayout; selection: TraceSelection; seed: number },
): TraceRead {
  const { path, layout, selection } = options;
  const rows = new TraceRows(path, layout, selection);
  try {
    if (layout.format === "csv") readCsvRows(bytes, path, layout, (row) => rows.take(row));
    else readJsonRows(bytes, path, layout, (row) => rows.take(row));
  } catch (error) {
    if (!(error instanceof EnoughRows)) throw error;
  }
  const summary = rows.summary;
  if (rows.sessions.length === 0)
    throw new InputError(
      `${path}: no requests to replay (${summary.rows} rows read, ${summary.filtered} left out by the filters and window, ${summary.empty} with 0 input or output tokens)`,
    );
  const replayed = sampleSessions(inTimeOrder(rows.sessions), selection.sample, options.seed);
  summary.sessions = replayed.length;
  summary.requests = replayed.reduce((sum, session) => sum + session.turns.length, 0);
  return { sessions: replayed, summary };
}

/**
 * Sessions start in the order of their first request (stable for equal times), on a clock from the
 * earliest one.
 */
function inTimeOrder(sessions: readonly { turns: TraceTurn[] }[]): { turns: TraceTurn[] }[] {
  const ordered = sessions
    .map((session, order) => ({ session, order }))
    .sort((a, b) => a.session.turns[0]!.timestampMs - b.session.turns[0]!.timestampMs || a.order - b.order)
    .map(({ session }) => session);
  const start = ordered[0]!.turns[0]!.timestampMs;
  if (start !== 0) for (const session of ordered) for (const turn of session.turns) turn.timestampMs -= start;
  return ordered;
}

/**
 * A trace's rows as they are read: each checked (naming file, line and column), kept or counted as
 * filtered or empty, and added to its session; at `max_rows` kept, reading stops (EnoughRows).
 */
class TraceRows {
  readonly sessions: { turns: TraceTurn[] }[] = [];
  readonly summary: TraceSummary = { rows: 0, empty: 0, filtered: 0, kept: 0, sessions: 0, requests: 0 };
  private readonly bySession = new Map<string, { turns: TraceTurn[] }>();
  private origin: Instant | null = null;
  private readonly windowStartMs: number;
  private readonly windowEndMs: number | null;

  constructor(
    private readonly path: string,
    private readonly layout: TraceLayout,
    private readonly selection: TraceSelection,
  ) {
    // Without a window every row is kept, those before the file's first row included (an unsorted file).
    this.windowStartMs =
      selection.window === undefined ? Number.NEGATIVE_INFINITY : selection.window.start_s * 1000;
    this.windowEndMs = selection.window?.end_s === undefined ? null : selection.window.end_s * 1000;
  }

  take(row: RawRow): void {
    const { layout, summary } = this;
    summary.rows++;
    const where = (column: string) => `${this.path}:${row.line}, column ${JSON.stringify(column)}`;
    const arrival = parseArrival(row.value(layout.arrival.column), layout.arrival.unit, () =>
      where(layout.arrival.column),
    );
    this.origin ??= arrival;
    // Whole ms and fractions apart: an epoch's 1.7e12 ms would round a microsecond away.
    const timestampMs = arrival.wholeMs - this.origin.wholeMs + (arrival.fractionMs - this.origin.fractionMs);
    const input = tokenCount(row.value(layout.inputTokens), () => where(layout.inputTokens));
    const output = tokenCount(row.value(layout.outputTokens), () => where(layout.outputTokens));
    const hashIds =
      layout.hashIds === null ? [] : parseHashIds(row.value(layout.hashIds), where(layout.hashIds));
    const sessionId =
      layout.session === null ? null : parseSessionId(row.value(layout.session), where(layout.session));
    if (!this.selected(row, timestampMs)) {
      summary.filtered++;
      return;
    }
    if (input === 0 || output === 0) {
      summary.empty++;
      return;
    }
    const limit = configLimits.traceRequests;
    if (summary.kept >= limit)
      throw new InputError(
        `${this.path}: more than ${limit} rows pass the filters (the limit on a trace's requests; see docs/config-reference.md#limits); keep fewer with window, max_rows or sample`,
      );
    summary.kept++;
    this.add({ timestampMs, inputTokens: input, maxTokens: output, hashIds }, sessionId, row, where);
    if (this.selection.max_rows !== undefined && summary.kept >= this.selection.max_rows)
      throw new EnoughRows();
  }

  /** The row passes the filters and lies in the window. */
  private selected(row: RawRow, timestampMs: number): boolean {
    return (
      !this.layout.filters.some(
        (filter) => !filter.values.includes(String(row.value(filter.column) ?? "")),
      ) &&
      timestampMs >= this.windowStartMs &&
      (this.windowEndMs === null || timestampMs < this.windowEndMs)
    );
  }

  /** A kept row's turn, appended to its session (in time order, at most configLimits.sessionTurns) or a new one. */
  private add(
    turn: TraceTurn,
    sessionId: string | null,
    row: RawRow,
    where: (column: string) => string,
  ): void {
    const layout = this.layout;
    const known = sessionId === null ? undefined : this.bySession.get(sessionId);
    if (!known) {
      const session = { turns: [turn] };
      this.sessions.push(session);
      if (sessionId !== null) this.bySession.set(sessionId, session);
      return;
    }
    if (known.turns.length >= configLimits.sessionTurns)
      throw new InputError(
        `${where(layout.session!)}: session ${JSON.stringify(row.value(layout.session!))} has more than ${configLimits.sessionTurns} turns (the limit on turns per session; see docs/config-reference.md#limits)`,
      );
    const previous = known.turns.at(-1)!.timestampMs;
    if (turn.timestampMs < previous)
      throw new InputError(
        `${where(layout.arrival.column)}: expected the turns of session ${JSON.stringify(row.value(layout.session!))} in time order, got ${describeCell(row.value(layout.arrival.column))}, ${formatMs(previous - turn.timestampMs)} ms before the session's previous turn`,
      );
    known.turns.push(turn);
  }
}

/** A seeded sample of `count` sessions, kept in time order (all of them when there are no more). */
function sampleSessions<T>(sessions: T[], count: number | undefined, seed: number): T[] {
  if (count === undefined || count >= sessions.length) return sessions;
  const chosen = shuffledIndexes(createRng(seed, "trace sample"), sessions.length)
    .slice(0, count)
    .sort((a, b) => a - b);
  return chosen.map((index) => sessions[index]!);
}

/** The columns a layout reads: each must be in a CSV's header. */
function layoutColumns(layout: TraceLayout): string[] {
  return [
    layout.arrival.column,
    layout.inputTokens,
    layout.outputTokens,
    ...(layout.session === null ? [] : [layout.session]),
    ...(layout.hashIds === null ? [] : [layout.hashIds]),
    ...layout.filters.map((filter) => filter.column),
  ];
}

function readCsvRows(bytes: Buffer, path: string, layout: TraceLayout, take: (row: RawRow) => void): void {
  try {
    parseCsv(bytes, {
      bom: true,
      skip_empty_lines: true,
      max_record_size: configLimits.traceLineBytes,
      columns: (header: string[]) => {
        const names = header.map((name) => name.trim());
        const missing = [...new Set(layoutColumns(layout))].filter((column) => !names.includes(column));
        if (missing.length > 0)
          throw new InputError(
            `${path}:1: expected a header with the ${layout.name}'s column${missing.length === 1 ? "" : "s"} ${missing.map((column) => JSON.stringify(column)).join(", ")}, got ${names.map((name) => JSON.stringify(name)).join(", ")}`,
          );
        return names;
      },
      on_record: (record: Record<string, string>, context) => {
        take({ line: context.lines, value: (column) => record[column] });
        return null;
      },
    });
  } catch (error) {
    if (error instanceof CsvError) {
      const line = typeof error.lines === "number" ? `:${error.lines}` : "";
      const reason =
        error.code === "CSV_MAX_RECORD_SIZE"
          ? `a record longer than ${configLimits.traceLineBytes} bytes (the limit on a trace line; see docs/config-reference.md#limits)`
          : error.message;
      throw new InputError(`${path}${line}: not valid CSV: ${reason}`);
    }
    throw error;
  }
}

function readJsonRows(bytes: Buffer, path: string, layout: TraceLayout, take: (row: RawRow) => void): void {
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  for (let line = 1; start < bytes.length; line++) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    if (end - start > configLimits.traceLineBytes)
      throw new InputError(
        `${path}:${line}: a line longer than ${configLimits.traceLineBytes} bytes (the limit on a trace line; see docs/config-reference.md#limits)`,
      );
    const text = bytes.toString("utf8", start, end).trim();
    start = end + 1;
    if (text === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new InputError(`${path}:${line}: not valid JSON (${(error as Error).message})`);
    }
    if (!value || typeof value !== "object" || Array.isArray(value))
      throw new InputError(
        `${path}:${line}: expected a JSON object with ${layoutColumns(layout)
          .map((column) => JSON.stringify(column))
          .join(", ")}`,
      );
    const record = value as Record<string, unknown>;
    take({ line, value: (column) => record[column] });
  }
}

function describeCell(value: unknown): string {
  if (value === undefined) return "nothing (no such column in this row)";
  if (value === "") return "an empty cell";
  return JSON.stringify(value);
}

/** A cell's number: a JSON number, or a CSV's text of one; NaN for anything else (an empty cell too). */
function numberOf(value: unknown): number {
  if (typeof value === "number") return value;
  return typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
}

/** A whole number of tokens, 0 to the token limit; CSV's "374" and "374.0" alike. */
function tokenCount(value: unknown, where: () => string): number {
  const number = numberOf(value);
  if (!Number.isInteger(number) || number < 0 || number > configLimits.tokens)
    throw new InputError(
      `${where()}: expected a whole number of tokens from 0 to ${configLimits.tokens} (the limit on token counts; see docs/config-reference.md#limits), got ${describeCell(value)}`,
    );
  return number;
}

const unitMs: Record<Exclude<TimestampUnit, "datetime">, number> = { s: 1000, ms: 1, us: 0.001 };

/** A moment on a file's own clock, in whole ms and the fraction of a ms (kept apart for precision). */
interface Instant {
  wholeMs: number;
  fractionMs: number;
}

/** An arrival time (on the file's own origin). */
function parseArrival(value: unknown, unit: TimestampUnit, where: () => string): Instant {
  if (unit === "datetime") {
    const instant = typeof value === "string" ? parseDateTimeInstant(value.trim()) : null;
    if (instant === null)
      throw new InputError(
        `${where()}: expected a date and time such as "2023-11-16 18:15:46.6805900" or "2024-05-10T00:00:00.009930+00:00", got ${describeCell(value)}`,
      );
    return instant;
  }
  const number = numberOf(value);
  if (!Number.isFinite(number))
    throw new InputError(`${where()}: expected a number of ${unitName[unit]}, got ${describeCell(value)}`);
  return { wholeMs: number * unitMs[unit], fractionMs: 0 };
}

const unitName: Record<Exclude<TimestampUnit, "datetime">, string> = {
  s: "seconds",
  ms: "milliseconds",
  us: "microseconds",
};

const dateTimePattern =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * A date and time in ms since the epoch: the Azure traces' "2023-11-16 18:15:46.6805900" (UTC, no zone
 * written) and "2024-05-10 00:00:00.009930+00:00", or ISO 8601 with a T; up to nanoseconds. null when it
 * is none (a field out of range included).
 */
export function parseDateTime(text: string): number | null {
  const instant = parseDateTimeInstant(text);
  return instant === null ? null : instant.wholeMs + instant.fractionMs;
}

function parseDateTimeInstant(text: string): Instant | null {
  const match = dateTimePattern.exec(text);
  if (!match) return null;
  const dayMs = dayStart(text.slice(0, 10), match);
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6])];
  if (dayMs === null || hour > 23 || minute > 59 || second > 59) return null;
  const fraction = match[7] ? Number(`0.${match[7]}`) * 1000 : 0;
  const zone = match[8];
  let offsetMs = 0;
  if (zone && zone.toUpperCase() !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    offsetMs = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0")) * 60_000;
  }
  return { wholeMs: dayMs + ((hour * 60 + minute) * 60 + second) * 1000 - offsetMs, fractionMs: fraction };
}

/** The last day read (a trace's rows share their day): its text and its start in ms, or null for no day. */
let lastDay: { text: string; ms: number | null } = { text: "", ms: null };

/** The start of a date's day in ms (UTC); null for a month or day out of range (2023-02-30). */
function dayStart(text: string, match: RegExpExecArray): number | null {
  if (lastDay.text === text) return lastDay.ms;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  let ms: number | null = null;
  if (month >= 1 && month <= 12 && day >= 1) {
    ms = Date.UTC(year, month - 1, day);
    // Date.UTC rolls 2023-02-31 over into March: a day beyond its month is no date.
    if (new Date(ms).getUTCDate() !== day) ms = null;
  }
  lastDay = { text, ms };
  return ms;
}

/** Prefix-hash ids: a JSON list (JSON Lines, or a CSV cell "[1, 2]"), or whole numbers separated by spaces, ';' or '|'. */
function parseHashIds(value: unknown, where: string): number[] {
  let ids: unknown = value;
  if (value === undefined || value === null || value === "") return [];
  if (typeof value === "string") {
    const text = value.trim();
    if (text.startsWith("[")) {
      try {
        ids = JSON.parse(text);
      } catch {
        ids = null;
      }
    } else ids = text.split(/[\s;|]+/).map((part) => (/^\d+$/.test(part) ? Number(part) : Number.NaN));
  }
  if (!Array.isArray(ids) || !ids.every((id) => Number.isSafeInteger(id) && (id as number) >= 0))
    throw new InputError(
      `${where}: expected a list of whole numbers >= 0 (a JSON list, or numbers separated by spaces, ';' or '|'), got ${describeCell(value)}`,
    );
  return ids as number[];
}

/** A session id: a string or a number; an empty cell (or no key) is a row without a session. */
function parseSessionId(value: unknown, where: string): string | null {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value === "string" || typeof value === "number") return String(value);
  throw new InputError(`${where}: expected a session id (a string or a number), got ${describeCell(value)}`);
}

function formatMs(ms: number): string {
  return Number.isInteger(ms) ? String(ms) : ms.toFixed(3);
}

/** What a trace's selection kept, in words: the notes of its runs and `validate`'s line. */
export function describeTraceRead(summary: TraceSummary): string {
  const left = [
    summary.filtered > 0 ? `${summary.filtered} left out by the filters and window` : "",
    summary.empty > 0 ? `${summary.empty} with 0 input or output tokens skipped` : "",
  ].filter((part) => part !== "");
  const sessions =
    summary.sessions === summary.requests
      ? `${summary.requests} requests`
      : `${summary.sessions} sessions (${summary.requests} requests)`;
  const sampled = summary.kept > summary.requests ? ` (sampled from ${summary.kept} rows)` : "";
  return `trace: ${summary.rows} rows read${left.length > 0 ? `, ${left.join(", ")}` : ""}; ${sessions} to replay${sampled}`;
}
