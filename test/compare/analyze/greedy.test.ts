import { describe, expect, it } from "vitest";
import {
  compareOutputs,
  editDistance,
  greedyChecks,
  outputTokens,
  tokenSimilarity,
} from "../../../src/compare/analyze/greedy.js";
import type { RunOutput } from "../../../src/metrics/guards.js";
import { runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { makeRunFile } from "../fixtures.js";

const out = (index: number, text: string, logprobs: number[] | null = null): RunOutput => ({
  index,
  ok: true,
  finishReason: "stop",
  text,
  tokens: logprobs === null ? null : (text.match(/\s*\S+/g) ?? []),
  logprobs,
});

describe("token edit distance and similarity", () => {
  it("matches hand-computed Levenshtein distances", () => {
    expect(editDistance([], [])).toBe(0);
    expect(editDistance(["a"], [])).toBe(1);
    // kitten -> sitting: 3 (two substitutions, one insertion)
    expect(editDistance([..."kitten"], [..."sitting"])).toBe(3);
    expect(editDistance(["x", "a", "b", "c"], ["a", "b", "c"])).toBe(1);
    expect(tokenSimilarity([..."kitten"], [..."sitting"])).toBeCloseTo(1 - 3 / 7, 12);
    expect(tokenSimilarity([], [])).toBe(1);
  });

  it("splits text into whitespace-led words without server tokens", () => {
    expect(outputTokens({ text: "one two  three", tokens: null })).toEqual(["one", " two", "  three"]);
    expect(outputTokens({ text: "a b", tokens: ["a", " b"] })).toEqual(["a", " b"]);
  });
});

describe("compareOutputs", () => {
  it("counts identical outputs, same first N tokens, similarity and logprob drift over alike tokens", () => {
    const baseline = [
      out(0, "a b c d", [-0.1, -0.2, -0.3, -0.4]),
      out(1, "a b c d", [-0.1, -0.2, -0.3, -0.4]),
      out(2, "a b c d", [-0.1, -0.2, -0.3, -0.4]),
      out(3, "a b c d", [-0.1, -0.2, -0.3, -0.4]),
    ];
    const candidate = [
      out(0, "a b c d", [-0.1, -0.2, -0.3, -0.4]),
      out(1, "a b c x", [-0.2, -0.2, -0.3, -2]),
      out(2, "z b c d", [-1, -0.2, -0.3, -0.4]),
      // index 3 missing: not answered on both sides
      out(9, "a", [-0.1]),
    ];
    const { agreement, examples, serverTokens } = compareOutputs(baseline, candidate, 2);
    expect(serverTokens).toBe(true);
    expect(agreement.prompts).toBe(3);
    expect(agreement.changedShare).toBeCloseTo(2 / 3, 12);
    // Prompt 1 differs at token 3 (beyond the first 2); prompt 2 at token 0.
    expect(agreement.prefixChangedShare).toBeCloseTo(1 / 3, 12);
    expect(agreement.similarity).toBeCloseTo((1 + 0.75 + 0.75) / 3, 12);
    // Alike tokens: 4 of prompt 0 (drift 0), 3 of prompt 1 (0.1, 0, 0), 0 of prompt 2.
    expect(agreement.logprobTokens).toBe(7);
    expect(agreement.logprobDrift).toBeCloseTo(0.1 / 7, 12);
    expect(examples.map((e) => [e.index, e.firstDifference])).toEqual([
      [1, 3],
      [2, 0],
    ]);
    expect(examples[0]!.candidate).toBe("a b c x");
  });
});

describe("greedyChecks", () => {
  const settings = {
    cells: ["chat"],
    logprobs: 1,
    first_tokens: 2,
    max_changed_share: 0.02,
    max_prefix_changed_share: 0.02,
    min_similarity: 0.98,
    max_logprob_drift: 0.05,
    examples: 1,
  };
  const run = (i: number, outputs: RunOutput[]) => ({
    ...runRecordFromRunFile(makeRunFile({ run: i }), `r${i}`),
    outputs,
  });
  const same = Array.from({ length: 100 }, (_, i) => out(i, `w${i} x y`));

  it("judges the candidate over the baseline's own run-to-run differences", () => {
    // The baseline itself differs on 5 of 100 prompts between runs; the candidate on 6: within 2 points.
    const noisy = same.map((o, i) => (i < 5 ? out(i, `w${i} x q`) : o));
    const candidate = same.map((o, i) => (i < 6 ? out(i, `w${i} x r`) : o));
    const checks = greedyChecks(
      [{ cell: "chat", base: [run(0, same), run(1, noisy)], cand: [run(0, candidate)], tooFew: false }],
      { ...settings, min_similarity: 0.5 },
      [],
    )!;
    expect(checks[0]!.baselineNoise!.changedShare).toBeCloseTo(0.05, 12);
    expect(checks[0]!.candidate.changedShare).toBeCloseTo(0.06, 12);
    expect(checks[0]!.verdict).toBe("within-tolerance");
    expect(checks[0]!.tokenSource).toBe("words");
    // Without the second baseline run the floor is 0 and 6% changed is a regression.
    const alone = greedyChecks(
      [{ cell: "chat", base: [run(0, same)], cand: [run(0, candidate)], tooFew: false }],
      { ...settings, min_similarity: 0.5 },
      [],
    )!;
    expect(alone[0]!.verdict).toBe("regression");
    expect(alone[0]!.reasons[0]).toMatch(/^6\.0% of 100 outputs changed/);
    expect(alone[0]!.examples).toHaveLength(1);
  });

  it("takes the floor between two server starts when the baseline has runs on two", () => {
    // The baseline's runs 0 and 1 share a start and agree; its run 2, on another start, differs on 6 of
    // 100 prompts (its kernels' picks), as does the candidate, on a start of its own.
    const otherStart = same.map((o, i) => (i < 6 ? out(i, `w${i} x q`) : o));
    const candidate = same.map((o, i) => (i < 6 ? out(i, `w${i} x r`) : o));
    const on = (record: ReturnType<typeof run>, id: string) => ({
      ...record,
      serverStart: { id, basis: "recorded" as const },
    });
    const base = [on(run(0, same), "b1"), on(run(1, same), "b1"), on(run(2, otherStart), "b2")];
    const checks = greedyChecks(
      [{ cell: "chat", base, cand: [on(run(0, candidate), "c1")], tooFew: false }],
      { ...settings, min_similarity: 0.5 },
      [],
    )!;
    expect(checks[0]!.baselineNoiseRuns).toEqual({ first: 0, second: 2, acrossStarts: true });
    expect(checks[0]!.baselineNoise!.changedShare).toBeCloseTo(0.06, 12);
    expect(checks[0]!.verdict).toBe("within-tolerance");
    // The run-to-run floor of one start (runs 0 and 1) is 0%, and 6% changed would read as a regression.
    const oneStart = greedyChecks(
      [{ cell: "chat", base: base.slice(0, 2), cand: [on(run(0, candidate), "c1")], tooFew: false }],
      { ...settings, min_similarity: 0.5 },
      [],
    )!;
    expect(oneStart[0]!.baselineNoiseRuns).toEqual({ first: 0, second: 1, acrossStarts: false });
    expect(oneStart[0]!.verdict).toBe("regression");
    expect(oneStart[0]!.reasons[0]).toMatch(/baseline run to run: 0\.0%/);
  });

  it("skips cells it does not name, warns when a side kept no outputs, is off without the setting", () => {
    const warnings: string[] = [];
    const plain = runRecordFromRunFile(makeRunFile(), "r");
    expect(
      greedyChecks(
        [{ cell: "chat", base: [plain], cand: [run(0, same)], tooFew: false }],
        settings,
        warnings,
      ),
    ).toEqual([]);
    expect(warnings[0]).toMatch(/cell "chat" is a greedy-output cell but its baseline runs kept no outputs/);
    expect(
      greedyChecks(
        [{ cell: "other", base: [run(0, same)], cand: [run(0, same)], tooFew: false }],
        settings,
        [],
      ),
    ).toEqual([]);
    expect(greedyChecks([], undefined, [])).toBeNull();
  });
});
