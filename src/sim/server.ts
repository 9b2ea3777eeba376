import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { MonotonicClock } from "../util/clock.js";
import { mixSeed, type Random, seededRandom } from "../util/random.js";
import { Engine, type StepEvent } from "./engine.js";
import { writeEventChunk } from "./event-stream.js";
import { HttpMetrics } from "./http-metrics.js";
import { StepLoop } from "./loop.js";
import { renderMetrics } from "./metrics-text.js";
import {
  applyOverrides,
  checkKvCapacity,
  coerceOverrides,
  ProfileError,
  type SimProfile,
} from "./profile.js";
import {
  ChunkWriter,
  chatPromptTokens,
  completionResponse,
  doneEvent,
  type Endpoint,
  errorBody,
  type GenerationRequest,
  ProtocolError,
  type ProtocolShape,
  parseGenerationRequest,
  protocolShapeOf,
  streamErrorEvent,
  usageOf,
} from "./protocol.js";
import { detokenize, tokenize, tokenText } from "./tokenizer.js";

export interface ChunkRecord {
  /** The response's `id` (cmpl-... / chatcmpl-...). */
  requestId: string;
  /** The client's `x-request-id` header, when sent. */
  clientRequestId: string | undefined;
  /** performance.timeOrigin + performance.now() when the chunk was handed to the socket (ms). */
  timeMs: number;
  /** Output tokens the chunk carries (0 for the role chunk, usage chunk, error event and [DONE]). */
  tokens: number;
  kind: "role" | "content" | "usage" | "error" | "done";
}

export interface SimServerOptions {
  profile: SimProfile;
  seed: number;
  model: string;
  apiKey: string | undefined;
  devMode: boolean;
  recordChunkTimes: boolean;
  clock: MonotonicClock;
  spinMs: number | undefined;
  /** See LoopOptions.stepProbe. */
  loopProbe?: () => number;
  /** Called when an injected fault kills the engine (the CLI exits the process). */
  onEngineDeath: (reason: string) => void;
}

const maxBodyBytes = 64 * 1024 * 1024;

interface FaultPlan {
  kind: "midstream" | "reset";
  afterTokens: number;
}

/** One generation request in flight: turns engine events into the response the client reads. */
class ActiveRequest {
  readonly writer: ChunkWriter;
  private pendingText = "";
  private pendingTokens = 0;
  private sentTokens = 0;
  /** SSE events produced by the current delivery, written together by flush(). */
  private outgoing = "";
  private lastEvent: StepEvent | undefined;
  /** In the server's flush list for the current delivery. */
  queued = false;
  private fullText = "";
  done = false;

  constructor(
    readonly server: SimServer,
    readonly req: GenerationRequest,
    readonly res: ServerResponse,
    readonly id: string,
    readonly created: number,
    readonly clientRequestId: string | undefined,
    readonly fault: FaultPlan | undefined,
  ) {
    this.writer = new ChunkWriter(req.endpoint, id, created, req.model, server.protocolShape);
  }

  start(): void {
    if (!this.req.stream) return;
    this.server.writeHead(this.res, 200, "text/event-stream; charset=utf-8", this.req.endpoint);
    // Headers go out now, as vLLM's streaming response sends them before the first token; otherwise Node
    // holds them for the first chunk and that chunk leaves later than the time recorded for it.
    this.res.flushHeaders();
    if (this.fault?.afterTokens === 0) this.applyFault();
  }

  onEvent(event: StepEvent): void {
    if (this.done || this.server.hung) return;
    const text = event.eos ? "" : tokenText(event.token, event.outputTokens === 1);
    const finish = event.finishReason ?? null;
    if (!this.req.stream) {
      this.fullText += text;
      this.sentTokens = event.outputTokens;
      if (this.fault && this.sentTokens >= this.fault.afterTokens && this.fault.kind === "reset") {
        this.applyFault();
        return;
      }
      if (finish) this.finishPlain(finish, event.outputTokens, this.cachedTokens(event));
      return;
    }
    if (event.first && this.req.endpoint === "chat") {
      this.outgoing += this.writer.role(
        this.req.continuousUsage ? usageOf(event.promptTokens, 0) : undefined,
      );
      this.record("role", 0);
    }
    this.pendingText += text;
    this.pendingTokens++;
    this.lastEvent = event;
    if (finish !== null) this.finishStream(event, finish);
  }

