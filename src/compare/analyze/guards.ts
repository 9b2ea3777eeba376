import {
  describeMetric,
  type GuardMetric,
  type GuardShareField,
  guardMetrics,
  metricSpecs,
} from "../../config/metric-names.js";
import type { GateConfig, QualityConfig } from "../../config/schema.js";
import { guardShareCount, type RunGuards } from "../../metrics/guards.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { normalCdf } from "../../stats/distributions.js";
import { shareIncreaseP } from "../../stats/error-rate.js";
import { logRatioOf, toleranceMargin } from "../../stats/margin.js";
import { startOf } from "../inputs/server-starts.js";
import type { GuardCheck } from "../verdict/quality-schema.js";
import type { ComparedCell } from "./cells.js";
import {
  type AdjustedMember,
  adjustGatedFamily,
  type FamilyMember,
  type FamilyTest,
} from "./gated-family.js";
import { designNote, effectiveCounts, type PooledRun, pooledCountsDesign } from "./pooled-counts.js";

/** What the guard stage needs: the tolerances (quality.guards, gate.metric_tolerance overrides) and the level. */
export interface GuardSettings {
  guards: QualityConfig["guards"];
  metricTolerance: GateConfig["metric_tolerance"];
  alpha: number;
}

export interface GuardDraft extends Omit<GuardCheck, "p" | "verdict" | "inFamily"> {
  /** The test against the tolerance that enters the gated family; null without one (see `untested`). */
  test: FamilyTest | null;
  /** Whether the change is beyond the tolerance (the other half of a regression). */
  beyond: boolean;
  /** Without a test: "inconclusive" (no data on a side) or decided by the observed change (no spread). */
  untested: "inconclusive" | "observed" | null;
}

/**
 * The guard checks' drafts: for each compared cell whose runs carry guard counts (run.json `guards`),
 * each guard metric pooled over a side's runs and tested. A share is a regression when it rose
 * significantly (Fisher's exact test, `shareIncreaseP`) and by more than `share_points`; the mean output
 * length when it moved significantly, either way, by more than `output_length_tolerance` (two one-sided
 * tests on the pooled request lengths). Each test joins the gated family (`gated-family.ts`): Holm
 * over it with the speed, capacity and task checks, in `decideGuards`. Null when guards are off or no
 * run has guard counts.
 */
export function guardDrafts(
  compared: readonly ComparedCell[],
  settings: Omit<GuardSettings, "alpha">,
  warnings: string[],
): GuardDraft[] | null {
  if (!settings.guards.enabled) return null;
  const drafts: GuardDraft[] = [];
  let anyGuards = false;
  for (const cell of compared) {
    const base = guardsOf(cell.base);
    const cand = guardsOf(cell.cand);
    if (base.length > 0 || cand.length > 0) anyGuards = true;
    if (base.length === 0 || cand.length === 0) {
      if (base.length + cand.length > 0)
        warnings.push(
          `cell "${cell.cell}": the ${base.length === 0 ? "baseline" : "candidate"} runs have no guard counts (run.json from an older version or a vLLM result): its quality guards were not judged`,
        );
      continue;
    }
    for (const metric of guardMetrics) drafts.push(guardDraft(cell.cell, metric, base, cand, settings));
  }
  return anyGuards ? drafts : null;
}

/** The gated family's members of the guard drafts (regression direction only: a guard never improves). */
export function guardMembers(drafts: readonly GuardDraft[]): FamilyMember[] {
  return drafts.map((draft) => ({ source: "guard", regression: draft.test, improvement: null }));
}

/**
 * The guard verdicts from the family's adjustment (one entry per draft, in order): a regression when the
 * adjusted p is at most α and the change is beyond the tolerance; a check without spread is decided by
 * the observed change; without data it is inconclusive. Guards block or let pass, they never ask for
 * more runs.
 */
export function decideGuards(
  drafts: readonly GuardDraft[],
  adjusted: readonly AdjustedMember[],
  alpha: number,
): GuardCheck[] {
  return drafts.map((draft, i) => {
    const { test, beyond, untested, ...check } = draft;
    const member = adjusted[i]!;
    const p = test === null ? null : member.regression;
    const verdict: GuardCheck["verdict"] =
      untested === "inconclusive"
        ? "inconclusive"
        : untested === "observed"
          ? beyond
            ? "regression"
            : "within-tolerance"
          : p !== null && p <= alpha && beyond
            ? "regression"
            : "within-tolerance";
    return { ...check, p, inFamily: member.inFamily, verdict };
  });
}

