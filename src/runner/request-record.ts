import type { StreamOutcome } from "../client/stream-client.js";
import type { Phase } from "../workload/phase.js";
import { ScorerError, scoreAnswer } from "../workload/task-score.js";
import type { WorkloadRequest } from "../workload/workload.js";
import type { Ticket } from "./dispatch.js";
import { type RequestRecord, requestRecordSchemaVersion, type UsageIssueKind } from "./request-schema.js";

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/**
 * Margins of the usage checks (docs/run.md, "Usage checks"). vLLM sends one choices chunk per token by
 * default; `--stream-interval` and speculative decoding put several tokens in one chunk, up to this many
 * are believed. Chunks without a token (chat's role chunk, a final chunk carrying only the finish reason)
 * are allowed for twice.
 */
export const maxTokensPerChunk = 16;
export const tokenlessChunksAllowed = 2;
/** usage.completion_tokens may exceed max_tokens by this many tokens (vLLM never exceeds it). */
const maxTokensMargin = 0;

interface CheckedUsage {
  promptTokens: number | null;
  completionTokens: number | null;
  cachedTokens: number | null;
  chunkTokens: number[] | null;
  /** Output tokens as recorded and their source. */
  outputTokens: number | null;
  source: "usage" | "chunks" | null;
  issue: { kind: UsageIssueKind; detail: string } | null;
}

const isCount = (value: number | null): value is number =>
  value !== null && Number.isSafeInteger(value) && value >= 0;

/**
 * The usage a request reported, checked against itself, the chunks received and `maxTokens` (max_tokens
 * times the choices asked for) (pure). A
 * count that is not a non-negative integer is dropped; output tokens that disagree with the chunks (by
 * more than the margins above) are replaced by the chunk count. Either way the record says why.
 */
export function checkUsage(
  outcome: Pick<
    StreamOutcome,
    "promptTokens" | "completionTokens" | "cachedTokens" | "chunkTokens" | "chunkTimes"
  >,
  maxTokens: number,
): CheckedUsage {
  let issue: CheckedUsage["issue"] = null;
  const invalid = (field: string, value: unknown) => {
    issue ??= { kind: "invalid_usage", detail: `${field} ${String(value)} is not a non-negative integer` };
    return null;
  };
  const promptTokens =
    outcome.promptTokens === null || isCount(outcome.promptTokens)
      ? outcome.promptTokens
      : invalid("usage.prompt_tokens", outcome.promptTokens);
  const cachedTokens =
    outcome.cachedTokens === null || isCount(outcome.cachedTokens)
      ? outcome.cachedTokens
      : invalid("usage.prompt_tokens_details.cached_tokens", outcome.cachedTokens);
  let completionTokens =
    outcome.completionTokens === null || isCount(outcome.completionTokens)
      ? outcome.completionTokens
      : invalid("usage.completion_tokens", outcome.completionTokens);
  let chunkTokens = outcome.chunkTokens;
  if (chunkTokens !== null && !chunkTokens.every((tokens) => isCount(tokens))) {
    issue ??= { kind: "invalid_usage", detail: "per-chunk cumulative usage went down or was not an integer" };
    chunkTokens = null;
  }
  const chunks = outcome.chunkTimes.length;
  if (completionTokens !== null && chunks > 0) {
    if (completionTokens > maxTokensPerChunk * chunks) {
      issue ??= {
        kind: "usage_exceeds_chunks",
        detail: `usage.completion_tokens ${completionTokens} > ${maxTokensPerChunk} x ${chunks} chunks received`,
      };
      completionTokens = null;
    } else if (completionTokens < chunks - tokenlessChunksAllowed) {
      issue ??= {
        kind: "usage_below_chunks",
        detail: `usage.completion_tokens ${completionTokens} < ${chunks} chunks received - ${tokenlessChunksAllowed}`,
      };
      completionTokens = null;
    }
  }
  const chunksWithinMax = chunks <= maxTokens + tokenlessChunksAllowed;
  if (completionTokens !== null && completionTokens > maxTokens + maxTokensMargin) {
    issue ??= {
      kind: "exceeds_max_tokens",
      detail: `usage.completion_tokens ${completionTokens} > max_tokens ${maxTokens}${chunksWithinMax ? ` over ${chunks} chunks` : ""}`,
    };
    // The chunks kept to max_tokens: the usage is what is wrong.
    if (chunksWithinMax && chunks > 0) completionTokens = null;
  } else if (!chunksWithinMax) {
    issue ??= {
      kind: "exceeds_max_tokens",
      detail: `${chunks} chunks received for max_tokens ${maxTokens}: the server ignored max_tokens`,
    };
  }
  const outputTokens = completionTokens ?? (chunks > 0 ? chunks : null);
  return {
    promptTokens,
    completionTokens,
    cachedTokens,
    chunkTokens,
    outputTokens,
    source: completionTokens !== null ? "usage" : outputTokens !== null ? "chunks" : null,
    issue,
  };
}

