import { dirname, join } from "node:path";
import type { BaselineInfo, VerdictFile } from "../../compare/verdict/verdict-schema.js";
import { failureText, isPermissionRefusal } from "../../github/api-failure.js";
import type { GitHubClient } from "../../github/client.js";
import { type ActionContext, runUrlOf } from "../../github/context.js";
import { safeLogin, safeSha } from "../../github/escape.js";
import { findOverrideLabel } from "../../github/override-label.js";
import {
  commentMarker,
  fitCommentBody,
  resolveTokenIdentity,
  upsertStickyComment,
} from "../../github/sticky-comment.js";
import {
  methodChangeLine,
  type OverrideState,
  overrideLine,
  type PublicationContext,
} from "../../report/first-screen.js";
import { renderReports } from "../../report/markdown.js";
import { markdownMarkup } from "../../report/markup.js";
import {
  acceptedRegressionLine,
  commentFailedWarning,
  commentLine,
  errorSummary,
  labelsUnreadableWarning,
  provenanceFooter,
} from "../../report/status.js";
import type { Outbound } from "../../server/outbound.js";
import type { CompareOutcome } from "./dependencies.js";
import type { ActionInputs, FailOnPolicy } from "./inputs.js";
import type { ActionIO } from "./job-io.js";
import { outputNames } from "./job-io.js";
import type { JobScope } from "./job-scope.js";
import type { ActionResult } from "./orchestrator-types.js";

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
 * The override label of a failing verdict: whether it is on the PR and who applied it, or null (no pull
 * request, no label configured). Failing to read the labels is a warning and no override: a missing
 * permission never turns a regression into a pass.
 */
export async function applyOverride(
  github: () => GitHubClient,
  inputs: ActionInputs,
  context: ActionContext,
  io: ActionIO,
): Promise<OverrideState | null> {
  const pr = context.pullRequest;
  if (!pr || !inputs.overrideLabel) return null;
  const notApplied = { label: inputs.overrideLabel, failing: true, applied: false, appliedBy: null };
  try {
    const found = await findOverrideLabel(github(), {
      owner: context.owner,
      repo: context.repo,
      issueNumber: pr.number,
      label: inputs.overrideLabel,
    });
    if (!found) return notApplied;
    io.warning(acceptedRegressionLine(found.label, found.appliedBy));
    // Shown in code, so naming who accepted it does not notify them again on every update.
    return {
      label: found.label,
      failing: true,
      applied: true,
      appliedBy: found.appliedBy ? safeLogin(found.appliedBy) : null,
    };
  } catch (error) {
    io.warning(labelsUnreadableWarning(pr.number, failureText(error)));
    return notApplied;
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
    runUrl: runUrlOf(context),
  });
}

export interface PublishRequest {
  /** The long form as compare rendered it (or a short report when there is no comparison). */
  report: string;
  /** The comparison's verdict: the comment and the summary are rendered from it with this run's links. */
  verdict?: VerdictFile;
  /** Sections rendered elsewhere (main's history), after the first screen. */
  extraSections?: readonly string[];
  override: OverrideState | null;
  /** Why the job compared another way than it set out to (first screen); null: it did not. */
  methodChange?: string | null;
  baseline: BaselineInfo | null;
  inputs: ActionInputs;
  context: ActionContext;
  /** The job's io, through its output seam (job-io.ts throughOutbound). */
  io: ActionIO;
  github: () => GitHubClient;
  /** The job's output seam: the report file, comment.md and the comment leave through it. */
  outbound: Outbound;
  reportPath: string;
}

/**
 * One verdict, two forms: the long form in a file (output report-path) and the job summary, the short
 * form (`comment.md` beside it) as the sticky PR comment, both with this run's links and the override
 * label in their first screen. A comment that cannot be written (read-only token on a fork PR: 403)
 * becomes a warning pointing at the summary, so the verdict is never lost.
 */
