import { describeMetric } from "../../config/metric-names.js";
import type { GateConfig } from "../../config/schema.js";
import {
  type MetricVerdict,
  resolvableWithMoreRuns,
  runsToDetect,
  runsToSettle,
} from "../../stats/metric-test.js";
import { nextLookAfter } from "../../stats/sequential.js";
import { addedGpuMinutes, type CostRates } from "../budget/cost.js";
import type { Comparison, ComparisonMode, OverallVerdict, VerdictFile } from "../verdict/verdict-schema.js";
import { withStart } from "./decide.js";
import { type Draft, startProjectionOf } from "./drafts.js";
import type { Side } from "./usable-runs.js";

/** The gated checks counted by verdict. */
export function countGated(comparisons: readonly Comparison[]): VerdictFile["counts"] {
  const gated = comparisons.filter((comparison) => comparison.gated);
  const count = (verdict: MetricVerdict) =>
    gated.filter((comparison) => comparison.verdict === verdict).length;
  return {
    gated: gated.length,
    regression: count("regression"),
    improvement: count("improvement"),
    withinTolerance: count("within-tolerance"),
    inconclusive: count("inconclusive"),
  };
}

/**
 * Stage 5: the overall verdict. Not comparable (when the gate fails on it) before a regression, a
 * regression before a broken or empty comparison, then inconclusive, else pass.
 */
export function overallVerdict(
  counts: VerdictFile["counts"],
  brokenCells: number,
  cellCount: number,
  notComparable: number,
  onNotComparable: GateConfig["on_not_comparable"],
): OverallVerdict {
  if (notComparable > 0 && onNotComparable === "fail") return "not-comparable";
  if (counts.regression > 0) return "regression";
  if (brokenCells > 0 || cellCount === 0 || counts.gated === 0) return "error";
  if (counts.inconclusive > 0) return "inconclusive";
  return "pass";
}

/**
 * Runs per side both sides need before an interleaved check may be called undecidable at the
 * tolerance (more runs up to repeats.max projected not to decide it at its current estimate).
 */
const atToleranceMinRuns = 10;

/**
 * The gated checks left inconclusive because their estimate sits on the tolerance: more runs up to
 * repeats.max would not decide them (no stored baseline's drift involved), with their intervals.
 */
export function atToleranceChecks(
  comparisons: readonly Comparison[],
  resolvable: (comparison: Comparison) => boolean,
  draftOf: (comparison: Comparison) => Draft | undefined,
): NonNullable<VerdictFile["atTolerance"]> {
  return comparisons
    .filter((c) => c.gated && c.verdict === "inconclusive" && c.ci90 !== null && !resolvable(c))
    .filter((c) => {
      const draft = draftOf(c);
      return draft?.variances && !draft.unfixable && draft.variances.extra === 0;
    })
    .map((c) => ({ cell: c.cell, metric: c.metric, ci: c.ci90!, tolerance: c.tolerance }));
}

export interface FutilityModel {
  draftOf: (comparison: Comparison) => Draft | undefined;
  futilityInput: (draft: Draft) => Parameters<typeof runsToSettle>[0];
  /** Whether more runs (up to repeats.max) could still decide an inconclusive check. */
  resolvable: (comparison: Comparison) => boolean;
}

