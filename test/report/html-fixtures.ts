import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compareResults, writeCompareOutputs } from "../../src/app/compare.js";
import type { RunFile } from "../../src/metrics/run-schema.js";
import type { MetricsScrape } from "../../src/metrics/server-metrics.js";
import type { RequestRecord } from "../../src/runner/request-schema.js";
import { gaussian, noisyRuns, seeded } from "../compare/fixtures.js";
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
  const outcome = await compareResults({
    baseline: [baseline],
    candidate: [candidate],
    env,
    now: new Date("2026-12-01T00:00:00Z"),
  });
  const out = join(root, "out");
  const paths = await writeCompareOutputs(out, outcome);
  const html = await readFile(paths.htmlPath, "utf8");
  const chartFiles = (await readdir(join(out, "report-charts"))).sort();
  const charts = await Promise.all(chartFiles.map((f) => readFile(join(out, "report-charts", f), "utf8")));
  return { root, out, outcome, html, chartFiles, charts, baseline, candidate };
}
