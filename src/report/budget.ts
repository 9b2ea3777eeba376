import type { Comparison, VerdictFile } from "../compare/verdict/verdict-schema.js";
import { type Alternation, alternationWords } from "../config/alternation.js";
import { describeMetric, type MetricName } from "../config/metric-names.js";
import type { BudgetPlan as PlanOf } from "../stats/budget-plan.js";

type BudgetPlan = PlanOf<Alternation>;

/**
 * What a budget buys, in words (docs/action.md, "Choosing a budget"): the plan `run` and validate print,
 * validate --budget's table, and the first screen's line of what was spent and what it could catch.
 */

const minutes = (value: number) =>
  value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString("en-US");
const percent = (fraction: number) => `+${(fraction * 100).toFixed(fraction < 0.1 ? 1 : 0)}%`;
const label = (metric: string) => describeMetric(metric as MetricName);

/** "5 runs a side in starts of 2", "3 runs a side, each run on a start of its own". */
function runsAndStarts(plan: BudgetPlan): string {
  const runs = `${plan.runsPerSide} runs a side`;
  return plan.schedule.startEachGroup
    ? `${runs}, ${alternationWords(plan.schedule)}`
    : `${runs} ${alternationWords(plan.schedule)}`;
}

/** The plan of a budget: its runs, starts and cost, and the checks it decides or cannot. */
export function budgetPlanLines(
  plan: BudgetPlan,
  detectChange: number,
  toDecide: ReadonlyMap<string, number | null>,
): string[] {
  const sizes = plan.cells
    .filter((cell) => cell.requests !== null)
    .map((cell) => `${cell.name} ${cell.requests}`)
    .join(", ");
  const lines = [
    `budget ${minutes(plan.budgetMinutes)} GPU-minutes (gate.budget_gpu_minutes): ${runsAndStarts(plan)}, ${plan.serverStarts} server starts, about ${minutes(plan.gpuMinutes)} GPU-minutes; requests per run: ${sizes || "fixed-length runs"}`,
    `  decides ${plan.decided} of ${plan.checks} gated checks at ${percent(detectChange)} (gate.detect_change)`,
  ];
  const undecided = plan.cells.flatMap((cell) =>
    cell.checks.filter((check) => !check.decided).map((check) => ({ cell: cell.name, check })),
  );
  for (const { cell, check } of undecided) {
    const needed = toDecide.get(`${cell}\u0000${check.metric}`) ?? null;
    lines.push(
      `  not decidable at this budget: ${label(check.metric)} in ${cell} catches only ${percent(check.detectable)}; ${needed === null ? "no budget within 40 runs a side decides it" : `about ${minutes(needed)} GPU-minutes would`}`,
    );
  }
  return lines;
}

/** validate --budget: per cell, what deciding it costs and what the budget catches in it; the set it decides. */
export function budgetOverviewLines(overview: {
  budgetMinutes: number;
  rows: readonly {
    cell: string;
    atTolerance: number;
    atDetectChange: number | null;
    detectable: ReadonlyMap<string, number> | null;
  }[];
  affordable: { cells: readonly string[]; plan: BudgetPlan | null };
  whole: BudgetPlan | string;
  detectChange: number;
  metrics: readonly string[];
}): string[] {
  const lines = [
    `budget ${minutes(overview.budgetMinutes)} GPU-minutes per pull request (interleaved, both sides; each cell alone):`,
    `  | cell | GPU-min to decide a clean PR (tolerance) | GPU-min to catch ${percent(overview.detectChange)} in every check | ${overview.metrics.map((m) => `${label(m)} caught at the budget`).join(" | ")} |`,
  ];
  for (const row of overview.rows) {
    const caught = overview.metrics.map((metric) => {
      const value = row.detectable?.get(metric);
      return value === undefined ? "–" : percent(value);
    });
    lines.push(
      `  | ${row.cell} | ${minutes(row.atTolerance)} | ${row.atDetectChange === null ? "not within 40 runs" : minutes(row.atDetectChange)} | ${caught.join(" | ")} |`,
    );
  }
  const set = overview.affordable;
  lines.push(
    set.plan === null
      ? `  a budget of ${minutes(overview.budgetMinutes)} GPU-minutes decides every check of no cell: raise it, or widen gate.detect_change`
      : `  a budget of ${minutes(overview.budgetMinutes)} GPU-minutes decides every check of: ${set.cells.join(", ")} (together about ${minutes(set.plan.gpuMinutes)} GPU-minutes, ${runsAndStarts(set.plan)}): a PR tier (the action's \`cells\`)`,
  );
  lines.push(
    typeof overview.whole === "string"
      ? `  every cell together: ${overview.whole}`
      : `  every cell together: decides ${overview.whole.decided} of ${overview.whole.checks} checks for about ${minutes(overview.whole.gpuMinutes)} GPU-minutes, ${runsAndStarts(overview.whole)}`,
  );
  return lines;
}

