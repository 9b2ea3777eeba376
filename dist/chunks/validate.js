import { access } from 'node:fs/promises';
import { dirname } from 'node:path';
import { f as firstLookPlans } from './measure-on-devices.js';
import { m as metricSpecs } from './metric-names.js';
import { s as serverLifecycle, i as isSearchedCell, c as configLimits, d as defaultConfigFile, l as loadConfig, t as templateView, a as isTraceDataset } from './load.js';
import { s as startedServers, a as serverStartSeconds, r as runsPerBlock, b as serverStartsPerCell, c as summarizeConfig, d as sessionEstimate, n as noisiestGatedFamily, e as depthBuckets, l as lookSchedule, f as renderSummary, g as describeCapacityCost } from './session-metrics.js';
import { a as alternatingBlocks, d as datasetPath, r as readDatasetFile, b as describeTraceRead, t as traceReplay } from './interleaved.js';
import { s as studentTQuantile, n as normalCdf, a as normalQuantile } from './server-start.js';
import { I as wallClockLines } from './status.js';
import { E as ExitCode, U as UsageError } from './version.js';
import { p as parseCommandArgs, s as stringOption, i as integerOption } from './command.js';
import 'node:crypto';
import './index.js';
import './schemas.js';
import 'process';
import 'buffer';
import './random.js';
import 'node:child_process';
import 'node:perf_hooks';
import 'node:fs';
import 'node:util';

/**
 * The prior when nothing was measured: a run effect of sd 0.025 and a p95's sampling sd of 0.0166 at
 * 1,000 requests (bench/noise.ts, the noise model bench:gate and bench:cost simulate; per-run sd 0.030
 * at 1,000 requests, run effect 69% of it).
 */
const priorRunNoise = {
    runVariance: 0.025 ** 2,
    withinVariance1: 0.0166 ** 2 * 1000,
    basis: "prior (run effect sd 2.5%, p95 sampling sd 1.66% at 1,000 requests)",
};
/**
 * The most variance one run of a cell may have at R runs a side, after the start level's share of the
 * side's mean (σ_s²·Σn²/N² for the starts its runs fall into); below 0 when the starts alone leave no room.
 */
function runVarianceTarget(input, cell, runs) {
    const total = varianceTarget(input, runs);
    const start = cell.noise.startVariance ?? 0;
    if (start <= 0)
        return total;
    const weight = input.startWeightAt?.(runs) ?? 1;
    return total - runs * weight * start;
}
/** The variance of a side's mean difference the first look needs at R runs a side. */
function varianceTarget(input, runs) {
    const df = Math.max(1, 2 * runs - 2);
    const perCheck = input.power ** (1 / Math.max(1, input.checks));
    const pass = input.knownVariance
        ? normalQuantile(1 - input.passAlpha)
        : studentTQuantile(1 - input.passAlpha, df);
    const z = pass + normalQuantile(perCheck);
    const margin = Math.log1p(input.tolerance);
    // 2 v / R ≤ (margin / z)²  ⇒  v ≤ R (margin / z)² / 2
    return (runs * (margin / z) ** 2) / 2;
}
function cellAt(cell, target, maxRequests) {
    const { runVariance, withinVariance1 } = cell.noise;
    if (target <= 0)
        return null;
    if (cell.secondsPerRequest === null) {
        const v = runVariance + withinVariance1 / cell.declaredRequests;
        if (v > target)
            return null;
        return {
            name: cell.name,
            requests: null,
            sizeUnit: cell.sizeUnit ?? "requests",
            secondsPerRun: cell.fixedSecondsPerRun,
            runSd: Math.sqrt(v),
        };
    }
    if (target <= runVariance)
        return null;
    const needed = Math.ceil(withinVariance1 / (target - runVariance));
    const requests = Math.max(cell.minRequests, needed);
    if (requests > maxRequests)
        return null;
    return {
        name: cell.name,
        requests,
        sizeUnit: cell.sizeUnit ?? "requests",
        secondsPerRun: requests * cell.secondsPerRequest + cell.fixedSecondsPerRun,
        runSd: Math.sqrt(runVariance + withinVariance1 / requests),
    };
}
/**
 * The cheapest first look: over R from minRuns to maxRuns, each cell at the fewest requests that meet
 * the variance target at R (never below its floor), priced with every start; the smallest total wins.
 * When no R in range meets the target (run effects too large for the tolerance), the plan is the last
 * R at the floor, and `basis` says so.
 */
