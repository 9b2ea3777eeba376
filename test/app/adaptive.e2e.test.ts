import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  addRunsUntilDecided,
  fewestRuns,
  type LookOutcome,
  type LoopEvent,
  type MeasureStep,
  measureAlternately,
} from "../../src/app/adaptive.js";
import { runCells } from "../../src/app/run-cells.js";
import type { Config } from "../../src/config/schema.js";
import { baseUrlProvider } from "../../src/server/base-url.js";
import type { ServerProvider } from "../../src/server/types.js";
import { noSecrets } from "../job-outbound.js";
import { type FakeServer, startFakeServer } from "../runner/helpers/fake-openai-server.js";
import { testConfig, tinyCell } from "../runner/helpers/run-config.js";

type NextLook = NonNullable<LookOutcome["nextLook"]>;

function nextLook(add: Partial<NextLook> = {}): NextLook {
  return {
    runsPerSide: 0,
    addCandidateRuns: 1,
    addBaselineRuns: 1,
    cells: [],
    reason: "1 gated check is inconclusive",
    gpuMinutes: null,
    ...add,
  } as NextLook;
}

/** A loop over counted runs per cell, whose looks are the given outcomes in turn. */
function loopOver(
  outcomes: LookOutcome[],
  options: { cells?: string[]; maxRuns?: number; stopAfter?: number } = {},
) {
  const runs = new Map<string, number>([
    ["a", 3],
    ["b", 3],
  ]);
  const steps: MeasureStep[] = [];
  const events: LoopEvent[] = [];
  let looks = 0;
  const loop = {
    look: async () => outcomes[Math.min(looks++, outcomes.length - 1)]!,
    measure: async (step: MeasureStep) => {
      steps.push(step);
      for (const cell of step.cells ?? [...runs.keys()]) runs.set(cell, step.firstRun + step.runs);
    },
    runsMeasured: async (cells: string[] | null) => fewestRuns(runs, cells),
    cells: options.cells ?? null,
    maxRuns: options.maxRuns ?? Number.POSITIVE_INFINITY,
    onEvent: (event: LoopEvent) => events.push(event),
    stopped: () => options.stopAfter !== undefined && steps.length >= options.stopAfter,
  };
  return { loop, steps, events, looks: () => looks };
}

describe("addRunsUntilDecided (the one adaptive-repeats loop)", () => {
  it("adds the larger of the candidate's and the baseline's request to the cells compare names, from their fewest runs", async () => {
    const { loop, steps, events, looks } = loopOver([
      {
        verdict: "inconclusive",
        nextLook: nextLook({ addCandidateRuns: 2, addBaselineRuns: 3, cells: ["a"] }),
      },
      { verdict: "inconclusive", nextLook: nextLook({ addCandidateRuns: 1, addBaselineRuns: 0, cells: [] }) },
      { verdict: "pass", nextLook: null },
    ]);
    const result = await addRunsUntilDecided(loop);
    // a: 3 -> 6; then every cell from the fewest (b at 3) by 1.
    expect(steps).toEqual([
      { firstRun: 3, runs: 3, cells: ["a"] },
      { firstRun: 3, runs: 1, cells: null },
    ]);
    expect(result).toEqual({ outcome: { verdict: "pass", nextLook: null }, stoppedBecause: "decided" });
    expect(looks()).toBe(3);
    expect(events[0]).toEqual({
      kind: "adding",
      reason: "1 gated check is inconclusive",
      runs: 3,
      cells: ["a"],
    });
  });

  it("caps the runs at max-runs and stops there, saying so", async () => {
    const { loop, steps, events } = loopOver(
      [{ verdict: "inconclusive", nextLook: nextLook({ addCandidateRuns: 2, addBaselineRuns: 2 }) }],
      { maxRuns: 4, cells: ["a", "b"] },
    );
    const result = await addRunsUntilDecided(loop);
    expect(steps).toEqual([{ firstRun: 3, runs: 1, cells: ["a", "b"] }]);
    expect(result.stoppedBecause).toBe("max-runs");
    expect(events.at(-1)).toEqual({ kind: "max-runs", runs: 4, maxRuns: 4 });
  });

  it("adds nothing when the comparison stops asking", async () => {
    for (const outcome of [
      { verdict: "inconclusive", nextLook: null },
      { verdict: "regression", nextLook: null },
      { verdict: "error", nextLook: null },
    ] as LookOutcome[]) {
      const { loop, steps, looks } = loopOver([outcome]);
      expect((await addRunsUntilDecided(loop)).stoppedBecause).toBe("decided");
      expect(steps).toEqual([]);
      expect(looks()).toBe(1);
    }
  });

  it("replaces excluded runs when an error verdict comes with a next look (a cell whose runs were all screened out)", async () => {
    const { loop, steps, looks } = loopOver([
      { verdict: "error", nextLook: nextLook({ addCandidateRuns: 2, addBaselineRuns: 2, cells: ["short"] }) },
      { verdict: "pass", nextLook: null },
    ]);
    const result = await addRunsUntilDecided(loop);
    expect(result.stoppedBecause).toBe("decided");
    expect(result.outcome.verdict).toBe("pass");
    expect(steps).toHaveLength(1);
    expect(steps[0]?.runs).toBe(2);
    expect(steps[0]?.cells).toEqual(["short"]);
    expect(looks()).toBe(2);
  });

  it("stops, saying so, when a step measured no new run (a sweep cell measures its loads once)", async () => {
    const { loop, steps, events, looks } = loopOver([
      { verdict: "inconclusive", nextLook: nextLook({ cells: ["a"] }) },
    ]);
    const measureNothing = { ...loop, measure: async (step: MeasureStep) => void steps.push(step) };
    const result = await addRunsUntilDecided(measureNothing);
    expect(result.stoppedBecause).toBe("no-progress");
    expect(result.outcome.verdict).toBe("inconclusive");
    expect(steps).toHaveLength(1);
    expect(looks()).toBe(1);
    expect(events.at(-1)).toEqual({ kind: "no-progress", runs: 3, cells: ["a"] });
  });

  it("takes no more looks after a step an interrupt stopped", async () => {
    const { loop, steps, looks } = loopOver([{ verdict: "inconclusive", nextLook: nextLook() }], {
      stopAfter: 1,
    });
    const result = await addRunsUntilDecided(loop);
    expect(result.stoppedBecause).toBe("aborted");
    expect(steps).toHaveLength(1);
    expect(looks()).toBe(1);
  });
});

