import { type MetricName, metricSpecs } from "../../config/metric-names.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { logRatioInterval } from "../../stats/ratio-interval.js";
import type { StartVariancePrior } from "../../stats/two-level.js";
import { startOf } from "../inputs/server-starts.js";
import type {
  SpecDecodeCell,
  SpecDecodeDecomposition,
  SpecDecodeFactor,
  SpecDecodeRole,
} from "../verdict/spec-decode-schema.js";
import type { ComparedCell } from "./cells.js";

/**
 * Speculative decoding explained (docs/metrics.md, "Speculative decoding"): per compared cell whose runs
 * carry the acceptance counters, each side's acceptance, and the change of its TPOT and output throughput
 * taken apart into its two factors.
 *
 * A request's decode is a sequence of engine steps; with one draft round per step, a step gives it the
 * mean acceptance length L = 1 + accepted tokens / draft rounds (vLLM's counters, deltas over the measured
 * phase). So TPOT = (time per step) / L and output throughput = (request-steps per second) × L. Per run,
 * time per step = TPOT × L and steps per second = throughput / L; each factor is compared as a metric is
 * (per-run logs, `logRatioInterval`), so on the same runs the metric's ratio is exactly the factors'
 * quotient (TPOT) or product (throughput), each with its own interval.
 *
 * Which factor explains the change: one whose interval excludes no change and whose change (log scale) is
 * at least `mainShare` of the larger factor's. The smaller one can still be beyond noise (fewer prefills
 * share a step when each request needs more steps; a few draws of acceptance), which the report says
 * as a small part, not as a cause.
 */
const mainShare = 0.25;

export interface SpecDecodeSettings {
  /** gate.metrics: the TPOT statistics among them are taken apart. */
  gatedMetrics: readonly MetricName[];
  /** Per-side level of the intervals (the checks' ci90 is 1 − 2·passAlpha). */
  passAlpha: number;
  minRunSd: number;
  /** Variance more runs cannot shrink (stored mode's session drift) of a metric's logs. */
  driftVarianceFor: (metric: MetricName) => number;
  /** The start-to-start variance believed for a cell's metric (interleaved mode), as the checks take it. */
  startPriorFor?: (cell: string, metric: MetricName) => StartVariancePrior | undefined;
}

const lengthMetric: MetricName = "spec_decode_acceptance_length";
const rateMetric: MetricName = "spec_decode_acceptance_rate";

function isTpot(metric: MetricName): boolean {
  const source = metricSpecs[metric].source;
  return source.kind === "latency" && source.phase === "tpot";
}

/**
 * The metrics taken apart: the TPOT statistics of gate.metrics (TPOT mean when it names none, the one the
 * relation holds for most directly) and output throughput.
 */
function decomposedMetrics(gatedMetrics: readonly MetricName[]): MetricName[] {
  const gatedTpot = gatedMetrics.filter(isTpot);
  return [...(gatedTpot.length > 0 ? gatedTpot : (["tpot_mean"] as const)), "output_throughput"];
}

function positive(run: RunRecord, metric: MetricName): number | null {
  const value = run.metrics[metric];
  return value !== undefined && value !== null && Number.isFinite(value) && value > 0 ? value : null;
}

function geometricMean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return Math.exp(values.reduce((sum, value) => sum + Math.log(value), 0) / values.length);
}

function sideOf(runs: readonly RunRecord[]): SpecDecodeCell["baseline"] {
  const lengths = runs.flatMap((run) => positive(run, lengthMetric) ?? []);
  const rates = runs.flatMap((run) => positive(run, rateMetric) ?? []);
  return {
    runs: lengths.length,
    acceptanceRate: geometricMean(rates),
    acceptanceLength: geometricMean(lengths),
  };
}

