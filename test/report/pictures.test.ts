import { describe, expect, it } from "vitest";
import { compareAndRender } from "../../src/app/compare.js";
import { defaultCompareSettings } from "../../src/compare/index.js";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { distributionOf, type RunSamples, reportPictures, timelineOf } from "../../src/report/charts/data.js";
import { depthChart, depthSpec } from "../../src/report/charts/depth.js";
import { distributionSpec } from "../../src/report/charts/distribution.js";
import {
  commentChartsSection,
  depthCommentChart,
  maxChartChecks,
  mermaidLabel,
} from "../../src/report/charts/mermaid.js";
import { runDotsChart, runDotsSpec } from "../../src/report/charts/run-dots.js";
import { timelineSpec } from "../../src/report/charts/timeline.js";
import { specWarnings } from "../../src/report/charts/vega.js";
import { commentBudget, renderMarkdown } from "../../src/report/markdown.js";
import { intervalBars, intervalBarWidth, renderTerminal } from "../../src/report/terminal.js";
import { noisyRuns } from "../compare/fixtures.js";
import { compareCapacityQualityInto, hostile, sessionRunFiles } from "./html-fixtures.js";

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

/**
 * A session cell from crafted run files: the baseline's TTFT p95 at depth 1, 2-3 and 4-7, the candidate
 * 1.3 times slower and with no run reaching depth 4-7, no run of either side reaching depth 8; the
 * candidate's run 1 client-bound (excluded by compare).
 */
