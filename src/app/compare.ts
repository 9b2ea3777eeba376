import { mkdir, readFile, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import {
  type CalibrationFile,
  calibrationPriorOrigin,
  calibrationPriors,
  calibrationRunPriors,
  calibrationStartPriors,
  parseCalibrationFile,
} from "../compare/calibration/calibration.js";
import { conditionsHash } from "../compare/history/history.js";
import { historyStartPriors } from "../compare/history/history-analysis.js";
import {
  type CompareOutcome,
  type CompareRecordsInput,
  type CompareSettings,
  compareRecords,
  defaultCompareSettings,
} from "../compare/index.js";
import { defaultInputLimits, type InputLimits } from "../compare/inputs/input-limits.js";
import { loadRuns, loadSides } from "../compare/inputs/load.js";
import { loadRunSamples } from "../compare/inputs/run-samples.js";
import type { PriorOrigin } from "../compare/noise/prior-basis.js";
import { pooledStartPriors } from "../compare/noise/start-noise.js";
import type { BaselineInfo, ComparisonMode } from "../compare/verdict/verdict-schema.js";
import type { LoadedConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import type { RunRecord } from "../metrics/run-record.js";
import { reportPictures } from "../report/charts/data.js";
import { type CompareExport, exportFormats } from "../report/export-formats.js";
import { renderHtmlReport } from "../report/html/report-html.js";
import { renderReports } from "../report/markdown.js";
import type { Outbound } from "../server/outbound.js";
import { InputError } from "../util/errors.js";
import { budgetedSettings, calibratedCheckNoise } from "./budget-plan.js";
import type { CompareRequest, CompareOutcome as GateCompareOutcome } from "./gate/dependencies.js";

/**
 * The compare use case (the CLI's `compare`, the action's gate, the demo): load both sides, decide
 * (compare/, pure), clean the verdict of the job's secrets (run files come from outside), render the
 * markdown report (report/), write verdict.json and report.md through the job's output seam.
 */

/** A comparison's decision and its rendered reports, both from the verdict cleaned of secrets. */
export interface ComparisonReport extends CompareOutcome {
  /** The long form (report.md, the job summary's body). */
  reportMarkdown: string;
  /** The short form (comment.md): what the action posts on the pull request. */
  commentMarkdown: string;
}

/** Decides from run records in memory and renders both forms of the report (pure). */
export function compareAndRender(input: CompareRecordsInput): ComparisonReport {
  return rendered(compareRecords(input));
}

function rendered(outcome: CompareOutcome): ComparisonReport {
  const { report, comment } = renderReports(outcome.verdict);
  return { ...outcome, reportMarkdown: report, commentMarkdown: comment };
}

export interface CompareResultsInput {
  /** Results directories written by `run`, or `vllm bench serve` result files. */
  baseline: readonly string[];
  candidate: readonly string[];
  /**
   * The config the job's root loaded (with the environment its secret set was built from), a parsed
   * config, or nothing for the defaults.
   */
  config?: LoadedConfig | Config;
  mode?: ComparisonMode;
  baselineInfo?: BaselineInfo | null;
  /**
   * Results directories of earlier baseline sessions (one session each), for the drift estimate (stored
   * mode) and, those under the baseline's conditions, the start prior (interleaved mode).
   */
  history?: readonly string[];
  /**
   * Runs of main's history (compare/history/history.ts runsFromHistory, read under the baseline's
   * conditions), for the drift estimate and the start prior, with the above.
   */
  historyRuns?: readonly RunRecord[];
  /** The baseline's run-to-run variance pooled over main's history, per cell and metric. */
  baselineVariancePriors?: ReadonlyMap<string, { variance: number; df: number }>;
  /** Where those came from and when (main's history: its first and last session's dates). */
  baselineVariancePriorOrigin?: PriorOrigin;
  /**
   * This runner's A/A calibration (`calibrate`), when it was measured under the baseline's conditions
   * (otherwise a warning says why not): its run-to-run variances join the stored baseline's priors; in
   * an interleaved comparison its start-to-start and run-to-run variances are both sides' priors.
   */
  calibration?: { file: CalibrationFile; source: string };
  now?: Date;
  /** The job's output seam (server/outbound.ts): the verdict is cleaned through it before it is rendered. */
  outbound: Outbound;
  /** Size limits on the inputs (default: the action's, compare/inputs/input-limits.ts). */
  limits?: InputLimits;
  /**
   * Runs whose file records no server start were each a fresh start (`compare --fresh-starts`); the
   * config's gate.runs_are_fresh_starts says so too. Default: an input's such runs share one start.
   */
  freshStarts?: boolean;
}

function isLoaded(config: LoadedConfig | Config): config is LoadedConfig {
  return "interpolation" in config;
}

/** Loads both sides from disk (InputError on bad input), compares them and renders the report. */
export async function compareResults(input: CompareResultsInput): Promise<ComparisonReport> {
  let settings: CompareSettings = defaultCompareSettings();
  const loaded = input.config;
  const config = loaded && isLoaded(loaded) ? loaded.config : loaded;
  const freshStarts = input.freshStarts === true || config?.gate.runs_are_fresh_starts === true;
  const limits = input.limits ?? defaultInputLimits;
  const { baseline, candidate, notes } = await loadSides(input.baseline, input.candidate, limits, {
    freshStarts,
  });
  // The budget's plan as it was measured: with the calibration given, whatever its conditions (the
  // runs were planned before any baseline was read).
  if (config)
    settings = budgetedSettings(config, {
      cells: [...new Set(candidate.map((run) => run.cell))],
      mode: input.mode === "interleaved" ? "interleaved" : "stored",
      ...(input.calibration
        ? { noiseOf: calibratedCheckNoise(config, input.calibration.file, input.now ?? new Date()) }
        : {}),
    });
  const loadedHistory =
    input.history && input.history.length > 0
      ? await loadRuns(input.history, "history", { limits, freshStarts })
      : [];
  const history = [...loadedHistory, ...(input.historyRuns ?? [])];
  const conditions = baseline[0] ? conditionsHash(baseline[0].fingerprint) : null;
  let priors = input.baselineVariancePriors;
  let priorOrigin = priors ? input.baselineVariancePriorOrigin : undefined;
  let calibrationStarts: ReturnType<typeof calibrationStartPriors> | undefined;
  let runPriors: ReturnType<typeof calibrationRunPriors> | undefined;
  const inputNotes = [...notes];
  if (input.calibration) {
    const { file, source } = input.calibration;
    if (file.conditions !== null && file.conditions === conditions) {
      priorOrigin = calibrationPriorOrigin(file, source, priors ? priorOrigin : undefined);
      priors = calibrationPriors(file, priors);
      calibrationStarts = calibrationStartPriors(file, source);
      runPriors = calibrationRunPriors(file, source);
    } else
      inputNotes.push(
        `calibration ${source} not used: it was measured under other conditions than the baseline (conditions ${file.conditions ?? "unknown"}, baseline ${conditions ?? "unknown"}); run \`calibrate\` again on this runner and config`,
      );
  }
  // The start level measured on this runner: a calibration's and main's history's, pooled by df. Main's
  // history from the gate was read under the baseline's conditions; sessions given as directories are
  // checked here, as a calibration is.
  const sameConditions = loadedHistory.filter((run) => conditionsHash(run.fingerprint) === conditions);
  const startPriors = pooledStartPriors(
    calibrationStarts,
    historyStartPriors([...sameConditions, ...(input.historyRuns ?? [])]),
  );
  const decided = compareRecords({
    baseline,
    candidate,
    history,
    ...(priors ? { baselineVariancePriors: priors } : {}),
    ...(priors && priorOrigin ? { baselineVariancePriorOrigin: priorOrigin } : {}),
    ...(startPriors.size > 0 ? { startVariancePriors: startPriors } : {}),
    ...(runPriors && runPriors.size > 0 ? { runVariancePriors: runPriors } : {}),
    inputNotes,
    settings,
    mode: input.mode,
    baselineInfo: input.baselineInfo,
    now: input.now,
  });
  // Cleaned of the job's secrets before it is rendered (redact before you escape: the renderer escapes,
  // and an escaped secret no longer matches its value).
  return rendered({ ...decided, verdict: input.outbound.clean(decided.verdict) });
}

/** The files `compare` writes into its output directory. */
export interface CompareOutputPaths {
  verdictPath: string;
  /** The long form. */
  reportPath: string;
  /** The PR comment, exactly as the action posts it (without its links to the Actions run). */
  commentPath: string;
  htmlPath: string;
}

/**
 * Writes DIR/verdict.json, DIR/report.md, DIR/comment.md, DIR/report.html and the same charts as SVG
 * files in DIR/report-charts/ (replaced whole) through the job's output seam, the one the verdict was
 * cleaned through; returns their paths.
 */
export async function writeCompareOutputs(
  outDir: string,
  outcome: ComparisonReport,
  outbound: Outbound,
): Promise<CompareOutputPaths> {
  await mkdir(outDir, { recursive: true });
  const verdictPath = join(outDir, "verdict.json");
  const reportPath = join(outDir, "report.md");
  const commentPath = join(outDir, "comment.md");
  await outbound.writeFile(verdictPath, `${JSON.stringify(outcome.verdict, null, 2)}\n`);
  await outbound.writeFile(reportPath, outcome.reportMarkdown);
  await outbound.writeFile(commentPath, outcome.commentMarkdown);
  const htmlPath = await writeHtmlReport(outDir, outcome, outbound);
  return { verdictPath, reportPath, commentPath, htmlPath };
}

/** The dashboard exports `compare --format` asks for (export-formats.ts), written in DIR; returns their paths. */
export async function writeComparisonExports(
  outDir: string,
  outcome: ComparisonReport,
  exports: readonly CompareExport[],
  outbound: Outbound,
): Promise<string[]> {
  const written: string[] = [];
  for (const format of exports) {
    const { fileName, ofComparison } = exportFormats[format];
    const path = join(outDir, fileName);
    await outbound.writeFile(
      path,
      `${JSON.stringify(ofComparison(outcome.verdict, outcome.runs), null, 2)}\n`,
    );
    written.push(path);
  }
  return written;
}

/** report.html and report-charts/*.svg from the verdict, the run records and the used runs' samples. */
async function writeHtmlReport(
  outDir: string,
  outcome: ComparisonReport,
  outbound: Outbound,
): Promise<string> {
  // The run records are matched to the verdict by their names as it holds them.
  const asInVerdict = (text: string) => outbound.clean(text);
  const loaded = await loadRunSamples(outcome.verdict, outcome.runs, asInVerdict);
  const pictures = reportPictures(outcome.verdict, outcome.runs, loaded.samples, asInVerdict, loaded.notes);
  const report = await renderHtmlReport(pictures);
  const htmlPath = join(outDir, "report.html");
  const chartsDir = join(outDir, "report-charts");
  await rm(chartsDir, { recursive: true, force: true });
  for (const chart of report.charts) {
    const path = join(outDir, chart.path);
    await mkdir(dirname(path), { recursive: true });
    await outbound.writeFile(path, chart.svg);
  }
  await outbound.writeFile(htmlPath, report.html);
  return htmlPath;
}

/** Reads a calibration file (InputError naming the file and the field on a bad one). */
export async function readCalibration(
  path: string,
  source: string,
): Promise<{ file: CalibrationFile; source: string }> {
  const text = await readFile(path, "utf8").catch((error: Error) => {
    throw new InputError(`calibration ${source}: cannot be read (${error.message})`);
  });
  return { file: parseCalibrationFile(text, source), source };
}

/**
 * The comparison of a gate's look: the job's loaded config (fail-on overriding gate.fail_on), both sides
 * and the baseline history, verdict.json and report.md written to the request's directory.
 */
export async function compareForGate(request: CompareRequest): Promise<GateCompareOutcome> {
  const loaded = request.config;
  const config = request.failOn
    ? { ...loaded.config, gate: { ...loaded.config.gate, fail_on: request.failOn } }
    : loaded.config;
  const calibration = request.calibrationPath
    ? await readCalibration(
        resolve(request.workingDirectory, request.calibrationPath),
        request.calibrationPath,
      )
    : undefined;
  const outcome = await compareResults({
    baseline: [request.baselineDir],
    ...(calibration ? { calibration } : {}),
    history: request.historyDirs,
    ...(request.historyRuns ? { historyRuns: request.historyRuns } : {}),
    ...(request.baselineVariancePriors ? { baselineVariancePriors: request.baselineVariancePriors } : {}),
    ...(request.baselineVariancePriorOrigin
      ? { baselineVariancePriorOrigin: request.baselineVariancePriorOrigin }
      : {}),
    candidate: [request.candidateDir],
    config,
    mode: request.mode,
    baselineInfo: request.baselineInfo,
    outbound: request.outbound,
  });
  await writeCompareOutputs(request.outDir, outcome, request.outbound);
  return {
    verdict: outcome.verdict.verdict,
    exitCode: outcome.exitCode,
    report: outcome.reportMarkdown,
    nextLook: outcome.verdict.nextLook,
    verdictFile: outcome.verdict,
  };
}
