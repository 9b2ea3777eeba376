import { j as inlineCode, k as escapeInline } from './format.js';

/**
 * The status text of the use cases (src/app/): the lines the action writes to the job log and the
 * demo to its progress, and the short reports the action publishes when there is no comparison to
 * render (baseline recorded, baseline missing, partial results, an error). Pure: strings in, text out.
 * Values are escaped here where they go into markdown; the caller redacts before it publishes.
 */
/** The cells a line is about: named, or every cell. */
function cellList(cells) {
    return cells && cells.length > 0 ? cells.join(", ") : "every cell";
}
/** A look that adds runs: why, how many per side, to which cells. */
function addingRunsLine(reason, runs, cells) {
    return `Inconclusive (${reason}); adding ${runs} run(s) per side to ${cellList(cells)}.`;
}
/** A look that would add runs but may not: the runs per side are at max-runs. */
function maxRunsReachedLine(runs, maxRuns) {
    return `Still inconclusive at ${runs} runs; max-runs (${maxRuns}) reached.`;
}
/** A step that measured no new run of the cells it was for: the looks stop there. */
function noRunsAddedLine(runs, cells) {
    return `Still inconclusive at ${runs} runs; the last step added no run to ${cellList(cells)} (a sweep cell measures each load once), so no further look can change the verdict.`;
}
/** The adaptive loop's event as one log line. */
function adaptiveLoopLine(event, maxRuns) {
    switch (event.kind) {
        case "adding":
            return addingRunsLine(event.reason, event.runs, event.cells);
        case "max-runs":
            return maxRunsReachedLine(event.runs, maxRuns);
        case "no-progress":
            return noRunsAddedLine(event.runs, event.cells);
    }
}
/** A block of one side's consecutive runs about to be measured (runs counted from 1, as people do). */
function measuringBlockLine(side, firstRun, runs, maxRuns) {
    const last = firstRun + runs;
    return `${side}: run${runs === 1 ? "" : "s"} ${firstRun + 1}${runs === 1 ? "" : `-${last}`} (at most ${maxRuns})`;
}
// The action's short reports: the job summary (and the PR comment) when there is no comparison to render.
/** No baseline yet: the candidate was measured and kept, and how to record one. */
function baselineMissingReport(facts) {
    return [
        "## vllm-perf-gate: baseline missing",
        "",
        `Nothing to compare with: ${escapeInline(facts.reason, 300)}.`,
        ...(facts.fallbackReason ? ["", `Note: ${escapeInline(facts.fallbackReason, 300)}.`] : []),
        "",
        `The candidate was measured (${facts.cells} cell(s), ${facts.runsEach} run(s) each) and its results are uploaded as artifact \`${facts.artifactName}\`. ` +
            `Run this workflow on a push to ${facts.baseBranch ? inlineCode(facts.baseBranch) : "the base branch"} to record a baseline; the next run of this pull request compares with it.`,
        "",
    ].join("\n");
}
function baselineMissingNotice(reason) {
    return `vllm-perf-gate: baseline missing (${reason}); passing.`;
}
/** A baseline bundle written: which commit, which cells, where later gates find it. */
function baselineRecordedReport(facts) {
    return [
        "## vllm-perf-gate: baseline recorded",
        "",
        `Commit ${inlineCode(facts.commit.slice(0, 12))} on ${inlineCode(facts.ref)}: ${facts.cells.length} cell(s) (${facts.cells.map(inlineCode).join(", ")}).`,
        `Stored as artifact ${inlineCode(facts.artifactName)} of run ${facts.runId}; pull requests against this branch compare with it.`,
        "",
    ].join("\n");
}
/** A matrix part: what it measured and uploaded; the aggregate job judges. */
function partialResultsSummary(runs, artifactName) {
    const measuredCells = [...runs].map(([cell, count]) => `${inlineCode(cell)} (${count} runs)`).join(", ");
    return `## vllm-perf-gate: partial results\n\nMeasured ${measuredCells}; uploaded as artifact ${inlineCode(artifactName)}. The \`aggregate\` job compares and publishes.\n`;
}
const partialResultsLine = "This job measured a subset of cells; the aggregate job compares and publishes.";
/** The summary of a step that failed before it could publish a report (message already redacted). */
function errorSummary(message) {
    return `## vllm-perf-gate: error\n\n\`\`\`\n${message.replaceAll("```", "'''")}\n\`\`\`\n`;
}
/** Why the step fails, for the step's failure message. */
function gateFailureMessage(verdict, failOn) {
    return `vllm-perf-gate: ${verdict} (fail-on: ${failOn ?? "from the config"})`;
}
function acceptedRegressionLine(label, appliedBy) {
    return `Gate failure accepted: label "${label}" applied by ${appliedBy ?? "unknown"}.`;
}
/**
 * The provenance line under a published report: the baseline's commit (already checked to be one),
 * run, date and note, and where the evidence is.
 */
function provenanceFooter(facts) {
    const parts = [];
    const baseline = facts.baseline;
    if (baseline) {
        const commit = baseline.commit ? `\`${baseline.commit.slice(0, 12)}\`` : "an unknown commit";
        const run = baseline.runId && /^\d+$/.test(baseline.runId) ? ` from run ${baseline.runId}` : "";
        const date = baseline.date && !Number.isNaN(Date.parse(baseline.date)) ? new Date(baseline.date) : null;
        const when = date ? ` (${date.toISOString().slice(0, 16).replace("T", " ")} UTC)` : "";
        parts.push(`Baseline: ${commit}${run}${when}.`);
        // Room for both reasons a note can hold: why auto did not run interleaved, and why an older run was used.
        if (baseline.note)
            parts.push(`Note: ${escapeInline(baseline.note, 500)}.`);
    }
    parts.push(`Evidence: artifact \`${facts.artifactName}\` of [run ${facts.runId}](${facts.runUrl}); its \`compare/report.html\` is this report with the charts.`);
    return `<sub>${parts.join(" ")}</sub>`;
}
// The action's log lines.
/** What a measuring job runs (a stored baseline gets repeats.baseline runs per cell). */
function measuringLine(cells, configPath, baselineRuns) {
    return `Measuring ${cells ? `cells ${cells.join(", ")}` : "every cell"} of ${configPath}${baselineRuns === null ? "" : ` (${baselineRuns} baseline runs per cell, repeats.baseline)`}.`;
}
function baseSideLine(repoPath, baseSha) {
    return `Base side runs ${repoPath} as of ${baseSha.slice(0, 12)}.`;
}
function aggregatedLine(parts) {
    return `Aggregated ${parts.length} partial result(s): ${parts.join(", ")}.`;
}
function fallbackNotice(reason) {
    return `vllm-perf-gate: ${reason}.`;
}
function baselineFoundLine(runId, headSha, branch, fallbackReason) {
    return `Baseline: run ${runId} at ${headSha.slice(0, 12)} on ${branch}${fallbackReason ? ` (fell back: ${fallbackReason})` : ""}.`;
}
function baselineSearchWarning(problem) {
    return `Baseline search: ${problem}`;
}
function manifestCommitWarning(manifestCommit, runCommit) {
    return `The baseline's manifest names commit ${manifestCommit.slice(0, 12)} but its run was for ${runCommit.slice(0, 12)}; the run's commit is reported.`;
}
function historyLeftOutWarning(runId, headSha, why) {
    return `Baseline history: left out run ${runId} at ${headSha.slice(0, 12)} (${why}).`;
}
function historyLine(sessions) {
    return `Baseline history: ${sessions} earlier session(s) for the drift estimate (gate.baseline_sessions).`;
}
function redactedFilesWarning(files) {
    return `Redacted secret values from ${files} file(s) before upload.`;
}
/** An upload's outcome (null: nothing was there to upload); `by` names the post step when it uploads. */
function uploadedLine(name, sizeBytes, where, by = "main") {
    if (by === "post")
        return sizeBytes === null
            ? `Post step: nothing to upload in ${where}.`
            : `Post step uploaded artifact ${name} (${sizeBytes} bytes).`;
    return sizeBytes === null
        ? `Nothing to upload for ${name}.`
        : `Uploaded artifact ${name} (${sizeBytes} bytes).`;
}
function uploadFailedWarning(why) {
    return `Could not upload the evidence (${why}); the post step will retry.`;
}
function labelsUnreadableWarning(pr, why) {
    return `Could not read the labels of PR #${pr} (${why}); no override applied.`;
}
function commentLine(action, url) {
    return `PR comment ${action}: ${url}`;
}
function commentFailedWarning(why) {
    return `Could not post the PR comment (${why}); the report is in the job summary.`;
}
/** Runs a crash or refused connections cut short: kept and flagged, compare decides what they prove. */
function cutShortLine(runs) {
    return `${runs.length} run(s) were cut short: ${runs.map((run) => `${run.cell}/run-${run.run}`).join(", ")}`;
}
// The post step and the runner IO.
function serversNotStoppedWarning(details) {
    return `${details.length} server(s) could not be stopped: ${details.join("; ")}`;
}
function stateFileCleanupWarning(stateFile, why) {
    return `Could not stop the servers recorded in ${stateFile}: ${why}`;
}
function postUploadFailedWarning(evidenceDir, why) {
    return `Post step could not upload the evidence from ${evidenceDir}: ${why}`;
}
const summaryUnsetLine = "GITHUB_STEP_SUMMARY is not set: the report is printed instead.";
/** The job summary cut to `keep` characters, with a note where the rest is. */
function cutSummary(markdown, keep) {
    return `${markdown.slice(0, keep)}\n\n> Report cut to fit the 1 MiB summary limit; the full report is in the results artifact.\n`;
}
function summaryUnwritableWarning(why) {
    return `Could not write the job summary: ${why}`;
}
function stoppingOnSignalLine(signal) {
    return `${signal}: stopping the measurement and the servers`;
}
function interruptedFailure(signal) {
    return `vllm-perf-gate: interrupted by ${signal}`;
}
/** A failed step's message when the use case gave none. */
function failedVerdict(verdict) {
    return `vllm-perf-gate: ${verdict}`;
}
/**
 * validate's wall-clock of each mode's first look on the runner's devices (app/measure-on-devices.ts
 * firstLookPlans): minutes from the first server start to the last run, the starts, and the GPU-minutes
 * the devices were busy (reserved: every device for the wall-clock).
 */
function wallClockLines(plans, source) {
    if (plans.length === 0)
        return [];
    const minutes = (value) => (value < 10 ? value.toFixed(1) : String(Math.round(value)));
    const label = {
        interleaved: "per PR, interleaved",
        stored: "per PR, stored baseline",
        baseline: "per baseline job",
    };
    return [
        `estimated wall-clock of the first look on ${plans[0].devices} device${plans[0].devices === 1 ? "" : "s"} (${source}; each cell's two sides on one device):`,
        ...plans.map((entry) => `  ${label[entry.mode] ?? entry.mode}: ${minutes(entry.plan.wallClockMinutes)} min at ${entry.runs} runs (${entry.plan.serverStarts} starts, ${minutes(entry.plan.gpuMinutes)} GPU-minutes busy, ${minutes(entry.plan.reservedGpuMinutes)} reserved)`),
    ];
}
/** `run` on several devices (app/run-on-devices.ts): which cells and runs one device's server measures. */
function deviceBlockLine(device, cells, runs) {
    const count = typeof runs === "number"
        ? `${runs} run(s) each`
        : Object.entries(runs)
            .map(([cell, n]) => `${cell} ${n} run(s)`)
            .join(", ");
    return `device ${device}: ${cellList(cells)}; ${count}`;
}

export { historyLine as A, uploadFailedWarning as B, redactedFilesWarning as C, uploadedLine as D, partialResultsSummary as E, partialResultsLine as F, stateFileCleanupWarning as G, postUploadFailedWarning as H, wallClockLines as I, deviceBlockLine as J, measuringBlockLine as K, cutShortLine as L, summaryUnsetLine as a, summaryUnwritableWarning as b, cutSummary as c, serversNotStoppedWarning as d, aggregatedLine as e, failedVerdict as f, baseSideLine as g, fallbackNotice as h, interruptedFailure as i, errorSummary as j, commentFailedWarning as k, commentLine as l, measuringLine as m, acceptedRegressionLine as n, labelsUnreadableWarning as o, provenanceFooter as p, gateFailureMessage as q, baselineMissingReport as r, stoppingOnSignalLine as s, baselineMissingNotice as t, adaptiveLoopLine as u, baselineRecordedReport as v, baselineSearchWarning as w, manifestCommitWarning as x, baselineFoundLine as y, historyLeftOutWarning as z };
