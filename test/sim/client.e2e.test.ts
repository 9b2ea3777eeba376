import http from "node:http";
import { describe, expect, it } from "vitest";
import { builtInProfile, startSimulator } from "../../src/sim/index.js";
import { postStream, promptOf } from "./sse-client.js";

/**
 * Wall-clock tests: the bounds are generous (this machine is shared), the exactness is proven on
 * virtual time in engine.test.ts and measured by bench/sim.ts.
 */
describe("a stock OpenAI-style streaming client", () => {
  it("reads a chat stream end to end and its timing follows the profile formula", async () => {
    const p = builtInProfile("noiseless");
    // Slow steps, so that timer and scheduling noise are small against them.
    const set = {
      step_overhead_ms: 20,
      prefill_per_token_ms: 0.1,
      decode_per_seq_ms: 5,
      attention_per_context_token_ms: 0,
      // One chunk per token even if a loaded machine delays a step past the next: the timing of each
      // token is what is checked.
      coalesce_late_tokens: false,
    };
    const sim = await startSimulator({ profile: p, set, recordChunkTimes: true });
    try {
      // Warm the connection pool and the JIT, as a benchmark's warmup request would.
      for (let i = 0; i < 3; i++) {
        await postStream(`${sim.baseUrl}/v1/chat/completions`, {
          messages: [{ role: "user", content: `warm up ${i}` }],
          max_tokens: 2,
          stream: true,
        });
      }
      const r = await postStream(
        `${sim.baseUrl}/v1/chat/completions`,
        {
          model: "sim-model",
          messages: [{ role: "user", content: promptOf(199) }],
          max_tokens: 6,
          ignore_eos: true,
          stream: true,
          stream_options: { include_usage: true },
        },
        { "x-request-id": "client-1" },
      );
      expect(r.status).toBe(200);
      const deltas = r.events
        .filter((e) => e.json && (e.json as { choices: unknown[] }).choices.length > 0)
        .map(
          (e) => (e.json as { choices: { delta: { role?: string; content?: string } }[] }).choices[0]!.delta,
        );
      expect(deltas[0]).toEqual({ role: "assistant", content: "" });
      const text = deltas.map((d) => d.content ?? "").join("");
      expect(text.split(" ")).toHaveLength(6);
      expect(r.events.at(-1)!.data).toBe("[DONE]");
      // Prompt: the role word plus 199 words = 200 tokens. Token k is due no earlier than
      // send + TTFT formula + k ITLs, whatever the load: the model never runs early.
      const formulaTtft = 20 + 0.1 * 200;
      const itl = 20 + 5;
      const contentTimes = r.events.slice(1, 7).map((e) => e.at);
      contentTimes.forEach((t, k) => {
        expect(t - r.sentAt).toBeGreaterThanOrEqual(formulaTtft + k * itl - 0.5);
      });
      // Generous: a loaded 2-core machine can delay a step by a lot; the bench measures the real error.
      expect(contentTimes.at(-1)! - r.sentAt).toBeLessThan(formulaTtft + 5 * itl + 2000);
      // The truth: what the server wrote and when, joinable by the client's x-request-id.
      expect((r.events[0]!.json as { id: string }).id).toBe("chatcmpl-client-1");
      const truth = sim.chunkRecords().filter((c) => c.clientRequestId === "client-1");
      expect(new Set(truth.map((c) => c.requestId))).toEqual(new Set(["chatcmpl-client-1"]));
      expect(truth.map((c) => c.kind)).toEqual([
        "role",
        "content",
        "content",
        "content",
        "content",
        "content",
        "content",
        "usage",
        "done",
      ]);
      expect(truth.reduce((sum, c) => sum + c.tokens, 0)).toBe(6);
      const overHttp = (await (await fetch(`${sim.baseUrl}/admin/chunks?offset=1`)).json()) as {
        recording: boolean;
        total: number;
        records: unknown[];
      };
      expect(overHttp.recording).toBe(true);
      expect(overHttp.records).toEqual(sim.chunkRecords().slice(1));
      const written = truth.filter((c) => c.kind === "content").map((c) => c.timeMs);
      written.forEach((t, k) => {
        expect(t - r.sentAt).toBeGreaterThanOrEqual(formulaTtft + k * itl - 0.5);
        // A chunk is read after it is written.
        expect(contentTimes[k]!).toBeGreaterThanOrEqual(t - 0.5);
      });
    } finally {
      await sim.close();
    }
  });

  it("holds 1,000 concurrent streams", async () => {
    // 1,000 streams on a shared machine do make the loop late; the per-event shape is what is checked.
    const sim = await startSimulator({
      set: { max_num_seqs: 1024, num_gpu_blocks: 32768, coalesce_late_tokens: false },
    });
    // node:http rather than fetch: the client's own cost should not dominate a test of the server.
    const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
    try {
      const events = await Promise.all(
        Array.from(
          { length: 1000 },
          (_, i) =>
            new Promise<string[]>((resolve, reject) => {
              const body = JSON.stringify({
                prompt: promptOf(16, `r${i}`),
                max_tokens: 3,
                ignore_eos: true,
                stream: true,
              });
              const req = http.request(
                `${sim.baseUrl}/v1/completions`,
                { method: "POST", agent, headers: { "content-length": Buffer.byteLength(body) } },
                (res) => {
                  let text = "";
                  res.setEncoding("utf8");
                  res.on("data", (data: string) => {
                    text += data;
                  });
                  res.on("end", () => resolve(text.split("\n\n").filter((e) => e !== "")));
                  res.on("error", reject);
                },
              );
              req.on("error", reject);
              req.end(body);
            }),
        ),
      );
      expect(events.every((e) => e.length === 4 && e[3] === "data: [DONE]")).toBe(true);
      expect(Math.max(...sim.loopLateness().lateness)).toBeGreaterThanOrEqual(0);
    } finally {
      agent.destroy();
      await sim.close();
    }
  });
});
