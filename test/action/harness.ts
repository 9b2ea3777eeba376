import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ActionIO } from "../../src/action/action-io.js";
import type { ActionDependencies } from "../../src/app/gate/dependencies.js";
import type { ActionResult } from "../../src/app/gate/orchestrator.js";
import { type FakeGitHub, runtimeToken } from "../github/fake-github.js";

/**
 * Runs the main step the way the runner does: a fresh job directory with GITHUB_OUTPUT, GITHUB_STATE and
 * the event file, INPUT_* and GITHUB_* variables, an ACTIONS_RUNTIME_TOKEN naming the job's run for the
 * fake results service; the run is recorded in the fake API and marked success/failure afterwards.
 */

export const workflowToken = "ghs_workflowtoken0123456789";

/** GITHUB_OUTPUT / GITHUB_STATE use `name<<delimiter\nvalue\ndelimiter` blocks. */
export function parseCommandFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const pattern = /^(.+?)<<(ghadelimiter_[0-9a-f-]+)\n([\s\S]*?)\n\2$/gm;
  for (const match of text.matchAll(pattern)) values[match[1] ?? ""] = match[3] ?? "";
  return values;
}

export interface Job {
  runId: number;
  event: "push" | "pull_request" | "schedule" | "workflow_dispatch";
  payload: object;
  sha: string;
  ref: string;
  inputs?: Record<string, string>;
  runner?: "github-hosted" | "self-hosted";
  config?: string;
  workflow?: string;
  env?: Record<string, string>;
}

export interface JobEnvironment {
  fake: FakeGitHub;
  root: string;
  workspace: string;
  summaryFile: string;
  io: ActionIO;
  runMainStep: (deps: ActionDependencies, io: ActionIO, env: NodeJS.ProcessEnv) => Promise<ActionResult>;
}

export async function runJob(environment: JobEnvironment, job: Job, dependencies: ActionDependencies) {
  const { fake, root, workspace, summaryFile } = environment;
  const backendId = `backend-${job.runId}`;
  if (!fake.runs.some((run) => run.id === job.runId)) {
    fake.runs.push({
      id: job.runId,
      head_sha: job.sha,
      head_branch: job.event === "pull_request" ? "fp8-kv" : "main",
      event: job.event,
      conclusion: "failure",
      workflowFile: job.workflow ?? "bench.yml",
      created_at: new Date(Date.UTC(2026, 10, 1) + job.runId * 60_000).toISOString(),
      backendId,
    });
  }
  if (job.config) await writeFile(join(workspace, "vllm-perf-gate.yml"), job.config);
  const jobDir = await mkdtemp(join(root, `job-${job.runId}-`));
  const files = {
    output: join(jobDir, "output"),
    state: join(jobDir, "state"),
    event: join(jobDir, "event.json"),
  };
  await writeFile(files.output, "");
  await writeFile(files.state, "");
  await writeFile(files.event, JSON.stringify(job.payload));
  await writeFile(summaryFile, "");
  for (const key of Object.keys(process.env))
    if (key.startsWith("INPUT_") || key.startsWith("STATE_")) delete process.env[key];
  Object.assign(process.env, {
    GITHUB_EVENT_NAME: job.event,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_SHA: job.sha,
    GITHUB_REF: job.ref,
    GITHUB_REPOSITORY: `${fake.owner}/${fake.repo}`,
    GITHUB_RUN_ID: String(job.runId),
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_WORKFLOW_REF: `${fake.owner}/${fake.repo}/.github/workflows/${job.workflow ?? "bench.yml"}@${job.ref}`,
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: files.output,
    GITHUB_STATE: files.state,
    RUNNER_TEMP: jobDir,
    RUNNER_ENVIRONMENT: job.runner ?? "self-hosted",
    ACTIONS_RUNTIME_TOKEN: runtimeToken(backendId, "job-1"),
    "INPUT_GITHUB-TOKEN": workflowToken,
    ...Object.fromEntries(
      Object.entries(job.inputs ?? {}).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]),
    ),
    ...job.env,
  });
  const result = await environment.runMainStep(dependencies, environment.io, process.env);
  for (const name of Object.keys(job.env ?? {})) delete process.env[name];
  const run = fake.runs.find((candidate) => candidate.id === job.runId);
  if (run) run.conclusion = result.failed ? "failure" : "success";
  return {
    result,
    outputs: parseCommandFile(await readFile(files.output, "utf8")),
    state: parseCommandFile(await readFile(files.state, "utf8")),
    summary: await readFile(summaryFile, "utf8"),
  };
}
