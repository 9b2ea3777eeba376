/**
 * What the choices chunks of a stream carried: reasoning (a reasoning parser's `delta.reasoning`, or
 * `delta.reasoning_content` in older vLLM releases), the answer (`delta.content`, a completion's `text`)
 * or tool calls (`delta.tool_calls`), and the tool calls assembled from their deltas.
 *
 * Shapes read: vLLM's `DeltaMessage` (`role`, `content`, `reasoning`, `tool_calls`) and `DeltaToolCall`
 * (`id`, `type`, `index`, `function: {name, arguments}`) in `vllm/entrypoints/openai/engine/protocol.py`
 * (commit 040a2cc2a629); `reasoning_content` in `vllm/entrypoints/openai/protocol.py` of the releases before
 * the rename (vllm-project/vllm PR #27752, merged November 2025; `reasoning_content` removed from the
 * output by PR #33402, January 2026, first released in 0.16.0). A tool call's first delta carries its id,
 * type and name, the later ones pieces of its arguments, all under the call's `index`
 * (`vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py`, commit 00854322d230). The OpenAI chat
 * API streams the same shapes.
 */

export const reasoningFields = ["reasoning", "reasoning_content"] as const;
export type ReasoningField = (typeof reasoningFields)[number];

/** One well-formed tool call: its id, the function's name and the arguments' JSON text as streamed. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A chunk without text of its own: chat's role chunk, a final chunk with only the finish reason. */
const chunkCarriesNothing = 0;
/** Only reasoning text. */
export const chunkCarriesReasoning = 1;
/** Answer text (`content`, or a completion's `text`), maybe with reasoning. */
export const chunkCarriesAnswer = 2;
/** Tool-call deltas (answer too: the answer is the call). */
export const chunkCarriesToolCalls = 3;

/** Bits 2-3 of classifyChunk's result: which reasoning field the chunk used (0 none, 1 or 2). */
const fieldShift = 2;

const key = (name: string) => Buffer.from(`"${name}":`);
const REASONING_KEY = key("reasoning");
const REASONING_CONTENT_KEY = key("reasoning_content");
const CONTENT_KEY = key("content");
const TEXT_KEY = key("text");
const TOOL_CALLS_KEY = key("tool_calls");

const QUOTE = 34;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const COMMA = 44;

const isSpace = (byte: number | undefined) => byte === 32 || byte === 9 || byte === 10 || byte === 13;

/**
 * Whether the JSON object text `chunk` has key `name` (with its quotes and colon) as a member whose value
 * starts with `opener` and is not empty (`"x"`, not `""`; `[x`, not `[]`). A key inside a string value
 * cannot match: its quotes are escaped there.
 */
function hasNonEmptyMember(chunk: Buffer, name: Buffer, opener: number, closer: number): boolean {
  return nonEmptyMemberAt(chunk, name, opener, closer) >= 0;
}

/** Where the first such member's value starts in `chunk` (its opener), or -1 (see hasNonEmptyMember). */
function nonEmptyMemberAt(chunk: Buffer, name: Buffer, opener: number, closer: number): number {
  let from = 0;
  for (;;) {
    const at = chunk.indexOf(name, from);
    if (at < 0) return -1;
    from = at + name.length;
    let before = at - 1;
    while (isSpace(chunk[before])) before--;
    if (chunk[before] !== OPEN_BRACE && chunk[before] !== COMMA) continue;
    let value = from;
    while (isSpace(chunk[value])) value++;
    if (chunk[value] !== opener) continue;
    let next = value + 1;
    if (opener !== QUOTE) while (isSpace(chunk[next])) next++;
    if (chunk[next] !== closer) return value;
  }
}

const BACKSLASH = 92;

/**
 * The answer text of the choices chunk [start, end): a completion's `text`, else the delta's `content`;
 * null when it carries none. Read from the bytes, no JSON parse of the chunk: a session's turns keep their
 * answers to send them back, and parsing every chunk of 1,024 sessions in flight cost more than reading
 * them. `buffer` must hold one valid JSON object there (the reader validated it), so a string value ends
 * at the first quote not escaped.
 */
export function answerTextOf(buffer: Buffer, start: number, end: number): string | null {
  const chunk = buffer.subarray(start, end);
  let value = nonEmptyMemberAt(chunk, TEXT_KEY, QUOTE, QUOTE);
  if (value < 0) value = nonEmptyMemberAt(chunk, CONTENT_KEY, QUOTE, QUOTE);
  if (value < 0) return null;
  let escaped = false;
  let close = value + 1;
  for (; close < chunk.length; close++) {
    const byte = chunk[close];
    if (byte === BACKSLASH) {
      escaped = true;
      close++;
    } else if (byte === QUOTE) break;
  }
  return escaped
    ? (JSON.parse(chunk.toString("utf8", value, close + 1)) as string)
    : chunk.toString("utf8", value + 1, close);
}

/**
 * What the choices chunk [start, end) carried (one of the chunkCarries* values) and, in bits 2-3, the
 * reasoning field it used (1 `reasoning`, 2 `reasoning_content`, 0 none); a few bounded byte searches,
 * no JSON parse. `chunk` must be one valid JSON object (the reader validated it).
 */
