import { z } from "zod";
import { systemClock, type TimerClock } from "../util/clock.js";
import { largest } from "../util/extremes.js";
import type { GpuUsage } from "./nvidia-smi.js";
import { getText } from "./probe.js";
import { parsePrometheusText } from "./prometheus-text.js";

/**
 * What the server and the GPUs did during a run: /metrics and nvidia-smi sampled on fixed intervals, kept
 * as time series next to the results, and summarised (mean/max) into run.json.
 */
const telemetrySchemaVersion = 1;

const nullableNumber = z.number().nullable();

const gpuUsageSchema = z.object({
  index: z.number().int(),
  utilizationPercent: nullableNumber,
  memoryUsedMiB: nullableNumber,
  powerW: nullableNumber,
  smClockMHz: nullableNumber,
});

const telemetrySummarySchema = z.object({
  /** Same names and meaning as run.json `telemetry`. */
  gpuUtilizationMean: nullableNumber.describe("Mean utilisation (%) over all samples of all GPUs."),
  gpuUtilizationMax: nullableNumber,
  gpuMemoryUsedMaxMiB: nullableNumber.describe("Highest memory used by any one GPU."),
  gpuPowerMeanW: nullableNumber.describe("Mean of the total power draw of all GPUs."),
  smClockMeanMHz: nullableNumber,
  /** mean/max of the scheduler gauges (running, waiting, KV-cache usage), null when never exposed. */
  server: z.record(z.string(), z.object({ mean: z.number(), max: z.number() })),
  metricsSamples: z.number().int().nonnegative(),
  gpuSamples: z.number().int().nonnegative(),
});

export const telemetryRecordSchema = z.object({
  schemaVersion: z.literal(telemetrySchemaVersion),
  startedAt: z.string(),
  metricsIntervalMs: z.number().positive(),
  gpuIntervalMs: z.number().positive().nullable(),
  /** t: milliseconds since the sampler started; values: vLLM samples summed over labels (engines). */
  metrics: z.array(z.object({ t: z.number(), values: z.record(z.string(), z.number()) })),
  gpu: z.array(z.object({ t: z.number(), gpus: z.array(gpuUsageSchema) })),
  failedScrapes: z.object({ metrics: z.number().int().nonnegative(), gpu: z.number().int().nonnegative() }),
  summary: telemetrySummarySchema,
});

export type TelemetryRecord = z.output<typeof telemetryRecordSchema>;
export type TelemetrySummary = z.output<typeof telemetrySummarySchema>;
export type MetricsSample = TelemetryRecord["metrics"][number];
export type GpuSample = TelemetryRecord["gpu"][number];

/** The gauges summarised per run; the old vLLM name is folded into the new one. */
const summarisedGauges: Readonly<Record<string, string>> = {
  "vllm:num_requests_running": "running",
  "vllm:num_requests_waiting": "waiting",
  "vllm:kv_cache_usage_perc": "kv_cache_usage",
  "vllm:gpu_cache_usage_perc": "kv_cache_usage",
};

/** vLLM samples summed over labels; histogram buckets are left out (the run's own latencies are measured). */
export function metricsValues(text: string): Record<string, number> {
  const values: Record<string, number> = {};
  for (const sample of parsePrometheusText(text)) {
    if (
      !sample.name.startsWith("vllm:") ||
      sample.name.endsWith("_bucket") ||
      sample.name.endsWith("_created")
    )
      continue;
    if (!Number.isFinite(sample.value)) continue;
    values[sample.name] = (values[sample.name] ?? 0) + sample.value;
  }
  return values;
}