describe("measureAlternately with the runner (the demo's and the action's schedule)", () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  interface Side {
    name: "baseline" | "candidate";
    config: Config;
    provider: ServerProvider;
    dir: string;
  }

  async function sides(cells: string[], record: (start: string) => void): Promise<Side[]> {
    server = await startFakeServer();
    const dir = mkdtempSync(join(tmpdir(), "vpg-adaptive-"));
    const config = testConfig(cells.map((cell) => tinyCell(cell)));
    return (["baseline", "candidate"] as const).map((name) => {
      const inner = baseUrlProvider({ baseUrl: server!.baseUrl, model: config.model });
      return {
        name,
        config,
        provider: {
          lifecycle: "per-cell",
          start(context) {
            record(`${name}/${context.cell}`);
            return inner.start(context);
          },
        },
        dir: join(dir, name),
      };
    });
  }

  const measured: string[] = [];
  const measureBlock = async (side: Side, block: MeasureStep) => {
    const result = await runCells({
      outbound: noSecrets,
      config: side.config,
      provider: side.provider,
      outDir: side.dir,
      baseDir: side.dir,
      runs: block.runs,
      firstRun: block.firstRun,
      side: side.name,
      calibrate: false,
      ...(block.cells ? { cells: block.cells } : {}),
    });
    measured.push(...result.runs.map((run) => `${side.name}/${run.run}`));
  };

  it("measures A B, B A, ... across looks, one server start per block of a side's consecutive runs", async () => {
    measured.length = 0;
    const starts: string[] = [];
    const both = await sides(["a"], (start) => starts.push(start.split("/")[0]!));
    const runs = new Map<string, number>();
    const step = async (s: MeasureStep) => {
      await measureAlternately(both, s, 1, measureBlock);
      runs.set("a", s.firstRun + s.runs);
    };
    await step({ firstRun: 0, runs: 2, cells: null });
    let looks = 0;
    const result = await addRunsUntilDecided({
      // Inconclusive at 2 runs (asks for 1 more), at 3 (asks for 2, capped at the maximum of 4), at 4.
      look: async () => ({
        verdict: "inconclusive",
        nextLook: nextLook({ addCandidateRuns: looks++ === 0 ? 1 : 2, addBaselineRuns: 0 }),
      }),
      measure: step,
      runsMeasured: async (cells) => fewestRuns(runs, cells),
      cells: null,
      maxRuns: 4,
    });
    expect(result.stoppedBecause).toBe("max-runs");
    // A | BB A (the first 2 runs), then A B (3), then B A (4).
    expect(starts).toEqual([
      "baseline",
      "candidate",
      "baseline",
      "baseline",
      "candidate",
      "candidate",
      "baseline",
    ]);
    expect(measured).toEqual([
      "baseline/0",
      "candidate/0",
      "candidate/1",
      "baseline/1",
      "baseline/2",
      "candidate/2",
      "candidate/3",
      "baseline/3",
    ]);
  });

  it("5 pairs in one step cost 6 starts per cell, not 10", async () => {
    measured.length = 0;
    const starts: string[] = [];
    const both = await sides(["a", "b"], (start) => starts.push(start));
    await measureAlternately(both, { firstRun: 0, runs: 5, cells: null }, 1, measureBlock);
    expect(measured).toHaveLength(20);
    expect(starts.filter((s) => s.endsWith("/a"))).toHaveLength(6);
    expect(starts.filter((s) => s.endsWith("/b"))).toHaveLength(6);
  });

  it("in blocks of 5 (repeats.block), 10 runs per side in two steps cost 2 starts per step and cell", async () => {
    measured.length = 0;
    const starts: string[] = [];
    const both = await sides(["a"], (start) => starts.push(start.split("/")[0]!));
    await measureAlternately(both, { firstRun: 0, runs: 5, cells: null }, 5, measureBlock);
    await measureAlternately(both, { firstRun: 5, runs: 5, cells: null }, 5, measureBlock);
    // A5 B5, then B5 A5: 4 starts, against 5 + 1 + 5 + 1 = 12 at one run per block.
    expect(starts).toEqual(["baseline", "candidate", "candidate", "baseline"]);
    expect(measured.map((run) => `${run[0]}${run.split("/")[1]}`).join(" ")).toBe(
      "b0 b1 b2 b3 b4 c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 b5 b6 b7 b8 b9",
    );
  });

  it("starts no more blocks once stopped", async () => {
    measured.length = 0;
    const both = await sides(["a"], () => {});
    await measureAlternately(
      both,
      { firstRun: 0, runs: 3, cells: null },
      1,
      measureBlock,
      () => measured.length >= 1,
    );
    expect(measured).toEqual(["baseline/0"]);
  });
});
