/**
 * Incremental reader of an OpenAI-style completion stream (`data: {...}\n\n` events, `data: [DONE]`).
 *
 * Timing accuracy is the reason for its shape: each network read is timestamped once by the caller and
 * scanned at the byte level. A choices chunk costs one newline search and a comparison with the last valid
 * chunk around its text (otherwise one key search and a one-pass JSON validation); JSON is parsed only for
 * the rare events that need it (usage, errors, unusual shapes) and once at the end for the finish reason.
 * Events may be split at any byte across reads; lines end in LF, CRLF or a lone CR; an incomplete event is
 * kept with its scan state, so a long line costs linear time, up to sseEventLimitBytes.
 */

import {
  type AnswerSummary,
  answerTextOf,
  chunkCarriesAnswer,
  chunkCarriesReasoning,
  chunkCarriesToolCalls,
  chunkKindOf,
  classifyChunk,
  type ReasoningField,
  reasoningFieldOf,
  ToolCallAssembler,
} from "./answer-stream.js";
import type { OutputCapture } from "./output-capture.js";

const LF = 10;
const CR = 13;
const SPACE = 32;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CHOICES_KEY = Buffer.from('"choices":');
const COMPLETION_TOKENS_KEY = Buffer.from('"completion_tokens":');
const DONE = Buffer.from("[DONE]");

/**
 * Longest SSE event (or line) the reader accepts: 4 MiB. vLLM's chunks are a few hundred bytes (a few kB with
 * logprobs); a longer event is a misbehaving server, and the request fails with kind `oversized_event`.
 */
export const sseEventLimitBytes = 4 * 1024 * 1024;

export interface StreamUsage {
  promptTokens: number | null;
  completionTokens: number | null;
  cachedTokens: number | null;
  /** usage.completion_tokens_details.reasoning_tokens. */
  reasoningTokens: number | null;
}

export class CompletionStreamReader {
  /**
   * Arrival times (caller's clock, ms) of the chunks carrying choices, in a typed array sized for the
   * response up front: its storage lies outside the JS heap, so the young-generation collections that
   * run while hundreds of streams are open neither copy it nor pause longer for it.
   */
  private times: Float64Array;
  private count = 0;
  /** Tokens per choices chunk, when the server sends cumulative usage on every chunk; otherwise null. */
  chunkTokens: number[] | null = null;
  done = false;
  /** The server's mid-stream error message (an error event over HTTP 200). */
  streamError: string | null = null;
  /** An event that could not be read. */
  malformed: string | null = null;
  /** Set when an event or line exceeded sseEventLimitBytes; the reader then ignores further input. */
  oversized: string | null = null;
  usage: StreamUsage | null = null;
  /** Set by a quality cell's request: every choices chunk's text and logprobs are kept (output-capture.ts). */
  capture: OutputCapture | null = null;

  /**
   * The incomplete event at the end of the last read: `pending[0..pendingLength)`, with the scan's state
   * (offsets into it) so the next read resumes the scan instead of repeating it.
   */
  private pending: Buffer | null = null;
  private pendingLength = 0;
  private scanFrom = 0;
  private lineStart = 0;
  private lastLineEnd = -1;
  private lines = 0;
  /** The last read ended in a CR: an LF at the start of the next completes that CRLF. */
  private skipLeadingLf = false;
  private lastChoices: Buffer | null = null;
  private lastChoicesStart = 0;
  private lastChoicesEnd = 0;
  private previousCumulativeTokens = 0;
  /** The last chunk that validated as JSON: its bytes before and after its text (see isJsonChunk). */
  private validBeforeString: DataView | null = null;
  private validAfterString: DataView | null = null;
  /** What that chunk carried (classifyChunk) and whether its text was empty: a match with a text as empty carries the same. */
  private validClassified = 0;
  private validTextEmpty = false;
  /** Set by validateChunk when it remembered the chunk; by matchesValidChunk: whether the matched text is empty. */
  private rememberedTextEmpty: boolean | null = null;
  private matchedTextEmpty = false;
  /** The answer's parts (answer-stream.ts). */
  private firstAnswerChunk = -1;
  private reasoningFieldSeen: ReasoningField | null = null;
  private reasoningChunkTokens = 0;
  private tools: ToolCallAssembler | null = null;
  /** A DataView of the buffer being scanned, for sameBytes (made once per network read). */
  private view: DataView | null = null;
  private viewOf: Buffer | null = null;