/** The guard checks alone, in a gated family of their own plus `others` (for tests and benchmarks). */
export function guardChecks(
  compared: readonly ComparedCell[],
  settings: GuardSettings,
  warnings: string[],
  others: readonly FamilyMember[] = [],
): GuardCheck[] | null {
  const drafts = guardDrafts(compared, settings, warnings);
  if (drafts === null) return null;
  const family = adjustGatedFamily([...others, ...guardMembers(drafts)], settings.alpha);
  return decideGuards(drafts, family.members.slice(others.length), settings.alpha);
}

/** A run's guard counts with the server start that measured it. */
interface StartedGuards {
  guards: RunGuards;
  start: string;
}

function guardsOf(runs: readonly RunRecord[]): StartedGuards[] {
  return runs.flatMap((run) =>
    run.guards === undefined ? [] : [{ guards: run.guards, start: startOf(run) }],
  );
}

/** Each run's value of a guard (null: none) with its start, for the design effect. */
function perRun(runs: readonly StartedGuards[], measure: (g: RunGuards) => number | null): PooledRun[] {
  return runs.map((run) => ({ value: measure(run.guards), start: run.start }));
}

function guardDraft(
  cell: string,
  metric: GuardMetric,
  baseRuns: readonly StartedGuards[],
  candRuns: readonly StartedGuards[],
  settings: Omit<GuardSettings, "alpha">,
): GuardDraft {
  const source = metricSpecs[metric].source;
  const override = settings.metricTolerance[metric];
  if (source.kind === "guard-share") {
    const tolerance = override ?? settings.guards.share_points;
    return shareDraft({ cell, metric, baseRuns, candRuns, tolerance }, source.field);
  }
  const tolerance = override ?? settings.guards.output_length_tolerance;
  return lengthDraft({ cell, metric, baseRuns, candRuns, tolerance });
}

/** One guard of one cell: both sides' runs and the tolerance it is judged against. */
interface GuardCell {
  cell: string;
  metric: GuardMetric;
  baseRuns: readonly StartedGuards[];
  candRuns: readonly StartedGuards[];
  tolerance: number;
}

/**
 * A share guard: the pooled share of a side's requests, tested with Fisher's exact test on counts divided
 * by the design effect; beyond when it rose by more than the tolerance (points).
 */
function shareDraft(guard: GuardCell, field: GuardShareField): GuardDraft {
  const { cell, metric, baseRuns, candRuns, tolerance } = guard;
  const pool = (runs: readonly StartedGuards[]) => ({
    count: runs.reduce((sum, run) => sum + guardShareCount(run.guards, field), 0),
    requests: runs.reduce((sum, run) => sum + run.guards.requests, 0),
  });
  const b = pool(baseRuns);
  const c = pool(candRuns);
  const share = (side: { count: number; requests: number }) =>
    side.requests > 0 ? side.count / side.requests : null;
  const baseline = share(b);
  const candidate = share(c);
  const empty = baseline === null || candidate === null;
  // Fisher's test takes every request as independent: the runs and their starts say by how much more
  // the pooled share varies, and the counts are divided by that design effect.
  const shareOf = (g: RunGuards) => (g.requests > 0 ? guardShareCount(g, field) / g.requests : null);
  const pooledShare = (b.count + c.count) / Math.max(1, b.requests + c.requests);
  const design = empty
    ? { factor: 1, noise: null }
    : pooledCountsDesign(
        perRun(baseRuns, shareOf),
        perRun(candRuns, shareOf),
        pooledShare * (1 - pooledShare) * (1 / b.requests + 1 / c.requests),
      );
  const test = empty
    ? null
    : shareIncreaseP(
        effectiveCounts({ count: b.count, total: b.requests }, design.factor),
        effectiveCounts({ count: c.count, total: c.requests }, design.factor),
      );
  return {
    cell,
    metric,
    toleranceKind: "points",
    tolerance,
    baseline,
    candidate,
    counts: { baseline: b, candidate: c },
    pRaw: test?.p ?? null,
    test,
    beyond: !empty && candidate - baseline > tolerance,
    untested: empty ? "inconclusive" : null,
    note: empty ? "no measured requests on a side" : designNote(design.factor),
    ...(design.noise ? { noise: design.noise } : {}),
  };
}

/**
 * The mean output length guard: the pooled request lengths of each side, two one-sided tests of a move
 * beyond ±tolerance (relative) on counts divided by the design effect (lengthShiftP).
 */
