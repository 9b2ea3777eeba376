import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareAndRender } from "../../src/app/compare.js";
import { defaultCompareSettings } from "../../src/compare/index.js";
import { scenarioNames } from "../../src/demo/scenarios.js";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { firstScreenParts } from "../../src/report/first-screen.js";
import { renderMarkdown } from "../../src/report/markdown.js";
import { cli } from "../cli/helpers.js";
import { noisyRuns, writeResultsDir } from "../compare/fixtures.js";
import { demoScenarioComparison, matrixComparison } from "./comment-fixtures.js";

/**
 * The comment is the short form of the report (report/markdown.ts, one renderer, two budgets): its size
 * before any section is shed, what its first screen says, that the long form keeps everything, and that
 * `compare` writes it as comment.md beside report.md.
 */

/** The comment's limits before any section is shed: 3 cells, and the 19 cells of examples/matrix-18.yml. */
const threeCellLimit = 6 * 1024;
const matrixLimit = 12 * 1024;
const shedNote = "Some detail was left out";

describe("the comment's size", () => {
  for (const name of scenarioNames) {
    it(`demo ${name}: the comment is at most 6 KB, nothing shed; the long form keeps every table`, () => {
      const { commentMarkdown, reportMarkdown, verdict } = demoScenarioComparison(name);
      expect(Buffer.byteLength(commentMarkdown)).toBeLessThanOrEqual(threeCellLimit);
      expect(commentMarkdown).not.toContain(shedNote);
      expect(reportMarkdown).not.toContain(shedNote);
      for (const cell of verdict.cells)
        expect(reportMarkdown).toContain(`<summary>All metrics: ${cell.name} (`);
      if (verdict.cells.length > 0)
        expect(reportMarkdown).toContain("<summary>All recorded conditions</summary>");
    });
  }

  it("19 cells with one regression: the comment is at most 12 KB and names only the regression in its first screen", () => {
    const { commentMarkdown, reportMarkdown, verdict } = matrixComparison();
    expect(verdict.counts).toMatchObject({ gated: 95, regression: 1, withinTolerance: 94 });
    expect(Buffer.byteLength(commentMarkdown)).toBeLessThanOrEqual(matrixLimit);
    expect(commentMarkdown).not.toContain(shedNote);
    const firstScreen = commentMarkdown.slice(0, commentMarkdown.indexOf("<details>"));
    // The regression, and its workload family's test when the cell takes the family's average with it.
    const families = (verdict.families ?? []).filter((f) => f.verdict === "regression").length;
    expect(firstScreen.match(/^\| 🔴/gm)).toHaveLength(1 + families);
    // "What it means" speaks of where something happened: the cell (and its family).
    expect(firstScreen.match(/^- \*\*/gm)).toHaveLength(1 + families);
    expect(commentMarkdown).toContain("<details><summary>94 checks within tolerance</summary>");
    // The full report keeps every cell's every metric.
    expect(reportMarkdown.match(/<summary>All metrics: /g)).toHaveLength(19);
  });
});

