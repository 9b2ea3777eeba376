import { describe, expect, it } from "vitest";
import { capturedTextLimit, OutputCapture } from "../../src/client/output-capture.js";
import { CompletionStreamReader } from "../../src/client/sse-stream.js";

/**
 * Chunks in vLLM's shapes (vllm/entrypoints/openai/protocol.py, commit 0052bed3: CompletionLogProbs,
 * ChatCompletionLogProbs), written by hand.
 */
const completion = (text: string, token: string, logprob: number, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: "cmpl-1",
    object: "text_completion",
    created: 1,
    model: "m",
    choices: [
      {
        index: 0,
        text,
        logprobs: {
          text_offset: [0],
          token_logprobs: [logprob],
          tokens: [token],
          top_logprobs: [{ [token]: logprob }],
        },
        finish_reason: finish,
        stop_reason: null,
      },
    ],
  })}\n\n`;

describe("OutputCapture through the stream reader", () => {
  it("keeps the text, tokens and logprobs of a completions stream split at any byte", () => {
    const stream = Buffer.from(
      completion("Hello", "Hello", -0.5) + completion(" world", " world", -1.25, "stop") + "data: [DONE]\n\n",
    );
    for (const cut of [1, 7, 64, 200, stream.length - 3]) {
      const reader = new CompletionStreamReader();
      const capture = new OutputCapture();
      reader.capture = capture;
      reader.feed(stream.subarray(0, cut), 1);
      reader.feed(stream.subarray(cut), 2);
      reader.finish(3);
      expect(reader.chunkCount).toBe(2);
      expect(capture.result()).toEqual({
        text: "Hello world",
        tokens: ["Hello", " world"],
        logprobs: [-0.5, -1.25],
      });
    }
  });

  it("reads chat deltas with logprobs.content, and no logprobs as null", () => {
    const capture = new OutputCapture();
    capture.add(
      JSON.stringify({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null }] }),
    );
    capture.add(
      JSON.stringify({
        choices: [
          {
            index: 0,
            delta: { content: "Hi" },
            logprobs: { content: [{ token: "Hi", logprob: -0.1, bytes: [72, 105], top_logprobs: [] }] },
          },
        ],
      }),
    );
    expect(capture.result()).toEqual({ text: "Hi", tokens: ["Hi"], logprobs: [-0.1] });
    const plain = new OutputCapture();
    plain.add(JSON.stringify({ choices: [{ index: 0, text: "x", logprobs: null }] }));
    plain.add("not json");
    expect(plain.result()).toEqual({ text: "x", tokens: null, logprobs: null });
  });

  it("stops keeping text at its limit and says so", () => {
    const capture = new OutputCapture();
    const big = "y".repeat(capturedTextLimit - 1);
    capture.add(JSON.stringify({ choices: [{ text: big }] }));
    capture.add(JSON.stringify({ choices: [{ text: "zz" }] }));
    expect(capture.truncated).toBe(true);
    expect(capture.result().text).toHaveLength(capturedTextLimit);
  });
});

describe("OutputCapture, text only (a session's turn)", () => {
  const chat = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    })}\n\n`;
  // Reasoning first (either field name), then answer text with escapes, quotes, non-ASCII and a
  // `"content":` inside the text, a tool call, and the empty role chunk.
  const stream = Buffer.from(
    chat({ role: "assistant", content: "" }) +
      chat({ reasoning_content: 'let me think "hard"' }) +
      chat({ reasoning: "and more" }) +
      chat({ content: "Hello" }) +
      chat({ content: ' "quoted" \\ back\\slash\n' }) +
      chat({ content: 'naïve 日本 "content": x' }) +
      chat({ content: "\u0007\t" }) +
      chat({
        tool_calls: [
          {
            index: 0,
            id: "call_1",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"a"}' },
          },
        ],
      }) +
      chat({}, "tool_calls") +
      "data: [DONE]\n\n",
  );

  it("keeps the same text as parsing every chunk, split at any byte, and no logprobs", () => {
    const full = new CompletionStreamReader();
    const parsed = new OutputCapture();
    full.capture = parsed;
    full.feed(stream, 1);
    full.finish(2);
    expect(parsed.result().text).toBe('Hello "quoted" \\ back\\slash\nnaïve 日本 "content": x\u0007\t');
    for (let cut = 1; cut < stream.length; cut += 37) {
      const reader = new CompletionStreamReader();
      const capture = new OutputCapture({ textOnly: true });
      reader.capture = capture;
      reader.feed(stream.subarray(0, cut), 1);
      reader.feed(stream.subarray(cut), 2);
      reader.finish(3);
      expect(capture.result(), `cut at ${cut}`).toEqual({
        text: parsed.result().text,
        tokens: null,
        logprobs: null,
      });
    }
  });

  it("reads a completion's text", () => {
    const reader = new CompletionStreamReader();
    const capture = new OutputCapture({ textOnly: true });
    reader.capture = capture;
    reader.feed(
      Buffer.from(completion("a\\b", "a", -1) + completion(" c", " c", -1, "stop") + "data: [DONE]\n\n"),
      1,
    );
    reader.finish(2);
    expect(capture.result().text).toBe("a\\b c");
  });
});
