import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compareAndRender, compareResults, writeCompareOutputs } from "../../src/app/compare.js";
import { settingsFromConfig } from "../../src/compare/index.js";
import { configSchema } from "../../src/config/schema.js";
import type { RunRecord } from "../../src/metrics/run-record.js";
import type { RunFile, SessionsSummary } from "../../src/metrics/run-schema.js";
import type { MetricsScrape } from "../../src/metrics/server-metrics.js";
import { depthBuckets } from "../../src/metrics/session-metrics.js";
import type { RequestRecord } from "../../src/runner/request-schema.js";
import { capacityCell, doublingCapacityRuns } from "../compare/capacity/capacity-fixtures.js";
import { gaussian, noisyRuns, seeded } from "../compare/fixtures.js";
import { noSecrets, outboundFor } from "../job-outbound.js";
import { plantedSecret } from "../secret-forms.js";

/**
 * report.html and report-charts/ from `compare` on results directories that hold run.json,
 * requests.jsonl and scrapes.jsonl, as `run` writes them (shapes: src/metrics/request-record.ts and
 * src/runner/metrics-scraper.ts; metric names as src/sim/metrics-text.ts exposes them, vLLM's).
 */

export const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)> & "q" 'a' @octocat ]]>`;

function requestLines(count: number, seed: number, slow: number, failing: string): string {
  const random = seeded(seed);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const sentMs = i * 25;
    const ttftUs = Math.round(1000 * 40 * slow * Math.exp(0.3 * gaussian(random)));
    const chunksUs = [ttftUs];
    for (let k = 1; k < 16; k++)
      chunksUs.push(chunksUs[k - 1]! + Math.round(1000 * 8 * slow * Math.exp(0.2 * gaussian(random))));
    const record: RequestRecord = {
      v: 1,
      index: i,
      phase: "measure",
      requestId: `req-${i}`,
      stage: 0,
      scheduledMs: sentMs,
      readyMs: sentMs,
      queueMs: 0,
      sentMs,
      socketMs: 0.1,
      headersMs: 1,
      chunksUs,
      chunkTokens: null,
      endMs: sentMs + chunksUs.at(-1)! / 1000,
      ok: true,
      errorKind: null,
      error: null,
      httpStatus: 200,
      finishReason: "length",
      promptTokens: 256,
      outputTokens: 16,
      outputTokensSource: "usage",
      cachedTokens: 0,
      targetInputTokens: 256,
      maxTokens: 16,
      prefixGroup: null,
      firstAnswerTokenMs: null,
      reasoningTokens: null,
      answerTokens: null,
      reasoningField: null,
      toolCalls: [],
      malformedToolCalls: 0,
    };
    lines.push(JSON.stringify(record));
  }
  // A failed request whose error text is hostile and carries the secret: it must never be shown.
  lines.push(
    JSON.stringify({
      ...JSON.parse(lines[0]!),
      index: count,
      requestId: "req-failed",
      chunksUs: [],
      ok: false,
      errorKind: "http_500",
      error: failing,
      httpStatus: 500,
      outputTokens: null,
    }),
  );
  lines.push("{not json");
  return `${lines.join("\n")}\n`;
}

function scrapeLines(): string {
  const scrapes: MetricsScrape[] = [];
  for (let k = 0; k <= 10; k++) {
    const text = [
      "# TYPE vllm:num_requests_running gauge",
      `vllm:num_requests_running{engine="0",model_name="m"} ${k === 0 || k === 10 ? 0 : 6 + (k % 3)}`,
      `vllm:num_requests_waiting{engine="0",model_name="m"} ${k >= 4 && k <= 6 ? 3 : 0}`,
      `vllm:kv_cache_usage_perc{engine="0",model_name="m"} ${(k * 0.07).toFixed(2)}`,
      `vllm:num_preemptions_total{engine="0",model_name="m"} ${k < 5 ? 0 : 2}`,
    ].join("\n");
    scrapes.push({
      phase: k === 0 ? "before" : k === 10 ? "after" : "during",
      atMs: k * 50,
      status: 200,
      text,
      error: null,
    });
  }
  return `${scrapes.map((s) => JSON.stringify(s)).join("\n")}\n`;
}

/** DIR/cell-<i>/run-<k>/{run.json,requests.jsonl,scrapes.jsonl}; the directory is not named after the cell. */
async function writeSide(
  dir: string,
  runs: readonly RunFile[],
  slow: number,
  secret: string,
): Promise<string> {
  for (const run of runs) {
    const runDir = join(dir, "cell-0", `run-${run.run}`);
    await mkdir(runDir, { recursive: true });
    await writeFile(join(runDir, "run.json"), JSON.stringify(run, null, 2));
    await writeFile(
      join(runDir, "requests.jsonl"),
      requestLines(20, 100 + run.run, slow, `${hostile} ${secret}`),
    );
    await writeFile(join(runDir, "scrapes.jsonl"), scrapeLines());
  }
  return dir;
}

export async function compareInto(
  cell: string,
  env: Record<string, string> = {},
  candidateFingerprint?: Record<string, unknown>,
) {
  const root = await mkdtemp(join(tmpdir(), "vpg-html-"));
  const baseline = await writeSide(join(root, "base"), noisyRuns(5, { seed: 1, cell }), 1, plantedSecret);
  const candidate = await writeSide(
    join(root, "cand"),
    noisyRuns(5, {
      seed: 2,
      cell,
      shift: 1.3,
      ...(candidateFingerprint ? { fingerprint: candidateFingerprint } : {}),
    }),
    1.3,
    plantedSecret,
  );
  // The job's seam as a root builds it: the secret set of `env`.
  const outbound = outboundFor(env);
  const outcome = await compareResults({
    outbound,
    baseline: [baseline],
    candidate: [candidate],
    now: new Date("2026-12-01T00:00:00Z"),
  });
  const out = join(root, "out");
  const paths = await writeCompareOutputs(out, outcome, outbound);
  const html = await readFile(paths.htmlPath, "utf8");
  const chartFiles = (await readdir(join(out, "report-charts"))).sort();
  const charts = await Promise.all(chartFiles.map((f) => readFile(join(out, "report-charts", f), "utf8")));
  return { root, out, outcome, html, chartFiles, charts, baseline, candidate };
}

/**
 * A compare of a capacity cell (crafted run records at loads 1..4, TTFT p95 doubling per load, the
 * candidate twice as slow, as test/compare/capacity/capacity.test.ts builds them) with crafted quality checks
 * (task accuracy, greedy outputs whose examples and cell names carry `text`), written as `compare` does.
 */
export async function compareCapacityQualityInto(text: string) {
  const config = configSchema.parse({
    version: 1,
    server: { kind: "sim" },
    model: { name: "m" },
    cells: [capacityCell({ slo: { e2el_ms: 2000 } })],
  });
  const side = (scale: number, name: string): RunRecord[] =>
    doublingCapacityRuns(scale, name, (load, jitter) => ({
      e2el_p95: scale * 600 * 1.5 ** (load - 1) * jitter,
      request_throughput: load * jitter,
      request_goodput: load * (load <= 2 ? 1 : 0.5) * jitter,
      output_throughput: load * 8 * jitter,
      tpot_p50: 20,
    }));
  const outcome = compareAndRender({
    baseline: side(1, "b"),
    candidate: side(2, "c"),
    settings: settingsFromConfig(config),
    mode: "interleaved",
    now: new Date("2026-12-01T00:00:00Z"),
  });
  const agreement = (changed: number) => ({
    prompts: 20,
    changedShare: changed,
    prefixChangedShare: changed / 2,
    similarity: 1 - changed / 3,
    logprobDrift: null,
    logprobTokens: 0,
  });
  outcome.verdict.quality = {
    guards: [],
    greedy: [
      {
        cell: `greedy ${text}`,
        runs: { baseline: 1, candidate: 1 },
        candidate: agreement(0.4),
        baselineNoise: agreement(0),
        tokenSource: "words",
        verdict: "regression",
        reasons: [`8 of 20 outputs changed ${text}`],
        examples: [
          {
            index: 3,
            similarity: 0.2,
            firstDifference: 1,
            baseline: `The answer is 4.\n${text}`,
            candidate: text,
          },
          {
            index: 7,
            similarity: 0.6,
            firstDifference: 5,
            baseline: "a b c d e f",
            candidate: "a b c d e g",
          },
        ],
      },
    ],
    tasks: [
      {
        cell: `tasks ${text}`,
        method: "mcnemar",
        runs: { baseline: 1, candidate: 1 },
        prompts: 50,
        baseline: { correct: 40, accuracy: 0.8, wilson: [0.67, 0.89] },
        candidate: { correct: 30, accuracy: 0.6, wilson: [0.46, 0.72] },
        onlyBaseline: 12,
        onlyCandidate: 2,
        tolerancePoints: 0.02,
        pRaw: 0.006,
        p: 0.006,
        confidence: 0.95,
        verdict: "regression",
        note: null,
      },
    ],
  };
  const root = await mkdtemp(join(tmpdir(), "vpg-html-cap-"));
  const out = join(root, "out");
  const paths = await writeCompareOutputs(out, outcome, noSecrets);
  const html = await readFile(paths.htmlPath, "utf8");
  const chartFiles = (await readdir(join(out, "report-charts"))).sort();
  return { root, out, outcome, html, chartFiles };
}

/**
 * A compare of two load sweeps given as `vllm bench serve` result files, several per label at different
 * request rates (grouped into a cell by label and into loads by request_rate, as compare reads them), and
 * no capacity config: 4 rates x 2 runs a side, the candidate's TTFT and E2E 1.5 times the baseline's.
 * With `slo`, a config names the cell (label "sweep") with a sweep form and those SLOs.
 */
export async function compareSweepInto(
  label: string,
  slo?: { ttft_ms: number; e2el_ms: number },
  env: Record<string, string> = {},
) {
  const root = await mkdtemp(join(tmpdir(), "vpg-html-sweep-"));
  const write = async (name: string, scale: number) => {
    const dir = join(root, name);
    await mkdir(dir, { recursive: true });
    for (const rate of [1, 2, 4, 8])
      for (const [k, jitter] of [1.02, 0.98].entries()) {
        const ttft = scale * 40 * 1.6 ** Math.log2(rate) * jitter;
        const e2el = scale * 900 * 1.3 ** Math.log2(rate) * jitter;
        // The keys `vllm bench serve --save-result --label L --request-rate R --percentile-metrics
        // ttft,tpot,e2el --metric-percentiles 50,95` writes (vllm/benchmarks/serve.py@009e6d4a, see
        // test/metrics/vllm-fixtures.ts), trimmed to what compare reads; values made up.
        await writeFile(
          join(dir, `sweep-qps${rate}-${k}.json`),
          JSON.stringify({
            date: `20261201-0${rate}000${k}`,
            backend: "openai",
            label,
            model_id: "Qwen/Qwen3-0.6B",
            num_prompts: 200,
            request_rate: rate,
            burstiness: 1.0,
            max_concurrency: null,
            duration: 200 / Math.min(rate, 5),
            completed: 200,
            failed: 0,
            request_throughput: Math.min(rate, 5 / scale) * jitter,
            request_goodput: Math.min(rate, 3 / scale) * jitter,
            output_throughput: Math.min(rate, 5 / scale) * 128 * jitter,
            median_ttft_ms: ttft * 0.6,
            p95_ttft_ms: ttft,
            median_tpot_ms: 7 * scale,
            p95_tpot_ms: 9 * scale,
            median_e2el_ms: e2el * 0.7,
            p95_e2el_ms: e2el,
          }),
        );
      }
    return dir;
  };
  const baseline = await write("base", 1);
  const candidate = await write("cand", 1.5);
  const config = slo
    ? configSchema.parse({
        version: 1,
        server: { kind: "sim" },
        model: { name: "Qwen/Qwen3-0.6B" },
        cells: [
          {
            name: "sweep",
            dataset: { type: "synthetic", input_tokens: 256, output_tokens: 128 },
            load: { type: "rate", rate: 1 },
            size: { requests: 200 },
            slo,
            sweep: { loads: [1, 2, 4, 8], runs: 2 },
          },
        ],
      })
    : undefined;
  // The job's seam as a root builds it: the secret set of `env`.
  const outbound = outboundFor(env);
  const outcome = await compareResults({
    outbound,
    baseline: [baseline],
    candidate: [candidate],
    ...(config ? { config } : {}),
    now: new Date("2026-12-01T00:00:00Z"),
  });
  const out = join(root, "out");
  const paths = await writeCompareOutputs(out, outcome, outbound);
  const html = await readFile(paths.htmlPath, "utf8");
  const chartFiles = (await readdir(join(out, "report-charts"))).sort();
  return { root, out, outcome, html, chartFiles, baseline, candidate };
}

