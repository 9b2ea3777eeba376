import { escapeHtml } from "../escape.js";

/**
 * The few SVG primitives the report's charts are drawn with: scales, ticks, elements. Pure and
 * deterministic (coordinates rounded to 0.1 px, no ids from counters or clocks), so the same verdict and
 * runs always give the same bytes. Every text and attribute value goes through `text`/`attr`, which
 * escape it (outside strings were redacted before, in compare).
 */

/** Text content from anywhere (labels, cell names): escaped, clipped to `max` characters. */
export function text(value: string, max = 160): string {
  return escapeHtml(value, max);
}

/** A coordinate or size: fixed to 0.1, no "-0", no exponent. */
export function num(value: number): string {
  if (!Number.isFinite(value)) return "0";
  const rounded = Math.round(value * 10) / 10;
  return (Object.is(rounded, -0) ? 0 : rounded).toFixed(1).replace(/\.0$/, "");
}

type AttrValue = string | number | null | undefined;

/** `name="value"` pairs, escaped; null/undefined attributes are left out. Numbers go through `num`. */
export function attrs(values: Readonly<Record<string, AttrValue>>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (value === null || value === undefined) continue;
    const shown = typeof value === "number" ? num(value) : escapeHtml(value, Number.POSITIVE_INFINITY);
    parts.push(`${name}="${shown}"`);
  }
  return parts.length > 0 ? ` ${parts.join(" ")}` : "";
}

export function el(name: string, values: Readonly<Record<string, AttrValue>>, ...children: string[]): string {
  const body = children.join("");
  return body.length === 0 ? `<${name}${attrs(values)}/>` : `<${name}${attrs(values)}>${body}</${name}>`;
}

/** A hover label (SVG <title>): no script needed. */
export function tooltip(label: string): string {
  return `<title>${text(label, 200)}</title>`;
}

export interface Scale {
  (value: number): number;
  readonly domain: readonly [number, number];
  readonly log: boolean;
  readonly ticks: (count?: number) => number[];
}

/** 1, 2, 5 × 10^k steps covering [lo, hi] with about `count` ticks. */
function linearTicks(lo: number, hi: number, count: number): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++)
    ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}

/** Powers of ten inside [lo, hi], with 2× and 5× in between when there are few decades. */
function logTicks(lo: number, hi: number, count: number): number[] {
  const first = Math.floor(Math.log10(lo));
  const last = Math.ceil(Math.log10(hi));
  const decades = last - first;
  const multipliers = decades <= 1 ? [1, 1.5, 2, 3, 5, 7] : decades <= 3 ? [1, 2, 5] : [1];
  const ticks: number[] = [];
  for (let e = first; e <= last; e++)
    for (const m of multipliers) {
      const value = Number((m * 10 ** e).toPrecision(12));
      if (value >= lo * (1 - 1e-9) && value <= hi * (1 + 1e-9)) ticks.push(value);
    }
  if (ticks.length > count * 2) return ticks.filter((_, i) => i % Math.ceil(ticks.length / count) === 0);
  return ticks.length > 0 ? ticks : [lo, hi];
}

/**
 * A scale from `domain` to `range`. `log` maps log10 (the domain must be positive); `pad` widens the
 * domain by that fraction on each side, in the mapped space.
 */
export function scale(
  domain: readonly [number, number],
  range: readonly [number, number],
  options: { log?: boolean; pad?: number } = {},
): Scale {
  const log = options.log === true && domain[0] > 0 && domain[1] > 0;
  const forward = (v: number) => (log ? Math.log10(v) : v);
  const back = (v: number) => (log ? 10 ** v : v);
  let lo = forward(Math.min(domain[0], domain[1]));
  let hi = forward(Math.max(domain[0], domain[1]));
  if (!(hi > lo)) {
    const spread = log ? 0.05 : Math.abs(lo) * 0.05 || 1;
    lo -= spread;
    hi += spread;
  }
  const pad = (hi - lo) * (options.pad ?? 0);
  lo -= pad;
  hi += pad;
  const [r0, r1] = range;
  const map = ((value: number) => {
    // On a log axis a value at or below zero (an ITL gap of 0 ms) is drawn at the left edge.
    const v = log ? Math.log10(Math.max(value, 10 ** lo)) : value;
    return r0 + ((v - lo) / (hi - lo)) * (r1 - r0);
  }) as Scale;
  const shownDomain: [number, number] = [back(lo), back(hi)];
  return Object.assign(map, {
    domain: shownDomain,
    log,
    ticks: (count = 5) =>
      log
        ? logTicks(shownDomain[0], shownDomain[1], count)
        : linearTicks(shownDomain[0], shownDomain[1], count),
  });
}

/** A tick label: "0.5", "12", "1.2k", "3M". */
export function tickLabel(value: number): string {
  const abs = Math.abs(value);
  const trim = (v: number) => String(Number(v.toPrecision(3)));
  if (abs >= 1e6) return `${trim(value / 1e6)}M`;
  if (abs >= 1e4) return `${trim(value / 1e3)}k`;
  return trim(value);
}

