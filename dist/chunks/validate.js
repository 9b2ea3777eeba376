import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { b as calibratedCheckNoise, r as readCalibration, i as runPlans, j as configuredPassChance, k as applyRunPlan, a as configWithinBudget, g as budgetPlanLines, B as BudgetError, l as budgetOverview, n as budgetOverviewLines } from './compare.js';
import { f as firstLookPlans } from './measure-on-devices.js';
import { a as lookSchedule, b as summarizeConfig, r as renderSummary, d as describeCapacityCost } from './interleaved.js';
import { d as defaultConfigFile, l as loadConfig, t as templateView, c as configLimits, i as isSearchedCell, a as isTraceDataset } from './load.js';
import { m as metricSpecs } from './metric-names.js';
import { s as selectCells, d as datasetPath, r as readDatasetFile, a as describeTraceRead, t as traceReplay } from './trace-replay.js';
import { I as wallClockLines } from './status.js';
import { E as ExitCode, U as UsageError } from './version.js';
import { p as parseCommandArgs, s as stringOption, n as numberOption, i as integerOption } from './command.js';
import './format.js';
import './random.js';
import 'node:crypto';
import './schemas.js';
import 'node:child_process';
import 'node:fs';
import './index.js';
import 'process';
import 'buffer';
import 'node:perf_hooks';
import 'node:util';

/** validate's lines for the run plan of each mode: its runs, run lengths, starts, cost and basis. */
function runPlanLines(plans, configured, repeats) {
    if (plans.length === 0)
        return [];
    const first = plans[0].plan;
    const chance = (p) => (p < 0.005 ? "<1%" : `${Math.round(p * 100)}%`);
    const minutes = (value) => (value < 10 ? value.toFixed(1) : String(Math.round(value)));
    const sized = first.cells.filter((cell) => cell.requests !== null);
    const sizes = (unit) => sized.filter((cell) => cell.sizeUnit === unit).map((cell) => cell.requests);
    const requests = sizes("requests");
    const sessions = sizes("sessions");
    const lengths = first.cells.map((cell) => cell.secondsPerRun);
    const range = (values, unit) => values.length === 0
        ? "none"
        : Math.min(...values) === Math.max(...values)
            ? `${Math.round(values[0])}${unit}`
            : `${Math.round(Math.min(...values))}-${Math.round(Math.max(...values))}${unit}`;
    const label = {
        interleaved: "per PR, interleaved (both sides)",
        stored: "per PR, stored baseline (PR side only)",
        baseline: "per baseline job",
    };
    return [
        `run plan (sized by information; basis: ${first.basis}):`,
        `  requests per run: ${range(requests, "")}${sessions.length > 0 ? `, sessions per run: ${range(sessions, "")} (${sessions.length} session cells)` : ""} (${sized.length} sized cells; ${first.cells.length - sized.length} of fixed length), ${range(lengths, " s")} a run`,
        ...plans.map(({ mode, plan }) => `  ${label[mode]}: ${minutes(plan.gpuMinutes)} GPU-minutes at ${plan.runsPerSide} runs a side (${plan.serverStarts} starts)`),
        `  the plan's first look decides a PR with no change 90% of the time by this model; the config's runs as declared: ${chance(configured.first)} at ${repeats.min} runs, ${chance(configured.max)} at ${repeats.max}`,
    ];
}

