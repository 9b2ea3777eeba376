import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareResults } from "../../src/app/compare.js";
import {
  calibrateFromRuns,
  calibrationFileSchema,
  calibrationPriors,
  calibrationStartPriors,
  parseCalibrationFile,
} from "../../src/compare/calibration.js";
import { defaultCompareSettings } from "../../src/compare/index.js";
import { loadRuns } from "../../src/compare/load.js";
import { type RunRecord, runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { gaussian, makeRunFile, noisyRuns, seeded, writeResultsDir } from "./fixtures.js";

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
    const cal = await sides({ sd: 0.03, runs: 8, seed: 7 });
    const file = calibrateFromRuns({
      a: cal.a,
      b: cal.b,
      settings: defaultCompareSettings(),
      now,
      resplits: 0,
    });
    const pr = await sides({ sd: 0.03, runs: 3, seed: 11 });
    const run = (calibration?: { file: typeof file; source: string }) =>
      compareResults({
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
    const random = seeded(7);
    const side = (name: string): RunRecord[] =>
      Array.from({ length: 4 }, (_, start) => {
        const startFactor = Math.exp(0.04 * gaussian(random));
        return Array.from({ length: 3 }, (_, k) => {
          const run = start * 3 + k;
          const file = makeRunFile({ run, slowdown: startFactor * Math.exp(0.005 * gaussian(random)) });
          return {
            ...runRecordFromRunFile(file, `${name}/chat/run-${run}/run.json`),
            serverStart: { id: `${name}-${start}`, basis: "recorded" as const },
          };
        });
      }).flat();
    const file = calibrateFromRuns({
      a: side("a"),
      b: side("b"),
      settings: defaultCompareSettings(),
      now,
      resplits: 0,
    });
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