function planRuns(input) {
    let best = null;
    const minRuns = Math.max(2, input.minRuns);
    for (let runs = minRuns; runs <= Math.max(minRuns, input.maxRuns); runs++) {
        const cells = input.cells.map((cell) => cellAt(cell, runVarianceTarget(input, cell, runs), input.maxRequests));
        if (cells.some((cell) => cell === null))
            continue;
        const plan = priced(input, runs, cells, "");
        if (best === null || plan.gpuMinutes < best.gpuMinutes)
            best = plan;
    }
    if (best)
        return { ...best, basis: basisOf(input) };
    const runs = Math.max(minRuns, input.maxRuns);
    const floor = input.cells.map((cell) => cellAt(cell, Number.POSITIVE_INFINITY, input.maxRequests));
    return priced(input, runs, floor, `${basisOf(input)}; no run count up to ${runs} a side is expected to decide the first look: the run-to-run noise is large for a ${(input.tolerance * 100).toFixed(1)}% tolerance`);
}
function priced(input, runs, cells, basis) {
    const runSeconds = cells.reduce((sum, cell) => sum + cell.secondsPerRun, 0);
    const starts = input.startsFor(runs);
    const gpuMinutes = (input.sides * runs * runSeconds + starts * input.startSeconds) / 60;
    return {
        runsPerSide: runs,
        cells,
        serverStarts: starts,
        gpuMinutes,
        nextLookGpuMinutes: gpuMinutes,
        basis,
    };
}
function basisOf(input) {
    const bases = [...new Set(input.cells.map((cell) => cell.noise.basis))];
    return bases.length === 1 ? bases[0] : `${bases.length} bases (per cell)`;
}
/**
 * The model's chance that a look at `runs` runs a side of the cells at the given requests per run (the
 * config's, null: a fixed-length run) decides a PR with no change: every check passes, independently.
 */
function cleanPassChance(input, runs, requestsOf) {
    const df = Math.max(1, 2 * runs - 2);
    const margin = Math.log1p(input.tolerance);
    const t = studentTQuantile(1 - input.passAlpha, df);
    const metricsPerCell = input.checks / Math.max(1, input.cells.length);
    let chance = 1;
    for (const cell of input.cells) {
        const v = cell.noise.runVariance + cell.noise.withinVariance1 / requestsOf(cell);
        const start = (cell.noise.startVariance ?? 0) * (input.startWeightAt?.(runs) ?? 1);
        const sd = Math.sqrt(2 * (v / runs + start));
        chance *= normalCdf(margin / sd - t) ** metricsPerCell;
    }
    return chance;
}

/**
 * The chance, by the plan's model, that the config's own first look (repeats.min runs a side at the
 * declared requests) and its last (repeats.max) decide a PR with no change: what the plan is against.
 */
function configuredPassChance(config, noiseOf = () => priorNoise(config), traces) {
    const cells = planCells(config, noiseOf, traces);
    const group = runsPerBlock(config);
    const input = {
        cells,
        tolerance: config.gate.tolerance,
        passAlpha: 1 - config.gate.confidence,
        checks: cells.length * config.gate.metrics.length,
        startWeightAt: (runs) => serverLifecycle(config) === "per-run" ? 1 / runs : interleavedStartWeight(runs, group),
    };
    const declared = (cell) => cell.declaredRequests;
    return {
        first: cleanPassChance(input, config.repeats.min, declared),
        max: cleanPassChance(input, config.repeats.max, declared),
    };
}
/**
 * The noise the plan assumes before anything was measured: gate.noise_prior of the gated per-run family
 * with the most noise (start and run levels), and a p95's sampling noise at the prior's rate
 * (stats/run-plan.ts priorRunNoise).
 */
