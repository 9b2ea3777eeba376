import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  describeCallFailure,
  GitHubCallError,
  isPermissionRefusal,
  rateLimitOf,
} from "../../src/github/api-failure.js";
import {
  createGitHubClient,
  defaultGitHubCallPolicy,
  type GitHubCallPolicy,
  worstCaseCallMs,
} from "../../src/github/client.js";
import {
  FakeGitHub,
  fastCallPolicy,
  primaryRateLimit,
  secondaryRateLimit,
  serverError,
} from "./fake-github.js";

/**
 * The client's retries and rate-limit waits against the fake GitHub with injected faults: what GitHub
 * answers under load (502, a secondary rate limit with retry-after, a spent primary limit, slow calls).
 * GitHub's seconds and the backoff unit are a millisecond here (fastCallPolicy), the counts the defaults'.
 */

const fake = new FakeGitHub();
let log: string[] = [];
const runs = /\/actions\/workflows\/bench\.yml\/runs$/;

beforeAll(async () => {
  await fake.start();
  fake.users.set("ghs_token", { login: "github-actions[bot]", type: "Bot", installation: true });
  fake.runs.push({
    id: 1,
    head_sha: "a".repeat(40),
    head_branch: "main",
    event: "push",
    conclusion: "success",
    workflowFile: "bench.yml",
    created_at: "2026-11-01T00:00:00Z",
  });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.faults.length = 0;
  fake.requests.length = 0;
  log = [];
});

const client = (policy: GitHubCallPolicy = fastCallPolicy) =>
  createGitHubClient("ghs_token", fake.baseUrl, { policy, log: (line) => log.push(line) });
const listRuns = (policy?: GitHubCallPolicy) =>
  client(policy).rest.actions.listWorkflowRuns({ owner: "acme", repo: "serving", workflow_id: "bench.yml" });

async function failure(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}

