import { readFileSync } from "node:fs";
import { z } from "zod";

/**
 * What the action needs to know about the workflow run, read from the runner's environment and the
 * event payload. Built from an explicit env map (not `@actions/github`'s import-time `context`) so tests
 * and the post step can construct it for any event.
 */
interface PullRequestInfo {
  number: number;
  baseRef: string;
  baseSha: string;
  headSha: string;
  headRepoFullName: string | null;
  /** The head repository is not this repository: its code is untrusted on our runner. */
  fromFork: boolean;
  labels: string[];
}

export interface ActionContext {
  eventName: string;
  owner: string;
  repo: string;
  sha: string;
  ref: string;
  runId: number;
  runAttempt: number;
  /** File name of the running workflow (e.g. `bench.yml`), used to find earlier runs of it. */
  workflowFile: string | null;
  defaultBranch: string | null;
  serverUrl: string;
  apiUrl: string;
  graphqlUrl: string;
  /** `github-hosted` or `self-hosted` (RUNNER_ENVIRONMENT); null when the runner does not say. */
  runnerEnvironment: string | null;
  pullRequest: PullRequestInfo | null;
}

// Only the payload fields we read; the documented shapes are at
// https://docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request and #push.
const pullRequestPayload = z.object({
  number: z.number().int().positive(),
  base: z.object({ ref: z.string(), sha: z.string() }),
  head: z.object({
    sha: z.string(),
    repo: z.object({ full_name: z.string(), fork: z.boolean().optional() }).nullable(),
  }),
  labels: z.array(z.object({ name: z.string() })).default([]),
});

const eventPayload = z.object({
  pull_request: pullRequestPayload.optional(),
  repository: z.object({ full_name: z.string(), default_branch: z.string().optional() }).optional(),
});

class ContextError extends Error {
  override readonly name = "ContextError";
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value)
    throw new ContextError(`environment variable ${name} is not set: run this as a GitHub Actions step`);
  return value;
}

/** GITHUB_WORKFLOW_REF is `owner/repo/.github/workflows/bench.yml@refs/heads/main`. */
export function workflowFileFromRef(workflowRef: string | undefined): string | null {
  if (!workflowRef) return null;
  const match = /\/\.github\/workflows\/([^@/]+)@/.exec(workflowRef);
  return match?.[1] ?? null;
}

export function readActionContext(env: NodeJS.ProcessEnv = process.env): ActionContext {
  const [owner, repo] = required(env, "GITHUB_REPOSITORY").split("/");
  if (!owner || !repo)
    throw new ContextError(`GITHUB_REPOSITORY must be owner/name, got ${env.GITHUB_REPOSITORY}`);
  let payload: z.output<typeof eventPayload> = {};
  const eventPath = env.GITHUB_EVENT_PATH;
  if (eventPath) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(eventPath, "utf8"));
    } catch (error) {
      throw new ContextError(`${eventPath}: cannot read the event payload: ${(error as Error).message}`);
    }
    const parsed = eventPayload.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ContextError(
        `${eventPath}: unexpected event payload at ${issue?.path.join(".") ?? "(root)"}: ${issue?.message ?? "invalid"}`,
      );
    }
    payload = parsed.data;
  }
  const fullName = `${owner}/${repo}`;
  const pr = payload.pull_request;
  const pullRequest: PullRequestInfo | null = pr
    ? {
        number: pr.number,
        baseRef: pr.base.ref,
        baseSha: pr.base.sha,
        headSha: pr.head.sha,
        headRepoFullName: pr.head.repo?.full_name ?? null,
        // A deleted head repository is a fork that no longer exists: never trust it.
        fromFork: pr.head.repo === null || pr.head.repo.full_name !== fullName,
        labels: pr.labels.map((label) => label.name),
      }
    : null;
  const apiUrl = env.GITHUB_API_URL || "https://api.github.com";
  return {
    eventName: required(env, "GITHUB_EVENT_NAME"),
    owner,
    repo,
    sha: required(env, "GITHUB_SHA"),
    ref: env.GITHUB_REF ?? "",
    runId: Number.parseInt(required(env, "GITHUB_RUN_ID"), 10),
    runAttempt: Number.parseInt(env.GITHUB_RUN_ATTEMPT ?? "1", 10),
    workflowFile: workflowFileFromRef(env.GITHUB_WORKFLOW_REF),
    defaultBranch: payload.repository?.default_branch ?? null,
    serverUrl: env.GITHUB_SERVER_URL || "https://github.com",
    apiUrl,
    graphqlUrl: env.GITHUB_GRAPHQL_URL || `${apiUrl}/graphql`,
    runnerEnvironment: env.RUNNER_ENVIRONMENT || null,
    pullRequest,
  };
}

/** The branch of a push (`refs/heads/main` -> `main`); null for tags and other refs. */
export function branchOfRef(ref: string): string | null {
  return ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : null;
}

/** The page of this workflow run (its job summaries and artifacts): `SERVER/OWNER/REPO/actions/runs/ID`. */
export function runUrlOf(context: Pick<ActionContext, "serverUrl" | "owner" | "repo" | "runId">): string {
  return `${context.serverUrl}/${context.owner}/${context.repo}/actions/runs/${context.runId}`;
}
