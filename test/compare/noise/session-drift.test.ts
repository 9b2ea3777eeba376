import { describe, expect, it } from "vitest";
import { compareAndRender } from "../../../src/app/compare.js";
import { defaultCompareSettings } from "../../../src/compare/index.js";
import { cellSessionDrift, estimateSessionDrift } from "../../../src/compare/noise/session-drift.js";
import { verdictFileSchema } from "../../../src/compare/verdict/verdict-schema.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { gaussian, noisyRuns, seeded } from "../fixtures.js";

const now = new Date("2026-12-01T09:00:00Z");

/** k baseline sessions of `runs` runs each, each session's level drawn with sd `drift` (ln scale). */
function sessions(
  count: number,
  options: { seed: number; drift: number; runs?: number; sd?: number; levels?: number[] },
): RunRecord[] {
  const random = seeded(options.seed);
  return Array.from({ length: count }, (_, s) => {
    const level = options.levels?.[s] ?? Math.exp(options.drift * gaussian(random));
    return noisyRuns(options.runs ?? 5, {
      seed: options.seed * 100 + s,
      sd: options.sd ?? 0.01,
      shift: level,
    }).map((run, i) => ({
      ...runRecordFromRunFile(run, `session-${s}/chat/run-${i}/run.json`),
      session: `session-${s}`,
    }));
  }).flat();
}

function candidate(seed: number, shift = 1): RunRecord[] {
  return noisyRuns(5, { seed, sd: 0.01, shift }).map((run, i) => ({
    ...runRecordFromRunFile(run, `candidate/chat/run-${i}/run.json`),
    session: "candidate",
  }));
}

function stored(baseline: RunRecord[], history: RunRecord[], cand = candidate(9)) {
  const outcome = compareAndRender({
    baseline,
    candidate: cand,
    history,
    settings: defaultCompareSettings(),
    mode: "stored",
    now,
  });
  verdictFileSchema.parse(outcome.verdict);
  return outcome;
}