export function explainSpecDecode(
  compared: readonly ComparedCell[],
  settings: SpecDecodeSettings,
): SpecDecodeCell[] {
  const metrics = decomposedMetrics(settings.gatedMetrics);
  const cells: SpecDecodeCell[] = [];
  for (const { cell, base, cand } of compared) {
    const baseline = sideOf(base);
    const candidate = sideOf(cand);
    // A cell whose server does not speculate has nothing to explain.
    if (baseline.runs === 0 && candidate.runs === 0) continue;
    const decompositions: SpecDecodeDecomposition[] = [];
    for (const metric of metrics) {
      const decomposition = decompose(cell, metric, base, cand, settings);
      if (decomposition !== null) decompositions.push(decomposition);
    }
    const fewest = Math.min(baseline.runs, candidate.runs);
    cells.push({
      cell,
      baseline,
      candidate,
      decompositions,
      note:
        decompositions.length > 0
          ? null
          : fewest < 2
            ? `${fewest === baseline.runs ? "the baseline" : "the candidate"} has ${fewest} usable run${fewest === 1 ? "" : "s"} with the acceptance counters: taking a change apart needs 2 per side`
            : "no run has both the acceptance counters and TPOT or output throughput",
    });
  }
  return cells;
}

/** One metric's change taken apart over the runs that have it and the acceptance length; null under 2 a side. */
function decompose(
  cell: string,
  metric: MetricName,
  base: readonly RunRecord[],
  cand: readonly RunRecord[],
  settings: SpecDecodeSettings,
): SpecDecodeDecomposition | null {
  const pairs = (runs: readonly RunRecord[]) =>
    runs.flatMap((run) => {
      const value = positive(run, metric);
      const length = positive(run, lengthMetric);
      return value !== null && length !== null ? [{ value, length, start: startOf(run) }] : [];
    });
  const b = pairs(base);
  const c = pairs(cand);
  if (b.length < 2 || c.length < 2) return null;
  const throughput = metricSpecs[metric].higherIsBetter;
  // Time per step = TPOT × L; request-steps per second = throughput / L.
  const perStep = (pair: { value: number; length: number; start: string }) =>
    throughput ? pair.value / pair.length : pair.value * pair.length;
  const starts = { baseline: b.map((pair) => pair.start), candidate: c.map((pair) => pair.start) };
  // Each factor with the drift and start prior of the metric whose noise it carries.
  const factor = (
    baseline: readonly number[],
    candidate: readonly number[],
    noiseOf: MetricName,
  ): SpecDecodeFactor => {
    const startPrior = settings.startPriorFor?.(cell, noiseOf);
    const { ratio, interval } = logRatioInterval(baseline, candidate, {
      alphaEachSide: settings.passAlpha,
      minRunSd: settings.minRunSd,
      extraVariance: settings.driftVarianceFor(noiseOf),
      starts,
      ...(startPrior ? { startPrior } : {}),
    });
    return { ratio, ci: interval, significant: interval[0] > 1 || interval[1] < 1 };
  };
  const change = factor(
    b.map((pair) => pair.value),
    c.map((pair) => pair.value),
    metric,
  );
  const acceptanceLength = factor(
    b.map((pair) => pair.length),
    c.map((pair) => pair.length),
    lengthMetric,
  );
  const step = factor(b.map(perStep), c.map(perStep), metric);
  const larger = Math.max(Math.abs(Math.log(acceptanceLength.ratio)), Math.abs(Math.log(step.ratio)));
  const role = (f: SpecDecodeFactor): SpecDecodeRole =>
    !f.significant ? "within-noise" : Math.abs(Math.log(f.ratio)) >= mainShare * larger ? "main" : "minor";
  const acceptanceRole = role(acceptanceLength);
  const stepRole = role(step);
  return {
    metric,
    higherIsBetter: throughput,
    runs: { baseline: b.length, candidate: c.length },
    change,
    acceptanceLength: { ...acceptanceLength, role: acceptanceRole },
    perStep: { ...step, kind: throughput ? "steps-per-second" : "time-per-step", role: stepRole },
    explainedBy:
      acceptanceRole === "main"
        ? stepRole === "main"
          ? "both"
          : "acceptance"
        : stepRole === "main"
          ? "step"
          : "neither",
  };
}
