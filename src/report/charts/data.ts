import type { LoadedRunSamples } from "../../compare/inputs/run-samples.js";
import type {
  CapacityComparison,
  CapacityCurvePoint,
  SweepCurve,
} from "../../compare/verdict/capacity-schema.js";
import type { Comparison, VerdictFile } from "../../compare/verdict/verdict-schema.js";
import type { LatencyPhase, MetricName } from "../../config/metric-names.js";
import { latencyPhases } from "../../config/metric-names.js";
import type { RunRecord } from "../../metrics/run-record.js";
import type { ScrapePoint } from "../../metrics/server-metrics.js";
import { type DepthBucket, depthBuckets } from "../../metrics/session-metrics.js";
import { percentileSorted, sortNumbers } from "../../stats/percentile.js";

/**
 * What the charts are drawn from, reduced from the verdict, the run records and (where the results
 * directories have them) each used run's requests.jsonl and scrapes.jsonl. Pure: the files are read by
 * compare/inputs/run-samples.ts. Strings here come from the redacted verdict only.
 */

export type Side = "baseline" | "candidate";

/** One run's value of one metric, and whether compare used the run. */
interface RunValue {
  side: Side;
  run: number | null;
  value: number;
  used: boolean;
}

/** A gated check with every run of both sides behind it. */
export interface CheckPicture {
  comparison: Comparison;
  runs: RunValue[];
}

/**
 * Per-request samples of one used run (requests.jsonl) and its scrapes, as compare/inputs/run-samples.ts
 * loads them.
 */
export type RunSamples = LoadedRunSamples;

/** A side's distribution as (value, cumulative fraction) points, thinned to at most a few hundred. */
export interface SideDistribution {
  count: number;
  points: [number, number][];
  p50: number;
  p95: number;
  p99: number;
}

export interface DistributionPicture {
  phase: LatencyPhase;
  baseline: SideDistribution | null;
  candidate: SideDistribution | null;
}

export interface TimelinePicture {
  side: Side;
  run: number | null;
  /** [atMs, ttftMs] per request, thinned to at most `maxTimelineDots`. */
  ttft: [number, number][];
  /** ITL p50 and p99 per time bin. */
  itl: { fromMs: number; toMs: number; p50: number; p99: number }[];
  failedAt: number[];
  scrapes: ScrapePoint[];
  /** Scrape times where the preemption counter rose, with how many were added. */
  preemptions: { atMs: number; added: number }[];
  endMs: number;
}

export interface CellPictures {
  cell: string;
  checks: CheckPicture[];
  distributions: DistributionPicture[];
  timeline: TimelinePicture | null;
  /** A capacity cell's check with both sides' load curves (verdict.json `capacity`); absent otherwise. */
  capacity?: CapacityComparison;
  /** A sweep compared without a capacity config: both sides' load curves (verdict.json `sweeps`). */
  sweep?: SweepCurve;
  /** A session cell's TTFT p95 per context-depth bucket, both sides (run.json `sessions`); absent otherwise. */
  depth?: DepthPicture;
  /** Why a chart is missing (no requests.jsonl, no scrapes): said in the page. */
  notes: string[];
}

/** A context-depth bucket as the charts name it: its turn numbers ("1", "2-3", "8 and up"). */
export interface DepthBucketAxis {
  bucket: DepthBucket;
  label: string;
}

/**
 * TTFT p95 against context depth (report/charts/depth.ts, the comment's chart in mermaid.ts): each run's
 * value per bucket, and per side the geometric mean compare judged (verdict.json comparisons of
 * `ttft_p95_depth_*`, the central value the other per-run charts draw), only the buckets with data.
 */
export interface DepthPicture {
  cell: string;
  /** The buckets some run of either side has a value in, shallow to deep. */
  buckets: DepthBucketAxis[];
  runs: (RunValue & { bucket: DepthBucket })[];
  /** Per side, per drawn bucket: the verdict's geometric mean, null where the side has none. */
  means: { side: Side; bucket: DepthBucket; value: number | null }[];
}

/** One line of a load chart: a side of a comparison, or the one side `run --sweep` measured. */
export interface LoadCurveSeries {
  side: Side | "measured";
  points: CapacityCurvePoint[];
  /** The side's capacity point (a capacity cell), or null: a sweep has none. */
  capacity: { load: number; bound: "inside" | "above" | "below" | null } | null;
}