/**
 * Run files of a session cell (run.json `sessions`, as metrics/session-metrics.ts summarises them): TTFT
 * p95 per depth bucket `ttft[bucket] * scale`, with a little per-run noise; a bucket left out of `ttft`
 * has no requests in any run (its p95 null), as when no session reached that depth.
 */
export function sessionRunFiles(
  count: number,
  { seed, cell, scale, ttft }: { seed: number; cell: string; scale: number; ttft: Record<string, number> },
): RunFile[] {
  const random = seeded(seed);
  return noisyRuns(count, { seed, cell, shift: scale }).map((run) => {
    const noise = Math.exp(0.03 * gaussian(random));
    const sessions: SessionsSummary = {
      started: 40,
      completed: 40,
      requests: 160,
      throughput: 0.5,
      goodput: null,
      duration: { ...run.latency.e2el, count: 40 },
      cacheHitRate: 0.6,
      serverCacheHitRate: 0.58,
      ttftByDepth: depthBuckets.map((bucket) => {
        const value = ttft[bucket.name];
        return {
          bucket: bucket.name,
          from: bucket.from,
          to: bucket.to,
          requests: value === undefined ? 0 : 40,
          p50: value === undefined ? null : value * scale * noise * 0.7,
          p95: value === undefined ? null : value * scale * noise,
        };
      }),
      contamination: { firstTurns: 40, aboveSharedPrefix: 0, flagged: false },
    };
    return { ...run, sessions };
  });
}

