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
import type { Outbound } from "../../server/outbound.js";
import type { BudgetPlan } from "../budget-plan.js";
import { type SpendMeter, spendMeter } from "../measure-on-devices.js";
import { calibrateJob } from "./calibrate-job.js";
import type { ActionDependencies } from "./dependencies.js";
import { guardForkPullRequest } from "./fork-guard.js";
import { gate } from "./gate.js";
import { recordHistory } from "./history.js";
import type { ActionInputs } from "./inputs.js";
import { budgetedJobConfig } from "./job-budget.js";
import type { ActionIO } from "./job-io.js";
import { outputNames, stateKeys, throughOutbound } from "./job-io.js";
import { exists, type JobScope, layoutOf, type Measured } from "./job-scope.js";
import {
  type BaseSideLoad,
  type BaseSideSource,
  collectParts,
  measureCandidate,
  prepareBaseSide,
  prepareMeasuring,
} from "./measure-candidate.js";
import type { ActionResult } from "./orchestrator-types.js";
import { planRun, type RunPlan } from "./plan.js";
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
  /** What the job read before it wrote anything (`openJob`). */
  job: OpenedJob;
  /**
   * The job's one way out (server/outbound.ts), built by the caller once from the job's one secret set:
   * the environment the configs were loaded with, the token and `job.configs`. Never extended.
   */
  outbound: Outbound;
}

/** Partial artifacts of a matrix are named `<artifact-name>-part-<cells>`. */
export function partArtifactName(artifactName: string, cells: string[]): string {
  const joined = [...cells].sort().join("_");
  const slug = joined.length <= 60 ? joined : createHash("sha256").update(joined).digest("hex").slice(0, 16);
  return `${artifactName}-part-${slug}`;
}

/** What a job reads before it writes anything: the configs its secret set is built from. */
export interface OpenedJob {
  plan: RunPlan;
  workingDirectory: string;
  /** Absolute path of the PR's (or this commit's) config. */
  configPath: string;
  /**
   * That config loaded once (under a budget: as its plan measures it, with the plan), or why it cannot be
   * used (the job fails where it is first needed).
   */
  loading: { config: LoadedConfig; budgetPlan?: BudgetPlan | undefined } | { error: unknown };
  /** Interleaved runs' base commit config (measure-candidate.ts prepareBaseSide); null: no base side. */
  base: BaseSideLoad | null;
  /** Every config the job loaded, for the job's secret set. */
  configs: LoadedConfig[];
  /** The job's GitHub client, created on first use. */
  github: () => GitHubClient;
  /** Where the lines said while the job opened go once its output exists (they wait until then). */
  logTo(sink: (line: string) => void): void;
}

/**
 * Opens a job: the fork guard and the plan (their errors are thrown), then every config the job will
 * measure, each loaded once with the job's environment: this commit's, and the base commit's for
 * interleaved runs. A config that cannot be used is kept as its error, so the job can fail where it is
 * first needed, through its output. Nothing is printed: the output is built from what this reads.
 */
export async function openJob(
  deps: ActionDependencies,
  inputs: ActionInputs,
  context: ActionContext,
  options: { workspace: string; env: Readonly<Record<string, string | undefined>> },
): Promise<OpenedJob> {
  guardForkPullRequest(context, inputs.allowForkPrs);
  const plan = planRun(inputs, context);
  const workingDirectory = resolve(options.workspace, inputs.workingDirectory);
  const configPath = resolve(workingDirectory, inputs.config);
  // Lines said before the job's output exists (the budget's plan, the client's retries) wait for it.
  const waiting: string[] = [];
  let sink: ((line: string) => void) | null = null;
  const say = (line: string) => (sink ? sink(line) : waiting.push(line));
  // The config is loaded once for the whole job. One that cannot be loaded fails the job where it is
  // first needed (its error is kept until then), so the step's state and outputs are set up first.
  const loading: OpenedJob["loading"] = await loadConfig(configPath, {
    cwd: workingDirectory,
    env: options.env,
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
          say(line);
      return { config: budgeted.loaded, budgetPlan: budgeted.budget?.plan };
    })
    .catch((error: unknown) => ({ error }));
  let client: GitHubClient | null = null;
  const github = () => {
    if (!inputs.githubToken)
      throw new Error("input github-token is empty: it is needed to reach the GitHub API");
    client ??= deps.github(inputs.githubToken, context.apiUrl, { log: say });
    return client;
  };
  const source: BaseSideSource = {
    plan,
    get config(): LoadedConfig {
      if ("error" in loading) throw loading.error;
      return loading.config;
    },
    workingDirectory,
    workspace: options.workspace,
    configPath,
    github,
    context,
    env: options.env,
    // The PR's config says how both sides are measured: the base side by its budget plan too.
    ...("budgetPlan" in loading && loading.budgetPlan ? { budgetPlan: loading.budgetPlan } : {}),
  };
  const base =
    plan.source === "interleaved"
      ? await prepareBaseSide(source).catch((error: unknown) => ({ error }))
      : null;
  const configs = [loading, ...(base ? [base] : [])].flatMap((side) =>
    "config" in side ? [side.config] : [],
  );
  return {
    plan,
    workingDirectory,
    configPath,
    loading,
    base,
    configs,
    github,
    logTo(to) {
      sink = to;
      for (const line of waiting.splice(0)) to(line);
    },
  };
}

