import { z } from "zod";
import { flattenFingerprint } from "../compare/inputs/fingerprint.js";
import type { VerdictFile } from "../compare/verdict/verdict-schema.js";
import { metricSpecs } from "../config/metric-names.js";
import type { RunRecord } from "../metrics/run-record.js";
import {
  type ExportFormat,
  type ExportRuns,
  type ExportSide,
  finiteRunMetrics,
  modelOf,
  runModelOf,
  usedRunValues,
} from "./export-runs.js";

/**
 * A comparison as PyTorch OSS benchmark records (the "v3" shape), the format vLLM writes with
 * SAVE_TO_PYTORCH_BENCHMARK_FORMAT and the PyTorch HUD reads from the ClickHouse table
 * `oss_ci_benchmark_v3` (pytorch/test-infra clickhouse_db_schema/oss_ci_benchmark_v3/schema.sql). One
 * record per cell, metric and side: `metric.benchmark_values` holds the value of every run the verdict
 * used on that side (the schema's list "for multiple runs"), `extra_info` maps hold strings only (the
 * table's Map(String, String)). Job metadata (timestamp, repo, head_sha, workflow_id, ...) is added by
 * the uploader, as for vLLM's records, and is not written here.
 */

const stringMap = z.record(z.string(), z.string());

const pytorchRecordSchema = z
  .object({
    benchmark: z
      .object({ name: z.string(), mode: z.string(), dtype: z.string(), extra_info: stringMap })
      .strict(),
    model: z
      .object({
        name: z.string(),
        type: z.string(),
        backend: z.string(),
        origins: z.array(z.string()),
        extra_info: stringMap,
      })
      .strict(),
    metric: z
      .object({
        name: z.string(),
        benchmark_values: z.array(z.number().finite()).min(1),
        target_value: z.number().finite(),
        extra_info: stringMap,
      })
      .strict(),
  })
  .strict();

export type PytorchRecord = z.infer<typeof pytorchRecordSchema>;

const pytorchBenchmarkName = "vllm-perf-gate";

function text(value: number | null | undefined): string {
  return value === null || value === undefined ? "" : String(value);
}

/** One record: the parts every record shares (benchmark name, mode, backend) and what differs. */
function pytorchRecord(parts: {
  benchmarkInfo: Record<string, string>;
  model: string;
  modelInfo: Record<string, string>;
  metric: string;
  values: number[];
  metricInfo: Record<string, string>;
}): PytorchRecord {
  return pytorchRecordSchema.parse({
    benchmark: { name: pytorchBenchmarkName, mode: "inference", dtype: "", extra_info: parts.benchmarkInfo },
    model: { name: parts.model, type: "", backend: "vllm", origins: [], extra_info: parts.modelInfo },
    metric: {
      name: parts.metric,
      benchmark_values: parts.values,
      target_value: 0,
      extra_info: parts.metricInfo,
    },
  });
}

/**
 * One run (`run --format pytorch`) as PyTorch OSS benchmark records: one record per metric with the
 * run's value as its one `benchmark_values` entry; `extra_info` names the cell, the run and its side.
 */
function runToPytorchRecords(
  run: RunRecord,
  info: { side?: string | undefined; toolVersion: string },
): PytorchRecord[] {
  const revision = flattenFingerprint(run.fingerprint)["model.revision"];
  return finiteRunMetrics(run).map(([metric, value]) =>
    pytorchRecord({
      benchmarkInfo: {
        cell: run.cell,
        run: text(run.run),
        ...(info.side ? { side: info.side } : {}),
        started_at: run.startedAt ?? "",
        tool_version: info.toolVersion,
      },
      model: runModelOf(run),
      modelInfo: typeof revision === "string" ? { revision } : {},
      metric,
      values: [value],
      metricInfo: {
        unit: metricSpecs[metric].unit,
        higher_is_better: String(metricSpecs[metric].higherIsBetter),
        requests_completed: String(run.requests.completed),
        requests_failed: String(run.requests.failed),
      },
    }),
  );
}

export function toPytorchRecords(verdict: VerdictFile, runs?: ExportRuns): PytorchRecord[] {
  const records: PytorchRecord[] = [];
  for (const c of verdict.comparisons) {
    for (const side of ["baseline", "candidate"] as const satisfies readonly ExportSide[]) {
      const mean = c[side];
      if (mean === null || !Number.isFinite(mean)) continue;
      const perRun = usedRunValues(verdict, runs, c, side);
      const revision = verdict.fingerprints[side]["model.revision"];
      records.push(
        pytorchRecord({
          benchmarkInfo: {
            cell: c.cell,
            side,
            comparison_mode: verdict.mode,
            overall_verdict: verdict.verdict,
            tool_version: verdict.tool.version,
          },
          model: modelOf(verdict, side),
          modelInfo: typeof revision === "string" ? { revision } : {},
          metric: c.metric,
          // Without the runs (a verdict read back), the side's geometric mean stands for them.
          values: perRun.length > 0 ? perRun : [mean],
          metricInfo: {
            unit: metricSpecs[c.metric].unit,
            higher_is_better: String(c.higherIsBetter),
            geometric_mean: String(mean),
            runs: String(c.runs[side]),
            gated: String(c.gated),
            ...(side === "candidate"
              ? {
                  verdict: c.verdict,
                  change_ratio: text(c.ratio),
                  decision_interval_low: text(c.ci?.[0]),
                  decision_interval_high: text(c.ci?.[1]),
                  tolerance: String(c.tolerance),
                }
              : {}),
          },
        }),
      );
    }
  }
  return records;
}

export const pytorchExport: ExportFormat = {
  fileName: "pytorch-benchmark.json",
  ofComparison: toPytorchRecords,
  ofRun: runToPytorchRecords,
};
