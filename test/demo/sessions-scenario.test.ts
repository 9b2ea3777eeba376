import { beforeAll, describe, expect, it } from "vitest";
import { runCellVirtually } from "../../src/app/virtual-run.js";
import { compareRecords, settingsFromConfig } from "../../src/compare/index.js";
import type { VerdictFile } from "../../src/compare/verdict/verdict-schema.js";
import { parseConfigText } from "../../src/config/load.js";
import { demoConfigText, scenarios } from "../../src/demo/scenarios.js";
import { type RunRecord, runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { applyOverrides, coerceOverrides, resolveProfile } from "../../src/sim/profile.js";

/**
 * The `sessions` scenario's own configs and simulator settings, each run on the simulator's engine on
 * virtual time (`app/virtual-run.ts`: the runner's dispatcher, session runner and metrics, no HTTP and
 * no host noise), three server starts per side, compared as the demo compares them: the gate must block
 * on the deep turns' first-token wait, and the single requests must not be what it blocks on.
 */
const scenario = scenarios.sessions;
const runsPerSide = 3;

async function measureSide(side: "baseline" | "candidate"): Promise<RunRecord[]> {
  const { config } = parseConfigText(demoConfigText(scenario, side, 1000), `${side}.yml`, { env: {} });
  const set = side === "baseline" ? scenario.baselineSet : scenario.candidateSet;
  const profile = applyOverrides(resolveProfile("small-gpu"), coerceOverrides(set));
  const records: RunRecord[] = [];
  for (const cell of config.cells)
    for (let run = 0; run < runsPerSide; run++) {
      const measured = await runCellVirtually({
        config,
        cell,
        profile,
        // Each run its own server start, as the demo's per-run lifecycle gives it.
        serverSeed: (side === "baseline" ? 1000 : 2000) + run,
        runIndex: run,
        side,
      });
      records.push(runRecordFromRunFile(measured.file, `${side}/${cell.name}/run-${run}/run.json`));
    }
  return records;
}

describe("demo scenario sessions (virtual time)", () => {
  let verdict: VerdictFile;
  let baseline: RunRecord[];
  let candidate: RunRecord[];
  beforeAll(async () => {
    baseline = await measureSide("baseline");
    candidate = await measureSide("candidate");
    const { config } = parseConfigText(demoConfigText(scenario, "baseline", 1000), "baseline.yml", {
      env: {},
    });
    verdict = compareRecords({
      baseline,
      candidate,
      mode: "interleaved",
      settings: settingsFromConfig(config),
    }).verdict;
  });

  const check = (cell: string, metric: string) =>
    verdict.comparisons.find((c) => c.cell === cell && c.metric === metric);

  it("blocks on TTFT p95 at turn 8 and deeper of the sessions cell", () => {
    expect(verdict.verdict).toBe("regression");
    const deep = check("sessions", "ttft_p95_depth_8_up");
    expect(deep?.gated).toBe(true);
    expect(deep?.verdict).toBe("regression");
    // Far beyond the 10% tolerance, not at its edge: the evicted contexts are prefilled again.
    expect(deep!.ratio!).toBeGreaterThan(1.5);
    expect(scenario.expectedVerdicts).toContain(verdict.verdict);
  });

  it("the first turns, whose context is the shared system prompt, are not what got slower", () => {
    const first = check("sessions", "ttft_p95_depth_1");
    expect(first?.gated).toBe(false);
    expect(first!.ratio!).toBeLessThan(1.1);
  });

  it("the deep turns find less of their context cached", () => {
    const hits = check("sessions", "session_cache_hit_rate");
    expect(hits?.gated).toBe(false);
    expect(hits!.ratio!).toBeLessThan(0.9);
  });

  it("every gated check of the single requests is within tolerance or better", () => {
    const single = verdict.comparisons.filter((c) => c.cell === "single" && c.gated);
    expect(single.map((c) => c.metric).sort()).toEqual(
      ["e2el_p95", "error_rate", "output_throughput", "tpot_p95", "ttft_p95"].sort(),
    );
    for (const c of single) expect(["within-tolerance", "improvement"], `${c.metric}`).toContain(c.verdict);
    // The cheaper steps make a lone request's wait shorter.
    expect(check("single", "tpot_p95")!.ratio!).toBeLessThan(1);
    expect(check("single", "ttft_p95")!.ratio!).toBeLessThan(1);
  });
});
