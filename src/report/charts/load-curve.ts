import type { TopLevelSpec } from "vega-lite";
import type { CapacityCurvePoint } from "../../compare/verdict/capacity-schema.js";
import { largest, smallest } from "../../util/extremes.js";
import { formatNumber } from "../format.js";
import type { LoadCurvePicture, LoadCurveSeries } from "./data.js";
import { chartSpec, paddedDomain, renderVegaLite, sideColors, valueAxisDomain } from "./vega.js";

/**
 * The load curves (docs/capacity.md, docs/compare.md), one small chart per figure: offered load (x)
 * against completed requests/s, goodput, TTFT and E2E at the cell's SLO percentile (p95 for a sweep), and
 * output tokens/s, each side a line through the means of its usable runs per load. Dashed vertical lines:
 * each side's capacity point (capacity cells only); on the latency charts a green dashed line at the SLO
 * when the cell states one. One implementation for a capacity cell (verdict.json `capacity[].curve`), a
 * sweep compared without a capacity config (`sweeps[]`) and the one side of `run --sweep`'s report.
 */

const width = 330;
const height = 150;

/** The figures drawn, in order; a figure no point of either side has is left out. */
const loadFigures = ["completedPerSecond", "goodput", "ttftMs", "e2elMs", "outputTokensPerSecond"] as const;
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
function sloOf(picture: LoadCurvePicture, figure: LoadFigure): number | null {
  if (figure === "ttftMs") return picture.slo.ttft_ms ?? null;
  if (figure === "e2elMs") return picture.slo.e2el_ms ?? null;
  return null;
}

/** Each series' colour: a comparison's sides in their colours, one measured side in the baseline's. */
const seriesColors: Record<LoadCurveSeries["side"], string> = {
  baseline: sideColors.baseline,
  candidate: sideColors.candidate,
  measured: sideColors.baseline,
};

/** The figures with at least one value in any series. */
export function drawnLoadFigures(picture: LoadCurvePicture): LoadFigure[] {
  return loadFigures.filter((figure) =>
    picture.series.some((series) => series.points.some((point) => point[figure] !== null)),
  );
}

function capacityLabel(series: LoadCurveSeries): string | null {
  if (series.capacity === null) return null;
  const bound = series.capacity.bound;
  const words = bound === "above" ? "at least " : bound === "below" ? "below " : "";
  return `${series.side} capacity ${words}${formatNumber(series.capacity.load)}`;
}

/**
 * The Vega-Lite spec of one figure of a cell's load curves (pure; exported for tests): a capacity
 * cell's (with each side's capacity point), a sweep's (no capacity point), or one measured side's.
 */
function loadCurveSpec(picture: LoadCurvePicture, figure: LoadFigure): TopLevelSpec {
  const label = figureLabel(figure, picture.percentile);
  const title = `${picture.cell} · ${label.replace(/ \(.*\)$/, "")} vs load`;
  const { points, capacityPoints } = curvePoints(picture, figure);
  const slo = sloOf(picture, figure);
  const latency = figure === "ttftMs" || figure === "e2elMs";
  const values = [...points.map((p) => p.value), ...(slo === null ? [] : [slo])];
  const { log, domain: yDomain } = valueAxisDomain(values, latency, 0.06);
  const y = {
    field: "value",
    type: "quantitative" as const,
    scale: log ? { type: "log" as const, domain: yDomain, nice: false } : { domain: yDomain, nice: false },
    axis: { title: label, format: ",~r", grid: true, tickCount: 5 },
  };
  const names = picture.series.map((series) => series.side);
  const color = {
    field: "side",
    type: "nominal" as const,
    scale: { domain: names, range: names.map((name) => seriesColors[name]) },
    legend: { title: null, symbolType: "stroke" },
  };
  const x = loadAxis(picture, [...points.map((p) => p.load), ...capacityPoints.map((p) => p.load)]);
  const layers: Record<string, unknown>[] = [
    ...(slo === null
      ? []
      : [
          {
            name: "slo",
            data: { values: [{ value: slo, label: `SLO ${formatNumber(slo)} ms` }] },
            mark: { type: "rule", color: "#5cb85c", strokeDash: [3, 2], strokeWidth: 1.5 },
            encoding: { y, description: { field: "label" } },
          },
        ]),
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
  return chartSpec(title, loadCurveSubtitle(picture, slo, log), width + 60, { width, height, layer: layers });
}

/** The figure's measured points per side (with their labels), and each side's capacity as a rule. */
function curvePoints(picture: LoadCurvePicture, figure: LoadFigure) {
  const points = picture.series.flatMap((series) =>
    series.points
      .filter((p: CapacityCurvePoint) => p[figure] !== null)
      .map((p) => ({
        side: series.side,
        load: p.load,
        value: p[figure] as number,
        label: `${series.side} at load ${formatNumber(p.load)}: ${formatNumber(p[figure] as number)} (${p.runs} run${p.runs === 1 ? "" : "s"})`,
      })),
  );
  const capacityPoints = picture.series.flatMap((series) => {
    const text = capacityLabel(series);
    return text === null ? [] : [{ side: series.side, load: series.capacity!.load, label: text }];
  });
  return { points, capacityPoints };
}

/** The load axis, from 0 to the largest load shown, in the load's unit. */
function loadAxis(picture: LoadCurvePicture, loads: readonly number[]) {
  const unit = picture.dimension === "concurrency" ? "concurrent requests" : "requests/s offered";
  const domain = paddedDomain(Math.min(smallest(loads), 0), Math.max(largest(loads), 1e-9), false, 0.03);
  domain[0] = 0;
  return {
    field: "load",
    type: "quantitative" as const,
    scale: { domain, nice: false, zero: false },
    axis: { title: `load (${unit})`, format: ",~r", grid: true, tickCount: 6 },
  };
}

/** Each side's capacity (or that a sweep has none), then what the dashes, the green rule and the axis mean. */
function loadCurveSubtitle(picture: LoadCurvePicture, slo: number | null, log: boolean): string[] {
  const first =
    picture.kind === "sweep"
      ? "a load sweep: no capacity point"
      : `capacity: ${picture.series
          .map((series) => capacityLabel(series)?.replace(" capacity", "") ?? `${series.side} none`)
          .join(", ")}`;
  const legend = [
    ...(picture.kind === "capacity" ? ["dashed: capacity"] : []),
    ...(slo === null ? [] : ["green: SLO"]),
    ...(log ? ["log axis"] : []),
  ];
  return legend.length > 0 ? [first, legend.join(" · ")] : [first];
}

export function loadCurveChart(
  picture: LoadCurvePicture,
  figure: LoadFigure,
  options: { standalone?: boolean } = {},
): Promise<string> {
  return renderVegaLite(loadCurveSpec(picture, figure), options.standalone ?? false);
}
