import { type DeclaredTool, declaredTools } from "./answer-plan.js";
import { type ChatMessage, chatPromptText, tokenize } from "./tokenizer.js";

/**
 * Request parsing and response shapes of vLLM's OpenAI-compatible server. Shapes follow
 * vllm/entrypoints/openai/engine/protocol.py@040a2cc2, completion/serving.py@030ea52e and
 * chat_completion/serving.py@006c49d4: chunks are serialised with exclude_unset, so only the fields
 * vLLM sets appear, and a field it sets to None explicitly appears as null. How that differs by version
 * is `ProtocolShape`.
 */

/** What differs in the response bytes between vLLM versions. */
export interface ProtocolShape {
  /**
   * 0.10.2 and later (return_token_ids): choices carry `token_ids: null`, completion choices and chat's
   * first chunk and body `prompt_token_ids: null`, because serving passes them explicitly as None.
   */
  tokenIdFields: boolean;
  /**
   * The 0.10 and 0.11 lines dump completion chunks with exclude_unset=False
   * (vllm/entrypoints/openai/serving_completion.py @ v0.11.0), so every chunk ends with `"usage":null`;
   * later lines use exclude_unset and leave it out.
   */
  completionUsageNull: boolean;
  /**
   * The delta and message field of reasoning: `reasoning` from 0.16.0 on (vllm-project/vllm PR #27752
   * introduced it, PR #33402 removed `reasoning_content` from the output), `reasoning_content` before.
   */
  reasoningField: "reasoning" | "reasoning_content";
}

export function protocolShapeOf(version: string): ProtocolShape {
  const [major = 0, minor = 0, patch = 0] = version
    .split(/[.+-]/)
    .map((part) => Number.parseInt(part, 10) || 0);
  const atLeast = (a: number, b: number, c: number) =>
    major !== a ? major > a : minor !== b ? minor > b : patch >= c;
  return {
    tokenIdFields: atLeast(0, 10, 2),
    completionUsageNull: !atLeast(0, 12, 0),
    reasoningField: atLeast(0, 16, 0) ? "reasoning" : "reasoning_content",
  };
}

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: number };
}

const errorTypes: Record<number, string> = {
  400: "BadRequestError",
  401: "UnauthorizedError",
  403: "PermissionDeniedError",
  404: "NotFoundError",
  408: "RequestTimeoutError",
  422: "UnprocessableEntityError",
  429: "RateLimitError",
  500: "InternalServerError",
  502: "BadGatewayError",
  503: "ServiceUnavailableError",
  504: "GatewayTimeoutError",
};

export function errorBody(code: number, message: string, param: string | null = null): ErrorBody {
  return {
    error: {
      message,
      type: errorTypes[code] ?? (code >= 500 ? "InternalServerError" : "BadRequestError"),
      param,
      code,
    },
  };
}

export class ProtocolError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export type Endpoint = "completions" | "chat";

export interface GenerationRequest {
  endpoint: Endpoint;
  model: string;
  promptTokens: number[];
  maxTokens: number;
  minTokens: number;
  ignoreEos: boolean;
  seed: number | undefined;
  cacheSalt: string | undefined;
  stream: boolean;
  includeUsage: boolean;
  continuousUsage: boolean;
  /** Default 1.0, as vLLM uses without a generation config. */
  temperature: number;
  /**
   * Logprobs asked per token, null for none: completions `logprobs: k`; chat `logprobs: true` with
   * `top_logprobs: k` (0 = the chosen token only), as vLLM's protocol.py reads them.
   */
  logprobs: number | null;
  /** The tools a chat request declares (`tools`), as the answer policy reads them. */
  tools: DeclaredTool[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optionalInt(body: Record<string, unknown>, key: string, min: number): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new ProtocolError(400, `${key} must be an integer >= ${min}, got ${JSON.stringify(value)}.`, key);
  }
  return value;
}

function optionalBool(body: Record<string, unknown>, key: string): boolean | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw new ProtocolError(400, `${key} must be a boolean.`, key);
  return value;
}

function promptTokensOf(prompt: unknown): number[] {
  if (typeof prompt === "string") return tokenize(prompt);
  if (Array.isArray(prompt)) {
    if (prompt.length === 1 && (typeof prompt[0] === "string" || Array.isArray(prompt[0]))) {
      return promptTokensOf(prompt[0]);
    }
    if (prompt.every((id) => typeof id === "number" && Number.isInteger(id) && id >= 0))
      return prompt as number[];
    if (prompt.length > 1)
      throw new ProtocolError(400, "The simulator serves one prompt per request.", "prompt");
  }
  throw new ProtocolError(
    400,
    "prompt must be a string, a list of token ids, or a list of one of those.",
    "prompt",
  );
}

