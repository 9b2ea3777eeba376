import { s as selectCells } from './trace-replay.js';
import { f as serverLifecycle } from './load.js';
import { f as alternatingOrder, g as baselineStartGroups, h as baselineRunsPerStart, i as alternation, b as summarizeConfig, j as serverStartSeconds } from './interleaved.js';

function planDevices(work, options) {
    if (options.devices.length === 0)
        throw new Error("planDevices: expected at least one device");
    if (new Set(options.devices).size !== options.devices.length)
        throw new Error(`planDevices: a device is listed twice (${options.devices.join(", ")})`);
    const k = Math.max(1, Math.floor(options.runsPerBlock));
    const cells = new CellWork(work, options, k);
    const assigned = assignPieces(cells.pieces(), options.devices.length);
    const devices = options.devices.map((device, position) => deviceTimeline(device, position, assigned[position].sort((a, b) => a.cellOrder - b.cellOrder || a.from - b.from), { ...options, runsPerBlock: k }, (cell, side, from, to) => cells.runsOf(cell, side, from, to), (cell, side) => cells.entry(cell, side)));
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
class CellWork {
    options;
    k;
    byCell = new Map();
    constructor(work, options, 
    /** Runs per side per group of the alternation. */
    k) {
        this.options = options;
        this.k = k;
        for (const entry of work) {
            if (entry.runs <= 0)
                continue;
            if (!options.sides.includes(entry.side))
                throw new Error(`planDevices: side "${entry.side}" is not one of ${options.sides.join(", ")}`);
            const sides = this.byCell.get(entry.cell) ?? new Map();
            this.byCell.set(entry.cell, sides);
            if (sides.has(entry.side))
                throw new Error(`planDevices: cell "${entry.cell}" has side "${entry.side}" twice`);
            sides.set(entry.side, entry);
        }
    }
    entry(cell, side) {
        return this.byCell.get(cell).get(side);
    }
    /** The runs [from, to) of a side in a range of its cell's run indices, or null when it has none there. */
    runsOf(cell, side, from, to) {
        const entry = this.entry(cell, side);
        if (!entry)
            return null;
        const a = Math.max(from, entry.firstRun);
        const b = Math.min(to, entry.firstRun + entry.runs);
        return b > a ? [a, b] : null;
    }
    /**
     * A piece's minutes on its device: its runs, plus the starts it adds there where starts are per cell
     * or per run (per-side starts are the device's, whatever it holds).
     */
    weightOf(cell, from, to) {
        const options = this.options;
        let minutes = 0;
        let runs = 0;
        let sidesWithRuns = 0;
        for (const side of options.sides) {
            const range = this.runsOf(cell, side, from, to);
            if (!range)
                continue;
            minutes += (range[1] - range[0]) * this.entry(cell, side).minutesPerRun;
            runs += range[1] - range[0];
            sidesWithRuns++;
        }
        const groups = Math.ceil(to / this.k) - Math.floor(from / this.k);
        const starts = options.lifecycle === "per-run"
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
    pieces() {
        const cells = [...this.byCell.keys()];
        const ranges = cells.map((cell) => {
            const entries = [...this.byCell.get(cell).values()];
            const from = Math.min(...entries.map((entry) => entry.firstRun));
            const to = Math.max(...entries.map((entry) => entry.firstRun + entry.runs));
            return { from, to, weight: this.weightOf(cell, from, to) };
        });
        const share = ranges.reduce((sum, range) => sum + range.weight, 0) / this.options.devices.length;
        const pieces = [];
        cells.forEach((cell, cellOrder) => {
            const { from, to, weight } = ranges[cellOrder];
            const parts = this.options.splitCells === true && share > 0
                ? Math.min(to - from, Math.max(1, Math.ceil(weight / share - 1e-9)))
                : 1;
            for (let part = 0; part < parts; part++) {
                const a = from + Math.floor(((to - from) * part) / parts);
                const b = from + Math.floor(((to - from) * (part + 1)) / parts);
                if (b > a)
                    pieces.push({ cellOrder, cell, from: a, to: b, weight: this.weightOf(cell, a, b) });
            }
        });
        return pieces;
    }
}
/** Each group of a side on a start of its own. */
function startsEachGroup(options) {
    return options.startEachGroup === true;
}
/** Longest piece first, to the device with the least work (ties: the earlier device). */
function assignPieces(pieces, deviceCount) {
    const loads = Array.from({ length: deviceCount }, () => 0);
    const assigned = Array.from({ length: deviceCount }, () => []);
    const order = pieces
        .map((piece, index) => ({ piece, index }))
        .sort((a, b) => b.piece.weight - a.piece.weight || a.index - b.index);
    for (const { piece } of order) {
        let best = 0;
        for (let d = 1; d < loads.length; d++)
            if (loads[d] < loads[best] - 1e-9)
                best = d;
        assigned[best].push(piece);
        loads[best] += piece.weight;
    }
    return assigned;
}
function deviceTimeline(device, position, pieces, options, runsOf, entryOf) {
    const k = options.runsPerBlock;
    const groups = new Set();
    for (const piece of pieces)
        for (let group = Math.floor(piece.from / k); group * k < piece.to; group++)
            groups.add(group);
    // Blocks of (side, [cell, from, to]) with consecutive groups of one side merged, a cell's runs kept
    // together within a block (as one measure call runs them: every run of a cell, then the next cell).
    const blocks = [];
    for (const group of [...groups].sort((a, b) => a - b)) {
        for (const side of alternatingOrder(group + position, options.sides)) {
            const items = [];
            for (const piece of pieces) {
                const range = runsOf(piece.cell, side, Math.max(piece.from, group * k), Math.min(piece.to, (group + 1) * k));
                if (range)
                    items.push({ cell: piece.cell, from: range[0], to: range[1] });
            }
            if (items.length === 0)
                continue;
            const last = blocks.at(-1);
            if (last && last.side === side && !startsEachGroup(options)) {
                for (const item of items) {
                    const same = last.items.find((held) => held.cell === item.cell && held.to === item.from);
                    if (same)
                        same.to = item.to;
                    else
                        last.items.push(item);
                }
            }
            else
                blocks.push({ side, items });
        }
    }
    let clock = 0;
    let starts = 0;
    let busy = 0;
    const planned = blocks.map((block) => {
        const blockStart = clock;
        let blockStarts = 0;
        let group = null;
        const runs = block.items.map((item) => {
            const entry = entryOf(item.cell, block.side);
            const count = item.to - item.from;
            const itemStarts = options.lifecycle === "per-run"
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

function spendMeter(limitMinutes, now) {
    return { limitMinutes, spentMinutes: 0, inFlightMinutes: 0, now };
}
/** The plan of a step (pure: what measureOnDevices executes). */
function planStep(options) {
    const { config, step } = options;
    const chosen = alternation(config);
    const work = [];
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
                minutesPerRun: summary.cells[index].estimatedSecondsPerRun / 60,
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
        startEachGroup: chosen.startEachGroup && (options.sides.length > 1 || options.aloneStartsEachGroup === true),
    });
}
async function measureOnDevices(options) {
    const plan = planStep(options);
    const devices = options.config.runner.devices;
    // A block holding every cell of a step for every cell is a request for every cell (cells: null).
    const everyCell = new Map(options.sides.map(({ side, config }) => [
        side,
        selectCells(config, options.step.cells ?? undefined).length,
    ]));
    let failed = false;
    const stop = () => failed || options.stopped?.() === true;
    const outcomes = await Promise.allSettled(plan.devices.map(async (timeline) => {
        const device = devices ? { slot: timeline.device, spec: devices[timeline.device] } : undefined;
        for (const block of timeline.blocks) {
            if (stop())
                return;
            const planned = block.endAt - block.startAt;
            const meter = options.budget;
            if (meter && meter.spentMinutes + meter.inFlightMinutes + planned > meter.limitMinutes + 1e-9) {
                meter.onCut?.(planned, meter.spentMinutes);
                return;
            }
            const started = meter?.now();
            if (meter)
                meter.inFlightMinutes += planned;
            const first = block.runs[0];
            const uniform = block.runs.every((runs) => runs.firstRun === first.firstRun && runs.runs === first.runs);
            try {
                await options.measureBlock(block.side, {
                    device,
                    cells: options.step.cells === null && block.runs.length === everyCell.get(block.side)
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
            }
            catch (error) {
                // The other devices finish the block they are in and start no other.
                failed = true;
                throw error;
            }
            finally {
                if (meter && started !== undefined) {
                    meter.inFlightMinutes -= planned;
                    meter.spentMinutes += Math.max(0, meter.now() - started) / 60_000;
                }
            }
        }
    }));
    const failure = outcomes.find((outcome) => outcome.status === "rejected");
    if (failure)
        throw failure.reason;
    return plan;
}
function firstLookPlans(config, devices, traces) {
    const onDevices = devices === undefined
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
    const plan = (sides, step) => planStep({ sides, step, config: onDevices, ...(traces ? { traces } : {}) });
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
function baselineSteps(config, runs, cells) {
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
function stepsInTurn(plans) {
    let offset = 0;
    const devices = [];
    for (const plan of plans) {
        const at = offset;
        const later = (entry) => ({
            ...entry,
            startAt: entry.startAt + at,
            endAt: entry.endAt + at,
        });
        plan.devices.forEach((timeline, position) => {
            const blocks = timeline.blocks.map((block) => ({ ...later(block), runs: block.runs.map(later) }));
            const into = devices[position];
            if (into === undefined)
                devices.push({ ...timeline, blocks, endAt: timeline.endAt + at });
            else {
                into.blocks.push(...blocks);
                into.serverStarts += timeline.serverStarts;
                into.busyMinutes += timeline.busyMinutes;
                if (blocks.length > 0)
                    into.endAt = timeline.endAt + at;
            }
        });
        offset += plan.wallClockMinutes;
    }
    const sum = (pick) => plans.reduce((total, plan) => total + pick(plan), 0);
    return {
        devices,
        wallClockMinutes: offset,
        serverStarts: sum((plan) => plan.serverStarts),
        gpuMinutes: sum((plan) => plan.gpuMinutes),
        reservedGpuMinutes: sum((plan) => plan.reservedGpuMinutes),
    };
}

export { baselineSteps as b, firstLookPlans as f, measureOnDevices as m, spendMeter as s };
