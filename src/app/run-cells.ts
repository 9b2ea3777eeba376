import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type RunFile, runFileSchema } from "../metrics/run-schema.js";
import { runName } from "../runner/progress.js";
import * as runner from "../runner/run-cells.js";
import type { RunRecorder } from "../runner/run-recorder.js";
import type { Outbound } from "../server/outbound.js";
import { InputError } from "../util/errors.js";
import { writeRunOutputs } from "./run-outputs.js";

/**
 * The run-cells use case (the CLI's `run`, the action's measuring, the demo): the runner measures, and
 * the summarising step injected here turns each finished run into run.json (metrics/' definitions,
 * ./run-file.ts) and, when asked, vllm-result.json (./run-outputs.ts).
 */

/** run.json as the recorder of every run: written when the run ends, rewritten when an interrupt marks it. */
const runFileRecorder: RunRecorder<RunFile> = {
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
function markInterrupted(dir: string, file: RunFile, reason: string, outbound: Outbound): RunFile {
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
  outbound.writeFileSync(join(dir, "run.json"), `${JSON.stringify(marked, null, 2)}\n`);
  return marked;
}

function fmt(value: number | null, digits = 1): string {
  return value === null ? "-" : value.toFixed(digits);
}

function summaryLine(file: RunFile): string {
  const flags = [
    file.flags.clientBound ? `CLIENT-BOUND (${file.flags.clientBoundReason})` : "",
    file.flags.serverStarved ? `SERVER HOST STARVED (${file.flags.serverStarvedReason})` : "",
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
    elidedText(file) +
    (flags.length > 0 ? `  [${flags.join("; ")}]` : "")
  );
}

/** ", 212 s of 480 s idle elided" where the schedule cut idle time (docs/run.md, Schedules). */
function elidedText(file: RunFile): string {
  const schedule = file.load.schedule;
  if (!schedule || schedule.elidedS <= 0) return "";
  return `, ${fmt(schedule.elidedS, 0)} s of ${fmt(file.durationS, 0)} s idle elided`;
}

/** The run indices k of the `run-<k>` directories of one cell directory (none when it does not exist). */
export function existingRunIndices(cellDir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(cellDir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const match = /^run-(\d+)$/.exec(name);
    return match ? [Number(match[1])] : [];
  });
}

/**
 * Where each selected cell's runs start in DIR: 0 for a cell without runs there; with `append`, one
 * past the highest existing run-<k>. Without `append`, existing runs are refused (exit 2, naming the
 * directory), since writing run-0 again would silently replace what was measured.
 */
export function firstRunsIn(
  outDir: string,
  cells: readonly string[],
  append: boolean,
): Record<string, number> {
  const first: Record<string, number> = {};
  const occupied: string[] = [];
  for (const cell of cells) {
    const cellDir = join(outDir, cell);
    const indices = existingRunIndices(cellDir);
    if (indices.length === 0) first[cell] = 0;
    else {
      const highest = Math.max(...indices);
      first[cell] = highest + 1;
      occupied.push(`${cellDir} (${indices.length} run(s), up to run-${highest})`);
    }
  }
  if (occupied.length > 0 && !append) {
    throw new InputError(
      `--out ${outDir} already has runs, which this run would overwrite: ${occupied.join(", ")}; nothing was run. Add --append to add runs after them (run-<k> continues from the highest k), or choose another --out`,
    );
  }
  return first;
}
