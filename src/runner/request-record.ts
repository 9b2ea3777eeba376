import type { StreamOutcome } from "../client/stream-client.js";
import { type RequestRecord, requestRecordSchemaVersion } from "../metrics/request-record.js";
import type { Phase, WorkloadRequest } from "../workload/workload.js";
import type { Ticket } from "./dispatch.js";

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** One finished request as a requests.jsonl line, times relative to the phase origin. */
export function toRecord(
  phase: Phase,
  ticket: Ticket,
  outcome: StreamOutcome,
  request: Pick<WorkloadRequest, "targetInputTokens" | "maxTokens" | "prefixGroup">,
  origin: number,
  cell: string,
  run: number,
): RequestRecord {
  const sent = outcome.sentAt;
  const usageTokens = outcome.completionTokens;
  const outputTokens = usageTokens ?? (outcome.chunkTimes.length > 0 ? outcome.chunkTimes.length : null);
  return {
    v: requestRecordSchemaVersion,
    index: ticket.index,
    phase,
    requestId: `${cell}-${run}-${phase === "warmup" ? "warmup-" : ""}${ticket.index}`,
    stage: ticket.stage,
    scheduledMs: round3(ticket.scheduledAt - origin),
    readyMs: round3(ticket.readyAt - origin),
    queueMs: round3(Math.max(0, sent - ticket.readyAt)),
    sentMs: round3(sent - origin),
    socketMs: outcome.onSocketAt === null ? null : round3(outcome.onSocketAt - sent),
    headersMs: outcome.headersAt === null ? null : round3(outcome.headersAt - sent),
    chunksUs: outcome.chunkTimes.map((time) => Math.round((time - sent) * 1000)),
    chunkTokens: outcome.chunkTokens,
    endMs: round3(outcome.endAt - origin),
    ok: outcome.ok,
    errorKind: outcome.errorKind,
    error: outcome.errorMessage,
    httpStatus: outcome.httpStatus,
    finishReason: outcome.finishReason,
    promptTokens: outcome.promptTokens,
    outputTokens,
    outputTokensSource: usageTokens !== null ? "usage" : outputTokens !== null ? "chunks" : null,
    cachedTokens: outcome.cachedTokens,
    targetInputTokens: request.targetInputTokens,
    maxTokens: request.maxTokens,
    prefixGroup: request.prefixGroup,
  };
}
