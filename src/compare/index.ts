import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadConfig } from "../config/load.js";
import type { Config, GateConfig } from "../config/schema.js";
import { configSchema } from "../config/schema.js";
import { renderMarkdown } from "../report/markdown.js";
import { toolName, toolVersion } from "../version.js";
import { analyze } from "./analyze.js";
import { runMinutesOf } from "./cost.js";
import { loadRuns } from "./load.js";
import type { RunRecord } from "./run-record.js";
import type { BaselineInfo, ComparisonMode, VerdictFile } from "./verdict-schema.js";

export type { RunRecord } from "./run-record.js";
export type { BaselineInfo, Comparison, ComparisonMode, VerdictFile } from "./verdict-schema.js";
export { verdictFileSchema } from "./verdict-schema.js";

/** What compare needs of the config; everything else in it is irrelevant here. */
export interface CompareSettings {
  gate: GateConfig;
  repeats: { min: number; max: number };
  /** Minutes of one cell-run for GPU-time estimates (the config's duration_s; default 1). */
  runMinutes?: number;
}

export function defaultCompareSettings(): CompareSettings {
  return {
    gate: configSchema.shape.gate.parse(undefined),
    repeats: configSchema.shape.repeats.parse(undefined),
  };
}

export function settingsFromConfig(config: Config): CompareSettings {
  const minutes = config.cells.map((cell) => runMinutesOf(cell.size));
  const runMinutes = minutes.reduce((sum, m) => sum + m, 0) / Math.max(1, minutes.length);
  return { gate: config.gate, repeats: config.repeats, runMinutes };
}

export interface CompareRecordsInput {
  baseline: readonly RunRecord[];
  candidate: readonly RunRecord[];
  settings?: CompareSettings;
  mode?: ComparisonMode;
  baselineInfo?: BaselineInfo | null;
  now?: Date;
}

export interface CompareOutcome {
  verdict: VerdictFile;
  reportMarkdown: string;
  /** 0 gate passes, 1 gate fails (fail_on policy). Invalid input throws InputError instead (exit 2). */
  exitCode: 0 | 1;
}

/** Pure: decide and render from run records already in memory. */
export function compareRecords(input: CompareRecordsInput): CompareOutcome {
  const settings = input.settings ?? defaultCompareSettings();
  const verdict = analyze({
    baseline: input.baseline,
    candidate: input.candidate,
    gate: settings.gate,
    repeats: settings.repeats,
    ...(settings.runMinutes === undefined ? {} : { runMinutes: settings.runMinutes }),
    mode: input.mode ?? "stored",
    baselineInfo: input.baselineInfo ?? null,
    now: (input.now ?? new Date()).toISOString(),
    tool: { name: toolName, version: toolVersion },
  });
  return { verdict, reportMarkdown: renderMarkdown(verdict), exitCode: verdict.exitCode };
}

export interface CompareResultsInput {
  /** Results directories written by `run`, or `vllm bench serve` result files. */
  baseline: readonly string[];
  candidate: readonly string[];
  /** A parsed config, a path to one, or nothing for the defaults. */
  config?: Config | string;
  mode?: ComparisonMode;
  baselineInfo?: BaselineInfo | null;
  now?: Date;
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}

/** Loads both sides from disk (InputError on bad input) and compares them. */
export async function compareResults(input: CompareResultsInput): Promise<CompareOutcome> {
  let settings = defaultCompareSettings();
  if (typeof input.config === "string") {
    const loaded = await loadConfig(input.config, { env: input.env, cwd: input.cwd });
    settings = settingsFromConfig(loaded.config);
  } else if (input.config) settings = settingsFromConfig(input.config);
  const baseline = await loadRuns(input.baseline, "baseline");
  const candidate = await loadRuns(input.candidate, "candidate");
  return compareRecords({
    baseline,
    candidate,
    settings,
    mode: input.mode,
    baselineInfo: input.baselineInfo,
    now: input.now,
  });
}

/** Writes DIR/verdict.json and DIR/report.md; returns their paths. */
export async function writeCompareOutputs(
  outDir: string,
  outcome: CompareOutcome,
): Promise<{ verdictPath: string; reportPath: string }> {
  await mkdir(outDir, { recursive: true });
  const verdictPath = join(outDir, "verdict.json");
  const reportPath = join(outDir, "report.md");
  await writeFile(verdictPath, `${JSON.stringify(outcome.verdict, null, 2)}\n`);
  await writeFile(reportPath, outcome.reportMarkdown);
  return { verdictPath, reportPath };
}
