import { describe, expect, it } from "vitest";
import { CompletionStreamReader, isJsonValue, sseEventLimitBytes } from "../../src/client/sse-stream.js";
import { createRng } from "../../src/util/random.js";

// Chunk shapes of vLLM's OpenAI server (shared/reference/vllm-protocol-and-metrics.md §2.1).
const completionChunk = (text: string, finish: string | null) =>
  `data: {"id":"cmpl-9","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":${JSON.stringify(text)},"logprobs":null,"finish_reason":${JSON.stringify(finish)},"stop_reason":null}]}\n\n`;
const usageChunk = (prompt: number, completion: number) =>
  `data: {"id":"cmpl-9","object":"text_completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":${prompt},"total_tokens":${prompt + completion},"completion_tokens":${completion},"prompt_tokens_details":{"cached_tokens":3}}}\n\n`;

function stream(tokens: number, tricky = false): string {
  let text = ": keep-alive comment\n\n";
  for (let index = 0; index < tokens; index++) {
    // Text that contains the patterns the scanner looks for must not confuse it.
    const piece = tricky && index % 3 === 0 ? ` "choices":[] data: [DONE] \n\n {"error":1}` : ` w${index}`;
    text += completionChunk(piece, index === tokens - 1 ? "length" : null);
  }
  return `${text + usageChunk(17, tokens)}data: [DONE]\n\n`;
}

function feedSplit(text: string, cuts: number[]): CompletionStreamReader {
  const bytes = Buffer.from(text);
  const reader = new CompletionStreamReader();
  let start = 0;
  const sorted = [...new Set(cuts)].filter((cut) => cut > 0 && cut < bytes.length).sort((a, b) => a - b);
  sorted.forEach((cut, index) => {
    reader.feed(bytes.subarray(start, cut), index);
    start = cut;
  });
  reader.feed(bytes.subarray(start), sorted.length);
  reader.finish(sorted.length + 1);
  return reader;
}

