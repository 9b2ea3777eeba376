import { describe, expect, it } from "vitest";
import { compareAndRender } from "../../src/app/compare.js";
import { defaultCompareSettings } from "../../src/compare/index.js";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { distributionOf, type RunSamples, timelineOf } from "../../src/report/charts/data.js";
import { distributionSpec } from "../../src/report/charts/distribution.js";
import { commentChartsSection, maxChartChecks, mermaidLabel } from "../../src/report/charts/mermaid.js";
import { runDotsChart, runDotsSpec } from "../../src/report/charts/run-dots.js";
import { timelineSpec } from "../../src/report/charts/timeline.js";
import { specWarnings } from "../../src/report/charts/vega.js";
import { commentBudget, renderMarkdown } from "../../src/report/markdown.js";
import { intervalBars, intervalBarWidth, renderTerminal } from "../../src/report/terminal.js";
import { noisyRuns } from "../compare/fixtures.js";
import { compareCapacityQualityInto } from "./html-fixtures.js";

function outcome(cells: string[], ttftFactor: number) {
  const base = cells.flatMap((cell, i) => noisyRuns(6, { seed: i, cell }));
  const cand = cells.flatMap((cell, i) => noisyRuns(6, { seed: 50 + i, cell, ttftFactor }));
  const records = (runs: typeof base, side: string) =>
    runs.map((run) => runRecordFromRunFile(run, `${side}/${run.cell}/run-${run.run}/run.json`));
  return compareAndRender({
    baseline: records(base, "b"),
    candidate: records(cand, "c"),
    settings: defaultCompareSettings(),
    mode: "interleaved",
    now: new Date("2026-12-01T00:00:00Z"),
  });
}

/**
 * The statements we write, in the forms mermaid's xychart grammar accepts (mermaid-js/mermaid
 * packages/mermaid/src/diagrams/xychart/parser/xychart.jison @ 13e8d8d4: title and axis titles as
 * quoted strings, x-axis as a band of quoted strings, y-axis `min --> max`, bar/line `[numbers]` with
 * an optional sign). Not mermaid's own parser, which is not a dependency.
 */
const xychartLine = [
  /^xychart-beta$/,
  /^ {2}title "[^"\n]*"$/,
  /^ {2}x-axis ("[A-Za-z0-9 ._/-]+" )?\["[A-Za-z0-9 ._/-]+"(, "[A-Za-z0-9 ._/-]+")*\]$/,
  /^ {2}y-axis "[^"\n]*" -?\d+ --> -?\d+$/,
  /^ {2}(bar|line) \[-?\d+(\.\d)?(, -?\d+(\.\d)?)*\]$/,
];

