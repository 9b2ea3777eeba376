import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareResults, writeCompareOutputs } from "../../src/app/compare.js";
import type { RunFile } from "../../src/metrics/run-schema.js";
import { formatMetricValue } from "../../src/report/format.js";
import { headlineWords } from "../../src/report/markdown.js";
import { cli } from "../cli/helpers.js";
import { baseFingerprint, noisyRuns } from "../compare/fixtures.js";
import { noSecrets } from "../job-outbound.js";
import { expectNoPlantedSecret, plantedSecret } from "../secret-forms.js";
import {
  compareCapacityQualityInto,
  compareInto,
  compareSessionInto,
  compareSweepInto,
  hostile,
} from "./html-fixtures.js";
import { parseXml, type XmlElement } from "./xml-check.js";

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
  // What Vega's SVG renderer draws with.
  "g",
  "path",
  "line",
  "rect",
  "text",
  "tspan",
]);

/** The elements drawn inside each `<g class="… NAME_marks">` group of a chart (Vega names a layer's marks so). */
function marks(svg: string, name: string): XmlElement[][] {
  const groups: XmlElement[][] = [];
  const elements = parseXml(svg);
  const open = new RegExp(`^mark-[a-z]+ role-mark ${name}_marks$`);
  elements.forEach((element, i) => {
    if (element.name !== "g" || !open.test(element.attrs.class ?? "")) return;
    const depth = element.ancestors.length;
    const inside: XmlElement[] = [];
    for (let k = i + 1; k < elements.length && elements[k]!.ancestors.length > depth; k++)
      inside.push(elements[k]!);
    groups.push(inside);
  });
  return groups;
}

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
    // Every run of both sides is a dot in each check's chart (5 + 5 runs), labelled with its value.
    const ttftChart = charts[chartFiles.findIndex((f) => f.includes("ttft_p95-runs"))]!;
    const dots = marks(ttftChart, "runs")[0]!.filter((e) => e.name === "path");
    expect(dots.length).toBe(10);
    for (const dot of dots)
      expect(dot.attrs["aria-label"]).toMatch(/^(baseline|candidate) run-\d( \(excluded\))?: [\d.,]+ ms$/);
    // Used runs are filled in their side's colour, excluded ones hollow: as the verdict says.
    const used = outcome.verdict.runs.used.filter((r) => r.cell === "chat").length;
    expect(dots.filter((d) => d.attrs["fill-opacity"] !== "0").length).toBe(used);
    expect(
      dots
        .filter((d) => d.attrs["fill-opacity"] === "0")
        .every((d) => d.attrs["aria-label"]!.includes("(excluded)")),
    ).toBe(true);
    expect(used).toBeGreaterThan(0);
    // The tolerance band and the decision interval are drawn, the interval red for a regression.
    const ttft = outcome.verdict.comparisons.find((c) => c.metric === "ttft_p95")!;
    expect(ttft.verdict).toBe("regression");
    expect(marks(ttftChart, "band")[0]![0]!.attrs["aria-label"]).toMatch(
      /^tolerance band [\d.]+ ms to [\d.]+ ms$/,
    );
    const interval = marks(ttftChart, "interval_layer_2")[0]!;
    expect(interval.length).toBe(1);
    expect(interval[0]!.attrs.stroke).toBe("#c9302c");
    // A pooled error rate of 0 on every run: a linear axis from 0, in percent, and no interval.
    const errorChart = charts[chartFiles.findIndex((f) => f.includes("error_rate-runs"))]!;
    const axisLabels = errorChart.slice(errorChart.indexOf("role-axis-label"));
    const ticks = [...axisLabels.slice(0, axisLabels.indexOf("</g>")).matchAll(/>([^<]*)<\/text>/g)].map(
      (m) => m[1]!,
    );
    expect(ticks[0]).toBe("0%");
    expect(ticks.length).toBeGreaterThan(2);
    expect(ticks.every((t) => /^\d+(\.\d+)?%$/.test(t))).toBe(true);
    expect(errorChart).toContain("pooled over requests: no per-run interval");
    // The timeline marks the preemption where the counter rose (in each of its three panels), draws
    // every request's TTFT and the scraped gauges.
    const timeline = charts[chartFiles.findIndex((f) => f.includes("timeline"))]!;
    const preemptions = marks(timeline, "preemption");
    expect(preemptions.length).toBe(3);
    for (const panel of preemptions) expect(panel.filter((e) => e.name === "line").length).toBe(1);
    expect(marks(timeline, "ttft")[0]!.filter((e) => e.name === "path").length).toBe(20);
    expect(marks(timeline, "itl").length).toBe(2);
    expect(marks(timeline, "queue").length).toBe(2);
    expect(marks(timeline, "kv").length).toBe(1);
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
    // Vega's renderer escapes the cell name in each chart's title text and accessible labels itself.
    for (const svg of charts) {
      expect(svg).toContain(
        "aria-label=\"Title text '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot;",
      );
      expect(svg).toMatch(/<text[^>]*>&lt;script&gt;alert\("x"\)&lt;\/script&gt;&lt;img/);
      expect(svg).not.toContain("<img");
      expect(svg).not.toContain("<script");
    }
    expect(html).toContain("@\u200boctocat");
    // File names are reduced to safe characters.
    for (const file of chartFiles) expect(file).toMatch(/^[a-z0-9_-]+\.svg$/);
  });

  it("draws a capacity cell's load curves with the SLO lines and each side's capacity point", async () => {
    const { html, out, chartFiles, outcome } = await compareCapacityQualityInto(hostile);
    const check = outcome.verdict.capacity![0]!;
    expect(check.curve!.baseline).toHaveLength(4);
    const loadFiles = chartFiles.filter((f) => f.includes("-load-"));
    expect(loadFiles).toEqual([
      "1-cap-load-completedpersecond.svg",
      "1-cap-load-e2elms.svg",
      "1-cap-load-goodput.svg",
      "1-cap-load-outputtokenspersecond.svg",
      "1-cap-load-ttftms.svg",
    ]);
    expect(html).toContain("<h3>Load curves and the capacity point of each side</h3>");
    expect(html).toMatch(/Capacity at the SLOs \(p95, rate\): baseline capacity 2\.\d\d .*; regression\./);
    for (const file of loadFiles) {
      const svg = await readFile(join(out, "report-charts", file), "utf8");
      // Each side a line through its 4 loads (one path) with a dot per load; a rule per capacity point.
      const curve = marks(svg, "curve");
      expect(curve.length, file).toBeGreaterThan(0);
      expect(curve.flat().filter((e) => e.name === "path").length, file).toBeGreaterThanOrEqual(2);
      const capacity = marks(svg, "capacity").flat();
      expect(capacity.filter((e) => e.name === "line").map((e) => e.attrs["aria-label"])).toEqual([
        expect.stringMatching(/baseline capacity 2\.\d\d/),
        expect.stringMatching(/candidate capacity 1\.\d\d/),
      ]);
      const slo = marks(svg, "slo").flat();
      if (file.includes("ttftms") || file.includes("e2elms"))
        expect(
          slo.map((e) => e.attrs["aria-label"]),
          file,
        ).toEqual([expect.stringContaining(file.includes("ttftms") ? "SLO 300 ms" : "SLO 2,000 ms")]);
      else expect(slo, file).toEqual([]);
      expectSelfContained(parseXml(svg), svg);
    }
    expectSelfContained(parseXml(html), html);
  });

  it("draws both sides' load curves of a sweep compared without a capacity config (vLLM files by label and rate)", async () => {
    const { html, out, chartFiles, outcome } = await compareSweepInto("sweep", {
      ttft_ms: 150,
      e2el_ms: 2000,
    });
    // Judged as one fixed-load cell, as before, with the curves beside it.
    expect(outcome.verdict.capacity).toBeUndefined();
    expect(outcome.verdict.cells.map((c) => c.name)).toEqual(["sweep"]);
    const sweep = outcome.verdict.sweeps![0]!;
    expect(sweep.dimension).toBe("rate");
    expect(sweep.slo).toEqual({ ttft_ms: 150, e2el_ms: 2000 });
    expect(sweep.curve.baseline.map((p) => [p.load, p.runs])).toEqual([
      [1, 2],
      [2, 2],
      [4, 2],
      [8, 2],
    ]);
    // Means of the two runs at a load (jitter 1.02 and 0.98): TTFT p95 40 ms x 1.6^log2(rate).
    expect(sweep.curve.baseline[2]!.ttftMs).toBeCloseTo(40 * 1.6 ** 2, 6);
    expect(sweep.curve.candidate[2]!.ttftMs).toBeCloseTo(1.5 * 40 * 1.6 ** 2, 6);
    const loadFiles = chartFiles.filter((f) => f.includes("-load-"));
    expect(loadFiles).toEqual([
      "1-sweep-load-completedpersecond.svg",
      "1-sweep-load-e2elms.svg",
      "1-sweep-load-goodput.svg",
      "1-sweep-load-outputtokenspersecond.svg",
      "1-sweep-load-ttftms.svg",
    ]);
    expect(html).toContain("<h3>Load curves of the sweep (no capacity config: no capacity point)</h3>");
    expect(html).toMatch(
      /A load sweep \(requests\/s offered\): baseline 4 loads \(1\.00 to 8\.00\), 8 usable runs;/,
    );
    for (const file of loadFiles) {
      const svg = await readFile(join(out, "report-charts", file), "utf8");
      // Each side a line through its 4 loads with a dot per load, labelled with its value.
      const elements = parseXml(svg);
      const lines = marks(svg, "curve")
        .flat()
        .filter((e) => e.attrs["aria-roledescription"] === "line mark");
      expect(
        lines.map((e) => e.attrs["aria-label"]!.split(" ")[0]),
        file,
      ).toEqual(["baseline", "candidate"]);
      const dots = elements.filter((e) => e.attrs["aria-roledescription"] === "point");
      expect(
        dots.map((d) => d.attrs["aria-label"]!.split(":")[0]),
        file,
      ).toEqual(
        ["baseline", "candidate"].flatMap((side) =>
          ["1.00", "2.00", "4.00", "8.00"].map((load) => `${side} at load ${load}`),
        ),
      );
      // No capacity was searched: no capacity rule; the SLO lines where the cell states SLOs.
      expect(
        marks(svg, "capacity")
          .flat()
          .filter((e) => e.name === "line"),
        file,
      ).toEqual([]);
      const slo = marks(svg, "slo").flat();
      if (file.includes("ttftms") || file.includes("e2elms"))
        expect(
          slo.map((e) => e.attrs["aria-label"]),
          file,
        ).toEqual([expect.stringContaining(file.includes("ttftms") ? "SLO 150 ms" : "SLO 2,000 ms")]);
      else expect(slo, file).toEqual([]);
      expect(svg).toContain("a load sweep: no capacity point");
      expectSelfContained(parseXml(svg), svg);
    }
    expectSelfContained(parseXml(html), html);
    // The comment's second chart: TTFT p95 against load, both sides and the SLO as a third line.
    const mermaid = [...outcome.reportMarkdown.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const load = mermaid.find((source) => source.includes("against load"));
    expect(load).toBeDefined();
    expect(load).toContain('title "sweep TTFT p95 ms against load"');
    expect(load!.match(/^ {2}line \[/gm)).toHaveLength(3);
    expect(load).toContain(`line [${new Array(8).fill(150).join(", ")}]`);
    expect(outcome.reportMarkdown).toContain("A load sweep without a capacity config");
  });

  it("escapes a hostile label of a sweep and draws no SLO line without a config", async () => {
    const { html, out, chartFiles, outcome } = await compareSweepInto(hostile);
    expect(outcome.verdict.sweeps![0]!.cell).toBe(hostile);
    expect(outcome.verdict.sweeps![0]!.slo).toEqual({});
    const loadFiles = chartFiles.filter((f) => f.includes("-load-"));
    expect(loadFiles).toHaveLength(5);
    for (const file of loadFiles) {
      expect(file).toMatch(/^[a-z0-9_-]+\.svg$/);
      const svg = await readFile(join(out, "report-charts", file), "utf8");
      expect(marks(svg, "slo")).toEqual([]);
      expect(
        parseXml(svg).filter((e) => e.attrs["aria-roledescription"] === "point"),
        file,
      ).toHaveLength(8);
      expect(svg).toMatch(/<text[^>]*>&lt;script&gt;alert\("x"\)&lt;\/script&gt;&lt;img/);
      expect(svg).not.toContain("<img");
      expect(svg).not.toContain("<script");
      expectSelfContained(parseXml(svg), svg);
    }
    expect(html).toContain("<h2>Cell &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<script");
    expectSelfContained(parseXml(html), html);
    // The mermaid label keeps letters and digits only; no SLO line.
    const load = [...outcome.reportMarkdown.matchAll(/```mermaid\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((source) => source.includes("against load"))!;
    expect(load.split("\n")[1]).toBe(
      '  title "script alert x /script img src x onerro. TTFT p95 ms against load"',
    );
    expect(load.match(/^ {2}line \[/gm)).toHaveLength(2);
  });

  it("never shows a planted secret that is in a sweep's label, in the page, the load charts or the comment", async () => {
    const { html, out, chartFiles, outcome } = await compareSweepInto(`sweep ${plantedSecret}`, undefined, {
      MY_API_TOKEN: plantedSecret,
    });
    expect(outcome.verdict.sweeps).toHaveLength(1);
    expectNoPlantedSecret("report.html", html);
    expectNoPlantedSecret("report.md", outcome.reportMarkdown);
    for (const file of chartFiles)
      expectNoPlantedSecret(file, await readFile(join(out, "report-charts", file), "utf8"));
    expect(chartFiles.filter((f) => f.includes("-load-"))).toHaveLength(5);
  });

  it("draws a session cell's TTFT p95 against context depth: a dot per run and bucket, a line per side, escaped", async () => {
    const { html, out, chartFiles, outcome } = await compareSessionInto(hostile);
    const file = chartFiles.find((f) => f.endsWith("-ttft-depth.svg"))!;
    expect(file).toMatch(/^1-[a-z0-9_-]+-ttft-depth\.svg$/);
    expect(html).toContain("<h3>TTFT p95 against context depth (session metrics)</h3>");
    expect(html).toContain(`<figcaption>report-charts/${file}</figcaption>`);
    const svg = await readFile(join(out, "report-charts", file), "utf8");
    expectSelfContained(parseXml(svg), svg);
    expectSelfContained(parseXml(html), html);
    // The inline chart names itself, escaped, as its first child.
    expect(html).toMatch(
      /<figure><svg [^>]*><title>&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;&lt;img [^<]* · TTFT p95 against context depth<\/title>/,
    );
    expect(svg).not.toContain("<img");
    expect(svg).not.toContain("<script");
    // 4 baseline runs at depth 1, 2-3 and 4-7; 4 candidate runs at 1 and 2-3; nobody at depth 8.
    const dots = marks(svg, "runs")
      .flat()
      .filter((e) => e.name === "path");
    expect(dots).toHaveLength(20);
    for (const dot of dots)
      expect(dot.attrs["aria-label"]).toMatch(
        /^(baseline|candidate) run-\d at depth (1|2-3|4-7): [\d.,]+ ms$/,
      );
    expect(
      dots.filter((d) => d.attrs["aria-label"]!.startsWith("candidate")).map((d) => d.attrs["aria-label"]!),
    ).not.toContainEqual(expect.stringContaining("4-7"));
    expect(svg).toContain("for a discrete scale with 3 values: 1, 2-3, 4-7");
    const lines = marks(svg, "mean")
      .flat()
      .filter((e) => e.attrs["aria-roledescription"] === "line mark");
    expect(lines.map((e) => e.attrs.stroke)).toEqual(["#4c78a8", "#f58518"]);
    // The lines go through the verdict's geometric means (the candidate's 1.3 times the baseline's),
    // labelled whole; a point per mean.
    const judged = (bucket: "1" | "2_3" | "4_7", side: "baseline" | "candidate") => {
      const c = outcome.verdict.comparisons.find((x) => x.metric === `ttft_p95_depth_${bucket}`)!;
      return c[side] === null ? "none" : formatMetricValue(c.metric, c[side]);
    };
    const depth1 = outcome.verdict.comparisons.find((c) => c.metric === "ttft_p95_depth_1")!;
    expect(depth1.candidate! / depth1.baseline!).toBeGreaterThan(1.2);
    expect(lines.map((e) => e.attrs["aria-label"])).toEqual(
      (["baseline", "candidate"] as const).map(
        (side) =>
          `${side} geometric mean by depth: ${judged("1", side)} at 1, ${judged("2_3", side)} at 2-3, ${judged("4_7", side)} at 4-7`,
      ),
    );
    expect(lines[1]!.attrs["aria-label"]).toMatch(/, none at 4-7$/);
    const points = marks(svg, "mean_points")
      .flat()
      .filter((e) => e.name === "path");
    expect(points.map((e) => e.attrs["aria-label"])).toEqual([
      `baseline geometric mean at depth 1: ${judged("1", "baseline")}`,
      `baseline geometric mean at depth 2-3: ${judged("2_3", "baseline")}`,
      `baseline geometric mean at depth 4-7: ${judged("4_7", "baseline")}`,
      `candidate geometric mean at depth 1: ${judged("1", "candidate")}`,
      `candidate geometric mean at depth 2-3: ${judged("2_3", "candidate")}`,
    ]);
    // The comment's pictures fold has the same picture as a mermaid chart, labels reduced to safe text.
    expect(outcome.commentMarkdown).toContain("TTFT p95 ms against context depth");
    expect(outcome.commentMarkdown).toContain('  x-axis "turn number" ["1", "2-3"]');
  });

  it("never shows a planted secret in a session cell's name in its depth chart", async () => {
    const { html, out, chartFiles } = await compareSessionInto(`agent ${plantedSecret}`, {
      MY_API_TOKEN: plantedSecret,
    });
    const file = chartFiles.find((f) => f.endsWith("-ttft-depth.svg"))!;
    expectNoPlantedSecret(file, await readFile(join(out, "report-charts", file), "utf8"));
    expectNoPlantedSecret("report.html", html);
    expect(html).toContain("against context depth</title>");
  });

  it("shows the quality checks: accuracy per side with Wilson intervals, the worst greedy differences escaped", async () => {
    const { html, out, chartFiles } = await compareCapacityQualityInto(hostile);
    expect(chartFiles).toContain("0-quality-task-accuracy.svg");
    const svg = await readFile(join(out, "report-charts", "0-quality-task-accuracy.svg"), "utf8");
    const dots = marks(svg, "accuracy")
      .flat()
      .filter((e) => e.name === "path");
    expect(dots.map((e) => e.attrs["aria-label"])).toEqual([
      expect.stringContaining("baseline: 40 of 50 correct (80%), Wilson 67% to 89%"),
      expect.stringContaining("candidate: 30 of 50 correct (60%), Wilson 46% to 72%"),
    ]);
    expect(
      marks(svg, "wilson")
        .flat()
        .filter((e) => e.name === "line"),
    ).toHaveLength(2);
    expect(html).toContain("<h3>Worst greedy-output differences</h3>");
    // The example's newline is shown as ⏎, its markup as text.
    expect(html).toContain(
      "<td>The answer is 4.⏎&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;",
    );
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<script");
    expectSelfContained(parseXml(html), html);
    expectSelfContained(parseXml(svg), svg);
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
      outbound: noSecrets,
      baseline: [await write(join(root, "b"), noisyRuns(4, { seed: 3 }))],
      candidate: [await write(join(root, "c"), noisyRuns(4, { seed: 4 }))],
    });
    const { htmlPath } = await writeCompareOutputs(join(root, "out"), outcome, noSecrets);
    const html = await readFile(htmlPath, "utf8");
    parseXml(html);
    expect(html).toContain("No per-request records (requests.jsonl)");
    expect(html).not.toContain("-distribution.svg");
    expect(html).not.toContain("distribution</title>");
    expect(html).toMatch(/<svg [^>]*><title>chat · TTFT p95 \(lower is better\): [a-z ]+<\/title>/);
    expect(html).not.toContain("over time");
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
