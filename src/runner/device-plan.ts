import { alternatingOrder } from "./interleaved.js";

/**
 * Where and when a measuring step runs on a runner with several GPUs (pure; the runner executes exactly
 * this plan, and the cost model and the benches read its figures).
 *
 * Input: the step's work, one entry per cell and side (`SideWork`: the runs to measure, the minutes one
 * run takes, the server the side's cell needs), and the runner's devices, the minutes one server start
 * costs, the server lifecycle and repeats.block.
 *
 * The plan:
 * - **Crossover.** Run k of a cell goes to one device for every side: each device measures both sides of
 *   the cells it holds equally often, so a device that is faster or slower than the others moves both
 *   sides of a cell alike and cancels in the A/B difference. A cell stays on one device, so a device's
 *   speed is a constant of the cell and adds no run-to-run variance either; with `splitCells` a cell
 *   longer than a device's fair share is split over devices in contiguous run ranges (less wall-clock;
 *   its runs then vary with the devices' speeds, which widens its intervals).
 * - **Balance.** The pieces go to devices longest first, each to the device with the least work so far
 *   (LPT), so the wall-clock is close to the total over the devices.
 * - **Alternation on each device.** A device runs its pieces in the A/B groups of `alternatingBlocks`
 *   (groups of repeats.block runs per side by absolute run index, A B then B A, ...), consecutive groups
 *   of one side merged into one block (with `startEachGroup`, each group a block and a
 *   start of its own). The device at position p starts with the order of group p, so half the devices
 *   measure one side while the others measure the other (both sides at once).
 *   With one device the blocks are exactly `alternatingBlocks` over every cell.
 * - **Server starts.** A block is one measure call on one device. Its starts: `per-side`, one per run
 *   of consecutive cells in it that need the same server (`serverGroup`); `per-cell`, one per cell;
 *   `per-run`, one per run.
 *
 * Output: per device its blocks with their timeline (minutes from the step's start), and the step's
 * wall-clock minutes, server starts, busy GPU-minutes (starts and runs) and reserved GPU-minutes (every
 * device of the runner for the wall-clock).
 *
 * This interface is stable: the cost benchmark models 1, 4 and 8 GPUs with it.
 */

type DeviceLifecycle = "per-run" | "per-cell" | "per-side";

/** One cell's runs on one side in the step. */
export interface SideWork<Side extends string = string> {
  cell: string;
  side: Side;
  /** Runs firstRun .. firstRun + runs − 1. */
  firstRun: number;
  runs: number;
  /** Minutes one run of this cell on this side takes on the GPU (warm-up and measured phase). */
  minutesPerRun: number;
  /**
   * The server this side's cell needs (its engine flags and image): under `per-side`, consecutive cells
   * of a block with the same group share one server start.
   */
  serverGroup: string;
}

export interface DevicePlanOptions<Side extends string = string> {
  /** The runner's devices, as the launchers name them (docker --gpus device=k, CUDA_VISIBLE_DEVICES=k). */
  devices: readonly number[];
  /** The sides in the order of group 0 (baseline, candidate); one side for a stored or baseline step. */
  sides: readonly Side[];
  /** Minutes one server start costs (cost.server_start_s / 60). */
  startMinutes: number;
  lifecycle: DeviceLifecycle;
  /** Runs per side per group of the alternation (repeats.block); 1 when below. */
  runsPerBlock: number;
  /**
   * Every group of a side on a server start of its own (runner/interleaved.ts Alternation), with one
   * side too (the caller says when a one-sided step keeps it); default false: consecutive groups of a
   * side on a device share one block and its start.
   */
  startEachGroup?: boolean;
  /** Split a cell longer than a device's share over devices (default false: a cell stays on one). */
  splitCells?: boolean;
}

/** A cell's runs inside a block, in the order they run. */
interface PlannedRuns {
  cell: string;
  firstRun: number;
  runs: number;
  /** Server starts made for these runs (a new server before them: 1; per-run: one per run; else 0). */
  serverStarts: number;
  /** Minutes from the step's start: when its first start (or run) begins, and its last run ends. */
  startAt: number;
  endAt: number;
}

/** Consecutive runs of one side on one device: one measure call. */
interface PlannedBlock<Side extends string = string> {
  side: Side;
  runs: PlannedRuns[];
  serverStarts: number;
  startAt: number;
  endAt: number;
}

interface DeviceTimeline<Side extends string = string> {
  device: number;
  blocks: PlannedBlock<Side>[];
  serverStarts: number;
  /** Minutes of runs and starts on this device. */
  busyMinutes: number;
  endAt: number;
}

