import { writeFile } from "node:fs/promises";
import type { BaselineInfo } from "../../compare/verdict-schema.js";
import type { GitHubClient } from "../../github/client.js";
import { httpStatusOf } from "../../github/client.js";
import type { ActionContext } from "../../github/context.js";
import { safeLogin, safeSha } from "../../github/escape.js";
import { findOverrideLabel } from "../../github/override-label.js";
import {
  commentMarker,
  fitCommentBody,
  resolveTokenIdentity,
  upsertStickyComment,
} from "../../github/sticky-comment.js";
import {
  acceptedRegressionLine,
  acceptedRegressionNote,
  commentFailedWarning,
  commentLine,
  labelsUnreadableWarning,
  provenanceFooter,
} from "../../report/status.js";
import type { Redactor } from "../../server/redact.js";
import type { CompareOutcome } from "./dependencies.js";
import type { ActionInputs, FailOnPolicy } from "./inputs.js";
import type { ActionIO } from "./job-io.js";
import { outputNames } from "./job-io.js";

/** Whether the step fails: the explicit fail-on input, else compare's own verdict under the config. */
export function decideFailure(
  outcome: Pick<CompareOutcome, "verdict" | "exitCode">,
  failOn: FailOnPolicy | null,
): boolean {
  if (outcome.verdict === "error") return true;
  if (failOn === null) return outcome.exitCode === 1;
  if (failOn === "never") return false;
  if (outcome.verdict === "regression") return true;
  // not-comparable blocks or warns per the config's on_not_comparable, which compare folds into exitCode.
  if (outcome.verdict === "not-comparable") return outcome.exitCode === 1;
  return outcome.verdict === "inconclusive" && failOn === "inconclusive";
}

/**
 * The note that replaces a failure when the override label is on the PR, or null. Failing to read the
 * labels is a warning and no override: a missing permission never turns a regression into a pass.
 */
export async function applyOverride(
  github: () => GitHubClient,
  inputs: ActionInputs,
  context: ActionContext,
  io: ActionIO,
): Promise<string | null> {
  const pr = context.pullRequest;
  if (!pr || !inputs.overrideLabel) return null;
  try {
    const found = await findOverrideLabel(github(), {
      owner: context.owner,
      repo: context.repo,
      issueNumber: pr.number,
      label: inputs.overrideLabel,
    });
    if (!found) return null;
    // In code, so naming who accepted it does not notify them again on every update.
    const login = found.appliedBy ? safeLogin(found.appliedBy) : null;
    io.warning(acceptedRegressionLine(found.label, found.appliedBy));
    return acceptedRegressionNote(found.label, login);
  } catch (error) {
    io.warning(labelsUnreadableWarning(pr.number, (error as Error).message));
    return null;
  }
}

function provenance(baseline: BaselineInfo | null, context: ActionContext, inputs: ActionInputs): string {
  return provenanceFooter({
    baseline: baseline
      ? {
          commit: baseline.commit ? safeSha(baseline.commit) : null,
          ...(baseline.runId ? { runId: baseline.runId } : {}),
          ...(baseline.date ? { date: baseline.date } : {}),
          ...(baseline.note ? { note: baseline.note } : {}),
        }
      : null,
    artifactName: inputs.artifactName,
    runId: context.runId,
    runUrl: `${context.serverUrl}/${context.owner}/${context.repo}/actions/runs/${context.runId}`,
  });
}

export interface PublishRequest {
  report: string;
  overrideNote: string | null;
  baseline: BaselineInfo | null;
  inputs: ActionInputs;
  context: ActionContext;
  io: ActionIO;
  github: () => GitHubClient;
  redactor: Redactor;
  reportPath: string;
}

/**
 * Same report in three places: a file (output report-path), the job summary, and the sticky PR comment.
 * A comment that cannot be written (read-only token on a fork PR: 403) becomes a warning pointing at the
 * summary, so the verdict is never lost.
 */
export async function publishReport(request: PublishRequest): Promise<{ commentUrl: string | null }> {
  const { inputs, context, io } = request;
  const body = request.redactor.redact(
    [request.overrideNote, request.report.trimEnd(), provenance(request.baseline, context, inputs)]
      .filter(Boolean)
      .join("\n\n"),
  );
  await writeFile(request.reportPath, `${body}\n`);
  io.setOutput(outputNames.reportPath, request.reportPath);
  await io.appendSummary(`${body}\n`);

  let commentUrl: string | null = null;
  const pr = context.pullRequest;
  if (inputs.comment && pr) {
    try {
      const client = request.github();
      const identity = await resolveTokenIdentity(client);
      const marker = commentMarker(inputs.config);
      const result = await upsertStickyComment(client, {
        owner: context.owner,
        repo: context.repo,
        issueNumber: pr.number,
        key: inputs.config,
        identity,
        body: fitCommentBody(
          body,
          marker,
          "The report was cut to fit GitHub's comment limit; the full report is in the job summary.",
        ),
      });
      commentUrl = result.url;
      io.info(commentLine(result.action, result.url));
    } catch (error) {
      const status = httpStatusOf(error);
      const why =
        status === 403 || status === 401
          ? `HTTP ${status}: the token cannot write comments (a fork PR's token is read-only; otherwise grant \`pull-requests: write\`)`
          : (error as Error).message;
      io.warning(commentFailedWarning(request.redactor.redact(why)));
    }
  }
  io.setOutput(outputNames.commentUrl, commentUrl ?? "");
  return { commentUrl };
}
