import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/sim/index.js";
import { postJson, postStream, promptOf } from "./sse-client.js";

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8")) as Record<string, unknown>;

/** Replaces the values a fixture leaves open with its placeholders, keeping every key and its position. */
function normalise(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((item) => normalise(item));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v, k)]));
  }
  if (key === "id" && typeof value === "string") return "<id>";
  if (key === "created" && typeof value === "number") return "<created>";
  if (key === "model" && typeof value === "string") return "<model>";
  if ((key === "text" || key === "content") && typeof value === "string" && value !== "") return "<text>";
  if (key === "message" && typeof value === "string") return "<message>";
  if (key === "param" && typeof value === "string") return "<param>";
  return value;
}

let sim: RunningSimulator;
let guarded: RunningSimulator;
let dev: RunningSimulator;

beforeAll(async () => {
  // One chunk per token even when a loaded machine makes the loop late: these tests compare exact shapes.
  sim = await startSimulator({ profile: "small-gpu", seed: 1, set: { coalesce_late_tokens: false } });
  guarded = await startSimulator({ apiKey: "secret", set: { max_model_len: 64 } });
  dev = await startSimulator({ devMode: true, model: "org/model" });
});

afterAll(async () => {
  await Promise.all([sim.close(), guarded.close(), dev.close()]);
});

describe("streaming shapes match vLLM's (fixtures cite the source)", () => {
  for (const [name, path] of [
    ["completions", "/v1/completions"],
    ["chat", "/v1/chat/completions"],
  ] as const) {
    it(`${name}: chunk order, keys and finish/usage placement`, async () => {
      const f = fixture(name === "chat" ? "chat-stream.json" : "completions-stream.json");
      const result = await postStream(`${sim.baseUrl}${path}`, f.request);
      expect(result.status).toBe(200);
      expect(result.contentType).toMatch(/^text\/event-stream/);
      const events = result.events.map((event) =>
        event.data === "[DONE]" ? "[DONE]" : normalise(event.json),
      );
      expect(events).toEqual(f.events);
      // The key order on the wire is vLLM's too (clients that diff raw text see the same thing).
      expect(Object.keys(result.events[0]!.json as object)).toEqual(Object.keys((f.events as object[])[0]!));
      const ids = new Set(result.events.filter((e) => e.json).map((e) => (e.json as { id: string }).id));
      expect(ids.size).toBe(1);
      expect([...ids][0]).toMatch(name === "chat" ? /^chatcmpl-[0-9a-f]{32}$/ : /^cmpl-[0-9a-f]{32}$/);
    });
  }

  it("sends no usage chunk without stream_options, usage null on 0.11 completion chunks, [DONE] last", async () => {
    const result = await postStream(`${sim.baseUrl}/v1/completions`, {
      prompt: "a b",
      max_tokens: 2,
      ignore_eos: true,
      stream: true,
    });
    // serving_completion.py @ v0.11.0 dumps chunks with exclude_unset=False: "usage":null on every one.
    expect(
      result.events.map((e) => (e.data === "[DONE]" ? "[DONE]" : (e.json as { usage: unknown }).usage)),
    ).toEqual([null, null, "[DONE]"]);
    expect(result.events[0]!.data).toContain('"token_ids":null}],"usage":null}');
  });

  it("on the current line (0.12+) completion chunks leave usage out (exclude_unset)", async () => {
    const current = await startSimulator({ set: { coalesce_late_tokens: false, vllm_version: "0.12.0" } });
    try {
      const f = fixture("completions-stream-current.json");
      const result = await postStream(`${current.baseUrl}/v1/completions`, f.request);
      const events = result.events.map((event) =>
        event.data === "[DONE]" ? "[DONE]" : normalise(event.json),
      );
      expect(events).toEqual(f.events);
    } finally {
      await current.close();
    }
  });

  it("0.10.0/0.10.1 predate return_token_ids: no token_ids fields", async () => {
    const old = await startSimulator({ set: { coalesce_late_tokens: false, vllm_version: "0.10.1" } });
    try {
      const result = await postStream(`${old.baseUrl}/v1/chat/completions`, {
        messages: [{ role: "user", content: "hi" }],
        max_tokens: 2,
        ignore_eos: true,
        stream: true,
      });
      for (const event of result.events) expect(event.data).not.toContain("token_ids");
      const body = await postJson(`${old.baseUrl}/v1/completions`, { prompt: "a", max_tokens: 2 });
      expect(JSON.stringify(body.body)).not.toContain("token_ids");
    } finally {
      await old.close();
    }
  });

  it("without ignore_eos ends at a seeded EOS: an empty final text, finish_reason stop, EOS counted", async () => {
    await sim.configure({ eos_mean_tokens: 4 });
    try {
      const result = await postStream(`${sim.baseUrl}/v1/completions`, {
        prompt: "a b",
        max_tokens: 200,
        seed: 5,
        stream: true,
        stream_options: { include_usage: true },
      });
      const choices = result.events.filter(
        (e) => e.json && (e.json as { choices: unknown[] }).choices.length > 0,
      );
      const last = (choices.at(-1)!.json as { choices: { text: string; finish_reason: string }[] })
        .choices[0]!;
      expect(last).toMatchObject({ text: "", finish_reason: "stop" });
      const usage = (result.events.at(-2)!.json as { usage: { completion_tokens: number } }).usage;
      expect(usage.completion_tokens).toBe(choices.length);
      const again = await postStream(`${sim.baseUrl}/v1/completions`, {
        prompt: "a b",
        max_tokens: 200,
        seed: 5,
        stream: true,
      });
      const text = (r: typeof result) =>
        r.events
          .filter((e) => e.json && (e.json as { choices: unknown[] }).choices.length > 0)
          .map((e) => (e.json as { choices: { text: string }[] }).choices[0]!.text)
          .join("");
      expect(text(again)).toBe(text(result));
    } finally {
      await sim.configure({ eos_mean_tokens: 256 });
    }
  });
});

