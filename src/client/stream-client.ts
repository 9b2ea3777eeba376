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
  const target: PoolTarget = {
    pool: loadPool(url.origin, options.connections),
    pathPrefix: url.pathname.replace(/\/+$/, ""),
    headers: streamHeaders(options.apiKey),
    baseUrl: options.baseUrl,
  };
  const exchanges: ExchangeContext = {
    baseUrl: options.baseUrl,
    sockets: new SocketCount(),
    active: new Set(),
  };
  /** Aborts the connection-priming GETs (abortAll, close). */
  let primeAbort = new AbortController();
  return {
    stream: (request) =>
      new Promise<StreamOutcome>((resolve) =>
        new StreamExchange(request, exchanges, resolve).dispatch(target),
      ),
    inFlight: () => [...exchanges.active].map((exchange) => exchange.view()),
    get onSocket() {
      return exchanges.sockets.now;
    },
    get peakOnSocket() {
      return exchanges.sockets.peak;
    },
    resetPeak() {
      exchanges.sockets.peak = exchanges.sockets.now;
    },
    abortAll() {
      for (const exchange of [...exchanges.active]) exchange.cancel();
      primeAbort.abort(new Error("the run was interrupted"));
      primeAbort = new AbortController();
    },
    prime: (count, primePath = "/health") => primeConnections(target, count, primePath, primeAbort.signal),
    async close() {
      await target.pool.destroy();
    },
  };
}

/** Where a stream client sends: its pool, the base URL's path, the headers of every request. */
interface PoolTarget {
  readonly pool: Pool;
  readonly pathPrefix: string;
  readonly headers: Record<string, string>;
  readonly baseUrl: string;
}

function loadPool(origin: string, connections: number | null): Pool {
  return new Pool(origin, {
    connections,
    pipelining: 1,
    // Our own per-request deadline applies; undici's idle timeouts would cut long generations.
    headersTimeout: 0,
    bodyTimeout: 0,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
  });
}

function streamHeaders(apiKey: string | undefined): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "text/event-stream",
    // The reader parses the bytes as they come: a compressed stream cannot be timed chunk by chunk.
    "accept-encoding": "identity",
    ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  };
}

/**
 * Opens `count` connections with concurrent GETs of `path`, each within primeTimeoutMs (or until `abort`):
 * how many answered, and why the first that did not.
 */
async function primeConnections(
  target: PoolTarget,
  count: number,
  path: string,
  abort: AbortSignal,
): Promise<{ answered: number; problem: string | null }> {
  const deadline = AbortSignal.timeout(primeTimeoutMs);
  const signal = AbortSignal.any([deadline, abort]);
  // Every priming request listens on this one signal: that many listeners are expected, not a leak.
  setMaxListeners(count + 10, signal);
  let problem: string | null = null;
  const answers = await Promise.all(
    Array.from({ length: count }, () =>
      target.pool
        .request({
          path: target.pathPrefix + path,
          method: "GET",
          headers: target.headers,
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
            ? `GET ${path} did not answer within ${primeTimeoutMs} ms (the connection-priming deadline)`
            : signal.aborted
              ? "connection priming was interrupted"
              : `GET ${path} failed: ${describeTransportError(error, target.baseUrl)}`;
          return 0;
        }),
    ),
  );
  return { answered: answers.reduce<number>((sum, value) => sum + value, 0), problem };
}

/** The connections a client's requests hold now (on the wire), and the most at once. */
class SocketCount {
  now = 0;
  peak = 0;
  take(): void {
    this.now++;
    if (this.now > this.peak) this.peak = this.now;
  }
  release(): void {
    this.now--;
  }
}

/** What a client's exchanges share: the base URL for messages, the socket count, the requests not yet settled. */
interface ExchangeContext {
  readonly baseUrl: string;
  readonly sockets: SocketCount;
  readonly active: Set<StreamExchange>;
}

type Ending = Omit<StreamOutcome, "sentAt" | "onSocketAt" | "headersAt" | "httpStatus">;

