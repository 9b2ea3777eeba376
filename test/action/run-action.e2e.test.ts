import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { configWithinBudget } from "../../src/app/budget-plan.js";
import type { ActionDependencies, CompareRequest } from "../../src/app/gate/dependencies.js";
import { parseConfigText } from "../../src/config/load.js";
import { FakeGitHub } from "../github/fake-github.js";
import { createFileMeasure, createRatioCompare, type MeasureCall, testConfig } from "./fixtures.js";
import { type Job, runJob as runJobIn, workflowToken } from "./harness.js";
import { pullRequestPayload, pushPayload, workflowDispatchPayload } from "./payloads.js";

/**
 * The main and post steps as the runner runs them (INPUT_* env, GITHUB_EVENT_PATH with push and
 * pull_request payloads, GITHUB_OUTPUT / GITHUB_STATE / GITHUB_STEP_SUMMARY files), against the loopback
 * GitHub API + artifact service, with the real @actions/core and @actions/artifact. Each case starts
 * from an empty repository and workspace and makes the history it needs (main's baseline, an earlier
 * comment), so it passes alone and in any order.
 */

const fake = new FakeGitHub();
const sha = (c: string) => c.repeat(40);
const mainSha = sha("a");
const PR = 17;
let root: string;
let workspace: string;
let summaryFile: string;
let runnerIO: typeof import("../../src/action/action-io.js").runnerIO;
let steps: typeof import("../../src/action/run-from-environment.js");
let artifactStoreModule: typeof import("../../src/github/artifact-store.js");
let clientModule: typeof import("../../src/github/client.js");
let measureCalls: MeasureCall[] = [];
let cleanedUp: string[] = [];

function deps(overrides: Partial<ActionDependencies> = {}): ActionDependencies {
  return {
    measure: createFileMeasure(measureCalls),
    compare: createRatioCompare(),
    cleanupServers: async (file) => {
      cleanedUp.push(file);
    },
    github: clientModule.createGitHubClient,
    artifacts: (context) => new artifactStoreModule.GitHubArtifactStore(context),
    now: () => new Date("2026-11-30T04:00:00Z"),
    ...overrides,
  };
}

function runJob(job: Job, dependencies = deps()) {
  return runJobIn(
    { fake, root, workspace, summaryFile, io: runnerIO, runMainStep: steps.runMainStep },
    job,
    dependencies,
  );
}

const prJob = (runId: number, extra: Partial<Job> = {}, labels: string[] = []): Job => ({
  runId,
  event: "pull_request",
  payload: pullRequestPayload({
    owner: fake.owner,
    repo: fake.repo,
    number: PR,
    baseSha: mainSha,
    headSha: sha("b"),
    labels,
  }),
  sha: sha("c"),
  ref: `refs/pull/${PR}/merge`,
  config: testConfig(1.3),
  ...extra,
});

beforeAll(async () => {
  const baseUrl = await fake.start();
  process.env.GITHUB_API_URL = baseUrl;
  process.env.ACTIONS_RESULTS_URL = baseUrl;
  delete process.env.GITHUB_SERVER_URL;
  fake.users.set(workflowToken, {
    login: "github-actions[bot]",
    type: "Bot",
    installation: true,
  });
  root = await mkdtemp(join(tmpdir(), "action-e2e-"));
  summaryFile = join(root, "summary.md");
  await writeFile(summaryFile, "");
  process.env.GITHUB_STEP_SUMMARY = summaryFile;
  // Imported after GITHUB_API_URL is set: @actions/github reads it at import.
  ({ runnerIO } = await import("../../src/action/action-io.js"));
  steps = await import("../../src/action/run-from-environment.js");
  artifactStoreModule = await import("../../src/github/artifact-store.js");
  clientModule = await import("../../src/github/client.js");
});

afterAll(async () => {
  await fake.stop();
  await rm(root, { recursive: true, force: true });
  process.exitCode = undefined;
});

beforeEach(async () => {
  fake.reset();
  workspace = await mkdtemp(join(root, "workspace-"));
  measureCalls = [];
  cleanedUp = [];
});

/** A push to main (run 100) that records the stored baseline, the config at 1.0x. */
const mainBaselineJob = (): Job => ({
  runId: 100,
  event: "push",
  payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: mainSha, before: sha("9") }),
  sha: mainSha,
  ref: "refs/heads/main",
  config: testConfig(1.0),
});

