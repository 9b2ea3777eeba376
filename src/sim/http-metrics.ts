import { Histogram } from "./stats.js";

/**
 * The HTTP families prometheus_fastapi_instrumentator's default metrics export on vLLM's API server
 * (Instrumentator().add(metrics.default()) in vllm/entrypoints/openai/api_server.py @ v0.11.0), recorded
 * when a response ends, as the instrumentator's middleware does: a stream counts once it is over.
 */
const durationHighrBuckets = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 7.5, 10, 30, 60,
] as const;
const durationLowrBuckets = [0.1, 0.5, 1] as const;

/** Handlers vLLM's instrumentator leaves out (excluded_handlers). */
const uninstrumentedHandlers: ReadonlySet<string> = new Set(["/health", "/metrics", "/version"]);

export interface SizeSummary {
  count: number;
  sum: number;
}

export class HttpMetrics {
  /** "handler method 2xx" -> count. */
  readonly requests = new Map<string, number>();
  /** By handler: the Content-Length of requests (0 without one). */
  readonly requestSize = new Map<string, SizeSummary>();
  /** By handler: the Content-Length of responses (0 for a stream, which has none). */
  readonly responseSize = new Map<string, SizeSummary>();
  readonly durationHighr = new Histogram(durationHighrBuckets);
  /** "handler method" -> latency with few buckets. */
  readonly duration = new Map<string, Histogram>();

  record(
    handler: string,
    method: string,
    status: number,
    requestBytes: number,
    responseBytes: number,
    seconds: number,
  ): void {
    if (uninstrumentedHandlers.has(handler)) return;
    const key = `${handler} ${method} ${Math.floor(status / 100)}xx`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    add(this.requestSize, handler, requestBytes);
    add(this.responseSize, handler, responseBytes);
    this.durationHighr.observe(seconds);
    const durationKey = `${handler} ${method}`;
    let histogram = this.duration.get(durationKey);
    if (!histogram) {
      histogram = new Histogram(durationLowrBuckets);
      this.duration.set(durationKey, histogram);
    }
    histogram.observe(seconds);
  }
}

function add(map: Map<string, SizeSummary>, key: string, value: number): void {
  const summary = map.get(key) ?? { count: 0, sum: 0 };
  summary.count++;
  summary.sum += value;
  map.set(key, summary);
}
