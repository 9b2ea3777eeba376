/**
 * The runner-facing side effects of a step, behind one seam. `runnerIO` (src/action/action-io.ts) is
 * @actions/core itself (which writes GITHUB_OUTPUT, GITHUB_STATE and GITHUB_STEP_SUMMARY): end-to-end
 * tests use it with real files.
 */
export interface ActionIO {
  info(message: string): void;
  notice(message: string): void;
  warning(message: string): void;
  error(message: string): void;
  setOutput(name: string, value: string): void;
  saveState(name: string, value: string): void;
  getState(name: string): string;
  setSecret(value: string): void;
  appendSummary(markdown: string): Promise<void>;
}

export const outputNames = {
  verdict: "verdict",
  reportPath: "report-path",
  resultsDir: "results-dir",
  commentUrl: "comment-url",
  baselineSha: "baseline-sha",
} as const;

/** Keys shared by main (saveState) and post (getState). */
export const stateKeys = {
  workDir: "work-dir",
  evidenceDir: "evidence-dir",
  evidenceArtifact: "evidence-artifact",
  retentionDays: "retention-days",
  uploaded: "evidence-uploaded",
  serverStateFile: "server-state-file",
  token: "token-present",
} as const;
