import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { createStreamClient } from "../../src/client/stream-client.js";
import { toRecord } from "../../src/runner/request-record.js";
import { planAnswer } from "../../src/sim/answer-plan.js";
import { hashTokens } from "../../src/sim/engine.js";
import { type RunningSimulator, startSimulator } from "../../src/sim/index.js";
import { chatPromptTokens } from "../../src/sim/protocol.js";

/**
 * The simulator's reasoning and tool calls (docs/sim.md, "Reasoning and tool calls"), read unmodified by
 * the OpenAI SDK and by the tool's own client, and drawn from a seeded policy.
 */
let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const messages = [{ role: "user" as const, content: "what is the weather in paris" }];
const tools = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } } },
    },
  },
];

const sdk = () => new OpenAI({ baseURL: `${sim!.baseUrl}/v1`, apiKey: "none", maxRetries: 0 });

async function record(body: Record<string, unknown>) {
  const client = createStreamClient({ baseUrl: sim!.baseUrl, connections: 1 });
  try {
    const outcome = await client.stream({
      path: "/v1/chat/completions",
      body: Buffer.from(
        JSON.stringify({ model: "m", stream: true, stream_options: { include_usage: true }, ...body }),
      ),
      timeoutMs: 10_000,
    });
    const at = outcome.sentAt;
    return toRecord(
      "measure",
      { index: 0, stage: 0, scheduledAt: at, readyAt: at, slotAt: at },
      outcome,
      { targetInputTokens: null, maxTokens: (body.max_tokens as number) ?? 64, prefixGroup: null },
      at,
      "c",
      0,
    );
  } finally {
    await client.close();
  }
}

describe("reasoning from the simulator", () => {
  for (const [version, field] of [
    ["0.16.0", "reasoning"],
    ["0.11.0", "reasoning_content"],
  ] as const) {
    it(`streams ${field} before the answer at vllm_version ${version}, read by the OpenAI SDK`, async () => {
      sim = await startSimulator({
        profile: "noiseless",
        model: "m",
        set: { vllm_version: version, reasoning_tokens_mean: 12, eos_mean_tokens: 0 },
      });
      const stream = await sdk().chat.completions.create({
        model: "m",
        messages,
        max_tokens: 30,
        stream: true,
        stream_options: { include_usage: true },
      });
      const kinds: string[] = [];
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const delta = chunk.choices[0]?.delta as Record<string, unknown> | undefined;
        if (delta === undefined) continue;
        if (typeof delta[field] === "string" && delta[field] !== "") kinds.push("r");
        else if (typeof delta.content === "string" && delta.content !== "") kinds.push("a");
      }
      const reasoning = kinds.filter((kind) => kind === "r").length;
      // All reasoning first, then the answer, within max_tokens.
      expect(kinds.join("")).toBe("r".repeat(reasoning) + "a".repeat(30 - reasoning));
      expect(reasoning).toBeGreaterThanOrEqual(6);
      expect(reasoning).toBeLessThanOrEqual(18);
      expect(usage?.completion_tokens).toBe(30);
      expect(usage?.completion_tokens_details?.reasoning_tokens).toBe(reasoning);

      const measured = await record({ messages, max_tokens: 30 });
      expect(measured).toMatchObject({
        ok: true,
        reasoningField: field,
        reasoningTokens: reasoning,
        answerTokens: 30 - reasoning,
        outputTokens: 30,
      });
      // The role chunk is TTFT; the answer starts after the reasoning chunks.
      expect(measured.firstAnswerTokenMs).toBe(measured.chunksUs[1 + reasoning]! / 1000);
      expect(measured.firstAnswerTokenMs!).toBeGreaterThan(measured.chunksUs[0]! / 1000);
    });
  }

  it("a non-streamed answer carries the reasoning in the message", async () => {
    sim = await startSimulator({
      profile: "noiseless",
      model: "m",
      set: {
        vllm_version: "0.16.0",
        reasoning_tokens_mean: 5,
        reasoning_tokens_spread: 0,
        eos_mean_tokens: 0,
      },
    });
    const answer = await sdk().chat.completions.create({ model: "m", messages, max_tokens: 9 });
    const message = answer.choices[0]!.message as unknown as Record<string, string>;
    expect(message.reasoning!.trim().split(" ")).toHaveLength(5);
    expect(message.content!.trim().split(" ")).toHaveLength(4);
    expect(answer.usage?.completion_tokens_details?.reasoning_tokens).toBe(5);
  });
});

