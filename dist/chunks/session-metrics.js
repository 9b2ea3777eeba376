import { e as serverKinds, b as serverKindFacts, s as serverLifecycle, i as isSearchedCell, t as templateView, q as describeServer, u as serverWarnings, h as isSessionDataset, a as isTraceDataset, v as describeDataset, m as traceLayoutOf, w as meanBranches } from './load.js';
import { m as metricSpecs } from './metric-names.js';
import { o as object, s as string, _ as _enum, n as number, b as boolean, a as array, l as literal, r as record, u as union, d as unknown, p as partialRecord } from './schemas.js';
import { t as maxServerStartIdLength, u as runGuardsSchema, v as runOutputSchema } from './server-start.js';

function cellSchedule(config, cell) {
    if ((cell.schedule ?? config.runner.schedule) === "real-time")
        return { kind: "real-time", reason: "configured" };
    // Closed loop: each request is sent as the one before it ends, so nothing is ever idle to elide.
    const openLoop = cell.load.type === "rate" ||
        (cell.load.type === "stages" && cell.load.stages.some((stage) => stage.rate !== undefined));
    if (!openLoop)
        return { kind: "real-time", reason: "closed-loop" };
    return { kind: "idle-elided", settleMs: config.runner.settle_ms };
}
/** The schedule as a condition of the run: what the fingerprint records (no reason, only what ran). */
function scheduleCondition(schedule) {
    return schedule.kind === "idle-elided"
        ? { kind: schedule.kind, settleMs: schedule.settleMs }
        : { kind: schedule.kind };
}
function describeSchedule(schedule) {
    if (schedule.kind === "idle-elided")
        return `idle gaps elided (settle ${schedule.settleMs} ms)`;
    return schedule.reason === "configured" ? "real time (configured)" : "real time (closed loop: never idle)";
}

/** Assumed per-stream decode speed for closed-loop estimates; the estimate says so. */
const assumedSecondsPerOutputToken$1 = 0.03;
/**
 * A lone request's speed, for the idle time the idle-elided schedule cuts at low load (a small model on
 * one GPU); the estimate says so.
 */
const assumedLoneSecondsPerOutputToken = 0.01;
const assumedLoneSecondsPerPromptToken = 0.0001;
function lengthMean(length) {
    if (typeof length === "number")
        return length;
    switch (length.distribution) {
        case "fixed":
            return length.value;
        case "uniform":
            return (length.min + length.max) / 2;
        case "normal":
            return length.mean;
        case "lognormal":
            return length.median * Math.exp((length.sigma * length.sigma) / 2);
    }
}
function outputTokensMean(cell, replay = null) {
    const dataset = cell.dataset;
    if ("output_tokens" in dataset && dataset.output_tokens !== undefined)
        return lengthMean(dataset.output_tokens);
    if (replay !== null)
        return replay.outputTokensMean;
    return 256;
}
const noTraceReplays = () => null;
/** True when a cell's arrivals come from its trace's timestamps (an open-loop load of a trace). */
function onTraceClock(cell) {
    return isTraceDataset(cell.dataset) && cell.load.type === "rate";
}
/**
 * A load as validate shows it; `unit` is what it counts (a session dataset's load counts sessions). A trace
 * replayed open loop is timed by its timestamps, whatever the rate says: "trace timestamps, N requests
 * over S s" (sessions and requests when its sessions have several turns), or the time scale alone when
 * the file was not read.
 */
function describeLoad(load, unit = "req", trace = null) {
    if (trace !== null && load.type === "rate") {
        const replay = trace.replay;
        const inFlight = load.max_concurrency ? `, max ${load.max_concurrency} in flight` : "";
        if (replay === null)
            return `trace timestamps (time x${trace.timeScale})${inFlight}`;
        const count = replay.requests === replay.sessions
            ? `${replay.requests} requests`
            : `${replay.sessions} sessions (${replay.requests} requests)`;
        return `trace timestamps, ${count} over ${formatSeconds(replay.spanS)} s${inFlight}`;
    }
    switch (load.type) {
        case "concurrency":
            return `concurrency ${load.concurrency}${unit === "sessions" ? " sessions" : ""}`;
        case "rate":
            return `${load.rate} ${unit}/s${load.burstiness === 1 ? " Poisson" : ` burstiness ${load.burstiness}`}${load.max_concurrency ? `, max ${load.max_concurrency} in flight` : ""}`;
        case "stages":
            return `stages ${load.stages.map((stage) => (stage.rate !== undefined ? `${stage.rate}/s` : `c${stage.concurrency}`) + ` ${stage.duration_s}s`).join(" -> ")}`;
    }
}
/**
 * The mean of a delay in seconds (think time, tool latency): an exponential clipped at `max` has mean
 * mean·(1 − e^(−max/mean)); a lognormal's mean e^(σ²/2)·median, no more than its `max`.
 */
function delayMean(delay) {
    if (typeof delay === "number")
        return delay;
    switch (delay.distribution) {
        case "fixed":
            return delay.value;
        case "uniform":
            return (delay.min + delay.max) / 2;
        case "exponential":
            return delay.max === undefined || delay.mean === 0
                ? delay.mean
                : delay.mean * (1 - Math.exp(-delay.max / delay.mean));
        case "lognormal":
            return Math.min(delay.median * Math.exp((delay.sigma * delay.sigma) / 2), delay.max ?? Number.POSITIVE_INFINITY);
    }
}
/** Turns per session assumed for a file's sessions when validate has not read them. */
const assumedFileSessionTurns = 4;
function formatSeconds(seconds) {
    return seconds >= 100 ? String(Math.round(seconds)) : String(Number(seconds.toFixed(1)));
}
/** Tool rounds per turn assumed when a session declares tools (the server decides whether it calls one). */
const assumedToolRoundsPerTurn = 1;
/**
 * A session's expected duration (null for a dataset of single requests). Its turns are closed loop:
 * each answer, then the think time, then the next turn, so a session takes turns x (answer) + (turns − 1) x
 * (think mean), plus each tool round's latency and its answer (answers at `secondsPerOutputToken`). A file's turns are assumed
 * (`assumedFileSessionTurns`, at most `max_turns`); a trace's gaps between turns are its own (not counted).
 * A fan-out turn takes one branch's answer (and its tool round, where the branches have tools): the
 * branches run at once, each at the assumed per-stream speed.
 */
function sessionEstimate(cell, secondsPerOutputToken = assumedSecondsPerOutputToken$1, replay = null) {
    const dataset = cell.dataset;
    if (!isSessionDataset(dataset))
        return null;
    const answerSeconds = outputTokensMean(cell, replay) * secondsPerOutputToken;
    let turns;
    let think = 0;
    let tool = 0;
    switch (dataset.type) {
        case "sessions":
            turns = lengthMean(dataset.turns);
            think = delayMean(dataset.think_time_s);
            if (dataset.tools)
                tool = assumedToolRoundsPerTurn * (delayMean(dataset.tools.latency_s) + answerSeconds);
            break;
        case "sharegpt_sessions":
            turns = Math.min(assumedFileSessionTurns, dataset.max_turns ?? assumedFileSessionTurns);
            think = delayMean(dataset.think_time_s);
            break;
        default:
            // A trace: its own turns per session where validate read it; one where its format has no sessions.
            turns =
                replay !== null && replay.sessions > 0
                    ? replay.requests / replay.sessions
                    : traceLayoutOf(dataset).session === null
                        ? 1
                        : assumedFileSessionTurns;
    }
    turns = Math.max(1, turns);
    const fanOut = isTraceDataset(dataset) ? undefined : dataset.fan_out;
    const fanOuts = fanOut === undefined
        ? 0
        : fanOut.turns !== undefined
            ? fanOut.turns.filter((turn) => turn <= turns).length
            : fanOut.share * turns;
    const branchAnswer = fanOut === undefined ? 0 : lengthMean(fanOut.output_tokens) * secondsPerOutputToken;
    const branchTool = fanOut?.tools === true && dataset.type === "sessions" && dataset.tools
        ? assumedToolRoundsPerTurn * (delayMean(dataset.tools.latency_s) + branchAnswer)
        : 0;
    const thinkSeconds = (turns - 1) * think;
    const toolSeconds = (turns - fanOuts) * tool + fanOuts * branchTool;
    const fanOutSeconds = fanOuts * branchAnswer;
    return {
        turns,
        fanOuts,
        requests: turns - fanOuts + (fanOut === undefined ? 0 : fanOuts * meanBranches(fanOut)),
        answerSeconds,
        thinkSeconds,
        toolSeconds,
        fanOutSeconds,
        seconds: (turns - fanOuts) * answerSeconds + fanOutSeconds + thinkSeconds + toolSeconds,
    };
}
function estimateSeconds(cell, replay) {
    if ("duration_s" in cell.size)
        return cell.size.duration_s;
    const requests = cell.size.requests;
    // A session dataset's unit is a session: its schedule counts sessions, each as long as its turns.
    const requestSeconds = sessionEstimate(cell, assumedSecondsPerOutputToken$1, replay)?.seconds ??
        outputTokensMean(cell) * assumedSecondsPerOutputToken$1;
    // A trace on its own clock: up to its last request's timestamp (a session's later turns wait for theirs),
    // then that request's answer, or its last session when the answers are what takes longer.
    if (replay !== null && onTraceClock(cell)) {
        const answer = outputTokensMean(cell, replay) * assumedSecondsPerOutputToken$1;
        return Math.max(replay.lastRequestS + answer, replay.spanS + requestSeconds);
    }
    switch (cell.load.type) {
        case "rate":
            return requests / cell.load.rate + requestSeconds;
        case "concurrency":
            return (requests / cell.load.concurrency) * requestSeconds;
        case "stages":
            return cell.load.stages.reduce((total, stage) => total + stage.duration_s, 0);
    }
}
function promptTokensMean(cell) {
    const dataset = cell.dataset;
    switch (dataset.type) {
        case "synthetic":
            return lengthMean(dataset.input_tokens);
        case "shared_prefix":
            return dataset.prefix_tokens + lengthMean(dataset.suffix_tokens);
        case "long_document":
            return dataset.document_tokens + lengthMean(dataset.question_tokens);
        default:
            return 256;
    }
}
/**
 * Idle seconds per run the idle-elided schedule is expected to cut from an open-loop rate cell at low
 * load. With Poisson-like arrivals at rate λ and requests of S seconds that do not queue, the requests
 * in flight are Poisson with mean λS, so an arrival finds nothing in flight with probability e^(−λS)
 * (PASTA), and the idle gap before it, exponential with mean 1/λ, is cut but for the settle time: per
 * run N·e^(−λS)·e^(−λ·settle)/λ. S is a lone request's time at the assumed speeds above.
 */
