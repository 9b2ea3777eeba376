import { describe, expect, it } from "vitest";
import { compareAndRender } from "../../../src/app/compare.js";
import { adjustGatedFamily, type FamilyMember } from "../../../src/compare/analyze/gated-family.js";
import { defaultCompareSettings, settingsFromConfig } from "../../../src/compare/index.js";
import { verdictFileSchema } from "../../../src/compare/verdict/verdict-schema.js";
import { cellFamily } from "../../../src/config/families.js";
import { configSchema } from "../../../src/config/schema.js";
import { type RunRecord, runRecordFromRunFile } from "../../../src/metrics/run-record.js";
import { logRatioTest } from "../../../src/stats/metric-test.js";
import { holmAdjust } from "../../../src/stats/multiplicity.js";
import { mulberry32 } from "../../../src/util/random.js";
import { gaussian, noisyRuns } from "../fixtures.js";

const now = new Date("2026-12-01T12:00:00Z");

/** Five runs per side of each named cell; the candidate's TTFT × `ttft` in the listed cells. */
function sides(cells: readonly string[], ttft: Readonly<Record<string, number>>, seed = 1, sd = 0.03) {
  const records = (side: "b" | "c") =>
    cells.flatMap((cell, k) =>
      noisyRuns(5, {
        seed: seed * 1000 + k * 2 + (side === "c" ? 1 : 0),
        sd,
        cell,
        ...(side === "c" && ttft[cell] ? { ttftFactor: ttft[cell] } : {}),
      }).map((run, i) => runRecordFromRunFile(run, `${side}/${cell}/run-${i}/run.json`)),
    );
  return { baseline: records("b"), candidate: records("c") };
}

function compare(
  { baseline, candidate }: { baseline: RunRecord[]; candidate: RunRecord[] },
  familyWeight?: number,
  settings = defaultCompareSettings(),
) {
  if (familyWeight !== undefined) settings.gate.family_weight = familyWeight;
  const outcome = compareAndRender({ baseline, candidate, settings, mode: "interleaved", now });
  verdictFileSchema.parse(outcome.verdict);
  return outcome;
}

const rag = [
  "rag-fresh-low",
  "rag-fresh-usual",
  "rag-fresh-peak",
  "rag-reuse-low",
  "rag-reuse-usual",
  "rag-reuse-peak",
];
const everyRagCell = (factor: number) => Object.fromEntries(rag.map((cell) => [cell, factor]));

