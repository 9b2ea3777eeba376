import { describe, expect, it } from "vitest";
import { compareAndRender } from "../../src/app/compare.js";
import { defaultCompareSettings } from "../../src/compare/index.js";
import { tallyOf } from "../../src/compare/verdict/summary.js";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { excerptAround, wrapValue } from "../../src/report/environment.js";
import { baseFingerprint, noisyRuns } from "../compare/fixtures.js";

const sharedArgs = Array.from({ length: 30 }, (_, i) => `--option-${i} value-${i}`).join(" ");
const command = (seqs: number) => `vllm serve Qwen/Qwen3-0.6B ${sharedArgs} --max-num-seqs ${seqs}`;

/** One cell, TTFT 1.6× slower on the candidate, everything else the same speed. */
function report(commands: { base: string; cand: string } | null) {
  const fingerprint = (cmd: string | undefined) =>
    cmd === undefined
      ? baseFingerprint
      : { ...baseFingerprint, server: { ...baseFingerprint.server, command: cmd } };
  const settings = defaultCompareSettings();
  settings.gate = { ...settings.gate, allowed_differences: ["server.command"] };
  const base = noisyRuns(5, { seed: 1, cell: "chat", fingerprint: fingerprint(commands?.base) });
  const cand = noisyRuns(5, {
    seed: 2,
    cell: "chat",
    ttftFactor: 1.6,
    fingerprint: fingerprint(commands?.cand),
  });
  const records = (runs: typeof base, side: string) =>
    runs.map((run) => runRecordFromRunFile(run, `${side}/${run.cell}/run-${run.run}/run.json`));
  return compareAndRender({
    baseline: records(base, "base"),
    candidate: records(cand, "cand"),
    settings,
    mode: "interleaved",
    now: new Date("2026-11-30T05:00:00Z"),
  });
}

describe("the rendered comment: environment, headline, impact", () => {
  it("shows where a long server.command differs in the table, and the full values wrapped in a collapsed section", () => {
    const { reportMarkdown } = report({ base: command(64), cand: command(128) });
    const row = reportMarkdown.split("\n").find((line) => line.startsWith("| server.command |"));
    expect(row).toBeDefined();
    // The difference is near the end of a ~500-character value: the table shows that end.
    expect(row).toContain("max-num-seqs 64");
    // Both excerpts start at the same place, so they line up.
    const [, baseCell, candCell] = row!.split(" | ");
    expect(baseCell!.slice(0, 30)).toBe(candCell!.slice(0, 30));
    expect(row).toContain("max-num-seqs 128");
    expect(row!.length).toBeLessThan(300);
    const details = reportMarkdown.slice(
      reportMarkdown.indexOf("<summary>Full values of the differing fields"),
    );
    expect(details).toContain("**server.command**, baseline:");
    const pre = details.slice(details.indexOf("<pre>") + 5, details.indexOf("</pre>"));
    expect(pre.replace(/\n/g, "")).toBe(command(64));
    for (const line of pre.split("\n")) expect(line.length).toBeLessThanOrEqual(100);
    expect(details.indexOf("</details>")).toBeGreaterThan(0);
  });

  it("has no collapsed section of full values when every differing value fits the table", () => {
    const { reportMarkdown } = report({ base: "vllm serve a", cand: "vllm serve b" });
    expect(reportMarkdown).toContain("| server.command | vllm serve a | vllm serve b |");
    expect(reportMarkdown).not.toContain("Full values of the differing fields");
  });

  it("says the headline counts once", () => {
    const { reportMarkdown, verdict } = report(null);
    const tally = tallyOf(verdict.counts);
    expect(verdict.headline).toContain(tally);
    expect(reportMarkdown).not.toContain(tally);
    expect(reportMarkdown.match(/regressed/g)).toHaveLength(1);
  });

  it("quotes only the changes the verdict stands on, in users' words", () => {
    const { reportMarkdown, commentMarkdown, verdict } = report(null);
    const e2el = verdict.comparisons.find((c) => c.metric === "e2el_p95")!;
    expect(e2el.verdict).not.toBe("regression");
    for (const text of [reportMarkdown, commentMarkdown]) {
      const impact = text.split("\n").find((line) => line.startsWith("- **chat**:"))!;
      expect(impact).toMatch(
        /^- \*\*chat\*\*: the slowest 5% wait [\d.,]+ ms longer for their first token \(TTFT p95 [\d.,]+\s→\s[\d.,]+\sms\)\.$/,
      );
      // Nothing is said of the checks within tolerance.
      expect(impact).not.toMatch(/whole answer|per hour|within noise/);
    }
  });

  it("excerpts around the first difference and wraps at spaces", () => {
    expect(excerptAround("short", 0)).toBe("short");
    const long = `${"a".repeat(100)}XYZ${"b".repeat(100)}`;
    const excerpt = excerptAround(long, 100, 30);
    expect(excerpt.length).toBe(30);
    expect(excerpt).toMatch(/^…a+XYZb+…$/);
    expect(wrapValue("aaa bbb ccc ddd", 8)).toEqual(["aaa bbb ", "ccc ddd"]);
    expect(wrapValue("x".repeat(25), 10)).toEqual(["x".repeat(10), "x".repeat(10), "x".repeat(5)]);
  });
});