  /**
   * Sends what this delivery's events produced as one write: normally one token, several when the
   * simulator caught up on steps it was late for (merged into one chunk, as vLLM V1 does).
   */
  flush(): void {
    if (this.done || this.server.hung || !this.req.stream) return;
    const event = this.lastEvent;
    if (event && this.pendingTokens >= this.server.profile.tokens_per_chunk) {
      this.outgoing += this.contentChunk(event, null);
    }
    if (this.outgoing === "") return;
    writeEventChunk(this.res, this.outgoing);
    this.outgoing = "";
    if (this.fault && this.sentTokens >= this.fault.afterTokens) this.applyFault();
  }

  private contentChunk(event: StepEvent, finish: string | null): string {
    const usage = this.req.continuousUsage ? usageOf(event.promptTokens, event.outputTokens) : undefined;
    const chunk = this.writer.content(this.pendingText, finish, usage);
    this.record("content", this.pendingTokens);
    this.sentTokens += this.pendingTokens;
    this.pendingText = "";
    this.pendingTokens = 0;
    return chunk;
  }

  private finishStream(event: StepEvent, finish: string): void {
    let out = this.outgoing + this.contentChunk(event, finish);
    this.outgoing = "";
    if (this.req.includeUsage) {
      out += this.writer.usage(usageOf(event.promptTokens, event.outputTokens, this.cachedTokens(event)));
      this.record("usage", 0);
    }
    out += doneEvent;
    this.record("done", 0);
    this.done = true;
    this.res.end(out);
    this.server.completed(this);
  }

  private cachedTokens(event: StepEvent): number | undefined {
    return this.server.profile.enable_prompt_tokens_details ? event.cachedPromptTokens : undefined;
  }

  private finishPlain(finish: string, completionTokens: number, cachedTokens: number | undefined): void {
    this.done = true;
    const body = completionResponse(
      this.req,
      this.id,
      this.created,
      this.fullText,
      finish,
      completionTokens,
      cachedTokens,
      this.server.protocolShape,
    );
    this.server.sendJson(this.res, 200, body, this.req.endpoint);
    this.server.completed(this);
  }

  /** The engine gave up on the request (it can never fit in the KV cache). */
  reject(): void {
    if (this.done) return;
    this.done = true;
    const message = "The request cannot fit in the KV cache and was aborted.";
    if (this.req.stream) {
      this.record("error", 0);
      this.record("done", 0);
      this.res.end(streamErrorEvent(500, message) + doneEvent);
    } else {
      this.server.sendJson(this.res, 500, errorBody(500, message), this.req.endpoint);
    }
    this.server.forget(this);
  }

  private applyFault(): void {
    const fault = this.fault!;
    this.done = true;
    this.server.abort(this);
    if (fault.kind === "reset") {
      const socket = this.res.socket as (Socket & { resetAndDestroy?: () => void }) | null;
      if (socket?.resetAndDestroy) socket.resetAndDestroy();
      else socket?.destroy();
      return;
    }
    this.record("error", 0);
    this.record("done", 0);
    this.res.end(streamErrorEvent(500, "Simulated fault: the engine failed mid-stream.") + doneEvent);
  }

  private record(kind: ChunkRecord["kind"], tokens: number): void {
    if (!this.server.options.recordChunkTimes) return;
    this.server.chunkLog.push({
      requestId: this.id,
      clientRequestId: this.clientRequestId,
      timeMs: performance.timeOrigin + performance.now(),
      tokens,
      kind,
    });
  }
}

export class SimServer {
  readonly engine: Engine;
  readonly loop: StepLoop;
  readonly http: Server;
  readonly chunkLog: ChunkRecord[] = [];
  readonly httpMetrics = new HttpMetrics();
  /** What the instrumentator will record for a response when it ends. */
  private readonly httpRecords = new WeakMap<
    ServerResponse,
    { handler: string; status: number; responseBytes: number }
  >();
  hung = false;
  dead = false;
  private readonly active = new Map<string, ActiveRequest>();
  private readonly faultRandom: Random;
  private readonly startedAt: number;
  /** Unix seconds the server started: the metrics' `_created` samples. */
  private readonly createdAt = Date.now() / 1000;
  private completedCount = 0;
  private readonly sockets = new Set<Socket>();
  /** Requests with output from the delivery in progress (reused to spare an allocation per step). */
  private readonly touched: ActiveRequest[] = [];

