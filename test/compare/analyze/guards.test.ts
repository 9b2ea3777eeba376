import { describe, expect, it } from "vitest";
import { analyze } from "../../../src/compare/analyze/analyze.js";
import { guardChecks, lengthShiftP, pooledLengths } from "../../../src/compare/analyze/guards.js";
import { configSchema } from "../../../src/config/schema.js";
import type { RunGuards } from "../../../src/metrics/guards.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { renderMarkdown } from "../../../src/report/markdown.js";
import { renderTerminal } from "../../../src/report/terminal.js";
import { makeRunFile, runsWithFactors } from "../fixtures.js";

function guards(overrides: Partial<RunGuards> = {}): RunGuards {
  return {
    ignoreEos: false,
    requests: 200,
    finish: { stop: 180, length: 20, abort: 0, other: 0 },
    zeroOutput: 0,
    usageMismatch: 0,
    outputTokens: { count: 200, mean: 100, std: 30 },
    outputToMaxTokens: 0.4,
    ...overrides,
  };
}

const gate = configSchema.shape.gate.parse(undefined);
const settings = {
  guards: { enabled: true, share_points: 0.02, output_length_tolerance: 0.1 },
  metricTolerance: {},
  alpha: 0.05,
};

function cell(base: RunGuards[], cand: RunGuards[]) {
  const record = (g: RunGuards, i: number): RunRecord => ({
    ...runRecordFromRunFile(makeRunFile({ run: i }), `r${i}.json`),
    guards: g,
  });
  return { cell: "chat", base: base.map(record), cand: cand.map(record), tooFew: false };
}

describe("pooledLengths and lengthShiftP (known answers computed by hand)", () => {
  it("pools runs of (count, mean, population sd) into the sample mean and variance", () => {
    const pooled = pooledLengths([
      guards({ outputTokens: { count: 10, mean: 5, std: 1 } }),
      guards({ outputTokens: { count: 30, mean: 9, std: 2 } }),
    ]);
    expect(pooled.count).toBe(40);
    expect(pooled.mean).toBe(8);
    // (10 (1 + 9) + 30 (4 + 1)) / 39
    expect(pooled.variance).toBeCloseTo(250 / 39, 12);
  });

  it("a 20% shorter mean with 10% tolerance: z = 3.67892, p = 2 (1 - Phi(z)) = 0.00023422", () => {
    const test = lengthShiftP(
      { count: 100, mean: 100, variance: 400 },
      { count: 100, mean: 80, variance: 400 },
      0.1,
    );
    expect(test.beyond).toBe(true);
    expect(test.p).toBeCloseTo(0.00023422, 7);
  });

  it("without spread the observed ratio decides", () => {
    const same = { count: 50, mean: 64, variance: 0 };
    expect(lengthShiftP(same, same, 0.1)).toEqual({ p: 1, beyond: false });
    expect(lengthShiftP(same, { ...same, mean: 80 }, 0.1)).toEqual({ p: 0, beyond: true });
    expect(lengthShiftP(same, { ...same, mean: 68 }, 0.1)).toEqual({ p: 1, beyond: false });
  });
});

