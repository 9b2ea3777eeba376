import { afterEach, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/sim/index.js";

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function events(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${sim!.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", stream: true, max_tokens: 6, ...body }),
  });
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((e) => e.startsWith("data: {"))
    .map((e) => JSON.parse(e.slice(6)) as Record<string, unknown>);
}

type Choice = { text?: string; delta?: { content?: string }; logprobs: Record<string, unknown> | null };
const choices = (list: Record<string, unknown>[]) =>
  list.flatMap((e) => (e.choices as Choice[]).filter((c) => c !== undefined));

describe("logprobs from the simulator (vLLM's shapes, protocol.py @0052bed3)", () => {
  it("completions logprobs: k gives tokens, token_logprobs, top_logprobs maps and text offsets", async () => {
    sim = await startSimulator({ profile: "noiseless", set: { eos_mean_tokens: 0 }, model: "m" });
    const list = choices(
      await events("/v1/completions", { prompt: "one two three", temperature: 0, logprobs: 3 }),
    );
    let offset = 0;
    let text = "";
    for (const choice of list) {
      const lp = choice.logprobs as {
        text_offset: number[];
        token_logprobs: number[];
        tokens: string[];
        top_logprobs: Record<string, number>[];
      };
      expect(lp.tokens.join("")).toBe(choice.text);
      expect(lp.text_offset[0]).toBe(offset);
      offset += choice.text!.length;
      text += choice.text;
      for (const [i, top] of lp.top_logprobs.entries()) {
        expect(Object.keys(top)).toHaveLength(3);
        // The chosen token is the most likely: greedy.
        expect(Math.max(...Object.values(top))).toBe(lp.token_logprobs[i]);
      }
    }
    expect(text.split(" ")).toHaveLength(6);
    // Greedy outputs repeat for the same prompt.
    const again = choices(await events("/v1/completions", { prompt: "one two three", temperature: 0 }));
    expect(again.map((c) => c.text).join("")).toBe(text);
    expect(again[0]!.logprobs).toBeNull();
  });

  it("chat logprobs: true with top_logprobs: k gives content entries with bytes; top_logprobs alone is a 400", async () => {
    sim = await startSimulator({ profile: "noiseless", set: { eos_mean_tokens: 0 }, model: "m" });
    const messages = [{ role: "user", content: "hi there" }];
    const list = choices(
      await events("/v1/chat/completions", { messages, temperature: 0, logprobs: true, top_logprobs: 2 }),
    );
    const content = list
      .filter((c) => c.logprobs !== null)
      .flatMap(
        (c) =>
          (
            c.logprobs as {
              content: { token: string; logprob: number; bytes: number[]; top_logprobs: unknown[] }[];
            }
          ).content,
      );
    expect(content).toHaveLength(6);
    for (const entry of content) {
      expect(entry.bytes).toEqual([...Buffer.from(entry.token)]);
      expect(entry.top_logprobs).toHaveLength(2);
      expect(entry.logprob).toBeLessThan(0);
    }
    const bad = await fetch(`${sim.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages, top_logprobs: 2 }),
    });
    expect(bad.status).toBe(400);
  });
});
