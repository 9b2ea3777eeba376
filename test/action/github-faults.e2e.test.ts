import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ActionDependencies } from "../../src/app/gate/dependencies.js";
import { parseHistory } from "../../src/compare/history/history.js";
import { fastCallPolicy, primaryRateLimit, secondaryRateLimit, serverError } from "../github/fake-github.js";
import { createFileMeasure, createRatioCompare, type MeasureCall, testConfig } from "./fixtures.js";
import { type Job, runJob as runJobIn } from "./harness.js";
import { pullRequestPayload, pushPayload } from "./payloads.js";
import { useRealActionJob } from "./real-job.js";

/**
 * The action's job against the fake GitHub with the faults GitHub answers under load injected (HTTP 502,
 * a secondary rate limit with `retry-after`, a spent primary rate limit, slow calls, more than one page):
 * no wrong verdict, no measuring before a missing baseline is known, no comment, label, session or mode
 * lost on one transient fault, and every failure names its step and its status. The client's waits are
 * a millisecond per GitHub second here (fastCallPolicy); its counts are the defaults'.
 */

const job = useRealActionJob("github-faults-e2e-");
const { fake } = job;
const sha = (c: string) => c.repeat(40);
const mainSha = sha("a");
const PR = 31;
const appToken = "ghs_apptoken0123456789abcdef";
let measureCalls: MeasureCall[] = [];
let logLines: string[] = [];
let clientModule: typeof import("../../src/github/client.js");
let storeModule: typeof import("../../src/github/artifact-store.js");
let defaults: typeof import("../../src/action/default-dependencies.js");

/** The stand-in measure and compare (fixtures.ts), the client and the downloads on the fast policy. */
function deps(overrides: Partial<ActionDependencies> = {}): ActionDependencies {
  return job.dependencies({
    measure: createFileMeasure(measureCalls),
    compare: createRatioCompare(),
    cleanupServers: async () => {},
    github: (token, apiUrl, options) =>
      clientModule.createGitHubClient(token, apiUrl, { ...options, policy: fastCallPolicy }),
    artifacts: (context) => new storeModule.GitHubArtifactStore({ ...context, policy: fastCallPolicy }),
    ...overrides,
  });
}

/** The job's log lines (info and warnings) kept for the test, the rest as the runner does it. */
function runJob(request: Job, dependencies = deps()) {
  const environment = job.environment();
  const io = {
    ...environment.io,
    info: (line: string) => {
      logLines.push(line);
    },
    warning: (line: string) => {
      logLines.push(`warning: ${line}`);
    },
  };
  return runJobIn({ ...environment, io }, request, dependencies);
}

const prJob = (runId: number, extra: Partial<Job> = {}): Job => ({
  runId,
  event: "pull_request",
  payload: pullRequestPayload({
    owner: fake.owner,
    repo: fake.repo,
    number: PR,
    baseSha: mainSha,
    headSha: sha("b"),
  }),
  sha: sha("c"),
  ref: `refs/pull/${PR}/merge`,
  config: testConfig(1.3),
  // The stored baseline: the gate these faults are about (auto's interleaved mode has its own tests below).
  inputs: { mode: "gate" },
  ...extra,
});

const pushJob = (runId: number, commit: string): Job => ({
  runId,
  event: "push",
  payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: commit, before: sha("9") }),
  sha: commit,
  ref: "refs/heads/main",
  config: testConfig(1.0),
});

const ourComments = (login = "github-actions[bot]") =>
  fake.commentsOn(PR).filter((comment) => comment.user.login === login);

const runsPath = /\/actions\/workflows\/bench\.yml\/runs$/;
const forever = Number.POSITIVE_INFINITY;
const anHourFromNow = () => new Date(Date.now() + 3_600_000);

