import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  calibrationHistoryRuns,
  conditionsHash,
  type HistoryRecord,
  historyRecordsFromRuns,
  historySessions,
  pooledRunVariances,
  runsFromHistory,
  UntrustedHistoryError,
} from "../../compare/history/history.js";
import {
  type MainAlreadyRegressed,
  mainAlreadyRegressed,
  type SeriesChangePoint,
  scanChangePoints,
} from "../../compare/history/history-analysis.js";
import { loadRuns } from "../../compare/inputs/load.js";
import type { PriorOrigin } from "../../compare/noise/prior-basis.js";
import type { MetricName } from "../../config/metric-names.js";
import { failureText, httpStatusOf, isPermissionRefusal } from "../../github/api-failure.js";
import { validateBaselineDir } from "../../github/baseline-bundle.js";
import { findBaseline } from "../../github/baseline-discovery.js";
import { changePointKey, postChangePointComments } from "../../github/change-point-comment.js";
import { branchOfRef, runUrlOf } from "../../github/context.js";
import {
  type AppendOutcome,
  createArtifactHistoryStore,
  createBranchHistoryStore,
  type HistoryStore,
  pendingHistoryFile,
  readPendingSessions,
  writePendingSessions,
} from "../../github/history-store.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { type HistoryReport, renderChangePointComment, renderHistorySection } from "../../report/history.js";
import type { CompareOutcome } from "./dependencies.js";
import { type HistoryInputs, historyInputDefaults } from "./history-inputs.js";
import type { JobScope, Measured } from "./job-scope.js";

/**
 * Main's history in the action: a base-branch baseline job appends its session and reports the change
 * points it is the first to show; a pull request gated against the stored baseline reads the history
 * for the drift and the pooled run variance, and is told when its regression is one main already has.
 * Nothing here decides a verdict on its own: a history that cannot be read or written is a warning, and
 * the gate goes on as it would without one.
 */

const settingsOf = (scope: JobScope): HistoryInputs =>
  scope.inputs.history ?? { ...historyInputDefaults, store: "off" };

function branchStore(scope: JobScope, settings: HistoryInputs): HistoryStore {
  return createBranchHistoryStore(scope.github(), {
    owner: scope.context.owner,
    repo: scope.context.repo,
    branch: settings.branch,
    path: settings.path,
  });
}

/** The gated metrics of the job's config (loaded once per job, in the scope). */
function gatedMetrics(scope: JobScope): MetricName[] {
  return [...scope.config.config.gate.metrics];
}

/**
 * Baseline job hook (before the baseline artifact is uploaded): this session's records appended to the
 * history, the change points first seen with it put in the job summary. Failures are warnings.
 */
export async function recordHistory(scope: JobScope): Promise<{ failure: string | null }> {
  const none = { failure: null };
  const settings = settingsOf(scope);
  if (settings.store === "off") return none;
  const { context, io, layout } = scope;
  // Only the base branch's own jobs write main's history: never a pull request, never another branch.
  const branch = branchOfRef(context.ref);
  if (context.pullRequest || branch === null || branch !== scope.plan.baseBranch) {
    io.info(
      `Main's history not written: this job is not on the base branch (${scope.plan.baseBranch ?? "unknown"}).`,
    );
    return none;
  }
  // What this job has to write: its session, and any an earlier job could not write (branch store).
  let unwritten: HistoryRecord[] = [];
  try {
    const runs = await loadRuns([layout.candidateDir], "baseline");
    const records = historyRecordsFromRuns(runs, {
      id: `${context.runId}-${context.runAttempt}`,
      commit: context.sha,
      ref: context.ref,
      runId: context.runId,
      runAttempt: context.runAttempt,
      recordedAt: scope.deps.now().toISOString(),
    });
    const store =
      settings.store === "branch"
        ? branchStore(scope, settings)
        : await artifactStoreFromNewestBaseline(scope);
    if (settings.store === "branch") unwritten = [...(await sessionsLeftUnwritten(scope, store)), ...records];
    // The records leave for a branch or an artifact: through the job's output seam, as every file does.
    const outcome = await store.append(scope.outbound.clean(unwritten.length > 0 ? unwritten : records));
    unwritten = [];
    return await reportAppended(scope, settings, store.description, outcome);
  } catch (error) {
    await historyNotWritten(scope, error, unwritten, branch);
    return none;
  }
}

