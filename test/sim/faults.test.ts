import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/sim/index.js";
import { postJson, postStream } from "./sse-client.js";

const stream = {
  prompt: "a b c",
  max_tokens: 8,
  ignore_eos: true,
  stream: true,
  stream_options: { include_usage: true },
};

describe("faults", () => {
  it("answers a share of requests with the chosen status, in vLLM's error shape", async () => {
    const sim = await startSimulator({ seed: 9, set: { fault_error_rate: 0.5, fault_error_status: 503 } });
    try {
      const statuses = await Promise.all(
        Array.from(
          { length: 40 },
          async () =>
            (await postJson(`${sim.baseUrl}/v1/completions`, { prompt: "a", max_tokens: 1 })).status,
        ),
      );
      const errors = statuses.filter((s) => s === 503).length;
      expect(errors).toBeGreaterThan(8);
      expect(errors).toBeLessThan(32);
      expect(statuses.filter((s) => s !== 503 && s !== 200)).toEqual([]);
      const r = await postJson(`${sim.baseUrl}/v1/completions`, { prompt: "a" });
      if (r.status === 503)
        expect(r.body).toMatchObject({ error: { type: "ServiceUnavailableError", code: 503 } });
      sim.configure({ fault_error_rate: 0 });
      expect((await postJson(`${sim.baseUrl}/v1/completions`, { prompt: "a", max_tokens: 1 })).status).toBe(
        200,
      );
    } finally {
      await sim.close();
    }
  });

  it("sends a mid-stream error event over HTTP 200, then [DONE]", async () => {
    const sim = await startSimulator({
      set: { fault_midstream_error_rate: 1, fault_after_tokens: 3, coalesce_late_tokens: false },
    });
    try {
      const r = await postStream(`${sim.baseUrl}/v1/completions`, stream);
      expect(r.status).toBe(200);
      expect(r.events).toHaveLength(5);
      expect(r.events[3]!.json).toMatchObject({ error: { type: "InternalServerError", code: 500 } });
      expect(r.events[4]!.data).toBe("[DONE]");
      // A stream the server abandoned is not a finished request in vLLM: nothing in request_success_total
      // or the per-request histograms; its tokens and first-token time were counted per step
      // (vllm/v1/metrics/loggers.py @ v0.11.0 observes finished_requests only).
      const metrics = await (await fetch(`${sim.baseUrl}/metrics`)).text();
      expect(metrics).toContain(
        'vllm:request_success_total{model_name="sim-model",engine="0",finished_reason="abort"} 0.0',
      );
      expect(metrics).toContain(
        'vllm:e2e_request_latency_seconds_count{model_name="sim-model",engine="0"} 0.0',
      );
      expect(metrics).toContain(
        'vllm:time_to_first_token_seconds_count{model_name="sim-model",engine="0"} 1.0',
      );
      expect(metrics).toContain('vllm:generation_tokens_total{model_name="sim-model",engine="0"} 3.0');
    } finally {
      await sim.close();
    }
  });

  it("resets the connection mid-stream", async () => {
    const sim = await startSimulator({ set: { fault_reset_rate: 1, fault_after_tokens: 2 } });
    try {
      await expect(postStream(`${sim.baseUrl}/v1/completions`, stream)).rejects.toThrow();
    } finally {
      await sim.close();
    }
  });

  // A stalled process (a loaded machine) makes every step after the first token due at once.
  for (const coalesce of [false, true]) {
    it(`resets at its token when the steps after it are late${coalesce ? " and merged" : ""}`, async () => {
      const sim = await startSimulator({
        recordChunkTimes: true,
        set: {
          fault_reset_rate: 1,
          fault_after_tokens: 2,
          step_overhead_ms: 4,
          speed_sigma: 0,
          jitter_sigma: 0,
          coalesce_late_tokens: coalesce,
        },
      });
      try {
        const pending = postStream(`${sim.baseUrl}/v1/completions`, stream);
        const outcome = pending.then(
          () => "completed",
          () => "reset",
        );
        while (!sim.chunkRecords().some((record) => record.kind === "content")) {
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        const until = performance.now() + 40; // tokens 2..8 are due by then, under the 100 ms resync
        while (performance.now() < until) {
          // no timers, no I/O
        }
        expect(await outcome).toBe("reset");
        const content = sim.chunkRecords().filter((record) => record.kind === "content");
        expect(content.reduce((sum, record) => sum + record.tokens, 0)).toBe(2);
      } finally {
        await sim.close();
      }
    });
  }

  it("bundles k tokens per SSE chunk while usage still counts tokens", async () => {
    // Late steps would merge further (3 + 3 into one chunk): this checks the fault alone.
    const sim = await startSimulator({ set: { tokens_per_chunk: 3, coalesce_late_tokens: false } });
    try {
      const r = await postStream(`${sim.baseUrl}/v1/completions`, stream);
      const texts = r.events
        .filter((e) => e.json && (e.json as { choices: unknown[] }).choices.length > 0)
        .map((e) => (e.json as { choices: { text: string }[] }).choices[0]!.text);
      expect(texts.map((t) => t.trim().split(" ").length)).toEqual([3, 3, 2]);
      expect(
        (r.events.at(-2)!.json as { usage: { completion_tokens: number } }).usage.completion_tokens,
      ).toBe(8);
    } finally {
      await sim.close();
    }
  });

  it("the engine dies after N completed requests: connections close, the server stops", async () => {
    const deaths: string[] = [];
    const sim = await startSimulator({
      set: { fault_exit_after_requests: 2 },
      onEngineDeath: (reason) => deaths.push(reason),
    });
    try {
      await postJson(`${sim.baseUrl}/v1/completions`, { prompt: "a", max_tokens: 2 });
      await postJson(`${sim.baseUrl}/v1/completions`, { prompt: "a", max_tokens: 2 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(deaths).toHaveLength(1);
      expect(deaths[0]).toContain("after 2 requests");
    } finally {
      await sim.close();
    }
    const bare = await startSimulator({ set: { fault_exit_after_requests: 1 } });
    await postJson(`${bare.baseUrl}/v1/completions`, { prompt: "a", max_tokens: 2 });
    await bare.closed;
    await expect(fetch(`${bare.baseUrl}/health`)).rejects.toThrow();
  });

  it("hangs after N completed requests: health stays 200, streams stop sending", async () => {
    const sim = await startSimulator({ set: { fault_hang_after_requests: 1 } });
    try {
      expect((await postJson(`${sim.baseUrl}/v1/completions`, { prompt: "a", max_tokens: 2 })).status).toBe(
        200,
      );
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 300);
      const pending = fetch(`${sim.baseUrl}/v1/completions`, {
        method: "POST",
        body: JSON.stringify(stream),
        signal: controller.signal,
      }).then(async (r) => r.text());
      await expect(pending).rejects.toThrow();
      clearTimeout(timer);
      expect((await fetch(`${sim.baseUrl}/health`)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  it("slow start: /health and generation answer 503 until the delay has passed", async () => {
    const sim = await startSimulator({ set: { startup_delay_s: 60 } });
    try {
      expect((await fetch(`${sim.baseUrl}/health`)).status).toBe(503);
      expect((await postJson(`${sim.baseUrl}/v1/completions`, { prompt: "a" })).status).toBe(503);
      // The delay counts from the server's start; shortening it below the time already spent ends it.
      await new Promise((resolve) => setTimeout(resolve, 60));
      sim.configure({ startup_delay_s: 0.05 });
      expect((await fetch(`${sim.baseUrl}/health`)).status).toBe(200);
      expect((await postJson(`${sim.baseUrl}/v1/completions`, { prompt: "a", max_tokens: 1 })).status).toBe(
        200,
      );
    } finally {
      await sim.close();
    }
  });

  it("a dead engine: /health 503, generation 500; selectable at runtime through /admin/config", async () => {
    const sim = await startSimulator();
    try {
      const set = await postJson(`${sim.baseUrl}/admin/config`, { engine_dead: true });
      expect(set.status).toBe(200);
      expect((await fetch(`${sim.baseUrl}/health`)).status).toBe(503);
      expect((await postJson(`${sim.baseUrl}/v1/completions`, { prompt: "a" })).status).toBe(500);
      const bad = await postJson(`${sim.baseUrl}/admin/config`, { engine_dead: "maybe", max_num_seqs: 0 });
      expect(bad.status).toBe(400);
      expect((bad.body as { error: { message: string } }).error.message).toContain('field "max_num_seqs"');
      // Atomic: the invalid request changed nothing.
      expect(sim.profile().max_num_seqs).toBe(256);
    } finally {
      await sim.close();
    }
  });
});
