import type { Engine } from "./engine.js";
import type { HttpMetrics, SizeSummary } from "./http-metrics.js";
import { type MetricSet, metricSetOf } from "./profile.js";
import type { Histogram } from "./stats.js";

/**
 * Prometheus text exposition (format 0.0.4) of the engine's numbers under vLLM V1's names. Which
 * families appear follows the `vllm_version` knob's minor line:
 * - 0.10 (vllm/v1/metrics/loggers.py @ 005a810b): the deprecated `gpu_` cache names beside the new ones,
 *   `time_per_output_token_seconds` (per step), `time_per_prefill_token_request_seconds`.
 * - 0.11 (loggers.py @ v0.11.0): `gpu_` names hidden; `inter_token_latency_seconds` beside the deprecated
 *   `time_per_output_token_seconds`.
 * - current, 0.12 and later (loggers.py after the 0.12 cut, and v0.30.0): `time_per_output_token_seconds`
 *   hidden; `request_time_per_output_token_seconds` (per request), `engine_sleep_state`,
 *   `external_prefix_cache_*`, `mm_cache_*`.
 * Counters carry `_total` in HELP/TYPE and samples, and counters and histograms a `_created` sample, as
 * prometheus_client writes them; labels model_name and engine.
 */
export interface MetricsContext {
  engine: Engine;
  modelName: string;
  http: HttpMetrics;
  /** Unix seconds the metrics were created (the `_created` samples). */
  createdAt: number;
  /** The step loop's lateness (s): the simulator-only family sim:step_lateness_seconds, if given. */
  stepLateness?: Histogram;
}

/**
 * prometheus_client renders floats with floatToGoString (prometheus_client/utils.py): Python's repr, whole
 * numbers with ".0", seven or more integer digits as an exponent.
 */
