import {
  latencyStatisticSpec,
  latencyStatistics,
  type VllmLatencyPhase,
  type VllmThroughputKey,
  vllmLatencyPhases,
} from "../config/metric-names.js";
import type { RequestRecord } from "../runner/request-schema.js";
import { largest } from "../util/extremes.js";
import { specDecodeValue } from "./metric-values.js";
import { requestLatencies } from "./run-metrics.js";
import type { LatencySummary, RunFile } from "./run-schema.js";
import { summarize } from "./summary.js";
import type { VllmResult } from "./vllm-result.js";

export interface VllmResultContext {
  model: string;
  endpoint: "completions" | "chat";
  /** Unix ms of the measured phase's start, for the `date` key. */
  startedAtMs: number;
  burstiness: number | null;
  maxConcurrency: number | null;
}

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

/** vLLM's `%Y%m%d-%H%M%S`, in UTC. */
function vllmDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
}

/**
 * One run as the result JSON of `vllm bench serve --save-result --save-detailed` (keys of
 * vllm/benchmarks/serve.py, as summarised in shared/reference/vllm-protocol-and-metrics.md §1.6), so existing
 * tooling can read our runs. Like vLLM: an empty metric is 0, times in lists are seconds, failed requests
 * keep their place in the lists with 0 latencies and their error text. Unlike vLLM: a mid-stream error
 * is a failure, `generated_texts` are empty (we do not keep the generated text), and `label` is always
 * the cell's name (vLLM's is whatever `--label` said, often null). `server_start` is the run's server
 * start, as vLLM writes `--metadata server_start=<id>`.
 */
export function toVllmResult(
  records: readonly RequestRecord[],
  run: RunFile,
  context: VllmResultContext,
): VllmResult {
  const ms = (summary: LatencySummary, key: keyof LatencySummary) => (summary[key] as number | null) ?? 0;
  const metrics: Record<string, number> = {};
  const e2el = summarize(records.flatMap((record) => requestLatencies(record)?.e2el ?? []));
  const phases: Record<VllmLatencyPhase, LatencySummary> = {
    ttft: run.latency.ttft,
    tpot: run.latency.tpot,
    itl: run.latency.itl,
    e2el,
  };
  for (const name of vllmLatencyPhases) {
    const summary = phases[name];
    // vLLM's order: mean, median, std, then the percentiles.
    for (const statistic of latencyStatistics) {
      const { vllmAggregate } = latencyStatisticSpec(statistic);
      if (vllmAggregate !== null) metrics[`${vllmAggregate}_${name}_ms`] = ms(summary, vllmAggregate);
    }
    metrics[`std_${name}_ms`] = ms(summary, "std");
    for (const statistic of latencyStatistics) {
      const { vllmPercentile } = latencyStatisticSpec(statistic);
      if (vllmPercentile !== null) metrics[`p${vllmPercentile}_${name}_ms`] = ms(summary, statistic);
    }
  }
  // Every catalogue throughput with a vLLM key, in vLLM's order.
  const throughput = {
    request_throughput: run.throughput.request,
    request_goodput: run.throughput.goodput,
    output_throughput: run.throughput.output,
    total_token_throughput: run.throughput.total,
  } satisfies Record<VllmThroughputKey, number | null>;
  return {
    date: vllmDate(context.startedAtMs),
    backend: context.endpoint === "chat" ? "openai-chat" : "openai",
    endpoint_type: context.endpoint === "chat" ? "openai-chat" : "openai",
    // The cell's name, so `compare` groups these files into the same cells as the run.json files
    // (vLLM's `--label`; a null label would put every cell into one "default" cell).
    label: run.cell,
    model_id: context.model,
    tokenizer_id: context.model,
    num_prompts: run.requests.total,
    // Where vLLM puts `--metadata K=V` pairs (top-level string values, after num_prompts): what
    // `vllm bench serve --metadata server_start=<id>` writes, so both clients say the start the same way.
    ...(run.serverStart ? { server_start: run.serverStart.id } : {}),
    request_rate: run.load.targetRate ?? "inf",
    burstiness: context.burstiness,
    max_concurrency: context.maxConcurrency,
    duration: run.durationS,
    completed: run.requests.completed,
    failed: run.requests.failed,
    total_input_tokens: run.tokens.input,
    total_output_tokens: run.tokens.output,
    ...throughput,
    max_output_tokens_per_s: maxOutputTokensPerSecond(records),
    max_concurrent_requests: run.load.peakConcurrency,
    ...metrics,
    ...specDecodeKeys(run),
    latencies: records.map((record) => (requestLatencies(record)?.e2el ?? 0) / 1000),
    queue_times: records.map((record) => record.queueMs / 1000),
    input_lens: records.map((record) => record.promptTokens ?? record.targetInputTokens ?? 0),
    output_lens: records.map((record) => (record.ok ? (record.outputTokens ?? record.chunksUs.length) : 0)),
    start_times: records.map((record) => record.sentMs / 1000),
    ttfts: records.map((record) => (requestLatencies(record)?.ttft ?? 0) / 1000),
    itls: records.map((record) =>
      record.ok ? record.chunksUs.slice(1).map((time, index) => (time - record.chunksUs[index]!) / 1e6) : [],
    ),
    generated_texts: records.map(() => ""),
    errors: records.map((record) => (record.ok ? "" : (record.error ?? record.errorKind ?? "error"))),
  };
}

/**
 * The speculative-decoding keys vLLM's client writes when the server has a drafter (after vllm PR #31739):
 * the acceptance rate in percent, the mean acceptance length and the counts; none without drafts.
 */
function specDecodeKeys(run: RunFile): Partial<VllmResult> {
  const server = run.server;
  const drafts = server?.spec_decode_drafts ?? null;
  const draftTokens = server?.spec_decode_draft_tokens ?? null;
  const accepted = server?.spec_decode_accepted_tokens ?? null;
  // A counter that went down (a restarted server) gives no figure, as in run.json's reading.
  if (drafts === null || draftTokens === null || accepted === null) return {};
  if (drafts <= 0 || draftTokens < 0 || accepted < 0) return {};
  const counts = { drafts, draftTokens, acceptedTokens: accepted };
  const rate = specDecodeValue(counts, "acceptance_rate");
  return {
    spec_decode_acceptance_rate: rate === null ? 0 : rate * 100,
    spec_decode_acceptance_length: specDecodeValue(counts, "acceptance_length"),
    spec_decode_num_drafts: drafts,
    spec_decode_draft_tokens: draftTokens,
    spec_decode_accepted_tokens: accepted,
  };
}

/** Most output tokens received in any whole second of the run (chunks of successful requests). */
function maxOutputTokensPerSecond(records: readonly RequestRecord[]): number {
  const perSecond = new Map<number, number>();
  for (const record of records) {
    if (!record.ok) continue;
    record.chunksUs.forEach((time, index) => {
      const second = Math.floor((record.sentMs + time / 1000) / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + (record.chunkTokens?.[index] ?? 1));
    });
  }
  return perSecond.size === 0 ? 0 : largest(perSecond.values());
}