  /** `expectedChunks`: the response's likely number of choices chunks (max_tokens, +1 for chat's role chunk). */
  constructor(
    private readonly perChunkUsage = false,
    expectedChunks = 16,
  ) {
    this.times = new Float64Array(Math.max(16, expectedChunks));
  }

  /** Arrival time (caller's clock, ms) of every chunk carrying choices, in order (a new array per call). */
  get chunkTimes(): number[] {
    return Array.from(this.times.subarray(0, this.count));
  }

  get chunkCount(): number {
    return this.count;
  }

  /** Arrival time of the last chunk carrying choices, or null before the first. */
  get lastChunkAt(): number | null {
    return this.count > 0 ? this.times[this.count - 1]! : null;
  }

  /** Feeds one network read that arrived at `now`. */
  feed(input: Buffer, now: number): void {
    if (this.oversized !== null) return;
    let chunk = input;
    if (this.skipLeadingLf) {
      this.skipLeadingLf = false;
      if (chunk[0] === LF) chunk = chunk.subarray(1);
      if (chunk.length === 0) return;
    }
    if (this.pendingLength === 0) {
      // Common case: the read starts at an event boundary; scan it in place.
      const consumed = this.scan(chunk, 0, 0, -1, 0, now);
      if (this.oversized === null && consumed < chunk.length) this.keep(chunk, consumed);
      return;
    }
    // An event is pending: append (amortised doubling, no re-concatenation) and resume where the last
    // scan stopped, so a long line costs linear time however many reads it spans.
    this.append(chunk);
    const buffer = this.pending!.subarray(0, this.pendingLength);
    const consumed = this.scan(buffer, this.scanFrom, this.lineStart, this.lastLineEnd, this.lines, now);
    if (this.oversized !== null) return;
    if (consumed === 0) return;
    const rest = buffer.length - consumed;
    if (rest > 0) this.pending!.copyWithin(0, consumed, buffer.length);
    this.pendingLength = rest;
    this.scanFrom -= consumed;
    this.lineStart -= consumed;
    this.lastLineEnd = this.lastLineEnd < 0 ? -1 : this.lastLineEnd - consumed;
  }

  /**
   * Scans `buffer` for complete events from `from` (lines end in CRLF, LF or a lone CR; an empty line ends
   * an event), dispatches them, and returns the offset after the last complete event. The position the
   * scan reached and the current event's line state are left in the fields for the next read.
   */
  private scan(
    buffer: Buffer,
    from: number,
    lineStartAt: number,
    lastLineEndAt: number,
    linesSoFar: number,
    now: number,
  ): number {
    const length = buffer.length;
    let eventStart = 0;
    let pos = from;
    let lineStart = lineStartAt;
    let lastLineEnd = lastLineEndAt;
    let lines = linesSoFar;
    let lf = -2;
    let cr = -2;
    for (;;) {
      let terminator: number;
      const here = buffer[pos];
      // The blank line after an event needs no search.
      if (here === LF || here === CR) terminator = pos;
      else {
        if (lf !== -1 && lf < pos) lf = buffer.indexOf(LF, pos);
        if (cr !== -1 && cr < pos) cr = buffer.indexOf(CR, pos);
        terminator = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      }
      if (terminator < 0 || terminator >= length) {
        pos = length;
        break;
      }
      let after = terminator + 1;
      if (buffer[terminator] === CR) {
        // A CR as the last byte ends its line now (a lone-CR stream's event is not held until the next
        // read); an LF starting the next read is then the second half of a CRLF, and skipped.
        if (after >= length) this.skipLeadingLf = true;
        else if (buffer[after] === LF) after++;
      }
      if (terminator === lineStart) {
        // Empty line: the event (if it has any line) is complete.
        if (lines > 0) {
          if (lastLineEnd - eventStart > sseEventLimitBytes) {
            this.tooLong(lastLineEnd - eventStart);
            return length;
          }
          if (lines === 1) this.dataLine(buffer, eventStart, lastLineEnd, now);
          else this.multiLineEvent(buffer.toString("utf8", eventStart, lastLineEnd), now);
        }
        eventStart = after;
        lines = 0;
        lastLineEnd = -1;
      } else {
        lines++;
        lastLineEnd = terminator;
      }
      lineStart = after;
      pos = after;
    }
    if (length - eventStart > sseEventLimitBytes) {
      this.tooLong(length - eventStart);
      return length;
    }
    this.scanFrom = pos;
    this.lineStart = lineStart;
    this.lastLineEnd = lastLineEnd;
    this.lines = lines;
    return eventStart;
  }

