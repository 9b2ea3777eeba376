import type { MetricName } from "../../config/metric-names.js";
import { type CellConfig, type Config, isSessionDataset } from "../../config/schema.js";
import type { RunRecord } from "../../metrics/run-record.js";
import {
  type CapacityObjective,
  type CapacityRun,
  capacityInterval,
  capacityRatio,
  crossingDeviations,
  estimateCapacity,
  valueAtLoad,
} from "../../stats/capacity.js";
import type { SearchSettings } from "../../stats/capacity-plan.js";
import { classify } from "../../stats/metric-test.js";
import { type StartLevels, startLevels } from "../../stats/two-level.js";
import { type AdjustedMember, adjustGatedFamily, type FamilyMember } from "../analyze/gated-family.js";
import { costPerThousandRequests } from "../budget/cost.js";
import { startOf } from "../inputs/server-starts.js";
import { type NamedStartPrior, type StartNoise, startNoiseOf } from "../noise/start-noise.js";
import type { CapacityComparison, CapacityCurvePoint, CapacitySide } from "../verdict/capacity-schema.js";
import { exitCodeFor } from "../verdict/exit-code.js";
import type { OverallVerdict, VerdictFile } from "../verdict/verdict-schema.js";
import { capacityMaxRuns } from "./capacity-looks.js";
import { loadCurveOf } from "./load-curve.js";

/**
 * The capacity stage of compare (docs/capacity.md): per capacity cell of the config, each side's capacity
 * at the cell's SLOs from all its runs (stats/capacity.ts), the ratio candidate/baseline with its interval
 * and verdict, joining the gated family's Holm adjustment, and the figures at the capacity point. The
 * capacity search (`run --sweep`) plans with the same objectives and runs (`capacityObjectivesOf`,
 * `capacityRunsOf`), so search and comparison read runs one way.
 */

export type CapacityCell = CellConfig & { capacity: NonNullable<CellConfig["capacity"]> };

export function capacityCells(config: Config): CapacityCell[] {
  return config.cells.filter((cell): cell is CapacityCell => cell.capacity !== undefined);
}

interface NamedObjective extends CapacityObjective {
  metric: MetricName;
}

/** The cell's SLOs at its percentile, plus the error-rate limit, as objectives on catalogue metrics. */
export function capacityObjectivesOf(cell: CapacityCell): NamedObjective[] {
  const p = cell.capacity.percentile;
  const slo = cell.slo ?? {};
  const objectives: NamedObjective[] = [];
  if (slo.ttft_ms !== undefined)
    objectives.push({ name: `ttft_${p}`, metric: `ttft_${p}`, threshold: slo.ttft_ms, scale: "log" });
  if (slo.tpot_ms !== undefined)
    objectives.push({ name: `tpot_${p}`, metric: `tpot_${p}`, threshold: slo.tpot_ms, scale: "log" });
  if (slo.e2el_ms !== undefined)
    objectives.push({ name: `e2el_${p}`, metric: `e2el_${p}`, threshold: slo.e2el_ms, scale: "log" });
  objectives.push({
    name: "error_rate",
    metric: "error_rate",
    threshold: cell.capacity.error_rate,
    scale: "linear",
  });
  return objectives;
}

/** The load of a run in the cell's dimension (null when the run does not say). */
function recordLoad(cell: CellConfig, record: RunRecord): number | null {
  const load = record.load;
  if (!load) return null;
  return cell.load.type === "concurrency" ? load.targetConcurrency : load.targetRate;
}

/** The cell's usable runs as capacity points; a run without a value for an objective counts as missing it. */
export function capacityRunsOf(cell: CapacityCell, records: readonly RunRecord[]): CapacityRun[] {
  const objectives = capacityObjectivesOf(cell);
  return records.flatMap((record) => {
    if (record.cell !== cell.name || record.exclusionReasons.length > 0) return [];
    const load = recordLoad(cell, record);
    if (load === null || !(load > 0)) return [];
    return [
      {
        load,
        values: objectives.map((objective) => {
          const value = record.metrics[objective.metric];
          // A run with no successful request has no latency: it misses every latency SLO, by a factor
          // of 1,000 (finite, so the noise estimate stays a number; its error rate misses too).
          return value === null || value === undefined ? objective.threshold * 1000 : value;
        }),
        start: startOf(record),
      },
    ];
  });
}

