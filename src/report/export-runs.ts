import { flattenFingerprint } from "../compare/inputs/fingerprint.js";
import type { Comparison, VerdictFile } from "../compare/verdict/verdict-schema.js";
import { type MetricName, metricSpecs } from "../config/metric-names.js";
import type { RunRecord } from "../metrics/run-record.js";

/**
 * One dashboard export format, declared in its own module (export-pytorch.ts, export-bencher.ts) and
 * registered in export-formats.ts: the file it adds and its content, of a comparison (compare's
 * `--format`, in its --out directory) and of one run (run's `--format`, beside the run's run.json).
 */
export interface ExportFormat {
  readonly fileName: string;
  ofComparison(verdict: VerdictFile, runs: ExportRuns | undefined): unknown;
  ofRun(run: RunRecord, info: { side?: string | undefined; toolVersion: string }): unknown;
}

/**
 * What the dashboard exports share: the run records a comparison read, and per comparison the
 * values of the runs it used on one side (excluded and screened runs left out), in input order.
 */
export interface ExportRuns {
  baseline: readonly RunRecord[];
  candidate: readonly RunRecord[];
}

export type ExportSide = "baseline" | "candidate";

/** The per-run values behind one side of a comparison: runs the verdict used, in this cell. */
export function usedRunValues(
  verdict: VerdictFile,
  runs: ExportRuns | undefined,
  comparison: Comparison,
  side: ExportSide,
): number[] {
  if (!runs) return [];
  const used = new Set(
    verdict.runs.used
      .filter((ref) => ref.side === side && ref.cell === comparison.cell)
      .map((ref) => ref.source),
  );
  return runs[side]
    .filter((run) => used.has(run.source))
    .map((run) => run.metrics[comparison.metric])
    .filter((value): value is number => typeof value === "number" && Number.isFinite(value));
}

/** The model of one run, from its recorded conditions (as modelOf reads a side's). */
export function runModelOf(run: RunRecord): string {
  const fingerprint = flattenFingerprint(run.fingerprint);
  const name = fingerprint["model.name"] ?? fingerprint.model_id;
  return typeof name === "string" && name.length > 0 ? name : "unknown";
}

/** A run's metrics that have a finite value, in the order metricSpecs lists them. */
export function finiteRunMetrics(run: RunRecord): [MetricName, number][] {
  return (Object.keys(metricSpecs) as MetricName[]).flatMap((metric) => {
    const value = run.metrics[metric];
    return typeof value === "number" && Number.isFinite(value)
      ? [[metric, value] as [MetricName, number]]
      : [];
  });
}

/** The model of one side, from its recorded conditions (run.json's `model.name`, vLLM's `model_id`). */
export function modelOf(verdict: VerdictFile, side: ExportSide): string {
  const fingerprint = verdict.fingerprints[side];
  const name = fingerprint["model.name"] ?? fingerprint.model_id;
  return typeof name === "string" && name.length > 0 ? name : "unknown";
}
