import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ActionDependencies } from "../app/gate/dependencies.js";
import { maskSecrets, throughOutbound } from "../app/gate/job-io.js";
import { type ActionResult, openJob, runAction } from "../app/gate/orchestrator.js";
import { jobOutbound } from "../app/job-outbound.js";
import { readActionContext } from "../github/context.js";
import {
  errorSummary,
  postUploadFailedWarning,
  stateFileCleanupWarning,
  uploadedLine,
} from "../report/status.js";
import type { Outbound } from "../server/outbound.js";
import type { ActionIO } from "./action-io.js";
import { outputNames, stateKeys } from "./action-io.js";
import { parseActionInputs } from "./inputs.js";

/**
 * The main step as the runner runs it: inputs from INPUT_*, context from GITHUB_* and the event file,
 * outputs/state/summary through `io`. Returns instead of calling setFailed so tests can run it in-process;
 * main.ts turns `failed` into the step's failure.
 */

export async function runMainStep(
  deps: ActionDependencies,
  io: ActionIO,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ActionResult> {
  // The job's one way out (server/outbound.ts), built once from the job's one secret set when the job
  // has read everything that can hold a secret: the environment, the token and every config it loads.
  let outbound: Outbound | null = null;
  let token: string | undefined;
  try {
    const inputs = parseActionInputs();
    token = inputs.githubToken;
    if (token) io.setSecret(token);
    const context = readActionContext(env);
    const workRoot = env.RUNNER_TEMP || tmpdir();
    const workDir = await mkdtemp(join(workRoot, `vllm-perf-gate-${context.runId}-`));
    const workspace = env.GITHUB_WORKSPACE || process.cwd();
    const job = await openJob(deps, inputs, context, { workspace, env });
    outbound = jobOutbound({ env, token, configs: job.configs });
    // GitHub masks them in the job log too (the seam covers files, the summary and the comment).
    maskSecrets(io, outbound.secrets);
    return await runAction(deps, inputs, context, io, { workDir, workspace, job, outbound });
  } catch (error) {
    // A job that failed before it read its configs (its inputs, its event): the set of its environment.
    outbound ??= jobOutbound({ env, token });
    const jobIo = throughOutbound(io, outbound);
    const message = outbound.clean(error instanceof Error ? error.message : String(error));
    jobIo.setOutput(outputNames.verdict, "error");
    await jobIo.appendSummary(errorSummary(message)).catch(() => {});
    return {
      verdict: "error",
      failed: true,
      failureMessage: message,
      reportPath: null,
      resultsDir: "",
      commentUrl: null,
      baselineSha: null,
    };
  }
}

/**
 * The post step (runs `always()`): stops servers a cancelled or crashed main step left running, then
 * uploads the evidence if main could not. Never fails the job for its own reasons: it only warns.
 */
export async function runPostStep(
  deps: ActionDependencies,
  io: ActionIO,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const serverStateFile = io.getState(stateKeys.serverStateFile);
  if (serverStateFile) {
    const present = await readFile(serverStateFile).then(
      () => true,
      () => false,
    );
    if (present) {
      await deps.cleanupServers(serverStateFile).catch((error: unknown) => {
        io.warning(stateFileCleanupWarning(serverStateFile, (error as Error).message));
      });
    }
  }
  const evidenceDir = io.getState(stateKeys.evidenceDir);
  const name = io.getState(stateKeys.evidenceArtifact);
  if (!evidenceDir || !name || io.getState(stateKeys.uploaded) === "true") return;
  try {
    const context = readActionContext(env);
    const store = deps.artifacts({
      token: "",
      owner: context.owner,
      repo: context.repo,
      runId: context.runId,
    });
    const retention = Number.parseInt(io.getState(stateKeys.retentionDays), 10);
    const artifact = await store.upload(
      name,
      evidenceDir,
      Number.isFinite(retention) ? { retentionDays: retention } : {},
    );
    io.info(uploadedLine(name, artifact ? artifact.sizeBytes : null, evidenceDir, "post"));
  } catch (error) {
    io.warning(postUploadFailedWarning(evidenceDir, (error as Error).message));
  }
}