/**
 * The search plan's settings for a capacity cell: at most repeats.max runs per side; with `targetRuns`
 * (a comparison's next look, ./capacity-looks.ts) the search refines on to that many, at most max_runs.
 */
export function searchSettingsOf(config: Config, cell: CapacityCell, targetRuns?: number): SearchSettings {
  return {
    range: cell.capacity.range,
    initialLoads: cell.capacity.initial_loads,
    precision: cell.capacity.precision,
    maxRuns:
      targetRuns === undefined
        ? config.repeats.max
        : Math.min(capacityMaxRuns(config.repeats.max, cell), Math.max(config.repeats.max, targetRuns)),
    ...(targetRuns === undefined ? {} : { minRuns: targetRuns }),
    level: intervalLevel(config.gate.confidence),
    seed: 1,
    integer: cell.load.type === "concurrency",
  };
}

/** The two-sided level of the capacity intervals: 1 − 2α with α = 1 − confidence (90% at 0.95). */
export function intervalLevel(confidence: number): number {
  return 1 - 2 * (1 - confidence);
}

export interface CapacityStageInput {
  cells: readonly CapacityCell[];
  baseline: readonly RunRecord[];
  candidate: readonly RunRecord[];
  gate: Config["gate"];
  cost: Config["cost"];
  resamples?: number;
  /** The one-sided test level of this look (./capacity-looks.ts); default 1 − confidence. */
  alpha?: number;
}

interface SideResult {
  side: CapacitySide;
  draws: number[] | null;
  /** The highest load measured at which the side met every SLO (the bracket's lower end). */
  lastMet: number | null;
}

function sideOf(
  cell: CapacityCell,
  records: readonly RunRecord[],
  cost: Config["cost"],
  level: number,
  seed: number,
  resamples: number | undefined,
  startEffect: { variance: number; df: number },
): SideResult {
  const runs = capacityRunsOf(cell, records);
  const empty: CapacitySide = {
    capacity: null,
    bound: null,
    limiting: null,
    interval: null,
    runs: 0,
    loads: 0,
    successfulPerHour: null,
    sessionsPerGpuHour: null,
    outputTokensPerSecondPerGpu: null,
    outputTokensPerSecondPerUser: null,
    ttftAtCapacityMs: null,
    costPer1000: null,
    note: "no usable runs with a load",
  };
  if (runs.length === 0) return { side: empty, draws: null, lastMet: null };
  const objectives = capacityObjectivesOf(cell);
  const estimate = estimateCapacity(runs, objectives);
  const interval = capacityInterval(runs, objectives, {
    level,
    seed,
    ...(resamples === undefined ? {} : { resamples }),
    startEffect,
  });
  const own = records.filter(
    (record) =>
      record.cell === cell.name && record.exclusionReasons.length === 0 && recordLoad(cell, record) !== null,
  );
  const at = (metric: MetricName, scale: "log" | "linear" = "linear") =>
    valueAtLoad(
      own.map((record) => ({ load: recordLoad(cell, record)!, value: record.metrics[metric] ?? null })),
      estimate.capacity,
      scale,
    );
  const meets = estimate.bound !== "below";
  const requestRate = meets ? at("request_throughput") : null;
  const successfulPerHour = requestRate === null ? null : requestRate * 3600;
  const sessionRate = meets && isSessionDataset(cell.dataset) ? at("session_throughput") : null;
  const output = meets ? at("output_throughput") : null;
  const tpot = meets ? at("tpot_p50") : null;
  const notes: string[] = [];
  if (estimate.bound === "below")
    notes.push(`no load measured meets the SLOs (${estimate.limiting} is missed at ${estimate.capacity})`);
  if (estimate.bound === "above")
    notes.push(`every load measured meets the SLOs: the capacity is at least ${estimate.capacity}`);
  if (interval === null)
    notes.push("no load was measured twice, so the run-to-run noise and the interval are unknown");
  return {
    side: {
      capacity: estimate.capacity,
      bound: estimate.bound,
      limiting: estimate.limiting,
      interval: interval ? [interval.low, interval.high] : null,
      runs: runs.length,
      loads: estimate.loads.length,
      successfulPerHour,
      sessionsPerGpuHour: sessionRate === null ? null : (sessionRate * 3600) / cost.gpus,
      outputTokensPerSecondPerGpu: output === null ? null : output / cost.gpus,
      outputTokensPerSecondPerUser: tpot === null || !(tpot > 0) ? null : 1000 / tpot,
      ttftAtCapacityMs: meets ? at(`ttft_${cell.capacity.percentile}`, "log") : null,
      costPer1000: costPerThousandRequests(cost.gpu_hourly_usd, cost.gpus, successfulPerHour),
      note: notes.length > 0 ? notes.join("; ") : null,
    },
    draws: interval ? interval.draws : null,
    lastMet: estimate.bracket ? estimate.bracket[0] : null,
  };
}

