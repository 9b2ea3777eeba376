import type { CapacityComparison } from "../compare/verdict/capacity-schema.js";
import type { GreedyCheck, GuardCheck, TaskCheck } from "../compare/verdict/quality-schema.js";
import type { Comparison, FamilyFinding, VerdictFile } from "../compare/verdict/verdict-schema.js";
import { describeMetric, type MetricName, metricSpecs } from "../config/metric-names.js";
import {
  formatChange,
  formatDuration,
  formatFractionAsPercent,
  formatIntervalOneLine,
  formatNumber,
  formatValuePair,
  noBreakSpace,
  slowestUsers,
} from "./format.js";

/**
 * The findings of a comparison: every gated check the verdict stands on or is still open on (a
 * regression, an improvement, an inconclusive check), of every kind (speed, capacity, quality), in one
 * shape, for the first screen's table and its "What it means". A check within tolerance is not a finding.
 * Pure. `cell` and `note` came from outside and are escaped by whoever renders them; every other string
 * is our own words and numbers.
 */

type FindingVerdict = "regression" | "improvement" | "inconclusive";

export interface Meaning {
  subject: string;
  detail: string;
}

export interface Finding {
  verdict: FindingVerdict;
  /** Speed and capacity checks are how fast; quality checks whether the outputs stayed the same. */
  kind: "speed" | "capacity" | "quality" | "family";
  cell: string;
  /** What was checked, with its direction: "TTFT p95 ↓". */
  check: string;
  /** "1,096 → 1,333 ms". */
  values: string;
  change: string;
  /** The decision interval of the change, on one line; "–" without one. */
  interval: string;
  tolerance: string;
  note: string | null;
  /**
   * The finding in users' words, without the cell, as a subject and what is said of it, so findings of
   * one subject read as one sentence: "the slowest 5% wait" + "237 ms longer for their first token (TTFT
   * p95 1,096 → 1,333 ms)"; for an open check, the question still open: "the slowest 5% wait" + "longer
   * for their first token (+50.2% so far)". Null when another part of the first screen says it (capacity).
   */
  meaning: Meaning | null;
}

const arrow = (higherIsBetter: boolean) => (higherIsBetter ? " ↑" : " ↓");

function isFindingVerdict(verdict: string): verdict is FindingVerdict {
  return verdict === "regression" || verdict === "improvement" || verdict === "inconclusive";
}

/**
 * A speed check in users' words, from the metric's catalogue entry (`plain`): a decided check as the
 * change, with both sides' figures; an open one as the question still open, with the change so far.
 */
function meaningOf(c: Comparison): Meaning | null {
  if (c.baseline === null || c.candidate === null) return null;
  const spec = metricSpecs[c.metric];
  const up = c.candidate > c.baseline;
  const more = up ? "more" : "fewer";
  const plain = spec.plain;
  const subject =
    plain.kind === "wait"
      ? `${spec.source.kind === "latency" ? slowestUsers(spec.source.statistic) : "users"} wait`
      : plain.kind === "per-hour"
        ? "it completes"
        : "there are";
  if (c.verdict === "inconclusive") {
    const soFar = `(${c.ratio === null ? formatValuePair(c.metric, c.baseline, c.candidate) : formatChange(c.ratio)} so far)`;
    switch (plain.kind) {
      case "wait":
        return { subject, detail: `${up ? "longer" : "less"} ${plain.waitFor} ${soFar}` };
      case "per-hour":
        return { subject, detail: `${more} ${plain.noun} per hour ${soFar}` };
      case "amount":
      case "share":
        return { subject, detail: `${more} ${plain.noun} ${soFar}` };
    }
  }
  const figures = `${spec.label} ${formatValuePair(c.metric, c.baseline, c.candidate)}`;
  switch (plain.kind) {
    case "wait":
      return {
        subject,
        detail: `${formatDuration(Math.abs(c.candidate - c.baseline))} ${up ? "longer" : "less"} ${plain.waitFor} (${figures})`,
      };
    case "per-hour": {
      const hourly = (perSecond: number) => formatNumber(perSecond * 3600);
      return {
        subject,
        detail: `${hourly(Math.abs(c.candidate - c.baseline))} ${more} ${plain.noun} per hour (${hourly(c.baseline)}${noBreakSpace}→${noBreakSpace}${hourly(c.candidate)})`,
      };
    }
    case "amount": {
      const percent = c.ratio === null ? "" : `${Math.abs((c.ratio - 1) * 100).toFixed(1)}% `;
      return { subject, detail: `${percent}${more} ${plain.noun} (${figures})` };
    }
    case "share":
      return { subject, detail: `${more} ${plain.noun} (${figures})` };
  }
}

