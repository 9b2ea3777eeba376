import type { LoadCurvePicture } from "../charts/data.js";
import { drawnLoadFigures, type LoadFigure, loadCurveChart } from "../charts/load-curve.js";
import { formatNumber } from "../format.js";
import { chartsDirName, esc, type HtmlReport, htmlPage, slug } from "./report-html.js";

/**
 * One side's `run --sweep` report (docs/capacity.md): `DIR/<cell>/report.html` beside curve.json, with
 * the cell's load curves drawn by the same charts as compare's report.html (report/charts/load-curve.ts),
 * a table of the points drawn, and the same charts as SVG files in `DIR/<cell>/report-charts/`. Pure and
 * deterministic; the page holds no script, font or URL.
 */

export interface LoadReportInput {
  /** One series, side "measured". */
  picture: LoadCurvePicture;
  /** Runs in the cell directory, and how many of them were left out of the curve (flagged, unusable). */
  runs: number;
  leftOut: number;
  /** The capacity search's estimate in words (capacity cells), or null for a sweep. */
  capacityWords: string | null;
  toolVersion: string;
}

const columns: { figure: LoadFigure; head: (percentile: string) => string }[] = [
  { figure: "completedPerSecond", head: () => "Completed req/s" },
  { figure: "goodput", head: () => "Goodput req/s" },
  { figure: "ttftMs", head: (p) => `TTFT ${p} (ms)` },
  { figure: "e2elMs", head: (p) => `E2E ${p} (ms)` },
  { figure: "outputTokensPerSecond", head: () => "Output tok/s" },
];

function pointsTable(picture: LoadCurvePicture): string {
  const points = picture.series[0]?.points ?? [];
  if (points.length === 0) return "<p><em>No usable run with a load: nothing to draw.</em></p>";
  const unit = picture.dimension === "concurrency" ? "Concurrency" : "Rate (req/s)";
  const head = [unit, "Runs", ...columns.map((c) => c.head(picture.percentile))];
  const rows = points.map((p) =>
    [
      formatNumber(p.load),
      String(p.runs),
      ...columns.map((c) => (p[c.figure] === null ? "–" : formatNumber(p[c.figure] as number))),
    ]
      .map((cell) => `<td>${esc(cell)}</td>`)
      .join(""),
  );
  return [
    `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>`,
    ...rows.map((row) => `<tr>${row}</tr>`),
    "</tbody></table>",
  ].join("\n");
}

export async function renderLoadReport(input: LoadReportInput): Promise<HtmlReport> {
  const { picture } = input;
  const charts: HtmlReport["charts"] = [];
  const kind = input.capacityWords === null ? "load sweep" : "capacity search";
  const slo = [
    ...(picture.slo.ttft_ms === undefined
      ? []
      : [`TTFT ${picture.percentile} ≤ ${formatNumber(picture.slo.ttft_ms)} ms`]),
    ...(picture.slo.e2el_ms === undefined
      ? []
      : [`E2E ${picture.percentile} ≤ ${formatNumber(picture.slo.e2el_ms)} ms`]),
  ];
  const body = [
    `<h1>vllm-perf-gate: ${esc(kind)} of cell ${esc(picture.cell, 120)}</h1>`,
    `<p class="headline">${input.runs} run${input.runs === 1 ? "" : "s"} at ${picture.series[0]?.points.length ?? 0} load${picture.series[0]?.points.length === 1 ? "" : "s"} (${picture.dimension === "concurrency" ? "requests in flight" : "requests/s offered"}); each point is the mean over the usable runs at that load, latencies at ${esc(picture.percentile, 8)}.</p>`,
    input.capacityWords === null
      ? '<p class="note">A load sweep: no capacity point (a capacity cell searches one; docs/capacity.md).</p>'
      : `<p>${esc(input.capacityWords, 600)}</p>`,
    slo.length > 0 ? `<p class="note">SLO lines (the cell's slo): ${esc(slo.join(", "), 300)}.</p>` : "",
    input.leftOut > 0
      ? `<p class="note">${input.leftOut} run${input.leftOut === 1 ? " was" : "s were"} left out of the curve (client-bound, cut short, interrupted or otherwise unusable; curve.json's flaggedRuns counts them per load).</p>`
      : "",
    "<h2>Load curve</h2>",
    pointsTable(picture),
  ];
  const figures = drawnLoadFigures(picture);
  if (figures.length > 0) body.push("<h2>Charts</h2>", '<div class="charts">');
  for (const figure of figures) {
    const path = `${chartsDirName}/${slug(picture.cell)}-load-${slug(figure)}.svg`;
    // Rendered once per form, one after the other: the renderer's id counters are global.
    charts.push({ path, svg: `${await loadCurveChart(picture, figure, { standalone: true })}\n` });
    body.push(
      `<figure>${await loadCurveChart(picture, figure)}<figcaption>${esc(path)}</figcaption></figure>`,
    );
  }
  if (figures.length > 0) body.push("</div>");
  body.push(
    `<p class="note">vllm-perf-gate ${esc(input.toolVersion, 40)} · curve.json beside this page holds more figures per load (its means include flagged runs) · the same charts are SVG files in ${chartsDirName}/ (drawn with Vega-Lite; each mark's value is in its accessible label) · compare two sweeps for both sides' curves in one chart (docs/compare.md).</p>`,
  );
  return { html: htmlPage(`vllm-perf-gate: ${kind} of ${picture.cell}`, body), charts };
}