function estimateElidedSeconds(cell, schedule, replay) {
    if (schedule.kind !== "idle-elided" || cell.load.type !== "rate" || !("requests" in cell.size))
        return 0;
    // A trace on its own clock arrives at its own mean rate (unknown when its file was not read).
    const rate = onTraceClock(cell)
        ? replay !== null && replay.spanS > 0
            ? replay.sessions / replay.spanS
            : null
        : cell.load.rate;
    if (rate === null)
        return 0;
    // A session is in flight from its first turn to its last answer, its think times included.
    const serviceS = promptTokensMean(cell) * assumedLoneSecondsPerPromptToken +
        (sessionEstimate(cell, assumedLoneSecondsPerOutputToken, replay)?.seconds ??
            outputTokensMean(cell) * assumedLoneSecondsPerOutputToken);
    return ((cell.size.requests * Math.exp(-rate * serviceS) * Math.exp((-rate * schedule.settleMs) / 1000)) / rate);
}
function describeWarmup(cell) {
    const unit = isSessionDataset(cell.dataset) ? "sessions" : "req";
    return "requests" in cell.warmup ? `${cell.warmup.requests} ${unit}` : `${cell.warmup.duration_s} s`;
}
/**
 * `looks`: the run counts per side at which compare decides (stats/sequential lookSchedule; passed in, as
 * config comes first in the pipeline); each look after the first is another measuring step.
 */
function summarizeConfig(config, templates = [], looks, traces = noTraceReplays) {
    // Text is built from the view that holds templates where values came from `${VAR}` (they may be
    // secrets); estimates and checks use the values.
    const shown = templateView(config, templates);
    const warnings = [];
    const server = config.server;
    const serverText = describeServer(shown.server);
    warnings.push(...serverWarnings(server, shown.server));
    if (!config.model.revision)
        warnings.push("model.revision is not set: the model can change under the same name; pin a commit");
    if (config.repeats.min < 3)
        warnings.push(`repeats.min is ${config.repeats.min}: fewer than 3 runs per side can rarely support a verdict`);
    const cells = config.cells.map((cell, index) => {
        const text = shown.cells[index];
        const unit = isSessionDataset(cell.dataset) ? "sessions" : "req";
        const size = "requests" in text.size ? `${text.size.requests} ${unit}` : `${text.size.duration_s} s`;
        // A session dataset's size counts sessions: its requests per run are about sessions x mean turns (tool
        // rounds come on top). Its depth buckets' requests depend on the turns' distribution, not only their
        // mean, so the depth metrics' floor is compare's to apply, not estimated here.
        const replay = traces(cell);
        const session = sessionEstimate(cell, assumedSecondsPerOutputToken$1, replay);
        const requestsPerRun = "requests" in cell.size
            ? session === null
                ? cell.size.requests
                : Math.round(cell.size.requests * session.requests)
            : null;
        if (requestsPerRun !== null && requestsPerRun < config.gate.min_requests.p95) {
            const gatedPercentiles = config.gate.metrics.filter((metric) => metricSpecs[metric].minRequests === "p95" &&
                (session === null || metricSpecs[metric].source.kind !== "session"));
            if (gatedPercentiles.length > 0) {
                const requests = text.size.requests;
                const counted = session === null
                    ? `${requests} requests per run`
                    : `about ${requestsPerRun} requests per run (${requests} sessions of ${Number(session.turns.toFixed(1))} turns${session.fanOuts > 0 ? `, ${Number(session.requests.toFixed(1))} requests each with the fan-outs' branches` : ""})`;
                warnings.push(`cells "${text.name}": ${counted} is below gate.min_requests.p95 (${config.gate.min_requests.p95}); ${gatedPercentiles.join(", ")} will be advisory only`);
            }
        }
        const schedule = cellSchedule(config, cell);
        const elided = estimateElidedSeconds(cell, schedule, replay);
        const trace = isTraceDataset(cell.dataset) ? { timeScale: cell.dataset.time_scale, replay } : null;
        return {
            name: text.name,
            endpoint: text.endpoint,
            dataset: describeDataset(text.dataset),
            load: describeLoad(text.load, unit, trace),
            size,
            prefix: text.prefix,
            warmup: describeWarmup(text),
            schedule: describeSchedule(schedule),
            estimatedSecondsPerRun: Math.max(0, estimateSeconds(cell, replay) - elided),
            estimatedElidedSecondsPerRun: elided,
        };
    });
    return {
        server: serverText,
        model: `${shown.model.name}${shown.model.revision ? ` @ ${shown.model.revision}` : ""}`,
        cells,
        runs: { min: config.repeats.min, max: config.repeats.max },
        starts: startsOf(config),
        gate: `${shown.gate.metrics.join(", ")}; tolerance ${typeof shown.gate.tolerance === "number" ? `${(shown.gate.tolerance * 100).toFixed(1)}%` : shown.gate.tolerance}, confidence ${shown.gate.confidence}, fail on ${shown.gate.fail_on}`,
        warnings,
        // Capacity and sweep cells spend their own runs (validate costs them apart: capacity-summary.ts).
        gpuMinutes: estimateGpuMinutes(config, cells
            .filter((_, index) => !isSearchedCell(config.cells[index]))
            .map((cell) => cell.estimatedSecondsPerRun), looks ?? [config.repeats.min, config.repeats.max]),
        searchedCells: config.cells.filter(isSearchedCell).map((cell) => cell.name),
    };
}
function renderSummary(file, summary) {
    const header = ["cell", "endpoint", "dataset", "load", "per run", "warm-up", "prefix"];
    const rows = summary.cells.map((cell) => [
        cell.name,
        cell.endpoint,
        cell.dataset,
        cell.load,
        cell.size,
        cell.warmup,
        cell.prefix,
    ]);
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
    const line = (row) => row
        .map((value, column) => value.padEnd(widths[column]))
        .join("  ")
        .trimEnd();
    const out = [
        `${file}: valid`,
        `server: ${summary.server}`,
        `model:  ${summary.model}`,
        `${summary.cells.length} cell${summary.cells.length === 1 ? "" : "s"}:`,
        `  ${line(header)}`,
        ...rows.map((row) => `  ${line(row)}`),
        ...renderSchedules(summary.cells),
        `runs per side: ${summary.runs.min} to ${summary.runs.max} (more only while the verdict is inconclusive)`,
        `server starts: groups of ${summary.starts.group} run${summary.starts.group === 1 ? "" : "s"} a side${summary.starts.auto ? " (repeats.block auto)" : ""}, alternating A B, B A: ${summary.starts.firstLookPerSide} start${summary.starts.firstLookPerSide === 1 ? "" : "s"} a side at the first look, ${summary.starts.maxPerSide} at ${summary.runs.max} runs; the intervals count the start-to-start noise beside the run-to-run (gate.noise_prior)`,
        `gated: ${summary.gate}`,
        ...renderGpuMinutes(summary.gpuMinutes, summary.searchedCells, summary.cells.length),
    ];
    for (const warning of summary.warnings)
        out.push(`warning: ${warning}`);
    return `${out.join("\n")}\n`;
}
/** One line per schedule: which cells run on it, and the idle time it is expected to cut. */
function renderSchedules(cells) {
    const bySchedule = new Map();
    for (const cell of cells)
        bySchedule.set(cell.schedule, [...(bySchedule.get(cell.schedule) ?? []), cell]);
    return [...bySchedule].map(([schedule, members]) => {
        const elided = members.reduce((sum, cell) => sum + cell.estimatedElidedSecondsPerRun, 0);
        const total = members.reduce((sum, cell) => sum + cell.estimatedSecondsPerRun, 0) + elided;
        const names = members.length === cells.length ? "every cell" : members.map((cell) => cell.name).join(", ");
        return `schedule: ${schedule}: ${names}${elided >= 1
            ? `; about ${Math.round(elided)} of ${Math.round(total)} s of schedule per run cut (${Math.round((100 * elided) / total)}%)`
            : ""}`;
    });
}
/** GPU seconds of one server start: cost.server_start_s, else the default of the server kind (server-kinds.ts). */
const defaultServerStartSeconds = Object.fromEntries(serverKinds.map((kind) => [kind, serverKindFacts[kind].defaultStartSeconds]));
function serverStartSeconds(config) {
    return config.cost.server_start_s ?? defaultServerStartSeconds[config.server.kind];
}
/**
 * Server starts per cell to reach `runs` runs per side (under `per-side`, per side's server: every cell
 * of the side shares its starts, see `startedServers`). stored (the PR's side only): one start per
 * measuring step, i.e. per look reached; interleaved (both sides, alternating in groups of
 * `runsPerBlock` runs per side, A B | B A ...): each look's step from a to b runs touches g groups and is
 * g + 1 blocks of consecutive same-side runs, one start each (k = 1: b − a + 1); baseline (the push job):
 * one start. Under `lifecycle: per-run` every run is a start.
 */
function serverStartsPerCell(mode, runs, looks, lifecycle, runsPerBlock = 1) {
    if (runs <= 0)
        return 0;
    if (lifecycle === "per-run")
        return mode === "interleaved" ? 2 * runs : runs;
    if (mode === "baseline")
        return 1;
    const bounds = [...new Set([0, ...looks.filter((look) => look > 0 && look < runs), runs])].sort((a, b) => a - b);
    if (mode === "stored")
        return bounds.length - 1;
    let starts = 0;
    for (let i = 1; i < bounds.length; i++)
        starts += interleavedStepStarts(bounds[i - 1], bounds[i], runsPerBlock);
    return starts;
}
/**
 * How many servers of one side the starts of `serverStartsPerCell` are counted for: one under `per-side`
 * (every cell of a config shares its engine flags, so one server serves them all, its prefix cache reset
 * between cells), one per cell otherwise.
 */
function startedServers(lifecycle, cells) {
    return lifecycle === "per-side" ? Math.min(1, cells) : cells;
}
/**
 * The gated metrics' noise family (gate.noise_prior) with the largest `noise` (per-run judged metrics
 * only: a pooled count has no run-to-run spread), or null when none is gated.
 */
function noisiestGatedFamily(config, noise) {
    const families = new Set(config.gate.metrics
        .filter((metric) => metricSpecs[metric].judged === "per-run")
        .map((metric) => metricSpecs[metric].noise));
    return [...families].reduce((best, family) => (best === null || noise(family) > noise(best) ? family : best), null);
}
/**
 * The runs per side per group of the A/B alternation (repeats.block), "auto" resolved by cost (Kalibera and
 * Jones: repetitions at a level ∝ √(its variance / its cost)). The start and run variances are
 * gate.noise_prior's for the gated metric families, taking the family with the largest start sd; a
 * start costs cost.server_start_s, a run the estimated seconds of one run of every cell one server
 * serves. Consecutive groups of a side merge (A B | B A), so a start holds about two groups: the group
 * is half the optimal runs per start. When the start level matters for the tolerance (√2·start sd at
 * least a fifth of ln(1 + tolerance)), the group is small enough that the first look (repeats.min) has
 * two starts a side; otherwise one start a side serves the first look.
 */