function priorNoise(config) {
    const prior = config.gate.noise_prior;
    const widest = noisiestGatedFamily(config, (family) => prior[family].start_sd ** 2 + prior[family].run_sd ** 2);
    if (widest === null)
        return priorRunNoise;
    const { start_sd: start, run_sd: run } = prior[widest];
    const percent = (sd) => `${Number((sd * 100).toPrecision(3))}%`;
    return {
        startVariance: start ** 2,
        runVariance: run ** 2,
        withinVariance1: priorRunNoise.withinVariance1,
        basis: `prior (gate.noise_prior.${widest}: start sd ${percent(start)}, run sd ${percent(run)}; p95 sampling sd 1.66% at 1,000 requests)`,
    };
}
/**
 * Σn²/N² of the side whose runs share starts the most when R runs a side alternate in groups of `group`
 * (runner/interleaved.ts alternatingBlocks): the start variance's share of its mean.
 */
function interleavedStartWeight(runs, group) {
    const blocks = alternatingBlocks(0, runs, ["a", "b"], group);
    const weight = (side) => blocks.filter((b) => b.side === side).reduce((sum, b) => sum + b.runs * b.runs, 0) / (runs * runs);
    return Math.max(weight("a"), weight("b"));
}
/** Chance the first look decides a PR with no change (every gated check passes) the plan aims at. */
const planPower = 0.9;
/**
 * Most runs per side the plan considers (the largest standard look): above repeats.max when the
 * config's maximum cannot decide the first look, which the plan then says.
 */
const planMaxRuns = 40;
/**
 * The fewest requests a run may have so that every gated percentile stays gated (gate.min_requests, its
 * successful requests, with room for the failures gate.error_rate_limit allows).
 * For a session cell of about `turns` turns the floor is in sessions: a request-level percentile needs
 * floor / turns of them, a depth bucket's TTFT p95 (compare counts the bucket's own requests) floor /
 * the turns a session has in that bucket (at the mean length; a bucket no session reaches stays
 * advisory, as compare will find).
 */