describe("guardChecks", () => {
  it("a share that rose significantly by more than its points is a regression; within them it is not", () => {
    const warnings: string[] = [];
    const base = [guards(), guards(), guards()];
    const worse = guards({ finish: { stop: 140, length: 60, abort: 0, other: 0 } });
    const checks = guardChecks([cell(base, [worse, worse, worse])], settings, warnings)!;
    const share = checks.find((c) => c.metric === "finish_length_share")!;
    expect(share.baseline).toBeCloseTo(0.1, 12);
    expect(share.candidate).toBeCloseTo(0.3, 12);
    expect(share.counts.candidate).toEqual({ count: 180, requests: 600 });
    expect(share.verdict).toBe("regression");
    expect(share.p!).toBeLessThan(1e-6);
    // A tiny rise (1 point) is significant with enough requests but inside 2 points.
    const slight = guards({ finish: { stop: 178, length: 22, abort: 0, other: 0 } });
    const within = guardChecks([cell(base, [slight, slight, slight])], settings, warnings)!;
    expect(within.find((c) => c.metric === "finish_length_share")!.verdict).toBe("within-tolerance");
    expect(warnings).toEqual([]);
  });

  it("zero outputs and usage mismatches regress; a drop is never a regression", () => {
    const base = [guards(), guards()];
    const bad = guards({ zeroOutput: 30, usageMismatch: 25 });
    const checks = guardChecks([cell(base, [bad, bad])], settings, [])!;
    expect(checks.find((c) => c.metric === "zero_output_share")!.verdict).toBe("regression");
    expect(checks.find((c) => c.metric === "usage_mismatch_share")!.verdict).toBe("regression");
    const better = guardChecks([cell([bad, bad], base)], settings, [])!;
    for (const check of better) expect(check.verdict).toBe("within-tolerance");
  });

  it("the mean output length regresses either way beyond its tolerance", () => {
    const base = [guards(), guards()];
    const longer = guards({ outputTokens: { count: 200, mean: 130, std: 30 } });
    const shorter = guards({ outputTokens: { count: 200, mean: 75, std: 30 } });
    const near = guards({ outputTokens: { count: 200, mean: 104, std: 30 } });
    const verdictOf = (cand: RunGuards) =>
      guardChecks([cell(base, [cand, cand])], settings, [])!.find((c) => c.metric === "output_tokens_mean")!
        .verdict;
    expect(verdictOf(longer)).toBe("regression");
    expect(verdictOf(shorter)).toBe("regression");
    expect(verdictOf(near)).toBe("within-tolerance");
  });

  it("Holm over the gated family: more cells' guard tests make each check stricter", () => {
    const base = [guards(), guards()];
    // Borderline: 4.5 points more at max_tokens over 400 requests per side.
    const edge = guards({ finish: { stop: 171, length: 29, abort: 0, other: 0 } });
    const one = guardChecks([cell(base, [edge, edge])], settings, [])!;
    const raw = one.find((c) => c.metric === "finish_length_share")!;
    const many = guardChecks(
      Array.from({ length: 4 }, (_, i) => ({ ...cell(base, [edge, edge]), cell: `c${i}` })),
      settings,
      [],
    )!;
    const adjusted = many.find((c) => c.metric === "finish_length_share")!;
    expect(adjusted.pRaw).toBe(raw.pRaw);
    expect(adjusted.p!).toBeGreaterThan(raw.p!);
  });

  it("skips a cell whose baseline has no guard counts (older run.json), saying so; off when disabled", () => {
    const warnings: string[] = [];
    const compared = cell([guards()], [guards()]);
    compared.base = compared.base.map(({ guards: _, ...run }) => run);
    expect(guardChecks([compared], settings, warnings)).toEqual([]);
    expect(warnings[0]).toMatch(/cell "chat": the baseline runs have no guard counts/);
    expect(
      guardChecks(
        [cell([guards()], [guards()])],
        { ...settings, guards: { ...settings.guards, enabled: false } },
        [],
      ),
    ).toBeNull();
    // Runs without guards anywhere (vLLM results, old files): no guard section at all.
    const none = cell([guards()], [guards()]);
    none.base = none.base.map(({ guards: _, ...run }) => run);
    none.cand = none.cand.map(({ guards: _, ...run }) => run);
    expect(guardChecks([none], settings, [])).toBeNull();
  });
});

