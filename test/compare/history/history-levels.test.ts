import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareResults } from "../../../src/app/compare.js";
import {
  type HistoryRecord,
  historyRecordsFromRuns,
  runsFromHistory,
} from "../../../src/compare/history/history.js";
import { historyLevels, historyStartPriors } from "../../../src/compare/history/history-analysis.js";
import { pooledStartPriors } from "../../../src/compare/noise/start-noise.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import type { RunFile } from "../../../src/metrics/run-schema.js";
import { noSecrets } from "../../job-outbound.js";
import {
  baseFingerprint,
  gaussian,
  makeRunFile,
  seeded,
  steadyFactors,
  writeResultsDir,
} from "../fixtures.js";
import { session } from "./history-fixtures.js";

/**
 * Main's history as the start level's evidence (docs/history.md, "The start and run levels"): baseline
 * jobs that record their runs over two starts or more let the history estimate both levels.
 */

const now = new Date("2026-12-08T00:00:00Z");

/**
 * `sessions` baseline sessions of `starts` starts of `perStart` runs of the cell "chat": each start slows
 * its runs by e^{startSd·z}, each run by e^{runSd·z}; `odd` adds a factor to one start of that session.
 */
function sessionRuns(
  sessions: number,
  options: {
    starts?: number;
    perStart?: number;
    startSd: number;
    runSd: number;
    seed: number;
    odd?: [number, number];
  },
): RunRecord[] {
  const random = seeded(options.seed);
  const runs: RunRecord[] = [];
  for (let s = 0; s < sessions; s++)
    for (let start = 0; start < (options.starts ?? 2); start++) {
      const startFactor =
        Math.exp(options.startSd * gaussian(random)) *
        (options.odd && options.odd[0] === s && start === 0 ? options.odd[1] : 1);
      for (let k = 0; k < (options.perStart ?? 3); k++) {
        const run = start * (options.perStart ?? 3) + k;
        const file = makeRunFile({ run, slowdown: startFactor * Math.exp(options.runSd * gaussian(random)) });
        runs.push({
          ...runRecordFromRunFile(file, `s${s}/chat/run-${run}/run.json`),
          session: `${100 + s}-1`,
          serverStart: { id: `s${s}-start-${start}`, basis: "recorded" },
        });
      }
    }
  return runs;
}

describe("historyLevels", () => {
  it("estimates the start and run levels from sessions of several starts, with their degrees of freedom", () => {
    const runs = sessionRuns(20, { startSd: 0.02, runSd: 0.005, seed: 3 });
    const level = historyLevels(runs).get("chat\u0000ttft_p95")!;
    // 20 sessions of 2 starts: 20 df at the start level, 20 × (6 − 2) = 80 within starts.
    expect(level).toMatchObject({ sessions: 20, starts: 40, startDf: 20, runDf: 80, screenedSessions: [] });
    expect(Math.sqrt(level.startVariance)).toBeGreaterThan(0.012);
    expect(Math.sqrt(level.startVariance)).toBeLessThan(0.03);
    expect(Math.sqrt(level.runVariance)).toBeCloseTo(0.005, 2);
  });

  it("leaves out a session whose start was odd, and names it", () => {
    // One start of session 4 ran 12% slow: beside 1% starts elsewhere an odd start, not the runner's level.
    const runs = sessionRuns(12, { startSd: 0.01, runSd: 0.005, seed: 5, odd: [4, 1.12] });
    const level = historyLevels(runs).get("chat\u0000ttft_p95")!;
    expect(level.screenedSessions).toEqual(["104-1"]);
    expect(level.sessions).toBe(11);
    expect(Math.sqrt(level.startVariance)).toBeLessThan(0.02);
    // Screened, the estimate is the other 11 sessions'.
    const all = historyLevels(runs.filter((run) => run.session !== "104-1"));
    expect(all.get("chat\u0000ttft_p95")!.startVariance).toBeCloseTo(level.startVariance, 12);
    const prior = historyStartPriors(runs).get("chat\u0000ttft_p95")!;
    expect(prior.source).toBe("history: 11 sessions, 22 starts; 1 session with an odd start left out");
  });

  it("cannot see the start level in sessions of one start, or of one run a start", () => {
    const oneStart = sessionRuns(6, { starts: 1, perStart: 6, startSd: 0.02, runSd: 0.005, seed: 7 });
    const oneRun = sessionRuns(6, { starts: 6, perStart: 1, startSd: 0.02, runSd: 0.005, seed: 7 });
    expect(historyLevels(oneStart).size).toBe(0);
    expect(historyLevels(oneRun).size).toBe(0);
  });

  it("reads the starts main's history file keeps for each run", () => {
    const runs = sessionRuns(3, { startSd: 0.02, runSd: 0.005, seed: 9 });
    const records: HistoryRecord[] = [0, 1, 2].flatMap((s) =>
      historyRecordsFromRuns(
        runs.filter((run) => run.session === `${100 + s}-1`),
        session(100 + s),
      ),
    );
    const read = runsFromHistory(records, { fingerprint: null, lastSessions: 20 });
    const fromFile = historyLevels(read.runs).get("chat\u0000ttft_p95")!;
    expect(fromFile).toMatchObject({ sessions: 3, starts: 6 });
    // Six significant digits in the file: the same levels as the runs themselves.
    const direct = historyLevels(runs).get("chat\u0000ttft_p95")!;
    expect(fromFile.startVariance).toBeCloseTo(direct.startVariance, 6);
  });
});

