import { type JobSecrets, minimumSecretLength, type Outbound } from "../../server/outbound.js";

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

/**
 * The runner's io of a job whose every log line, annotation, output and summary leaves through the job's
 * output seam (server/outbound.ts): cleaned before the runner cuts a long summary, so no secret is cut in
 * two. State and masking are the runner's own.
 */
export function throughOutbound(io: ActionIO, outbound: Outbound): ActionIO {
  return {
    info: outbound.through((text) => io.info(text)),
    notice: outbound.through((text) => io.notice(text)),
    warning: outbound.through((text) => io.warning(text)),
    error: outbound.through((text) => io.error(text)),
    setOutput: (name, value) => io.setOutput(name, outbound.clean(value)),
    saveState: (name, value) => io.saveState(name, value),
    getState: (name) => io.getState(name),
    setSecret: (value) => io.setSecret(value),
    appendSummary: outbound.through((markdown) => io.appendSummary(markdown)),
  };
}

/** Each value of the set long enough to be searched for, masked in the job log by the runner. */
export function maskSecrets(io: ActionIO, secrets: JobSecrets): void {
  for (const { value } of secrets.named) if (value.length >= minimumSecretLength) io.setSecret(value);
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
