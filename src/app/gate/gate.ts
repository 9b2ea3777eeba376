import type { BaselineInfo } from "../../compare/verdict/verdict-schema.js";
import { countRuns } from "../../github/baseline-bundle.js";
import {
  adaptiveLoopLine,
  baselineMissingNotice,
  baselineMissingReport,
  gateFailureMessage,
} from "../../report/status.js";
import { addRunsUntilDecided, fewestRuns } from "../adaptive.js";
import type { CompareOutcome, CompareRequest } from "./dependencies.js";
import { historyCompareInputs, judgeWithHistory, readHistoryForGate } from "./history.js";
import { outputNames } from "./job-io.js";
import type { JobScope, Measured } from "./job-scope.js";
import { alternate, measureCandidateSide } from "./measure-candidate.js";
import type { ActionResult } from "./orchestrator-types.js";
import { applyOverride, decideFailure, publishing, publishReport } from "./publish.js";
import type { BaselineSource } from "./stored-baseline.js";

/**
 * A gate: with the baseline found before measuring, compare (adding runs while the comparison cannot decide), apply the override
 * label, publish, and decide whether the step fails.
 */

interface BaselineSide {
  dir: string;
  historyDirs: string[];
  info: BaselineInfo;
  /** Main's history (app/gate/history.ts), when one was read. */
  historyRuns?: CompareRequest["historyRuns"];
  baselineVariancePriors?: CompareRequest["baselineVariancePriors"];
  baselineVariancePriorOrigin?: CompareRequest["baselineVariancePriorOrigin"];
}

function compare(scope: JobScope, measured: Measured, baseline: BaselineSide) {
  return scope.deps.compare({
    baselineDir: baseline.dir,
    historyDirs: baseline.historyDirs,
    candidateDir: scope.layout.candidateDir,
    configPath: scope.configPath,
    config: scope.config,
    mode: measured.mode,
    baselineInfo: baseline.info,
    failOn: scope.inputs.failOn,
    outDir: scope.layout.compareDir,
    workingDirectory: scope.workingDirectory,
    outbound: scope.outbound,
    ...(baseline.historyRuns ? { historyRuns: baseline.historyRuns } : {}),
    ...(baseline.baselineVariancePriors ? { baselineVariancePriors: baseline.baselineVariancePriors } : {}),
    ...(baseline.baselineVariancePriorOrigin
      ? { baselineVariancePriorOrigin: baseline.baselineVariancePriorOrigin }
      : {}),
    ...(scope.inputs.calibration ? { calibrationPath: scope.inputs.calibration } : {}),
  });
}

/** Sequential looks (the one adaptive loop, ../adaptive.ts): add the runs compare asks for, up to max-runs. */
async function compareUntilDecided(
  scope: JobScope,
  measured: Measured,
  baseline: BaselineSide,
): Promise<CompareOutcome> {
  const { outcome } = await addRunsUntilDecided({
    look: () => compare(scope, measured, baseline),
    measure: (step) =>
      measured.base
        ? alternate(scope, measured.base, step.firstRun, step.runs, step.cells)
        : measureCandidateSide(scope, step),
    runsMeasured: async (cells) => fewestRuns(await countRuns(scope.layout.candidateDir), cells),
    cells: scope.inputs.cells,
    maxRuns: scope.inputs.maxRuns ?? Number.POSITIVE_INFINITY,
    onEvent: (event) => scope.io.info(adaptiveLoopLine(event, scope.inputs.maxRuns)),
  });
  return outcome;
}

/** `baseline` was looked for before the candidate was measured (orchestrator.ts). */
export async function gate(
  scope: JobScope,
  measured: Measured,
  baseline: BaselineSource,
): Promise<ActionResult> {
  const { inputs, io, layout } = scope;
  if ("missing" in baseline) return baselineMissing(scope, baseline.missing, measured.fallbackReason);
  const history = await readHistoryForGate(scope, measured, baseline);
  const outcome = await compareUntilDecided(scope, measured, {
    ...baseline,
    ...historyCompareInputs(history),
  });
  const judged = judgeWithHistory(scope, history, outcome);
  let failed = decideFailure(outcome, inputs.failOn) && !judged.exempt;
  const override = failed ? await applyOverride(scope.github, inputs, scope.context, io) : null;
  if (override?.applied) failed = false;
  const published = await publishReport({
    ...publishing(scope),
    report: outcome.report,
    ...(outcome.verdictFile ? { verdict: outcome.verdictFile } : {}),
    extraSections: judged.sections,
    override,
    methodChange: measured.fallbackReason,
    baseline: baseline.info,
  });
  io.setOutput(outputNames.verdict, outcome.verdict);
  io.setOutput(outputNames.baselineSha, baseline.sha ?? "");
  return {
    verdict: outcome.verdict,
    failed,
    failureMessage: failed ? gateFailureMessage(outcome.verdict, inputs.failOn) : null,
    reportPath: layout.reportPath,
    resultsDir: layout.candidateDir,
    commentUrl: published.commentUrl,
    baselineSha: baseline.sha,
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
  const report = baselineMissingReport({
    reason,
    fallbackReason,
    cells: runs.size,
    runsEach: fewestRuns(runs, null),
    artifactName: inputs.artifactName,
    baseBranch: plan.baseBranch,
  });
  io.notice(baselineMissingNotice(reason));
  const published = await publishReport({ ...publishing(scope), report, override: null, baseline: null });
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
