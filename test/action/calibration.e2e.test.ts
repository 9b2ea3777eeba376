import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActionDependencies } from "../../src/app/gate/dependencies.js";
import { calibrateFromRuns, calibrationFileSchema } from "../../src/compare/calibration/calibration.js";
import { settingsFromConfig, verdictFileSchema } from "../../src/compare/index.js";
import { loadRuns } from "../../src/compare/inputs/load.js";
import { parseConfigText } from "../../src/config/load.js";
import { FakeGitHub } from "../github/fake-github.js";
import { createFileMeasure, testConfig, writeRun } from "./fixtures.js";
import { type Job, runJob as runJobIn, workflowToken } from "./harness.js";
import { pullRequestEvent, pushPayload } from "./payloads.js";

/**
 * The action's `calibration` input against the loopback GitHub API with the real compare: a stored-mode
 * gate takes the runner's calibration.json as its noise prior when it was measured under the baseline's
 * conditions, says why not when it was not, and refuses a broken file naming it and its field.
 */

const fake = new FakeGitHub();
const sha = (c: string) => c.repeat(40);
let root: string;
let workspace: string;
let summaryFile: string;
let runnerIO: typeof import("../../src/action/action-io.js").runnerIO;
let steps: typeof import("../../src/action/run-from-environment.js");
let artifactStoreModule: typeof import("../../src/github/artifact-store.js");
let clientModule: typeof import("../../src/github/client.js");
let defaults: typeof import("../../src/action/default-dependencies.js");

function deps(): ActionDependencies {
  return {
    measure: createFileMeasure([]),
    compare: defaults.compareWithStatistics,
    cleanupServers: async () => {},
    github: clientModule.createGitHubClient,
    artifacts: (context) => new artifactStoreModule.GitHubArtifactStore(context),
    now: () => new Date(Date.UTC(2026, 10, 1) + fake.runs.length * 3_600_000),
  };
}

const runJob = (job: Job) =>
  runJobIn({ fake, root, workspace, summaryFile, io: runnerIO, runMainStep: steps.runMainStep }, job, deps());

const pr = (runId: number, inputs: Record<string, string>): Job => ({
  runId,
  ...pullRequestEvent(fake, { number: 42, baseSha: sha("1"), headSha: sha("f"), mergeSha: sha("e") }),
  // Slightly slower runs than the baseline's (the file measure's runs of one scale are identical).
  config: testConfig(1.01),
  inputs: { mode: "gate", comment: "false", history: "off", ...inputs },
});

/** A calibration of the test config's runs (the file measure's run files, A and B alike). */
async function writeCalibration(name: string, conditions?: string): Promise<void> {
  const dir = await mkdtemp(join(root, "aa-"));
  for (const side of ["a", "b"])
    for (const cell of ["chat", "batch"])
      for (let k = 0; k < 4; k++) await writeRun(join(dir, side), cell, side === "a" ? k : k + 4, 1.0);
  const { config } = parseConfigText(testConfig(1.0), "vllm-perf-gate.yml", { env: {} });
  const file = calibrateFromRuns({
    a: await loadRuns([join(dir, "a")], "a"),
    b: await loadRuns([join(dir, "b")], "b"),
    settings: settingsFromConfig(config),
    resplits: 3,
    // Compare dates the verdict by the wall clock: a calibration of today is within
    // gate.noise_prior.max_age_days, so it draws no warning.
    now: new Date(),
  });
  await writeFile(join(workspace, name), JSON.stringify(conditions ? { ...file, conditions } : file));
}

/** The verdict.json written beside the report. */
async function verdictOf(reportPath: string) {
  return verdictFileSchema.parse(
    JSON.parse(await readFile(join(dirname(reportPath), "compare", "verdict.json"), "utf8")),
  );
}

beforeAll(async () => {
  const baseUrl = await fake.start();
  process.env.GITHUB_API_URL = baseUrl;
  process.env.ACTIONS_RESULTS_URL = baseUrl;
  delete process.env.GITHUB_SERVER_URL;
  fake.users.set(workflowToken, { login: "github-actions[bot]", type: "Bot", installation: true });
  root = await mkdtemp(join(tmpdir(), "calibration-e2e-"));
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
  const baseline = await runJob({
    runId: 800,
    event: "push",
    payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: sha("1"), before: sha("0") }),
    sha: sha("1"),
    ref: "refs/heads/main",
    config: testConfig(1.0),
    inputs: { history: "off" },
  });
  expect(baseline.result.verdict).toBe("baseline-recorded");
});

afterAll(async () => {
  await fake.stop();
  await rm(root, { recursive: true, force: true });
  process.exitCode = undefined;
});

