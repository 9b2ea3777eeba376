import { describeMetric } from "../../config/metric-names.js";
import { accuracyChart } from "../charts/accuracy.js";
import { type CellPictures, cellLoadPicture, type ReportPictures } from "../charts/data.js";
import { depthChart } from "../charts/depth.js";
import { distributionChart } from "../charts/distribution.js";
import { drawnLoadFigures, loadCurveChart } from "../charts/load-curve.js";
import { runDotsChart } from "../charts/run-dots.js";
import { timelineChart } from "../charts/timeline.js";
import { metricVerdictLabel } from "../checks.js";
import { escapeHtml } from "../escape.js";
import { settleSentence, verdictIcons } from "../first-screen.js";
import {
  formatChange,
  formatFractionAsPercent,
  formatInterval,
  formatMetricValue,
  formatNumber,
} from "../format.js";
import { headlineWords } from "../markdown.js";
import { terminalMarkup } from "../markup.js";
import { decompositionAssumptions, specDecodeLines } from "../spec-decode.js";

/**
 * `report.html`: one self-contained page (inline style, inline SVG, no script, no font, no URL), opening
 * with the verdict and headline of the PR comment, then per cell the charts. Each chart is also returned
 * as its own SVG document for `report-charts/`. Pure and deterministic: the same pictures give the same
 * bytes.
 */

/** One chart of a cell: a section heading it belongs to, a file name stem and the SVG. */
interface NamedChart {
  section: string;
  /** Stem of the file in report-charts/ (made unique and safe by the renderer). */
  name: string;
  /** The chart as an SVG element; `standalone` adds the namespace a file needs. */
  render: (standalone: boolean) => Promise<string>;
}

/**
 * Where a kind of chart plugs in: given a cell's pictures, the charts it draws (none when the data is
 * not there). Capacity load curves add a provider here.
 */
export type CellChartProvider = (cell: CellPictures) => NamedChart[];

const runsSection = "Every run against the tolerance";
const distributionSection = "Latency distributions (used runs pooled per side)";
const timelineSection = "One run over time";
const depthSection = "TTFT p95 against context depth (session metrics)";
const loadSection = "Load curves and the capacity point of each side";
const sweepSection = "Load curves of the sweep (no capacity config: no capacity point)";

const defaultChartProviders: readonly CellChartProvider[] = [
  (cell) =>
    cell.checks.map((check) => ({
      section: runsSection,
      name: `${check.comparison.metric}-runs`,
      render: (standalone) => runDotsChart(check, { standalone }),
    })),
  (cell) =>
    cell.distributions.map((d) => ({
      section: distributionSection,
      name: `${d.phase}-distribution`,
      render: (standalone) => distributionChart(cell.cell, d, { standalone }),
    })),
  (cell) =>
    cell.timeline
      ? [
          {
            section: timelineSection,
            name: "timeline",
            render: (standalone) => timelineChart(cell.cell, cell.timeline!, { standalone }),
          },
        ]
      : [],
  (cell) =>
    cell.depth
      ? [
          {
            section: depthSection,
            name: "ttft-depth",
            render: (standalone) => depthChart(cell.depth!, { standalone }),
          },
        ]
      : [],
  (cell) => {
    const picture = cellLoadPicture(cell);
    if (!picture) return [];
    return drawnLoadFigures(picture).map((figure) => ({
      section: picture.kind === "capacity" ? loadSection : sweepSection,
      name: `load-${figure}`,
      render: (standalone) => loadCurveChart(picture, figure, { standalone }),
    }));
  },
];

export interface HtmlReport {
  html: string;
  /** Relative paths under the output directory (report-charts/…) and their SVG documents. */
  charts: { path: string; svg: string }[];
}

/** The directory beside report.html that holds the same charts as SVG files. */
export const chartsDirName = "report-charts";

