import type { TimelinePicture } from "./data.js";
import { el, legend, polyline, scale, svgDocument, text, tooltip, xAxis, yAxis } from "./svg.js";

/**
 * One run over time, three panels on one time axis: each request's TTFT (a dot when its first token
 * came) with the ITL p50/p99 per time bin (log axis); running and waiting requests from the /metrics
 * scrapes; KV-cache usage. Preemptions are marked where the counter rose between two scrapes.
 */

const width = 720;
const left = 64;
const right = width - 16;
const panels = {
  latency: { top: 40, bottom: 170 },
  queue: { top: 196, bottom: 276 },
  kv: { top: 302, bottom: 372 },
} as const;
const height = 430;

function steps(points: readonly [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  points.forEach(([px, py], i) => {
    if (i > 0) out.push([px, out[out.length - 1]![1]]);
    out.push([px, py]);
  });
  return out;
}

export function timelineChart(
  cell: string,
  t: TimelinePicture,
  options: { standalone?: boolean } = {},
): string {
  const title = `${cell} · ${t.side} run-${t.run ?? "?"} over time`;
  const x = scale([0, Math.max(1, t.endMs) / 1000], [left, right]);
  const parts: string[] = [el("text", { x: 8, y: 16, class: "title" }, text(title, 120))];
  const preempted = t.preemptions.reduce((sum, p) => sum + p.added, 0);
  parts.push(
    el(
      "text",
      { x: 8, y: 30, class: "note" },
      text(
        `${t.ttft.length.toLocaleString("en-US")} requests drawn · ${t.failedAt.length} failed · ${t.scrapes.length} scrapes · ${preempted} preemptions`,
        160,
      ),
    ),
  );

  // Latency panel.
  const latencies = [...t.ttft.map(([, v]) => v), ...t.itl.flatMap((b) => [b.p50, b.p99])].filter(
    (v) => v > 0,
  );
  const lo = latencies.length > 0 ? Math.min(...latencies) : 1;
  const hi = latencies.length > 0 ? Math.max(...latencies) : 10;
  const yl = scale([lo, hi], [panels.latency.bottom, panels.latency.top], { log: true, pad: 0.04 });
  parts.push(yAxis(yl, left, right, "ms (log)"));
  for (const [atMs, ms] of t.ttft)
    parts.push(el("circle", { cx: x(atMs / 1000), cy: yl(ms), r: 1.8, class: "dot-ttft" }));
  parts.push(
    polyline(
      t.itl.map((b) => [x((b.fromMs + b.toMs) / 2000), yl(b.p50)]),
      "line-p50",
    ),
  );
  parts.push(
    polyline(
      t.itl.map((b) => [x((b.fromMs + b.toMs) / 2000), yl(b.p99)]),
      "line-p99",
    ),
  );
  parts.push(
    legend(left + 4, panels.latency.top - 2, [
      { className: "dot-ttft", label: "TTFT per request" },
      { className: "line-p50", label: "ITL p50", line: true },
      { className: "line-p99", label: "ITL p99", line: true },
    ]),
  );

  // Queue panel.
  const scraped = t.scrapes.filter((s) => s.atMs >= 0 && s.atMs <= t.endMs + 1);
  const counts = scraped.flatMap((s) => [s.running ?? 0, s.waiting ?? 0]);
  const yq = scale([0, Math.max(1, ...counts)], [panels.queue.bottom, panels.queue.top]);
  parts.push(yAxis(yq, left, right, "requests"));
  if (scraped.some((s) => s.running !== null || s.waiting !== null)) {
    for (const [key, cls] of [
      ["running", "line-running"],
      ["waiting", "line-waiting"],
    ] as const)
      parts.push(
        polyline(
          steps(scraped.filter((s) => s[key] !== null).map((s) => [x(s.atMs / 1000), yq(s[key]!)])),
          cls,
        ),
      );
    parts.push(
      legend(left + 4, panels.queue.top - 2, [
        { className: "line-running", label: "running", line: true },
        { className: "line-waiting", label: "waiting", line: true },
      ]),
    );
  } else
    parts.push(
      el(
        "text",
        { x: left + 8, y: panels.queue.top + 20, class: "note" },
        text("no running/waiting gauges scraped"),
      ),
    );

  // KV-cache panel.
  const yk = scale([0, 1], [panels.kv.bottom, panels.kv.top]);
  parts.push(yAxis(yk, left, right, "KV cache", (v) => `${Math.round(v * 100)}%`));
  const kv = scraped.filter((s) => s.kvUsage !== null);
  if (kv.length > 0) {
    parts.push(polyline(steps(kv.map((s) => [x(s.atMs / 1000), yk(Math.min(1, s.kvUsage!))])), "line-kv"));
    parts.push(
      legend(left + 4, panels.kv.top - 2, [
        { className: "line-kv", label: "KV-cache usage", line: true },
        { className: "preemption", label: "preemptions", line: true },
      ]),
    );
  } else
    parts.push(
      el("text", { x: left + 8, y: panels.kv.top + 20, class: "note" }, text("no KV-cache usage scraped")),
    );

  for (const p of t.preemptions) {
    const px = x(p.atMs / 1000);
    parts.push(
      el(
        "line",
        { x1: px, y1: panels.latency.top, x2: px, y2: panels.kv.bottom, class: "preemption" },
        tooltip(`${p.added} preemption${p.added === 1 ? "" : "s"} by ${(p.atMs / 1000).toFixed(1)} s`),
      ),
    );
  }
  parts.push(xAxis(x, panels.kv.bottom, panels.kv.top, "seconds since the measured phase began"));
  return svgDocument(width, height, title, parts.join(""), options.standalone ?? false);
}
