import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import { Agent, type Dispatcher, Pool } from "undici";
import type { AnswerSummary } from "./answer-stream.js";
import { classifyTransportError, describeTransportError, type ErrorKind } from "./errors.js";
import { type CapturedOutput, OutputCapture } from "./output-capture.js";
import { CompletionStreamReader } from "./sse-stream.js";

/**
 * How much of an HTTP error's body is kept for its message: 64 KiB. The rest is not read: a request whose
 * error body goes on is failed as `http_<status>` as soon as the limit is reached (or at its deadline).
 */
export const errorBodyLimitBytes = 64 * 1024;

/** Deadline of the GET requests that open the pool's connections before a run (connection priming). */
export const primeTimeoutMs = 5_000;

/** Largest answer a control request (/metrics, /tokenize, /version, ...) may have: 16 MiB. */
export const controlBodyLimitBytes = 16 * 1024 * 1024;

/**
 * Deadline of a control request, for the whole exchange: 10 s. vLLM answers these in milliseconds; an
 * endpoint that does not answer (a gateway routing only /v1/*) must not hold a run for long.
 */
export const controlTimeoutMs = 10_000;

/** A control request got no complete answer within its deadline. */
export class ControlDeadlineError extends Error {
  override readonly name = "ControlDeadlineError";
}

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
  /** What the chunks carried: where the answer started, reasoning, tool calls (answer-stream.ts). */
  answer: AnswerSummary;
  /** The output, when the request asked to keep it (a quality cell, docs/quality.md). */
  output?: CapturedOutput;
}

interface StreamRequest {
  path: string;
  body: Buffer;
  requestId?: string;
  timeoutMs: number;
  /** Set when the body asks for cumulative usage on every chunk (stream_options.continuous_usage_stats). */
  perChunkUsage?: boolean;
  /** How many choices chunks to make room for up front (max_tokens, +1 for chat's role chunk). */
  expectedChunks?: number;
  /** Keep the output text and logprobs (a quality cell's requests), or only the answer text (a session's turn). */
  keepOutput?: boolean | "text";
}

export interface StreamClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Connections in the pool: the load's concurrency. null = unlimited (open loop without a cap). */
  connections: number | null;
}

/** A request in flight, as the stall report sees it (times: performance.now() milliseconds). */
export interface InFlightRequest {
  readonly requestId: string | null;
  readonly sentAt: number;
  /** The last sign of life: its last chunk, else its response headers, else when it was sent. */
  readonly lastActivityAt: number;
  /** SSE chunks received so far. */
  readonly chunks: number;
  readonly timeoutMs: number;
}

export interface StreamClient {
  stream(request: StreamRequest): Promise<StreamOutcome>;
  /** The requests in flight now (for the stall report; costs nothing until called). */
  inFlight(): InFlightRequest[];
  /** Requests currently holding a connection (on the wire), and the most seen at once. */
  readonly onSocket: number;
  readonly peakOnSocket: number;
  resetPeak(): void;
  /**
   * Opens `count` connections up front (concurrent GETs of `path`), so the measured phase does not pay
   * TCP set-up in its first requests' TTFT. Each GET has primeTimeoutMs (abortAll ends them at once).
   * Resolves with how many answered, and why the first that did not.
   */
  prime(count: number, path?: string): Promise<{ answered: number; problem: string | null }>;
  /** Ends every request in flight now, as failed with kind "aborted" (an interrupted run), and priming. */
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
  // The reader parses the bytes as they come: a compressed stream cannot be timed chunk by chunk.
  baseHeaders["accept-encoding"] = "identity";
  if (options.apiKey) baseHeaders.authorization = `Bearer ${options.apiKey}`;
  /** Aborts the connection-priming GETs (abortAll, close). */
  let primeAbort = new AbortController();

  let onSocket = 0;
  let peakOnSocket = 0;
  /** Requests not yet settled: their cancel function, and how to see where they are. */
  const active = new Map<() => void, () => InFlightRequest>();

  const stream = (request: StreamRequest): Promise<StreamOutcome> =>
    new Promise<StreamOutcome>((resolve) => {
      const reader = new CompletionStreamReader(request.perChunkUsage === true, request.expectedChunks);
      const capture =
        request.keepOutput === true
          ? new OutputCapture()
          : request.keepOutput === "text"
            ? new OutputCapture({ textOnly: true })
            : null;
      reader.capture = capture;
      const sentAt = performance.now();
      let onSocketAt: number | null = null;
      let headersAt: number | null = null;
      let status: number | null = null;
      let errorBody: Buffer[] | null = null;
      let errorBodyBytes = 0;
      let contentType: string | null = null;
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
        resolve({
          ...outcome,
          sentAt,
          onSocketAt,
          headersAt,
          httpStatus: status,
          ...(capture !== null ? { output: capture.result() } : {}),
        });
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
          answer: reader.answer(),
        });