export interface DevicePlan<Side extends string = string> {
  /** Every device of the options, in their order (a device without work has no blocks). */
  devices: DeviceTimeline<Side>[];
  wallClockMinutes: number;
  serverStarts: number;
  /** Minutes the GPUs were busy: every server start and every run. */
  gpuMinutes: number;
  /** Every device of the runner for the wall-clock: what a runner reserved for the job costs. */
  reservedGpuMinutes: number;
}

/** A contiguous range of one cell's runs, all its sides, placed on one device. */
interface Piece {
  cellOrder: number;
  cell: string;
  from: number;
  to: number;
  weight: number;
}

export function planDevices<Side extends string>(
  work: readonly SideWork<Side>[],
  options: DevicePlanOptions<Side>,
): DevicePlan<Side> {
  if (options.devices.length === 0) throw new Error("planDevices: expected at least one device");
  if (new Set(options.devices).size !== options.devices.length)
    throw new Error(`planDevices: a device is listed twice (${options.devices.join(", ")})`);
  const k = Math.max(1, Math.floor(options.runsPerBlock));
  const cells = new CellWork(work, options, k);
  const assigned = assignPieces(cells.pieces(), options.devices.length);
  const devices = options.devices.map((device, position) =>
    deviceTimeline(
      device,
      position,
      assigned[position]!.sort((a, b) => a.cellOrder - b.cellOrder || a.from - b.from),
      { ...options, runsPerBlock: k },
      (cell, side, from, to) => cells.runsOf(cell, side, from, to),
      (cell, side) => cells.entry(cell, side)!,
    ),
  );
  const wallClockMinutes = Math.max(0, ...devices.map((timeline) => timeline.endAt));
  return {
    devices,
    wallClockMinutes,
    serverStarts: devices.reduce((sum, timeline) => sum + timeline.serverStarts, 0),
    gpuMinutes: devices.reduce((sum, timeline) => sum + timeline.busyMinutes, 0),
    reservedGpuMinutes: options.devices.length * wallClockMinutes,
  };
}

/** The work by cell and side (checked: known sides, each once per cell), its run ranges and their weights. */
class CellWork<Side extends string> {
  private readonly byCell = new Map<string, Map<Side, SideWork<Side>>>();

  constructor(
    work: readonly SideWork<Side>[],
    private readonly options: DevicePlanOptions<Side>,
    /** Runs per side per group of the alternation. */
    private readonly k: number,
  ) {
    for (const entry of work) {
      if (entry.runs <= 0) continue;
      if (!options.sides.includes(entry.side))
        throw new Error(`planDevices: side "${entry.side}" is not one of ${options.sides.join(", ")}`);
      const sides = this.byCell.get(entry.cell) ?? new Map<Side, SideWork<Side>>();
      this.byCell.set(entry.cell, sides);
      if (sides.has(entry.side))
        throw new Error(`planDevices: cell "${entry.cell}" has side "${entry.side}" twice`);
      sides.set(entry.side, entry);
    }
  }

  entry(cell: string, side: Side): SideWork<Side> | undefined {
    return this.byCell.get(cell)!.get(side);
  }

  /** The runs [from, to) of a side in a range of its cell's run indices, or null when it has none there. */
  runsOf(cell: string, side: Side, from: number, to: number): [number, number] | null {
    const entry = this.entry(cell, side);
    if (!entry) return null;
    const a = Math.max(from, entry.firstRun);
    const b = Math.min(to, entry.firstRun + entry.runs);
    return b > a ? [a, b] : null;
  }

  /**
   * A piece's minutes on its device: its runs, plus the starts it adds there where starts are per cell
   * or per run (per-side starts are the device's, whatever it holds).
   */
  weightOf(cell: string, from: number, to: number): number {
    const options = this.options;
    let minutes = 0;
    let runs = 0;
    let sidesWithRuns = 0;
    for (const side of options.sides) {
      const range = this.runsOf(cell, side, from, to);
      if (!range) continue;
      minutes += (range[1] - range[0]) * this.entry(cell, side)!.minutesPerRun;
      runs += range[1] - range[0];
      sidesWithRuns++;
    }
    const groups = Math.ceil(to / this.k) - Math.floor(from / this.k);
    const starts =
      options.lifecycle === "per-run"
        ? runs
        : options.lifecycle === "per-cell"
          ? startsEachGroup(options)
            ? groups * Math.max(1, sidesWithRuns)
            : sidesWithRuns < 2
              ? 1
              : groups + 1
          : 0;
    return minutes + starts * options.startMinutes;
  }

