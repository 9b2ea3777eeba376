import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareResults, writeCompareOutputs } from "../../src/app/compare.js";
import { loadConfig } from "../../src/config/load.js";
import { cli } from "../cli/helpers.js";
import { baseFingerprint } from "../compare/fixtures.js";
import { noSecrets } from "../job-outbound.js";
import { haveBrowser, inCi, launchChromium } from "./browser.js";
import {
  compareCapacityQualityInto,
  compareInto,
  compareSessionInto,
  compareSweepInto,
} from "./html-fixtures.js";

/**
 * report.html in a real browser: Debian's chromium (installed by .ci/run) driven by playwright-core
 * (which downloads nothing). Opens the report of a compare of real runs of the simulator and of a
 * compare of crafted inputs with hostile strings: no console error, no request leaves the page, every
 * chart has drawn marks, no script from the inputs ran; a screenshot of each goes to .tmp/ for a person
 * to look at. The comment's mermaid blocks go through mermaid's own parser in the same browser.
 * Skipped only off CI when the browser is absent; in CI a missing browser fails the test.
 */

const repoRoot = resolve(import.meta.dirname, "../..");
const screenshots = join(repoRoot, ".tmp", "screenshots");
const mermaidScript = join(repoRoot, "node_modules/mermaid/dist/mermaid.min.js");

/** Sets a global if it ever runs: in a cell name and a model name, it must stay markup-free text. */
const planted = `<img src=x onerror="window.__pwned='img'"><script>window.__pwned='script'</script><svg onload="window.__pwned='svg'"></svg> & "q"`;

let browser: Browser;
let work: string;

