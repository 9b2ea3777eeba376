import type { z } from "zod";
import type { KindProblem } from "../fields.js";
import type { FanOutConfig } from "./fan-out.js";
import type { TraceLayout, TraceReplay } from "./trace-fields.js";

/**
 * One dataset kind as the config layer knows it, declared in one module of this folder: its schema branch
 * (a strict object whose `type` is a literal), its traits, its `validate` line and what validate's
 * estimates and checks take of it. The registry (`datasetKindModules` in ../dataset-kinds.ts) lists the
 * modules; how its requests are made is its entry in workload/workload.ts (and, for a file, in
 * workload/dataset-file.ts), which the compiler demands.
 */
export type DatasetKindModule<Schema extends z.ZodType<{ type: string }>> = DatasetKindFacts<Schema> &
  SessionTraits<z.output<Schema>>;

interface DatasetKindFacts<Schema extends z.ZodType<{ type: string }>> {
  readonly schema: Schema;
  /**
   * It reads a file (`path`, optional `sha256`): the runner reads it once per cell (workload/dataset-file.ts)
   * and skips the token-length calibration for it (its prompts are the file's).
   */
  readonly fileBacked: boolean;
  /** Its answers are scored (the task-accuracy check): its cells are sent greedy. */
  readonly scoresAnswers: boolean;
  /**
   * A trace (docs/workloads.md, "Traces"; file-backed sessions): where its format keeps the arrival times,
   * lengths, sessions and prefix-hash ids, read by the one trace pipeline (workload/trace-file.ts). An
   * open-loop load replays it on its own timestamps, each row's prompt as given (so either endpoint).
   */
  readonly trace?: (dataset: z.output<Schema>) => TraceLayout;
  /** The dataset's part of a cell's `validate` line (given the template view: it is printed). */
  describe(dataset: z.output<Schema>): string;
  /**
   * What its measured requests share with each other by design: the prefix-cache hits a `prefix: fresh`
   * run may have (metrics/cache-check.ts); a run that hits more measured an earlier run's cache.
   */
  sharing(dataset: z.output<Schema>): DesignedSharing;
  /**
   * Mean prompt tokens of one request, for validate's estimates (config/summary.ts): from the config,
   * or `assumedTokens` (fields.ts) where only a file or the server's tokenizer knows.
   */
  promptTokensMean(dataset: z.output<Schema>): number;
  /**
   * Mean answer tokens of one request, for validate's estimates: its configured `output_tokens`, else a
   * trace's own as validate read them (`replay`; null when not read), else `assumedTokens`.
   */
  outputTokensMean(dataset: z.output<Schema>, replay: TraceReplay | null): number;
  /**
   * The longest prompt one request asks for, bounded per run by `configLimits.promptTokensPerRun` (the
   * runner builds a run's bodies before it starts); null when prompts are a file's or short by design.
   */
  promptTokensCeiling(dataset: z.output<Schema>): number | null;
  /**
   * What the rest of its cell cannot give that this dataset asks for (paths from the dataset); the
   * schema's own checks aside. `sessionsInFlight`: the sessions the cell's load holds at once (null: no cap).
   */
  problems?(dataset: z.output<Schema>, cell: { sessionsInFlight: number | null }): KindProblem[];
}

/**
 * A session kind (docs/workloads.md), `sessions: true`: the load's unit is a session, not a request.
 * `size.requests`, `warmup.requests`, a rate and a concurrency count sessions; each session sends its
 * turns one after the other, each with the conversation so far. Its `sessionShape` is what validate's
 * session estimate takes of it (config/summary.ts `sessionEstimate`; `replay`: a trace as validate read it).
 */
type SessionTraits<Dataset> =
  | { readonly sessions: false }
  | { readonly sessions: true; sessionShape(dataset: Dataset, replay: TraceReplay | null): SessionShape };

/** A session of a session kind as validate estimates it, from the config's means (or a trace's own). */
export interface SessionShape {
  /** Mean turns per session. */
  readonly turns: number;
  /** Mean think time before a turn after the first, in seconds. */
  readonly thinkSeconds: number;
  /** Mean latency of a mocked tool round, in seconds; null when the session declares no tools. */
  readonly toolLatencySeconds: number | null;
  readonly fanOut: FanOutConfig | undefined;
}

/**
 * Prefix sharing by design, per request of a run: `none` (independent prompts); `groups`, the requests of
 * a prefix group (the record's `prefixGroup`) after the group's first share `tokens`; `repeats`, request
 * i asks request i − `every`'s prompt again; `conversation`, a session's request carries its
 * conversation so far (the previous request's prompt and answer), its first turn `firstTurnTokens` that
 * sessions share (a common system prompt); `unknown`, shared in a way the client does not know (a trace's
 * hash ids, a file's prompts), said in `why`: no check then.
 */
export type DesignedSharing =
  | { kind: "none" }
  | { kind: "groups"; tokens: number }
  | { kind: "repeats"; every: number }
  | { kind: "conversation"; firstTurnTokens: number }
  | { kind: "unknown"; why: string };
