import type { SamplingConfig } from "../config/schema.js";
import type { ChatMessage } from "./dataset-file.js";
import type { WorkloadRequest } from "./workload-types.js";

export type Endpoint = "completions" | "chat";

export const endpointPath: Record<Endpoint, string> = {
  completions: "/v1/completions",
  chat: "/v1/chat/completions",
};

/** Chat messages as one completions prompt: their texts, one after the other. */
export function messagesAsPrompt(messages: readonly ChatMessage[]): string {
  return messages.map((message) => message.content).join("\n");
}

/**
 * A request as the cell's endpoint takes it: on completions, a request that carries messages (a trace's
 * turn, whose prompt is as given, docs/workloads.md) sends their text as its prompt.
 */
export function forEndpoint(request: WorkloadRequest, endpoint: Endpoint): WorkloadRequest {
  if (endpoint === "chat" || request.messages === null) return request;
  const { tools: _tools, ...rest } = request;
  return { ...rest, prompt: messagesAsPrompt(request.messages), messages: null };
}

export interface BodyOptions {
  model: string;
  sampling: SamplingConfig;
  /** Salts the server's prefix cache (policy fresh): one salt per run means no hits across runs. */
  cacheSalt: string | null;
  /**
   * A greedy-output cell (config quality.greedy): temperature 0 and ignore_eos false whatever `sampling`
   * and its extra_body say, and `logprobs` per token asked (completions `logprobs: k`; chat
   * `logprobs: true, top_logprobs: k`, as vLLM's protocol.py takes them).
   */
  greedy?: { logprobs: number } | undefined;
}

/**
 * The JSON body of one streamed request. Every sampling parameter is explicit because vLLM's defaults
 * changed between versions; usage is requested so output tokens come from the server, not an estimate.
 */
export function buildRequestBody(request: WorkloadRequest, options: BodyOptions): Record<string, unknown> {
  const sampling = options.sampling;
  const body: Record<string, unknown> = { model: options.model };
  if (request.messages !== null) {
    body.messages = request.messages;
    if (request.tools !== undefined && request.tools.length > 0) body.tools = request.tools;
  } else body.prompt = request.prompt ?? "";
  body.max_tokens = request.maxTokens;
  body.stream = true;
  body.stream_options = { include_usage: true };
  body.temperature = sampling.temperature;
  body.top_p = sampling.top_p;
  if (sampling.top_k !== undefined) body.top_k = sampling.top_k;
  if (sampling.min_p !== undefined) body.min_p = sampling.min_p;
  if (sampling.seed !== undefined) body.seed = sampling.seed;
  body.ignore_eos = sampling.ignore_eos;
  if (sampling.min_tokens !== undefined) body.min_tokens = sampling.min_tokens;
  if (sampling.repetition_penalty !== undefined) body.repetition_penalty = sampling.repetition_penalty;
  if (options.cacheSalt !== null) body.cache_salt = options.cacheSalt;
  const merged: Record<string, unknown> = { ...body, ...sampling.extra_body };
  if (options.greedy !== undefined) {
    merged.temperature = 0;
    merged.ignore_eos = false;
    const k = options.greedy.logprobs;
    if (k > 0) {
      if (request.messages !== null) {
        merged.logprobs = true;
        merged.top_logprobs = k;
      } else merged.logprobs = k;
    }
  }
  return merged;
}

/** Whether a body asks for cumulative usage on every chunk (then per-chunk token counts are exact). */
export function wantsPerChunkUsage(body: Record<string, unknown>): boolean {
  const options = body.stream_options as Record<string, unknown> | undefined;
  return options?.continuous_usage_stats === true;
}
