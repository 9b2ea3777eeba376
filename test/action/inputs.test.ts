import { describe, expect, it } from "vitest";
import { parseActionInputs } from "../../src/action/inputs.js";

const from = (values: Record<string, string>) => ({ getInput: (name: string) => values[name] ?? "" });

describe("parseActionInputs", () => {
  it("applies action.yml's defaults to unset inputs", () => {
    expect(parseActionInputs(from({}))).toEqual({
      config: "vllm-perf-gate.yml",
      mode: "auto",
      githubToken: "",
      baselineArtifact: "vllm-perf-gate-baseline",
      baselinePath: null,
      baselineWorkflow: null,
      failOn: null,
      overrideLabel: "perf-regression-accepted",
      comment: true,
      artifactName: "vllm-perf-gate-results",
      retentionDays: null,
      cells: null,
      maxRuns: null,
      budget: null,
      allowForkPrs: false,
      workingDirectory: ".",
      calibration: null,
      history: {
        store: "branch",
        branch: "perf-history",
        path: "vllm-perf-gate/history.jsonl",
        sessions: 20,
        window: 60,
        mainRegressed: "pass",
        changePoints: "report",
        changePointIssue: null,
      },
    });
  });

  it("reads the history inputs and refuses bad ones naming the input", () => {
    const inputs = parseActionInputs(
      from({
        history: "artifact",
        "history-branch": "bench/history",
        "history-path": "h.jsonl",
        "history-sessions": "8",
        "history-window": "80",
        "history-main-regressed": "block",
        "history-change-points": "fail",
        "history-change-point-issue": "77",
      }),
    );
    expect(inputs.history).toEqual({
      store: "artifact",
      branch: "bench/history",
      path: "h.jsonl",
      sessions: 8,
      window: 80,
      mainRegressed: "block",
      changePoints: "fail",
      changePointIssue: 77,
    });
    expect(() => parseActionInputs(from({ "history-change-point-issue": "#77" }))).toThrow(
      'input history-change-point-issue: expected a whole number from 1 to 2147483647, got "#77"',
    );
    expect(() => parseActionInputs(from({ calibration: "/etc/cal.json" }))).toThrow(
      /input calibration: expected a path relative to working-directory/,
    );
    expect(() => parseActionInputs(from({ history: "gh-pages" }))).toThrow(
      'input history: expected one of branch | artifact | off, got "gh-pages"',
    );
    expect(() => parseActionInputs(from({ "history-branch": "../x" }))).toThrow(
      /input history-branch: expected a branch name/,
    );
    expect(() => parseActionInputs(from({ "history-path": "../secrets" }))).toThrow(
      /input history-path: expected a relative file path/,
    );
    expect(() => parseActionInputs(from({ "history-sessions": "1" }))).toThrow(
      'input history-sessions: expected a whole number from 2 to 200, got "1"',
    );
    expect(() => parseActionInputs(from({ "history-main-regressed": "maybe" }))).toThrow(
      /input history-main-regressed/,
    );
  });

  it("reads every input", () => {
    const inputs = parseActionInputs(
      from({
        config: "perf/gate.yml",
        mode: "interleaved",
        "github-token": "t",
        "baseline-artifact": "base",
        "baseline-path": "old-results",
        "baseline-workflow": ".github/workflows/baseline-on-main.yml",
        "fail-on": "inconclusive",
        "override-label": "none",
        comment: "FALSE",
        "artifact-name": "evidence",
        "retention-days": "14",
        cells: "chat, batch\nlong-doc",
        "max-runs": "8",
        budget: "60.5",
        "allow-fork-prs": "True",
        "working-directory": "serving",
      }),
    );
    expect(inputs).toMatchObject({
      mode: "interleaved",
      baselinePath: "old-results",
      baselineWorkflow: "baseline-on-main.yml",
      failOn: "inconclusive",
      overrideLabel: null,
      comment: false,
      retentionDays: 14,
      cells: ["chat", "batch", "long-doc"],
      maxRuns: 8,
      budget: 60.5,
      allowForkPrs: true,
    });
  });

  it.each([
    [
      "mode",
      "fast",
      'input mode: expected one of auto | gate | baseline | aggregate | interleaved | calibrate, got "fast"',
    ],
    ["comment", "yes", 'input comment: expected true or false (YAML 1.2 core schema), got "yes"'],
    ["allow-fork-prs", "1", 'input allow-fork-prs: expected true or false (YAML 1.2 core schema), got "1"'],
    ["fail-on", "always", 'input fail-on: expected one of regression | inconclusive | never, got "always"'],
    ["retention-days", "91", 'input retention-days: expected a whole number from 1 to 90, got "91"'],
    ["max-runs", "2.5", 'input max-runs: expected a whole number from 1 to 1000, got "2.5"'],
    [
      "budget",
      "0",
      'input budget: expected GPU-minutes, a number > 0 and at most 10080 (configLimits.budgetGpuMinutes), got "0"',
    ],
    [
      "budget",
      "1h",
      'input budget: expected GPU-minutes, a number > 0 and at most 10080 (configLimits.budgetGpuMinutes), got "1h"',
    ],
    [
      "baseline-workflow",
      "../x",
      'input baseline-workflow: expected a workflow file name such as bench.yml, got "../x"',
    ],
    ["cells", "Chat", 'input cells: expected cell names separated by commas or newlines, got "Chat"'],
  ])("rejects %s=%s", (name, value, message) => {
    expect(() => parseActionInputs(from({ [name]: value }))).toThrow(message);
  });

  it("rejects artifact names GitHub would refuse", () => {
    expect(() => parseActionInputs(from({ "artifact-name": "a/b" }))).toThrow(
      /input artifact-name: expected an artifact name/,
    );
  });
});
