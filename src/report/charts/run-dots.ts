import type { TopLevelSpec } from "vega-lite";
import { describeMetric, metricSpecs } from "../../config/metric-names.js";
import { largest, smallest } from "../../util/extremes.js";
import { formatChange, formatFractionAsPercent, formatInterval, formatMetricValue } from "../format.js";
import type { CheckPicture } from "./data.js";
import { chartSpec, paddedDomain, renderVegaLite, sideColors } from "./vega.js";

/**
 * Per gated check: every run of both sides as a dot on the metric's own axis (log when every value is
 * positive, so a ratio looks the same anywhere on it), the tolerance band around the baseline's
 * geometric mean, and the decision interval (baseline × the interval of the ratio) under the candidate's
 * runs. Regression is "the whole interval beyond the band", within tolerance "its worse end inside":
 * the reason for the verdict, visible at a glance. A Vega-Lite layer chart; every layer is named so
 * its marks carry a stable class (`<name>_marks`).
 */

const width = 500;
/** How far beyond the runs (a factor on a log axis, spans on a linear one) a wide interval is drawn. */
const maxReach = 4;
const rowNames = ["baseline", "candidate", "decision interval"] as const;

const verdictWords = {
  regression: "regression",
  improvement: "improvement",
  "within-tolerance": "within tolerance",
  inconclusive: "inconclusive",
} as const;

const intervalColors = {
  regression: "#c9302c",
  improvement: "#2e7d32",
  "within-tolerance": "#111111",
  inconclusive: "#111111",
} as const;

const legendKinds = ["baseline run", "candidate run", "excluded run", "tolerance band"] as const;
const legendColors = [sideColors.baseline, sideColors.candidate, "#999999", "#b9dfb0"];

/** The Vega-Lite spec of one check's chart (pure; exported for tests). */
export function runDotsSpec(check: CheckPicture): TopLevelSpec {
  const c = check.comparison;
  const axis = runDotsAxis(check);
  const { metric, log, domain } = axis;
  const percent = metricSpecs[metric].format === "percent";
  const unit = percent ? "%" : metricSpecs[metric].unit;
  const direction = c.higherIsBetter ? "higher is better" : "lower is better";
  const title = `${c.cell} · ${describeMetric(c.metric)} (${direction}): ${verdictWords[c.verdict]}`;
  const subtitle = [
    `change ${formatChange(c.ratio)}, decision interval ${formatInterval(c.ci)}, tolerance ±${formatFractionAsPercent(c.tolerance)}${c.judgedOn ? ` (judged on ${describeMetric(c.judgedOn)})` : ""}`,
    [
      log ? "log axis" : "linear axis",
      ...(axis.clipped ? ["interval cut at the axis edge (no end cap)"] : []),
    ].join(" · "),
  ];
  const x: Channel = {
    type: "quantitative" as const,
    scale: log
      ? { type: "log" as const, domain, nice: false }
      : { type: "linear" as const, domain, nice: false, zero: false },
    axis: {
      title: `${describeMetric(metric)} per run (${unit})`,
      format: percent ? ".2~%" : ",~r",
      grid: true,
      tickCount: 6,
    },
  };
  return chartSpec(title, subtitle, width + 100, {
    width,
    height: 96,
    layer: [
      ...(axis.band ? [bandLayer(axis.band, metric, x)] : []),
      ...runAndMeanLayers(check, metric, x),
      axis.interval ? intervalLayer(check, axis, x) : noIntervalLayer(axis, x),
    ],
  });
}

type Channel = Record<string, unknown>;

/** What the chart's axis shows of a check: its metric, the band and interval, and the domain they fit in. */
interface RunDotsAxis {
  readonly metric: CheckPicture["comparison"]["metric"];
  readonly pooled: boolean;
  readonly band: [number, number] | null;
  readonly interval: [number, number] | null;
  /** The interval as drawn: cut at the axis edge when it reaches far beyond the runs. */
  readonly shownInterval: [number, number] | null;
  readonly clipped: boolean;
  readonly log: boolean;
  readonly domain: [number, number];
}

function runDotsAxis(check: CheckPicture): RunDotsAxis {
  const c = check.comparison;
  const metric = c.judgedOn ?? c.metric;
  const pooled = metricSpecs[c.metric].judged === "pooled-failures";
  const base = c.baseline;
  const band: [number, number] | null =
    base !== null && base > 0 && !pooled ? [base / (1 + c.tolerance), base * (1 + c.tolerance)] : null;
  const interval: [number, number] | null = base !== null && c.ci ? [base * c.ci[0], base * c.ci[1]] : null;
  // The axis covers the runs, the band and the means; a decision interval far wider than that (few
  // runs) is drawn up to the axis edge, at most `maxReach` times beyond them, and said so.
  const core = [
    ...check.runs.map((r) => r.value),
    ...(band ?? []),
    ...(base === null ? [] : [base]),
    ...(c.candidate === null ? [] : [c.candidate]),
  ].filter((v) => Number.isFinite(v));
  const coreLo = core.length > 0 ? smallest(core) : 0;
  const coreHi = core.length > 0 ? largest(core) : 1;
  const log = coreLo > 0;
  const linearSpan = coreHi - coreLo || Math.abs(coreHi) * 0.1 || 0.01;
  const reach: [number, number] = log
    ? [coreLo / maxReach, coreHi * maxReach]
    : [coreLo - linearSpan * maxReach, coreHi + linearSpan * maxReach];
  const shownInterval: [number, number] | null = interval
    ? [Math.max(interval[0], reach[0]), Math.min(interval[1], reach[1])]
    : null;
  const clipped = interval !== null && (shownInterval![0] > interval[0] || shownInterval![1] < interval[1]);
  const values = [...core, ...(shownInterval ?? [])];
  const lo = values.length > 0 ? smallest(values) : 0;
  const hi = values.length > 0 ? largest(values) : 1;
  // A linear axis (some value is 0, e.g. an error rate) starts at 0 and is never empty.
  const linearHigh = hi > Math.min(0, lo) ? hi : Math.abs(hi) * 0.1 || 0.01;
  const domain = log
    ? paddedDomain(lo, hi, true, 0.06)
    : paddedDomain(Math.min(0, lo), linearHigh, false, 0.03);
  if (!log) domain[0] = Math.min(0, lo);
  return { metric, pooled, band, interval, shownInterval, clipped, log, domain };
}

