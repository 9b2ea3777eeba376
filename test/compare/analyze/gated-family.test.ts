import { describe, expect, it } from "vitest";
import { analyze } from "../../../src/compare/analyze/analyze.js";
import { adjustGatedFamily, type FamilyMember } from "../../../src/compare/analyze/gated-family.js";
import { guardChecks } from "../../../src/compare/analyze/guards.js";
import { taskChecks } from "../../../src/compare/analyze/tasks.js";
import { capacityCells, compareCapacity } from "../../../src/compare/capacity/capacity.js";
import { compareRecords, defaultCompareSettings, settingsFromConfig } from "../../../src/compare/index.js";
import { verdictFileSchema } from "../../../src/compare/verdict/verdict-schema.js";
import { configSchema } from "../../../src/config/schema.js";
import type { RunGuards, RunOutput } from "../../../src/metrics/guards.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { renderMarkdown } from "../../../src/report/markdown.js";
import { errorIncreaseMinP, shareIncreaseP } from "../../../src/stats/error-rate.js";
import { capacityCell, doublingCapacityRuns } from "../capacity/capacity-fixtures.js";
import { makeRunFile } from "../fixtures.js";

const member = (p: number, minP = 0, improvement: number | null = null): FamilyMember => ({
  source: "speed",
  regression: { p, minP },
  improvement: improvement === null ? null : { p: improvement, minP: 0 },
});

describe("adjustGatedFamily (Holm by hand)", () => {
  it("adjusts the regression tests together, the improvement tests apart", () => {
    const family = adjustGatedFamily(
      [member(0.01, 0, 0.5), member(0.04, 0, 0.001), member(0.2), { ...member(0.03), source: "guard" }],
      0.05,
    );
    // Sorted 0.01, 0.03, 0.04, 0.2: 4 x 0.01 = 0.04; 3 x 0.03 = 0.09; 2 x 0.04 = 0.08 -> 0.09 (step-down
    // keeps the running maximum); 1 x 0.2 = 0.2.
    expect(family.members.map((m) => m.regression)).toEqual(
      [0.04, 0.09, 0.2, 0.09].map((p) => expect.closeTo(p, 12)),
    );
    // Improvement: 0.001 x 2 = 0.002, 0.5 x 1 = 0.5; no test for the others.
    expect(family.members.map((m) => m.improvement)).toEqual([
      expect.closeTo(0.5, 12),
      expect.closeTo(0.002, 12),
      null,
      null,
    ]);
    expect(family.summary.regression).toEqual({
      speed: 3,
      capacity: 0,
      guard: 1,
      task: 0,
      total: 4,
      leftOut: 0,
    });
  });

  it("leaves out a test that cannot reach the level (Tarone): the others are not made stricter", () => {
    const family = adjustGatedFamily([member(0.01), member(0.02), member(1, 1), member(0.3, 0.06)], 0.05);
    // Family of the first two: 2 x 0.01 = 0.02, 1 x 0.02 = 0.02; the left-out ones keep their raw p.
    expect(family.members.map((m) => m.regression)).toEqual([
      expect.closeTo(0.02, 12),
      expect.closeTo(0.02, 12),
      1,
      0.3,
    ]);
    expect(family.members.map((m) => m.inFamily)).toEqual([true, true, false, false]);
    expect(family.summary.regression.leftOut).toBe(2);
    // No test at all: outside, p null.
    const none = adjustGatedFamily([{ source: "guard", regression: null, improvement: null }], 0.05);
    expect(none.members[0]).toEqual({ regression: null, improvement: null, inFamily: false });
    expect(none.summary.regression.total).toBe(0);
  });
});