const pageStyle = [
  "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#111;background:#fff}",
  "h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:14px;margin:18px 0 6px}",
  "table{border-collapse:collapse;font-size:13px;margin:8px 0}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}th{background:#f6f6f6}",
  ".charts{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0;border:1px solid #eee;padding:4px}figcaption{font-size:11px;color:#666}",
  ".note{color:#555;font-size:13px}.headline{font-size:16px}",
  ".examples td{white-space:pre-wrap;word-break:break-word;max-width:360px;font-family:ui-monospace,monospace;font-size:12px}",
].join("");

/** One self-contained page: the title escaped here, the body's parts as given (already escaped), empty ones left out. */
export function htmlPage(title: string, body: readonly string[]): string {
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    '<head><meta charset="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/>',
    `<title>${esc(title)}</title><style>${pageStyle}</style></head>`,
    "<body>",
    ...body.filter((part) => part.length > 0),
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

export function esc(value: string, max = 200): string {
  return escapeHtml(value, max);
}

/** A safe file-name piece: lower-case letters, digits, dash and underscore. */
export function slug(value: string): string {
  const cleaned = value
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return cleaned.length > 0 ? cleaned : "cell";
}

function headerSection(pictures: ReportPictures): string {
  const verdict = pictures.verdict;
  const words = headlineWords(verdict);
  const lines = [
    `<h1>${verdictIcons[verdict.verdict]} vllm-perf-gate: ${esc(words.title)}</h1>`,
    `<p class="headline"><strong>${esc(words.said, 600)}</strong></p>`,
    `<p>${esc(words.counts, 400)}</p>`,
  ];
  // As in the comment's headline: the reason for "not comparable" is the verdict itself.
  const blocking = verdict.fingerprints.differences.filter((d) => !d.allowed && !d.informational);
  if (blocking.length > 0) {
    const shown = blocking.slice(0, 5).map((d) => {
      const value = (v: unknown) =>
        v === undefined || v === null ? "–" : typeof v === "string" ? v : JSON.stringify(v);
      return `<li>not comparable: ${esc(d.field, 80)}: ${esc(value(d.baseline), 60)} (baseline) vs ${esc(value(d.candidate), 60)} (candidate)</li>`;
    });
    if (blocking.length > 5) shown.push(`<li>… and ${blocking.length - 5} more (see verdict.json)</li>`);
    lines.push(`<ul>${shown.join("")}</ul>`);
  }
  if (verdict.nextLook)
    lines.push(
      `<p><strong>More runs needed:</strong> ${verdict.nextLook.runsPerSide} runs per side: ${esc(verdict.nextLook.reason, 400)}.</p>`,
    );
  // Plain text, escaped for HTML below.
  const settle = settleSentence(verdict, terminalMarkup(false));
  if (settle) lines.push(`<p>${esc(settle, 600)}</p>`);
  return lines.join("\n");
}

function acceptanceTable(pictures: ReportPictures): string {
  const gated = pictures.verdict.comparisons.filter((c) => c.gated);
  if (gated.length === 0)
    return (pictures.verdict.capacity ?? []).length > 0
      ? "<p><em>No fixed-load gated metric; the capacity checks are under their cells below.</em></p>"
      : "<p><em>No gated metric could be compared.</em></p>";
  const head = [
    "Cell",
    "Metric",
    "Tolerance",
    "Baseline",
    "Candidate",
    "Change",
    "Decision interval",
    "Verdict",
  ];
  const rows = gated.map((c) =>
    [
      esc(c.cell, 80),
      esc(`${describeMetric(c.metric)} ${c.higherIsBetter ? "↑" : "↓"}`),
      `±${formatFractionAsPercent(c.tolerance)}`,
      esc(formatMetricValue(c.metric, c.baseline)),
      esc(formatMetricValue(c.metric, c.candidate)),
      esc(formatChange(c.ratio)),
      esc(formatInterval(c.ci)),
      esc(metricVerdictLabel(c) + (c.note ? ` (${c.note})` : ""), 300),
    ]
      .map((cell) => `<td>${cell}</td>`)
      .join(""),
  );
  return [
    "<h2>Acceptance (gated metrics)</h2>",
    `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>`,
    ...rows.map((row) => `<tr>${row}</tr>`),
    "</tbody></table>",
    '<p class="note">Regression when the whole decision interval lies beyond the tolerance band; within tolerance when its worse end is inside. Baseline and candidate are geometric means over runs.</p>',
  ].join("\n");
}

/** Characters of each side of a greedy-output example shown in the page. */
const exampleShownChars = 160;

function percent(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/**
 * The quality checks when the verdict has them (docs/quality.md): the task accuracy of each side with
 * its Wilson interval as a chart, the greedy-output agreement and its most-changed outputs as text
 * (outside strings: escaped, cut short, newlines shown as ⏎).
 */
function qualitySection(pictures: ReportPictures): { html: string[]; chart: NamedChart | null } {
  const quality = pictures.verdict.quality;
  const tasks = quality?.tasks ?? [];
  const greedy = quality?.greedy ?? [];
  if (tasks.length === 0 && greedy.length === 0) return { html: [], chart: null };
  const html = ["<h2>Quality</h2>"];
  const chart: NamedChart | null =
    tasks.length === 0
      ? null
      : {
          section: "Quality",
          name: "task-accuracy",
          render: (standalone) => accuracyChart(tasks, { standalone }),
        };
  if (tasks.length > 0)
    html.push(
      "<h3>Task accuracy (same prompts, both sides)</h3>",
      "<table><thead><tr><th>Cell</th><th>Prompts</th><th>Baseline</th><th>Candidate</th><th>Only baseline right</th><th>Only candidate right</th><th>Tolerance</th><th>p (test)</th><th>Verdict</th></tr></thead><tbody>",
      ...tasks.map(
        (t) =>
          `<tr><td>${esc(t.external ? `${t.cell}: ${t.external}` : t.cell, 80)}</td><td>${t.prompts}</td><td>${percent(t.baseline.accuracy)} (${percent(t.baseline.wilson[0])} to ${percent(t.baseline.wilson[1])})</td><td>${percent(t.candidate.accuracy)} (${percent(t.candidate.wilson[0])} to ${percent(t.candidate.wilson[1])})</td><td>${t.onlyBaseline}</td><td>${t.onlyCandidate}</td><td>−${Number((t.tolerancePoints * 100).toPrecision(3))} pts</td><td>${t.p.toPrecision(2)} (${t.method === "mcnemar" ? "exact McNemar" : "two-proportion, unpaired"})</td><td>${t.verdict === "regression" ? "regression" : "within tolerance"}${t.note ? `: ${esc(t.note, 300)}` : ""}</td></tr>`,
      ),
      "</tbody></table>",
    );
  if (greedy.length > 0) {
    const excerpt = (text: string) => {
      const flat = text.replace(/\r\n|\r|\n/g, "⏎");
      return esc(
        flat.length > exampleShownChars ? `${flat.slice(0, exampleShownChars)}…` : flat,
        exampleShownChars * 2,
      );
    };
    html.push(
      "<h3>Greedy outputs (temperature 0, same prompts)</h3>",
      "<table><thead><tr><th>Cell</th><th>Prompts</th><th>Same output</th><th>Similarity</th><th>Baseline vs itself</th><th>Verdict</th></tr></thead><tbody>",
      ...greedy.map(
        (g) =>
          `<tr><td>${esc(g.cell, 80)}</td><td>${g.candidate.prompts}</td><td>${percent(1 - g.candidate.changedShare)}</td><td>${g.candidate.similarity === null ? "–" : g.candidate.similarity.toFixed(3)}</td><td>${g.baselineNoise ? `${percent(1 - g.baselineNoise.changedShare)} same` : "–"}</td><td>${g.verdict === "regression" ? "regression" : "within tolerance"}${g.reasons.length > 0 ? `: ${esc(g.reasons.join("; "), 400)}` : ""}</td></tr>`,
      ),
      "</tbody></table>",
    );
    const examples = greedy.flatMap((g) => g.examples.map((example) => ({ cell: g.cell, example })));
    if (examples.length > 0)
      html.push(
        "<h3>Worst greedy-output differences</h3>",
        '<table class="examples"><thead><tr><th>Cell</th><th>Prompt</th><th>Similarity</th><th>First difference (token)</th><th>Baseline</th><th>Candidate</th></tr></thead><tbody>',
        ...examples.map(
          ({ cell, example }) =>
            `<tr><td>${esc(cell, 80)}</td><td>${example.index}</td><td>${example.similarity.toFixed(3)}</td><td>${example.firstDifference}</td><td>${excerpt(example.baseline)}</td><td>${excerpt(example.candidate)}</td></tr>`,
        ),
        "</tbody></table>",
      );
  }
  return { html, chart };
}

/**
 * Speculative decoding (verdict.json `specDecode`): each spec-decode cell's acceptance on both sides and
 * its taken-apart changes, in the words of the markdown report (report/spec-decode.ts).
 */
function specDecodeHtml(pictures: ReportPictures): string[] {
  const cells = pictures.verdict.specDecode ?? [];
  if (cells.length === 0) return [];
  const side = (value: number | null, format: (x: number) => string) =>
    value === null ? "–" : format(value);
  const rate = (x: number) => percent(x);
  const length = (x: number) => `${formatNumber(x)} tokens`;
  return [
    "<h2>Speculative decoding</h2>",
    "<table><thead><tr><th>Cell</th><th>Draft acceptance rate</th><th>Mean acceptance length</th><th>Runs with counters</th></tr></thead><tbody>",
    ...cells.map(
      (cell) =>
        `<tr><td>${esc(cell.cell, 80)}</td><td>${side(cell.baseline.acceptanceRate, rate)} → ${side(cell.candidate.acceptanceRate, rate)}</td><td>${side(cell.baseline.acceptanceLength, length)} → ${side(cell.candidate.acceptanceLength, length)}</td><td>${cell.baseline.runs} / ${cell.candidate.runs}</td></tr>`,
    ),
    "</tbody></table>",
    "<ul>",
    ...cells.flatMap((cell) =>
      specDecodeLines(cell).map(
        (line) => `<li><strong>${esc(cell.cell, 80)}</strong>: ${esc(line, 400)}</li>`,
      ),
    ),
    "</ul>",
    `<p class="note">${esc(decompositionAssumptions, 800)}</p>`,
  ];
}

/** A capacity cell's figures in words, above its load curves. */
function capacityNote(cell: CellPictures): string {
  const check = cell.capacity;
  if (!check) return "";
  const side = (name: "baseline" | "candidate") => {
    const s = check[name];
    if (s.capacity === null) return `${name}: no capacity (${esc(s.note ?? "no usable runs", 200)})`;
    const bound = s.bound === "above" ? "at least " : s.bound === "below" ? "below " : "";
    return `${name} capacity ${bound}${formatNumber(s.capacity)}${s.interval ? ` (${formatNumber(s.interval[0])} to ${formatNumber(s.interval[1])})` : ""} over ${s.runs} runs at ${s.loads} loads`;
  };
  const ratio =
    check.ratio === null
      ? ""
      : `; candidate/baseline ${formatChange(check.ratio)}, interval ${esc(formatInterval(check.ci))}`;
  const words = check.verdict.replace(/-/g, " ");
  return `<p class="note">Capacity at the SLOs (${esc(check.percentile, 8)}, ${check.dimension}): ${side("baseline")}; ${side("candidate")}${ratio}; ${words}${check.gated ? "" : " (not gated)"}${check.note ? `: ${esc(check.note, 300)}` : ""}.</p>`;
}

/** A sweep cell's loads in words, above its load curves: what was measured and how it was judged. */
function sweepNote(cell: CellPictures): string {
  const sweep = cell.sweep;
  if (!sweep || cell.capacity) return "";
  const side = (name: "baseline" | "candidate") => {
    const points = sweep.curve[name];
    if (points.length === 0) return `${name}: no usable runs with a load`;
    const runs = points.reduce((sum, p) => sum + p.runs, 0);
    return `${name} ${points.length} load${points.length === 1 ? "" : "s"} (${formatNumber(points[0]!.load)} to ${formatNumber(points.at(-1)!.load)}), ${runs} usable run${runs === 1 ? "" : "s"}`;
  };
  const unit = sweep.dimension === "concurrency" ? "requests in flight" : "requests/s offered";
  return `<p class="note">A load sweep (${unit}): ${side("baseline")}; ${side("candidate")}. The verdict above judges its runs pooled as one fixed-load cell; give compare the config with capacity on this cell to compare the capacity at the SLOs (docs/capacity.md).</p>`;
}

/** The page and its chart files, with the default chart kinds plus any `extraProviders`. */
export async function renderHtmlReport(
  pictures: ReportPictures,
  options: { extraProviders?: readonly CellChartProvider[] } = {},
): Promise<HtmlReport> {
  const providers = [...defaultChartProviders, ...(options.extraProviders ?? [])];
  const charts: HtmlReport["charts"] = [];
  const body: string[] = [headerSection(pictures), acceptanceTable(pictures)];
  const quality = qualitySection(pictures);
  if (quality.chart) {
    const path = `${chartsDirName}/0-quality-${slug(quality.chart.name)}.svg`;
    charts.push({ path, svg: `${await quality.chart.render(true)}\n` });
    body.push(
      "<h2>Quality</h2>",
      `<div class="charts"><figure>${await quality.chart.render(false)}<figcaption>${esc(path)}</figcaption></figure></div>`,
      ...quality.html.slice(1),
    );
  } else body.push(...quality.html);
  body.push(...specDecodeHtml(pictures));
  for (const [index, cell] of pictures.cells.entries()) {
    const status = pictures.verdict.cells.find((c) => c.name === cell.cell);
    body.push(
      `<h2>Cell ${esc(cell.cell, 120)}</h2>`,
      status
        ? `<p class="note">${status.baselineRuns} baseline and ${status.candidateRuns} candidate usable runs; ${esc(status.status.replace(/-/g, " "))}${status.note ? `: ${esc(status.note, 300)}` : ""}.</p>`
        : "",
      capacityNote(cell),
      sweepNote(cell),
      ...cell.notes.map((note) => `<p class="note">${esc(note, 400)}</p>`),
    );
    const named = providers.flatMap((provider) => provider(cell));
    const sections = [...new Set(named.map((chart) => chart.section))];
    const taken = new Set<string>();
    for (const section of sections) {
      body.push(`<h3>${esc(section)}</h3>`, '<div class="charts">');
      for (const chart of named.filter((c) => c.section === section)) {
        let stem = `${index + 1}-${slug(cell.cell)}-${slug(chart.name)}`;
        for (let k = 2; taken.has(stem); k++)
          stem = `${index + 1}-${slug(cell.cell)}-${slug(chart.name)}-${k}`;
        taken.add(stem);
        const path = `${chartsDirName}/${stem}.svg`;
        // Rendered once per form, one after the other: the renderer's id counters are global.
        charts.push({ path, svg: `${await chart.render(true)}\n` });
        body.push(`<figure>${await chart.render(false)}<figcaption>${esc(path)}</figcaption></figure>`);
      }
      body.push("</div>");
    }
  }
  const verdict = pictures.verdict;
  body.push(
    `<p class="note">vllm-perf-gate ${esc(verdict.tool.version, 40)} · verdict.json schema ${verdict.schemaVersion} · the same charts are SVG files in ${chartsDirName}/ (drawn with Vega-Lite; each mark's value is in its accessible label).</p>`,
  );
  const title = `vllm-perf-gate: ${headlineWords(verdict).title}`;
  return { html: htmlPage(title, body), charts };
}
