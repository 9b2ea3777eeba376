import { afterEach, describe, expect, it } from "vitest";
import { createStreamClient, type StreamClient } from "../../src/client/stream-client.js";
import { type Behaviour, type FakeServer, startFakeServer } from "../runner/helpers/fake-openai-server.js";

let server: FakeServer | undefined;
let client: StreamClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

const body = (maxTokens = 5) =>
  Buffer.from(JSON.stringify({ model: "m", prompt: "a b c", max_tokens: maxTokens, stream: true }));

async function one(behaviour: Behaviour, timeoutMs = 5000) {
  server = await startFakeServer({ behaviour: () => behaviour });
  client = createStreamClient({ baseUrl: server.baseUrl, connections: 4 });
  return client.stream({ path: "/v1/completions", body: body(), timeoutMs, requestId: "r-1" });
}

describe("createStreamClient", () => {
  it("measures a successful stream: chunks, usage, finish reason, request id", async () => {
    const outcome = await one({ kind: "ok", tokens: 5, ttftMs: 20, itlMs: 2 });
    expect(outcome.ok).toBe(true);
    expect(outcome.chunkTimes).toHaveLength(5);
    expect(outcome.completionTokens).toBe(5);
    expect(outcome.promptTokens).toBe(3);
    expect(outcome.finishReason).toBe("length");
    expect(outcome.chunkTimes[0]! - outcome.sentAt).toBeGreaterThanOrEqual(19);
    expect(outcome.endAt).toBe(outcome.chunkTimes[4]);
    expect(server!.requests[0]!.headers["x-request-id"]).toBe("r-1");
  });

  it("counts a mid-stream error event over HTTP 200 as a failure", async () => {
    const outcome = await one({ kind: "mid-error", after: 3 });
    expect(outcome.ok).toBe(false);
    expect(outcome.errorKind).toBe("stream_error");
    expect(outcome.httpStatus).toBe(200);
    expect(outcome.errorMessage).toMatch(/engine died/);
    expect(outcome.chunkTimes).toHaveLength(3);
  });

  it("classifies HTTP errors with the server's message", async () => {
    const outcome = await one({ kind: "http", status: 500 });
    expect(outcome).toMatchObject({ ok: false, errorKind: "http_500", httpStatus: 500 });
    expect(outcome.errorMessage).toBe("HTTP 500: injected failure");
  });

  it("classifies a connection reset mid-stream", async () => {
    const outcome = await one({ kind: "reset", after: 2 });
    expect(outcome).toMatchObject({ ok: false, errorKind: "reset" });
  });

  it("times out a request that never finishes", async () => {
    const outcome = await one({ kind: "hang" }, 150);
    expect(outcome).toMatchObject({ ok: false, errorKind: "timeout" });
    expect(outcome.endAt - outcome.sentAt).toBeGreaterThanOrEqual(140);
  });

  it("fails a stream that ends without [DONE] or a finish reason", async () => {
    const outcome = await one({ kind: "no-done", tokens: 3 });
    expect(outcome).toMatchObject({ ok: false, errorKind: "incomplete" });
  });

  it("classifies a refused connection", async () => {
    client = createStreamClient({ baseUrl: "http://127.0.0.1:1", connections: 1 });
    const outcome = await client.stream({ path: "/v1/completions", body: body(), timeoutMs: 5000 });
    expect(outcome).toMatchObject({ ok: false, errorKind: "connect" });
  });

  it("holds as many requests on the wire as the pool allows, and no more", async () => {
    // Each response is held long enough for all 64 to be on the wire at once, even on a busy machine.
    server = await startFakeServer({ behaviour: () => ({ kind: "ok", tokens: 3, ttftMs: 1000 }) });
    client = createStreamClient({ baseUrl: server.baseUrl, connections: 64 });
    const all = await Promise.all(
      Array.from({ length: 64 }, () =>
        client!.stream({ path: "/v1/completions", body: body(), timeoutMs: 10_000 }),
      ),
    );
    expect(all.every((outcome) => outcome.ok)).toBe(true);
    expect(client.peakOnSocket).toBe(64);
    expect(server.maxOpen).toBe(64);
    await client.close();

    client = createStreamClient({ baseUrl: server.baseUrl, connections: 4 });
    await Promise.all(
      Array.from({ length: 12 }, () =>
        client!.stream({ path: "/v1/completions", body: body(), timeoutMs: 10_000 }),
      ),
    );
    expect(client.peakOnSocket).toBe(4);
  });
});

describe("abortAll", () => {
  it("ends every request in flight as aborted", async () => {
    server = await startFakeServer({ behaviour: () => ({ kind: "hang" }) });
    client = createStreamClient({ baseUrl: server.baseUrl, connections: 4 });
    const pending = Array.from({ length: 6 }, () =>
      client!.stream({ path: "/v1/completions", body: body(), timeoutMs: 60_000 }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    client.abortAll();
    const outcomes = await Promise.all(pending);
    expect(outcomes.map((outcome) => outcome.errorKind)).toEqual(Array(6).fill("aborted"));
  });
});
