import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import type { BaselineInfo } from "../compare/verdict-schema.js";
import {
  defaultBaselineLimits,
  UntrustedBaselineError,
  validateBaselineDir,
} from "../github/baseline-bundle.js";
import { findBaseline } from "../github/baseline-discovery.js";
import { safeSha } from "../github/escape.js";
import { exists, type JobScope, type Measured } from "./job-scope.js";

/** The baseline side of a comparison, or why there is none yet. */
export type BaselineSource = { dir: string; info: BaselineInfo; sha: string | null } | { missing: string };

/**
 * Where the baseline comes from: the base side measured in this job (interleaved), the user's local
 * `baseline-path`, or the artifact of an earlier run on the base branch (found, downloaded, validated).
 */
export async function acquireBaseline(scope: JobScope, measured: Measured): Promise<BaselineSource> {
  const { inputs, plan, context, layout, io } = scope;
  if (measured.mode === "interleaved") {
    return {
      dir: layout.baselineSideDir,
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
    return { dir, info: { note: `local baseline-path ${inputs.baselinePath}` }, sha: null };
  }
  if (!plan.baseBranch) {
    return {
      missing: "the base branch is unknown (no pull request and no default branch in the event payload)",
    };
  }
  const search = await findBaseline(scope.github(), {
    owner: context.owner,
    repo: context.repo,
    workflowFile: inputs.baselineWorkflow ?? context.workflowFile,
    baseBranch: plan.baseBranch,
    preferredSha: plan.baseSha,
    artifactName: inputs.baselineArtifact,
  });
  if (!search.found) {
    if (search.problem) io.warning(`Baseline search: ${search.problem}`);
    const why = [search.problem, ...search.rejected].filter(Boolean).join("; ");
    return {
      missing: `no artifact ${inputs.baselineArtifact} on ${plan.baseBranch}${why ? ` (${why})` : ""}`,
    };
  }
  const found = search.found;
  if (found.artifactSizeBytes > defaultBaselineLimits.maxTotalBytes) {
    throw new UntrustedBaselineError(
      `baseline artifact of run ${found.runId} is ${found.artifactSizeBytes} bytes, over the ${defaultBaselineLimits.maxTotalBytes} allowed`,
    );
  }
  await rm(layout.downloadDir, { recursive: true, force: true });
  await scope.store.download(
    {
      id: found.artifactId,
      name: inputs.baselineArtifact,
      sizeBytes: found.artifactSizeBytes,
      runId: found.runId,
    },
    layout.downloadDir,
  );
  const validated = await validateBaselineDir(layout.downloadDir);
  if (validated.manifest && validated.manifest.commit !== found.headSha) {
    io.warning(
      `The baseline's manifest names commit ${validated.manifest.commit.slice(0, 12)} but its run was for ${found.headSha.slice(0, 12)}; the run's commit is reported.`,
    );
  }
  io.info(
    `Baseline: run ${found.runId} at ${found.headSha.slice(0, 12)} on ${plan.baseBranch}${found.fallbackReason ? ` (fell back: ${found.fallbackReason})` : ""}.`,
  );
  return {
    dir: layout.downloadDir,
    info: {
      commit: found.headSha,
      runId: String(found.runId),
      date: found.runCreatedAt,
      ref: plan.baseBranch,
      url: `${context.serverUrl}/${context.owner}/${context.repo}/actions/runs/${found.runId}`,
      ...(found.fallbackReason ? { note: found.fallbackReason } : {}),
    },
    sha: safeSha(found.headSha),
  };
}