function messagesOf(messages: unknown): ChatMessage[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ProtocolError(400, "messages must be a non-empty list.", "messages");
  }
  return messages.map((message, i) => {
    if (!isRecord(message) || typeof message.role !== "string") {
      throw new ProtocolError(400, `messages[${i}] must have a string role.`, "messages");
    }
    const content = message.content;
    if (typeof content === "string") return { role: message.role, content };
    if (content === null || content === undefined) return { role: message.role, content: "" };
    if (Array.isArray(content)) {
      const text = content
        .map((part) =>
          isRecord(part) && part.type === "text" && typeof part.text === "string" ? part.text : "",
        )
        .join(" ");
      return { role: message.role, content: text };
    }
    throw new ProtocolError(
      400,
      `messages[${i}].content must be a string or a list of text parts.`,
      "messages",
    );
  });
}

export function chatPromptTokens(messages: unknown): number[] {
  return tokenize(chatPromptText(messagesOf(messages)));
}

export interface ParseContext {
  servedModel: string;
  maxModelLen: number;
}

export function parseGenerationRequest(
  endpoint: Endpoint,
  body: unknown,
  ctx: ParseContext,
): GenerationRequest {
  if (!isRecord(body)) throw new ProtocolError(400, "The request body must be a JSON object.");
  const model = body.model;
  if (model !== undefined && model !== null && model !== ctx.servedModel) {
    throw new ProtocolError(404, `The model \`${String(model)}\` does not exist.`, "model");
  }
  const stream = optionalBool(body, "stream") ?? false;
  const streamOptions = checkedStreamOptions(body, stream);
  const n = optionalInt(body, "n", 1);
  if (n !== undefined && n !== 1) throw new ProtocolError(400, "The simulator supports n=1 only.", "n");
  const promptTokens = endpoint === "chat" ? chatPromptTokens(body.messages) : promptTokensOf(body.prompt);
  const { maxTokens, minTokens } = tokenLimits(endpoint, body, promptTokens.length, ctx.maxModelLen);
  const { salt, temperature } = samplingParams(body);
  const includeUsage = streamOptions ? streamOptions.include_usage !== false : false;
  return {
    endpoint,
    model: ctx.servedModel,
    promptTokens,
    maxTokens,
    minTokens,
    ignoreEos: optionalBool(body, "ignore_eos") ?? false,
    seed: optionalInt(body, "seed", Number.MIN_SAFE_INTEGER),
    cacheSalt: salt,
    stream,
    includeUsage,
    continuousUsage: includeUsage && streamOptions?.continuous_usage_stats === true,
    temperature: temperature ?? 1,
    logprobs: requestedLogprobs(endpoint, body),
    tools: endpoint === "chat" ? declaredTools(body.tools) : [],
  };
}

/** The stream options of a streamed request (undefined otherwise); only a streamed request may give them. */
function checkedStreamOptions(
  body: Record<string, unknown>,
  stream: boolean,
): Record<string, unknown> | undefined {
  const streamOptions = body.stream_options;
  if (streamOptions !== undefined && streamOptions !== null) {
    // vLLM's validator tests `data.get("stream_options") and not data.get("stream")`: an empty object is
    // falsy in Python, so `stream_options: {}` without streaming is accepted (engine/protocol.py@040a2cc2).
    if (!stream && !(isRecord(streamOptions) && Object.keys(streamOptions).length === 0)) {
      throw new ProtocolError(
        400,
        "Stream options can only be defined when `stream=True`.",
        "stream_options",
      );
    }
    if (!isRecord(streamOptions))
      throw new ProtocolError(400, "stream_options must be an object.", "stream_options");
  }
  return stream && isRecord(streamOptions) ? streamOptions : undefined;
}

/**
 * max_tokens (chat: max_completion_tokens first; default the rest of the context, 16 for completions)
 * and min_tokens, checked against the context length with vLLM V1's wording and params
 * (vllm/entrypoints/openai/serving_engine.py _validate_input @ v0.11.0).
 */
