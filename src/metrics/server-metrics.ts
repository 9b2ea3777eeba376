import type { MetricsScrape } from "../runner/metrics-scraper.js";
import { type PrometheusSample, parsePrometheusText } from "../server/prometheus-text.js";
import { largest } from "../util/extremes.js";
import { specDecodeValue } from "./metric-values.js";
import type { PercentileResolution, ServerMetricsSummary } from "./run-schema.js";

export type { MetricsScrape } from "../runner/metrics-scraper.js";

/** The current name first, then the pre-0.9 name vLLM deprecated. */
const names = {
  preemptions: ["vllm:num_preemptions_total"],
  prefixQueries: ["vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"],
  prefixHits: ["vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"],
  kvUsage: ["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
  running: ["vllm:num_requests_running"],
  waiting: ["vllm:num_requests_waiting"],
  promptTokens: ["vllm:prompt_tokens_total"],
  generationTokens: ["vllm:generation_tokens_total"],
  success: ["vllm:request_success_total"],
  ttft: ["vllm:time_to_first_token_seconds"],
  queue: ["vllm:request_queue_time_seconds"],
} as const;

type Samples = readonly PrometheusSample[];

function present(samples: Samples, candidates: readonly string[]): string | null {
  for (const name of candidates) if (samples.some((sample) => sample.name === name)) return name;
  return null;
}

function total(samples: Samples, name: string): number {
  let sum = 0;
  for (const sample of samples) if (sample.name === name) sum += sample.value;
  return sum;
}

/** Cumulative bucket counts by upper bound, summed over engines and models. */
function buckets(samples: Samples, histogram: string): Map<number, number> {
  const out = new Map<number, number>();
  const bucketName = `${histogram}_bucket`;
  for (const sample of samples) {
    if (sample.name !== bucketName || sample.labels.le === undefined) continue;
    const bound = sample.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(sample.labels.le);
    if (Number.isNaN(bound)) continue;
    out.set(bound, (out.get(bound) ?? 0) + sample.value);
  }
  return out;
}

/**
 * Prometheus' histogram_quantile on the difference of two cumulative histograms: linear within the bucket
 * holding the rank; a rank in the +Inf bucket gives the highest finite bound.
 */
export function histogramQuantile(
  before: Map<number, number>,
  after: Map<number, number>,
  q: number,
): number | null {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const counts = bounds.map((bound) => (after.get(bound) ?? 0) - (before.get(bound) ?? 0));
  const totalCount = counts[counts.length - 1] ?? 0;
  if (!(totalCount > 0)) return null;
  const rank = q * totalCount;
  let previousBound = 0;
  let previousCount = 0;
  for (let index = 0; index < bounds.length; index++) {
    const bound = bounds[index]!;
    const count = counts[index]!;
    if (count >= rank) {
      if (bound === Number.POSITIVE_INFINITY) return previousBound;
      if (count === previousCount) return bound;
      return previousBound + ((bound - previousBound) * (rank - previousCount)) / (count - previousCount);
    }
    previousBound = bound;
    previousCount = count;
  }
  return previousBound;
}

/**
 * The server-side view of one run from /metrics scraped before, during and after it: counter deltas,
 * gauge maxima and means, and histogram percentiles. A metric the server does not expose is null and
 * named in `missing`, never zero.
 */
export function summarizeServerMetrics(scrapes: readonly MetricsScrape[]): ServerMetricsSummary | null {
  const parsed = scrapes
    .filter((scrape) => scrape.text !== null && scrape.status === 200)
    .map((scrape) => ({ phase: scrape.phase, samples: parsePrometheusText(scrape.text!) }));
  const before = parsed.find((scrape) => scrape.phase === "before")?.samples;
  const after = [...parsed].reverse().find((scrape) => scrape.phase === "after")?.samples;
  if (!before || !after) return null;
  const run = new RunScrapes(parsed, before, after);
  const resolution: Record<string, PercentileResolution> = {};
  for (const [figure, candidates, q] of [
    ["server_ttft_p50_ms", names.ttft, 0.5],
    ["server_ttft_p95_ms", names.ttft, 0.95],
    ["server_queue_p50_ms", names.queue, 0.5],
    ["server_queue_p95_ms", names.queue, 0.95],
  ] as const) {
    const bucket = run.quantileBucket(candidates, q);
    if (bucket) resolution[figure] = bucket;
  }
  const spec = specDecodeSummary(before, after);
  const sim = simulatorLateness(before, after);
  const preemptions = run.counterDelta(names.preemptions);
  const queries = run.counterDelta(names.prefixQueries);
  const hits = run.counterDelta(names.prefixHits);
  const kv = run.gauge(names.kvUsage);
  const running = run.gauge(names.running);
  const waiting = run.gauge(names.waiting);
  const promptTokens = run.counterDelta(names.promptTokens);
  const generationTokens = run.counterDelta(names.generationTokens);
  const success = run.counterDelta(names.success);
  const ttft = run.quantiles(names.ttft);
  const queue = run.quantiles(names.queue);
  return {
    preemptions,
    prefix_cache_queries: queries,
    prefix_cache_hits: hits,
    prefix_cache_hit_rate: queries !== null && hits !== null && queries > 0 ? hits / queries : null,
    kv_cache_usage_max: kv?.max ?? null,
    kv_cache_usage_mean: kv?.mean ?? null,
    running_max: running?.max ?? null,
    waiting_max: waiting?.max ?? null,
    prompt_tokens: promptTokens,
    generation_tokens: generationTokens,
    server_ttft_p50_ms: ttft.p50,
    server_ttft_p95_ms: ttft.p95,
    server_queue_p50_ms: queue.p50,
    server_queue_p95_ms: queue.p95,
    requests_completed: success,
    missing: run.missing,
    server_percentile_resolution: resolution,
    ...spec,
    ...sim,
  };
}

/**
 * One run's scrapes read by family: a counter's change from before to after, a gauge's maximum and mean
 * during the run, a histogram's percentiles over the run. Each family is read under the first of its
 * names the server exposes; one it does not expose is null and named in `missing` (its first name).
 */
class RunScrapes {
  readonly missing: string[] = [];

  constructor(
    private readonly parsed: readonly { phase: MetricsScrape["phase"]; samples: Samples }[],
    private readonly before: Samples,
    private readonly after: Samples,
  ) {}

  counterDelta(candidates: readonly string[]): number | null {
    const name = present(this.after, candidates);
    if (name === null) {
      this.missing.push(candidates[0]!);
      return null;
    }
    return total(this.after, name) - total(this.before, name);
  }

  gauge(candidates: readonly string[]): { max: number; mean: number } | null {
    const parsed = this.parsed;
    const name =
      present(this.after, candidates) ??
      parsed.map((scrape) => present(scrape.samples, candidates)).find(Boolean);
    if (!name) {
      this.missing.push(candidates[0]!);
      return null;
    }
    const during = parsed.filter((scrape) => scrape.phase === "during");
    const pool = (during.length > 0 ? during : parsed).filter((scrape) =>
      scrape.samples.some((s) => s.name === name),
    );
    const values = pool.map((scrape) => total(scrape.samples, name));
    if (values.length === 0) return null;
    return { max: largest(values), mean: values.reduce((sum, value) => sum + value, 0) / values.length };
  }

  quantiles(candidates: readonly string[]): { p50: number | null; p95: number | null } {
    const histogram = this.histogram(candidates);
    if (histogram === null) {
      this.missing.push(candidates[0]!);
      return { p50: null, p95: null };
    }
    const start = buckets(this.before, histogram);
    const end = buckets(this.after, histogram);
    const toMs = (value: number | null) => (value === null ? null : value * 1000);
    return { p50: toMs(histogramQuantile(start, end, 0.5)), p95: toMs(histogramQuantile(start, end, 0.95)) };
  }

  /** The bucket a histogram's quantile falls in (how finely the server's percentile is resolved). */
  quantileBucket(candidates: readonly string[], q: number): PercentileResolution | null {
    const histogram = this.histogram(candidates);
    if (histogram === null) return null;
    return (
      histogramQuantileBucket(buckets(this.before, histogram), buckets(this.after, histogram), q) ?? null
    );
  }

  /** The histogram's name as exposed (its `_bucket` samples present), or null. */
  private histogram(candidates: readonly string[]): string | null {
    const name = present(
      this.after,
      candidates.map((candidate) => `${candidate}_bucket`),
    );
    return name === null ? null : name.slice(0, -"_bucket".length);
  }
}

/** The simulator-only family (src/sim/metrics-text.ts): how late its step loop handled each step. */
const simStepLatenessFamily = "sim:step_lateness_seconds";

/**
 * The simulator's lateness over the run, from its own histogram's deltas: the steps it handled and the
 * p99 of their lateness (ms). Absent (undefined) for a server without the family, as every real vLLM;
 * never listed in `missing`.
 */
function simulatorLateness(
  before: Samples,
  after: Samples,
): { sim_steps?: number; sim_step_lateness_p99_ms?: number | null } {
  if (!after.some((sample) => sample.name === `${simStepLatenessFamily}_bucket`)) return {};
  const start = buckets(before, simStepLatenessFamily);
  const end = buckets(after, simStepLatenessFamily);
  const steps = (end.get(Number.POSITIVE_INFINITY) ?? 0) - (start.get(Number.POSITIVE_INFINITY) ?? 0);
  const p99 = histogramQuantile(start, end, 0.99);
  return { sim_steps: steps, sim_step_lateness_p99_ms: p99 === null ? null : p99 * 1000 };
}

/**
 * The bucket a histogram quantile falls in, in ms: all that the histogram really knows about it. The
 * interpolated figure (histogramQuantile) is only a guess inside [lower, upper]; `display` says what is
 * known, "< 300 ms" for a rank in the first bucket.
 */
function histogramQuantileBucket(
  before: Map<number, number>,
  after: Map<number, number>,
  q: number,
): PercentileResolution | null {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const counts = bounds.map((bound) => (after.get(bound) ?? 0) - (before.get(bound) ?? 0));
  const totalCount = counts[counts.length - 1] ?? 0;
  if (!(totalCount > 0)) return null;
  const rank = q * totalCount;
  let lower = 0;
  for (let index = 0; index < bounds.length; index++) {
    const bound = bounds[index]!;
    if (counts[index]! >= rank && counts[index]! > 0) {
      const upper = bound === Number.POSITIVE_INFINITY ? null : bound * 1000;
      return { lower_ms: lower * 1000, upper_ms: upper, display: describeBucket(lower * 1000, upper) };
    }
    lower = bound;
  }
  return null;
}

function formatMs(ms: number): string {
  if (ms >= 1000) return `${Number((ms / 1000).toPrecision(6))} s`;
  return `${Number(ms.toPrecision(6))} ms`;
}

function describeBucket(lowerMs: number, upperMs: number | null): string {
  if (upperMs === null) return `> ${formatMs(lowerMs)}`;
  if (lowerMs === 0) return `< ${formatMs(upperMs)}`;
  return `${formatMs(lowerMs)} to ${formatMs(upperMs)}`;
}

/**
 * Speculative decoding over the run, from vLLM's counters (vllm/v1/spec_decode/metrics.py @ 016a8587):
 * acceptance rate = accepted / draft tokens. All null when the server does not speculate; these are not
 * listed in `missing`, since most servers have no draft model.
 */
function specDecodeSummary(before: Samples, after: Samples) {
  const delta = (name: string): number | null =>
    after.some((sample) => sample.name === name) ? total(after, name) - total(before, name) : null;
  const drafts = delta("vllm:spec_decode_num_drafts_total");
  const draftTokens = delta("vllm:spec_decode_num_draft_tokens_total");
  const accepted = delta("vllm:spec_decode_num_accepted_tokens_total");
  return {
    spec_decode_drafts: drafts,
    spec_decode_draft_tokens: draftTokens,
    spec_decode_accepted_tokens: accepted,
    spec_decode_acceptance_rate: specDecodeValue(
      { drafts, draftTokens, acceptedTokens: accepted },
      "acceptance_rate",
    ),
  };
}

/** One /metrics scrape reduced to the gauges and the counter the report's run timeline draws. */
export interface ScrapePoint {
  /** ms since the measured phase began (negative before it). */
  atMs: number;
  running: number | null;
  waiting: number | null;
  /** KV-cache usage as a fraction (0..1). */
  kvUsage: number | null;
  /** vllm:num_preemptions_total so far (a counter: the timeline marks where it rose). */
  preemptionsTotal: number | null;
}

/**
 * The time series of one run's scrapes (summed over engines), in scrape order; failed scrapes are left
 * out. The same metric names as summarizeServerMetrics, current name first.
 */
export function scrapeSeries(scrapes: readonly MetricsScrape[]): ScrapePoint[] {
  const points: ScrapePoint[] = [];
  for (const scrape of scrapes) {
    if (scrape.text === null || scrape.status !== 200) continue;
    const samples = parsePrometheusText(scrape.text);
    const value = (candidates: readonly string[]): number | null => {
      const name = present(samples, candidates);
      return name === null ? null : total(samples, name);
    };
    points.push({
      atMs: scrape.atMs,
      running: value(names.running),
      waiting: value(names.waiting),
      kvUsage: value(names.kvUsage),
      preemptionsTotal: value(names.preemptions),
    });
  }
  return points;
}
