import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActionDependencies, Measure } from "../../src/app/gate/dependencies.js";
import { listFilesRecursively } from "../../src/github/files.js";
import { FakeGitHub } from "../github/fake-github.js";
import { expectNoPlantedSecret, plantedSecret } from "../secret-forms.js";
import { createFileMeasure, testConfig } from "./fixtures.js";
import { runJob as runJobIn, workflowToken } from "./harness.js";
import { pullRequestPayload, pushPayload } from "./payloads.js";

/**
 * The action's publish path with the real compare: a secret read by the config through `${DEPLOY_REF}`
 * (a name the credential-looking safety net does not match) reaches the candidate's run files (an older
 * version recorded it in the fingerprint; the server echoed it into a note and its log). The PR comment,
 * the job summary, the report file, verdict.json, report.md, report.html and its charts and every
 * uploaded file must not hold it, in any form escaping gives it.
 */

const secret = plantedSecret;
const expectClean = expectNoPlantedSecret;

const fake = new FakeGitHub();
const sha = (c: string) => c.repeat(40);
const mainSha = sha("a");
const PR = 31;
let root: string;
let workspace: string;
let summaryFile: string;
let snapshots: string;
let uploads = 0;
let runnerIO: typeof import("../../src/action/action-io.js").runnerIO;
let steps: typeof import("../../src/action/run-from-environment.js");
let artifactStoreModule: typeof import("../../src/github/artifact-store.js");
let clientModule: typeof import("../../src/github/client.js");
let defaults: typeof import("../../src/action/default-dependencies.js");

/** The sim config the tests use, with the revision and a request field read from the environment. */
const config = testConfig(1.0).replace(
  "model:\n  name: test-model\n",
  'model:\n  name: test-model\n  revision: "${DEPLOY_REF}"\nsampling:\n  extra_body: { user: "${DEPLOY_REF}" }\n',
);

/** Runs as the runner writes them, plus the secret where an older version or a server put it. */
const leakyMeasure: Measure = async (request) => {
  await createFileMeasure()(request);
  for (const file of await listFilesRecursively(request.resultsDir)) {
    if (file.endsWith("run.json")) {
      const run = JSON.parse(await readFile(file, "utf8")) as {
        fingerprint: Record<string, unknown>;
        flags: { notes: string[] };
      };
      run.fingerprint["model.revision"] = secret;
      run.flags.notes = [`server said: ${secret}`];
      await writeFile(file, JSON.stringify(run, null, 2));
    }
    if (file.endsWith("server.log")) {
      await writeFile(file, `--revision ${secret}\n${JSON.stringify({ revision: secret })}\n`);
    }
  }
};

function deps(measure: Measure): ActionDependencies {
  return {
    measure,
    compare: defaults.compareWithStatistics,
    cleanupServers: async () => {},
    github: clientModule.createGitHubClient,
    // What is uploaded is kept as it was at upload time, to be searched afterwards.
    artifacts: (context) => {
      const store = new artifactStoreModule.GitHubArtifactStore(context);
      return {
        listCurrentRun: () => store.listCurrentRun(),
        download: (artifact, destination) => store.download(artifact, destination),
        async upload(name, dir, options) {
          await cp(dir, join(snapshots, `${uploads++}-${name}`), { recursive: true });
          return store.upload(name, dir, options);
        },
      };
    },
    now: () => new Date("2026-11-30T04:00:00Z"),
  };
}

