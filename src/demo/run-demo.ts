import { existsSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type CompareOutcome, compareResults, writeCompareOutputs } from "../compare/index.js";
import { parseConfigText } from "../config/load.js";
import { renderTerminal } from "../report/terminal.js";
import { runAdaptive } from "../runner/interleaved.js";
import type { ProgressSink } from "../runner/progress.js";
import { type ManagedServerProvider, providerForConfig } from "../server/index.js";
import { demoConfigText, type Scenario } from "./scenarios.js";

export interface DemoOptions {
  scenario: Scenario;
  /** Everything is written here (cleared first when it holds a previous demo). */
  outDir: string;
  color: boolean;
  progress: ProgressSink;
  env: Readonly<Record<string, string | undefined>>;
  /** Argv that runs this tool's CLI, for starting simulators; the launcher's default when omitted. */
  cliCommand?: readonly string[];
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
  outcome: CompareOutcome;
  terminalReport: string;
  reportPath: string;
  /** report.html: the report with its charts (the same charts as SVG files in report-charts/). */
  htmlPath: string;
  verdictPath: string;
  runsPerSide: number;
  /** Whether the verdict is the one the scenario is built to show (noise can, rarely, say otherwise). */
  verdictAsExpected: boolean;
}

/** Marks a directory as the demo's own, so a rerun may clear it without risking a user's files. */
const markerFile = ".vllm-perf-gate-demo";

async function prepareOutDir(outDir: string): Promise<void> {
  if (existsSync(outDir)) {
    const entries = await readdir(outDir);
    if (entries.length > 0 && !entries.includes(markerFile)) {
      throw new Error(`${outDir} exists and was not written by the demo; choose another --out`);
    }
    await rm(outDir, { recursive: true, force: true });
  }
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, markerFile), "written by vllm-perf-gate demo; safe to delete\n");
}

/**
 * Baseline and candidate simulators measured alternately in one job (interleaved mode), runs added while
 * the verdict is inconclusive, then compared and reported exactly as the action would.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult | DemoInterrupted> {
  const { scenario, outDir, progress } = options;
  await prepareOutDir(outDir);
  const sides = (["baseline", "candidate"] as const).map((name, index) => {
    const text = demoConfigText(scenario, name, 1000 + index * 17);
    const file = join(outDir, `${name}.yml`);
    const { config } = parseConfigText(text, file, { env: {} });
    return { name, text, file, config };
  });
  for (const side of sides) await writeFile(side.file, side.text);

  const providers: ManagedServerProvider[] = sides.map((side) =>
    providerForConfig(side.config, {
      env: { ...options.env },
      nvidiaSmiCommand: null,
      pollIntervalMs: 50,
      stopGraceMs: 5000,
      warn: (message) => progress.message(`warning: ${message}`),
      ...(options.cliCommand ? { cliCommand: options.cliCommand } : {}),
    }),
  );
  const baselineDir = join(outDir, "baseline");
  const candidateDir = join(outDir, "candidate");
  const [baseline, candidate] = sides;
  const compare = () =>
    compareResults({
      baseline: [baselineDir],
      candidate: [candidateDir],
      config: baseline!.config,
      mode: "interleaved",
      baselineInfo: { note: `demo scenario "${scenario.name}": ${scenario.story}` },
    });

  let runsPerSide: number;
  let runsWritten = 0;
  try {
    const measured = await runAdaptive({
      sides: [
        {
          name: "baseline",
          config: baseline!.config,
          provider: providers[0]!,
          outDir: baselineDir,
          baseDir: outDir,
        },
        {
          name: "candidate",
          config: candidate!.config,
          provider: providers[1]!,
          outDir: candidateDir,
          baseDir: outDir,
        },
      ],
      minRuns: scenario.repeats.min,
      maxRuns: scenario.repeats.max,
      runsPerBlock: baseline!.config.repeats.block,
      progress,
      ...(options.signal ? { signal: options.signal } : {}),
      decide: async (runs) => {
        const { verdict } = await compare();
        if (!verdict.nextLook) return null;
        progress.message(`after ${runs} runs per side: ${verdict.verdict}; ${verdict.nextLook.reason}`);
        return verdict.nextLook.runsPerSide;
      },
    });
    runsPerSide = measured.runsPerSide;
    runsWritten = measured.runs.length;
  } finally {
    await Promise.all(providers.map((provider) => provider.stopAll()));
  }
  if (options.signal?.aborted) return { interrupted: String(options.signal.reason), runsWritten };

  const outcome = await compare();
  const { verdictPath, reportPath, htmlPath } = await writeCompareOutputs(outDir, outcome);
  return {
    outcome,
    terminalReport: renderTerminal(outcome.verdict, { color: options.color }),
    reportPath,
    htmlPath,
    verdictPath,
    runsPerSide,
    verdictAsExpected: scenario.expectedVerdicts.includes(outcome.verdict.verdict),
  };
}
