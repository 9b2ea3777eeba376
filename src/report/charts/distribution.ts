import { latencyPhaseLabel } from "../../config/metric-names.js";
import { formatNumber } from "../format.js";
import type { DistributionPicture, SideDistribution } from "./data.js";
import { el, legend, polyline, scale, svgDocument, text, tooltip, xAxis, yAxis } from "./svg.js";

/**
 * One latency phase of both sides as cumulative distributions (x: latency, log axis when the values
 * span more than a few times; y: share of requests at or below), the used runs of each side pooled.
 * Dashed lines at p50, p95 and p99 show where the gated percentiles are read off.
 */

const width = 340;
const height = 230;
const left = 52;
const right = width - 12;
const top = 36;
const bottom = 170;

function curve(
  side: SideDistribution,
  x: ReturnType<typeof scale>,
  y: ReturnType<typeof scale>,
): [number, number][] {
  return side.points.map(([value, fraction]) => [x(value), y(fraction)]);
}

export function distributionChart(
  cell: string,
  picture: DistributionPicture,
  options: { standalone?: boolean } = {},
): string {
  const label = latencyPhaseLabel(picture.phase);
  const title = `${cell} · ${label} distribution`;
  const sides = [
    ["baseline", picture.baseline],
    ["candidate", picture.candidate],
  ] as const;
  const values = sides.flatMap(([, side]) => (side ? side.points.map(([v]) => v) : []));
  const parts: string[] = [el("text", { x: 8, y: 16, class: "title" }, text(title, 80))];
  if (values.length === 0) {
    parts.push(el("text", { x: 8, y: 40, class: "note" }, text("no successful requests with this latency")));
    return svgDocument(width, 60, title, parts.join(""), options.standalone ?? false);
  }
  const positive = values.filter((v) => v > 0);
  const lo = positive.length > 0 ? Math.min(...positive) : 0;
  const hi = Math.max(...values);
  const log = lo > 0 && hi / lo > 4;
  const x = scale([log ? lo : Math.min(0, ...values), hi], [left, right], { log, pad: 0.02 });
  const y = scale([0, 1], [bottom, top]);
  const counts = sides
    .map(([name, side]) => (side ? `${name} ${side.count.toLocaleString("en-US")}` : `${name}: none`))
    .join(", ");
  parts.push(
    el("text", { x: 8, y: 30, class: "note" }, text(`requests: ${counts}${log ? " · log axis" : ""}`, 90)),
  );
  parts.push(xAxis(x, bottom, top, `${label} (ms)`));
  parts.push(yAxis(y, left, right, "share of requests ≤ x", (v) => `${Math.round(v * 100)}%`));
  for (const q of [0.5, 0.95, 0.99])
    parts.push(el("line", { x1: left, y1: y(q), x2: right, y2: y(q), class: "band-edge" }));
  for (const [name, side] of sides) {
    if (!side) continue;
    parts.push(polyline(curve(side, x, y), `line-${name}`));
    parts.push(
      el(
        "circle",
        { cx: x(side.p95), cy: y(0.95), r: 3, class: name },
        tooltip(
          `${name}: p50 ${formatNumber(side.p50)} ms, p95 ${formatNumber(side.p95)} ms, p99 ${formatNumber(side.p99)} ms`,
        ),
      ),
    );
  }
  parts.push(
    legend(left, height - 10, [
      { className: "line-baseline", label: "baseline", line: true },
      { className: "line-candidate", label: "candidate", line: true },
      { className: "band-edge", label: "p50 / p95 / p99", line: true },
    ]),
  );
  return svgDocument(width, height, title, parts.join(""), options.standalone ?? false);
}