/** A capacity check before the gated family's adjustment: each side's estimate and the ratio's test. */
export interface CapacityDraft {
  cell: CapacityCell;
  baseline: SideResult;
  candidate: SideResult;
  test: ReturnType<typeof capacityRatio> | null;
  note: string | null;
  tolerance: number;
  /** The server-start level the intervals carried. */
  noise: StartNoise;
}

/**
 * The start-to-start variance of ln(load) of a capacity cell (docs/capacity.md, "Server starts"): what
 * the starts of both sides show near their crossings (stats/capacity.ts crossingDeviations, the levels
 * from stats/two-level.ts), pooled with gate.noise_prior's throughput start sd (a start's speed moves
 * its capacity as it moves its throughput) by degrees of freedom.
 */
function capacityStartLevels(
  cell: CapacityCell,
  sides: readonly (readonly RunRecord[])[],
  prior: NamedStartPrior,
): { levels: StartLevels; starts: number[]; shared: boolean } {
  const objectives = capacityObjectivesOf(cell);
  const runs = sides.map((records) => capacityRunsOf(cell, records));
  const deviations = runs.flatMap((side) => {
    const sample = crossingDeviations(side, objectives);
    return sample ? [sample] : [];
  });
  const starts = runs.map((side) => new Set(side.map((run) => run.start)).size);
  const shared = runs.some((side) => new Set(side.map((run) => run.start)).size < side.length);
  return { levels: startLevels(deviations, { startPrior: prior }), starts, shared };
}

/** Each capacity cell's sides and ratio test (no multiplicity yet: see capacityMembers, decideCapacity). */
export function capacityDrafts(input: CapacityStageInput): CapacityDraft[] {
  const level = intervalLevel(input.gate.confidence);
  const noisePrior = input.gate.noise_prior;
  const prior: NamedStartPrior = {
    variance: noisePrior.throughput.start_sd ** 2,
    df: noisePrior.weight_starts,
    source: "gate.noise_prior.throughput",
  };
  return input.cells.map((cell, index) => {
    const { levels, starts, shared } = capacityStartLevels(cell, [input.baseline, input.candidate], prior);
    const startEffect = { variance: levels.startVariance, df: levels.startVarianceDf };
    const noise = startNoiseOf(levels, { baseline: starts[0]!, candidate: starts[1]! }, shared, prior);
    const sideAt = (records: readonly RunRecord[], seed: number) =>
      sideOf(cell, records, input.cost, level, seed, input.resamples, startEffect);
    const baseline = sideAt(input.baseline, 1000 + index);
    const candidate = sideAt(input.candidate, 2000 + index);
    const tolerance = input.gate.tolerance;
    const b = baseline.side;
    const c = candidate.side;
    let note: string | null = null;
    let test: ReturnType<typeof capacityRatio> | null = null;
    if (b.capacity === null || c.capacity === null) note = "a side has no usable runs";
    else if (b.bound === "above" && c.bound === "above")
      note =
        "both sides meet the SLOs at every load measured: raise capacity.range.max to compare capacities";
    else if (b.bound === "below" && c.bound === "below")
      note = "neither side meets the SLOs at any load measured: lower capacity.range.min or relax the SLO";
    else if (baseline.draws === null || candidate.draws === null)
      note = "no interval: each side needs a load measured at least twice";
    else
      test = capacityRatio(
        { capacity: b.capacity, draws: baseline.draws },
        { capacity: c.capacity, draws: candidate.draws },
        tolerance,
        level,
      );
    return { cell, baseline, candidate, test, note, tolerance, noise };
  });
}

