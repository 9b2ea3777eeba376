import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { BaselineInfo } from "../../compare/verdict/verdict-schema.js";
import {
  defaultBaselineLimits,
  UntrustedBaselineError,
  validateBaselineDir,
} from "../../github/baseline-bundle.js";
import { examinedSummary, type FoundBaseline, findBaseline } from "../../github/baseline-discovery.js";
import { runUrlOf } from "../../github/context.js";
import { safeSha } from "../../github/escape.js";
import {
  baselineFoundLine,
  baselineSearchWarning,
  historyLeftOutWarning,
  historyLine,
  manifestCommitWarning,
} from "../../report/status.js";
import { exists, type JobScope, type Measured } from "./job-scope.js";

/**
 * The baseline side of a comparison, or why there is none yet. `historyDirs` are earlier baseline sessions
 * of the base branch (stored mode), read only to estimate the between-session drift.
 */
export type BaselineSource =
  | { dir: string; historyDirs: string[]; info: BaselineInfo; sha: string | null }
  | { missing: string };

/**
 * Where the baseline comes from: the base side measured in this job (interleaved), the user's local
 * `baseline-path`, or the artifact of an earlier run on the base branch (found, downloaded, validated).
 * Called before the candidate is measured: a search or download that fails after the client's retries
 * throws (its message names the step, the call and the status), so no GPU time is spent for nothing.
 */
export async function acquireBaseline(scope: JobScope, measured: Measured): Promise<BaselineSource> {
  const { inputs, plan, context, layout, io } = scope;
  if (measured.mode === "interleaved") {
    return {
      dir: layout.baselineSideDir,
      historyDirs: [],
      info: {
        ...(plan.baseSha ? { commit: plan.baseSha } : {}),
        note: "measured in this job, interleaved (A B, B A, ...)",
      },
      sha: plan.baseSha ? safeSha(plan.baseSha) : null,
    };
  }
  if (inputs.baselinePath) {
    // The user's own files on the runner: trusted, and may be vLLM JSON that compare converts.
    const dir = resolve(scope.workingDirectory, inputs.baselinePath);
    if (!(await exists(dir))) throw new Error(`input baseline-path: ${dir} does not exist`);
    return { dir, historyDirs: [], info: { note: `local baseline-path ${inputs.baselinePath}` }, sha: null };
  }
  if (!plan.baseBranch) {
    return {
      missing: "the base branch is unknown (no pull request and no default branch in the event payload)",
    };
  }
  const { config } = scope.config;
  const query = {
    owner: context.owner,
    repo: context.repo,
    workflowFile: inputs.baselineWorkflow ?? context.workflowFile,
    baseBranch: plan.baseBranch,
    preferredSha: plan.baseSha,
    artifactName: inputs.baselineArtifact,
    sessions: config.gate.baseline_sessions,
  };
  const search = await findBaseline(scope.github(), query);
  if (!search.found) {
    if (search.problem) io.warning(baselineSearchWarning(search.problem));
    const why = search.problem ?? examinedSummary(query, search.examined);
    return { missing: `no artifact ${inputs.baselineArtifact} on ${plan.baseBranch} (${why})` };
  }
  const found = search.found;
  const validated = await downloadBaseline(scope, found, layout.downloadDir);
  if (validated.manifest && validated.manifest.commit !== found.headSha) {
    io.warning(manifestCommitWarning(validated.manifest.commit, found.headSha));
  }
  io.info(baselineFoundLine(found.runId, found.headSha, plan.baseBranch, found.fallbackReason));
  const historyDirs = await downloadHistory(scope, search.history);
  return {
    dir: layout.downloadDir,
    historyDirs,
    info: {
      commit: found.headSha,
      runId: String(found.runId),
      date: found.runCreatedAt,
      ref: plan.baseBranch,
      url: runUrlOf({ ...context, runId: found.runId }),
      ...noteOf([measured.fallbackReason, found.fallbackReason]),
    },
    sha: safeSha(found.headSha),
  };
}

/** The baseline's note: why `auto` did not run interleaved, and why an older baseline run was used. */
function noteOf(reasons: readonly (string | null)[]): { note?: string } {
  const present = reasons.filter((reason): reason is string => Boolean(reason));
  return present.length > 0 ? { note: present.join("; ") } : {};
}

/** Downloads one baseline artifact into `dir` and checks it as untrusted input. */
async function downloadBaseline(scope: JobScope, found: FoundBaseline, dir: string) {
  if (found.artifactSizeBytes > defaultBaselineLimits.maxTotalBytes) {
    throw new UntrustedBaselineError(
      `baseline artifact of run ${found.runId} is ${found.artifactSizeBytes} bytes, over the ${defaultBaselineLimits.maxTotalBytes} allowed`,
    );
  }
  await rm(dir, { recursive: true, force: true });
  await scope.store.download(
    {
      id: found.artifactId,
      name: scope.inputs.baselineArtifact,
      sizeBytes: found.artifactSizeBytes,
      runId: found.runId,
    },
    dir,
  );
  return validateBaselineDir(dir);
}

/**
 * The earlier baseline sessions, each checked like the baseline itself. One that cannot be downloaded or
 * fails the checks is left out with a warning: the history only refines the drift estimate.
 */
async function downloadHistory(scope: JobScope, history: readonly FoundBaseline[]): Promise<string[]> {
  const dirs: string[] = [];
  for (const found of history) {
    const dir = join(scope.layout.historyDir, String(found.runId));
    try {
      await downloadBaseline(scope, found, dir);
      dirs.push(dir);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      scope.io.warning(historyLeftOutWarning(found.runId, found.headSha, (error as Error).message));
    }
  }
  if (history.length > 0) scope.io.info(historyLine(dirs.length));
  return dirs;
}