function speedFinding(c: Comparison): Finding | null {
  if (!c.gated || !isFindingVerdict(c.verdict)) return null;
  return {
    verdict: c.verdict,
    kind: "speed",
    cell: c.cell,
    check: describeMetric(c.metric) + arrow(c.higherIsBetter),
    values: formatValuePair(c.metric, c.baseline, c.candidate),
    change: formatChange(c.ratio),
    interval: formatIntervalOneLine(c.ci),
    tolerance: `±${formatFractionAsPercent(c.tolerance)}`,
    note: c.note,
    meaning: meaningOf(c),
  };
}

function capacityFinding(check: CapacityComparison): Finding | null {
  if (!check.gated || !isFindingVerdict(check.verdict)) return null;
  const unit = check.dimension === "rate" ? "req/s" : "in flight";
  // A side whose capacity is outside the loads measured: "≥ 32" (every load met the SLOs), "< 4" (none did).
  const side = ({ capacity, bound }: CapacityComparison["baseline"]) =>
    capacity === null
      ? "–"
      : `${bound === "above" ? "≥" : bound === "below" ? "<" : ""}${formatNumber(capacity)}`;
  return {
    verdict: check.verdict,
    kind: "capacity",
    cell: check.cell,
    check: "Capacity at the SLOs ↑",
    values: `${side(check.baseline)}${noBreakSpace}→${noBreakSpace}${side(check.candidate)}${noBreakSpace}${unit}`,
    change: formatChange(check.ratio),
    interval: formatIntervalOneLine(check.ci),
    tolerance: `±${formatFractionAsPercent(check.tolerance)}`,
    note: check.note,
    meaning: null,
  };
}

/** "+5.2 pts", "−10.5 pts": a change of a share in percentage points. */
function points(from: number | null, to: number | null): string {
  if (from === null || to === null) return "–";
  const change = (to - from) * 100;
  return `${change > 0 ? "+" : change < 0 ? "−" : "±"}${Math.abs(change).toFixed(1)}${noBreakSpace}pts`;
}