  private tooLong(bytes: number): void {
    this.oversized = `an SSE event or line of ${bytes} bytes or more (the client's limit is ${sseEventLimitBytes} bytes, ${sseEventLimitBytes / 1024 / 1024} MiB)`;
    this.pending = null;
    this.pendingLength = 0;
  }

  /** Starts the pending event with `chunk[from..]`, scan state shifted to the new origin. */
  private keep(chunk: Buffer, from: number): void {
    const rest = chunk.length - from;
    if (this.pending === null || this.pending.length < rest) {
      this.pending = Buffer.allocUnsafe(Math.max(1024, rest * 2));
    }
    chunk.copy(this.pending, 0, from);
    this.pendingLength = rest;
    this.scanFrom -= from;
    this.lineStart -= from;
    this.lastLineEnd = this.lastLineEnd < 0 ? -1 : this.lastLineEnd - from;
  }

  private append(chunk: Buffer): void {
    const needed = this.pendingLength + chunk.length;
    if (this.pending!.length < needed) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.pending!.length * 2));
      this.pending!.copy(grown, 0, 0, this.pendingLength);
      this.pending = grown;
    }
    chunk.copy(this.pending!, this.pendingLength);
    this.pendingLength = needed;
  }

  /** Call when the body has ended: a trailing event without its blank line still counts. */
  finish(now: number): void {
    if (this.pending === null || this.pendingLength === 0 || this.oversized !== null) return;
    const text = this.pending.toString("utf8", 0, this.pendingLength).replace(/(\r\n|\r|\n)+$/, "");
    this.pending = null;
    this.pendingLength = 0;
    if (text.trim().length > 0) this.multiLineEvent(text, now);
  }

  /** Whether any chunk with choices arrived (vLLM's test for a request that produced output). */
  get sawChoices(): boolean {
    return this.count > 0;
  }

  /** finish_reason of the last choices chunk (parsed once, at the end). */
  finishReason(): string | null {
    if (this.lastChoices === null) return null;
    try {
      const parsed = JSON.parse(
        this.lastChoices.toString("utf8", this.lastChoicesStart, this.lastChoicesEnd),
      ) as {
        choices?: { finish_reason?: string | null }[];
      };
      return parsed.choices?.[0]?.finish_reason ?? null;
    } catch {
      return null;
    }
  }

  private dataLine(buffer: Buffer, start: number, end: number, now: number): void {
    // "data:" in ASCII
    if (
      end - start < 5 ||
      buffer[start] !== 100 ||
      buffer[start + 1] !== 97 ||
      buffer[start + 2] !== 116 ||
      buffer[start + 3] !== 97 ||
      buffer[start + 4] !== 58
    ) {
      this.multiLineEvent(buffer.toString("utf8", start, end), now);
      return;
    }
    let payload = start + 5;
    if (buffer[payload] === SPACE) payload++;
    this.payload(buffer, payload, end, now);
  }

  private payload(buffer: Buffer, start: number, end: number, now: number): void {
    const first = buffer[start];
    if (first === OPEN_BRACE) {
      // The usual chunk: the last valid choices chunk's bytes around a new text (no key search needed).
      if (this.matchesValidChunk(buffer, start, end)) {
        // Same bytes around a text as empty (or not) as the remembered chunk's: it carries the same.
        const classified =
          this.matchedTextEmpty === this.validTextEmpty
            ? this.validClassified
            : classifyChunk(buffer, start, end);
        this.choicesChunk(buffer, start, end, now, classified);
        return;
      }
      const key = buffer.indexOf(CHOICES_KEY, start);
      if (key >= 0 && key < end) {
        let cursor = key + CHOICES_KEY.length;
        while (buffer[cursor] === SPACE) cursor++;
        if (buffer[cursor] === OPEN_BRACKET) {
          cursor++;
          while (buffer[cursor] === SPACE) cursor++;
          if (buffer[cursor] !== CLOSE_BRACKET) {
            // Counted as a token only when the whole event is JSON (checked without building it).
            this.rememberedTextEmpty = null;
            if (this.validateChunk(buffer, start, key + CHOICES_KEY.length, end)) {
              const classified = classifyChunk(buffer, start, end);
              if (this.rememberedTextEmpty !== null) {
                this.validClassified = classified;
                this.validTextEmpty = this.rememberedTextEmpty;
              }
              this.choicesChunk(buffer, start, end, now, classified);
            } else {
              this.malformed ??= `event is not JSON: ${truncate(buffer.toString("utf8", start, end))}`;
            }
            return;
          }
        }
      }
      this.parsedEvent(buffer.toString("utf8", start, end), now);
      return;
    }
    if (end - start === DONE.length && buffer.compare(DONE, 0, DONE.length, start, end) === 0) {
      this.done = true;
      return;
    }
    this.malformed ??= `unreadable event: ${truncate(buffer.toString("utf8", start, end))}`;
  }

  /**
   * Whether [start, end) is the last validated choices chunk with another text. A stream's chunks repeat
   * the same bytes around the token's text (id, object, created, model, index; then logprobs,
   * finish_reason), so the last chunk that validated is remembered as its bytes before its first string
   * value after `"choices":` and the bytes after that string: a chunk with the same bytes around a valid
   * JSON string is a valid choices chunk too (two comparisons and the string's bytes).
   */
  private matchesValidChunk(buffer: Buffer, start: number, end: number): boolean {
    const before = this.validBeforeString;
    const after = this.validAfterString;
    if (before === null || after === null) return false;
    const stringStart = start + before.byteLength;
    if (stringStart >= end || buffer[stringStart] !== QUOTE) return false;
    if (this.viewOf !== buffer) {
      this.view = new DataView(buffer.buffer, buffer.byteOffset, buffer.length);
      this.viewOf = buffer;
    }
    const view = this.view!;
    if (!sameBytes(view, start, before)) return false;
    const stringEnd = jsonStringEnd(buffer, stringStart, end);
    this.matchedTextEmpty = stringEnd === stringStart + 2;
    return stringEnd > 0 && end - stringEnd === after.byteLength && sameBytes(view, stringEnd, after);
  }

  /**
   * Whether the choices chunk [start, end) (`"choices":` ending at keyEnd) is JSON, validated in full;
   * a valid one is remembered for matchesValidChunk.
   */
  private validateChunk(buffer: Buffer, start: number, keyEnd: number, end: number): boolean {
    if (jsonScan(buffer, start, keyEnd, 0, 0) !== valueInTopObject) return isJsonValue(buffer, start, end);
    const stopped = jsonScan(buffer, keyEnd, end, 0, 1, true);
    if (stopped < stoppedAtString) return stopped === afterTopLevelValue;
    const stringStart = stoppedAt;
    const stringEnd = jsonStringEnd(buffer, stringStart, end);
    if (stringEnd < 0) return false;
    if (jsonScan(buffer, stringEnd, end, 4, stopped - stoppedAtString) !== afterTopLevelValue) return false;
    if (stringStart - start <= maxRememberedBytes && end - stringEnd <= maxRememberedBytes) {
      this.validBeforeString = copyView(buffer, start, stringStart);
      this.validAfterString = copyView(buffer, stringEnd, end);
      this.rememberedTextEmpty = stringEnd === stringStart + 2;
    }
    return true;
  }

  private choicesChunk(buffer: Buffer, start: number, end: number, now: number, classified: number): void {
    if (this.count === this.times.length) {
      const grown = new Float64Array(this.times.length * 2);
      grown.set(this.times);
      this.times = grown;
    }
    this.times[this.count++] = now;
    this.lastChoices = buffer;
    this.lastChoicesStart = start;
    this.lastChoicesEnd = end;
    const kind = chunkKindOf(classified);
    const capture = this.capture;
    if (capture !== null) {
      if (!capture.textOnly) capture.add(buffer.toString("utf8", start, end));
      else if (kind >= chunkCarriesAnswer) {
        const text = answerTextOf(buffer, start, end);
        if (text !== null) capture.addText(text);
      }
    }
    if (kind >= chunkCarriesAnswer && this.firstAnswerChunk < 0) this.firstAnswerChunk = this.count - 1;
    if (kind === chunkCarriesToolCalls) {
      this.tools ??= new ToolCallAssembler();
      this.tools.add(buffer.toString("utf8", start, end));
    }
    if (classified !== kind) this.reasoningFieldSeen ??= reasoningFieldOf(classified);
    let tokens = 1;
    if (this.perChunkUsage) {
      tokens = 0;
      const key = buffer.lastIndexOf(COMPLETION_TOKENS_KEY, end);
      const cumulative = key >= start ? readInteger(buffer, key + COMPLETION_TOKENS_KEY.length, end) : null;
      if (cumulative !== null) {
        this.chunkTokens ??= new Array<number>(this.count - 1).fill(0);
        tokens = cumulative - this.previousCumulativeTokens;
        this.chunkTokens.push(tokens);
        this.previousCumulativeTokens = cumulative;
      } else {
        this.chunkTokens?.push(0);
        tokens = this.chunkTokens === null ? 1 : 0;
      }
    }
    if (kind === chunkCarriesReasoning) this.reasoningChunkTokens += Math.max(0, tokens);
  }

  /** The answer's parts so far: first answer chunk, reasoning field and tokens, tool calls. */
  answer(): AnswerSummary {
    const tools = this.tools?.result() ?? { toolCalls: [], malformed: 0 };
    return {
      firstAnswerChunk: this.firstAnswerChunk < 0 ? null : this.firstAnswerChunk,
      reasoningField: this.reasoningFieldSeen,
      reasoningChunkTokens: this.reasoningChunkTokens,
      reportedReasoningTokens: this.usage?.reasoningTokens ?? null,
      toolCalls: tools.toolCalls,
      malformedToolCalls: tools.malformed,
    };
  }

  /** Rare events: usage-only chunks, errors, anything not in vLLM's usual shape. */
  private parsedEvent(json: string, now: number): void {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      this.malformed ??= `event is not JSON: ${truncate(json)}`;
      return;
    }
    if (value === null || typeof value !== "object") {
      this.malformed ??= `event is not a JSON object: ${truncate(json)}`;
      return;
    }
    const event = value as Record<string, unknown>;
    if (event.error !== undefined || event.object === "error") {
      this.streamError ??= errorMessage(event.error ?? event);
      return;
    }
    const usage = event.usage as Record<string, unknown> | null | undefined;
    if (usage && typeof usage === "object") {
      const details = usage.prompt_tokens_details as Record<string, unknown> | null | undefined;
      const completionDetails = usage.completion_tokens_details as Record<string, unknown> | null | undefined;
      this.usage = {
        promptTokens: numberOrNull(usage.prompt_tokens),
        completionTokens: numberOrNull(usage.completion_tokens),
        cachedTokens: numberOrNull(details?.cached_tokens),
        reasoningTokens: numberOrNull(completionDetails?.reasoning_tokens),
      };
    }
    const choices = event.choices;
    if (Array.isArray(choices) && choices.length > 0) {
      const buffer = Buffer.from(json);
      this.choicesChunk(buffer, 0, buffer.length, now, classifyChunk(buffer, 0, buffer.length));
    }
  }

  private multiLineEvent(text: string, now: number): void {
    const data: string[] = [];
    let eventType = "";
    for (const rawLine of text.split(/\r\n|\r|\n/)) {
      if (rawLine.length === 0 || rawLine.startsWith(":")) continue;
      const colon = rawLine.indexOf(":");
      const field = colon < 0 ? rawLine : rawLine.slice(0, colon);
      let value = colon < 0 ? "" : rawLine.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") data.push(value);
      else if (field === "event") eventType = value;
    }
    if (data.length === 0) return;
    const joined = data.join("\n");
    if (eventType === "error") {
      this.streamError ??= joined.length > 0 ? extractMessage(joined) : "error event";
      return;
    }
    const buffer = Buffer.from(joined);
    this.payload(buffer, 0, buffer.length, now);
  }
}

