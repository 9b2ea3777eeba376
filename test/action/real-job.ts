import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { ActionDependencies } from "../../src/app/gate/dependencies.js";
import { FakeGitHub } from "../github/fake-github.js";
import { type JobEnvironment, workflowToken } from "./harness.js";

/**
 * The setting of an end-to-end test of the action with its real steps (runner, simulator, compare) against
 * the fake GitHub: the fake API and results service started once per file, a temporary workspace and job
 * summary, the environment variables the toolkit reads, and the action's modules imported after them
 * (they read the variables when loaded). Registers its own beforeAll/afterAll.
 */
export interface RealActionJob {
  fake: FakeGitHub;
  /** What runJob needs (harness.ts). */
  environment(): JobEnvironment;
  /** The action's real dependencies, at a fixed clock; a test may replace any of them. */
  dependencies(overrides?: Partial<ActionDependencies>): ActionDependencies;
}

export function useRealActionJob(tempPrefix: string): RealActionJob {
  const fake = new FakeGitHub();
  let root = "";
  let workspace = "";
  let summaryFile = "";
  let runnerIO: typeof import("../../src/action/action-io.js").runnerIO;
  let steps: typeof import("../../src/action/run-from-environment.js");
  let artifactStoreModule: typeof import("../../src/github/artifact-store.js");
  let clientModule: typeof import("../../src/github/client.js");
  let defaults: typeof import("../../src/action/default-dependencies.js");

  beforeAll(async () => {
    const baseUrl = await fake.start();
    process.env.GITHUB_API_URL = baseUrl;
    process.env.ACTIONS_RESULTS_URL = baseUrl;
    delete process.env.GITHUB_SERVER_URL;
    fake.users.set(workflowToken, { login: "github-actions[bot]", type: "Bot", installation: true });
    root = await mkdtemp(join(tmpdir(), tempPrefix));
    workspace = join(root, "workspace");
    await mkdir(workspace);
    summaryFile = join(root, "summary.md");
    await writeFile(summaryFile, "");
    process.env.GITHUB_STEP_SUMMARY = summaryFile;
    ({ runnerIO } = await import("../../src/action/action-io.js"));
    steps = await import("../../src/action/run-from-environment.js");
    artifactStoreModule = await import("../../src/github/artifact-store.js");
    clientModule = await import("../../src/github/client.js");
    defaults = await import("../../src/action/default-dependencies.js");
  });

  afterAll(async () => {
    await fake.stop();
    await rm(root, { recursive: true, force: true });
    process.exitCode = undefined;
  });

  return {
    fake,
    environment: () => ({ fake, root, workspace, summaryFile, io: runnerIO, runMainStep: steps.runMainStep }),
    dependencies: (overrides = {}) => ({
      measure: defaults.measureWithRunner,
      compare: defaults.compareWithStatistics,
      cleanupServers: defaults.cleanupRecordedServers,
      github: clientModule.createGitHubClient,
      artifacts: (context) => new artifactStoreModule.GitHubArtifactStore(context),
      now: () => new Date("2026-11-30T04:00:00Z"),
      ...overrides,
    }),
  };
}
