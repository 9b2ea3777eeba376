import { createHash } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import { resolve } from "node:path";
import { type LoadedConfig, loadConfig } from "../../config/load.js";
import { countRuns } from "../../github/baseline-bundle.js";
import type { GitHubClient } from "../../github/client.js";
import type { ActionContext } from "../../github/context.js";
import { budgetCutWarning, budgetPlanLines } from "../../report/budget.js";
import {
  partialResultsLine,
  partialResultsSummary,
  redactedFilesWarning,
  uploadedLine,
  uploadFailedWarning,
} from "../../report/status.js";
import { minimumSecretLength } from "../../server/redact.js";
import type { JobSecrets } from "../../server/secrets.js";
import type { BudgetPlan } from "../../stats/budget-plan.js";
import { type SpendMeter, spendMeter } from "../measure-on-devices.js";
import { calibrateJob } from "./calibrate-job.js";
import type { ActionDependencies } from "./dependencies.js";
import { guardForkPullRequest } from "./fork-guard.js";
import { gate } from "./gate.js";
import { recordHistory } from "./history.js";
import type { ActionInputs } from "./inputs.js";
import { budgetedJobConfig } from "./job-budget.js";
import type { ActionIO } from "./job-io.js";
import { outputNames, stateKeys } from "./job-io.js";
import { exists, type JobScope, layoutOf, type Measured } from "./job-scope.js";
import { collectParts, measureCandidate, prepareMeasuring } from "./measure-candidate.js";
import type { ActionResult } from "./orchestrator-types.js";
import { planRun } from "./plan.js";
import { publishFailure } from "./publish.js";
import { recordBaseline } from "./record-baseline.js";
import { redactEvidence } from "./redact-evidence.js";
import { acquireBaseline, type BaselineSource } from "./stored-baseline.js";

export type { ActionResult } from "./orchestrator-types.js";

/**
 * The action's whole flow, with every outside effect injected: plan -> measure (or gather a matrix's
 * parts) -> record a baseline, or gate against one -> publish -> upload the evidence, even when something
 * above failed.
 */

export interface RunActionOptions {
  /** Scratch directory of this step (results, downloads, report). */
  workDir: string;
  /** GITHUB_WORKSPACE: where the repository is checked out. */
  workspace: string;
  /**
   * The job's secrets so far (server/secrets.ts: the token, credential-looking variables); the job adds
   * each config it loads. Never written to a comment, summary or artifact.
   */
  secrets: JobSecrets;
  /** Told the set each time it grows (a config loaded), for the caller's error path. */
  onSecrets?: (secrets: JobSecrets) => void;
}

/** Partial artifacts of a matrix are named `<artifact-name>-part-<cells>`. */
export function partArtifactName(artifactName: string, cells: string[]): string {
  const joined = [...cells].sort().join("_");
  const slug = joined.length <= 60 ? joined : createHash("sha256").update(joined).digest("hex").slice(0, 16);
  return `${artifactName}-part-${slug}`;
}

