import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { branchOfRef, readActionContext, workflowFileFromRef } from "../../src/github/context.js";
import { pullRequestPayload, pushPayload } from "../action/payloads.js";

async function envFor(event: string, payload: object, extra: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), "context-"));
  const eventPath = join(dir, "event.json");
  await writeFile(eventPath, JSON.stringify(payload));
  return {
    GITHUB_REPOSITORY: "acme/serving",
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: "c".repeat(40),
    GITHUB_REF: "refs/heads/main",
    GITHUB_RUN_ID: "42",
    GITHUB_WORKFLOW_REF: "acme/serving/.github/workflows/bench.yml@refs/heads/main",
    ...extra,
  };
}

describe("readActionContext", () => {
  it("reads a push event", async () => {
    const env = await envFor(
      "push",
      pushPayload({ owner: "acme", repo: "serving", sha: "a".repeat(40), before: "9".repeat(40) }),
    );
    const context = readActionContext(env);
    expect(context).toMatchObject({
      owner: "acme",
      repo: "serving",
      runId: 42,
      runAttempt: 1,
      workflowFile: "bench.yml",
      defaultBranch: "main",
      pullRequest: null,
      apiUrl: "https://api.github.com",
      runnerEnvironment: null,
    });
  });

  it("reads a same-repository and a fork pull request", async () => {
    const same = readActionContext(
      await envFor(
        "pull_request",
        pullRequestPayload({
          owner: "acme",
          repo: "serving",
          number: 3,
          baseSha: "a".repeat(40),
          headSha: "b".repeat(40),
          labels: ["x"],
        }),
      ),
    );
    expect(same.pullRequest).toEqual({
      number: 3,
      baseRef: "main",
      baseSha: "a".repeat(40),
      headSha: "b".repeat(40),
      headRepoFullName: "acme/serving",
      fromFork: false,
      labels: ["x"],
    });
    const fork = readActionContext(
      await envFor(
        "pull_request",
        pullRequestPayload({
          owner: "acme",
          repo: "serving",
          number: 4,
          baseSha: "a".repeat(40),
          headSha: "b".repeat(40),
          headRepo: "eve/serving",
        }),
        { RUNNER_ENVIRONMENT: "self-hosted" },
      ),
    );
    expect(fork.pullRequest?.fromFork).toBe(true);
    expect(fork.runnerEnvironment).toBe("self-hosted");
  });

  it("treats a PR whose head repository was deleted as a fork", async () => {
    const payload = pullRequestPayload({
      owner: "acme",
      repo: "serving",
      number: 5,
      baseSha: "a".repeat(40),
      headSha: "b".repeat(40),
    });
    (payload.pull_request.head as { repo: unknown }).repo = null;
    expect(readActionContext(await envFor("pull_request", payload)).pullRequest?.fromFork).toBe(true);
  });

  it("names the missing variable and the bad payload field", async () => {
    expect(() => readActionContext({})).toThrow("environment variable GITHUB_REPOSITORY is not set");
    const env = await envFor("pull_request", { pull_request: { number: "seven" } });
    expect(() => readActionContext(env)).toThrow(
      /event\.json: unexpected event payload at pull_request\.number/,
    );
  });

  it("parses workflow refs and branch refs", () => {
    expect(workflowFileFromRef("o/r/.github/workflows/perf gate.yaml@refs/pull/1/merge")).toBe(
      "perf gate.yaml",
    );
    expect(workflowFileFromRef(undefined)).toBeNull();
    expect(branchOfRef("refs/heads/release/1.2")).toBe("release/1.2");
    expect(branchOfRef("refs/tags/v1")).toBeNull();
  });
});