function lengthDraft(guard: GuardCell): GuardDraft {
  const { cell, metric, baseRuns, candRuns, tolerance } = guard;
  const base = baseRuns.map((run) => run.guards);
  const cand = candRuns.map((run) => run.guards);
  const b = pooledLengths(base);
  const c = pooledLengths(cand);
  const counts = {
    baseline: { count: b.count, requests: base.reduce((sum, g) => sum + g.requests, 0) },
    candidate: { count: c.count, requests: cand.reduce((sum, g) => sum + g.requests, 0) },
  };
  if (b.mean === null || c.mean === null || b.mean <= 0 || c.mean <= 0) {
    return {
      cell,
      metric,
      toleranceKind: "relative",
      tolerance,
      baseline: b.mean,
      candidate: c.mean,
      counts,
      pRaw: null,
      test: null,
      beyond: false,
      untested: "inconclusive",
      note: `no output tokens on a side: ${describeMetric(metric)} cannot be compared`,
    };
  }
  // The delta method takes every request's length as independent: divided by the design effect of
  // the runs' mean lengths (ln) grouped by start, as the shares are.
  const lengthOf = (g: RunGuards) =>
    g.outputTokens.mean !== null && g.outputTokens.mean > 0 ? Math.log(g.outputTokens.mean) : null;
  const design = pooledCountsDesign(
    perRun(baseRuns, lengthOf),
    perRun(candRuns, lengthOf),
    b.variance / (b.count * b.mean * b.mean) + c.variance / (c.count * c.mean * c.mean),
  );
  const shift = lengthShiftP(
    { ...b, count: b.count / design.factor },
    { ...c, count: c.count / design.factor },
    tolerance,
  );
  // Without spread on either side there is no test: the observed ratio decides, outside the family.
  const noSpread = b.variance === 0 && c.variance === 0;
  const eosIgnored = [...base, ...cand].every((g) => g.ignoreEos === true);
  return {
    cell,
    metric,
    toleranceKind: "relative",
    tolerance,
    baseline: b.mean,
    candidate: c.mean,
    counts,
    pRaw: shift.p,
    test: noSpread ? null : { p: shift.p, minP: 0 },
    beyond: shift.beyond,
    untested: noSpread ? "observed" : null,
    note: lengthNote(eosIgnored, noSpread, design.factor),
    ...(design.noise ? { noise: design.noise } : {}),
  };
}

/** What the length guard's reader needs told: lengths set by the workload, no spread, the design effect. */
function lengthNote(eosIgnored: boolean, noSpread: boolean, designFactor: number): string | null {
  const ignoredNote = eosIgnored ? "ignore_eos: lengths are set by the workload, not by the model" : null;
  const notes = noSpread
    ? [
        ignoredNote,
        "no spread in the lengths on either side: decided by the observed ratio, outside the gated family",
      ]
    : [ignoredNote, designNote(designFactor)];
  const kept = notes.filter((n) => n !== null);
  return kept.length > 0 ? kept.join("; ") : null;
}

interface Pooled {
  count: number;
  mean: number | null;
  /** Sample variance (n - 1) of the pooled request lengths. */
  variance: number;
}

/** The request lengths of a side's runs pooled from each run's count, mean and population sd. */
export function pooledLengths(runs: readonly RunGuards[]): Pooled {
  let count = 0;
  let sum = 0;
  for (const g of runs) {
    if (g.outputTokens.mean === null) continue;
    count += g.outputTokens.count;
    sum += g.outputTokens.count * g.outputTokens.mean;
  }
  if (count === 0) return { count, mean: null, variance: 0 };
  const mean = sum / count;
  let squares = 0;
  for (const g of runs) {
    if (g.outputTokens.mean === null) continue;
    const sd = g.outputTokens.std ?? 0;
    squares += g.outputTokens.count * (sd * sd + (g.outputTokens.mean - mean) ** 2);
  }
  return { count, mean, variance: count > 1 ? squares / (count - 1) : 0 };
}

/**
 * Whether the mean length moved beyond ±tolerance (relative), and the p-value of that: the smaller of the
 * two one-sided tests (longer than 1 + tolerance, shorter than 1 - tolerance) on the log ratio of the
 * means (delta method, normal), doubled for the two directions. Without spread on either side the
 * observed ratio decides (p 0 beyond, 1 inside).
 */
export function lengthShiftP(
  baseline: Pooled,
  candidate: Pooled,
  tolerance: number,
): { p: number; beyond: boolean } {
  const mb = baseline.mean!;
  const mc = candidate.mean!;
  const logRatio = Math.log(mc / mb);
  const upper = toleranceMargin(tolerance);
  const lower = tolerance < 1 ? logRatioOf(-tolerance) : Number.NEGATIVE_INFINITY;
  const beyond = logRatio > upper || logRatio < lower;
  const se = Math.sqrt(
    baseline.variance / (baseline.count * mb * mb) + candidate.variance / (candidate.count * mc * mc),
  );
  if (!(se > 0)) return { p: beyond ? 0 : 1, beyond };
  const pLonger = 1 - normalCdf((logRatio - upper) / se);
  const pShorter = lower === Number.NEGATIVE_INFINITY ? 1 : 1 - normalCdf((lower - logRatio) / se);
  return { p: Math.min(1, 2 * Math.min(pLonger, pShorter)), beyond };
}