/** What more runs can and cannot do for each check: its draft, the futility inputs, resolvability. */
export function futilityModel(
  drafts: readonly Draft[],
  unfixableCells: ReadonlyMap<string, string>,
  levels: { alpha: number; passAlpha: number; gatedCount: number },
  mode: ComparisonMode,
  maxRuns: number,
  runsPerStart = 1,
): FutilityModel {
  const { alpha, passAlpha, gatedCount } = levels;
  const draftOf = (c: Comparison) => drafts.find((d) => d.cell === c.cell && d.metric === c.metric);
  const futilityInput = (draft: Draft) => ({
    worse: draft.worse!,
    tolerance: draft.tolerance,
    baselineVariance: draft.variances!.baseline,
    candidateVariance: draft.variances!.candidate,
    extraVariance: draft.variances!.extra,
    regressionAlpha: alpha / Math.max(1, gatedCount),
    passAlpha,
    ...withStart(startProjectionOf(draft, runsPerStart, mode)),
  });
  const resolvable = (c: Comparison): boolean => {
    const draft = draftOf(c);
    if (draft?.unfixable || unfixableCells.has(c.cell)) return false;
    if (!draft?.variances || draft.worse === null) return true;
    // A floor that more runs cannot lower (a stored baseline's drift) justifies stopping early. Without
    // one, more runs always narrow the interval, but a check whose estimate sits on the tolerance is
    // not decided by any number of them within repeats.max: once both sides have atToleranceMinRuns
    // runs (few-run variance estimates are too noisy to predict with), it is "at the tolerance".
    const atMax = (worse: number) =>
      resolvableWithMoreRuns({
        ...futilityInput(draft),
        worse,
        baselineRuns: mode === "interleaved" ? Math.max(maxRuns, draft.runs.baseline) : draft.runs.baseline,
        candidateRuns: Math.max(maxRuns, draft.runs.candidate),
      });
    if (draft.variances.extra > 0) return atMax(draft.worse);
    if (Math.min(draft.runs.baseline, draft.runs.candidate) < atToleranceMinRuns) return true;
    // Undecidable only if no change within one standard error of the estimate could be decided at
    // repeats.max: both ends of that band sit where the projected interval would still span the
    // tolerance. (The point estimate alone stops too many real changes that read low at 10 runs;
    // the full interval's ends never stop before the maximum, its lower end always passable.)
    const v = draft.variances;
    const current = startProjectionOf(draft, runsPerStart, "current");
    const startPart = current
      ? current.startVariance * (v.startWeights.baseline + v.startWeights.candidate)
      : 0;
    const se = Math.sqrt(v.baseline / draft.runs.baseline + v.candidate / draft.runs.candidate + startPart);
    return atMax(draft.worse - se) || atMax(draft.worse + se);
  };
  return { draftOf, futilityInput, resolvable };
}

export interface NextLookInput {
  verdict: OverallVerdict;
  cells: VerdictFile["cells"];
  comparisons: readonly Comparison[];
  looks: readonly number[];
  mode: ComparisonMode;
  maxRuns: number;
  resolvable: (comparison: Comparison) => boolean;
  unfixableCells: ReadonlyMap<string, string>;
  measuredRuns: (side: Side, cell: string) => number;
  rates: CostRates;
}

/**
 * The next look, in measured runs per side (screened and excluded runs are replaced, so the usable
 * count reaches the look), never beyond repeats.max measured runs and never for cells that more
 * candidate runs cannot help.
 */
export function planNextLook(input: NextLookInput): VerdictFile["nextLook"] {
  const { verdict, cells, comparisons, looks, mode, maxRuns, resolvable } = input;
  if (verdict !== "inconclusive" && verdict !== "error") return null;
  const needy = cells.filter(
    (cell) =>
      !input.unfixableCells.has(cell.name) &&
      ((cell.status !== "compared" && cell.status !== "missing-baseline") ||
        comparisons.some(
          (c) => c.cell === cell.name && c.gated && c.verdict === "inconclusive" && resolvable(c),
        )),
  );
  if (needy.length === 0) return null;
  const candidateRuns = Math.min(...needy.map((cell) => cell.candidateRuns));
  const baselineRuns = Math.min(...needy.map((cell) => cell.baselineRuns));
  const measuredCandidate = Math.max(...needy.map((cell) => input.measuredRuns("candidate", cell.name)));
  const measuredBaseline = Math.max(...needy.map((cell) => input.measuredRuns("baseline", cell.name)));
  if (measuredCandidate >= maxRuns) return null;
  const undecided = comparisons.filter((c) => c.gated && c.verdict === "inconclusive").length;
  const screened = measuredCandidate - candidateRuns;
  const reason =
    (undecided > 0
      ? `${undecided} gated check${undecided === 1 ? " is" : "s are"} inconclusive at ${candidateRuns} usable candidate run${candidateRuns === 1 ? "" : "s"}`
      : "too few usable runs") +
    (screened > 0 ? ` (${screened} excluded run${screened === 1 ? "" : "s"} replaced)` : "");
  const next = nextLookAfter(candidateRuns, baselineRuns, looks, mode === "interleaved", reason);
  if (!next) return null;
  const add = Math.min(next.addCandidateRuns, maxRuns - measuredCandidate);
  const runsPerSide = measuredCandidate + add;
  const addBaselineRuns =
    mode === "interleaved" ? Math.max(0, Math.min(maxRuns, runsPerSide) - measuredBaseline) : 0;
  return {
    runsPerSide,
    addCandidateRuns: add,
    addBaselineRuns,
    cells: needy.map((cell) => cell.name),
    reason: next.reason,
    gpuMinutes: addedGpuMinutes(mode, needy.length, measuredCandidate, runsPerSide, input.rates),
  };
}

