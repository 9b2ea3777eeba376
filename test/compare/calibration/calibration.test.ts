import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareResults } from "../../../src/app/compare.js";
import {
  type CalibrationFile,
  calibratedNoiseByFamily,
  calibrateFromRuns,
  calibrationFileSchema,
  calibrationPriors,
  calibrationRunPriors,
  calibrationStartPriors,
  parseCalibrationFile,
} from "../../../src/compare/calibration/calibration.js";
import { compareRecords, defaultCompareSettings, verdictFileSchema } from "../../../src/compare/index.js";
import { loadRuns } from "../../../src/compare/inputs/load.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { noSecrets } from "../../job-outbound.js";
import { gaussian, makeRunFile, noisyRuns, seeded, writeResultsDir } from "../fixtures.js";

async function sides(options: { sd: number; runs: number; shiftB?: number; seed?: number }) {
  const dir = await mkdtemp(join(tmpdir(), "calibration-"));
  const seed = options.seed ?? 1;
  const a = await writeResultsDir(join(dir, "a"), noisyRuns(options.runs, { seed, sd: options.sd }));
  const b = await writeResultsDir(
    join(dir, "b"),
    noisyRuns(options.runs, { seed: seed + 100, sd: options.sd, shift: options.shiftB ?? 1 }),
  );
  // The synthetic runs' noise is drawn independently run by run: each run is its own server start.
  const load = (path: string, side: string) => loadRuns([path], side, { freshStarts: true });
  return { dir, a: await load(a, "a"), b: await load(b, "b"), aDir: a, bDir: b };
}

const now = new Date("2026-12-01T12:00:00Z");

/** A calibration of two A/A sides of `runsOnStarts`. */
function startLevelCalibration(
  random: () => number,
  noise: { startSd: number; runSd: number; ttftStartSd?: number },
): CalibrationFile {
  return calibrateFromRuns({
    a: runsOnStarts("a", random, noise),
    b: runsOnStarts("b", random, noise),
    settings: defaultCompareSettings(),
    now,
    resplits: 0,
  });
}

/** A calibration of synthetic A/A sides (every run its own start), written at `createdAt`. */
async function calibrationOf(
  options: { sd: number; runs: number; seed: number },
  createdAt = now,
): Promise<CalibrationFile> {
  const cal = await sides(options);
  return calibrateFromRuns({
    a: cal.a,
    b: cal.b,
    settings: defaultCompareSettings(),
    now: createdAt,
    resplits: 0,
  });
}

/**
 * One A/A side of 4 server starts of 3 runs: each start slows every metric by its own draw (sd
 * `startSd`; TTFT by a further `ttftStartSd`), each run within it by `runSd`.
 */
function runsOnStarts(
  name: string,
  random: () => number,
  { startSd, runSd, ttftStartSd = 0 }: { startSd: number; runSd: number; ttftStartSd?: number },
): RunRecord[] {
  return Array.from({ length: 4 }, (_, start) => {
    const startFactor = Math.exp(startSd * gaussian(random));
    const ttftFactor = ttftStartSd > 0 ? Math.exp(ttftStartSd * gaussian(random)) : 1;
    return Array.from({ length: 3 }, (_, k) => {
      const run = start * 3 + k;
      const file = makeRunFile({
        run,
        slowdown: startFactor * Math.exp(runSd * gaussian(random)),
        ttftFactor,
      });
      return {
        ...runRecordFromRunFile(file, `${name}/chat/run-${run}/run.json`),
        serverStart: { id: `${name}-${start}`, basis: "recorded" as const },
      };
    });
  }).flat();
}

