import { z } from "zod";
import { nonEmptyString, nonNegativeNumber, positiveInt, positiveNumber, strictObject } from "../fields.js";
import { atMost, configLimits } from "../limits.js";
import { assumedFileSessionTurns, assumedTokens, tokenCount } from "./fields.js";

// What the trace kinds (docs/workloads.md, "Traces") share: the fields of their schema branches and the
// layout each declares as data, which workload/trace-file.ts reads (one pipeline for every trace kind).

/** How a trace's arrival column counts time: seconds, milliseconds, microseconds, or a date and time. */
export const timestampUnits = ["s", "ms", "us", "datetime"] as const;
export type TimestampUnit = (typeof timestampUnits)[number];

/** A filter on a column: rows whose value is one of `values` are kept (the model, BurstGPT's log type). */
export interface ColumnFilter {
  column: string;
  values: readonly string[];
  /** The config field that set it, for messages. */
  field: string;
}

/**
 * Where a trace format keeps what a replay needs (every name a CSV header or a JSON Lines key): declared
 * by each trace kind's module, from constants (a published format) or from the config (a mapped trace).
 */
export interface TraceLayout {
  format: "csv" | "jsonl";
  /** The format's name in messages ("Azure LLM inference trace"). */
  name: string;
  arrival: { column: string; unit: TimestampUnit };
  inputTokens: string;
  outputTokens: string;
  /** Rows with the same value are the turns of one session; without it every row is a session of one. */
  session: string | null;
  /** One id per `block_tokens` prompt tokens; equal ids are equal text (a shared prefix). */
  hashIds: string | null;
  filters: readonly ColumnFilter[];
}

const sha256 = z
  .string()
  .regex(/^[0-9a-f]{64}$/, "expected a 64-character hex sha256")
  .optional()
  .describe("Expected checksum; the run fails when the file differs.");

const windowSchema = strictObject({
  start_s: nonNegativeNumber()
    .default(0)
    .describe("Seconds after the file's first row: rows that arrived earlier are not replayed."),
  end_s: positiveNumber()
    .optional()
    .describe("Seconds after the file's first row: rows that arrived at or after it are not replayed."),
}).describe(
  "Replay the rows that arrived in [start_s, end_s) seconds after the file's first row (on the trace's own clock, before time_scale).",
);

/**
 * The fields every trace kind has: the file, its replay clock (`time_scale`), the prompt blocks of its
 * prefix-hash ids, and the selection that keeps a replay reproducible: a time window, the first N rows,
 * a seeded sample of sessions.
 */
export function traceFields(what: string) {
  return {
    path: nonEmptyString(`a path to ${what}`),
    sha256,
    time_scale: positiveNumber()
      .max(1000, "expected at most 1000 (the limit on a trace's time scale; see docs/workloads.md)")
      .default(1)
      .describe(
        "Multiplies the trace's arrival times (and the gaps between a session's turns): 1 replays it on its own clock, 0.5 twice as fast.",
      ),
    block_tokens: tokenCount()
      .default(512)
      .describe("Prompt tokens per prefix-hash id (Mooncake's traces use 512); unused without hash ids."),
    window: windowSchema.optional(),
    max_rows: positiveInt()
      .max(configLimits.traceRequests, atMost(configLimits.traceRequests, "a trace's requests"))
      .optional()
      .describe("Replay only the first N rows that pass the filters and the window, in the file's order."),
    sample: positiveInt()
      .max(configLimits.traceRequests, atMost(configLimits.traceRequests, "a trace's requests"))
      .optional()
      .describe(
        "Replay a seeded sample of this many sessions (a row without a session is a session of one) of those selected, in time order; drawn from the cell's seed, so both sides replay the same.",
      ),
  };
}

/** A list of column values to keep (at least one). */
export const filterValues = (what: string) =>
  z.array(nonEmptyString(`a ${what}`)).min(1, `expected at least one ${what}`);

interface TraceSelection {
  time_scale: number;
  window?: { start_s: number; end_s?: number | undefined } | undefined;
  max_rows?: number | undefined;
  sample?: number | undefined;
}

/** The selection and clock of a trace cell as `validate` shows it: "first 1000 rows, time x0.5". */
export function describeTraceSelection(dataset: TraceSelection, filters: readonly string[] = []): string {
  const parts = [...filters];
  if (dataset.window)
    parts.push(
      `window ${dataset.window.start_s}-${dataset.window.end_s === undefined ? "end" : dataset.window.end_s} s`,
    );
  if (dataset.max_rows !== undefined) parts.push(`first ${dataset.max_rows} rows`);
  if (dataset.sample !== undefined) parts.push(`sample ${dataset.sample}`);
  parts.push(`time x${dataset.time_scale}`);
  return parts.join(", ");
}

/**
 * A trace's sessions as validate estimates them (the `sessionShape` of every trace kind): its own turns
 * per session where validate read it (`replay`), else one where its format has no sessions and
 * `assumedFileSessionTurns` where it has; no think time (its gaps are its timestamps'), no tools, no fan-out.
 */
export function traceSessionShape(layout: TraceLayout, replay: TraceReplay | null) {
  return {
    turns:
      replay !== null && replay.sessions > 0
        ? replay.requests / replay.sessions
        : layout.session === null
          ? 1
          : assumedFileSessionTurns,
    thinkSeconds: 0,
    toolLatencySeconds: null,
    fanOut: undefined,
  };
}

/**
 * What validate's estimates take of every trace kind's requests: their lengths are the file's, so a
 * prompt is `assumedTokens` and is not bounded per run; an answer is the file's own mean where validate
 * read it (`replay`), else `assumedTokens`.
 */
export const traceEstimates = {
  promptTokensMean: () => assumedTokens,
  outputTokensMean: (_dataset: unknown, replay: TraceReplay | null) =>
    replay?.outputTokensMean ?? assumedTokens,
  promptTokensCeiling: () => null,
} as const;

/**
 * What one run of a trace cell replays, read from its file (workload/trace-replay.ts `traceReplay`): the
 * sessions its size takes from the trace (the trace again from its start when the size is larger), their
 * requests, the span of their arrivals on the replay's clock (time_scale applied) and their mean answer
 * length. validate describes a trace cell's load and estimates its run from it; the run file checks the
 * achieved arrival rate against it (the trace's own schedule, whatever the cell's `rate`).
 */
export interface TraceReplay {
  sessions: number;
  requests: number;
  /** From the first session's start to the last's. */
  spanS: number;
  /** From the first session's start to the last request's timestamp (a later turn of a session). */
  lastRequestS: number;
  outputTokensMean: number;
}
