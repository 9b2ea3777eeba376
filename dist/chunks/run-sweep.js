import { readdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { p as estimateCapacity, q as capacityInterval, t as smallest, u as largest, n as runFileSchema, v as loadCurveOf, w as capacityRunsOf, x as capacityObjectivesOf, y as intervalLevel, z as capacityMaxRuns, A as searchSettingsOf } from './interleaved.js';
import { i as isSearchedCell } from './load.js';
import { s as selectCells } from './trace-replay.js';
import { g as formatNumber, i as runRecordFromRunFile } from './format.js';
import { I as InputError, t as toolVersion } from './version.js';
import { r as runCells, S as SessionCache, h as existingRunIndices } from './run-cells.js';
import { n as number, o as object, a as array, _ as _enum, l as literal, s as string } from './schemas.js';
import { rm, mkdir } from 'node:fs/promises';
import { v as esc, x as drawnLoadFigures, y as chartsDirName, z as slug, A as loadCurveChart, C as htmlPage } from './compare.js';

/** Loads rounded to 3 significant digits (integers for concurrency), so nearby proposals repeat a load. */
function roundLoad(load, integer = false) {
    if (integer)
        return Math.max(1, Math.round(load));
    const digits = 3 - Math.ceil(Math.log10(Math.abs(load)));
    const factor = 10 ** digits;
    return Math.round(load * factor) / factor;
}
/** count loads from min to max in geometric steps, rounded. */
function geometricLoads(min, max, count, integer = false) {
    if (count === 1)
        return [roundLoad(min, integer)];
    const loads = Array.from({ length: count }, (_, i) => roundLoad(min * (max / min) ** (i / (count - 1)), integer));
    return [...new Set(loads)];
}
function nextSearchStep(runs, objectives, settings) {
    const integer = settings.integer === true;
    if (runs.length === 0) {
        return {
            kind: "measure",
            loads: geometricLoads(settings.range.min, settings.range.max, settings.initialLoads, integer),
            reason: "first geometric pass over the range",
        };
    }
    const estimate = estimateCapacity(runs, objectives);
    const interval = capacityInterval(runs, objectives, {
        level: settings.level,
        ...(settings.seed === undefined ? {} : { seed: settings.seed }),
        ...(settings.resamples === undefined ? {} : { resamples: settings.resamples }),
    });
    const spent = runs.length;
    const stop = (reason, message) => ({
        kind: "stop",
        reason,
        message,
        estimate,
        interval,
    });
    const lowest = smallest(runs.map((run) => run.load));
    const highest = largest(runs.map((run) => run.load));
    if (estimate.bound === "below") {
        // Confirm at the lowest load with a second run before giving up on it.
        const atLowest = runs.filter((run) => run.load === lowest).length;
        if (atLowest < 2 && spent < settings.maxRuns)
            return { kind: "measure", loads: [lowest], reason: "confirming that the lowest load misses the SLOs" };
        return stop("below-range", `no load measured meets the SLOs: ${estimate.limiting} is missed already at the lowest load, ${lowest} ${lowest > settings.range.min ? `(the lowest with usable runs; capacity.range.min is ${settings.range.min})` : "(capacity.range.min)"}; lower range.min or relax the SLO`);
    }
    if (estimate.bound === "above") {
        const atHighest = runs.filter((run) => run.load === highest).length;
        if (atHighest < 2 && spent < settings.maxRuns)
            return { kind: "measure", loads: [highest], reason: "confirming that the highest load meets the SLOs" };
        return stop("above-range", `every load measured meets the SLOs, up to ${highest} ${highest < settings.range.max ? `(the highest with usable runs; capacity.range.max is ${settings.range.max})` : "(capacity.range.max)"}: the capacity is at least that; raise range.max`);
    }
    const c = estimate.capacity;
    // Both the noise (the interval) and the grid (the loads either side of the crossing, between which the
    // fit interpolates) must be within the precision.
    const bracketWidth = estimate.bracket
        ? estimate.bracket[1] - estimate.bracket[0]
        : Number.POSITIVE_INFINITY;
    if (interval !== null &&
        interval.censored === 0 &&
        (interval.high - interval.low) / c <= settings.precision &&
        bracketWidth / c <= settings.precision * 1.5 &&
        spent >= (settings.minRuns ?? 0))
        return stop("precise", `interval ${fmt(interval.low)} to ${fmt(interval.high)} is within ${Math.round(settings.precision * 100)}% of the capacity ${fmt(c)}`);
    if (spent >= settings.maxRuns)
        return stop("budget", `repeats.max (${settings.maxRuns} runs) spent before the interval reached the precision`);
    const half = settings.precision / 2;
    const clamp = (x) => Math.min(settings.range.max, Math.max(settings.range.min, x));
    // Two runs at the estimate: a replicated load near the knee is where the run-to-run noise matters.
    const proposals = [c * (1 - half), c, c, c * (1 + half)].map((x) => roundLoad(clamp(x), integer));
    const loads = proposals.slice(0, Math.max(1, settings.maxRuns - spent));
    return { kind: "measure", loads, reason: `refining around the estimate ${fmt(c)}` };
}
function fmt(value) {
    return Number(value.toPrecision(3)).toString();
}

/**
 * Load sweeps and capacity searches (docs/capacity.md): one cell measured at several loads, one run per
 * load asked for, all in the cell's directory (DIR/<cell>/run-<k>/, numbered on) with the load each ran at
 * in run.json (`load.targetRate` or `load.targetConcurrency`). The loads come from the caller: a fixed list
 * for a sweep, or a planner that looks at the runs so far (the capacity search). Runs reuse the cell's
 * server (per-cell lifecycle) across loads, as runCells does across runs.
 */
/** The cell with its load dimension set to `load`: the rate (max_concurrency kept) or the concurrency. */
function cellAtLoad(cell, load) {
    switch (cell.load.type) {
        case "rate":
            return { ...cell, load: { ...cell.load, rate: load } };
        case "concurrency":
            return { ...cell, load: { ...cell.load, concurrency: Math.max(1, Math.round(load)) } };
        case "stages":
            throw new InputError(`cells[${cell.name}].load.type: expected rate or concurrency for a sweep or capacity search (the load dimension searched), got stages`);
    }
}
/** The loads of a sweep form, ascending, each `runs` times (runs of one load back to back). */
function sweepLoads(sweep, integer) {
    const round = (x) => (integer ? Math.max(1, Math.round(x)) : Number(x.toPrecision(3)));
    const loads = "loads" in sweep
        ? [...new Set(sweep.loads.map(round))].sort((a, b) => a - b)
        : [
            ...new Set(Array.from({ length: sweep.count }, (_, i) => round(sweep.from * (sweep.to / sweep.from) ** (i / (sweep.count - 1))))),
        ].sort((a, b) => a - b);
    return loads.flatMap((load) => new Array(sweep.runs).fill(load));
}
/** Measures the loads `next` asks for until it returns null or the run is interrupted. */
async function runLoadSearch(options) {
    const { cell, next, firstRun, ...rest } = options;
    const sessions = new SessionCache();
    const runs = [];
    const aborted = () => options.signal?.aborted === true || options.shouldAbort?.() === true;
    try {
        for (let loads = next(runs); loads !== null && loads.length > 0; loads = next(runs)) {
            for (const load of loads) {
                if (aborted())
                    return { runs, stoppedBecause: "aborted" };
                const atLoad = cellAtLoad(cell, load);
                const index = firstRun + runs.length;
                options.progress?.message(`${cell.name}: load ${load} (${cell.load.type})`);
                const result = await runCells({
                    ...rest,
                    config: { ...options.config, cells: [atLoad] },
                    runs: 1,
                    firstRunByCell: { [cell.name]: index },
                    sessions,
                });
                runs.push(...result.runs);
                if (result.runs.length === 0)
                    return { runs, stoppedBecause: "aborted" };
            }
        }
        return { runs, stoppedBecause: aborted() ? "aborted" : "done" };
    }
    finally {
        await sessions.close();
    }
}

/**
 * `DIR/<cell>/curve.json` (docs/capacity.md): the load curve of a sweep or capacity search, one row per
 * load measured, each figure the mean over that load's runs (usable or not: the flags say which were
 * client-bound or cut short), so the knee can be read and plotted without opening every run.json.
 */
const curveFileSchemaVersion = 1;
const value = number().nullable();
const percentiles = object({ p50: value, p95: value, p99: value });
const curveFileSchema = object({
    schemaVersion: literal(curveFileSchemaVersion),
    cell: string(),
    dimension: _enum(["rate", "concurrency"]),
    points: array(object({
        load: number(),
        runs: array(number().int()).describe("Run indices (run-<k>) at this load."),
        offeredRate: value.describe("Requests/s asked for (rate loads)."),
        achievedRate: number().describe("Requests/s sent."),
        concurrencyMean: number().describe("Requests in flight on average (effective concurrency)."),
        completedPerSecond: number(),
        goodput: value.describe("Requests/s meeting the cell's slo; null without one."),
        outputTokensPerSecond: number(),
        ttftMs: percentiles,
        tpotMs: percentiles,
        itlMs: percentiles,
        e2elMs: percentiles,
        queueP95Ms: value.describe("Client-side wait for a concurrency slot."),
        preemptions: value,
        kvCacheUsageMax: value,
        errorRate: number().describe("Failed / total requests."),
        flaggedRuns: number()
            .int()
            .describe("Runs at this load that were client-bound, cut short or unusable."),
    })),
});
const meanOf = (values) => {
    const present = values.filter((v) => v !== null && Number.isFinite(v));
    return present.length === 0 ? null : present.reduce((sum, v) => sum + v, 0) / present.length;
};
/** The curve of one cell's runs (their load from run.json), rows ascending by load. */
function curveOf(cell, runs) {
    const dimension = runs.some((run) => run.load.type === "concurrency") ? "concurrency" : "rate";
    const byLoad = new Map();
    for (const run of runs) {
        const load = dimension === "concurrency" ? run.load.targetConcurrency : run.load.targetRate;
        if (load === null)
            continue;
        byLoad.set(load, [...(byLoad.get(load) ?? []), run]);
    }
    const points = [...byLoad.entries()]
        .sort(([a], [b]) => a - b)
        .map(([load, files]) => {
        const m = (pick) => meanOf(files.map(pick));
        const phase = (name) => ({
            p50: m((run) => run.latency[name].p50),
            p95: m((run) => run.latency[name].p95),
            p99: m((run) => run.latency[name].p99),
        });
        return {
            load,
            runs: files.map((run) => run.run),
            offeredRate: m((run) => run.load.targetRate),
            achievedRate: m((run) => run.load.achievedRate) ?? 0,
            concurrencyMean: m((run) => run.load.achievedConcurrencyMean) ?? 0,
            completedPerSecond: m((run) => run.throughput.request) ?? 0,
            goodput: m((run) => run.throughput.goodput),
            outputTokensPerSecond: m((run) => run.throughput.output) ?? 0,
            ttftMs: phase("ttft"),
            tpotMs: phase("tpot"),
            itlMs: phase("itl"),
            e2elMs: phase("e2el"),
            queueP95Ms: m((run) => run.latency.queue.p95),
            preemptions: m((run) => run.server?.preemptions ?? null),
            kvCacheUsageMax: m((run) => run.server?.kv_cache_usage_max ?? null),
            errorRate: m((run) => (run.requests.total > 0 ? run.requests.failed / run.requests.total : 0)) ?? 0,
            flaggedRuns: files.filter((run) => run.flags.clientBound ||
                run.flags.serverStarved === true ||
                run.flags.cutShort ||
                run.flags.serverCrashed ||
                (run.flags.unusableReasons ?? []).length > 0).length,
        };
    });
    return curveFileSchema.parse({ schemaVersion: curveFileSchemaVersion, cell, dimension, points });
}
/** Every readable run-<k>/run.json of a cell directory, in directory order. */
function readCellRunFiles(cellDir) {
    return readdirSync(cellDir)
        .filter((name) => /^run-\d+$/.test(name))
        .flatMap((name) => {
        const path = join(cellDir, name, "run.json");
        try {
            return [{ file: runFileSchema.parse(JSON.parse(readFileSync(path, "utf8"))), path }];
        }
        catch {
            return []; // A run without a readable run.json (cut off before writing it) has no point.
        }
    });
}
/**
 * Writes DIR/<cell>/curve.json from every run-<k>/run.json of the cell directory (runs added with
 * --append included); returns its path.
 */
function writeCurveOfDir(cellDir, cell, outbound) {
    const runs = readCellRunFiles(cellDir).map((run) => run.file);
    const path = join(cellDir, "curve.json");
    outbound.writeFileSync(path, `${JSON.stringify(curveOf(cell, runs), null, 2)}\n`);
    return path;
}

const columns = [
    { figure: "completedPerSecond", head: () => "Completed req/s" },
    { figure: "goodput", head: () => "Goodput req/s" },
    { figure: "ttftMs", head: (p) => `TTFT ${p} (ms)` },
    { figure: "e2elMs", head: (p) => `E2E ${p} (ms)` },
    { figure: "outputTokensPerSecond", head: () => "Output tok/s" },
];
function pointsTable(picture) {
    const points = picture.series[0]?.points ?? [];
    if (points.length === 0)
        return "<p><em>No usable run with a load: nothing to draw.</em></p>";
    const unit = picture.dimension === "concurrency" ? "Concurrency" : "Rate (req/s)";
    const head = [unit, "Runs", ...columns.map((c) => c.head(picture.percentile))];
    const rows = points.map((p) => [
        formatNumber(p.load),
        String(p.runs),
        ...columns.map((c) => (p[c.figure] === null ? "–" : formatNumber(p[c.figure]))),
    ]
        .map((cell) => `<td>${esc(cell)}</td>`)
        .join(""));
    return [
        `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>`,
        ...rows.map((row) => `<tr>${row}</tr>`),
        "</tbody></table>",
    ].join("\n");
}
async function renderLoadReport(input) {
    const { picture } = input;
    const charts = [];
    const kind = input.capacityWords === null ? "load sweep" : "capacity search";
    const slo = [
        ...(picture.slo.ttft_ms === undefined
            ? []
            : [`TTFT ${picture.percentile} ≤ ${formatNumber(picture.slo.ttft_ms)} ms`]),
        ...(picture.slo.e2el_ms === undefined
            ? []
            : [`E2E ${picture.percentile} ≤ ${formatNumber(picture.slo.e2el_ms)} ms`]),
    ];
    const body = [
        `<h1>vllm-perf-gate: ${esc(kind)} of cell ${esc(picture.cell, 120)}</h1>`,
        `<p class="headline">${input.runs} run${input.runs === 1 ? "" : "s"} at ${picture.series[0]?.points.length ?? 0} load${picture.series[0]?.points.length === 1 ? "" : "s"} (${picture.dimension === "concurrency" ? "requests in flight" : "requests/s offered"}); each point is the mean over the usable runs at that load, latencies at ${esc(picture.percentile, 8)}.</p>`,
        input.capacityWords === null
            ? '<p class="note">A load sweep: no capacity point (a capacity cell searches one; docs/capacity.md).</p>'
            : `<p>${esc(input.capacityWords, 600)}</p>`,
        slo.length > 0 ? `<p class="note">SLO lines (the cell's slo): ${esc(slo.join(", "), 300)}.</p>` : "",
        input.leftOut > 0
            ? `<p class="note">${input.leftOut} run${input.leftOut === 1 ? " was" : "s were"} left out of the curve (client-bound, cut short, interrupted or otherwise unusable; curve.json's flaggedRuns counts them per load).</p>`
            : "",
        "<h2>Load curve</h2>",
        pointsTable(picture),
    ];
    const figures = drawnLoadFigures(picture);
    if (figures.length > 0)
        body.push("<h2>Charts</h2>", '<div class="charts">');
    for (const figure of figures) {
        const path = `${chartsDirName}/${slug(picture.cell)}-load-${slug(figure)}.svg`;
        // Rendered once per form, one after the other: the renderer's id counters are global.
        charts.push({ path, svg: `${await loadCurveChart(picture, figure, { standalone: true })}\n` });
        body.push(`<figure>${await loadCurveChart(picture, figure)}<figcaption>${esc(path)}</figcaption></figure>`);
    }
    if (figures.length > 0)
        body.push("</div>");
    body.push(`<p class="note">vllm-perf-gate ${esc(input.toolVersion, 40)} · curve.json beside this page holds more figures per load (its means include flagged runs) · the same charts are SVG files in ${chartsDirName}/ (drawn with Vega-Lite; each mark's value is in its accessible label) · compare two sweeps for both sides' curves in one chart (docs/compare.md).</p>`);
    return { html: htmlPage(`vllm-perf-gate: ${kind} of ${picture.cell}`, body), charts };
}

/**
 * `run --sweep`'s picture of one side (docs/capacity.md): `DIR/<cell>/report.html` and
 * `DIR/<cell>/report-charts/*.svg` (replaced whole) beside curve.json, drawn from every run of the cell
 * directory with compare's definitions: the curve of the usable runs (compare/capacity/load-curve.ts) and,
 * for a capacity cell, the capacity estimate and its interval as compare computes them for a side
 * (compare/capacity/capacity.ts, stats/capacity.ts). Its files are written through the job's output seam.
 */
async function writeSweepReport(cellDir, cell, confidence, outbound) {
    const records = readCellRunFiles(cellDir).map(({ file, path }) => runRecordFromRunFile(file, path));
    const dimension = cell.load.type === "concurrency" ? "concurrency" : "rate";
    const percentile = cell.capacity?.percentile ?? "p95";
    const points = loadCurveOf(cell.name, dimension, percentile, records);
    let capacity = null;
    let capacityWords = null;
    if (cell.capacity !== undefined) {
        const capacityCell = cell;
        const runs = capacityRunsOf(capacityCell, records);
        const objectives = capacityObjectivesOf(capacityCell);
        if (runs.length === 0)
            capacityWords = "Capacity search: no usable run with a load, so no capacity.";
        else {
            const estimate = estimateCapacity(runs, objectives);
            const level = intervalLevel(confidence);
            const interval = capacityInterval(runs, objectives, { level, seed: 1000 });
            capacity = { load: estimate.capacity, bound: estimate.bound };
            const bound = estimate.bound === "above"
                ? "every load measured meets the SLOs: capacity at least "
                : estimate.bound === "below"
                    ? "no load measured meets the SLOs: capacity below "
                    : "capacity ";
            capacityWords = `Capacity search: ${bound}${formatNumber(estimate.capacity)}${estimate.limiting ? ` (limited by ${estimate.limiting})` : ""}${interval ? `, ${Math.round(level * 100)}% interval ${formatNumber(interval.low)} to ${formatNumber(interval.high)}` : ", no interval (no load measured twice)"}; the dashed line marks it.`;
        }
    }
    const slo = cell.slo ?? {};
    const report = await renderLoadReport({
        picture: {
            cell: cell.name,
            dimension,
            percentile,
            slo: {
                ...(slo.ttft_ms === undefined ? {} : { ttft_ms: slo.ttft_ms }),
                ...(slo.e2el_ms === undefined ? {} : { e2el_ms: slo.e2el_ms }),
            },
            kind: cell.capacity === undefined ? "sweep" : "capacity",
            series: [{ side: "measured", points, capacity }],
        },
        runs: records.length,
        leftOut: records.length - points.reduce((sum, p) => sum + p.runs, 0),
        capacityWords,
        toolVersion,
    });
    await rm(join(cellDir, chartsDirName), { recursive: true, force: true });
    for (const chart of report.charts) {
        const path = join(cellDir, chart.path);
        await mkdir(dirname(path), { recursive: true });
        await outbound.writeFile(path, chart.svg);
    }
    const htmlPath = join(cellDir, "report.html");
    await outbound.writeFile(htmlPath, report.html);
    return htmlPath;
}

/**
 * `run --sweep` (docs/capacity.md): each selected cell measured over loads instead of N times at its one
 * load. A capacity cell is searched (stats/capacity-plan.ts plans the loads from the runs so far, at most
 * repeats.max runs); a cell with `sweep` measures its list or geometric series. The loop is
 * app/sweep.ts, the plan stats/, the reading of runs compare/capacity/capacity.ts.
 */
async function runSweepCells(options) {
    const cells = selectCells(options.config, options.cells);
    for (const cell of cells) {
        if (!isSearchedCell(cell))
            throw new InputError(`--sweep: cell "${cell.name}" has neither capacity nor sweep (docs/capacity.md); select cells with --cells or add one`);
    }
    const runs = [];
    for (const cell of cells) {
        if (options.signal?.aborted)
            break;
        const firstRun = options.firstRunByCell?.[cell.name] ?? options.firstRun ?? 0;
        const next = cell.capacity !== undefined
            ? capacitySearch(options, cell, firstRun)
            : fixedSweep(cell.sweep, cell.load.type === "concurrency");
        const result = await runLoadSearch({ ...options, cell, firstRun, next });
        runs.push(...result.runs);
        if (result.runs.length > 0)
            await writeCellCurve(options, cell);
        if (result.stoppedBecause === "aborted")
            break;
    }
    return { runs };
}
/** A cell with `sweep`: its list or geometric series, once. */
function fixedSweep(sweep, concurrency) {
    const loads = sweepLoads(sweep, concurrency);
    return (outputs) => (outputs.length === 0 ? loads : null);
}
/**
 * A capacity cell's search: each step planned from every run so far (with `--append`, the runs already
 * in the cell's directory too: an interrupted search resumed, counted against repeats.max), said as it goes.
 */
function capacitySearch(options, cell, firstRun) {
    const progress = options.progress;
    const targetRuns = options.targetRuns === "capacity.max_runs"
        ? capacityMaxRuns(options.config.repeats.max, cell)
        : options.targetRuns;
    const settings = searchSettingsOf(options.config, cell, targetRuns);
    const earlier = firstRun > 0 ? existingRecords(join(options.outDir, cell.name)) : [];
    if (earlier.length > 0)
        progress?.message(`${cell.name}: capacity search resumes from ${earlier.length} run(s) already in the directory`);
    return (outputs) => {
        const records = [...earlier, ...outputs.map((output) => runRecordFromRunFile(output.file, output.dir))];
        if (records.length >= settings.maxRuns) {
            progress?.message(`${cell.name}: capacity search stopped at ${targetRuns === undefined ? "repeats.max" : options.targetRuns === "capacity.max_runs" ? "capacity.max_runs," : "the look's"} ${settings.maxRuns} runs`);
            return null;
        }
        const step = capacitySearchStep(cell, records, settings);
        if (step.kind === "measure") {
            progress?.message(`${cell.name}: capacity search: ${step.reason}: loads ${step.loads.join(", ")}`);
            return step.loads;
        }
        const found = step.estimate;
        const interval = step.interval;
        progress?.message(`${cell.name}: capacity search done (${step.reason}): ${step.message}` +
            (found && found.bound === "inside"
                ? `; capacity ${found.capacity.toPrecision(3)} (${found.limiting})${interval ? `, ${Math.round(interval.level * 100)}% interval ${interval.low.toPrecision(3)} to ${interval.high.toPrecision(3)}` : ""}`
                : ""));
        if (step.reason === "below-range" || step.reason === "above-range")
            progress?.message(`warning: ${cell.name}: ${step.message}`);
        return null;
    };
}
/** The cell's load curve (curve.json) and its charts (report.html), once it has runs. */
async function writeCellCurve(options, cell) {
    const progress = options.progress;
    const cellDir = join(options.outDir, cell.name);
    const curve = writeCurveOfDir(cellDir, cell.name, options.outbound);
    progress?.message(`${cell.name}: load curve written to ${curve}`);
    // The picture never fails a sweep whose runs are on disk: a drawing error is said and the sweep goes on.
    try {
        const report = await writeSweepReport(cellDir, cell, options.config.gate.confidence, options.outbound);
        progress?.message(`${cell.name}: its charts written to ${report} (and report-charts/*.svg beside it)`);
    }
    catch (error) {
        progress?.message(`warning: ${cell.name}: report.html not written (${error instanceof Error ? error.message : String(error)}); the runs and curve.json are kept`);
    }
}
/**
 * The search's next step from every run of the cell so far (excluded runs are not used but count
 * against the budget): the one place `run --sweep`, the gate's later looks and bench/capacity.ts plan
 * a capacity search.
 */
function capacitySearchStep(cell, records, settings) {
    const usable = capacityRunsOf(cell, records);
    return nextSearchStep(usable, capacityObjectivesOf(cell), {
        ...settings,
        maxRuns: settings.maxRuns - (records.length - usable.length),
    });
}
/** The runs of a cell directory (run-<k>/run.json) as records; unreadable ones are skipped. */
function existingRecords(cellDir) {
    return existingRunIndices(cellDir)
        .sort((a, b) => a - b)
        .flatMap((index) => {
        const path = join(cellDir, `run-${index}`, "run.json");
        try {
            return [runRecordFromRunFile(runFileSchema.parse(JSON.parse(readFileSync(path, "utf8"))), path)];
        }
        catch {
            return [];
        }
    });
}

export { runSweepCells as r };