function tokenLimits(
  endpoint: Endpoint,
  body: Record<string, unknown>,
  promptLen: number,
  maxModelLen: number,
): { maxTokens: number; minTokens: number } {
  if (promptLen >= maxModelLen) {
    throw new ProtocolError(
      400,
      `This model's maximum context length is ${maxModelLen} tokens. However, your request has ${promptLen} input tokens. Please reduce the length of the input messages.`,
      "input_tokens",
    );
  }
  const requested =
    endpoint === "chat"
      ? (optionalInt(body, "max_completion_tokens", 1) ?? optionalInt(body, "max_tokens", 1))
      : optionalInt(body, "max_tokens", 1);
  const maxTokens = requested ?? (endpoint === "chat" ? maxModelLen - promptLen : 16);
  if (promptLen + maxTokens > maxModelLen) {
    // Clients parse this sentence to retry with a smaller max_tokens.
    throw new ProtocolError(
      400,
      `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${maxModelLen} tokens and your request has ${promptLen} input tokens (${maxTokens} > ${maxModelLen} - ${promptLen}).`,
      "max_tokens",
    );
  }
  const minTokens = optionalInt(body, "min_tokens", 0) ?? 0;
  if (minTokens > maxTokens) {
    throw new ProtocolError(
      400,
      `min_tokens must be less than or equal to max_tokens=${maxTokens}, got ${minTokens}.`,
      "min_tokens",
    );
  }
  return { maxTokens, minTokens };
}

/** cache_salt (a non-empty string) and temperature (non-negative), when given. */
function samplingParams(body: Record<string, unknown>): {
  salt: string | undefined;
  temperature: number | undefined;
} {
  const salt = body.cache_salt;
  if (salt !== undefined && salt !== null && (typeof salt !== "string" || salt === "")) {
    throw new ProtocolError(
      400,
      "Parameter 'cache_salt' must be a non-empty string if provided.",
      "cache_salt",
    );
  }
  const temperature = body.temperature;
  if (
    temperature !== undefined &&
    temperature !== null &&
    (typeof temperature !== "number" || !Number.isFinite(temperature) || temperature < 0)
  ) {
    throw new ProtocolError(
      400,
      `temperature must be non-negative, got ${JSON.stringify(temperature)}.`,
      "temperature",
    );
  }
  return {
    salt: typeof salt === "string" ? salt : undefined,
    temperature: typeof temperature === "number" ? temperature : undefined,
  };
}

/** The logprobs asked for (chat: top_logprobs with logprobs true), at most vLLM's default maximum; null: none. */
function requestedLogprobs(endpoint: Endpoint, body: Record<string, unknown>): number | null {
  let logprobs: number | null;
  if (endpoint === "chat") {
    const top = optionalInt(body, "top_logprobs", 0);
    const wanted = optionalBool(body, "logprobs") ?? false;
    if (top !== undefined && top > 0 && !wanted)
      throw new ProtocolError(
        400,
        "when using `top_logprobs`, `logprobs` must be set to true.",
        "top_logprobs",
      );
    logprobs = wanted ? (top ?? 0) : null;
  } else logprobs = optionalInt(body, "logprobs", 0) ?? null;
  if (logprobs !== null && logprobs > maxLogprobs)
    throw new ProtocolError(
      400,
      `Requested sample logprobs of ${logprobs}, which is greater than max allowed: ${maxLogprobs}`,
      "logprobs",
    );
  return logprobs;
}

/** vLLM's default --max-logprobs. */
const maxLogprobs = 20;

/** One output token's logprobs: the chosen token and the k most likely (the chosen one first). */
export interface TokenLogprobs {
  token: string;
  logprob: number;
  top: { token: string; logprob: number }[];
}

/**
 * The `logprobs` value of a chunk carrying these tokens, in vLLM's shapes (vllm/entrypoints/openai/
 * protocol.py, commit 0052bed3): completions `CompletionLogProbs` {text_offset, token_logprobs, tokens,
 * top_logprobs: one {token: logprob} map per token}; chat `ChatCompletionLogProbs` {content: [{token,
 * logprob, bytes, top_logprobs: [{token, logprob, bytes}]}]}. `offset`: characters of output before them.
 */
