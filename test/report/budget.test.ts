import { describe, expect, it } from "vitest";
import type { Alternation } from "../../src/config/alternation.js";
import { budgetOverviewLines, budgetPlanLines } from "../../src/report/budget.js";
import type { BudgetPlan } from "../../src/stats/budget-plan.js";

/** A plan of two cells, throughput decided in both, TTFT p95 in neither, in the schedule given. */
function plan(schedule: Alternation, runs: number, starts: number): BudgetPlan<Alternation> {
  const checks = [
    { metric: "output_throughput", detectable: 0.08, decided: true, power: 0.97 },
    { metric: "ttft_p95", detectable: 0.19, decided: false, power: 0.2 },
  ];
  return {
    runsPerSide: runs,
    schedule,
    serverStarts: starts,
    gpuMinutes: 57.4,
    budgetMinutes: 60,
    cells: ["chat", "rag"].map((name) => ({ name, requests: 240, secondsPerRun: 90, checks })),
    decided: 2,
    checks: 4,
    power: 2.34,
  };
}

const fresh = plan({ runsPerGroup: 1, startEachGroup: true }, 4, 8);
const shared = plan({ runsPerGroup: 2, startEachGroup: false }, 4, 3);

describe("what a budget buys, in words (src/report/budget.ts)", () => {
  it("says how the plan's runs fall into server starts: shared, or each run on a start of its own", () => {
    const toDecide = new Map([
      ["chat\u0000ttft_p95", 240],
      ["rag\u0000ttft_p95", null],
    ]);
    const [line, decides, ...open] = budgetPlanLines(fresh, 0.1, toDecide);
    expect(line).toBe(
      "budget 60 GPU-minutes (gate.budget_gpu_minutes): 4 runs a side, each run on a start of its own, 8 server starts, about 57 GPU-minutes; requests per run: chat 240, rag 240",
    );
    expect(decides).toBe("  decides 2 of 4 gated checks at +10% (gate.detect_change)");
    expect(open).toHaveLength(2);
    expect(budgetPlanLines(shared, 0.1, toDecide)[0]).toContain(
      ": 4 runs a side in starts of 2, 3 server starts,",
    );
  });

  it("validate --budget's set and whole plan name their schedule too", () => {
    const lines = budgetOverviewLines({
      budgetMinutes: 60,
      rows: [
        { cell: "chat", atTolerance: 20, atDetectChange: 40, detectable: new Map([["ttft_p95", 0.19]]) },
      ],
      affordable: { cells: ["chat"], plan: fresh },
      whole: shared,
      detectChange: 0.1,
      metrics: ["ttft_p95"],
    });
    expect(lines).toContain(
      "  a budget of 60 GPU-minutes decides every check of: chat (together about 57 GPU-minutes, 4 runs a side, each run on a start of its own): a PR tier (the action's `cells`)",
    );
    expect(lines.at(-1)).toBe(
      "  every cell together: decides 2 of 4 checks for about 57 GPU-minutes, 4 runs a side in starts of 2",
    );
  });
});