describe("the start prior from main's history and a calibration", () => {
  it("pools them by degrees of freedom and names both, dated by the newest and since the oldest", () => {
    const pooled = pooledStartPriors(
      new Map([
        [
          "c\u0000m",
          {
            variance: 0.0004,
            df: 4,
            source: "calibration cal.json (8 starts)",
            basis: "calibration" as const,
            measuredAt: "2026-12-01T00:00:00.000Z",
          },
        ],
      ]),
      new Map([
        [
          "c\u0000m",
          {
            variance: 0.0001,
            df: 12,
            source: "history: 12 sessions, 24 starts",
            basis: "history" as const,
            measuredAt: "2026-12-07T00:00:00.000Z",
            since: "2026-11-20T00:00:00.000Z",
          },
        ],
        [
          "c\u0000n",
          {
            variance: 0.0009,
            df: 3,
            source: "history: 3 sessions, 6 starts",
            basis: "history" as const,
            measuredAt: null,
          },
        ],
      ]),
    );
    expect(pooled.get("c\u0000m")).toEqual({
      variance: (0.0004 * 4 + 0.0001 * 12) / 16,
      df: 16,
      source: "calibration cal.json (8 starts) + history: 12 sessions, 24 starts",
      basis: "calibration+history",
      measuredAt: "2026-12-07T00:00:00.000Z",
      since: "2026-11-20T00:00:00.000Z",
    });
    expect(pooled.get("c\u0000n")!.df).toBe(3);
  });

  /** Main's sessions (runs above) written as results directories, one a session, under `fingerprint`. */
  async function historyDirsOf(dir: string, runs: RunRecord[], fingerprint = baseFingerprint) {
    const dirs: string[] = [];
    const sessions = [...new Set(runs.map((run) => run.session!))];
    for (const [s, id] of sessions.entries()) {
      const files: RunFile[] = runs
        .filter((run) => run.session === id)
        .map((run, k) => ({
          ...makeRunFile({ run: k, slowdown: (run.metrics.ttft_p95 ?? 100) / 100, fingerprint }),
          serverStart: { id: run.serverStart!.id, startedAt: "2026-12-01T00:00:00.000Z", side: "baseline" },
        }));
      dirs.push(await writeResultsDir(join(dir, `session-${s}`), files));
    }
    return dirs;
  }

  /** An A/A of one start a side whose starts differ by 1.5%, compared interleaved with `history`. */
  async function aaWith(dir: string, history?: string[]) {
    const side = async (name: string, factor: number) =>
      writeResultsDir(
        join(dir, name),
        steadyFactors.slice(0, 5).map((f, run) => ({
          ...makeRunFile({ run, slowdown: f * factor }),
          serverStart: { id: `${name}-start`, startedAt: "2026-12-08T00:00:00.000Z", side: name },
        })),
      );
    const outcome = await compareResults({
      baseline: [await side("baseline", 1)],
      candidate: [await side("candidate", 1.015)],
      mode: "interleaved",
      now,
      outbound: noSecrets,
      ...(history ? { history } : {}),
    });
    return { outcome, ttft: outcome.verdict.comparisons.find((c) => c.metric === "ttft_p95")! };
  }

  it("outweighs gate.noise_prior's in an interleaved comparison, pooled with it, and the report names both", async () => {
    const dir = await mkdtemp(join(tmpdir(), "history-levels-"));
    // Main's sessions say this runner's starts differ by about 0.5% on TTFT p95; the prior says 3%.
    const history = await historyDirsOf(dir, sessionRuns(12, { startSd: 0.005, runSd: 0.005, seed: 11 }));
    const withPrior = (await aaWith(join(dir, "prior"))).ttft;
    expect(withPrior.noise?.priorSource).toBe("gate.noise_prior.ttft");
    const { outcome, ttft } = await aaWith(join(dir, "history"), history);
    expect(ttft.noise?.priorSource).toBe("history: 12 sessions, 24 starts + gate.noise_prior.ttft");
    expect(ttft.noise?.startBasis).toBe("prior");
    // 12 df of history pooled with the prior's 4 (weight_starts): well below the prior's 3% alone.
    expect(ttft.noise!.startSd).toBeLessThan(0.02);
    expect(ttft.noise!.startDf).toBe(16);
    // The runner's own, quieter start level: a tighter interval than the 3% prior gives.
    expect(ttft.ci90![1] - ttft.ci90![0]).toBeLessThan(withPrior.ci90![1] - withPrior.ci90![0]);
    expect(outcome.reportMarkdown).toContain("history: 12 sessions, 24 starts");
  });

  it("leaves out sessions recorded under other conditions than the baseline", async () => {
    const dir = await mkdtemp(join(tmpdir(), "history-levels-"));
    const other = { ...baseFingerprint, gpu: { name: "other", count: 1 } };
    const history = await historyDirsOf(
      dir,
      sessionRuns(12, { startSd: 0.005, runSd: 0.005, seed: 11 }),
      other,
    );
    const { ttft } = await aaWith(join(dir, "aa"), history);
    expect(ttft.noise?.priorSource).toBe("gate.noise_prior.ttft");
  });
});