describe("CompletionStreamReader", () => {
  it("reads a whole stream in one write", () => {
    const reader = feedSplit(stream(50, true), []);
    expect(reader.chunkTimes).toHaveLength(50);
    expect(reader.done).toBe(true);
    expect(reader.usage).toEqual({
      promptTokens: 17,
      completionTokens: 50,
      cachedTokens: 3,
      reasoningTokens: null,
    });
    expect(reader.finishReason()).toBe("length");
    expect(reader.streamError).toBeNull();
    expect(reader.malformed).toBeNull();
  });

  it("gives the same result for every split point of a stream (exhaustive single cuts)", () => {
    const text = stream(6, true);
    for (let cut = 1; cut < Buffer.byteLength(text); cut++) {
      const reader = feedSplit(text, [cut]);
      expect(reader.chunkTimes.length, `cut at ${cut}`).toBe(6);
      expect(reader.done).toBe(true);
      expect(reader.usage?.completionTokens).toBe(6);
      expect(reader.finishReason()).toBe("length");
    }
  });

  it("survives random fragmentations, CRLF framing and multi-byte characters", () => {
    const rng = createRng(42);
    const base = stream(40, true).replace(/w1 /g, "w1 é漢字 ");
    for (const text of [base, base.replace(/\n/g, "\r\n")]) {
      const length = Buffer.byteLength(text);
      for (let trial = 0; trial < 300; trial++) {
        const cuts = Array.from({ length: rng.int(1, 60) }, () => rng.int(1, length - 1));
        const reader = feedSplit(text, cuts);
        expect(reader.chunkTimes).toHaveLength(40);
        expect(reader.done).toBe(true);
        expect(reader.usage?.completionTokens).toBe(40);
        expect(reader.malformed).toBeNull();
      }
    }
  });

  it("timestamps each chunk with the read that completed it", () => {
    const text = completionChunk("a", null) + completionChunk("b", "stop");
    const bytes = Buffer.from(text);
    const reader = new CompletionStreamReader();
    const middle = Buffer.byteLength(completionChunk("a", null)) + 10;
    reader.feed(bytes.subarray(0, 5), 1);
    reader.feed(bytes.subarray(5, middle), 2);
    reader.feed(bytes.subarray(middle), 3);
    expect(reader.chunkTimes).toEqual([2, 3]);
  });

  it("timestamps a lone-CR event with its own read, and a CRLF split after its CR with the read that ends it", () => {
    const reader = new CompletionStreamReader();
    reader.feed(Buffer.from(completionChunk("a", null).replace(/\n/g, "\r")), 1);
    expect(reader.chunkTimes).toEqual([1]);
    const second = completionChunk("b", "stop").replace(/\n/g, "\r\n");
    const cut = second.length - 3;
    reader.feed(Buffer.from(second.slice(0, cut)), 2);
    reader.feed(Buffer.from(second.slice(cut)), 3);
    reader.feed(Buffer.from("data: [DONE]\r\n\r\n"), 4);
    expect(reader.chunkTimes).toEqual([1, 3]);
    expect(reader.done).toBe(true);
    expect(reader.malformed).toBeNull();
  });

  it("reports a mid-stream error event sent over HTTP 200", () => {
    const text = `${completionChunk("a", null)}data: {"error": {"object": "error", "message": "engine died", "type": "InternalServerError", "param": null, "code": 500}}\n\ndata: [DONE]\n\n`;
    const reader = feedSplit(text, [7, 90]);
    expect(reader.chunkTimes).toHaveLength(1);
    expect(reader.streamError).toBe("engine died (500)");
  });

  it("reads the older flat error shape and `event: error`", () => {
    expect(feedSplit('data: {"object":"error","message":"bad","code":400}\n\n', []).streamError).toBe(
      "bad (400)",
    );
    expect(feedSplit('event: error\ndata: {"message":"overloaded"}\n\n', []).streamError).toBe("overloaded");
  });

  it("counts the chat role chunk as the first chunk, as vLLM's client does", () => {
    const role = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n`;
    const reader = feedSplit(`${role + completionChunk("x", "stop")}data: [DONE]\n\n`, []);
    expect(reader.chunkTimes).toHaveLength(2);
  });

  it("accepts spaced JSON (Python json.dumps separators)", () => {
    const text = `data: {"id": "x", "choices": [{"index": 0, "text": "hi", "finish_reason": "stop"}]}\n\ndata: {"id": "x", "choices": [], "usage": {"prompt_tokens": 2, "completion_tokens": 1}}\n\ndata: [DONE]\n\n`;
    const reader = feedSplit(text, []);
    expect(reader.chunkTimes).toHaveLength(1);
    expect(reader.usage?.completionTokens).toBe(1);
    expect(reader.finishReason()).toBe("stop");
  });

  it("flags unreadable events", () => {
    expect(feedSplit("data: {not json\n\n", []).malformed).toMatch(/not JSON/);
    expect(feedSplit("data: hello\n\n", []).malformed).toMatch(/unreadable/);
  });

  it("derives per-chunk token counts from cumulative usage when the server sends it", () => {
    const chunkWithUsage = (text: string, cumulative: number) =>
      `data: {"id":"c","choices":[{"index":0,"text":"${text}","finish_reason":null}],"usage":{"prompt_tokens":3,"total_tokens":${3 + cumulative},"completion_tokens":${cumulative}}}\n\n`;
    const reader = new CompletionStreamReader(true);
    reader.feed(Buffer.from(chunkWithUsage("a", 1) + chunkWithUsage("b c", 3) + chunkWithUsage("d", 4)), 0);
    expect(reader.chunkTokens).toEqual([1, 2, 1]);
  });

  it("reads a final event that lacks its blank line", () => {
    const reader = feedSplit(`${completionChunk("a", "stop")}data: [DONE]`, []);
    expect(reader.done).toBe(true);
  });

  it("reads lone-CR line endings (valid SSE) as it reads LF and CRLF, at every split", () => {
    const text = stream(6, true).replace(/\n/g, "\r");
    for (let cut = 1; cut < Buffer.byteLength(text); cut++) {
      const reader = feedSplit(text, [cut]);
      expect(reader.chunkTimes.length, `cut at ${cut}`).toBe(6);
      expect(reader.done).toBe(true);
      expect(reader.usage?.completionTokens).toBe(6);
      expect(reader.malformed).toBeNull();
    }
    const rng = createRng(7);
    const mixed = stream(30)
      .split("\n\n")
      .map((event, index) => (index % 3 === 0 ? event : index % 3 === 1 ? event.replace(/\n/g, "\r") : event))
      .join(["\n\n", "\r\r", "\r\n\r\n"][rng.int(0, 2)]);
    expect(feedSplit(mixed, [5, 700, 701, 2000]).chunkTimes).toHaveLength(30);
  });

  it("counts an event with a choices array that is not JSON as malformed, not as a token", () => {
    for (const bad of [
      'data: {"choices": [{ this is not json\n\n',
      'data: {"choices": [{"index":0,"text":"a"}]} trailing\n\n',
      'data: {"choices":[{"index":0,"text":"a",}]}\n\n',
      'data: {"choices":[{"index":0,"text":"a"}]\n\n',
      'data: {"choices":[{"index":01,"text":"a"}]}\n\n',
    ]) {
      const reader = feedSplit(
        `${completionChunk("x", null)}${bad}${completionChunk("y", "stop")}data: [DONE]\n\n`,
        [],
      );
      expect(reader.chunkCount, bad).toBe(2);
      expect(reader.malformed, bad).toMatch(/not JSON/);
    }
    // A chunk that differs from the previous one only in its text is still checked (its text is a string).
    const reader = feedSplit(
      completionChunk("a", null) + completionChunk("b", null).replace('"b"', '"b\\q"'),
      [],
    );
    expect(reader.chunkCount).toBe(1);
    expect(reader.malformed).toMatch(/not JSON/);
  });

  it("validates JSON exactly as JSON.parse does (seeded mutations of vLLM chunks)", () => {
    const rng = createRng(2026);
    const seeds = [
      completionChunk('a "quoted" \\ é 漢 \u0001', "length").slice(6, -2),
      '{"id": "x", "choices": [{"index": 0, "delta": {"content": "hi"}, "logprobs": null}], "usage": {"prompt_tokens": 2, "completion_tokens": -1.5e+3}}',
      '[1, -0, 0.5, 1E5, true, false, null, "\\u00e9", {}, []]',
    ];
    const alphabet = '{}[]",:\\ -+.eE0123456789tfnul\u00e9x\t';
    for (let trial = 0; trial < 4000; trial++) {
      let text = seeds[trial % seeds.length]!;
      for (let edit = rng.int(0, 3); edit > 0; edit--) {
        const at = rng.int(0, text.length);
        const op = rng.int(0, 2);
        const piece = alphabet[rng.int(0, alphabet.length - 1)]!;
        text =
          op === 0
            ? text.slice(0, at) + text.slice(at + 1)
            : op === 1
              ? text.slice(0, at) + piece + text.slice(at)
              : text.slice(0, at) + piece + text.slice(at + 1);
      }
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      const bytes = Buffer.from(text);
      expect(isJsonValue(bytes, 0, bytes.length), text).toBe(parses);
    }
  });

  it("reads a long line split over many reads in linear time", () => {
    // 3 MiB of text in 1 kB reads: the old reader re-concatenated and rescanned what was pending on every read.
    const text = "x".repeat(3 * 1024 * 1024);
    const event = Buffer.from(
      `data: {"id":"a","choices":[{"index":0,"text":"${text}","finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`,
    );
    const reader = new CompletionStreamReader();
    const started = performance.now();
    for (let offset = 0; offset < event.length; offset += 1024)
      reader.feed(event.subarray(offset, offset + 1024), offset);
    reader.finish(event.length);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(reader.chunkCount).toBe(1);
    expect(reader.done).toBe(true);
    expect(reader.oversized).toBeNull();
  });

  it("gives up on an event or line longer than the limit and ignores the rest", () => {
    const reader = new CompletionStreamReader();
    const piece = Buffer.alloc(64 * 1024, "x".charCodeAt(0));
    reader.feed(Buffer.from(completionChunk("a", null)), 0);
    reader.feed(Buffer.from("data: "), 1);
    const started = performance.now();
    // 50 MB without a line end.
    for (let index = 0; index < 800; index++) reader.feed(piece, 2);
    reader.feed(Buffer.from(`\n\n${completionChunk("b", "stop")}data: [DONE]\n\n`), 3);
    reader.finish(4);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(reader.oversized).toMatch(new RegExp(`limit is ${sseEventLimitBytes} bytes`));
    expect(reader.chunkCount).toBe(1);
    // A complete event over the limit in one read is refused too.
    const big = new CompletionStreamReader();
    big.feed(Buffer.from(`data: ${"y".repeat(sseEventLimitBytes + 10)}\n\n`), 0);
    expect(big.oversized).not.toBeNull();
  });
});