/**
 * One streamed request from its dispatch to its outcome, as undici's raw dispatch handler: it times the
 * request, feeds the chunks to the reader, keeps an error status's body (up to errorBodyLimitBytes), and
 * settles once, on the response's end, a transport error, its deadline or a cancel.
 */
class StreamExchange implements Dispatcher.DispatchHandler {
  private readonly reader: CompletionStreamReader;
  private readonly capture: OutputCapture | null;
  private readonly sentAt: number;
  private onSocketAt: number | null = null;
  private headersAt: number | null = null;
  private status: number | null = null;
  /** The body of an error status (not 200), as far as it is kept; null for a stream. */
  private errorBody: Buffer[] | null = null;
  private errorBodyBytes = 0;
  private contentType: string | null = null;
  private controller: Dispatcher.DispatchController | null = null;
  private settled = false;
  private holdsSocket = false;
  private stopped = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly request: StreamRequest,
    private readonly context: ExchangeContext,
    private readonly resolve: (outcome: StreamOutcome) => void,
  ) {
    this.reader = new CompletionStreamReader(request.perChunkUsage === true, request.expectedChunks);
    this.capture =
      request.keepOutput === true
        ? new OutputCapture()
        : request.keepOutput === "text"
          ? new OutputCapture({ textOnly: true })
          : null;
    this.reader.capture = this.capture;
    this.sentAt = performance.now();
    this.timer = setTimeout(() => this.onDeadline(), request.timeoutMs);
    context.active.add(this);
  }

  dispatch(target: PoolTarget): void {
    const request = this.request;
    const headers = request.requestId
      ? { ...target.headers, "x-request-id": request.requestId }
      : target.headers;
    try {
      target.pool.dispatch(
        { path: target.pathPrefix + request.path, method: "POST", headers, body: request.body },
        this,
      );
    } catch (error) {
      this.fail(classifyTransportError(error), describeTransportError(error, this.context.baseUrl));
    }
  }

  /** Where the request stands, for the stall report. */
  view(): InFlightRequest {
    return {
      requestId: this.request.requestId ?? null,
      sentAt: this.sentAt,
      lastActivityAt: this.reader.lastChunkAt ?? this.headersAt ?? this.sentAt,
      chunks: this.reader.chunkCount,
      timeoutMs: this.request.timeoutMs,
    };
  }

  cancel(): void {
    this.stopWith("aborted", "cancelled: the run was interrupted");
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.stopped) {
      controller.abort(new RequestTimeoutError("timed out before it was sent"));
      return;
    }
    this.onSocketAt = performance.now();
    if (!this.holdsSocket) {
      this.holdsSocket = true;
      this.context.sockets.take();
    }
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.headersAt = performance.now();
    this.status = statusCode;
    if (statusCode !== 200) {
      this.errorBody = [];
      return;
    }
    this.contentType = headerValue(headers["content-type"]);
    const encoding = headerValue(headers["content-encoding"]);
    if (encoding !== null && encoding.toLowerCase() !== "identity") {
      this.stopWith(
        "unsupported_encoding",
        `the server sent the stream with content-encoding: ${encoding}; the client reads uncompressed streams only (it asks for accept-encoding: identity)`,
      );
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.errorBody !== null) {
      this.keepErrorBody(this.errorBody, chunk);
      return;
    }
    this.reader.feed(chunk, performance.now());
    if (this.reader.oversized !== null) this.stopWith("oversized_event", this.reader.oversized);
  }

  onResponseEnd(): void {
    const endAt = performance.now();
    if (this.errorBody !== null) {
      this.fail(this.httpKind(), httpErrorMessage(this.status ?? 0, this.errorText()), endAt);
      return;
    }
    const reader = this.reader;
    reader.finish(endAt);
    const problem = this.streamProblem();
    const chunkTimes = reader.chunkTimes;
    // A complete answer ends at its last chunk; a failed one when the failure was seen.
    this.settle(
      this.ending(problem, problem === null ? (chunkTimes[chunkTimes.length - 1] ?? endAt) : endAt),
    );
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (error instanceof RequestTimeoutError) return;
    this.fail(classifyTransportError(error), describeTransportError(error, this.context.baseUrl));
  }

  /** Why a stream that ended is not a complete answer, or null when it is. */
  private streamProblem(): { kind: ErrorKind; message: string } | null {
    const reader = this.reader;
    if (reader.streamError !== null) return { kind: "stream_error", message: reader.streamError };
    if (reader.malformed !== null) return { kind: "malformed", message: reader.malformed };
    if (!reader.sawChoices) {
      const contentType = this.contentType;
      const notSse =
        contentType !== null && !contentType.toLowerCase().startsWith("text/event-stream")
          ? ` (content-type: ${contentType}, not text/event-stream)`
          : "";
      return { kind: "no_output", message: `the stream ended without any choices chunk${notSse}` };
    }
    if (!reader.done && reader.finishReason() === null)
      return { kind: "incomplete", message: "the stream ended without [DONE] or a finish reason" };
    return null;
  }

  /** An error status's body, kept up to errorBodyLimitBytes: at the limit the request fails at once. */
  private keepErrorBody(body: Buffer[], chunk: Buffer): void {
    const room = errorBodyLimitBytes - this.errorBodyBytes;
    body.push(room < chunk.length ? chunk.subarray(0, room) : chunk);
    this.errorBodyBytes += Math.min(room, chunk.length);
    if (this.errorBodyBytes >= errorBodyLimitBytes) {
      this.stopWith(
        this.httpKind(),
        `${httpErrorMessage(this.status ?? 0, this.errorText())} (error body cut at ${errorBodyLimitBytes} bytes, the client's limit)`,
      );
    }
  }

  private onDeadline(): void {
    // An error status is what the request got, even when its body never ended.
    if (this.errorBody !== null) {
      this.stopWith(
        this.httpKind(),
        `${httpErrorMessage(this.status ?? 0, this.errorText())} (the error body did not end within ${this.request.timeoutMs} ms, timeout_s)`,
      );
    } else this.stopWith("timeout", `no complete response within ${this.request.timeoutMs} ms (timeout_s)`);
  }

  private httpKind(): ErrorKind {
    return `http_${this.status ?? 0}`;
  }

  private errorText(): string {
    return Buffer.concat(this.errorBody ?? []).toString("utf8");
  }

  /** Fails the request now and aborts what is still on the wire. */
  private stopWith(kind: ErrorKind, message: string): void {
    this.stopped = true;
    this.fail(kind, message);
    this.controller?.abort(new RequestTimeoutError(message));
  }

  private fail(kind: ErrorKind, message: string, endAt = performance.now()): void {
    this.settle(this.ending({ kind, message }, endAt));
  }

  /** The request's ending with what the reader has of the answer: complete (`error` null) or failed. */
  private ending(error: { kind: ErrorKind; message: string } | null, endAt: number): Ending {
    const reader = this.reader;
    return {
      ok: error === null,
      errorKind: error?.kind ?? null,
      errorMessage: error?.message ?? null,
      chunkTimes: reader.chunkTimes,
      chunkTokens: reader.chunkTokens,
      endAt,
      promptTokens: reader.usage?.promptTokens ?? null,
      completionTokens: reader.usage?.completionTokens ?? null,
      cachedTokens: reader.usage?.cachedTokens ?? null,
      finishReason: reader.finishReason(),
      answer: reader.answer(),
    };
  }

  private settle(ending: Ending): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.context.active.delete(this);
    if (this.holdsSocket) {
      this.holdsSocket = false;
      this.context.sockets.release();
    }
    const capture = this.capture;
    this.resolve({
      ...ending,
      sentAt: this.sentAt,
      onSocketAt: this.onSocketAt,
      headersAt: this.headersAt,
      httpStatus: this.status,
      ...(capture !== null ? { output: capture.result() } : {}),
    });
  }
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