describe("the first screen", () => {
  it("says what the tradeoff decided, in users' words: chat's TPOT p95 among them", () => {
    const { commentMarkdown, verdict } = demoScenarioComparison("tradeoff");
    expect(verdict.verdict).toBe("regression");
    const chat = commentMarkdown.split("\n").find((line) => line.startsWith("- **chat**:"))!;
    expect(chat).toMatch(/the slowest 5% wait [\d.]+ ms longer for each next token \(TPOT p95 /);
    expect(commentMarkdown).toMatch(
      /^\*\*Mixed result: some phases got better while others got worse\.\*\*$/m,
    );
  });

  it("answers the capacity question for both sides: requests per hour at the SLOs and the slowest users' wait", () => {
    const { commentMarkdown } = demoScenarioComparison("capacity");
    expect(commentMarkdown).toContain(
      "**Capacity at the SLOs**: chat-capacity at p95 TTFT ≤ 300 ms, p95 TPOT ≤ 80.0 ms",
    );
    expect(commentMarkdown).toContain(
      "| Cell | Side | Requests per hour at the SLOs | How long the slowest 5% wait for the first token there | $ per 1,000 |",
    );
    expect(commentMarkdown).toMatch(/\| chat-capacity \| baseline \| [\d,]+ \| \d+ ms \| \$[\d.]+ \|/);
    expect(commentMarkdown).toMatch(
      /\| {2}\| candidate \| [\d,]+ \(\+[\d,]+, \+\d+\.\d%\) \| \d+ ms \| \$[\d.]+ \|/,
    );
  });

  it("says what would settle the open checks and what was spent", () => {
    const { commentMarkdown } = demoScenarioComparison("flaky");
    expect(commentMarkdown).toMatch(/GPU-minutes/);
    expect(commentMarkdown).toMatch(/spent so far: ~\d+ GPU-minutes/);
  });

  it("names the cell an error is about, and how many runs were excluded", () => {
    const toRecords = (runs: ReturnType<typeof noisyRuns>, side: string) =>
      runs.map((run) => runRecordFromRunFile(run, `${side}/${run.cell}/run-${run.run}/run.json`));
    const busy = { clientBound: true, clientBoundReason: "event-loop delay p99 90 ms > 50 ms" };
    const { commentMarkdown, verdict } = compareAndRender({
      baseline: toRecords([...noisyRuns(5, { seed: 1 }), ...noisyRuns(5, { seed: 2, cell: "rag" })], "base"),
      candidate: toRecords(
        [...noisyRuns(5, { seed: 3 }), ...noisyRuns(5, { seed: 4, cell: "rag", flags: busy })],
        "cand",
      ),
      settings: defaultCompareSettings(),
      mode: "interleaved",
    });
    expect(verdict.verdict).toBe("error");
    expect(commentMarkdown.split("\n")[2]).toBe(
      "**rag has no usable runs on one side: 5 of 20 runs were excluded.**  ",
    );
    expect(commentMarkdown).toContain("**5 of 20 runs excluded** (5 client-bound); the list is below.");
    expect(commentMarkdown).toContain("<details><summary>5 runs excluded, and why</summary>");
    expect(commentMarkdown).toContain(
      "| candidate/rag/run-0/run.json | client-bound: event-loop delay p99 90 ms > 50 ms |",
    );
  });

  it("names the override label: how to accept a failing verdict, or who accepted it", () => {
    const { verdict } = demoScenarioComparison("regression");
    const links = {
      kind: "actions-run" as const,
      runUrl: "https://github.com/o/r/actions/runs/7",
      artifactName: "evidence",
    };
    const failing = renderMarkdown(verdict, {
      form: "comment",
      context: { links, override: { label: "perf-ok", failing: true, applied: false, appliedBy: null } },
    });
    expect(failing).toContain(
      "This check fails. Adding the label `perf-ok` to the pull request accepts the result",
    );
    expect(failing).toContain(
      "Full report: [job summary](https://github.com/o/r/actions/runs/7) (every metric of every cell) · with charts: `compare/report.html` in the artifact [`evidence`](https://github.com/o/r/actions/runs/7#artifacts)",
    );
    const accepted = renderMarkdown(verdict, {
      form: "comment",
      context: { links, override: { label: "perf-ok", failing: true, applied: true, appliedBy: "alice" } },
    });
    expect(accepted.split("\n\n")[2]).toBe(
      "**Accepted:** the label `perf-ok` was applied by `alice`, so this check passes despite the verdict.",
    );
  });

  it("is a list of small parts, so a new line for the first screen is one more part", () => {
    const { verdict } = demoScenarioComparison("clean");
    const parts = [...firstScreenParts];
    expect(parts.length).toBeGreaterThan(5);
    const extra = () => [{ kind: "paragraph" as const, lines: ["**Next look**: 2 runs per side"] }];
    const markup = {
      text: (v: string) => v,
      cell: (v: string) => v,
      strong: (t: string) => t,
      code: (t: string) => t,
      link: (l: string) => l,
      tone: (_t: string, text: string) => text,
    };
    const lines = [...parts, extra].flatMap((part) =>
      part(verdict, { links: null, override: null, form: "comment" }, markup),
    );
    expect(lines.at(-1)).toEqual({ kind: "paragraph", lines: ["**Next look**: 2 runs per side"] });
  });
});

describe("compare writes the comment beside the report", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "vpg-comment-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("comment.md, the PR comment as the action posts it; --format comment prints it", async () => {
    const base = await writeResultsDir(join(dir, "base"), noisyRuns(5, { seed: 1 }));
    const cand = await writeResultsDir(join(dir, "cand"), noisyRuns(5, { seed: 2, ttftFactor: 1.6 }));
    const run = await cli(
      ["compare", "--baseline", base, "--candidate", cand, "--out", "out", "--format", "comment"],
      { cwd: dir },
    );
    expect(run.code, run.stderr).toBe(1);
    const comment = await readFile(join(dir, "out", "comment.md"), "utf8");
    const report = await readFile(join(dir, "out", "report.md"), "utf8");
    expect(run.stdout).toBe(comment);
    expect(comment).toMatch(/^## ❌ vllm-perf-gate: regression\n/);
    expect(comment).toContain(
      "Full report: `report.md` (every metric of every cell) · with charts: `report.html` (beside this file)",
    );
    expect(comment.length).toBeLessThan(report.length);
    // No path of this machine: runs are named relative to their side's results.
    expect(comment + report).not.toContain(dir);
    const text = await cli(["compare", "--baseline", base, "--candidate", cand, "--out", "out"], {
      cwd: dir,
    });
    expect(text.stdout).toMatch(/Wrote .*verdict\.json, .*report\.md, .*comment\.md and .*report\.html/);
  });
});