function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```mermaid\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
}

describe("comment charts (mermaid xychart-beta)", () => {
  it("draws each gated check's decision interval against the tolerance, in mermaid's syntax", () => {
    const { verdict, reportMarkdown } = outcome(["chat"], 1.6);
    const blocks = mermaidBlocks(reportMarkdown);
    expect(blocks.length).toBe(1);
    const lines = blocks[0]!.split("\n");
    for (const line of lines)
      expect(
        xychartLine.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    const withInterval = verdict.comparisons.filter((c) => c.gated && c.ci !== null);
    const series = lines.filter((line) => /^ {2}(bar|line) /.test(line));
    expect(series.length).toBe(3);
    for (const line of series) expect(line.split(",").length).toBe(withInterval.length);
    // The regressed TTFT p95: both ends of its interval above the tolerance line.
    const index = withInterval.findIndex((c) => c.metric === "ttft_p95");
    expect(withInterval[index]!.verdict).toBe("regression");
    const values = series.map((line) =>
      line
        .replace(/^.*\[|\]$/g, "")
        .split(", ")
        .map(Number),
    );
    const [worse, better, tolerance] = [values[0]![index]!, values[1]![index]!, values[2]![index]!];
    expect(better).toBeGreaterThan(tolerance);
    expect(worse).toBeGreaterThanOrEqual(better);
    expect(reportMarkdown).toContain("`report.html`");
  });

  it("keeps labels to safe characters and at most a dozen checks", () => {
    expect(mermaidLabel('a"]\n<img src=x> @x `y` [z]')).toBe("a img src x x y z");
    expect(mermaidLabel("")).toBe("-");
    const cells = Array.from({ length: 6 }, (_, i) => `"cell]${i}<`);
    const { verdict } = outcome(cells, 1.2);
    const section = commentChartsSection(verdict);
    const block = mermaidBlocks(section)[0]!;
    for (const line of block.split("\n"))
      expect(
        xychartLine.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    const axis = block.split("\n").find((line) => line.includes("x-axis"))!;
    expect(axis.split('", "').length).toBe(maxChartChecks);
    expect(block).toMatch(/12 of \d+, most worsened/);
  });

  it("adds a capacity cell's latency-vs-load curve as the second chart, resampled where both sides measured", async () => {
    const { verdict } = outcome(["chat"], 1.6);
    const capacity = (await compareCapacityQualityInto("x")).outcome.verdict.capacity!;
    const section = commentChartsSection({ ...verdict, capacity });
    const blocks = mermaidBlocks(section);
    expect(blocks.length).toBe(2);
    const lines = blocks[1]!.split("\n");
    for (const line of lines)
      expect(
        xychartLine.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    expect(lines[1]).toBe('  title "cap TTFT p95 ms against load"');
    // Loads 1..4 in 8 even steps; TTFT p95 means 100, 200, 400, 800 (baseline), twice that (candidate).
    expect(lines[2]).toBe('  x-axis "requests per s" ["1", "1.4", "1.9", "2.3", "2.7", "3.1", "3.6", "4"]');
    const series = lines
      .filter((line) => line.startsWith("  line "))
      .map((line) =>
        line
          .replace(/^.*\[|\]$/g, "")
          .split(", ")
          .map(Number),
      );
    expect(series[0]).toEqual([100, 142.9, 185.7, 257.1, 342.9, 457.1, 628.6, 800]);
    expect(series[1]).toEqual([200, 285.7, 371.4, 514.3, 685.7, 914.3, 1257.1, 1600]);
    expect(series[2]).toEqual(Array(8).fill(300));
    expect(lines[3]).toBe('  y-axis "TTFT p95 ms" 0 --> 1680');
    // A capacity cell alone: only its chart; none at all without a curve on both sides.
    expect(mermaidBlocks(commentChartsSection({ ...verdict, comparisons: [], capacity })).length).toBe(1);
    const flat = capacity.map((c) => ({
      ...c,
      curve: { ...c.curve!, candidate: c.curve!.candidate.slice(0, 1) },
    }));
    expect(mermaidBlocks(commentChartsSection({ ...verdict, comparisons: [], capacity: flat }))).toEqual([]);
  });

  it("draws a sweep's latency-vs-load curve when no capacity cell has one, a capacity cell's first", async () => {
    const { verdict } = outcome(["chat"], 1.6);
    const capacity = (await compareCapacityQualityInto("x")).outcome.verdict.capacity!;
    const curve = capacity[0]!.curve!;
    const sweeps = [{ cell: "sw", dimension: "concurrency" as const, percentile: "p95", slo: {}, curve }];
    const only = mermaidBlocks(commentChartsSection({ ...verdict, comparisons: [], sweeps }));
    expect(only).toHaveLength(1);
    const lines = only[0]!.split("\n");
    expect(lines[1]).toBe('  title "sw TTFT p95 ms against load"');
    expect(lines[2]).toMatch(/^ {2}x-axis "concurrency" \[/);
    // No SLO in the sweep: two lines, the sides' (the same curve the capacity cell draws).
    expect(lines.filter((line) => line.startsWith("  line "))).toHaveLength(2);
    expect(commentChartsSection({ ...verdict, comparisons: [], sweeps })).toContain(
      "A load sweep without a capacity config: no capacity was computed.",
    );
    const both = mermaidBlocks(commentChartsSection({ ...verdict, comparisons: [], capacity, sweeps }));
    expect(both).toHaveLength(1);
    expect(both[0]).toContain('title "cap TTFT p95 ms against load"');
  });

  it("is the first thing dropped when the comment or the long form is over budget, folded in the comment", () => {
    const { verdict } = outcome(["chat"], 1.6);
    const full = renderMarkdown(verdict, { form: "report", budget: commentBudget });
    expect(full).toContain("```mermaid");
    const tight = renderMarkdown(verdict, { form: "report", budget: full.length - 1 });
    expect(tight).not.toContain("```mermaid");
    expect(tight).toContain("<summary>All metrics");
    const comment = renderMarkdown(verdict, { form: "comment" });
    expect(comment).toContain("<summary>Pictures: Decision interval per gated check, worsening %</summary>");
    const tightComment = renderMarkdown(verdict, { form: "comment", budget: comment.length - 1 });
    expect(tightComment).not.toContain("```mermaid");
    expect(tightComment).toContain("within tolerance</summary>");
  });
});

