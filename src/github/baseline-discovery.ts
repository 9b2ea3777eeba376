import { describeCallFailure, GitHubCallError, httpStatusOf, isPermissionRefusal } from "./api-failure.js";
import type { GitHubClient } from "./client.js";

/**
 * Finds the baseline artifact for a pull request: the newest successful run of the same workflow on the
 * base branch that recorded one (a push, the scheduled refresh or a manual dispatch), preferring the run at
 * the PR's base commit, walking back past runs whose artifact expired or was never uploaded, page by page
 * up to `baselineSearchBounds`. With `sessions` > 1 it also returns the next newest baselines of the
 * branch (the history the between-session drift is estimated from). What it examined is returned so the
 * report can say why it fell back, or why nothing qualified.
 *
 * Which runs have the artifact is read from the repository's listing of artifacts of that name (100 a
 * page), not run by run: a baseline recorded nightly behind 120 pushes costs two pages of runs and one of
 * artifacts, not 120 calls.
 */

/**
 * Events whose runs execute the base branch's own workflow and code, so their artifacts may be trusted as
 * a baseline. A pull_request run's branch is the PR's head (a fork may name it `main`): never a baseline.
 */
export const baselineEvents: readonly string[] = ["push", "schedule", "workflow_dispatch"];

/**
 * How far back a search looks: runs of the base branch (GitHub lists at most 1,000 runs for a query
 * filtered by branch and status), and artifacts of the baseline's name.
 */
const baselineSearchBounds = { maxRuns: 1000, maxArtifacts: 1000, perPage: 100 } as const;

export interface BaselineQuery {
  owner: string;
  repo: string;
  /** Workflow file name (`bench.yml`); null searches every workflow of the repository. */
  workflowFile: string | null;
  baseBranch: string;
  /** The PR's base commit: a run at exactly this commit is preferred. */
  preferredSha: string | null;
  artifactName: string;
  /** Baseline sessions wanted: the one compared with plus up to sessions − 1 earlier ones (default 1). */
  sessions?: number;
  /** Bounds of the walk (default `baselineSearchBounds`; tests lower them). */
  bounds?: { maxRuns: number; maxArtifacts: number; perPage: number };
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

/** What a search looked at, for the report: how many and why each run it passed over did not qualify. */
export interface SearchExamined {
  runs: number;
  artifacts: number;
  notUploaded: number;
  expired: number;
  /** Runs of events that are never a baseline (pull_request, ...). */
  wrongEvent: number;
  /** The walk stopped at a bound of `baselineSearchBounds` with runs left unexamined. */
  stoppedAtBound: string | null;
}

export interface BaselineSearch {
  found: FoundBaseline | null;
  /** Further baselines of the branch, newest first, not including `found` (at most sessions − 1). */
  history: FoundBaseline[];
  /** One line per run considered and rejected before the baseline, newest first (at most `shownRejections`). */
  rejected: string[];
  examined: SearchExamined;
  /** Set when the search itself could not be done (permissions, unknown workflow). */
  problem: string | null;
}

const shownRejections = 20;

interface WorkflowRun {
  id: number;
  head_sha: string;
  created_at: string;
  event: string;
}

interface RepoArtifact {
  id: number;
  name: string;
  size_in_bytes: number;
  expired: boolean;
  workflow_run?: { id?: number | null } | null;
}

/** The runs of the base branch, newest first, read a page at a time. */
async function* runsOf(client: GitHubClient, query: BaselineQuery, perPage: number, headSha?: string) {
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
  const pages = query.workflowFile
    ? client.paginate.iterator(client.rest.actions.listWorkflowRuns, {
        ...parameters,
        workflow_id: query.workflowFile,
      })
    : client.paginate.iterator(client.rest.actions.listWorkflowRunsForRepo, parameters);
  for await (const page of pages) {
    const runs = (page.data as unknown as WorkflowRun[]).sort((a, b) =>
      b.created_at.localeCompare(a.created_at),
    );
    yield runs;
  }
}

/**
 * The repository's artifacts of the baseline's name, by the run that uploaded them, read a page at a time
 * as runs ask for them. A run is known to have none only once the whole listing has been read, so the
 * answer never depends on the listing's order, only the number of pages read does.
 */
class ArtifactIndex {
  private readonly byRun = new Map<number, RepoArtifact[]>();
  private readonly pages: AsyncIterator<{ data: unknown }>;
  private exhausted = false;
  count = 0;

