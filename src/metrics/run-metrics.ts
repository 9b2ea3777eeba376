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
  const slo = options.slo;
  const hasSlo =
    slo !== undefined &&
    (slo.ttft_ms !== undefined || slo.tpot_ms !== undefined || slo.e2el_ms !== undefined);
  const s = collectSamples(records, hasSlo ? slo : undefined);
  const duration = options.durationS;
  const perSecond = (value: number) => (duration > 0 ? value / duration : 0);
  return {
    requests: {
      total: records.length,
      completed: s.completed,
      failed: records.length - s.completed,
      errorsByKind: s.errorsByKind,
      finishReasons: s.finishReasons,
      warmup: options.warmup ?? 0,
    },
    tokens: {
      input: s.inputTokens,
      output: s.outputTokens,
      inputLengths: summarize(s.inputLengths),
      outputLengths: summarize(s.outputLengths),
    },
    latency: {
      ttft: summarize(s.ttft),
      tpot: summarize(s.tpot),
      itl: summarize(s.itl),
      e2el: summarize(s.e2el),
      answer_ttft: summarize(s.answerTtft),
      answer_itl: summarize(s.answerItl),
      queue: summarize(s.queue),
    },
    answer: {
      reasoningRequests: s.reasoningRequests,
      reasoningTokens: summarize(s.reasoningTokens),
      reasoningFields: s.reasoningFields,
      toolCalls: s.toolCalls,
      malformedToolCalls: s.malformedToolCalls,
    },
    throughput: {
      request: perSecond(s.completed),
      output: perSecond(s.outputTokens),
      total: perSecond(s.inputTokens + s.outputTokens),
      goodput: hasSlo ? perSecond(s.good) : null,
      sloAttainment: hasSlo ? (records.length > 0 ? s.good / records.length : 0) : null,
    },
  };
}

/** What a run's records give, request by request, before it is summarised. */
interface RunSamples {
  ttft: number[];
  tpot: number[];
  itl: number[];
  e2el: number[];
  answerTtft: number[];
  answerItl: number[];
  queue: number[];
  reasoningTokens: number[];
  reasoningFields: Record<string, number>;
  reasoningRequests: number;
  toolCalls: number;
  malformedToolCalls: number;
  inputLengths: number[];
  outputLengths: number[];
  errorsByKind: Record<string, number>;
  finishReasons: Record<string, number>;
  completed: number;
  /** Completed requests that met every SLO (0 without SLOs). */
  good: number;
  inputTokens: number;
  outputTokens: number;
}

function collectSamples(records: readonly RequestRecord[], slo: Slo | undefined): RunSamples {
  const samples: RunSamples = {
    ttft: [],
    tpot: [],
    itl: [],
    e2el: [],
    answerTtft: [],
    answerItl: [],
    queue: [],
    reasoningTokens: [],
    reasoningFields: {},
    reasoningRequests: 0,
    toolCalls: 0,
    malformedToolCalls: 0,
    inputLengths: [],
    outputLengths: [],
    errorsByKind: {},
    finishReasons: {},
    completed: 0,
    good: 0,
    inputTokens: 0,
    outputTokens: 0,
  };
  for (const record of records) {
    samples.queue.push(record.queueMs);
    const latencies = requestLatencies(record);
    if (latencies === null) {
      const kind = record.errorKind ?? "other";
      samples.errorsByKind[kind] = (samples.errorsByKind[kind] ?? 0) + 1;
      continue;
    }
    samples.completed++;
    addLatencies(samples, record, latencies);
    addAnswer(samples, record);
    const input = record.promptTokens ?? record.targetInputTokens ?? 0;
    const output = record.outputTokens ?? record.chunksUs.length;
    samples.inputTokens += input;
    samples.outputTokens += output;
    samples.inputLengths.push(input);
    samples.outputLengths.push(output);
    if (slo !== undefined && isGood(latencies, slo)) samples.good++;
  }
  return samples;
}

/** A completed request's TTFT, TPOT, E2E, its chunk gaps (ITL), and the same for its answer proper. */
function addLatencies(samples: RunSamples, record: RequestRecord, latencies: RequestLatencies): void {
  samples.ttft.push(latencies.ttft);
  samples.e2el.push(latencies.e2el);
  if (latencies.tpot !== null) samples.tpot.push(latencies.tpot);
  const chunks = record.chunksUs;
  for (let index = 1; index < chunks.length; index++)
    samples.itl.push((chunks[index]! - chunks[index - 1]!) / 1000);
  const answer = answerLatencies(record);
  if (answer !== null) {
    if (answer.ttft !== null) samples.answerTtft.push(answer.ttft);
    for (const gap of answer.itl) samples.answerItl.push(gap);
  }
}

/** What a completed request's answer carried: reasoning, tool calls, its finish reason. */
function addAnswer(samples: RunSamples, record: RequestRecord): void {
  const reasoning = record.reasoningTokens ?? 0;
  samples.reasoningTokens.push(reasoning);
  if (reasoning > 0) samples.reasoningRequests++;
  if (record.reasoningField !== null)
    samples.reasoningFields[record.reasoningField] =
      (samples.reasoningFields[record.reasoningField] ?? 0) + 1;
  samples.toolCalls += record.toolCalls.length;
  samples.malformedToolCalls += record.malformedToolCalls;
  const reason = record.finishReason ?? "unknown";
  samples.finishReasons[reason] = (samples.finishReasons[reason] ?? 0) + 1;
}