beforeAll(async () => {
  fake.users.set(appToken, { login: "perf-bot[bot]", type: "Bot", installation: true });
  // Imported once real-job.ts has pointed GITHUB_API_URL at the fake (@actions/github reads it at import).
  clientModule = await import("../../src/github/client.js");
  storeModule = await import("../../src/github/artifact-store.js");
  defaults = await import("../../src/action/default-dependencies.js");
  // main's baseline, recorded by a push (run 100).
  const recorded = await runJob(pushJob(100, mainSha));
  expect(recorded.outputs.verdict).toBe("baseline-recorded");
});

beforeEach(() => {
  measureCalls = [];
  logLines = [];
  fake.faults.length = 0;
  fake.labels.delete(PR);
});

describe("a transient fault while finding the baseline never costs the verdict", () => {
  for (const [what, path, fault] of [
    ["a 502 while listing the workflow runs", runsPath, serverError()],
    [
      "a secondary rate limit (403, retry-after: 1) while listing the workflow runs",
      runsPath,
      secondaryRateLimit(1),
    ],
    ["a 502 while listing the baseline's artifacts", /\/actions\/artifacts$/, serverError()],
    ["a 502 while downloading the baseline artifact", /\/actions\/artifacts\/\d+\/zip$/, serverError()],
    [
      "a 503 from blob storage while downloading the baseline artifact",
      /^\/devstoreaccount1\/downloads\//,
      { status: 503 },
    ],
  ] as const) {
    it(`${what}: retried, the regression is found and fails the step`, async () => {
      const injected = fake.fault({ path, ...fault });
      const { result, outputs } = await runJob(prJob(200));
      expect(injected.hits).toBe(1);
      expect(outputs.verdict).toBe("regression");
      expect(result.failed).toBe(true);
      expect(outputs["baseline-sha"]).toBe(mainSha);
    });
  }
});

describe("a fault that outlasts the retries ends the job before it measures, and says where", () => {
  it("a spent primary rate limit while listing runs is an error naming the rate limit and its reset, never a missing permission", async () => {
    fake.fault({ path: runsPath, times: forever, ...primaryRateLimit(anHourFromNow()) });
    const { result, outputs, summary } = await runJob(prJob(210));
    expect(measureCalls).toHaveLength(0);
    expect(result.failed).toBe(true);
    expect(outputs.verdict).toBe("error");
    const said =
      /finding the baseline: GET \/repos\/acme\/serving\/actions\/workflows\/bench\.yml\/runs was refused: its API rate limit is spent \(HTTP 403; it resets at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\), not a missing permission/;
    expect(result.failureMessage).toMatch(said);
    expect(summary).toMatch(said);
    expect(ourComments()[0]?.body).toMatch(said);
    expect(`${summary}${result.failureMessage}`).not.toContain("actions: read");
  });

  it("a 502 on every attempt to list runs: error before measuring, with the step, the call and the status in the summary and the comment", async () => {
    fake.fault({ path: runsPath, times: forever, ...serverError() });
    const { result, summary } = await runJob(prJob(211));
    expect(measureCalls).toHaveLength(0);
    const said =
      "finding the baseline: GET /repos/acme/serving/actions/workflows/bench.yml/runs answered HTTP 502 (Server Error) after 4 attempts";
    expect(result.failureMessage).toBe(said);
    expect(summary).toContain(said);
    expect(ourComments()).toHaveLength(1);
    expect(ourComments()[0]?.body).toContain(said);
    // The evidence of the job is uploaded all the same.
    expect(fake.artifacts.some((a) => a.runId === 211 && a.name === "vllm-perf-gate-results")).toBe(true);
  });

  it("a download that keeps failing: error before measuring, naming the artifact, the call and the status", async () => {
    fake.fault({ path: /\/actions\/artifacts\/\d+\/zip$/, times: forever, ...serverError() });
    const { result } = await runJob(prJob(212));
    expect(measureCalls).toHaveLength(0);
    expect(result.failureMessage).toMatch(
      /^downloading artifact vllm-perf-gate-baseline \(\d+\) of run 100: GET \/repos\/acme\/serving\/actions\/artifacts\/\d+\/zip answered HTTP 502 \(Server Error\) after 4 attempts$/,
    );
    expect(ourComments()[0]?.body).toContain("downloading artifact vllm-perf-gate-baseline");
  });

  it("a token without actions: read is still told so (a real refusal), and the PR is measured with no baseline", async () => {
    fake.fault({
      path: runsPath,
      times: forever,
      status: 403,
      body: { message: "Resource not accessible by integration" },
    });
    const { outputs, summary } = await runJob(prJob(213));
    expect(outputs.verdict).toBe("baseline-missing");
    expect(summary).toContain(
      "answered HTTP 403 (Resource not accessible by integration); grant \\`actions: read\\`",
    );
  });
});