describe("A/A calibration", () => {
  it("records the run spread, the detectable change and no false blocks on A/A runs", async () => {
    const { a, b } = await sides({ sd: 0.03, runs: 8 });
    const file = calibrateFromRuns({ a, b, settings: defaultCompareSettings(), now, resplits: 9 });
    expect(calibrationFileSchema.parse(file)).toEqual(file);
    expect(file.runsPerSide).toBe(8);
    const ttft = file.cells[0]!.metrics.find((m) => m.metric === "ttft_p95")!;
    expect(ttft.gated).toBe(true);
    expect(ttft.runSpread).toBeGreaterThan(0.015);
    expect(ttft.runSpread).toBeLessThan(0.05);
    expect(ttft.df).toBe(14);
    expect(ttft.drift).toBeNull();
    expect(ttft.detectableChange).toBeGreaterThan(file.gate.tolerance);
    expect(ttft.aaSplits).toBe(10);
    expect(file.overall.aaSplits).toBe(10);
    expect(file.overall.falseBlockRate).toBe(0);
  });

  it("counts the blocks of the gate's rule: a side-dependent bias shows in the measured split", async () => {
    // Not an A/A pair: side b 25% slower (a runner whose second side is always disturbed).
    const { a, b } = await sides({ sd: 0.02, runs: 6, shiftB: 1.25 });
    const file = calibrateFromRuns({ a, b, settings: defaultCompareSettings(), now, resplits: 0 });
    const ttft = file.cells[0]!.metrics.find((m) => m.metric === "ttft_p95")!;
    expect(ttft.aaBlocks).toBe(1);
    expect(file.overall.blocked).toBe(1);
    expect(file.overall.falseBlockRate).toBe(1);
  });

  it("a noisier runner catches only larger changes", async () => {
    const quiet = await sides({ sd: 0.01, runs: 6 });
    const loud = await sides({ sd: 0.06, runs: 6 });
    const settings = defaultCompareSettings();
    const detect = (s: typeof quiet) =>
      calibrateFromRuns({ a: s.a, b: s.b, settings, now, resplits: 0 }).cells[0]!.metrics.find(
        (m) => m.metric === "ttft_p95",
      )!.detectableChange!;
    expect(detect(loud)).toBeGreaterThan(detect(quiet) + 0.05);
  });

  it("refuses fewer than 2 runs per side, naming the count", async () => {
    const { a, b } = await sides({ sd: 0.03, runs: 1 });
    expect(() => calibrateFromRuns({ a, b, settings: defaultCompareSettings() })).toThrow(
      /at least 2 healthy runs on each A\/A side, got 1/,
    );
  });

  it("pools its variances with known priors by degrees of freedom", async () => {
    const { a, b } = await sides({ sd: 0.03, runs: 4 });
    const file = calibrateFromRuns({ a, b, settings: defaultCompareSettings(), now, resplits: 0 });
    const own = file.cells[0]!.metrics.find((m) => m.metric === "ttft_p95")!;
    const key = "chat\u0000ttft_p95";
    const pooled = calibrationPriors(file, new Map([[key, { variance: 0.01, df: 6 }]])).get(key)!;
    expect(pooled.df).toBe(own.df + 6);
    expect(pooled.variance).toBeCloseTo((own.variance * own.df + 0.01 * 6) / (own.df + 6), 12);
  });

  it("a bad calibration file names the field and what was expected", () => {
    expect(() => parseCalibrationFile('{"schemaVersion": 2}', "cal.json")).toThrow(
      /cal\.json: field schemaVersion: .*calibration file of schemaVersion 1/,
    );
    expect(() => parseCalibrationFile("{", "cal.json")).toThrow(/cal\.json: not JSON/);
  });

  it("compare uses it as the stored-mode prior under the same conditions, and says why not otherwise", async () => {
    const file = await calibrationOf({ sd: 0.03, runs: 8, seed: 7 });
    const pr = await sides({ sd: 0.03, runs: 3, seed: 11 });
    const run = (calibration?: { file: typeof file; source: string }) =>
      compareResults({
        outbound: noSecrets,
        baseline: [pr.aDir],
        candidate: [pr.bDir],
        mode: "stored",
        now,
        ...(calibration ? { calibration } : {}),
      });
    const detectable = async (calibration?: { file: typeof file; source: string }) =>
      (await run(calibration)).verdict.comparisons.find((c) => c.metric === "ttft_p95")!.detectableChange;
    const without = await detectable();
    const withCal = await detectable({ file, source: "cal.json" });
    expect(withCal).not.toBe(without);
    const other = await run({ file: { ...file, conditions: "0123456789abcdef" }, source: "cal.json" });
    expect(other.verdict.warnings.join("\n")).toMatch(/calibration cal\.json not used: .*other conditions/);
    expect(other.verdict.comparisons.find((c) => c.metric === "ttft_p95")!.detectableChange).toBe(without);
  });
});

