import type { TopLevelSpec } from "vega-lite";
import { largest, smallest } from "../../util/extremes.js";
import { escapeHtml } from "../escape.js";

/**
 * Vega and Vega-Lite (about 4 MB of the bundle) are loaded on the first chart drawn, not with the
 * module: a command that draws no chart (`--version`, `validate`, `run`) never parses them.
 */
let libraries: Promise<[typeof import("vega"), typeof import("vega-lite")]> | null = null;
function chartLibraries(): Promise<[typeof import("vega"), typeof import("vega-lite")]> {
  libraries ??= Promise.all([import("vega"), import("vega-lite")]);
  return libraries;
}

/**
 * Renders a Vega-Lite spec to a static SVG string with Vega's headless renderer (`renderer: "none"`:
 * no DOM, no canvas, no browser; text widths are estimated). The charts' data goes in as inline values
 * only: the spec never names a URL, and Vega's loader is given none to fetch. Deterministic: no time,
 * no randomness in the specs, and the SVG renderer's id counters are reset before every chart (the
 * specs use no clip paths or gradients, so the output carries no ids at all; `assertNoIds` checks).
 *
 * Vega's SVG renderer escapes text content and attribute values itself (`&`, `<`, `>`, `"`); outside
 * strings reach the spec only as titles and data values, never as field names or expressions, and were
 * redacted before (compare redacts the verdict the pictures are drawn from).
 */

/** The look every chart shares: the page's font, white background, muted guides. */
const chartConfig = {
  background: "#ffffff",
  font: "system-ui, -apple-system, 'Segoe UI', sans-serif",
  padding: 8,
  view: { stroke: null },
  title: { anchor: "start", fontSize: 12, subtitleFontSize: 10, subtitleColor: "#555", offset: 8 },
  axis: { labelFontSize: 10, titleFontSize: 11, titleFontWeight: "normal", gridColor: "#e3e3e3" },
  legend: {
    labelFontSize: 10,
    titleFontSize: 10,
    orient: "bottom",
    direction: "horizontal",
    symbolOpacity: 1,
  },
} as const;

/**
 * What every chart's spec shares: the schema, the house config, and its title (also its accessible name,
 * `description`) with the subtitle lines, both allowed `titleWidth` pixels; `body` is the rest.
 */
export function chartSpec(
  title: string,
  subtitle: string | readonly string[] | null,
  titleWidth: number,
  body: Record<string, unknown>,
): TopLevelSpec {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    config: chartConfig,
    description: title,
    title:
      subtitle === null
        ? { text: title, limit: titleWidth }
        : { text: title, subtitle, limit: titleWidth, subtitleLimit: titleWidth },
    ...body,
  } as unknown as TopLevelSpec;
}

const svgNamespace = ' xmlns="http://www.w3.org/2000/svg"';
const xlinkNamespace = ' xmlns:xlink="http://www.w3.org/1999/xlink"';

/** Colours of the two sides, as in the terminal and the comment's legend. */
export const sideColors = { baseline: "#4c78a8", candidate: "#f58518" } as const;

/**
 * The chart as an SVG document. `standalone` (an .svg file) keeps the SVG namespace a file needs; an
 * inline <svg> in HTML needs none, so the page holds no URL at all. The xlink namespace is dropped in
 * both (the charts draw no images or links, which are the only users of it).
 */
export async function renderVegaLite(spec: TopLevelSpec, standalone: boolean): Promise<string> {
  // Quiet: compare --format html prints the page on stdout, and a warning is a spec bug the chart
  // tests catch through `specWarnings`, not something a user can act on.
  const [{ parse, resetSVGDefIds, View }, { compile }] = await chartLibraries();
  const { spec: vegaSpec } = compile(spec, { logger: collectingLogger([]) as never });
  resetSVGDefIds();
  const view = new View(parse(vegaSpec), { renderer: "none", logLevel: 0 });
  try {
    const svg = await view.toSVG();
    assertNoIds(svg);
    const plain = withTitle(svg.replace(xlinkNamespace, ""), spec.description);
    return standalone ? plain : plain.replace(svgNamespace, "");
  } finally {
    view.finalize();
  }
}

/**
 * The chart's name as the SVG's first child <title> (its accessible name, and what a file viewer or a
 * hover over the chart shows): Vega writes none. Escaped by the report's escaper.
 */
function withTitle(svg: string, description: string | undefined): string {
  if (!description) return svg;
  const end = svg.indexOf(">");
  if (!svg.startsWith("<svg") || end < 0) throw new Error("internal: Vega's SVG does not start with <svg>");
  return `${svg.slice(0, end + 1)}<title>${escapeHtml(description, 200)}</title>${svg.slice(end + 1)}`;
}

/** A Vega-Lite logger that keeps warnings and errors in `into` instead of printing them. */
function collectingLogger(into: string[]) {
  let level = 0;
  const logger = {
    level(value?: number) {
      if (value === undefined) return level;
      level = value;
      return logger;
    },
    error(...args: readonly unknown[]) {
      into.push(`error: ${args.join(" ")}`);
      return logger;
    },
    warn(...args: readonly unknown[]) {
      into.push(`warn: ${args.join(" ")}`);
      return logger;
    },
    info() {
      return logger;
    },
    debug() {
      return logger;
    },
  };
  return logger;
}

/** What Vega-Lite warns about when compiling `spec` (empty for every spec we build; tests check). */
export async function specWarnings(spec: TopLevelSpec): Promise<string[]> {
  const [, { compile }] = await chartLibraries();
  const warnings: string[] = [];
  compile(spec, { logger: collectingLogger(warnings) as never });
  return warnings;
}

/** Ids would collide between the charts inlined in one page and change with render order. */
function assertNoIds(svg: string): void {
  if (/\sid="/.test(svg) || /xlink:href|url\(/.test(svg))
    throw new Error("internal: a chart spec made Vega emit an id or a reference (clip, gradient or link)");
}

/** A padded [lo, hi] domain; on a log axis the padding is a fraction of the decades. */
export function paddedDomain(lo: number, hi: number, log: boolean, pad: number): [number, number] {
  if (log) {
    let a = Math.log10(lo);
    let b = Math.log10(hi);
    if (!(b > a)) {
      a -= 0.05;
      b += 0.05;
    }
    const d = (b - a) * pad;
    return [10 ** (a - d), 10 ** (b + d)];
  }
  let a = lo;
  let b = hi;
  if (!(b > a)) {
    const spread = Math.abs(a) * 0.05 || 1;
    a -= spread;
    b += spread;
  }
  const d = (b - a) * pad;
  return [a - d, b + d];
}

/**
 * The value axis of a chart of latencies or rates: log from the smallest to the largest value (padded by
 * `logPad`) when asked and every value is positive, else linear from 0. Says which it chose.
 */
export function valueAxisDomain(
  values: readonly number[],
  wantLog: boolean,
  logPad: number,
): { log: boolean; domain: [number, number] } {
  const log = wantLog && values.length > 0 && values.every((v) => v > 0);
  if (log) return { log, domain: paddedDomain(smallest(values), largest(values), true, logPad) };
  const domain = paddedDomain(0, Math.max(largest(values), 1e-9), false, 0.05);
  domain[0] = 0;
  return { log, domain };
}