/** The history a PR case starts from: main's baseline recorded by run 100; its measure calls forgotten. */
async function givenMainBaseline(): Promise<void> {
  const { outputs } = await runJob(mainBaselineJob());
  expect(outputs.verdict).toBe("baseline-recorded");
  measureCalls = [];
}

describe("the action end to end", () => {
  it("with no baseline yet, a PR run passes with a 'baseline missing' notice", async () => {
    const { result, outputs, summary } = await runJob(prJob(90));
    expect(result.failed).toBe(false);
    expect(outputs.verdict).toBe("baseline-missing");
    expect(summary).toContain("baseline missing");
    // auto runs a PR interleaved; with no config at the base commit it says why it could not.
    expect(summary.replace(/\\/g, "")).toContain(
      `Note: interleaved runs were not possible (vllm-perf-gate.yml does not exist at the base commit ${mainSha.slice(0, 12)}), so this PR is gated against the stored baseline.`,
    );
    expect(fake.commentsOn(PR)).toHaveLength(1);
    // Its evidence is uploaded all the same.
    expect(fake.artifacts.some((a) => a.runId === 90 && a.name === "vllm-perf-gate-results")).toBe(true);
  });

  it("a push to main records the baseline artifact with its commit", async () => {
    const { result, outputs, summary } = await runJob(mainBaselineJob());
    expect(result.failed).toBe(false);
    expect(outputs.verdict).toBe("baseline-recorded");
    expect(outputs["baseline-sha"]).toBe(mainSha);
    expect(summary).toContain("baseline recorded");
    const baseline = fake.artifacts.find((a) => a.runId === 100 && a.name === "vllm-perf-gate-baseline");
    expect(baseline?.zip.includes(Buffer.from("vllm-perf-gate-baseline.json"))).toBe(true);
    // A stored baseline is measured once with repeats.baseline runs (default 10), not repeats.min, over
    // two server starts or more (one measuring step each, runs in order), so main's history sees the
    // start level. The simulator starts in seconds: the fewest runs a start may hold, two, five starts.
    expect(measureCalls.length).toBeGreaterThanOrEqual(2);
    let next = 0;
    for (const call of measureCalls) {
      expect(call).toEqual(expect.objectContaining({ side: null, firstRun: next, cells: null }));
      expect(call.runs).toBeLessThanOrEqual(5);
      next += call.runs ?? 0;
    }
    expect(next).toBe(10);
  });

  it("a PR with a regression posts the comment, sets the outputs and fails; forged markers are ignored", async () => {
    await givenMainBaseline();
    fake.comments.push({
      id: fake.id(),
      issue: PR,
      body: "<!-- vllm-perf-gate:v1 key=vllm-perf-gate.yml --> all good, merge it",
      user: { login: "mallory", id: 66, type: "User" },
      created_at: "2026-11-02T00:00:00Z",
      updated_at: "2026-11-02T00:00:00Z",
    });
    const { result, outputs, summary } = await runJob(prJob(200));
    expect(result.failed).toBe(true);
    expect(result.failureMessage).toContain("regression");
    expect(outputs.verdict).toBe("regression");
    expect(outputs["baseline-sha"]).toBe(mainSha);
    expect(outputs["comment-url"]).toMatch(/#issuecomment-\d+$/);
    expect(await readFile(outputs["report-path"] ?? "", "utf8")).toContain("## vllm-perf-gate: regression");
    expect(outputs["results-dir"]).toMatch(/evidence[/\\]candidate$/);
    expect(summary).toContain("## vllm-perf-gate: regression");
    expect(summary).toContain(`\`${mainSha.slice(0, 12)}\` from run 100`);
    expect(summary).toContain("Mode: stored");
    expect(summary).toContain("interleaved runs were not possible");
    const ours = fake.commentsOn(PR).filter((c) => c.user.login === "github-actions[bot]");
    expect(ours).toHaveLength(1);
    expect(ours[0]?.body).toContain("<!-- vllm-perf-gate:v1 key=vllm-perf-gate.yml -->");
    expect(fake.commentsOn(PR).find((c) => c.user.login === "mallory")?.body).toContain("all good");
    // The token is never written anywhere we publish.
    expect(JSON.stringify(fake.comments) + summary).not.toContain(workflowToken);
    const evidence = fake.artifacts.find((a) => a.runId === 200 && a.name === "vllm-perf-gate-results");
    expect(evidence).toBeDefined();
    // The comment points at the report with charts in the evidence artifact (this job's compare is a
    // stand-in; writeCompareOutputs writing it is tested in test/report/html-report.e2e.test.ts).
    expect(ours[0]?.body).toMatch(
      /Evidence: artifact `vllm-perf-gate-results` of \[run 200\]\([^)]*\); its `compare\/report\.html`/,
    );
  });

  it("a second PR run updates the same comment in place", async () => {
    await givenMainBaseline();
    await runJob(prJob(200));
    const before = fake.commentsOn(PR).filter((c) => c.user.login === "github-actions[bot]");
    const { outputs } = await runJob(prJob(201));
    const after = fake.commentsOn(PR).filter((c) => c.user.login === "github-actions[bot]");
    expect(after).toHaveLength(1);
    expect(after[0]?.id).toBe(before[0]?.id);
    expect(after[0]?.body).toContain("run 201");
    expect(outputs["comment-url"]).toContain(`#issuecomment-${before[0]?.id}`);
    expect(
      fake.requests.some((r) => r.method === "PATCH" && r.path.endsWith(`/issues/comments/${before[0]?.id}`)),
    ).toBe(true);
  });

  it("the override label turns the failure into a pass and names who applied it", async () => {
    await givenMainBaseline();
    fake.labels.set(PR, ["perf-regression-accepted"]);
    fake.events.set(PR, [
      {
        id: 1,
        event: "labeled",
        actor: { login: "maintainer-alice", id: 5, type: "User" },
        label: { name: "perf-regression-accepted", color: "ededed" },
        created_at: "2026-11-03T00:00:00Z",
      },
    ]);
    const { result, outputs, summary } = await runJob(prJob(202, {}, ["perf-regression-accepted"]));
    fake.labels.delete(PR);
    expect(result.failed).toBe(false);
    expect(outputs.verdict).toBe("regression");
    expect(summary).toContain(
      "**Accepted:** the label `perf-regression-accepted` was applied by `maintainer-alice`, so this check passes despite the verdict.",
    );
  });

  it("a fork PR on a self-hosted runner is refused before anything runs", async () => {
    const job = prJob(203, {
      payload: pullRequestPayload({
        owner: fake.owner,
        repo: fake.repo,
        number: 18,
        baseSha: mainSha,
        headSha: sha("d"),
        headRepo: "outsider/serving",
      }),
    });
    const { result, outputs, summary } = await runJob(job);
    expect(result.failed).toBe(true);
    expect(result.failureMessage).toMatch(
      /refusing to run pull request #18 from the fork outsider\/serving on a self-hosted runner/,
    );
    expect(result.failureMessage).toContain("allow-fork-prs: true");
    expect(outputs.verdict).toBe("error");
    expect(summary).toContain("refusing");
    expect(measureCalls).toHaveLength(0);
  });

  it("a fork PR on a GitHub-hosted runner runs; its read-only token's 403 falls back to the summary", async () => {
    await givenMainBaseline();
    fake.forbidCommentWrites = true;
    const job = prJob(204, {
      runner: "github-hosted",
      payload: pullRequestPayload({
        owner: fake.owner,
        repo: fake.repo,
        number: 19,
        baseSha: mainSha,
        headSha: sha("d"),
        headRepo: "outsider/serving",
      }),
    });
    const { result, outputs, summary } = await runJob(job);
    expect(outputs.verdict).toBe("regression");
    expect(result.failed).toBe(true);
    expect(outputs["comment-url"]).toBe("");
    expect(summary).toContain("## vllm-perf-gate: regression");
    expect(fake.commentsOn(19)).toHaveLength(0);
  });

  it("adds runs while compare is inconclusive, up to max-runs", async () => {
    await givenMainBaseline();
    const { outputs } = await runJob(
      prJob(205, { config: testConfig(1.0), inputs: { "max-runs": "5" } }),
      deps({ compare: createRatioCompare({ decideAt: 10 }) }),
    );
    // 3 initial runs (repeats.min), then one more run per look up to max-runs 5 on the cell compare asked about.
    expect(measureCalls.map((call) => [call.firstRun, call.runs, call.cells])).toEqual([
      [0, 3, null],
      [3, 1, ["chat"]],
      [4, 1, ["chat"]],
    ]);
    expect(outputs.verdict).toBe("inconclusive");
  }, 30_000);

  it("matrix parts and the aggregate job produce one verdict from every cell", async () => {
    await givenMainBaseline();
    // INPUT_MAX-RUNS is cleared per job; the parts run in the same workflow run as the aggregate job.
    const part = (cells: string) => prJob(206, { inputs: { cells } });
    expect((await runJob(part("chat"))).outputs.verdict).toBe("partial");
    expect((await runJob(part("batch"))).outputs.verdict).toBe("partial");
    expect(
      fake.artifacts
        .filter((a) => a.runId === 206)
        .map((a) => a.name)
        .sort(),
    ).toEqual(["vllm-perf-gate-results-part-batch", "vllm-perf-gate-results-part-chat"]);
    measureCalls = [];
    const { outputs, summary } = await runJob(prJob(206, { inputs: { mode: "aggregate" } }));
    expect(measureCalls).toHaveLength(0);
    expect(outputs.verdict).toBe("regression");
    // The stored baseline holds repeats.baseline (10) runs of each of the 2 cells.
    expect(summary).toContain("median of 20 / 6 runs");
  });

  it("interleaved runs the base commit's config and the PR's alternately, flipping the order each pair, one start per block", async () => {
    fake.files.set(`vllm-perf-gate.yml@${mainSha}`, testConfig(1.0, { min: 2, max: 4, block: 1 }));
    const { outputs, summary } = await runJob(
      prJob(207, {
        inputs: { mode: "interleaved" },
        config: testConfig(1.3, { min: 2, max: 4, block: 1 }),
      }),
    );
    // A B, B A: the candidate's two consecutive runs are one measure call (one server start per cell),
    // so 2 pairs cost 3 starts per cell, not 4.
    expect(measureCalls.map((call) => `${call.side}:${call.firstRun}+${call.runs}`)).toEqual([
      "baseline:0+1",
      "candidate:0+2",
      "baseline:1+1",
    ]);
    expect(measureCalls[0]?.configPath).toMatch(/\.vllm-perf-gate-base-aaaaaaaaaaaa\.yml$/);
    expect(outputs.verdict).toBe("regression");
    expect(summary).toContain("Mode: interleaved");
  });

  it("a budget input: both sides are measured by the budget's plan in one look", async () => {
    fake.files.set(`vllm-perf-gate.yml@${mainSha}`, testConfig(1.0));
    const { config } = parseConfigText(testConfig(1.3), "vllm-perf-gate.yml");
    const { budget } = configWithinBudget({ ...config, gate: { ...config.gate, budget_gpu_minutes: 40 } });
    const plan = budget!.plan;
    const { outputs } = await runJob(prJob(208, { inputs: { mode: "interleaved", budget: "40" } }));
    const runsOf = (side: string) =>
      measureCalls.filter((call) => call.side === side).reduce((sum, call) => sum + (call.runs ?? 0), 0);
    expect(runsOf("baseline")).toBe(plan.runsPerSide);
    expect(runsOf("candidate")).toBe(plan.runsPerSide);
    // Groups of the plan's runs per start, A B | B A: no call is longer than two groups merged (one
    // group where every group has a start of its own).
    const { runsPerGroup, startEachGroup } = plan.schedule;
    for (const call of measureCalls)
      expect(call.runs!).toBeLessThanOrEqual((startEachGroup ? 1 : 2) * runsPerGroup);
    // Both sides at the planned requests per run (the base commit's config too).
    const planned = Object.fromEntries(plan.cells.map((cell) => [cell.name, cell.requests]));
    for (const call of measureCalls) expect(call.requests).toEqual(planned);
    expect(outputs.verdict).toBe("regression");
  });

  it("reads each config once per job: files changed on disk after the start change nothing", async () => {
    fake.files.set(`vllm-perf-gate.yml@${mainSha}`, testConfig(1.0, { min: 2, max: 4, block: 1 }));
    const measure = createFileMeasure(measureCalls);
    const { outputs } = await runJob(
      prJob(208, {
        inputs: { mode: "interleaved" },
        config: testConfig(1.3, { min: 2, max: 4, block: 1 }),
      }),
      deps({
        // Each measure call leaves its config unreadable: a second read of either file would fail the job.
        measure: async (request) => {
          await measure(request);
          await writeFile(request.configPath, "cells: [unclosed\n");
        },
        compare: createRatioCompare({ decideAt: 5 }),
      }),
    );
    // After the first look (4 runs of 2 cells) both sides add a run of chat, from the configs loaded at the start.
    expect(measureCalls.map((call) => `${call.side}:${call.firstRun}+${call.runs}`)).toEqual([
      "baseline:0+1",
      "candidate:0+2",
      "baseline:1+1",
      "baseline:2+1",
      "candidate:2+1",
    ]);
    expect(outputs.verdict).toBe("regression");
  });

  it("interleaved explains a config that does not exist at the base commit", async () => {
    const job = prJob(212, {
      inputs: { mode: "interleaved", config: "perf/new.yml" },
      payload: pullRequestPayload({
        owner: fake.owner,
        repo: fake.repo,
        number: 24,
        baseSha: sha("7"),
        headSha: sha("b"),
      }),
    });
    await mkdir(join(workspace, "perf"), { recursive: true });
    await writeFile(join(workspace, "perf", "new.yml"), testConfig(1));
    const { result } = await runJob(job);
    expect(result.failureMessage).toBe(
      "mode interleaved: perf/new.yml does not exist at the base commit 777777777777, so there is no base side to run; use mode gate (stored baseline) for this PR",
    );
    expect(measureCalls).toEqual([]);
  });

  it("auto runs a PR interleaved when the base commit has the config, and records nothing", async () => {
    const base = sha("5");
    fake.files.set(`vllm-perf-gate.yml@${base}`, testConfig(1.0));
    const artifactsBefore = fake.artifacts.length;
    const { outputs, summary } = await runJob(
      prJob(213, {
        payload: pullRequestPayload({
          owner: fake.owner,
          repo: fake.repo,
          number: 25,
          baseSha: base,
          headSha: sha("b"),
        }),
      }),
    );
    // repeats.min 3 runs per side as repeats.block auto gives them here (the start noise of the gated
    // TTFT p95 matters and a simulator's start is cheap beside a run): every run on a start of its own,
    // in the order A B, B A, A B; each run one measure call.
    expect(measureCalls.map((call) => `${call.side}:${call.firstRun}+${call.runs}`)).toEqual([
      "baseline:0+1",
      "candidate:0+1",
      "candidate:1+1",
      "baseline:1+1",
      "baseline:2+1",
      "candidate:2+1",
    ]);
    expect(outputs.verdict).toBe("regression");
    expect(outputs["baseline-sha"]).toBe(base);
    expect(summary).toContain("Mode: interleaved");
    expect(summary).not.toContain("not possible");
    // Only the evidence is uploaded: a PR never records a baseline.
    expect(fake.artifacts.slice(artifactsBefore).map((a) => a.name)).toEqual(["vllm-perf-gate-results"]);
  });

  it("auto falls back to the stored baseline when the base commit's config cannot be used, and says why", async () => {
    await givenMainBaseline();
    const base = sha("6");
    fake.files.set(`vllm-perf-gate.yml@${base}`, "version: 1\nserver: {kind: sim}\nnot_a_field: 3\n");
    const { outputs, summary } = await runJob(
      prJob(214, {
        payload: pullRequestPayload({
          owner: fake.owner,
          repo: fake.repo,
          number: 26,
          baseSha: base,
          headSha: sha("b"),
        }),
      }),
    );
    expect(measureCalls.map((call) => call.side)).toEqual([null]);
    expect(outputs.verdict).toBe("regression");
    expect(summary).toContain("Mode: stored");
    // One line naming the file as the repository knows it, and the first problem.
    expect(summary.replace(/\\/g, "")).toContain(
      "Note: interleaved runs were not possible (the base commit's config cannot be used: vllm-perf-gate.yml at 666666666666: 3 problems in the config, the first: model: expected a mapping, got nothing (the key is missing)), so this PR is gated against the stored baseline",
    );
    // The fetched base config is not left in the checkout.
    expect(
      await readFile(join(workspace, ".vllm-perf-gate-base-666666666666.yml"), "utf8").catch(() => null),
    ).toBeNull();
  });

  it("auto never interleaves an external endpoint: both sides would measure the same deployment", async () => {
    await givenMainBaseline();
    const external = testConfig(1.3).replace(
      /server:\n( {2}.*\n)+?model:/,
      "server:\n  kind: external\n  base_url: http://127.0.0.1:9\nmodel:",
    );
    expect(external).toContain("kind: external");
    fake.files.set(`vllm-perf-gate.yml@${sha("5")}`, external);
    const { summary } = await runJob(
      prJob(216, {
        config: external,
        payload: pullRequestPayload({
          owner: fake.owner,
          repo: fake.repo,
          number: 28,
          baseSha: sha("5"),
          headSha: sha("b"),
        }),
      }),
    );
    expect(measureCalls.map((call) => call.side)).toEqual([null]);
    expect(summary).toContain("Mode: stored");
    expect(summary.replace(/\\/g, "")).toContain(
      "interleaved runs were not possible (the server is external (server.kind: external): both sides would measure the same deployment)",
    );
  });

  it("mode gate compares a PR with the stored baseline even when the base commit has the config", async () => {
    await givenMainBaseline();
    const { outputs, summary } = await runJob(
      prJob(215, {
        inputs: { mode: "gate" },
        payload: pullRequestPayload({
          owner: fake.owner,
          repo: fake.repo,
          number: 27,
          baseSha: sha("5"),
          headSha: sha("b"),
        }),
      }),
    );
    expect(measureCalls.map((call) => call.side)).toEqual([null]);
    expect(outputs.verdict).toBe("regression");
    expect(summary).toContain("Mode: stored");
    expect(summary).not.toContain("not possible");
  });

  it("the post step stops recorded servers and uploads evidence main could not", async () => {
    await givenMainBaseline();
    const failing = deps({
      // Downloads work, uploads fail: the results service went away mid-job.
      artifacts: (context) => {
        const real = new artifactStoreModule.GitHubArtifactStore(context);
        return {
          upload: async () => {
            throw new Error("results service unavailable");
          },
          listCurrentRun: () => real.listCurrentRun(),
          download: (artifact, destination) => real.download(artifact, destination),
        };
      },
    });
    const { state, outputs, result } = await runJob(prJob(208), failing);
    // The verdict survives the failed upload.
    expect(outputs.verdict).toBe("regression");
    expect(result.failureMessage).toContain("regression");
    expect(state["evidence-uploaded"]).toBeUndefined();
    await writeFile(state["server-state-file"] ?? "", "{}");
    for (const [name, value] of Object.entries(state)) process.env[`STATE_${name}`] = value;
    await steps.runPostStep(deps(), runnerIO, process.env);
    expect(cleanedUp).toEqual([state["server-state-file"]]);
    expect(fake.artifacts.some((a) => a.runId === 208 && a.name === "vllm-perf-gate-results")).toBe(true);
  });

  it("a bad input fails the step with a message naming the input", async () => {
    const { result, outputs } = await runJob(prJob(209, { inputs: { comment: "yes" } }));
    expect(result.failed).toBe(true);
    expect(result.failureMessage).toBe(
      'input comment: expected true or false (YAML 1.2 core schema), got "yes"',
    );
    expect(outputs.verdict).toBe("error");
  });

  it("finds the baseline in another workflow (baseline-workflow) and says why it fell back", async () => {
    const movedMain = sha("e");
    await runJob({
      runId: 300,
      event: "push",
      payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: movedMain, before: mainSha }),
      sha: movedMain,
      ref: "refs/heads/main",
      config: testConfig(1.0),
      workflow: "baseline-on-main.yml",
    });
    const job = prJob(301, {
      workflow: "perf-gate.yml",
      inputs: { "baseline-workflow": "baseline-on-main.yml" },
      payload: pullRequestPayload({
        owner: fake.owner,
        repo: fake.repo,
        number: 21,
        baseSha: sha("f"),
        headSha: sha("b"),
      }),
    });
    const { outputs, summary } = await runJob(job);
    expect(outputs["baseline-sha"]).toBe(movedMain);
    expect(summary).toContain("run on main at base commit ffffffffffff");
    expect(summary).toContain("used the newest earlier run with a baseline");
  });

  it("a manually dispatched baseline is found by the next PR, with earlier baselines as its drift history", async () => {
    await givenMainBaseline();
    const dispatched = sha("7");
    const recorded = await runJob({
      runId: 320,
      event: "workflow_dispatch",
      payload: workflowDispatchPayload({ owner: fake.owner, repo: fake.repo }),
      sha: dispatched,
      ref: "refs/heads/main",
      config: testConfig(1.0),
    });
    expect(recorded.outputs.verdict).toBe("baseline-recorded");
    // Its 10 runs (repeats.baseline), in measuring steps of their own server starts.
    expect(measureCalls.at(-1)).toMatchObject({ side: null });
    expect(measureCalls.reduce((sum, call) => sum + (call.runs ?? 0), 0)).toBe(10);
    const requests: CompareRequest[] = [];
    const ratio = createRatioCompare();
    const { outputs } = await runJob(
      prJob(321, {
        config: testConfig(1.0),
        // The artifact sessions as drift history; main's history branch replaces them (history.e2e.test.ts).
        inputs: { history: "off" },
        payload: pullRequestPayload({
          owner: fake.owner,
          repo: fake.repo,
          number: 22,
          baseSha: dispatched,
          headSha: sha("b"),
        }),
      }),
      deps({
        compare: async (request) => {
          requests.push(request);
          return ratio(request);
        },
      }),
    );
    expect(outputs["baseline-sha"]).toBe(dispatched);
    // The push baseline recorded earlier on main (run 100) is history for the drift estimate.
    const history = requests[0]!.historyDirs;
    expect(history.some((dir) => dir.endsWith("/100"))).toBe(true);
    expect(history.every((dir) => !dir.endsWith("/320"))).toBe(true);
    for (const dir of history)
      expect(await readFile(join(dir, "chat", "run-0", "run.json"), "utf8")).toContain("schemaVersion");
  });

  it("a baseline that breaks the schema fails the gate with the file and field, never compares", async () => {
    const tamperingMeasure = deps({
      measure: async (request) => {
        await createFileMeasure()(request);
        const file = join(request.resultsDir, "chat", "run-0", "run.json");
        const run = JSON.parse(await readFile(file, "utf8"));
        run.requests.failed = -1;
        await writeFile(file, JSON.stringify(run));
      },
    });
    await runJob(
      {
        runId: 310,
        event: "push",
        payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: sha("1"), before: mainSha }),
        sha: sha("1"),
        ref: "refs/heads/main",
        config: testConfig(1.0),
        workflow: "tampered.yml",
      },
      tamperingMeasure,
    );
    const compared: string[] = [];
    const { result, outputs } = await runJob(
      prJob(311, {
        workflow: "tampered.yml",
        payload: pullRequestPayload({
          owner: fake.owner,
          repo: fake.repo,
          number: 22,
          baseSha: sha("1"),
          headSha: sha("b"),
        }),
      }),
      deps({
        compare: async (request) => {
          compared.push(request.baselineDir);
          return createRatioCompare()(request);
        },
      }),
    );
    expect(result.failed).toBe(true);
    expect(outputs.verdict).toBe("error");
    expect(result.failureMessage).toBe(
      "baseline chat/run-0/run.json: field requests.failed: Too small: expected number to be >=0",
    );
    expect(compared).toEqual([]);
    expect(fake.artifacts.some((a) => a.runId === 311 && a.name === "vllm-perf-gate-results")).toBe(true);
  });

  it("secret values never reach the comment, the summary or the uploaded evidence", async () => {
    await givenMainBaseline();
    const secret = "hf_verysecretvalue42";
    const leaky = deps({
      measure: async (request) => {
        await createFileMeasure()(request);
        await writeFile(join(request.resultsDir, "chat", "run-0", "server.log"), `HF_TOKEN=${secret}\n`);
      },
      compare: async (request) => {
        const outcome = await createRatioCompare()(request);
        return { ...outcome, report: `${outcome.report}\n\nserver said: token ${secret}` };
      },
    });
    const job = prJob(320, {
      env: { HF_TOKEN: secret },
      payload: pullRequestPayload({
        owner: fake.owner,
        repo: fake.repo,
        number: 23,
        baseSha: mainSha,
        headSha: sha("b"),
      }),
    });
    const { outputs, summary } = await runJob(job, leaky);
    expect(summary).toContain("server said: token ***");
    expect(summary).not.toContain(secret);
    expect(fake.commentsOn(23)[0]?.body).toContain("token ***");
    expect(await readFile(join(outputs["results-dir"] ?? "", "chat", "run-0", "server.log"), "utf8")).toBe(
      "HF_TOKEN=***\n",
    );
  });
});
