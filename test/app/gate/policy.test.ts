import { describe, expect, it } from "vitest";
import type { ActionInputs } from "../../../src/action/inputs.js";
import { parseActionInputs } from "../../../src/action/inputs.js";
import { guardForkPullRequest } from "../../../src/app/gate/fork-guard.js";
import { partArtifactName } from "../../../src/app/gate/orchestrator.js";
import { planRun } from "../../../src/app/gate/plan.js";
import { decideFailure } from "../../../src/app/gate/publish.js";
import type { ActionContext } from "../../../src/github/context.js";

const inputs = (values: Record<string, string> = {}): ActionInputs =>
  parseActionInputs({ getInput: (n) => values[n] ?? "" });

const context = (overrides: Partial<ActionContext> = {}): ActionContext => ({
  eventName: "push",
  owner: "acme",
  repo: "serving",
  sha: "a".repeat(40),
  ref: "refs/heads/main",
  runId: 1,
  runAttempt: 1,
  workflowFile: "bench.yml",
  defaultBranch: "main",
  serverUrl: "https://github.com",
  apiUrl: "https://api.github.com",
  graphqlUrl: "https://api.github.com/graphql",
  runnerEnvironment: "self-hosted",
  pullRequest: null,
  ...overrides,
});

const pr = (fromFork: boolean) => ({
  number: 9,
  baseRef: "main",
  baseSha: "b".repeat(40),
  headSha: "c".repeat(40),
  headRepoFullName: fromFork ? "eve/serving" : "acme/serving",
  fromFork,
  labels: [],
});

describe("planRun", () => {
  it("auto records a baseline on the default branch, gates PRs interleaved and other branches stored", () => {
    expect(planRun(inputs(), context())).toMatchObject({
      role: "baseline",
      source: "measure",
      partial: false,
    });
    expect(planRun(inputs(), context({ eventName: "schedule" })).role).toBe("baseline");
    expect(planRun(inputs(), context({ ref: "refs/heads/feature" }))).toMatchObject({
      role: "gate",
      baseBranch: "main",
      baseSha: null,
    });
    expect(planRun(inputs(), context({ ref: "refs/heads/feature" }))).toMatchObject({
      source: "measure",
      fallbackToStored: false,
    });
    expect(planRun(inputs(), context({ eventName: "pull_request", pullRequest: pr(false) }))).toMatchObject({
      role: "gate",
      source: "interleaved",
      fallbackToStored: true,
      baseBranch: "main",
      baseSha: "b".repeat(40),
    });
  });

  it("a PR with a local baseline-path, or mode gate, compares with the stored baseline", () => {
    const prContext = context({ eventName: "pull_request", pullRequest: pr(false) });
    expect(planRun(inputs({ "baseline-path": "perf/base" }), prContext)).toMatchObject({
      role: "gate",
      source: "measure",
    });
    expect(planRun(inputs({ mode: "gate" }), prContext)).toMatchObject({ role: "gate", source: "measure" });
    // An explicit interleaved mode never falls back.
    expect(planRun(inputs({ mode: "interleaved" }), prContext)).toMatchObject({
      source: "interleaved",
      fallbackToStored: false,
    });
  });

  it("cells makes a partial job; aggregate never is one", () => {
    expect(planRun(inputs({ cells: "chat" }), context()).partial).toBe(true);
    expect(planRun(inputs({ cells: "chat", mode: "aggregate" }), context())).toMatchObject({
      partial: false,
      source: "aggregate",
    });
  });

  it("interleaved needs a pull request", () => {
    expect(() => planRun(inputs({ mode: "interleaved" }), context())).toThrow(
      "mode interleaved needs a pull_request event",
    );
  });
});

describe("fork guard", () => {
  it("refuses fork PRs on self-hosted runners only, unless allowed", () => {
    expect(() => guardForkPullRequest(context({ pullRequest: pr(true) }), false)).toThrow(
      /arbitrary|GPU host/,
    );
    expect(() => guardForkPullRequest(context({ pullRequest: pr(true) }), true)).not.toThrow();
    expect(() =>
      guardForkPullRequest(context({ pullRequest: pr(true), runnerEnvironment: "github-hosted" }), false),
    ).not.toThrow();
    expect(() => guardForkPullRequest(context({ pullRequest: pr(false) }), false)).not.toThrow();
  });
});

describe("decideFailure", () => {
  it.each([
    ["regression", 1, null, true],
    ["regression", 0, "never", false],
    ["inconclusive", 0, "regression", false],
    ["inconclusive", 0, "inconclusive", true],
    ["not-comparable", 0, "regression", false],
    ["not-comparable", 1, "regression", true],
    ["pass", 0, "inconclusive", false],
    ["error", 1, "never", true],
  ] as const)("%s (compare exit %i) with fail-on %s fails: %s", (verdict, exitCode, failOn, expected) => {
    expect(decideFailure({ verdict, exitCode }, failOn)).toBe(expected);
  });
});

describe("partArtifactName", () => {
  it("is stable for a cell set and stays short", () => {
    expect(partArtifactName("r", ["b", "a"])).toBe("r-part-a_b");
    const long = partArtifactName(
      "r",
      Array.from({ length: 30 }, (_, i) => `cell-${i}`),
    );
    expect(long).toMatch(/^r-part-[0-9a-f]{16}$/);
  });
});
