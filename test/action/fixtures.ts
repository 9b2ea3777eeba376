import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Compare, CompareOutcome, Measure } from "../../src/app/gate/dependencies.js";
import { type RunFile, runFileSchema } from "../../src/metrics/run-schema.js";

/**
 * Simple real implementations of the runner and compare for the orchestrator's tests: the measure
 * writes schema-valid run.json files whose latencies follow the config's simulator `set.slowdown`, and
 * the compare reads them back and judges the median p95 TTFT ratio. The real runner and compare replace
 * them in the lead's end-to-end test.
 */

export const testConfig = (
  slowdown: number,
  repeats: { min: number; max: number; block?: number } = { min: 3, max: 6 },
) => `version: 1
server:
  kind: sim
  profile: small-gpu
  set:
    slowdown: ${slowdown}
model:
  name: test-model
cells:
  - name: chat
    dataset: { type: synthetic, input_tokens: 128, output_tokens: 64 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 50 }
  - name: batch
    dataset: { type: synthetic, input_tokens: 512, output_tokens: 32 }
    load: { type: concurrency, concurrency: 16 }
    size: { requests: 50 }
repeats: { min: ${repeats.min}, max: ${repeats.max}${repeats.block === undefined ? "" : `, block: ${repeats.block}`} }
`;

function latency(scale: number, base: number) {
  const v = (factor: number) => base * scale * factor;
  return {
    count: 50,
    mean: v(1.05),
    std: v(0.1),
    median: v(1),
    p50: v(1),
    p90: v(1.3),
    p95: v(1.4),
    p99: v(1.6),
    p99_9: v(1.7),
  };
}

function makeRunFile(cell: string, run: number, scale: number, side?: string, serverStart?: string): RunFile {
  // A deterministic wobble per run so repeated runs are not identical.
  const wobble = 1 + ((run * 7919) % 11) / 1000;
  const s = scale * wobble;
  return runFileSchema.parse({
    schemaVersion: 1,
    tool: { name: "vllm-perf-gate", version: "0.1.0" },
    cell,
    run,
    ...(side ? { side } : {}),
    ...(serverStart
      ? {
          serverStart: {
            id: serverStart,
            startedAt: new Date(Date.UTC(2026, 10, 1)).toISOString(),
            side: side ?? "candidate",
          },
        }
      : {}),
    startedAt: new Date(Date.UTC(2026, 10, 1, 0, run)).toISOString(),
    durationS: 10 * s,
    load: {
      type: "concurrency",
      targetRate: null,
      targetConcurrency: 4,
      achievedRate: 5 / s,
      achievedConcurrencyMean: 3.9,
      peakConcurrency: 4,
      scheduleLagP50Ms: 0.1,
      scheduleLagP99Ms: 0.5,
      eventLoopLagP99Ms: 1,
    },
    requests: {
      total: 50,
      completed: 50,
      failed: 0,
      errorsByKind: {},
      finishReasons: { length: 50 },
      warmup: 4,
    },
    tokens: {
      input: 6400,
      output: 3200,
      inputLengths: {
        count: 50,
        mean: 128,
        std: 0,
        median: 128,
        p50: 128,
        p90: 128,
        p95: 128,
        p99: 128,
        p99_9: 128,
      },
      outputLengths: {
        count: 50,
        mean: 64,
        std: 0,
        median: 64,
        p50: 64,
        p90: 64,
        p95: 64,
        p99: 64,
        p99_9: 64,
      },
    },
    latency: {
      ttft: latency(s, 40),
      tpot: latency(s, 8),
      itl: latency(s, 8),
      e2el: latency(s, 550),
      queue: latency(1, 0.1),
    },
    throughput: { request: 5 / s, output: 320 / s, total: 960 / s, goodput: null, sloAttainment: null },
    server: null,
    flags: { clientBound: false, serverCrashed: false, cutShort: false, notes: [] },
    prefix: { policy: "fresh", cacheSalt: `salt-${run}`, cacheReset: true },
    fingerprint: { "server.kind": "sim", "model.name": "test-model" },
    telemetry: null,
  });
}

export async function writeRun(
  dir: string,
  cell: string,
  run: number,
  scale: number,
  side?: string,
  serverStart?: string,
): Promise<void> {
  const runDir = join(dir, cell, `run-${run}`);
  await mkdir(runDir, { recursive: true });
  await writeFile(
    join(runDir, "run.json"),
    `${JSON.stringify(makeRunFile(cell, run, scale, side, serverStart), null, 2)}\n`,
  );
  await writeFile(join(runDir, "server.log"), `sim server for ${cell} run ${run}\n`);
}