/**
 * After an append: the change points first seen with this session in the job summary, a warning for each
 * worsening (and a comment on the issue history-change-points-issue names), and the job's failure when
 * history-change-points is fail.
 */
async function reportAppended(
  scope: JobScope,
  settings: HistoryInputs,
  storeDescription: string,
  outcome: AppendOutcome,
): Promise<{ failure: string | null }> {
  const { io } = scope;
  const scan = scanChangePoints(outcome.records, gatedMetrics(scope), { window: settings.window });
  const fresh = scan.changePoints.filter((cp) => cp.isNew);
  const report: HistoryReport = {
    store: storeDescription,
    refused: null,
    sessionsUsed: 0,
    pooledDf: null,
    leftOut: [],
    written: {
      appended: outcome.appended,
      droppedSessions: outcome.droppedSessions.length,
      conflicts: outcome.conflicts,
    },
    changePoints: fresh,
    alreadyOnMain: null,
  };
  // Main's history is read from a branch or an artifact: cleaned before it is rendered (and escaped).
  await io.appendSummary(`${renderHistorySection(scope.outbound.clean(report))}\n`);
  const worse = fresh.filter((c) => c.worse);
  const lines = worse.map(
    (cp) =>
      `${cp.metric} of ${cp.cell} stepped ${((cp.ratio - 1) * 100).toFixed(1)}% between ${cp.lastBefore.commit.slice(0, 12)} and ${cp.firstAfter.commit.slice(0, 12)}`,
  );
  for (const line of lines) io.warning(`Main's history: ${line}.`);
  if (settings.changePointIssue !== null && worse.length > 0)
    await commentChangePoints(scope, settings.changePointIssue, worse);
  io.info(`Main's history: appended ${outcome.appended} record(s) to ${storeDescription}.`);
  return {
    failure:
      settings.changePoints === "fail" && lines.length > 0
        ? `vllm-perf-gate: main regressed (history-change-points: fail): ${lines.join("; ")}`
        : null,
  };
}

/**
 * A history that could not be written: a warning naming why (the permissions only for a refusal), and
 * the sessions not written kept for the next baseline job of the branch.
 */
async function historyNotWritten(
  scope: JobScope,
  error: unknown,
  unwritten: readonly HistoryRecord[],
  branch: string,
): Promise<void> {
  const status = httpStatusOf(error);
  // A rate limit or a fault is said as one; only a refusal is blamed on the job's permissions.
  const hint =
    isPermissionRefusal(error) || status === 404
      ? " (the baseline job needs `permissions: contents: write` for the history branch; docs/history.md)"
      : "";
  let kept = "";
  if (unwritten.length > 0) {
    await writePendingSessions(scope.layout.candidateDir, unwritten);
    kept = `; this session is kept in the baseline artifact and the evidence (${pendingHistoryFile}) and the next baseline job on ${branch} appends it`;
  }
  scope.io.warning(
    `Main's history was not written: ${failureText(error)}${hint}. The baseline itself is recorded${kept}.`,
  );
}

/**
 * Sessions an earlier baseline job could not write to the history branch: when the newest earlier
 * baseline of the branch is not in the history, the pending sessions its artifact carries. A failure here
 * is a warning: this job's own session is written all the same.
 */
async function sessionsLeftUnwritten(scope: JobScope, store: HistoryStore): Promise<HistoryRecord[]> {
  try {
    // Only when its session is missing from the history (the write that lost it, or no history yet).
    const previous = await downloadNewestBaseline(scope, async (runId) =>
      (await store.read()).records.every((record) => record.session.runId !== runId),
    );
    if (!previous) return [];
    const pending = await readPendingSessions(previous.dir);
    if (pending.length > 0)
      scope.io.info(
        `Main's history: ${historySessions(pending).length} session(s) that run ${previous.runId} could not write are appended with this one.`,
      );
    return pending;
  } catch (error) {
    scope.io.warning(
      `Main's history: could not check the newest earlier baseline for a session it could not write (${failureText(error)}).`,
    );
    return [];
  }
}