function runsPerBlock(config) {
    const block = config.repeats.block;
    if (block !== "auto")
        return block;
    const min = config.repeats.min;
    const prior = config.gate.noise_prior;
    const widest = noisiestGatedFamily(config, (family) => prior[family].start_sd);
    if (widest === null)
        return min;
    const lifecycle = serverLifecycle(config);
    const fixedLoad = config.cells.filter((cell) => !isSearchedCell(cell));
    // A trace cell's file is not read here: its run is estimated from its rate.
    const seconds = fixedLoad.map((cell) => estimateSeconds(cell, null));
    const total = seconds.reduce((sum, s) => sum + s, 0);
    return autoRunsPerBlock({
        minRuns: min,
        startSd: prior[widest].start_sd,
        runSd: prior[widest].run_sd,
        tolerance: config.gate.tolerance,
        startSeconds: serverStartSeconds(config),
        runSeconds: lifecycle === "per-side" ? total : total / Math.max(1, seconds.length),
    });
}
/** `runsPerBlock`'s "auto" from its inputs (also bench:gate's, which has no cells to estimate). */
function autoRunsPerBlock(input) {
    const { minRuns: min, startSd } = input;
    if (Math.SQRT2 * startSd < Math.log1p(input.tolerance) / 5)
        return min;
    const perStart = input.runSeconds > 0 && startSd > 0
        ? Math.sqrt((input.startSeconds * input.runSd ** 2) / (input.runSeconds * startSd ** 2))
        : min;
    // Two starts a side at the first look need at least 3 groups in it: ⌈min / k⌉ ≥ 3.
    let largest = 1;
    while (largest < min && Math.ceil(min / (largest + 1)) >= 3)
        largest++;
    return Math.max(1, Math.min(largest, Math.round(perStart / 2)));
}
/** A side's server starts at the first look and at repeats.max, in groups of runsPerBlock (interleaved). */
function startsOf(config) {
    const group = runsPerBlock(config);
    // Groups of k alternate A B | B A, a side's consecutive groups merging: g groups give g + 1 blocks,
    // ⌊(g + 1) / 2⌋ or ⌈(g + 1) / 2⌉ a side; the fewer is what a side is sure to have.
    const perSide = (runs) => Math.max(1, Math.floor((Math.ceil(runs / group) + 1) / 2));
    return {
        group,
        auto: config.repeats.block === "auto",
        firstLookPerSide: perSide(config.repeats.min),
        maxPerSide: perSide(config.repeats.max),
    };
}
/** Server starts per cell of one interleaved measuring step from `from` to `to` runs per side. */
function interleavedStepStarts(from, to, runsPerBlock = 1) {
    if (to <= from)
        return 0;
    const k = Math.max(1, Math.floor(runsPerBlock));
    const groups = Math.floor((to - 1) / k) - Math.floor(from / k) + 1;
    return groups + 1;
}
function estimateGpuMinutes(config, secondsPerRunByCell, looks) {
    const startSeconds = serverStartSeconds(config);
    const lifecycle = serverLifecycle(config);
    const runSeconds = secondsPerRunByCell.reduce((sum, seconds) => sum + seconds, 0);
    const cells = secondsPerRunByCell.length;
    const price = config.cost.gpu_hourly_usd;
    const at = (mode, runs) => {
        const starts = startedServers(lifecycle, cells) *
            serverStartsPerCell(mode, runs, looks, lifecycle, runsPerBlock(config));
        const sides = mode === "interleaved" ? 2 : 1;
        return { starts, minutes: (sides * runs * runSeconds + starts * startSeconds) / 60 };
    };
    const entry = (mode, first, max) => {
        const a = at(mode, first);
        const b = at(mode, max);
        return {
            mode,
            runs: { first, max },
            serverStarts: { first: a.starts, max: b.starts },
            minutes: { first: a.minutes, max: b.minutes },
            ...(price !== undefined
                ? { usd: { first: (a.minutes / 60) * price, max: (b.minutes / 60) * price } }
                : {}),
        };
    };
    const { min, max, baseline } = config.repeats;
    return [entry("stored", min, max), entry("interleaved", min, max), entry("baseline", baseline, baseline)];
}
function renderGpuMinutes(estimates, searchedCells, cellCount) {
    if (searchedCells.length > 0 && searchedCells.length === cellCount)
        return ["estimated GPU-minutes: every cell is a capacity or sweep cell, costed below"];
    const minutes = (value) => (value < 10 ? value.toFixed(1) : String(Math.round(value)));
    const usd = (e) => e.usd
        ? ` (~$${e.usd.first.toFixed(2)}${e.usd.max !== e.usd.first ? ` to $${e.usd.max.toFixed(2)}` : ""})`
        : "";
    const lines = [
        searchedCells.length === 0
            ? "estimated GPU-minutes (measured runs plus every server start):"
            : `estimated GPU-minutes of the fixed-load cells (measured runs plus every server start; ${searchedCells.join(", ")} costed below):`,
    ];
    for (const e of estimates) {
        const label = e.mode === "stored"
            ? "per PR, stored baseline (PR side only)"
            : e.mode === "interleaved"
                ? "per PR, interleaved (both sides)"
                : "per baseline job (push/schedule)";
        lines.push(e.mode === "baseline"
            ? `  ${label}: ${minutes(e.minutes.first)} at ${e.runs.first} runs, ${e.serverStarts.first} server starts${usd(e)}`
            : `  ${label}: ${minutes(e.minutes.first)} at ${e.runs.first} runs (${e.serverStarts.first} starts), ${minutes(e.minutes.max)} at ${e.runs.max} runs (${e.serverStarts.max} starts)${usd(e)}`);
    }
    lines.push(`  (rough: schedules as declared, closed-loop cells at ${assumedSecondsPerOutputToken$1 * 1000} ms per output token, a session as its turns' answers plus its think and tool times' means (${assumedFileSessionTurns} turns for a file's sessions, ${assumedToolRoundsPerTurn} tool round per turn where tools are declared, a fan-out turn as one branch's answer), idle time cut for a lone request at ${assumedLoneSecondsPerOutputToken * 1000} ms per output token and ${assumedLoneSecondsPerPromptToken * 1000} ms per prompt token; a server start counted as cost.server_start_s)`);
    return lines;
}

/**
 * Adaptive repeats (statistics.md §7): decide at a few looks (5, 10, 15, 20, 25 runs per side by default),
 * adding runs only while the verdict is inconclusive. The family level is spent over the looks in
 * proportion to their run counts (Bonferroni with unequal weights, so the sum over looks is the family
 * level): early looks, with little information, test strictly and catch only large regressions; the last
 * look gets the largest share, which is where a change near the tolerance is decided.
 */
const standardLooks = [3, 5, 10, 15, 20, 25, 30, 40];
/**
 * Fraction of the family level spent over all looks, by comparison mode. The regression test is against
 * the tolerance margin, so the binding case is a true change at the tolerance, and Holm within a look
 * plus Bonferroni over looks (share 1) bounds the chance of blocking it by the family level under any
 * dependence between looks and metrics. bench/gate.ts measures how far below the bound it stays.
 */
const lookLevelShare = { interleaved: 1, stored: 1 };
/** Look points within [min, max]: min, every standard look above it, and max. */
function lookSchedule(minRuns, maxRuns) {
    const looks = new Set([minRuns]);
    for (const look of standardLooks)
        if (look > minRuns && look < maxRuns)
            looks.add(look);
    looks.add(maxRuns);
    return [...looks].sort((a, b) => a - b);
}
/** The look a decision at `runs` measured runs per side belongs to: the last look at or below it. */
function lookIndex(looks, runs) {
    let index = 0;
    looks.forEach((look, i) => {
        if (look <= runs)
            index = i;
    });
    return index;
}
/**
 * One-sided level of the regression and improvement tests (before Holm) at the look `runs` falls in:
 * familyAlpha × share × look / Σ looks.
 */
function perLookLevel(familyAlpha, looks, runs, mode) {
    const total = looks.reduce((sum, look) => sum + look, 0);
    if (total <= 0)
        return familyAlpha * lookLevelShare[mode];
    return (familyAlpha * lookLevelShare[mode] * looks[lookIndex(looks, runs)]) / total;
}
/**
 * Level of the non-inferiority bound behind "within tolerance" (U < d). A false pass can only happen
 * for a change at or near the tolerance itself, so it is not split over looks; it is the family level.
 */
function passLevel(familyAlpha) {
    return familyAlpha;
}
function nextLookAfter(candidateRuns, baselineRuns, looks, interleaved, reason) {
    const target = looks.find((look) => look > candidateRuns);
    if (target === undefined)
        return null;
    return {
        runsPerSide: target,
        addCandidateRuns: target - candidateRuns,
        addBaselineRuns: interleaved ? Math.max(0, target - baselineRuns) : 0,
        reason,
    };
}

/**
 * numpy's default ("linear", Hyndman-Fan type 7) percentile of already-sorted values: rank h = (n-1)q,
 * interpolated between neighbours. vLLM's client uses exactly this, so our numbers match theirs.
 */
function percentileSorted(sorted, q) {
    const n = sorted.length;
    if (n === 0)
        return Number.NaN;
    if (!(q >= 0 && q <= 1))
        throw new RangeError(`percentile needs 0 <= q <= 1 (got ${q})`);
    const h = (n - 1) * q;
    const lower = Math.floor(h);
    const upper = Math.min(lower + 1, n - 1);
    const a = sorted[lower];
    const b = sorted[upper];
    return a + (h - lower) * (b - a);
}
function sortNumbers(values) {
    const sorted = Float64Array.from(values);
    sorted.sort();
    return sorted;
}
/** numpy-linear percentile of unsorted values (q in [0, 1]). */
function percentile(values, q) {
    return percentileSorted(sortNumbers(values), q);
}

/**
 * What `validate` says a capacity search or a sweep will cost before it starts (docs/capacity.md): per cell
 * with `capacity` or `sweep`, the loads, the most runs per side, and the GPU-minutes of those runs plus one
 * server start (the server is kept across loads). A run's length is its requests at the load measured
 * (the geometric middle of the range for a search, each load for a sweep) plus the output time a request
 * takes, as validate's other estimates assume; for a session dataset the load counts sessions and a
 * session takes its turns' answers plus its think and tool times (summary.ts `sessionEstimate`).
 */