export function summariseTelemetry(
  metrics: readonly MetricsSample[],
  gpu: readonly GpuSample[],
): TelemetrySummary {
  const server: Record<string, { mean: number; max: number }> = {};
  for (const [metric, label] of Object.entries(summarisedGauges)) {
    if (server[label]) continue;
    const series = metrics
      .map((sample) => sample.values[metric])
      .filter((value): value is number => value !== undefined);
    if (series.length > 0) server[label] = { mean: mean(series), max: largest(series) };
  }
  const readings = gpu.flatMap((sample) => sample.gpus);
  const pick = (key: keyof Omit<GpuUsage, "index">) =>
    readings.map((reading) => reading[key]).filter((value): value is number => value !== null);
  const utilization = pick("utilizationPercent");
  const memory = pick("memoryUsedMiB");
  const clocks = pick("smClockMHz");
  const totalPower = gpu
    .filter((sample) => sample.gpus.some((reading) => reading.powerW !== null))
    .map((sample) => sample.gpus.reduce((sum, reading) => sum + (reading.powerW ?? 0), 0));
  return {
    gpuUtilizationMean: utilization.length ? mean(utilization) : null,
    gpuUtilizationMax: utilization.length ? largest(utilization) : null,
    gpuMemoryUsedMaxMiB: memory.length ? largest(memory) : null,
    gpuPowerMeanW: totalPower.length ? mean(totalPower) : null,
    smClockMeanMHz: clocks.length ? mean(clocks) : null,
    server,
    metricsSamples: metrics.length,
    gpuSamples: gpu.length,
  };
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

export interface TelemetryOptions {
  readonly metricsUrl: string;
  readonly apiKey?: string | undefined;
  readonly metricsIntervalMs: number;
  readonly gpuIntervalMs: number;
  readonly clock?: TimerClock;
  /** Defaults to GET metricsUrl. */
  readonly scrapeMetrics?: () => Promise<string>;
  /** nvidia-smi usage query (NvidiaSmi.usage); null or absent: no GPU sampling. */
  readonly queryGpus?: (() => Promise<GpuUsage[] | null>) | null;
}

export interface TelemetrySampler {
  /** Stops sampling (after the samples in flight) and returns the series and their summary. */
  stop(): Promise<TelemetryRecord>;
}

export function startTelemetry(options: TelemetryOptions): TelemetrySampler {
  const clock = options.clock ?? systemClock;
  const startedAt = clock.wallTime().toISOString();
  const origin = clock.now();
  const metrics: MetricsSample[] = [];
  const gpu: GpuSample[] = [];
  const failed = { metrics: 0, gpu: 0 };
  const halt = new AbortController();
  const scrape = options.scrapeMetrics ?? (() => getText(options.metricsUrl, options.apiKey));

  const loop = async (intervalMs: number, sample: () => Promise<void>) => {
    // Sample on an absolute grid so a slow scrape does not stretch the interval for the rest of the run.
    let next = clock.now();
    while (!halt.signal.aborted) {
      await sample();
      // Behind schedule (a scrape slower than the interval): skip the missed ticks rather than burst.
      next = Math.max(next + intervalMs, clock.now());
      const wait = next - clock.now();
      await clock.sleep(wait, halt.signal);
    }
  };

  const metricsLoop = loop(options.metricsIntervalMs, async () => {
    const t = clock.now() - origin;
    try {
      metrics.push({ t, values: metricsValues(await scrape()) });
    } catch {
      failed.metrics++;
    }
  });
  const queryGpus = options.queryGpus;
  const gpuLoop = queryGpus
    ? loop(options.gpuIntervalMs, async () => {
        const t = clock.now() - origin;
        const gpus = await queryGpus().catch(() => null);
        if (gpus) gpu.push({ t, gpus });
        else failed.gpu++;
      })
    : Promise.resolve();

  let result: Promise<TelemetryRecord> | undefined;
  return {
    stop() {
      result ??= (async () => {
        halt.abort();
        await Promise.all([metricsLoop, gpuLoop]);
        return {
          schemaVersion: telemetrySchemaVersion,
          startedAt,
          metricsIntervalMs: options.metricsIntervalMs,
          gpuIntervalMs: queryGpus ? options.gpuIntervalMs : null,
          metrics: [...metrics].sort((a, b) => a.t - b.t),
          gpu: [...gpu].sort((a, b) => a.t - b.t),
          failedScrapes: { ...failed },
          summary: summariseTelemetry(metrics, gpu),
        };
      })();
      return result;
    },
  };
}

/** The run.json `telemetry` block; null when nothing about the GPUs was sampled. */
export function runTelemetry(summary: TelemetrySummary): {
  gpuUtilizationMean: number | null;
  gpuUtilizationMax: number | null;
  gpuMemoryUsedMaxMiB: number | null;
  gpuPowerMeanW: number | null;
  smClockMeanMHz: number | null;
} | null {
  if (summary.gpuSamples === 0) return null;
  const { gpuUtilizationMean, gpuUtilizationMax, gpuMemoryUsedMaxMiB, gpuPowerMeanW, smClockMeanMHz } =
    summary;
  return { gpuUtilizationMean, gpuUtilizationMax, gpuMemoryUsedMaxMiB, gpuPowerMeanW, smClockMeanMHz };
}
