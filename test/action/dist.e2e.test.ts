import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeGitHub, runtimeToken } from "../github/fake-github.js";
import { parseCommandFile, workflowToken } from "./harness.js";
import { pullRequestPayload, pushPayload } from "./payloads.js";

/**
 * The bundled action exactly as the runner runs it: `node dist/action/main.js` in its own process, with
 * INPUT_* variables, GITHUB_EVENT_PATH holding push and pull_request payloads, GITHUB_OUTPUT /
 * GITHUB_STATE / GITHUB_STEP_SUMMARY files, the loopback GitHub API and artifact service, and the real
 * runner, compare and simulator (started by the sim launcher from dist/cli.js). Nothing is injected.
 * Main's baseline and the PR's first run are measured once per file, on first use, so each case passes
 * alone and in any order without measuring them again.
 */

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const mainEntry = join(repoRoot, "dist/action/main.js");
const postEntry = join(repoRoot, "dist/action/post.js");
const fake = new FakeGitHub();
const sha = (c: string) => c.repeat(40);
const mainSha = sha("a");
const PR = 42;
let root: string;
let workspace: string;

/**
 * Two fast cells with enough requests per run that p95 is gated. The candidate slows every engine step by
 * `slowdown`: a change far beyond what a loaded CI machine's own noise can produce or hide.
 */
const config = (slowdown: number) => `version: 1
server:
  kind: sim
  profile: small-gpu
  seed: 3
  set: { speed_sigma: 0.01, step_overhead_ms: ${2 * slowdown}, decode_per_seq_ms: ${(0.03 * slowdown).toFixed(4)} }
model: { name: sim-model, revision: e2e }
cells:
  - name: chat
    endpoint: chat
    dataset: { type: synthetic, input_tokens: 64, output_tokens: 32 }
    load: { type: concurrency, concurrency: 16 }
    size: { requests: 200 }
    warmup: { requests: 2 }
  - name: longgen
    dataset: { type: synthetic, input_tokens: 32, output_tokens: 96 }
    load: { type: concurrency, concurrency: 32 }
    size: { requests: 200 }
    warmup: { requests: 2 }
repeats: { min: 3, max: 3 }
gate:
  allowed_differences: [configHash, server.command, server.args]
# The client-bound check is exercised elsewhere; CI machines running tests in parallel would trip it.
client: { max_event_loop_lag_ms: 2000, max_schedule_lag_ms: 2000 }
`;

interface DistJob {
  runId: number;
  event: "push" | "pull_request";
  payload: object;
  sha: string;
  ref: string;
  config: string;
  inputs?: Record<string, string>;
}

async function runDist(job: DistJob) {
  const backendId = `backend-${job.runId}`;
  fake.runs.push({
    id: job.runId,
    head_sha: job.sha,
    head_branch: job.event === "push" ? "main" : "slow-decode",
    event: job.event,
    conclusion: "failure",
    workflowFile: "bench.yml",
    created_at: new Date(Date.UTC(2026, 10, 1) + job.runId * 60_000).toISOString(),
    backendId,
  });
  await writeFile(join(workspace, "vllm-perf-gate.yml"), job.config);
  const jobDir = await mkdtemp(join(root, `job-${job.runId}-`));
  const files = {
    output: join(jobDir, "output"),
    state: join(jobDir, "state"),
    event: join(jobDir, "event.json"),
    summary: join(jobDir, "summary.md"),
  };
  await Promise.all([
    writeFile(files.output, ""),
    writeFile(files.state, ""),
    writeFile(files.summary, ""),
    writeFile(files.event, JSON.stringify(job.payload)),
  ]);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITHUB_ACTIONS: "true",
    GITHUB_API_URL: fake.baseUrl,
    GITHUB_GRAPHQL_URL: `${fake.baseUrl}/graphql`,
    ACTIONS_RESULTS_URL: fake.baseUrl,
    ACTIONS_RUNTIME_TOKEN: runtimeToken(backendId, "job-1"),
    GITHUB_EVENT_NAME: job.event,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_SHA: job.sha,
    GITHUB_REF: job.ref,
    GITHUB_REPOSITORY: `${fake.owner}/${fake.repo}`,
    GITHUB_REPOSITORY_OWNER: fake.owner,
    GITHUB_RUN_ID: String(job.runId),
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_WORKFLOW_REF: `${fake.owner}/${fake.repo}/.github/workflows/bench.yml@${job.ref}`,
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: files.output,
    GITHUB_STATE: files.state,
    GITHUB_STEP_SUMMARY: files.summary,
    RUNNER_TEMP: jobDir,
    RUNNER_OS: "Linux",
    RUNNER_NAME: "gpu-runner-1",
    RUNNER_ENVIRONMENT: "self-hosted",
    "INPUT_GITHUB-TOKEN": workflowToken,
    ...Object.fromEntries(
      Object.entries(job.inputs ?? {}).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]),
    ),
  };
  const exit = await runNode(mainEntry, env, workspace);
  // The runner runs the post step after main whatever happened, with main's saved state.
  const state = parseCommandFile(await readFile(files.state, "utf8"));
  const postEnv = {
    ...env,
    ...Object.fromEntries(Object.entries(state).map(([key, value]) => [`STATE_${key}`, value])),
  };
  const post = await runNode(postEntry, postEnv, workspace);
  const run = fake.runs.find((candidate) => candidate.id === job.runId);
  if (run) run.conclusion = exit.code === 0 ? "success" : "failure";
  return {
    exit,
    post,
    outputs: parseCommandFile(await readFile(files.output, "utf8")),
    summary: await readFile(files.summary, "utf8"),
  };
}