beforeAll(async () => {
  const baseUrl = await fake.start();
  process.env.GITHUB_API_URL = baseUrl;
  process.env.ACTIONS_RESULTS_URL = baseUrl;
  delete process.env.GITHUB_SERVER_URL;
  fake.users.set(workflowToken, { login: "github-actions[bot]", type: "Bot", installation: true });
  root = await mkdtemp(join(tmpdir(), "action-secrets-"));
  workspace = join(root, "workspace");
  snapshots = join(root, "uploaded");
  await mkdir(workspace);
  await mkdir(snapshots);
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

const environment = () => ({
  fake,
  root,
  workspace,
  summaryFile,
  io: runnerIO,
  runMainStep: steps.runMainStep,
});

/**
 * A baseline job, then a pull request's job whose runs hold the secret (leakyMeasure): the PR comment,
 * the job summary, the report file and every uploaded file hold no form of it.
 */
async function expectNothingPublished(
  config: string,
  env: Record<string, string>,
  runId: number,
  pr: number,
) {
  await runJobIn(
    environment(),
    {
      runId,
      event: "push",
      payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: mainSha, before: sha("9") }),
      sha: mainSha,
      ref: "refs/heads/main",
      config,
      env,
    },
    deps(createFileMeasure()),
  );
  const { result, outputs, summary } = await runJobIn(
    environment(),
    {
      runId: runId + 1,
      event: "pull_request",
      payload: pullRequestPayload({
        owner: fake.owner,
        repo: fake.repo,
        number: pr,
        baseSha: mainSha,
        headSha: sha("b"),
      }),
      sha: sha("c"),
      ref: `refs/pull/${pr}/merge`,
      config,
      env,
    },
    deps(leakyMeasure),
  );
  expect(result.verdict, result.failureMessage ?? "").not.toBe("error");
  const comment = fake.commentsOn(pr)[0]?.body ?? "";
  expect(comment).toContain("vllm-perf-gate");
  expectClean("the PR comment", comment);
  expectClean("the job summary", summary);
  expectClean("the report file", await readFile(outputs["report-path"] ?? "", "utf8"));
  // The difference is still reported, its value replaced before it was escaped.
  expect(comment).toContain("- model.revision: – (baseline) vs \\*\\*\\* (candidate)");
  const uploaded = await listFilesRecursively(snapshots);
  const names = uploaded.map((file) => file.slice(snapshots.length + 1));
  expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/compare\/verdict\.json$/)]));
  expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/compare\/report\.md$/)]));
  expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/compare\/comment\.md$/)]));
  expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/compare\/report\.html$/)]));
  expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/compare\/report-charts\/.*\.svg$/)]));
  expect(names).toEqual(
    expect.arrayContaining([expect.stringMatching(/candidate\/chat\/run-0\/server\.log$/)]),
  );
  for (const file of uploaded) expectClean(file, await readFile(file, "utf8"));
}

/** A measuring step that fails quoting the secret: the failure message and the summary show `***`. */
async function expectErrorRedacted(config: string, env: Record<string, string>, runId: number) {
  const failing: Measure = async () => {
    throw new Error(`the server refused revision ${secret}`);
  };
  const { result, summary } = await runJobIn(
    environment(),
    {
      runId,
      event: "push",
      payload: pushPayload({ owner: fake.owner, repo: fake.repo, sha: mainSha, before: sha("9") }),
      sha: mainSha,
      ref: "refs/heads/main",
      config,
      env,
    },
    deps(failing),
  );
  expect(result.verdict).toBe("error");
  expect(result.failureMessage).toContain("the server refused revision ***");
  expectClean("the failure message", result.failureMessage ?? "");
  expect(summary).toContain("the server refused revision ***");
  expectClean("the error summary", summary);
}

describe("the action never publishes a value read through ${VAR}", () => {
  it("comment, summary, report file, verdict.json, report.md and uploaded evidence hold no form of it", async () => {
    await expectNothingPublished(config, { DEPLOY_REF: secret }, 600, PR);
  }, 120_000);

  it("an error that quotes a config value is redacted in the failure message and the summary", async () => {
    await expectErrorRedacted(config, { DEPLOY_REF: secret }, 602);
  }, 60_000);
});

/**
 * The server's API key read through `server.api_key_env` from a variable whose name does not look like a
 * credential, echoed by a misbehaving server or proxy into a run note, its log and an error message.
 */
const keyConfig = testConfig(1.0).replace(
  "  profile: small-gpu\n",
  "  profile: small-gpu\n  api_key_env: SERVE_KEY\n",
);

describe("the action never publishes the key server.api_key_env names", () => {
  it("comment, summary, report file and uploaded evidence hold no form of it", async () => {
    expect(keyConfig).toContain("api_key_env: SERVE_KEY");
    await expectNothingPublished(keyConfig, { SERVE_KEY: secret }, 610, PR + 1);
  }, 120_000);

  it("an error that quotes it is redacted in the failure message and the summary", async () => {
    await expectErrorRedacted(keyConfig, { SERVE_KEY: secret }, 612);
  }, 60_000);
});
