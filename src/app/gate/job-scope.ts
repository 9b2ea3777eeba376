import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { ComparisonMode } from "../../compare/verdict/verdict-schema.js";
import type { LoadedConfig } from "../../config/load.js";
import type { ArtifactStore } from "../../github/artifact-store.js";
import type { GitHubClient } from "../../github/client.js";
import type { ActionContext } from "../../github/context.js";
import type { Outbound } from "../../server/outbound.js";
import type { BudgetPlan } from "../budget-plan.js";
import type { SpendMeter } from "../measure-on-devices.js";
import type { ActionDependencies } from "./dependencies.js";
import type { ActionInputs } from "./inputs.js";
import type { ActionIO } from "./job-io.js";
import type { RunPlan } from "./plan.js";

/** Everything one step of the action works with, resolved once and shared by its parts. */
export interface JobScope {
  deps: ActionDependencies;
  inputs: ActionInputs;
  context: ActionContext;
  io: ActionIO;
  plan: RunPlan;
  layout: Layout;
  /** Absolute path of the PR's (or this commit's) config. */
  configPath: string;
  /**
   * That config, loaded once for the whole job (its repeats, gate and server settings, and the values it
   * read from the environment); reading it throws the load's error when the file cannot be used.
   */
  readonly config: LoadedConfig;
  workingDirectory: string;
  /** GITHUB_WORKSPACE: the repository checkout. */
  workspace: string;
  /**
   * The job's one way out (server/outbound.ts), built by the main step from the job's one secret set
   * (the environment, the token, every config the job loaded): every file, line, comment and summary of
   * the job leaves through it; `io` is already its.
   */
  readonly outbound: Outbound;
  /** Created on first use, so jobs that never call the API need no token. */
  github: () => GitHubClient;
  store: ArtifactStore;
  /** The pull request's budget spent so far (gate.budget_gpu_minutes or the budget input); absent: none. */
  spend?: SpendMeter;
  /** The plan that budget bought (app/gate/job-budget.ts), which both sides are measured by. */
  budgetPlan?: BudgetPlan;
}

/** The base commit's config of interleaved runs: where it was written, and loaded once. */
export interface BaseSide {
  path: string;
  config: LoadedConfig;
}

/**
 * How the job measures, decided before it measures (so the baseline can be found first): which
 * comparison it calls for, and the base config of interleaved runs.
 */
export interface Measured {
  mode: ComparisonMode;
  base: BaseSide | null;
  /** Why `auto` gates this PR against the stored baseline instead of interleaved; null otherwise. */
  fallbackReason: string | null;
}

/**
 * The step's scratch directory. `evidence/` is what gets uploaded: the candidate's results (and the base
 * side's in interleaved runs), the comparison's files and the report.
 */
export interface Layout {
  evidenceDir: string;
  candidateDir: string;
  baselineSideDir: string;
  compareDir: string;
  downloadDir: string;
  /** Earlier baseline sessions of the base branch, one directory per run id (stored mode's drift history). */
  historyDir: string;
  serverStateFile: string;
  reportPath: string;
}

export function layoutOf(workDir: string): Layout {
  const evidenceDir = join(workDir, "evidence");
  return {
    evidenceDir,
    candidateDir: join(evidenceDir, "candidate"),
    baselineSideDir: join(evidenceDir, "baseline"),
    compareDir: join(evidenceDir, "compare"),
    downloadDir: join(workDir, "downloaded-baseline"),
    historyDir: join(workDir, "baseline-history"),
    serverStateFile: join(workDir, "servers.json"),
    reportPath: join(evidenceDir, "report.md"),
  };
}

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
