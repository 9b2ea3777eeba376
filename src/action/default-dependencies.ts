import { dirname } from "node:path";
import * as core from "@actions/core";
import { compareResults, writeCompareOutputs } from "../compare/index.js";
import { loadConfig } from "../config/load.js";
import { GitHubArtifactStore } from "../github/artifact-store.js";
import { createGitHubClient } from "../github/client.js";
import type { ProgressSink } from "../runner/progress.js";
import { runCells } from "../runner/run-cells.js";
import { cleanupFromState, providerForConfig } from "../server/index.js";
import { createRedactor, credentialLikeValues } from "../server/redact.js";
import type { ActionDependencies, CleanupServers, Compare, Measure } from "./dependencies.js";

/**
 * The single place where the action meets the real runner, compare and server launchers. Everything
 * else in src/action is tested against simple implementations of the interfaces in ./dependencies.ts.
 */

// Per-request progress would flood the job log; run-level lines are what a reader of the log needs.
const actionProgress: ProgressSink = { update() {}, message: (text) => core.info(text) };

export const measureWithRunner: Measure = (request) => measureUntil(request, undefined);

/** measureWithRunner that stops on `signal` (the main step's interrupt): the runs so far are kept, then it throws. */
async function measureUntil(request: Parameters<Measure>[0], signal: AbortSignal | undefined): Promise<void> {
  const loaded = await loadConfig(request.configPath, { env: process.env, cwd: request.workingDirectory });
  const { config } = loaded;
  const provider = providerForConfig(config, {
    env: { ...process.env },
    interpolation: loaded.interpolation,
    // Recorded so the post step can stop servers a cancelled job left behind.
    stateFile: request.serverStateFile,
    warn: (message) => core.warning(message),
  });
  try {
    const result = await runCells({
      config,
      provider,
      outDir: request.resultsDir,
      baseDir: dirname(loaded.path),
      ...(request.cells ? { cells: request.cells } : {}),
      ...(request.runs !== null ? { runs: request.runs } : {}),
      firstRun: request.firstRun,
      ...(request.side ? { side: request.side } : {}),
      progress: actionProgress,
      ...(signal ? { signal } : {}),
    });
    if (signal?.aborted) {
      throw new Error(
        `interrupted by ${String(signal.reason)}: ${result.runs.length} run(s) kept in ${request.resultsDir}, the interrupted one marked in its run.json`,
      );
    }
    const cut = result.runs.filter((run) => run.file.flags.cutShort);
    if (cut.length > 0) {
      // Kept and flagged: compare decides what a cut-short run may still prove.
      core.warning(
        `${cut.length} run(s) were cut short: ${cut.map((run) => `${run.cell}/run-${run.run}`).join(", ")}`,
      );
    }
  } finally {
    await provider.stopAll();
  }
}

export const compareWithStatistics: Compare = async (request) => {
  const loaded = await loadConfig(request.configPath, { env: process.env, cwd: request.workingDirectory });
  const config = request.failOn
    ? { ...loaded.config, gate: { ...loaded.config.gate, fail_on: request.failOn } }
    : loaded.config;
  const outcome = await compareResults({
    baseline: [request.baselineDir],
    history: request.historyDirs,
    ...(request.historyRuns ? { historyRuns: request.historyRuns } : {}),
    ...(request.baselineVariancePriors ? { baselineVariancePriors: request.baselineVariancePriors } : {}),
    candidate: [request.candidateDir],
    config,
    mode: request.mode,
    baselineInfo: request.baselineInfo,
    cwd: request.workingDirectory,
    // Before the verdict is rendered: the values the config read and credential-looking variables.
    redactor: createRedactor([
      ...credentialLikeValues(process.env),
      ...loaded.interpolation.values.map((entry) => entry.value),
    ]),
  });
  await writeCompareOutputs(request.outDir, outcome);
  return {
    verdict: outcome.verdict.verdict,
    exitCode: outcome.exitCode,
    report: outcome.reportMarkdown,
    nextLook: outcome.verdict.nextLook,
  };
};

export const cleanupRecordedServers: CleanupServers = async (serverStateFile) => {
  const outcomes = await cleanupFromState(serverStateFile, { log: (message) => core.info(message) });
  const left = outcomes.filter((outcome) => !outcome.stopped);
  if (left.length > 0)
    core.warning(`${left.length} server(s) could not be stopped: ${left.map((o) => o.detail).join("; ")}`);
};

export function createDefaultDependencies(options: { signal?: AbortSignal } = {}): ActionDependencies {
  return {
    measure: options.signal ? (request) => measureUntil(request, options.signal) : measureWithRunner,
    compare: compareWithStatistics,
    cleanupServers: cleanupRecordedServers,
    github: createGitHubClient,
    artifacts: (context) => new GitHubArtifactStore(context),
    now: () => new Date(),
  };
}