describe("terminal interval bars", () => {
  it("puts a regression's whole interval beyond the tolerance edge, plain ASCII off a TTY", () => {
    const { verdict } = outcome(["chat"], 1.6);
    const bars = intervalBars(verdict, { unicode: false });
    const checks = verdict.comparisons.filter((c) => c.gated && c.ci !== null);
    expect(bars.length).toBe(checks.length + 1);
    for (const line of bars) expect(line).toMatch(/^[\x20-\x7e…−]*$/);
    const row = bars[1 + checks.findIndex((c) => c.metric === "ttft_p95")]!;
    const bar = row.slice(
      row.length - intervalBarWidth - 2 - row.split("  ").at(-1)!.length,
      -row.split("  ").at(-1)!.length - 2,
    );
    expect(bar.length).toBe(intervalBarWidth);
    const edges = [...bar].flatMap((ch, i) => (ch === "|" ? [i] : []));
    expect(edges.length).toBe(2);
    const filled = [...bar].flatMap((ch, i) => (ch === "=" || ch === "#" || ch === ">" ? [i] : []));
    expect(Math.min(...filled)).toBeGreaterThan(edges[1]!);
    const plain = renderTerminal(verdict, { color: false });
    expect(plain).toContain(bars[1]!);
    expect(plain).not.toContain("\u001b[");
    const tty = renderTerminal(verdict, { color: true });
    expect(tty).toContain("┃");
  });
});

describe("chart building blocks", () => {
  it("builds Vega-Lite specs that compile without a warning, with the data inline and no URL to load", () => {
    const { verdict } = outcome(["chat"], 1.6);
    const checks = verdict.comparisons.filter((c) => c.gated);
    const samples: RunSamples = {
      side: "candidate",
      cell: "chat",
      run: 0,
      source: "x/run.json",
      answer_ttft: [],
      answer_itl: [],
      ttft: [5, 6, 70],
      tpot: [1, 2, 3],
      e2el: [10, 20, 30],
      itl: [0, 2, 3, 4],
      ttftAt: [10, 500, 900],
      itlAt: [20, 40, 600, 950],
      failedAt: [300],
      scrapes: [0, 300, 600, 900].map((atMs, i) => ({
        atMs,
        running: i,
        waiting: 1,
        kvUsage: 0.1 * i,
        preemptionsTotal: [0, 0, 3, 4][i]!,
      })),
      skippedLines: 0,
    };
    const specs = [
      ...checks.map((comparison) => runDotsSpec({ comparison, runs: [] })),
      distributionSpec("chat", { phase: "itl", baseline: distributionOf([0, 1, 2, 50]), candidate: null }),
      distributionSpec("chat", { phase: "ttft", baseline: null, candidate: null }),
      timelineSpec("chat", timelineOf(samples)),
      timelineSpec("chat", timelineOf({ ...samples, scrapes: [] })),
    ];
    for (const spec of specs) {
      expect(specWarnings(spec)).toEqual([]);
      expect(JSON.stringify(spec)).not.toMatch(/"url"/);
    }
  });

  it("renders the same bytes twice, with no ids, and escapes text itself", async () => {
    const { verdict } = outcome(['<b>&"x"</b>'], 1.6);
    const check = { comparison: verdict.comparisons.find((c) => c.gated)!, runs: [] };
    const first = await runDotsChart(check, { standalone: true });
    const second = await runDotsChart(check, { standalone: true });
    expect(second).toBe(first);
    expect(first).not.toMatch(/\sid="|url\(|xlink/);
    expect(first).toContain('>&lt;b&gt;&amp;"x"&lt;/b&gt; · ');
    expect(first).not.toContain("<b>");
  });

  it("thins a distribution but keeps its tail and percentiles", () => {
    const values = Array.from({ length: 10_000 }, (_, i) => i + 1);
    const d = distributionOf(values)!;
    expect(d.points.length).toBeLessThanOrEqual(200);
    expect(d.points.some(([, q]) => q === 0.999)).toBe(true);
    expect(d.p50).toBeCloseTo(5000.5, 6);
    expect(distributionOf([])).toBeNull();
  });

  it("marks preemptions where the counter rose between scrapes and bins ITL over time", () => {
    const samples: RunSamples = {
      side: "candidate",
      cell: "c",
      run: 0,
      source: "x/run.json",
      answer_ttft: [],
      answer_itl: [],
      ttft: [5, 6, 7],
      tpot: [],
      e2el: [],
      itl: [1, 2, 3, 4],
      ttftAt: [10, 500, 900],
      itlAt: [20, 40, 600, 950],
      failedAt: [],
      scrapes: [0, 300, 600, 900].map((atMs, i) => ({
        atMs,
        running: i,
        waiting: 0,
        kvUsage: 0.1 * i,
        preemptionsTotal: [0, 0, 3, 4][i]!,
      })),
      skippedLines: 0,
    };
    const t = timelineOf(samples);
    expect(t.preemptions).toEqual([
      { atMs: 600, added: 3 },
      { atMs: 900, added: 1 },
    ]);
    expect(t.endMs).toBe(950);
    // 60 bins over 950 ms: each gap lands in its own bin, in time order.
    expect(t.itl.map((b) => b.p50)).toEqual([1, 2, 3, 4]);
    expect(t.itl.every((b) => b.fromMs < b.toMs)).toBe(true);
    expect(t.ttft).toEqual([
      [10, 5],
      [500, 6],
      [900, 7],
    ]);
  });
});
