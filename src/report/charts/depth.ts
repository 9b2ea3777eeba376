import type { TopLevelSpec } from "vega-lite";
import { formatMetricValue } from "../format.js";
import { type DepthPicture, depthMetric, type Side } from "./data.js";
import { chartSpec, renderVegaLite, sideColors, valueAxisDomain } from "./vega.js";

/**
 * A session cell's TTFT p95 against context depth (docs/workloads.md, "Session metrics"): the depth
 * buckets on x, shallow to deep, each run's TTFT p95 in a bucket as a dot (hollow: a run compare
 * excluded), and each side's geometric mean per bucket (what compare judged, as in the per-run charts)
 * as a line. A line that climbs faster than the other's is a cost that grows with the conversation
 * (longer prompts, a colder prefix cache). Log axis when every value is positive, so equal ratios are
 * equal distances at any depth.
 */

const width = 400;
const height = 170;
const sides: readonly Side[] = ["baseline", "candidate"];
/** Offsets (of ±20) that put each side's dots beside its line's point, and spread equal runs apart. */
const sideOffset: Record<Side, number> = { baseline: -6, candidate: 6 };

/** The Vega-Lite spec of a cell's depth chart (pure; exported for tests). */
export function depthSpec(picture: DepthPicture): TopLevelSpec {
  const title = `${picture.cell} · TTFT p95 against context depth`;
  const { runs, means } = depthPoints(picture);
  const values = [...runs.map((r) => r.value), ...means.flatMap((m) => (m.value === null ? [] : [m.value]))];
  const { log, domain } = valueAxisDomain(values, true, 0.08);
  const encoding: DepthEncoding = {
    x: {
      field: "depth",
      type: "ordinal" as const,
      scale: { domain: picture.buckets.map((b) => b.label) },
      axis: { title: "context depth (turn number, 1 = the first)", labelAngle: 0, grid: true },
    },
    y: {
      field: "value",
      type: "quantitative" as const,
      scale: log ? { type: "log" as const, domain, nice: false } : { domain, nice: false },
      axis: { title: "TTFT p95 (ms)", format: ",~r", grid: true, tickCount: 5 },
    },
    color: {
      field: "side",
      type: "nominal" as const,
      scale: { domain: [...sides], range: sides.map((side) => sideColors[side]) },
      legend: { title: null, symbolType: "circle" },
    },
  };
  const counts = sides
    .map((side) => {
      const n = new Set(picture.runs.filter((r) => r.side === side).map((r) => r.run)).size;
      return `${side} ${n}`;
    })
    .join(", ");
  return chartSpec(
    title,
    [
      "dots: runs (hollow: excluded) · lines: geometric means",
      `runs: ${counts} · ${log ? "log axis" : "linear axis"}`,
    ],
    width + 60,
    {
      width,
      height,
      layer: depthLayers(runs, means, encoding),
    },
  );
}

interface DepthEncoding {
  readonly x: Record<string, unknown>;
  readonly y: Record<string, unknown>;
  readonly color: Record<string, unknown>;
}

/** Each run's TTFT p95 per depth, and each side's geometric mean per depth, with their accessible labels. */
function depthPoints(picture: DepthPicture) {
  const labelOf = new Map(picture.buckets.map((b) => [b.bucket, b.label]));
  const runs = picture.runs.map((r, i) => ({
    side: r.side,
    depth: labelOf.get(r.bucket)!,
    value: r.value,
    used: r.used,
    // A small, fixed spread so runs with equal values stay visible (no randomness).
    offset: sideOffset[r.side] + ((i % 3) - 1) * 2,
    label: `${r.side} run-${r.run ?? "?"}${r.used ? "" : " (excluded)"} at depth ${labelOf.get(r.bucket)}: ${formatMetricValue(depthMetric(r.bucket), r.value)}`,
  }));
  const shown = (m: DepthPicture["means"][number]) =>
    m.value === null ? "none" : formatMetricValue(depthMetric(m.bucket), m.value);
  // A line's accessible label is the whole line; each of its points has its own.
  const lineLabel = new Map(
    sides.map((side) => [
      side,
      `${side} geometric mean by depth: ${picture.means
        .filter((m) => m.side === side)
        .map((m) => `${shown(m)} at ${labelOf.get(m.bucket)}`)
        .join(", ")}`,
    ]),
  );
  // A side without a mean in a bucket is a gap in its line (a null breaks the path), not a join across it.
  const means = picture.means.map((m) => ({
    side: m.side,
    depth: labelOf.get(m.bucket)!,
    value: m.value,
    line: lineLabel.get(m.side)!,
    label: `${m.side} geometric mean at depth ${labelOf.get(m.bucket)}: ${shown(m)}`,
  }));
  return { runs, means };
}

/** The runs as dots (an excluded run hollow), the means as a line per side and its points. */
function depthLayers(
  runs: ReturnType<typeof depthPoints>["runs"],
  means: ReturnType<typeof depthPoints>["means"],
  { x, y, color }: DepthEncoding,
): Record<string, unknown>[] {
  return [
    {
      name: "runs",
      data: { values: runs },
      mark: { type: "point", filled: true, size: 40, opacity: 0.85 },
      encoding: {
        x,
        xOffset: { field: "offset", type: "quantitative", scale: { domain: [-20, 20] } },
        y,
        color,
        fillOpacity: { condition: { test: "datum.used", value: 0.85 }, value: 0 },
        description: { field: "label" },
      },
    },
    {
      name: "mean",
      data: { values: means },
      mark: { type: "line", strokeWidth: 1.8 },
      encoding: { x, y, color, description: { field: "line" } },
    },
    {
      name: "mean_points",
      data: { values: means.filter((m) => m.value !== null) },
      mark: { type: "point", filled: true, size: 24, opacity: 1 },
      encoding: { x, y, color, description: { field: "label" } },
    },
  ];
}

export function depthChart(picture: DepthPicture, options: { standalone?: boolean } = {}): Promise<string> {
  return renderVegaLite(depthSpec(picture), options.standalone ?? false);
}
