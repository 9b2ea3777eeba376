import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/sim/index.js";
import { ProfileError } from "../../src/sim/profile.js";
import { postJson } from "./sse-client.js";

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ set: { coalesce_late_tokens: false } });
});
afterAll(async () => {
  await sim.close();
});

describe("HTTP surface as vLLM's FastAPI server", () => {
  it("GET on a POST route is 405 with Allow, as Starlette answers (errors.json cites it)", async () => {
    for (const path of ["/v1/completions", "/v1/chat/completions", "/tokenize"]) {
      const response = await fetch(`${sim.baseUrl}${path}`);
      expect(response.status, path).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      expect(await response.json()).toEqual({ detail: "Method Not Allowed" });
    }
    const unknown = await fetch(`${sim.baseUrl}/v2/nothing`);
    expect(unknown.status).toBe(404);
  });

  it("http_requests_total leaves out /health, /metrics and /version (vLLM's excluded_handlers)", async () => {
    const local = await startSimulator();
    try {
      for (const path of ["/health", "/version", "/metrics", "/v1/models", "/health"]) {
        await (await fetch(`${local.baseUrl}${path}`)).text();
      }
      const text = await (await fetch(`${local.baseUrl}/metrics`)).text();
      const handlers = [...text.matchAll(/^http_requests_total\{handler="([^"]+)"/gm)].map((m) => m[1]);
      expect(handlers).toEqual(["/v1/models"]);
    } finally {
      await local.close();
    }
  });

  it("exports prometheus_fastapi_instrumentator's default families, recorded when a response ends", async () => {
    const local = await startSimulator({ set: { step_overhead_ms: 5 } });
    try {
      const body = JSON.stringify({ prompt: "a b", max_tokens: 4, ignore_eos: true, stream: true });
      const stream = await fetch(`${local.baseUrl}/v1/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      await stream.text();
      const plain = await postJson(`${local.baseUrl}/v1/completions`, { prompt: "a", max_tokens: 1 });
      const plainBytes = JSON.stringify(plain.body).length;
      const text = await (await fetch(`${local.baseUrl}/metrics`)).text();
      const line = (prefix: string) =>
        text
          .split("\n")
          .find((l) => l.startsWith(prefix))
          ?.split(" ")
          .at(-1);
      const handler = '{handler="/v1/completions"}';
      expect(line('http_requests_total{handler="/v1/completions",method="POST",status="2xx"}')).toBe("2.0");
      expect(line(`http_request_size_bytes_count${handler}`)).toBe("2.0");
      expect(Number(line(`http_request_size_bytes_sum${handler}`))).toBeGreaterThan(body.length);
      // A stream has no Content-Length, so only the plain body's size counts.
      expect(Number(line(`http_response_size_bytes_sum${handler}`))).toBe(plainBytes);
      expect(line('http_request_duration_highr_seconds_bucket{le="+Inf"}')).toBe("2.0");
      expect(line('http_request_duration_seconds_count{handler="/v1/completions",method="POST"}')).toBe(
        "2.0",
      );
      // The stream took at least its 5 steps of 5 ms.
      expect(Number(line("http_request_duration_highr_seconds_sum"))).toBeGreaterThan(0.02);
      expect(text).toContain("# TYPE http_request_size_bytes summary");
      expect(text).toContain("# TYPE http_request_duration_seconds_created gauge");
    } finally {
      await local.close();
    }
  });

  it("stream and JSON headers are those of Starlette under uvicorn (no cache-control)", async () => {
    const stream = await fetch(`${sim.baseUrl}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: "a", max_tokens: 2, stream: true }),
    });
    await stream.text();
    expect(stream.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(stream.headers.get("transfer-encoding")).toBe("chunked");
    expect(stream.headers.get("cache-control")).toBeNull();
    expect(stream.headers.get("server")).toBe("uvicorn");
    const plain = await postJson(`${sim.baseUrl}/v1/completions`, { prompt: "a", max_tokens: 2 });
    expect(plain.status).toBe(200);
    const json = await fetch(`${sim.baseUrl}/v1/models`);
    expect(json.headers.get("content-type")).toBe("application/json");
    expect(json.headers.get("content-length")).toBe(String((await json.text()).length));
  });

  it("a completion body carries the nulls vLLM sets (0.11: prompt_token_ids, token_ids)", async () => {
    const r = await postJson(`${sim.baseUrl}/v1/completions`, {
      prompt: "a",
      max_tokens: 2,
      ignore_eos: true,
    });
    const body = r.body as { choices: Record<string, unknown>[] };
    expect(Object.keys(body.choices[0]!)).toEqual([
      "index",
      "text",
      "logprobs",
      "finish_reason",
      "stop_reason",
      "prompt_logprobs",
      "prompt_token_ids",
      "token_ids",
    ]);
    const chat = await postJson(`${sim.baseUrl}/v1/chat/completions`, {
      messages: [{ role: "user", content: "a" }],
      max_tokens: 2,
    });
    const chatBody = chat.body as Record<string, unknown> & { choices: Record<string, unknown>[] };
    expect(chatBody.prompt_token_ids).toBeNull();
    expect(chatBody.choices[0]!.token_ids).toBeNull();
  });

  it("a negative temperature is a 400 naming the parameter", async () => {
    const r = await postJson(`${sim.baseUrl}/v1/completions`, { prompt: "a", temperature: -1 });
    expect(r.status).toBe(400);
    expect((r.body as { error: { param: string } }).error.param).toBe("temperature");
  });
});

describe("a KV cache too small for one max_model_len request", () => {
  it("refuses to start, as vLLM does (check_enough_kv_cache_memory)", async () => {
    const start = startSimulator({ set: { num_gpu_blocks: 100, max_model_len: 4096 } });
    await expect(start).rejects.toBeInstanceOf(ProfileError);
    await expect(start).rejects.toThrow(
      /field "num_gpu_blocks": to serve at least one request with the model's max seq len \(4096\), 256 KV-cache blocks of 16 tokens are needed, more than the 100 available\. Based on the available memory, the estimated maximum model length is 1600/,
    );
    // Exactly enough is fine; fp8 doubles the blocks.
    const exact = await startSimulator({ set: { num_gpu_blocks: 256, max_model_len: 4096 } });
    await exact.close();
    const fp8 = await startSimulator({
      set: { num_gpu_blocks: 128, max_model_len: 4096, cache_dtype: "fp8" },
    });
    await fp8.close();
  });

  it("is refused at runtime too: POST /admin/config answers 400 and changes nothing", async () => {
    const r = await postJson(`${sim.baseUrl}/admin/config`, { num_gpu_blocks: 10 });
    expect(r.status).toBe(400);
    expect((r.body as { error: { message: string } }).error.message).toContain("max seq len (4096)");
    expect(sim.profile().num_gpu_blocks).toBe(8192);
  });
});
