import type { BaselineInfo } from "../compare/verdict-schema.js";
import { countRuns } from "../github/baseline-bundle.js";
import { inlineCode } from "../github/escape.js";
import { escapeMarkdown } from "../report/escape.js";
import { outputNames } from "./action-io.js";
import type { CompareOutcome, CompareRequest } from "./dependencies.js";
import { historyCompareInputs, judgeWithHistory, readHistoryForGate } from "./history.js";
import { fewestRuns, type JobScope, type Measured } from "./job-scope.js";
import { alternate, measureRuns } from "./measure-candidate.js";
import type { ActionResult } from "./orchestrator-types.js";
import { applyOverride, decideFailure, publishReport } from "./publish.js";
import { acquireBaseline } from "./stored-baseline.js";

/**
 * A gate: get the baseline, compare (adding runs while the comparison cannot decide), apply the override
 * label, publish, and decide whether the step fails.
 */

interface BaselineSide {
  dir: string;
  historyDirs: string[];
  info: BaselineInfo;
  /** Main's history (action/history.ts), when one was read. */
  historyRuns?: CompareRequest["historyRuns"];
  baselineVariancePriors?: CompareRequest["baselineVariancePriors"];
}

function compare(scope: JobScope, measured: Measured, baseline: BaselineSide) {
  return scope.deps.compare({
    baselineDir: baseline.dir,
    historyDirs: baseline.historyDirs,
    candidateDir: scope.layout.candidateDir,
    configPath: scope.configPath,
    mode: measured.mode,
    baselineInfo: baseline.info,
    failOn: scope.inputs.failOn,
    outDir: scope.layout.compareDir,
    workingDirectory: scope.workingDirectory,
    ...(baseline.historyRuns ? { historyRuns: baseline.historyRuns } : {}),
    ...(baseline.baselineVariancePriors ? { baselineVariancePriors: baseline.baselineVariancePriors } : {}),
  });
}

/** Sequential looks: add the runs compare asks for while it cannot decide, up to max-runs. */
async function compareUntilDecided(
  scope: JobScope,
  measured: Measured,
  baseline: BaselineSide,
): Promise<CompareOutcome> {
  let outcome = await compare(scope, measured, baseline);
  const maxRuns = scope.inputs.maxRuns ?? Number.POSITIVE_INFINITY;
  // compare stops asking at repeats.max; the bound on looks only guards against a compare that never does.
  for (let look = 0; look < 100 && outcome.verdict === "inconclusive" && outcome.nextLook; look++) {
    const next = outcome.nextLook;
    const cells = next.cells.length > 0 ? next.cells : scope.inputs.cells;
    const have = fewestRuns(await countRuns(scope.layout.candidateDir), cells);
    const add = Math.min(Math.max(next.addCandidateRuns, next.addBaselineRuns), maxRuns - have);
    if (add <= 0) {
      scope.io.info(`Still inconclusive at ${have} runs; max-runs (${scope.inputs.maxRuns}) reached.`);
      break;
    }
    scope.io.info(
      `Inconclusive (${next.reason}); adding ${add} run(s) per side to ${cells?.join(", ") ?? "every cell"}.`,
    );
    if (measured.baseConfigPath) {
      await alternate(scope, measured.baseConfigPath, have, add, cells);
    } else {
      await measureRuns(scope, {
        configPath: scope.configPath,
        resultsDir: scope.layout.candidateDir,
        firstRun: have,
        runs: add,
        cells,
        side: null,
      });
    }
    outcome = await compare(scope, measured, baseline);
  }
  return outcome;
}

export async function gate(scope: JobScope, measured: Measured): Promise<ActionResult> {
  const { inputs, io, layout } = scope;
  const baseline = await acquireBaseline(scope, measured);
  if ("missing" in baseline) return baselineMissing(scope, baseline.missing, measured.fallbackReason);
  const history = await readHistoryForGate(scope, measured, baseline);
  const outcome = await compareUntilDecided(scope, measured, {
    ...baseline,
    ...historyCompareInputs(history),
  });
  const judged = await judgeWithHistory(scope, history, outcome);
  let failed = decideFailure(outcome, inputs.failOn) && !judged.exempt;
  let overrideNote: string | null = null;
  if (failed) {
    overrideNote = await applyOverride(scope.github, inputs, scope.context, io);
    if (overrideNote) failed = false;
  }
  const published = await publishReport({
    ...publishing(scope),
    report: judged.report,
    overrideNote,
    baseline: baseline.info,
  });
  io.setOutput(outputNames.verdict, outcome.verdict);
  io.setOutput(outputNames.baselineSha, baseline.sha ?? "");
  return {
    verdict: outcome.verdict,
    failed,
    failureMessage: failed
      ? `vllm-perf-gate: ${outcome.verdict} (fail-on: ${inputs.failOn ?? "from the config"})`
      : null,
    reportPath: layout.reportPath,
    resultsDir: layout.candidateDir,
    commentUrl: published.commentUrl,
    baselineSha: baseline.sha,
  };
}

function publishing(scope: JobScope) {
  return {
    inputs: scope.inputs,
    context: scope.context,
    io: scope.io,
    github: scope.github,
    redactor: scope.redactor,
    reportPath: scope.layout.reportPath,
  };
}

/** No baseline yet is not a failure: the PR is measured, its evidence kept, and the step passes. */
async function baselineMissing(
  scope: JobScope,
  reason: string,
  fallbackReason: string | null,
): Promise<ActionResult> {
  const { inputs, io, layout, plan } = scope;
  const runs = await countRuns(layout.candidateDir);
  const report = [
    "## vllm-perf-gate: baseline missing",
    "",
    `Nothing to compare with: ${escapeMarkdown(reason, 300)}.`,
    ...(fallbackReason ? ["", `Note: ${escapeMarkdown(fallbackReason, 300)}.`] : []),
    "",
    `The candidate was measured (${runs.size} cell(s), ${fewestRuns(runs, null)} run(s) each) and its results are uploaded as artifact \`${inputs.artifactName}\`. ` +
      `Run this workflow on a push to ${plan.baseBranch ? inlineCode(plan.baseBranch) : "the base branch"} to record a baseline; the next run of this pull request compares with it.`,
    "",
  ].join("\n");
  io.notice(`vllm-perf-gate: baseline missing (${reason}); passing.`);
  const published = await publishReport({ ...publishing(scope), report, overrideNote: null, baseline: null });
  io.setOutput(outputNames.verdict, "baseline-missing");
  io.setOutput(outputNames.baselineSha, "");
  return {
    verdict: "baseline-missing",
    failed: false,
    failureMessage: null,
    reportPath: layout.reportPath,
    resultsDir: layout.candidateDir,
    commentUrl: published.commentUrl,
    baselineSha: null,
  };
}