export interface MeasureCall {
  configPath: string;
  side: string | null;
  firstRun: number;
  runs: number | null;
  cells: string[] | null;
  /** Requests per run of each request-sized cell in the config measured (a budget's plan sets them). */
  requests: Record<string, number>;
}

/** Server starts of every file measure so far: each start's id is unique in the test process. */
let fileMeasureStarts = 0;

/**
 * Writes runs as the runner would, reading the real config (cells, repeats.min, the sim slowdown). With
 * `recordStarts`, each call is one server start, as a measure call is under the per-side lifecycle: its
 * runs record it (run.json serverStart), and `startEffect(start)` scales them (default 1).
 */
export function createFileMeasure(
  calls: MeasureCall[] = [],
  options: { recordStarts?: boolean; startEffect?: (start: number) => number } = {},
): Measure {
  return async (request) => {
    const start = fileMeasureStarts++;
    calls.push({
      configPath: request.configPath,
      side: request.side,
      firstRun: request.firstRun,
      runs: request.runs,
      cells: request.cells,
      requests: Object.fromEntries(
        request.config.config.cells.flatMap((cell) =>
          "requests" in cell.size ? [[cell.name, cell.size.requests]] : [],
        ),
      ),
    });
    // The config the use case loaded once for the job (measure reads no file).
    const { config } = request.config;
    const slowdown = config.server.kind === "sim" ? Number(config.server.set.slowdown ?? 1) : 1;
    const cells = config.cells
      .map((cell) => cell.name)
      .filter((name) => !request.cells || request.cells.includes(name));
    const runs = request.runs ?? config.repeats.min;
    for (const cell of cells) {
      for (let k = request.firstRun; k < request.firstRun + runs; k++) {
        await writeRun(
          request.resultsDir,
          cell,
          k,
          slowdown * (options.startEffect?.(start) ?? 1),
          request.side ?? undefined,
          options.recordStarts ? `file-measure-start-${start}` : undefined,
        );
      }
    }
  };
}

async function medianP95Ttft(dir: string): Promise<{ median: number; runs: number }> {
  const values: number[] = [];
  for (const cell of await readdir(dir, { withFileTypes: true })) {
    if (!cell.isDirectory()) continue;
    for (const run of await readdir(join(dir, cell.name))) {
      const text = await readFile(join(dir, cell.name, run, "run.json"), "utf8").catch(() => null);
      if (text) values.push(runFileSchema.parse(JSON.parse(text)).latency.ttft.p95 ?? Number.NaN);
    }
  }
  values.sort((a, b) => a - b);
  return { median: values[Math.floor(values.length / 2)] ?? Number.NaN, runs: values.length };
}

/**
 * Judges the median p95 TTFT ratio with a 5% tolerance; below `decideAt` candidate runs it answers
 * inconclusive and asks for more (like the real sequential compare's nextLook).
 */
export function createRatioCompare(options: { decideAt?: number } = {}): Compare {
  return async (request): Promise<CompareOutcome> => {
    const baseline = await medianP95Ttft(request.baselineDir);
    const candidate = await medianP95Ttft(request.candidateDir);
    const ratio = candidate.median / baseline.median;
    const decideAt = options.decideAt ?? 0;
    let verdict: CompareOutcome["verdict"] = ratio > 1.05 ? "regression" : "pass";
    let nextLook: CompareOutcome["nextLook"] = null;
    if (candidate.runs < decideAt) {
      verdict = "inconclusive";
      nextLook = {
        runsPerSide: decideAt,
        addCandidateRuns: 1,
        addBaselineRuns: 1,
        cells: ["chat"],
        reason: "too few runs",
      };
    }
    const failOn = request.failOn ?? "regression";
    const exitCode =
      verdict === "regression" && failOn !== "never"
        ? 1
        : verdict === "inconclusive" && failOn === "inconclusive"
          ? 1
          : 0;
    const report = [
      `## vllm-perf-gate: ${verdict}`,
      "",
      "| metric | baseline | candidate | ratio |",
      "| --- | --- | --- | --- |",
      `| ttft_p95 (median of ${baseline.runs} / ${candidate.runs} runs) | ${baseline.median.toFixed(2)} | ${candidate.median.toFixed(2)} | ${ratio.toFixed(3)} |`,
      "",
      `Mode: ${request.mode}. Baseline commit: ${request.baselineInfo?.commit ?? "n/a"}.`,
    ].join("\n");
    await mkdir(request.outDir, { recursive: true });
    await writeFile(join(request.outDir, "verdict.txt"), `${verdict}\n`);
    return { verdict, exitCode, report, nextLook };
  };
}