describe("shareIncreaseP (Fisher's exact test, values from scipy.stats.hypergeom.sf)", () => {
  it("1 of 3 against 2 of 3: X ~ Hypergeometric(6, 3, 3), P(X >= 2) = 10/20, smallest p 1/20", () => {
    const test = shareIncreaseP({ count: 1, total: 3 }, { count: 2, total: 3 });
    expect(test.p).toBeCloseTo(0.5, 12);
    expect(test.minP).toBeCloseTo(0.05, 12);
  });

  it("600 of 6,000 against 690 of 6,000: p = 0.0043483481920709", () => {
    const test = shareIncreaseP({ count: 600, total: 6000 }, { count: 690, total: 6000 });
    expect(test.p).toBeCloseTo(0.0043483481920709, 12);
    expect(test.minP).toBeLessThan(1e-300 + 1e-12);
  });

  it("20 of 200 against 29 of 200: p = 0.11108808966320", () => {
    expect(shareIncreaseP({ count: 20, total: 200 }, { count: 29, total: 200 }).p).toBeCloseTo(
      0.1110880896632,
      11,
    );
  });

  it("a forced count can never reject: no event, or every request counted, on both sides", () => {
    expect(shareIncreaseP({ count: 0, total: 500 }, { count: 0, total: 500 })).toEqual({ p: 1, minP: 1 });
    expect(shareIncreaseP({ count: 500, total: 500 }, { count: 400, total: 400 })).toEqual({ p: 1, minP: 1 });
    // A drop: p 1, but the conditioning allows 10 on the candidate's side (P = 0.00095473258267).
    const drop = shareIncreaseP({ count: 10, total: 1000 }, { count: 0, total: 1000 });
    expect(drop.p).toBe(1);
    expect(drop.minP).toBeCloseTo(0.00095473258267081, 13);
  });

  it("errorIncreaseMinP: all k failures on the candidate's side, share^k", () => {
    expect(errorIncreaseMinP({ failed: 2, total: 100 }, { failed: 1, total: 300 })).toBeCloseTo(
      0.75 ** 3,
      14,
    );
    expect(errorIncreaseMinP({ failed: 0, total: 100 }, { failed: 0, total: 100 })).toBe(1);
  });
});

/** EOS honoured: 1,200 requests a run, `length` of them at max_tokens, lengths with spread. */
function guards(length: number, mean = 100): RunGuards {
  return {
    ignoreEos: false,
    requests: 1200,
    finish: { stop: 1200 - length, length, abort: 0, other: 0 },
    zeroOutput: 0,
    usageMismatch: 0,
    outputTokens: { count: 1200, mean, std: 40 },
    outputToMaxTokens: 0.4,
  };
}

const jitter = [1, 1.03, 0.97, 1.01, 0.99];

function side(name: string, ttft: number, withGuards: RunGuards | null, outputs?: RunOutput[]): RunRecord[] {
  return jitter.map((j, run) => ({
    ...runRecordFromRunFile(makeRunFile({ run, ttftFactor: ttft * j }), `${name}/chat/run-${run}/run.json`),
    ...(withGuards ? { guards: withGuards } : {}),
    ...(outputs && run === 0 ? { outputs } : {}),
  }));
}

function decide(baseline: RunRecord[], candidate: RunRecord[]) {
  const settings = defaultCompareSettings();
  const verdict = analyze({
    baseline,
    candidate,
    gate: settings.gate,
    repeats: settings.repeats,
    mode: "interleaved",
    now: "2026-12-01T15:00:00.000Z",
    tool: { name: "test", version: "0" },
  });
  verdictFileSchema.parse(verdict);
  return verdict;
}