describe("a guard regression in the verdict", () => {
  it("turns a speed improvement into a regression, named as such, and the report says so", () => {
    const withGuards = (files: ReturnType<typeof runsWithFactors>, g: RunGuards) =>
      files.map((file, i) => ({ ...runRecordFromRunFile(file, `f${i}.json`), guards: g }));
    const baseline = withGuards(runsWithFactors([1, 1.01, 0.99, 1.02, 0.98]), guards());
    const truncated = guards({ outputTokens: { count: 200, mean: 60, std: 20 } });
    const candidate = withGuards(runsWithFactors([0.7, 0.71, 0.69, 0.72, 0.68]), truncated);
    const verdict = analyze({
      baseline,
      candidate,
      gate,
      repeats: { min: 5, max: 5 },
      mode: "interleaved",
      now: "2026-01-01T00:00:00Z",
      tool: { name: "t", version: "0" },
    });
    expect(verdict.counts.improvement).toBeGreaterThan(0);
    expect(verdict.counts.regression).toBe(0);
    expect(verdict.verdict).toBe("regression");
    expect(verdict.exitCode).toBe(1);
    expect(verdict.headline).toMatch(
      /^Regression: 1 quality check got worse beyond tolerance: the speed improvements \(\d+\) come with changed outputs, not an improvement/,
    );
    expect(verdict.nextLook).toBeNull();
    const report = renderMarkdown(verdict, { form: "report" });
    expect(report).toContain("### Quality guards");
    expect(report).toMatch(
      /\| 🔴 regression \| chat \| Output tokens per request \| ±10% \| 100 tokens \| 60.0 tokens \| <0.0001 \|/,
    );
    // The first screen, in the comment and in the terminal, names it first.
    const comment = renderMarkdown(verdict, { form: "comment" });
    expect(comment).toContain(
      "**1 quality check got worse: Output tokens per request of chat; the outputs changed, so no speed result is an improvement.**",
    );
    expect(comment).toMatch(
      /\| 🔴\sregression \| chat \| Output\stokens\sper\srequest\s↓\s\(±10%\) \| 100\s→\s60\.0\stokens \| −40\.0% \|/,
    );
    expect(renderTerminal(verdict, { color: false })).toMatch(
      /🔴\sregression +chat +Output\stokens\sper\srequest\s↓\s\(±10%\) +100\s→\s60\.0\stokens +−40\.0%/,
    );
    // Without the guard regression the same speed change is a plain pass with improvements.
    const clean = analyze({
      baseline,
      candidate: candidate.map((run) => ({ ...run, guards: guards() })),
      gate,
      repeats: { min: 5, max: 5 },
      mode: "interleaved",
      now: "2026-01-01T00:00:00Z",
      tool: { name: "t", version: "0" },
    });
    expect(clean.verdict).toBe("pass");
    expect(clean.quality!.guards.every((g) => g.verdict === "within-tolerance")).toBe(true);
  });
});

describe("quality cells in the speed family", () => {
  it("a cell whose runs kept outputs is advisory for speed; a quality-only comparison is decided by its checks", () => {
    const scored = (correct: boolean) =>
      Array.from({ length: 50 }, (_, index) => ({
        index,
        ok: true,
        finishReason: "stop",
        text: "",
        tokens: null,
        logprobs: null,
        task: { reference: "", correct },
      }));
    const withOutputs = (files: ReturnType<typeof runsWithFactors>, correct: boolean) =>
      files.map((file, i) => ({ ...runRecordFromRunFile(file, `t${i}.json`), outputs: scored(correct) }));
    const verdict = analyze({
      baseline: withOutputs(runsWithFactors([1, 1.01, 0.99], { cell: "tasks" }), true),
      // 30% slower, but the cell is a quality cell: its speed is advisory; its answers are unchanged.
      candidate: withOutputs(runsWithFactors([1.3, 1.31, 1.29], { cell: "tasks" }), true),
      gate,
      repeats: { min: 3, max: 3 },
      mode: "interleaved",
      now: "2026-01-01T00:00:00Z",
      tool: { name: "t", version: "0" },
    });
    expect(verdict.comparisons.filter((c) => c.gated)).toEqual([]);
    expect(verdict.comparisons.some((c) => c.verdict === "regression")).toBe(true);
    expect(verdict.quality!.tasks![0]!.verdict).toBe("within-tolerance");
    expect(verdict.verdict).toBe("pass");
  });
});
