import { countRuns, createBaselineManifest, writeBaselineManifest } from "../../github/baseline-bundle.js";
import { baselineRecordedReport } from "../../report/status.js";
import { outputNames } from "./job-io.js";
import type { JobScope } from "./job-scope.js";
import type { ActionResult } from "./orchestrator-types.js";

/**
 * The record-a-baseline use case: the measured results become a baseline bundle (a manifest naming the
 * commit, ref, run and cells beside the runs), and the summary says where later gates find it.
 */
export async function recordBaseline(scope: JobScope): Promise<ActionResult> {
  const { context, inputs, io, layout } = scope;
  const cells = [...(await countRuns(layout.candidateDir)).keys()];
  if (cells.length === 0) throw new Error(`the run wrote no results under ${layout.candidateDir}`);
  const manifest = createBaselineManifest({
    commit: context.sha,
    ref: context.ref,
    runId: context.runId,
    runAttempt: context.runAttempt,
    cells,
    now: scope.deps.now(),
  });
  await writeBaselineManifest(layout.candidateDir, manifest);
  const report = baselineRecordedReport({
    commit: manifest.commit,
    ref: context.ref,
    cells,
    artifactName: inputs.baselineArtifact,
    runId: context.runId,
  });
  await scope.outbound.writeFile(layout.reportPath, report);
  await io.appendSummary(report);
  io.setOutput(outputNames.verdict, "baseline-recorded");
  io.setOutput(outputNames.reportPath, layout.reportPath);
  io.setOutput(outputNames.baselineSha, manifest.commit);
  return {
    verdict: "baseline-recorded",
    failed: false,
    failureMessage: null,
    reportPath: layout.reportPath,
    resultsDir: layout.candidateDir,
    commentUrl: null,
    baselineSha: manifest.commit,
  };
}