      const stopWith = (kind: ErrorKind, message: string) => {
        timedOut = true;
        fail(kind, message);
        controller?.abort(new RequestTimeoutError(message));
      };
      const errorText = () => Buffer.concat(errorBody ?? []).toString("utf8");
      const timer = setTimeout(() => {
        // An error status is what the request got, even when its body never ended.
        if (errorBody !== null) {
          stopWith(
            `http_${status ?? 0}`,
            `${httpErrorMessage(status ?? 0, errorText())} (the error body did not end within ${request.timeoutMs} ms, timeout_s)`,
          );
        } else stopWith("timeout", `no complete response within ${request.timeoutMs} ms (timeout_s)`);
      }, request.timeoutMs);
      const cancel = () => stopWith("aborted", "cancelled: the run was interrupted");
      active.set(cancel, () => {
        return {
          requestId: request.requestId ?? null,
          sentAt,
          lastActivityAt: reader.lastChunkAt ?? headersAt ?? sentAt,
          chunks: reader.chunkCount,
          timeoutMs: request.timeoutMs,
        };
      });

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
        onResponseStart(_controller, statusCode, headers) {
          headersAt = performance.now();
          status = statusCode;
          if (statusCode !== 200) {
            errorBody = [];
            return;
          }
          contentType = headerValue(headers["content-type"]);
          const encoding = headerValue(headers["content-encoding"]);
          if (encoding !== null && encoding.toLowerCase() !== "identity") {
            stopWith(
              "unsupported_encoding",
              `the server sent the stream with content-encoding: ${encoding}; the client reads uncompressed streams only (it asks for accept-encoding: identity)`,
            );
          }
        },
        onResponseData(_controller, chunk) {
          if (settled) return;
          if (errorBody !== null) {
            const room = errorBodyLimitBytes - errorBodyBytes;
            errorBody.push(room < chunk.length ? chunk.subarray(0, room) : chunk);
            errorBodyBytes += Math.min(room, chunk.length);
            if (errorBodyBytes >= errorBodyLimitBytes) {
              stopWith(
                `http_${status ?? 0}`,
                `${httpErrorMessage(status ?? 0, errorText())} (error body cut at ${errorBodyLimitBytes} bytes, the client's limit)`,
              );
            }
            return;
          }
          reader.feed(chunk, performance.now());
          if (reader.oversized !== null) stopWith("oversized_event", reader.oversized);
        },
        onResponseEnd() {
          const endAt = performance.now();
          if (errorBody !== null) {
            fail(`http_${status ?? 0}`, httpErrorMessage(status ?? 0, errorText()), endAt);
            return;
          }
          reader.finish(endAt);
          const finishReason = reader.finishReason();
          if (reader.streamError !== null) return fail("stream_error", reader.streamError, endAt);
          if (reader.malformed !== null) return fail("malformed", reader.malformed, endAt);
          if (!reader.sawChoices) {
            const notSse =
              contentType !== null && !contentType.toLowerCase().startsWith("text/event-stream")
                ? ` (content-type: ${contentType}, not text/event-stream)`
                : "";
            return fail("no_output", `the stream ended without any choices chunk${notSse}`, endAt);
          }
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
            answer: reader.answer(),
          });
        },
        onResponseError(_controller, error) {
          if (error instanceof RequestTimeoutError) return;
          fail(classifyTransportError(error), describeTransportError(error, options.baseUrl));
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
        fail(classifyTransportError(error), describeTransportError(error, options.baseUrl));
      }
    });

  return {
    stream,
    inFlight: () => [...active.values()].map((view) => view()),
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
      for (const cancel of [...active.keys()]) cancel();
      primeAbort.abort(new Error("the run was interrupted"));
      primeAbort = new AbortController();
    },
    async prime(count, primePath = "/health") {
      const deadline = AbortSignal.timeout(primeTimeoutMs);
      const signal = AbortSignal.any([deadline, primeAbort.signal]);
      // Every priming request listens on this one signal: that many listeners are expected, not a leak.
      setMaxListeners(count + 10, signal);
      let problem: string | null = null;
      const answers = await Promise.all(
        Array.from({ length: count }, () =>
          pool
            .request({
              path: pathPrefix + primePath,
              method: "GET",
              headers: baseHeaders,
              signal,
              headersTimeout: primeTimeoutMs,
              bodyTimeout: primeTimeoutMs,
            })
            .then(async (response) => {
              await response.body.dump({ limit: 64 * 1024, signal });
              return 1;
            })
            .catch((error: unknown) => {
              problem ??= deadline.aborted
                ? `GET ${primePath} did not answer within ${primeTimeoutMs} ms (the connection-priming deadline)`
                : signal.aborted
                  ? "connection priming was interrupted"
                  : `GET ${primePath} failed: ${describeTransportError(error, options.baseUrl)}`;
              return 0;
            }),
        ),
      );
      return { answered: answers.reduce<number>((sum, value) => sum + value, 0), problem };
    },
    async close() {
      await pool.destroy();
    },
  };
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : value;
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
  const timeoutMs = options.timeoutMs ?? controlTimeoutMs;
  const agent = new Agent({ connections: 4, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const base = options.baseUrl.replace(/\/+$/, "");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const send = async (url: string, method: "GET" | "POST", body?: unknown) => {
    const target = new URL(url);
    // One deadline for the whole exchange: undici's timeouts are idle times, which a trickle never hits.
    const signal = AbortSignal.timeout(timeoutMs);
    const what = `${method} ${target.pathname}`;
    try {
      const response = await agent.request({
        origin: target.origin,
        path: target.pathname + target.search,
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
      const parts: Buffer[] = [];
      let size = 0;
      for await (const part of response.body as AsyncIterable<Buffer>) {
        size += part.length;
        if (size > controlBodyLimitBytes) {
          response.body.destroy();
          throw new Error(
            `${what}: the answer is larger than ${controlBodyLimitBytes} bytes (the control-request limit)`,
          );
        }
        parts.push(part);
      }
      return { status: response.statusCode, text: Buffer.concat(parts).toString("utf8") };
    } catch (error) {
      if (signal.aborted) {
        throw new ControlDeadlineError(
          `${what}: no complete answer within ${timeoutMs} ms (the control-request deadline)`,
        );
      }
      throw error;
    }
  };
  return {
    get: (path) => send(base + path, "GET"),
    post: (path, body) => send(base + path, "POST", body),
    getUrl: (url) => send(url, "GET"),
    close: () => agent.close(),
  };
}
