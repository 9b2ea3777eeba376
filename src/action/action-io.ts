import * as core from "@actions/core";
import type { ActionIO } from "../app/gate/job-io.js";

export { type ActionIO, outputNames, stateKeys } from "../app/gate/job-io.js";

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