describe("the GitHub client under faults", () => {
  it("retries a 502 and answers; the log names the call, the status and the attempt", async () => {
    fake.fault({ path: runs, ...serverError() });
    const { data } = await listRuns();
    expect(data.workflow_runs.map((run) => run.id)).toEqual([1]);
    expect(fake.calls("GET", runs)).toBe(2);
    expect(log).toEqual([
      "GitHub: GET /repos/acme/serving/actions/workflows/bench.yml/runs: HTTP 502 (Server Error) on attempt 1.",
    ]);
  });

  it("gives up after retries + 1 attempts on a permanent 502, naming the call, status and attempts", async () => {
    fake.fault({ path: runs, times: Number.POSITIVE_INFINITY, ...serverError() });
    const error = await failure(listRuns());
    expect(fake.calls("GET", runs)).toBe(defaultGitHubCallPolicy.retries + 1);
    expect(describeCallFailure(error)).toBe(
      "GET /repos/acme/serving/actions/workflows/bench.yml/runs answered HTTP 502 (Server Error) after 4 attempts",
    );
    expect(new GitHubCallError("finding the baseline", error).message).toMatch(
      /^finding the baseline: GET \/repos\/acme\/serving\/actions\/workflows\/bench\.yml\/runs answered HTTP 502/,
    );
    expect(isPermissionRefusal(error)).toBe(false);
  });

  it("waits out a secondary rate limit (403 + retry-after) and answers; it is never a permission refusal", async () => {
    const limit = fake.fault({ path: runs, ...secondaryRateLimit(1) });
    const { data } = await listRuns();
    expect(data.total_count).toBe(1);
    expect(limit.hits).toBe(1);
    expect(log).toContain(
      "GitHub: GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs met the secondary rate limit; retrying in 1 s.",
    );
  });

  it("names a secondary limit that outlasts its retries as a rate limit with GitHub's wait", async () => {
    fake.fault({ path: runs, times: Number.POSITIVE_INFINITY, ...secondaryRateLimit(1) });
    const error = await failure(listRuns());
    // The first attempt and rateLimitRetries more.
    expect(fake.calls("GET", runs)).toBe(defaultGitHubCallPolicy.rateLimitRetries + 1);
    expect(rateLimitOf(error)).toMatchObject({ kind: "secondary", retryAfterS: 1 });
    expect(isPermissionRefusal(error)).toBe(false);
    expect(describeCallFailure(error)).toContain(
      "a secondary rate limit (HTTP 403; GitHub asked to wait 1 s)",
    );
  });

  it("waits for a spent primary limit that resets within the bound, and answers", async () => {
    fake.fault({ path: runs, ...primaryRateLimit(new Date(Date.now() + 3_000)) });
    const { data } = await listRuns();
    expect(data.total_count).toBe(1);
    expect(fake.calls("GET", runs)).toBe(2);
  });

  it("does not wait an hour for a spent primary limit: names it with its reset time, not as a permission", async () => {
    // An hour from now, in whole seconds as the header carries it.
    const reset = new Date(Math.floor(Date.now() / 1000 + 3600) * 1000);
    fake.fault({ path: runs, times: Number.POSITIVE_INFINITY, ...primaryRateLimit(reset) });
    const error = await failure(listRuns());
    expect(fake.calls("GET", runs)).toBe(1);
    expect(isPermissionRefusal(error)).toBe(false);
    expect(rateLimitOf(error)).toEqual({ kind: "primary", resetAt: reset, retryAfterS: null });
    expect(describeCallFailure(error)).toBe(
      `GET /repos/acme/serving/actions/workflows/bench.yml/runs was refused: its API rate limit is spent (HTTP 403; it resets at ${reset.toISOString().slice(0, 19).replace("T", " ")} UTC), not a missing permission`,
    );
    expect(log.at(-1)).toMatch(/met the primary rate limit; it lifts in \d+ s, later than this job waits/);
  });

  it("answers a refusal at once: a 403 without rate-limit signs is a permission refusal, not retried", async () => {
    fake.fault({
      path: runs,
      status: 403,
      body: { message: "Resource not accessible by integration" },
    });
    const error = await failure(listRuns());
    expect(fake.calls("GET", runs)).toBe(1);
    expect(isPermissionRefusal(error)).toBe(true);
    expect(rateLimitOf(error)).toBeNull();
  });

  it("retries a 429 only as a rate limit, after GitHub's retry-after", async () => {
    fake.fault({
      path: runs,
      status: 429,
      headers: { "retry-after": "2" },
      body: { message: "You have exceeded a secondary rate limit." },
    });
    await listRuns();
    expect(fake.calls("GET", runs)).toBe(2);
  });

  it("leaves a 409 to its caller (the history store's own conflict loop)", async () => {
    fake.fault({ path: runs, status: 409, body: { message: "does not match" } });
    await failure(listRuns());
    expect(fake.calls("GET", runs)).toBe(1);
  });

  it("holds slow calls, and retries an attempt that passes its deadline", async () => {
    fake.fault({ path: runs, delayMs: 300 });
    await listRuns({ ...fastCallPolicy, attemptTimeoutMs: 3000 });
    expect(log).toEqual([]);
    fake.fault({ path: runs, delayMs: 4000 });
    const { data } = await listRuns({ ...fastCallPolicy, attemptTimeoutMs: 1000 });
    expect(data.total_count).toBe(1);
    expect(log[0]).toMatch(/runs: no answer \(.*timeout.*\) on attempt 1\.$/);
  });

  it("retries GraphQL's viewer on a 502", async () => {
    fake.fault({ path: /^\/graphql$/, ...serverError() });
    const data = await client().graphql<{ viewer: { login: string } }>("query { viewer { login } }");
    expect(data.viewer.login).toBe("github-actions[bot]");
    expect(fake.calls("POST", /^\/graphql$/)).toBe(2);
  });

  it("ends a permanently failing call after its bounded attempts, each cut at its deadline", async () => {
    const policy = { ...fastCallPolicy, attemptTimeoutMs: 200 };
    fake.fault({ path: runs, times: Number.POSITIVE_INFINITY, delayMs: 1000 });
    const error = await failure(listRuns(policy));
    expect(fake.calls("GET", runs)).toBe(policy.retries + 1);
    expect(describeCallFailure(error)).toMatch(/got no answer after 4 attempts \(.*timeout.*\)$/);
  });

  it("bounds a call with the default policy at 6.7 minutes (docs/action.md)", () => {
    // 3 rate-limit rounds of 4 attempts of at most 20 s and 14 s of backoff, 2 waits of at most 60 s.
    expect(worstCaseCallMs(defaultGitHubCallPolicy)).toBe(3 * (4 * 20_000 + 14_000) + 2 * 60_000);
    expect(worstCaseCallMs(defaultGitHubCallPolicy) / 60_000).toBeCloseTo(6.7, 1);
  });
});
