import { existsSync } from "node:fs";
import { mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { type LoadedConfig, parseConfigText } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { alternation } from "../config/summary.js";
import { demoConfigText, type Scenario } from "../demo/scenarios.js";
import { countRuns } from "../github/baseline-bundle.js";
import { adaptiveLoopLine, measuringBlockLine } from "../report/status.js";
import { renderTerminal } from "../report/terminal.js";
import type { ProgressSink } from "../runner/progress.js";
import type { Outbound } from "../server/outbound.js";
import { type ManagedServerProvider, providerForConfig } from "../server/provider.js";
import { addRunsUntilDecided, fewestRuns, type MeasureStep, measureAlternately } from "./adaptive.js";
import { type ComparisonReport, compareResults, writeCompareOutputs } from "./compare.js";
import { runRequestedCells } from "./measure-requested.js";

/** One of the demo's two configs: its text, where it is written, and as loaded. */
export interface DemoSide {
  name: "baseline" | "candidate";
  text: string;
  file: string;
  loaded: LoadedConfig;
}

/**
 * The scenario's baseline and candidate configs under `outDir`, loaded with the job's environment (the
 * demo's root builds the job's secret set from them); nothing is written yet.
 */
export function demoSides(
  scenario: Scenario,
  outDir: string,
  env: Readonly<Record<string, string | undefined>>,
): DemoSide[] {
  return (["baseline", "candidate"] as const).map((name, index) => {
    const text = demoConfigText(scenario, name, 1000 + index * 17);
    const file = join(outDir, `${name}.yml`);
    return { name, text, file, loaded: parseConfigText(text, file, { env }) };
  });
}

export interface DemoOptions {
  scenario: Scenario;
  /** The scenario's configs (`demoSides`), written beside the results. */
  sides: readonly DemoSide[];
  /** Everything is written here (cleared first when it holds a previous demo). */
  outDir: string;
  color: boolean;
  progress: ProgressSink;
  env: Readonly<Record<string, string | undefined>>;
  /** The job's output seam (server/outbound.ts), built from the job's secret set: every file, log and report. */
  outbound: Outbound;
  /** An interrupt (SIGINT/SIGTERM): the run in progress ends early, the simulators stop, nothing is compared. */
  signal?: AbortSignal;
}

/** A demo stopped by an interrupt: what was measured is on disk, nothing was compared. */
export interface DemoInterrupted {
  interrupted: string;
  /** Runs written (both sides; the interrupted one included, marked in its run.json). */
  runsWritten: number;
}

export interface DemoResult {
  outcome: ComparisonReport;
  terminalReport: string;
  reportPath: string;
  /** comment.md: the PR comment the action would post. */
  commentPath: string;
  /** report.html: the report with its charts (the same charts as SVG files in report-charts/). */
  htmlPath: string;
  verdictPath: string;
  /** The most runs a cell got per side (cells the looks no longer named stopped sooner). */
  runsPerSide: number;
  /** Whether the verdict is the one the scenario is built to show (noise can, rarely, say otherwise). */
  verdictAsExpected: boolean;
}

/** Marks a directory as the demo's own, so a rerun may clear it without risking a user's files. */
const markerFile = ".vllm-perf-gate-demo";

async function prepareOutDir(outDir: string, outbound: Outbound): Promise<void> {
  if (existsSync(outDir)) {
    const entries = await readdir(outDir);
    if (entries.length > 0 && !entries.includes(markerFile)) {
      throw new Error(`${outDir} exists and was not written by the demo; choose another --out`);
    }
    await rm(outDir, { recursive: true, force: true });
  }
  await mkdir(outDir, { recursive: true });
  await outbound.writeFile(join(outDir, markerFile), "written by vllm-perf-gate demo; safe to delete\n");
}

/** One side of the demo as it is measured: its config, its simulators and its results directory. */
interface MeasuredSide {
  readonly name: "baseline" | "candidate";
  readonly config: Config;
  readonly provider: ManagedServerProvider;
  readonly dir: string;
}

/**
 * Baseline and candidate simulators measured alternately in one job (interleaved mode), runs added while
 * the verdict is inconclusive, then compared and reported exactly as the action would.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult | DemoInterrupted> {
  const { outDir, outbound } = options;
  await prepareOutDir(outDir, outbound);
  for (const side of options.sides) await outbound.writeFile(side.file, side.text);
  const sides = measuredSides(options);
  let last: ComparisonReport | null;
  try {
    last = await measureUntilDecided(options, sides);
  } finally {
    await Promise.all(sides.map((side) => side.provider.stopAll()));
  }
  const counts = await Promise.all(sides.map((side) => countRuns(side.dir)));
  if (options.signal?.aborted || last === null) {
    const runsWritten = counts.reduce(
      (sum, byCell) => sum + [...byCell.values()].reduce((a, b) => a + b, 0),
      0,
    );
    return { interrupted: String(options.signal?.reason ?? "interrupt"), runsWritten };
  }
  const outcome = last;
  const paths = await writeCompareOutputs(outDir, outcome, outbound);
  return {
    outcome,
    terminalReport: renderTerminal(outcome.verdict, { color: options.color }),
    ...paths,
    runsPerSide: Math.max(0, ...counts[1]!.values()),
    verdictAsExpected: options.scenario.expectedVerdicts.includes(outcome.verdict.verdict),
  };
}

/** Both sides with their simulators (stopped by the caller) and their results directories. */
function measuredSides(options: DemoOptions): MeasuredSide[] {
  const { outDir, progress, outbound } = options;
  return options.sides.map((side) => ({
    name: side.name,
    config: side.loaded.config,
    provider: providerForConfig(side.loaded.config, {
      env: { ...options.env },
      outbound,
      nvidiaSmiCommand: null,
      pollIntervalMs: 50,
      stopGraceMs: 5000,
      warn: (message) => progress.message(`warning: ${message}`),
      progress: (line) => progress.message(line),
    }),
    dir: join(outDir, side.name),
  }));
}

/**
 * The scenario's first look, then the action's loop (./adaptive.ts): runs added to the cells compare
 * names while it is inconclusive. The last comparison, or null when an interrupt stopped it.
 */
async function measureUntilDecided(
  options: DemoOptions,
  sides: readonly MeasuredSide[],
): Promise<ComparisonReport | null> {
  const { scenario, progress, outbound } = options;
  const [baseline, candidate] = sides;
  const stopped = () => options.signal?.aborted === true;
  const measure = measureSidesAlternately(options, sides, stopped);
  await measure({ firstRun: 0, runs: scenario.repeats.min, cells: null });
  if (stopped()) return null;
  const looked = await addRunsUntilDecided({
    look: async () => {
      const report = await compareResults({
        baseline: [baseline!.dir],
        candidate: [candidate!.dir],
        config: baseline!.config,
        mode: "interleaved",
        baselineInfo: { note: `demo scenario "${scenario.name}": ${scenario.story}` },
        outbound,
      });
      return { verdict: report.verdict.verdict, nextLook: report.verdict.nextLook, report };
    },
    measure,
    runsMeasured: async (cells) => fewestRuns(await countRuns(candidate!.dir), cells),
    cells: null,
    maxRuns: scenario.repeats.max,
    onEvent: (event) => progress.message(adaptiveLoopLine(event, scenario.repeats.max)),
    stopped,
  });
  return looked.stoppedBecause === "aborted" ? null : looked.outcome.report;
}

/** Both sides measured alternately (A B, B A, ...), a side's consecutive runs on one server start. */
function measureSidesAlternately(
  options: DemoOptions,
  sides: readonly MeasuredSide[],
  stopped: () => boolean,
): (step: MeasureStep) => Promise<void> {
  const { scenario, outDir, progress, outbound } = options;
  return (step) =>
    measureAlternately(
      sides,
      step,
      alternation(sides[0]!.config),
      async (side, block) => {
        progress.message(measuringBlockLine(side.name, block.firstRun, block.runs, scenario.repeats.max));
        // As the action measures: fixed-load cells the block's runs, a capacity cell its search.
        await runRequestedCells(
          {
            cells: block.cells,
            firstRun: block.firstRun,
            runs: block.runs,
            side: side.name,
            resultsDir: side.dir,
          },
          {
            config: side.config,
            provider: side.provider,
            baseDir: outDir,
            progress,
            env: options.env,
            outbound,
            ...(options.signal ? { signal: options.signal } : {}),
          },
        );
      },
      stopped,
    );
}

/** What the demo says before it starts: the scenario, what to expect and what is measured. */
export function demoIntro(scenario: Scenario): string {
  return (
    `vllm-perf-gate demo, scenario "${scenario.name}": ${scenario.story}.\n` +
    `Expect ${scenario.expectation}.\n` +
    `Baseline and candidate are simulated vLLM servers measured alternately, ${scenario.repeats.min} to ${scenario.repeats.max} runs each.\n\n`
  );
}

/** What the demo says after its report: how much it measured, where each file is, and the gate's exit. */
export function demoClosing(result: DemoResult, scenario: Scenario, outDir: string, seconds: number): string {
  const { verdict } = result.outcome;
  return [
    `Measured up to ${result.runsPerSide} run(s) per side of a cell in ${seconds} s.`,
    `PR comment: ${result.commentPath}`,
    `Full report: ${result.reportPath}`,
    `Report with charts: ${result.htmlPath}`,
    `Verdict file: ${result.verdictPath}`,
    `Raw results: ${outDir}/baseline and ${outDir}/candidate`,
    `As a CI step the gate would have exited ${verdict.exitCode} (${verdict.verdict}, fail_on: ${verdict.settings.failOn}).`,
    result.verdictAsExpected
      ? `This is the outcome the "${scenario.name}" scenario is built to show.`
      : `Note: the "${scenario.name}" scenario usually ends ${scenario.expectedVerdicts.join(" or ")}; this time the data said ${verdict.verdict} (simulated noise is random too).`,
    "",
  ].join("\n");
}