describe("a baseline is never missed by paging", () => {
  const added: number[] = [];
  /** Pushes to main after run 100 that recorded no baseline (a bench job skipped by a path filter). */
  function pushesWithoutBaseline(count: number) {
    for (let k = 1; k <= count; k++) {
      const id = 10_000 + k;
      added.push(id);
      fake.runs.push({
        id,
        head_sha: sha("e"),
        head_branch: "main",
        event: "push",
        conclusion: "success",
        workflowFile: "bench.yml",
        created_at: new Date(Date.UTC(2026, 11, 1) + k * 60_000).toISOString(),
      });
    }
  }
  afterAll(() => {
    fake.runs.splice(0, fake.runs.length, ...fake.runs.filter((run) => !added.includes(run.id)));
  });

  for (const [position, runId] of [
    [25, 221],
    [120, 222],
  ] as const) {
    it(`finds the baseline at position ${position} of the runs on main, past the first page`, async () => {
      pushesWithoutBaseline(position - 1 - added.length);
      // Based on one of those pushes: the base commit has no baseline, the walk goes back to run 100.
      const { outputs, summary } = await runJob(
        prJob(runId, {
          payload: pullRequestPayload({
            owner: fake.owner,
            repo: fake.repo,
            number: PR,
            baseSha: sha("e"),
            headSha: sha("b"),
          }),
        }),
      );
      expect(outputs.verdict).toBe("regression");
      expect(outputs["baseline-sha"]).toBe(mainSha);
      expect(summary).toMatch(/used the newest earlier run with a baseline \(\d+ newer runs passed over\)/);
    });
  }
});

