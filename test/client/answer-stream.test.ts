import { describe, expect, it } from "vitest";
import { toolCallLimits } from "../../src/client/answer-stream.js";
import { CompletionStreamReader } from "../../src/client/sse-stream.js";
import { createRng } from "../../src/util/random.js";
import {
  chatChunk,
  done,
  reasoningStream,
  roleChunk,
  toolCallChunks,
  usageChunk,
} from "./stream-fixtures.js";

/** Feeds `text` in pieces cut at `cuts` (each piece at its own time: its index) and ends the stream. */
function feed(text: string, cuts: number[] = [], perChunkUsage = false): CompletionStreamReader {
  const bytes = Buffer.from(text);
  const reader = new CompletionStreamReader(perChunkUsage);
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

/** One network read per event, at times 0, 1, 2, ... */
function feedByEvent(text: string, perChunkUsage = false): CompletionStreamReader {
  const reader = new CompletionStreamReader(perChunkUsage);
  text.split(/(?<=\n\n)/).forEach((event, index) => {
    reader.feed(Buffer.from(event), index);
  });
  reader.finish(1e9);
  return reader;
}

describe("reasoning in the stream", () => {
  for (const field of ["reasoning", "reasoning_content"] as const) {
    it(`reads delta.${field}, records the field and where the answer starts`, () => {
      const reader = feedByEvent(reasoningStream(field, 5, 3));
      // role chunk, 5 reasoning chunks, 3 content chunks: every one is a chunk (TTFT is the first)
      expect(reader.chunkTimes).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
      expect(reader.answer()).toEqual({
        firstAnswerChunk: 6,
        reasoningField: field,
        reasoningChunkTokens: 5,
        reportedReasoningTokens: null,
        toolCalls: [],
        malformedToolCalls: 0,
      });
    });
  }

  it("takes the server's reasoning_tokens from usage.completion_tokens_details", () => {
    const reader = feedByEvent(reasoningStream("reasoning", 4, 2, { reasoning: 40 }));
    expect(reader.answer().reportedReasoningTokens).toBe(40);
    expect(reader.usage?.reasoningTokens).toBe(40);
  });

  it("classifies the same at any chunk boundary", () => {
    const text = reasoningStream("reasoning_content", 12, 7) + "";
    const whole = feed(text).answer();
    const random = createRng(29);
    for (let trial = 0; trial < 200; trial++) {
      const cuts = Array.from({ length: 1 + Math.floor(random.next() * 30) }, () =>
        Math.floor(random.next() * text.length),
      );
      const split = feed(text, cuts).answer();
      expect(split).toEqual(whole);
    }
    expect(whole.firstAnswerChunk).toBe(13);
  });

  it("an empty text does not count: a chunk that matches the last one's bytes is classified by its text", () => {
    // reasoning chunks, an empty reasoning chunk (same bytes around an empty string), then empty content
    const text =
      roleChunk() +
      chatChunk({ reasoning: "a" }) +
      chatChunk({ reasoning: "" }) +
      chatChunk({ reasoning: "b" }) +
      chatChunk({ content: "" }) +
      chatChunk({ content: "x" }) +
      chatChunk({ content: "" }, "stop") +
      done;
    const answer = feedByEvent(text).answer();
    expect(answer.firstAnswerChunk).toBe(5);
    expect(answer.reasoningChunkTokens).toBe(2);
  });

  it("names in the text itself do not count as fields", () => {
    const text = roleChunk() + chatChunk({ content: '"reasoning":"x", "tool_calls":[1]' }, "stop") + done;
    expect(feedByEvent(text).answer()).toMatchObject({
      firstAnswerChunk: 1,
      reasoningField: null,
      toolCalls: [],
      malformedToolCalls: 0,
    });
  });

  it("counts reasoning tokens from per-chunk usage when the server sends it", () => {
    const usageOn = (delta: Record<string, unknown>, cumulative: number) =>
      chatChunk(delta).replace(
        /}\n\n$/,
        `,"usage":{"prompt_tokens":3,"completion_tokens":${cumulative}}}\n\n`,
      );
    const text =
      usageOn({ reasoning: "ab" }, 2) + usageOn({ reasoning: "c" }, 3) + usageOn({ content: "d" }, 4);
    const reader = feedByEvent(`${text}${done}`, true);
    expect(reader.chunkTokens).toEqual([2, 1, 1]);
    expect(reader.answer().reasoningChunkTokens).toBe(3);
  });

  it("a completions stream is all answer", () => {
    const chunk = (text: string) =>
      `data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":${JSON.stringify(text)},"logprobs":null,"finish_reason":null}]}\n\n`;
    const answer = feedByEvent(`${chunk(" a")}${chunk(" b")}${done}`).answer();
    expect(answer).toMatchObject({ firstAnswerChunk: 0, reasoningField: null, reasoningChunkTokens: 0 });
  });
});

