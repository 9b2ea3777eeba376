import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { sseEventLimitBytes } from "../../src/client/sse-stream.js";
import {
  controlBodyLimitBytes,
  createControlClient,
  createStreamClient,
  errorBodyLimitBytes,
  primeTimeoutMs,
  type StreamClient,
} from "../../src/client/stream-client.js";
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
    // Which address refused, and what to check: not undici's bare message.
    expect(outcome.errorMessage).toBe(
      "connection refused by 127.0.0.1:1 (nothing listens there: check that the server is running and that http://127.0.0.1:1 has the host and port it listens on)",
    );
  });

  it("lists its requests in flight, with their last sign of life, for the stall report", async () => {
    server = await startFakeServer({ behaviour: () => ({ kind: "hang" }) });
    client = createStreamClient({ baseUrl: server.baseUrl, connections: 2 });
    const pending = client.stream({
      path: "/v1/completions",
      body: body(),
      timeoutMs: 1_000,
      requestId: "r-9",
    });
    expect(client.inFlight()).toMatchObject([{ requestId: "r-9", chunks: 0, timeoutMs: 1_000 }]);
    const [request] = client.inFlight();
    expect(request!.lastActivityAt).toBeGreaterThanOrEqual(request!.sentAt);
    expect((await pending).errorKind).toBe("timeout");
    expect(client.inFlight()).toEqual([]);
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

describe("a misbehaving server", () => {
  it("classifies an HTTP error whose body never ends by its status, keeping a bounded prefix", async () => {
    const rssBefore = process.memoryUsage().rss;
    const endless = (response: import("node:http").ServerResponse) => {
      response.writeHead(500, { "content-type": "text/plain" });
      const piece = Buffer.alloc(64 * 1024, "e".charCodeAt(0));
      const pump = () => {
        while (!response.destroyed && response.write(piece));
        if (!response.destroyed) response.once("drain", pump);
      };
      pump();
    };
    const outcome = await one({ kind: "raw", respond: endless }, 4_000);
    expect(outcome).toMatchObject({ ok: false, errorKind: "http_500", httpStatus: 500 });
    expect(outcome.errorMessage).toMatch(new RegExp(`cut at ${errorBodyLimitBytes} bytes`));
    expect(outcome.errorMessage!.length).toBeLessThan(1000);
    // It stopped at the limit rather than reading until the deadline.
    expect(outcome.endAt - outcome.sentAt).toBeLessThan(3_000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it("classifies an HTTP error whose short body trickles past the deadline by its status", async () => {
    const trickle = (response: import("node:http").ServerResponse) => {
      response.writeHead(503, { "content-type": "text/plain" });
      response.write("overloaded");
      const timer = setInterval(() => (response.destroyed ? clearInterval(timer) : response.write(".")), 20);
    };
    const outcome = await one({ kind: "raw", respond: trickle }, 300);
    expect(outcome).toMatchObject({ ok: false, errorKind: "http_503" });
    expect(outcome.errorMessage).toMatch(/HTTP 503: overloaded.*did not end within 300 ms/);
  });

  it("names a compressed stream's encoding instead of reporting no output", async () => {
    const gzipped = (response: import("node:http").ServerResponse) => {
      response.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" });
      response.end(gzipSync(Buffer.from('data: {"choices":[{"index":0,"text":"a"}]}\n\ndata: [DONE]\n\n')));
    };
    const outcome = await one({ kind: "raw", respond: gzipped });
    expect(outcome).toMatchObject({ ok: false, errorKind: "unsupported_encoding" });
    expect(outcome.errorMessage).toMatch(/content-encoding: gzip/);
    expect(server!.requests[0]!.headers["accept-encoding"]).toBe("identity");
  });

  it("names the content type of a response that is not an event stream", async () => {
    const outcome = await one({
      kind: "raw",
      respond: (response) => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end('{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":"hi"}]}');
      },
    });
    expect(outcome).toMatchObject({ ok: false, errorKind: "no_output" });
    expect(outcome.errorMessage).toMatch(/content-type: application\/json, not text\/event-stream/);
  });

  it("fails a request with a 50 MB SSE line at the line limit, quickly", async () => {
    const hugeLine = async (response: import("node:http").ServerResponse) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: ");
      const piece = Buffer.alloc(64 * 1024, "x".charCodeAt(0));
      for (let sent = 0; sent < 50 * 1024 * 1024 && !response.destroyed; sent += piece.length) {
        if (!response.write(piece)) await new Promise((resolve) => response.once("drain", resolve));
      }
      if (!response.destroyed) response.end("\n\ndata: [DONE]\n\n");
    };
    const started = performance.now();
    const outcome = await one({ kind: "raw", respond: hugeLine }, 30_000);
    expect(outcome).toMatchObject({ ok: false, errorKind: "oversized_event" });
    expect(outcome.errorMessage).toMatch(new RegExp(`limit is ${sseEventLimitBytes} bytes`));
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe("prime", () => {
  const hangingHealth = () =>
    startFakeServer({ route: (url) => url === "/health" /* accepted, never answered */ });

  it("gives up on a /health that never answers at its deadline and says so", async () => {
    server = await hangingHealth();
    client = createStreamClient({ baseUrl: server.baseUrl, connections: 2 });
    const started = performance.now();
    const primed = await client.prime(2);
    expect(performance.now() - started).toBeLessThan(primeTimeoutMs + 2_000);
    expect(primed.answered).toBe(0);
    expect(primed.problem).toMatch(
      new RegExp(`within ${primeTimeoutMs} ms \\(the connection-priming deadline\\)`),
    );
    // The pool still works for the load.
    const outcome = await client.stream({ path: "/v1/completions", body: body(), timeoutMs: 5000 });
    expect(outcome.ok).toBe(true);
  });

  it("is ended at once by abortAll (Ctrl-C)", async () => {
    server = await hangingHealth();
    client = createStreamClient({ baseUrl: server.baseUrl, connections: 2 });
    const started = performance.now();
    const primed = client.prime(2);
    setTimeout(() => client!.abortAll(), 100);
    expect((await primed).problem).toMatch(/interrupted/);
    expect(performance.now() - started).toBeLessThan(primeTimeoutMs - 1_000);
  });
});

describe("stream framing", () => {
  const events = (separator: string) =>
    [0, 1, 2]
      .map(
        (index) =>
          `data: {"id":"c","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" w${index}","logprobs":null,"finish_reason":${index === 2 ? '"length"' : "null"}}]}`,
      )
      .concat([
        'data: {"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}',
        "data: [DONE]",
      ])
      .join(separator) + separator;

  it("reads a stream framed with lone CRs as one framed with LFs", async () => {
    for (const separator of ["\r\r", "\n\n", "\r\n\r\n"]) {
      const outcome = await one({
        kind: "raw",
        respond: (response) => {
          response.writeHead(200, { "content-type": "text/event-stream" });
          response.end(events(separator));
        },
      });
      expect(outcome, JSON.stringify(separator)).toMatchObject({ ok: true, completionTokens: 3 });
      expect(outcome.chunkTimes).toHaveLength(3);
      await server?.close();
      server = undefined;
      await client?.close();
      client = undefined;
    }
  });

  it("fails a request with a choices event that is not JSON as malformed", async () => {
    const outcome = await one({
      kind: "raw",
      respond: (response) => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(events("\n\n").replace('" w1","logprobs":null', '" w1" "logprobs":null'));
      },
    });
    expect(outcome).toMatchObject({ ok: false, errorKind: "malformed" });
    expect(outcome.errorMessage).toMatch(/not JSON/);
  });
});

describe("createControlClient", () => {
  it("gives a trickling answer one deadline for the whole exchange", async () => {
    server = await startFakeServer({
      route: (url, _request, response) => {
        if (url !== "/metrics") return false;
        response.writeHead(200, { "content-type": "text/plain" });
        const timer = setInterval(
          () => (response.destroyed ? clearInterval(timer) : response.write("#\n")),
          20,
        );
        return true;
      },
    });
    const control = createControlClient({ baseUrl: server.baseUrl, timeoutMs: 300 });
    const started = performance.now();
    await expect(control.get("/metrics")).rejects.toThrow(
      /GET \/metrics: no complete answer within 300 ms \(the control-request deadline\)/,
    );
    expect(performance.now() - started).toBeLessThan(2_000);
    await control.close();
  });

  it("refuses an answer larger than its limit", async () => {
    server = await startFakeServer({
      route: (url, _request, response) => {
        if (url !== "/metrics") return false;
        response.writeHead(200, { "content-type": "text/plain" });
        response.end(Buffer.alloc(controlBodyLimitBytes + 1024, "a".charCodeAt(0)));
        return true;
      },
    });
    const control = createControlClient({ baseUrl: server.baseUrl });
    await expect(control.get("/metrics")).rejects.toThrow(
      new RegExp(`larger than ${controlBodyLimitBytes} bytes \\(the control-request limit\\)`),
    );
    await control.close();
  });
});
