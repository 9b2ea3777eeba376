import { describe, expect, it } from "vitest";
import { compareAndRender } from "../../src/app/compare.js";
import { defaultCompareSettings } from "../../src/compare/index.js";
import { describeMetric } from "../../src/config/metric-names.js";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { renderMarkdown, reportBudget } from "../../src/report/markdown.js";
import { renderTerminal } from "../../src/report/terminal.js";
import { baseFingerprint, noisyRuns } from "../compare/fixtures.js";

const evil = "x](https://evil.example) <b>@octocat</b>";

function outcome(cells: number, { evilStrings = false } = {}) {
  const cellNames = Array.from({ length: cells }, (_, i) => `cell-${i}`);
  const fingerprint = evilStrings ? { ...baseFingerprint, note: `<img src=x> ${evil}` } : baseFingerprint;
  const base = cellNames.flatMap((cell, i) => noisyRuns(5, { seed: i, cell, fingerprint }));
  const cand = cellNames.flatMap((cell, i) =>
    noisyRuns(5, {
      seed: 100 + i,
      cell,
      // Large enough to block at the first look even with 18 cells × 5 gated checks under Holm.
      ttftFactor: i === 0 ? 1.6 : 1,
      fingerprint: evilStrings ? { ...fingerprint, note: evil } : fingerprint,
    }),
  );
  if (evilStrings)
    cand[0] = { ...cand[0]!, flags: { ...cand[0]!.flags, clientBound: true, clientBoundReason: evil } };
  const toRecords = (runs: typeof base, side: string) =>
    runs.map((run) => runRecordFromRunFile(run, `${side}/${run.cell}/run-${run.run}/run.json`));
  return compareAndRender({
    baseline: toRecords(base, "base"),
    candidate: toRecords(cand, "cand"),
    settings: defaultCompareSettings(),
    mode: "interleaved",
    baselineInfo: { commit: "0123abc", runId: "987", date: "2026-11-29", note: evil },
    now: new Date("2026-11-30T05:00:00Z"),
  });
}

