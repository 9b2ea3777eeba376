import type { HistoryInputs } from "./history-inputs.js";

/**
 * What a job of the action was asked to do: the inputs of action.yml, already checked
 * (src/action/inputs.ts reads and checks them; the use case only sees this shape).
 */

export const actionModes = ["auto", "gate", "baseline", "aggregate", "interleaved", "calibrate"] as const;
type ActionMode = (typeof actionModes)[number];
export const failOnPolicies = ["regression", "inconclusive", "never"] as const;
export type FailOnPolicy = (typeof failOnPolicies)[number];

export interface ActionInputs {
  config: string;
  mode: ActionMode;
  githubToken: string;
  baselineArtifact: string;
  baselinePath: string | null;
  /** Workflow file whose runs hold the baseline; null: the running workflow. */
  baselineWorkflow: string | null;
  /** null: the config's gate.fail_on decides. */
  failOn: FailOnPolicy | null;
  /** null: no override label (input `none`). */
  overrideLabel: string | null;
  comment: boolean;
  artifactName: string;
  retentionDays: number | null;
  /** null: every cell of the config. */
  cells: string[] | null;
  maxRuns: number | null;
  /** GPU-minutes one pull request may spend (input `budget`); null: the config's gate.budget_gpu_minutes. */
  budget?: number | null;
  allowForkPrs: boolean;
  workingDirectory: string;
  /** A calibration file relative to workingDirectory (input calibration); null or absent: none. */
  calibration?: string | null;
  /** Main's history (history-* inputs); absent (tests that build inputs by hand): no history. */
  history?: HistoryInputs;
}