/**
 * One comment per new worsening change point on the configured issue (history-change-point-issue),
 * skipped for a change point already commented on; a failure is a warning, the baseline is recorded.
 */
async function commentChangePoints(
  scope: JobScope,
  issueNumber: number,
  changePoints: readonly SeriesChangePoint[],
): Promise<void> {
  const { context, io } = scope;
  const groups = new Map<string, SeriesChangePoint[]>();
  for (const cp of changePoints)
    groups.set(changePointKey(cp), [...(groups.get(changePointKey(cp)) ?? []), cp]);
  const jobUrl = runUrlOf(context);
  try {
    const result = await postChangePointComments(scope.github(), {
      owner: context.owner,
      repo: context.repo,
      issueNumber,
      // One comment per cell and step: its metrics' change points together.
      items: [...groups.entries()].map(([key, group]) => ({
        key,
        body: renderChangePointComment(scope.outbound.clean(group), jobUrl),
      })),
    });
    for (const posted of result.posted)
      io.info(`Main's history: change point posted on issue #${issueNumber}: ${posted.url}`);
    if (result.alreadyPosted.length > 0)
      io.info(
        `Main's history: ${result.alreadyPosted.length} change point(s) already on issue #${issueNumber}, not posted again.`,
      );
  } catch (error) {
    const refused = isPermissionRefusal(error) || httpStatusOf(error) === 404;
    io.warning(
      `Main's history: the change point could not be posted on issue #${issueNumber}: ${failureText(error)}${refused ? " (the baseline job needs `permissions: issues: write`, and the issue must exist)" : ""}.`,
    );
  }
}

/**
 * The artifact fallback in a baseline or calibrate job: the newest earlier baseline artifact of the base
 * branch carries the history so far.
 */
async function artifactStoreFromNewestBaseline(scope: JobScope): Promise<HistoryStore> {
  const previous = await downloadNewestBaseline(scope, async () => true);
  return createArtifactHistoryStore({
    previousDir: previous?.dir ?? null,
    outputDir: scope.layout.candidateDir,
  });
}

/**
 * The newest earlier baseline artifact of the base branch (not this job's), downloaded into the history
 * directory and checked, when `wanted` says it is worth the download; null otherwise.
 */
async function downloadNewestBaseline(
  scope: JobScope,
  wanted: (runId: number) => Promise<boolean>,
): Promise<{ dir: string; runId: number } | null> {
  const { context, inputs, plan, layout } = scope;
  if (!plan.baseBranch) return null;
  const search = await findBaseline(scope.github(), {
    owner: context.owner,
    repo: context.repo,
    workflowFile: inputs.baselineWorkflow ?? context.workflowFile,
    baseBranch: plan.baseBranch,
    preferredSha: null,
    artifactName: inputs.baselineArtifact,
  });
  const found = search.found;
  if (!found || found.runId === context.runId || !(await wanted(found.runId))) return null;
  const dir = join(layout.historyDir, "previous-artifact");
  await rm(dir, { recursive: true, force: true });
  await mkdir(layout.historyDir, { recursive: true });
  await scope.store.download(
    {
      id: found.artifactId,
      name: inputs.baselineArtifact,
      sizeBytes: found.artifactSizeBytes,
      runId: found.runId,
    },
    dir,
  );
  await validateBaselineDir(dir);
  return { dir, runId: found.runId };
}

/** What the calibrate mode read from main's history for the between-session drift. */
export interface CalibrationHistory {
  store: string;
  /** Runs of the sessions used (each with its session), steps taken out; empty when refused. */
  runs: RunRecord[];
  sessionsUsed: number;
  /** Sessions left out (recorded under other conditions than the A/A runs). */
  leftOut: number;
  /** Why the history was not used (corrupted, oversized, unreadable); null when it was read. */
  refused: string | null;
}

