import { writeFile } from "node:fs/promises";
import type { BaselineInfo } from "../compare/verdict-schema.js";
import type { GitHubClient } from "../github/client.js";
import { httpStatusOf } from "../github/client.js";
import type { ActionContext } from "../github/context.js";
import { inlineCode, safeLogin, safeSha } from "../github/escape.js";
import { findOverrideLabel } from "../github/override-label.js";
import {
  commentMarker,
  fitCommentBody,
  resolveTokenIdentity,
  upsertStickyComment,
} from "../github/sticky-comment.js";
import { escapeMarkdown } from "../report/escape.js";
import type { Redactor } from "../server/redact.js";
import type { ActionIO } from "./action-io.js";
import { outputNames } from "./action-io.js";
import type { CompareOutcome } from "./dependencies.js";
import type { ActionInputs, FailOnPolicy } from "./inputs.js";

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
    const login = found.appliedBy ? safeLogin(found.appliedBy) : null;
    // In code, so naming who accepted it does not notify them again on every update.
    const who = login ? inlineCode(login) : "someone (the label events did not say who)";
    io.warning(`Gate failure accepted: label "${found.label}" applied by ${found.appliedBy ?? "unknown"}.`);
    return `> [!WARNING]\n> **Accepted regression**: the label ${inlineCode(found.label)} was applied by ${who}, so this check passes despite the verdict below.`;
  } catch (error) {
    io.warning(
      `Could not read the labels of PR #${pr.number} (${(error as Error).message}); no override applied.`,
    );
    return null;
  }
}

function provenanceFooter(
  baseline: BaselineInfo | null,
  context: ActionContext,
  inputs: ActionInputs,
): string {
  const runUrl = `${context.serverUrl}/${context.owner}/${context.repo}/actions/runs/${context.runId}`;
  const parts: string[] = [];
  if (baseline) {
    const sha = baseline.commit ? safeSha(baseline.commit) : null;
    const commit = sha ? `\`${sha.slice(0, 12)}\`` : "an unknown commit";
    const run = baseline.runId && /^\d+$/.test(baseline.runId) ? ` from run ${baseline.runId}` : "";
    const date = baseline.date && !Number.isNaN(Date.parse(baseline.date)) ? new Date(baseline.date) : null;
    const when = date ? ` (${date.toISOString().slice(0, 16).replace("T", " ")} UTC)` : "";
    parts.push(`Baseline: ${commit}${run}${when}.`);
    // Room for both reasons a note can hold: why auto did not run interleaved, and why an older run was used.
    if (baseline.note) parts.push(`Note: ${escapeMarkdown(baseline.note, 500)}.`);
  }
  parts.push(
    `Evidence: artifact \`${inputs.artifactName}\` of [run ${context.runId}](${runUrl}); its \`compare/report.html\` is this report with the charts.`,
  );
  return `<sub>${parts.join(" ")}</sub>`;
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
    [request.overrideNote, request.report.trimEnd(), provenanceFooter(request.baseline, context, inputs)]
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
      io.info(`PR comment ${result.action}: ${result.url}`);
    } catch (error) {
      const status = httpStatusOf(error);
      const why =
        status === 403 || status === 401
          ? `HTTP ${status}: the token cannot write comments (a fork PR's token is read-only; otherwise grant \`pull-requests: write\`)`
          : (error as Error).message;
      io.warning(
        `Could not post the PR comment (${request.redactor.redact(why)}); the report is in the job summary.`,
      );
    }
  }
  io.setOutput(outputNames.commentUrl, commentUrl ?? "");
  return { commentUrl };
}