/**
 * A compare of a session cell whose directories hold run.json only (no requests.jsonl): TTFT p95 at depth
 * 1, 2-3 and 4-7 on the baseline, the candidate 1.3 times slower with no run reaching depth 4-7; no run of
 * either side reaches depth 8.
 */
export async function compareSessionInto(cell: string, env: Record<string, string> = {}) {
  const root = await mkdtemp(join(tmpdir(), "vpg-html-sessions-"));
  const write = async (name: string, runs: readonly RunFile[]) => {
    for (const run of runs) {
      const runDir = join(root, name, "cell-0", `run-${run.run}`);
      await mkdir(runDir, { recursive: true });
      await writeFile(join(runDir, "run.json"), JSON.stringify(run, null, 2));
    }
    return join(root, name);
  };
  const baseline = await write(
    "base",
    sessionRunFiles(4, { seed: 5, cell, scale: 1, ttft: { "1": 80, "2_3": 140, "4_7": 260 } }),
  );
  const candidate = await write(
    "cand",
    sessionRunFiles(4, { seed: 6, cell, scale: 1.3, ttft: { "1": 80, "2_3": 140 } }),
  );
  // The job's seam as a root builds it: the secret set of `env`.
  const outbound = outboundFor(env);
  const outcome = await compareResults({
    outbound,
    baseline: [baseline],
    candidate: [candidate],
    now: new Date("2026-12-01T00:00:00Z"),
  });
  const out = join(root, "out");
  const paths = await writeCompareOutputs(out, outcome, outbound);
  const html = await readFile(paths.htmlPath, "utf8");
  const chartFiles = (await readdir(join(out, "report-charts"))).sort();
  return { root, out, outcome, html, chartFiles, baseline, candidate };
}