describe("tool calls from the simulator", () => {
  it("streams a tool call the OpenAI SDK assembles, finish_reason tool_calls", async () => {
    sim = await startSimulator({
      profile: "noiseless",
      model: "m",
      set: { vllm_version: "0.16.0", reasoning_tokens_mean: 4, tool_call_share: 1 },
    });
    const runner = sdk().chat.completions.stream({ model: "m", messages, tools, max_tokens: 200 });
    const final = await runner.finalChatCompletion();
    const choice = final.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const call = choice.message.tool_calls![0]!;
    expect(call.type).toBe("function");
    if (call.type !== "function") throw new Error("not a function call");
    expect(call.id).toMatch(/^chatcmpl-tool-[0-9a-f]{32}$/);
    expect(call.function.name).toBe("get_weather");
    const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
    expect(Object.keys(args)).toEqual(["city", "days"]);
    expect(typeof args.city).toBe("string");
    expect(Number.isInteger(args.days)).toBe(true);

    const measured = await record({ messages, tools, max_tokens: 200 });
    expect(measured.finishReason).toBe("tool_calls");
    expect(measured.toolCalls).toEqual([
      { id: call.id, name: "get_weather", arguments: call.function.arguments },
    ]);
    expect(measured.malformedToolCalls).toBe(0);
    expect(measured.reasoningField).toBe("reasoning");
  });

  it("without tools declared, no tool call; a malformed share streams calls the client counts", async () => {
    sim = await startSimulator({
      profile: "noiseless",
      model: "m",
      set: { tool_call_share: 1, tool_call_malformed_share: 1, eos_mean_tokens: 0 },
    });
    const plain = await record({ messages, max_tokens: 8 });
    expect(plain.toolCalls).toEqual([]);
    expect(plain.malformedToolCalls).toBe(0);
    const malformed = await record({ messages, tools, max_tokens: 200 });
    expect(malformed.ok).toBe(true);
    expect(malformed.toolCalls).toEqual([]);
    expect(malformed.malformedToolCalls).toBe(1);
  });
});

describe("the answer policy", () => {
  const policy = {
    reasoning_tokens_mean: 100,
    reasoning_tokens_spread: 0.5,
    tool_call_share: 0.5,
    tool_call_malformed_share: 0,
    model_revision: 0,
  };
  const declared = [{ name: "f", parameters: [{ name: "q", type: "string" }] }];

  it("is a function of the prompt, the request's seed and model_revision", () => {
    const prompt = hashTokens(chatPromptTokens(messages));
    const plan = planAnswer(prompt, undefined, declared, policy);
    expect(planAnswer(prompt, undefined, declared, policy)).toEqual(plan);
    expect(planAnswer(prompt, 7, declared, policy)).toEqual(planAnswer(prompt, 7, declared, policy));
    const plans = Array.from({ length: 400 }, (_, seed) => planAnswer(prompt, seed, declared, policy));
    // Uniform within 100 x (1 ± 0.5), tool calls for about half the requests.
    for (const drawn of plans) {
      expect(drawn.reasoningTokens).toBeGreaterThanOrEqual(50);
      expect(drawn.reasoningTokens).toBeLessThanOrEqual(150);
    }
    const mean = plans.reduce((sum, drawn) => sum + drawn.reasoningTokens, 0) / plans.length;
    expect(mean).toBeGreaterThan(92);
    expect(mean).toBeLessThan(108);
    const calls = plans.filter((drawn) => drawn.toolCall !== null).length;
    expect(calls).toBeGreaterThan(160);
    expect(calls).toBeLessThan(240);
    expect(planAnswer(prompt, undefined, declared, { ...policy, model_revision: 1 })).not.toEqual(plan);
  });

  it("gives the same streams on every server start with the same seed", async () => {
    const stream = async () => {
      sim = await startSimulator({
        profile: "noiseless",
        model: "m",
        set: { reasoning_tokens_mean: 10, tool_call_share: 0.5 },
      });
      const outcomes = [];
      for (let seed = 0; seed < 6; seed++) {
        const measured = await record({ messages, tools, max_tokens: 64, seed });
        outcomes.push({
          reasoning: measured.reasoningTokens,
          calls: measured.toolCalls,
          finish: measured.finishReason,
          output: measured.outputTokens,
        });
      }
      await sim.close();
      sim = undefined;
      return outcomes;
    };
    const first = await stream();
    expect(await stream()).toEqual(first);
    expect(new Set(first.map((outcome) => outcome.calls.length > 0)).size).toBe(2);
  });
});