  constructor(
    client: GitHubClient,
    private readonly query: BaselineQuery,
    private readonly bounds: { maxArtifacts: number; perPage: number },
  ) {
    // GET /repos/{owner}/{repo}/actions/artifacts?name=...: each carries `workflow_run.id`;
    // https://docs.github.com/en/rest/actions/artifacts#list-artifacts-for-a-repository
    this.pages = client.paginate
      .iterator(client.rest.actions.listArtifactsForRepo, {
        owner: query.owner,
        repo: query.repo,
        name: query.artifactName,
        per_page: bounds.perPage,
      })
      [Symbol.asyncIterator]();
  }

  /** The run's live artifact (newest), whether it only has expired ones, or "bound" when it cannot tell. */
  async lookup(runId: number): Promise<{ live: RepoArtifact | null; expired: boolean } | "bound"> {
    while (!this.byRun.has(runId) && !this.exhausted) {
      if (this.count >= this.bounds.maxArtifacts) return "bound";
      await this.nextPage();
    }
    const artifacts = (this.byRun.get(runId) ?? []).filter((a) => a.name === this.query.artifactName);
    const live = artifacts.filter((artifact) => !artifact.expired).sort((a, b) => b.id - a.id);
    return { live: live[0] ?? null, expired: artifacts.length > 0 && live.length === 0 };
  }

  private async nextPage(): Promise<void> {
    const next = await this.pages.next();
    if (next.done) {
      this.exhausted = true;
      return;
    }
    const artifacts = next.value.data as RepoArtifact[];
    if (artifacts.length === 0) this.exhausted = true;
    for (const artifact of artifacts) {
      this.count++;
      const runId = artifact.workflow_run?.id;
      if (typeof runId !== "number") continue;
      this.byRun.set(runId, [...(this.byRun.get(runId) ?? []), artifact]);
    }
  }
}

function short(sha: string): string {
  return sha.slice(0, 12);
}

export async function findBaseline(client: GitHubClient, query: BaselineQuery): Promise<BaselineSearch> {
  const search = new Search(client, query);
  try {
    if (query.preferredSha) await search.atBaseCommit(query.preferredSha);
    if (!search.complete()) await search.walkBranch();
    return search.result();
  } catch (error) {
    const status = httpStatusOf(error);
    if (status === 404) {
      return {
        ...search.result(),
        found: null,
        history: [],
        problem: `workflow ${query.workflowFile ?? "(any)"} has no runs visible to the token (404)`,
      };
    }
    // A rate limit or a fault that outlasted the retries is no answer: the caller must not read it as "none".
    if (!isPermissionRefusal(error)) throw new GitHubCallError("finding the baseline", error);
    return {
      ...search.result(),
      found: null,
      history: [],
      problem: `the token may not list workflow runs or artifacts: ${describeCallFailure(error)}; grant \`actions: read\``,
    };
  }
}

/** One search for baselines: the runs examined, why each was passed over, what was found. */
class Search {
  private readonly bounds: NonNullable<BaselineQuery["bounds"]>;
  private readonly rejected: string[] = [];
  private readonly seen = new Set<number>();
  /** Sessions wanted: the baseline and, for the history, the ones before it. */
  private readonly wanted: number;
  private readonly examined: SearchExamined = {
    runs: 0,
    artifacts: 0,
    notUploaded: 0,
    expired: 0,
    wrongEvent: 0,
    stoppedAtBound: null,
  };
  private readonly artifacts: ArtifactIndex;
  private found: FoundBaseline | null = null;
  private readonly history: FoundBaseline[] = [];
  /** Why the base commit's run gave none (the fallback's reason says so), and the runs examined there. */
  private atBase: { rejected: string[]; runs: number } | null = null;

  constructor(
    private readonly client: GitHubClient,
    private readonly query: BaselineQuery,
  ) {
    this.bounds = query.bounds ?? baselineSearchBounds;
    this.wanted = Math.max(1, query.sessions ?? 1);
    this.artifacts = new ArtifactIndex(client, query, this.bounds);
  }

  complete(): boolean {
    return this.found !== null && this.history.length >= this.wanted - 1;
  }

  result(): BaselineSearch {
    return {
      found: this.found,
      history: this.history,
      rejected: this.rejected,
      examined: this.examined,
      problem: null,
    };
  }

  /** The newest run at the base commit, first: a baseline of the very code the PR changes. */
  async atBaseCommit(sha: string): Promise<void> {
    for await (const runs of runsOf(this.client, this.query, 5, sha)) {
      for (const run of runs) {
        if (await this.consider(run, () => null)) break;
      }
      break;
    }
    if (this.seen.size === 0)
      this.rejected.push(
        `no successful ${baselineEvents.join("/")} run on ${this.query.baseBranch} at base commit ${short(sha)}`,
      );
    this.atBase = { rejected: [...this.rejected], runs: this.examined.runs };
  }

