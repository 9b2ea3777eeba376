import type { Comparison, OverallVerdict, VerdictFile } from "../compare/verdict-schema.js";
import { describeMetric } from "../config/metric-names.js";
import { capacitySentence } from "./capacity.js";
import {
  describeMetricRef,
  formatChange,
  formatInterval,
  formatMetricValue,
  formatSignedNumber,
} from "./format.js";
import { formatDetectable, settleSentence } from "./markdown.js";
import { qualityTerminalLines } from "./quality.js";

/** The `compare` summary for a terminal: colour on a TTY, plain text otherwise (logs, CI). */

const ansi = { red: 31, green: 32, yellow: 33, magenta: 35, bold: 1, dim: 2 } as const;
type Style = keyof typeof ansi;

/** Control characters from outside strings would move the cursor or recolour the terminal. */
function clean(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
}

const verdictStyle: Record<OverallVerdict, Style> = {
  pass: "green",
  regression: "red",
  inconclusive: "yellow",
  "not-comparable": "magenta",
  error: "red",
};

const metricStyle: Record<Comparison["verdict"], Style | null> = {
  regression: "red",
  improvement: "green",
  "within-tolerance": null,
  inconclusive: "yellow",
};

export function renderTerminal(verdict: VerdictFile, { color }: { color: boolean }): string {
  const paint = (style: Style | null, text: string) =>
    color && style ? `\u001b[${ansi[style]}m${text}\u001b[0m` : text;
  const lines: string[] = [];
  lines.push(
    paint("bold", paint(verdictStyle[verdict.verdict], `vllm-perf-gate: ${verdict.verdict.toUpperCase()}`)),
  );
  lines.push(clean(verdict.headline));
  if (verdict.nextLook) {
    const n = verdict.nextLook;
    lines.push(
      paint(
        "yellow",
        `More runs needed: ${n.runsPerSide} per side (add ${n.addCandidateRuns} candidate, ${n.addBaselineRuns} baseline; ${n.gpuMinutes === undefined ? "" : `about ${Math.round(n.gpuMinutes)} GPU-minutes`}): ${clean(n.reason)}`,
      ),
    );
  }
  const settle = settleSentence(verdict);
  if (settle) lines.push(paint("yellow", settle));
  for (const mixed of verdict.mixed) {
    const names = (metrics: string[]) => metrics.map((ref) => clean(describeMetricRef(ref))).join(", ");
    lines.push(
      paint(
        "yellow",
        `Mixed result in ${clean(mixed.cell)}: better ${names(mixed.better)}; worse ${names(mixed.worse)}`,
      ),
    );
  }
  for (const check of verdict.capacity ?? [])
    lines.push(`Capacity ${clean(check.cell)}: ${check.verdict}. ${clean(capacitySentence(check))}`);
  for (const impact of verdict.impact) {
    const parts: string[] = [];
    if (impact.successfulPerHour)
      parts.push(`${formatSignedNumber(impact.successfulPerHour.change, "")} successful req/h`);
    if (impact.ttftP95Ms) parts.push(`TTFT p95 ${formatSignedNumber(impact.ttftP95Ms.change, " ms")}`);
    if (impact.e2elP95Ms) parts.push(`E2E p95 ${formatSignedNumber(impact.e2elP95Ms.change, " ms")}`);
    if (parts.length > 0) lines.push(`  ${clean(impact.cell)}: ${parts.join(", ")}`);
  }
  lines.push("");
  const rows = verdict.comparisons
    .filter((c) => c.gated)
    .map((c) => [
      clean(c.cell),
      describeMetric(c.metric),
      formatMetricValue(c.metric, c.baseline),
      formatMetricValue(c.metric, c.candidate),
      formatChange(c.ratio),
      formatInterval(c.ci),
      formatDetectable(c),
      c.verdict.replace("-", " "),
    ]);
  const header = [
    "cell",
    "metric",
    "baseline",
    "candidate",
    "change",
    "decision interval",
    "detectable",
    "verdict",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const format = (r: string[]) =>
    r
      .map((v, i) => v.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  lines.push(paint("dim", format(header)));
  verdict.comparisons
    .filter((c) => c.gated)
    .forEach((c, i) => {
      lines.push(paint(metricStyle[c.verdict], format(rows[i]!)));
    });
  const quality = qualityTerminalLines(verdict, clean);
  if (quality.length > 0) lines.push("", ...quality);
  const bars = intervalBars(verdict, { unicode: color });
  if (bars.length > 0) {
    lines.push("");
    lines.push(paint("dim", bars[0]!));
    verdict.comparisons
      .filter((c) => c.gated && c.ci !== null)
      .forEach((c, i) => {
        lines.push(paint(metricStyle[c.verdict], bars[i + 1]!));
      });
  }
  const excluded = verdict.runs.excluded.length;
  lines.push("");
  lines.push(
    `mode: ${verdict.mode}; runs used: ${verdict.runs.used.length}; excluded: ${excluded}; condition differences: ${verdict.fingerprints.differences.length}`,
  );
  for (const warning of verdict.warnings) lines.push(paint("yellow", `warning: ${clean(warning)}`));
  return `${lines.join("\n")}\n`;
}

/** Characters of one interval bar. */
export const intervalBarWidth = 41;

/**
 * The terminal's picture of the decision: per gated check with an interval, one line with the interval
 * as worsening (right is worse, for throughputs too) on a scale shared by all lines, the tolerance
 * edges and the point estimate. Plain ASCII unless `unicode` (a TTY). The first line is the legend.
 */
export function intervalBars(verdict: VerdictFile, { unicode }: { unicode: boolean }): string[] {
  const checks = verdict.comparisons.filter((c) => c.gated && c.ci !== null);
  if (checks.length === 0) return [];
  const worse = (c: Comparison, ratio: number) => (c.higherIsBetter ? 1 / ratio : ratio) - 1;
  const glyph = unicode
    ? { back: "·", zero: "┊", edge: "┃", fill: "━", point: "●", left: "◀", right: "▶" }
    : { back: "-", zero: ":", edge: "|", fill: "=", point: "#", left: "<", right: ">" };
  const maxTolerance = Math.max(...checks.map((c) => c.tolerance));
  const reach = Math.max(
    2 * maxTolerance,
    ...checks.flatMap((c) => c.ci!.map((end) => Math.abs(worse(c, end)))),
  );
  const range = Math.min(reach, 5 * maxTolerance);
  const half = (intervalBarWidth - 1) / 2;
  const column = (value: number) =>
    Math.round(half + (Math.max(-range, Math.min(range, value)) / range) * half);
  const labels = checks.map((c) => `${clean(c.cell)} ${describeMetric(c.metric)}`);
  const labelWidth = Math.max(...labels.map((l) => l.length));
  const scale = `${formatChange(1 - range)}`.padEnd(half) + "0".padEnd(half) + formatChange(1 + range);
  const lines = [
    `${"decision interval vs tolerance".padEnd(labelWidth)}  ${scale.slice(0, intervalBarWidth + 8)}  (right is worse; ${glyph.edge} tolerance, ${glyph.point} estimate)`,
  ];
  checks.forEach((c, i) => {
    const chars = Array.from({ length: intervalBarWidth }, () => glyph.back);
    chars[column(0)] = glyph.zero;
    const ends = c.ci!.map((end) => worse(c, end)).sort((a, b) => a - b) as [number, number];
    const [from, to] = [column(ends[0]), column(ends[1])];
    for (let k = from; k <= to; k++) chars[k] = glyph.fill;
    // The band is symmetric on the log scale: ratio 1 + δ on the worse side, 1 / (1 + δ) on the better.
    chars[column(1 / (1 + c.tolerance) - 1)] = glyph.edge;
    chars[column(c.tolerance)] = glyph.edge;
    if (c.ratio !== null) chars[column(worse(c, c.ratio))] = glyph.point;
    if (ends[0] < -range) chars[0] = glyph.left;
    if (ends[1] > range) chars[intervalBarWidth - 1] = glyph.right;
    lines.push(`${labels[i]!.padEnd(labelWidth)}  ${chars.join("")}  ${formatInterval(c.ci)}`);
  });
  return lines;
}