const assumedSecondsPerOutputToken = 0.03;
function outputSeconds(cell) {
    const output = cell.dataset.type === "synthetic" ? cell.dataset.output_tokens : 128;
    const tokens = typeof output === "number"
        ? output
        : "value" in output
            ? output.value
            : "median" in output
                ? output.median
                : "mean" in output
                    ? output.mean
                    : (output.min + output.max) / 2;
    return tokens * assumedSecondsPerOutputToken;
}
function runSeconds(cell, load) {
    if ("duration_s" in cell.size)
        return cell.size.duration_s;
    const requests = cell.size.requests;
    const each = sessionEstimate(cell)?.seconds ?? outputSeconds(cell);
    return cell.load.type === "concurrency"
        ? (requests / Math.max(1, Math.round(load))) * each
        : requests / load + each;
}
function sweepLoadList(sweep) {
    if ("loads" in sweep)
        return [...new Set(sweep.loads)];
    return Array.from({ length: sweep.count }, (_, i) => sweep.from * (sweep.to / sweep.from) ** (i / (sweep.count - 1)));
}
const unitOf = (cell) => {
    const sessions = isSessionDataset(cell.dataset);
    if (cell.load.type === "concurrency")
        return sessions ? "sessions in flight" : "in flight";
    return sessions ? "sessions/s" : "req/s";
};
const round1 = (minutes) => (minutes < 10 ? minutes.toFixed(1) : Math.round(minutes).toString());
/**
 * The most runs per side a capacity cell spends (docs/capacity.md): `capacity.max_runs`, by default twice
 * repeats.max, never fewer than repeats.max (the search's own budget, its first look).
 */
function capacityMaxRuns(repeatsMax, cell) {
    return Math.max(repeatsMax, cell.capacity.max_runs ?? 2 * repeatsMax);
}
function describeCapacityCost(config) {
    const startMinutes = serverStartSeconds(config) / 60;
    const price = config.cost.gpu_hourly_usd;
    const usd = (minutes) => price === undefined ? "" : `, about $${((minutes / 60) * price).toFixed(2)}`;
    const lines = [];
    for (const cell of config.cells) {
        if (cell.capacity) {
            const { min, max } = cell.capacity.range;
            const runs = config.repeats.max;
            const perRun = runSeconds(cell, Math.sqrt(min * max)) / 60;
            const minutes = runs * perRun + startMinutes;
            const most = capacityMaxRuns(runs, cell);
            const extra = most > runs
                ? `; an undecided capacity verdict adds runs up to ${most} per side (capacity.max_runs), about ${round1(most * perRun + startMinutes)} GPU-minutes per side at most, and a stored baseline is recorded with ${most}`
                : "";
            lines.push(`capacity search ${cell.name} (run --sweep): ${min} to ${max} ${unitOf(cell)}, ${cell.capacity.initial_loads} loads first, then 4 runs per round until the interval is within ${Math.round(cell.capacity.precision * 100)}%; at most ${runs} runs per side (repeats.max), about ${round1(minutes)} GPU-minutes per side${usd(minutes)}, twice that for an A/B comparison${extra}`);
        }
        else if (cell.sweep) {
            const loads = sweepLoadList(cell.sweep);
            const seconds = loads.reduce((sum, load) => sum + cell.sweep.runs * runSeconds(cell, load), 0);
            const minutes = seconds / 60 + startMinutes;
            lines.push(`load sweep ${cell.name} (run --sweep): ${loads.length} loads x ${cell.sweep.runs} runs = ${loads.length * cell.sweep.runs} runs per side, about ${round1(minutes)} GPU-minutes per side${usd(minutes)}`);
        }
    }
    return lines;
}

/**
 * What the choices chunks of a stream carried: reasoning (a reasoning parser's `delta.reasoning`, or
 * `delta.reasoning_content` in older vLLM releases), the answer (`delta.content`, a completion's `text`)
 * or tool calls (`delta.tool_calls`), and the tool calls assembled from their deltas.
 *
 * Shapes read: vLLM's `DeltaMessage` (`role`, `content`, `reasoning`, `tool_calls`) and `DeltaToolCall`
 * (`id`, `type`, `index`, `function: {name, arguments}`) in `vllm/entrypoints/openai/engine/protocol.py`
 * (commit 040a2cc2a629); `reasoning_content` in `vllm/entrypoints/openai/protocol.py` of the releases before
 * the rename (vllm-project/vllm PR #27752, merged November 2025; `reasoning_content` removed from the
 * output by PR #33402, January 2026, first released in 0.16.0). A tool call's first delta carries its id,
 * type and name, the later ones pieces of its arguments, all under the call's `index`
 * (`vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py`, commit 00854322d230). The OpenAI chat
 * API streams the same shapes.
 */
const reasoningFields = ["reasoning", "reasoning_content"];
/** A chunk without text of its own: chat's role chunk, a final chunk with only the finish reason. */
const chunkCarriesNothing = 0;
/** Only reasoning text. */
const chunkCarriesReasoning = 1;
/** Answer text (`content`, or a completion's `text`), maybe with reasoning. */
const chunkCarriesAnswer = 2;
/** Tool-call deltas (answer too: the answer is the call). */
const chunkCarriesToolCalls = 3;
/** Bits 2-3 of classifyChunk's result: which reasoning field the chunk used (0 none, 1 or 2). */
const fieldShift = 2;
const key = (name) => Buffer.from(`"${name}":`);
const REASONING_KEY = key("reasoning");
const REASONING_CONTENT_KEY = key("reasoning_content");
const CONTENT_KEY = key("content");
const TEXT_KEY = key("text");
const TOOL_CALLS_KEY = key("tool_calls");
const QUOTE = 34;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const COMMA = 44;
const isSpace = (byte) => byte === 32 || byte === 9 || byte === 10 || byte === 13;
/**
 * Whether the JSON object text `chunk` has key `name` (with its quotes and colon) as a member whose value
 * starts with `opener` and is not empty (`"x"`, not `""`; `[x`, not `[]`). A key inside a string value
 * cannot match: its quotes are escaped there.
 */
function hasNonEmptyMember(chunk, name, opener, closer) {
    return nonEmptyMemberAt(chunk, name, opener, closer) >= 0;
}
/** Where the first such member's value starts in `chunk` (its opener), or -1 (see hasNonEmptyMember). */
function nonEmptyMemberAt(chunk, name, opener, closer) {
    let from = 0;
    for (;;) {
        const at = chunk.indexOf(name, from);
        if (at < 0)
            return -1;
        from = at + name.length;
        let before = at - 1;
        while (isSpace(chunk[before]))
            before--;
        if (chunk[before] !== OPEN_BRACE && chunk[before] !== COMMA)
            continue;
        let value = from;
        while (isSpace(chunk[value]))
            value++;
        if (chunk[value] !== opener)
            continue;
        let next = value + 1;
        if (opener !== QUOTE)
            while (isSpace(chunk[next]))
                next++;
        if (chunk[next] !== closer)
            return value;
    }
}
const BACKSLASH = 92;
/**
 * The answer text of the choices chunk [start, end): a completion's `text`, else the delta's `content`;
 * null when it carries none. Read from the bytes, no JSON parse of the chunk: a session's turns keep their
 * answers to send them back, and parsing every chunk of 1,024 sessions in flight cost more than reading
 * them. `buffer` must hold one valid JSON object there (the reader validated it), so a string value ends
 * at the first quote not escaped.
 */
function answerTextOf(buffer, start, end) {
    const chunk = buffer.subarray(start, end);
    let value = nonEmptyMemberAt(chunk, TEXT_KEY, QUOTE, QUOTE);
    if (value < 0)
        value = nonEmptyMemberAt(chunk, CONTENT_KEY, QUOTE, QUOTE);
    if (value < 0)
        return null;
    let escaped = false;
    let close = value + 1;
    for (; close < chunk.length; close++) {
        const byte = chunk[close];
        if (byte === BACKSLASH) {
            escaped = true;
            close++;
        }
        else if (byte === QUOTE)
            break;
    }
    return escaped
        ? JSON.parse(chunk.toString("utf8", value, close + 1))
        : chunk.toString("utf8", value + 1, close);
}
/**
 * What the choices chunk [start, end) carried (one of the chunkCarries* values) and, in bits 2-3, the
 * reasoning field it used (1 `reasoning`, 2 `reasoning_content`, 0 none); a few bounded byte searches,
 * no JSON parse. `chunk` must be one valid JSON object (the reader validated it).
 */
function classifyChunk(buffer, start, end) {
    const chunk = buffer.subarray(start, end);
    const field = hasNonEmptyMember(chunk, REASONING_KEY, QUOTE, QUOTE)
        ? 1
        : hasNonEmptyMember(chunk, REASONING_CONTENT_KEY, QUOTE, QUOTE)
            ? 2
            : 0;
    const kind = hasNonEmptyMember(chunk, TOOL_CALLS_KEY, OPEN_BRACKET, CLOSE_BRACKET)
        ? chunkCarriesToolCalls
        : hasNonEmptyMember(chunk, CONTENT_KEY, QUOTE, QUOTE) || hasNonEmptyMember(chunk, TEXT_KEY, QUOTE, QUOTE)
            ? chunkCarriesAnswer
            : field !== 0
                ? chunkCarriesReasoning
                : chunkCarriesNothing;
    return kind | (field << fieldShift);
}
const chunkKindOf = (classified) => classified & ((1 << fieldShift) - 1);
const reasoningFieldOf = (classified) => {
    const field = classified >> fieldShift;
    return field === 0 ? null : reasoningFields[field - 1];
};
/**
 * Limits of the tool calls kept per request (documented in docs/run.md): 64 calls, and 64 KiB of
 * arguments per call. A call beyond them is counted as malformed; the request itself goes on.
 */
const toolCallLimits = { calls: 64, argumentChars: 64 * 1024 };
/** Key of the deltas that name no call (no integer `index`): together one malformed call. */
const unindexed = "unindexed";
/**
 * Assembles the tool calls of one response from its chunks' `delta.tool_calls` (per choice, by the
 * call's `index`). A call is well formed with a non-empty id and name and arguments that are a JSON
 * object; anything else is counted as malformed, never thrown.
 */