/**
 * Calibrate mode hook (after the A/A runs): main's history read with the gate's reader and checks (size,
 * every line's schema; the store of the history input, branch or the newest baseline artifact), its
 * last history-sessions sessions under the A/A runs' conditions (`fingerprint`) giving the drift. A
 * history that cannot be read is a warning and the calibration goes on without drift; null: no store.
 */
export async function readHistoryForCalibration(
  scope: JobScope,
  fingerprint: string | null,
): Promise<CalibrationHistory | null> {
  const settings = settingsOf(scope);
  if (settings.store === "off") return null;
  let description: string = settings.store;
  let records: HistoryRecord[];
  try {
    const store =
      settings.store === "branch"
        ? branchStore(scope, settings)
        : await artifactStoreFromNewestBaseline(scope);
    description = store.description;
    records = (await store.read()).records;
  } catch (error) {
    const message = failureText(error);
    scope.io.warning(`Main's history refused: ${message}; the calibration records no between-session drift.`);
    return {
      store: description,
      runs: [],
      sessionsUsed: 0,
      leftOut: 0,
      refused: error instanceof UntrustedHistoryError ? message : `could not be read (${message})`,
    };
  }
  const read = calibrationHistoryRuns(records, fingerprint, settings.sessions);
  scope.io.info(
    `Main's history: ${read.sessions.length} session(s) used from ${description} for the drift, ${read.leftOut.length} left out (other conditions).`,
  );
  return {
    store: description,
    runs: read.runs,
    sessionsUsed: read.sessions.length,
    leftOut: read.leftOut.length,
    refused: null,
  };
}

/** What a gate read from the history, for compare and for judging afterwards. */
export interface GateHistory {
  /**
   * stored: the drift, the pooled run variance and main's level; interleaved: the start prior only (the
   * base side is measured in this job, so neither its drift nor main's level is at stake).
   */
  mode: Measured["mode"];
  settings: HistoryInputs;
  store: string;
  records: HistoryRecord[];
  refused: string | null;
  historyRuns: RunRecord[];
  baselineVariancePriors: Map<string, { variance: number; df: number }>;
  /** Where those priors came from: the sessions used, dated by the first and the last. */
  priorOrigin: PriorOrigin | null;
  leftOut: HistoryReport["leftOut"];
  sessionsUsed: number;
}

/**
 * Gate hook (before compare): the history read and checked. Stored mode reads it for the drift, the
 * pooled run variance and main's level; interleaved mode for the start prior (docs/history.md): with
 * `history: artifact` it rides in the baseline artifact, which an interleaved job does not download, so
 * there it is read from the branch store only. A refused one (corrupted, oversized) is reported and the
 * gate goes on without it (stored: the artifact sessions as before); an absent one is no history.
 */
