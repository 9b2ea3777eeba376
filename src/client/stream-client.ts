import { performance } from "node:perf_hooks";
import { Agent, type Dispatcher, Pool } from "undici";
import { classifyTransportError, describeError, type ErrorKind } from "./errors.js";
import { CompletionStreamReader } from "./sse-stream.js";

/** The outcome of one streamed request; times are monotonic milliseconds (performance.now()). */
export interface StreamOutcome {
  ok: boolean;
  errorKind: ErrorKind | null;
  errorMessage: string | null;
  httpStatus: number | null;
  sentAt: number;
  /** When the request got a connection of its own (undici handed it to a socket). */
  onSocketAt: number | null;
  headersAt: number | null;
  chunkTimes: number[];
  chunkTokens: number[] | null;
  endAt: number;
  promptTokens: number | null;
  completionTokens: number | null;
  cachedTokens: number | null;
  finishReason: string | null;
}

export interface StreamRequest {
  path: string;
  body: Buffer;
  requestId?: string;
  timeoutMs: number;
  /** Set when the body asks for cumulative usage on every chunk (stream_options.continuous_usage_stats). */
  perChunkUsage?: boolean;
  /** How many choices chunks to make room for up front (max_tokens, +1 for chat's role chunk). */
  expectedChunks?: number;
}

export interface StreamClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Connections in the pool: the load's concurrency. null = unlimited (open loop without a cap). */
  connections: number | null;
}

export interface StreamClient {
  stream(request: StreamRequest): Promise<StreamOutcome>;
  /** Requests currently holding a connection (on the wire), and the most seen at once. */
  readonly onSocket: number;
  readonly peakOnSocket: number;
  resetPeak(): void;
  /**
   * Opens `count` connections up front (concurrent GETs of `path`), so the measured phase does not pay
   * TCP set-up in its first requests' TTFT. Resolves with how many answered.
   */
  prime(count: number, path?: string): Promise<number>;
  /** Ends every request in flight now, as failed with kind "aborted" (an interrupted run). */
  abortAll(): void;
  close(): Promise<void>;
}

class RequestTimeoutError extends Error {
  override readonly name = "RequestTimeoutError";
}

/**
 * An undici pool sized to the load, driven through the raw dispatch handler so a chunk costs one
 * timestamp and one scan, with no stream objects or promises per chunk.
 */
