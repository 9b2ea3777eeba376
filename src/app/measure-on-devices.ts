import type { Config } from "../config/schema.js";
import { selectCells } from "../config/select-cells.js";
import { serverLifecycle } from "../config/server-kinds.js";
import {
  alternation,
  baselineRunsPerStart,
  baselineStartGroups,
  serverStartSeconds,
  summarizeConfig,
  type TraceReplays,
} from "../config/summary.js";
import { type DevicePlan, planDevices, type SideWork } from "../runner/device-plan.js";
import type { ServerDevice } from "../server/types.js";
import type { MeasureStep } from "./adaptive.js";

/**
 * A measuring step on the runner's devices (config runner.devices; docs/action.md, Several GPUs): the
 * step's cells and sides planned by runner/device-plan.ts (each cell's sides on one device, a crossover;
 * devices balanced; the A/B blocks of repeats.block on each device) and executed exactly as planned:
 * every device at once, its blocks one after the other, each block one measure call (one server start
 * per side under the per-side lifecycle). Without runner.devices the plan has one device and its blocks
 * are alternatingBlocks over every cell, measured on the GPUs the server config names.
 */

/** One side of the step: what it is called and the config it measures. */
interface SideToMeasure<Side extends string> {
  side: Side;
  config: Config;
}

/** One block of the plan: a side's runs of some cells on one device (one measure call). */
export interface DeviceBlock {
  /** Absent: no runner.devices, one server at a time on the config's GPUs. */
  device: ServerDevice | undefined;
  /** The block's cells; null: every cell of the step's side (a step for every cell, all in the block). */
  cells: string[] | null;
  /** The block's runs when every cell has the same (always on one device). */
  firstRun: number;
  runs: number;
  /** Per cell, when a cell split over devices has its own range in the block. */
  firstRunByCell?: Record<string, number>;
  runsByCell?: Record<string, number>;
}

export interface MeasureOnDevicesOptions<Side extends string> {
  /** The sides in the order of the first group (A, B); one for a stored or baseline step. */
  sides: readonly SideToMeasure<Side>[];
  /**
   * A step of one side keeps the alternation's start per group (the CLI's `run` of a config whose
   * repeats.block is `fresh`, as the plan it prints). Default false: one side's consecutive groups share
   * a start (a stored or baseline step; `run` under `auto`).
   */
  aloneStartsEachGroup?: boolean;
  step: MeasureStep;
  /** The config that says how to measure (the PR's): runner.devices, the lifecycle, repeats.block, the start cost. */
  config: Config;
  measureBlock: (side: Side, block: DeviceBlock) => Promise<void>;
  /** Checked between blocks (an interrupt): no further block starts. */
  stopped?: () => boolean;
  /** The trace cells' replays read from their files (validate's estimates), for their minutes per run. */
  traces?: TraceReplays;
  /** A pull request's budget (gate.budget_gpu_minutes): no block starts that would take the spend past it. */
  budget?: SpendMeter;
}

/**
 * GPU-minutes spent so far against a budget, over every step of a job: each block's own GPU time as the
 * clock measured it (its server start and runs), and the blocks in flight on other devices at their
 * planned length. A block whose planned length would take the spend past the limit is not started.
 */
export interface SpendMeter {
  limitMinutes: number;
  spentMinutes: number;
  inFlightMinutes: number;
  /** Milliseconds, injected (the job's clock). */
  now: () => number;
  /** Told of each block left out by the budget. */
  onCut?: (plannedMinutes: number, spentMinutes: number) => void;
}

export function spendMeter(limitMinutes: number, now: () => number): SpendMeter {
  return { limitMinutes, spentMinutes: 0, inFlightMinutes: 0, now };
}

/** The plan of a step (pure: what measureOnDevices executes). */
export function planStep<Side extends string>(
  options: Pick<
    MeasureOnDevicesOptions<Side>,
    "sides" | "step" | "config" | "traces" | "aloneStartsEachGroup"
  >,
): DevicePlan<Side> {
  const { config, step } = options;
  const chosen = alternation(config);
  const work: SideWork<Side>[] = [];
  for (const { side, config: sideConfig } of options.sides) {
    const summary = summarizeConfig(sideConfig, [], undefined, options.traces);
    const group = `${side}:${JSON.stringify(sideConfig.server)}`;
    for (const cell of selectCells(sideConfig, step.cells ?? undefined)) {
      const index = sideConfig.cells.indexOf(cell);
      work.push({
        cell: cell.name,
        side,
        firstRun: step.firstRun,
        runs: step.runs,
        // A searched cell decides its own runs: weighed as one run of its schedule.
        minutesPerRun: summary.cells[index]!.estimatedSecondsPerRun / 60,
        serverGroup: group,
      });
    }
  }
  const devices = config.runner.devices ?? ["0"];
  return planDevices(work, {
    devices: devices.map((_, slot) => slot),
    sides: options.sides.map((side) => side.side),
    startMinutes: serverStartSeconds(config) / 60,
    lifecycle: serverLifecycle(config),
    runsPerBlock: chosen.runsPerGroup,
    startEachGroup:
      chosen.startEachGroup && (options.sides.length > 1 || options.aloneStartsEachGroup === true),
  });
}

