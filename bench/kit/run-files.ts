/**
 * Synthetic run.json files for the benches and the tests: one run's summary with chosen latency factors,
 * and seeded per-run noise on the log scale, like a real runner's (no server, no requests).
 */
import type { LatencySummary, RunFile } from "../../src/metrics/run-schema.js";
import { noSamples, runFileSchema } from "../../src/metrics/run-schema.js";
import { boxMuller, mulberry32 } from "../../src/util/random.js";

/** Deterministic pseudo-random numbers (mulberry32) so fixtures never flake. */
export const seeded = mulberry32;

export function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return boxMuller(u, random());
}

function summary(p50: number, count: number): LatencySummary {
  return {
    count,
    mean: p50 * 1.05,
    std: p50 * 0.2,
    median: p50,
    p50,
    p90: p50 * 1.4,
    p95: p50 * 1.6,
    p99: p50 * 2,
    p99_9: p50 * 2.5,
  };
}

export interface RunSpec {
  cell?: string;
  run?: number;
  /** Multiplies every latency; divides throughputs. */
  slowdown?: number;
  /** Latency-only factors for one phase. */
  ttftFactor?: number;
  tpotFactor?: number;
  e2elFactor?: number;
  throughputFactor?: number;
  completed?: number;
  failed?: number;
  fingerprint?: Record<string, unknown>;
  flags?: Partial<RunFile["flags"]>;
}

export const baseFingerprint = {
  server: { image: "vllm/vllm-openai@sha256:aaaa", args: ["--max-num-seqs", "64"] },
  model: { name: "Qwen/Qwen3-0.6B", revision: "abc123" },
  gpu: { name: "sim", count: 1 },
};

export function makeRunFile(spec: RunSpec = {}): RunFile {
  const slow = spec.slowdown ?? 1;
  const completed = spec.completed ?? 1200;
  const failed = spec.failed ?? 0;
  const ttft = 100 * slow * (spec.ttftFactor ?? 1);
  const durationS = 60;
  const throughputScale = (spec.throughputFactor ?? 1) / slow;
  const file: RunFile = {
    schemaVersion: 1,
    tool: { name: "vllm-perf-gate", version: "0.1.0" },
    cell: spec.cell ?? "chat",
    run: spec.run ?? 0,
    startedAt: "2026-11-30T04:00:00.000Z",
    durationS,
    load: {
      type: "concurrency",
      targetRate: null,
      targetConcurrency: 16,
      achievedRate: 20,
      achievedConcurrencyMean: 15.8,
      peakConcurrency: 16,
      scheduleLagP50Ms: 0.2,
      scheduleLagP99Ms: 1.1,
      eventLoopLagP99Ms: 2,
    },
    requests: {
      total: completed + failed,
      completed,
      failed,
      errorsByKind: failed > 0 ? { http_500: failed } : {},
      finishReasons: { length: completed },
      warmup: 4,
    },
    tokens: {
      input: completed * 512,
      output: completed * 128,
      inputLengths: summary(512, completed),
      outputLengths: summary(128, completed),
    },
    latency: {
      ttft: summary(ttft, completed),
      tpot: summary(20 * slow * (spec.tpotFactor ?? 1), completed),
      itl: summary(19 * slow * (spec.tpotFactor ?? 1), completed * 127),
      e2el: summary(2600 * slow * (spec.e2elFactor ?? 1), completed),
      // A run without reasoning has no answer-timing samples.
      answer_ttft: noSamples,
      answer_itl: noSamples,
      queue: summary(0.5, completed),
    },
    throughput: {
      request: (completed / durationS) * throughputScale,
      output: ((completed * 128) / durationS) * throughputScale,
      total: ((completed * 640) / durationS) * throughputScale,
      goodput: null,
      sloAttainment: null,
    },
    server: null,
    flags: { clientBound: false, serverCrashed: false, cutShort: false, notes: [], ...spec.flags },
    prefix: { policy: "fresh", cacheSalt: "salt", cacheReset: true },
    fingerprint: spec.fingerprint ?? baseFingerprint,
    telemetry: null,
  };
  return runFileSchema.parse(file);
}

/** Per-run noise on the log scale, like a real runner: each run gets its own speed. */
export function noisyRuns(
  count: number,
  {
    seed,
    sd = 0.03,
    shift = 1,
    cell = "chat",
    ...rest
  }: RunSpec & { seed: number; sd?: number; shift?: number },
): RunFile[] {
  const random = seeded(seed);
  return Array.from({ length: count }, (_, run) =>
    makeRunFile({ ...rest, cell, run, slowdown: shift * Math.exp(sd * gaussian(random)) }),
  );
}