/** The checks by metric: which catch detect_change, which only more. */
function caughtByMetric(comparisons: readonly Comparison[], detectChange: number): string[] {
  const gated = comparisons.filter((c) => c.gated && c.detectableChange !== null);
  const metrics = [...new Set(gated.map((c) => c.metric))];
  const caught: string[] = [];
  const short: string[] = [];
  const cellCount = new Set(gated.map((c) => c.cell)).size;
  for (const metric of metrics) {
    const checks = gated.filter((c) => c.metric === metric);
    const fine = checks.filter((c) => c.detectableChange! <= detectChange);
    if (fine.length === checks.length)
      caught.push(`${label(metric)}${cellCount > 1 ? " in every cell" : ""}`);
    else if (fine.length > 0) caught.push(`${label(metric)} in ${fine.map((c) => c.cell).join(", ")}`);
    for (const c of checks.filter((check) => check.detectableChange! > detectChange))
      short.push(`${label(metric)} in ${c.cell} only ${percent(c.detectableChange!)}`);
  }
  const parts: string[] = [];
  if (caught.length > 0) parts.push(`${joinWords(caught)} would have caught ${percent(detectChange)}`);
  parts.push(...short);
  return parts;
}

function joinWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/**
 * The first screen's line under a budget: "spent 52 of 60 GPU-minutes; throughput … would have caught
 * +10%; TTFT p95 in rag-fresh-usual only +19%". Null without a budget.
 */
export function budgetSpentLine(verdict: VerdictFile): string | null {
  const budget = verdict.budget;
  if (!budget) return null;
  const parts = [
    `spent ${minutes(budget.spentGpuMinutes)} of ${minutes(budget.limitGpuMinutes)} GPU-minutes`,
    ...caughtByMetric(verdict.comparisons, verdict.settings.detectChange),
  ];
  const undecided = verdict.comparisons.filter(
    (c) => c.gated && c.verdict === "inconclusive" && c.budget?.decidable === false,
  );
  if (undecided.length > 0) {
    const needed = undecided
      .map((c) => c.budget?.gpuMinutesToDecide)
      .filter((m): m is number => typeof m === "number");
    parts.push(
      `not decidable at this budget: ${undecided.length} ${undecided.length === 1 ? "check" : "checks"}${needed.length > 0 ? ` (about ${minutes(Math.max(...needed))} GPU-minutes would decide ${undecided.length === 1 ? "it" : "them"})` : ""}`,
    );
  }
  return parts.join("; ");
}

/** A block the budget left out: what it would have cost and what was spent. */
export function budgetCutWarning(limit: number, spent: number, planned: number): string {
  return `budget: a block of about ${minutes(planned)} GPU-minutes not measured: ${minutes(spent)} of ${minutes(limit)} GPU-minutes spent (gate.budget_gpu_minutes); the comparison judges the runs measured`;
}