export function logprobsJson(endpoint: Endpoint, entries: readonly TokenLogprobs[], offset: number): string {
  if (endpoint === "chat") {
    const bytes = (token: string) => [...Buffer.from(token, "utf8")];
    return JSON.stringify({
      content: entries.map((entry) => ({
        token: entry.token,
        logprob: entry.logprob,
        bytes: bytes(entry.token),
        top_logprobs: entry.top.map((top) => ({
          token: top.token,
          logprob: top.logprob,
          bytes: bytes(top.token),
        })),
      })),
    });
  }
  const textOffset: number[] = [];
  let at = offset;
  for (const entry of entries) {
    textOffset.push(at);
    at += entry.token.length;
  }
  return JSON.stringify({
    text_offset: textOffset,
    token_logprobs: entries.map((entry) => entry.logprob),
    tokens: entries.map((entry) => entry.token),
    top_logprobs: entries.map((entry) =>
      Object.fromEntries(entry.top.map((top) => [top.token, top.logprob])),
    ),
  });
}

export interface Usage {
  prompt_tokens: number;
  total_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens: number } | null;
  completion_tokens_details?: { reasoning_tokens: number };
}

/** `cachedTokens` only with --enable-prompt-tokens-details: vLLM adds the details then. */
/**
 * `reasoningTokens` when the answer reasoned: `completion_tokens_details.reasoning_tokens`, the OpenAI
 * API's field (vLLM's UsageInfo has no completion_tokens_details in engine/protocol.py@040a2cc2; the
 * simulator sends it so the client's reading of it is exercised).
 */
export function usageOf(
  promptTokens: number,
  completionTokens: number,
  cachedTokens?: number,
  reasoningTokens?: number,
): Usage {
  const usage: Usage = {
    prompt_tokens: promptTokens,
    total_tokens: promptTokens + completionTokens,
    completion_tokens: completionTokens,
  };
  if (cachedTokens !== undefined) usage.prompt_tokens_details = { cached_tokens: cachedTokens };
  if (reasoningTokens !== undefined) usage.completion_tokens_details = { reasoning_tokens: reasoningTokens };
  return usage;
}

/**
 * Pre-rendered pieces of one stream's chunks: only the text, finish reason and usage vary, so each chunk
 * is a concatenation instead of a JSON.stringify of the whole object.
 */
export class ChunkWriter {
  private readonly head: string;
  private readonly tokenIds: string;
  constructor(
    readonly endpoint: Endpoint,
    readonly id: string,
    created: number,
    model: string,
    readonly shape: ProtocolShape = protocolShapeOf("0.11.0"),
  ) {
    const object = endpoint === "chat" ? "chat.completion.chunk" : "text_completion";
    this.head = `data: {"id":${JSON.stringify(id)},"object":"${object}","created":${created},"model":${JSON.stringify(model)},"choices":[`;
    this.tokenIds = shape.tokenIdFields
      ? endpoint === "chat"
        ? ',"token_ids":null'
        : ',"prompt_token_ids":null,"token_ids":null'
      : "";
  }

  /** Chat only: the first chunk, sent with the first engine output; 0.10.2+ sets prompt_token_ids on it. */
  role(usage?: Usage): string {
    const promptIds = this.shape.tokenIdFields ? ',"prompt_token_ids":null' : "";
    return `${this.head}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]${usageTail(usage)}${promptIds}}\n\n`;
  }

  /**
   * `logprobs`: the chunk's logprobs value (logprobsJson), or null as without logprobs asked. `delta`: a
   * chat delta other than content (deltaOf), as a reasoning parser or tool parser sets it.
   */
  content(
    text: string,
    finishReason: string | null,
    usage?: Usage,
    logprobs: string | null = null,
    delta: string | null = null,
  ): string {
    const reason = finishReason === null ? "null" : `"${finishReason}"`;
    const lp = logprobs ?? "null";
    if (this.endpoint === "chat") {
      // vLLM sets stop_reason only on the chat stream's final choice, so only that one carries it.
      const choice = `{"index":0,"delta":${delta ?? `{"content":${JSON.stringify(text)}}`},"logprobs":${lp},"finish_reason":${reason}${finishReason === null ? "" : ',"stop_reason":null'}${this.tokenIds}}`;
      return `${this.head}${choice}]${usageTail(usage)}}\n\n`;
    }
    const choice = `{"index":0,"text":${JSON.stringify(text)},"logprobs":${lp},"finish_reason":${reason},"stop_reason":null${this.tokenIds}}`;
    const tail = usage ? usageTail(usage) : this.shape.completionUsageNull ? ',"usage":null' : "";
    return `${this.head}${choice}]${tail}}\n\n`;
  }

  usage(usage: Usage): string {
    return `${this.head}]${usageTail(usage)}}\n\n`;
  }
}

