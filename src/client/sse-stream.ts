/**
 * Incremental reader of an OpenAI-style completion stream (`data: {...}\n\n` events, `data: [DONE]`).
 *
 * Timing accuracy is the reason for its shape: each network read is timestamped once by the caller and
 * scanned at the byte level. A choices chunk costs one newline search, a few byte compares and one
 * pattern search; JSON is parsed only for the rare events that need it (usage, errors, unusual shapes)
 * and once at the end for the finish reason. Events may be split at any byte across reads.
 */

const LF = 10;
const CR = 13;
const SPACE = 32;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CHOICES_KEY = Buffer.from('"choices":');
const COMPLETION_TOKENS_KEY = Buffer.from('"completion_tokens":');
const DONE = Buffer.from("[DONE]");

export interface StreamUsage {
  promptTokens: number | null;
  completionTokens: number | null;
  cachedTokens: number | null;
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
  usage: StreamUsage | null = null;

  private pending: Buffer | null = null;
  private lastChoices: Buffer | null = null;
  private lastChoicesStart = 0;
  private lastChoicesEnd = 0;
  private previousCumulativeTokens = 0;

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

  /** Feeds one network read that arrived at `now`. */
  feed(chunk: Buffer, now: number): void {
    let buffer = chunk;
    if (this.pending !== null) {
      buffer = Buffer.concat([this.pending, chunk]);
      this.pending = null;
    }
    const length = buffer.length;
    let start = 0;
    let search = 0;
    for (;;) {
      const newline = buffer.indexOf(LF, search);
      if (newline < 0 || newline + 1 >= length) break;
      const next = buffer[newline + 1];
      let after = -1;
      if (next === LF) after = newline + 2;
      else if (next === CR) {
        if (newline + 2 >= length) break;
        if (buffer[newline + 2] === LF) after = newline + 3;
      }
      if (after < 0) {
        search = newline + 1;
        continue;
      }
      const singleLine = search === start;
      let end = newline;
      if (end > start && buffer[end - 1] === CR) end--;
      if (end > start) {
        if (singleLine) this.dataLine(buffer, start, end, now);
        else this.multiLineEvent(buffer.toString("utf8", start, end), now);
      }
      start = after;
      search = after;
    }
    if (start < length) this.pending = buffer.subarray(start);
  }

  /** Call when the body has ended: a trailing event without its blank line still counts. */
  finish(now: number): void {
    if (this.pending === null) return;
    const text = this.pending.toString("utf8").replace(/\r?\n$/, "");
    this.pending = null;
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
      const key = buffer.indexOf(CHOICES_KEY, start);
      if (key >= 0 && key < end) {
        let cursor = key + CHOICES_KEY.length;
        while (buffer[cursor] === SPACE) cursor++;
        if (buffer[cursor] === OPEN_BRACKET) {
          cursor++;
          while (buffer[cursor] === SPACE) cursor++;
          if (buffer[cursor] !== CLOSE_BRACKET) {
            this.choicesChunk(buffer, start, end, now);
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

  private choicesChunk(buffer: Buffer, start: number, end: number, now: number): void {
    if (this.count === this.times.length) {
      const grown = new Float64Array(this.times.length * 2);
      grown.set(this.times);
      this.times = grown;
    }
    this.times[this.count++] = now;
    this.lastChoices = buffer;
    this.lastChoicesStart = start;
    this.lastChoicesEnd = end;
    if (this.perChunkUsage) {
      const key = buffer.lastIndexOf(COMPLETION_TOKENS_KEY, end);
      if (key >= start) {
        const cumulative = readInteger(buffer, key + COMPLETION_TOKENS_KEY.length, end);
        if (cumulative !== null) {
          this.chunkTokens ??= new Array<number>(this.count - 1).fill(0);
          this.chunkTokens.push(cumulative - this.previousCumulativeTokens);
          this.previousCumulativeTokens = cumulative;
          return;
        }
      }
      this.chunkTokens?.push(0);
    }
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
      this.usage = {
        promptTokens: numberOrNull(usage.prompt_tokens),
        completionTokens: numberOrNull(usage.completion_tokens),
        cachedTokens: numberOrNull(details?.cached_tokens),
      };
    }
    const choices = event.choices;
    if (Array.isArray(choices) && choices.length > 0) {
      const buffer = Buffer.from(json);
      this.choicesChunk(buffer, 0, buffer.length, now);
    }
  }

  private multiLineEvent(text: string, now: number): void {
    const data: string[] = [];
    let eventType = "";
    for (const rawLine of text.split(/\r?\n/)) {
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
