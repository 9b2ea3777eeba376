import { describeMetric, type MetricName, metricSpecs } from "../../config/metric-names.js";
import type { Comparison, FamilyFinding, OverallVerdict, VerdictFile } from "./verdict-schema.js";

/** The parts of the verdict written for people: headline, mixed results, impact at this load. */

/** "1 regressed, 0 improved, ... of 9 gated checks": the counts the headline ends with, in brackets. */
export function tallyOf(counts: VerdictFile["counts"]): string {
  return `${counts.regression} regressed, ${counts.improvement} improved, ${counts.withinTolerance} within tolerance, ${counts.inconclusive} inconclusive of ${counts.gated} gated checks`;
}

export function headlineFor(
  verdict: OverallVerdict,
  counts: VerdictFile["counts"],
  comparisons: readonly Comparison[],
  brokenCells: number,
  notComparable: number,
): string {
  const tally = tallyOf(counts);
  switch (verdict) {
    case "pass":
      return `Pass: no gated metric got worse beyond tolerance (${tally})`;
    case "regression": {
      const worst = comparisons.filter((c) => c.gated && c.verdict === "regression").length;
      return `Regression: ${worst} gated check${worst === 1 ? "" : "s"} got worse beyond tolerance (${tally})`;
    }
    case "inconclusive":
      return `Inconclusive: the runs cannot yet tell a change within tolerance from a regression (${tally})`;
    case "not-comparable":
      return `Not comparable: ${notComparable} condition${notComparable === 1 ? " differs" : "s differ"} between baseline and candidate outside the allowed differences`;
    case "error":
      return brokenCells > 0
        ? `Error: ${brokenCells} cell${brokenCells === 1 ? " has" : "s have"} no usable runs on one side`
        : "Error: nothing could be compared";
  }
}

/** "TTFT p95 across the 6 rag cells +10.2%": a family test's finding in words (docs/compare.md, "Family tests"). */
function familyFindingWords(finding: Pick<FamilyFinding, "family" | "metric" | "cells" | "ratio">): string {
  const change = (finding.ratio - 1) * 100;
  return `${describeMetric(finding.metric)} across the ${finding.cells.length} ${finding.family} cells ${change >= 0 ? "+" : "−"}${Math.abs(change).toFixed(1)}%`;
}

/**
 * The headline when family tests found a regression: said after the single checks' regressions, or in
 * place of the headline when no single check is one (the verdict is a regression because of them).
 */
export function withFamilyHeadline(
  headline: string,
  speedVerdict: OverallVerdict,
  familyRegressions: readonly Pick<FamilyFinding, "family" | "metric" | "cells" | "ratio">[],
  counts: VerdictFile["counts"],
): string {
  if (familyRegressions.length === 0 || speedVerdict === "not-comparable") return headline;
  const found = `${familyRegressions.map(familyFindingWords).join("; ")} on average, beyond tolerance`;
  const tally = ` (${tallyOf(counts)})`;
  if (speedVerdict === "regression") {
    const said = headline.endsWith(tally) ? headline.slice(0, -tally.length) : headline;
    return `${said}; ${found}${tally}`;
  }
  return `Regression: ${found}${tally}`;
}

/**
 * A cell is mixed when one phase got better and another worse. At least one side must be a verdict
 * (beyond tolerance); the other may be a significant change within tolerance, as in the FP8 KV-cache
 * case (throughput +2-5%, median TTFT +7-11%).
 */
export function mixedResults(comparisons: readonly Comparison[], alpha: number): VerdictFile["mixed"] {
  const byCell = new Map<string, { better: string[]; worse: string[]; decisive: boolean }>();
  for (const c of comparisons) {
    if (!metricSpecs[c.metric].mixed || c.ratio === null || c.pChange === null) continue;
    const decisive = c.verdict === "improvement" || c.verdict === "regression";
    // Within tolerance but significantly moved (against 0) counts as the other side of a mix.
    if (!decisive && c.pChange > alpha) continue;
    const worse = c.higherIsBetter ? c.ratio < 1 : c.ratio > 1;
    const entry = byCell.get(c.cell) ?? { better: [], worse: [], decisive: false };
    (worse ? entry.worse : entry.better).push(c.metric);
    entry.decisive ||= decisive;
    byCell.set(c.cell, entry);
  }
  const perCell = [...byCell.entries()]
    .filter(([, entry]) => entry.decisive && entry.better.length > 0 && entry.worse.length > 0)
    .map(([cell, { better, worse }]) => ({ cell, better, worse }));
  // Across cells: a change that makes long outputs faster and first tokens later shows up as an
  // improvement in one cell and a regression in another; a reader must see both together.
  const decided = (verdict: Comparison["verdict"]) =>
    comparisons
      .filter((c) => metricSpecs[c.metric].mixed && c.verdict === verdict)
      .map((c) => `${c.cell}/${c.metric}`);
  const better = decided("improvement");
  const worse = decided("regression");
  const coveredByOneCell =
    perCell.length > 0 && better.every((ref) => perCell.some((m) => ref.startsWith(`${m.cell}/`)));
  if (better.length > 0 && worse.length > 0 && !coveredByOneCell) {
    perCell.push({ cell: acrossCells, better, worse });
  }
  return perCell;
}

/** The `cell` of a mixed entry that spans cells; its metrics are written `cell/metric`. */
const acrossCells = "(across cells)";

/** The comparison behind each figure of verdict.json's `impact`. */
const impactMetrics = {
  successfulPerHour: "request_throughput",
  ttftP95Ms: "ttft_p95",
  e2elP95Ms: "e2el_p95",
} as const satisfies Record<Exclude<keyof VerdictFile["impact"][number], "cell">, MetricName>;

export function impactOf(
  cells: VerdictFile["cells"],
  comparisons: readonly Comparison[],
): VerdictFile["impact"] {
  const find = (cell: string, metric: MetricName) => {
    const c = comparisons.find((comparison) => comparison.cell === cell && comparison.metric === metric);
    return c && c.baseline !== null && c.candidate !== null
      ? { baseline: c.baseline, candidate: c.candidate }
      : null;
  };
  const withChange = (pair: { baseline: number; candidate: number } | null, scale = 1) =>
    pair
      ? {
          baseline: pair.baseline * scale,
          candidate: pair.candidate * scale,
          change: (pair.candidate - pair.baseline) * scale,
        }
      : null;
  return cells
    .filter((cell) => cell.status === "compared" || cell.status === "too-few-runs")
    .map((cell) => ({
      cell: cell.name,
      // request_throughput counts completed (successful) requests per second, as vLLM's does.
      successfulPerHour: withChange(find(cell.name, impactMetrics.successfulPerHour), 3600),
      ttftP95Ms: withChange(find(cell.name, impactMetrics.ttftP95Ms)),
      e2elP95Ms: withChange(find(cell.name, impactMetrics.e2elP95Ms)),
    }));
}
