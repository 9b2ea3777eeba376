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
  const excluded = verdict.runs.excluded.length;
  lines.push("");
  lines.push(
    `mode: ${verdict.mode}; runs used: ${verdict.runs.used.length}; excluded: ${excluded}; condition differences: ${verdict.fingerprints.differences.length}`,
  );
  for (const warning of verdict.warnings) lines.push(paint("yellow", `warning: ${clean(warning)}`));
  return `${lines.join("\n")}\n`;
}