/**
 * What the load charts draw (report/charts/load-curve.ts), the same for a capacity cell, a sweep
 * compared without a capacity config, and one side's `run --sweep` report.
 */
export interface LoadCurvePicture {
  cell: string;
  dimension: "rate" | "concurrency";
  /** The percentile the latency figures are read at (the capacity percentile, p95 for a sweep). */
  percentile: string;
  slo: { ttft_ms?: number; e2el_ms?: number };
  /** capacity: each series may have a capacity point; sweep: none was searched. */
  kind: "capacity" | "sweep";
  series: LoadCurveSeries[];
}

const sideNames = ["baseline", "candidate"] as const;

/** A capacity check's load curves (null when the verdict carries none: older verdicts). */
export function capacityLoadPicture(check: CapacityComparison): LoadCurvePicture | null {
  const curve = check.curve;
  if (!curve) return null;
  return {
    cell: check.cell,
    dimension: check.dimension,
    percentile: check.percentile,
    slo: check.slo,
    kind: "capacity",
    series: sideNames.map((side) => ({
      side,
      points: curve[side],
      capacity:
        check[side].capacity === null ? null : { load: check[side].capacity!, bound: check[side].bound },
    })),
  };
}

/** A sweep's load curves, no capacity point on either side. */
export function sweepLoadPicture(sweep: SweepCurve): LoadCurvePicture {
  return {
    cell: sweep.cell,
    dimension: sweep.dimension,
    percentile: sweep.percentile,
    slo: sweep.slo,
    kind: "sweep",
    series: sideNames.map((side) => ({ side, points: sweep.curve[side], capacity: null })),
  };
}

/** The load picture of a cell of the report: its capacity check's, else its sweep's, else null. */
export function cellLoadPicture(cell: CellPictures): LoadCurvePicture | null {
  if (cell.capacity) return capacityLoadPicture(cell.capacity);
  return cell.sweep ? sweepLoadPicture(cell.sweep) : null;
}

export interface ReportPictures {
  verdict: VerdictFile;
  cells: CellPictures[];
}

/** Most points one distribution curve is drawn with. */
const maxDistributionPoints = 200;
/** Most TTFT dots one timeline draws (every k-th request beyond that). */
const maxTimelineDots = 1500;
/** Time bins of the ITL lines in a timeline. */
const timelineBins = 60;

/** The cumulative distribution of `values`, at evenly spaced fractions plus the far tail. */
export function distributionOf(values: readonly number[]): SideDistribution | null {
  const finite = values.filter((v) => Number.isFinite(v) && v >= 0);
  if (finite.length === 0) return null;
  const sorted = sortNumbers(finite);
  const n = sorted.length;
  const fractions = new Set<number>();
  const steps = Math.min(maxDistributionPoints - 8, n);
  for (let i = 0; i <= steps; i++) fractions.add(i / steps);
  for (const tail of [0.9, 0.95, 0.98, 0.99, 0.995, 0.999]) fractions.add(tail);
  const points = [...fractions]
    .sort((a, b) => a - b)
    .map((q) => [percentileSorted(sorted, q), q] as [number, number]);
  return {
    count: n,
    points,
    p50: percentileSorted(sorted, 0.5),
    p95: percentileSorted(sorted, 0.95),
    p99: percentileSorted(sorted, 0.99),
  };
}

const runKey = (side: Side, cell: string, run: number | null, source: string) =>
  JSON.stringify([side, cell, run, source]);

/** A run record of a side under its cell name as the verdict holds it, used or excluded as the verdict says. */
interface MatchedRecord {
  side: Side;
  record: RunRecord;
  cell: string;
  used: boolean;
}

/** Run records are matched to the verdict (cleaned of secrets before rendering) through `asInVerdict`. */
function matchedRecords(
  verdict: VerdictFile,
  runs: { baseline: readonly RunRecord[]; candidate: readonly RunRecord[] },
  asInVerdict: (text: string) => string,
): MatchedRecord[] {
  const used = new Set(verdict.runs.used.map((r) => runKey(r.side, r.cell, r.run, r.source)));
  return [
    ...runs.baseline.map((record) => ({ side: "baseline" as const, record })),
    ...runs.candidate.map((record) => ({ side: "candidate" as const, record })),
  ].map(({ side, record }) => ({
    side,
    record,
    cell: asInVerdict(record.cell),
    used: used.has(runKey(side, asInVerdict(record.cell), record.run, asInVerdict(record.source))),
  }));
}