export async function runAction(
  deps: ActionDependencies,
  inputs: ActionInputs,
  context: ActionContext,
  io: ActionIO,
  options: RunActionOptions,
): Promise<ActionResult> {
  guardForkPullRequest(context, inputs.allowForkPrs);
  const plan = planRun(inputs, context);
  const workingDirectory = resolve(options.workspace, inputs.workingDirectory);
  const layout = layoutOf(options.workDir);
  await mkdir(layout.candidateDir, { recursive: true });
  let client: GitHubClient | null = null;
  const configPath = resolve(workingDirectory, inputs.config);
  // The config is loaded once for the whole job. One that cannot be loaded fails the job where it is
  // first needed (its error is kept until then), so the step's state and outputs are set up first.
  const loading: { config: LoadedConfig; budgetPlan?: BudgetPlan | undefined } | { error: unknown } =
    await loadConfig(configPath, {
      cwd: workingDirectory,
    })
      .then(async (config) => {
        // Under a budget the job measures its plan (job-budget.ts); one it cannot afford fails like a bad config.
        const budgeted = await budgetedJobConfig(config, inputs, plan, { workingDirectory, now: deps.now() });
        if (budgeted.budget)
          for (const line of budgetPlanLines(
            budgeted.budget.plan,
            budgeted.loaded.config.gate.detect_change,
            budgeted.budget.budgetToDecide,
          ))
            io.info(line);
        return { config: budgeted.loaded, budgetPlan: budgeted.budget?.plan };
      })
      .catch((error: unknown) => ({ error }));
  // One set for the whole job, handed to measuring, compare and every writer of the job (JobScope).
  let secrets = options.secrets.with({
    token: inputs.githubToken,
    configs: "config" in loading ? [loading.config] : [],
  });
  const masked = new Set<string>();
  const learn = (next: JobSecrets) => {
    secrets = next;
    options.onSecrets?.(next);
    // GitHub masks them in the job log too (our own redaction covers files, the summary and the comment).
    for (const { value } of next.named) {
      if (value.length < minimumSecretLength || masked.has(value)) continue;
      masked.add(value);
      io.setSecret(value);
    }
  };
  learn(secrets);
  const scope: JobScope = {
    deps,
    inputs,
    context,
    io,
    plan,
    layout,
    configPath,
    get config(): LoadedConfig {
      if ("error" in loading) throw loading.error;
      return loading.config;
    },
    workingDirectory,
    workspace: options.workspace,
    // The forms the caller's redactor knows let the last pass over a report find a value that was
    // escaped (publish.ts, redact-evidence.ts).
    get secrets(): JobSecrets {
      return secrets;
    },
    set secrets(next: JobSecrets) {
      learn(next);
    },
    get redactor() {
      return secrets.redactor;
    },
    github: () => {
      if (!inputs.githubToken)
        throw new Error("input github-token is empty: it is needed to reach the GitHub API");
      client ??= deps.github(inputs.githubToken, context.apiUrl, { log: (line) => io.info(line) });
      return client;
    },
    store: deps.artifacts({
      token: inputs.githubToken,
      owner: context.owner,
      repo: context.repo,
      runId: context.runId,
      apiUrl: context.apiUrl,
      log: (line) => io.info(line),
    }),
    ...spendOf(loading, plan, deps, io),
    ...("budgetPlan" in loading && loading.budgetPlan ? { budgetPlan: loading.budgetPlan } : {}),
  };

  const evidenceArtifact = plan.partial
    ? partArtifactName(inputs.artifactName, inputs.cells ?? [])
    : inputs.artifactName;
  io.saveState(stateKeys.workDir, options.workDir);
  io.saveState(stateKeys.evidenceDir, layout.evidenceDir);
  io.saveState(stateKeys.evidenceArtifact, evidenceArtifact);
  io.saveState(stateKeys.retentionDays, inputs.retentionDays ? String(inputs.retentionDays) : "");
  io.saveState(stateKeys.serverStateFile, layout.serverStateFile);
  io.setOutput(outputNames.resultsDir, layout.candidateDir);

  let uploaded = false;
  const upload = async (name: string, dir: string) => {
    const redacted = await redactEvidence(dir, scope.redactor);
    if (redacted.length > 0) io.warning(redactedFilesWarning(redacted.length));
    const artifact = await scope.store.upload(
      name,
      dir,
      inputs.retentionDays ? { retentionDays: inputs.retentionDays } : {},
    );
    uploaded = true;
    io.saveState(stateKeys.uploaded, "true");
    io.info(uploadedLine(name, artifact ? artifact.sizeBytes : null, dir));
  };
  // Evidence uploads never decide the verdict: a failure is a warning, and the post step retries.
  const uploadEvidence = () =>
    upload(evidenceArtifact, layout.evidenceDir).catch((error: unknown) => {
      io.warning(uploadFailedWarning((error as Error).message));
    });

  let measured: Measured | null = null;
  try {
    if (inputs.mode === "calibrate") {
      const result = await calibrateJob(scope);
      await uploadEvidence();
      return result;
    }
    const judging = plan.role === "gate" && !plan.partial;
    let baseline: BaselineSource | null = null;
    if (plan.source === "aggregate") {
      measured = await collectParts(scope);
      if (judging) baseline = await acquireBaseline(scope, measured);
    } else {
      measured = await prepareMeasuring(scope);
      // Before any GPU time: a baseline that cannot be found or downloaded ends the job here, and one
      // that is missing is known before the candidate is measured.
      if (judging) baseline = await acquireBaseline(scope, measured);
      await measureCandidate(scope, measured);
    }
    if (plan.partial) {
      // A part's upload is its whole output: the aggregate job cannot judge without it.
      await upload(evidenceArtifact, layout.evidenceDir);
      return await partialResult(scope, evidenceArtifact);
    }
    if (plan.role === "baseline") {
      const result = await recordBaseline(scope);
      // Before the upload: the artifact fallback writes the history file into the baseline artifact.
      const history = await recordHistory(scope);
      await upload(inputs.baselineArtifact, layout.candidateDir);
      // The baseline bundle is what later gates read; the evidence (logs, scrapes) is for people.
      await uploadEvidence();
      // history-change-points: fail makes a new worsening on main a failed check (once per change point).
      return history.failure ? { ...result, failed: true, failureMessage: history.failure } : result;
    }
    if (!baseline) throw new Error("a gate job reached its comparison without looking for a baseline");
    const result = await gate(scope, measured, baseline);
    await uploadEvidence();
    return result;
  } catch (error) {
    // The error reaches the job summary and, on a pull request, the sticky comment: a stale verdict
    // there would outlive the job that could not renew it.
    return await publishFailure(scope, error, deps.interrupted?.() ?? false);
  } finally {
    if (measured?.base) await rm(measured.base.path, { force: true });
    if (!uploaded && (await exists(layout.evidenceDir))) await uploadEvidence();
  }
}

/**
 * A pull request's budget, metered over every block the job measures (measure-on-devices.ts): a gate's
 * jobs only; a baseline recorded on main is not a pull request's spend.
 */
function spendOf(
  loading: { config: LoadedConfig } | { error: unknown },
  plan: { role: string },
  deps: ActionDependencies,
  io: ActionIO,
): { spend?: SpendMeter } {
  if (!("config" in loading) || plan.role !== "gate") return {};
  const limit = loading.config.config.gate.budget_gpu_minutes;
  if (limit === undefined) return {};
  const meter = spendMeter(limit, () => deps.now().getTime());
  meter.onCut = (planned, spent) => io.warning(budgetCutWarning(limit, spent, planned));
  return { spend: meter };
}

async function partialResult(scope: JobScope, artifactName: string): Promise<ActionResult> {
  const runs = await countRuns(scope.layout.candidateDir);
  await scope.io.appendSummary(partialResultsSummary(runs, artifactName));
  scope.io.info(partialResultsLine);
  scope.io.setOutput(outputNames.verdict, "partial");
  return {
    verdict: "partial",
    failed: false,
    failureMessage: null,
    reportPath: null,
    resultsDir: scope.layout.candidateDir,
    commentUrl: null,
    baselineSha: null,
  };
}