/**
 * The gated family's members of the capacity drafts, one per draft in order: a gated check with a test
 * brings its two bootstrap p-values against the tolerance (the ratio below 1/(1 + tolerance), above
 * 1 + tolerance); an advisory or untested one brings none.
 */
export function capacityMembers(drafts: readonly CapacityDraft[]): FamilyMember[] {
  return drafts.map((draft) =>
    draft.cell.capacity.gated && draft.test !== null
      ? {
          source: "capacity",
          regression: { p: draft.test.pBeyond, minP: 0 },
          improvement: { p: draft.test.pBetterBeyond, minP: 0 },
        }
      : { source: "capacity", regression: null, improvement: null },
  );
}

/**
 * The capacity checks of every capacity cell, alone in a gated family with `others` (the comparison
 * assembles the whole family in `analyze` and calls decideCapacity; this serves tests and tools).
 */
export function compareCapacity(
  input: CapacityStageInput,
  others: readonly FamilyMember[] = [],
): CapacityComparison[] {
  const drafts = capacityDrafts(input);
  const alpha = input.alpha ?? 1 - input.gate.confidence;
  const family = adjustGatedFamily([...others, ...capacityMembers(drafts)], alpha);
  return decideCapacity(input, drafts, family.members.slice(others.length));
}

/**
 * The capacity verdicts from the gated family's adjustment (one entry per draft, from capacityMembers):
 * a gated check decides on its adjusted p-values, an advisory one on its raw ones.
 */
export function decideCapacity(
  input: CapacityStageInput,
  drafts: readonly CapacityDraft[],
  adjusted: readonly AdjustedMember[],
): CapacityComparison[] {
  const alpha = input.alpha ?? 1 - input.gate.confidence;
  const level = intervalLevel(input.gate.confidence);
  return drafts.map((draft, index) => {
    const { cell, test } = draft;
    const member = adjusted[index]!;
    const pBeyond = test === null ? null : (member.regression ?? test.pBeyond);
    const pBetterBeyond = test === null ? null : (member.improvement ?? test.pBetterBeyond);
    const verdict =
      test === null
        ? "inconclusive"
        : classify({
            pBeyondToleranceAdjusted: pBeyond!,
            pBetterBeyondToleranceAdjusted: pBetterBeyond!,
            pWithinTolerance: test.pWithinTolerance,
            alpha,
          });
    const b = draft.baseline.side;
    const c = draft.candidate.side;
    const objectives = capacityObjectivesOf(cell);
    // The stated load is a load measured: the highest at which the baseline met every SLO.
    const stated = draft.baseline.lastMet;
    const valueAt = (records: readonly RunRecord[], metric: MetricName, scale: "log" | "linear") =>
      stated === null
        ? null
        : valueAtLoad(
            records
              .filter(
                (r) =>
                  r.cell === cell.name && r.exclusionReasons.length === 0 && recordLoad(cell, r) !== null,
              )
              .map((r) => ({ load: recordLoad(cell, r)!, value: r.metrics[metric] ?? null })),
            stated,
            scale,
          );
    return {
      cell: cell.name,
      dimension: cell.load.type === "concurrency" ? "concurrency" : "rate",
      unit: isSessionDataset(cell.dataset) ? "sessions" : "requests",
      percentile: cell.capacity.percentile,
      slo: { ...(cell.slo ?? {}) },
      errorRateLimit: cell.capacity.error_rate,
      gated: cell.capacity.gated,
      tolerance: draft.tolerance,
      baseline: b,
      candidate: c,
      ratio: test ? test.ratio : null,
      ci: test ? test.ci : null,
      ciLevel: level,
      p: test === null ? null : test.ratio <= 1 ? pBeyond : pBetterBeyond,
      verdict,
      costRatio: b.costPer1000 !== null && c.costPer1000 !== null ? c.costPer1000 / b.costPer1000 : null,
      acceptance: {
        load: stated,
        rows: objectives.map((objective) => {
          const baseline = valueAt(input.baseline, objective.metric, objective.scale);
          const candidate = valueAt(input.candidate, objective.metric, objective.scale);
          return {
            objective: objective.name,
            threshold: objective.threshold,
            baseline,
            candidate,
            baselinePass: baseline === null ? null : baseline <= objective.threshold,
            candidatePass: candidate === null ? null : candidate <= objective.threshold,
          };
        }),
      },
      note: draft.note,
      noise: draft.noise,
      curve: {
        baseline: capacityCurveOf(cell, input.baseline),
        candidate: capacityCurveOf(cell, input.candidate),
      },
    } satisfies CapacityComparison;
  });
}

