import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ActionDependencies } from "../app/gate/dependencies.js";
import { type ActionResult, runAction } from "../app/gate/orchestrator.js";
import { readActionContext } from "../github/context.js";
import { renderedForms } from "../report/escape.js";
import {
  errorSummary,
  postUploadFailedWarning,
  stateFileCleanupWarning,
  uploadedLine,
} from "../report/status.js";
import { collectJobSecrets } from "../server/secrets.js";
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
  // The job's one set of secrets (server/secrets.ts), grown as runAction loads the config: an error
  // may quote any of them. The forms find a value a report escaped.
  let secrets = collectJobSecrets({ env }, { forms: renderedForms });
  try {
    const inputs = parseActionInputs();
    if (inputs.githubToken) io.setSecret(inputs.githubToken);
    secrets = secrets.with({ token: inputs.githubToken });
    const context = readActionContext(env);
    const workRoot = env.RUNNER_TEMP || tmpdir();
    const workDir = await mkdtemp(join(workRoot, `vllm-perf-gate-${context.runId}-`));
    return await runAction(deps, inputs, context, io, {
      workDir,
      workspace: env.GITHUB_WORKSPACE || process.cwd(),
      secrets,
      onSecrets: (grown) => {
        secrets = grown;
      },
    });
  } catch (error) {
    const message = secrets.redactor.redact(error instanceof Error ? error.message : String(error));
    io.setOutput(outputNames.verdict, "error");
    await io.appendSummary(errorSummary(message)).catch(() => {});
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
