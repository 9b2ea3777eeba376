import { describe, expect, it } from "vitest";
import { compareAndRender } from "../../src/app/compare.js";
import { defaultCompareSettings } from "../../src/compare/index.js";
import { describeMetric } from "../../src/config/metric-names.js";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { renderMarkdown } from "../../src/report/markdown.js";
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
  it("leads with the verdict, answers the user's question and shows the acceptance table", () => {
    const { reportMarkdown } = outcome(1);
    const lines = reportMarkdown.split("\n");
    expect(lines[0]).toBe("## ❌ vllm-perf-gate: regression");
    expect(reportMarkdown).toMatch(/successful requests per hour/);
    expect(reportMarkdown).toMatch(/the slowest 5% wait \+[\d.,]+ ms for their first token/);
    // E2E latency did not move beyond noise: named, not quoted as a change.
    expect(reportMarkdown).toMatch(
      /within noise \(the runs cannot tell it from run-to-run variation\): [^;]*whole-answer time \(p95 /,
    );
    expect(reportMarkdown).toMatch(/\| cell\\-0 \| TTFT p95 ↓ \| ±5% \|.*🔴 regression \|/);
    expect(reportMarkdown).toMatch(/Mode: interleaved/);
    expect(reportMarkdown).toMatch(/Baseline: commit 0123abc · run 987 · date 2026\\-11\\-29/);
  });

  it("escapes every outside string: no raw HTML, links or mentions survive", () => {
    const { reportMarkdown } = outcome(1, { evilStrings: true });
    expect(reportMarkdown).not.toContain("<b>");
    expect(reportMarkdown).not.toContain("<img");
    expect(reportMarkdown).not.toContain("](https://evil");
    expect(reportMarkdown).not.toMatch(/@octocat/);
    expect(reportMarkdown).toContain("@\u200boctocat");
    // The fingerprint difference and the excluded run are both shown, escaped.
    expect(reportMarkdown).toMatch(/\| note \|/);
    expect(reportMarkdown).toContain("client\\-bound\\: x\\]\\(https");
  });

  it("fits the 65,536-character budget by shedding detail, never the headline or acceptance table", () => {
    const big = outcome(18, { evilStrings: true });
    const full = renderMarkdown(big.verdict, 1_000_000);
    expect(full.length).toBeGreaterThan(20_000);
    const budget = 20_000;
    const shed = renderMarkdown(big.verdict, budget);
    expect(shed.length).toBeLessThanOrEqual(budget);
    // The candidate's fingerprint note differs, so the verdict is "not comparable".
    expect(shed).toMatch(/^## 🚫 vllm-perf-gate: not comparable/);
    expect(shed).toContain("### Acceptance (gated metrics)");
    for (let i = 0; i < 18; i++) expect(shed).toContain(`| cell\\-${i} | TTFT p95 ↓`);
    expect(shed).not.toContain("All metrics: cell-0");
    expect(shed).toContain("Some detail was left out to fit the comment size limit");
    // The pictures go first: a budget just below the full size keeps everything else.
    expect(full).toContain("```mermaid");
    const justBelow = renderMarkdown(big.verdict, full.length - 1);
    expect(justBelow).not.toContain("```mermaid");
    expect(justBelow).toContain("<summary>All metrics");
    expect(justBelow).toContain("<summary>All recorded conditions</summary>");
    // Per-cell detail next: a budget just below the size without the pictures keeps the conditions.
    const withoutPictures = renderMarkdown(big.verdict, justBelow.length - 1);
    expect(withoutPictures).not.toContain("<summary>All metrics");
    expect(withoutPictures).toContain("<summary>All recorded conditions</summary>");
    expect(big.reportMarkdown.length).toBeLessThanOrEqual(65_536);
  });

  it("keeps the head even when nothing else fits", () => {
    const big = outcome(18);
    const tiny = renderMarkdown(big.verdict, 3_000);
    expect(tiny.length).toBeLessThanOrEqual(3_000);
    expect(tiny.startsWith("## ❌ vllm-perf-gate: regression")).toBe(true);
    expect(tiny).toMatch(/Truncated to fit the comment size limit/);
  });
});

describe("terminal output", () => {
  it("is plain without a TTY and coloured with one", () => {
    const { verdict } = outcome(1);
    const plain = renderTerminal(verdict, { color: false });
    expect(plain).not.toContain("\u001b[");
    expect(plain).toMatch(/^vllm-perf-gate: REGRESSION/);
    expect(plain).toMatch(/cell-0 +TTFT p95 +[\d.,]+ ms +[\d.,]+ ms +\+\d+\.\d% .* regression/);
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
      /\| Change \| Decision interval \| p \(adj\.\) \| Detectable \| Verdict \|/,
    );
    expect(reportMarkdown).toMatch(/\| TTFT p95 ↓ \| ±5% \|[^\n]*\| \+\d+\.\d% \| ⚪ within tolerance/);
    // A throughput worsening is a drop: shown in the metric's own direction.
    expect(reportMarkdown).toMatch(
      /\| Output throughput ↑ \| ±5% \|[^\n]*\| −\d+\.\d% \| ⚪ within tolerance/,
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
    expect(plain).toMatch(/decision interval +detectable +verdict/);
    expect(plain).toMatch(/within tolerance/);
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
    const markdown = renderMarkdown({ ...verdict, comparisons });
    const label =
      "⚪ within tolerance: better beyond it, but not a significant improvement at the adjusted level";
    expect(markdown).toMatch(
      new RegExp(`\\| ${describeMetric(better.metric)} ↓ \\| ±10% \\|[^\\n]*${label}`),
    );
    const higherName = describeMetric(comparisons[higher]!.metric);
    expect(markdown).toMatch(new RegExp(`\\| ${higherName} ↑ \\| ±10% \\|[^\\n]*${label}`));
    // Inside the band on the better side (−9% end): the plain label.
    comparisons[index] = { ...better, ci: [0.81, 0.91] };
    comparisons[higher] = { ...comparisons[higher]!, ci: [1.09, 1.25] };
    expect(renderMarkdown({ ...verdict, comparisons })).not.toContain(label);
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
      /About \d+ usable runs per side \(\d+ more\) and ~\d+ GPU-minutes would settle it if the estimates hold\./,
    );
    expect(renderTerminal(verdict, { color: false })).toMatch(/GPU-minutes would settle it/);
  });
});