export function formatValue(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  if (Number.isNaN(value)) return "NaN";
  // Python's repr writes magnitudes below 1e-4 with an exponent of at least two digits ("4e-06").
  if (value !== 0 && Math.abs(value) < 1e-4) {
    return value.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
  }
  const text = Number.isInteger(value) && Math.abs(value) < 1e16 ? `${value}.0` : String(value);
  // Python's repr, then prometheus_client's floatToGoString: seven or more integer digits become an
  // exponent ("1.2345678e+07").
  const dot = text.indexOf(".");
  if (value > 0 && dot > 6 && !text.includes("e")) {
    const mantissa = `${text[0]}.${text.slice(1, dot)}${text.slice(dot + 1)}`.replace(/[0.]+$/, "");
    return `${mantissa}e+0${dot - 1}`;
  }
  return text;
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
  constructor(private readonly createdAt: number) {}
  /**
   * prometheus_client's text output moves a family's `_created` samples into a gauge family of their own
   * right after it (generate_latest in prometheus_client/exposition.py).
   */
  created(name: string, help: string, labelSets: readonly Readonly<Record<string, string>>[]): void {
    if (labelSets.length === 0) return;
    this.family(`${name}_created`, "gauge", help);
    for (const labels of labelSets) this.sample(`${name}_created`, labels, this.createdAt);
  }
  family(name: string, type: "gauge" | "counter" | "histogram" | "summary", help: string): void {
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
    this.histogramSamples(name, labels, histogram);
    this.created(name, help, [labels]);
  }
  histogramSamples(name: string, labels: Readonly<Record<string, string>>, histogram: Histogram): void {
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

export function renderMetrics({ engine, modelName, http, createdAt, stepLateness }: MetricsContext): string {
  const w = new Writer(createdAt);
  if (engine.config.disable_log_stats) {
    writeHttp(w, http);
    return `${w.lines.join("\n")}\n`;
  }
  if (stepLateness) writeSimOnly(w, stepLateness);
  const set: MetricSet = metricSetOf(engine.config.vllm_version);
  const labels = { model_name: modelName, engine: "0" };
  writeSchedulerState(w, labels, engine, set);
  writeCacheCounters(w, labels, engine, set);
  writeTokenCounters(w, labels, engine.stats);
  if (engine.config.spec_decode_num_tokens > 0) writeSpecDecode(w, labels, engine);
  for (const [name, help, histogram] of requestHistograms(engine.stats, set))
    w.histogram(name, help, labels, histogram);
  w.family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig");
  w.sample("vllm:cache_config_info", cacheConfigLabels(engine), 1);
  writeHttp(w, http);
  return `${w.lines.join("\n")}\n`;
}

type Labels = Readonly<Record<string, string>>;

function gauge(w: Writer, labels: Labels, name: string, help: string, value: number): void {
  w.family(name, "gauge", help);
  w.sample(name, labels, value);
}

/** `name` without `_total`: the family, as prometheus_client names it; the sample gets `_total`. */
function counter(w: Writer, labels: Labels, name: string, help: string, value: number): void {
  w.family(`${name}_total`, "counter", help);
  w.sample(`${name}_total`, labels, value);
  w.created(name, help, [labels]);
}

/** The requests running and waiting, and (current) the engine's sleep state: always awake. */
function writeSchedulerState(w: Writer, labels: Labels, engine: Engine, set: MetricSet): void {
  gauge(
    w,
    labels,
    "vllm:num_requests_running",
    "Number of requests in model execution batches.",
    engine.numRunning,
  );
  gauge(
    w,
    labels,
    "vllm:num_requests_waiting",
    "Number of requests waiting to be processed.",
    engine.numWaiting,
  );
  if (set !== "current") return;
  w.family(
    "vllm:engine_sleep_state",
    "gauge",
    "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.",
  );
  for (const [state, value] of [
    ["awake", 1],
    ["weights_offloaded", 0],
    ["discard_all", 0],
  ] as const) {
    w.sample("vllm:engine_sleep_state", { ...labels, sleep_state: state }, value);
  }
}

/**
 * The KV cache's usage and the prefix cache's queries and hits (0.10: the deprecated `gpu_` names beside
 * them; current: the external and multi-modal caches, always empty here).
 */
function writeCacheCounters(w: Writer, labels: Labels, engine: Engine, set: MetricSet): void {
  const s = engine.stats;
  if (set === "0.10") {
    gauge(
      w,
      labels,
      "vllm:gpu_cache_usage_perc",
      "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.",
      engine.kvUsage,
    );
    counter(
      w,
      labels,
      "vllm:gpu_prefix_cache_queries",
      "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead.",
      s.prefixQueries,
    );
    counter(
      w,
      labels,
      "vllm:gpu_prefix_cache_hits",
      "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.",
      s.prefixHits,
    );
  }
  gauge(w, labels, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", engine.kvUsage);
  counter(
    w,
    labels,
    "vllm:prefix_cache_queries",
    "Prefix cache queries, in terms of number of queried tokens.",
    s.prefixQueries,
  );
  counter(
    w,
    labels,
    "vllm:prefix_cache_hits",
    "Prefix cache hits, in terms of number of cached tokens.",
    s.prefixHits,
  );
  if (set !== "current") return;
  counter(
    w,
    labels,
    "vllm:external_prefix_cache_queries",
    "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens.",
    0,
  );
  counter(
    w,
    labels,
    "vllm:external_prefix_cache_hits",
    "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens.",
    0,
  );
  counter(
    w,
    labels,
    "vllm:mm_cache_queries",
    "Multi-modal cache queries, in terms of number of queried items.",
    0,
  );
  counter(w, labels, "vllm:mm_cache_hits", "Multi-modal cache hits, in terms of number of cached items.", 0);
}

/** Preemptions, prompt and generation tokens, and the finished requests by reason. */
function writeTokenCounters(w: Writer, labels: Labels, s: Engine["stats"]): void {
  counter(
    w,
    labels,
    "vllm:num_preemptions",
    "Cumulative number of preemption from the engine.",
    s.preemptions,
  );
  counter(w, labels, "vllm:prompt_tokens", "Number of prefill tokens processed.", s.promptTokens);
  counter(w, labels, "vllm:generation_tokens", "Number of generation tokens processed.", s.generationTokens);
  w.family("vllm:request_success_total", "counter", "Count of successfully processed requests.");
  for (const reason of ["stop", "length", "abort"] as const) {
    w.sample("vllm:request_success_total", { ...labels, finished_reason: reason }, s.success[reason]);
  }
  w.created(
    "vllm:request_success",
    "Count of successfully processed requests.",
    (["stop", "length", "abort"] as const).map((reason) => ({ ...labels, finished_reason: reason })),
  );
}

/** The request histograms, in vLLM's order, the per-token ones as the metric set names them. */
function requestHistograms(s: Engine["stats"], set: MetricSet): [string, string, Histogram][] {
  const perToken: [string, string, Histogram][] =
    set === "0.10"
      ? [
          ["vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", s.itl],
          [
            "vllm:time_per_prefill_token_request_seconds",
            "Time spent per token during prefill  phase in seconds",
            s.prefillPerToken,
          ],
        ]
      : set === "0.11"
        ? [
            [
              "vllm:time_per_output_token_seconds",
              "Histogram of time per output token in seconds.DEPRECATED: Use vllm:inter_token_latency_seconds instead.",
              s.itl,
            ],
            ["vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", s.itl],
          ]
        : [
            ["vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", s.itl],
            [
              "vllm:request_time_per_output_token_seconds",
              "Histogram of time_per_output_token_seconds per request.",
              s.tpot,
            ],
          ];
  return [
    ["vllm:request_prompt_tokens", "Number of prefill tokens processed.", s.promptTokensPerRequest],
    [
      "vllm:request_generation_tokens",
      "Number of generation tokens processed.",
      s.generationTokensPerRequest,
    ],
    ["vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", s.iterationTokens],
    [
      "vllm:request_max_num_generation_tokens",
      "Histogram of maximum number of requested generation tokens.",
      s.maxGenerationTokens,
    ],
    ["vllm:request_params_n", "Histogram of the n request parameter.", s.nParam],
    ["vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", s.maxTokensParam],
    ["vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", s.ttft],
    ...perToken,
    ["vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", s.e2e],
    ["vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", s.queue],
    [
      "vllm:request_inference_time_seconds",
      "Histogram of time spent in RUNNING phase for request.",
      s.inference,
    ],
    ["vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", s.prefill],
    ["vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", s.decode],
  ];
}

/**
 * The simulator's own health, which no vLLM exports (prefix `sim:`, never `vllm:`): how late its step
 * loop handled each step boundary, i.e. how much the simulator's process was kept from running on time by
 * the host it shares with the client. The runner records it per run and excludes a run whose simulator
 * was starved (docs/run.md, Server host starved). Written first; hidden with disable_log_stats, as vLLM
 * then shows only the HTTP metrics.
 */
function writeSimOnly(w: Writer, stepLateness: Histogram): void {
  w.histogram(
    "sim:step_lateness_seconds",
    "Simulator only (not a vLLM metric): how late the step loop handled each step boundary, in seconds.",
    {},
    stepLateness,
  );
}

/**
 * CacheConfig.metrics_info(): every field of vLLM's CacheConfig as a string label, plus engine
 * (vllm/config/cache.py @ v0.11.0; fields the simulator has no notion of carry vLLM's defaults). Sorted, as
 * prometheus_client orders the label names it is given by the dict, which is sorted here for stability.
 */
function cacheConfigLabels(engine: Engine): Record<string, string> {
  const p = engine.config;
  const labels: Record<string, string> = {
    block_size: String(p.block_size),
    cache_dtype: p.cache_dtype,
    calculate_kv_scales: "False",
    cpu_offload_gb: "0",
    enable_prefix_caching: p.enable_prefix_caching ? "True" : "False",
    engine: "0",
    gpu_memory_utilization: String(p.gpu_memory_utilization),
    is_attention_free: "False",
    kv_sharing_fast_prefill: "False",
    mamba_cache_dtype: "auto",
    mamba_ssm_cache_dtype: "auto",
    num_cpu_blocks: "None",
    num_gpu_blocks: String(engine.kvCapacityBlocks),
    num_gpu_blocks_override: "None",
    prefix_caching_hash_algo: "sha256",
    sliding_window: "None",
    swap_space: "4",
  };
  return labels;
}

/** vllm/v1/spec_decode/metrics.py @ 016a8587 (SpecDecodingProm): counters, accepted per draft position. */
function writeSpecDecode(w: Writer, labels: Readonly<Record<string, string>>, engine: Engine): void {
  const spec = engine.stats.specDecode;
  const one = (name: string, help: string, value: number) => {
    w.family(`${name}_total`, "counter", help);
    w.sample(`${name}_total`, labels, value);
    w.created(name, help, [labels]);
  };
  one("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", spec.drafts);
  one("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", spec.draftTokens);
  one("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", spec.acceptedTokens);
  const name = "vllm:spec_decode_num_accepted_tokens_per_pos";
  w.family(`${name}_total`, "counter", "Accepted tokens per draft position.");
  const positions = engine.config.spec_decode_num_tokens;
  for (let position = 0; position < positions; position++) {
    w.sample(
      `${name}_total`,
      { ...labels, position: String(position) },
      spec.acceptedPerPosition[position] ?? 0,
    );
  }
  w.created(
    name,
    "Accepted tokens per draft position.",
    Array.from({ length: positions }, (_, position) => ({ ...labels, position: String(position) })),
  );
}

/**
 * prometheus_fastapi_instrumentator's default families, as vLLM's API server registers them: the request
 * counter, request and response sizes (summaries), and latency with many buckets and no labels and with
 * three buckets by handler and method.
 */
function writeHttp(w: Writer, http: HttpMetrics): void {
  const totalHelp = "Total number of requests by method, status and handler.";
  w.family("http_requests_total", "counter", totalHelp);
  const keys = [...http.requests.keys()].map((key) => key.split(" "));
  const requestLabels = keys.map(([handler, method, status]) => ({
    handler: handler!,
    method: method!,
    status: status!,
  }));
  for (const labels of requestLabels) {
    w.sample(
      "http_requests_total",
      labels,
      http.requests.get(`${labels.handler} ${labels.method} ${labels.status}`)!,
    );
  }
  w.created("http_requests", totalHelp, requestLabels);
  summary(
    w,
    "http_request_size_bytes",
    "Content length of incoming requests by handler. Only value of header is respected. Otherwise ignored. No percentile calculated. ",
    http.requestSize,
  );
  summary(
    w,
    "http_response_size_bytes",
    "Content length of outgoing responses by handler. Only value of header is respected. Otherwise ignored. No percentile calculated. ",
    http.responseSize,
  );
  w.histogram(
    "http_request_duration_highr_seconds",
    "Latency with many buckets but no API specific labels. Made for more accurate percentile calculations. ",
    {},
    http.durationHighr,
  );
  const durationHelp =
    "Latency with only few buckets by handler. Made to be only used if aggregation by handler is important. ";
  w.family("http_request_duration_seconds", "histogram", durationHelp);
  const durationLabels: Record<string, string>[] = [];
  for (const [key, histogram] of http.duration) {
    const [handler, method] = key.split(" ");
    const labels = { handler: handler!, method: method! };
    durationLabels.push(labels);
    w.histogramSamples("http_request_duration_seconds", labels, histogram);
  }
  w.created("http_request_duration_seconds", durationHelp, durationLabels);
}

function summary(w: Writer, name: string, help: string, sizes: ReadonlyMap<string, SizeSummary>): void {
  w.family(name, "summary", help);
  const labelSets: Record<string, string>[] = [];
  for (const [handler, size] of sizes) {
    labelSets.push({ handler });
    w.sample(`${name}_count`, { handler }, size.count);
    w.sample(`${name}_sum`, { handler }, size.sum);
  }
  w.created(name, help, labelSets);
}