export async function measureOnDevices<Side extends string>(
  options: MeasureOnDevicesOptions<Side>,
): Promise<DevicePlan<Side>> {
  const plan = planStep(options);
  const devices = options.config.runner.devices;
  // A block holding every cell of a step for every cell is a request for every cell (cells: null).
  const everyCell = new Map(
    options.sides.map(({ side, config }) => [
      side,
      selectCells(config, options.step.cells ?? undefined).length,
    ]),
  );
  let failed = false;
  const stop = () => failed || options.stopped?.() === true;
  const outcomes = await Promise.allSettled(
    plan.devices.map(async (timeline) => {
      const device = devices ? { slot: timeline.device, spec: devices[timeline.device]! } : undefined;
      for (const block of timeline.blocks) {
        if (stop()) return;
        const planned = block.endAt - block.startAt;
        const meter = options.budget;
        if (meter && meter.spentMinutes + meter.inFlightMinutes + planned > meter.limitMinutes + 1e-9) {
          meter.onCut?.(planned, meter.spentMinutes);
          return;
        }
        const started = meter?.now();
        if (meter) meter.inFlightMinutes += planned;
        const first = block.runs[0]!;
        const uniform = block.runs.every(
          (runs) => runs.firstRun === first.firstRun && runs.runs === first.runs,
        );
        try {
          await options.measureBlock(block.side, {
            device,
            cells:
              options.step.cells === null && block.runs.length === everyCell.get(block.side)
                ? null
                : block.runs.map((runs) => runs.cell),
            firstRun: first.firstRun,
            runs: first.runs,
            ...(uniform
              ? {}
              : {
                  firstRunByCell: Object.fromEntries(block.runs.map((runs) => [runs.cell, runs.firstRun])),
                  runsByCell: Object.fromEntries(block.runs.map((runs) => [runs.cell, runs.runs])),
                }),
          });
        } catch (error) {
          // The other devices finish the block they are in and start no other.
          failed = true;
          throw error;
        } finally {
          if (meter && started !== undefined) {
            meter.inFlightMinutes -= planned;
            meter.spentMinutes += Math.max(0, meter.now() - started) / 60_000;
          }
        }
      }
    }),
  );
  const failure = outcomes.find((outcome) => outcome.status === "rejected");
  if (failure) throw failure.reason;
  return plan;
}

/** The first look of each mode on the config's devices (or `devices`), for validate's wall-clock lines. */
export interface ModePlan {
  mode: "interleaved" | "stored" | "baseline";
  runs: number;
  devices: number;
  plan: DevicePlan;
}

export function firstLookPlans(config: Config, devices?: number, traces?: TraceReplays): ModePlan[] {
  const onDevices: Config =
    devices === undefined
      ? config
      : {
          ...config,
          runner: { ...config.runner, devices: Array.from({ length: devices }, (_, i) => String(i)) },
        };
  const count = onDevices.runner.devices?.length ?? 1;
  const both = [
    { side: "baseline", config: onDevices },
    { side: "candidate", config: onDevices },
  ];
  const one = [{ side: "candidate", config: onDevices }];
  const { min, baseline } = config.repeats;
  const plan = (sides: SideToMeasure<string>[], step: MeasureStep) =>
    planStep({ sides, step, config: onDevices, ...(traces ? { traces } : {}) });
  const first = { firstRun: 0, cells: null };
  return [
    { mode: "interleaved", runs: min, devices: count, plan: plan(both, { ...first, runs: min }) },
    { mode: "stored", runs: min, devices: count, plan: plan(one, { ...first, runs: min }) },
    {
      mode: "baseline",
      runs: baseline,
      devices: count,
      plan: stepsInTurn(baselineSteps(onDevices, baseline, null).map((step) => plan(one, step))),
    },
  ];
}

/**
 * A baseline job's runs as measuring steps, one after the other, each its own server starts
 * (docs/compare.md, "Server starts"): `baselineStartGroups` of `baselineRunsPerStart` runs, so that the
 * job records at least two starts a side and main's history measures the start level.
 */
export function baselineSteps(config: Config, runs: number, cells: string[] | null): MeasureStep[] {
  let firstRun = 0;
  return baselineStartGroups(runs, baselineRunsPerStart(config, runs)).map((count) => {
    const step = { firstRun, runs: count, cells };
    firstRun += count;
    return step;
  });
}

/**
 * Plans of steps measured one after the other, as one plan: each step starts when the one before ends
 * (every plan lists the same devices, in order).
 */
function stepsInTurn<Side extends string>(plans: readonly DevicePlan<Side>[]): DevicePlan<Side> {
  let offset = 0;
  const devices: DevicePlan<Side>["devices"] = [];
  for (const plan of plans) {
    const at = offset;
    const later = <T extends { startAt: number; endAt: number }>(entry: T): T => ({
      ...entry,
      startAt: entry.startAt + at,
      endAt: entry.endAt + at,
    });
    plan.devices.forEach((timeline, position) => {
      const blocks = timeline.blocks.map((block) => ({ ...later(block), runs: block.runs.map(later) }));
      const into = devices[position];
      if (into === undefined) devices.push({ ...timeline, blocks, endAt: timeline.endAt + at });
      else {
        into.blocks.push(...blocks);
        into.serverStarts += timeline.serverStarts;
        into.busyMinutes += timeline.busyMinutes;
        if (blocks.length > 0) into.endAt = timeline.endAt + at;
      }
    });
    offset += plan.wallClockMinutes;
  }
  const sum = (pick: (plan: DevicePlan<Side>) => number) =>
    plans.reduce((total, plan) => total + pick(plan), 0);
  return {
    devices,
    wallClockMinutes: offset,
    serverStarts: sum((plan) => plan.serverStarts),
    gpuMinutes: sum((plan) => plan.gpuMinutes),
    reservedGpuMinutes: sum((plan) => plan.reservedGpuMinutes),
  };
}