describe("family tests: one metric across a workload family's cells", () => {
  it("blocks TTFT p95 +10% in every rag cell, which the checks alone leave inconclusive", () => {
    const runs = sides([...rag, "chat-usual"], everyRagCell(1.1));
    const without = compare(runs, 0);
    // Each cell alone, at 5 runs a side and the first look's level split over 30 checks, cannot tell
    // +10% from the 5% tolerance.
    expect(without.verdict.verdict).toBe("inconclusive");
    expect(without.verdict.families).toEqual([]);
    expect(without.verdict.counts.regression).toBe(0);

    const withFamilies = compare(runs);
    expect(withFamilies.verdict.verdict).toBe("regression");
    expect(withFamilies.exitCode).toBe(1);
    const found = withFamilies.verdict.families!.filter((f) => f.verdict === "regression");
    expect(found).toHaveLength(1);
    const [family] = found;
    expect(family).toMatchObject({ family: "rag", metric: "ttft_p95", cells: rag, regressedCells: [] });
    // The pooled change is the geometric mean of the cells' ratios, and its decision interval lies
    // beyond the tolerance (that is what rejecting the family test means).
    const ratios = withFamilies.verdict.comparisons
      .filter((c) => c.metric === "ttft_p95" && rag.includes(c.cell))
      .map((c) => c.ratio!);
    expect(family!.ratio).toBeCloseTo(Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / 6), 12);
    expect(family!.ci[0]).toBeGreaterThan(1.05);
    expect(family!.ci[0]).toBeLessThan(family!.ratio);
    expect(family!.p).toBeLessThanOrEqual(withFamilies.verdict.settings.lookAlpha);
    // Still no single check is a regression: the finding is the family's.
    expect(withFamilies.verdict.counts.regression).toBe(0);
    expect(withFamilies.verdict.headline).toMatch(
      /^Regression: TTFT p95 across the 6 rag cells \+\d+\.\d% on average, beyond tolerance \(0 regressed/,
    );
    expect(withFamilies.reportMarkdown).toContain("### Across cells");
    expect(withFamilies.reportMarkdown).toMatch(
      /🔴 \*\*TTFT p95 across the 6 rag cells\*\*: \+\d+\.\d% \(\+\d+\.\d% … \+\d+\.\d%\), on average worse beyond the ±5% tolerance \(family test, p \(adj\.\) [<\d.]+\); no cell is one on its own yet\./,
    );
    // The chat cell is a family of one: no family test for it.
    expect(withFamilies.verdict.families!.every((f) => f.family === "rag")).toBe(true);
    expect(withFamilies.verdict.settings.gatedFamily!.familyTests).toEqual({ weight: 0.2, total: 4 });
    expect(withFamilies.reportMarkdown).toContain("4 family tests");
  });

  it("names the cells that regress on their own once their family's test is rejected", () => {
    // Two rag cells +30%: alone they are regressions; the family's average (+~9%) is beyond it too.
    const runs = sides(rag, { "rag-fresh-peak": 1.3, "rag-reuse-peak": 1.3, "rag-fresh-low": 1.05 });
    const outcome = compare(runs);
    expect(outcome.verdict.verdict).toBe("regression");
    const ttft = outcome.verdict.families!.find((f) => f.metric === "ttft_p95")!;
    expect(ttft.verdict).toBe("regression");
    expect(ttft.regressedCells.sort()).toEqual(["rag-fresh-peak", "rag-reuse-peak"]);
    expect(outcome.verdict.counts.regression).toBe(2);
    expect(outcome.verdict.headline).toMatch(
      /^Regression: 2 gated checks got worse beyond tolerance; TTFT p95 across the 6 rag cells \+\d+\.\d% on average, beyond tolerance \(2 regressed/,
    );
    expect(outcome.reportMarkdown).toContain("a regression on its own in rag-fresh-peak, rag-reuse-peak");
    // In the first screen, the family's finding is a row of the table like any check's.
    expect(outcome.commentMarkdown).toMatch(
      /\| 🔴\sregression¹ \| rag \(6 cells\) \| TTFT\sp95\s↓ \| family average \| \+\d+\.\d% /,
    );
  });

  it("passes a clean comparison with the family tests in the family (no finding)", () => {
    const outcome = compare(sides(rag, {}, 3, 0.01));
    expect(outcome.verdict.verdict).toBe("pass");
    expect(outcome.verdict.families!.length).toBe(4);
    expect(outcome.verdict.families!.every((f) => f.verdict === "no-finding")).toBe(true);
    expect(outcome.reportMarkdown).not.toContain("### Across cells");
  });

  it("reads the families from the config: declared, else derived from the cell names", () => {
    const config = configSchema.parse({
      version: 1,
      name: "families",
      server: { kind: "external", base_url: "http://127.0.0.1:8000" },
      model: { name: "m" },
      cells: [
        ...rag.slice(0, 3).map((name) => ({
          name,
          family: "long-prompt",
          dataset: { type: "synthetic", input_tokens: 4000, output_tokens: 100 },
          load: { type: "rate", rate: 1 },
          size: { requests: 200 },
        })),
        ...rag.slice(3).map((name) => ({
          name,
          dataset: { type: "synthetic", input_tokens: 4000, output_tokens: 100 },
          load: { type: "rate", rate: 1 },
          size: { requests: 200 },
        })),
      ],
    });
    const settings = settingsFromConfig(config);
    expect(settings.cellFamilies).toEqual({
      "rag-fresh-low": "long-prompt",
      "rag-fresh-usual": "long-prompt",
      "rag-fresh-peak": "long-prompt",
      "rag-reuse-low": "rag",
      "rag-reuse-usual": "rag",
      "rag-reuse-peak": "rag",
    });
    const outcome = compare(sides(rag, everyRagCell(1.1)), undefined, settings);
    const groups = new Set(outcome.verdict.families!.map((f) => `${f.family}:${f.cells.length}`));
    expect(groups).toEqual(new Set(["long-prompt:3", "rag:3"]));
  });

  it("derives a cell's family from its name: the part before the first '-'", () => {
    expect(cellFamily({ name: "chat-fresh-low" })).toBe("chat");
    expect(cellFamily({ name: "longgen-reuse-peak" })).toBe("longgen");
    expect(cellFamily({ name: "spike" })).toBe("spike");
    expect(cellFamily({ name: "rag_long" })).toBe("rag_long");
    expect(cellFamily({ name: "chat-usual", family: "short-prompt" })).toBe("short-prompt");
  });

  it("refuses a family weight beyond its limit, naming it", () => {
    const parsed = configSchema.shape.gate.safeParse({ family_weight: 0.95 });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.message).toBe(
      "expected a fraction from 0 to 0.9 (the limit on gate.family_weight: the rest of a check's level keeps it testable on its own), got 0.95",
    );
  });
});