const rowChannel = () => ({
  field: "row",
  type: "nominal" as const,
  scale: { domain: [...rowNames] },
  axis: { title: null, labelFontSize: 11, labelPadding: 6 },
});

const colorChannel = (field: string) => ({
  field,
  type: "nominal" as const,
  scale: { domain: [...legendKinds], range: legendColors },
  legend: { title: null, symbolType: "circle" },
});

function bandLayer(band: [number, number], metric: RunDotsAxis["metric"], x: Channel): Channel {
  return {
    name: "band",
    data: { values: [{ lo: band[0], hi: band[1], kind: "tolerance band" }] },
    mark: { type: "rect", opacity: 0.6, stroke: "#5cb85c", strokeDash: [3, 2], strokeWidth: 1 },
    encoding: {
      x: { ...x, field: "lo" },
      x2: { field: "hi" },
      color: colorChannel("kind"),
      description: {
        value: `tolerance band ${formatMetricValue(metric, band[0])} to ${formatMetricValue(metric, band[1])}`,
      },
    },
  };
}

/** Every run as a dot in its side's row (an excluded run hollow), and each side's geometric mean as a tick. */
function runAndMeanLayers(check: CheckPicture, metric: RunDotsAxis["metric"], x: Channel): Channel[] {
  const c = check.comparison;
  const runs = check.runs.map((r, i) => ({
    row: r.side,
    value: r.value,
    kind: r.used ? `${r.side} run` : "excluded run",
    used: r.used,
    // A small, fixed vertical spread so runs with equal values stay visible (no randomness).
    jitter: ((i % 5) - 2) * 2.5,
    label: `${r.side} run-${r.run ?? "?"}${r.used ? "" : " (excluded)"}: ${formatMetricValue(metric, r.value)}`,
  }));
  const means = (
    [
      ["baseline", c.baseline],
      ["candidate", c.candidate],
    ] as const
  )
    .filter(([, v]) => v !== null && Number.isFinite(v))
    .map(([row, value]) => ({
      row,
      value,
      shown: `${row} geometric mean ${formatMetricValue(metric, value)}`,
    }));
  return [
    {
      name: "runs",
      data: { values: runs },
      mark: { type: "point", filled: true, size: 60, opacity: 0.9 },
      encoding: {
        x: { ...x, field: "value" },
        y: rowChannel(),
        yOffset: { field: "jitter", type: "quantitative", scale: { domain: [-20, 20] } },
        color: colorChannel("kind"),
        fillOpacity: { condition: { test: "datum.used", value: 0.9 }, value: 0 },
        description: { field: "label" },
      },
    },
    {
      name: "mean",
      data: { values: means },
      mark: { type: "tick", color: "#111111", thickness: 2, size: 22 },
      encoding: { x: { ...x, field: "value" }, y: rowChannel(), description: { field: "shown" } },
    },
  ];
}

function intervalLayer(check: CheckPicture, axis: RunDotsAxis, x: Channel): Channel {
  const c = check.comparison;
  const interval = axis.interval!;
  return {
    name: "interval",
    data: {
      values: [
        {
          row: "decision interval",
          lo: axis.shownInterval![0],
          hi: axis.shownInterval![1],
          shown: `decision interval ${formatMetricValue(axis.metric, interval[0])} to ${formatMetricValue(axis.metric, interval[1])}`,
        },
      ],
    },
    // End caps only where the interval really ends: a clipped one is a bare line to the edge.
    mark: axis.clipped
      ? { type: "rule", strokeWidth: 3, color: intervalColors[c.verdict] }
      : {
          type: "errorbar",
          ticks: { size: 10, opacity: 1 },
          rule: { opacity: 1 },
          thickness: 3,
          color: intervalColors[c.verdict],
        },
    encoding: { x: { ...x, field: "lo" }, x2: { field: "hi" }, y: rowChannel() },
  };
}

function noIntervalLayer(axis: RunDotsAxis, x: Channel): Channel {
  return {
    name: "no-interval",
    data: {
      values: [
        {
          row: "decision interval",
          at: axis.domain[0],
          note: axis.pooled
            ? "pooled over requests: no per-run interval (see the table)"
            : "no interval (too few runs or no test)",
        },
      ],
    },
    mark: { type: "text", align: "left", dx: 4, color: "#666666", fontSize: 10 },
    encoding: { x: { ...x, field: "at" }, y: rowChannel(), text: { field: "note" } },
  };
}

export function runDotsChart(check: CheckPicture, options: { standalone?: boolean } = {}): Promise<string> {
  return renderVegaLite(runDotsSpec(check), options.standalone ?? false);
}