function guardFinding(check: GuardCheck): Finding | null {
  if (check.verdict !== "regression") return null;
  const spec = metricSpecs[check.metric as MetricName];
  const relative = check.toleranceKind === "relative";
  const change =
    relative && check.baseline !== null && check.candidate !== null && check.baseline > 0
      ? formatChange(check.candidate / check.baseline)
      : points(check.baseline, check.candidate);
  const pair = formatValuePair(check.metric, check.baseline, check.candidate);
  const up = (check.candidate ?? 0) > (check.baseline ?? 0);
  return {
    verdict: "regression",
    kind: "quality",
    cell: check.cell,
    check: `${spec.label} ↓`,
    values: pair,
    change,
    interval: "–",
    tolerance: relative
      ? `±${formatFractionAsPercent(check.tolerance)}`
      : `+${Number((check.tolerance * 100).toPrecision(3))}${noBreakSpace}pts`,
    note: check.note,
    meaning: {
      subject: "there are",
      detail: `${up ? "more" : "fewer"} ${spec.plain.kind === "wait" ? spec.label : spec.plain.noun} (${pair}): the outputs changed, so no speed result of this cell is an improvement`,
    },
  };
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

function taskFinding(check: TaskCheck): Finding | null {
  if (check.verdict !== "regression") return null;
  const pair = `${percent(check.baseline.accuracy)}${noBreakSpace}→${noBreakSpace}${percent(check.candidate.accuracy)}`;
  return {
    verdict: "regression",
    kind: "quality",
    cell: check.external === undefined ? check.cell : `${check.cell}: external ${check.external}`,
    check: "Task accuracy ↑",
    values: pair,
    change: points(check.baseline.accuracy, check.candidate.accuracy),
    interval: "–",
    tolerance: `−${Number((check.tolerancePoints * 100).toPrecision(3))}${noBreakSpace}pts`,
    note: check.note,
    meaning: {
      subject: "it answers",
      detail: `fewer tasks right (${pair}; ${check.onlyBaseline} only the baseline got right, ${check.onlyCandidate} only the candidate)`,
    },
  };
}

function greedyFinding(check: GreedyCheck): Finding | null {
  if (check.verdict !== "regression") return null;
  const identical = (share: number) => percent(1 - share);
  const noise = check.baselineNoise === null ? "–" : identical(check.baselineNoise.changedShare);
  return {
    verdict: "regression",
    kind: "quality",
    cell: check.cell,
    check: "Identical greedy outputs ↑",
    values: `${noise}${noBreakSpace}→${noBreakSpace}${identical(check.candidate.changedShare)}`,
    change: "–",
    interval: "–",
    tolerance: "quality.greedy",
    note: null,
    meaning: {
      subject: "the answers at temperature 0",
      detail: `changed: ${identical(check.candidate.changedShare)} of ${check.candidate.prompts} prompts give the baseline's answer${check.baselineNoise === null ? "" : ` (the baseline gives its own on ${noise})`}`,
    },
  };
}

/**
 * A family test that found something: one gated metric across a workload family's cells, on average
 * beyond the tolerance (docs/compare.md, "Family tests"); which cells regressed on their own is its note.
 */
function familyFinding(f: FamilyFinding): Finding | null {
  if (f.verdict === "no-finding") return null;
  const spec = metricSpecs[f.metric];
  const up = f.ratio > 1;
  const percent = `${Math.abs((f.ratio - 1) * 100).toFixed(1)}%`;
  const across = `on average across the ${f.cells.length} cells`;
  const plain = spec.plain;
  const meaning: Meaning =
    plain.kind === "wait"
      ? {
          subject: `${spec.source.kind === "latency" ? slowestUsers(spec.source.statistic) : "users"} wait`,
          detail: `${percent} ${up ? "longer" : "less"} ${plain.waitFor}, ${across} (${spec.label})`,
        }
      : {
          subject: plain.kind === "per-hour" ? "it completes" : "there are",
          detail: `${percent} ${up ? "more" : "fewer"} ${plain.noun}${plain.kind === "per-hour" ? " per hour" : ""}, ${across} (${spec.label})`,
        };
  return {
    verdict: f.verdict,
    kind: "family",
    cell: `${f.family} (${f.cells.length} cells)`,
    check: describeMetric(f.metric) + arrow(f.higherIsBetter),
    values: "family average",
    change: formatChange(f.ratio),
    interval: formatIntervalOneLine(f.ci),
    tolerance: `±${formatFractionAsPercent(f.tolerance)}`,
    note:
      f.verdict !== "regression"
        ? null
        : f.regressedCells.length > 0
          ? `a regression on its own in ${f.regressedCells.join(", ")}`
          : "no cell is a regression on its own yet",
    meaning,
  };
}

const order: Record<FindingVerdict, number> = { regression: 0, improvement: 1, inconclusive: 2 };

/** Every finding of the verdict: regressions first, then improvements, then the open checks. */
export function findingsOf(verdict: VerdictFile): Finding[] {
  const findings = [
    ...verdict.comparisons.map(speedFinding),
    ...(verdict.families ?? []).map(familyFinding),
    ...(verdict.capacity ?? []).map(capacityFinding),
    ...(verdict.quality?.guards ?? []).map(guardFinding),
    ...(verdict.quality?.tasks ?? []).map(taskFinding),
    ...(verdict.quality?.greedy ?? []).map(greedyFinding),
  ].filter((finding): finding is Finding => finding !== null);
  return findings
    .map((finding, index) => ({ finding, index }))
    .sort((a, b) => order[a.finding.verdict] - order[b.finding.verdict] || a.index - b.index)
    .map(({ finding }) => finding);
}
