import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { isGroupAlive } from "../../src/server/process-group.js";
import { FakeGitHub, runtimeToken } from "../github/fake-github.js";
import { workflowToken } from "./harness.js";
import { pushPayload } from "./payloads.js";

/**
 * The action's main step (src/action/main.ts, run from source as its own process) cancelled the way a
 * runner cancels a job: SIGTERM while it measures. It must write the interrupted run, stop its simulator
 * itself and exit 143, leaving nothing for the post step to find.
 */

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const fake = new FakeGitHub();
let root: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  await fake.start();
  fake.users.set(workflowToken, { login: "github-actions[bot]", type: "Bot", installation: true });
  root = await mkdtemp(join(tmpdir(), "action-main-signals-"));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await fake.stop();
  await rm(root, { recursive: true, force: true });
});

const config = `version: 1
server: { kind: sim, startup_timeout_s: 60 }
model: { name: sim-model }
cells:
  - name: chat
    dataset: { type: synthetic, input_tokens: 16, output_tokens: 400 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 2000 }
    warmup: { requests: 0 }
repeats: { min: 3, max: 3 }
`;

async function until<T>(
  what: string,
  probe: () => T | undefined,
  timeoutMs: number,
  context: () => string = () => "",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function findFiles(dir: string, name: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name === name)
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("the action's main step under SIGTERM", () => {
  it("writes the interrupted run, stops its simulator and exits 143", { timeout: 120_000 }, async () => {
    const runId = 700;
    const backendId = `backend-${runId}`;
    fake.runs.push({
      id: runId,
      head_sha: "a".repeat(40),
      head_branch: "main",
      event: "push",
      conclusion: "failure",
      workflowFile: "bench.yml",
      created_at: new Date(Date.UTC(2026, 10, 1)).toISOString(),
      backendId,
    });
    const workspace = join(root, "workspace");
    const jobDir = join(root, "job");
    await mkdir(workspace, { recursive: true });
    await mkdir(jobDir, { recursive: true });
    await writeFile(join(workspace, "vllm-perf-gate.yml"), config);
    const files = {
      output: join(jobDir, "output"),
      state: join(jobDir, "state"),
      event: join(jobDir, "event.json"),
      summary: join(jobDir, "summary.md"),
    };
    const mainSha = "a".repeat(40);
    await Promise.all([
      writeFile(files.output, ""),
      writeFile(files.state, ""),
      writeFile(files.summary, ""),
      writeFile(
        files.event,
        JSON.stringify(
          pushPayload({ owner: fake.owner, repo: fake.repo, sha: mainSha, before: "9".repeat(40) }),
        ),
      ),
    ]);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GITHUB_ACTIONS: "true",
      GITHUB_API_URL: fake.baseUrl,
      GITHUB_GRAPHQL_URL: `${fake.baseUrl}/graphql`,
      ACTIONS_RESULTS_URL: fake.baseUrl,
      ACTIONS_RUNTIME_TOKEN: runtimeToken(backendId, "job-1"),
      GITHUB_EVENT_NAME: "push",
      GITHUB_EVENT_PATH: files.event,
      GITHUB_SHA: mainSha,
      GITHUB_REF: "refs/heads/main",
      GITHUB_REPOSITORY: `${fake.owner}/${fake.repo}`,
      GITHUB_REPOSITORY_OWNER: fake.owner,
      GITHUB_RUN_ID: String(runId),
      GITHUB_RUN_ATTEMPT: "1",
      GITHUB_WORKFLOW_REF: `${fake.owner}/${fake.repo}/.github/workflows/bench.yml@refs/heads/main`,
      GITHUB_WORKSPACE: workspace,
      GITHUB_OUTPUT: files.output,
      GITHUB_STATE: files.state,
      GITHUB_STEP_SUMMARY: files.summary,
      RUNNER_TEMP: jobDir,
      RUNNER_OS: "Linux",
      RUNNER_NAME: "gpu-runner-1",
      RUNNER_ENVIRONMENT: "self-hosted",
      "INPUT_GITHUB-TOKEN": workflowToken,
    };
    const main = spawn(
      process.execPath,
      ["--import", import.meta.resolve("tsx"), join(repoRoot, "src/action/main.ts")],
      {
        env,
        cwd: workspace,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    children.push(main);
    let output = "";
    main.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    main.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => main.once("exit", (code) => resolve(code)));

    // The server state file names the simulator's process group, as the post step would read it.
    let stateFile = "";
    const group = await until(
      "the simulator in the state file",
      () => {
        stateFile = findFiles(jobDir, "servers.json")[0] ?? "";
        if (!stateFile) return undefined;
        const state = JSON.parse(readFileSync(stateFile, "utf8")) as { servers: { processGroup?: number }[] };
        return state.servers[0]?.processGroup;
      },
      60_000,
      () => output,
    );
    await until(
      "finished requests",
      () => {
        const logs = findFiles(jobDir, "requests.jsonl");
        return logs.length > 0 && readFileSync(logs[0]!, "utf8").split("\n").length > 4 ? true : undefined;
      },
      60_000,
    );
    main.kill("SIGTERM");
    expect(await exited, output).toBe(143);
    await until("the simulator to be gone", () => (isGroupAlive(group) ? undefined : true), 15_000);
    expect(output).toMatch(/SIGTERM: stopping the measurement and the servers/);
    expect(output).toMatch(/::error::vllm-perf-gate: interrupted by SIGTERM/);
    // Stopped by the main step itself: nothing is left for the post step.
    const state = JSON.parse(readFileSync(stateFile, "utf8")) as { servers: unknown[] };
    expect(state.servers).toEqual([]);
    const runFiles = findFiles(jobDir, "run.json").map((path) =>
      runFileSchema.parse(JSON.parse(readFileSync(path, "utf8"))),
    );
    expect(runFiles.map((file) => file.flags.interrupted)).toEqual(["SIGTERM"]);
  });
});