/** A step that outlives `limitMs` is killed and reported as such, with what it printed. */
function runNode(entry: string, env: NodeJS.ProcessEnv, cwd: string, limitMs = 150_000) {
  return new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [entry], { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => {
      stdout += `\n[test] ${entry} still running after ${limitMs} ms: killed\n`;
      child.kill("SIGKILL");
    }, limitMs);
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });
}

const prJob = (runId: number, labels: string[] = [], headRepo?: string): DistJob => ({
  runId,
  event: "pull_request",
  payload: pullRequestPayload({
    owner: fake.owner,
    repo: fake.repo,
    number: PR,
    baseSha: mainSha,
    headSha: sha("b"),
    labels,
    ...(headRepo ? { headRepo } : {}),
  }),
  sha: sha("c"),
  ref: `refs/pull/${PR}/merge`,
  config: config(2),
});

let baseline: ReturnType<typeof runDist> | undefined;
let firstPr: ReturnType<typeof runDist> | undefined;

/** Main's baseline (run 300), which the PR's runs are gated against. */
const mainBaseline = () =>
  (baseline ??= runDist({
    runId: 300,
    event: "push",
    payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: mainSha, before: sha("9") }),
    sha: mainSha,
    ref: "refs/heads/main",
    config: config(1),
  }));

/** The PR's first run (301) against main's baseline: it posts the comment later runs update. */
const firstPrRun = () => (firstPr ??= mainBaseline().then(() => runDist(prJob(301))));

beforeAll(async () => {
  await fake.start();
  fake.users.set(workflowToken, { login: "github-actions[bot]", type: "Bot", installation: true });
  root = await mkdtemp(join(tmpdir(), "action-dist-"));
  workspace = join(root, "workspace");
  await mkdir(workspace);
});

afterAll(async () => {
  await fake.stop();
  await rm(root, { recursive: true, force: true });
});

describe("the bundled action (dist/) against the simulator and a fake GitHub", () => {
  it("a push to main measures and uploads the baseline", { timeout: 400_000 }, async () => {
    const { exit, outputs } = await mainBaseline();
    expect(exit.code, exit.stdout).toBe(0);
    expect(outputs.verdict).toBe("baseline-recorded");
    expect(outputs["baseline-sha"]).toBe(mainSha);
    expect(fake.artifacts.some((a) => a.runId === 300 && a.name === "vllm-perf-gate-baseline")).toBe(true);
    expect(fake.artifacts.some((a) => a.runId === 300 && a.name === "vllm-perf-gate-results")).toBe(true);
  });

  it("a PR that slows every engine step posts the comment, sets outputs and fails", {
    timeout: 400_000,
  }, async () => {
    const { exit, outputs, summary } = await firstPrRun();
    expect(exit.code, exit.stdout).toBe(1);
    expect(outputs.verdict, summary).toBe("regression");
    expect(outputs["baseline-sha"]).toBe(mainSha);
    expect(outputs["report-path"]).toMatch(/report\.md$/);
    const comments = fake.commentsOn(PR);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain("<!-- vllm-perf-gate:v1");
    expect(comments[0]?.body).toMatch(/TPOT p95/);
    expect(summary).toContain("regression");
    expect(outputs["comment-url"]).toContain(`#issuecomment-${comments[0]?.id}`);
  });

  it("a second PR run updates the same comment in place", { timeout: 400_000 }, async () => {
    await firstPrRun();
    const before = fake.commentsOn(PR).map((comment) => comment.id);
    const { exit } = await runDist(prJob(302));
    expect(exit.code, exit.stdout).toBe(1);
    const after = fake.commentsOn(PR);
    expect(after.map((comment) => comment.id)).toEqual(before);
    expect(after[0]?.body).toContain("302");
  });

  it("the override label turns the failure into a pass and names who applied it", {
    timeout: 400_000,
  }, async () => {
    await mainBaseline();
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
    const { exit, outputs, summary } = await runDist(prJob(303, ["perf-regression-accepted"]));
    fake.labels.delete(PR);
    expect(exit.code, exit.stdout).toBe(0);
    expect(outputs.verdict, summary).toBe("regression");
    expect(summary).toContain("release-manager");
  });

  it("a fork PR on a self-hosted runner is refused before anything runs", { timeout: 60_000 }, async () => {
    const { exit, outputs } = await runDist(prJob(304, [], "outsider/serving"));
    expect(exit.code).toBe(1);
    expect(exit.stdout).toMatch(/refusing to run pull request #42 from the fork outsider\/serving/);
    expect(outputs.verdict).toBe("error");
    expect(fake.artifacts.some((a) => a.runId === 304 && a.name === "vllm-perf-gate-results")).toBe(false);
  });
});
