import type { TopLevelSpec } from "vega-lite";
import { latencyPhaseLabel } from "../../config/metric-names.js";
import { largest, smallest } from "../../util/extremes.js";
import { formatNumber } from "../format.js";
import type { DistributionPicture } from "./data.js";
import { chartSpec, paddedDomain, renderVegaLite, sideColors } from "./vega.js";

/**
 * One latency phase of both sides as cumulative distributions (x: latency, log axis when the values
 * span more than a few times; y: share of requests at or below), the used runs of each side pooled.
 * Dashed lines at p50, p95 and p99 show where the gated percentiles are read off; a dot marks each
 * side's p95. On a log axis a value of 0 (an ITL gap of 0 ms) is drawn at the left edge.
 */

const width = 300;
const height = 150;
/** Latencies more than this many times below the largest are drawn at the left edge of the log axis. */
const logSpan = 1e4;

/** The Vega-Lite spec of one phase's chart (pure; exported for tests). */
export function distributionSpec(cell: string, picture: DistributionPicture): TopLevelSpec {
  const label = latencyPhaseLabel(picture.phase);
  const title = `${cell} · ${label} distribution`;
  const sides = [
    ["baseline", picture.baseline],
    ["candidate", picture.candidate],
  ] as const;
  const values = sides.flatMap(([, side]) => (side ? side.points.map(([v]) => v) : []));
  if (values.length === 0)
    return chartSpec(title, null, width + 40, {
      width,
      height: 20,
      data: { values: [{ note: "no successful requests with this latency" }] },
      mark: { type: "text", align: "left", color: "#666666", fontSize: 10 },
      encoding: { text: { field: "note" }, x: { value: 0 } },
    });
  const { log, domain } = latencyAxis(values);
  const counts = sides
    .map(([name, side]) => (side ? `${name} ${side.count.toLocaleString("en-US")}` : `${name}: none`))
    .join(", ");
  return chartSpec(
    title,
    [`requests: ${counts}`, `${log ? "log axis · " : ""}dashed: p50, p95, p99 · dot: p95`],
    width + 60,
    { width, height, layer: distributionLayers(sides, label, log, domain) },
  );
}

/** The latency axis: log when the values span more than a few times (0 then drawn at the left edge). */
function latencyAxis(values: readonly number[]): { log: boolean; domain: [number, number] } {
  const positive = values.filter((v) => v > 0);
  const hi = largest(values);
  const lo = positive.length > 0 ? Math.max(smallest(positive), hi / logSpan) : 0;
  const log = lo > 0 && hi / lo > 4;
  return { log, domain: paddedDomain(log ? lo : Math.min(0, ...values), hi, log, 0.02) };
}

type Sides = readonly (readonly ["baseline" | "candidate", DistributionPicture["baseline"]])[];

/** Rules at p50, p95 and p99, each side's cumulative distribution, and its p95 as a dot. */
function distributionLayers(
  sides: Sides,
  label: string,
  log: boolean,
  domain: [number, number],
): Record<string, unknown>[] {
  const curve = sides.flatMap(([name, side]) =>
    side
      ? side.points.map(([value, fraction], i) => ({
          side: name,
          value: log ? Math.max(value, domain[0]) : value,
          fraction,
          order: i,
        }))
      : [],
  );
  const p95 = sides.flatMap(([name, side]) =>
    side
      ? [
          {
            side: name,
            value: log ? Math.max(side.p95, domain[0]) : side.p95,
            fraction: 0.95,
            label: `${name}: p50 ${formatNumber(side.p50)} ms, p95 ${formatNumber(side.p95)} ms, p99 ${formatNumber(side.p99)} ms`,
          },
        ]
      : [],
  );
  const x = {
    field: "value",
    type: "quantitative" as const,
    scale: log
      ? { type: "log" as const, domain, nice: false }
      : { type: "linear" as const, domain, nice: false, zero: false },
    axis: { title: `${label} (ms)`, format: ",~r", grid: true, tickCount: 5 },
  };
  const y = {
    field: "fraction",
    type: "quantitative" as const,
    scale: { domain: [0, 1] },
    axis: { title: "share of requests ≤ x", format: ".0%", grid: true, tickCount: 5 },
  };
  const color = {
    field: "side",
    type: "nominal" as const,
    scale: { domain: ["baseline", "candidate"], range: [sideColors.baseline, sideColors.candidate] },
    legend: { title: null, symbolType: "stroke" },
  };
  return [
    {
      name: "percentiles",
      data: { values: [0.5, 0.95, 0.99].map((fraction) => ({ fraction })) },
      mark: { type: "rule", color: "#5cb85c", strokeDash: [3, 2] },
      encoding: { y },
    },
    {
      name: "cdf",
      data: { values: curve },
      mark: { type: "line", strokeWidth: 1.6 },
      encoding: { x, y, color, order: { field: "order", type: "quantitative" } },
    },
    {
      name: "p95",
      data: { values: p95 },
      mark: { type: "point", filled: true, size: 30, opacity: 1 },
      encoding: { x, y, color, description: { field: "label" } },
    },
  ];
}

export function distributionChart(
  cell: string,
  picture: DistributionPicture,
  options: { standalone?: boolean } = {},
): Promise<string> {
  return renderVegaLite(distributionSpec(cell, picture), options.standalone ?? false);
}