  constructor(readonly options: SimServerOptions) {
    this.engine = new Engine(options.profile, options.seed);
    this.loop = new StepLoop(
      this.engine,
      options.clock,
      (events, rejected) => this.deliver(events, rejected),
      {
        spinMs: options.spinMs,
        stepProbe: options.loopProbe,
      },
    );
    this.faultRandom = seededRandom(mixSeed(options.seed, 0xfa17));
    this.startedAt = options.clock.now();
    this.http = createServer({ noDelay: true, keepAlive: true }, (req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) this.sendJson(res, 500, errorBody(500, String(error)), "other");
        else res.destroy();
      });
    });
    this.http.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  get profile(): SimProfile {
    return this.engine.config;
  }

  get protocolShape(): ProtocolShape {
    return protocolShapeOf(this.engine.config.vllm_version);
  }

  setProfile(overrides: Record<string, unknown>, where: string): SimProfile {
    const next = applyOverrides(this.engine.config, overrides, where);
    checkKvCapacity(next, where);
    if (next.block_size !== this.engine.config.block_size && this.engine.hasWork()) {
      throw new ProfileError(`${where}: field "block_size": can only change while no request is in flight`);
    }
    this.engine.setProfile(next);
    return next;
  }

  private deliver(events: StepEvent[], rejected: string[]): void {
    // One broken response must not stop the loop that serves every other stream.
    const touched = this.touched;
    for (const event of events) {
      const request = this.active.get(event.id);
      if (!request) continue;
      this.guarded(request, () => request.onEvent(event));
      if (!request.queued) {
        request.queued = true;
        touched.push(request);
      }
    }
    for (const request of touched) {
      request.queued = false;
      this.guarded(request, () => request.flush());
    }
    touched.length = 0;
    for (const id of rejected) this.active.get(id)?.reject();
  }

  private guarded(request: ActiveRequest, action: () => void): void {
    try {
      action();
    } catch {
      request.res.destroy();
      this.abort(request);
    }
  }

  completed(request: ActiveRequest): void {
    this.forget(request);
    this.completedCount++;
    const p = this.profile;
    if (p.fault_exit_after_requests > 0 && this.completedCount >= p.fault_exit_after_requests) {
      this.die(`injected fault: the engine exits after ${p.fault_exit_after_requests} requests`);
    }
    if (p.fault_hang_after_requests > 0 && this.completedCount >= p.fault_hang_after_requests)
      this.hung = true;
  }

  forget(request: ActiveRequest): void {
    this.active.delete(request.id);
    this.engine.forget(request.id);
  }

  abort(request: ActiveRequest): void {
    this.engine.abort(request.id, this.options.clock.now());
    this.forget(request);
  }

  private die(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.loop.stop();
    setImmediate(() => {
      for (const socket of this.sockets) socket.destroy();
      this.options.onEngineDeath(reason);
    });
  }

  /** Stops everything: the loop, every connection, the listener. */
  async close(): Promise<void> {
    this.loop.stop();
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }

  private starting(): boolean {
    return this.options.clock.now() - this.startedAt < this.profile.startup_delay_s * 1000;
  }

  /**
   * The HTTP metrics of a response, recorded when it ends (as vLLM's instrumentator does: grouped status,
   * and nothing for the handlers it excludes).
   */
  private count(res: ServerResponse, handler: string, status: number, responseBytes = 0): void {
    this.httpRecords.set(res, { handler, status, responseBytes });
  }

  private instrument(req: IncomingMessage, res: ServerResponse, receivedAt: number): void {
    let done = false;
    const record = () => {
      if (done) return;
      done = true;
      const info = this.httpRecords.get(res);
      if (!info) return;
      const requestBytes = Number(req.headers["content-length"] ?? 0) || 0;
      const seconds = (this.options.clock.now() - receivedAt) / 1000;
      this.httpMetrics.record(
        info.handler,
        req.method ?? "GET",
        info.status,
        requestBytes,
        info.responseBytes,
        seconds,
      );
    };
    res.once("finish", record);
    res.once("close", record);
  }

  /** Starlette's StreamingResponse(media_type="text/event-stream") under uvicorn: no cache headers. */
  writeHead(res: ServerResponse, status: number, contentType: string, handler: string): void {
    this.count(res, handlerPath(handler), status);
    res.writeHead(status, { server: "uvicorn", "content-type": contentType });
  }

  sendJson(
    res: ServerResponse,
    status: number,
    body: unknown,
    handler: string,
    extra: Record<string, string> = {},
  ): void {
    const text = JSON.stringify(body);
    this.count(res, handlerPath(handler), status, Buffer.byteLength(text));
    res.writeHead(status, {
      server: "uvicorn",
      "content-length": Buffer.byteLength(text),
      "content-type": "application/json",
      ...extra,
    });
    res.end(text);
  }

  private sendEmpty(res: ServerResponse, status: number, handler: string): void {
    this.count(res, handler, status);
    res.writeHead(status, { server: "uvicorn", "content-length": 0 });
    res.end();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = this.options.clock.now();
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").split("?")[0]!;
    if (this.dead) {
      res.destroy();
      return;
    }
    this.instrument(req, res, receivedAt);
    const o = this.options;
    if (
      o.apiKey !== undefined &&
      path.startsWith("/v1") &&
      req.headers.authorization !== `Bearer ${o.apiKey}`
    ) {
      await drain(req);
      this.sendJson(res, 401, { error: "Unauthorized" }, path);
      return;
    }
    const route = `${method} ${path}`;
    switch (route) {
      case "GET /health":
      case "GET /ping":
      case "POST /ping":
        await drain(req);
        this.sendEmpty(res, this.starting() || this.profile.engine_dead ? 503 : 200, path);
        return;
      case "GET /version":
        this.sendJson(res, 200, { version: this.profile.vllm_version }, path);
        return;
      case "GET /v1/models":
        this.sendJson(res, 200, this.models(), path);
        return;
      case "GET /metrics":
        this.count(res, path, 200);
        res.writeHead(200, { server: "uvicorn", "content-type": "text/plain; version=0.0.4; charset=utf-8" });
        res.end(
          renderMetrics({
            engine: this.engine,
            modelName: o.model,
            http: this.httpMetrics,
            createdAt: this.createdAt,
          }),
        );
        return;
      case "POST /v1/completions":
        return this.generate("completions", req, res, receivedAt);
      case "POST /v1/chat/completions":
        return this.generate("chat", req, res, receivedAt);
      case "POST /tokenize":
        return this.tokenizeRoute(req, res);
      case "POST /detokenize":
        return this.detokenizeRoute(req, res);
      case "GET /admin/config":
        this.sendJson(res, 200, this.adminView(), path);
        return;
      case "GET /admin/chunks": {
        // The truth for a client in another process: ?offset=N skips records already fetched.
        const offset = Number(new URL(req.url ?? "/", "http://sim").searchParams.get("offset") ?? 0);
        const from = Number.isInteger(offset) && offset > 0 ? offset : 0;
        this.sendJson(
          res,
          200,
          { recording: o.recordChunkTimes, total: this.chunkLog.length, records: this.chunkLog.slice(from) },
          path,
        );
        return;
      }
      case "POST /admin/config":
        return this.adminConfig(req, res);
    }
    if (o.devMode) {
      if (route === "POST /reset_prefix_cache") {
        await drain(req);
        this.engine.resetPrefixCache();
        this.sendEmpty(res, 200, path);
        return;
      }
      if (route === "POST /reset_mm_cache" || route === "POST /reset_encoder_cache") {
        await drain(req);
        this.sendEmpty(res, 200, path);
        return;
      }
      if (route === "GET /server_info") {
        this.sendJson(res, 200, { vllm_config: this.adminView() }, path);
        return;
      }
    }
    await drain(req);
    // A path served with other methods: Starlette answers 405 with Allow (the instrumentator labels
    // requests that match no route fully handler="none").
    const allowed = routeMethods(path, o.devMode);
    if (allowed.length > 0) {
      this.sendJson(res, 405, { detail: "Method Not Allowed" }, "none", { allow: allowed.join(", ") });
      return;
    }
    this.sendJson(res, 404, { detail: "Not Found" }, "none");
  }

  private models(): unknown {
    const created = Math.floor(Date.now() / 1000);
    const model = this.options.model;
    return {
      object: "list",
      data: [
        {
          id: model,
          object: "model",
          created,
          owned_by: "vllm",
          root: model,
          parent: null,
          max_model_len: this.profile.max_model_len,
          permission: [
            {
              id: `modelperm-${randomUUID().replaceAll("-", "")}`,
              object: "model_permission",
              created,
              allow_create_engine: false,
              allow_sampling: true,
              allow_logprobs: true,
              allow_search_indices: false,
              allow_view: true,
              allow_fine_tuning: false,
              organization: "*",
              group: null,
              is_blocking: false,
            },
          ],
        },
      ],
    };
  }

  private adminView(): unknown {
    return {
      profile: this.profile,
      model: this.options.model,
      seed: this.options.seed,
      speedFactor: this.engine.speedFactor,
      kvCapacityBlocks: this.engine.kvCapacityBlocks,
      completedRequests: this.completedCount,
    };
  }

  private async adminConfig(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req);
    if (!body.ok || typeof body.value !== "object" || body.value === null || Array.isArray(body.value)) {
      this.sendJson(
        res,
        400,
        errorBody(400, "POST /admin/config expects a JSON object of knobs"),
        "/admin/config",
      );
      return;
    }
    try {
      this.setProfile(
        coerceOverrides(body.value as Record<string, string | number | boolean>),
        "POST /admin/config",
      );
    } catch (error) {
      if (error instanceof ProfileError) {
        this.sendJson(res, 400, errorBody(400, error.message), "/admin/config");
        return;
      }
      throw error;
    }
    this.sendJson(res, 200, this.adminView(), "/admin/config");
  }

  private async tokenizeRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req);
    const value = body.ok ? (body.value as Record<string, unknown> | null) : null;
    let tokens: number[];
    try {
      if (value && typeof value.prompt === "string") tokens = tokenize(value.prompt);
      else if (value && value.messages !== undefined) tokens = chatPromptTokens(value.messages);
      else throw new ProtocolError(400, "POST /tokenize expects a prompt string or a messages list.");
    } catch (error) {
      const e = error instanceof ProtocolError ? error : new ProtocolError(400, String(error));
      this.sendJson(res, e.status, errorBody(e.status, e.message, e.param), "/tokenize");
      return;
    }
    this.sendJson(
      res,
      200,
      { count: tokens.length, max_model_len: this.profile.max_model_len, tokens, token_strs: null },
      "/tokenize",
    );
  }

  private async detokenizeRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req);
    const value = body.ok ? (body.value as Record<string, unknown> | null) : null;
    const tokens = value?.tokens;
    if (!Array.isArray(tokens) || !tokens.every((id) => Number.isInteger(id) && (id as number) >= 0)) {
      this.sendJson(
        res,
        400,
        errorBody(400, "POST /detokenize expects tokens: a list of token ids.", "tokens"),
        "/detokenize",
      );
      return;
    }
    this.sendJson(res, 200, { prompt: detokenize(tokens as number[]) }, "/detokenize");
  }

  /**
   * `receivedAt` is when the request's headers were parsed: the engine sees the request from then, so
   * reading the body, tokenizing and checking it (the simulator's own work, not part of the modelled
   * server) do not add to its TTFT.
   */
  private async generate(
    endpoint: Endpoint,
    req: IncomingMessage,
    res: ServerResponse,
    receivedAt: number,
  ): Promise<void> {
    const handler = endpoint === "chat" ? "/v1/chat/completions" : "/v1/completions";
    const body = await readJson(req);
    const arrival = receivedAt;
    if (this.hung) return;
    const p = this.profile;
    if (this.starting()) {
      this.sendJson(res, 503, errorBody(503, "The server is starting."), handler);
      return;
    }
    if (p.engine_dead) {
      this.sendJson(
        res,
        500,
        errorBody(500, "EngineCore encountered an issue. See stack trace for the root cause."),
        handler,
      );
      return;
    }
    if (!body.ok) {
      this.sendJson(res, 400, errorBody(400, `Invalid JSON body: ${body.error}`), handler);
      return;
    }
    let parsed: GenerationRequest;
    try {
      parsed = parseGenerationRequest(endpoint, body.value, {
        servedModel: this.options.model,
        maxModelLen: p.max_model_len,
      });
    } catch (error) {
      if (error instanceof ProtocolError) {
        this.sendJson(res, error.status, errorBody(error.status, error.message, error.param), handler);
        return;
      }
      throw error;
    }
    const draw = this.faultRandom.next();
    if (draw < p.fault_error_rate) {
      this.sendJson(
        res,
        p.fault_error_status,
        errorBody(p.fault_error_status, `Simulated fault: status ${p.fault_error_status}.`),
        handler,
      );
      return;
    }
    const faultDraw = this.faultRandom.next();
    let fault: FaultPlan | undefined;
    if (parsed.stream && faultDraw < p.fault_midstream_error_rate) {
      fault = { kind: "midstream", afterTokens: p.fault_after_tokens };
    } else if (faultDraw >= 1 - p.fault_reset_rate) {
      fault = { kind: "reset", afterTokens: p.fault_after_tokens };
    }
    const prefix = endpoint === "chat" ? "chatcmpl-" : "cmpl-";
    const clientRequestId = headerValue(req.headers["x-request-id"]);
    // As vLLM does: the id is the prefix plus X-Request-Id, else the body's request_id, else a uuid.
    const bodyRequestId = (body.value as { request_id?: unknown }).request_id;
    const base = clientRequestId ?? (typeof bodyRequestId === "string" ? bodyRequestId : undefined);
    const wanted = base !== undefined && base !== "" ? `${prefix}${base}` : undefined;
    const id =
      wanted !== undefined && !this.active.has(wanted) && !this.engine.knows(wanted)
        ? wanted
        : `${prefix}${randomUUID().replaceAll("-", "")}`;
    const active = new ActiveRequest(
      this,
      parsed,
      res,
      id,
      Math.floor(Date.now() / 1000),
      clientRequestId,
      fault,
    );
    this.active.set(id, active);
    this.engine.addRequest(
      {
        id,
        promptTokens: parsed.promptTokens,
        maxTokens: parsed.maxTokens,
        minTokens: parsed.minTokens,
        ignoreEos: parsed.ignoreEos,
        seed: parsed.seed,
        cacheSalt: parsed.cacheSalt,
        temperature: parsed.temperature,
      },
      arrival,
    );
    // A write racing a client reset reports the error here; the close handler does the cleanup.
    res.on("error", () => undefined);
    res.on("close", () => {
      if (!active.done) {
        active.done = true;
        this.abort(active);
      }
    });
    active.start();
    if (!active.done) this.loop.wake(arrival);
  }
}

