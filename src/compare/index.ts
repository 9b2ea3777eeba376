import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { loadConfig } from "../config/load.js";
import type { Config, GateConfig } from "../config/schema.js";
import { configSchema } from "../config/schema.js";
import { serverLifecycle, serverStartSeconds } from "../config/summary.js";
import type { RunRecord } from "../metrics/run-record.js";
import { reportPictures } from "../report/charts/data.js";
import { renderHtmlReport } from "../report/html/report-html.js";
import { renderMarkdown } from "../report/markdown.js";
import { createRedactor, credentialLikeValues, type Redactor, redactValue } from "../server/redact.js";
import { toolName, toolVersion } from "../version.js";
import { analyze } from "./analyze.js";
import { type CostModel, defaultCostModel, gpuMinutesSpent, runMinutesOf } from "./cost.js";
import { defaultInputLimits, type InputLimits } from "./input-limits.js";
import { loadRuns, loadSides } from "./load.js";
import { loadRunSamples } from "./run-samples.js";
import type { BaselineInfo, ComparisonMode, VerdictFile } from "./verdict-schema.js";

export type { RunRecord } from "../metrics/run-record.js";
export type { BaselineInfo, Comparison, ComparisonMode, VerdictFile } from "./verdict-schema.js";
export { verdictFileSchema } from "./verdict-schema.js";

/** What compare needs of the config; everything else in it is irrelevant here. */
export interface CompareSettings {
  gate: GateConfig;
  repeats: { min: number; max: number; block?: number };
  /** Minutes of one cell-run for GPU-time estimates (the config's duration_s; default 1). */
  runMinutes?: number;
  /** For the GPU-minutes spent; without a config, 3 minutes a start and one server per cell. */
  cost?: CostModel;
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
  return {
    gate: config.gate,
    repeats: config.repeats,
    runMinutes,
    cost: {
      serverStartS: serverStartSeconds(config),
      lifecycle: serverLifecycle(config),
      runsPerBlock: config.repeats.block,
    },
  };
}

export interface CompareRecordsInput {
  baseline: readonly RunRecord[];
  candidate: readonly RunRecord[];
  settings?: CompareSettings;
  mode?: ComparisonMode;
  baselineInfo?: BaselineInfo | null;
  /** Stored mode: runs of earlier baseline sessions, for the between-session drift only. */
  history?: readonly RunRecord[];
  now?: Date;
  /** Secrets to take out of the verdict before it is rendered or written (run files come from outside). */
  redactor?: Redactor;
  /** Notes about the inputs (duplicates dropped) that go first into the verdict's warnings. */
  inputNotes?: readonly string[];
}

export interface CompareOutcome {
  verdict: VerdictFile;
  reportMarkdown: string;
  /** 0 gate passes, 1 gate fails (fail_on policy). Invalid input throws InputError instead (exit 2). */
  exitCode: 0 | 1;
  /** The run records compared (for the per-run values of the dashboard exports, src/report/export-*.ts). */
  runs: { baseline: readonly RunRecord[]; candidate: readonly RunRecord[] };
  /** The redactor the verdict went through, for what is read later from the runs (report.html's samples). */
  redact?: (text: string) => string;
}

/** Pure: decide and render from run records already in memory. */
export function compareRecords(input: CompareRecordsInput): CompareOutcome {
  const settings = input.settings ?? defaultCompareSettings();
  const decided = analyze({
    baseline: input.baseline,
    candidate: input.candidate,
    gate: settings.gate,
    repeats: settings.repeats,
    ...(settings.runMinutes === undefined ? {} : { runMinutes: settings.runMinutes }),
    mode: input.mode ?? "stored",
    baselineInfo: input.baselineInfo ?? null,
    ...(input.history ? { history: input.history } : {}),
    now: (input.now ?? new Date()).toISOString(),
    tool: { name: toolName, version: toolVersion },
  });
  decided.gpuMinutes = gpuMinutesSpent(
    decided.mode,
    { baseline: input.baseline, candidate: input.candidate },
    decided.settings.looks,
    settings.cost ?? { ...defaultCostModel, runsPerBlock: settings.repeats.block ?? 1 },
  );
  if (input.inputNotes && input.inputNotes.length > 0)
    decided.warnings = [...input.inputNotes, ...decided.warnings];
  // Redacted before rendering: the renderer escapes, and an escaped secret no longer matches its value.
  const verdict = input.redactor ? redactValue(decided, input.redactor) : decided;
  return {
    verdict,
    reportMarkdown: renderMarkdown(verdict),
    exitCode: verdict.exitCode,
    runs: { baseline: input.baseline, candidate: input.candidate },
    redact: input.redactor ? (text) => input.redactor!.redact(text) : (text) => text,
  };
}

