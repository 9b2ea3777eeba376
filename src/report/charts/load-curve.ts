import type { TopLevelSpec } from "vega-lite";
import type { CapacityComparison, CapacityCurvePoint } from "../../compare/capacity-schema.js";
import { formatNumber } from "../format.js";
import { chartConfig, paddedDomain, renderVegaLite, sideColors } from "./vega.js";

/**
 * A capacity cell's load curves (docs/capacity.md), one small chart per figure: offered load (x)
 * against completed requests/s, goodput, TTFT and E2E at the cell's SLO percentile, and output tokens/s,
 * each side a line through the means of its runs per load. Dashed vertical lines: each side's capacity
 * point; on the latency charts a green dashed line at the SLO. Drawn from verdict.json's `capacity[].curve`.
 */

const width = 330;
const height = 150;

/** The figures drawn, in order; a figure no point of either side has is left out. */
export const loadFigures = [
  "completedPerSecond",
  "goodput",
  "ttftMs",
  "e2elMs",
  "outputTokensPerSecond",
] as const;
export type LoadFigure = (typeof loadFigures)[number];

function figureLabel(figure: LoadFigure, percentile: string): string {
  switch (figure) {
    case "completedPerSecond":
      return "completed requests/s";
    case "goodput":
      return "goodput (requests/s)";
    case "ttftMs":
      return `TTFT ${percentile} (ms)`;
    case "e2elMs":
      return `E2E latency ${percentile} (ms)`;
    case "outputTokensPerSecond":
      return "output tokens/s";
  }
}

/** The SLO line of a figure, or null (throughput figures, or no SLO on that latency). */
function sloOf(check: CapacityComparison, figure: LoadFigure): number | null {
  if (figure === "ttftMs") return check.slo.ttft_ms ?? null;
  if (figure === "e2elMs") return check.slo.e2el_ms ?? null;
  return null;
}

const sides = ["baseline", "candidate"] as const;

/** The figures with at least one value on either side. */
export function drawnLoadFigures(check: CapacityComparison): LoadFigure[] {
  const curve = check.curve;
  if (!curve) return [];
  return loadFigures.filter((figure) =>
    sides.some((side) => curve[side].some((point) => point[figure] !== null)),
  );
}

/** The Vega-Lite spec of one figure of a capacity cell (pure; exported for tests). */
export function loadCurveSpec(check: CapacityComparison, figure: LoadFigure): TopLevelSpec {
  const curve = check.curve ?? { baseline: [], candidate: [] };
  const label = figureLabel(figure, check.percentile);
  const unit = check.dimension === "concurrency" ? "concurrent requests" : "requests/s offered";
  const title = `${check.cell} · ${label.replace(/ \(.*\)$/, "")} vs load`;
  const points = sides.flatMap((side) =>
    curve[side]
      .filter((p: CapacityCurvePoint) => p[figure] !== null)
      .map((p) => ({
        side,
        load: p.load,
        value: p[figure] as number,
        label: `${side} at load ${formatNumber(p.load)}: ${formatNumber(p[figure] as number)} (${p.runs} run${p.runs === 1 ? "" : "s"})`,
      })),
  );
  const slo = sloOf(check, figure);
  const capacityPoints = sides.flatMap((side) => {
    const capacity = check[side].capacity;
    if (capacity === null) return [];
    const bound = check[side].bound;
    const words = bound === "above" ? "at least " : bound === "below" ? "below " : "";
    return [{ side, load: capacity, label: `${side} capacity ${words}${formatNumber(capacity)}` }];
  });
  const loads = [...points.map((p) => p.load), ...capacityPoints.map((p) => p.load)];
  const values = [...points.map((p) => p.value), ...(slo === null ? [] : [slo])];
  const xDomain = paddedDomain(Math.min(...loads, 0), Math.max(...loads, 1e-9), false, 0.03);
  xDomain[0] = 0;
  const latency = figure === "ttftMs" || figure === "e2elMs";
  const positive = values.filter((v) => v > 0);
  const log = latency && positive.length === values.length && values.length > 0;
  const yDomain = log
    ? paddedDomain(Math.min(...values), Math.max(...values), true, 0.06)
    : paddedDomain(0, Math.max(...values, 1e-9), false, 0.05);
  if (!log) yDomain[0] = 0;
  const x = {
    field: "load",
    type: "quantitative" as const,
    scale: { domain: xDomain, nice: false, zero: false },
    axis: { title: `load (${unit})`, format: ",~r", grid: true, tickCount: 6 },
  };
  const y = {
    field: "value",
    type: "quantitative" as const,
    scale: log ? { type: "log" as const, domain: yDomain, nice: false } : { domain: yDomain, nice: false },
    axis: { title: label, format: ",~r", grid: true, tickCount: 5 },
  };
  const color = {
    field: "side",
    type: "nominal" as const,
    scale: { domain: [...sides], range: [sideColors.baseline, sideColors.candidate] },
    legend: { title: null, symbolType: "stroke" },
  };
  const layers: Record<string, unknown>[] = [
    {
      name: "capacity",
      data: { values: capacityPoints },
      mark: { type: "rule", strokeDash: [5, 3], strokeWidth: 1.5 },
      encoding: { x, color, description: { field: "label" } },
    },
    {
      name: "curve",
      data: { values: points },
      mark: { type: "line", strokeWidth: 1.6, point: { filled: true, size: 30 } },
      encoding: { x, y, color, description: { field: "label" } },
    },
  ];
  if (slo !== null)
    layers.unshift({
      name: "slo",
      data: { values: [{ value: slo, label: `SLO ${formatNumber(slo)} ms` }] },
      mark: { type: "rule", color: "#5cb85c", strokeDash: [3, 2], strokeWidth: 1.5 },
      encoding: { y, description: { field: "label" } },
    });
  const capacityWords = `capacity: ${sides
    .map(
      (side) => capacityPoints.find((p) => p.side === side)?.label.replace(" capacity", "") ?? `${side} none`,
    )
    .join(", ")}`;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    config: chartConfig,
    description: title,
    title: {
      text: title,
      subtitle: [
        capacityWords,
        `dashed: capacity${slo === null ? "" : " · green: SLO"}${log ? " · log axis" : ""}`,
      ],
      limit: width + 60,
      subtitleLimit: width + 60,
    },
    width,
    height,
    layer: layers,
  } as unknown as TopLevelSpec;
}

export function loadCurveChart(
  check: CapacityComparison,
  figure: LoadFigure,
  options: { standalone?: boolean } = {},
): Promise<string> {
  return renderVegaLite(loadCurveSpec(check, figure), options.standalone ?? false);
}