describe("one gated family per comparison: speed and quality checks", () => {
  it("a guard check's adjusted p counts the speed checks; alone it would count only the guards", () => {
    const verdict = decide(side("b", 1, guards(120)), side("c", 1, guards(150, 101)));
    const share = verdict.quality!.guards.find((c) => c.metric === "finish_length_share")!;
    // 600 of 6,000 at max_tokens against 750 of 6,000; the smallest p of the family.
    expect(share.pRaw!).toBeCloseTo(
      shareIncreaseP({ count: 600, total: 6000 }, { count: 750, total: 6000 }).p,
      15,
    );
    // The family: TTFT, TPOT, E2E p95 and output throughput (no failed request: the error rate's test
    // cannot reach the level) and the two guards with a test (the length share and the mean length; no
    // zero output, abort or usage mismatch anywhere, so those three cannot reach it). Smallest of 6: x 6.
    expect(verdict.settings.gatedFamily!.regression).toEqual({
      speed: 4,
      capacity: 0,
      guard: 2,
      task: 0,
      total: 6,
      leftOut: 4,
    });
    expect(share.p!).toBeCloseTo(6 * share.pRaw!, 15);
    expect(share.inFamily).toBe(true);
    expect(share.verdict).toBe("regression");
    // In a family of the guards alone it is the smallest of 2: x 2.
    const compared = [
      { cell: "chat", base: side("b", 1, guards(120)), cand: side("c", 1, guards(150, 101)), tooFew: false },
    ];
    const settings = {
      guards: { enabled: true, share_points: 0.02, output_length_tolerance: 0.1 },
      metricTolerance: {},
      alpha: verdict.settings.lookAlpha,
    };
    const alone = guardChecks(compared, settings, [])!.find((c) => c.metric === "finish_length_share")!;
    expect(alone.p!).toBeCloseTo(2 * share.pRaw!, 15);
    const zero = verdict.quality!.guards.find((c) => c.metric === "zero_output_share")!;
    expect(zero).toMatchObject({ p: 1, pRaw: 1, inFamily: false, verdict: "within-tolerance" });
  });

  it("a borderline speed check's adjusted p counts the quality checks in the family", () => {
    // TTFT 12.4% slower: raw p of "worse by more than 5%" 0.00067 at the first look (α = 0.05 x 5/75).
    const speedOnly = decide(side("b", 1, null), side("c", 1.124, null));
    const ttft = speedOnly.comparisons.find((c) => c.metric === "ttft_p95")!;
    const alpha = speedOnly.settings.lookAlpha;
    expect(alpha).toBeCloseTo(0.05 / 15, 15);
    expect(ttft.pRaw!).toBeGreaterThan(alpha / 6);
    expect(ttft.pRaw!).toBeLessThan(alpha / 4);
    // Speed alone: the smallest of 4 tests, x 4, under α: a regression.
    expect(ttft.p!).toBeCloseTo(4 * ttft.pRaw!, 15);
    expect(ttft.verdict).toBe("regression");
    // The same runs with guard counts: the length share rose 1.5 points (within 2, p 0.00435) and the
    // mean length 1%, both tested, both in the family. TTFT is still the smallest p, now of 6: x 6 > α.
    const joined = decide(side("b", 1, guards(120)), side("c", 1.124, guards(138, 101)));
    const ttftJoined = joined.comparisons.find((c) => c.metric === "ttft_p95")!;
    expect(ttftJoined.pRaw).toBe(ttft.pRaw);
    expect(ttftJoined.p!).toBeCloseTo(6 * ttft.pRaw!, 15);
    expect(ttftJoined.verdict).toBe("inconclusive");
    const share = joined.quality!.guards.find((c) => c.metric === "finish_length_share")!;
    expect(share.pRaw!).toBeCloseTo(0.0043483481920709, 12);
    // The second step of Holm: 5 x 0.00435.
    expect(share.p!).toBeCloseTo(5 * share.pRaw!, 15);
    expect(share.verdict).toBe("within-tolerance");
    // The report says which tests the family held.
    const markdown = renderMarkdown(joined, { form: "report" });
    expect(markdown).toContain(
      "gated family of 6 tests (4 speed, 2 guard; 4 that cannot reach the level left out)",
    );
  });

  it("a task check joins the same family: its McNemar p is adjusted with the speed checks'", () => {
    const scored = (tasks: number, wrong: (i: number) => boolean): RunOutput[] =>
      Array.from({ length: tasks }, (_, index) => ({
        index,
        ok: true,
        finishReason: "stop",
        text: "",
        tokens: null,
        logprobs: null,
        task: { reference: "", correct: !wrong(index) },
      }));
    // 40 tasks; the candidate misses 6 the baseline got right and gets 1 the baseline missed. McNemar
    // conditions on the 7 discordant pairs: its smallest p is 1/128 > α, so it is left out of the family.
    const few = decide(
      side(
        "b",
        1,
        null,
        scored(40, (i) => i === 39),
      ),
      side(
        "c",
        1,
        null,
        scored(40, (i) => i < 6),
      ),
    );
    const fewTask = few.quality!.tasks![0]!;
    expect(fewTask.pRaw).toBeCloseTo(8 / 128, 15);
    expect(fewTask).toMatchObject({ inFamily: false, verdict: "within-tolerance" });
    expect(fewTask.p).toBe(fewTask.pRaw);
    expect(few.settings.gatedFamily!.regression).toMatchObject({ total: 0, leftOut: 1 });
    // 200 tasks; 20 only the baseline got right, 5 only the candidate: P(X >= 20), X ~ Binomial(25, 1/2)
    // = (C(25,20) + ... + C(25,25)) / 2^25 = 68,406 / 33,554,432.
    const pRaw = 68406 / 33554432;
    const base = side(
      "b",
      1,
      null,
      scored(200, (i) => i >= 195),
    );
    const cand = side(
      "c",
      1,
      null,
      scored(200, (i) => i < 20),
    );
    const verdict = decide(base, cand);
    const task = verdict.quality!.tasks![0]!;
    expect(task.pRaw).toBeCloseTo(pRaw, 15);
    // The tasks cell kept outputs: its speed checks are advisory, so the family is the task test alone.
    expect(verdict.settings.gatedFamily!.regression).toMatchObject({ total: 1, task: 1, speed: 0 });
    expect(task.p).toBeCloseTo(pRaw, 15);
    expect(task.verdict).toBe("regression");
    // Beside a speed cell the task test is one of 5 (4 speed tests; the error rate left out), and the
    // smallest p (the speed cell's tests are near 1): x 5 = 0.0102, above the look's α.
    const speedCell = (name: string) =>
      side(name, 1, null).map((run) => ({ ...run, cell: "speed", source: `${run.source}-speed` }));
    const mixed = decide([...base, ...speedCell("b")], [...cand, ...speedCell("c")]);
    const mixedTask = mixed.quality!.tasks![0]!;
    expect(mixed.settings.gatedFamily!.regression).toMatchObject({ total: 5, task: 1, speed: 4 });
    expect(mixedTask.p).toBeCloseTo(5 * pRaw, 15);
    expect(mixedTask.verdict).toBe("within-tolerance");
    // Alone (taskChecks), its own family of 1.
    const alone = taskChecks([{ cell: "chat", base, cand, tooFew: false }], {
      tasks: { tolerance_points: 0.02 },
      alpha: 0.05,
      confidence: 0.95,
    })!;
    expect(alone[0]!.p).toBeCloseTo(pRaw, 15);
  });
});