export interface CompareResultsInput {
  /** Results directories written by `run`, or `vllm bench serve` result files. */
  baseline: readonly string[];
  candidate: readonly string[];
  /** A parsed config, a path to one, or nothing for the defaults. */
  config?: Config | string;
  mode?: ComparisonMode;
  baselineInfo?: BaselineInfo | null;
  /** Results directories of earlier baseline sessions (one session each), for the drift estimate. */
  history?: readonly string[];
  now?: Date;
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** Default: the values the config read from the environment and credential-looking variables of env. */
  redactor?: Redactor;
  /** Size limits on the inputs (default: the action's, compare/input-limits.ts). */
  limits?: InputLimits;
}

/** Loads both sides from disk (InputError on bad input) and compares them. */
export async function compareResults(input: CompareResultsInput): Promise<CompareOutcome> {
  let settings = defaultCompareSettings();
  const secrets = credentialLikeValues(input.env ?? {});
  if (typeof input.config === "string") {
    const loaded = await loadConfig(input.config, { env: input.env, cwd: input.cwd });
    settings = settingsFromConfig(loaded.config);
    secrets.push(...loaded.interpolation.values.map((entry) => entry.value));
  } else if (input.config) settings = settingsFromConfig(input.config);
  const limits = input.limits ?? defaultInputLimits;
  const { baseline, candidate, notes } = await loadSides(input.baseline, input.candidate, limits);
  const history =
    input.history && input.history.length > 0 ? await loadRuns(input.history, "history", { limits }) : [];
  return compareRecords({
    baseline,
    candidate,
    history,
    inputNotes: notes,
    settings,
    mode: input.mode,
    baselineInfo: input.baselineInfo,
    now: input.now,
    redactor: input.redactor ?? createRedactor(secrets),
  });
}

/**
 * Writes DIR/verdict.json, DIR/report.md, DIR/report.html and the same charts as SVG files in
 * DIR/report-charts/ (replaced whole); returns their paths.
 */
export async function writeCompareOutputs(
  outDir: string,
  outcome: CompareOutcome,
): Promise<{ verdictPath: string; reportPath: string; htmlPath: string }> {
  await mkdir(outDir, { recursive: true });
  const verdictPath = join(outDir, "verdict.json");
  const reportPath = join(outDir, "report.md");
  await writeFile(verdictPath, `${JSON.stringify(outcome.verdict, null, 2)}\n`);
  await writeFile(reportPath, outcome.reportMarkdown);
  const htmlPath = await writeHtmlReport(outDir, outcome);
  return { verdictPath, reportPath, htmlPath };
}

/** report.html and report-charts/*.svg from the verdict, the run records and the used runs' samples. */
async function writeHtmlReport(outDir: string, outcome: CompareOutcome): Promise<string> {
  const redact = outcome.redact ?? ((text: string) => text);
  const loaded = await loadRunSamples(outcome.verdict, outcome.runs, redact);
  const pictures = reportPictures(outcome.verdict, outcome.runs, loaded.samples, redact, loaded.notes);
  const report = await renderHtmlReport(pictures);
  const htmlPath = join(outDir, "report.html");
  const chartsDir = join(outDir, "report-charts");
  await rm(chartsDir, { recursive: true, force: true });
  for (const chart of report.charts) {
    const path = join(outDir, chart.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, redact(chart.svg));
  }
  await writeFile(htmlPath, redact(report.html));
  return htmlPath;
}
