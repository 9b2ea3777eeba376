import * as core from "@actions/core";
import { compareForGate } from "../app/compare.js";
import type { ActionDependencies, CleanupServers, Compare, Measure } from "../app/gate/dependencies.js";
import { measureRequestedRuns } from "../app/measure-requested.js";
import { GitHubArtifactStore } from "../github/artifact-store.js";
import { createGitHubClient } from "../github/client.js";
import { serversNotStoppedWarning } from "../report/status.js";
import type { ProgressSink } from "../runner/progress.js";
import { cleanupFromState } from "../server/cleanup.js";

/**
 * The single place where the action meets the real runner, compare and server launchers: the use cases'
 * real steps (src/app/run-cells.ts, src/app/compare.ts) wired to @actions/core and the process
 * environment. The gate (src/app/gate/) is tested against simple implementations of its dependencies.
 */

export const measureWithRunner: Measure = (request) => measureUntil(request, undefined);

/** measureWithRunner that stops on `signal` (the main step's interrupt): the runs so far are kept, then it throws. */
function measureUntil(request: Parameters<Measure>[0], signal: AbortSignal | undefined): Promise<void> {
  // Per-request progress would flood the job log; run-level lines are what a reader of the log needs.
  // Both leave through the job's output seam (a server's text may quote a secret).
  const progress: ProgressSink = {
    update() {},
    message: request.outbound.through((text) => core.info(text)),
  };
  return measureRequestedRuns(request, {
    env: process.env,
    progress,
    warn: request.outbound.through((message) => core.warning(message)),
    ...(signal ? { signal } : {}),
  });
}

export const compareWithStatistics: Compare = (request) => compareForGate(request);

export const cleanupRecordedServers: CleanupServers = async (serverStateFile) => {
  const outcomes = await cleanupFromState(serverStateFile, { log: (message) => core.info(message) });
  const left = outcomes.filter((outcome) => !outcome.stopped);
  if (left.length > 0) core.warning(serversNotStoppedWarning(left.map((o) => o.detail)));
};

export function createDefaultDependencies(options: { signal?: AbortSignal } = {}): ActionDependencies {
  return {
    measure: options.signal ? (request) => measureUntil(request, options.signal) : measureWithRunner,
    compare: compareWithStatistics,
    cleanupServers: cleanupRecordedServers,
    github: createGitHubClient,
    artifacts: (context) => new GitHubArtifactStore(context),
    now: () => new Date(),
    interrupted: () => options.signal?.aborted ?? false,
  };
}