/** A gated speed check of one cell from per-run log values (the draft's test), as a family member. */
function member(group: string, baseline: number[], candidate: number[]): FamilyMember {
  const test = logRatioTest(baseline.map(Math.exp), candidate.map(Math.exp), {
    higherIsBetter: false,
    tolerance: 0.05,
    alphaEachSide: 0.05,
  });
  return {
    source: "speed",
    regression: { p: test.pBeyondTolerance, minP: 0 },
    improvement: { p: test.pBetterBeyondTolerance, minP: 0 },
    pool: {
      group,
      tolerance: 0.05,
      component: { worse: test.worse, standardError: test.standardError, df: test.df, extraVariance: 0 },
    },
  };
}

/** Student t with 3 df scaled to unit variance: the heavy-tailed run effect of bench/gate.ts. */
function t3(random: () => number): number {
  const z = gaussian(random);
  let chi = 0;
  for (let k = 0; k < 3; k++) chi += gaussian(random) ** 2;
  return z / Math.sqrt(chi / 3) / Math.sqrt(3);
}

describe("the family-wise error rate on null data (property)", () => {
  const margin = Math.log(1.05);
  const alpha = 0.1;
  const reps = 2000;

  /**
   * 3 families × 4 cells, 5 runs a side, heavy-tailed runs; every true change exactly at the tolerance
   * (the least favourable null of every check and every family test), except the cells of `shifted`
   * families, +30% (false hypotheses, so the error is over the true ones: strong control).
   */
  function familyWiseErrors(
    adjust: (members: FamilyMember[]) => { falseRejections: number },
    shifted: number[],
  ) {
    const random = mulberry32(2026);
    let errors = 0;
    for (let rep = 0; rep < reps; rep++) {
      const members: FamilyMember[] = [];
      for (let family = 0; family < 3; family++)
        for (let cell = 0; cell < 4; cell++) {
          const change = shifted.includes(family) ? Math.log(1.3) : margin;
          const draw = (shift: number) => Array.from({ length: 5 }, () => shift + 0.03 * t3(random));
          members.push(member(`f${family}`, draw(0), draw(change)));
        }
      if (adjust(members).falseRejections > 0) errors++;
    }
    return errors / reps;
  }

  const trueNulls = (shifted: number[]) => (member: number) => !shifted.includes(Math.floor(member / 4));
  const withFamilyTests = (shifted: number[]) => (members: FamilyMember[]) => {
    const adjusted = adjustGatedFamily(members, alpha, 0.25);
    const checks = adjusted.members.filter((m, i) => trueNulls(shifted)(i) && m.regression! <= alpha).length;
    const families = adjusted.familyTests.filter(
      (f) => !shifted.includes(Number(f.group.slice(1))) && f.regression.adjusted <= alpha,
    ).length;
    return { falseRejections: checks + families };
  };
  // Monte-Carlo bound: α + 3 standard errors of a rate at α over `reps` PRs.
  const bound = alpha + 3 * Math.sqrt((alpha * (1 - alpha)) / reps);

  it("stays within α with every hypothesis at its boundary", () => {
    const rate = familyWiseErrors(withFamilyTests([]), []);
    expect(rate).toBeLessThanOrEqual(bound);
    // The rate is not trivially 0: the bound is near what the least favourable null reaches.
    expect(rate).toBeGreaterThan(alpha / 4);
  });

  it("stays within α when one family really regressed (its tests are false, the others' true)", () => {
    expect(familyWiseErrors(withFamilyTests([0]), [0])).toBeLessThanOrEqual(bound);
  });

  it("would not without the graph: each family test at the full α beside Holm over the checks", () => {
    const naive = (members: FamilyMember[]) => {
      const adjusted = adjustGatedFamily(members, alpha, 0.25);
      const checks = holmAdjust(members.map((m) => m.regression!.p)).filter((p) => p <= alpha).length;
      const families = adjusted.familyTests.filter((f) => f.regression.p <= alpha).length;
      return { falseRejections: checks + families };
    };
    expect(familyWiseErrors(naive, [])).toBeGreaterThan(bound);
  });
});