class ToolCallAssembler {
    calls = new Map();
    /** One choices chunk's JSON text (already validated as JSON by the reader). */
    add(json) {
        let event;
        try {
            event = JSON.parse(json);
        }
        catch {
            return;
        }
        const choices = event?.choices;
        if (!Array.isArray(choices))
            return;
        for (const choice of choices) {
            if (choice === null || typeof choice !== "object")
                continue;
            const { index: choiceIndex, delta } = choice;
            if (delta === null || typeof delta !== "object")
                continue;
            const deltas = delta.tool_calls;
            if (deltas === undefined || deltas === null)
                continue;
            if (!Array.isArray(deltas)) {
                this.call(unindexed).broken = true;
                continue;
            }
            for (const item of deltas)
                this.addDelta(Number.isSafeInteger(choiceIndex) ? String(choiceIndex) : "0", item);
        }
    }
    addDelta(choice, item) {
        if (item === null || typeof item !== "object") {
            this.call(unindexed).broken = true;
            return;
        }
        const { index, id, function: fn } = item;
        const call = Number.isSafeInteger(index) ? this.call(`${choice}:${String(index)}`) : this.call(unindexed);
        if (call === this.calls.get(unindexed))
            call.broken = true;
        if (call.broken)
            return;
        if (id !== undefined && id !== null) {
            if (typeof id !== "string" || (call.id !== null && call.id !== id))
                call.broken = true;
            else
                call.id = id;
        }
        if (fn === undefined || fn === null)
            return;
        if (typeof fn !== "object") {
            call.broken = true;
            return;
        }
        const { name, arguments: text } = fn;
        if (name !== undefined && name !== null) {
            if (typeof name !== "string" || (call.name !== null && call.name !== name))
                call.broken = true;
            else
                call.name = name;
        }
        if (text !== undefined && text !== null) {
            if (typeof text !== "string")
                call.broken = true;
            else if (call.arguments.length + text.length > toolCallLimits.argumentChars) {
                call.broken = true;
                call.arguments = "";
            }
            else
                call.arguments += text;
        }
    }
    call(key) {
        let call = this.calls.get(key);
        if (call === undefined) {
            call = { id: null, name: null, arguments: "", broken: false };
            // Beyond the limit a call is counted (as malformed), its deltas dropped.
            if (this.calls.size >= toolCallLimits.calls && key !== unindexed)
                call.broken = true;
            this.calls.set(key, call);
        }
        return call;
    }
    /** The well-formed calls in the order their first delta came, and how many were malformed. */
    result() {
        const toolCalls = [];
        let malformed = 0;
        for (const call of this.calls.values()) {
            if (!call.broken && call.id && call.name && isJsonObjectText(call.arguments)) {
                toolCalls.push({ id: call.id, name: call.name, arguments: call.arguments });
            }
            else
                malformed++;
        }
        return { toolCalls, malformed };
    }
}
function isJsonObjectText(text) {
    try {
        const value = JSON.parse(text);
        return value !== null && typeof value === "object" && !Array.isArray(value);
    }
    catch {
        return false;
    }
}

/**
 * One line of `requests.jsonl` (measured requests) or `warmup.jsonl`. Times are milliseconds on the run's
 * monotonic clock, relative to the start of the measured phase (`t0`); chunk times are relative to the
 * request's own send time (in microseconds). Written as each request finishes, so a crash loses nothing already measured.
 */
const requestRecordSchemaVersion = 1;
/**
 * Why a request's usage was not taken as the server reported it (docs/run.md, "Usage checks"):
 * `invalid_usage` (a count that is not a non-negative integer, or cumulative counts that go down),
 * `usage_exceeds_chunks` / `usage_below_chunks` (completion_tokens far from the chunks received),
 * `exceeds_max_tokens` (more output than the request's max_tokens allows).
 */
const usageIssueKinds = [
    "invalid_usage",
    "usage_exceeds_chunks",
    "usage_below_chunks",
    "exceeds_max_tokens",
];
const ms = number();
/** One well-formed tool call the answer made, assembled from its `delta.tool_calls` (arguments as streamed). */
const toolCallSchema = object({
    id: string(),
    name: string(),
    arguments: string(),
});
const requestRecordSchema = object({
    v: literal(requestRecordSchemaVersion),
    index: number().int().nonnegative(),
    phase: _enum(["measure", "warmup"]),
    requestId: string(),
    /** Stage index (stages load) or 0. */
    stage: number().int().nonnegative(),
    /** When the schedule wanted it sent (open loop), or when its slot freed (closed loop). */
    scheduledMs: ms,
    /** When the client got round to it: scheduledMs + lag caused by the client itself. */
    readyMs: ms,
    /** Wait for a concurrency slot (max_concurrency), excluded from latency like vLLM's client_queue_time. */
    queueMs: ms,
    sentMs: ms,
    /** When undici handed it a connection (relative to send); null if it never got one. */
    socketMs: ms.nullable(),
    headersMs: ms.nullable(),
    /**
     * Arrival of every chunk with choices, in whole microseconds after sentMs (integers serialise several
     * times faster than fractional milliseconds, and this list is most of each line).
     */
    chunksUs: array(number().int().nonnegative()),
    /** Tokens per chunk when the server reports cumulative usage on each chunk; otherwise null. */
    chunkTokens: array(number().int().nonnegative()).nullable(),
    endMs: ms,
    /**
     * Idle time elided before this request (schedule idle-elided): its times above are on the schedule's
     * timeline, the monotonic clock plus this. Absent on real time.
     */
    elidedMs: ms.nonnegative().optional(),
    ok: boolean(),
    errorKind: string().nullable(),
    error: string().nullable(),
    httpStatus: number().int().nullable(),
    finishReason: string().nullable(),
    promptTokens: number().int().nonnegative().nullable(),
    /** usage.completion_tokens; when the server sent no usage, the number of chunks (noted in the run). */
    outputTokens: number().int().nonnegative().nullable(),
    outputTokensSource: _enum(["usage", "chunks"]).nullable(),
    /** usage.prompt_tokens_details.cached_tokens (prompt tokens served from the prefix cache); null if not sent. */
    cachedTokens: number().int().nonnegative().nullable(),
    /**
     * When the first answer token arrived (ms after sentMs): the first chunk with content, text or tool
     * calls, after any reasoning. TTFT (the first chunk of any kind) is chunksUs[0]; null without an answer
     * chunk. The answer's ITL is the gaps between the chunks from this one on.
     */
    firstAnswerTokenMs: ms.nullable().default(null),
    /**
     * Reasoning tokens: usage.completion_tokens_details.reasoning_tokens when the server sent it, otherwise
     * the tokens of the chunks that carried only reasoning; 0 when nothing was reasoning; null without output.
     */
    reasoningTokens: number().int().nonnegative().nullable().default(null),
    /** outputTokens minus reasoningTokens; null without output. */
    answerTokens: number().int().nonnegative().nullable().default(null),
    /** Which delta field carried the reasoning (the first seen); null when none did. */
    reasoningField: _enum(reasoningFields).nullable().default(null),
    /** The well-formed tool calls of the answer, in their stream order. */
    toolCalls: array(toolCallSchema).default([]),
    /** Tool calls that could not be assembled (no id or name, arguments not a JSON object, a broken delta). */
    malformedToolCalls: number().int().nonnegative().default(0),
    targetInputTokens: number().int().nullable(),
    maxTokens: number().int(),
    prefixGroup: number().int().nullable(),
    /** A greedy-output cell's output (docs/quality.md): text, and the chosen tokens and logprobs if returned. */
    output: object({
        text: string(),
        tokens: array(string()).nullable(),
        logprobs: array(number().nullable()).nullable(),
    })
        .optional(),
    /** A task cell's answer scored against its reference (docs/quality.md); `error`: why it could not be. */
    task: object({ reference: string(), correct: boolean(), error: string().optional() }).optional(),
    /**
     * A session's turn (session datasets, docs/workloads.md): the session, the turn (0-based: its depth in
     * turns), the session's turns, and 0 for the user's message or r for the r-th tool-result round; at a
     * fan-out turn, which branch (0-based) of how many (each branch's tool rounds counted on their own).
     */
    session: object({
        index: number().int().nonnegative(),
        turn: number().int().nonnegative(),
        turns: number().int().positive(),
        toolRound: number().int().nonnegative(),
        branch: number().int().nonnegative().optional(),
        branches: number().int().positive().optional(),
    })
        .optional(),
    /** Present when the server's usage failed a check; the detail names the values and the margin. */
    usageIssue: object({ kind: _enum(usageIssueKinds), detail: string() }).optional(),
});

/**
 * `run.json`: everything measured in one run of one cell. It is the contract between `run` (writer)
 * and `compare` (reader), so it is versioned: a reader accepts every version it knows and says exactly
 * why it rejects any other.
 */
const runFileSchemaVersion = 1;
const nullableNumber = number().nullable();
/** mean/std/median/percentiles of one latency phase, in milliseconds; null when there was no sample. */
const latencySummarySchema = object({
    count: number().int().nonnegative(),
    mean: nullableNumber,
    std: nullableNumber,
    median: nullableNumber,
    p50: nullableNumber,
    p90: nullableNumber,
    p95: nullableNumber,
    p99: nullableNumber,
    p99_9: nullableNumber,
});
/** The summary of no samples (a phase a run never measured: every statistic missing, never zero). */
const noSamples = {
    count: 0,
    mean: null,
    std: null,
    median: null,
    p50: null,
    p90: null,
    p95: null,
    p99: null,
    p99_9: null,
};
/** A phase that run.json files of earlier versions do not have: read as no samples. */
const laterPhase = (description) => latencySummarySchema.default(noSamples).describe(description);
/** What the answers were made of (docs/run.md, "Reasoning and tool calls"). */
const runAnswerSchema = object({
    reasoningRequests: number().int().nonnegative().describe("Completed requests with reasoning tokens."),
    reasoningTokens: latencySummarySchema.describe("Reasoning tokens per completed request (not ms)."),
    reasoningFields: record(string(), number().int().nonnegative())
        .describe("Requests per delta field that carried the reasoning (reasoning, reasoning_content)."),
    toolCalls: number().int().nonnegative().describe("Well-formed tool calls of the completed requests."),
    malformedToolCalls: number().int().nonnegative(),
});
/** A value the server may not expose: `null` means missing, never zero. */
const serverValue = number().nullable();
/**
 * What a histogram really knows about one of its quantiles: the bucket the rank falls in. The _ms figure
 * beside it is interpolated inside this bucket, so it is no finer than [lower_ms, upper_ms].
 */