/** A horizontal axis at `y` with ticks, grid lines up to `gridTop` and a caption. */
export function xAxis(x: Scale, y: number, gridTop: number, caption: string, format = tickLabel): string {
  const parts: string[] = [];
  const [left, right] = [x(x.domain[0]), x(x.domain[1])];
  parts.push(el("line", { x1: left, y1: y, x2: right, y2: y, class: "axis" }));
  for (const tick of x.ticks(6)) {
    const px = x(tick);
    parts.push(el("line", { x1: px, y1: gridTop, x2: px, y2: y, class: "grid" }));
    parts.push(el("text", { x: px, y: y + 13, "text-anchor": "middle", class: "tick" }, text(format(tick))));
  }
  parts.push(
    el(
      "text",
      { x: (left + right) / 2, y: y + 28, "text-anchor": "middle", class: "caption" },
      text(caption),
    ),
  );
  return parts.join("");
}

/** A vertical axis at `x0` with ticks and grid lines to `gridRight`. */
export function yAxis(y: Scale, x0: number, gridRight: number, caption: string, format = tickLabel): string {
  const parts: string[] = [];
  const [bottom, top] = [y(y.domain[0]), y(y.domain[1])];
  parts.push(el("line", { x1: x0, y1: bottom, x2: x0, y2: top, class: "axis" }));
  for (const tick of y.ticks(4)) {
    const py = y(tick);
    parts.push(el("line", { x1: x0, y1: py, x2: gridRight, y2: py, class: "grid" }));
    parts.push(el("text", { x: x0 - 4, y: py + 3, "text-anchor": "end", class: "tick" }, text(format(tick))));
  }
  parts.push(
    el(
      "text",
      {
        x: x0 - 38,
        y: (bottom + top) / 2,
        "text-anchor": "middle",
        transform: `rotate(-90 ${num(x0 - 38)} ${num((bottom + top) / 2)})`,
        class: "caption",
      },
      text(caption),
    ),
  );
  return parts.join("");
}

/** A polyline through the points (already in pixels). */
export function polyline(points: readonly (readonly [number, number])[], className: string): string {
  if (points.length === 0) return "";
  return el("polyline", {
    points: points.map(([x, y]) => `${num(x)},${num(y)}`).join(" "),
    class: className,
  });
}

/** The style every chart carries, so a chart file opened alone looks like the one in the page. */
export const chartStyle = [
  "svg{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:11px;background:#fff}",
  ".axis{stroke:#555;stroke-width:1}",
  ".grid{stroke:#e3e3e3;stroke-width:1}",
  ".tick{fill:#555;font-size:10px}",
  ".caption{fill:#333;font-size:11px}",
  ".title{fill:#111;font-size:12px;font-weight:600}",
  ".note{fill:#666;font-size:10px}",
  ".band{fill:#dff0d8}",
  ".band-edge{stroke:#5cb85c;stroke-width:1;stroke-dasharray:3 2}",
  ".baseline{fill:#4c78a8;stroke:#4c78a8}",
  ".candidate{fill:#f58518;stroke:#f58518}",
  ".excluded{fill:none;stroke:#999;stroke-width:1.2}",
  ".mean{stroke:#111;stroke-width:2}",
  ".interval{stroke:#111;stroke-width:3}",
  ".interval-regression{stroke:#c9302c;stroke-width:3}",
  ".interval-improvement{stroke:#2e7d32;stroke-width:3}",
  ".line-baseline{fill:none;stroke:#4c78a8;stroke-width:1.6}",
  ".line-candidate{fill:none;stroke:#f58518;stroke-width:1.6}",
  ".line-p99{fill:none;stroke:#c9302c;stroke-width:1.2}",
  ".line-p50{fill:none;stroke:#6a3d9a;stroke-width:1.2}",
  ".line-running{fill:none;stroke:#4c78a8;stroke-width:1.4}",
  ".line-waiting{fill:none;stroke:#e45756;stroke-width:1.4}",
  ".line-kv{fill:none;stroke:#54a24b;stroke-width:1.4}",
  ".dot-ttft{fill:#f58518;fill-opacity:0.45;stroke:none}",
  ".preemption{stroke:#c9302c;stroke-width:1;stroke-dasharray:2 2}",
  ".legend{fill:#333;font-size:10px}",
].join("");

/**
 * A whole SVG document: size, accessible title, the shared style, then the body. `standalone` (an .svg
 * file) adds the SVG namespace, which a file needs and an inline <svg> in HTML does not: the page then
 * holds no URL at all.
 */
export function svgDocument(
  width: number,
  height: number,
  label: string,
  body: string,
  standalone: boolean,
): string {
  const ns = standalone ? ' xmlns="http://www.w3.org/2000/svg"' : "";
  return (
    `<svg${ns} width="${num(width)}" height="${num(height)}" viewBox="0 0 ${num(width)} ${num(height)}" role="img" aria-label="${escapeHtml(label, 200)}">` +
    `<title>${text(label, 200)}</title><style>${chartStyle}</style>${body}</svg>`
  );
}

/** A small legend from left to right at (x, y): a square for marks, a short line for lines. */
export function legend(
  x: number,
  y: number,
  entries: readonly { className: string; label: string; line?: boolean }[],
): string {
  let at = x;
  const parts: string[] = [];
  for (const entry of entries) {
    parts.push(
      entry.line
        ? el("line", { x1: at, y1: y - 3, x2: at + 10, y2: y - 3, class: entry.className })
        : el("rect", { x: at, y: y - 8, width: 10, height: 10, class: entry.className }),
    );
    parts.push(el("text", { x: at + 14, y: y + 1, class: "legend" }, text(entry.label, 60)));
    at += 24 + entry.label.length * 5.6;
  }
  return parts.join("");
}