describe("A/A calibration of the start level", () => {
  it("measures the start-to-start variance from runs grouped by their server start and hands it to compare", () => {
    // 4 starts a side of 3 runs; each start slows its runs by its own draw (sd 4%), runs within by 0.5%.
    const file = startLevelCalibration(seeded(7), { startSd: 0.04, runSd: 0.005 });
    const ttft = file.cells[0]!.metrics.find((m) => m.metric === "ttft_p95")!;
    expect(ttft.levels?.starts).toBe(8);
    expect(Math.sqrt(ttft.levels!.startVariance!)).toBeGreaterThan(0.015);
    expect(Math.sqrt(ttft.levels!.runVariance)).toBeLessThan(0.01);
    expect(ttft.levels!.startDf).toBeGreaterThan(2);
    const priors = calibrationStartPriors(file, "calibration.json");
    expect(priors.get("chat\u0000ttft_p95")).toMatchObject({
      variance: ttft.levels!.startVariance,
      source: expect.stringMatching(/^calibration calibration\.json \(8 starts/),
    });
  });
});

describe("A/A calibration: the per-run prior from runs that shared starts", () => {
  it("adds the starts' moment estimate unclamped to the run level, so a quiet runner's spread is not overstated", () => {
    // No start effect: 4 starts a side of 3 runs, the runs within a start by 1%.
    const file = startLevelCalibration(seeded(3), { startSd: 0, runSd: 0.01 });
    const metrics = file.cells[0]!.metrics.filter((m) => m.levels?.startVariance != null);
    const priors = calibrationRunPriors(file, "cal.json");
    let belowTheSum = 0;
    for (const m of metrics) {
      const levels = m.levels!;
      expect(levels.perRunVariance).toBeGreaterThan(0);
      const prior = priors.get(`chat\u0000${m.metric}`)!;
      expect(prior.perRun).toEqual({ variance: levels.perRunVariance, df: levels.perRunDf });
      if (levels.startVariance! > 0) {
        expect(levels.perRunVariance).toBeCloseTo(levels.runVariance + levels.startVariance!, 12);
      } else {
        // Starts that agreed more closely than their runs: below the clamped sum, above σ_r²·(1 − 1/3).
        expect(levels.perRunVariance!).toBeLessThan(levels.runVariance);
        expect(levels.perRunVariance!).toBeGreaterThan((levels.runVariance * 2) / 3 - 1e-12);
        belowTheSum++;
      }
    }
    expect(belowTheSum).toBeGreaterThan(0);
  });
});

describe("noise known in advance: a calibration as the interleaved run-level prior", () => {
  const calibrated = (sd: number, createdAt = new Date("2026-11-30T12:00:00Z")) =>
    calibrationOf({ sd, runs: 21, seed: 7 }, createdAt);
  const at = new Date("2026-12-07T12:00:00Z");
  /** An interleaved comparison of a PR's two sides (each run its own start), with or without the calibration. */
  const interleaved = (pr: { aDir: string; bDir: string }, file?: CalibrationFile) =>
    compareResults({
      outbound: noSecrets,
      baseline: [pr.aDir],
      candidate: [pr.bDir],
      mode: "interleaved",
      freshStarts: true,
      now: at,
      ...(file ? { calibration: { file, source: "cal.json" } } : {}),
    });

  it("decides an A/A pull request of 3 runs a side that the runs alone leave inconclusive, and says on what basis", async () => {
    const file = await calibrated(0.02);
    const pr = await sides({ sd: 0.02, runs: 3, seed: 37 });
    const alone = await interleaved(pr);
    const withCal = await interleaved(pr, file);
    expect(alone.verdict.verdict).toBe("inconclusive");
    expect(withCal.verdict.verdict).toBe("pass");
    const ttft = (v: typeof alone) => v.verdict.comparisons.find((c) => c.metric === "ttft_p95")!;
    expect(ttft(alone).noise?.runBasis).toBe("measured");
    expect(ttft(alone).noise?.priors?.run).toBeNull();
    const noise = ttft(withCal).noise!;
    expect(noise.runBasis).toBe("measured+prior");
    // Each side's 2 df plus the calibration's 40 (21 runs a side, each its own start).
    expect(noise.runDf).toEqual({ baseline: 42, candidate: 42 });
    expect(noise.priors?.run).toMatchObject({
      basis: "calibration",
      source: "calibration cal.json",
      df: 40,
      date: "2026-11-30",
      ageDays: 7,
      stale: false,
      use: "pooled",
      widenedOn: [],
    });
    // Every run was its own start: the start level is in the runs' spread, no start prior is applied.
    expect(noise.priors?.start?.use).toBe("unused");
    expect(ttft(withCal).detectableChange!).toBeLessThan(ttft(alone).detectableChange!);
    expect(withCal.reportMarkdown).toMatch(
      /Noise basis: the run-to-run sd pooled with calibration cal\.json of 2026-11-30, 7 days old, 40 df \(\d+ checks\)/,
    );
    expect(alone.reportMarkdown).toMatch(
      /Noise basis: the run-to-run sd comes from this comparison's runs alone/,
    );
    // verdict.json (schemaVersion 2) round-trips with the new fields and still reads files without them.
    expect(verdictFileSchema.parse(withCal.verdict)).toEqual(withCal.verdict);
    const older = structuredClone(withCal.verdict);
    for (const c of older.comparisons)
      if (c.noise) {
        delete c.noise.runBasis;
        delete c.noise.runDf;
        delete c.noise.priors;
      }
    expect(verdictFileSchema.parse(older).schemaVersion).toBe(2);
    expect(() =>
      verdictFileSchema.parse({
        ...withCal.verdict,
        comparisons: [
          { ...ttft(withCal), noise: { ...noise, priors: { start: null, run: { basis: "guess" } } } },
        ],
      }),
    ).toThrow();
  });

  it("blocks a +15% regression at 3 runs a side far more often, and an A/A pair never", () => {
    const random = seeded(3);
    const runsOf = (n: number, side: string, shift: number, sd: number) =>
      Array.from({ length: n }, (_, run) => ({
        ...runRecordFromRunFile(
          makeRunFile({ run, slowdown: shift * Math.exp(sd * gaussian(random)) }),
          `${side}/chat/run-${run}/run.json`,
        ),
        serverStart: { id: `${side}-${run}`, basis: "recorded" as const },
      }));
    const settings = defaultCompareSettings();
    const file = calibrateFromRuns({
      a: runsOf(21, "ca", 1, 0.02),
      b: runsOf(21, "cb", 1, 0.02),
      settings,
      now: at,
      resplits: 0,
    });
    const runVariancePriors = calibrationRunPriors(file, "cal.json");
    const tally = { alone: 0, calibrated: 0, aaBlocks: 0 };
    for (let pr = 0; pr < 40; pr++) {
      const baseline = runsOf(3, `b${pr}`, 1, 0.02);
      const candidate = runsOf(3, `c${pr}`, 1.15, 0.02);
      const aa = runsOf(3, `a${pr}`, 1, 0.02);
      const blocked = (cand: typeof candidate, priors?: typeof runVariancePriors) =>
        compareRecords({
          baseline,
          candidate: cand,
          settings,
          mode: "interleaved",
          now: at,
          ...(priors ? { runVariancePriors: priors } : {}),
        }).verdict.comparisons.find((c) => c.metric === "ttft_p95")!.verdict === "regression";
      if (blocked(candidate)) tally.alone++;
      if (blocked(candidate, runVariancePriors)) tally.calibrated++;
      if (blocked(aa, runVariancePriors)) tally.aaBlocks++;
    }
    // The look's one-sided level is small (α spent over the looks, Holm over the checks): with 2 df a
    // side its t quantile is large, with the calibration's 40 more it is near the normal's.
    expect(tally.alone).toBeLessThanOrEqual(16);
    expect(tally.calibrated).toBeGreaterThanOrEqual(30);
    expect(tally.aaBlocks).toBe(0);
  });

  it("widens a calibration the pull request's runs contradict (a runner that got noisier) and reports it", async () => {
    const file = await calibrated(0.005);
    const pr = await sides({ sd: 0.06, runs: 5, seed: 41 });
    const outcome = await interleaved(pr, file);
    const ttft = outcome.verdict.comparisons.find((c) => c.metric === "ttft_p95")!;
    expect(ttft.noise?.priors?.run).toMatchObject({ use: "widened", widenedOn: ["baseline", "candidate"] });
    expect(ttft.noise?.runBasis).toBe("measured");
    // Each side's own runs alone (a screened outlier run leaves its side one fewer).
    expect(ttft.noise?.runDf).toEqual({
      baseline: ttft.runs.baseline - 1,
      candidate: ttft.runs.candidate - 1,
    });
    expect(outcome.reportMarkdown).toMatch(
      /widened in \d+, whose runs were significantly noisier than it says: their own estimate stood/,
    );
  });

  it("still uses a calibration older than gate.noise_prior.max_age_days, and says so", async () => {
    const file = await calibrated(0.02, new Date("2026-10-01T12:00:00Z"));
    const pr = await sides({ sd: 0.02, runs: 3, seed: 37 });
    const outcome = await interleaved(pr, file);
    const run = outcome.verdict.comparisons.find((c) => c.metric === "ttft_p95")!.noise?.priors?.run;
    expect(run).toMatchObject({ ageDays: 67, stale: true, use: "pooled" });
    expect(outcome.verdict.warnings).toContainEqual(
      expect.stringMatching(
        /^calibration cal\.json of 2026-10-01 is 67 days old, older than gate\.noise_prior\.max_age_days \(30\): its variances are still used/,
      ),
    );
    expect(outcome.reportMarkdown).toMatch(
      /67 days old \(stale: older than gate\.noise_prior\.max_age_days\)/,
    );
  });
});

describe("noise known in advance against a stored baseline", () => {
  it("names main's history with its first and last session, and the calibration pooled with it", async () => {
    const pr = await sides({ sd: 0.03, runs: 3, seed: 11 });
    const history = { variance: 0.03 ** 2, df: 60 };
    const historyPriors = new Map(
      ["ttft_p95", "tpot_p95", "e2el_p95", "output_throughput"].map((metric) => [
        `chat\u0000${metric}`,
        history,
      ]),
    );
    const origin = {
      source: "main's history (12 sessions)",
      basis: "history" as const,
      measuredAt: "2026-11-29T03:00:00Z",
      since: "2026-10-01T03:00:00Z",
    };
    const run = (calibration?: { file: CalibrationFile; source: string }) =>
      compareResults({
        outbound: noSecrets,
        baseline: [pr.aDir],
        candidate: [pr.bDir],
        mode: "stored",
        now: new Date("2026-12-07T12:00:00Z"),
        baselineVariancePriors: historyPriors,
        baselineVariancePriorOrigin: origin,
        ...(calibration ? { calibration } : {}),
      });
    const fromHistory = await run();
    const ttft = fromHistory.verdict.comparisons.find((c) => c.metric === "ttft_p95")!;
    expect(ttft.noise?.priors?.run).toMatchObject({
      basis: "history",
      date: "2026-11-29",
      since: "2026-10-01",
      ageDays: 8,
      df: 60,
      use: "pooled",
    });
    expect(ttft.noise?.runDf?.baseline).toBe(62);
    expect(ttft.noise?.runDf?.candidate).toBe(2);
    expect(fromHistory.reportMarkdown).toMatch(
      /the run-to-run sd pooled with main's history \(12 sessions\) of 2026-10-01 to 2026-11-29, 8 days old, 60 df/,
    );
    const file = await calibrationOf({ sd: 0.03, runs: 8, seed: 7 });
    const both = await run({ file, source: "cal.json" });
    const pooled = both.verdict.comparisons.find((c) => c.metric === "ttft_p95")!.noise?.priors?.run;
    expect(pooled).toMatchObject({
      basis: "calibration+history",
      source: "calibration cal.json + main's history (12 sessions)",
      date: "2026-12-01",
      since: "2026-10-01",
      df: 60 + 14,
    });
  });
});

describe("calibratedNoiseByFamily (the run planner's view)", () => {
  it("gives per cell and metric family the noisiest gated metric's start and run variances with their df", () => {
    // 4 starts a side of 3 runs: starts move TTFT by 3% (and the rest by 1%), runs within a start by 1%.
    const file = startLevelCalibration(seeded(11), { startSd: 0.01, runSd: 0.01, ttftStartSd: 0.03 });
    const byFamily = calibratedNoiseByFamily(file, new Date("2026-12-11T12:00:00Z")).get("chat")!;
    const ttft = byFamily.get("ttft")!;
    expect(ttft.metric).toBe("ttft_p95");
    expect(ttft.ageDays).toBe(10);
    expect(ttft.requestsPerRun).toBe(1200);
    const levels = file.cells[0]!.metrics.find((m) => m.metric === "ttft_p95")!.levels!;
    expect(ttft.start).toEqual({ variance: levels.startVariance, df: levels.startDf });
    expect(ttft.withinStart).toEqual({ variance: levels.runVariance, df: levels.runDf });
    // A run on its own start carries both levels, with Satterthwaite's df of the sum (the starts'
    // moment estimate is above 0 here, so it is the clamped start variance).
    const sum = levels.startVariance! + levels.runVariance;
    expect(ttft.perRun!.variance).toBeCloseTo(sum, 12);
    expect(ttft.perRun!.df).toBeCloseTo(
      sum ** 2 / (levels.startVariance! ** 2 / levels.startDf + levels.runVariance ** 2 / levels.runDf),
      9,
    );
    // The gated families of the default config, each with a measured start level.
    expect([...byFamily.keys()].sort()).toEqual(["e2e", "throughput", "tpot", "ttft"]);
    expect(Math.sqrt(ttft.start!.variance)).toBeGreaterThan(Math.sqrt(byFamily.get("tpot")!.start!.variance));
  });
});
