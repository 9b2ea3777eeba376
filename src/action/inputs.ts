import { isAbsolute } from "node:path";
import * as core from "@actions/core";
import { type ActionInputs, actionModes, failOnPolicies } from "../app/gate/inputs.js";
import { configLimits } from "../config/limits.js";
import { parseHistoryInputs } from "./history-inputs.js";

/**
 * The action's inputs, read the way the runner passes them (INPUT_<NAME> env, via @actions/core) and
 * checked here so a typo fails the step with a message naming the input and what it accepts. Defaults
 * mirror action.yml, so the step behaves the same when run outside the runner (tests, local-action).
 */

export type { ActionInputs } from "../app/gate/inputs.js";

const inputDefaults = {
  config: "vllm-perf-gate.yml",
  mode: "auto",
  "baseline-artifact": "vllm-perf-gate-baseline",
  "override-label": "perf-regression-accepted",
  comment: "true",
  "artifact-name": "vllm-perf-gate-results",
  "allow-fork-prs": "false",
  "working-directory": ".",
} as const;

class ActionInputError extends Error {
  override readonly name = "ActionInputError";
}

export interface InputSource {
  getInput(name: string): string;
}

const runnerInputs: InputSource = { getInput: (name) => core.getInput(name) };

// Artifact names may not contain these (upload-artifact's validation) and GitHub caps them at 256.
const forbiddenArtifactCharacters = /["\\:<>|*?\r\n/]/;

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ActionInputError(`input ${name}: expected one of ${allowed.join(" | ")}, got "${value}"`);
}

/** Same accepted spellings as core.getBooleanInput (YAML 1.2 core schema), with our default when empty. */
function boolean(name: string, value: string): boolean {
  if (["true", "True", "TRUE"].includes(value)) return true;
  if (["false", "False", "FALSE"].includes(value)) return false;
  throw new ActionInputError(`input ${name}: expected true or false (YAML 1.2 core schema), got "${value}"`);
}

function integer(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ActionInputError(
      `input ${name}: expected a whole number from ${min} to ${max}, got "${value}"`,
    );
  }
  return Number(value);
}

/** GPU-minutes: a number > 0 up to configLimits.budgetGpuMinutes (as gate.budget_gpu_minutes). */
function gpuMinutes(name: string, value: string): number {
  const minutes = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(minutes > 0) || minutes > configLimits.budgetGpuMinutes)
    throw new ActionInputError(
      `input ${name}: expected GPU-minutes, a number > 0 and at most ${configLimits.budgetGpuMinutes} (configLimits.budgetGpuMinutes), got "${value}"`,
    );
  return minutes;
}

function artifactName(name: string, value: string): string {
  if (value.length === 0 || value.length > 200 || forbiddenArtifactCharacters.test(value)) {
    throw new ActionInputError(
      `input ${name}: expected an artifact name of 1-200 characters without " : < > | * ? \\ / or newlines, got "${value}"`,
    );
  }
  return value;
}

function workflowFile(value: string): string | null {
  if (!value) return null;
  const name = value.replace(/^\.github\/workflows\//, "");
  if (!/^[\w.-]+\.ya?ml$/.test(name)) {
    throw new ActionInputError(
      `input baseline-workflow: expected a workflow file name such as bench.yml, got "${value}"`,
    );
  }
  return name;
}

export function parseActionInputs(source: InputSource = runnerInputs): ActionInputs {
  const read = (name: string): string => source.getInput(name).trim();
  const withDefault = (name: keyof typeof inputDefaults): string => read(name) || inputDefaults[name];
  const cellsText = read("cells");
  const cells = cellsText
    ? cellsText
        .split(/[\s,]+/)
        .map((cell) => cell.trim())
        .filter(Boolean)
    : null;
  for (const cell of cells ?? []) {
    if (!/^[a-z0-9][a-z0-9_.-]*$/.test(cell)) {
      throw new ActionInputError(
        `input cells: expected cell names separated by commas or newlines, got "${cell}"`,
      );
    }
  }
  const failOn = read("fail-on");
  const retention = read("retention-days");
  const maxRuns = read("max-runs");
  const budget = read("budget");
  const overrideLabel = read("override-label");
  const calibration = read("calibration").trim();
  if (calibration && (isAbsolute(calibration) || calibration.split(/[\\/]/).includes("..")))
    throw new ActionInputError(
      `input calibration: expected a path relative to working-directory without "..", got "${calibration}"`,
    );
  return {
    config: withDefault("config"),
    mode: oneOf("mode", withDefault("mode"), actionModes),
    githubToken: read("github-token"),
    baselineArtifact: artifactName("baseline-artifact", withDefault("baseline-artifact")),
    baselinePath: read("baseline-path") || null,
    baselineWorkflow: workflowFile(read("baseline-workflow")),
    failOn: failOn ? oneOf("fail-on", failOn, failOnPolicies) : null,
    // Unset and empty look the same to a step, so disabling takes an explicit word.
    overrideLabel: overrideLabel === "none" ? null : overrideLabel || inputDefaults["override-label"],
    comment: boolean("comment", withDefault("comment")),
    artifactName: artifactName("artifact-name", withDefault("artifact-name")),
    retentionDays: retention ? integer("retention-days", retention, 1, 90) : null,
    cells: cells && cells.length > 0 ? cells : null,
    maxRuns: maxRuns ? integer("max-runs", maxRuns, 1, 1000) : null,
    budget: budget ? gpuMinutes("budget", budget) : null,
    allowForkPrs: boolean("allow-fork-prs", withDefault("allow-fork-prs")),
    workingDirectory: withDefault("working-directory"),
    calibration: calibration || null,
    history: parseHistoryInputs(read, (message) => {
      throw new ActionInputError(message);
    }),
  };
}