describe("capacity checks in the same family (compareRecords)", () => {
  const config = configSchema.parse({
    version: 1,
    server: { kind: "sim" },
    model: { name: "m" },
    cells: [
      capacityCell(),
      {
        name: "chat",
        dataset: { type: "synthetic", input_tokens: 8, output_tokens: 8 },
        load: { type: "concurrency", concurrency: 16 },
        size: { requests: 1200 },
      },
    ],
  });
  /** Two runs per load 1..4 of the capacity cell (./capacity-fixtures.ts). */
  const capacityRuns = (scale: number, name: string): RunRecord[] =>
    doublingCapacityRuns(scale, `${name}/cap`);

  it("a capacity check's p counts the speed tests, and the speed tests count it", () => {
    const settings = settingsFromConfig(config);
    const outcome = compareRecords({
      baseline: [...capacityRuns(1, "b"), ...side("b", 1, null)],
      candidate: [...capacityRuns(2, "c"), ...side("c", 1.124, null)],
      settings,
      mode: "interleaved",
      now: new Date("2026-12-01T15:00:00Z"),
    });
    const verdict = outcome.verdict;
    expect(verdict.settings.gatedFamily!.regression).toMatchObject({ total: 5, speed: 4, capacity: 1 });
    // Alone, the capacity check's p is its raw bootstrap share (every draw a drop beyond the tolerance).
    const [alone] = compareCapacity({
      cells: capacityCells(config),
      baseline: capacityRuns(1, "b"),
      candidate: capacityRuns(2, "c"),
      gate: config.gate,
      cost: config.cost,
    });
    const raw = alone!.p!;
    expect(raw).toBeCloseTo(1 / 1001, 15);
    // Joined, sorted: TTFT's raw p (0.00067) first, x 5; the capacity test's (1/1001) second, x 4.
    const ttft = verdict.comparisons.find((c) => c.metric === "ttft_p95")!;
    expect(ttft.pRaw!).toBeLessThan(raw);
    expect(ttft.p).toBeCloseTo(5 * ttft.pRaw!, 15);
    expect(verdict.capacity![0]!.p).toBeCloseTo(Math.max(5 * ttft.pRaw!, 4 * raw), 15);
    expect(verdict.capacity![0]!.p).toBeCloseTo(4 / 1001, 15);
    expect(verdict.capacity![0]!.verdict).toBe("regression");
  });
});