  /** The branch's runs, newest first, until enough were found or a bound is reached. */
  async walkBranch(): Promise<void> {
    const { bounds, examined } = this;
    walk: for await (const runs of runsOf(this.client, this.query, bounds.perPage)) {
      for (const run of runs) {
        if (this.complete()) break walk;
        if (this.seen.has(run.id)) continue;
        if (examined.runs >= bounds.maxRuns) {
          examined.stoppedAtBound = `${bounds.maxRuns} runs`;
          break walk;
        }
        if ((await this.consider(run, () => this.fallbackReason())) === null) break walk;
      }
    }
  }

  /**
   * Why an earlier run's baseline is used instead of the base commit's. Called while the run that
   * qualified is counted: the runs passed over are the others since the base's.
   */
  private fallbackReason(): string | null {
    const atBase = this.atBase;
    if (atBase === null) return null;
    return `${atBase.rejected.join("; ")}; used the newest earlier run with a baseline${passedOver(this.examined.runs - 1 - atBase.runs)}`;
  }

  private reject(line: string): void {
    if (this.found) return;
    if (this.rejected.length < shownRejections) this.rejected.push(line);
    else if (this.rejected.length === shownRejections) this.rejected.push("…");
  }

  /** True when `run` gave a baseline (the first one found, or one more for the history); null at a bound. */
  private async consider(run: WorkflowRun, reason: () => string | null): Promise<boolean | null> {
    const { examined, query } = this;
    this.seen.add(run.id);
    examined.runs++;
    if (!baselineEvents.includes(run.event)) {
      examined.wrongEvent++;
      this.reject(`run ${run.id} at ${short(run.head_sha)}: a ${run.event} run is never a baseline`);
      return false;
    }
    const artifact = await this.artifacts.lookup(run.id);
    examined.artifacts = this.artifacts.count;
    if (artifact === "bound") {
      examined.stoppedAtBound = `${this.bounds.maxArtifacts} artifacts named "${query.artifactName}"`;
      return null;
    }
    if (!artifact.live) {
      if (artifact.expired) examined.expired++;
      else examined.notUploaded++;
      this.reject(
        `run ${run.id} at ${short(run.head_sha)}: artifact "${query.artifactName}" ${artifact.expired ? "expired" : "not uploaded"}`,
      );
      return false;
    }
    if (this.found) this.history.push(toFound(run, artifact.live, null));
    else this.found = toFound(run, artifact.live, reason());
    return true;
  }
}

/** " (3 newer runs passed over)", or "". */
function passedOver(runs: number): string {
  return runs > 0 ? ` (${runs} newer run${runs === 1 ? "" : "s"} passed over)` : "";
}

/**
 * Why no baseline qualified, in one sentence for the report: how many runs and artifacts were examined,
 * and what each run passed over lacked.
 */
export function examinedSummary(
  query: Pick<BaselineQuery, "workflowFile" | "baseBranch" | "artifactName">,
  examined: SearchExamined,
): string {
  const reasons = [
    examined.notUploaded > 0 ? `${examined.notUploaded} without the artifact` : null,
    examined.expired > 0 ? `${examined.expired} whose artifact expired` : null,
    examined.wrongEvent > 0
      ? `${examined.wrongEvent} of an event that is never a baseline (pull_request, ...)`
      : null,
  ].filter(Boolean);
  const workflow = query.workflowFile ? `of ${query.workflowFile} ` : "";
  const bound = examined.stoppedAtBound
    ? `; the search stopped at its bound of ${examined.stoppedAtBound}`
    : "";
  return `examined ${examined.runs} successful run${examined.runs === 1 ? "" : "s"} ${workflow}on ${query.baseBranch} and ${examined.artifacts} artifact${examined.artifacts === 1 ? "" : "s"} named "${query.artifactName}"${reasons.length > 0 ? `: ${reasons.join(", ")}` : ""}${bound}`;
}

function toFound(run: WorkflowRun, artifact: RepoArtifact, fallbackReason: string | null): FoundBaseline {
  return {
    runId: run.id,
    headSha: run.head_sha,
    runCreatedAt: run.created_at,
    artifactId: artifact.id,
    artifactSizeBytes: artifact.size_in_bytes,
    fallbackReason,
  };
}
