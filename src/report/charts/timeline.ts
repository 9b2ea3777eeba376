import type { TopLevelSpec } from "vega-lite";
import { largest, smallest } from "../../util/extremes.js";
import type { TimelinePicture } from "./data.js";
import { chartSpec, renderVegaLite } from "./vega.js";

/**
 * One run over time, three panels on one time axis (a Vega-Lite vertical concatenation): each
 * request's TTFT (a dot when its first token came) with the ITL p50/p99 per time bin (log axis);
 * running and waiting requests from the /metrics scrapes; KV-cache usage. Preemptions are marked in
 * every panel where the counter rose between two scrapes.
 */

const width = 560;
/** Latencies more than this many times below the largest are drawn at the bottom edge of the log axis. */
const logSpan = 1e4;

const seriesColors = {
  "TTFT per request": "#f58518",
  "ITL p50": "#6a3d9a",
  "ITL p99": "#c9302c",
  running: "#4c78a8",
  waiting: "#e45756",
  "KV-cache usage": "#54a24b",
  preemption: "#c9302c",
} as const;

const color = (names: readonly (keyof typeof seriesColors)[]) => ({
  field: "series",
  type: "nominal" as const,
  scale: { domain: [...names], range: names.map((n) => seriesColors[n]) },
  legend: { title: null, orient: "right" as const, direction: "vertical" as const },
});

/** The Vega-Lite spec of one run's timeline (pure; exported for tests). */
export function timelineSpec(cell: string, t: TimelinePicture): TopLevelSpec {
  const title = `${cell} · ${t.side} run-${t.run ?? "?"} over time`;
  const preempted = t.preemptions.reduce((sum, p) => sum + p.added, 0);
  const subtitle = `${t.ttft.length.toLocaleString("en-US")} requests drawn · ${t.failedAt.length} failed · ${t.scrapes.length} scrapes · ${preempted} preemptions`;
  const axis = timeAxis(t);
  // Scrapes within the measured phase, for the queue and KV-cache panels.
  const scraped = t.scrapes.filter((s) => s.atMs >= 0 && s.atMs <= t.endMs + 1);
  return chartSpec(title, subtitle, width + 60, {
    vconcat: [latencyPanel(t, axis), queuePanel(scraped, axis), kvPanel(scraped, axis)],
    spacing: 10,
    resolve: { scale: { color: "independent", y: "independent" }, legend: { color: "independent" } },
  });
}

type Layer = Record<string, unknown>;

/** The time axis every panel shares (labelled on the last one), its preemption rules and its notes. */
interface TimeAxis {
  x(shown: boolean): Layer;
  /** The preemptions as rules across a panel (none when the counter never rose). */
  preemptionLayer(shown: boolean): Layer[];
  /** A grey note at the panel's top left, where it has nothing to draw. */
  note(text: string): Layer;
}

function timeAxis(t: TimelinePicture): TimeAxis {
  const endS = Math.max(1, t.endMs) / 1000;
  const x = (shown: boolean) => ({
    field: "s",
    type: "quantitative" as const,
    scale: { domain: [0, endS], nice: false },
    axis: shown
      ? { title: "seconds since the measured phase began", grid: true }
      : { title: null, labels: false, grid: true },
  });
  const preemptions = t.preemptions.map((p) => ({
    s: p.atMs / 1000,
    label: `${p.added} preemption${p.added === 1 ? "" : "s"} by ${(p.atMs / 1000).toFixed(1)} s`,
  }));
  return {
    x,
    preemptionLayer: (shown) =>
      preemptions.length === 0
        ? []
        : [
            {
              name: "preemption",
              data: { values: preemptions },
              mark: { type: "rule", color: seriesColors.preemption, strokeDash: [2, 2] },
              encoding: { x: x(shown), description: { field: "label" } },
            },
          ],
    note: (text) => ({
      name: "note",
      data: { values: [{ s: 0, note: text }] },
      mark: { type: "text", align: "left", dx: 8, color: "#666666", fontSize: 10, y: 20 },
      encoding: { x: x(false), text: { field: "note" } },
    }),
  };
}