const percentileResolutionSchema = object({
    lower_ms: number(),
    upper_ms: number().nullable().describe("null: the +Inf bucket"),
    display: string().describe('What is known, e.g. "< 300 ms" or "300 ms to 500 ms".'),
});
const serverMetricsSummarySchema = object({
    notFinite: array(string())
        .optional()
        .describe("Fields below whose samples were NaN or +-Inf in /metrics: recorded as null."),
    preemptions: serverValue,
    prefix_cache_queries: serverValue,
    prefix_cache_hits: serverValue,
    prefix_cache_hit_rate: serverValue,
    kv_cache_usage_max: serverValue,
    kv_cache_usage_mean: serverValue,
    running_max: serverValue,
    waiting_max: serverValue,
    prompt_tokens: serverValue,
    generation_tokens: serverValue,
    server_ttft_p50_ms: serverValue,
    server_ttft_p95_ms: serverValue,
    server_queue_p50_ms: serverValue,
    server_queue_p95_ms: serverValue,
    requests_completed: serverValue,
    missing: array(string()).describe("Metric names the server did not expose."),
    server_percentile_resolution: record(string(), percentileResolutionSchema)
        .optional()
        .describe("Per server_*_p*_ms figure read from a histogram: the bucket it lies in."),
    spec_decode_drafts: serverValue.optional(),
    spec_decode_draft_tokens: serverValue.optional(),
    spec_decode_accepted_tokens: serverValue.optional(),
    spec_decode_acceptance_rate: serverValue
        .optional()
        .describe("Accepted / draft tokens over the run; null without speculative decoding."),
    sim_steps: serverValue
        .optional()
        .describe("Simulator only (sim:step_lateness_seconds): steps its loop handled in the run."),
    sim_step_lateness_p99_ms: serverValue
        .optional()
        .describe("Simulator only: p99 of how late its loop handled a step (ms) over the run; client.max_server_lateness_ms."),
});
/**
 * A session dataset's fan-outs in one run (metrics/fan-out-metrics.ts, docs/workloads.md): each a turn sent
 * as branches at once and joined; times in ms over the completed fan-outs.
 */
const fanOutSummarySchema = object({
    /** Fan-outs started (a branch sent). */
    fanOuts: number().int().nonnegative(),
    /** Fan-outs whose every branch was sent and answered (their tool rounds too). */
    completed: number().int().nonnegative(),
    /** Branches sent. */
    branches: number().int().nonnegative(),
    /** The first branch's send to the slowest branch's last answer's end: when the session can go on. */
    completion: latencySummarySchema,
    /** The fastest branch's end to the slowest's: how far apart the branches finished. */
    spread: latencySummarySchema,
});
/** A session dataset's per-run summary (metrics/session-metrics.ts, docs/workloads.md). */
const sessionsSummarySchema = object({
    started: number().int().nonnegative(),
    /** Sessions whose every planned turn was answered. */
    completed: number().int().nonnegative(),
    /** Requests the sessions sent (turns and tool-result rounds). */
    requests: number().int().nonnegative(),
    /** Completed sessions per second of the measured phase. */
    throughput: number().nonnegative(),
    /** Sessions per second whose every request met every SLO; null without SLOs. */
    goodput: number().nonnegative().nullable(),
    /** Completed sessions' duration in ms: first send to the last answer's end (think times included). */
    duration: latencySummarySchema,
    /** Mean over sessions of cached / prompt tokens (usage's cached_tokens); null when the server sent none. */
    cacheHitRate: number().min(0).max(1).nullable(),
    /** The server's prefix-cache hits / queries over the run (its counters); null without them. */
    serverCacheHitRate: number().min(0).max(1).nullable(),
    /** TTFT by context depth (1-based turn number buckets), ms. */
    ttftByDepth: array(object({
        bucket: string(),
        from: number().int().positive(),
        to: number().int().positive().nullable(),
        requests: number().int().nonnegative(),
        p50: nullableNumber,
        p95: nullableNumber,
    })),
    /**
     * First turns served from the cache beyond the common prefix, into their own text: an earlier run's
     * cache (flagged when more than a tenth of the first turns were).
     */
    contamination: object({
        firstTurns: number().int().nonnegative(),
        aboveSharedPrefix: number().int().nonnegative(),
        flagged: boolean(),
        checked: boolean()
            .optional()
            .describe("false when no check was possible (a trace's first turns share prefix blocks by design): then flagged says nothing; absent in files of earlier versions."),
    }),
    /** The sub-agent fan-outs; absent when the sessions had none (and in files of earlier versions). */
    fanOut: fanOutSummarySchema.optional(),
});
/**
 * The cache-state check of a run (metrics/cache-check.ts, docs/workloads.md "Cache state"): a `prefix:
 * fresh` run's prefix-cache hits against what its dataset shares by design.
 */
const cacheCheckSchema = object({
    /** flagged: more hits than the design allows (the run is unusable); not-checked: no check was possible. */
    status: _enum(["passed", "flagged", "not-checked"]),
    /** Hits / queried prompt tokens over the measured phase; null when the server reported neither. */
    hitRate: number().min(0).max(1).nullable(),
    /** Where the hit rate came from: the server's /metrics counters, or the usage's cached_tokens. */
    hitRateSource: _enum(["server", "usage"]).nullable(),
    /** The most the dataset shares by design, a chat template's head included; null when not checked. */
    designedHitRate: number().min(0).max(1).nullable(),
    /** What was found, or why nothing was checked. */
    reason: string(),
});
/** How a session cell's cache was prepared before measuring (docs/workloads.md, Cache protocol). */
const cacheProtocolSchema = object({
    /** The prefix cache was reset before the run (POST /reset_prefix_cache answered 200). */
    reset: boolean(),
    /** Requests carry a per-run cache_salt: nothing cached by an earlier run can be hit. */
    salted: boolean(),
    /**
     * The warm-up as configured (sessions, or seconds of sessions), and the requests it sent: its sessions
     * are their own conversations; only the common system prompt is shared with the measured sessions.
     */
    warmup: union([
        object({ sessions: number().int().nonnegative() }),
        object({ durationS: number().nonnegative() }),
    ]),
    warmupRequests: number().int().nonnegative(),
});
/**
 * The server start that measured a run (docs/server.md, Server starts): the runs of one start share what
 * it drew, so compare groups them by it. Absent in files of earlier versions (compare/server-starts.ts).
 */
const runServerStartSchema = object({
    id: string()
        .min(1)
        .max(maxServerStartIdLength)
        .describe("Unique per server start (a random UUID for a server vllm-perf-gate launched)."),
    startedAt: string()
        .describe("ISO-8601: when the server was launched; for a server only reached (--base-url, kind external), when the process first reached it."),
    side: string()
        .nullable()
        .describe("The side the start served (baseline, candidate, ...), null when unlabelled."),
});
const runFileSchema = object({
    schemaVersion: literal(runFileSchemaVersion),
    tool: object({ name: string(), version: string() }),
    cell: string(),
    run: number().int().nonnegative().describe("Run index within the cell, from 0."),
    /** `baseline` or `candidate` in interleaved jobs; free-form label otherwise. */
    side: string().optional(),
    serverStart: runServerStartSchema
        .optional()
        .describe("The server start that measured the run; absent in files of earlier versions (compare then assumes one start per input, docs/compare.md)."),
    startedAt: string().describe("ISO-8601 wall-clock time the measured phase began."),
    durationS: number()
        .nonnegative()
        .describe("Measured phase: first dispatch to last completion, on the schedule's timeline (with idle gaps elided, what it takes on real time; load.schedule.wallClockS is what it took)."),
    /** How the run was sized and loaded, as executed (for re-analysis). */
    load: object({
        type: _enum(["concurrency", "rate", "stages"]),
        targetRate: number().nullable(),
        targetConcurrency: number().nullable(),
        achievedRate: number(),
        achievedConcurrencyMean: number(),
        peakConcurrency: number().int(),
        scheduleLagP50Ms: number().nullable(),
        scheduleLagP99Ms: number().nullable(),
        eventLoopLagP99Ms: number().nullable(),
        schedule: object({
            kind: _enum(["idle-elided", "real-time"]),
            settleMs: number().nonnegative().optional(),
            elidedS: number().nonnegative().describe("Idle time elided: durationS minus the wall-clock."),
            wallClockS: number().nonnegative().describe("Wall-clock of the measured phase (GPU time spent)."),
        })
            .optional()
            .describe("How the arrivals were timed (docs/run.md, Schedules). durationS and every time in requests.jsonl are on the schedule's timeline, as on real time; absent in files of earlier versions (real time)."),
    }),
    requests: object({
        total: number().int().nonnegative(),
        completed: number().int().nonnegative(),
        failed: number().int().nonnegative(),
        errorsByKind: record(string(), number().int().nonnegative()),
        finishReasons: record(string(), number().int().nonnegative()),
        warmup: number().int().nonnegative(),
    }),
    tokens: object({
        input: number().int().nonnegative(),
        output: number().int().nonnegative(),
        inputLengths: latencySummarySchema.describe("Distribution of prompt tokens per request (not ms)."),
        outputLengths: latencySummarySchema.describe("Distribution of output tokens per request (not ms)."),
    }),
    latency: object({
        ttft: latencySummarySchema,
        tpot: latencySummarySchema,
        itl: latencySummarySchema,
        e2el: latencySummarySchema,
        answer_ttft: laterPhase("Time to the first answer token (content or tool call, after any reasoning)."),
        answer_itl: laterPhase("Gaps between the chunks from the first answer chunk on."),
        queue: latencySummarySchema.describe("Client-side wait for a concurrency slot."),
    }),
    throughput: object({
        request: number().nonnegative(),
        output: number().nonnegative(),
        total: number().nonnegative(),
        goodput: number().nonnegative().nullable().describe("Good requests per second; null without SLOs."),
        sloAttainment: number().min(0).max(1).nullable(),
    }),
    server: serverMetricsSummarySchema.nullable(),
    answer: runAnswerSchema
        .optional()
        .describe("Reasoning and tool calls of the answers; absent in files of earlier versions."),
    sessions: sessionsSummarySchema
        .optional()
        .describe("A session dataset's sessions: duration, goodput, cache hit rate, TTFT by depth (docs/workloads.md)."),
    cacheProtocol: cacheProtocolSchema.optional(),
    cacheCheck: cacheCheckSchema
        .optional()
        .describe("Whether a prefix: fresh run found only what its dataset shares by design in the prefix cache (docs/workloads.md); absent in files of earlier versions."),
    guards: runGuardsSchema
        .optional()
        .describe("What the outputs were (finish reasons, zero outputs, usage checks, lengths): docs/quality.md."),
    outputs: array(runOutputSchema)
        .optional()
        .describe("A greedy-output cell's outputs per prompt (config quality.greedy), for the greedy check."),
    flags: object({
        clientBound: boolean(),
        clientBoundReason: string().optional(),
        serverCrashed: boolean(),
        serverStarved: boolean()
            .optional()
            .describe("The simulator's own process was kept from running on time (its step lateness beyond client.max_server_lateness_ms); absent for servers that do not export sim:step_lateness_seconds."),
        serverStarvedReason: string().optional(),
        cutShort: boolean(),
        interrupted: string()
            .optional()
            .describe("The signal (SIGINT, SIGTERM) that interrupted the run; such a run is also cut short."),
        notes: array(string()).default([]),
        usageIssues: partialRecord(_enum(usageIssueKinds), number().int().nonnegative())
            .optional()
            .describe("Measured requests whose usage failed a check, by kind (docs/run.md, Usage checks)."),
        unusableReasons: array(string())
            .optional()
            .describe("Why compare must not use this run (besides the flags above); empty when it is usable."),
    }),
    prefix: object({
        policy: _enum(["fresh", "reuse"]),
        cacheSalt: string().nullable(),
        cacheReset: boolean(),
    }),
    /** Conditions of the run; see server/fingerprint. Opaque here so compare can diff it field by field. */
    fingerprint: record(string(), unknown()),
    telemetry: object({
        gpuUtilizationMean: number().nullable(),
        gpuUtilizationMax: number().nullable(),
        gpuMemoryUsedMaxMiB: number().nullable(),
        gpuPowerMeanW: number().nullable(),
        smClockMeanMHz: number().nullable(),
    })
        .nullable()
        .default(null),
});
const percentileOrder = ["p50", "p90", "p95", "p99", "p99_9"];
/** Checks one summary: ordered percentiles, no negative values, no statistics without samples. */
function latencySummaryIssues(summary, field) {
    const issues = [];
    const values = [summary.mean, summary.std, summary.median, ...percentileOrder.map((key) => summary[key])];
    if (summary.count === 0 && values.some((value) => value !== null))
        issues.push({ field: `${field}.count`, message: "0 samples, but statistics are given (expected null)" });
    for (const key of ["mean", "std", "median", ...percentileOrder]) {
        const value = summary[key];
        if (value !== null && value < 0)
            issues.push({ field: `${field}.${key}`, message: `${value} is negative (expected >= 0)` });
    }
    let previous = null;
    for (const key of percentileOrder) {
        const value = summary[key];
        if (value === null)
            continue;
        if (previous && value < previous.value) {
            issues.push({
                field: `${field}.${key}`,
                message: `${value} is below ${previous.key} = ${previous.value} (percentiles never decrease)`,
            });
        }
        previous = { key, value };
    }
    return issues;
}
function sum(record) {
    let total = 0;
    for (const value of Object.values(record))
        total += value;
    return total;
}
/**
 * The relations `run` guarantees between the fields of a run.json (metrics/run-metrics.ts builds
 * them from the same records): completed + failed = total, the error kinds add up to failed, the
 * finish reasons to completed, no latency has more samples than completed requests, and every
 * summary is ordered. Checked when a run.json is read (compare, baseline validation), not when it
 * is written, so a measured run is never lost to a check.
 */
