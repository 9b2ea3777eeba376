import type { TopLevelSpec } from "vega-lite";
import type { TaskCheck } from "../../compare/verdict/quality-schema.js";
import { formatFractionAsPercent } from "../format.js";
import { chartSpec, renderVegaLite, sideColors } from "./vega.js";

/**
 * The task-accuracy checks (docs/quality.md): per tasks cell and side, the accuracy as a dot with its
 * Wilson interval, on a 0–100% axis. The candidate fails when it is worse by more than the tolerance in
 * points (the exact McNemar test in the subtitle).
 */

const width = 420;

function accuracySpec(checks: readonly TaskCheck[]): TopLevelSpec {
  const rows = checks.flatMap((check) =>
    (["baseline", "candidate"] as const).map((side) => ({
      row: `${check.cell} ${side}`,
      side,
      accuracy: check[side].accuracy,
      lo: check[side].wilson[0],
      hi: check[side].wilson[1],
      label: `${check.cell} ${side}: ${check[side].correct} of ${check.prompts} correct (${formatFractionAsPercent(check[side].accuracy)}), Wilson ${formatFractionAsPercent(check[side].wilson[0])} to ${formatFractionAsPercent(check[side].wilson[1])}`,
    })),
  );
  const level = checks[0] ? formatFractionAsPercent(checks[0].confidence) : "";
  const title = "Task accuracy per side";
  // The verdicts, counts and p-values are in the page's table beside the chart.
  const subtitle = "dot: accuracy · line: its Wilson interval";
  const y = {
    field: "row",
    type: "nominal" as const,
    sort: null,
    axis: { title: null, labelFontSize: 11, labelLimit: 200 },
  };
  const x = {
    type: "quantitative" as const,
    scale: { domain: [0, 1], nice: false },
    axis: { title: `accuracy with ${level} Wilson interval`, format: ".0%", grid: true },
  };
  const color = {
    field: "side",
    type: "nominal" as const,
    scale: { domain: ["baseline", "candidate"], range: [sideColors.baseline, sideColors.candidate] },
    legend: { title: null, symbolType: "circle" },
  };
  return chartSpec(title, subtitle, width + 200, {
    width,
    height: Math.max(40, rows.length * 22),
    layer: [
      {
        name: "wilson",
        data: { values: rows },
        mark: { type: "rule", strokeWidth: 2 },
        encoding: { x: { ...x, field: "lo" }, x2: { field: "hi" }, y, color },
      },
      {
        name: "accuracy",
        data: { values: rows },
        mark: { type: "point", filled: true, size: 60, opacity: 1 },
        encoding: { x: { ...x, field: "accuracy" }, y, color, description: { field: "label" } },
      },
    ],
  });
}

export function accuracyChart(
  checks: readonly TaskCheck[],
  options: { standalone?: boolean } = {},
): Promise<string> {
  return renderVegaLite(accuracySpec(checks), options.standalone ?? false);
}