export function createStreamClient(options: StreamClientOptions): StreamClient {
  const url = new URL(options.baseUrl);
  const pathPrefix = url.pathname.replace(/\/+$/, "");
  const pool = new Pool(url.origin, {
    connections: options.connections,
    pipelining: 1,
    // Our own per-request deadline applies; undici's idle timeouts would cut long generations.
    headersTimeout: 0,
    bodyTimeout: 0,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
  });
  const baseHeaders: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
  };
  if (options.apiKey) baseHeaders.authorization = `Bearer ${options.apiKey}`;

  let onSocket = 0;
  let peakOnSocket = 0;
  /** Cancel functions of requests not yet settled. */
  const active = new Set<() => void>();

  const stream = (request: StreamRequest): Promise<StreamOutcome> =>
    new Promise<StreamOutcome>((resolve) => {
      const reader = new CompletionStreamReader(request.perChunkUsage === true, request.expectedChunks);
      const sentAt = performance.now();
      let onSocketAt: number | null = null;
      let headersAt: number | null = null;
      let status: number | null = null;
      let errorBody: Buffer[] | null = null;
      let controller: Dispatcher.DispatchController | null = null;
      let settled = false;
      let holdsSocket = false;
      let timedOut = false;

      const releaseSocket = () => {
        if (holdsSocket) {
          holdsSocket = false;
          onSocket--;
        }
      };
      const settle = (outcome: Omit<StreamOutcome, "sentAt" | "onSocketAt" | "headersAt" | "httpStatus">) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        active.delete(cancel);
        releaseSocket();
        resolve({ ...outcome, sentAt, onSocketAt, headersAt, httpStatus: status });
      };
      const fail = (kind: ErrorKind, message: string, endAt = performance.now()) =>
        settle({
          ok: false,
          errorKind: kind,
          errorMessage: message,
          chunkTimes: reader.chunkTimes,
          chunkTokens: reader.chunkTokens,
          endAt,
          promptTokens: reader.usage?.promptTokens ?? null,
          completionTokens: reader.usage?.completionTokens ?? null,
          cachedTokens: reader.usage?.cachedTokens ?? null,
          finishReason: reader.finishReason(),
        });

      const stopWith = (kind: "timeout" | "aborted", message: string) => {
        timedOut = true;
        fail(kind, message);
        controller?.abort(new RequestTimeoutError(message));
      };
      const timer = setTimeout(
        () => stopWith("timeout", `no complete response within ${request.timeoutMs} ms`),
        request.timeoutMs,
      );
      const cancel = () => stopWith("aborted", "cancelled: the run was interrupted");
      active.add(cancel);

      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(requestController) {
          controller = requestController;
          if (timedOut) {
            requestController.abort(new RequestTimeoutError("timed out before it was sent"));
            return;
          }
          onSocketAt = performance.now();
          if (!holdsSocket) {
            holdsSocket = true;
            onSocket++;
            if (onSocket > peakOnSocket) peakOnSocket = onSocket;
          }
        },
        onResponseStart(_controller, statusCode) {
          headersAt = performance.now();
          status = statusCode;
          if (statusCode !== 200) errorBody = [];
        },
        onResponseData(_controller, chunk) {
          if (errorBody !== null) errorBody.push(chunk);
          else reader.feed(chunk, performance.now());
        },
        onResponseEnd() {
          const endAt = performance.now();
          if (errorBody !== null) {
            fail(
              `http_${status ?? 0}`,
              httpErrorMessage(status ?? 0, Buffer.concat(errorBody).toString("utf8")),
              endAt,
            );
            return;
          }
          reader.finish(endAt);
          const finishReason = reader.finishReason();
          if (reader.streamError !== null) return fail("stream_error", reader.streamError, endAt);
          if (reader.malformed !== null) return fail("malformed", reader.malformed, endAt);
          if (!reader.sawChoices)
            return fail("no_output", "the stream ended without any choices chunk", endAt);
          if (!reader.done && finishReason === null) {
            return fail("incomplete", "the stream ended without [DONE] or a finish reason", endAt);
          }
          const chunkTimes = reader.chunkTimes;
          settle({
            ok: true,
            errorKind: null,
            errorMessage: null,
            chunkTimes,
            chunkTokens: reader.chunkTokens,
            endAt: chunkTimes[chunkTimes.length - 1] ?? endAt,
            promptTokens: reader.usage?.promptTokens ?? null,
            completionTokens: reader.usage?.completionTokens ?? null,
            cachedTokens: reader.usage?.cachedTokens ?? null,
            finishReason,
          });
        },
        onResponseError(_controller, error) {
          if (error instanceof RequestTimeoutError) return;
          fail(classifyTransportError(error), describeError(error));
        },
      };

      const headers: Record<string, string> = request.requestId
        ? { ...baseHeaders, "x-request-id": request.requestId }
        : baseHeaders;
      try {
        pool.dispatch(
          { path: pathPrefix + request.path, method: "POST", headers, body: request.body },
          handler,
        );
      } catch (error) {
        fail(classifyTransportError(error), describeError(error));
      }
    });

  return {
    stream,
    get onSocket() {
      return onSocket;
    },
    get peakOnSocket() {
      return peakOnSocket;
    },
    resetPeak() {
      peakOnSocket = onSocket;
    },
    abortAll() {
      for (const cancel of [...active]) cancel();
    },
    async prime(count, primePath = "/health") {
      const answers = await Promise.all(
        Array.from({ length: count }, () =>
          pool
            .request({ path: pathPrefix + primePath, method: "GET", headers: baseHeaders })
            .then(async (response) => {
              await response.body.dump();
              return 1;
            })
            .catch(() => 0),
        ),
      );
      return answers.reduce<number>((sum, value) => sum + value, 0);
    },
    async close() {
      await pool.destroy();
    },
  };
}

function httpErrorMessage(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
    const error = parsed.error;
    const message = typeof error === "string" ? error : (error?.message ?? parsed.message);
    if (message) return `HTTP ${status}: ${message}`;
  } catch {
    // not JSON: fall through to the raw text
  }
  const text = body.trim();
  return text.length > 0 ? `HTTP ${status}: ${text.slice(0, 300)}` : `HTTP ${status}`;
}

/** Small JSON requests beside the load (fingerprint, tokenize, cache reset, /metrics), on their own agent. */
export interface ControlClient {
  get(path: string): Promise<{ status: number; text: string }>;
  post(path: string, body: unknown): Promise<{ status: number; text: string }>;
  getUrl(url: string): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

export function createControlClient(options: {
  baseUrl: string;
  apiKey?: string;
  timeoutMs?: number;
}): ControlClient {
  const agent = new Agent({
    connections: 4,
    headersTimeout: options.timeoutMs ?? 30_000,
    bodyTimeout: options.timeoutMs ?? 30_000,
  });
  const base = options.baseUrl.replace(/\/+$/, "");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const send = async (url: string, method: "GET" | "POST", body?: unknown) => {
    const response = await agent.request({
      origin: new URL(url).origin,
      path: new URL(url).pathname + new URL(url).search,
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    return { status: response.statusCode, text };
  };
  return {
    get: (path) => send(base + path, "GET"),
    post: (path, body) => send(base + path, "POST", body),
    getUrl: (url) => send(url, "GET"),
    close: () => agent.close(),
  };
}