/** A copy of bytes [start, end) as a DataView. */
function copyView(buffer: Buffer, start: number, end: number): DataView {
  const copy = new Uint8Array(end - start);
  copy.set(buffer.subarray(start, end));
  return new DataView(copy.buffer);
}

/**
 * Whether `view` holds `template`'s bytes at `at`, compared four bytes at a time (for the short ranges of
 * a chunk this is faster than Buffer#compare, whose call overhead dominates).
 */
function sameBytes(view: DataView, at: number, template: DataView): boolean {
  const length = template.byteLength;
  let index = 0;
  for (; index + 4 <= length; index += 4) {
    if (view.getInt32(at + index, true) !== template.getInt32(index, true)) return false;
  }
  for (; index < length; index++) if (view.getUint8(at + index) !== template.getUint8(index)) return false;
  return true;
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const CLOSE_BRACE = 125;
const TAB = 9;
/** Longest part of a validated chunk remembered (see isJsonChunk). */
const maxRememberedBytes = 1024;

/** Containers open while validating (1 = object, 2 = array); deeper nesting is not valid for us. */
const validationStack = new Uint8Array(64);

/**
 * Whether bytes [start, end) are exactly one JSON value (RFC 8259 syntax, surrounding whitespace
 * allowed), checked in one pass without building it: a fraction of JSON.parse's cost, so every choices
 * chunk can be checked. Nesting deeper than 64 is rejected (vLLM's chunks nest 4 deep). UTF-8 is not
 * decoded (JSON.parse would accept any byte sequence after lossy decoding anyway).
 */
export function isJsonValue(buffer: Uint8Array, start: number, end: number): boolean {
  return jsonScan(buffer, start, end, 0, 0) === afterTopLevelValue;
}

/** jsonScan(..., stopAtString) returns this plus the depth when it stopped before a string value at `stoppedAt`. */
const stoppedAtString = 1 << 20;
let stoppedAt = 0;

/** jsonScan's result after one complete top-level value. */
const afterTopLevelValue = 4;
/** jsonScan's result right after `{"key":` at the top level: a value expected, one object open. */
const valueInTopObject = 8;

/**
 * The validator's state machine over [start, end), from `state` at `depth` (validationStack holding the
 * open containers below it). Returns the state at the end plus 8 x the depth, or -1 on a syntax error.
 * States: 0 a value, 1 a value or "]", 2 a key or "}", 3 a key, 4 after a value.
 */
function jsonScan(
  buffer: Uint8Array,
  start: number,
  end: number,
  fromState: number,
  fromDepth: number,
  stopAtString = false,
): number {
  const stack = validationStack;
  let depth = fromDepth;
  let i = start;
  let state = fromState;
  for (;;) {
    i = afterWhitespace(buffer, i, end);
    if (i >= end) return state + 8 * depth;
    const c = buffer[i]!;
    if (state === 4) {
      if (depth === 0) return -1;
      const top = stack[depth - 1];
      if (c === COMMA) {
        state = top === 1 ? 3 : 0;
        i++;
      } else if ((c === CLOSE_BRACE && top === 1) || (c === CLOSE_BRACKET && top === 2)) {
        depth--;
        i++;
      } else return -1;
      continue;
    }
    if (state === 1 && c === CLOSE_BRACKET) {
      depth--;
      state = 4;
      i++;
      continue;
    }
    if (state === 2 && c === CLOSE_BRACE) {
      depth--;
      state = 4;
      i++;
      continue;
    }
    if (state === 2 || state === 3) {
      if (c !== QUOTE) return -1;
      i = jsonStringEnd(buffer, i, end);
      if (i < 0) return -1;
      i = afterWhitespace(buffer, i, end);
      if (i >= end || buffer[i] !== COLON) return -1;
      i++;
      state = 0;
      continue;
    }
    // A value.
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === stack.length) return -1;
      stack[depth++] = c === OPEN_BRACE ? 1 : 2;
      state = c === OPEN_BRACE ? 2 : 1;
      i++;
      continue;
    }
    if (c === QUOTE) {
      if (stopAtString) {
        stoppedAt = i;
        return stoppedAtString + depth;
      }
      i = jsonStringEnd(buffer, i, end);
    } else if (c === 116) i = literalEnd(buffer, i, end, 114, 117, 101, -1);
    else if (c === 102) i = literalEnd(buffer, i, end, 97, 108, 115, 101);
    else if (c === 110) i = literalEnd(buffer, i, end, 117, 108, 108, -1);
    else if (c === 45 || (c >= 48 && c <= 57)) i = jsonNumberEnd(buffer, i, end);
    else return -1;
    if (i < 0) return -1;
    state = 4;
  }
}