function gatedMinRequests(config, turns = null) {
    let floor = 1;
    for (const metric of config.gate.metrics) {
        const spec = metricSpecs[metric];
        const statistic = spec.minRequests;
        if (!statistic)
            continue;
        // Successful requests count: with the failures gate.error_rate_limit allows, a run planned at the
        // floor itself would fall below it and its gated percentile turn advisory (a regression let pass).
        const needed = Math.ceil(config.gate.min_requests[statistic] / (1 - config.gate.error_rate_limit));
        if (turns === null)
            floor = Math.max(floor, needed);
        else if (spec.source.kind !== "session")
            floor = Math.max(floor, Math.ceil(needed / turns));
        else {
            const { field } = spec.source;
            const bucket = depthBuckets.find((entry) => field === `ttft_p95_depth_${entry.name}`);
            const inBucket = bucket ? Math.min(bucket.to ?? turns, turns) - bucket.from + 1 : 0;
            if (inBucket > 0)
                floor = Math.max(floor, Math.ceil(needed / inBucket));
        }
    }
    return floor;
}
/** The planner's view of the fixed-load cells: seconds per request and per run from validate's estimate. */
function planCells(config, noiseOf = () => priorNoise(config), traces) {
    // The trace cells' replays where validate read their files (their turns per session).
    const summary = summarizeConfig(config, [], undefined, traces);
    const floor = gatedMinRequests(config);
    return config.cells.flatMap((cell, index) => {
        if (isSearchedCell(cell))
            return [];
        const seconds = summary.cells[index].estimatedSecondsPerRun;
        const warmup = "requests" in cell.warmup ? cell.warmup.requests : 0;
        if (!("requests" in cell.size)) {
            const requests = cell.load.type === "stages"
                ? Math.round(cell.load.stages.reduce((n, s) => n + (s.rate ?? 0) * s.duration_s, 0))
                : floor;
            return [
                {
                    name: cell.name,
                    secondsPerRequest: null,
                    fixedSecondsPerRun: seconds,
                    declaredRequests: Math.max(1, requests),
                    minRequests: floor,
                    noise: noiseOf(cell.name),
                },
            ];
        }
        const perRequest = seconds / cell.size.requests;
        // A session dataset's size counts sessions of about `turns` requests each: planned per session, with
        // the percentile's sampling variance shrinking with the requests (sessions x turns), not the sessions.
        const session = sessionEstimate(cell, undefined, traces?.(cell) ?? null);
        const turns = session === null ? 1 : Math.max(1, session.turns);
        const noise = noiseOf(cell.name);
        return [
            {
                name: cell.name,
                secondsPerRequest: perRequest,
                fixedSecondsPerRun: warmup * perRequest,
                declaredRequests: cell.size.requests,
                minRequests: session === null ? floor : gatedMinRequests(config, turns),
                noise: session === null ? noise : { ...noise, withinVariance1: noise.withinVariance1 / turns },
                ...(session === null ? {} : { sizeUnit: "sessions" }),
            },
        ];
    });
}
/** The plan of each mode: the PR interleaved (both sides), against a stored baseline, a baseline job. */
function runPlans(config, noiseOf = () => priorNoise(config), traces) {
    const cells = planCells(config, noiseOf, traces);
    const lifecycle = serverLifecycle(config);
    const servers = startedServers(lifecycle, cells.length);
    const base = {
        cells,
        tolerance: config.gate.tolerance,
        passAlpha: 1 - config.gate.confidence,
        power: planPower,
        checks: cells.length * config.gate.metrics.length,
        minRuns: 3,
        maxRuns: Math.max(config.repeats.max, planMaxRuns),
        startSeconds: serverStartSeconds(config),
        maxRequests: configLimits.requestsPerRun,
    };
    const group = runsPerBlock(config);
    const interleaved = planRuns({
        ...base,
        sides: 2,
        startWeightAt: (runs) => (lifecycle === "per-run" ? 1 / runs : interleavedStartWeight(runs, group)),
        startsFor: (runs) => servers * serverStartsPerCell("interleaved", runs, [], lifecycle, group),
    });
    // The same runs against a stored baseline: the candidate's side only, one start per server.
    const storedStarts = servers * serverStartsPerCell("stored", interleaved.runsPerSide, [], lifecycle);
    const oneSide = (runs, starts) => {
        const runSeconds = interleaved.cells.reduce((sum, cell) => sum + cell.secondsPerRun, 0);
        const minutes = (runs * runSeconds + starts * base.startSeconds) / 60;
        return {
            ...interleaved,
            runsPerSide: runs,
            serverStarts: starts,
            gpuMinutes: minutes,
            nextLookGpuMinutes: minutes,
        };
    };
    return [
        { mode: "interleaved", plan: interleaved },
        { mode: "stored", plan: oneSide(interleaved.runsPerSide, storedStarts) },
        { mode: "baseline", plan: oneSide(config.repeats.baseline, servers) },
    ];
}
/**
 * The config that measures a plan: each planned fixed-load cell at its planned requests per run, and
 * the first look at the planned runs per side (repeats.min; repeats.max at least that).
 */
function applyRunPlan(config, plan) {
    const requests = new Map(plan.cells.map((cell) => [cell.name, cell.requests]));
    return {
        ...config,
        repeats: {
            ...config.repeats,
            min: plan.runsPerSide,
            max: Math.max(config.repeats.max, plan.runsPerSide),
        },
        cells: config.cells.map((cell) => {
            const planned = requests.get(cell.name);
            return planned != null && "requests" in cell.size ? { ...cell, size: { requests: planned } } : cell;
        }),
    };
}

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
    usage: `Usage: vllm-perf-gate validate [--config FILE] [--json]

Reads the config, checks it against the schema and prints a normalised summary: cells, load,
requests per run, runs per side and an estimate of GPU time. A trace cell's file is read and
checked (a bad row is an error), and its load and run length are estimated from the trace.

Options:
  -c, --config FILE  config file (default: ${defaultConfigFile})
      --json         print the normalised config as JSON instead of the summary
      --devices N    estimate the wall-clock on N devices (as runner.devices: N would)
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
        const { repeats } = loaded.config;
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