export async function readHistoryForGate(
  scope: JobScope,
  measured: Measured,
  baseline: { dir: string; info: { runId?: string } },
): Promise<GateHistory | null> {
  const settings = settingsOf(scope);
  if (settings.store === "off") return null;
  if (measured.mode === "interleaved" && settings.store !== "branch") return null;
  const store =
    settings.store === "branch"
      ? branchStore(scope, settings)
      : createArtifactHistoryStore({ previousDir: baseline.dir, outputDir: scope.layout.historyDir });
  const empty = {
    mode: measured.mode,
    settings,
    store: store.description,
    records: [],
    historyRuns: [],
    baselineVariancePriors: new Map(),
    priorOrigin: null,
    leftOut: [],
    sessionsUsed: 0,
  };
  let records: HistoryRecord[];
  try {
    records = (await store.read()).records;
  } catch (error) {
    const message = failureText(error);
    scope.io.warning(
      measured.mode === "stored"
        ? `Main's history refused: ${message}; the gate falls back to the baseline artifacts' sessions.`
        : `Main's history refused: ${message}; the start-to-start prior is gate.noise_prior's (or a calibration's).`,
    );
    return {
      ...empty,
      refused: error instanceof UntrustedHistoryError ? message : `could not be read (${message})`,
    };
  }
  if (records.length === 0) return null;
  const baselineRuns = await loadRuns([baseline.dir], "baseline");
  const fingerprint = baselineRuns[0] ? conditionsHash(baselineRuns[0].fingerprint) : null;
  // The stored baseline's own session is the baseline side itself: not history.
  const baselineSession =
    records.find((r) => baseline.info.runId !== undefined && String(r.session.runId) === baseline.info.runId)
      ?.session.id ?? null;
  const read = runsFromHistory(records, {
    fingerprint,
    lastSessions: settings.sessions,
    excludeSessions: baselineSession ? [baselineSession] : [],
    alignTo: baselineSession,
  });
  scope.io.info(
    `Main's history: ${read.sessions.length} session(s) used from ${store.description}${measured.mode === "interleaved" ? " for the start-to-start prior" : ""}, ${read.leftOut.length} left out (other conditions).`,
  );
  // Main's level is judged on sessions under the baseline's conditions only.
  const otherConditions = new Set(read.leftOut.map((l) => l.session.id));
  return {
    ...empty,
    records: records.filter((r) => !otherConditions.has(r.session.id)),
    refused: null,
    historyRuns: read.runs,
    baselineVariancePriors: pooledRunVariances(read.runs),
    priorOrigin:
      read.sessions.length > 0
        ? {
            source: `main's history (${read.sessions.length} session${read.sessions.length === 1 ? "" : "s"})`,
            basis: "history",
            measuredAt: read.sessions.at(-1)!.recordedAt,
            since: read.sessions[0]!.recordedAt,
          }
        : null,
    leftOut: read.leftOut.map((l) => ({ session: l.session.id, commit: l.session.commit, reason: l.reason })),
    sessionsUsed: read.sessions.length,
  };
}

/**
 * The compare inputs a read history gives. With 2 or more sessions it replaces the artifact sessions
 * (gate.baseline_sessions): it holds them too, checked for fingerprint and aligned across main's steps.
 */
export function historyCompareInputs(history: GateHistory | null) {
  if (!history || history.refused !== null) return {};
  // Interleaved: the sessions' start level as the start prior (compare/history/history-analysis.ts).
  if (history.mode === "interleaved")
    return history.sessionsUsed > 0 ? { historyRuns: history.historyRuns } : {};
  if (history.sessionsUsed < 2) return {};
  return {
    historyDirs: [] as string[],
    historyRuns: history.historyRuns,
    baselineVariancePriors: history.baselineVariancePriors,
    ...(history.priorOrigin ? { baselineVariancePriorOrigin: history.priorOrigin } : {}),
  };
}

/**
 * Gate hook (after compare): the history section for the report, and whether the failure is main's
 * ("main already regressed" with history-main-regressed: pass exempts it).
 */
export function judgeWithHistory(
  scope: JobScope,
  history: GateHistory | null,
  outcome: CompareOutcome,
): { sections: string[]; exempt: boolean } {
  // Interleaved: the base side was measured in this job; the method line names the start prior read.
  if (!history || history.mode === "interleaved") return { sections: [], exempt: false };
  const verdict = outcome.verdictFile ?? null;
  let main: MainAlreadyRegressed | null = null;
  if (verdict && history.records.length > 0) main = mainAlreadyRegressed(verdict, history.records);
  const blocking = history.settings.mainRegressed === "block";
  const pooled = [...history.baselineVariancePriors.values()].map((p) => p.df);
  // Cleaned before it is rendered (and escaped); published with the report, through the job's seam.
  const section = renderHistorySection(
    scope.outbound.clean({
      store: history.store,
      refused: history.refused,
      sessionsUsed: history.sessionsUsed,
      pooledDf: pooled.length > 0 ? Math.min(...pooled) : null,
      leftOut: history.leftOut,
      written: null,
      changePoints: [],
      alreadyOnMain: main && main.explained.length > 0 ? { ...main, blocking } : null,
    }),
  );
  const exempt = Boolean(main?.onlyReproduces) && !blocking && outcome.verdict === "regression";
  if (exempt)
    scope.io.notice(
      "vllm-perf-gate: the regression is one main already has (main already regressed); not blocking.",
    );
  return { sections: [section], exempt };
}