/** A request's id: cell, run, phase and index (for a session's turn, also its session and turn). */
export function requestIdOf(
  cell: string,
  run: number,
  phase: Phase,
  ticket: Pick<Ticket, "index" | "session">,
): string {
  const base = `${cell}-${run}-${phase === "warmup" ? "warmup-" : ""}${ticket.index}`;
  const session = ticket.session;
  if (session === undefined) return base;
  return `${base}-s${session.index}-t${session.turn}${session.branch !== undefined ? `-b${session.branch}` : ""}${session.toolRound > 0 ? `-r${session.toolRound}` : ""}`;
}

/** One finished request as a requests.jsonl line, times relative to the phase origin. */
export function toRecord(
  phase: Phase,
  ticket: Ticket,
  outcome: StreamOutcome,
  request: Pick<WorkloadRequest, "targetInputTokens" | "maxTokens" | "prefixGroup" | "task"> & {
    choices?: number;
    /** false: the output was kept for the client only (a session's turn), not for the record. */
    recordOutput?: boolean;
  },
  origin: number,
  cell: string,
  run: number,
): RequestRecord {
  // On the schedule's timeline: with idle gaps elided, every time of the record moves by the idle time cut
  // before the request (constant while it is in flight), so the run reads as on real time.
  const elided = ticket.elidedMs ?? 0;
  origin -= elided;
  const sent = outcome.sentAt;
  const usage = checkUsage(outcome, request.maxTokens * (request.choices ?? 1));
  const chunksUs = outcome.chunkTimes.map((time) => Math.max(0, Math.round((time - sent) * 1000)));
  const answer = outcome.answer;
  const reasoningTokens = reasoningTokensOf(answer, usage.outputTokens);
  return {
    v: requestRecordSchemaVersion,
    index: ticket.index,
    phase,
    requestId: requestIdOf(cell, run, phase, ticket),
    stage: ticket.stage,
    scheduledMs: round3(ticket.scheduledAt - origin),
    readyMs: round3(ticket.readyAt - origin),
    queueMs: round3(Math.max(0, sent - ticket.readyAt)),
    sentMs: round3(sent - origin),
    socketMs: outcome.onSocketAt === null ? null : round3(outcome.onSocketAt - sent),
    headersMs: outcome.headersAt === null ? null : round3(outcome.headersAt - sent),
    chunksUs,
    chunkTokens: usage.chunkTokens,
    endMs: round3(outcome.endAt - origin),
    ok: outcome.ok,
    errorKind: outcome.errorKind,
    error: outcome.errorMessage,
    httpStatus: outcome.httpStatus,
    finishReason: outcome.finishReason,
    promptTokens: usage.promptTokens,
    outputTokens: usage.outputTokens,
    outputTokensSource: usage.source,
    cachedTokens: usage.cachedTokens,
    firstAnswerTokenMs: answer.firstAnswerChunk === null ? null : chunksUs[answer.firstAnswerChunk]! / 1000,
    reasoningTokens,
    answerTokens:
      usage.outputTokens === null || reasoningTokens === null ? null : usage.outputTokens - reasoningTokens,
    reasoningField: answer.reasoningField,
    toolCalls: answer.toolCalls,
    malformedToolCalls: answer.malformedToolCalls,
    targetInputTokens: request.targetInputTokens,
    maxTokens: request.maxTokens,
    prefixGroup: request.prefixGroup,
    ...(outcome.output !== undefined && request.recordOutput !== false ? { output: outcome.output } : {}),
    ...(ticket.session !== undefined ? { session: ticket.session } : {}),
    ...(request.task !== undefined ? { task: scoredTask(request.task, outcome) } : {}),
    ...(usage.issue !== null ? { usageIssue: usage.issue } : {}),
    ...(elided > 0 ? { elidedMs: round3(elided) } : {}),
  };
}

/**
 * The reasoning tokens of a response: the server's usage.completion_tokens_details.reasoning_tokens when
 * it is a count, else the tokens of the chunks that carried only reasoning; never more than the output.
 */
function reasoningTokensOf(answer: StreamOutcome["answer"], outputTokens: number | null): number | null {
  if (outputTokens === null) return null;
  const reported = answer.reportedReasoningTokens;
  const tokens = isCount(reported) ? reported : answer.reasoningChunkTokens;
  return Math.min(tokens, outputTokens);
}

/**
 * A task's answer scored (a failed request or one without a kept output is wrong). A scorer that cannot
 * run marks the answer wrong and says why; the run goes on (nothing measured is lost).
 */
function scoredTask(
  task: NonNullable<WorkloadRequest["task"]>,
  outcome: StreamOutcome,
): NonNullable<RequestRecord["task"]> {
  if (!outcome.ok || outcome.output === undefined) return { reference: task.reference, correct: false };
  try {
    return {
      reference: task.reference,
      correct: scoreAnswer(outcome.output.text, task.reference, task.scorer),
    };
  } catch (error) {
    if (!(error instanceof ScorerError)) throw error;
    return { reference: task.reference, correct: false, error: error.message };
  }
}
