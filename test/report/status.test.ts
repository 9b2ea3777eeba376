import { describe, expect, it } from "vitest";
import {
  addingRunsLine,
  baselineMissingReport,
  errorSummary,
  maxRunsReachedLine,
  measuringBlockLine,
  provenanceFooter,
} from "../../src/report/status.js";

describe("the use cases' status text (src/report/status.ts)", () => {
  it("renders the adaptive loop's lines for the action's log and the demo's progress alike", () => {
    expect(addingRunsLine("2 gated checks are inconclusive", 3, ["chat", "rag"])).toBe(
      "Inconclusive (2 gated checks are inconclusive); adding 3 run(s) per side to chat, rag.",
    );
    expect(addingRunsLine("too few usable runs", 1, null)).toContain("to every cell.");
    expect(maxRunsReachedLine(6, 6)).toBe("Still inconclusive at 6 runs; max-runs (6) reached.");
    expect(measuringBlockLine("candidate", 2, 3, 8)).toBe("candidate: runs 3-5 (at most 8)");
    expect(measuringBlockLine("baseline", 0, 1, 8)).toBe("baseline: run 1 (at most 8)");
  });

  it("escapes what came from outside: reasons, branch names, labels, notes", () => {
    const report = baselineMissingReport({
      reason: "no artifact on <b>main</b> @octocat",
      fallbackReason: null,
      cells: 2,
      runsEach: 3,
      artifactName: "results",
      baseBranch: "feat`x\ny",
    });
    expect(report).not.toContain("<b>");
    expect(report).not.toMatch(/@octocat/);
    expect(report).toContain("`feat'x'y`");
    expect(report).toContain("(2 cell(s), 3 run(s) each)");
    expect(
      provenanceFooter({
        baseline: { commit: "a".repeat(40), runId: "12; rm", date: "not a date", note: "[x](https://evil)" },
        artifactName: "results",
        runId: 7,
        runUrl: "https://github.com/o/r/actions/runs/7",
      }),
    ).toBe(
      "<sub>Baseline: `aaaaaaaaaaaa`. Note: \\[x\\](https:\u200b//evil). Evidence: artifact `results` of [run 7](https://github.com/o/r/actions/runs/7); its `compare/report.html` is this report with the charts.</sub>",
    );
  });

  it("keeps an error message inside its code fence", () => {
    expect(errorSummary("bad ```\n## heading")).toBe(
      "## vllm-perf-gate: error\n\n```\nbad '''\n## heading\n```\n",
    );
  });
});
