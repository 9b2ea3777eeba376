import * as core from "@actions/core";

/**
 * The runner-facing side effects of a step, behind one seam. `runnerIO` is @actions/core itself (which
 * writes GITHUB_OUTPUT, GITHUB_STATE and GITHUB_STEP_SUMMARY): end-to-end tests use it with real files.
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

/** GitHub refuses step summaries over 1 MiB ("supports content up to a size of 1024k"). */
export const summaryLimit = 1024 * 1024 - 1024;

export const runnerIO: ActionIO = {
  info: (message) => core.info(message),
  notice: (message) => core.notice(message),
  warning: (message) => core.warning(message),
  error: (message) => core.error(message),
  setOutput: (name, value) => core.setOutput(name, value),
  saveState: (name, value) => core.saveState(name, value),
  getState: (name) => core.getState(name),
  setSecret: (value) => core.setSecret(value),
  async appendSummary(markdown) {
    if (!process.env.GITHUB_STEP_SUMMARY) {
      core.info("GITHUB_STEP_SUMMARY is not set: the report is printed instead.");
      core.info(markdown);
      return;
    }
    const body =
      Buffer.byteLength(markdown) > summaryLimit
        ? `${markdown.slice(0, summaryLimit / 4)}\n\n> Report cut to fit the 1 MiB summary limit; the full report is in the results artifact.\n`
        : markdown;
    try {
      await core.summary.emptyBuffer().addRaw(body, true).write();
    } catch (error) {
      // A summary that cannot be written must not cost the verdict; the report is also in report-path.
      core.warning(`Could not write the job summary: ${(error as Error).message}`);
    }
  },
};

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