/** The first index from `i` that is not JSON whitespace (`end` when none is). */
function afterWhitespace(buffer: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = buffer[i]!;
    if (c !== SPACE && c !== LF && c !== CR && c !== TAB) return i;
    i++;
  }
  return i;
}

/** 1 for the bytes that end a run of plain string content: `"`, `\\` and control characters. */
const stringStop = new Uint8Array(256);
for (let byte = 0; byte < 32; byte++) stringStop[byte] = 1;
stringStop[QUOTE] = 1;
stringStop[BACKSLASH] = 1;

/** After the closing quote of the string opening at `from`, or -1 (bad escape, control character). */
function jsonStringEnd(buffer: Uint8Array, from: number, end: number): number {
  let i = from + 1;
  for (;;) {
    while (i < end && stringStop[buffer[i]!] === 0) i++;
    if (i >= end) return -1;
    const c = buffer[i]!;
    if (c === QUOTE) return i + 1;
    if (c !== BACKSLASH) return -1;
    const escaped = buffer[i + 1];
    if (escaped === 117) {
      if (i + 6 > end) return -1;
      for (let digit = i + 2; digit < i + 6; digit++) {
        const hex = buffer[digit]! | 32;
        if (!((hex >= 48 && hex <= 57) || (hex >= 97 && hex <= 102))) return -1;
      }
      i += 6;
      continue;
    }
    // \" \\ \/ \b \f \n \r \t
    if (
      escaped !== QUOTE &&
      escaped !== BACKSLASH &&
      escaped !== 47 &&
      escaped !== 98 &&
      escaped !== 102 &&
      escaped !== 110 &&
      escaped !== 114 &&
      escaped !== 116
    )
      return -1;
    i += 2;
  }
}