/** Each request's TTFT as a dot when its first token came, and the ITL p50 and p99 per time bin, on a log axis. */
function latencyPanel(t: TimelinePicture, { x, preemptionLayer }: TimeAxis): Layer {
  const latencies = [...t.ttft.map(([, v]) => v), ...t.itl.flatMap((b) => [b.p50, b.p99])].filter(
    (v) => v > 0,
  );
  const hi = latencies.length > 0 ? largest(latencies) : 10;
  const lo = latencies.length > 0 ? Math.max(smallest(latencies), hi / logSpan) : 1;
  const a = Math.log10(lo);
  const b = Math.log10(hi) > a ? Math.log10(hi) : a + 0.1;
  const pad = (b - a) * 0.04;
  const yDomain = [10 ** (a - pad), 10 ** (b + pad)];
  // On the log axis a gap of 0 ms is drawn at the bottom edge.
  const atLeast = (v: number) => Math.max(v, yDomain[0]!);
  const yLatency = {
    field: "ms",
    type: "quantitative" as const,
    scale: { type: "log" as const, domain: yDomain, nice: false },
    axis: { title: "ms (log)", format: ",~r", grid: true },
  };
  const itl = t.itl.flatMap((bin) => [
    { s: (bin.fromMs + bin.toMs) / 2000, ms: atLeast(bin.p50), series: "ITL p50" },
    { s: (bin.fromMs + bin.toMs) / 2000, ms: atLeast(bin.p99), series: "ITL p99" },
  ]);
  return {
    width,
    height: 130,
    layer: [
      {
        name: "ttft",
        data: {
          values: t.ttft.map(([atMs, ms]) => ({
            s: atMs / 1000,
            ms: atLeast(ms),
            series: "TTFT per request",
          })),
        },
        mark: { type: "circle", size: 16, opacity: 0.6 },
        encoding: { x: x(false), y: yLatency, color: color(["TTFT per request", "ITL p50", "ITL p99"]) },
      },
      ...(itl.length > 0
        ? [
            {
              name: "itl",
              data: { values: itl },
              mark: { type: "line", strokeWidth: 1.2 },
              encoding: {
                x: x(false),
                y: yLatency,
                color: color(["TTFT per request", "ITL p50", "ITL p99"]),
              },
            },
          ]
        : []),
      ...preemptionLayer(false),
    ],
  };
}

/** Running and waiting requests from the /metrics scrapes. */
function queuePanel(scraped: TimelinePicture["scrapes"], { x, preemptionLayer, note }: TimeAxis): Layer {
  const queue = scraped.flatMap((s) => [
    ...(s.running === null ? [] : [{ s: s.atMs / 1000, n: s.running, series: "running" }]),
    ...(s.waiting === null ? [] : [{ s: s.atMs / 1000, n: s.waiting, series: "waiting" }]),
  ]);
  return {
    width,
    height: 80,
    layer:
      queue.length > 0
        ? [
            {
              name: "queue",
              data: { values: queue },
              mark: { type: "line", interpolate: "step-after", strokeWidth: 1.4 },
              encoding: {
                x: x(false),
                y: {
                  field: "n",
                  type: "quantitative" as const,
                  scale: { domain: [0, Math.max(1, ...queue.map((q) => q.n))], nice: true },
                  axis: { title: "requests", grid: true, tickMinStep: 1, format: "d" },
                },
                color: color(["running", "waiting"]),
              },
            },
            ...preemptionLayer(false),
          ]
        : [note("no running/waiting gauges scraped"), ...preemptionLayer(false)],
  };
}

/** KV-cache usage from the /metrics scrapes, on the labelled time axis. */
function kvPanel(scraped: TimelinePicture["scrapes"], { x, preemptionLayer, note }: TimeAxis): Layer {
  const kv = scraped
    .filter((s) => s.kvUsage !== null)
    .map((s) => ({ s: s.atMs / 1000, usage: Math.min(1, s.kvUsage!), series: "KV-cache usage" }));
  return {
    width,
    height: 70,
    layer: [
      ...(kv.length > 0
        ? [
            {
              name: "kv",
              data: { values: kv },
              mark: { type: "line", interpolate: "step-after", strokeWidth: 1.4 },
              encoding: {
                x: x(true),
                y: {
                  field: "usage",
                  type: "quantitative" as const,
                  scale: { domain: [0, 1] },
                  axis: { title: "KV cache", format: ".0%", grid: true, tickCount: 3 },
                },
                color: color(["KV-cache usage", "preemption"]),
              },
            },
          ]
        : [{ ...note("no KV-cache usage scraped"), encoding: { x: x(true), text: { field: "note" } } }]),
      ...preemptionLayer(true),
    ],
  };
}

export function timelineChart(
  cell: string,
  t: TimelinePicture,
  options: { standalone?: boolean } = {},
): Promise<string> {
  return renderVegaLite(timelineSpec(cell, t), options.standalone ?? false);
}