describe("tool calls in the stream", () => {
  it("assembles calls from their deltas, in order, arguments as the raw text streamed", () => {
    const text =
      roleChunk() +
      chatChunk({ reasoning: "need weather" }) +
      toolCallChunks(0, "chatcmpl-tool-a1", "get_weather", ['{"city": ', '"Paris"', "}"]) +
      toolCallChunks(1, "chatcmpl-tool-b2", "get_time", ["{}"]) +
      chatChunk({}, "tool_calls") +
      usageChunk(30, 9) +
      done;
    const reader = feedByEvent(text);
    expect(reader.finishReason()).toBe("tool_calls");
    expect(reader.answer()).toEqual({
      firstAnswerChunk: 2,
      reasoningField: "reasoning",
      reasoningChunkTokens: 1,
      reportedReasoningTokens: null,
      toolCalls: [
        { id: "chatcmpl-tool-a1", name: "get_weather", arguments: '{"city": "Paris"}' },
        { id: "chatcmpl-tool-b2", name: "get_time", arguments: "{}" },
      ],
      malformedToolCalls: 0,
    });
  });

  it("the same calls at any chunk boundary", () => {
    const text =
      roleChunk() +
      toolCallChunks(0, "call-1", "search", ['{"q"', ': "a\\"b"', ', "n": 3}']) +
      chatChunk({}, "tool_calls") +
      done;
    const whole = feed(text).answer();
    expect(whole.toolCalls).toEqual([{ id: "call-1", name: "search", arguments: '{"q": "a\\"b", "n": 3}' }]);
    const random = createRng(7);
    for (let trial = 0; trial < 100; trial++) {
      const cuts = Array.from({ length: 20 }, () => Math.floor(random.next() * text.length));
      expect(feed(text, cuts).answer()).toEqual(whole);
    }
  });

  it("counts malformed calls and keeps the well-formed ones, without failing the request", () => {
    const text =
      roleChunk() +
      // arguments that are not JSON
      toolCallChunks(0, "bad-args", "f", ['{"a": ']) +
      // no name
      chatChunk({
        tool_calls: [{ id: "no-name", type: "function", index: 1, function: { arguments: "{}" } }],
      }) +
      // tool_calls not an array
      chatChunk({ tool_calls: { index: 2 } }) +
      // no index: deltas that name no call are one malformed call together, with the one above
      chatChunk({ tool_calls: [{ id: "x", function: { name: "g", arguments: "{}" } }] }) +
      chatChunk({ tool_calls: [{ function: { arguments: "{}" } }] }) +
      // arguments that are JSON but not an object
      toolCallChunks(3, "array-args", "h", ["[1, 2]"]) +
      // a non-string arguments piece
      chatChunk({ tool_calls: [{ id: "num", index: 4, function: { name: "k", arguments: 5 } }] }) +
      // two ids for one call
      chatChunk({ tool_calls: [{ id: "one", index: 5, function: { name: "m" } }] }) +
      chatChunk({ tool_calls: [{ id: "two", index: 5, function: { arguments: "{}" } }] }) +
      toolCallChunks(6, "good", "ok", ['{"fine": true}']) +
      chatChunk({}, "tool_calls") +
      done;
    const reader = feedByEvent(text);
    expect(reader.malformed).toBeNull();
    expect(reader.answer().toolCalls).toEqual([{ id: "good", name: "ok", arguments: '{"fine": true}' }]);
    expect(reader.answer().malformedToolCalls).toBe(6);
  });

  it(`keeps at most ${toolCallLimits.calls} calls and ${toolCallLimits.argumentChars} characters of arguments per call`, () => {
    let text = roleChunk();
    for (let index = 0; index < toolCallLimits.calls + 3; index++)
      text += toolCallChunks(index, `c${index}`, "f", ["{}"]);
    const long = `{"x": "${"y".repeat(toolCallLimits.argumentChars)}"}`;
    const answer = feedByEvent(text + done).answer();
    expect(answer.toolCalls).toHaveLength(toolCallLimits.calls);
    expect(answer.malformedToolCalls).toBe(3);
    const oversized = feedByEvent(
      roleChunk() + toolCallChunks(0, "c", "f", [long.slice(0, 10), long.slice(10)]) + done,
    );
    expect(oversized.answer()).toMatchObject({ toolCalls: [], malformedToolCalls: 1 });
  });
});