function runFileInvariantIssues(file) {
    const issues = [];
    const { total, completed, failed, errorsByKind, finishReasons } = file.requests;
    if (completed + failed !== total) {
        issues.push({
            field: "requests.total",
            message: `${total}, but completed (${completed}) + failed (${failed}) = ${completed + failed} (expected equal)`,
        });
    }
    const errors = sum(errorsByKind);
    if (errors !== failed) {
        issues.push({
            field: "requests.errorsByKind",
            message: `adds up to ${errors}, but failed is ${failed} (expected equal)`,
        });
    }
    const finished = sum(finishReasons);
    if (finished !== completed) {
        issues.push({
            field: "requests.finishReasons",
            message: `adds up to ${finished}, but completed is ${completed} (expected equal)`,
        });
    }
    for (const phase of ["ttft", "tpot", "e2el"]) {
        const count = file.latency[phase].count;
        if (count > completed) {
            issues.push({
                field: `latency.${phase}.count`,
                message: `${count} samples, more than the ${completed} completed requests`,
            });
        }
    }
    if (file.latency.queue.count > total) {
        issues.push({
            field: "latency.queue.count",
            message: `${file.latency.queue.count} samples, more than the ${total} requests`,
        });
    }
    for (const which of ["inputLengths", "outputLengths"]) {
        const count = file.tokens[which].count;
        if (count > completed) {
            issues.push({
                field: `tokens.${which}.count`,
                message: `${count} samples, more than the ${completed} completed requests`,
            });
        }
    }
    for (const phase of ["ttft", "tpot", "itl", "e2el", "queue"])
        issues.push(...latencySummaryIssues(file.latency[phase], `latency.${phase}`));
    const { goodput, request } = file.throughput;
    if (goodput !== null && goodput > request * (1 + 1e-9)) {
        issues.push({
            field: "throughput.goodput",
            message: `${goodput}/s, more than the request throughput ${request}/s (good requests are a subset)`,
        });
    }
    return issues;
}

/**
 * mean, std (population, ddof=0), median and numpy-linear percentiles, as `vllm bench serve` computes them.
 * Unlike vLLM, an empty sample gives nulls, not zeros: "no data" must never read as "instant".
 */
function summarize(values) {
    const count = values.length;
    if (count === 0)
        return { ...noSamples };
    const sorted = sortNumbers(values);
    let sum = 0;
    for (let index = 0; index < count; index++)
        sum += sorted[index];
    const mean = sum / count;
    let squares = 0;
    for (let index = 0; index < count; index++)
        squares += (sorted[index] - mean) ** 2;
    const median = percentileSorted(sorted, 0.5);
    return {
        count,
        mean,
        std: Math.sqrt(squares / count),
        median,
        p50: median,
        p90: percentileSorted(sorted, 0.9),
        p95: percentileSorted(sorted, 0.95),
        p99: percentileSorted(sorted, 0.99),
        p99_9: percentileSorted(sorted, 0.999),
    };
}

function requestLatencies(record) {
    const chunks = record.chunksUs;
    if (!record.ok || chunks.length === 0)
        return null;
    const ttft = chunks[0] / 1000;
    const e2el = chunks[chunks.length - 1] / 1000;
    const out = record.outputTokens ?? chunks.length;
    return { ttft, e2el, tpot: out > 1 ? (e2el - ttft) / (out - 1) : null };
}
/**
 * The answer's timing of a successful request that reasoned, in ms: its first answer token (null when no
 * chunk carried answer text or a tool call) and the gaps between the chunks from there on. Null for a
 * request without reasoning: its answer's timing is its TTFT and ITL, not repeated as metrics of their own.
 */
function answerLatencies(record) {
    if (!record.ok || record.chunksUs.length === 0)
        return null;
    if ((record.reasoningTokens ?? 0) === 0 && record.reasoningField === null)
        return null;
    const first = record.firstAnswerTokenMs;
    if (first === null)
        return { ttft: null, itl: [] };
    const chunks = record.chunksUs;
    const itl = [];
    let index = chunks.findIndex((us) => us / 1000 >= first);
    if (index < 0)
        index = chunks.length;
    for (index++; index < chunks.length; index++)
        itl.push((chunks[index] - chunks[index - 1]) / 1000);
    return { ttft: first, itl };
}
/** vLLM's rule: good when every given objective is met; a request without TPOT (out <= 1) meets that one. */
function isGood(latencies, slo) {
    if (slo.ttft_ms !== undefined && latencies.ttft > slo.ttft_ms)
        return false;
    if (slo.tpot_ms !== undefined && latencies.tpot !== null && latencies.tpot > slo.tpot_ms)
        return false;
    if (slo.e2el_ms !== undefined && latencies.e2el > slo.e2el_ms)
        return false;
    return true;
}
/**
 * The client-side metrics of one run from its measured request records (pure). TTFT, TPOT and E2E are per
 * request; ITL pools every gap between consecutive choices chunks of all requests (per chunk, not per
 * token, as vLLM's client does). Only successful requests enter latency and throughput.
 */
function computeRunMetrics(records, options) {
    const ttft = [];
    const tpot = [];
    const itl = [];
    const e2el = [];
    const answerTtft = [];
    const answerItl = [];
    const reasoningTokens = [];
    const reasoningFields = {};
    let reasoningRequests = 0;
    let toolCalls = 0;
    let malformedToolCalls = 0;
    const queue = [];
    const inputLengths = [];
    const outputLengths = [];
    const errorsByKind = {};
    const finishReasons = {};
    let completed = 0;
    let good = 0;
    let inputTokens = 0;
    let outputTokens = 0;
    const slo = options.slo;
    const hasSlo = slo !== undefined &&
        (slo.ttft_ms !== undefined || slo.tpot_ms !== undefined || slo.e2el_ms !== undefined);
    for (const record of records) {
        queue.push(record.queueMs);
        const latencies = requestLatencies(record);
        if (latencies === null) {
            const kind = record.errorKind ?? "other";
            errorsByKind[kind] = (errorsByKind[kind] ?? 0) + 1;
            continue;
        }
        completed++;
        ttft.push(latencies.ttft);
        e2el.push(latencies.e2el);
        if (latencies.tpot !== null)
            tpot.push(latencies.tpot);
        const chunks = record.chunksUs;
        for (let index = 1; index < chunks.length; index++)
            itl.push((chunks[index] - chunks[index - 1]) / 1000);
        const answer = answerLatencies(record);
        if (answer !== null) {
            if (answer.ttft !== null)
                answerTtft.push(answer.ttft);
            for (const gap of answer.itl)
                answerItl.push(gap);
        }
        const reasoning = record.reasoningTokens ?? 0;
        reasoningTokens.push(reasoning);
        if (reasoning > 0)
            reasoningRequests++;
        if (record.reasoningField !== null)
            reasoningFields[record.reasoningField] = (reasoningFields[record.reasoningField] ?? 0) + 1;
        toolCalls += record.toolCalls.length;
        malformedToolCalls += record.malformedToolCalls;
        const reason = record.finishReason ?? "unknown";
        finishReasons[reason] = (finishReasons[reason] ?? 0) + 1;
        const input = record.promptTokens ?? record.targetInputTokens ?? 0;
        const output = record.outputTokens ?? chunks.length;
        inputTokens += input;
        outputTokens += output;
        inputLengths.push(input);
        outputLengths.push(output);
        if (hasSlo && isGood(latencies, slo))
            good++;
    }
    const duration = options.durationS;
    const perSecond = (value) => (duration > 0 ? value / duration : 0);
    return {
        requests: {
            total: records.length,
            completed,
            failed: records.length - completed,
            errorsByKind,
            finishReasons,
            warmup: options.warmup ?? 0,
        },
        tokens: {
            input: inputTokens,
            output: outputTokens,
            inputLengths: summarize(inputLengths),
            outputLengths: summarize(outputLengths),
        },
        latency: {
            ttft: summarize(ttft),
            tpot: summarize(tpot),
            itl: summarize(itl),
            e2el: summarize(e2el),
            answer_ttft: summarize(answerTtft),
            answer_itl: summarize(answerItl),
            queue: summarize(queue),
        },
        answer: {
            reasoningRequests,
            reasoningTokens: summarize(reasoningTokens),
            reasoningFields,
            toolCalls,
            malformedToolCalls,
        },
        throughput: {
            request: perSecond(completed),
            output: perSecond(outputTokens),
            total: perSecond(inputTokens + outputTokens),
            goodput: hasSlo ? perSecond(good) : null,
            sloAttainment: hasSlo ? (records.length > 0 ? good / records.length : 0) : null,
        },
    };
}