/** Every run of a cell with a finite value of `metric`, baseline first, each side in run order. */
function runValuesOf(records: readonly MatchedRecord[], cell: string, metric: MetricName): RunValue[] {
  const values: RunValue[] = [];
  for (const entry of records) {
    if (entry.cell !== cell) continue;
    const value = entry.record.metrics[metric];
    if (value === null || value === undefined || !Number.isFinite(value)) continue;
    values.push({ side: entry.side, run: entry.record.run, value, used: entry.used });
  }
  values.sort((a, b) => (a.side === b.side ? (a.run ?? -1) - (b.run ?? -1) : a.side < b.side ? -1 : 1));
  return values;
}

/**
 * Every run of both sides, per gated check: the value compare judged (`judgedOn` when the metric was
 * stood in for), used or excluded as the verdict says.
 */
function checkPictures(
  verdict: VerdictFile,
  runs: { baseline: readonly RunRecord[]; candidate: readonly RunRecord[] },
  asInVerdict: (text: string) => string,
): CheckPicture[] {
  const records = matchedRecords(verdict, runs, asInVerdict);
  return verdict.comparisons
    .filter((c) => c.gated)
    .map((comparison) => ({
      comparison,
      runs: runValuesOf(records, comparison.cell, comparison.judgedOn ?? comparison.metric),
    }));
}

/** The catalogue metric of a depth bucket's TTFT p95 (config/metric-names.ts). */
export const depthMetric = (bucket: DepthBucket) => `ttft_p95_depth_${bucket}` as const;

/** The depth buckets in order with their labels: the turn numbers each holds (1-based). */
export const depthAxis: readonly DepthBucketAxis[] = depthBuckets.map((bucket) => ({
  bucket: bucket.name,
  label:
    bucket.to === null
      ? `${bucket.from} and up`
      : bucket.to === bucket.from
        ? `${bucket.from}`
        : `${bucket.from}-${bucket.to}`,
}));

/**
 * A cell's TTFT p95 against context depth, or null when no run of it has a depth value (not a session
 * cell). The means are the verdict's comparisons of the depth metrics: what compare judged.
 */
function depthPicture(
  verdict: VerdictFile,
  records: readonly MatchedRecord[],
  cell: string,
): DepthPicture | null {
  const runs = depthAxis.flatMap(({ bucket }) =>
    runValuesOf(records, cell, depthMetric(bucket)).map((run) => ({ ...run, bucket })),
  );
  if (runs.length === 0) return null;
  const buckets = depthAxis.filter(({ bucket }) => runs.some((run) => run.bucket === bucket));
  const means = sideNames.flatMap((side) =>
    buckets.map(({ bucket }) => {
      const comparison = verdict.comparisons.find((c) => c.cell === cell && c.metric === depthMetric(bucket));
      const value = comparison?.[side] ?? null;
      return { side, bucket, value: value !== null && Number.isFinite(value) ? value : null };
    }),
  );
  return { cell, buckets, runs, means };
}

function pooled(samples: readonly RunSamples[], phase: LatencyPhase): number[] {
  const out: number[] = [];
  for (const s of samples) for (const v of s[phase]) out.push(v);
  return out;
}

