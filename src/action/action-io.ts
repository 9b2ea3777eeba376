import * as core from "@actions/core";
import type { ActionIO } from "../app/gate/job-io.js";
import { cutSummary, summaryUnsetLine, summaryUnwritableWarning } from "../report/status.js";

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
      core.info(summaryUnsetLine);
      core.info(markdown);
      return;
    }
    const body =
      Buffer.byteLength(markdown) > summaryLimit ? cutSummary(markdown, summaryLimit / 4) : markdown;
    try {
      await core.summary.emptyBuffer().addRaw(body, true).write();
    } catch (error) {
      // A summary that cannot be written must not cost the verdict; the report is also in report-path.
      core.warning(summaryUnwritableWarning((error as Error).message));
    }
  },
};