/** After `true`, `false` or `null` (the first letter at `from`, then up to four more), or -1. */
function literalEnd(
  buffer: Uint8Array,
  from: number,
  end: number,
  b1: number,
  b2: number,
  b3: number,
  b4: number,
): number {
  const length = b4 < 0 ? 4 : 5;
  if (from + length > end) return -1;
  if (buffer[from + 1] !== b1 || buffer[from + 2] !== b2 || buffer[from + 3] !== b3) return -1;
  if (b4 >= 0 && buffer[from + 4] !== b4) return -1;
  return from + length;
}

function digitsEnd(buffer: Uint8Array, from: number, end: number): number {
  let i = from;
  while (i < end && buffer[i]! >= 48 && buffer[i]! <= 57) i++;
  return i;
}

function jsonNumberEnd(buffer: Uint8Array, from: number, end: number): number {
  let i = from;
  if (buffer[i] === 45) i++;
  if (i >= end) return -1;
  if (buffer[i] === 48) i++;
  else {
    const digits = digitsEnd(buffer, i, end);
    if (digits === i) return -1;
    i = digits;
  }
  if (i < end && buffer[i] === 46) {
    const digits = digitsEnd(buffer, i + 1, end);
    if (digits === i + 1) return -1;
    i = digits;
  }
  if (i < end && (buffer[i] === 101 || buffer[i] === 69)) {
    i++;
    if (buffer[i] === 43 || buffer[i] === 45) i++;
    const digits = digitsEnd(buffer, i, end);
    if (digits === i) return -1;
    i = digits;
  }
  return i;
}

function readInteger(buffer: Buffer, from: number, end: number): number | null {
  let cursor = from;
  while (cursor < end && buffer[cursor] === SPACE) cursor++;
  let value = 0;
  let digits = 0;
  for (; cursor < end; cursor++) {
    const byte = buffer[cursor]!;
    if (byte < 48 || byte > 57) break;
    value = value * 10 + (byte - 48);
    digits++;
  }
  return digits > 0 ? value : null;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function errorMessage(error: unknown): string {
  if (typeof error === "string") return error;
  if (error && typeof error === "object") {
    const record = error as Record<string, unknown>;
    const message = typeof record.message === "string" ? record.message : JSON.stringify(error);
    const code = record.code ?? record.type;
    return code !== undefined && code !== null ? `${message} (${String(code)})` : message;
  }
  return String(error);
}

function extractMessage(text: string): string {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    return errorMessage(value.error ?? value);
  } catch {
    return text;
  }
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
