import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RunFile, runFileSchema } from "../metrics/run-schema.js";
import { runName } from "../runner/progress.js";
import * as runner from "../runner/run-cells.js";
import type { RunRecorder } from "../runner/run-recorder.js";
import { writeRunOutputs } from "./run-outputs.js";

/**
 * The run-cells use case (the CLI's `run`, the action's measuring, the demo): the runner measures, and
 * the summarising step injected here turns each finished run into run.json (metrics/' definitions,
 * ./run-file.ts) and, when asked, vllm-result.json (./run-outputs.ts).
 */

/** run.json as the recorder of every run: written when the run ends, rewritten when an interrupt marks it. */
export const runFileRecorder: RunRecorder<RunFile> = {
  record: writeRunOutputs,
  markInterrupted,
  describe: summaryLine,
};

export type RunCellsOptions = Omit<runner.RunCellsOptions<RunFile>, "recorder">;
export type RunOutput = runner.RunOutput<RunFile>;
export type RunCellsResult = runner.RunCellsResult<RunFile>;

/** Runs every selected cell N times (runner/run-cells.ts) and writes each run's run.json. */
export function runCells(options: RunCellsOptions): Promise<RunCellsResult> {
  return runner.runCells({ ...options, recorder: runFileRecorder });
}

/**
 * Marks a run that an interrupt cut short: `flags.interrupted` names the signal (compare excludes the run
 * with that reason) and a note says what its records hold; run.json is rewritten in place.
 */
export function markInterrupted(
  dir: string,
  file: RunFile,
  reason: string,
  redact: (text: string) => string = (text) => text,
): RunFile {
  const cancelled = file.requests.errorsByKind.aborted ?? 0;
  const marked = runFileSchema.parse({
    ...file,
    flags: {
      ...file.flags,
      interrupted: reason,
      notes: [
        `interrupted by ${reason}: ${file.requests.total} request(s) recorded, ${cancelled} of them cancelled in flight (error kind "aborted"); the run is incomplete and excluded from comparisons`,
        ...file.flags.notes,
      ],
    },
  });
  writeFileSync(join(dir, "run.json"), redact(`${JSON.stringify(marked, null, 2)}\n`));
  return marked;
}

function fmt(value: number | null, digits = 1): string {
  return value === null ? "-" : value.toFixed(digits);
}

export function summaryLine(file: RunFile): string {
  const flags = [
    file.flags.clientBound ? `CLIENT-BOUND (${file.flags.clientBoundReason})` : "",
    file.flags.serverCrashed ? "SERVER CRASHED" : "",
    file.flags.interrupted
      ? `interrupted by ${file.flags.interrupted}`
      : file.flags.cutShort
        ? "cut short"
        : "",
    ...(file.flags.unusableReasons ?? []).map((reason) => `UNUSABLE (${reason})`),
  ].filter(Boolean);
  return (
    `${file.cell} ${runName(file.run)}: ${file.requests.completed}/${file.requests.total} ok` +
    `${
      file.requests.failed > 0
        ? ` (${Object.entries(file.requests.errorsByKind)
            .map(([kind, n]) => `${kind} ${n}`)
            .join(", ")})`
        : ""
    }` +
    `, ${fmt(file.throughput.output, 0)} out tok/s, TTFT p50 ${fmt(file.latency.ttft.p50)} ms` +
    `, TPOT p50 ${fmt(file.latency.tpot.p50, 2)} ms, E2E p95 ${fmt(file.latency.e2el.p95)} ms` +
    (flags.length > 0 ? `  [${flags.join("; ")}]` : "")
  );
}
