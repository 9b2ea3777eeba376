import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareResults, writeCompareOutputs } from "../../src/compare/index.js";
import type { RequestRecord } from "../../src/metrics/request-record.js";
import type { RunFile } from "../../src/metrics/run-schema.js";
import type { MetricsScrape } from "../../src/metrics/server-metrics.js";
import { headlineWords } from "../../src/report/markdown.js";
import { cli } from "../cli/helpers.js";
import { baseFingerprint, gaussian, noisyRuns, seeded } from "../compare/fixtures.js";
import { expectNoPlantedSecret, plantedSecret } from "../secret-forms.js";
import { parseXml, type XmlElement } from "./xml-check.js";

/**
 * report.html and report-charts/ from `compare` on results directories that hold run.json,
 * requests.jsonl and scrapes.jsonl, as `run` writes them (shapes: src/metrics/request-record.ts and
 * src/runner/metrics-scraper.ts; metric names as src/sim/metrics-text.ts exposes them, vLLM's).
 */

const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)> & "q" 'a' @octocat ]]>`;

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

async function compareInto(
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

const allowedElements = new Set([
  "html",
  "head",
  "meta",
  "title",
  "style",
  "body",
  "h1",
  "h2",
  "h3",
  "p",
  "strong",
  "em",
  "ul",
  "li",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "div",
  "figure",
  "figcaption",
  "svg",
  "line",
  "rect",
  "circle",
  "text",
  "polyline",
]);

function expectSelfContained(elements: readonly XmlElement[], document: string): void {
  for (const element of elements) {
    expect(allowedElements.has(element.name), `element <${element.name}>`).toBe(true);
    for (const attr of Object.keys(element.attrs)) {
      expect(attr.toLowerCase().startsWith("on"), `attribute ${attr}`).toBe(false);
      expect(["href", "src", "xlink:href"]).not.toContain(attr);
    }
  }
  expect(document).not.toMatch(/<script/i);
  expect(document).not.toMatch(/url\(|@import|<link/i);
}

describe("report.html", () => {
  it("is one well-formed, self-contained page opening with the comment's verdict, with every chart", async () => {
    const { html, outcome, chartFiles, charts } = await compareInto("chat");
    const elements = parseXml(html);
    expectSelfContained(elements, html);
    // No URL of any kind: nothing to fetch, nothing to follow.
    expect(html).not.toMatch(/https?:/i);
    const words = headlineWords(outcome.verdict);
    expect(html).toContain(`vllm-perf-gate: ${words.title}</h1>`);
    expect(outcome.reportMarkdown).toContain(`vllm-perf-gate: ${words.title}`);
    expect(html).toContain(words.said);
    const svgs = elements.filter((e) => e.name === "svg");
    const gated = outcome.verdict.comparisons.filter((c) => c.gated);
    // Per gated check one runs chart, four distributions, one timeline.
    expect(svgs.length).toBe(gated.length + 4 + 1);
    expect(chartFiles.length).toBe(svgs.length);
    // Every run of both sides is a dot in each check's chart (5 + 5 runs).
    const ttftChart = charts[chartFiles.findIndex((f) => f.includes("ttft_p95-runs"))]!;
    const dots = parseXml(ttftChart).filter(
      (e) => e.name === "circle" && ["baseline", "candidate", "excluded"].includes(e.attrs.class ?? ""),
    );
    expect(dots.length).toBe(10);
    // Used runs are filled in their side's colour, excluded ones hollow: as the verdict says.
    const used = outcome.verdict.runs.used.filter((r) => r.cell === "chat").length;
    expect(dots.filter((d) => d.attrs.class !== "excluded").length).toBe(used);
    expect(used).toBeGreaterThan(0);
    // The tolerance band and the decision interval are drawn.
    expect(ttftChart).toContain('class="band"');
    expect(ttftChart).toMatch(/class="interval(-regression|-improvement)?"/);
    // A pooled error rate of 0 on every run: a linear axis from 0, in percent.
    const errorChart = charts[chartFiles.findIndex((f) => f.includes("error_rate-runs"))]!;
    const ticks = [...errorChart.matchAll(/class="tick">([^<]*)</g)].map((m) => m[1]!);
    expect(ticks[0]).toBe("0%");
    expect(ticks.every((t) => /^\d+(\.\d+)?%$/.test(t))).toBe(true);
    // The timeline marks the preemptions where the counter rose and draws the scraped gauges.
    const timeline = charts[chartFiles.findIndex((f) => f.includes("timeline"))]!;
    expect(parseXml(timeline).filter((e) => e.attrs.class === "preemption").length).toBeGreaterThanOrEqual(1);
    for (const cls of ["line-running", "line-waiting", "line-kv", "line-p50", "line-p99", "dot-ttft"])
      expect(timeline).toContain(`class="${cls}"`);
    // The invalid line of requests.jsonl is said, not fatal.
    expect(html).toContain("were not valid records");
  });

  it("writes each chart as an SVG file whose only URL is the SVG namespace", async () => {
    const { charts, html } = await compareInto("chat");
    for (const svg of charts) {
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      const elements = parseXml(svg);
      expectSelfContained(elements, svg);
      expect(svg.replace('xmlns="http://www.w3.org/2000/svg"', "")).not.toMatch(/https?:/i);
      // The same chart is in the page (without the namespace an inline <svg> does not need).
      expect(html).toContain(svg.trim().replace(' xmlns="http://www.w3.org/2000/svg"', ""));
    }
  });

  it("is deterministic: the same inputs give the same bytes", async () => {
    const first = await compareInto("chat");
    const second = await compareInto("chat");
    expect(second.html).toBe(first.html);
    expect(second.chartFiles).toEqual(first.chartFiles);
    expect(second.charts).toEqual(first.charts);
  });

  it("escapes hostile cell names: no markup from the inputs, no script", async () => {
    const { html, charts, chartFiles, outcome } = await compareInto(
      hostile,
      {},
      {
        ...baseFingerprint,
        model: { name: hostile, revision: "abc123" },
      },
    );
    // The blocking difference opens the page as it opens the comment, escaped.
    expect(outcome.verdict.verdict).toBe("not-comparable");
    expect(html).toMatch(/<li>not comparable: model\.name: Qwen\/Qwen3-0\.6B \(baseline\) vs &lt;script&gt;/);
    for (const document of [html, ...charts]) {
      const elements = parseXml(document);
      expectSelfContained(elements, document);
      expect(elements.some((e) => e.name === "img")).toBe(false);
    }
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).toContain("@\u200boctocat");
    // File names are reduced to safe characters.
    for (const file of chartFiles) expect(file).toMatch(/^[a-z0-9_-]+\.svg$/);
  });

  it("never shows a planted secret, in any form, even when it is in the cell name and the request errors", async () => {
    const { html, charts, outcome } = await compareInto(`chat ${plantedSecret}`, {
      MY_API_TOKEN: plantedSecret,
    });
    expectNoPlantedSecret("report.html", html);
    for (const [i, svg] of charts.entries()) expectNoPlantedSecret(`chart ${i}`, svg);
    expectNoPlantedSecret("report.md", outcome.reportMarkdown);
    // The runs are still matched to the redacted verdict: the distributions and the timeline are drawn.
    expect(html).toContain("TTFT distribution");
    expect(html).toContain("over time");
  });

  it("says why distributions are missing for runs without requests.jsonl", async () => {
    const root = await mkdtemp(join(tmpdir(), "vpg-html-bare-"));
    const write = async (dir: string, runs: RunFile[]) => {
      for (const run of runs) {
        await mkdir(join(dir, run.cell, `run-${run.run}`), { recursive: true });
        await writeFile(join(dir, run.cell, `run-${run.run}`, "run.json"), JSON.stringify(run));
      }
      return dir;
    };
    const outcome = await compareResults({
      baseline: [await write(join(root, "b"), noisyRuns(4, { seed: 3 }))],
      candidate: [await write(join(root, "c"), noisyRuns(4, { seed: 4 }))],
    });
    const { htmlPath } = await writeCompareOutputs(join(root, "out"), outcome);
    const html = await readFile(htmlPath, "utf8");
    parseXml(html);
    expect(html).toContain("No per-request records (requests.jsonl)");
    expect(html).not.toContain("distribution</title>");
    expect(html).toContain("ttft_p95-runs.svg");
  });

  it("compare --format html prints report.html; text output names it", async () => {
    const { baseline, candidate, root } = await compareInto("chat");
    const printed = await cli(
      ["compare", "--baseline", baseline, "--candidate", candidate, "--out", "o", "--format", "html"],
      { cwd: root },
    );
    expect(printed.stderr).toBe("");
    expect(printed.stdout.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(printed.stdout).toBe(await readFile(join(root, "o", "report.html"), "utf8"));
    const text = await cli(["compare", "--baseline", baseline, "--candidate", candidate, "--out", "t"], {
      cwd: root,
    });
    expect(text.stdout).toContain(join(root, "t", "report.html"));
  });
});