const routes: Record<string, readonly string[]> = {
  "/health": ["GET"],
  "/ping": ["GET", "POST"],
  "/version": ["GET"],
  "/v1/models": ["GET"],
  "/metrics": ["GET"],
  "/v1/completions": ["POST"],
  "/v1/chat/completions": ["POST"],
  "/tokenize": ["POST"],
  "/detokenize": ["POST"],
  "/admin/config": ["GET", "POST"],
  "/admin/chunks": ["GET"],
};
const devRoutes: Record<string, readonly string[]> = {
  "/reset_prefix_cache": ["POST"],
  "/reset_mm_cache": ["POST"],
  "/reset_encoder_cache": ["POST"],
  "/server_info": ["GET"],
};

function routeMethods(path: string, devMode: boolean): readonly string[] {
  return routes[path] ?? (devMode ? devRoutes[path] : undefined) ?? [];
}

function handlerPath(handler: string): string {
  if (handler === "chat") return "/v1/chat/completions";
  if (handler === "completions") return "/v1/completions";
  return handler;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

async function drain(req: IncomingMessage): Promise<void> {
  if (req.readableEnded) return;
  for await (const _ of req) {
    // discard
  }
}

type JsonResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Plain 'data'/'end' events rather than an async iterator: a closed-loop client sends a whole wave of
 * requests at once, and the per-request cost of reading them is time every one of them waits.
 */
function readJson(req: IncomingMessage): Promise<JsonResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) {
        chunks.push(chunk);
        return;
      }
      req.off("data", onData);
      req.off("end", onEnd);
      req.destroy();
      resolve({ ok: false, error: "body too large" });
    };
    const onEnd = () => {
      const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
      try {
        resolve({ ok: true, value: JSON.parse(text) });
      } catch (error) {
        resolve({ ok: false, error: (error as Error).message });
      }
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.once("error", reject);
  });
}
