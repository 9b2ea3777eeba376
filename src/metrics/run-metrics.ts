import type { RequestRecord } from "../runner/request-schema.js";
import type { RunFile } from "./run-schema.js";
import { summarize } from "./summary.js";

export interface Slo {
  ttft_ms?: number | undefined;
  tpot_ms?: number | undefined;
  e2el_ms?: number | undefined;
}

/** Per-request latencies of a successful request, in ms, as `vllm bench serve` defines them. */
export interface RequestLatencies {
  ttft: number;
  e2el: number;
  /** (e2el - ttft) / (out - 1), only for out > 1. */
  tpot: number | null;
}

export function requestLatencies(record: RequestRecord): RequestLatencies | null {
  const chunks = record.chunksUs;
  if (!record.ok || chunks.length === 0) return null;
  const ttft = chunks[0]! / 1000;
  const e2el = chunks[chunks.length - 1]! / 1000;
  const out = record.outputTokens ?? chunks.length;
  return { ttft, e2el, tpot: out > 1 ? (e2el - ttft) / (out - 1) : null };
}

/**
 * The answer's timing of a successful request that reasoned, in ms: its first answer token (null when no
 * chunk carried answer text or a tool call) and the gaps between the chunks from there on. Null for a
 * request without reasoning: its answer's timing is its TTFT and ITL, not repeated as metrics of their own.
 */
export function answerLatencies(record: RequestRecord): { ttft: number | null; itl: number[] } | null {
  if (!record.ok || record.chunksUs.length === 0) return null;
  if ((record.reasoningTokens ?? 0) === 0 && record.reasoningField === null) return null;
  const first = record.firstAnswerTokenMs;
  if (first === null) return { ttft: null, itl: [] };
  const chunks = record.chunksUs;
  const itl: number[] = [];
  let index = chunks.findIndex((us) => us / 1000 >= first);
  if (index < 0) index = chunks.length;
  for (index++; index < chunks.length; index++) itl.push((chunks[index]! - chunks[index - 1]!) / 1000);
  return { ttft: first, itl };
}

/** vLLM's rule: good when every given objective is met; a request without TPOT (out <= 1) meets that one. */
export function isGood(latencies: RequestLatencies, slo: Slo): boolean {
  if (slo.ttft_ms !== undefined && latencies.ttft > slo.ttft_ms) return false;
  if (slo.tpot_ms !== undefined && latencies.tpot !== null && latencies.tpot > slo.tpot_ms) return false;
  if (slo.e2el_ms !== undefined && latencies.e2el > slo.e2el_ms) return false;
  return true;
}

export type RunMetrics = Pick<RunFile, "requests" | "tokens" | "latency" | "throughput" | "answer">;

/**
 * The client-side metrics of one run from its measured request records (pure). TTFT, TPOT and E2E are per
 * request; ITL pools every gap between consecutive choices chunks of all requests (per chunk, not per
 * token, as vLLM's client does). Only successful requests enter latency and throughput.
 */
export function computeRunMetrics(
  records: readonly RequestRecord[],
  options: { durationS: number; slo?: Slo | undefined; warmup?: number },
): RunMetrics {
  const ttft: number[] = [];
  const tpot: number[] = [];
  const itl: number[] = [];
  const e2el: number[] = [];
  const answerTtft: number[] = [];
  const answerItl: number[] = [];
  const reasoningTokens: number[] = [];
  const reasoningFields: Record<string, number> = {};
  let reasoningRequests = 0;
  let toolCalls = 0;
  let malformedToolCalls = 0;
  const queue: number[] = [];
  const inputLengths: number[] = [];
  const outputLengths: number[] = [];
  const errorsByKind: Record<string, number> = {};
  const finishReasons: Record<string, number> = {};
  let completed = 0;
  let good = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  const slo = options.slo;
  const hasSlo =
    slo !== undefined &&
    (slo.ttft_ms !== undefined || slo.tpot_ms !== undefined || slo.e2el_ms !== undefined);

  for (const record of records) {
    queue.push(record.queueMs);
    const latencies = requestLatencies(record);
    if (latencies === null) {
      const kind = record.errorKind ?? "other";
      errorsByKind[kind] = (errorsByKind[kind] ?? 0) + 1;
      continue;
    }
    completed++;
    ttft.push(latencies.ttft);
    e2el.push(latencies.e2el);
    if (latencies.tpot !== null) tpot.push(latencies.tpot);
    const chunks = record.chunksUs;
    for (let index = 1; index < chunks.length; index++)
      itl.push((chunks[index]! - chunks[index - 1]!) / 1000);
    const answer = answerLatencies(record);
    if (answer !== null) {
      if (answer.ttft !== null) answerTtft.push(answer.ttft);
      for (const gap of answer.itl) answerItl.push(gap);
    }
    const reasoning = record.reasoningTokens ?? 0;
    reasoningTokens.push(reasoning);
    if (reasoning > 0) reasoningRequests++;
    if (record.reasoningField !== null)
      reasoningFields[record.reasoningField] = (reasoningFields[record.reasoningField] ?? 0) + 1;
    toolCalls += record.toolCalls.length;
    malformedToolCalls += record.malformedToolCalls;
    const reason = record.finishReason ?? "unknown";
    finishReasons[reason] = (finishReasons[reason] ?? 0) + 1;
    const input = record.promptTokens ?? record.targetInputTokens ?? 0;
    const output = record.outputTokens ?? chunks.length;
    inputTokens += input;
    outputTokens += output;
    inputLengths.push(input);
    outputLengths.push(output);
    if (hasSlo && isGood(latencies, slo)) good++;
  }
  const duration = options.durationS;
  const perSecond = (value: number) => (duration > 0 ? value / duration : 0);
  return {
    requests: {
      total: records.length,
      completed,
      failed: records.length - completed,
      errorsByKind,
      finishReasons,
      warmup: options.warmup ?? 0,
    },
    tokens: {
      input: inputTokens,
      output: outputTokens,
      inputLengths: summarize(inputLengths),
      outputLengths: summarize(outputLengths),
    },
    latency: {
      ttft: summarize(ttft),
      tpot: summarize(tpot),
      itl: summarize(itl),
      e2el: summarize(e2el),
      answer_ttft: summarize(answerTtft),
      answer_itl: summarize(answerItl),
      queue: summarize(queue),
    },
    answer: {
      reasoningRequests,
      reasoningTokens: summarize(reasoningTokens),
      reasoningFields,
      toolCalls,
      malformedToolCalls,
    },
    throughput: {
      request: perSecond(completed),
      output: perSecond(outputTokens),
      total: perSecond(inputTokens + outputTokens),
      goodput: hasSlo ? perSecond(good) : null,
      sloAttainment: hasSlo ? (records.length > 0 ? good / records.length : 0) : null,
    },
  };
}