/** Why no more runs are asked for although the verdict is undecided: the real cause, per check. */
export function futilityWarnings(
  comparisons: readonly Comparison[],
  cells: VerdictFile["cells"],
  maxRuns: number,
  resolvable: (comparison: Comparison) => boolean,
  draftOf: (comparison: Comparison) => Draft | undefined,
  unfixableCells: ReadonlyMap<string, string>,
): string[] {
  const warnings: string[] = [];
  for (const reason of new Set(unfixableCells.values()))
    warnings.push(`more runs cannot settle this: ${reason}`);
  const stuck = comparisons.filter((c) => c.gated && c.verdict === "inconclusive" && !resolvable(c));
  const fixedReasons = new Set<string>();
  for (const c of stuck) {
    const draft = draftOf(c);
    if (draft?.unfixable && !unfixableCells.has(c.cell)) fixedReasons.add(draft.unfixable);
  }
  for (const reason of fixedReasons) warnings.push(`more runs cannot settle this: ${reason}`);
  // At the tolerance (interleaved, no drift floor): said by the report's at-the-tolerance line instead.
  const byNoise = stuck.filter((c) => {
    const draft = draftOf(c);
    return (
      draft && !draft.unfixable && !unfixableCells.has(c.cell) && draft.variances && draft.variances.extra > 0
    );
  });
  const runsLeft = Math.min(...cells.map((c) => c.candidateRuns)) < maxRuns;
  if (byNoise.length > 0 && runsLeft) {
    // Name the larger part of the variance at the maximum: the runs' own spread or the session drift.
    const spread = byNoise.map((c) => {
      const v = draftOf(c)!.variances!;
      return { c, runVar: v.baseline / c.runs.baseline + v.candidate / maxRuns, extra: v.extra, v };
    });
    const driftBound = spread.filter((s) => s.extra >= s.runVar);
    const noiseBound = spread.filter((s) => s.extra < s.runVar);
    const plural = (n: number) => `${n} inconclusive check${n === 1 ? "" : "s"}`;
    if (driftBound.length > 0)
      warnings.push(
        `more runs would not settle the ${plural(driftBound.length)}: the stored baseline's session drift does not shrink with runs; compare against a baseline run in the same job (mode interleaved) or widen the tolerance`,
      );
    if (noiseBound.length > 0) {
      const widest = noiseBound.reduce((a, b) =>
        Math.max(b.v.baseline, b.v.candidate) > Math.max(a.v.baseline, a.v.candidate) ? b : a,
      );
      const side = widest.v.baseline >= widest.v.candidate ? "baseline" : "candidate";
      const sd = Math.sqrt(Math.max(widest.v.baseline, widest.v.candidate));
      warnings.push(
        `more runs would not settle the ${plural(noiseBound.length)}: the runs vary too widely (run-to-run sd ${(sd * 100).toFixed(1)}% on the ${side} side of ${describeMetric(widest.c.metric)} in cell "${widest.c.cell}"; look for an odd run in the table of runs), not the session drift`,
      );
    }
  }
  return warnings;
}

