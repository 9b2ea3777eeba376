import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import {
  type CalibrationFile,
  calibrationPriors,
  calibrationStartPriors,
  parseCalibrationFile,
} from "../compare/calibration.js";
import { conditionsHash } from "../compare/history.js";
import { historyStartPriors } from "../compare/history-analysis.js";
import {
  type CompareOutcome,
  type CompareRecordsInput,
  type CompareSettings,
  compareRecords,
  defaultCompareSettings,
  settingsFromConfig,
} from "../compare/index.js";
import { defaultInputLimits, type InputLimits } from "../compare/input-limits.js";
import { loadRuns, loadSides } from "../compare/load.js";
import { loadRunSamples } from "../compare/run-samples.js";
import { type NamedStartPrior, pooledStartPriors } from "../compare/start-noise.js";
import type { BaselineInfo, ComparisonMode } from "../compare/verdict-schema.js";
import { noInterpolation } from "../config/interpolate.js";
import { type LoadedConfig, loadConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import type { RunRecord } from "../metrics/run-record.js";
import { reportPictures } from "../report/charts/data.js";
import { renderHtmlReport } from "../report/html/report-html.js";
import { renderReports } from "../report/markdown.js";
import type { Redactor } from "../server/redact.js";
import { collectJobSecrets } from "../server/secrets.js";
import { InputError } from "../util/errors.js";
import type { CompareRequest, CompareOutcome as GateCompareOutcome } from "./gate/dependencies.js";

/**
 * The compare use case (the CLI's `compare`, the action's gate, the demo): load both sides, decide
 * (compare/, pure), render the markdown report (report/), write verdict.json and report.md.
 */

/** A comparison's decision and its rendered reports, both from the redacted verdict. */
export interface ComparisonReport extends CompareOutcome {
  /** The long form (report.md, the job summary's body). */
  reportMarkdown: string;
  /** The short form (comment.md): what the action posts on the pull request. */
  commentMarkdown: string;
}

/** Decides from run records in memory and renders both forms of the report (pure). */
export function compareAndRender(input: CompareRecordsInput): ComparisonReport {
  const outcome = compareRecords(input);
  const { report, comment } = renderReports(outcome.verdict);
  return { ...outcome, reportMarkdown: report, commentMarkdown: comment };
}

export interface CompareResultsInput {
  /** Results directories written by `run`, or `vllm bench serve` result files. */
  baseline: readonly string[];
  candidate: readonly string[];
  /**
   * The config already loaded for this job (its values read from the environment are redacted), a parsed
   * config, a path to one (loaded here), or nothing for the defaults.
   */
  config?: LoadedConfig | Config | string;
  mode?: ComparisonMode;
  baselineInfo?: BaselineInfo | null;
  /**
   * Results directories of earlier baseline sessions (one session each), for the drift estimate (stored
   * mode) and, those under the baseline's conditions, the start prior (interleaved mode).
   */
  history?: readonly string[];
  /**
   * Runs of main's history (compare/history.ts runsFromHistory, read under the baseline's conditions),
   * for the drift estimate and the start prior, with the above.
   */
  historyRuns?: readonly RunRecord[];
  /** The baseline's run-to-run variance pooled over main's history, per cell and metric. */
  baselineVariancePriors?: ReadonlyMap<string, { variance: number; df: number }>;
  /**
   * This runner's A/A calibration (`calibrate`): its run-to-run variances join the priors (stored
   * mode) when it was measured under the baseline's conditions; otherwise a warning says why not.
   */
  calibration?: { file: CalibrationFile; source: string };
  now?: Date;
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** The job's redactor; default: the set of server/secrets.ts from the config and env (`collectJobSecrets`). */
  redactor?: Redactor;
  /** Size limits on the inputs (default: the action's, compare/input-limits.ts). */
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
  const loaded =
    typeof input.config === "string"
      ? await loadConfig(input.config, { env: input.env, cwd: input.cwd })
      : input.config;
  const config = loaded && isLoaded(loaded) ? loaded.config : loaded;
  if (config) settings = settingsFromConfig(config);
  const freshStarts = input.freshStarts === true || config?.gate.runs_are_fresh_starts === true;
  // The one set of secrets (server/secrets.ts): api_key_env's value, the values read, credential-like names.
  const redactor =
    input.redactor ??
    collectJobSecrets({
      env: input.env ?? {},
      configs: !loaded
        ? []
        : [isLoaded(loaded) ? loaded : { config: loaded, interpolation: noInterpolation }],
    }).redactor;
  const limits = input.limits ?? defaultInputLimits;
  const { baseline, candidate, notes } = await loadSides(input.baseline, input.candidate, limits, {
    freshStarts,
  });
  const loadedHistory =
    input.history && input.history.length > 0
      ? await loadRuns(input.history, "history", { limits, freshStarts })
      : [];
  const history = [...loadedHistory, ...(input.historyRuns ?? [])];
  const conditions = baseline[0] ? conditionsHash(baseline[0].fingerprint) : null;
  let priors = input.baselineVariancePriors;
  let calibrationStarts: Map<string, NamedStartPrior> | undefined;
  const inputNotes = [...notes];
  if (input.calibration) {
    const { file, source } = input.calibration;
    if (file.conditions !== null && file.conditions === conditions) {
      priors = calibrationPriors(file, priors);
      calibrationStarts = calibrationStartPriors(file, source);
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
  return compareAndRender({
    baseline,
    candidate,
    history,
    ...(priors ? { baselineVariancePriors: priors } : {}),
    ...(startPriors.size > 0 ? { startVariancePriors: startPriors } : {}),
    inputNotes,
    settings,
    mode: input.mode,
    baselineInfo: input.baselineInfo,
    now: input.now,
    redactor,
  });
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
 * files in DIR/report-charts/ (replaced whole); returns their paths.
 */
export async function writeCompareOutputs(
  outDir: string,
  outcome: ComparisonReport,
): Promise<CompareOutputPaths> {
  await mkdir(outDir, { recursive: true });
  const verdictPath = join(outDir, "verdict.json");
  const reportPath = join(outDir, "report.md");
  const commentPath = join(outDir, "comment.md");
  await writeFile(verdictPath, `${JSON.stringify(outcome.verdict, null, 2)}\n`);
  await writeFile(reportPath, outcome.reportMarkdown);
  await writeFile(commentPath, outcome.commentMarkdown);
  const htmlPath = await writeHtmlReport(outDir, outcome);
  return { verdictPath, reportPath, commentPath, htmlPath };
}

/** report.html and report-charts/*.svg from the verdict, the run records and the used runs' samples. */
async function writeHtmlReport(outDir: string, outcome: ComparisonReport): Promise<string> {
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
    candidate: [request.candidateDir],
    config,
    mode: request.mode,
    baselineInfo: request.baselineInfo,
    cwd: request.workingDirectory,
    // Before the verdict is rendered: the job's one set of secrets.
    redactor: request.secrets.redactor,
  });
  await writeCompareOutputs(request.outDir, outcome);
  return {
    verdict: outcome.verdict.verdict,
    exitCode: outcome.exitCode,
    report: outcome.reportMarkdown,
    nextLook: outcome.verdict.nextLook,
    verdictFile: outcome.verdict,
  };
}
