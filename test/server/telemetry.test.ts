import { describe, expect, it } from "vitest";
import type { GpuUsage } from "../../src/server/nvidia-smi.js";
import {
  metricsValues,
  runTelemetry,
  startTelemetry,
  summariseTelemetry,
  telemetryRecordSchema,
} from "../../src/server/telemetry.js";
import { VirtualClock } from "../util/virtual-clock.js";

const metricsText = (running: number, waiting: number, usage: number) =>
  [
    "# TYPE vllm:num_requests_running gauge",
    `vllm:num_requests_running{model_name="m",engine="0"} ${running}`,
    `vllm:num_requests_running{model_name="m",engine="1"} ${running}`,
    `vllm:num_requests_waiting{model_name="m",engine="0"} ${waiting}`,
    `vllm:kv_cache_usage_perc{model_name="m",engine="0"} ${usage}`,
    `vllm:e2e_request_latency_seconds_bucket{le="0.3",model_name="m"} 4`,
    `vllm:e2e_request_latency_seconds_count{model_name="m"} 4`,
    `http_requests_total{handler="/v1/completions"} 9`,
  ].join("\n");

const gpu = (
  index: number,
  utilization: number,
  memory: number,
  power: number | null,
  clock: number,
): GpuUsage => ({
  index,
  utilizationPercent: utilization,
  memoryUsedMiB: memory,
  powerW: power,
  smClockMHz: clock,
});

describe("telemetry", () => {
  it("sums vLLM samples over engines and leaves out buckets and non-vLLM series", () => {
    expect(metricsValues(metricsText(3, 1, 0.5))).toEqual({
      "vllm:num_requests_running": 6,
      "vllm:num_requests_waiting": 1,
      "vllm:kv_cache_usage_perc": 0.5,
      "vllm:e2e_request_latency_seconds_count": 4,
    });
  });

  it("summarises mean/max per gauge and per GPU reading", () => {
    const summary = summariseTelemetry(
      [
        { t: 0, values: { "vllm:num_requests_running": 2, "vllm:kv_cache_usage_perc": 0.2 } },
        { t: 1000, values: { "vllm:num_requests_running": 6, "vllm:kv_cache_usage_perc": 0.6 } },
      ],
      [
        { t: 0, gpus: [gpu(0, 50, 1000, 100, 1500), gpu(1, 70, 3000, 200, 1700)] },
        { t: 500, gpus: [gpu(0, 90, 2000, null, 1900), gpu(1, 30, 1000, 300, 1900)] },
      ],
    );
    expect(summary.server).toEqual({ running: { mean: 4, max: 6 }, kv_cache_usage: { mean: 0.4, max: 0.6 } });
    expect(summary.gpuUtilizationMean).toBe(60);
    expect(summary.gpuUtilizationMax).toBe(90);
    expect(summary.gpuMemoryUsedMaxMiB).toBe(3000);
    // Total power of all GPUs per sample (a missing reading counts as nothing), averaged over samples.
    expect(summary.gpuPowerMeanW).toBe(300);
    expect(summary.smClockMeanMHz).toBe(1750);
    expect(runTelemetry(summary)).toEqual({
      gpuUtilizationMean: 60,
      gpuUtilizationMax: 90,
      gpuMemoryUsedMaxMiB: 3000,
      gpuPowerMeanW: 300,
      smClockMeanMHz: 1750,
    });
    expect(runTelemetry(summariseTelemetry([], []))).toBeNull();
  });

  it("samples on its intervals in virtual time and counts failed scrapes", async () => {
    const clock = new VirtualClock();
    let scrapes = 0;
    let queries = 0;
    const sampler = startTelemetry({
      metricsUrl: "http://unused",
      metricsIntervalMs: 2_000,
      gpuIntervalMs: 1_000,
      clock,
      scrapeMetrics: async () => {
        scrapes++;
        if (scrapes === 3) throw new Error("connection reset");
        return metricsText(scrapes, 0, scrapes / 10);
      },
      queryGpus: async () => [gpu(0, 10 * ++queries, 100 * queries, 50, 1000)],
    });
    await clock.advance(10_000, 100);
    const record = await sampler.stop();
    expect(telemetryRecordSchema.parse(record)).toEqual(record);
    // t = 0, 2, 4 (failed), 6, 8, 10 s
    expect(record.metrics.map((sample) => sample.t)).toEqual([0, 2_000, 6_000, 8_000, 10_000]);
    expect(record.failedScrapes).toEqual({ metrics: 1, gpu: 0 });
    expect(record.gpu).toHaveLength(11);
    expect(record.summary.server.running).toEqual({ mean: (2 + 4 + 8 + 10 + 12) / 5, max: 12 });
    expect(record.summary.gpuUtilizationMax).toBe(110);
    expect(await sampler.stop()).toBe(record);
  });

  it("works without GPUs (no nvidia-smi)", async () => {
    const clock = new VirtualClock();
    const sampler = startTelemetry({
      metricsUrl: "http://unused",
      metricsIntervalMs: 1_000,
      gpuIntervalMs: 1_000,
      clock,
      scrapeMetrics: async () => metricsText(1, 0, 0.1),
      queryGpus: null,
    });
    await clock.advance(3_000, 100);
    const record = await sampler.stop();
    expect(record.gpu).toEqual([]);
    expect(record.gpuIntervalMs).toBeNull();
    expect(record.summary.gpuUtilizationMean).toBeNull();
    expect(record.metrics).toHaveLength(4);
  });
});
