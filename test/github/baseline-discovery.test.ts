import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { examinedSummary, findBaseline } from "../../src/github/baseline-discovery.js";
import { createGitHubClient, type GitHubClient } from "../../src/github/client.js";
import {
  FakeGitHub,
  fastCallPolicy,
  primaryRateLimit,
  secondaryRateLimit,
  serverError,
} from "./fake-github.js";

const fake = new FakeGitHub();
let client: GitHubClient;
const sha = (c: string) => c.repeat(40);

beforeAll(async () => {
  const baseUrl = await fake.start();
  fake.users.set("pat", { login: "alice", type: "User", installation: false });
  fake.users.set("no-actions-read", { login: "bob", type: "User", installation: false, denyActions: true });
  client = createGitHubClient("pat", baseUrl, { policy: fastCallPolicy });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.runs.length = 0;
  fake.artifacts.length = 0;
  fake.faults.length = 0;
  fake.requests.length = 0;
});

function run(id: number, headSha: string, minutes: number, extra: Partial<(typeof fake.runs)[number]> = {}) {
  fake.runs.push({
    id,
    head_sha: headSha,
    head_branch: "main",
    event: "push",
    conclusion: "success",
    workflowFile: "bench.yml",
    created_at: new Date(Date.UTC(2026, 10, 1, 0, minutes)).toISOString(),
    ...extra,
  });
}

/** An artifact uploaded by the run, a minute after it started. */
function artifact(runId: number, name = "vllm-perf-gate-baseline", expired = false) {
  const started = fake.runs.find((r) => r.id === runId)?.created_at ?? "2026-11-01T00:00:00Z";
  fake.artifacts.push({
    id: fake.id(),
    runId,
    name,
    expired,
    zip: Buffer.from("PK"),
    created_at: new Date(Date.parse(started) + 60_000).toISOString(),
  });
}

const query = {
  owner: "acme",
  repo: "serving",
  workflowFile: "bench.yml",
  baseBranch: "main",
  preferredSha: sha("b"),
  artifactName: "vllm-perf-gate-baseline",
};

