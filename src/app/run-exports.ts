import { join } from "node:path";
import { readRunFile } from "../compare/inputs/load.js";
import {
  type CompareExport,
  exportFormatNames,
  exportFormats,
  isExportFormat,
} from "../report/export-formats.js";
import type { OutputFormat } from "../runner/run-once.js";
import type { Outbound } from "../server/outbound.js";
import { UsageError } from "../util/errors.js";
import { toolVersion } from "../version.js";

/** What `run --format a,b` asks for: the runner's own formats (vllm) and the dashboard exports. */
export interface RunFormats {
  readonly runner: OutputFormat[];
  readonly exports: CompareExport[];
}

const runFormatNames = ["vllm", ...exportFormatNames] as const;

/** Parses `--format vllm,pytorch,bencher` (any of them, comma-separated; the exports are export-formats.ts's); none when not given. */
export function parseRunFormats(value: string | undefined): RunFormats {
  const runner: OutputFormat[] = [];
  const exports: CompareExport[] = [];
  if (value === undefined) return { runner, exports };
  for (const name of value.split(",").map((part) => part.trim())) {
    if (name === "vllm") runner.push("vllm");
    else if (isExportFormat(name)) exports.push(name);
    else {
      throw new UsageError(
        `--format expects ${runFormatNames.join(", ")} (comma-separated), got "${name || value}"`,
      );
    }
  }
  return { runner: [...new Set(runner)], exports: [...new Set(exports)] };
}

/**
 * Writes each run's dashboard exports beside its run.json (the same file names and shapes as compare's:
 * pytorch-benchmark.json, bencher.json), from run.json as written, through the job's output seam.
 * A run compare would not use (interrupted, cut short, client-bound) gets none: a dashboard would chart
 * it as a measurement. Returns the lines to print: what was written, what was skipped and why.
 */
export async function writeRunExports(
  runs: readonly { cell: string; run: number; dir: string }[],
  exports: readonly CompareExport[],
  side: string | undefined,
  outbound: Outbound,
): Promise<string[]> {
  if (exports.length === 0) return [];
  const written: string[] = [];
  const skipped: string[] = [];
  for (const run of runs) {
    const record = await readRunFile(join(run.dir, "run.json"), run.run);
    if (record.exclusionReasons.length > 0) {
      skipped.push(`${run.cell}/run-${run.run} (${record.exclusionReasons.join("; ")})`);
      continue;
    }
    for (const format of exports) {
      const { fileName, ofRun } = exportFormats[format];
      const content = ofRun(record, { side, toolVersion });
      await outbound.writeFile(join(run.dir, fileName), `${JSON.stringify(content, null, 2)}\n`);
    }
    written.push(`${run.cell}/run-${run.run}`);
  }
  const names = exports.map((format) => exportFormats[format].fileName).join(" and ");
  return [
    ...(written.length > 0 ? [`wrote ${names} for ${written.length} run(s)`] : []),
    ...(skipped.length > 0 ? [`no ${names} for runs compare would not use: ${skipped.join(", ")}`] : []),
  ];
}