function sessionOutcome(cell: string) {
  const base = sessionRunFiles(4, { seed: 5, cell, scale: 1, ttft: { "1": 80, "2_3": 140, "4_7": 260 } });
  const cand = sessionRunFiles(4, { seed: 6, cell, scale: 1.3, ttft: { "1": 80, "2_3": 140 } }).map((run) =>
    run.run === 1 ? { ...run, flags: { ...run.flags, clientBound: true } } : run,
  );
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

describe("TTFT against context depth (session cells)", () => {
  it("has each run's TTFT p95 per bucket and each side's judged geometric mean, only the buckets with data", () => {
    const outcome = sessionOutcome("agent");
    const pictures = reportPictures(outcome.verdict, outcome.runs, [], (text) => text);
    const depth = pictures.cells[0]!.depth!;
    expect(depth.cell).toBe("agent");
    // Depth 8 and up has no value in any run: not on the axis.
    expect(depth.buckets).toEqual([
      { bucket: "1", label: "1" },
      { bucket: "2_3", label: "2-3" },
      { bucket: "4_7", label: "4-7" },
    ]);
    const count = (side: string, bucket: string) =>
      depth.runs.filter((r) => r.side === side && r.bucket === bucket).length;
    expect([count("baseline", "1"), count("baseline", "2_3"), count("baseline", "4_7")]).toEqual([4, 4, 4]);
    expect([count("candidate", "1"), count("candidate", "2_3"), count("candidate", "4_7")]).toEqual([
      4, 4, 0,
    ]);
    // Each run's own value, from its record; the client-bound run is there, marked unused.
    const record = outcome.runs.candidate.find((r) => r.run === 2)!;
    expect(depth.runs.find((r) => r.side === "candidate" && r.run === 2 && r.bucket === "2_3")).toEqual({
      side: "candidate",
      run: 2,
      bucket: "2_3",
      value: record.metrics.ttft_p95_depth_2_3,
      used: true,
    });
    expect(depth.runs.filter((r) => !r.used).map((r) => [r.side, r.run, r.bucket])).toEqual([
      ["candidate", 1, "1"],
      ["candidate", 1, "2_3"],
    ]);
    // The lines are what compare judged: the verdict's geometric means of the depth metrics.
    const judged = (metric: string) => outcome.verdict.comparisons.find((c) => c.metric === metric)!;
    expect(depth.means).toEqual([
      { side: "baseline", bucket: "1", value: judged("ttft_p95_depth_1").baseline },
      { side: "baseline", bucket: "2_3", value: judged("ttft_p95_depth_2_3").baseline },
      { side: "baseline", bucket: "4_7", value: judged("ttft_p95_depth_4_7").baseline },
      { side: "candidate", bucket: "1", value: judged("ttft_p95_depth_1").candidate },
      { side: "candidate", bucket: "2_3", value: judged("ttft_p95_depth_2_3").candidate },
      { side: "candidate", bucket: "4_7", value: null },
    ]);
    const usedCandidate = [0, 2, 3].map(
      (run) => outcome.runs.candidate.find((r) => r.run === run)!.metrics.ttft_p95_depth_1!,
    );
    expect(depth.means[3]!.value).toBeCloseTo(
      Math.exp(usedCandidate.reduce((sum, v) => sum + Math.log(v), 0) / usedCandidate.length),
      9,
    );
    // A cell without session metrics has no depth picture.
    const { verdict, ...rest } = outcome;
    const plain = reportPictures(verdict, { ...rest.runs, baseline: [], candidate: [] }, [], (text) => text);
    expect(plain.cells[0]!.depth).toBeUndefined();
  });

  it("builds a warning-free spec and an SVG with a dot per run, a broken line where a side has no value, an escaped title", async () => {
    const outcome = sessionOutcome(hostile);
    const depth = reportPictures(outcome.verdict, outcome.runs, [], (text) => text).cells[0]!.depth!;
    const spec = depthSpec(depth);
    expect(await specWarnings(spec)).toEqual([]);
    expect(JSON.stringify(spec)).not.toMatch(/"url"/);
    const svg = await depthChart(depth, { standalone: true });
    expect(await depthChart(depth, { standalone: true })).toBe(svg);
    expect(svg).not.toMatch(/\sid="|url\(|xlink/);
    // The chart's name is its first child, escaped; the cell name is text everywhere.
    expect(svg).toMatch(
      /^<svg [^>]*><title>&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;&lt;img src=x onerror=alert\(1\)&gt; &amp; &quot;q&quot; &#39;a&#39; @\u200boctocat \]\]&gt; · TTFT p95 against context depth<\/title>/,
    );
    expect(svg).not.toContain("<img");
    expect(svg).not.toContain("<script");
    const dots = [
      ...svg.matchAll(/aria-label="((?:baseline|candidate) run-[^"]*)"[^>]*fill-opacity="([^"]*)"/g),
    ];
    // Bucket by bucket, the baseline's runs first; the candidate has none at depth 4-7.
    expect(dots.map((m) => m[1]!.replace(/: .*$/, ""))).toEqual(
      ["1", "2-3", "4-7"].flatMap((at) => [
        ...[0, 1, 2, 3].map((run) => `baseline run-${run} at depth ${at}`),
        ...(at === "4-7"
          ? []
          : [0, 1, 2, 3].map(
              (run) => `candidate run-${run}${run === 1 ? " (excluded)" : ""} at depth ${at}`,
            )),
      ]),
    );
    for (const [, label, opacity] of dots) expect(opacity === "0", label).toBe(label!.includes("(excluded)"));
    expect(dots[0]![1]).toMatch(/^baseline run-0 at depth 1: [\d.]+ ms$/);
    // One line per side: the baseline's through its three buckets, the candidate's through two.
    const lines = [
      ...svg.matchAll(/<path aria-label="([^"]*)"[^>]*aria-roledescription="line mark" d="([^"]*)"/g),
    ];
    expect(lines.map((m) => m[1]!.split(" ")[0])).toEqual(["baseline", "candidate"]);
    expect(lines[0]![2]!.match(/[ML]/g)).toEqual(["M", "L", "L"]);
    expect(lines[1]![2]!.match(/[ML]/g)).toEqual(["M", "L"]);
    // A verdict that judged no depth metric (a cell not compared): the runs still drawn, no line.
    const unjudged = {
      ...outcome.verdict,
      comparisons: outcome.verdict.comparisons.filter((c) => !c.metric.startsWith("ttft_p95_depth_")),
    };
    const dotsOnly = reportPictures(unjudged, outcome.runs, [], (text) => text).cells[0]!.depth!;
    expect(dotsOnly.runs).toEqual(depth.runs);
    expect(dotsOnly.means.every((m) => m.value === null)).toBe(true);
    expect(await specWarnings(depthSpec(dotsOnly))).toEqual([]);
    const bare = await depthChart(dotsOnly);
    expect(bare.match(/aria-roledescription="point"/g)).toHaveLength(20);
    expect(bare).toContain(
      'aria-label="baseline geometric mean by depth: none at 1, none at 2-3, none at 4-7"',
    );
    expect(svg).toContain("context depth (turn number, 1 = the first)");
    expect(svg).toContain(
      '<tspan>dots: runs (hollow: excluded) · lines: geometric means</tspan><tspan x="0" dy="12">runs: baseline 4, candidate 4 · log axis</tspan>',
    );
  });

  it("draws the comment's chart from the verdict: both sides' lines over the buckets both have, labels made safe", () => {
    const outcome = sessionOutcome(hostile);
    const drawn = depthCommentChart(outcome.verdict)!;
    const lines = drawn.source.split("\n");
    for (const line of lines)
      expect(
        xychartLine.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    expect(lines[1]).toBe(
      '  title "script alert x /script img src x onerro. TTFT p95 ms against context depth"',
    );
    // Depth 4-7 has no candidate value: left out, as is depth 8 (no values at all).
    expect(lines[2]).toBe('  x-axis "turn number" ["1", "2-3"]');
    const judged = (metric: string) => outcome.verdict.comparisons.find((c) => c.metric === metric)!;
    const round = (v: number | null) => Math.round(v! * 10) / 10;
    expect(lines[4]).toBe(
      `  line [${round(judged("ttft_p95_depth_1").baseline)}, ${round(judged("ttft_p95_depth_2_3").baseline)}]`,
    );
    expect(lines[5]).toBe(
      `  line [${round(judged("ttft_p95_depth_1").candidate)}, ${round(judged("ttft_p95_depth_2_3").candidate)}]`,
    );
    const top = Number(/--> (\d+)$/.exec(lines[3]!)![1]);
    expect(top).toBeGreaterThanOrEqual(round(judged("ttft_p95_depth_2_3").candidate));
    expect(top % 10).toBe(0);
    // In the comment: in the pictures fold beside the interval chart, the first screen unchanged.
    const comment = renderMarkdown(outcome.verdict, { form: "comment" });
    expect(comment).toContain(
      "<summary>Pictures: Decision interval per gated check, worsening %; script alert x /script img src x onerro. TTFT p95 ms against context depth</summary>",
    );
    expect(comment.length).toBeLessThan(commentBudget);
    expect(mermaidBlocks(comment)).toEqual([expect.stringContaining("Decision interval"), drawn.source]);
    expect(comment.indexOf("against context depth")).toBeGreaterThan(comment.indexOf("<details>"));
    // Not drawn without two buckets both sides have, nor without session metrics.
    const shallow = {
      ...outcome.verdict,
      comparisons: outcome.verdict.comparisons.filter((c) => c.metric !== "ttft_p95_depth_2_3"),
    };
    expect(depthCommentChart(shallow)).toBeNull();
    expect(depthCommentChart({ ...outcome.verdict, comparisons: [] })).toBeNull();
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
  it("builds Vega-Lite specs that compile without a warning, with the data inline and no URL to load", async () => {
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
      expect(await specWarnings(spec)).toEqual([]);
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