describe("findBaseline", () => {
  it("prefers the run at the PR's base commit over a newer one", async () => {
    run(1, sha("a"), 1);
    run(2, sha("b"), 2);
    run(3, sha("c"), 3);
    [1, 2, 3].forEach((id) => {
      artifact(id);
    });
    const search = await findBaseline(client, query);
    expect(search.found).toMatchObject({ runId: 2, headSha: sha("b"), fallbackReason: null });
    const listCall = fake.requests.findLast((r) => r.path.endsWith("/actions/workflows/bench.yml/runs"));
    expect(Object.fromEntries(listCall?.query ?? [])).toMatchObject({
      branch: "main",
      status: "success",
      head_sha: sha("b"),
    });
    // One event per query is all the API filters on; baselines come from three kinds of run.
    expect(listCall?.query.has("event")).toBe(false);
  });

  it("walks back past expired and missing artifacts, and says why it fell back", async () => {
    run(1, sha("a"), 1);
    run(2, sha("b"), 2);
    run(3, sha("c"), 3);
    run(4, sha("d"), 4);
    artifact(1);
    artifact(2, "vllm-perf-gate-baseline", true);
    artifact(3, "something-else");
    artifact(4, "vllm-perf-gate-baseline", true);
    const search = await findBaseline(client, query);
    expect(search.found?.runId).toBe(1);
    expect(search.rejected).toEqual([
      `run 2 at ${sha("b").slice(0, 12)}: artifact "vllm-perf-gate-baseline" expired`,
      `run 4 at ${sha("d").slice(0, 12)}: artifact "vllm-perf-gate-baseline" expired`,
      `run 3 at ${sha("c").slice(0, 12)}: artifact "vllm-perf-gate-baseline" not uploaded`,
    ]);
    expect(search.found?.fallbackReason).toContain("used the newest earlier run with a baseline");
    expect(search.found?.fallbackReason).toContain("run 2");
  });

  it("ignores failed runs, other branches and pull_request runs (even from a fork's branch named main)", async () => {
    run(1, sha("a"), 1, { conclusion: "failure" });
    run(2, sha("b"), 2, { head_branch: "feature" });
    run(3, sha("c"), 3, { event: "pull_request" });
    run(4, sha("d"), 4, { event: "pull_request_target" });
    [1, 2, 3, 4].forEach((id) => {
      artifact(id);
    });
    const search = await findBaseline(client, query);
    expect(search.found).toBeNull();
    expect(search.rejected).toEqual([
      `no successful push/schedule/workflow_dispatch run on main at base commit ${sha("b").slice(0, 12)}`,
      `run 4 at ${sha("d").slice(0, 12)}: a pull_request_target run is never a baseline`,
      `run 3 at ${sha("c").slice(0, 12)}: a pull_request run is never a baseline`,
    ]);
  });

  for (const event of ["push", "schedule", "workflow_dispatch"]) {
    it(`finds a baseline recorded by a ${event} run`, async () => {
      run(1, sha("a"), 1, { event });
      artifact(1);
      run(2, sha("c"), 2, { event });
      artifact(2, "vllm-perf-gate-baseline", true);
      const search = await findBaseline(client, { ...query, preferredSha: null });
      expect(search.found).toMatchObject({ runId: 1, headSha: sha("a"), fallbackReason: null });
      expect(search.rejected).toEqual([
        `run 2 at ${sha("c").slice(0, 12)}: artifact "vllm-perf-gate-baseline" expired`,
      ]);
    });
  }

  it("takes the newest baseline of any kind when the base commit has none", async () => {
    run(1, sha("a"), 1, { event: "push" });
    run(2, sha("c"), 2, { event: "schedule" });
    run(3, sha("d"), 3, { event: "workflow_dispatch" });
    run(4, sha("e"), 4, { event: "schedule" });
    [1, 2, 3].forEach((id) => {
      artifact(id);
    });
    const search = await findBaseline(client, query);
    expect(search.found?.runId).toBe(3);
    expect(search.found?.fallbackReason).toContain("no successful push/schedule/workflow_dispatch run");
  });

  it("returns the last N baseline sessions of the branch, newest first, past expired ones", async () => {
    run(1, sha("a"), 1, { event: "push" });
    run(2, sha("b"), 2, { event: "schedule" });
    run(3, sha("c"), 3, { event: "workflow_dispatch" });
    run(4, sha("d"), 4, { event: "push" });
    run(5, sha("e"), 5, { event: "schedule" });
    run(6, sha("f"), 6, { event: "pull_request" });
    [1, 2, 3, 5, 6].forEach((id) => {
      artifact(id);
    });
    artifact(4, "vllm-perf-gate-baseline", true);
    const search = await findBaseline(client, { ...query, sessions: 4 });
    // The base commit's own run is the one compared with; the history is the newest others.
    expect(search.found?.runId).toBe(2);
    expect(search.history.map((found) => found.runId)).toEqual([5, 3, 1]);
    const fewer = await findBaseline(client, { ...query, sessions: 2 });
    expect(fewer.history.map((found) => found.runId)).toEqual([5]);
    const one = await findBaseline(client, query);
    expect(one.history).toEqual([]);
  });

  it("reports a workflow with no runs (404) as a problem, not a crash", async () => {
    const search = await findBaseline(client, { ...query, workflowFile: "never-ran.yml" });
    expect(search.found).toBeNull();
    expect(search.problem).toMatch(/never-ran\.yml has no runs visible to the token \(404\)/);
  });

  it("searches every workflow of the repository when the workflow file is unknown", async () => {
    run(5, sha("b"), 5, { workflowFile: "other.yml" });
    artifact(5);
    const search = await findBaseline(client, { ...query, workflowFile: null });
    expect(search.found?.runId).toBe(5);
    expect(fake.requests.at(-2)?.path).toBe("/repos/acme/serving/actions/runs");
  });

  it("explains a token without actions: read", async () => {
    run(1, sha("b"), 1);
    artifact(1);
    const search = await findBaseline(createGitHubClient("no-actions-read", fake.baseUrl), query);
    expect(search.found).toBeNull();
    expect(search.problem).toContain("grant `actions: read`");
  });

  it("reports a search it could not do because of a rate limit as a failure, never as a missing permission", async () => {
    run(1, sha("b"), 1);
    artifact(1);
    fake.fault({
      path: /\/actions\/workflows\/bench\.yml\/runs$/,
      times: Number.POSITIVE_INFINITY,
      ...primaryRateLimit(new Date(Date.now() + 3_600_000)),
    });
    const error = (await findBaseline(client, query).then(
      () => new Error("found"),
      (e: unknown) => e,
    )) as Error;
    expect(error.message).toMatch(
      /^finding the baseline: GET \/repos\/acme\/serving\/actions\/workflows\/bench\.yml\/runs was refused: its API rate limit is spent \(HTTP 403; it resets at .* UTC\), not a missing permission$/,
    );
    expect(error.message).not.toContain("actions: read");
  });

  it("finds the baseline through a secondary rate limit while listing runs (retried after retry-after)", async () => {
    run(1, sha("b"), 1);
    artifact(1);
    fake.fault({ path: /\/runs$/, ...secondaryRateLimit(1) });
    expect((await findBaseline(client, query)).found?.runId).toBe(1);
  });

  for (const [what, path] of [
    ["listing the runs", /\/runs$/],
    ["listing the artifacts", /\/actions\/artifacts$/],
  ] as const) {
    it(`finds the baseline through a 502 while ${what}`, async () => {
      run(1, sha("b"), 1);
      artifact(1);
      const fault = fake.fault({ path, ...serverError() });
      expect((await findBaseline(client, query)).found?.runId).toBe(1);
      expect(fault.hits).toBe(1);
    });
  }

  it("fails with the step, the call and the status when a 502 outlasts the retries", async () => {
    run(1, sha("b"), 1);
    fake.fault({ path: /\/runs$/, times: Number.POSITIVE_INFINITY, ...serverError() });
    await expect(findBaseline(client, query)).rejects.toThrow(
      "finding the baseline: GET /repos/acme/serving/actions/workflows/bench.yml/runs answered HTTP 502 (Server Error) after 4 attempts",
    );
  });

  /** 150 successful push runs on main, newest last; a baseline only at the given positions (1 = newest). */
  function busyMain(baselineAt: number[]) {
    for (let k = 1; k <= 150; k++) run(k, sha(String(k % 10)), k);
    for (const position of baselineAt) artifact(151 - position);
    // Other names (each push's evidence) fill the artifact listing too, but it is filtered by name.
    for (let k = 1; k <= 150; k++) artifact(k, "vllm-perf-gate-results");
  }

  for (const position of [25, 120]) {
    it(`walks past the first page of runs: a baseline at position ${position} of 150 is found`, async () => {
      busyMain([position]);
      const search = await findBaseline(client, { ...query, preferredSha: null });
      expect(search.found?.runId).toBe(151 - position);
      expect(search.examined).toMatchObject({ runs: position, notUploaded: position - 1, artifacts: 1 });
      // Two pages of runs at most, one of artifacts: not a call per run.
      expect(fake.calls("GET", /\/runs$/)).toBe(position > 100 ? 2 : 1);
      expect(fake.calls("GET", /\/actions\/artifacts$/)).toBe(1);
      expect(fake.calls("GET", /\/runs\/\d+\/artifacts$/)).toBe(0);
    });
  }

  it("walks past the base commit's run to a nightly baseline, saying how many newer runs it passed over", async () => {
    busyMain([120]);
    const search = await findBaseline(client, { ...query, preferredSha: sha("0") });
    expect(search.found?.runId).toBe(31);
    expect(search.found?.fallbackReason).toMatch(
      /used the newest earlier run with a baseline \(\d+ newer runs passed over\)$/,
    );
  });

  it("says how many runs and artifacts it examined and why none qualified", async () => {
    busyMain([]);
    const expired = fake.runs.find((r) => r.id === 100);
    if (expired) artifact(100, "vllm-perf-gate-baseline", true);
    fake.runs.push({ ...fake.runs[0]!, id: 500, event: "pull_request", created_at: "2026-12-01T00:00:00Z" });
    const search = await findBaseline(client, { ...query, preferredSha: null });
    expect(search.found).toBeNull();
    expect(search.examined).toMatchObject({
      runs: 151,
      artifacts: 1,
      notUploaded: 149,
      expired: 1,
      wrongEvent: 1,
    });
    expect(examinedSummary(query, search.examined)).toBe(
      'examined 151 successful runs of bench.yml on main and 1 artifact named "vllm-perf-gate-baseline": 149 without the artifact, 1 whose artifact expired, 1 of an event that is never a baseline (pull_request, ...)',
    );
    expect(search.rejected).toHaveLength(21);
  });

  it("pages through 150 artifacts of the baseline's name", async () => {
    for (let k = 1; k <= 150; k++) {
      run(k, sha(String(k % 10)), k);
      artifact(k);
    }
    const search = await findBaseline(client, { ...query, preferredSha: null, sessions: 3 });
    expect(search.found?.runId).toBe(150);
    expect(search.history.map((f) => f.runId)).toEqual([149, 148]);
  });

  it("stops at its bound and says so", async () => {
    busyMain([120]);
    const search = await findBaseline(client, {
      ...query,
      preferredSha: null,
      bounds: { maxRuns: 50, maxArtifacts: 1000, perPage: 20 },
    });
    expect(search.found).toBeNull();
    expect(search.examined.runs).toBe(50);
    expect(examinedSummary(query, search.examined)).toMatch(/the search stopped at its bound of 50 runs$/);
  });
});