const validateCommand = {
    name: "validate",
    usage: `Usage: vllm-perf-gate validate [--config FILE] [--json] [--budget N]

Reads the config, checks it against the schema and prints a normalised summary: cells, load,
requests per run, runs per side and an estimate of GPU time. A trace cell's file is read and
checked (a bad row is an error), and its load and run length are estimated from the trace.

Options:
  -c, --config FILE  config file (default: ${defaultConfigFile})
      --json         print the normalised config as JSON instead of the summary
      --devices N    estimate the wall-clock on N devices (as runner.devices: N would)
      --budget N     GPU-minutes per pull request (as gate.budget_gpu_minutes: N would): the plan
                     it buys, and per cell what deciding it costs and what N catches in it
      --cells A,B    the cells a job measures (the action's cells input): the budget is theirs
      --calibration FILE
                     this runner's calibration.json: the budget is planned with the noise it
                     measured instead of gate.noise_prior (as run and the action do)
  -h, --help         show this help

Every problem is reported at once, each with the file, line, the path in the YAML
(e.g. cells[2].load.rate) and what was expected. \${VAR} and \${VAR:-default} in values are read
from the environment; their values are never printed.
Exit codes: 0 valid, 2 invalid (or unreadable).
`,
    async run(argv, io) {
        const args = parseCommandArgs(argv, {
            config: { type: "string", short: "c" },
            json: { type: "boolean" },
            devices: { type: "string" },
            budget: { type: "string" },
            cells: { type: "string" },
            calibration: { type: "string" },
        });
        if (args.help) {
            io.stdout.write(this.usage);
            return ExitCode.ok;
        }
        const file = stringOption(args, "config") ?? defaultConfigFile;
        const loaded = await loadConfig(file, { env: io.env, cwd: io.cwd });
        if (args.values.json === true) {
            // Values that came from the environment are shown as their template: they may be secrets.
            const masked = templateView(loaded.config, loaded.interpolation.templates);
            io.stdout.write(`${JSON.stringify(masked, null, 2)}\n`);
            return ExitCode.ok;
        }
        const budgetFlag = numberOption(args, "budget");
        if (budgetFlag !== undefined && !(budgetFlag > 0 && budgetFlag <= configLimits.budgetGpuMinutes))
            throw new UsageError(`--budget expects GPU-minutes > 0 and at most ${configLimits.budgetGpuMinutes} (configLimits.budgetGpuMinutes), got ${budgetFlag}`);
        const cells = stringOption(args, "cells")
            ?.split(",")
            .map((name) => name.trim())
            .filter(Boolean);
        const selected = cells ? { ...loaded.config, cells: selectCells(loaded.config, cells) } : loaded.config;
        const declared = budgetFlag === undefined
            ? selected
            : { ...selected, gate: { ...selected.gate, budget_gpu_minutes: budgetFlag } };
        const { repeats } = declared;
        const looks = lookSchedule(repeats.min, repeats.max);
        const traces = await readTraces(loaded.config, dirname(loaded.path));
        const summary = summarizeConfig(loaded.config, loaded.interpolation.templates, looks, traces.replays);
        summary.warnings.push(...traces.warnings);
        io.stdout.write(renderSummary(file, summary));
        for (const line of traces.lines)
            io.stdout.write(`${line}\n`);
        for (const line of describeCapacityCost(loaded.config))
            io.stdout.write(`${line}\n`);
        const devices = integerOption(args, "devices");
        if (devices !== undefined && devices < 1)
            throw new UsageError(`--devices expects a whole number >= 1, got ${devices}`);
        if (!loaded.config.cells.every(isSearchedCell)) {
            const plans = firstLookPlans(loaded.config, devices, traces.replays);
            const source = devices !== undefined
                ? "--devices"
                : loaded.config.runner.devices
                    ? "runner.devices"
                    : "no runner.devices: one server at a time";
            for (const line of wallClockLines(plans, source))
                io.stdout.write(`${line}\n`);
            const budget = declared.gate.budget_gpu_minutes;
            if (budget !== undefined) {
                const calibrationPath = stringOption(args, "calibration");
                const noiseOf = calibrationPath === undefined
                    ? undefined
                    : calibratedCheckNoise(declared, (await readCalibration(resolve(io.cwd, calibrationPath), calibrationPath)).file, new Date());
                for (const line of budgetLines(declared, budget, file, traces.replays, noiseOf))
                    io.stdout.write(`${line}\n`);
                return ExitCode.ok;
            }
            const runPlan = runPlans(loaded.config, undefined, traces.replays);
            const passChance = configuredPassChance(loaded.config, undefined, traces.replays);
            for (const line of runPlanLines(runPlan, passChance, loaded.config.repeats))
                io.stdout.write(`${line}\n`);
            const planned = firstLookPlans(applyRunPlan(loaded.config, runPlan[0].plan), devices, traces.replays);
            for (const line of wallClockLines(planned, source).slice(0, 2))
                io.stdout.write(`  planned ${line.trimStart()}\n`);
        }
        return ExitCode.ok;
    },
};
/**
 * A budget's plan as `run` and the action measure it (or why it cannot measure every cell), then each
 * cell alone: what deciding it costs, what the budget catches in it, and the set of cells it decides.
 */
function budgetLines(config, budget, file, traces, noiseOf) {
    const lines = [];
    const noise = noiseOf ? { noiseOf } : {};
    try {
        const { budget: decision } = configWithinBudget(config, { traces, file, ...noise });
        if (decision)
            lines.push(...budgetPlanLines(decision.plan, config.gate.detect_change, decision.budgetToDecide));
    }
    catch (error) {
        // Said by the overview's last line ("every cell together: ...").
        if (!(error instanceof BudgetError))
            throw error;
    }
    const overview = budgetOverview(config, budget, { traces, ...noise });
    lines.push(...budgetOverviewLines({
        ...overview,
        detectChange: config.gate.detect_change,
        metrics: config.gate.metrics.filter((metric) => metricSpecs[metric].judged === "per-run"),
    }));
    return lines;
}
/**
 * The trace cells' files, read as a run reads them (checksum, every row checked, filters and sample), so
 * a trace cell's load is described and its run estimated from the trace. A file that is not there yet (a
 * workflow may fetch it before the run) is a warning, and the cell is estimated from its config; a file
 * that is there and wrong is an error, as it would be in the run.
 */
async function readTraces(config, baseDir) {
    const files = new Map();
    const lines = [];
    const warnings = [];
    for (const [index, cell] of config.cells.entries()) {
        const dataset = cell.dataset;
        if (!isTraceDataset(dataset))
            continue;
        const path = datasetPath(dataset, baseDir);
        try {
            await access(path);
        }
        catch {
            warnings.push(`cells "${cell.name}": trace ${dataset.path} cannot be read here; its load and run length are estimated from the config`);
            continue;
        }
        const read = await readDatasetFile({
            dataset,
            baseDir,
            field: `cells[${index}].dataset`,
            seed: cell.seed ?? config.seed,
        });
        files.set(cell.name, read);
        if (read.trace)
            lines.push(`${cell.name}: ${describeTraceRead(read.trace)}`);
    }
    return { replays: (cell) => traceReplay(cell, files.get(cell.name)), lines, warnings };
}

export { validateCommand };