describe("markdown report", () => {
  it("leads with the verdict, its reason and each decided change, verdict first, then what it means", () => {
    const { commentMarkdown, reportMarkdown } = outcome(1);
    for (const text of [commentMarkdown, reportMarkdown]) {
      const lines = text.split("\n");
      expect(lines[0]).toBe("## ❌ vllm-perf-gate: regression");
      expect(lines[2]).toBe("**1 gated check got worse beyond the tolerance: TTFT p95 of cell-0.**  ");
      expect(lines[3]).toBe(
        "5 gated checks in 1 cell: **1** regressed · **4** within tolerance · tolerance ±5%",
      );
      expect(text).toContain("| Verdict | Cell | Check | Baseline → candidate | Change (interval) |");
      // No-break spaces keep the verdict, the check, each figure and the interval on one line.
      expect(text).toMatch(
        /\| 🔴\u00a0regression \| cell-0 \| TTFT\u00a0p95\u00a0↓ \| [\d,]+\u00a0→\u00a0[\d,]+\u00a0ms \| \+\d+\.\d% \(\+\d+\.\d\u00a0…\u00a0\+\d+\.\d%\) \|/,
      );
      expect(text).toMatch(
        /- \*\*cell-0\*\*: the slowest 5% wait [\d.,]+ ms longer for their first token \(TTFT p95 /,
      );
    }
    // The long form keeps the full table of every gated check and the method.
    expect(reportMarkdown).toMatch(/\| 🔴 regression \| cell-0 \| TTFT p95 ↓ \| ±5% \|/);
    expect(reportMarkdown).toMatch(/Mode: interleaved/);
    expect(reportMarkdown).toMatch(/Baseline: commit 0123abc · run 987 · date 2026-11-29/);
    // The comment folds the rest, each fold saying what is inside.
    expect(commentMarkdown).toContain("<details><summary>4 checks within tolerance</summary>");
    expect(commentMarkdown).toMatch(/<details><summary>How it was decided: interleaved runs/);
    expect(commentMarkdown).not.toContain("### Gated checks");
  });

  it("speaks only of what was decided or is open: no cell where nothing happened", () => {
    const { commentMarkdown, verdict } = outcome(3);
    expect(verdict.verdict).toBe("regression");
    const meaning = commentMarkdown.slice(commentMarkdown.indexOf("**What it means:**"));
    const items = meaning.split("\n\n")[0]!.split("\n").slice(1);
    // The cell where something happened, and the average of its workload family ("cell"), nothing else.
    expect(items).toEqual([
      expect.stringMatching(/^- \*\*cell-0\*\*: the slowest 5% wait/),
      expect.stringMatching(
        /^- \*\*cell \(3 cells\)\*\*: the slowest 5% wait [\d.]+% longer for their first token, on average across the 3 cells/,
      ),
    ]);
    expect(commentMarkdown).not.toMatch(/within noise/);
  });

  it("escapes every outside string for its context: no raw HTML, links or mentions survive", () => {
    const { reportMarkdown, commentMarkdown } = outcome(1, { evilStrings: true });
    for (const text of [reportMarkdown, commentMarkdown]) {
      expect(text).not.toContain("<b>");
      expect(text).not.toContain("<img");
      expect(text).not.toContain("](https://evil");
      expect(text).not.toMatch(/@octocat/);
      expect(text).toContain("@\u200boctocat");
    }
    // The fingerprint difference and the excluded run are both shown, escaped.
    expect(reportMarkdown).toMatch(/\| note \|/);
    expect(reportMarkdown).toContain("client-bound: x\\](https:\u200b//evil.example)");
    // The excluded run is named relative to its side's results.
    expect(commentMarkdown).toContain("| candidate/cell-0/run-0/run.json |");
  });

  it("fits the 65,536-character budget by shedding detail, never the first screen or the gated checks", () => {
    const big = outcome(18, { evilStrings: true });
    const full = renderMarkdown(big.verdict, { form: "report", budget: 1_000_000 });
    expect(full.length).toBeGreaterThan(20_000);
    const budget = 20_000;
    const shed = renderMarkdown(big.verdict, { form: "report", budget });
    expect(shed.length).toBeLessThanOrEqual(budget);
    // The candidate's fingerprint note differs, so the verdict is "not comparable".
    expect(shed).toMatch(/^## 🚫 vllm-perf-gate: not comparable/);
    expect(shed).toContain("### Gated checks");
    for (let i = 0; i < 18; i++) expect(shed).toMatch(new RegExp(`\\| cell-${i} \\| TTFT p95 ↓`));
    expect(shed).not.toContain("All metrics: cell-0");
    expect(shed).toContain("Some detail was left out to fit the comment size limit");
    // The pictures go first: a budget just below the full size keeps everything else.
    expect(full).toContain("```mermaid");
    const justBelow = renderMarkdown(big.verdict, { form: "report", budget: full.length - 1 });
    expect(justBelow).not.toContain("```mermaid");
    expect(justBelow).toContain("<summary>All metrics");
    expect(justBelow).toContain("<summary>All recorded conditions</summary>");
    // Per-cell detail next: a budget just below the size without the pictures keeps the conditions.
    const withoutPictures = renderMarkdown(big.verdict, { form: "report", budget: justBelow.length - 1 });
    expect(withoutPictures).not.toContain("<summary>All metrics");
    expect(withoutPictures).toContain("<summary>All recorded conditions</summary>");
    // The comment within GitHub's limit; the long form (the job summary) keeps every cell's metrics.
    expect(big.commentMarkdown.length).toBeLessThanOrEqual(65_536);
    expect(big.reportMarkdown.length).toBeLessThanOrEqual(reportBudget);
    expect(big.reportMarkdown).toContain("<summary>All metrics: cell-17");
  });

  it("keeps the head even when nothing else fits", () => {
    const big = outcome(18);
    for (const form of ["report", "comment"] as const) {
      const tiny = renderMarkdown(big.verdict, { form, budget: 2_000 });
      expect(tiny.length).toBeLessThanOrEqual(2_000);
      expect(tiny.startsWith("## ❌ vllm-perf-gate: regression")).toBe(true);
      expect(tiny).toMatch(/Truncated to fit the comment size limit/);
    }
  });
});

describe("terminal output", () => {
  it("is plain without a TTY and coloured with one", () => {
    const { verdict } = outcome(1);
    const plain = renderTerminal(verdict, { color: false });
    expect(plain).not.toContain("\u001b[");
    expect(plain).toMatch(/^vllm-perf-gate: REGRESSION/);
    // The comment's first screen, as text.
    expect(plain).toMatch(
      /🔴\sregression +cell-0 +TTFT\sp95\s↓ +[\d.,]+\s→\s[\d.,]+\sms +\+\d+\.\d% \(\+\d+\.\d\s…\s\+\d+\.\d%\)/,
    );
    expect(plain).toContain("- cell-0: the slowest 5% wait");
    const coloured = renderTerminal(verdict, { color: true });
    expect(coloured).toContain("\u001b[31m");
  });

  it("strips control characters from outside strings", () => {
    const { verdict } = outcome(1);
    const hostile = { ...verdict, warnings: ["bad \u001b[2J clear"] };
    expect(renderTerminal(hostile, { color: false })).toContain("warning: bad  [2J clear");
  });
});

describe("adaptive repeats in the report", () => {
  it("says how many more runs are needed when inconclusive", () => {
    const toRecords = (runs: ReturnType<typeof noisyRuns>) =>
      runs.map((run) => runRecordFromRunFile(run, "x/run.json"));
    const { reportMarkdown, verdict } = compareAndRender({
      baseline: toRecords(noisyRuns(3, { seed: 7, sd: 0.08 })),
      candidate: toRecords(noisyRuns(3, { seed: 8, sd: 0.08, shift: 1.05 })),
      settings: defaultCompareSettings(),
      mode: "interleaved",
    });
    expect(verdict.verdict).toBe("inconclusive");
    expect(reportMarkdown).toMatch(/^## ⚠️ vllm-perf-gate: inconclusive/);
    expect(reportMarkdown).toMatch(
      /\*\*More runs needed:\*\* 5 runs per side \(add 2 candidate and 2 baseline runs, about \d+ GPU-minutes\)/,
    );
    expect(reportMarkdown).toContain("🟡 inconclusive");
  });
});

describe("what the reviewer sees", () => {
  const toRecords = (runs: ReturnType<typeof noisyRuns>) =>
    runs.map((run) => runRecordFromRunFile(run, "x/run.json"));

  it("labels a non-inferior result 'within tolerance', prints the decision interval and the detectable change", () => {
    const { reportMarkdown, verdict } = compareAndRender({
      baseline: toRecords(noisyRuns(10, { seed: 21 })),
      candidate: toRecords(noisyRuns(10, { seed: 22, shift: 1.02 })),
      settings: defaultCompareSettings(),
      mode: "interleaved",
    });
    expect(verdict.verdict).toBe("pass");
    expect(reportMarkdown).toContain("⚪ within tolerance");
    expect(reportMarkdown).not.toMatch(/no change/);
    expect(reportMarkdown).toMatch(
      /\| Verdict \| Cell \| Metric \| Tolerance \| Baseline \| Candidate \| Change \| Decision interval \| p \(adj\.\) \| Detectable \|/,
    );
    expect(reportMarkdown).toMatch(
      /\| ⚪ within tolerance \| chat \| TTFT p95 ↓ \| ±5% \|[^\n]*\| \+\d+\.\d% \|$/m,
    );
    // A throughput worsening is a drop: shown in the metric's own direction.
    expect(reportMarkdown).toMatch(
      /\| ⚪ within tolerance \| chat \| Output throughput ↑ \| ±5% \|[^\n]*\| −\d+\.\d% \|$/m,
    );
    expect(reportMarkdown).toMatch(
      /These runs catch a worsening of \+\d+\.\d% or more with 90% power \(least sensitive check: chat [^)]+\); (that covers|catching \+10% \(gate\.detect_change\) needs about \d+ runs per side)/,
    );
    expect(verdict.detection!.detectableChange).toBeGreaterThan(0.05);
    // Per gated check, in its own direction (a throughput worsening is a drop).
    const ttft = verdict.comparisons.find((c) => c.gated && c.metric === "ttft_p95")!;
    expect(reportMarkdown).toContain(`Per check at 90% power, these runs catch: `);
    expect(reportMarkdown).toMatch(/these runs catch: [^\n]*≥ −\d+\.\d% Output throughput/);
    expect(reportMarkdown).toContain(`≥ +${(ttft.detectableChange! * 100).toFixed(1)}% TTFT p95`);
    const plain = renderTerminal(verdict, { color: false });
    expect(plain).toMatch(/^vllm-perf-gate: PASS\n\nNo gated check got worse beyond the tolerance\./);
    expect(plain).toMatch(/decision interval vs tolerance/);
  });

  it("does not call a row within tolerance without saying its interval lies beyond it on the better side", () => {
    const { verdict } = compareAndRender({
      baseline: toRecords(noisyRuns(10, { seed: 21 })),
      candidate: toRecords(noisyRuns(10, { seed: 22, shift: 1.02 })),
      settings: defaultCompareSettings(),
      mode: "interleaved",
    });
    // The demo's longgen E2E p95: −19.0 … −10.8% against ±10%, the improvement not significant after Holm.
    const index = verdict.comparisons.findIndex((c) => c.gated && !c.higherIsBetter);
    const lower = verdict.comparisons[index]!;
    const better = { ...lower, tolerance: 0.1, ratio: 0.85, ci: [0.81, 0.892] as [number, number] };
    const comparisons = verdict.comparisons.map((c, i) => (i === index ? better : c));
    // Mirrored for a higher-is-better metric: +12 … +25% against ±10%.
    const higher = comparisons.findIndex((c) => c.gated && c.higherIsBetter);
    comparisons[higher] = { ...comparisons[higher]!, tolerance: 0.1, ratio: 1.18, ci: [1.12, 1.25] };
    const markdown = renderMarkdown({ ...verdict, comparisons }, { form: "report" });
    const label =
      "⚪ within tolerance: better beyond it, but not a significant improvement at the adjusted level";
    expect(markdown).toMatch(
      new RegExp(`\\| ${label} \\| chat \\| ${describeMetric(better.metric)} ↓ \\| ±10% \\|`),
    );
    const higherName = describeMetric(comparisons[higher]!.metric);
    expect(markdown).toMatch(new RegExp(`\\| ${label} \\| chat \\| ${higherName} ↑ \\| ±10% \\|`));
    // Inside the band on the better side (−9% end): the plain label.
    comparisons[index] = { ...better, ci: [0.81, 0.91] };
    comparisons[higher] = { ...comparisons[higher]!, ci: [1.09, 1.25] };
    expect(renderMarkdown({ ...verdict, comparisons }, { form: "report" })).not.toContain(label);
  });

  it("says how many more runs and about how many GPU-minutes would settle an inconclusive verdict", () => {
    const { reportMarkdown, verdict } = compareAndRender({
      baseline: toRecords(noisyRuns(5, { seed: 11, sd: 0.04 })),
      candidate: toRecords(noisyRuns(5, { seed: 12, sd: 0.04, shift: 1.06 })),
      settings: defaultCompareSettings(),
      mode: "interleaved",
    });
    expect(verdict.verdict).toBe("inconclusive");
    expect(reportMarkdown).toMatch(
      /About \d+ usable runs per side \(\d+ more\) and ~\d+ GPU-minutes would settle it if the estimates hold; spent so far: ~\d+ GPU-minutes\./,
    );
    expect(renderTerminal(verdict, { color: false })).toMatch(/GPU-minutes would settle it/);
  });
});
