import { describeMetric, type GuardMetric, guardMetrics, metricSpecs } from "../../config/metric-names.js";
import type { GateConfig, QualityConfig } from "../../config/schema.js";
import { guardShareCount, type RunGuards } from "../../metrics/guards.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { normalCdf } from "../../stats/distributions.js";
import { errorIncreaseP } from "../../stats/error-rate.js";
import { holmAdjust } from "../../stats/multiplicity.js";
import type { GuardCheck } from "../quality-schema.js";
import type { ComparedCell } from "./cells.js";

/** What the guard stage needs: the tolerances (quality.guards, gate.metric_tolerance overrides) and the level. */
export interface GuardSettings {
  guards: QualityConfig["guards"];
  metricTolerance: GateConfig["metric_tolerance"];
  alpha: number;
}

interface GuardDraft extends Omit<GuardCheck, "p" | "verdict"> {
  /** Null when the check is decided without a test (missing data). */
  pRawTest: number | null;
  /** Whether the change is beyond the tolerance (the other half of a regression). */
  beyond: boolean;
}

/**
 * The guard family: for each compared cell whose runs carry guard counts (run.json `guards`), each guard
 * metric pooled over a side's runs and tested; Holm over every guard check of the comparison, apart from
 * the speed family (its checks are not traded against speed). A share is a regression when it rose
 * significantly (exact conditional binomial test, as for the error rate) and by more than
 * `share_points`; the mean output length when it moved significantly, either way, by more than
 * `output_length_tolerance` (two one-sided tests on the pooled request lengths). A check that is not a
 * regression is within tolerance: guards block or let pass, they never ask for more runs.
 */
export function guardChecks(
  compared: readonly ComparedCell[],
  settings: GuardSettings,
  warnings: string[],
): GuardCheck[] | null {
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
  if (!anyGuards) return null;
  const tested = drafts.filter((d) => d.pRawTest !== null);
  const adjusted = holmAdjust(tested.map((d) => d.pRawTest!));
  const adjustedOf = new Map(tested.map((d, i) => [d, adjusted[i]!]));
  return drafts.map((draft) => {
    const { pRawTest, beyond, ...check } = draft;
    const p = adjustedOf.get(draft) ?? null;
    const verdict: GuardCheck["verdict"] =
      pRawTest === null
        ? "inconclusive"
        : p !== null && p <= settings.alpha && beyond
          ? "regression"
          : "within-tolerance";
    return { ...check, p, verdict };
  });
}

function guardsOf(runs: readonly RunRecord[]): RunGuards[] {
  return runs.flatMap((run) => (run.guards === undefined ? [] : [run.guards]));
}

function guardDraft(
  cell: string,
  metric: GuardMetric,
  base: readonly RunGuards[],
  cand: readonly RunGuards[],
  settings: GuardSettings,
): GuardDraft {
  const source = metricSpecs[metric].source;
  const override = settings.metricTolerance[metric];
  if (source.kind === "guard-share") {
    const tolerance = override ?? settings.guards.share_points;
    const pool = (runs: readonly RunGuards[]) => ({
      count: runs.reduce((sum, g) => sum + guardShareCount(g, source.field), 0),
      requests: runs.reduce((sum, g) => sum + g.requests, 0),
    });
    const b = pool(base);
    const c = pool(cand);
    const share = (side: { count: number; requests: number }) =>
      side.requests > 0 ? side.count / side.requests : null;
    const baseline = share(b);
    const candidate = share(c);
    const empty = baseline === null || candidate === null;
    const pRaw = empty
      ? null
      : errorIncreaseP({ failed: b.count, total: b.requests }, { failed: c.count, total: c.requests });
    const beyond = !empty && candidate - baseline > tolerance;
    return {
      cell,
      metric,
      toleranceKind: "points",
      tolerance,
      baseline,
      candidate,
      counts: { baseline: b, candidate: c },
      pRaw,
      pRawTest: pRaw,
      beyond,
      note: empty ? "no measured requests on a side" : null,
    };
  }
  const tolerance = override ?? settings.guards.output_length_tolerance;
  const b = pooledLengths(base);
  const c = pooledLengths(cand);
  const counts = {
    baseline: { count: b.count, requests: base.reduce((sum, g) => sum + g.requests, 0) },
    candidate: { count: c.count, requests: cand.reduce((sum, g) => sum + g.requests, 0) },
  };
  const eosIgnored = [...base, ...cand].every((g) => g.ignoreEos === true);
  const ignoredNote = eosIgnored ? "ignore_eos: lengths are set by the workload, not by the model" : null;
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
      pRawTest: null,
      beyond: false,
      note: `no output tokens on a side: ${describeMetric(metric)} cannot be compared`,
    };
  }
  const test = lengthShiftP(b, c, tolerance);
  return {
    cell,
    metric,
    toleranceKind: "relative",
    tolerance,
    baseline: b.mean,
    candidate: c.mean,
    counts,
    pRaw: test.p,
    pRawTest: test.p,
    beyond: test.beyond,
    note: ignoredNote,
  };
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
  const upper = Math.log(1 + tolerance);
  const lower = tolerance < 1 ? Math.log(1 - tolerance) : Number.NEGATIVE_INFINITY;
  const beyond = logRatio > upper || logRatio < lower;
  const se = Math.sqrt(
    baseline.variance / (baseline.count * mb * mb) + candidate.variance / (candidate.count * mc * mc),
  );
  if (!(se > 0)) return { p: beyond ? 0 : 1, beyond };
  const pLonger = 1 - normalCdf((logRatio - upper) / se);
  const pShorter = lower === Number.NEGATIVE_INFINITY ? 1 : 1 - normalCdf((lower - logRatio) / se);
  return { p: Math.min(1, 2 * Math.min(pLonger, pShorter)), beyond };
}