export async function publishReport(request: PublishRequest): Promise<{ commentUrl: string | null }> {
  const { inputs, context, io } = request;
  const publication: PublicationContext = {
    links: { kind: "actions-run", runUrl: runUrlOf(context), artifactName: inputs.artifactName },
    override: request.override,
    methodChange: request.methodChange ?? null,
  };
  const forms = request.verdict
    ? renderReports(request.verdict, {
        context: publication,
        ...(request.extraSections ? { extraSections: request.extraSections } : {}),
      })
    : standInForms(request);
  const footer = provenance(request.baseline, context, inputs);
  const withFooter = (text: string) => `${text.trimEnd()}\n\n${footer}`;
  const { outbound } = request;
  const body = withFooter(forms.report);
  await outbound.writeFile(request.reportPath, `${body}\n`);
  io.setOutput(outputNames.reportPath, request.reportPath);
  await io.appendSummary(`${body}\n`);
  const comment = withFooter(forms.comment);
  // What is posted, beside the long form in the evidence.
  await outbound.writeFile(join(dirname(request.reportPath), "comment.md"), `${comment}\n`);

  let commentUrl: string | null = null;
  const pr = context.pullRequest;
  if (inputs.comment && pr) {
    try {
      const client = request.github();
      const identity = await resolveTokenIdentity(client);
      const marker = commentMarker(inputs.config);
      // Cleaned before it is cut to GitHub's limit, so no secret is cut in two.
      const post = outbound.through((cleaned) =>
        upsertStickyComment(client, {
          owner: context.owner,
          repo: context.repo,
          issueNumber: pr.number,
          key: inputs.config,
          identity,
          body: fitCommentBody(
            cleaned,
            marker,
            "The report was cut to fit GitHub's comment limit; the full report is in the job summary.",
          ),
        }),
      );
      const result = await post(comment);
      commentUrl = result.url;
      io.info(commentLine(result.action, result.url));
    } catch (error) {
      // A rate limit is named as one (with when it lifts), never blamed on the token's permissions.
      const why = isPermissionRefusal(error)
        ? `${failureText(error)}: the token cannot write comments (a fork PR's token is read-only; otherwise grant \`pull-requests: write\`)`
        : failureText(error);
      io.warning(commentFailedWarning(why));
    }
  }
  io.setOutput(outputNames.commentUrl, commentUrl ?? "");
  return { commentUrl };
}

/** A report without a verdict (no baseline yet, a stand-in compare): the same text in both places. */
function standInForms(request: PublishRequest): { report: string; comment: string } {
  const line = request.override ? overrideLine(request.override, markdownMarkup) : null;
  const change = request.methodChange ? methodChangeLine(request.methodChange, markdownMarkup) : null;
  const text = [line, change, request.report.trimEnd(), ...(request.extraSections ?? [])]
    .filter(Boolean)
    .join("\n\n");
  return { report: text, comment: text };
}

/** What publishing needs of a job's scope. */
export function publishing(scope: JobScope) {
  return {
    inputs: scope.inputs,
    context: scope.context,
    io: scope.io,
    github: scope.github,
    outbound: scope.outbound,
    reportPath: scope.layout.reportPath,
  };
}

/**
 * A job that could not finish: the error (cleaned of secrets) is its report, in the job summary, the report file
 * and, on a pull request, the sticky comment, so a stale verdict there does not outlive it. A cancelled
 * job (`interrupted`) posts no comment: its seconds are the wind-down's. The step fails.
 */
export async function publishFailure(
  scope: JobScope,
  error: unknown,
  interrupted: boolean,
): Promise<ActionResult> {
  const { io, outbound } = scope;
  // Cleaned before it is rendered (the summary quotes it) and returned (the step's failure message).
  const message = outbound.clean(error instanceof Error ? error.message : String(error));
  io.setOutput(outputNames.verdict, "error");
  let commentUrl: string | null = null;
  try {
    ({ commentUrl } = await publishReport({
      ...publishing(scope),
      ...(interrupted ? { inputs: { ...scope.inputs, comment: false } } : {}),
      report: errorSummary(message),
      override: null,
      baseline: null,
    }));
  } catch (publishingError) {
    io.warning(commentFailedWarning(failureText(publishingError)));
    await io.appendSummary(errorSummary(message)).catch(() => {});
  }
  return {
    verdict: "error",
    failed: true,
    failureMessage: message,
    reportPath: scope.layout.reportPath,
    resultsDir: scope.layout.candidateDir,
    commentUrl,
    baselineSha: null,
  };
}