describe("a transient fault never loses the comment, the label or the mode", () => {
  const commentWrites = /\/issues\/\d+\/comments$|\/issues\/comments\/\d+$/;

  for (const [what, fault, runId] of [
    ["a 502", serverError(), 229],
    ["a secondary rate limit (retry-after: 1)", secondaryRateLimit(1), 230],
  ] as const) {
    it(`${what} on the comment write: retried, the verdict is in the comment`, async () => {
      const write = fake.fault({
        method: ourComments().length > 0 ? "PATCH" : "POST",
        path: commentWrites,
        ...fault,
      });
      const { outputs } = await runJob(prJob(runId));
      expect(write.hits).toBe(1);
      expect(outputs["comment-url"]).toMatch(/#issuecomment-\d+$/);
      expect(ourComments()).toHaveLength(1);
      expect(ourComments()[0]?.body).toContain("## vllm-perf-gate: regression");
      expect(ourComments()[0]?.body).toContain(`run ${runId}`);
    });
  }

  it("a comment write refused by a spent rate limit warns that it is one (with the reset), the verdict intact", async () => {
    fake.fault({ path: commentWrites, times: forever, ...primaryRateLimit(anHourFromNow()) });
    const { result, outputs, summary } = await runJob(prJob(231));
    expect(outputs.verdict).toBe("regression");
    expect(result.failed).toBe(true);
    expect(summary).toContain("## vllm-perf-gate: regression");
    const warning = logLines.find((line) => line.startsWith("warning: Could not post the PR comment"));
    expect(warning).toMatch(
      /its API rate limit is spent \(HTTP 403; it resets at .* UTC\), not a missing permission/,
    );
    expect(warning).not.toContain("pull-requests: write");
  });

  it("a 502 while reading the labels: retried, the override label is applied", async () => {
    fake.labels.set(PR, ["perf-regression-accepted"]);
    fake.events.set(PR, [
      {
        id: 1,
        event: "labeled",
        actor: { login: "release-manager", id: 9, type: "User" },
        label: { name: "perf-regression-accepted", color: "ededed" },
        created_at: "2026-11-30T00:00:00Z",
      },
    ]);
    const labels = fake.fault({ path: /\/issues\/\d+\/labels$/, ...serverError() });
    const { result, outputs } = await runJob(prJob(232));
    expect(labels.hits).toBe(1);
    expect(outputs.verdict).toBe("regression");
    expect(result.failed).toBe(false);
    expect(ourComments()[0]?.body).toContain("release-manager");
  });

  it("labels that can never be read: warned, the regression is not accepted", async () => {
    fake.labels.set(PR, ["perf-regression-accepted"]);
    fake.fault({ path: /\/issues\/\d+\/labels$/, times: forever, ...serverError() });
    const { result } = await runJob(prJob(233));
    expect(result.failed).toBe(true);
    expect(
      logLines.some((line) => /Could not read the labels of PR #31 \(GET .* answered HTTP 502/.test(line)),
    ).toBe(true);
  });

  const autoJob = (runId: number) =>
    prJob(runId, { inputs: {}, config: testConfig(1.3, { min: 2, max: 4, block: 1 }) });

  it("a 502 while reading the base commit's config: retried, auto stays interleaved", async () => {
    fake.files.set(`vllm-perf-gate.yml@${mainSha}`, testConfig(1.0, { min: 2, max: 4, block: 1 }));
    const read = fake.fault({ path: /\/contents\/vllm-perf-gate\.yml$/, ...serverError() });
    const { outputs, summary } = await runJob(autoJob(234));
    expect(read.hits).toBe(1);
    expect(outputs.verdict).toBe("regression");
    expect(summary).toContain("Mode: interleaved");
    expect(measureCalls.some((call) => call.side === "baseline")).toBe(true);
  });

  it("a base config that cannot be read after the retries: stored mode, and the comment's first screen says why", async () => {
    fake.files.set(`vllm-perf-gate.yml@${mainSha}`, testConfig(1.0, { min: 2, max: 4, block: 1 }));
    fake.fault({ path: /\/contents\/vllm-perf-gate\.yml$/, times: forever, ...serverError() });
    // The real comparison: the comment is rendered from its verdict, first screen first.
    const { outputs } = await runJob(autoJob(235), deps({ compare: defaults.compareWithStatistics }));
    expect(outputs.verdict).not.toBe("error");
    const body = ourComments()[0]?.body ?? "";
    const change = body.indexOf(
      "**Method changed:** interleaved runs were not possible (vllm-perf-gate.yml could not be read at the base commit aaaaaaaaaaaa: GET /repos/acme/serving/contents/vllm-perf-gate.yml answered HTTP 502 (Server Error) after 4 attempts), so this PR is gated against the stored baseline.",
    );
    expect(change).toBeGreaterThan(0);
    // Right under the verdict: before its findings table and the folds.
    expect(change).toBeLessThan(body.indexOf("|"));
    // Under the verdict, its reason and the override line.
    expect(body.slice(0, change).split("\n").length).toBeLessThanOrEqual(8);
  });
});

describe("an App token whose login GraphQL will not give", () => {
  it("never guesses its identity: the App's one sticky comment is updated, not a second posted", async () => {
    const appPr = 32;
    const asApp = (runId: number) =>
      prJob(runId, {
        inputs: { mode: "gate", "github-token": appToken },
        payload: pullRequestPayload({
          owner: fake.owner,
          repo: fake.repo,
          number: appPr,
          baseSha: mainSha,
          headSha: sha("b"),
        }),
      });
    const ourComments = (login: string) => fake.commentsOn(appPr).filter((c) => c.user.login === login);
    await runJob(asApp(240));
    expect(ourComments("perf-bot[bot]")).toHaveLength(1);
    const before = ourComments("perf-bot[bot]")[0]?.id;
    const viewer = fake.fault({ path: /^\/graphql$/, times: forever, ...serverError() });
    await runJob(asApp(241));
    expect(viewer.hits).toBe(4);
    expect(ourComments("perf-bot[bot]")).toHaveLength(1);
    expect(ourComments("perf-bot[bot]")[0]?.id).toBe(before);
    expect(ourComments("perf-bot[bot]")[0]?.body).toContain("run 241");
    // No comment under the guess github-actions[bot] either.
    expect(ourComments("github-actions[bot]")).toHaveLength(0);
  });
});

describe("main's history: a session is never lost to a fault on the write", () => {
  const historyPath = "vllm-perf-gate/history.jsonl";
  /** The history's sessions by run, in order. */
  const sessions = () => [
    ...new Set(
      parseHistory(fake.branchFile("perf-history", historyPath) ?? "", "t").map((r) => r.session.runId),
    ),
  ];
  // Octokit sends the file's path percent-encoded.
  const historyWrites = /\/contents\/vllm-perf-gate(\/|%2F)history\.jsonl$/;

  it("a 502 on the history write is retried: the session is in the history", async () => {
    await runJob(pushJob(300, sha("1")));
    const write = fake.fault({ method: "PUT", path: historyWrites, ...serverError() });
    await runJob(pushJob(301, sha("2")));
    expect(write.hits).toBe(1);
    expect(new Set(sessions())).toEqual(new Set([100, 300, 301]));
  });

  it("a write that keeps failing: the session is kept in the baseline artifact and the next push appends it", async () => {
    fake.fault({ method: "PUT", path: historyWrites, times: forever, ...serverError() });
    const failed = await runJob(pushJob(302, sha("3")));
    expect(failed.outputs.verdict).toBe("baseline-recorded");
    expect(sessions()).not.toContain(302);
    const warning = logLines.find((line) => line.startsWith("warning: Main's history was not written"));
    expect(warning).toContain(
      "PUT /repos/acme/serving/contents/vllm-perf-gate/history.jsonl answered HTTP 502",
    );
    expect(warning).toContain("vllm-perf-gate-history-pending.jsonl");
    expect(warning).not.toContain("contents: write");
    const baseline = fake.artifacts.find((a) => a.runId === 302 && a.name === "vllm-perf-gate-baseline");
    expect(baseline?.zip.includes(Buffer.from("vllm-perf-gate-history-pending.jsonl"))).toBe(true);
    fake.faults.length = 0;
    logLines = [];
    await runJob(pushJob(303, sha("4")));
    expect(sessions().slice(-2)).toEqual([302, 303]);
    expect(logLines).toContain(
      "Main's history: 1 session(s) that run 302 could not write are appended with this one.",
    );
  });

  it("a PR whose history read keeps failing is told so and judged all the same", async () => {
    fake.fault({ method: "GET", path: historyWrites, times: forever, ...serverError() });
    const { outputs } = await runJob(prJob(304));
    expect(outputs.verdict).toBe("regression");
    expect(logLines.some((line) => /Main's history refused: .*HTTP 502/.test(line))).toBe(true);
  });
});

describe("slow calls and the evidence upload", () => {
  it("every API call slowed: the verdict and the comment are intact", async () => {
    fake.fault({ path: /^\/(repos|graphql|user)/, times: forever, delayMs: 150 });
    const { outputs } = await runJob(prJob(320));
    expect(outputs.verdict).toBe("regression");
    expect(ourComments()[0]?.body).toContain("run 320");
  });

  it("a call that hangs past its deadline once is retried", async () => {
    fake.fault({ path: runsPath, delayMs: 8000 });
    const policy = { ...fastCallPolicy, attemptTimeoutMs: 2000 };
    const { outputs } = await runJob(
      prJob(321),
      deps({
        github: (token, apiUrl, options) =>
          clientModule.createGitHubClient(token, apiUrl, { ...options, policy }),
      }),
    );
    expect(outputs.verdict).toBe("regression");
    expect(logLines.some((line) => /runs: no answer \(.*\) on attempt 1\.$/.test(line))).toBe(true);
  });

  it("a 502 on the evidence upload is retried by @actions/artifact", { timeout: 30_000 }, async () => {
    const upload = fake.fault({ path: /\/CreateArtifact$/, ...serverError() });
    const { outputs } = await runJob(prJob(322));
    expect(upload.hits).toBe(1);
    expect(outputs.verdict).toBe("regression");
    expect(fake.artifacts.some((a) => a.runId === 322 && a.name === "vllm-perf-gate-results")).toBe(true);
  });
});

describe("how many API calls a job makes (docs/action.md)", () => {
  const apiCalls = (from: number) =>
    fake.requests.slice(from).filter((request) => /^\/(repos|graphql|user)/.test(request.path));

  it("counts them for a pull request in each mode and for a baseline job, with gate.baseline_sessions at its default (10)", async () => {
    // Ten baselines on main at least, the newest at the PR's base commit.
    const base = sha("9");
    const baselines = () => fake.artifacts.filter((a) => a.name === "vllm-perf-gate-baseline").length;
    for (let k = 0; baselines() < 9; k++) await runJob(pushJob(400 + k, sha("8")));
    await runJob(pushJob(409, base));
    const pr = (runId: number, inputs: Record<string, string>) =>
      prJob(runId, {
        inputs,
        config: testConfig(1.0),
        payload: pullRequestPayload({
          owner: fake.owner,
          repo: fake.repo,
          number: 33,
          baseSha: base,
          headSha: sha("b"),
        }),
      });
    const counts: Record<string, string[]> = {};
    for (const [name, job] of [
      ["stored", pr(410, { mode: "gate" })],
      ["stored, comment updated", pr(411, { mode: "gate" })],
      ["interleaved", pr(412, {})],
      ["baseline", pushJob(413, sha("d"))],
    ] as const) {
      if (name === "interleaved") fake.files.set(`vllm-perf-gate.yml@${base}`, testConfig(1.0));
      const from = fake.requests.length;
      const { outputs } = await runJob(job);
      expect(outputs.verdict).not.toBe("error");
      counts[name] = apiCalls(from).map((r) => `${r.method} ${r.path.replace(/\/repos\/acme\/serving/, "")}`);
    }
    const discovery = [
      "GET /actions/workflows/bench.yml/runs", // the runs at the base commit
      "GET /actions/artifacts", // which runs hold the baseline artifact (100 a page)
    ];
    const comment = ["GET /user", "POST /graphql", "GET /issues/33/comments"];
    const downloads = Array.from({ length: 10 }, () =>
      expect.stringMatching(/^GET \/actions\/artifacts\/\d+\/zip$/),
    );
    expect(counts.stored).toEqual([
      ...discovery,
      "GET /actions/workflows/bench.yml/runs", // the newest other baselines, for the drift
      ...downloads,
      "GET /contents/vllm-perf-gate%2Fhistory.jsonl",
      ...comment,
      "POST /issues/33/comments",
    ]);
    expect(counts["stored, comment updated"]).toHaveLength(18);
    expect(counts.interleaved).toEqual([
      "GET /contents/vllm-perf-gate.yml",
      "GET /contents/vllm-perf-gate%2Fhistory.jsonl", // main's history: the start-to-start prior
      ...comment,
      expect.stringMatching(/^PATCH \/issues\/comments\/\d+$/),
    ]);
    expect(counts.baseline).toEqual([
      ...discovery,
      "GET /contents/vllm-perf-gate%2Fhistory.jsonl",
      "GET /contents/vllm-perf-gate%2Fhistory.jsonl",
      "PUT /contents/vllm-perf-gate%2Fhistory.jsonl",
    ]);
  }, 60_000);
});