export async function runAction(
  deps: ActionDependencies,
  inputs: ActionInputs,
  context: ActionContext,
  runnerIo: ActionIO,
  options: RunActionOptions,
): Promise<ActionResult> {
  const { job, outbound } = options;
  const io = throughOutbound(runnerIo, outbound);
  job.logTo((line) => io.info(line));
  const scope = jobScopeOf(deps, inputs, context, io, options);
  await mkdir(scope.layout.candidateDir, { recursive: true });
  const evidence = evidenceUploads(scope, options.workDir);
  try {
    return await runJobSteps(scope, job, evidence);
  } catch (error) {
    // The error reaches the job summary and, on a pull request, the sticky comment: a stale verdict
    // there would outlive the job that could not renew it.
    return await publishFailure(scope, error, deps.interrupted?.() ?? false);
  } finally {
    if (job.base && "path" in job.base) await rm(job.base.path, { force: true });
    if (!evidence.uploaded() && (await exists(scope.layout.evidenceDir))) await evidence.uploadEvidence();
  }
}

/** Everything the job's steps share: the injected dependencies, the plan, the layout, the seam, the store. */
function jobScopeOf(
  deps: ActionDependencies,
  inputs: ActionInputs,
  context: ActionContext,
  io: ActionIO,
  options: RunActionOptions,
): JobScope {
  const { job, outbound } = options;
  const { plan, loading } = job;
  return {
    deps,
    inputs,
    context,
    io,
    plan,
    layout: layoutOf(options.workDir),
    configPath: job.configPath,
    get config(): LoadedConfig {
      if ("error" in loading) throw loading.error;
      return loading.config;
    },
    workingDirectory: job.workingDirectory,
    workspace: options.workspace,
    outbound,
    github: job.github,
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
}

/** The job's uploads: a directory cleaned and uploaded as an artifact, and the evidence's own. */
interface EvidenceUploads {
  /** The evidence artifact's name (a matrix part's carries its cells). */
  readonly artifact: string;
  upload(name: string, dir: string): Promise<void>;
  /** The evidence, whose failure is a warning: it never decides the verdict, and the post step retries. */
  uploadEvidence(): Promise<void>;
  uploaded(): boolean;
}

/** The job's uploads, with what the post step needs saved first (the directories, the artifact, retention). */
function evidenceUploads(scope: JobScope, workDir: string): EvidenceUploads {
  const { io, inputs, layout, plan } = scope;
  const artifact = plan.partial
    ? partArtifactName(inputs.artifactName, inputs.cells ?? [])
    : inputs.artifactName;
  io.saveState(stateKeys.workDir, workDir);
  io.saveState(stateKeys.evidenceDir, layout.evidenceDir);
  io.saveState(stateKeys.evidenceArtifact, artifact);
  io.saveState(stateKeys.retentionDays, inputs.retentionDays ? String(inputs.retentionDays) : "");
  io.saveState(stateKeys.serverStateFile, layout.serverStateFile);
  io.setOutput(outputNames.resultsDir, layout.candidateDir);
  let uploaded = false;
  const upload = async (name: string, dir: string) => {
    const redacted = await redactEvidence(dir, scope.outbound);
    if (redacted.length > 0) io.warning(redactedFilesWarning(redacted.length));
    const stored = await scope.store.upload(
      name,
      dir,
      inputs.retentionDays ? { retentionDays: inputs.retentionDays } : {},
    );
    uploaded = true;
    io.saveState(stateKeys.uploaded, "true");
    io.info(uploadedLine(name, stored ? stored.sizeBytes : null, dir));
  };
  return {
    artifact,
    upload,
    uploadEvidence: () =>
      upload(artifact, layout.evidenceDir).catch((error: unknown) => {
        io.warning(uploadFailedWarning((error as Error).message));
      }),
    uploaded: () => uploaded,
  };
}

/**
 * The job by its plan: a calibration; or the candidate measured (or a matrix's parts gathered), the
 * baseline found before any GPU time; then a part's upload, a baseline recorded, or the gate.
 */
async function runJobSteps(
  scope: JobScope,
  job: OpenedJob,
  evidence: EvidenceUploads,
): Promise<ActionResult> {
  const { plan, inputs, layout } = scope;
  if (inputs.mode === "calibrate") {
    const result = await calibrateJob(scope);
    await evidence.uploadEvidence();
    return result;
  }
  const judging = plan.role === "gate" && !plan.partial;
  let baseline: BaselineSource | null = null;
  let measured: Measured;
  if (plan.source === "aggregate") {
    measured = await collectParts(scope);
    if (judging) baseline = await acquireBaseline(scope, measured);
  } else {
    measured = await prepareMeasuring(scope, job.base);
    // Before any GPU time: a baseline that cannot be found or downloaded ends the job here, and one
    // that is missing is known before the candidate is measured.
    if (judging) baseline = await acquireBaseline(scope, measured);
    await measureCandidate(scope, measured);
  }
  if (plan.partial) {
    // A part's upload is its whole output: the aggregate job cannot judge without it.
    await evidence.upload(evidence.artifact, layout.evidenceDir);
    return await partialResult(scope, evidence.artifact);
  }
  if (plan.role === "baseline") {
    const result = await recordBaseline(scope);
    // Before the upload: the artifact fallback writes the history file into the baseline artifact.
    const history = await recordHistory(scope);
    await evidence.upload(inputs.baselineArtifact, layout.candidateDir);
    // The baseline bundle is what later gates read; the evidence (logs, scrapes) is for people.
    await evidence.uploadEvidence();
    // history-change-points: fail makes a new worsening on main a failed check (once per change point).
    return history.failure ? { ...result, failed: true, failureMessage: history.failure } : result;
  }
  if (!baseline) throw new Error("a gate job reached its comparison without looking for a baseline");
  const result = await gate(scope, measured, baseline);
  await evidence.uploadEvidence();
  return result;
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