describe("non-streaming responses", () => {
  it("completions: text whose word count is the usage (ignore_eos)", async () => {
    const r = await postJson(`${sim.baseUrl}/v1/completions`, {
      prompt: promptOf(7),
      max_tokens: 5,
      ignore_eos: true,
    });
    expect(r.status).toBe(200);
    const body = r.body as {
      object: string;
      choices: { text: string; finish_reason: string }[];
      usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    };
    expect(body.object).toBe("text_completion");
    expect(body.choices[0]!.finish_reason).toBe("length");
    expect(body.choices[0]!.text.split(" ")).toHaveLength(5);
    expect(body.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
  });

  it("chat: an assistant message; max_tokens defaults to the rest of the context", async () => {
    const r = await postJson(`${sim.baseUrl}/v1/chat/completions`, {
      messages: [{ role: "user", content: "hi" }],
      max_completion_tokens: 3,
      ignore_eos: true,
    });
    const body = r.body as {
      object: string;
      choices: { message: { role: string; content: string } }[];
      usage: { prompt_tokens: number };
    };
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0]!.message.role).toBe("assistant");
    expect(body.usage.prompt_tokens).toBe(2);
  });
});

describe("errors in vLLM's shapes and statuses", () => {
  const cases = fixture("errors.json").cases as Record<string, { status: number; body: unknown }>;

  it("prompt beyond max_model_len is 400", async () => {
    const r = await postJson(
      `${guarded.baseUrl}/v1/completions`,
      { prompt: promptOf(64) },
      { authorization: "Bearer secret" },
    );
    expect({ status: r.status, body: normalise(r.body) }).toEqual(cases.prompt_too_long);
    const error = (r.body as { error: { message: string; param: string } }).error;
    expect(error.message).toBe(
      "This model's maximum context length is 64 tokens. However, your request has 64 input tokens. Please reduce the length of the input messages.",
    );
    expect(error.param).toBe("input_tokens");
    const over = await postJson(
      `${guarded.baseUrl}/v1/completions`,
      { prompt: promptOf(60), max_tokens: 10 },
      { authorization: "Bearer secret" },
    );
    expect({ status: over.status, body: normalise(over.body) }).toEqual(cases.max_tokens_too_large);
    // V1's wording, which clients parse to retry with a smaller max_tokens.
    expect((over.body as { error: { message: string; param: string } }).error).toMatchObject({
      message:
        "'max_tokens' or 'max_completion_tokens' is too large: 10. This model's maximum context length is 64 tokens and your request has 60 input tokens (10 > 64 - 60).",
      param: "max_tokens",
    });
  });

  it("stream_options without stream is 400, but an empty stream_options is accepted", async () => {
    const r = await postJson(`${sim.baseUrl}/v1/completions`, {
      prompt: "a",
      stream_options: { include_usage: true },
    });
    expect({ status: r.status, body: normalise(r.body) }).toEqual(cases.stream_options_without_stream);
    const empty = await postJson(`${sim.baseUrl}/v1/completions`, {
      prompt: "a",
      max_tokens: 1,
      stream_options: {},
    });
    expect(empty.status).toBe(200);
    expect((empty.body as { object: string }).object).toBe("text_completion");
  });

  it("an unknown model is 404", async () => {
    const r = await postJson(`${sim.baseUrl}/v1/chat/completions`, {
      model: "nope",
      messages: [{ role: "user", content: "x" }],
    });
    expect({ status: r.status, body: normalise(r.body) }).toEqual(cases.unknown_model);
  });

  it("a missing or wrong key is 401 on /v1 only", async () => {
    const missing = await postJson(`${guarded.baseUrl}/v1/completions`, { prompt: "a" });
    expect({ status: missing.status, body: missing.body }).toEqual(cases.missing_api_key);
    const wrong = await fetch(`${guarded.baseUrl}/v1/models`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${guarded.baseUrl}/v1/models`, {
      headers: { authorization: "Bearer secret" },
    });
    expect(right.status).toBe(200);
    expect((await fetch(`${guarded.baseUrl}/health`)).status).toBe(200);
    expect((await fetch(`${guarded.baseUrl}/metrics`)).status).toBe(200);
  });

  it("POST /reset_prefix_cache is 404 unless dev mode, 200 in dev mode", async () => {
    const off = await postJson(`${sim.baseUrl}/reset_prefix_cache`, "");
    expect({ status: off.status, body: off.body }).toEqual(cases.dev_route_without_dev_mode);
    const on = await postJson(`${dev.baseUrl}/reset_prefix_cache`, "");
    expect(on.status).toBe(200);
  });

  it("bad JSON and bad parameters are 400 with the parameter named", async () => {
    expect((await postJson(`${sim.baseUrl}/v1/completions`, "{not json")).status).toBe(400);
    const bad = await postJson(`${sim.baseUrl}/v1/completions`, { prompt: "a", max_tokens: -1 });
    expect(bad.status).toBe(400);
    expect((bad.body as { error: { param: string } }).error.param).toBe("max_tokens");
  });
});

describe("prefix caching seen by the client", () => {
  it("reports cached_tokens with enable_prompt_tokens_details, and cache_salt isolates runs", async () => {
    const local = await startSimulator({ set: { enable_prompt_tokens_details: true } });
    try {
      const ask = async (salt?: string) => {
        const r = await postStream(`${local.baseUrl}/v1/completions`, {
          prompt: promptOf(100, "shared"),
          max_tokens: 2,
          stream: true,
          stream_options: { include_usage: true },
          ...(salt ? { cache_salt: salt } : {}),
        });
        return (r.events.at(-2)!.json as { usage: { prompt_tokens_details: { cached_tokens: number } } })
          .usage.prompt_tokens_details.cached_tokens;
      };
      expect(await ask()).toBe(0);
      expect(await ask()).toBe(96);
      expect(await ask("run-2")).toBe(0);
      expect(await ask("run-2")).toBe(96);
      const plain = await postJson(`${local.baseUrl}/v1/completions`, {
        prompt: promptOf(100, "shared"),
        max_tokens: 1,
      });
      expect((plain.body as { usage: unknown }).usage).toEqual({
        prompt_tokens: 100,
        total_tokens: 101,
        completion_tokens: 1,
        prompt_tokens_details: { cached_tokens: 96 },
      });
    } finally {
      await local.close();
    }
  });

  it("a client that goes away mid-stream frees its slot and, as in vLLM, is not a finished request", async () => {
    const local = await startSimulator({ set: { step_overhead_ms: 5 } });
    try {
      const controller = new AbortController();
      const response = await fetch(`${local.baseUrl}/v1/completions`, {
        method: "POST",
        body: JSON.stringify({ prompt: "a b", max_tokens: 1000, ignore_eos: true, stream: true }),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.read().catch(() => undefined);
      const idle = 'vllm:num_requests_running{model_name="sim-model",engine="0"} 0.0';
      let metrics = "";
      for (let i = 0; i < 250 && !metrics.includes(idle); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        metrics = await (await fetch(`${local.baseUrl}/metrics`)).text();
      }
      expect(metrics).toContain(idle);
      expect(metrics).toContain('vllm:kv_cache_usage_perc{model_name="sim-model",engine="0"} 0.0');
      // vllm/v1/metrics/loggers.py @ v0.11.0: only finished requests reach request_success_total.
      for (const reason of ["stop", "length", "abort"]) {
        expect(metrics).toContain(`finished_reason="${reason}"} 0.0`);
      }
      expect(metrics).toContain(
        'vllm:request_queue_time_seconds_count{model_name="sim-model",engine="0"} 0.0',
      );
    } finally {
      await local.close();
    }
  });
});

describe("other endpoints", () => {
  it("health, ping, version, models with max_model_len", async () => {
    expect((await fetch(`${sim.baseUrl}/health`)).status).toBe(200);
    expect((await fetch(`${sim.baseUrl}/ping`, { method: "POST" })).status).toBe(200);
    expect(await (await fetch(`${sim.baseUrl}/version`)).json()).toEqual({ version: "0.11.0" });
    const models = (await (await fetch(`${dev.baseUrl}/v1/models`)).json()) as {
      object: string;
      data: { id: string; object: string; owned_by: string; root: string; max_model_len: number }[];
    };
    expect(models.object).toBe("list");
    expect(models.data[0]).toMatchObject({
      id: "org/model",
      object: "model",
      owned_by: "vllm",
      root: "org/model",
      max_model_len: 4096,
    });
  });

  it("tokenize and detokenize agree with usage: one token per whitespace-separated word", async () => {
    const text = `${promptOf(10)}\n\t tail`;
    const t = (await postJson(`${sim.baseUrl}/tokenize`, { prompt: text })).body as {
      count: number;
      tokens: number[];
      max_model_len: number;
    };
    expect(t.count).toBe(11);
    expect(t.tokens).toHaveLength(11);
    expect(t.max_model_len).toBe(4096);
    const d = (await postJson(`${sim.baseUrl}/detokenize`, { tokens: t.tokens })).body as { prompt: string };
    const again = (await postJson(`${sim.baseUrl}/tokenize`, { prompt: d.prompt })).body as {
      tokens: number[];
    };
    expect(again.tokens).toEqual(t.tokens);
    const usage = (await postJson(`${sim.baseUrl}/v1/completions`, { prompt: text, max_tokens: 1 })).body as {
      usage: { prompt_tokens: number };
    };
    expect(usage.usage.prompt_tokens).toBe(11);
    const chat = (await postJson(`${sim.baseUrl}/tokenize`, { messages: [{ role: "user", content: "a b" }] }))
      .body as {
      count: number;
    };
    expect(chat.count).toBe(3);
  });

  it("an unknown path is FastAPI's 404", async () => {
    const r = await fetch(`${sim.baseUrl}/v2/nothing`);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ detail: "Not Found" });
  });
});

describe("a simulator that falls behind its timeline", () => {
  /** Blocks this process (and so the in-process simulator) once the stream is under way. */
  async function stallMidStream(local: RunningSimulator, blockMs: number, body: unknown) {
    const pending = postStream(`${local.baseUrl}/v1/completions`, body);
    while (!local.chunkRecords().some((record) => record.kind === "content")) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const until = performance.now() + blockMs;
    while (performance.now() < until) {
      // a stalled process: no timers, no I/O
    }
    return pending;
  }

  const body = {
    prompt: "a b c",
    max_tokens: 30,
    ignore_eos: true,
    stream: true,
    stream_options: { include_usage: true },
  };
  const tokensPerChunk = (events: { json?: unknown }[]) =>
    events
      .filter((e) => e.json && (e.json as { choices: unknown[] }).choices.length > 0)
      .map((e) => ((e.json as { choices: { text: string }[] }).choices[0]!.text.match(/\S+/g) ?? []).length);

  it("with coalesce_late_tokens sends the tokens of the steps already due as one chunk (as vLLM V1's collector)", async () => {
    const local = await startSimulator({
      recordChunkTimes: true,
      set: { step_overhead_ms: 4, speed_sigma: 0, jitter_sigma: 0, coalesce_late_tokens: true },
    });
    try {
      const result = await stallMidStream(local, 40, body);
      const perChunk = tokensPerChunk(result.events);
      expect(perChunk.reduce((a, b) => a + b, 0)).toBe(30);
      expect(Math.max(...perChunk)).toBeGreaterThanOrEqual(5);
      expect(perChunk.length).toBeLessThan(30);
      const usage = (result.events.at(-2)!.json as { usage: { completion_tokens: number } }).usage;
      expect(usage.completion_tokens).toBe(30);
      // The truth records count the merged chunk's tokens too.
      const content = local.chunkRecords().filter((record) => record.kind === "content");
      expect(content.map((record) => record.tokens)).toEqual(perChunk);
    } finally {
      await local.close();
    }
  });

  it("by default still sends one chunk per token when late, the late ones back to back", async () => {
    const local = await startSimulator({
      recordChunkTimes: true,
      set: { step_overhead_ms: 4, speed_sigma: 0, jitter_sigma: 0 },
    });
    try {
      const result = await stallMidStream(local, 40, body);
      expect(tokensPerChunk(result.events)).toEqual(Array.from({ length: 30 }, () => 1));
      const usage = (result.events.at(-2)!.json as { usage: { completion_tokens: number } }).usage;
      expect(usage.completion_tokens).toBe(30);
      const content = local.chunkRecords().filter((record) => record.kind === "content");
      expect(content.map((record) => record.tokens)).toEqual(Array.from({ length: 30 }, () => 1));
    } finally {
      await local.close();
    }
  });
});