/** One run's timeline: TTFT dots, binned ITL p50/p99, scrapes and the preemptions between them. */
export function timelineOf(samples: RunSamples): TimelinePicture {
  const stride = Math.max(1, Math.ceil(samples.ttft.length / maxTimelineDots));
  const ttft: [number, number][] = [];
  for (let i = 0; i < samples.ttft.length; i += stride) ttft.push([samples.ttftAt[i]!, samples.ttft[i]!]);
  ttft.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let endMs = 0;
  for (const at of [...samples.ttftAt, ...samples.itlAt, ...samples.failedAt]) if (at > endMs) endMs = at;
  for (const scrape of samples.scrapes) if (scrape.atMs > endMs) endMs = scrape.atMs;
  const itl: TimelinePicture["itl"] = [];
  if (samples.itl.length > 0 && endMs > 0) {
    const width = endMs / timelineBins;
    const bins: number[][] = Array.from({ length: timelineBins }, () => []);
    for (let i = 0; i < samples.itl.length; i++) {
      const bin = Math.min(timelineBins - 1, Math.max(0, Math.floor(samples.itlAt[i]! / width)));
      bins[bin]!.push(samples.itl[i]!);
    }
    bins.forEach((values, i) => {
      if (values.length === 0) return;
      const sorted = sortNumbers(values);
      itl.push({
        fromMs: i * width,
        toMs: (i + 1) * width,
        p50: percentileSorted(sorted, 0.5),
        p99: percentileSorted(sorted, 0.99),
      });
    });
  }
  const scrapes = [...samples.scrapes].sort((a, b) => a.atMs - b.atMs);
  const preemptions: TimelinePicture["preemptions"] = [];
  for (let i = 1; i < scrapes.length; i++) {
    const before = scrapes[i - 1]!.preemptionsTotal;
    const now = scrapes[i]!.preemptionsTotal;
    if (before !== null && now !== null && now > before)
      preemptions.push({ atMs: scrapes[i]!.atMs, added: now - before });
  }
  return {
    side: samples.side,
    run: samples.run,
    ttft,
    itl,
    failedAt: [...samples.failedAt].sort((a, b) => a - b),
    scrapes,
    preemptions,
    endMs,
  };
}

/**
 * The pictures of every cell of the verdict. Distributions pool the used runs of each side; the
 * timeline is the candidate's first used run with samples (the baseline's when the candidate has none).
 */
export function reportPictures(
  verdict: VerdictFile,
  runs: { baseline: readonly RunRecord[]; candidate: readonly RunRecord[] },
  samples: readonly RunSamples[],
  asInVerdict: (text: string) => string,
  notes: readonly { cell: string | null; note: string }[] = [],
): ReportPictures {
  const checks = checkPictures(verdict, runs, asInVerdict);
  const records = matchedRecords(verdict, runs, asInVerdict);
  const sweeps = new Map((verdict.sweeps ?? []).map((sweep) => [sweep.cell, sweep]));
  const cells = verdict.cells.map((cell): CellPictures => {
    const mine = samples
      .filter((s) => asInVerdict(s.cell) === cell.name)
      .sort((a, b) => (a.side === b.side ? (a.run ?? -1) - (b.run ?? -1) : a.side < b.side ? -1 : 1));
    const bySide = (side: Side) => mine.filter((s) => s.side === side);
    const cellNotes = notes.filter((n) => n.cell === null || n.cell === cell.name).map((n) => n.note);
    const distributions: DistributionPicture[] =
      mine.length === 0
        ? []
        : latencyPhases.flatMap((phase) => {
            const baseline = pooled(bySide("baseline"), phase);
            const candidate = pooled(bySide("candidate"), phase);
            // A later phase (the answer after reasoning) exists only where requests reasoned: no empty chart.
            if (baseline.length === 0 && candidate.length === 0) return [];
            return [{ phase, baseline: distributionOf(baseline), candidate: distributionOf(candidate) }];
          });
    if (mine.length === 0)
      cellNotes.push(
        "No per-request records (requests.jsonl) next to the used runs: the distributions and the run timeline need results directories written by `run`.",
      );
    const timelineRun =
      bySide("candidate").find((s) => s.ttft.length > 0) ?? bySide("baseline").find((s) => s.ttft.length > 0);
    const depth = depthPicture(verdict, records, cell.name);
    return {
      cell: cell.name,
      checks: checks.filter((c) => c.comparison.cell === cell.name),
      distributions,
      timeline: timelineRun ? timelineOf(timelineRun) : null,
      ...(sweeps.has(cell.name) ? { sweep: sweeps.get(cell.name)! } : {}),
      ...(depth ? { depth } : {}),
      notes: cellNotes,
    };
  });
  // Capacity cells are compared apart from the fixed-load cells (compare/capacity/capacity.ts): their
  // pictures are the load curves the verdict carries.
  for (const check of verdict.capacity ?? []) {
    const existing = cells.find((cell) => cell.cell === check.cell);
    if (existing) existing.capacity = check;
    else
      cells.push({
        cell: check.cell,
        checks: [],
        distributions: [],
        timeline: null,
        capacity: check,
        notes: notes.filter((n) => n.cell === null || n.cell === check.cell).map((n) => n.note),
      });
  }
  return { verdict, cells };
}