  /** Pieces: a cell whole, or (splitCells) in contiguous run ranges when it alone exceeds a device's share. */
  pieces(): Piece[] {
    const cells = [...this.byCell.keys()];
    const ranges = cells.map((cell) => {
      const entries = [...this.byCell.get(cell)!.values()];
      const from = Math.min(...entries.map((entry) => entry.firstRun));
      const to = Math.max(...entries.map((entry) => entry.firstRun + entry.runs));
      return { from, to, weight: this.weightOf(cell, from, to) };
    });
    const share = ranges.reduce((sum, range) => sum + range.weight, 0) / this.options.devices.length;
    const pieces: Piece[] = [];
    cells.forEach((cell, cellOrder) => {
      const { from, to, weight } = ranges[cellOrder]!;
      const parts =
        this.options.splitCells === true && share > 0
          ? Math.min(to - from, Math.max(1, Math.ceil(weight / share - 1e-9)))
          : 1;
      for (let part = 0; part < parts; part++) {
        const a = from + Math.floor(((to - from) * part) / parts);
        const b = from + Math.floor(((to - from) * (part + 1)) / parts);
        if (b > a) pieces.push({ cellOrder, cell, from: a, to: b, weight: this.weightOf(cell, a, b) });
      }
    });
    return pieces;
  }
}

/** Each group of a side on a start of its own. */
function startsEachGroup(options: Pick<DevicePlanOptions, "startEachGroup">): boolean {
  return options.startEachGroup === true;
}

/** Longest piece first, to the device with the least work (ties: the earlier device). */
function assignPieces(pieces: readonly Piece[], deviceCount: number): Piece[][] {
  const loads = Array.from({ length: deviceCount }, () => 0);
  const assigned: Piece[][] = Array.from({ length: deviceCount }, () => []);
  const order = pieces
    .map((piece, index) => ({ piece, index }))
    .sort((a, b) => b.piece.weight - a.piece.weight || a.index - b.index);
  for (const { piece } of order) {
    let best = 0;
    for (let d = 1; d < loads.length; d++) if (loads[d]! < loads[best]! - 1e-9) best = d;
    assigned[best]!.push(piece);
    loads[best]! += piece.weight;
  }
  return assigned;
}

function deviceTimeline<Side extends string>(
  device: number,
  position: number,
  pieces: readonly Piece[],
  options: DevicePlanOptions<Side>,
  runsOf: (cell: string, side: Side, from: number, to: number) => [number, number] | null,
  entryOf: (cell: string, side: Side) => SideWork<Side>,
): DeviceTimeline<Side> {
  const k = options.runsPerBlock;
  const groups = new Set<number>();
  for (const piece of pieces)
    for (let group = Math.floor(piece.from / k); group * k < piece.to; group++) groups.add(group);
  // Blocks of (side, [cell, from, to]) with consecutive groups of one side merged, a cell's runs kept
  // together within a block (as one measure call runs them: every run of a cell, then the next cell).
  const blocks: { side: Side; items: { cell: string; from: number; to: number }[] }[] = [];
  for (const group of [...groups].sort((a, b) => a - b)) {
    for (const side of alternatingOrder(group + position, options.sides)) {
      const items: { cell: string; from: number; to: number }[] = [];
      for (const piece of pieces) {
        const range = runsOf(
          piece.cell,
          side,
          Math.max(piece.from, group * k),
          Math.min(piece.to, (group + 1) * k),
        );
        if (range) items.push({ cell: piece.cell, from: range[0], to: range[1] });
      }
      if (items.length === 0) continue;
      const last = blocks.at(-1);
      if (last && last.side === side && !startsEachGroup(options)) {
        for (const item of items) {
          const same = last.items.find((held) => held.cell === item.cell && held.to === item.from);
          if (same) same.to = item.to;
          else last.items.push(item);
        }
      } else blocks.push({ side, items });
    }
  }

  let clock = 0;
  let starts = 0;
  let busy = 0;
  const planned = blocks.map((block): PlannedBlock<Side> => {
    const blockStart = clock;
    let blockStarts = 0;
    let group: string | null = null;
    const runs = block.items.map((item): PlannedRuns => {
      const entry = entryOf(item.cell, block.side);
      const count = item.to - item.from;
      const itemStarts =
        options.lifecycle === "per-run"
          ? count
          : options.lifecycle === "per-cell" || entry.serverGroup !== group
            ? 1
            : 0;
      group = entry.serverGroup;
      const startAt = clock;
      clock += itemStarts * options.startMinutes + count * entry.minutesPerRun;
      blockStarts += itemStarts;
      busy += itemStarts * options.startMinutes + count * entry.minutesPerRun;
      return {
        cell: item.cell,
        firstRun: item.from,
        runs: count,
        serverStarts: itemStarts,
        startAt,
        endAt: clock,
      };
    });
    starts += blockStarts;
    return { side: block.side, runs, serverStarts: blockStarts, startAt: blockStart, endAt: clock };
  });
  return { device, blocks: planned, serverStarts: starts, busyMinutes: busy, endAt: clock };
}
