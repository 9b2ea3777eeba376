import { describeMetric, metricSpecs } from "../../config/metric-names.js";
import { formatChange, formatFractionAsPercent, formatInterval, formatMetricValue } from "../format.js";
import type { CheckPicture, RunValue } from "./data.js";
import { el, legend, scale, svgDocument, text, tooltip, xAxis } from "./svg.js";

/**
 * Per gated check: every run of both sides as a dot on the metric's own axis (log when every value is
 * positive, so a ratio looks the same anywhere on it), the tolerance band around the baseline's
 * geometric mean, and the decision interval (baseline × the interval of the ratio) under the candidate's
 * runs. Regression is "the whole interval beyond the band", within tolerance "its worse end inside":
 * the reason for the verdict, visible at a glance.
 */

const width = 640;
const height = 186;
const left = 120;
const right = width - 24;
const rows = { baseline: 50, candidate: 82, interval: 110 } as const;
const axisY = 130;

const verdictWords = {
  regression: "regression",
  improvement: "improvement",
  "within-tolerance": "within tolerance",
  inconclusive: "inconclusive",
} as const;

function dot(value: RunValue, x: number, y: number, label: string): string {
  const title = tooltip(`${value.side} run-${value.run ?? "?"}: ${label}${value.used ? "" : " (excluded)"}`);
  return el("circle", { cx: x, cy: y, r: 4, class: value.used ? value.side : "excluded" }, title);
}

export function runDotsChart(check: CheckPicture, options: { standalone?: boolean } = {}): string {
  const c = check.comparison;
  const metric = c.judgedOn ?? c.metric;
  const pooled = metricSpecs[c.metric].judged === "pooled-failures";
  const base = c.baseline;
  const band: [number, number] | null =
    base !== null && base > 0 && !pooled ? [base / (1 + c.tolerance), base * (1 + c.tolerance)] : null;
  const interval: [number, number] | null = base !== null && c.ci ? [base * c.ci[0], base * c.ci[1]] : null;
  const values = [
    ...check.runs.map((r) => r.value),
    ...(band ?? []),
    ...(interval ?? []),
    ...(base === null ? [] : [base]),
    ...(c.candidate === null ? [] : [c.candidate]),
  ].filter((v) => Number.isFinite(v));
  const lo = values.length > 0 ? Math.min(...values) : 0;
  const hi = values.length > 0 ? Math.max(...values) : 1;
  // A linear axis (some value is 0, e.g. an error rate) starts at 0 and is never empty.
  const linearHigh = hi > Math.min(0, lo) ? hi : Math.abs(hi) * 0.1 || 0.01;
  const x =
    lo > 0
      ? scale([lo, hi], [left, right], { log: true, pad: 0.06 })
      : scale([Math.min(0, lo), linearHigh], [left, right], { pad: 0.03 });
  const percent = metricSpecs[metric].format === "percent";
  const tickFormat = percent ? (v: number) => `${Number((v * 100).toPrecision(3))}%` : undefined;
  const unit = percent ? "%" : metricSpecs[metric].unit;
  const parts: string[] = [];
  const direction = c.higherIsBetter ? "higher is better" : "lower is better";
  const title = `${c.cell} · ${describeMetric(c.metric)} (${direction}): ${verdictWords[c.verdict]}`;
  parts.push(el("text", { x: 8, y: 16, class: "title" }, text(title, 140)));
  parts.push(
    el(
      "text",
      { x: 8, y: 30, class: "note" },
      text(
        `change ${formatChange(c.ratio)}, decision interval ${formatInterval(c.ci)}, tolerance ±${formatFractionAsPercent(c.tolerance)}${c.judgedOn ? ` (judged on ${describeMetric(c.judgedOn)})` : ""}${x.log ? " · log axis" : ""}`,
        200,
      ),
    ),
  );
  if (band) {
    const [b0, b1] = [x(band[0]), x(band[1])];
    parts.push(
      el(
        "rect",
        {
          x: b0,
          y: rows.baseline - 12,
          width: Math.max(1, b1 - b0),
          height: rows.interval - rows.baseline + 24,
          class: "band",
        },
        tooltip(
          `tolerance band: ${formatMetricValue(metric, band[0])} … ${formatMetricValue(metric, band[1])}`,
        ),
      ),
    );
    for (const edge of [b0, b1])
      parts.push(
        el("line", {
          x1: edge,
          y1: rows.baseline - 12,
          x2: edge,
          y2: rows.interval + 12,
          class: "band-edge",
        }),
      );
  }
  parts.push(xAxis(x, axisY, rows.baseline - 14, `${describeMetric(metric)} per run (${unit})`, tickFormat));
  for (const [side, y] of [
    ["baseline", rows.baseline],
    ["candidate", rows.candidate],
  ] as const) {
    parts.push(el("text", { x: left - 10, y: y + 4, "text-anchor": "end", class: "caption" }, text(side)));
    const mine = check.runs.filter((r) => r.side === side);
    mine.forEach((r, i) => {
      // A small, fixed vertical spread so runs with equal values stay visible (no randomness).
      const dy = ((i % 5) - 2) * 2.5;
      parts.push(dot(r, x(r.value), y + dy, formatMetricValue(metric, r.value)));
    });
    const mean = side === "baseline" ? c.baseline : c.candidate;
    if (mean !== null && Number.isFinite(mean))
      parts.push(
        el(
          "line",
          { x1: x(mean), y1: y - 10, x2: x(mean), y2: y + 10, class: "mean" },
          tooltip(`${side} geometric mean: ${formatMetricValue(metric, mean)}`),
        ),
      );
  }
  parts.push(
    el(
      "text",
      { x: left - 10, y: rows.interval + 4, "text-anchor": "end", class: "caption" },
      text("decision interval"),
    ),
  );
  if (interval) {
    const cls =
      c.verdict === "regression"
        ? "interval-regression"
        : c.verdict === "improvement"
          ? "interval-improvement"
          : "interval";
    parts.push(
      el(
        "line",
        {
          x1: x(interval[0]),
          y1: rows.interval,
          x2: Math.max(x(interval[1]), x(interval[0]) + 1),
          y2: rows.interval,
          class: cls,
        },
        tooltip(
          `decision interval: ${formatMetricValue(metric, interval[0])} … ${formatMetricValue(metric, interval[1])}`,
        ),
      ),
    );
    for (const end of interval)
      parts.push(
        el("line", { x1: x(end), y1: rows.interval - 5, x2: x(end), y2: rows.interval + 5, class: cls }),
      );
  } else
    parts.push(
      el(
        "text",
        { x: left, y: rows.interval + 4, class: "note" },
        text(
          pooled
            ? "pooled over requests: no per-run interval (see the table)"
            : "no interval (too few runs or no test)",
        ),
      ),
    );
  parts.push(
    legend(left, height - 8, [
      { className: "baseline", label: "baseline run" },
      { className: "candidate", label: "candidate run" },
      { className: "excluded", label: "excluded run" },
      ...(band ? [{ className: "band", label: "tolerance band" }] : []),
    ]),
  );
  return svgDocument(width, height, title, parts.join(""), options.standalone ?? false);
}