/**
 * Each fan-out of a run's session records (pure): the records of one session's turn that carry a branch,
 * a branch's end its last request's (its tool rounds included), in the order of (session, turn).
 */
function fanOutTimes(records) {
    const turns = new Map();
    for (const record of records) {
        const position = record.session;
        if (position?.branch === undefined)
            continue;
        const key = `${position.index}:${position.turn}`;
        const list = turns.get(key);
        if (list)
            list.push(record);
        else
            turns.set(key, [record]);
    }
    const times = [];
    for (const list of turns.values()) {
        const position = list[0].session;
        const branches = position.branches ?? 1;
        const ends = new Map();
        let start = Number.POSITIVE_INFINITY;
        let allOk = true;
        for (const record of list) {
            const branch = record.session.branch;
            if (record.session.toolRound === 0)
                start = Math.min(start, record.sentMs);
            ends.set(branch, Math.max(ends.get(branch) ?? Number.NEGATIVE_INFINITY, record.endMs));
            if (!record.ok)
                allOk = false;
        }
        const sent = new Set(list.filter((record) => record.session.toolRound === 0).map((record) => record.session.branch)).size;
        const completed = allOk && sent === branches && Number.isFinite(start);
        const branchEnds = [...ends.values()];
        const last = Math.max(...branchEnds);
        times.push({
            session: position.index,
            turn: position.turn,
            branches,
            sent,
            completed,
            completionMs: completed ? last - start : null,
            spreadMs: completed ? last - Math.min(...branchEnds) : null,
        });
    }
    return times.sort((a, b) => a.session - b.session || a.turn - b.turn);
}
/** A run's fan-outs (`fanOutTimes`) summarised (run.json `sessions.fanOut`); undefined when there were none. */
function summarizeFanOuts(times) {
    if (times.length === 0)
        return undefined;
    const completed = times.filter((time) => time.completed);
    return {
        fanOuts: times.length,
        completed: completed.length,
        branches: times.reduce((sum, time) => sum + time.sent, 0),
        completion: summarize(completed.map((time) => time.completionMs)),
        spread: summarize(completed.map((time) => time.spreadMs)),
    };
}

/**
 * The context-depth buckets TTFT is summarised in (1-based turn numbers: how many user turns the
 * conversation holds, the new one included): 1, 2-3, 4-7, 8 and deeper. Doubling widths keep each
 * bucket's requests comparable in number for sessions of a few to tens of turns.
 */
const depthBuckets = [
    { name: "1", from: 1, to: 1 },
    { name: "2_3", from: 2, to: 3 },
    { name: "4_7", from: 4, to: 7 },
    { name: "8_up", from: 8, to: null },
];
/**
 * A first turn whose cached prompt tokens reach more than this many tokens into its own new text (past the
 * common system prompt and the template) was served from a cache an earlier run left: warm-up sessions and
 * measured sessions never share more, so it is contamination (a fixed seed against a long-lived server).
 */
const contaminationSlackTokens = 16;
/** The share of first turns with such hits at which a run is flagged as contaminated. */
const contaminationShare = 0.1;
/**
 * The cached tokens a first turn may have by design: the common prefix, and all of its prompt but its own
 * new text (`targetInputTokens` less the common prefix, where the record has it): a chat template's head
 * and declared tools are the same for every first turn, and only an earlier run can have cached the
 * turn's own text. Undefined for a turn whose own text is too short to tell (two slacks or less), null when
 * no check is possible (a trace: `sharedPrefixTokens` null).
 */
function firstTurnBar(record, sharedPrefixTokens) {
    if (sharedPrefixTokens === null)
        return null;
    if (record.targetInputTokens === null || record.promptTokens === null)
        return sharedPrefixTokens;
    const own = record.targetInputTokens - sharedPrefixTokens;
    if (own <= 2 * contaminationSlackTokens)
        return undefined;
    return Math.max(sharedPrefixTokens, record.promptTokens - own);
}
/**
 * Per-run session metrics of a session dataset's records (pure): a session is its records with the same
 * `session.index`. Completed: every planned turn answered (a fan-out turn: every branch). Good: completed, and every request of it met
 * every SLO (vLLM's rule per request). Duration: first send to last answer's end, think times included (the
 * script gives both sides the same ones). Cache hit rate: per session, cached / prompt tokens of its
 * requests from the usage's cached_tokens, averaged over the sessions that report them; the server's own
 * counters (prefix cache hits / queries over the run) beside it.
 */
function computeSessionMetrics(records, options) {
    const sessions = new Map();
    for (const record of records) {
        if (record.session === undefined)
            continue;
        const list = sessions.get(record.session.index);
        if (list)
            list.push(record);
        else
            sessions.set(record.session.index, [record]);
    }
    if (sessions.size === 0)
        return null;
    // Sessions with a fan-out turn whose branches were not all sent and answered.
    const fanOuts = fanOutTimes(records);
    const fanOutIncomplete = new Set(fanOuts.flatMap((time) => (time.completed ? [] : [time.session])));
    const slo = options.slo;
    const hasSlo = slo !== undefined &&
        (slo.ttft_ms !== undefined || slo.tpot_ms !== undefined || slo.e2el_ms !== undefined);
    const durations = [];
    const hitRates = [];
    const ttftByDepth = new Map(depthBuckets.map((bucket) => [bucket.name, []]));
    let completed = 0;
    let good = 0;
    let firstTurns = 0;
    let contaminated = 0;
    let turnsSent = 0;
    for (const [index, turns] of sessions) {
        const planned = turns[0].session.turns;
        // A first turn's cached prefix: at a fan-out, the least any branch found (the first admitted computes
        // the branches' common prefix, the others hit it).
        let firstTurnSeen = false;
        let firstTurnExcess = null;
        const userTurns = new Set();
        let allOk = true;
        let allGood = true;
        let prompt = 0;
        let cached = 0;
        let cacheReported = false;
        let start = Number.POSITIVE_INFINITY;
        let end = Number.NEGATIVE_INFINITY;
        for (const record of turns) {
            const position = record.session;
            turnsSent++;
            if (position.toolRound === 0)
                userTurns.add(position.turn);
            start = Math.min(start, record.sentMs);
            end = Math.max(end, record.endMs);
            const latencies = requestLatencies(record);
            if (latencies === null) {
                allOk = false;
                allGood = false;
            }
            else {
                if (hasSlo && !isGood(latencies, slo))
                    allGood = false;
                const depth = position.turn + 1;
                const bucket = depthBuckets.find((entry) => depth >= entry.from && (entry.to === null || depth <= entry.to));
                ttftByDepth.get(bucket.name).push(latencies.ttft);
            }
            if (record.promptTokens !== null && record.cachedTokens !== null) {
                prompt += record.promptTokens;
                cached += record.cachedTokens;
                cacheReported = true;
                // A fan-out's first turn is several branches over one prefix: the branch that found the least
                // cached speaks for the session (the others may hit what their siblings just computed).
                if (position.turn === 0 && position.toolRound === 0) {
                    const bar = firstTurnBar(record, options.sharedPrefixTokens);
                    if (bar !== undefined) {
                        firstTurnSeen = true;
                        if (bar !== null)
                            firstTurnExcess = Math.min(firstTurnExcess ?? Number.POSITIVE_INFINITY, record.cachedTokens - bar);
                    }
                }
            }
        }
        if (firstTurnSeen) {
            firstTurns++;
            if (firstTurnExcess !== null && firstTurnExcess > contaminationSlackTokens)
                contaminated++;
        }
        const done = allOk && userTurns.size === planned && !fanOutIncomplete.has(index);
        if (done) {
            completed++;
            durations.push(end - start);
            if (hasSlo && allGood)
                good++;
        }
        if (cacheReported && prompt > 0)
            hitRates.push(cached / prompt);
    }
    const perSecond = (count) => (options.durationS > 0 ? count / options.durationS : 0);
    const fanOut = summarizeFanOuts(fanOuts);
    const contaminationFlag = firstTurns > 0 && contaminated / firstTurns > contaminationShare;
    return {
        started: sessions.size,
        completed,
        requests: turnsSent,
        throughput: perSecond(completed),
        goodput: hasSlo ? perSecond(good) : null,
        duration: summarize(durations),
        cacheHitRate: hitRates.length > 0 ? hitRates.reduce((sum, rate) => sum + rate, 0) / hitRates.length : null,
        serverCacheHitRate: options.serverHitRate,
        ttftByDepth: depthBuckets.map((bucket) => {
            const values = ttftByDepth.get(bucket.name);
            const summary = summarize(values);
            return {
                bucket: bucket.name,
                from: bucket.from,
                to: bucket.to,
                requests: values.length,
                p50: summary.p50,
                p95: summary.p95,
            };
        }),
        // A trace's first turns share prefix blocks by design: no check was possible, which is not a pass.
        contamination: {
            firstTurns,
            aboveSharedPrefix: contaminated,
            flagged: contaminationFlag,
            checked: options.sharedPrefixTokens !== null,
        },
        ...(fanOut !== undefined ? { fanOut } : {}),
    };
}

export { requestRecordSchemaVersion as A, cellSchedule as B, summarize as C, computeRunMetrics as D, computeSessionMetrics as E, runFileSchemaVersion as F, scheduleCondition as G, percentile as H, perLookLevel as I, passLevel as J, lookIndex as K, defaultServerStartSeconds as L, interleavedStepStarts as M, nextLookAfter as N, ToolCallAssembler as T, serverStartSeconds as a, serverStartsPerCell as b, summarizeConfig as c, sessionEstimate as d, depthBuckets as e, renderSummary as f, describeCapacityCost as g, runFileSchema as h, runFileInvariantIssues as i, capacityMaxRuns as j, requestRecordSchema as k, lookSchedule as l, requestLatencies as m, noisiestGatedFamily as n, answerLatencies as o, sortNumbers as p, percentileSorted as q, runsPerBlock as r, startedServers as s, classifyChunk as t, chunkCarriesAnswer as u, answerTextOf as v, chunkCarriesToolCalls as w, reasoningFieldOf as x, chunkCarriesReasoning as y, chunkKindOf as z };