export function classifyChunk(buffer: Buffer, start: number, end: number): number {
  const chunk = buffer.subarray(start, end);
  const field = hasNonEmptyMember(chunk, REASONING_KEY, QUOTE, QUOTE)
    ? 1
    : hasNonEmptyMember(chunk, REASONING_CONTENT_KEY, QUOTE, QUOTE)
      ? 2
      : 0;
  const kind = hasNonEmptyMember(chunk, TOOL_CALLS_KEY, OPEN_BRACKET, CLOSE_BRACKET)
    ? chunkCarriesToolCalls
    : hasNonEmptyMember(chunk, CONTENT_KEY, QUOTE, QUOTE) || hasNonEmptyMember(chunk, TEXT_KEY, QUOTE, QUOTE)
      ? chunkCarriesAnswer
      : field !== 0
        ? chunkCarriesReasoning
        : chunkCarriesNothing;
  return kind | (field << fieldShift);
}

export const chunkKindOf = (classified: number) => classified & ((1 << fieldShift) - 1);
export const reasoningFieldOf = (classified: number): ReasoningField | null => {
  const field = classified >> fieldShift;
  return field === 0 ? null : reasoningFields[field - 1]!;
};

/**
 * Limits of the tool calls kept per request (documented in docs/run.md): 64 calls, and 64 KiB of
 * arguments per call. A call beyond them is counted as malformed; the request itself goes on.
 */
export const toolCallLimits = { calls: 64, argumentChars: 64 * 1024 } as const;

interface CallInProgress {
  id: string | null;
  name: string | null;
  arguments: string;
  /** Why the call cannot be used, once something about it was wrong. */
  broken: boolean;
}

/** Key of the deltas that name no call (no integer `index`): together one malformed call. */
const unindexed = "unindexed";

/**
 * Assembles the tool calls of one response from its chunks' `delta.tool_calls` (per choice, by the
 * call's `index`). A call is well formed with a non-empty id and name and arguments that are a JSON
 * object; anything else is counted as malformed, never thrown.
 */
export class ToolCallAssembler {
  private readonly calls = new Map<string, CallInProgress>();

  /** One choices chunk's JSON text (already validated as JSON by the reader). */
  add(json: string): void {
    let event: unknown;
    try {
      event = JSON.parse(json);
    } catch {
      return;
    }
    const choices = (event as { choices?: unknown } | null)?.choices;
    if (!Array.isArray(choices)) return;
    for (const choice of choices) {
      if (choice === null || typeof choice !== "object") continue;
      const { index: choiceIndex, delta } = choice as { index?: unknown; delta?: unknown };
      if (delta === null || typeof delta !== "object") continue;
      const deltas = (delta as { tool_calls?: unknown }).tool_calls;
      if (deltas === undefined || deltas === null) continue;
      if (!Array.isArray(deltas)) {
        this.call(unindexed).broken = true;
        continue;
      }
      for (const item of deltas)
        this.addDelta(Number.isSafeInteger(choiceIndex) ? String(choiceIndex) : "0", item);
    }
  }

  private addDelta(choice: string, item: unknown): void {
    if (item === null || typeof item !== "object") {
      this.call(unindexed).broken = true;
      return;
    }
    const { index, id, function: fn } = item as { index?: unknown; id?: unknown; function?: unknown };
    const call = Number.isSafeInteger(index) ? this.call(`${choice}:${String(index)}`) : this.call(unindexed);
    if (call === this.calls.get(unindexed)) call.broken = true;
    if (call.broken) return;
    if (id !== undefined && id !== null) {
      if (typeof id !== "string" || (call.id !== null && call.id !== id)) call.broken = true;
      else call.id = id;
    }
    if (fn === undefined || fn === null) return;
    if (typeof fn !== "object") {
      call.broken = true;
      return;
    }
    const { name, arguments: text } = fn as { name?: unknown; arguments?: unknown };
    if (name !== undefined && name !== null) {
      if (typeof name !== "string" || (call.name !== null && call.name !== name)) call.broken = true;
      else call.name = name;
    }
    if (text !== undefined && text !== null) {
      if (typeof text !== "string") call.broken = true;
      else if (call.arguments.length + text.length > toolCallLimits.argumentChars) {
        call.broken = true;
        call.arguments = "";
      } else call.arguments += text;
    }
  }

  private call(key: string): CallInProgress {
    let call = this.calls.get(key);
    if (call === undefined) {
      call = { id: null, name: null, arguments: "", broken: false };
      // Beyond the limit a call is counted (as malformed), its deltas dropped.
      if (this.calls.size >= toolCallLimits.calls && key !== unindexed) call.broken = true;
      this.calls.set(key, call);
    }
    return call;
  }

  /** The well-formed calls in the order their first delta came, and how many were malformed. */
  result(): { toolCalls: ToolCall[]; malformed: number } {
    const toolCalls: ToolCall[] = [];
    let malformed = 0;
    for (const call of this.calls.values()) {
      if (!call.broken && call.id && call.name && isJsonObjectText(call.arguments)) {
        toolCalls.push({ id: call.id, name: call.name, arguments: call.arguments });
      } else malformed++;
    }
    return { toolCalls, malformed };
  }
}

function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** What a stream's answer was made of, for the request record. */
export interface AnswerSummary {
  /** Index into the chunk times of the first chunk with answer text or tool calls; null if none. */
  firstAnswerChunk: number | null;
  reasoningField: ReasoningField | null;
  /** Tokens of the chunks that carried only reasoning (one per chunk without per-chunk usage). */
  reasoningChunkTokens: number;
  /** usage.completion_tokens_details.reasoning_tokens, when the server sent it. */
  reportedReasoningTokens: number | null;
  toolCalls: ToolCall[];
  malformedToolCalls: number;
}
