/**
 * One simulated pull request through the gate's real functions (bench:cost): the first repeats.min runs
 * a side of every cell, then the adaptive loop (app/adaptive.ts addRunsUntilDecided) with compare
 * (compareRecords) at each look; each measuring step planned on the runner's devices (planStep: GPU-minutes
 * and wall-clock) and measured in the interleaved order (runner/interleaved.ts alternatingBlocks), every
 * block of a side on one server start that serves every cell of the step (the per-side lifecycle).
 */
import { type AdaptiveRepeats, addRunsUntilDecided, type LookOutcome } from "../src/app/adaptive.js";
import { planStep } from "../src/app/measure-on-devices.js";
import { type CompareRecordsInput, type CompareSettings, compareRecords } from "../src/compare/index.js";
import type { VerdictFile } from "../src/compare/verdict/verdict-schema.js";
import type { Config } from "../src/config/schema.js";
import { alternation } from "../src/config/summary.js";
import type { RunRecord } from "../src/metrics/run-record.js";
import { alternatingBlocks } from "../src/runner/interleaved.js";
import type { Change, StartNoise, World } from "./noise.js";

export interface SimulatedPr {
  /** The last look's verdict. */
  verdict: VerdictFile;
  runsPerSide: number;
  /** Per device count asked for: GPU-minutes (busy) and wall-clock of every measuring step. */
  gpuMinutes: number[];
  wallClock: number[];
}

export interface PrDesign {
  config: Config;
  settings: CompareSettings;
  /** Seconds of one run per cell of the config (its record's durationS). */
  secondsPerRun: readonly number[];
  /** The start level's noise; null: the runs draw none and record no start. */
  starts: StartNoise | null;
  startVariancePriors?: CompareRecordsInput["startVariancePriors"];
  runVariancePriors?: CompareRecordsInput["runVariancePriors"];
  /** The device counts each step is planned on (default: one). */
  deviceCounts?: readonly number[];
}

const sides = ["baseline", "candidate"] as const;

const onDevices = (config: Config, devices: number): Config => ({
  ...config,
  runner: { ...config.runner, devices: Array.from({ length: devices }, (_, i) => String(i)) },
});

export async function simulateInterleavedPr(
  world: World,
  design: PrDesign,
  change: Change,
): Promise<SimulatedPr> {
  const { config } = design;
  const names = config.cells.map((cell) => cell.name);
  const deviceCounts = design.deviceCounts ?? [1];
  // The config's schedule whole: shared starts, or every run on a start of its own (repeats.block fresh).
  const block = alternation(config);
  const baseline: RunRecord[] = [];
  const candidate: RunRecord[] = [];
  const counts = new Map<string, number>(names.map((name) => [name, 0]));
  const zero = [0, 0, 0, 0];
  const gpu = deviceCounts.map(() => 0);
  const wall = deviceCounts.map(() => 0);
  let last: VerdictFile | null = null;
  const loop: AdaptiveRepeats<LookOutcome> = {
    look: async () => {
      const { verdict } = compareRecords({
        baseline,
        candidate,
        settings: design.settings,
        mode: "interleaved",
        ...(design.startVariancePriors ? { startVariancePriors: design.startVariancePriors } : {}),
        ...(design.runVariancePriors ? { runVariancePriors: design.runVariancePriors } : {}),
        now: new Date(0),
      });
      last = verdict;
      return { verdict: verdict.verdict, nextLook: verdict.nextLook };
    },
    measure: async (step) => {
      deviceCounts.forEach((devices, k) => {
        const plan = planStep({
          sides: sides.map((side) => ({ side, config: onDevices(config, devices) })),
          step,
          config: onDevices(config, devices),
        });
        gpu[k]! += plan.gpuMinutes;
        wall[k]! += plan.wallClockMinutes;
      });
      const cells = (step.cells ?? names).map((name) => names.indexOf(name));
      for (const group of alternatingBlocks(step.firstRun, step.runs, sides, block)) {
        const start = design.starts
          ? { id: `${group.side}:${group.firstRun}`, shift: world.start(design.starts) }
          : undefined;
        for (const cell of cells)
          for (let run = group.firstRun; run < group.firstRun + group.runs; run++) {
            const record = world.run(
              cell,
              run,
              zero,
              group.side === "candidate" ? change : { kind: "none" },
              group.side,
              group.side,
              0,
              start,
            );
            record.durationS = design.secondsPerRun[cell]!;
            (group.side === "baseline" ? baseline : candidate).push(record);
          }
      }
      for (const cell of cells)
        counts.set(names[cell]!, Math.max(counts.get(names[cell]!)!, step.firstRun + step.runs));
    },
    runsMeasured: async (cells) => Math.min(...(cells ?? names).map((name) => counts.get(name)!)),
    cells: null,
    maxRuns: config.repeats.max,
  };
  // As the gate: the first repeats.min runs a side of every cell, then the adaptive loop.
  await loop.measure({ firstRun: 0, runs: config.repeats.min, cells: null });
  await addRunsUntilDecided(loop);
  const verdict = last as VerdictFile | null;
  if (verdict === null) throw new Error("the adaptive loop took no look");
  return { verdict, runsPerSide: Math.max(...counts.values()), gpuMinutes: gpu, wallClock: wall };
}