beforeAll(async () => {
  if (!haveBrowser && !inCi) return;
  work = await mkdtemp(join(tmpdir(), "vpg-browser-"));
  await mkdir(screenshots, { recursive: true });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

interface Opened {
  page: Page;
  problems: string[];
  requests: string[];
}

/** A fresh page that records console errors, page errors, dialogs and every request not for `allowed`. */
async function openPage(url: string, allowed: string): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 1150, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("dialog", async (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    await dialog.dismiss();
  });
  page.on("request", (request) => {
    if (request.url() !== allowed) requests.push(request.url());
  });
  // Nothing but the file itself is served; anything else is refused (and recorded above).
  await context.route("**/*", (route) =>
    route.request().url() === allowed ? route.continue() : route.abort("blockedbyclient"),
  );
  await page.goto(url, { waitUntil: "load", timeout: 60_000 });
  return { page, problems, requests };
}

/** Per <svg>: its size and how many of its marks (Vega's role-mark groups) have a non-empty box. */
async function chartMarks(
  page: Page,
): Promise<{ width: number; height: number; drawn: number; label: string }[]> {
  return page.$$eval("svg", (svgs) =>
    svgs.map((svg) => {
      const box = svg.getBoundingClientRect();
      let drawn = 0;
      for (const group of svg.querySelectorAll("g.role-mark"))
        for (const mark of group.querySelectorAll("path, line, rect, text")) {
          const b = (mark as unknown as { getBBox(): { width: number; height: number } }).getBBox();
          const shown = mark.getBoundingClientRect();
          if ((b.width > 0 || b.height > 0) && (shown.width > 0 || shown.height > 0)) drawn++;
        }
      const title = svg.querySelector(".role-title-text text");
      return { width: box.width, height: box.height, drawn, label: title?.textContent ?? "?" };
    }),
  );
}

function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```mermaid\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
}

/** Each block through mermaid's own parser, in a blank page with mermaid's bundle loaded. */
async function mermaidParse(
  blocks: readonly string[],
): Promise<{ ok: boolean; type: string; error: string }[]> {
  const { page, problems, requests } = await openPage("about:blank", "about:blank");
  await page.addScriptTag({ path: mermaidScript });
  const results = await page.evaluate(async (texts) => {
    const m = (
      globalThis as unknown as { mermaid: { parse: (t: string) => Promise<{ diagramType: string }> } }
    ).mermaid;
    const out: { ok: boolean; type: string; error: string }[] = [];
    for (const text of texts) {
      try {
        const parsed = await m.parse(text);
        out.push({ ok: true, type: parsed.diagramType, error: "" });
      } catch (error) {
        out.push({ ok: false, type: "", error: String(error) });
      }
    }
    return out;
  }, blocks);
  expect(problems).toEqual([]);
  expect(requests).toEqual([]);
  await page.context().close();
  return results;
}

async function expectReportInBrowser(htmlPath: string, shot: string, minCharts: number): Promise<void> {
  const url = pathToFileURL(htmlPath).href;
  const { page, problems, requests } = await openPage(url, url);
  const charts = await chartMarks(page);
  expect(charts.length).toBeGreaterThanOrEqual(minCharts);
  for (const chart of charts) {
    expect(chart.width, chart.label).toBeGreaterThan(100);
    expect(chart.height, chart.label).toBeGreaterThan(30);
    expect(chart.drawn, `marks drawn in "${chart.label}"`).toBeGreaterThan(0);
  }
  expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
  expect(await page.$$("img, script, iframe, object, embed, a[href]")).toEqual([]);
  await page.screenshot({ path: join(screenshots, shot), fullPage: true });
  expect(problems).toEqual([]);
  expect(requests).toEqual([]);
  await page.context().close();
}

const simConfig = (decodeMs: number) => `version: 1
server:
  kind: sim
  set: { step_overhead_ms: 1, decode_per_seq_ms: ${decodeMs}, speed_sigma: 0.01, jitter_sigma: 0.02 }
model: { name: sim-model }
cells:
  - name: chat
    dataset: { type: synthetic, input_tokens: 64, output_tokens: 24 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 60 }
    warmup: { requests: 4 }
gate:
  tolerance: 0.1
  # Small runs: gate p95 on 60 requests a run, so the percentile charts are drawn.
  min_requests: { p95: 50 }
  # The simulator's decode speed is the thing under test (as the demo allows).
  allowed_differences: [server.args, server.command, configHash]
# This test is about drawing, not client health: a loaded CI machine must not exclude the runs.
client: { max_schedule_lag_ms: 1000, max_event_loop_lag_ms: 1000 }
`;

describe.skipIf(!haveBrowser && !inCi)("report.html in a real browser (Debian's chromium)", () => {
  it("draws every chart of a compare of real simulator runs, with no error and no request; the standalone SVG files too", async () => {
    const sides: string[] = [];
    for (const [side, decodeMs] of [
      ["baseline", 0.08],
      ["candidate", 0.16],
    ] as const) {
      const config = join(work, `${side}.yml`);
      await writeFile(config, simConfig(decodeMs));
      const out = join(work, side);
      const run = await cli(["run", "--config", config, "--out", out, "--runs", "3"], { cwd: work });
      expect(run.code, run.stderr).toBe(0);
      sides.push(out);
    }
    const outcome = await compareResults({
      outbound: noSecrets,
      baseline: [sides[0]!],
      candidate: [sides[1]!],
      config: await loadConfig(join(work, "baseline.yml")),
    });
    expect(outcome.verdict.verdict).not.toBe("not-comparable");
    const out = join(work, "compare");
    const { htmlPath } = await writeCompareOutputs(out, outcome, noSecrets);
    const gated = outcome.verdict.comparisons.filter((c) => c.gated).length;
    expect(gated).toBeGreaterThan(0);
    // Every gated check's runs chart, four distributions and a timeline.
    await expectReportInBrowser(htmlPath, "report-browser-sim.png", gated + 5);
    const files = (await readdir(join(out, "report-charts"))).filter((f) => f.endsWith(".svg"));
    expect(files.length).toBe(gated + 5);
    const timeline = files.find((f) => f.includes("timeline"))!;
    for (const file of [files[0]!, timeline]) {
      const url = pathToFileURL(join(out, "report-charts", file)).href;
      const { page, problems, requests } = await openPage(url, url);
      const [chart] = await chartMarks(page);
      expect(chart!.drawn, file).toBeGreaterThan(0);
      expect(problems).toEqual([]);
      expect(requests).toEqual([]);
      await page.context().close();
    }
    const blocks = mermaidBlocks(outcome.reportMarkdown);
    expect(blocks.length).toBeGreaterThan(0);
    // The parser does reject a malformed chart (a word among the numbers), so passing means something.
    const [malformed, ...parsed] = await mermaidParse(["xychart-beta\n  bar [1, oops]", ...blocks]);
    expect(malformed!.ok).toBe(false);
    for (const result of parsed) expect(result).toEqual({ ok: true, type: "xychart", error: "" });
  }, 300_000);

  it("catches what it looks for: a fetched image, a script that ran, a console error, an empty chart", async () => {
    const bad = join(work, "bad.html");
    const svg = '<svg width="300" height="100"><g class="mark-symbol role-mark runs_marks"></g></svg>';
    const cases = {
      request: `<p>x</p>${svg.replace("</g>", '<path d="M0,0h10v10h-10Z"/></g>')}<img src="http://192.0.2.1/x.png">`,
      script: `${svg.replace("</g>", '<path d="M0,0h10v10h-10Z"/></g>')}<script>globalThis.__pwned = "script"</script>`,
      console: `${svg.replace("</g>", '<path d="M0,0h10v10h-10Z"/></g>')}<script>console.error("boom")</script>`,
      empty: svg,
    };
    for (const [name, html] of Object.entries(cases)) {
      await writeFile(bad, `<!DOCTYPE html><html><body>${html}</body></html>`);
      await expect(expectReportInBrowser(bad, "report-browser-bad.png", 1), name).rejects.toThrow();
    }
  }, 120_000);

  it("shows crafted hostile inputs as text: no script ran, nothing fetched, every chart drawn", async () => {
    const { html, outcome, out } = await compareInto(planted);
    expect(html).not.toContain("<img");
    await expectReportInBrowser(join(out, "report.html"), "report-browser-hostile.png", 5);
    const notComparable = await compareInto(
      planted,
      {},
      { ...baseFingerprint, model: { name: planted, revision: "r" } },
    );
    expect(notComparable.outcome.verdict.verdict).toBe("not-comparable");
    await expectReportInBrowser(
      join(notComparable.out, "report.html"),
      "report-browser-not-comparable.png",
      5,
    );
    const blocks = mermaidBlocks(outcome.reportMarkdown);
    expect(blocks.length).toBeGreaterThan(0);
    for (const parsed of await mermaidParse(blocks))
      expect(parsed).toEqual({ ok: true, type: "xychart", error: "" });
  }, 180_000);

  it("draws a capacity compare with quality checks: load curves, accuracy, escaped examples; the comment's load chart parses", async () => {
    const { out, outcome } = await compareCapacityQualityInto(planted);
    // 5 load curves and the accuracy chart.
    await expectReportInBrowser(join(out, "report.html"), "report-browser-capacity-quality.png", 6);
    const blocks = mermaidBlocks(outcome.reportMarkdown);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toContain("TTFT p95 ms against load");
    for (const parsed of await mermaidParse(blocks))
      expect(parsed).toEqual({ ok: true, type: "xychart", error: "" });
  }, 180_000);

  it("draws a session cell's TTFT against context depth (hostile name); the comment's depth chart parses", async () => {
    const { out, outcome, chartFiles } = await compareSessionInto(planted);
    const gated = outcome.verdict.comparisons.filter((c) => c.gated).length;
    expect(chartFiles.filter((f) => f.endsWith("-ttft-depth.svg"))).toHaveLength(1);
    // Each gated check's runs and the depth chart (no requests.jsonl: no distributions, no timeline).
    await expectReportInBrowser(join(out, "report.html"), "report-browser-sessions.png", gated + 1);
    const blocks = mermaidBlocks(outcome.reportMarkdown);
    expect(blocks.some((block) => block.includes("TTFT p95 ms against context depth"))).toBe(true);
    for (const parsed of await mermaidParse(blocks))
      expect(parsed).toEqual({ ok: true, type: "xychart", error: "" });
  }, 180_000);

  it("draws a compare of two sweeps (hostile label) and one side's run --sweep report of the simulator", async () => {
    const { out, outcome } = await compareSweepInto(planted);
    const gated = outcome.verdict.comparisons.filter((c) => c.gated).length;
    // Each gated check's runs and the sweep's 5 load curves.
    await expectReportInBrowser(join(out, "report.html"), "report-browser-sweep.png", gated + 5);
    const blocks = mermaidBlocks(outcome.reportMarkdown);
    expect(blocks.some((block) => block.includes("TTFT p95 ms against load"))).toBe(true);
    for (const parsed of await mermaidParse(blocks))
      expect(parsed).toEqual({ ok: true, type: "xychart", error: "" });
    const config = join(work, "sweep.yml");
    await writeFile(
      config,
      `${simConfig(0.08).replace(
        "    load: { type: concurrency, concurrency: 4 }\n    size: { requests: 60 }",
        "    load: { type: rate, rate: 1 }\n    size: { requests: 6 }\n    slo: { ttft_ms: 500 }\n    sweep: { loads: [4, 12], runs: 1 }",
      )}`,
    );
    const run = await cli(["run", "--config", config, "--out", join(work, "sweep"), "--sweep"], {
      cwd: work,
    });
    expect(run.code, run.stderr).toBe(0);
    await expectReportInBrowser(
      join(work, "sweep", "chat", "report.html"),
      "report-browser-run-sweep.png",
      5,
    );
  }, 180_000);
});
