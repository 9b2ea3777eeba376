import type { IncomingMessage, ServerResponse } from "node:http";
import type { MonotonicClock } from "../util/clock.js";
import { HttpMetrics } from "./http-metrics.js";

/**
 * The simulator's responses as uvicorn writes them, and their HTTP metrics: each response is recorded
 * when it ends, as vLLM's instrumentator does.
 */
export class HttpResponder {
  readonly httpMetrics = new HttpMetrics();
  /** What the instrumentator will record for a response when it ends. */
  private readonly httpRecords = new WeakMap<
    ServerResponse,
    { handler: string; status: number; responseBytes: number }
  >();

  constructor(private readonly clock: MonotonicClock) {}

  /**
   * The HTTP metrics of a response, recorded when it ends (as vLLM's instrumentator does: grouped status,
   * and nothing for the handlers it excludes).
   */
  count(res: ServerResponse, handler: string, status: number, responseBytes = 0): void {
    this.httpRecords.set(res, { handler, status, responseBytes });
  }

  instrument(req: IncomingMessage, res: ServerResponse, receivedAt: number): void {
    let done = false;
    const record = () => {
      if (done) return;
      done = true;
      const info = this.httpRecords.get(res);
      if (!info) return;
      const requestBytes = Number(req.headers["content-length"] ?? 0) || 0;
      const seconds = (this.clock.now() - receivedAt) / 1000;
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

  sendEmpty(res: ServerResponse, status: number, handler: string): void {
    this.count(res, handler, status);
    res.writeHead(status, { server: "uvicorn", "content-length": 0 });
    res.end();
  }
}

function handlerPath(handler: string): string {
  if (handler === "chat") return "/v1/chat/completions";
  if (handler === "completions") return "/v1/completions";
  return handler;
}
