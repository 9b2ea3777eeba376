import { b as serverKinds, a as serverKindFacts, t as templateView, k as describeServer, m as serverWarnings, g as isSessionDataset, o as describeDataset, i as isSearchedCell, s as serverLifecycle } from './load.js';
import { m as metricSpecs } from './metric-names.js';

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
function outputTokensMean(cell) {
    const dataset = cell.dataset;
    if ("output_tokens" in dataset && dataset.output_tokens !== undefined)
        return lengthMean(dataset.output_tokens);
    return 256;
}
/** A load as validate shows it; `unit` is what it counts (a session dataset's load counts sessions). */
function describeLoad(load, unit = "req") {
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
/** Turns per session assumed for a file's sessions (their count is the file's, not read by validate). */
const assumedFileSessionTurns = 4;
/** Tool rounds per turn assumed when a session declares tools (the server decides whether it calls one). */
const assumedToolRoundsPerTurn = 1;
/**
 * A session's expected duration (null for a dataset of single requests). Its turns are closed loop:
 * each answer, then the think time, then the next turn, so a session takes turns x (answer) + (turns − 1) x
 * (think mean), plus each tool round's latency and its answer (answers at `secondsPerOutputToken`). A file's turns are assumed
 * (`assumedFileSessionTurns`, at most `max_turns`); a trace's gaps between turns are its own (not counted).
 */
function sessionEstimate(cell, secondsPerOutputToken = assumedSecondsPerOutputToken$1) {
    const dataset = cell.dataset;
    if (!isSessionDataset(dataset))
        return null;
    const answerSeconds = outputTokensMean(cell) * secondsPerOutputToken;
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
        case "mooncake_trace":
            turns = assumedFileSessionTurns;
            break;
    }
    turns = Math.max(1, turns);
    const thinkSeconds = (turns - 1) * think;
    const toolSeconds = turns * tool;
    return {
        turns,
        answerSeconds,
        thinkSeconds,
        toolSeconds,
        seconds: turns * answerSeconds + thinkSeconds + toolSeconds,
    };
}
function estimateSeconds(cell) {
    if ("duration_s" in cell.size)
        return cell.size.duration_s;
    const requests = cell.size.requests;
    // A session dataset's unit is a session: its schedule counts sessions, each as long as its turns.
    const requestSeconds = sessionEstimate(cell)?.seconds ?? outputTokensMean(cell) * assumedSecondsPerOutputToken$1;
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
function estimateElidedSeconds(cell, schedule) {
    if (schedule.kind !== "idle-elided" || cell.load.type !== "rate" || !("requests" in cell.size))
        return 0;
    const rate = cell.load.rate;
    // A session is in flight from its first turn to its last answer, its think times included.
    const serviceS = promptTokensMean(cell) * assumedLoneSecondsPerPromptToken +
        (sessionEstimate(cell, assumedLoneSecondsPerOutputToken)?.seconds ??
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
function summarizeConfig(config, templates = [], looks) {
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
        const session = sessionEstimate(cell);
        const requestsPerRun = "requests" in cell.size
            ? session === null
                ? cell.size.requests
                : Math.round(cell.size.requests * session.turns)
            : null;
        if (requestsPerRun !== null && requestsPerRun < config.gate.min_requests.p95) {
            const gatedPercentiles = config.gate.metrics.filter((metric) => metricSpecs[metric].minRequests === "p95" &&
                (session === null || metricSpecs[metric].source.kind !== "session"));
            if (gatedPercentiles.length > 0) {
                const requests = text.size.requests;
                const counted = session === null
                    ? `${requests} requests per run`
                    : `about ${requestsPerRun} requests per run (${requests} sessions of ${Number(session.turns.toFixed(1))} turns)`;
                warnings.push(`cells "${text.name}": ${counted} is below gate.min_requests.p95 (${config.gate.min_requests.p95}); ${gatedPercentiles.join(", ")} will be advisory only`);
            }
        }
        const schedule = cellSchedule(config, cell);
        const elided = estimateElidedSeconds(cell, schedule);
        return {
            name: text.name,
            endpoint: text.endpoint,
            dataset: describeDataset(text.dataset),
            load: describeLoad(text.load, unit),
            size,
            prefix: text.prefix,
            warmup: describeWarmup(text),
            schedule: describeSchedule(schedule),
            estimatedSecondsPerRun: Math.max(0, estimateSeconds(cell) - elided),
            estimatedElidedSecondsPerRun: elided,
        };
    });
    return {
        server: serverText,
        model: `${shown.model.name}${shown.model.revision ? ` @ ${shown.model.revision}` : ""}`,
        cells,
        runs: { min: config.repeats.min, max: config.repeats.max },
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
            serverStartsPerCell(mode, runs, looks, lifecycle, config.repeats.block);
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
    lines.push(`  (rough: schedules as declared, closed-loop cells at ${assumedSecondsPerOutputToken$1 * 1000} ms per output token, a session as its turns' answers plus its think and tool times' means (${assumedFileSessionTurns} turns for a file's sessions, ${assumedToolRoundsPerTurn} tool round per turn where tools are declared), idle time cut for a lone request at ${assumedLoneSecondsPerOutputToken * 1000} ms per output token and ${assumedLoneSecondsPerPromptToken * 1000} ms per prompt token; a server start counted as cost.server_start_s)`);
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
 * mean, std (population, ddof=0), median and numpy-linear percentiles, as `vllm bench serve` computes them.
 * Unlike vLLM, an empty sample gives nulls, not zeros: "no data" must never read as "instant".
 */
function summarize(values) {
    const count = values.length;
    if (count === 0) {
        return {
            count,
            mean: null,
            std: null,
            median: null,
            p50: null,
            p90: null,
            p95: null,
            p99: null,
            p99_9: null,
        };
    }
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
 * A first turn whose cached prompt tokens exceed the common prefix (the shared system prompt, or none) by
 * more than this many tokens was served from a cache an earlier run left: warm-up sessions and measured
 * sessions never share more, so it is contamination (a fixed seed against a long-lived server).
 */
const contaminationSlackTokens = 16;
/** The share of first turns with such hits at which a run is flagged as contaminated. */
const contaminationShare = 0.1;
/**
 * Per-run session metrics of a session dataset's records (pure): a session is its records with the same
 * `session.index`. Completed: every planned turn answered. Good: completed, and every request of it met
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
    for (const turns of sessions.values()) {
        const planned = turns[0].session.turns;
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
                if (position.turn === 0 && position.toolRound === 0) {
                    firstTurns++;
                    const shared = options.sharedPrefixTokens;
                    if (shared !== null && record.cachedTokens > shared + contaminationSlackTokens)
                        contaminated++;
                }
            }
        }
        const done = allOk && userTurns.size === planned;
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
        contamination: { firstTurns, aboveSharedPrefix: contaminated, flagged: contaminationFlag },
    };
}

export { serverStartSeconds as a, serverStartsPerCell as b, summarizeConfig as c, sessionEstimate as d, depthBuckets as e, describeCapacityCost as f, capacityMaxRuns as g, requestLatencies as h, answerLatencies as i, sortNumbers as j, cellSchedule as k, lookSchedule as l, summarize as m, computeRunMetrics as n, computeSessionMetrics as o, percentileSorted as p, scheduleCondition as q, renderSummary as r, startedServers as s, percentile as t, perLookLevel as u, passLevel as v, lookIndex as w, defaultServerStartSeconds as x, interleavedStepStarts as y, nextLookAfter as z };