describe("between-session drift from the baseline history", () => {
  it("uses the prior alone with a single session, and says so", () => {
    const one = sessions(1, { seed: 1, drift: 0.03 });
    const outcome = stored(one, []);
    const estimate = outcome.verdict.settings.sessionDriftEstimates.ttft_p95!;
    expect(estimate).toMatchObject({ source: "prior", sessions: 0, historySd: null });
    expect(estimate.sd).toBeCloseTo(0.02, 12);
    expect(outcome.reportMarkdown).toMatch(
      /the prior `gate\.session_drift_sd`: fewer than 2 baseline sessions/,
    );
  });

  it("a quiet history lowers the drift below the prior: the prior is no floor", () => {
    const all = sessions(10, { seed: 2, drift: 0.002 });
    const primary = all.filter((run) => run.session === "session-0");
    const outcome = stored(
      primary,
      all.filter((run) => run.session !== "session-0"),
    );
    const estimate = outcome.verdict.settings.sessionDriftEstimates.ttft_p95!;
    expect(estimate).toMatchObject({ source: "history", sessions: 10 });
    // Shrunk towards the prior 0.02 with weight 9/13, from a history of almost no drift.
    expect(estimate.historyWeight).toBeCloseTo(9 / 13, 12);
    expect(estimate.sd).toBeLessThan(0.015);
    expect(estimate.sd).toBeGreaterThan(0.005);
    expect(outcome.reportMarkdown).toMatch(
      /estimated from 10 baseline sessions and shrunk towards the prior 0\.02/,
    );
  });

  it("a history that drifts more than the prior widens the interval, shrunk while sessions are few", () => {
    const all = sessions(10, {
      seed: 3,
      drift: 0.04,
      levels: [1, 1.04, 0.96, 1.05, 0.95, 1.03, 0.97, 1.04, 0.96, 1],
    });
    const primary = all.filter((run) => run.session === "session-0");
    const history = all.filter((run) => run.session !== "session-0");
    const estimate = stored(primary, history).verdict.settings.sessionDriftEstimates.ttft_p95!;
    expect(estimate.historySd!).toBeGreaterThan(0.045);
    expect(estimate.sd).toBeGreaterThan(0.035);
    expect(estimate.sd).toBeLessThan(estimate.historySd!);
    // With 3 sessions the prior keeps most of the weight.
    const few = history.filter((run) => ["session-1", "session-2"].includes(run.session!));
    const fewEstimate = stored(primary, few).verdict.settings.sessionDriftEstimates.ttft_p95!;
    expect(fewEstimate).toMatchObject({ sessions: 3 });
    expect(fewEstimate.historyWeight).toBeCloseTo(2 / 6, 12);
    expect(fewEstimate.sd).toBeLessThan(estimate.sd);
  });

  it("screens an outlier session and an outlier run instead of reading them as drift", () => {
    const levels = [1, 1.005, 0.995, 1.002, 0.998, 1.004, 0.996, 1.001, 0.999, 1.3];
    const all = sessions(10, { seed: 4, drift: 0, levels });
    // One throttled run in an otherwise normal session.
    const throttled = all.find((run) => run.session === "session-3" && run.run === 2)!;
    for (const metric of Object.keys(throttled.metrics) as (keyof typeof throttled.metrics)[]) {
      const value = throttled.metrics[metric];
      if (typeof value === "number" && metric.includes("_p")) throttled.metrics[metric] = value * 1.3;
    }
    const primary = all.filter((run) => run.session === "session-0");
    const estimate = stored(
      primary,
      all.filter((run) => run.session !== "session-0"),
    ).verdict.settings.sessionDriftEstimates.ttft_p95!;
    expect(estimate.screenedSessions).toEqual(["session-9"]);
    // The action's sessions are download directories: the report names the run id, not the path.
    const asDirs = all.map((run) => ({
      ...run,
      session: `/tmp/job/baseline-history/${run.session!.slice(8)}`,
    }));
    const report = stored(
      asDirs.filter((run) => run.session.endsWith("/0")),
      asDirs.filter((run) => !run.session.endsWith("/0")),
    ).reportMarkdown;
    expect(report).toContain("1 outlier session screened (9), 1 outlier run screened");
    expect(estimate.screenedRuns).toBe(1);
    expect(estimate.sessions).toBe(9);
    expect(estimate.historySd!).toBeLessThan(0.01);
    expect(estimate.sd).toBeLessThan(0.02);
  });

  it("the drift the report states is the one the interval was widened by", () => {
    const all = sessions(10, { seed: 5, drift: 0.002 });
    const primary = all.filter((run) => run.session === "session-0");
    const withHistory = stored(
      primary,
      all.filter((run) => run.session !== "session-0"),
    );
    const prior = stored(primary, []);
    const width = (outcome: ReturnType<typeof stored>) => {
      const c = outcome.verdict.comparisons.find((row) => row.metric === "ttft_p95")!;
      return Math.log(c.ci![1]) - Math.log(c.ci![0]);
    };
    expect(width(withHistory)).toBeLessThan(width(prior));
  });

  it("a session whose runs are all screened is left out, never averaged as empty (NaN)", () => {
    // Half the runs of s3 are 1.3x slower: its median lies between the clusters, beyond 4 sds of each.
    const quiet = (shift: number) => [0, 0.01, -0.01, 0.005, -0.005, 0.002].map((v) => 5 + shift + v);
    const split = [5, 5.01, 5.005, 5.26, 5.27, 5.265];
    const drift = cellSessionDrift(
      new Map([
        ["s1", quiet(0)],
        ["s2", quiet(0.01)],
        ["s3", split],
        ["s4", quiet(-0.01)],
      ]),
    )!;
    expect(Number.isFinite(drift.t2)).toBe(true);
    expect(drift.sessions).toBe(3);
    expect(drift.screenedRuns).toBe(6);
  });

  it("cellSessionDrift follows the Kalibera-Jones moments on clean balanced data", () => {
    const data = new Map([
      ["a", [10, 11, 12, 11].map(Math.log)],
      ["b", [14, 15, 13, 14].map(Math.log)],
      ["c", [9, 10, 11, 10].map(Math.log)],
    ]);
    const drift = cellSessionDrift(data)!;
    const means = [...data.values()].map((v) => v.reduce((s, x) => s + x, 0) / v.length);
    const grand = means.reduce((s, m) => s + m, 0) / 3;
    const between = means.reduce((s, m) => s + (m - grand) ** 2, 0) / 2;
    expect(drift.sessions).toBe(3);
    expect(drift.t2).toBeGreaterThan(0);
    expect(drift.t2).toBeLessThan(between);
    expect(estimateSessionDrift([], { priorSd: 0.02, baselineSessions: 1 }).get("ttft_p95")).toMatchObject({
      source: "prior",
      differenceVariance: 0.02 ** 2,
    });
  });
});
