import type { GitHubClient } from "./client.js";
import { httpStatusOf } from "./client.js";

/**
 * Finds the baseline artifact for a pull request: the newest successful run of the same workflow on the
 * base branch that recorded one (a push, the scheduled refresh or a manual dispatch), preferring the run at
 * the PR's base commit, walking back past runs whose artifact expired or was never uploaded. With
 * `sessions` > 1 it also returns the next newest baselines of the branch (the history the between-session
 * drift is estimated from). Everything it looked at is returned so the report can say why it fell back.
 */

/**
 * Events whose runs execute the base branch's own workflow and code, so their artifacts may be trusted as
 * a baseline. A pull_request run's branch is the PR's head (a fork may name it `main`): never a baseline.
 */
export const baselineEvents: readonly string[] = ["push", "schedule", "workflow_dispatch"];

export interface BaselineQuery {
  owner: string;
  repo: string;
  /** Workflow file name (`bench.yml`); null searches every workflow of the repository. */
  workflowFile: string | null;
  baseBranch: string;
  /** The PR's base commit: a run at exactly this commit is preferred. */
  preferredSha: string | null;
  artifactName: string;
  /** How many runs of the base branch to look at before giving up (at most 100). */
  maxRuns?: number;
  /** Baseline sessions wanted: the one compared with plus up to sessions − 1 earlier ones (default 1). */
  sessions?: number;
}

export interface FoundBaseline {
  runId: number;
  headSha: string;
  runCreatedAt: string;
  artifactId: number;
  artifactSizeBytes: number;
  /** Null when the run at the preferred commit was used; otherwise why another run was used. */
  fallbackReason: string | null;
}

export interface BaselineSearch {
  found: FoundBaseline | null;
  /** Further baselines of the branch, newest first, not including `found` (at most sessions − 1). */
  history: FoundBaseline[];
  /** One line per run considered and rejected, newest first. */
  rejected: string[];
  /** Set when the search itself could not be done (permissions, unknown workflow). */
  problem: string | null;
}

interface WorkflowRun {
  id: number;
  head_sha: string;
  created_at: string;
  event: string;
}

interface RunArtifact {
  id: number;
  name: string;
  size_in_bytes: number;
  expired: boolean;
}

async function listRuns(client: GitHubClient, query: BaselineQuery, perPage: number, headSha?: string) {
  const parameters = {
    owner: query.owner,
    repo: query.repo,
    branch: query.baseBranch,
    // Every event: `event` takes one value, and baselines come from pushes, schedules and dispatches.
    status: "success" as const,
    per_page: perPage,
    ...(headSha ? { head_sha: headSha } : {}),
  };
  // GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs (or /actions/runs without a workflow):
  // https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow
  const response = query.workflowFile
    ? await client.rest.actions.listWorkflowRuns({ ...parameters, workflow_id: query.workflowFile })
    : await client.rest.actions.listWorkflowRunsForRepo(parameters);
  return (response.data.workflow_runs as WorkflowRun[]).sort((a, b) =>
    b.created_at.localeCompare(a.created_at),
  );
}

async function findArtifact(client: GitHubClient, query: BaselineQuery, runId: number) {
  // GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts?name=...:
  // https://docs.github.com/en/rest/actions/artifacts#list-workflow-run-artifacts
  const response = await client.rest.actions.listWorkflowRunArtifacts({
    owner: query.owner,
    repo: query.repo,
    run_id: runId,
    name: query.artifactName,
    per_page: 100,
  });
  const artifacts = (response.data.artifacts as RunArtifact[]).filter((a) => a.name === query.artifactName);
  const live = artifacts.filter((artifact) => !artifact.expired).sort((a, b) => b.id - a.id);
  return { live: live[0] ?? null, expired: artifacts.length > 0 && live.length === 0 };
}

function short(sha: string): string {
  return sha.slice(0, 12);
}

export async function findBaseline(client: GitHubClient, query: BaselineQuery): Promise<BaselineSearch> {
  const rejected: string[] = [];
  const seen = new Set<number>();
  const wanted = Math.max(1, query.sessions ?? 1);
  let found: FoundBaseline | null = null;
  const history: FoundBaseline[] = [];
  const describeMiss = (run: WorkflowRun, expired: boolean) =>
    `run ${run.id} at ${short(run.head_sha)}: artifact "${query.artifactName}" ${expired ? "expired" : "not uploaded"}`;
  /** True when `run` gave a baseline (the first one found, or one more for the history). */
  const consider = async (run: WorkflowRun, reason: () => string | null): Promise<boolean> => {
    seen.add(run.id);
    if (!baselineEvents.includes(run.event)) {
      rejected.push(`run ${run.id} at ${short(run.head_sha)}: a ${run.event} run is never a baseline`);
      return false;
    }
    const { live, expired } = await findArtifact(client, query, run.id);
    if (!live) {
      if (!found) rejected.push(describeMiss(run, expired));
      return false;
    }
    if (found) history.push(toFound(run, live, null));
    else found = toFound(run, live, reason());
    return true;
  };
  try {
    if (query.preferredSha) {
      for (const run of await listRuns(client, query, 5, query.preferredSha)) {
        if (await consider(run, () => null)) break;
      }
      if (seen.size === 0)
        rejected.push(
          `no successful ${baselineEvents.join("/")} run on ${query.baseBranch} at base commit ${short(query.preferredSha)}`,
        );
    }
    const complete = () => found !== null && history.length >= wanted - 1;
    if (complete()) return { found, history, rejected, problem: null };
    const perPage = Math.min(100, Math.max(query.maxRuns ?? 20, 2 * wanted));
    for (const run of await listRuns(client, query, perPage)) {
      if (complete()) break;
      if (seen.has(run.id)) continue;
      await consider(run, () =>
        query.preferredSha ? `${rejected.join("; ")}; used the newest earlier run with a baseline` : null,
      );
    }
    return { found, history, rejected, problem: null };
  } catch (error) {
    const status = httpStatusOf(error);
    if (status === 404) {
      return {
        found: null,
        history: [],
        rejected,
        problem: `workflow ${query.workflowFile ?? "(any)"} has no runs visible to the token (404)`,
      };
    }
    if (status === 403 || status === 401) {
      return {
        found: null,
        history: [],
        rejected,
        problem: `the token may not list workflow runs or artifacts (HTTP ${status}): grant \`actions: read\``,
      };
    }
    throw error;
  }
}

function toFound(run: WorkflowRun, artifact: RunArtifact, fallbackReason: string | null): FoundBaseline {
  return {
    runId: run.id,
    headSha: run.head_sha,
    runCreatedAt: run.created_at,
    artifactId: artifact.id,
    artifactSizeBytes: artifact.size_in_bytes,
    fallbackReason,
  };
}