/**
 * The verdict with the capacity checks folded in: a gated capacity regression makes it a regression, a
 * gated inconclusive one turns a pass inconclusive; when the config has only capacity cells, they alone
 * decide. The exit code follows gate.fail_on as for any verdict.
 */
export function withCapacity(
  verdict: VerdictFile,
  capacity: readonly CapacityComparison[],
  failOn: Config["gate"]["fail_on"],
): VerdictFile & { capacity: CapacityComparison[] } {
  const gated = capacity.filter((check) => check.gated);
  const regressions = gated.filter((check) => check.verdict === "regression");
  const inconclusive = gated.filter((check) => check.verdict === "inconclusive");
  const onlyCapacity = verdict.cells.length === 0 && capacity.length > 0;
  let overall: OverallVerdict = verdict.verdict;
  let headline = verdict.headline;
  if (onlyCapacity) {
    overall =
      regressions.length > 0
        ? "regression"
        : inconclusive.length > 0
          ? "inconclusive"
          : gated.length > 0
            ? "pass"
            : "error";
    headline =
      regressions.length > 0
        ? `Capacity regression in ${regressions.map((check) => check.cell).join(", ")}`
        : inconclusive.length > 0
          ? `Capacity inconclusive in ${inconclusive.map((check) => check.cell).join(", ")}`
          : gated.length > 0
            ? "Capacity at the SLOs holds"
            : "No gated capacity check";
  } else if (regressions.length > 0 && overall !== "not-comparable") {
    overall = "regression";
    headline = `${headline}; capacity regression in ${regressions.map((check) => check.cell).join(", ")}`;
  } else if (inconclusive.length > 0 && overall === "pass") {
    overall = "inconclusive";
    headline = `${headline}; capacity inconclusive in ${inconclusive.map((check) => check.cell).join(", ")}`;
  }
  return {
    ...verdict,
    verdict: overall,
    headline,
    exitCode: exitCodeFor(overall, failOn),
    capacity: [...capacity],
  };
}

/**
 * Warnings for cells compared at a fixed load whose runs ran at several loads (a sweep, or a capacity
 * cell compared without its config): their runs are pooled as if measured at one load.
 */
export function mixedLoadWarnings(records: readonly RunRecord[]): string[] {
  const loads = new Map<string, Set<string>>();
  for (const record of records) {
    if (!record.load) continue;
    const key = JSON.stringify([record.load.targetRate, record.load.targetConcurrency]);
    loads.set(record.cell, (loads.get(record.cell) ?? new Set()).add(key));
  }
  return [...loads.entries()]
    .filter(([, set]) => set.size > 1)
    .map(
      ([cell, set]) =>
        `cell "${cell}" has runs at ${set.size} different loads (a sweep?) and is compared as one fixed-load cell; give compare the config with capacity on that cell to compare its capacity (docs/capacity.md)`,
    );
}

/**
 * One side's load curve of a capacity cell, as verdict.json carries it (`capacity[].curve`) for the
 * report's load charts and the comment's latency-vs-load chart: per load measured, the mean over the
 * side's usable runs at that load (the runs the capacity estimate reads) of completed requests/s,
 * goodput, output tokens/s, and TTFT and E2E at the cell's SLO percentile. Rows ascend by load.
 */
function capacityCurveOf(cell: CapacityCell, records: readonly RunRecord[]): CapacityCurvePoint[] {
  const dimension = cell.load.type === "concurrency" ? "concurrency" : "rate";
  return loadCurveOf(cell.name, dimension, cell.capacity.percentile, records);
}
