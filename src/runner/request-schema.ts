import { z } from "zod";
import { reasoningFields, type ToolCall } from "../client/answer-stream.js";

/**
 * One line of `requests.jsonl` (measured requests) or `warmup.jsonl`. Times are milliseconds on the run's
 * monotonic clock, relative to the start of the measured phase (`t0`); chunk times are relative to the
 * request's own send time (in microseconds). Written as each request finishes, so a crash loses nothing already measured.
 */
export const requestRecordSchemaVersion = 1;

/**
 * Why a request's usage was not taken as the server reported it (docs/run.md, "Usage checks"):
 * `invalid_usage` (a count that is not a non-negative integer, or cumulative counts that go down),
 * `usage_exceeds_chunks` / `usage_below_chunks` (completion_tokens far from the chunks received),
 * `exceeds_max_tokens` (more output than the request's max_tokens allows).
 */
export const usageIssueKinds = [
  "invalid_usage",
  "usage_exceeds_chunks",
  "usage_below_chunks",
  "exceeds_max_tokens",
] as const;
export type UsageIssueKind = (typeof usageIssueKinds)[number];

const ms = z.number();

/** One well-formed tool call the answer made, assembled from its `delta.tool_calls` (arguments as streamed). */
const toolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
}) satisfies z.ZodType<ToolCall>;

export const requestRecordSchema = z.object({
  v: z.literal(requestRecordSchemaVersion),
  index: z.number().int().nonnegative(),
  phase: z.enum(["measure", "warmup"]),
  requestId: z.string(),
  /** Stage index (stages load) or 0. */
  stage: z.number().int().nonnegative(),
  /** When the schedule wanted it sent (open loop), or when its slot freed (closed loop). */
  scheduledMs: ms,
  /** When the client got round to it: scheduledMs + lag caused by the client itself. */
  readyMs: ms,
  /** Wait for a concurrency slot (max_concurrency), excluded from latency like vLLM's client_queue_time. */
  queueMs: ms,
  sentMs: ms,
  /** When undici handed it a connection (relative to send); null if it never got one. */
  socketMs: ms.nullable(),
  headersMs: ms.nullable(),
  /**
   * Arrival of every chunk with choices, in whole microseconds after sentMs (integers serialise several
   * times faster than fractional milliseconds, and this list is most of each line).
   */
  chunksUs: z.array(z.number().int().nonnegative()),
  /** Tokens per chunk when the server reports cumulative usage on each chunk; otherwise null. */
  chunkTokens: z.array(z.number().int().nonnegative()).nullable(),
  endMs: ms,
  /**
   * Idle time elided before this request (schedule idle-elided): its times above are on the schedule's
   * timeline, the monotonic clock plus this. Absent on real time.
   */
  elidedMs: ms.nonnegative().optional(),
  ok: z.boolean(),
  errorKind: z.string().nullable(),
  error: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  finishReason: z.string().nullable(),
  promptTokens: z.number().int().nonnegative().nullable(),
  /** usage.completion_tokens; when the server sent no usage, the number of chunks (noted in the run). */
  outputTokens: z.number().int().nonnegative().nullable(),
  outputTokensSource: z.enum(["usage", "chunks"]).nullable(),
  /** usage.prompt_tokens_details.cached_tokens (prompt tokens served from the prefix cache); null if not sent. */
  cachedTokens: z.number().int().nonnegative().nullable(),
  /**
   * When the first answer token arrived (ms after sentMs): the first chunk with content, text or tool
   * calls, after any reasoning. TTFT (the first chunk of any kind) is chunksUs[0]; null without an answer
   * chunk. The answer's ITL is the gaps between the chunks from this one on.
   */
  firstAnswerTokenMs: ms.nullable().default(null),
  /**
   * Reasoning tokens: usage.completion_tokens_details.reasoning_tokens when the server sent it, otherwise
   * the tokens of the chunks that carried only reasoning; 0 when nothing was reasoning; null without output.
   */
  reasoningTokens: z.number().int().nonnegative().nullable().default(null),
  /** outputTokens minus reasoningTokens; null without output. */
  answerTokens: z.number().int().nonnegative().nullable().default(null),
  /** Which delta field carried the reasoning (the first seen); null when none did. */
  reasoningField: z.enum(reasoningFields).nullable().default(null),
  /** The well-formed tool calls of the answer, in their stream order. */
  toolCalls: z.array(toolCallSchema).default([]),
  /** Tool calls that could not be assembled (no id or name, arguments not a JSON object, a broken delta). */
  malformedToolCalls: z.number().int().nonnegative().default(0),
  targetInputTokens: z.number().int().nullable(),
  maxTokens: z.number().int(),
  prefixGroup: z.number().int().nullable(),
  /** A greedy-output cell's output (docs/quality.md): text, and the chosen tokens and logprobs if returned. */
  output: z
    .object({
      text: z.string(),
      tokens: z.array(z.string()).nullable(),
      logprobs: z.array(z.number().nullable()).nullable(),
    })
    .optional(),
  /** A task cell's answer scored against its reference (docs/quality.md); `error`: why it could not be. */
  task: z.object({ reference: z.string(), correct: z.boolean(), error: z.string().optional() }).optional(),
  /**
   * A session's turn (session datasets, docs/workloads.md): the session, the turn (0-based: its depth in
   * turns), the session's turns, and 0 for the user's message or r for the r-th tool-result round; at a
   * fan-out turn, which branch (0-based) of how many (each branch's tool rounds counted on their own).
   */
  session: z
    .object({
      index: z.number().int().nonnegative(),
      turn: z.number().int().nonnegative(),
      turns: z.number().int().positive(),
      toolRound: z.number().int().nonnegative(),
      branch: z.number().int().nonnegative().optional(),
      branches: z.number().int().positive().optional(),
    })
    .optional(),
  /** Present when the server's usage failed a check; the detail names the values and the margin. */
  usageIssue: z.object({ kind: z.enum(usageIssueKinds), detail: z.string() }).optional(),
});

export type RequestRecord = z.output<typeof requestRecordSchema>;