describe("the calibration input", () => {
  it("is the gate's noise prior under the baseline's conditions; every gated check states what it catches", async () => {
    await writeCalibration("calibration.json");
    const { result } = await runJob(pr(801, { calibration: "calibration.json" }));
    const report = await readFile(result.reportPath!, "utf8");
    expect(result.verdict).toBe("pass");
    expect((await verdictOf(result.reportPath!)).warnings.join("\n")).not.toMatch(/calibration/);
    // The stored baseline's run-to-run sd was pooled with it, and the report names it with its age.
    expect(report).toMatch(
      /Noise basis: the run-to-run sd pooled with calibration calibration\.json of \d{4}-\d\d-\d\d, 0 days old/,
    );
    expect(report).toMatch(
      /Per check at 90% power, these runs catch: [^\n]*≥ −\d+\.\d% chat Output throughput/,
    );
  });

  it("is not used when measured under other conditions, and the report says so", async () => {
    await writeCalibration("other.json", "0123456789abcdef");
    const { result } = await runJob(pr(802, { calibration: "other.json" }));
    expect((await verdictOf(result.reportPath!)).warnings.join("\n")).toMatch(
      /calibration other\.json not used: it was measured under other conditions/,
    );
  });

  it("refuses a broken file, naming it and the field", async () => {
    await writeFile(
      join(workspace, "broken.json"),
      '{"schemaVersion": 1, "kind": "vllm-perf-gate-calibration"}',
    );
    const { result } = await runJob(pr(803, { calibration: "broken.json" }));
    expect(result.failed).toBe(true);
    expect(result.failureMessage).toMatch(/broken\.json: field createdAt/);
  });

  it("refuses a path outside the working directory", async () => {
    const { result } = await runJob(pr(804, { calibration: "../x.json" }));
    expect(result.failed).toBe(true);
    expect(result.failureMessage).toMatch(/input calibration: expected a path relative to working-directory/);
  });

  it("mode calibrate measures A and B alternately and writes calibration.json and the summary", async () => {
    const calls: { side: string | null; firstRun: number; runs: number | null }[] = [];
    const measure = createFileMeasure([]);
    const { result, summary, outputs } = await runJobIn(
      { fake, root, workspace, summaryFile, io: runnerIO, runMainStep: steps.runMainStep },
      {
        runId: 805,
        event: "workflow_dispatch",
        payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: sha("2"), before: sha("1") }),
        sha: sha("2"),
        ref: "refs/heads/main",
        config: testConfig(1.0, { min: 2, max: 3, block: 1 }),
        inputs: { mode: "calibrate", "max-runs": "3", history: "off" },
      },
      {
        ...deps(),
        measure: async (request) => {
          calls.push({ side: request.side, firstRun: request.firstRun, runs: request.runs });
          await measure(request);
        },
      },
    );
    expect(result.failed).toBe(false);
    expect(result.verdict).toBe("calibrated");
    expect(outputs.verdict).toBe("calibrated");
    // A B, B A, A B in blocks of 1 (repeats.block); a side's consecutive runs are one measure call.
    expect(calls.map((c) => `${c.side} ${c.firstRun}+${c.runs}`)).toEqual([
      "baseline 0+1",
      "candidate 0+2",
      "baseline 1+2",
      "candidate 2+1",
    ]);
    expect(summary).toContain("### vllm-perf-gate: A/A calibration of this runner");
    expect(summary).toMatch(/A\/A calibration: 3 runs per side/);
    const file = calibrationFileSchema.parse(
      JSON.parse(await readFile(join(dirname(result.reportPath!), "calibration.json"), "utf8")),
    );
    expect(file.runsPerSide).toBe(3);
    expect(file.cells.map((c) => c.cell).sort()).toEqual(["batch", "chat"]);
  });

  it("mode calibrate with history: artifact reads main's history from the newest baseline artifact", async () => {
    for (const [i, digit] of ["3", "4"].entries()) {
      const baseline = await runJob({
        runId: 810 + i,
        event: "push",
        payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: sha(digit), before: sha("2") }),
        sha: sha(digit),
        ref: "refs/heads/main",
        config: testConfig(1.0),
        inputs: { history: "artifact" },
      });
      expect(baseline.result.verdict).toBe("baseline-recorded");
    }
    const { result, summary } = await runJob({
      runId: 812,
      event: "workflow_dispatch",
      payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: sha("5"), before: sha("4") }),
      sha: sha("5"),
      ref: "refs/heads/main",
      config: testConfig(1.0, { min: 2, max: 3, block: 1 }),
      inputs: { mode: "calibrate", "max-runs": "3", history: "artifact" },
    });
    expect(result.verdict).toBe("calibrated");
    // The newest baseline artifact (run 811) carries both sessions: 810's, carried forward, and its own.
    expect(summary).toContain(
      "Between-session drift from 2 session(s) of main's history (`artifact file vllm-perf-gate-history.jsonl`).",
    );
    const file = calibrationFileSchema.parse(
      JSON.parse(await readFile(join(dirname(result.reportPath!), "calibration.json"), "utf8")),
    );
    expect(file.cells[0]!.metrics.find((m) => m.metric === "ttft_p95")!.drift?.sessions).toBe(3);
  });

  it("mode calibrate with history: off records no drift and says so", async () => {
    const { result, summary } = await runJob({
      runId: 813,
      event: "workflow_dispatch",
      payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: sha("5"), before: sha("4") }),
      sha: sha("5"),
      ref: "refs/heads/main",
      config: testConfig(1.0, { min: 2, max: 3, block: 1 }),
      inputs: { mode: "calibrate", "max-runs": "3", history: "off" },
    });
    expect(result.verdict).toBe("calibrated");
    expect(summary).toContain("Between-session drift: none (history: off).");
  });
});
