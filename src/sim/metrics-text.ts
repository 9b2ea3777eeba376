import type { Engine } from "./engine.js";
import type { Histogram } from "./stats.js";

/**
 * Prometheus text exposition (format 0.0.4) of the engine's numbers under vLLM V1's names
 * (vllm/v1/metrics/loggers.py@005a810b): counters carry `_total` in HELP/TYPE and samples, as
 * prometheus_client writes them; labels model_name and engine.
 */
export interface MetricsContext {
  engine: Engine;
  modelName: string;
  httpRequests: ReadonlyMap<string, number>;
}

/** prometheus_client renders floats Go-style: whole numbers get ".0". */
export function formatValue(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  if (Number.isNaN(value)) return "NaN";
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

function escapeLabel(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

function labelText(labels: Readonly<Record<string, string>>): string {
  const parts = Object.entries(labels).map(([key, value]) => `${key}="${escapeLabel(value)}"`);
  return parts.length > 0 ? `{${parts.join(",")}}` : "";
}

class Writer {
  readonly lines: string[] = [];
  family(name: string, type: "gauge" | "counter" | "histogram", help: string): void {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  }
  sample(name: string, labels: Readonly<Record<string, string>>, value: number): void {
    this.lines.push(`${name}${labelText(labels)} ${formatValue(value)}`);
  }
  histogram(
    name: string,
    help: string,
    labels: Readonly<Record<string, string>>,
    histogram: Histogram,
  ): void {
    this.family(name, "histogram", help);
    let cumulative = 0;
    histogram.buckets.forEach((bound, i) => {
      cumulative += histogram.counts[i]!;
      this.sample(`${name}_bucket`, { ...labels, le: formatValue(bound) }, cumulative);
    });
    this.sample(`${name}_bucket`, { ...labels, le: "+Inf" }, histogram.count);
    this.sample(`${name}_count`, labels, histogram.count);
    this.sample(`${name}_sum`, labels, histogram.sum);
  }
}

export function renderMetrics({ engine, modelName, httpRequests }: MetricsContext): string {
  const w = new Writer();
  const labels = { model_name: modelName, engine: "0" };
  const s = engine.stats;
  const p = engine.config;
  if (p.disable_log_stats) {
    writeHttpRequests(w, httpRequests);
    return `${w.lines.join("\n")}\n`;
  }
  const gauge = (name: string, help: string, value: number) => {
    w.family(name, "gauge", help);
    w.sample(name, labels, value);
  };
  const counter = (name: string, help: string, value: number) => {
    w.family(name, "counter", help);
    w.sample(name, labels, value);
  };
  gauge("vllm:num_requests_running", "Number of requests in model execution batches.", engine.numRunning);
  gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", engine.numWaiting);
  gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", engine.kvUsage);
  counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", s.preemptions);
  counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", s.promptTokens);
  counter("vllm:generation_tokens_total", "Number of generation tokens processed.", s.generationTokens);
  counter(
    "vllm:prefix_cache_queries_total",
    "Prefix cache queries, in terms of number of queried tokens.",
    s.prefixQueries,
  );
  counter(
    "vllm:prefix_cache_hits_total",
    "Prefix cache hits, in terms of number of cached tokens.",
    s.prefixHits,
  );
  w.family("vllm:request_success_total", "counter", "Count of successfully processed requests.");
  for (const reason of ["stop", "length", "abort"] as const) {
    w.sample("vllm:request_success_total", { ...labels, finished_reason: reason }, s.success[reason]);
  }
  const histograms: [string, string, Histogram][] = [
    ["vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", s.ttft],
    ["vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", s.itl],
    [
      "vllm:request_time_per_output_token_seconds",
      "Histogram of time_per_output_token_seconds per request.",
      s.tpot,
    ],
    ["vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", s.e2e],
    ["vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", s.queue],
    [
      "vllm:request_inference_time_seconds",
      "Histogram of time spent in RUNNING phase for request.",
      s.inference,
    ],
    ["vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", s.prefill],
    ["vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", s.decode],
    ["vllm:request_prompt_tokens", "Number of prefill tokens processed.", s.promptTokensPerRequest],
    [
      "vllm:request_generation_tokens",
      "Number of generation tokens processed.",
      s.generationTokensPerRequest,
    ],
    ["vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", s.maxTokensParam],
    ["vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", s.iterationTokens],
  ];
  for (const [name, help, histogram] of histograms) w.histogram(name, help, labels, histogram);
  w.family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig");
  w.sample(
    "vllm:cache_config_info",
    {
      block_size: String(p.block_size),
      cache_dtype: p.cache_dtype,
      enable_prefix_caching: p.enable_prefix_caching ? "True" : "False",
      gpu_memory_utilization: String(p.gpu_memory_utilization),
      num_gpu_blocks: String(engine.kvCapacityBlocks),
      engine: "0",
    },
    1,
  );
  writeHttpRequests(w, httpRequests);
  return `${w.lines.join("\n")}\n`;
}

function writeHttpRequests(w: Writer, httpRequests: ReadonlyMap<string, number>): void {
  w.family("http_requests_total", "counter", "Total number of requests by method, status and handler.");
  for (const [key, count] of httpRequests) {
    const [handler, method, status] = key.split(" ");
    w.sample("http_requests_total", { handler: handler!, method: method!, status: status! }, count);
  }
}