/** How many runs per side and about how many GPU-minutes would settle every inconclusive gated check. */
export function settleEstimate(
  comparisons: readonly Comparison[],
  draftOf: (comparison: Comparison) => Draft | undefined,
  futilityInput: (draft: Draft) => Omit<Parameters<typeof runsToSettle>[0], never>,
  resolvable: (comparison: Comparison) => boolean,
  mode: ComparisonMode,
  maxRuns: number,
  rates: CostRates,
  looks: readonly number[],
): VerdictFile["settle"] {
  const stuck = comparisons.filter((c) => c.gated && c.verdict === "inconclusive");
  if (stuck.length === 0) return null;
  let runsPerSide = 0;
  let from = Number.POSITIVE_INFINITY;
  const cells = new Set<string>();
  for (const c of stuck) {
    const draft = draftOf(c);
    from = Math.min(from, c.runs.candidate);
    // Missing data or a stored baseline that cannot grow: no number of runs settles it.
    if (!resolvable(c)) return { runsPerSide: null, addRuns: null, gpuMinutes: null, cells: [c.cell] };
    // Too few runs to estimate the spread yet: no estimate for this check.
    if (!draft?.variances || draft.worse === null) continue;
    const runs = runsToSettle(futilityInput(draft), c.runs, maxRuns, mode === "interleaved");
    if (runs === null) return { runsPerSide: null, addRuns: null, gpuMinutes: null, cells: [c.cell] };
    runsPerSide = Math.max(runsPerSide, runs);
    cells.add(c.cell);
  }
  if (!Number.isFinite(from) || runsPerSide === 0) return null;
  // Decisions are taken at looks only: round up to the first look at or above the estimate.
  runsPerSide = Math.max(runsPerSide, from + 1);
  runsPerSide = looks.find((look) => look >= runsPerSide) ?? runsPerSide;
  return {
    runsPerSide,
    addRuns: runsPerSide - from,
    gpuMinutes: addedGpuMinutes(mode, cells.size, from, runsPerSide, rates),
    cells: [...cells],
  };
}

/**
/**
 * Runs per side at which a gated check would catch gate.detect_change with 90% power (both sides growing
 * when interleaved), null when not within 100 runs or when the check has no variance to project.
 * `alphaAt`: the one-sided level its regression test faces decided at that many runs per side (this
 * look's now, a later look's share for more runs), Holm's strictest step included.
 */
export function runsToDetectChange(
  comparison: Comparison,
  draft: Draft | undefined,
  detectChange: number,
  alphaAt: (runsPerSide: number) => number,
  mode: ComparisonMode,
  maxRuns: number,
  runsPerStart = 1,
): number | null {
  if (!draft?.variances || !draft.test) return null;
  const levels = draft.test.levels;
  return runsToDetect(
    {
      baselineVariance: draft.variances.baseline,
      candidateVariance: draft.variances.candidate,
      extraVariance: draft.variances.extra,
      tolerance: draft.tolerance,
      alpha: alphaAt(comparison.runs.candidate),
      alphaAt,
      df: draft.test.df,
      varianceDf: {
        baseline: levels.baseline.runVarianceDf,
        candidate: levels.candidate.runVarianceDf,
        start: draft.variances.start > 0 ? levels.startVarianceDf : 0,
      },
      ...withStart(startProjectionOf(draft, runsPerStart, mode)),
    },
    comparison.runs,
    detectChange,
    Math.max(maxRuns, 100),
    mode === "interleaved",
  );
}

/**
 * The least sensitive gated check: what these runs can catch, and the runs gate.detect_change needs
 * (runsToDetectChange).
 */
export function detectionSummary(
  comparisons: readonly Comparison[],
  draftOf: (comparison: Comparison) => Draft | undefined,
  detectChange: number,
  alphaAt: (runsPerSide: number) => number,
  mode: ComparisonMode,
  maxRuns: number,
  runsPerStart = 1,
): VerdictFile["detection"] {
  const checks = comparisons.filter((c) => c.gated && c.detectableChange !== null);
  if (checks.length === 0) return null;
  const worst = checks.reduce((a, b) => (b.detectableChange! > a.detectableChange! ? b : a));
  const draft = draftOf(worst);
  if (!draft?.variances || !draft.test) return null;
  return {
    cell: worst.cell,
    metric: worst.metric,
    detectableChange: worst.detectableChange!,
    detectChange,
    runsPerSideForDetectChange: runsToDetectChange(
      worst,
      draft,
      detectChange,
      alphaAt,
      mode,
      maxRuns,
      runsPerStart,
    ),
  };
}