/**
 * A chat delta as vLLM's parsers set it (exclude_unset: only the fields set): reasoning text
 * (`DeltaMessage(reasoning=...)`), a tool call's first delta (`DeltaToolCall(index, type, id,
 * function={name})`) or a piece of its arguments (`DeltaToolCall(index, function={arguments})`),
 * vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py@00854322.
 */
export function deltaOf(
  part:
    | { kind: "reasoning"; field: ProtocolShape["reasoningField"]; text: string }
    | { kind: "tool-start"; id: string; name: string }
    | { kind: "tool-arguments"; text: string },
): string {
  switch (part.kind) {
    case "reasoning":
      return `{"${part.field}":${JSON.stringify(part.text)}}`;
    case "tool-start":
      return `{"tool_calls":[{"id":${JSON.stringify(part.id)},"type":"function","index":0,"function":{"name":${JSON.stringify(part.name)}}}]}`;
    case "tool-arguments":
      return `{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(part.text)}}}]}`;
  }
}

function usageTail(usage: Usage | undefined): string {
  return usage ? `,"usage":${JSON.stringify(usage)}` : "";
}

export const doneEvent = "data: [DONE]\n\n";

export function streamErrorEvent(code: number, message: string): string {
  return `data: ${JSON.stringify(errorBody(code, message))}\n\n`;
}

/** A non-streamed chat answer's parts besides its content: reasoning (text and tokens) and a tool call. */
export interface PlainAnswer {
  reasoning: string | null;
  reasoningTokens: number;
  toolCall: { id: string; name: string; arguments: string } | null;
}

export function completionResponse(
  req: GenerationRequest,
  id: string,
  created: number,
  text: string,
  finishReason: string,
  completionTokens: number,
  cachedTokens: number | undefined,
  shape: ProtocolShape = protocolShapeOf("0.11.0"),
  answer: PlainAnswer = { reasoning: null, reasoningTokens: 0, toolCall: null },
): Record<string, unknown> {
  const counted = usageOf(
    req.promptTokens.length,
    completionTokens,
    cachedTokens,
    answer.reasoning !== null ? answer.reasoningTokens : undefined,
  );
  const usage = { ...counted, prompt_tokens_details: counted.prompt_tokens_details ?? null };
  const head = { id, created, model: req.model };
  return req.endpoint === "chat"
    ? chatCompletionBody(head, text, finishReason, usage, shape, answer)
    : textCompletionBody(head, text, finishReason, usage, shape);
}

type ResponseHead = { id: string; created: number; model: string };

/** A chat.completion as vLLM writes it (its message, tool calls and reasoning field; token-id fields per version). */
function chatCompletionBody(
  head: ResponseHead,
  text: string,
  finishReason: string,
  usage: Record<string, unknown>,
  shape: ProtocolShape,
  answer: PlainAnswer,
): Record<string, unknown> {
  const ids = shape.tokenIdFields;
  return {
    id: head.id,
    object: "chat.completion",
    created: head.created,
    model: head.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text,
          refusal: null,
          annotations: null,
          audio: null,
          function_call: null,
          tool_calls:
            answer.toolCall === null
              ? []
              : [
                  {
                    id: answer.toolCall.id,
                    type: "function",
                    function: { name: answer.toolCall.name, arguments: answer.toolCall.arguments },
                  },
                ],
          [shape.reasoningField]: answer.reasoning,
        },
        logprobs: null,
        finish_reason: finishReason,
        stop_reason: null,
        ...(ids ? { token_ids: null } : {}),
      },
    ],
    service_tier: null,
    system_fingerprint: null,
    usage,
    prompt_logprobs: null,
    ...(ids ? { prompt_token_ids: null } : {}),
    kv_transfer_params: null,
  };
}

/** A text_completion as vLLM writes it (token-id fields per version). */
function textCompletionBody(
  head: ResponseHead,
  text: string,
  finishReason: string,
  usage: Record<string, unknown>,
  shape: ProtocolShape,
): Record<string, unknown> {
  const ids = shape.tokenIdFields;
  return {
    id: head.id,
    object: "text_completion",
    created: head.created,
    model: head.model,
    choices: [
      {
        index: 0,
        text,
        logprobs: null,
        finish_reason: finishReason,
        stop_reason: null,
        prompt_logprobs: null,
        ...(ids ? { prompt_token_ids: null, token_ids: null } : {}),
      },
    ],
    service_tier: null,
    system_fingerprint: null,
    usage,
    kv_transfer_params: null,
  };
}
