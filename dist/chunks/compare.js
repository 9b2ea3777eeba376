import { stat, readFile, mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { B as scrapeSeries, C as requestRecordSchema, D as requestLatencies, E as answerLatencies, F as depthBuckets, G as sortNumbers, H as percentileSorted, u as largest, t as smallest, I as alternationWords, J as table, K as fold, L as Footnotes, M as detectionLine, N as checkMatrix, O as valuesOnBothSides, P as withinToleranceFold, Q as acceptanceSection, R as perCellDetails, S as tallyOf, T as metricVerdictLabel, U as powerAtChange, V as minimumDetectableChange, b as summarizeConfig, W as sessionEstimate, X as noisiestGatedFamily, Y as startedServers, j as serverStartSeconds, i as alternation, Z as serverStartsPerCell, h as baselineRunsPerStart, _ as alternatingBlocks, $ as calibratedNoiseByFamily, a0 as withConfigStartPrior, a1 as repeatsBlockOf, s as settingsFromConfig, a2 as parseCalibrationFile, a3 as defaultCompareSettings, a4 as loadSides, l as loadRuns, a5 as calibrationPriorOrigin, a6 as calibrationPriors, a7 as calibrationStartPriors, a8 as calibrationRunPriors, a9 as pooledStartPriors, aa as compareRecords, k as defaultInputLimits } from './interleaved.js';
import { o as flattenFingerprint, q as escapeHtml, t as formatFractionAsPercent, u as formatMetricValue, g as formatNumber, l as formatChange, n as formatInterval, j as inlineCode, v as escapeCell, k as escapeInline, w as formatP, x as slowestUsers, y as formatSignedNumber, z as formatDuration, A as formatIntervalOneLine, B as formatValuePair, C as noBreakSpace, D as nonZeroCounts, E as describeMetricRef, F as escapeValue, G as logRatioOf, H as toleranceMargin, I as studentTQuantile, J as normalCdf, K as normalQuantile, b as conditionsHash, L as historyStartPriors } from './format.js';
import { l as latencyPhases, m as metricSpecs, a as latencyPhaseLabel, d as describeMetric, i as isMetricName, b as latencyStatisticSpec } from './metric-names.js';
import { o as object, n as number, r as record, s as string, a as array } from './schemas.js';
import { I as InputError } from './version.js';
import { i as isSearchedCell, f as serverLifecycle, c as configLimits, b as serverKindFacts } from './load.js';

/**
 * Reads what the report's distribution and timeline charts need from each used run's directory:
 * `requests.jsonl` (per-request latencies and when they happened) and `scrapes.jsonl` (the /metrics
 * samples). Only runs compare used, only `run.json` inputs (a `vllm bench serve` file has no such
 * neighbours). A file over a limit, unreadable or with invalid lines is skipped or partly read and said
 * in a note: a picture never fails a comparison.
 */
/** Largest requests.jsonl or scrapes.jsonl read for the charts. */
const maxSampleFileBytes = 64 * 1024 * 1024;
/** All sample files of one comparison together. */
const maxSampleTotalBytes = 512 * 1024 * 1024;
async function readLimited(file, budget) {
    let size;
    try {
        size = (await stat(file)).size;
    }
    catch {
        return null;
    }
    if (size > maxSampleFileBytes)
        return { skipped: `${basename(file)} is over the ${maxSampleFileBytes / 1024 / 1024} MiB chart limit` };
    if (budget.bytes + size > maxSampleTotalBytes)
        return {
            skipped: `the sample files together are over the ${maxSampleTotalBytes / 1024 / 1024} MiB chart limit`,
        };
    budget.bytes += size;
    try {
        return { text: await readFile(file, "utf8") };
    }
    catch (error) {
        return {
            skipped: `${basename(file)} could not be read (${error.code ?? error})`,
        };
    }
}
function parseRequests(text, into) {
    for (const line of text.split("\n")) {
        if (line.trim() === "")
            continue;
        let json;
        try {
            json = JSON.parse(line);
        }
        catch {
            into.skippedLines++;
            continue;
        }
        const parsed = requestRecordSchema.safeParse(json);
        if (!parsed.success) {
            into.skippedLines++;
            continue;
        }
        const record = parsed.data;
        if (record.phase !== "measure")
            continue;
        const latencies = requestLatencies(record);
        if (latencies === null) {
            into.failedAt.push(record.endMs);
            continue;
        }
        into.ttft.push(latencies.ttft);
        into.ttftAt.push(record.sentMs + latencies.ttft);
        into.e2el.push(latencies.e2el);
        if (latencies.tpot !== null)
            into.tpot.push(latencies.tpot);
        const answer = answerLatencies(record);
        if (answer !== null) {
            if (answer.ttft !== null)
                into.answer_ttft.push(answer.ttft);
            for (const gap of answer.itl)
                into.answer_itl.push(gap);
        }
        const chunks = record.chunksUs;
        for (let i = 1; i < chunks.length; i++) {
            into.itl.push((chunks[i] - chunks[i - 1]) / 1000);
            into.itlAt.push(record.sentMs + chunks[i] / 1000);
        }
    }
}
function parseScrapes(text) {
    const scrapes = [];
    for (const line of text.split("\n")) {
        if (line.trim() === "")
            continue;
        try {
            const json = JSON.parse(line);
            if (typeof json.atMs !== "number" || !Number.isFinite(json.atMs))
                continue;
            scrapes.push({
                phase: json.phase === "before" || json.phase === "after" ? json.phase : "during",
                atMs: json.atMs,
                status: typeof json.status === "number" ? json.status : null,
                text: typeof json.text === "string" ? json.text : null,
                error: null,
            });
        }
        catch {
            // A torn last line (a crash mid-write) or a foreign line: the scrape is left out.
        }
    }
    return scrapes;
}
/** The samples of every used run of the comparison that was read from a run.json. */
async function loadRunSamples(verdict, runs, 
/** A text from a run record as the verdict holds it (cleaned of secrets before it was rendered). */
asInVerdict) {
    const used = new Set(verdict.runs.used.map((r) => JSON.stringify([r.side, r.cell, r.run, r.source])));
    const budget = { bytes: 0 };
    const samples = [];
    const notes = [];
    for (const side of ["baseline", "candidate"]) {
        for (const record of runs[side]) {
            const cell = asInVerdict(record.cell);
            if (!used.has(JSON.stringify([side, cell, record.run, asInVerdict(record.source)])))
                continue;
            if (basename(record.source) !== "run.json")
                continue;
            const dir = dirname(record.source);
            const requests = await readLimited(join(dir, "requests.jsonl"), budget);
            if (requests === null)
                continue;
            if ("skipped" in requests) {
                notes.push({
                    cell,
                    note: `${side} run-${record.run ?? "?"}: ${requests.skipped}; its requests are not drawn.`,
                });
                continue;
            }
            const entry = {
                side,
                cell: record.cell,
                run: record.run,
                source: record.source,
                ttft: [],
                tpot: [],
                e2el: [],
                itl: [],
                answer_ttft: [],
                answer_itl: [],
                ttftAt: [],
                itlAt: [],
                failedAt: [],
                scrapes: [],
                skippedLines: 0,
            };
            parseRequests(requests.text, entry);
            const scrapes = await readLimited(join(dir, "scrapes.jsonl"), budget);
            if (scrapes !== null && "text" in scrapes)
                entry.scrapes = scrapeSeries(parseScrapes(scrapes.text));
            else if (scrapes !== null)
                notes.push({
                    cell,
                    note: `${side} run-${record.run ?? "?"}: ${scrapes.skipped}; its scrapes are not drawn.`,
                });
            if (entry.skippedLines > 0)
                notes.push({
                    cell,
                    note: `${side} run-${record.run ?? "?"}: ${entry.skippedLines} line(s) of requests.jsonl were not valid records and are not drawn.`,
                });
            samples.push(entry);
        }
    }
    return { samples, notes };
}

const sideNames = ["baseline", "candidate"];
/** A capacity check's load curves (null when the verdict carries none: older verdicts). */
function capacityLoadPicture(check) {
    const curve = check.curve;
    if (!curve)
        return null;
    return {
        cell: check.cell,
        dimension: check.dimension,
        percentile: check.percentile,
        slo: check.slo,
        kind: "capacity",
        series: sideNames.map((side) => ({
            side,
            points: curve[side],
            capacity: check[side].capacity === null ? null : { load: check[side].capacity, bound: check[side].bound },
        })),
    };
}
/** A sweep's load curves, no capacity point on either side. */
function sweepLoadPicture(sweep) {
    return {
        cell: sweep.cell,
        dimension: sweep.dimension,
        percentile: sweep.percentile,
        slo: sweep.slo,
        kind: "sweep",
        series: sideNames.map((side) => ({ side, points: sweep.curve[side], capacity: null })),
    };
}
/** The load picture of a cell of the report: its capacity check's, else its sweep's, else null. */
function cellLoadPicture(cell) {
    if (cell.capacity)
        return capacityLoadPicture(cell.capacity);
    return cell.sweep ? sweepLoadPicture(cell.sweep) : null;
}
/** Most points one distribution curve is drawn with. */
const maxDistributionPoints = 200;
/** Most TTFT dots one timeline draws (every k-th request beyond that). */
const maxTimelineDots = 1500;
/** Time bins of the ITL lines in a timeline. */
const timelineBins = 60;
/** The cumulative distribution of `values`, at evenly spaced fractions plus the far tail. */
function distributionOf(values) {
    const finite = values.filter((v) => Number.isFinite(v) && v >= 0);
    if (finite.length === 0)
        return null;
    const sorted = sortNumbers(finite);
    const n = sorted.length;
    const fractions = new Set();
    const steps = Math.min(maxDistributionPoints - 8, n);
    for (let i = 0; i <= steps; i++)
        fractions.add(i / steps);
    for (const tail of [0.9, 0.95, 0.98, 0.99, 0.995, 0.999])
        fractions.add(tail);
    const points = [...fractions]
        .sort((a, b) => a - b)
        .map((q) => [percentileSorted(sorted, q), q]);
    return {
        count: n,
        points,
        p50: percentileSorted(sorted, 0.5),
        p95: percentileSorted(sorted, 0.95),
        p99: percentileSorted(sorted, 0.99),
    };
}
const runKey = (side, cell, run, source) => JSON.stringify([side, cell, run, source]);
/** Run records are matched to the verdict (cleaned of secrets before rendering) through `asInVerdict`. */
function matchedRecords(verdict, runs, asInVerdict) {
    const used = new Set(verdict.runs.used.map((r) => runKey(r.side, r.cell, r.run, r.source)));
    return [
        ...runs.baseline.map((record) => ({ side: "baseline", record })),
        ...runs.candidate.map((record) => ({ side: "candidate", record })),
    ].map(({ side, record }) => ({
        side,
        record,
        cell: asInVerdict(record.cell),
        used: used.has(runKey(side, asInVerdict(record.cell), record.run, asInVerdict(record.source))),
    }));
}
/** Every run of a cell with a finite value of `metric`, baseline first, each side in run order. */
function runValuesOf(records, cell, metric) {
    const values = [];
    for (const entry of records) {
        if (entry.cell !== cell)
            continue;
        const value = entry.record.metrics[metric];
        if (value === null || value === undefined || !Number.isFinite(value))
            continue;
        values.push({ side: entry.side, run: entry.record.run, value, used: entry.used });
    }
    values.sort((a, b) => (a.side === b.side ? (a.run ?? -1) - (b.run ?? -1) : a.side < b.side ? -1 : 1));
    return values;
}
/**
 * Every run of both sides, per gated check: the value compare judged (`judgedOn` when the metric was
 * stood in for), used or excluded as the verdict says.
 */
function checkPictures(verdict, runs, asInVerdict) {
    const records = matchedRecords(verdict, runs, asInVerdict);
    return verdict.comparisons
        .filter((c) => c.gated)
        .map((comparison) => ({
        comparison,
        runs: runValuesOf(records, comparison.cell, comparison.judgedOn ?? comparison.metric),
    }));
}
/** The catalogue metric of a depth bucket's TTFT p95 (config/metric-names.ts). */
const depthMetric = (bucket) => `ttft_p95_depth_${bucket}`;
/** The depth buckets in order with their labels: the turn numbers each holds (1-based). */
const depthAxis = depthBuckets.map((bucket) => ({
    bucket: bucket.name,
    label: bucket.to === null
        ? `${bucket.from} and up`
        : bucket.to === bucket.from
            ? `${bucket.from}`
            : `${bucket.from}-${bucket.to}`,
}));
/**
 * A cell's TTFT p95 against context depth, or null when no run of it has a depth value (not a session
 * cell). The means are the verdict's comparisons of the depth metrics: what compare judged.
 */
function depthPicture(verdict, records, cell) {
    const runs = depthAxis.flatMap(({ bucket }) => runValuesOf(records, cell, depthMetric(bucket)).map((run) => ({ ...run, bucket })));
    if (runs.length === 0)
        return null;
    const buckets = depthAxis.filter(({ bucket }) => runs.some((run) => run.bucket === bucket));
    const means = sideNames.flatMap((side) => buckets.map(({ bucket }) => {
        const comparison = verdict.comparisons.find((c) => c.cell === cell && c.metric === depthMetric(bucket));
        const value = comparison?.[side] ?? null;
        return { side, bucket, value: value !== null && Number.isFinite(value) ? value : null };
    }));
    return { cell, buckets, runs, means };
}
function pooled(samples, phase) {
    const out = [];
    for (const s of samples)
        for (const v of s[phase])
            out.push(v);
    return out;
}
/** One run's timeline: TTFT dots, binned ITL p50/p99, scrapes and the preemptions between them. */
function timelineOf(samples) {
    const stride = Math.max(1, Math.ceil(samples.ttft.length / maxTimelineDots));
    const ttft = [];
    for (let i = 0; i < samples.ttft.length; i += stride)
        ttft.push([samples.ttftAt[i], samples.ttft[i]]);
    ttft.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let endMs = 0;
    for (const at of [...samples.ttftAt, ...samples.itlAt, ...samples.failedAt])
        if (at > endMs)
            endMs = at;
    for (const scrape of samples.scrapes)
        if (scrape.atMs > endMs)
            endMs = scrape.atMs;
    const itl = [];
    if (samples.itl.length > 0 && endMs > 0) {
        const width = endMs / timelineBins;
        const bins = Array.from({ length: timelineBins }, () => []);
        for (let i = 0; i < samples.itl.length; i++) {
            const bin = Math.min(timelineBins - 1, Math.max(0, Math.floor(samples.itlAt[i] / width)));
            bins[bin].push(samples.itl[i]);
        }
        bins.forEach((values, i) => {
            if (values.length === 0)
                return;
            const sorted = sortNumbers(values);
            itl.push({
                fromMs: i * width,
                toMs: (i + 1) * width,
                p50: percentileSorted(sorted, 0.5),
                p99: percentileSorted(sorted, 0.99),
            });
        });
    }
    const scrapes = [...samples.scrapes].sort((a, b) => a.atMs - b.atMs);
    const preemptions = [];
    for (let i = 1; i < scrapes.length; i++) {
        const before = scrapes[i - 1].preemptionsTotal;
        const now = scrapes[i].preemptionsTotal;
        if (before !== null && now !== null && now > before)
            preemptions.push({ atMs: scrapes[i].atMs, added: now - before });
    }
    return {
        side: samples.side,
        run: samples.run,
        ttft,
        itl,
        failedAt: [...samples.failedAt].sort((a, b) => a - b),
        scrapes,
        preemptions,
        endMs,
    };
}
/**
 * The pictures of every cell of the verdict. Distributions pool the used runs of each side; the
 * timeline is the candidate's first used run with samples (the baseline's when the candidate has none).
 */
function reportPictures(verdict, runs, samples, asInVerdict, notes = []) {
    const checks = checkPictures(verdict, runs, asInVerdict);
    const records = matchedRecords(verdict, runs, asInVerdict);
    const sweeps = new Map((verdict.sweeps ?? []).map((sweep) => [sweep.cell, sweep]));
    const cells = verdict.cells.map((cell) => {
        const mine = samples
            .filter((s) => asInVerdict(s.cell) === cell.name)
            .sort((a, b) => (a.side === b.side ? (a.run ?? -1) - (b.run ?? -1) : a.side < b.side ? -1 : 1));
        const bySide = (side) => mine.filter((s) => s.side === side);
        const cellNotes = notes.filter((n) => n.cell === null || n.cell === cell.name).map((n) => n.note);
        const distributions = mine.length === 0
            ? []
            : latencyPhases.flatMap((phase) => {
                const baseline = pooled(bySide("baseline"), phase);
                const candidate = pooled(bySide("candidate"), phase);
                // A later phase (the answer after reasoning) exists only where requests reasoned: no empty chart.
                if (baseline.length === 0 && candidate.length === 0)
                    return [];
                return [{ phase, baseline: distributionOf(baseline), candidate: distributionOf(candidate) }];
            });
        if (mine.length === 0)
            cellNotes.push("No per-request records (requests.jsonl) next to the used runs: the distributions and the run timeline need results directories written by `run`.");
        const timelineRun = bySide("candidate").find((s) => s.ttft.length > 0) ?? bySide("baseline").find((s) => s.ttft.length > 0);
        const depth = depthPicture(verdict, records, cell.name);
        return {
            cell: cell.name,
            checks: checks.filter((c) => c.comparison.cell === cell.name),
            distributions,
            timeline: timelineRun ? timelineOf(timelineRun) : null,
            ...(sweeps.has(cell.name) ? { sweep: sweeps.get(cell.name) } : {}),
            ...(depth ? { depth } : {}),
            notes: cellNotes,
        };
    });
    // Capacity cells are compared apart from the fixed-load cells (compare/capacity/capacity.ts): their
    // pictures are the load curves the verdict carries.
    for (const check of verdict.capacity ?? []) {
        const existing = cells.find((cell) => cell.cell === check.cell);
        if (existing)
            existing.capacity = check;
        else
            cells.push({
                cell: check.cell,
                checks: [],
                distributions: [],
                timeline: null,
                capacity: check,
                notes: notes.filter((n) => n.cell === null || n.cell === check.cell).map((n) => n.note),
            });
    }
    return { verdict, cells };
}

/** The per-run values behind one side of a comparison: runs the verdict used, in this cell. */
function usedRunValues(verdict, runs, comparison, side) {
    if (!runs)
        return [];
    const used = new Set(verdict.runs.used
        .filter((ref) => ref.side === side && ref.cell === comparison.cell)
        .map((ref) => ref.source));
    return runs[side]
        .filter((run) => used.has(run.source))
        .map((run) => run.metrics[comparison.metric])
        .filter((value) => typeof value === "number" && Number.isFinite(value));
}
/** The model of one run, from its recorded conditions (as modelOf reads a side's). */
function runModelOf(run) {
    const fingerprint = flattenFingerprint(run.fingerprint);
    const name = fingerprint["model.name"] ?? fingerprint.model_id;
    return typeof name === "string" && name.length > 0 ? name : "unknown";
}
/** A run's metrics that have a finite value, in the order metricSpecs lists them. */
function finiteRunMetrics(run) {
    return Object.keys(metricSpecs).flatMap((metric) => {
        const value = run.metrics[metric];
        return typeof value === "number" && Number.isFinite(value)
            ? [[metric, value]]
            : [];
    });
}
/** The model of one side, from its recorded conditions (run.json's `model.name`, vLLM's `model_id`). */
function modelOf(verdict, side) {
    const fingerprint = verdict.fingerprints[side];
    const name = fingerprint["model.name"] ?? fingerprint.model_id;
    return typeof name === "string" && name.length > 0 ? name : "unknown";
}

/**
 * A comparison's candidate as Bencher Metric Format JSON (bencher.dev docs, reference/bencher-metric-format):
 * `{benchmark: {measure: {value, lower_value?, upper_value?}}}`. One benchmark per cell
 * (`vllm-perf-gate/<cell>`), one measure per metric (its name in kebab case with the unit, e.g.
 * `ttft-p95-ms`, at most 64 characters as Bencher's measure slugs). `value` is the candidate's geometric
 * mean over runs; `lower_value`/`upper_value` are the baseline times the ends of the decision interval
 * (the range of candidate values the interval allows), when there is one. Upload with
 * `bencher run --adapter json --file bencher.json`.
 */
const bencherMetricSchema = object({
    value: number().finite(),
    lower_value: number().finite().optional(),
    upper_value: number().finite().optional(),
})
    .strict();
const bencherReportSchema = record(string().min(1).max(1024), record(string().min(1).max(64), bencherMetricSchema));
/** Each unit's slug in a measure name; typed by the catalogue's units, so a new unit must name its slug. */
const unitSlug = {
    ms: "ms",
    "req/s": "req-s",
    "sessions/s": "sessions-s",
    "tok/s": "tok-s",
    fraction: "fraction",
    tokens: "tokens",
};
function bencherMeasure(metric) {
    return `${metric.replace(/_/g, "-")}-${unitSlug[metricSpecs[metric].unit]}`;
}
function bencherBenchmark(cell) {
    return `vllm-perf-gate/${cell}`;
}
/**
 * One run (`run --format bencher`) as Bencher Metric Format: the cell's benchmark with one measure per
 * metric, `value` the run's own value (no bounds: one run has no interval).
 */
function runToBencherReport(run) {
    const measures = {};
    for (const [metric, value] of finiteRunMetrics(run))
        measures[bencherMeasure(metric)] = { value };
    return bencherReportSchema.parse({ [bencherBenchmark(run.cell)]: measures });
}
function toBencherReport(verdict) {
    const report = {};
    for (const c of verdict.comparisons) {
        if (c.candidate === null || !Number.isFinite(c.candidate))
            continue;
        const metric = { value: c.candidate };
        if (c.ci && c.baseline !== null) {
            const [low, high] = [c.baseline * c.ci[0], c.baseline * c.ci[1]];
            if (Number.isFinite(low) && Number.isFinite(high)) {
                metric.lower_value = Math.min(low, high);
                metric.upper_value = Math.max(low, high);
            }
        }
        const benchmark = bencherBenchmark(c.cell);
        report[benchmark] = { ...report[benchmark], [bencherMeasure(c.metric)]: metric };
    }
    return bencherReportSchema.parse(report);
}
const bencherExport = {
    fileName: "bencher.json",
    ofComparison: (verdict) => toBencherReport(verdict),
    ofRun: (run) => runToBencherReport(run),
};

/**
 * A comparison as PyTorch OSS benchmark records (the "v3" shape), the format vLLM writes with
 * SAVE_TO_PYTORCH_BENCHMARK_FORMAT and the PyTorch HUD reads from the ClickHouse table
 * `oss_ci_benchmark_v3` (pytorch/test-infra clickhouse_db_schema/oss_ci_benchmark_v3/schema.sql). One
 * record per cell, metric and side: `metric.benchmark_values` holds the value of every run the verdict
 * used on that side (the schema's list "for multiple runs"), `extra_info` maps hold strings only (the
 * table's Map(String, String)). Job metadata (timestamp, repo, head_sha, workflow_id, ...) is added by
 * the uploader, as for vLLM's records, and is not written here.
 */
const stringMap = record(string(), string());
const pytorchRecordSchema = object({
    benchmark: object({ name: string(), mode: string(), dtype: string(), extra_info: stringMap })
        .strict(),
    model: object({
        name: string(),
        type: string(),
        backend: string(),
        origins: array(string()),
        extra_info: stringMap,
    })
        .strict(),
    metric: object({
        name: string(),
        benchmark_values: array(number().finite()).min(1),
        target_value: number().finite(),
        extra_info: stringMap,
    })
        .strict(),
})
    .strict();
const pytorchBenchmarkName = "vllm-perf-gate";
function text(value) {
    return value === null || value === undefined ? "" : String(value);
}
/** One record: the parts every record shares (benchmark name, mode, backend) and what differs. */
function pytorchRecord(parts) {
    return pytorchRecordSchema.parse({
        benchmark: { name: pytorchBenchmarkName, mode: "inference", dtype: "", extra_info: parts.benchmarkInfo },
        model: { name: parts.model, type: "", backend: "vllm", origins: [], extra_info: parts.modelInfo },
        metric: {
            name: parts.metric,
            benchmark_values: parts.values,
            target_value: 0,
            extra_info: parts.metricInfo,
        },
    });
}
/**
 * One run (`run --format pytorch`) as PyTorch OSS benchmark records: one record per metric with the
 * run's value as its one `benchmark_values` entry; `extra_info` names the cell, the run and its side.
 */
function runToPytorchRecords(run, info) {
    const revision = flattenFingerprint(run.fingerprint)["model.revision"];
    return finiteRunMetrics(run).map(([metric, value]) => pytorchRecord({
        benchmarkInfo: {
            cell: run.cell,
            run: text(run.run),
            ...(info.side ? { side: info.side } : {}),
            started_at: run.startedAt ?? "",
            tool_version: info.toolVersion,
        },
        model: runModelOf(run),
        modelInfo: typeof revision === "string" ? { revision } : {},
        metric,
        values: [value],
        metricInfo: {
            unit: metricSpecs[metric].unit,
            higher_is_better: String(metricSpecs[metric].higherIsBetter),
            requests_completed: String(run.requests.completed),
            requests_failed: String(run.requests.failed),
        },
    }));
}
function toPytorchRecords(verdict, runs) {
    const records = [];
    for (const c of verdict.comparisons) {
        for (const side of ["baseline", "candidate"]) {
            const mean = c[side];
            if (mean === null || !Number.isFinite(mean))
                continue;
            const perRun = usedRunValues(verdict, runs, c, side);
            const revision = verdict.fingerprints[side]["model.revision"];
            records.push(pytorchRecord({
                benchmarkInfo: {
                    cell: c.cell,
                    side,
                    comparison_mode: verdict.mode,
                    overall_verdict: verdict.verdict,
                    tool_version: verdict.tool.version,
                },
                model: modelOf(verdict, side),
                modelInfo: typeof revision === "string" ? { revision } : {},
                metric: c.metric,
                // Without the runs (a verdict read back), the side's geometric mean stands for them.
                values: perRun.length > 0 ? perRun : [mean],
                metricInfo: {
                    unit: metricSpecs[c.metric].unit,
                    higher_is_better: String(c.higherIsBetter),
                    geometric_mean: String(mean),
                    runs: String(c.runs[side]),
                    gated: String(c.gated),
                    ...(side === "candidate"
                        ? {
                            verdict: c.verdict,
                            change_ratio: text(c.ratio),
                            decision_interval_low: text(c.ci?.[0]),
                            decision_interval_high: text(c.ci?.[1]),
                            tolerance: String(c.tolerance),
                        }
                        : {}),
                },
            }));
        }
    }
    return records;
}
const pytorchExport = {
    fileName: "pytorch-benchmark.json",
    ofComparison: toPytorchRecords,
    ofRun: runToPytorchRecords,
};

/**
 * The dashboard export formats, one module each, registered here once: compare's and run's `--format`
 * accept these names, and each writes its module's file. A new format is its module (an `ExportFormat`)
 * and its line here.
 */
const exportFormats = {
    pytorch: pytorchExport,
    bencher: bencherExport,
};
/** Every export format's name, in the order of the registry. */
const exportFormatNames = Object.keys(exportFormats);
function isExportFormat(name) {
    return Object.hasOwn(exportFormats, name);
}

/**
 * Vega and Vega-Lite (about 4 MB of the bundle) are loaded on the first chart drawn, not with the
 * module: a command that draws no chart (`--version`, `validate`, `run`) never parses them.
 */
let libraries = null;
function chartLibraries() {
    libraries ??= Promise.all([import('./vega.module.js'), import('./build.js')]);
    return libraries;
}
/**
 * Renders a Vega-Lite spec to a static SVG string with Vega's headless renderer (`renderer: "none"`:
 * no DOM, no canvas, no browser; text widths are estimated). The charts' data goes in as inline values
 * only: the spec never names a URL, and Vega's loader is given none to fetch. Deterministic: no time,
 * no randomness in the specs, and the SVG renderer's id counters are reset before every chart (the
 * specs use no clip paths or gradients, so the output carries no ids at all; `assertNoIds` checks).
 *
 * Vega's SVG renderer escapes text content and attribute values itself (`&`, `<`, `>`, `"`); outside
 * strings reach the spec only as titles and data values, never as field names or expressions, and were
 * redacted before (compare redacts the verdict the pictures are drawn from).
 */
/** The look every chart shares: the page's font, white background, muted guides. */
const chartConfig = {
    background: "#ffffff",
    font: "system-ui, -apple-system, 'Segoe UI', sans-serif",
    padding: 8,
    view: { stroke: null },
    title: { anchor: "start", fontSize: 12, subtitleFontSize: 10, subtitleColor: "#555", offset: 8 },
    axis: { labelFontSize: 10, titleFontSize: 11, titleFontWeight: "normal", gridColor: "#e3e3e3" },
    legend: {
        labelFontSize: 10,
        titleFontSize: 10,
        orient: "bottom",
        direction: "horizontal",
        symbolOpacity: 1,
    },
};
/**
 * What every chart's spec shares: the schema, the house config, and its title (also its accessible name,
 * `description`) with the subtitle lines, both allowed `titleWidth` pixels; `body` is the rest.
 */
function chartSpec(title, subtitle, titleWidth, body) {
    return {
        $schema: "https://vega.github.io/schema/vega-lite/v6.json",
        config: chartConfig,
        description: title,
        title: subtitle === null
            ? { text: title, limit: titleWidth }
            : { text: title, subtitle, limit: titleWidth, subtitleLimit: titleWidth },
        ...body,
    };
}
const svgNamespace = ' xmlns="http://www.w3.org/2000/svg"';
const xlinkNamespace = ' xmlns:xlink="http://www.w3.org/1999/xlink"';
/** Colours of the two sides, as in the terminal and the comment's legend. */
const sideColors = { baseline: "#4c78a8", candidate: "#f58518" };
/**
 * The chart as an SVG document. `standalone` (an .svg file) keeps the SVG namespace a file needs; an
 * inline <svg> in HTML needs none, so the page holds no URL at all. The xlink namespace is dropped in
 * both (the charts draw no images or links, which are the only users of it).
 */
async function renderVegaLite(spec, standalone) {
    // Quiet: compare --format html prints the page on stdout, and a warning is a spec bug the chart
    // tests catch through `specWarnings`, not something a user can act on.
    const [{ parse, resetSVGDefIds, View }, { compile }] = await chartLibraries();
    const { spec: vegaSpec } = compile(spec, { logger: collectingLogger([]) });
    resetSVGDefIds();
    const view = new View(parse(vegaSpec), { renderer: "none", logLevel: 0 });
    try {
        const svg = await view.toSVG();
        assertNoIds(svg);
        const plain = withTitle(svg.replace(xlinkNamespace, ""), spec.description);
        return standalone ? plain : plain.replace(svgNamespace, "");
    }
    finally {
        view.finalize();
    }
}
/**
 * The chart's name as the SVG's first child <title> (its accessible name, and what a file viewer or a
 * hover over the chart shows): Vega writes none. Escaped by the report's escaper.
 */
function withTitle(svg, description) {
    if (!description)
        return svg;
    const end = svg.indexOf(">");
    if (!svg.startsWith("<svg") || end < 0)
        throw new Error("internal: Vega's SVG does not start with <svg>");
    return `${svg.slice(0, end + 1)}<title>${escapeHtml(description, 200)}</title>${svg.slice(end + 1)}`;
}
/** A Vega-Lite logger that keeps warnings and errors in `into` instead of printing them. */
function collectingLogger(into) {
    let level = 0;
    const logger = {
        level(value) {
            if (value === undefined)
                return level;
            level = value;
            return logger;
        },
        error(...args) {
            into.push(`error: ${args.join(" ")}`);
            return logger;
        },
        warn(...args) {
            into.push(`warn: ${args.join(" ")}`);
            return logger;
        },
        info() {
            return logger;
        },
        debug() {
            return logger;
        },
    };
    return logger;
}
/** Ids would collide between the charts inlined in one page and change with render order. */
function assertNoIds(svg) {
    if (/\sid="/.test(svg) || /xlink:href|url\(/.test(svg))
        throw new Error("internal: a chart spec made Vega emit an id or a reference (clip, gradient or link)");
}
/** A padded [lo, hi] domain; on a log axis the padding is a fraction of the decades. */
function paddedDomain(lo, hi, log, pad) {
    if (log) {
        let a = Math.log10(lo);
        let b = Math.log10(hi);
        if (!(b > a)) {
            a -= 0.05;
            b += 0.05;
        }
        const d = (b - a) * pad;
        return [10 ** (a - d), 10 ** (b + d)];
    }
    let a = lo;
    let b = hi;
    if (!(b > a)) {
        const spread = Math.abs(a) * 0.05 || 1;
        a -= spread;
        b += spread;
    }
    const d = (b - a) * pad;
    return [a - d, b + d];
}
/**
 * The value axis of a chart of latencies or rates: log from the smallest to the largest value (padded by
 * `logPad`) when asked and every value is positive, else linear from 0. Says which it chose.
 */
function valueAxisDomain(values, wantLog, logPad) {
    const log = wantLog && values.length > 0 && values.every((v) => v > 0);
    if (log)
        return { log, domain: paddedDomain(smallest(values), largest(values), true, logPad) };
    const domain = paddedDomain(0, Math.max(largest(values), 1e-9), false, 0.05);
    domain[0] = 0;
    return { log, domain };
}

/**
 * The task-accuracy checks (docs/quality.md): per tasks cell and side, the accuracy as a dot with its
 * Wilson interval, on a 0–100% axis. The candidate fails when it is worse by more than the tolerance in
 * points (the exact McNemar test in the subtitle).
 */
const width$5 = 420;
function accuracySpec(checks) {
    const rows = checks.flatMap((check) => ["baseline", "candidate"].map((side) => ({
        row: `${check.cell} ${side}`,
        side,
        accuracy: check[side].accuracy,
        lo: check[side].wilson[0],
        hi: check[side].wilson[1],
        label: `${check.cell} ${side}: ${check[side].correct} of ${check.prompts} correct (${formatFractionAsPercent(check[side].accuracy)}), Wilson ${formatFractionAsPercent(check[side].wilson[0])} to ${formatFractionAsPercent(check[side].wilson[1])}`,
    })));
    const level = checks[0] ? formatFractionAsPercent(checks[0].confidence) : "";
    const title = "Task accuracy per side";
    // The verdicts, counts and p-values are in the page's table beside the chart.
    const subtitle = "dot: accuracy · line: its Wilson interval";
    const y = {
        field: "row",
        type: "nominal",
        sort: null,
        axis: { title: null, labelFontSize: 11, labelLimit: 200 },
    };
    const x = {
        type: "quantitative",
        scale: { domain: [0, 1], nice: false },
        axis: { title: `accuracy with ${level} Wilson interval`, format: ".0%", grid: true },
    };
    const color = {
        field: "side",
        type: "nominal",
        scale: { domain: ["baseline", "candidate"], range: [sideColors.baseline, sideColors.candidate] },
        legend: { title: null, symbolType: "circle" },
    };
    return chartSpec(title, subtitle, width$5 + 200, {
        width: width$5,
        height: Math.max(40, rows.length * 22),
        layer: [
            {
                name: "wilson",
                data: { values: rows },
                mark: { type: "rule", strokeWidth: 2 },
                encoding: { x: { ...x, field: "lo" }, x2: { field: "hi" }, y, color },
            },
            {
                name: "accuracy",
                data: { values: rows },
                mark: { type: "point", filled: true, size: 60, opacity: 1 },
                encoding: { x: { ...x, field: "accuracy" }, y, color, description: { field: "label" } },
            },
        ],
    });
}
function accuracyChart(checks, options = {}) {
    return renderVegaLite(accuracySpec(checks), options.standalone ?? false);
}

/**
 * A session cell's TTFT p95 against context depth (docs/workloads.md, "Session metrics"): the depth
 * buckets on x, shallow to deep, each run's TTFT p95 in a bucket as a dot (hollow: a run compare
 * excluded), and each side's geometric mean per bucket (what compare judged, as in the per-run charts)
 * as a line. A line that climbs faster than the other's is a cost that grows with the conversation
 * (longer prompts, a colder prefix cache). Log axis when every value is positive, so equal ratios are
 * equal distances at any depth.
 */
const width$4 = 400;
const height$2 = 170;
const sides = ["baseline", "candidate"];
/** Offsets (of ±20) that put each side's dots beside its line's point, and spread equal runs apart. */
const sideOffset = { baseline: -6, candidate: 6 };
/** The Vega-Lite spec of a cell's depth chart (pure; exported for tests). */
function depthSpec(picture) {
    const title = `${picture.cell} · TTFT p95 against context depth`;
    const { runs, means } = depthPoints(picture);
    const values = [...runs.map((r) => r.value), ...means.flatMap((m) => (m.value === null ? [] : [m.value]))];
    const { log, domain } = valueAxisDomain(values, true, 0.08);
    const encoding = {
        x: {
            field: "depth",
            type: "ordinal",
            scale: { domain: picture.buckets.map((b) => b.label) },
            axis: { title: "context depth (turn number, 1 = the first)", labelAngle: 0, grid: true },
        },
        y: {
            field: "value",
            type: "quantitative",
            scale: log ? { type: "log", domain, nice: false } : { domain, nice: false },
            axis: { title: "TTFT p95 (ms)", format: ",~r", grid: true, tickCount: 5 },
        },
        color: {
            field: "side",
            type: "nominal",
            scale: { domain: [...sides], range: sides.map((side) => sideColors[side]) },
            legend: { title: null, symbolType: "circle" },
        },
    };
    const counts = sides
        .map((side) => {
        const n = new Set(picture.runs.filter((r) => r.side === side).map((r) => r.run)).size;
        return `${side} ${n}`;
    })
        .join(", ");
    return chartSpec(title, [
        "dots: runs (hollow: excluded) · lines: geometric means",
        `runs: ${counts} · ${log ? "log axis" : "linear axis"}`,
    ], width$4 + 60, {
        width: width$4,
        height: height$2,
        layer: depthLayers(runs, means, encoding),
    });
}
/** Each run's TTFT p95 per depth, and each side's geometric mean per depth, with their accessible labels. */
function depthPoints(picture) {
    const labelOf = new Map(picture.buckets.map((b) => [b.bucket, b.label]));
    const runs = picture.runs.map((r, i) => ({
        side: r.side,
        depth: labelOf.get(r.bucket),
        value: r.value,
        used: r.used,
        // A small, fixed spread so runs with equal values stay visible (no randomness).
        offset: sideOffset[r.side] + ((i % 3) - 1) * 2,
        label: `${r.side} run-${r.run ?? "?"}${r.used ? "" : " (excluded)"} at depth ${labelOf.get(r.bucket)}: ${formatMetricValue(depthMetric(r.bucket), r.value)}`,
    }));
    const shown = (m) => m.value === null ? "none" : formatMetricValue(depthMetric(m.bucket), m.value);
    // A line's accessible label is the whole line; each of its points has its own.
    const lineLabel = new Map(sides.map((side) => [
        side,
        `${side} geometric mean by depth: ${picture.means
            .filter((m) => m.side === side)
            .map((m) => `${shown(m)} at ${labelOf.get(m.bucket)}`)
            .join(", ")}`,
    ]));
    // A side without a mean in a bucket is a gap in its line (a null breaks the path), not a join across it.
    const means = picture.means.map((m) => ({
        side: m.side,
        depth: labelOf.get(m.bucket),
        value: m.value,
        line: lineLabel.get(m.side),
        label: `${m.side} geometric mean at depth ${labelOf.get(m.bucket)}: ${shown(m)}`,
    }));
    return { runs, means };
}
/** The runs as dots (an excluded run hollow), the means as a line per side and its points. */
function depthLayers(runs, means, { x, y, color }) {
    return [
        {
            name: "runs",
            data: { values: runs },
            mark: { type: "point", filled: true, size: 40, opacity: 0.85 },
            encoding: {
                x,
                xOffset: { field: "offset", type: "quantitative", scale: { domain: [-20, 20] } },
                y,
                color,
                fillOpacity: { condition: { test: "datum.used", value: 0.85 }, value: 0 },
                description: { field: "label" },
            },
        },
        {
            name: "mean",
            data: { values: means },
            mark: { type: "line", strokeWidth: 1.8 },
            encoding: { x, y, color, description: { field: "line" } },
        },
        {
            name: "mean_points",
            data: { values: means.filter((m) => m.value !== null) },
            mark: { type: "point", filled: true, size: 24, opacity: 1 },
            encoding: { x, y, color, description: { field: "label" } },
        },
    ];
}
function depthChart(picture, options = {}) {
    return renderVegaLite(depthSpec(picture), options.standalone ?? false);
}

/**
 * One latency phase of both sides as cumulative distributions (x: latency, log axis when the values
 * span more than a few times; y: share of requests at or below), the used runs of each side pooled.
 * Dashed lines at p50, p95 and p99 show where the gated percentiles are read off; a dot marks each
 * side's p95. On a log axis a value of 0 (an ITL gap of 0 ms) is drawn at the left edge.
 */
const width$3 = 300;
const height$1 = 150;
/** Latencies more than this many times below the largest are drawn at the left edge of the log axis. */
const logSpan$1 = 1e4;
/** The Vega-Lite spec of one phase's chart (pure; exported for tests). */
function distributionSpec(cell, picture) {
    const label = latencyPhaseLabel(picture.phase);
    const title = `${cell} · ${label} distribution`;
    const sides = [
        ["baseline", picture.baseline],
        ["candidate", picture.candidate],
    ];
    const values = sides.flatMap(([, side]) => (side ? side.points.map(([v]) => v) : []));
    if (values.length === 0)
        return chartSpec(title, null, width$3 + 40, {
            width: width$3,
            height: 20,
            data: { values: [{ note: "no successful requests with this latency" }] },
            mark: { type: "text", align: "left", color: "#666666", fontSize: 10 },
            encoding: { text: { field: "note" }, x: { value: 0 } },
        });
    const { log, domain } = latencyAxis(values);
    const counts = sides
        .map(([name, side]) => (side ? `${name} ${side.count.toLocaleString("en-US")}` : `${name}: none`))
        .join(", ");
    return chartSpec(title, [`requests: ${counts}`, `${log ? "log axis · " : ""}dashed: p50, p95, p99 · dot: p95`], width$3 + 60, { width: width$3, height: height$1, layer: distributionLayers(sides, label, log, domain) });
}
/** The latency axis: log when the values span more than a few times (0 then drawn at the left edge). */
function latencyAxis(values) {
    const positive = values.filter((v) => v > 0);
    const hi = largest(values);
    const lo = positive.length > 0 ? Math.max(smallest(positive), hi / logSpan$1) : 0;
    const log = lo > 0 && hi / lo > 4;
    return { log, domain: paddedDomain(log ? lo : Math.min(0, ...values), hi, log, 0.02) };
}
/** Rules at p50, p95 and p99, each side's cumulative distribution, and its p95 as a dot. */
function distributionLayers(sides, label, log, domain) {
    const curve = sides.flatMap(([name, side]) => side
        ? side.points.map(([value, fraction], i) => ({
            side: name,
            value: log ? Math.max(value, domain[0]) : value,
            fraction,
            order: i,
        }))
        : []);
    const p95 = sides.flatMap(([name, side]) => side
        ? [
            {
                side: name,
                value: log ? Math.max(side.p95, domain[0]) : side.p95,
                fraction: 0.95,
                label: `${name}: p50 ${formatNumber(side.p50)} ms, p95 ${formatNumber(side.p95)} ms, p99 ${formatNumber(side.p99)} ms`,
            },
        ]
        : []);
    const x = {
        field: "value",
        type: "quantitative",
        scale: log
            ? { type: "log", domain, nice: false }
            : { type: "linear", domain, nice: false, zero: false },
        axis: { title: `${label} (ms)`, format: ",~r", grid: true, tickCount: 5 },
    };
    const y = {
        field: "fraction",
        type: "quantitative",
        scale: { domain: [0, 1] },
        axis: { title: "share of requests ≤ x", format: ".0%", grid: true, tickCount: 5 },
    };
    const color = {
        field: "side",
        type: "nominal",
        scale: { domain: ["baseline", "candidate"], range: [sideColors.baseline, sideColors.candidate] },
        legend: { title: null, symbolType: "stroke" },
    };
    return [
        {
            name: "percentiles",
            data: { values: [0.5, 0.95, 0.99].map((fraction) => ({ fraction })) },
            mark: { type: "rule", color: "#5cb85c", strokeDash: [3, 2] },
            encoding: { y },
        },
        {
            name: "cdf",
            data: { values: curve },
            mark: { type: "line", strokeWidth: 1.6 },
            encoding: { x, y, color, order: { field: "order", type: "quantitative" } },
        },
        {
            name: "p95",
            data: { values: p95 },
            mark: { type: "point", filled: true, size: 30, opacity: 1 },
            encoding: { x, y, color, description: { field: "label" } },
        },
    ];
}
function distributionChart(cell, picture, options = {}) {
    return renderVegaLite(distributionSpec(cell, picture), options.standalone ?? false);
}

/**
 * The load curves (docs/capacity.md, docs/compare.md), one small chart per figure: offered load (x)
 * against completed requests/s, goodput, TTFT and E2E at the cell's SLO percentile (p95 for a sweep), and
 * output tokens/s, each side a line through the means of its usable runs per load. Dashed vertical lines:
 * each side's capacity point (capacity cells only); on the latency charts a green dashed line at the SLO
 * when the cell states one. One implementation for a capacity cell (verdict.json `capacity[].curve`), a
 * sweep compared without a capacity config (`sweeps[]`) and the one side of `run --sweep`'s report.
 */
const width$2 = 330;
const height = 150;
/** The figures drawn, in order; a figure no point of either side has is left out. */
const loadFigures = ["completedPerSecond", "goodput", "ttftMs", "e2elMs", "outputTokensPerSecond"];
function figureLabel(figure, percentile) {
    switch (figure) {
        case "completedPerSecond":
            return "completed requests/s";
        case "goodput":
            return "goodput (requests/s)";
        case "ttftMs":
            return `TTFT ${percentile} (ms)`;
        case "e2elMs":
            return `E2E latency ${percentile} (ms)`;
        case "outputTokensPerSecond":
            return "output tokens/s";
    }
}
/** The SLO line of a figure, or null (throughput figures, or no SLO on that latency). */
function sloOf(picture, figure) {
    if (figure === "ttftMs")
        return picture.slo.ttft_ms ?? null;
    if (figure === "e2elMs")
        return picture.slo.e2el_ms ?? null;
    return null;
}
/** Each series' colour: a comparison's sides in their colours, one measured side in the baseline's. */
const seriesColors$1 = {
    baseline: sideColors.baseline,
    candidate: sideColors.candidate,
    measured: sideColors.baseline,
};
/** The figures with at least one value in any series. */
function drawnLoadFigures(picture) {
    return loadFigures.filter((figure) => picture.series.some((series) => series.points.some((point) => point[figure] !== null)));
}
function capacityLabel(series) {
    if (series.capacity === null)
        return null;
    const bound = series.capacity.bound;
    const words = bound === "above" ? "at least " : bound === "below" ? "below " : "";
    return `${series.side} capacity ${words}${formatNumber(series.capacity.load)}`;
}
/**
 * The Vega-Lite spec of one figure of a cell's load curves (pure; exported for tests): a capacity
 * cell's (with each side's capacity point), a sweep's (no capacity point), or one measured side's.
 */
function loadCurveSpec(picture, figure) {
    const label = figureLabel(figure, picture.percentile);
    const title = `${picture.cell} · ${label.replace(/ \(.*\)$/, "")} vs load`;
    const { points, capacityPoints } = curvePoints(picture, figure);
    const slo = sloOf(picture, figure);
    const latency = figure === "ttftMs" || figure === "e2elMs";
    const values = [...points.map((p) => p.value), ...(slo === null ? [] : [slo])];
    const { log, domain: yDomain } = valueAxisDomain(values, latency, 0.06);
    const y = {
        field: "value",
        type: "quantitative",
        scale: log ? { type: "log", domain: yDomain, nice: false } : { domain: yDomain, nice: false },
        axis: { title: label, format: ",~r", grid: true, tickCount: 5 },
    };
    const names = picture.series.map((series) => series.side);
    const color = {
        field: "side",
        type: "nominal",
        scale: { domain: names, range: names.map((name) => seriesColors$1[name]) },
        legend: { title: null, symbolType: "stroke" },
    };
    const x = loadAxis(picture, [...points.map((p) => p.load), ...capacityPoints.map((p) => p.load)]);
    const layers = [
        ...(slo === null
            ? []
            : [
                {
                    name: "slo",
                    data: { values: [{ value: slo, label: `SLO ${formatNumber(slo)} ms` }] },
                    mark: { type: "rule", color: "#5cb85c", strokeDash: [3, 2], strokeWidth: 1.5 },
                    encoding: { y, description: { field: "label" } },
                },
            ]),
        {
            name: "capacity",
            data: { values: capacityPoints },
            mark: { type: "rule", strokeDash: [5, 3], strokeWidth: 1.5 },
            encoding: { x, color, description: { field: "label" } },
        },
        {
            name: "curve",
            data: { values: points },
            mark: { type: "line", strokeWidth: 1.6, point: { filled: true, size: 30 } },
            encoding: { x, y, color, description: { field: "label" } },
        },
    ];
    return chartSpec(title, loadCurveSubtitle(picture, slo, log), width$2 + 60, { width: width$2, height, layer: layers });
}
/** The figure's measured points per side (with their labels), and each side's capacity as a rule. */
function curvePoints(picture, figure) {
    const points = picture.series.flatMap((series) => series.points
        .filter((p) => p[figure] !== null)
        .map((p) => ({
        side: series.side,
        load: p.load,
        value: p[figure],
        label: `${series.side} at load ${formatNumber(p.load)}: ${formatNumber(p[figure])} (${p.runs} run${p.runs === 1 ? "" : "s"})`,
    })));
    const capacityPoints = picture.series.flatMap((series) => {
        const text = capacityLabel(series);
        return text === null ? [] : [{ side: series.side, load: series.capacity.load, label: text }];
    });
    return { points, capacityPoints };
}
/** The load axis, from 0 to the largest load shown, in the load's unit. */
function loadAxis(picture, loads) {
    const unit = picture.dimension === "concurrency" ? "concurrent requests" : "requests/s offered";
    const domain = paddedDomain(Math.min(smallest(loads), 0), Math.max(largest(loads), 1e-9), false, 0.03);
    domain[0] = 0;
    return {
        field: "load",
        type: "quantitative",
        scale: { domain, nice: false, zero: false },
        axis: { title: `load (${unit})`, format: ",~r", grid: true, tickCount: 6 },
    };
}
/** Each side's capacity (or that a sweep has none), then what the dashes, the green rule and the axis mean. */
function loadCurveSubtitle(picture, slo, log) {
    const first = picture.kind === "sweep"
        ? "a load sweep: no capacity point"
        : `capacity: ${picture.series
            .map((series) => capacityLabel(series)?.replace(" capacity", "") ?? `${series.side} none`)
            .join(", ")}`;
    const legend = [
        ...(picture.kind === "capacity" ? ["dashed: capacity"] : []),
        ...(slo === null ? [] : ["green: SLO"]),
        ...(log ? ["log axis"] : []),
    ];
    return legend.length > 0 ? [first, legend.join(" · ")] : [first];
}
function loadCurveChart(picture, figure, options = {}) {
    return renderVegaLite(loadCurveSpec(picture, figure), options.standalone ?? false);
}

/**
 * Per gated check: every run of both sides as a dot on the metric's own axis (log when every value is
 * positive, so a ratio looks the same anywhere on it), the tolerance band around the baseline's
 * geometric mean, and the decision interval (baseline × the interval of the ratio) under the candidate's
 * runs. Regression is "the whole interval beyond the band", within tolerance "its worse end inside":
 * the reason for the verdict, visible at a glance. A Vega-Lite layer chart; every layer is named so
 * its marks carry a stable class (`<name>_marks`).
 */
const width$1 = 500;
/** How far beyond the runs (a factor on a log axis, spans on a linear one) a wide interval is drawn. */
const maxReach = 4;
const rowNames = ["baseline", "candidate", "decision interval"];
const verdictWords = {
    regression: "regression",
    improvement: "improvement",
    "within-tolerance": "within tolerance",
    inconclusive: "inconclusive",
};
const intervalColors = {
    regression: "#c9302c",
    improvement: "#2e7d32",
    "within-tolerance": "#111111",
    inconclusive: "#111111",
};
const legendKinds = ["baseline run", "candidate run", "excluded run", "tolerance band"];
const legendColors = [sideColors.baseline, sideColors.candidate, "#999999", "#b9dfb0"];
/** The Vega-Lite spec of one check's chart (pure; exported for tests). */
function runDotsSpec(check) {
    const c = check.comparison;
    const axis = runDotsAxis(check);
    const { metric, log, domain } = axis;
    const percent = metricSpecs[metric].format === "percent";
    const unit = percent ? "%" : metricSpecs[metric].unit;
    const direction = c.higherIsBetter ? "higher is better" : "lower is better";
    const title = `${c.cell} · ${describeMetric(c.metric)} (${direction}): ${verdictWords[c.verdict]}`;
    const subtitle = [
        `change ${formatChange(c.ratio)}, decision interval ${formatInterval(c.ci)}, tolerance ±${formatFractionAsPercent(c.tolerance)}${c.judgedOn ? ` (judged on ${describeMetric(c.judgedOn)})` : ""}`,
        [
            log ? "log axis" : "linear axis",
            ...(axis.clipped ? ["interval cut at the axis edge (no end cap)"] : []),
        ].join(" · "),
    ];
    const x = {
        type: "quantitative",
        scale: log
            ? { type: "log", domain, nice: false }
            : { type: "linear", domain, nice: false, zero: false },
        axis: {
            title: `${describeMetric(metric)} per run (${unit})`,
            format: percent ? ".2~%" : ",~r",
            grid: true,
            tickCount: 6,
        },
    };
    return chartSpec(title, subtitle, width$1 + 100, {
        width: width$1,
        height: 96,
        layer: [
            ...(axis.band ? [bandLayer(axis.band, metric, x)] : []),
            ...runAndMeanLayers(check, metric, x),
            axis.interval ? intervalLayer(check, axis, x) : noIntervalLayer(axis, x),
        ],
    });
}
function runDotsAxis(check) {
    const c = check.comparison;
    const metric = c.judgedOn ?? c.metric;
    const pooled = metricSpecs[c.metric].judged === "pooled-failures";
    const base = c.baseline;
    const band = base !== null && base > 0 && !pooled ? [base / (1 + c.tolerance), base * (1 + c.tolerance)] : null;
    const interval = base !== null && c.ci ? [base * c.ci[0], base * c.ci[1]] : null;
    // The axis covers the runs, the band and the means; a decision interval far wider than that (few
    // runs) is drawn up to the axis edge, at most `maxReach` times beyond them, and said so.
    const core = [
        ...check.runs.map((r) => r.value),
        ...(band ?? []),
        ...(base === null ? [] : [base]),
        ...(c.candidate === null ? [] : [c.candidate]),
    ].filter((v) => Number.isFinite(v));
    const coreLo = core.length > 0 ? smallest(core) : 0;
    const coreHi = core.length > 0 ? largest(core) : 1;
    const log = coreLo > 0;
    const linearSpan = coreHi - coreLo || Math.abs(coreHi) * 0.1 || 0.01;
    const reach = log
        ? [coreLo / maxReach, coreHi * maxReach]
        : [coreLo - linearSpan * maxReach, coreHi + linearSpan * maxReach];
    const shownInterval = interval
        ? [Math.max(interval[0], reach[0]), Math.min(interval[1], reach[1])]
        : null;
    const clipped = interval !== null && (shownInterval[0] > interval[0] || shownInterval[1] < interval[1]);
    const values = [...core, ...(shownInterval ?? [])];
    const lo = values.length > 0 ? smallest(values) : 0;
    const hi = values.length > 0 ? largest(values) : 1;
    // A linear axis (some value is 0, e.g. an error rate) starts at 0 and is never empty.
    const linearHigh = hi > Math.min(0, lo) ? hi : Math.abs(hi) * 0.1 || 0.01;
    const domain = log
        ? paddedDomain(lo, hi, true, 0.06)
        : paddedDomain(Math.min(0, lo), linearHigh, false, 0.03);
    if (!log)
        domain[0] = Math.min(0, lo);
    return { metric, pooled, band, interval, shownInterval, clipped, log, domain };
}
const rowChannel = () => ({
    field: "row",
    type: "nominal",
    scale: { domain: [...rowNames] },
    axis: { title: null, labelFontSize: 11, labelPadding: 6 },
});
const colorChannel = (field) => ({
    field,
    type: "nominal",
    scale: { domain: [...legendKinds], range: legendColors },
    legend: { title: null, symbolType: "circle" },
});
function bandLayer(band, metric, x) {
    return {
        name: "band",
        data: { values: [{ lo: band[0], hi: band[1], kind: "tolerance band" }] },
        mark: { type: "rect", opacity: 0.6, stroke: "#5cb85c", strokeDash: [3, 2], strokeWidth: 1 },
        encoding: {
            x: { ...x, field: "lo" },
            x2: { field: "hi" },
            color: colorChannel("kind"),
            description: {
                value: `tolerance band ${formatMetricValue(metric, band[0])} to ${formatMetricValue(metric, band[1])}`,
            },
        },
    };
}
/** Every run as a dot in its side's row (an excluded run hollow), and each side's geometric mean as a tick. */
function runAndMeanLayers(check, metric, x) {
    const c = check.comparison;
    const runs = check.runs.map((r, i) => ({
        row: r.side,
        value: r.value,
        kind: r.used ? `${r.side} run` : "excluded run",
        used: r.used,
        // A small, fixed vertical spread so runs with equal values stay visible (no randomness).
        jitter: ((i % 5) - 2) * 2.5,
        label: `${r.side} run-${r.run ?? "?"}${r.used ? "" : " (excluded)"}: ${formatMetricValue(metric, r.value)}`,
    }));
    const means = [
        ["baseline", c.baseline],
        ["candidate", c.candidate],
    ]
        .filter(([, v]) => v !== null && Number.isFinite(v))
        .map(([row, value]) => ({
        row,
        value,
        shown: `${row} geometric mean ${formatMetricValue(metric, value)}`,
    }));
    return [
        {
            name: "runs",
            data: { values: runs },
            mark: { type: "point", filled: true, size: 60, opacity: 0.9 },
            encoding: {
                x: { ...x, field: "value" },
                y: rowChannel(),
                yOffset: { field: "jitter", type: "quantitative", scale: { domain: [-20, 20] } },
                color: colorChannel("kind"),
                fillOpacity: { condition: { test: "datum.used", value: 0.9 }, value: 0 },
                description: { field: "label" },
            },
        },
        {
            name: "mean",
            data: { values: means },
            mark: { type: "tick", color: "#111111", thickness: 2, size: 22 },
            encoding: { x: { ...x, field: "value" }, y: rowChannel(), description: { field: "shown" } },
        },
    ];
}
function intervalLayer(check, axis, x) {
    const c = check.comparison;
    const interval = axis.interval;
    return {
        name: "interval",
        data: {
            values: [
                {
                    row: "decision interval",
                    lo: axis.shownInterval[0],
                    hi: axis.shownInterval[1],
                    shown: `decision interval ${formatMetricValue(axis.metric, interval[0])} to ${formatMetricValue(axis.metric, interval[1])}`,
                },
            ],
        },
        // End caps only where the interval really ends: a clipped one is a bare line to the edge.
        mark: axis.clipped
            ? { type: "rule", strokeWidth: 3, color: intervalColors[c.verdict] }
            : {
                type: "errorbar",
                ticks: { size: 10, opacity: 1 },
                rule: { opacity: 1 },
                thickness: 3,
                color: intervalColors[c.verdict],
            },
        encoding: { x: { ...x, field: "lo" }, x2: { field: "hi" }, y: rowChannel() },
    };
}
function noIntervalLayer(axis, x) {
    return {
        name: "no-interval",
        data: {
            values: [
                {
                    row: "decision interval",
                    at: axis.domain[0],
                    note: axis.pooled
                        ? "pooled over requests: no per-run interval (see the table)"
                        : "no interval (too few runs or no test)",
                },
            ],
        },
        mark: { type: "text", align: "left", dx: 4, color: "#666666", fontSize: 10 },
        encoding: { x: { ...x, field: "at" }, y: rowChannel(), text: { field: "note" } },
    };
}
function runDotsChart(check, options = {}) {
    return renderVegaLite(runDotsSpec(check), options.standalone ?? false);
}

/**
 * One run over time, three panels on one time axis (a Vega-Lite vertical concatenation): each
 * request's TTFT (a dot when its first token came) with the ITL p50/p99 per time bin (log axis);
 * running and waiting requests from the /metrics scrapes; KV-cache usage. Preemptions are marked in
 * every panel where the counter rose between two scrapes.
 */
const width = 560;
/** Latencies more than this many times below the largest are drawn at the bottom edge of the log axis. */
const logSpan = 1e4;
const seriesColors = {
    "TTFT per request": "#f58518",
    "ITL p50": "#6a3d9a",
    "ITL p99": "#c9302c",
    running: "#4c78a8",
    waiting: "#e45756",
    "KV-cache usage": "#54a24b",
    preemption: "#c9302c",
};
const color = (names) => ({
    field: "series",
    type: "nominal",
    scale: { domain: [...names], range: names.map((n) => seriesColors[n]) },
    legend: { title: null, orient: "right", direction: "vertical" },
});
/** The Vega-Lite spec of one run's timeline (pure; exported for tests). */
function timelineSpec(cell, t) {
    const title = `${cell} · ${t.side} run-${t.run ?? "?"} over time`;
    const preempted = t.preemptions.reduce((sum, p) => sum + p.added, 0);
    const subtitle = `${t.ttft.length.toLocaleString("en-US")} requests drawn · ${t.failedAt.length} failed · ${t.scrapes.length} scrapes · ${preempted} preemptions`;
    const axis = timeAxis(t);
    // Scrapes within the measured phase, for the queue and KV-cache panels.
    const scraped = t.scrapes.filter((s) => s.atMs >= 0 && s.atMs <= t.endMs + 1);
    return chartSpec(title, subtitle, width + 60, {
        vconcat: [latencyPanel(t, axis), queuePanel(scraped, axis), kvPanel(scraped, axis)],
        spacing: 10,
        resolve: { scale: { color: "independent", y: "independent" }, legend: { color: "independent" } },
    });
}
function timeAxis(t) {
    const endS = Math.max(1, t.endMs) / 1000;
    const x = (shown) => ({
        field: "s",
        type: "quantitative",
        scale: { domain: [0, endS], nice: false },
        axis: shown
            ? { title: "seconds since the measured phase began", grid: true }
            : { title: null, labels: false, grid: true },
    });
    const preemptions = t.preemptions.map((p) => ({
        s: p.atMs / 1000,
        label: `${p.added} preemption${p.added === 1 ? "" : "s"} by ${(p.atMs / 1000).toFixed(1)} s`,
    }));
    return {
        x,
        preemptionLayer: (shown) => preemptions.length === 0
            ? []
            : [
                {
                    name: "preemption",
                    data: { values: preemptions },
                    mark: { type: "rule", color: seriesColors.preemption, strokeDash: [2, 2] },
                    encoding: { x: x(shown), description: { field: "label" } },
                },
            ],
        note: (text) => ({
            name: "note",
            data: { values: [{ s: 0, note: text }] },
            mark: { type: "text", align: "left", dx: 8, color: "#666666", fontSize: 10, y: 20 },
            encoding: { x: x(false), text: { field: "note" } },
        }),
    };
}
/** Each request's TTFT as a dot when its first token came, and the ITL p50 and p99 per time bin, on a log axis. */
function latencyPanel(t, { x, preemptionLayer }) {
    const latencies = [...t.ttft.map(([, v]) => v), ...t.itl.flatMap((b) => [b.p50, b.p99])].filter((v) => v > 0);
    const hi = latencies.length > 0 ? largest(latencies) : 10;
    const lo = latencies.length > 0 ? Math.max(smallest(latencies), hi / logSpan) : 1;
    const a = Math.log10(lo);
    const b = Math.log10(hi) > a ? Math.log10(hi) : a + 0.1;
    const pad = (b - a) * 0.04;
    const yDomain = [10 ** (a - pad), 10 ** (b + pad)];
    // On the log axis a gap of 0 ms is drawn at the bottom edge.
    const atLeast = (v) => Math.max(v, yDomain[0]);
    const yLatency = {
        field: "ms",
        type: "quantitative",
        scale: { type: "log", domain: yDomain, nice: false },
        axis: { title: "ms (log)", format: ",~r", grid: true },
    };
    const itl = t.itl.flatMap((bin) => [
        { s: (bin.fromMs + bin.toMs) / 2000, ms: atLeast(bin.p50), series: "ITL p50" },
        { s: (bin.fromMs + bin.toMs) / 2000, ms: atLeast(bin.p99), series: "ITL p99" },
    ]);
    return {
        width,
        height: 130,
        layer: [
            {
                name: "ttft",
                data: {
                    values: t.ttft.map(([atMs, ms]) => ({
                        s: atMs / 1000,
                        ms: atLeast(ms),
                        series: "TTFT per request",
                    })),
                },
                mark: { type: "circle", size: 16, opacity: 0.6 },
                encoding: { x: x(false), y: yLatency, color: color(["TTFT per request", "ITL p50", "ITL p99"]) },
            },
            ...(itl.length > 0
                ? [
                    {
                        name: "itl",
                        data: { values: itl },
                        mark: { type: "line", strokeWidth: 1.2 },
                        encoding: {
                            x: x(false),
                            y: yLatency,
                            color: color(["TTFT per request", "ITL p50", "ITL p99"]),
                        },
                    },
                ]
                : []),
            ...preemptionLayer(false),
        ],
    };
}
/** Running and waiting requests from the /metrics scrapes. */
function queuePanel(scraped, { x, preemptionLayer, note }) {
    const queue = scraped.flatMap((s) => [
        ...(s.running === null ? [] : [{ s: s.atMs / 1000, n: s.running, series: "running" }]),
        ...(s.waiting === null ? [] : [{ s: s.atMs / 1000, n: s.waiting, series: "waiting" }]),
    ]);
    return {
        width,
        height: 80,
        layer: queue.length > 0
            ? [
                {
                    name: "queue",
                    data: { values: queue },
                    mark: { type: "line", interpolate: "step-after", strokeWidth: 1.4 },
                    encoding: {
                        x: x(false),
                        y: {
                            field: "n",
                            type: "quantitative",
                            scale: { domain: [0, Math.max(1, ...queue.map((q) => q.n))], nice: true },
                            axis: { title: "requests", grid: true, tickMinStep: 1, format: "d" },
                        },
                        color: color(["running", "waiting"]),
                    },
                },
                ...preemptionLayer(false),
            ]
            : [note("no running/waiting gauges scraped"), ...preemptionLayer(false)],
    };
}
/** KV-cache usage from the /metrics scrapes, on the labelled time axis. */
function kvPanel(scraped, { x, preemptionLayer, note }) {
    const kv = scraped
        .filter((s) => s.kvUsage !== null)
        .map((s) => ({ s: s.atMs / 1000, usage: Math.min(1, s.kvUsage), series: "KV-cache usage" }));
    return {
        width,
        height: 70,
        layer: [
            ...(kv.length > 0
                ? [
                    {
                        name: "kv",
                        data: { values: kv },
                        mark: { type: "line", interpolate: "step-after", strokeWidth: 1.4 },
                        encoding: {
                            x: x(true),
                            y: {
                                field: "usage",
                                type: "quantitative",
                                scale: { domain: [0, 1] },
                                axis: { title: "KV cache", format: ".0%", grid: true, tickCount: 3 },
                            },
                            color: color(["KV-cache usage", "preemption"]),
                        },
                    },
                ]
                : [{ ...note("no KV-cache usage scraped"), encoding: { x: x(true), text: { field: "note" } } }]),
            ...preemptionLayer(true),
        ],
    };
}
function timelineChart(cell, t, options = {}) {
    return renderVegaLite(timelineSpec(cell, t), options.standalone ?? false);
}

/**
 * What a budget buys, in words (docs/action.md, "Choosing a budget"): the plan `run` and validate print,
 * validate --budget's table, and the first screen's line of what was spent and what it could catch.
 */
const minutes = (value) => value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString("en-US");
const percent$2 = (fraction) => `+${(fraction * 100).toFixed(fraction < 0.1 ? 1 : 0)}%`;
const label = (metric) => describeMetric(metric);
/** "5 runs a side in starts of 2", "3 runs a side, each run on a start of its own". */
function runsAndStarts(plan) {
    const runs = `${plan.runsPerSide} runs a side`;
    return plan.schedule.startEachGroup
        ? `${runs}, ${alternationWords(plan.schedule)}`
        : `${runs} ${alternationWords(plan.schedule)}`;
}
/** The plan of a budget: its runs, starts and cost, and the checks it decides or cannot. */
function budgetPlanLines(plan, detectChange, toDecide) {
    const sizes = plan.cells
        .filter((cell) => cell.requests !== null)
        .map((cell) => `${cell.name} ${cell.requests}`)
        .join(", ");
    const lines = [
        `budget ${minutes(plan.budgetMinutes)} GPU-minutes (gate.budget_gpu_minutes): ${runsAndStarts(plan)}, ${plan.serverStarts} server starts, about ${minutes(plan.gpuMinutes)} GPU-minutes; requests per run: ${sizes || "fixed-length runs"}`,
        `  decides ${plan.decided} of ${plan.checks} gated checks at ${percent$2(detectChange)} (gate.detect_change)`,
    ];
    const undecided = plan.cells.flatMap((cell) => cell.checks.filter((check) => !check.decided).map((check) => ({ cell: cell.name, check })));
    for (const { cell, check } of undecided) {
        const needed = toDecide.get(`${cell}\u0000${check.metric}`) ?? null;
        lines.push(`  not decidable at this budget: ${label(check.metric)} in ${cell} catches only ${percent$2(check.detectable)}; ${needed === null ? "no budget within 40 runs a side decides it" : `about ${minutes(needed)} GPU-minutes would`}`);
    }
    return lines;
}
/** validate --budget: per cell, what deciding it costs and what the budget catches in it; the set it decides. */
function budgetOverviewLines(overview) {
    const lines = [
        `budget ${minutes(overview.budgetMinutes)} GPU-minutes per pull request (interleaved, both sides; each cell alone):`,
        `  | cell | GPU-min to decide a clean PR (tolerance) | GPU-min to catch ${percent$2(overview.detectChange)} in every check | ${overview.metrics.map((m) => `${label(m)} caught at the budget`).join(" | ")} |`,
    ];
    for (const row of overview.rows) {
        const caught = overview.metrics.map((metric) => {
            const value = row.detectable?.get(metric);
            return value === undefined ? "–" : percent$2(value);
        });
        lines.push(`  | ${row.cell} | ${minutes(row.atTolerance)} | ${row.atDetectChange === null ? "not within 40 runs" : minutes(row.atDetectChange)} | ${caught.join(" | ")} |`);
    }
    const set = overview.affordable;
    lines.push(set.plan === null
        ? `  a budget of ${minutes(overview.budgetMinutes)} GPU-minutes decides every check of no cell: raise it, or widen gate.detect_change`
        : `  a budget of ${minutes(overview.budgetMinutes)} GPU-minutes decides every check of: ${set.cells.join(", ")} (together about ${minutes(set.plan.gpuMinutes)} GPU-minutes, ${runsAndStarts(set.plan)}): a PR tier (the action's \`cells\`)`);
    lines.push(typeof overview.whole === "string"
        ? `  every cell together: ${overview.whole}`
        : `  every cell together: decides ${overview.whole.decided} of ${overview.whole.checks} checks for about ${minutes(overview.whole.gpuMinutes)} GPU-minutes, ${runsAndStarts(overview.whole)}`);
    return lines;
}
/** The checks by metric: which catch detect_change, which only more. */
function caughtByMetric(comparisons, detectChange) {
    const gated = comparisons.filter((c) => c.gated && c.detectableChange !== null);
    const metrics = [...new Set(gated.map((c) => c.metric))];
    const caught = [];
    const short = [];
    const cellCount = new Set(gated.map((c) => c.cell)).size;
    for (const metric of metrics) {
        const checks = gated.filter((c) => c.metric === metric);
        const fine = checks.filter((c) => c.detectableChange <= detectChange);
        if (fine.length === checks.length)
            caught.push(`${label(metric)}${cellCount > 1 ? " in every cell" : ""}`);
        else if (fine.length > 0)
            caught.push(`${label(metric)} in ${fine.map((c) => c.cell).join(", ")}`);
        for (const c of checks.filter((check) => check.detectableChange > detectChange))
            short.push(`${label(metric)} in ${c.cell} only ${percent$2(c.detectableChange)}`);
    }
    const parts = [];
    if (caught.length > 0)
        parts.push(`${joinWords(caught)} would have caught ${percent$2(detectChange)}`);
    parts.push(...short);
    return parts;
}
function joinWords(items) {
    if (items.length <= 1)
        return items.join("");
    return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
/**
 * The first screen's line under a budget: "spent 52 of 60 GPU-minutes; throughput … would have caught
 * +10%; TTFT p95 in rag-fresh-usual only +19%". Null without a budget.
 */
function budgetSpentLine(verdict) {
    const budget = verdict.budget;
    if (!budget)
        return null;
    const parts = [
        `spent ${minutes(budget.spentGpuMinutes)} of ${minutes(budget.limitGpuMinutes)} GPU-minutes`,
        ...caughtByMetric(verdict.comparisons, verdict.settings.detectChange),
    ];
    const undecided = verdict.comparisons.filter((c) => c.gated && c.verdict === "inconclusive" && c.budget?.decidable === false);
    if (undecided.length > 0) {
        const needed = undecided
            .map((c) => c.budget?.gpuMinutesToDecide)
            .filter((m) => typeof m === "number");
        parts.push(`not decidable at this budget: ${undecided.length} ${undecided.length === 1 ? "check" : "checks"}${needed.length > 0 ? ` (about ${minutes(Math.max(...needed))} GPU-minutes would decide ${undecided.length === 1 ? "it" : "them"})` : ""}`);
    }
    return parts.join("; ");
}
/** A block the budget left out: what it would have cost and what was spent. */
function budgetCutWarning(limit, spent, planned) {
    return `budget: a block of about ${minutes(planned)} GPU-minutes not measured: ${minutes(spent)} of ${minutes(limit)} GPU-minutes spent (gate.budget_gpu_minutes); the comparison judges the runs measured`;
}

const markdownMarkup = {
    text: (value, max) => escapeInline(value, max),
    cell: (value, max) => escapeCell(value, max),
    strong: (text) => `**${text}**`,
    code: inlineCode,
    link: (label, url) => `[${label}](${url})`,
    tone: (_tone, text) => text,
};
function blockToMarkdown(block) {
    switch (block.kind) {
        case "heading":
            return `## ${block.icon} vllm-perf-gate: ${block.title}`;
        case "paragraph":
            // Two trailing spaces: a line break inside the paragraph.
            return block.lines.join("  \n");
        case "table":
            return `${table(block.header, block.rows)}\n\n<sub>${block.notes}</sub>`;
        case "list":
            return [`**${block.title}**`, ...block.items.map((item) => `- ${item}`)].join("\n");
    }
}
/** Blocks as markdown, separated by blank lines. */
function blocksToMarkdown(blocks) {
    return blocks.map(blockToMarkdown).join("\n\n");
}
const ansi = { bad: 31, good: 32, open: 33, bold: 1, dim: 2 };
/** Control characters from outside strings would move the cursor or recolour the terminal. */
function cleanForTerminal(text) {
    return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
}
/** Plain text for a terminal, with colours when `color`. */
function terminalMarkup(color) {
    const paint = (code, text) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
    const clip = (value, max = Number.POSITIVE_INFINITY) => {
        const clean = cleanForTerminal(value);
        return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
    };
    return {
        text: clip,
        cell: clip,
        strong: (text) => paint(ansi.bold, text),
        code: (text) => cleanForTerminal(text),
        link: (label, url) => `${label} (${cleanForTerminal(url)})`,
        tone: (tone, text) => (tone === "plain" ? text : paint(ansi[tone], text)),
    };
}
/** Columns a string takes in a terminal: colour codes none, an emoji two. */
function visibleLength(text) {
    let columns = 0;
    for (const ch of text.replace(/\u001b\[\d+m/g, ""))
        columns += /\p{Extended_Pictographic}/u.test(ch) ? 2 : 1;
    return columns;
}
function blockToTerminal(block, markup) {
    switch (block.kind) {
        case "heading":
            return markup.strong(markup.tone(block.verdict === "pass" ? "good" : block.verdict === "inconclusive" ? "open" : "bad", `vllm-perf-gate: ${block.title.toUpperCase()}`));
        case "paragraph":
            return block.lines.join("\n");
        case "table": {
            const rows = [block.header, ...block.rows];
            const widths = block.header.map((_, c) => largest(rows.map((row) => visibleLength(row[c] ?? ""))));
            const line = (row) => row
                .map((cell, c) => cell + " ".repeat(widths[c] - visibleLength(cell)))
                .join("  ")
                .trimEnd();
            return [line(block.header), ...block.rows.map(line), block.notes].join("\n");
        }
        case "list":
            return [block.title, ...block.items.map((item) => `  - ${item}`)].join("\n");
    }
}
/** Blocks as terminal text: the table's columns padded, lists indented. */
function blocksToTerminal(blocks, markup) {
    return blocks.map((block) => blockToTerminal(block, markup)).join("\n\n");
}

/**
 * The capacity section of the report (docs/capacity.md): per capacity cell one sentence answering "how
 * many more requests per hour at our SLOs, what 1,000 of them cost, how long the slowest users wait", the
 * acceptance table (each SLO, its threshold, each side's value at the baseline's capacity, pass/fail) and
 * the figures per side. Empty when the comparison has no capacity cell.
 */
const verdictLabels = {
    regression: "🔴 capacity regression",
    improvement: "🟢 capacity improvement",
    "within-tolerance": "⚪ capacity within tolerance",
    inconclusive: "🟡 capacity inconclusive",
};
/**
 * An objective (a catalogue metric, compare/capacity/capacity.ts `capacityObjectivesOf`) as the acceptance
 * table names it, "p95 TTFT" or "error rate": its words from the catalogue, so no second list of phase
 * labels.
 */
function describeObjective(name) {
    if (!isMetricName(name))
        return escapeCell(name, 100);
    const source = metricSpecs[name].source;
    return source.kind === "latency"
        ? `${latencyStatisticSpec(source.statistic).label} ${latencyPhaseLabel(source.phase)}`
        : describeMetric(name).toLowerCase();
}
function formatObjectiveValue(name, value) {
    if (value === null || !Number.isFinite(value))
        return "–";
    return name === "error_rate" ? `${(value * 100).toFixed(2)}%` : formatMs(value);
}
const formatMs = formatDuration;
function loadUnit(check) {
    if (check.unit === "sessions")
        return check.dimension === "rate" ? "sessions/s" : "sessions in flight";
    return check.dimension === "rate" ? "req/s" : "in flight";
}
function formatUsd(value) {
    return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toPrecision(2)}`;
}
function sloClause(check) {
    const parts = [];
    if (check.slo.ttft_ms !== undefined)
        parts.push(`${check.percentile} TTFT ≤ ${formatMs(check.slo.ttft_ms)}`);
    if (check.slo.tpot_ms !== undefined)
        parts.push(`${check.percentile} TPOT ≤ ${formatMs(check.slo.tpot_ms)}`);
    if (check.slo.e2el_ms !== undefined)
        parts.push(`${check.percentile} E2E ≤ ${formatMs(check.slo.e2el_ms)}`);
    parts.push(`errors ≤ ${Number((check.errorRateLimit * 100).toPrecision(3))}%`);
    return parts.join(", ");
}
function perHour(side) {
    return side.successfulPerHour === null ? "–" : Math.round(side.successfulPerHour).toLocaleString("en-US");
}
/**
 * What a capacity cell's answer counts per hour: successful requests, or for a session cell completed
 * sessions per GPU-hour (a session is many requests; what an agent's operator plans by).
 */
function answerOf(check) {
    if (check.unit === "sessions")
        return {
            value: (side) => side.sessionsPerGpuHour,
            unit: "sessions per GPU-hour",
            per: "per GPU-hour",
        };
    return { value: (side) => side.successfulPerHour, unit: "requests/h", per: "per hour" };
}
function countOf(value) {
    return value === null ? "–" : Math.round(value).toLocaleString("en-US");
}
/**
 * The one sentence of a capacity cell, both sides: requests per hour at the SLOs, how long the slowest
 * users wait for their first token there, what 1,000 successful requests cost.
 */
function capacitySentence(check, markup = markdownMarkup) {
    const { baseline: b, candidate: c } = check;
    const answer = answerOf(check);
    const lead = `At ${sloClause(check)},`;
    if (c.bound === "below")
        return `${lead} the candidate meets the SLOs at no load measured (${markup.text(c.note ?? "", 200)}); the baseline completes ${countOf(answer.value(b))} ${answer.unit}.`;
    if (b.capacity === null || c.capacity === null)
        return `${lead.slice(0, -1)}: ${markup.text(check.note ?? "no capacity", 200)}.`;
    const change = check.ratio === null
        ? ""
        : ` (capacity ${formatChange(check.ratio)}${check.ci ? `, ${Math.round(check.ciLevel * 100)}% CI ${formatInterval(check.ci).replace(" … ", " to ")}` : ""})`;
    const atLeast = (side) => (side.bound === "above" ? "at least " : "");
    const bValue = answer.value(b);
    const cValue = answer.value(c);
    const more = bValue !== null && cValue !== null && b.bound === "inside" && c.bound === "inside"
        ? `, ${Math.abs(Math.round(cValue - bValue)).toLocaleString("en-US")} ${cValue >= bValue ? "more" : "fewer"} ${answer.per}`
        : "";
    const parts = [
        `${lead} the candidate completes ${atLeast(c)}${countOf(cValue)} ${answer.unit} against the baseline's ${atLeast(b)}${countOf(bValue)}${more}${change}`,
    ];
    if (c.ttftAtCapacityMs !== null)
        parts.push(`at that load ${slowestUsers(check.percentile)} wait ${formatMs(c.ttftAtCapacityMs)} for their first token${b.ttftAtCapacityMs === null ? "" : ` (baseline, at its capacity: ${formatMs(b.ttftAtCapacityMs)})`}`);
    if (c.costPer1000 !== null)
        parts.push(`${formatUsd(c.costPer1000)} per 1,000 successful requests${b.costPer1000 === null ? "" : ` against ${formatUsd(b.costPer1000)}`}${check.costRatio === null ? "" : ` (${formatChange(check.costRatio)})`}`);
    return `${parts.join("; ")}.`;
}
function sideRow(name, check, side) {
    const capacity = side.capacity === null
        ? "–"
        : `${side.bound === "above" ? "≥ " : side.bound === "below" ? "< " : ""}${formatNumber(side.capacity)} ${loadUnit(check)}`;
    const interval = side.interval === null ? "–" : `${formatNumber(side.interval[0])} to ${formatNumber(side.interval[1])}`;
    return [
        name,
        capacity,
        interval,
        `${side.runs} at ${side.loads} loads`,
        ...(check.unit === "sessions" ? [countOf(side.sessionsPerGpuHour)] : []),
        perHour(side),
        side.outputTokensPerSecondPerGpu === null ? "–" : formatNumber(side.outputTokensPerSecondPerGpu),
        side.outputTokensPerSecondPerUser === null ? "–" : formatNumber(side.outputTokensPerSecondPerUser),
        side.ttftAtCapacityMs === null ? "–" : formatMs(side.ttftAtCapacityMs),
        side.costPer1000 === null ? "–" : formatUsd(side.costPer1000),
    ];
}
const passMark = (pass) => (pass === null ? "" : pass ? " ✅" : " ❌");
/** A capacity cell's tables: each SLO at the highest load the baseline met them all, and both sides' figures. */
function capacityTables(check) {
    const load = check.acceptance.load;
    return [
        load === null
            ? "Acceptance: no load measured at which the baseline met every SLO and a higher one missed it, so no stated load to read the SLOs at."
            : `Acceptance at ${formatNumber(load)} ${loadUnit(check)}, the highest load measured at which the baseline met every SLO (thresholds from the config):`,
        "",
        table(["SLO", "Threshold", "Baseline", "Candidate"], check.acceptance.rows.map((row) => [
            describeObjective(row.objective),
            `≤ ${formatObjectiveValue(row.objective, row.threshold)}`,
            `${formatObjectiveValue(row.objective, row.baseline)}${passMark(row.baselinePass)}`,
            `${formatObjectiveValue(row.objective, row.candidate)}${passMark(row.candidatePass)}`,
        ])),
        "",
        table([
            "Side",
            "Capacity",
            `${Math.round(check.ciLevel * 100)}% interval`,
            "Runs",
            ...(check.unit === "sessions" ? ["Sessions per GPU-hour"] : []),
            "Successful req/h",
            "Output tok/s per GPU",
            "Output tok/s per user",
            `${check.percentile} TTFT there`,
            "$ per 1,000",
        ], [sideRow("Baseline", check, check.baseline), sideRow("Candidate", check, check.candidate)]),
    ].join("\n");
}
/**
 * The first screen's answer for capacity cells, both sides side by side: at the SLOs (stated above the
 * rows), how many requests per hour each completes, how long the slowest users wait for their first
 * token there, and what 1,000 successful requests cost. Rows of escaped cells and our own figures.
 */
function capacityAnswerRows(checks, cell) {
    const percentiles = new Set(checks.map((check) => check.percentile));
    const wait = percentiles.size === 1
        ? `How long ${slowestUsers([...percentiles][0])} wait for the first token there`
        : "How long the slowest users wait for the first token there";
    const bound = (side) => (side.bound === "above" ? "≥ " : side.bound === "below" ? "< " : "");
    const units = new Set(checks.map((check) => check.unit));
    // One unit in the header when every row has it; with both, each session cell's value names its own.
    const header = units.size > 1
        ? "Per hour at the SLOs"
        : units.has("sessions")
            ? "Sessions per GPU-hour at the SLOs"
            : "Requests per hour at the SLOs";
    const rows = checks.flatMap((check) => ["baseline", "candidate"].map((name) => {
        const side = check[name];
        const answer = answerOf(check);
        const value = answer.value(side);
        const baseValue = answer.value(check.baseline);
        const change = name === "candidate" && check.ratio !== null && baseValue !== null && value !== null
            ? ` (${formatSignedNumber(value - baseValue, "")}, ${formatChange(check.ratio)})`
            : "";
        const unit = units.size > 1 ? (check.unit === "sessions" ? ` ${answer.unit}` : " requests") : "";
        return [
            name === "baseline" ? cell(check.cell) : "",
            name,
            value === null
                ? side.bound === "below"
                    ? "none: no load met the SLOs"
                    : "–"
                : `${bound(side)}${countOf(value)}${unit}${change}`,
            side.ttftAtCapacityMs === null
                ? "–"
                : `${formatMs(side.ttftAtCapacityMs)}${percentiles.size === 1 ? "" : ` (${check.percentile})`}`,
            side.costPer1000 === null ? "–" : formatUsd(side.costPer1000),
        ];
    }));
    return {
        slos: checks.map((check) => `${cell(check.cell)} at ${sloClause(check)}`),
        header: ["Cell", "Side", header, wait, "$ per 1,000"],
        rows,
        note: [
            ...(units.has("requests")
                ? [
                    "Requests per hour: successful requests at the highest load at which every SLO held (the capacity)",
                ]
                : []),
            ...(units.has("sessions")
                ? [
                    "Sessions per GPU-hour: completed sessions at the highest load at which every SLO held (the capacity), per GPU (cost.gpus)",
                ]
                : []),
            "the wait: at that load",
        ].join("; "),
    };
}
/** The long form: per capacity cell its verdict and sentence, its note and its tables. */
function capacitySection(verdict) {
    const checks = verdict.capacity ?? [];
    if (checks.length === 0)
        return "";
    const lines = ["### Capacity at the SLOs"];
    for (const check of checks) {
        lines.push("", `**${escapeInline(check.cell, 60)}** — ${verdictLabels[check.verdict]}${check.gated ? "" : " (advisory)"}${check.p === null ? "" : `, p ${formatP(check.p)}`}: ${capacitySentence(check)}`);
        if (check.note)
            lines.push("", `_${escapeInline(check.note, 300)}_`);
        lines.push("", capacityTables(check));
    }
    return lines.join("\n");
}
/** The comment: per capacity cell a fold with its tables (the first screen has its sentence). */
function capacityFolds(verdict) {
    return (verdict.capacity ?? [])
        .map((check) => fold(`Capacity of ${escapeHtml(check.cell, 60)}: ${verdictLabels[check.verdict].replace(/^\S+ /, "")}${check.p === null ? "" : `, p ${formatP(check.p)}`}; each SLO and both sides`, capacityTables(check)))
        .join("\n\n");
}

const arrow = (higherIsBetter) => (higherIsBetter ? " ↑" : " ↓");
function isFindingVerdict(verdict) {
    return verdict === "regression" || verdict === "improvement" || verdict === "inconclusive";
}
/**
 * A speed check in users' words, from the metric's catalogue entry (`plain`): a decided check as the
 * change, with both sides' figures; an open one as the question still open, with the change so far.
 */
function meaningOf(c) {
    if (c.baseline === null || c.candidate === null)
        return null;
    const spec = metricSpecs[c.metric];
    const up = c.candidate > c.baseline;
    const more = up ? "more" : "fewer";
    const plain = spec.plain;
    const subject = plain.kind === "wait"
        ? `${spec.source.kind === "latency" ? slowestUsers(spec.source.statistic) : "users"} wait`
        : plain.kind === "per-hour"
            ? "it completes"
            : "there are";
    if (c.verdict === "inconclusive") {
        const soFar = `(${c.ratio === null ? formatValuePair(c.metric, c.baseline, c.candidate) : formatChange(c.ratio)} so far)`;
        switch (plain.kind) {
            case "wait":
                return { subject, detail: `${up ? "longer" : "less"} ${plain.waitFor} ${soFar}` };
            case "per-hour":
                return { subject, detail: `${more} ${plain.noun} per hour ${soFar}` };
            case "amount":
            case "share":
                return { subject, detail: `${more} ${plain.noun} ${soFar}` };
        }
    }
    const figures = `${spec.label} ${formatValuePair(c.metric, c.baseline, c.candidate)}`;
    switch (plain.kind) {
        case "wait":
            return {
                subject,
                detail: `${formatDuration(Math.abs(c.candidate - c.baseline))} ${up ? "longer" : "less"} ${plain.waitFor} (${figures})`,
            };
        case "per-hour": {
            const hourly = (perSecond) => formatNumber(perSecond * 3600);
            return {
                subject,
                detail: `${hourly(Math.abs(c.candidate - c.baseline))} ${more} ${plain.noun} per hour (${hourly(c.baseline)}${noBreakSpace}→${noBreakSpace}${hourly(c.candidate)})`,
            };
        }
        case "amount": {
            const percent = c.ratio === null ? "" : `${Math.abs((c.ratio - 1) * 100).toFixed(1)}% `;
            return { subject, detail: `${percent}${more} ${plain.noun} (${figures})` };
        }
        case "share":
            return { subject, detail: `${more} ${plain.noun} (${figures})` };
    }
}
function speedFinding(c) {
    if (!c.gated || !isFindingVerdict(c.verdict))
        return null;
    return {
        verdict: c.verdict,
        kind: "speed",
        cell: c.cell,
        check: describeMetric(c.metric) + arrow(c.higherIsBetter),
        values: formatValuePair(c.metric, c.baseline, c.candidate),
        change: formatChange(c.ratio),
        interval: formatIntervalOneLine(c.ci),
        tolerance: `±${formatFractionAsPercent(c.tolerance)}`,
        note: c.note,
        meaning: meaningOf(c),
    };
}
function capacityFinding(check) {
    if (!check.gated || !isFindingVerdict(check.verdict))
        return null;
    const unit = check.dimension === "rate" ? "req/s" : "in flight";
    // A side whose capacity is outside the loads measured: "≥ 32" (every load met the SLOs), "< 4" (none did).
    const side = ({ capacity, bound }) => capacity === null
        ? "–"
        : `${bound === "above" ? "≥" : bound === "below" ? "<" : ""}${formatNumber(capacity)}`;
    return {
        verdict: check.verdict,
        kind: "capacity",
        cell: check.cell,
        check: "Capacity at the SLOs ↑",
        values: `${side(check.baseline)}${noBreakSpace}→${noBreakSpace}${side(check.candidate)}${noBreakSpace}${unit}`,
        change: formatChange(check.ratio),
        interval: formatIntervalOneLine(check.ci),
        tolerance: `±${formatFractionAsPercent(check.tolerance)}`,
        note: check.note,
        meaning: null,
    };
}
/** "+5.2 pts", "−10.5 pts": a change of a share in percentage points. */
function points(from, to) {
    if (from === null || to === null)
        return "–";
    const change = (to - from) * 100;
    return `${change > 0 ? "+" : change < 0 ? "−" : "±"}${Math.abs(change).toFixed(1)}${noBreakSpace}pts`;
}
function guardFinding(check) {
    if (check.verdict !== "regression")
        return null;
    const spec = metricSpecs[check.metric];
    const relative = check.toleranceKind === "relative";
    const change = relative && check.baseline !== null && check.candidate !== null && check.baseline > 0
        ? formatChange(check.candidate / check.baseline)
        : points(check.baseline, check.candidate);
    const pair = formatValuePair(check.metric, check.baseline, check.candidate);
    const up = (check.candidate ?? 0) > (check.baseline ?? 0);
    return {
        verdict: "regression",
        kind: "quality",
        cell: check.cell,
        check: `${spec.label} ↓`,
        values: pair,
        change,
        interval: "–",
        tolerance: relative
            ? `±${formatFractionAsPercent(check.tolerance)}`
            : `+${Number((check.tolerance * 100).toPrecision(3))}${noBreakSpace}pts`,
        note: check.note,
        meaning: {
            subject: "there are",
            detail: `${up ? "more" : "fewer"} ${spec.plain.kind === "wait" ? spec.label : spec.plain.noun} (${pair}): the outputs changed, so no speed result of this cell is an improvement`,
        },
    };
}
const percent$1 = (share) => `${(share * 100).toFixed(1)}%`;
function taskFinding(check) {
    if (check.verdict !== "regression")
        return null;
    const pair = `${percent$1(check.baseline.accuracy)}${noBreakSpace}→${noBreakSpace}${percent$1(check.candidate.accuracy)}`;
    return {
        verdict: "regression",
        kind: "quality",
        cell: check.external === undefined ? check.cell : `${check.cell}: external ${check.external}`,
        check: "Task accuracy ↑",
        values: pair,
        change: points(check.baseline.accuracy, check.candidate.accuracy),
        interval: "–",
        tolerance: `−${Number((check.tolerancePoints * 100).toPrecision(3))}${noBreakSpace}pts`,
        note: check.note,
        meaning: {
            subject: "it answers",
            detail: `fewer tasks right (${pair}; ${check.onlyBaseline} only the baseline got right, ${check.onlyCandidate} only the candidate)`,
        },
    };
}
function greedyFinding(check) {
    if (check.verdict !== "regression")
        return null;
    const identical = (share) => percent$1(1 - share);
    const noise = check.baselineNoise === null ? "–" : identical(check.baselineNoise.changedShare);
    return {
        verdict: "regression",
        kind: "quality",
        cell: check.cell,
        check: "Identical greedy outputs ↑",
        values: `${noise}${noBreakSpace}→${noBreakSpace}${identical(check.candidate.changedShare)}`,
        change: "–",
        interval: "–",
        tolerance: "quality.greedy",
        note: null,
        meaning: {
            subject: "the answers at temperature 0",
            detail: `changed: ${identical(check.candidate.changedShare)} of ${check.candidate.prompts} prompts give the baseline's answer${check.baselineNoise === null ? "" : ` (the baseline gives its own on ${noise})`}`,
        },
    };
}
/**
 * A family test that found something: one gated metric across a workload family's cells, on average
 * beyond the tolerance (docs/compare.md, "Family tests"); which cells regressed on their own is its note.
 */
function familyFinding(f) {
    if (f.verdict === "no-finding")
        return null;
    const spec = metricSpecs[f.metric];
    const up = f.ratio > 1;
    const percent = `${Math.abs((f.ratio - 1) * 100).toFixed(1)}%`;
    const across = `on average across the ${f.cells.length} cells`;
    const plain = spec.plain;
    const meaning = plain.kind === "wait"
        ? {
            subject: `${spec.source.kind === "latency" ? slowestUsers(spec.source.statistic) : "users"} wait`,
            detail: `${percent} ${up ? "longer" : "less"} ${plain.waitFor}, ${across} (${spec.label})`,
        }
        : {
            subject: plain.kind === "per-hour" ? "it completes" : "there are",
            detail: `${percent} ${up ? "more" : "fewer"} ${plain.noun}${plain.kind === "per-hour" ? " per hour" : ""}, ${across} (${spec.label})`,
        };
    return {
        verdict: f.verdict,
        kind: "family",
        cell: `${f.family} (${f.cells.length} cells)`,
        check: describeMetric(f.metric) + arrow(f.higherIsBetter),
        values: "family average",
        change: formatChange(f.ratio),
        interval: formatIntervalOneLine(f.ci),
        tolerance: `±${formatFractionAsPercent(f.tolerance)}`,
        note: f.verdict !== "regression"
            ? null
            : f.regressedCells.length > 0
                ? `a regression on its own in ${f.regressedCells.join(", ")}`
                : "no cell is a regression on its own yet",
        meaning,
    };
}
const order = { regression: 0, improvement: 1, inconclusive: 2 };
/** Every finding of the verdict: regressions first, then improvements, then the open checks. */
function findingsOf(verdict) {
    const findings = [
        ...verdict.comparisons.map(speedFinding),
        ...(verdict.families ?? []).map(familyFinding),
        ...(verdict.capacity ?? []).map(capacityFinding),
        ...(verdict.quality?.guards ?? []).map(guardFinding),
        ...(verdict.quality?.tasks ?? []).map(taskFinding),
        ...(verdict.quality?.greedy ?? []).map(greedyFinding),
    ].filter((finding) => finding !== null);
    return findings
        .map((finding, index) => ({ finding, index }))
        .sort((a, b) => order[a.finding.verdict] - order[b.finding.verdict] || a.index - b.index)
        .map(({ finding }) => finding);
}

/** Publication context of a report read on its own (compare, the demo): the files beside it. */
const besideFiles = {
    links: { kind: "beside", report: "report.md", html: "report.html" },
    override: null,
};
const verdictIcons = {
    pass: "✅",
    regression: "❌",
    inconclusive: "⚠️",
    "not-comparable": "🚫",
    error: "⛔",
};
const verdictTitles = {
    pass: "pass",
    regression: "regression",
    inconclusive: "inconclusive",
    "not-comparable": "not comparable",
    error: "error",
};
const findingLabels = {
    regression: "🔴 regression",
    improvement: "🟢 improvement",
    inconclusive: "🟡 inconclusive",
};
const findingTones = {
    regression: "bad",
    improvement: "good",
    inconclusive: "open",
};
const plural = (count, word, words = `${word}s`) => `${count} ${count === 1 ? word : words}`;
/** "A, B and 3 more": at most `shown` names. */
function nameList(names, shown = 3) {
    const head = names.slice(0, shown);
    const rest = names.length - head.length;
    if (rest > 0)
        return `${head.join(", ")} and ${rest} more`;
    return head.length <= 1 ? (head[0] ?? "") : `${head.slice(0, -1).join(", ")} and ${head.at(-1)}`;
}
/** The checks a reason names: "TTFT p95 of longgen". */
function checkNames(findings, markup) {
    return nameList(findings.map((f) => `${f.check.replace(/ [↑↓]$/, "")} of ${markup.text(f.cell, 60)}`));
}
/** The one-line reason under the verdict. */
function reason(verdict, findings, markup) {
    const regressions = findings.filter((f) => f.verdict === "regression");
    const improvements = findings.filter((f) => f.verdict === "improvement");
    const open = findings.filter((f) => f.verdict === "inconclusive");
    switch (verdict.verdict) {
        case "regression": {
            const quality = regressions.filter((f) => f.kind === "quality");
            const family = regressions.filter((f) => f.kind === "family");
            const speed = regressions.filter((f) => f.kind === "speed" || f.kind === "capacity");
            const parts = [];
            const mixed = verdict.mixed.length > 0 ? "; other phases got better (a mixed result)" : "";
            if (speed.length > 0)
                parts.push(`${plural(speed.length, "gated check")} got worse beyond the tolerance: ${checkNames(speed, markup)}${mixed}`);
            if (family.length > 0)
                parts.push(`${speed.length > 0 ? "On average across a workload family's cells, " : "No cell alone, but on average across a workload family's cells, "}${checkNames(family, markup)} got worse beyond the tolerance${speed.length > 0 ? "" : mixed}`);
            if (quality.length > 0)
                parts.push(`${plural(quality.length, "quality check")} got worse: ${checkNames(quality, markup)}; the outputs changed, so no speed result is an improvement`);
            return `${parts.join(". ")}.`;
        }
        case "pass":
            return improvements.length > 0
                ? `No gated check got worse beyond the tolerance; ${checkNames(improvements, markup)} improved.`
                : "No gated check got worse beyond the tolerance.";
        case "inconclusive":
            return `The runs cannot yet tell ${open.length === 1 ? "1 check" : `${open.length} checks`} from a regression: ${checkNames(open, markup)}.`;
        case "error": {
            const broken = verdict.cells
                .filter((cell) => cell.status.startsWith("missing-"))
                .map((cell) => markup.text(cell.name, 60));
            const excluded = verdict.runs.excluded.length;
            if (broken.length === 0)
                return `${verdict.headline.replace(/^[^:]+: /, "")}.`;
            return `${nameList(broken)} ${broken.length === 1 ? "has" : "have"} no usable runs on one side${excluded > 0 ? `: ${excluded} of ${excluded + verdict.runs.used.length} runs were excluded` : ""}.`;
        }
        case "not-comparable":
            // The headline is compare's own words with counts only.
            return `${verdict.headline.replace(/^[^:]+: /, "")}.`;
    }
}
/** "10 gated checks in 3 cells: 1 regressed · 5 within tolerance · 4 inconclusive · tolerance ±10%". */
function tally(verdict, markup) {
    const c = verdict.counts;
    const notDecidable = verdict.budget?.notDecidable ?? 0;
    const parts = nonZeroCounts([
        [c.regression, "regressed"],
        [c.improvement, "improved"],
        [c.withinTolerance, "within tolerance"],
        [c.inconclusive - notDecidable, "inconclusive"],
        [notDecidable, "not decidable at this budget"],
    ], (count) => markup.strong(String(count)));
    const cells = verdict.cells.length + (verdict.capacity?.length ?? 0);
    const checks = c.gated > 0 ? `${plural(c.gated, "gated check")} in ` : "";
    return `${checks}${plural(cells, "cell")}${parts.length > 0 ? `: ${parts.join(" · ")}` : ""} · tolerance ±${formatFractionAsPercent(verdict.settings.tolerance)}`;
}
/** The fields that make the sides not comparable, each with its value on both sides (at most `limit`). */
function blockingDifferenceItems(verdict, markup, limit = 5) {
    const blocking = verdict.fingerprints.differences.filter((d) => !d.allowed && !d.informational);
    const value = (v) => v === undefined || v === null ? "–" : typeof v === "string" ? v : JSON.stringify(v);
    const items = blocking
        .slice(0, limit)
        .map((d) => `${markup.text(d.field, 80)}: ${markup.text(value(d.baseline), 60)} (baseline) vs ${markup.text(value(d.candidate), 60)} (candidate)`);
    if (blocking.length > limit)
        items.push(`… and ${blocking.length - limit} more (see verdict.json)`);
    return items;
}
const verdictHead = (verdict, _context, markup) => {
    const findings = findingsOf(verdict);
    const blocks = [
        {
            kind: "heading",
            verdict: verdict.verdict,
            title: verdictTitles[verdict.verdict],
            icon: verdictIcons[verdict.verdict],
        },
        { kind: "paragraph", lines: [markup.strong(reason(verdict, findings, markup)), tally(verdict, markup)] },
    ];
    const blocking = blockingDifferenceItems(verdict, markup);
    if (blocking.length > 0)
        blocks.push({ kind: "list", title: "Not comparable:", items: blocking });
    return blocks;
};
/** Most findings the first screen's table shows; the rest are counted under it. */
const maxFindingRows = 20;
/**
 * Most open checks that get a row each; with more, the table has the decided ones and the open checks
 * are listed per cell under "What it means" (a matrix of 19 cells can leave dozens open at a look).
 */
const maxOpenRows = 10;
/** The findings with a row in the table. */
function tableFindings(findings) {
    const open = findings.filter((f) => f.verdict === "inconclusive");
    return open.length > maxOpenRows ? findings.filter((f) => f.verdict !== "inconclusive") : [...findings];
}
/**
 * The findings table, verdict first: cell, check (and its tolerance when checks differ in it), baseline →
 * candidate, change and decision interval; a note is a footnote under the table.
 */
function findingsTable(findings, verdict, markup) {
    if (findings.length === 0)
        return [];
    const shown = findings.slice(0, maxFindingRows);
    const tolerances = new Set(shown.map((f) => f.tolerance));
    const sharedTolerance = tolerances.size === 1 &&
        shown[0].tolerance === `±${formatFractionAsPercent(verdict.settings.tolerance)}`;
    const notes = new Footnotes();
    // No-break spaces: a verdict and a check each stay on one line of the narrow table.
    const oneLine = (text) => text.replaceAll(" ", noBreakSpace);
    const rows = shown.map((f) => {
        return [
            markup.tone(findingTones[f.verdict], `${oneLine(findingLabels[f.verdict])}${notes.mark(f.note)}`),
            markup.cell(f.cell, 40),
            // Checks of different tolerances (a guard's points beside a latency's percent) say theirs.
            sharedTolerance ? oneLine(f.check) : `${oneLine(f.check)} (${oneLine(f.tolerance)})`,
            f.values,
            // The change and its decision interval in one column: the table stays within 900 px.
            f.interval === "–" ? f.change : `${f.change} (${f.interval})`,
        ];
    });
    const header = [
        "Verdict",
        "Cell",
        sharedTolerance ? "Check" : "Check (tolerance)",
        "Baseline → candidate",
        "Change (interval)",
    ];
    const footnotes = notes.text((note) => markup.text(note, 160));
    const more = findings.length - shown.length;
    return [
        {
            kind: "table",
            header,
            rows,
            notes: [
                ...(footnotes ? [footnotes] : []),
                ...(more > 0 ? [`${more} more in the full report`] : []),
                "Interval: the decision interval of the change; a regression when all of it lies beyond the tolerance, within tolerance when its worse end is inside",
            ].join(" · "),
        },
    ];
}
const findingsPart = (verdict, _context, markup) => findingsTable(tableFindings(findingsOf(verdict)), verdict, markup);
/** "about 3 GPU-minutes": minutes for people. */
function gpuMinutes(minutes) {
    return `${minutes < 10 ? Number(minutes.toFixed(1)) : Math.round(minutes)} GPU-minutes`;
}
/** What the adaptive loop asks for next, and what would settle the open checks, with their GPU cost. */
const settling = (verdict, _context, markup) => {
    const lines = [];
    const n = verdict.nextLook;
    if (n) {
        const added = `add ${n.addCandidateRuns} candidate${n.addBaselineRuns > 0 ? ` and ${n.addBaselineRuns} baseline` : ""} run${n.addCandidateRuns + n.addBaselineRuns === 1 ? "" : "s"}`;
        const cost = n.gpuMinutes === undefined ? "" : `, about ${gpuMinutes(n.gpuMinutes)}`;
        lines.push(`${markup.strong("More runs needed:")} ${n.runsPerSide} runs per side (${added}${cost}): ${markup.text(n.reason, 300)}.`);
    }
    const settle = settleSentence(verdict, markup);
    if (settle)
        lines.push(settle);
    const atTolerance = atToleranceSentence(verdict, markup);
    if (atTolerance)
        lines.push(atTolerance);
    return lines.length > 0 ? [{ kind: "paragraph", lines }] : [];
};
/** Under a budget: what was spent of it, and the smallest change each metric's checks could catch. */
const budgetPart = (verdict, _context, markup) => {
    const line = budgetSpentLine(verdict);
    return line === null
        ? []
        : [{ kind: "paragraph", lines: [`${markup.strong("Budget:")} ${markup.text(line, 600)}.`] }];
};
/** The maximum of at-the-tolerance checks named in the first screen; the rest are counted. */
const atToleranceShown = 3;
/**
 * "At the tolerance: TTFT p95 in rag-fresh-low +4.8% … +5.3% (tolerance 5%)": checks whose estimate
 * sits on the tolerance, which more runs would not decide, so the loop stopped for them.
 */
function atToleranceSentence(verdict, markup) {
    const checks = verdict.atTolerance ?? [];
    if (checks.length === 0)
        return null;
    const named = checks
        .slice(0, atToleranceShown)
        .map((c) => `${describeMetricRef(c.metric)} in ${markup.text(c.cell, 60)} ${formatInterval(c.ci)} (tolerance ${formatFractionAsPercent(c.tolerance)})`);
    const more = checks.length - named.length;
    return `${markup.strong("At the tolerance:")} ${named.join("; ")}${more > 0 ? `; ${more} more` : ""}. A true change this close to the tolerance is not decided by more runs up to repeats.max, so none were added for ${checks.length === 1 ? "it" : "them"}.`;
}
/**
 * "About 7 usable runs per side (2 more) and ~24 GPU-minutes would settle it", for an inconclusive
 * verdict, with what was spent so far.
 */
function settleSentence(verdict, markup) {
    const s = verdict.settle;
    if (!s)
        return null;
    const spent = verdict.gpuMinutes ? `; spent so far: ~${gpuMinutes(verdict.gpuMinutes.total)}` : "";
    if (s.runsPerSide === null)
        return `More runs up to repeats.max would not settle ${markup.text(nameList(s.cells), 200)} with the current estimates${spent}.`;
    return `About ${s.runsPerSide} usable runs per side (${s.addRuns} more) and ~${gpuMinutes(s.gpuMinutes ?? 0)} would settle it if the estimates hold${spent}.`;
}
/** Per capacity cell: requests per hour (a session cell's sessions per GPU-hour) at the SLOs, and how long the slowest users wait there, both sides. */
const capacityAnswers = (verdict, _context, markup) => {
    const checks = verdict.capacity ?? [];
    if (checks.length === 0)
        return [];
    const answer = capacityAnswerRows(checks, (cell) => markup.cell(cell, 40));
    return [
        { kind: "paragraph", lines: [`${markup.strong("Capacity at the SLOs")}: ${answer.slos.join("; ")}.`] },
        {
            kind: "table",
            header: answer.header,
            rows: answer.rows,
            notes: answer.note,
        },
    ];
};
/** Most cells "What it means" speaks of. */
const maxMeaningCells = 8;
/**
 * What the findings mean for users: one item per decided finding, one per cell for the open ones. Never a
 * cell where nothing was found.
 */
const meaning = (verdict, _context, markup) => {
    const findings = findingsOf(verdict).filter((f) => f.meaning !== null);
    if (findings.length === 0)
        return [];
    // One item per cell: what was decided there, then what is still open; findings of one subject
    // ("the slowest 5% wait") in one clause.
    const byCell = new Map();
    for (const f of findings) {
        const entry = byCell.get(f.cell) ?? { decided: [], open: [] };
        (f.verdict === "inconclusive" ? entry.open : entry.decided).push(f.meaning);
        byCell.set(f.cell, entry);
    }
    const clauses = (meanings, join) => {
        const bySubject = new Map();
        for (const m of meanings)
            bySubject.set(m.subject, [...(bySubject.get(m.subject) ?? []), m.detail]);
        return [...bySubject].map(([subject, details]) => `${subject} ${details.join(join)}`);
    };
    const items = [...byCell].map(([cell, { decided, open }]) => {
        const said = [
            ...clauses(decided, " and "),
            ...(open.length > 0 ? [`not settled yet whether ${clauses(open, ", ").join("; or whether ")}`] : []),
        ];
        return `${markup.strong(markup.text(cell, 60))}: ${said.join("; ")}.`;
    });
    const shown = items.slice(0, maxMeaningCells);
    if (items.length > shown.length)
        shown.push(`… and ${items.length - shown.length} more cells (in the full report).`);
    return [{ kind: "list", title: "What it means:", items: shown }];
};
/** Some phases better, others worse: "faster" depends on the phase. */
const mixed = (verdict, _context, markup) => {
    if (verdict.mixed.length === 0)
        return [];
    const names = (refs) => refs.map((ref) => markup.text(describeMetricRef(ref), 120)).join(", ");
    return [
        {
            kind: "list",
            title: "Mixed result: some phases got better while others got worse.",
            items: verdict.mixed.map((m) => `${markup.text(m.cell, 60)}: better ${names(m.better)}; worse ${names(m.worse)}.`),
        },
    ];
};
/** Cells that could not be compared, and why. */
const notCompared = (verdict, _context, markup) => {
    const problems = verdict.cells.filter((cell) => cell.status !== "compared");
    if (problems.length === 0)
        return [];
    const items = problems
        .slice(0, 3)
        .map((cell) => `${markup.strong(markup.text(cell.name, 60))}: ${cell.status.replace(/-/g, " ")} (${cell.baselineRuns} baseline, ${cell.candidateRuns} candidate usable runs)${cell.note ? `: ${markup.text(cell.note, 200)}` : ""}.`);
    if (problems.length > 3)
        items.push(`… and ${problems.length - 3} more cells.`);
    return [{ kind: "list", title: "Not fully compared:", items }];
};
/** How many runs were excluded, by the kind of their first reason ("client-bound: …"). */
const excluded = (verdict, context, markup) => {
    const runs = verdict.runs.excluded;
    if (runs.length === 0)
        return [];
    const kinds = new Map();
    for (const run of runs) {
        const kind = (run.reasons[0] ?? "excluded").split(":")[0].trim();
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    const byKind = [...kinds]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([kind, count]) => `${count} ${markup.text(kind, 40)}`)
        .join(", ");
    const total = verdict.runs.used.length + runs.length;
    return [
        {
            kind: "paragraph",
            lines: [
                `${markup.strong(`${runs.length} of ${total} runs excluded`)} (${byKind}${kinds.size > 3 ? ", …" : ""}); ${context.form === "terminal" ? "report.md lists them" : "the list is below"}.`,
            ],
        },
    ];
};
/** The override label: applied (by whom), or how to accept a failing verdict. */
function overrideLine(override, markup) {
    if (override.applied && override.failing) {
        const by = override.appliedBy
            ? markup.code(override.appliedBy)
            : "someone (the label events did not say who)";
        return `${markup.strong("Accepted:")} the label ${markup.code(override.label)} was applied by ${by}, so this check passes despite the verdict.`;
    }
    if (override.failing)
        return `This check fails. Adding the label ${markup.code(override.label)} to the pull request accepts the result (the comment then names who added it).`;
    return null;
}
const override = (_verdict, context, markup) => {
    const line = context.override ? overrideLine(context.override, markup) : null;
    return line ? [{ kind: "paragraph", lines: [line] }] : [];
};
/** A change of method, said where the verdict is read, not only in the provenance line below. */
function methodChangeLine(change, markup) {
    return `${markup.strong("Method changed:")} ${markup.text(change, 400)}.`;
}
const methodChange = (_verdict, context, markup) => context.methodChange
    ? [{ kind: "paragraph", lines: [methodChangeLine(context.methodChange, markup)] }]
    : [];
/** Where the rest is: the comment links to the full report and the charts, the long form to the charts. */
const links = (_verdict, context, markup) => {
    const where = context.links;
    if (!where || context.form === "terminal")
        return [];
    const charts = where.kind === "actions-run"
        ? `${markup.code("compare/report.html")} in the artifact ${markup.link(markup.code(where.artifactName), `${where.runUrl}#artifacts`)}`
        : `${markup.code(where.html)} (beside this file)`;
    const full = where.kind === "actions-run" ? markup.link("job summary", where.runUrl) : markup.code(where.report);
    const text = context.form === "comment"
        ? `Full report: ${full} (every metric of every cell) · with charts: ${charts}`
        : `With charts: ${charts}`;
    return [{ kind: "paragraph", lines: [text] }];
};
/** The first screen, in order. */
const firstScreenParts = [
    verdictHead,
    override,
    methodChange,
    findingsPart,
    settling,
    budgetPart,
    capacityAnswers,
    meaning,
    mixed,
    notCompared,
    excluded,
    links,
];
function firstScreenBlocks(verdict, context, markup) {
    return firstScreenParts.flatMap((part) => part(verdict, context, markup));
}

/**
 * The comment's pictures: at most `maxCommentCharts` small mermaid `xychart-beta` charts, which GitHub
 * renders in markdown. The markdown report sheds this section first when the comment is over budget.
 * Labels are reduced to letters, digits and a few safe marks (mermaid reads quotes, brackets and HTML in
 * them), so no outside string can change the chart or the page.
 */
/** Most mermaid charts in a comment. */
const maxCommentCharts = 2;
/** Most gated checks one chart shows (the ones with the largest worsening). */
const maxChartChecks = 12;
/** A mermaid-safe label: letters, digits, space and . _ / - only, at most `max` characters. */
function mermaidLabel(value, max = 28) {
    const cleaned = value
        .normalize("NFKD")
        .replace(/[^A-Za-z0-9 ._/-]+/g, " ")
        .replace(/\s+/g, " ")
        .trim();
    return cleaned.length > max ? `${cleaned.slice(0, max - 1).trimEnd()}.` : cleaned || "-";
}
/** Worsening in percent for a ratio in the metric's direction (a throughput drop counts as worse). */
function worsening(c, ratio) {
    return ((c.higherIsBetter ? 1 / ratio : ratio) - 1) * 100;
}
function round(value) {
    const r = Math.round(value * 10) / 10;
    return String(Object.is(r, -0) ? 0 : r);
}
/**
 * Per gated check with an interval: the worse and the better end of the decision interval as
 * worsening in %, against the tolerance (a line). Regression: both bars above the line; within
 * tolerance: the taller bar below it.
 */
const intervalChart = (verdict) => {
    const checks = verdict.comparisons
        .filter((c) => c.gated && c.ci !== null)
        .map((c) => {
        const ends = [worsening(c, c.ci[0]), worsening(c, c.ci[1])].sort((a, b) => a - b);
        return { c, better: ends[0], worse: ends[1] };
    });
    if (checks.length === 0)
        return null;
    const shown = [...checks]
        .sort((a, b) => b.worse - a.worse)
        .slice(0, maxChartChecks)
        .sort((a, b) => checks.indexOf(a) - checks.indexOf(b));
    const cells = new Set(shown.map((s) => s.c.cell));
    const labels = shown.map((s) => mermaidLabel(cells.size > 1 ? `${s.c.cell} ${describeMetric(s.c.metric)}` : describeMetric(s.c.metric)));
    const values = shown.flatMap((s) => [s.better, s.worse, s.c.tolerance * 100]);
    const top = Math.ceil(Math.max(5, ...values) / 5) * 5;
    const bottom = Math.floor(Math.min(0, ...values) / 5) * 5;
    const more = checks.length > shown.length ? ` (${shown.length} of ${checks.length}, most worsened)` : "";
    const source = [
        "xychart-beta",
        `  title "Decision interval per gated check, worsening %${more}"`,
        `  x-axis [${labels.map((l) => `"${l}"`).join(", ")}]`,
        `  y-axis "worsening %" ${bottom} --> ${top}`,
        `  bar [${shown.map((s) => round(s.worse)).join(", ")}]`,
        `  bar [${shown.map((s) => round(s.better)).join(", ")}]`,
        `  line [${shown.map((s) => round(s.c.tolerance * 100)).join(", ")}]`,
    ].join("\n");
    return {
        source,
        caption: "Bars: the worse and the better end of each check's decision interval as worsening in %; line: the tolerance. Regression when both ends are above the line, within tolerance when the worse end is below it.",
    };
};
/** Loads the comment's latency-vs-load chart is drawn at. */
const loadChartPoints = 8;
/** Linear interpolation of a side's curve at `load` (inside its measured range only). */
function interpolate(points, load) {
    for (let i = 0; i < points.length; i++) {
        const p = points[i];
        if (p.load === load)
            return p.value;
        const next = points[i + 1];
        if (next && p.load < load && load < next.load)
            return p.value + ((next.value - p.value) * (load - p.load)) / (next.load - p.load);
    }
    return null;
}
/**
 * For the first capacity cell with a load curve on both sides (else the first sweep compared without a
 * capacity config): TTFT at the cell's percentile (E2E when no TTFT was measured) against load, one line
 * per side (baseline first), resampled at `loadChartPoints` evenly spaced loads over the range both sides
 * measured (xychart-beta spaces its points evenly), and the SLO as a third line when the cell has one.
 */
const loadCurveCommentChart = (verdict) => {
    const pictures = [
        ...(verdict.capacity ?? []).flatMap((check) => capacityLoadPicture(check) ?? []),
        ...(verdict.sweeps ?? []).map(sweepLoadPicture),
    ];
    for (const picture of pictures) {
        for (const figure of ["ttftMs", "e2elMs"]) {
            const side = (name) => (picture.series.find((s) => s.side === name)?.points ?? []).flatMap((p) => p[figure] === null ? [] : [{ load: p.load, value: p[figure] }]);
            const b = side("baseline");
            const c = side("candidate");
            if (b.length < 2 || c.length < 2)
                continue;
            const lo = Math.max(b[0].load, c[0].load);
            const hi = Math.min(b[b.length - 1].load, c[c.length - 1].load);
            if (!(hi > lo))
                continue;
            const loads = Array.from({ length: loadChartPoints }, (_, i) => lo + ((hi - lo) * i) / (loadChartPoints - 1));
            loads[loads.length - 1] = hi; // exactly the last load measured, not a rounding of it
            const bv = loads.map((load) => interpolate(b, load));
            const cv = loads.map((load) => interpolate(c, load));
            const slo = figure === "ttftMs" ? picture.slo.ttft_ms : picture.slo.e2el_ms;
            const all = [...bv, ...cv, ...(slo === undefined ? [] : [slo])];
            const top = Math.ceil((largest(all) * 1.05) / 10) * 10;
            const what = `${figure === "ttftMs" ? "TTFT" : "E2E"} ${mermaidLabel(picture.percentile, 4)} ms`;
            const unit = picture.dimension === "concurrency" ? "concurrency" : "requests per s";
            const source = [
                "xychart-beta",
                `  title "${mermaidLabel(picture.cell, 40)} ${what} against load"`,
                `  x-axis "${unit}" [${loads.map((l) => `"${round(l)}"`).join(", ")}]`,
                `  y-axis "${what}" 0 --> ${top}`,
                `  line [${bv.map(round).join(", ")}]`,
                `  line [${cv.map(round).join(", ")}]`,
                ...(slo === undefined ? [] : [`  line [${loads.map(() => round(slo)).join(", ")}]`]),
            ].join("\n");
            const reading = picture.kind === "capacity"
                ? " Where a side's line crosses the SLO is its capacity."
                : slo === undefined
                    ? " A load sweep without a capacity config: no capacity was computed."
                    : " A load sweep without a capacity config: where a side's line crosses the SLO is where its capacity would be.";
            return {
                source,
                caption: `Lines: the baseline's (first) and the candidate's ${what} against load, interpolated between the loads measured over the range both sides measured${slo === undefined ? "" : "; flat line: the SLO"}.${reading}`,
            };
        }
    }
    return null;
};
/**
 * For the first session cell with at least two context-depth buckets both sides have a TTFT p95 in:
 * each side's TTFT p95 (the geometric mean over runs compare judged) per depth bucket, shallow to deep,
 * one line per side (baseline first). xychart-beta draws a line through every x label, so a bucket only
 * one side has is left out here (report.html draws it, with every run).
 */
const depthCommentChart = (verdict) => {
    const cells = [...new Set(verdict.comparisons.map((c) => c.cell))];
    const drawable = cells.flatMap((cell) => {
        const points = depthAxis.flatMap(({ bucket, label }) => {
            const c = verdict.comparisons.find((x) => x.cell === cell && x.metric === depthMetric(bucket));
            return c && c.baseline !== null && c.candidate !== null
                ? [{ label, baseline: c.baseline, candidate: c.candidate }]
                : [];
        });
        return points.length >= 2 ? [{ cell, points }] : [];
    });
    const first = drawable[0];
    if (!first)
        return null;
    const top = Math.ceil((largest(first.points.flatMap((p) => [p.baseline, p.candidate])) * 1.05) / 10) * 10;
    const source = [
        "xychart-beta",
        `  title "${mermaidLabel(first.cell, 40)} TTFT p95 ms against context depth"`,
        `  x-axis "turn number" [${first.points.map((p) => `"${mermaidLabel(p.label, 12)}"`).join(", ")}]`,
        `  y-axis "TTFT p95 ms" 0 --> ${top}`,
        `  line [${first.points.map((p) => round(p.baseline)).join(", ")}]`,
        `  line [${first.points.map((p) => round(p.candidate)).join(", ")}]`,
    ].join("\n");
    const others = drawable.length - 1;
    return {
        source,
        caption: `Lines: the baseline's (first) and the candidate's TTFT p95 per context-depth bucket (the turn number of the request, 1 = a session's first), geometric means over runs, the buckets both sides have. The candidate's line climbing faster with depth is a cost that grows with the conversation.${others > 0 ? ` ${others} more session cell${others === 1 ? " is" : "s are"} drawn in report.html.` : ""}`,
    };
};
/**
 * The chart kinds of the comment, in order; capacity load curves add theirs here. At most
 * `maxCommentCharts` are drawn.
 */
const commentCharts = [intervalChart, loadCurveCommentChart, depthCommentChart];
/**
 * The section with the charts, or "" when there is nothing to draw; `pointer` adds where the other
 * charts are (the comment's first screen links there already).
 */
function commentChartsSection(verdict, charts = commentCharts, { pointer = true } = {}) {
    const drawn = charts
        .map((chart) => chart(verdict))
        .filter((chart) => chart !== null)
        .slice(0, maxCommentCharts);
    if (drawn.length === 0)
        return "";
    return [
        "### Pictures",
        "",
        ...drawn.flatMap((chart) => ["```mermaid", chart.source, "```", "", chart.caption, ""]),
        ...(pointer
            ? [
                "Every run of both sides, the latency distributions, a run timeline, the load curves of capacity cells and sweeps and the TTFT against context depth of session cells are drawn in `report.html`, written next to `report.md` (in the action: `compare/report.html` in the evidence artifact).",
            ]
            : []),
    ].join("\n");
}

/**
 * The recorded conditions of both sides: the fields that differ (an excerpt of each value around where
 * the two first differ, the full values wrapped in a fold), and every field recorded (a fold).
 */
/** Differing values are shown around where they differ, this many characters each in the table. */
const differenceExcerptLength = 60;
/** Full values of differing fields are wrapped at this width, and cut after this many characters. */
const fullValueWrap = 100;
const fullValueMaxChars = 4000;
/** Differing fields listed in the table (and their full values); the rest are counted, all in verdict.json. */
const maxDifferenceRows = 100;
function valueText(value) {
    if (value === undefined || value === null)
        return "–";
    return typeof value === "string" ? value : JSON.stringify(value);
}
/**
 * The part of `text` from a little before `from` (where the two values first differ), at most `width`
 * characters, with "…" where something was left out: a long `server.command` that differs only near its
 * end shows that end, not the shared beginning.
 */
function excerptAround(text, from, width = differenceExcerptLength, 
/** The shorter of the two values, so both excerpts start at the same place and line up. */
alignTo = text.length) {
    const flat = text.replace(/[\r\n\t\u2028\u2029]+/g, " ");
    if (flat.length <= width)
        return flat;
    const lead = 12;
    const start = Math.max(0, Math.min(from - lead, Math.min(flat.length, alignTo) - (width - 1)));
    const head = start > 0 ? "…" : "";
    // The longer value gets its extra characters (up to `width` more), so both end at the same place.
    const room = width - head.length + Math.min(width, Math.max(0, flat.length - alignTo));
    const body = flat.slice(start, start + room);
    return start + room < flat.length ? `${head}${body.slice(0, -1)}…` : `${head}${body}`;
}
function firstDifference(a, b) {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i])
        i++;
    return i;
}
/** A long value as lines of at most `width` characters, broken after spaces or commas where possible. */
function wrapValue(text, width = fullValueWrap) {
    const lines = [];
    for (const paragraph of text.split(/\r?\n/)) {
        let rest = paragraph;
        while (rest.length > width) {
            const window = rest.slice(0, width);
            const breakAt = Math.max(window.lastIndexOf(" "), window.lastIndexOf(","));
            const cut = breakAt > width / 2 ? breakAt + 1 : width;
            lines.push(rest.slice(0, cut));
            rest = rest.slice(cut);
        }
        lines.push(rest);
    }
    return lines;
}
/** One field's full value in a <pre> block: HTML-escaped, wrapped, cut at fullValueMaxChars. */
function fullValueBlock(value) {
    const text = valueText(value);
    const cut = text.length > fullValueMaxChars;
    const shown = cut ? text.slice(0, fullValueMaxChars) : text;
    const lines = wrapValue(shown).map((line) => escapeHtml(line, Number.POSITIVE_INFINITY));
    if (cut)
        lines.push(`… ${text.length - fullValueMaxChars} more characters in verdict.json`);
    return `<pre>${lines.join("\n")}</pre>`;
}
/**
 * The differing fields only: each value in the table is an excerpt around where the two sides first
 * differ (so the real difference is visible however long the value), and the full values of those
 * fields follow, wrapped, in a collapsed section.
 */
function environmentSection(verdict, full, { excerpt = differenceExcerptLength, fullValues = true, informational = true } = {}) {
    const differences = verdict.fingerprints.differences.filter((d) => informational || !d.informational);
    const lines = ["### Environment", ""];
    if (differences.length === 0)
        lines.push("Baseline and candidate ran under the same recorded conditions.");
    else if (!full)
        lines.push(`${differences.length} recorded conditions differ (details in verdict.json).`);
    else {
        const shown = differences.slice(0, maxDifferenceRows);
        const rows = shown.map((d) => {
            const base = valueText(d.baseline);
            const cand = valueText(d.candidate);
            const from = firstDifference(base, cand);
            return [
                escapeCell(d.field, 80),
                escapeCell(excerptAround(base, from, excerpt, Math.min(base.length, cand.length)), Number.POSITIVE_INFINITY),
                escapeCell(excerptAround(cand, from, excerpt, Math.min(base.length, cand.length)), Number.POSITIVE_INFINITY),
                d.informational ? "yes (recorded only)" : d.allowed ? "yes (under test)" : "**no**",
                d.cells.length > 3
                    ? `${d.cells.length} cells`
                    : d.cells.map((cell) => escapeCell(cell, 60)).join(", "),
            ];
        });
        lines.push(table(["Field", "Baseline", "Candidate", "Allowed", "Cells"], rows));
        if (differences.length > shown.length) {
            lines.push("", `… and ${differences.length - shown.length} more differ (the first ${maxDifferenceRows} are listed; every one is in verdict.json).`);
        }
        const long = shown.filter((d) => fullValues && (valueText(d.baseline).length > excerpt || valueText(d.candidate).length > excerpt));
        if (long.length > 0) {
            lines.push("", fold("Full values of the differing fields", long
                .flatMap((d) => [
                `**${escapeInline(d.field, 80)}**, baseline:`,
                fullValueBlock(d.baseline),
                "candidate:",
                fullValueBlock(d.candidate),
                "",
            ])
                .join("\n")));
        }
    }
    return lines.join("\n");
}
function fingerprintDetails(verdict) {
    const base = verdict.fingerprints.baseline;
    const cand = verdict.fingerprints.candidate;
    const fields = [...new Set([...Object.keys(base), ...Object.keys(cand)])].sort();
    if (fields.length === 0)
        return "";
    const rows = fields.map((field) => [
        escapeCell(field, 80),
        escapeValue(base[field]),
        escapeValue(cand[field]),
    ]);
    return fold("All recorded conditions", table(["Field", "Baseline", "Candidate"], rows));
}
/** The comment's fold of the differing conditions: what differs, whether it is allowed, and where. */
function environmentFold(verdict) {
    const differences = verdict.fingerprints.differences;
    if (differences.length === 0)
        return "";
    const blocking = differences.filter((d) => !d.allowed && !d.informational).length;
    const recordedOnly = differences.filter((d) => d.informational).length;
    const judged = differences.length - recordedOnly;
    const summary = `Environment: ${judged} recorded condition${judged === 1 ? "" : "s"} differ${judged === 1 ? "s" : ""}${blocking > 0 ? `, ${blocking} not allowed` : ", all allowed (under test)"}${recordedOnly > 0 ? `; ${recordedOnly} recorded only` : ""}`;
    const table = judged === 0
        ? "Only fields recorded for information differ (tool build, runner, config hash)."
        : environmentSection(verdict, true, { excerpt: 40, fullValues: false, informational: false }).replace(/^### Environment\n\n/, "");
    return fold(summary, `${table}\n\nThe full values, and every field recorded, are in the full report.`);
}

const familyVerdictIcons = {
    regression: "🔴",
    improvement: "🟢",
};
/**
 * One line per family test that found something (docs/compare.md, "Family tests"): the metric's average
 * change across the family's cells with its decision interval, the adjusted p, and the cells that are
 * regressions on their own. Empty when no family test was rejected.
 */
function familyFindingsSection(verdict) {
    const found = (verdict.families ?? []).filter((f) => f.verdict !== "no-finding");
    if (found.length === 0)
        return "";
    const lines = found.map((f) => {
        const verdictIcon = familyVerdictIcons[f.verdict];
        const beyond = f.verdict === "regression" ? "worse" : "better";
        const alone = f.verdict !== "regression"
            ? ""
            : f.regressedCells.length > 0
                ? `; a regression on its own in ${f.regressedCells.map((cell) => escapeInline(cell, 60)).join(", ")}`
                : "; no cell is one on its own yet";
        return `- ${verdictIcon} **${describeMetric(f.metric)} across the ${f.cells.length} ${escapeInline(f.family, 60)} cells**: ${formatChange(f.ratio)} (${formatInterval(f.ci)}), on average ${beyond} beyond the ±${formatFractionAsPercent(f.tolerance)} tolerance (family test, p (adj.) ${formatP(f.p)})${alone}.`;
    });
    return ["### Across cells", "", ...lines].join("\n");
}

/**
 * How the verdict was decided: the mode (interleaved, or a stored baseline and its drift), which
 * baseline, what the runs cost in GPU time, and the method in one paragraph.
 */
/** What drift the stored comparison added, and where it came from (the prior or the baseline history). */
function driftNote(verdict) {
    const prior = formatNumber(verdict.settings.sessionDriftSd);
    const gated = new Set(verdict.settings.gatedMetrics);
    const all = Object.entries(verdict.settings.sessionDriftEstimates);
    const estimates = all.filter(([metric]) => gated.has(metric)).length > 0
        ? all.filter(([metric]) => gated.has(metric))
        : all;
    const fromHistory = estimates.filter(([, e]) => e.source === "history");
    if (fromHistory.length === 0)
        return `a between-session drift (sd ${prior} on the log scale, the prior \`gate.session_drift_sd\`: fewer than 2 baseline sessions to estimate it from) that more runs cannot remove is added to every interval.`;
    const sds = fromHistory.map(([, e]) => e.sd);
    const low = formatNumber(Math.min(...sds));
    const high = formatNumber(Math.max(...sds));
    const sessions = Math.min(...fromHistory.map(([, e]) => e.sessions));
    const weight = Math.min(...fromHistory.map(([, e]) => e.historyWeight));
    const screened = [...new Set(fromHistory.flatMap(([, e]) => e.screenedSessions))];
    const runs = Math.max(...fromHistory.map(([, e]) => e.screenedRuns));
    const screenedText = [
        screened.length > 0
            ? `${screened.length} outlier session${screened.length === 1 ? "" : "s"} screened (${screened.map((name) => escapeInline(name.split(/[\\/]/).filter(Boolean).at(-1) ?? name, 60)).join(", ")})`
            : "",
        runs > 0 ? `${runs} outlier run${runs === 1 ? "" : "s"} screened` : "",
    ].filter((text) => text.length > 0);
    return `a between-session drift that more runs cannot remove is added to every interval: sd ${low === high ? low : `${low}–${high}`} on the log scale, estimated from ${sessions} baseline sessions and shrunk towards the prior ${prior} (history weight ${Number(weight.toFixed(2))})${screenedText.length > 0 ? `; ${screenedText.join(", ")}` : ""}.`;
}
function modeSection(verdict, withMethod = true) {
    const mode = verdict.mode === "interleaved"
        ? "**Mode: interleaved**: baseline and candidate ran in the same job on the same runner, so no session-drift term is added."
        : `**Mode: stored baseline**: the baseline came from another job, so ${driftNote(verdict)}`;
    const info = verdict.baselineInfo;
    const parts = [];
    if (info?.commit)
        parts.push(`commit ${escapeInline(info.commit, 64)}`);
    if (info?.ref)
        parts.push(`ref ${escapeInline(info.ref, 80)}`);
    if (info?.runId)
        parts.push(`run ${escapeInline(info.runId, 64)}`);
    if (info?.date)
        parts.push(`date ${escapeInline(info.date, 64)}`);
    if (info?.url)
        parts.push(`link ${escapeInline(info.url, 200)}`);
    if (info?.note)
        parts.push(escapeInline(info.note, 200));
    const baseline = parts.length > 0 ? `Baseline: ${parts.join(" · ")}.` : "Baseline: no provenance given.";
    const s = verdict.settings;
    const method = `Per cell and metric, one number per run (the run is the unit of replication); Welch's t on the logs; tolerance ±${formatFractionAsPercent(s.tolerance)} unless set per metric; ${gatedFamilyPhrase(s.gatedFamily)}, advisory metrics Benjamini-Hochberg; family confidence ${formatFractionAsPercent(s.confidence)}; regression means significantly worse than the tolerance (one-sided test against the margin at α = ${Number(s.lookAlpha.toPrecision(3))} per look before Holm; looks at ${s.looks.join("/")} runs per side), so a true change inside the tolerance is blocked at most ${formatFractionAsPercent(s.familyAlpha)} of the time; improvement is the mirror; within tolerance means the ${formatFractionAsPercent(1 - s.passAlpha)} upper bound is inside the tolerance; runs whose gated metrics sit more than ${s.outlierThreshold} robust sd from their side's median are screened out (sides of 5+ runs) and replaced; run-to-run sd is floored at ${s.minRunSd}.`;
    return [
        "### Comparison",
        "",
        mode,
        "",
        baseline,
        ...startsLine(verdict),
        ...priorsLine(verdict),
        ...gpuMinutesLine(verdict),
        ...(withMethod ? ["", method] : []),
    ].join("\n");
}
/**
 * One line on the server-start level of the noise (docs/compare.md, "Server starts"): the starts each
 * side's runs were measured on and the start-to-start sd the intervals carry, with where it came from.
 */
function startsLine(verdict) {
    // The per-run checks' start sd is on ln(metric); a pooled count's (designEffect) is on its share.
    const tested = verdict.comparisons.filter((c) => c.gated && c.noise && c.noise.designEffect === undefined);
    if (tested.length === 0)
        return [];
    const noise = tested.map((c) => c.noise);
    const range = (values) => {
        const low = Math.min(...values);
        const high = Math.max(...values);
        return low === high ? String(low) : `${low}–${high}`;
    };
    const starts = `Server starts: baseline ${range(noise.map((n) => n.starts.baseline))}, candidate ${range(noise.map((n) => n.starts.candidate))}`;
    if (noise.every((n) => n.startBasis === "fresh"))
        return ["", `${starts}: every run on its own start, so the runs' spread holds the start-to-start noise.`];
    const shared = noise.filter((n) => n.startBasis !== "fresh");
    const sds = shared.map((n) => n.startSd * 100);
    const sd = `${formatNumber(Math.min(...sds))}${Math.max(...sds) > Math.min(...sds) + 1e-9 ? `–${formatNumber(Math.max(...sds))}` : ""}%`;
    const bases = [...new Set(shared.map((n) => n.startBasis))];
    const sources = [...new Set(shared.map((n) => n.priorSource).filter((s) => s !== null))];
    const basisText = bases
        .map((basis) => basis === "prior"
        ? "the prior (too few starts to measure it)"
        : basis === "measured"
            ? "measured from the starts"
            : basis === "measured+prior"
                ? "measured from the starts, pooled with the prior"
                : "none (no prior, one start a side)")
        .join("; ");
    const share = Math.max(...shared.map((n) => n.startShare));
    const contradicted = shared.filter((n) => n.priorContradicted).length;
    return [
        "",
        `${starts}. Runs on one start share what it drew (allocator and KV layout, CUDA graphs, autotuning), so the intervals carry a start-to-start sd of ${sd} on the log scale: ${basisText}${sources.length > 0 ? ` (${sources.map((s) => `\`${escapeInline(s, 80)}\``).join(", ")})` : ""}; up to ${formatFractionAsPercent(share)} of a check's variance.${contradicted > 0 ? ` In ${contradicted} check${contradicted === 1 ? "" : "s"} the starts varied significantly more than the prior said, so the prior was widened to what they show (their own estimate, with their degrees of freedom: the runner is noisier than believed, calibrate it).` : ""}`,
    ];
}
/** "calibration `cal.json` of 2026-11-30, 7 days old": a prior named with its date and age. */
function priorPhrase(prior) {
    const when = prior.date === null
        ? ""
        : prior.since && prior.since !== prior.date
            ? ` of ${prior.since} to ${prior.date}`
            : ` of ${prior.date}`;
    const age = prior.ageDays === null
        ? ""
        : `, ${prior.ageDays} day${prior.ageDays === 1 ? "" : "s"} old${prior.stale ? " (stale: older than gate.noise_prior.max_age_days)" : ""}`;
    return `${escapeInline(prior.source, 120)}${when}${age}`;
}
/** Per level, the measured priors the gated checks used, grouped by what they came from. */
function levelPriors(uses, level) {
    const groups = new Map();
    for (const use of uses) {
        const key = `${use.basis}\u0000${use.source}\u0000${use.date}`;
        groups.set(key, [...(groups.get(key) ?? []), use]);
    }
    if (groups.size === 0)
        return null;
    const parts = [...groups.values()].map((group) => {
        const dfs = group.map((use) => use.df);
        const low = Number(Math.min(...dfs).toFixed(1));
        const high = Number(Math.max(...dfs).toFixed(1));
        const widened = group.filter((use) => use.use === "widened").length;
        const checks = `${group.length} check${group.length === 1 ? "" : "s"}`;
        const widenedText = widened > 0
            ? `; widened in ${widened}, whose runs were significantly noisier than it says: their own estimate stood`
            : "";
        return `${priorPhrase(group[0])}, ${low === high ? low : `${low}–${high}`} df (${checks}${widenedText})`;
    });
    return `the ${level} sd pooled with ${parts.join(" and ")}`;
}
/**
 * One line on the noise known before the runs (docs/compare.md, "Noise known in advance"): which
 * measured prior each level of the gated checks' noise was pooled with, how old it was and where the
 * runs contradicted it; or that the run level came from the runs alone.
 */
function priorsLine(verdict) {
    const noise = verdict.comparisons.filter((c) => c.gated && c.noise?.priors).map((c) => c.noise);
    if (noise.length === 0)
        return [];
    const measured = (use) => use !== null && use !== undefined && use.basis !== "config" && use.use !== "unused";
    const run = levelPriors(noise.map((n) => n.priors?.run).filter(measured), "run-to-run");
    const start = levelPriors(noise.map((n) => n.priors?.start).filter(measured), "start-to-start");
    const parts = [run, start].filter((part) => part !== null);
    if (parts.length === 0)
        return [
            "",
            "Noise basis: the run-to-run sd comes from this comparison's runs alone (no calibration of this runner was given: `calibrate` records one, with which a few runs decide what many would otherwise).",
        ];
    const alone = run === null ? "; the run-to-run sd from the runs alone" : "";
    return ["", `Noise basis: ${parts.join("; ")}${alone}.`];
}
/**
 * The gated family as the method line states it: how many tests Holm ran over, of which kinds, and the
 * tests left out because they cannot reach the level (compare/analyze/gated-family.ts).
 */
function gatedFamilyPhrase(family) {
    if (!family)
        return "gated family Holm-corrected";
    const r = family.regression;
    const kinds = nonZeroCounts([
        [r.speed, "speed"],
        [r.capacity, "capacity"],
        [r.guard, "guard"],
        [r.task, "task"],
    ]);
    const leftOut = r.leftOut > 0 ? `; ${r.leftOut} that cannot reach the level left out` : "";
    const detail = kinds.length > 0 || leftOut ? ` (${kinds.join(", ")}${leftOut})` : "";
    const tests = family.familyTests?.total ?? 0;
    if (tests > 0)
        return `gated family of ${r.total} test${r.total === 1 ? "" : "s"}${detail} and ${tests} family test${tests === 1 ? "" : "s"} (a metric across a workload family's cells, ${formatFractionAsPercent(family.familyTests.weight)} of each grouped check's share) corrected together by a graphical procedure that is Holm's without them`;
    return `gated family of ${r.total} test${r.total === 1 ? "" : "s"}${detail} Holm-corrected together`;
}
/** One line: what the comparison's runs cost, every server start counted. */
function gpuMinutesLine(verdict) {
    const g = verdict.gpuMinutes;
    if (!g)
        return [];
    const round = (minutes) => (minutes < 10 ? minutes.toFixed(1) : String(Math.round(minutes)));
    const runs = g.sides === "both" ? "measured runs on both sides" : "the candidate's measured runs";
    const starts = `${g.serverStarts} server start${g.serverStarts === 1 ? "" : "s"} at ${round(g.serverStartS / 60)} min each`;
    const stored = g.sides === "both" ? "" : " (the stored baseline was measured once, in its own job)";
    return [
        "",
        `GPU time: ~${round(g.total)} GPU-minutes: ${round(g.runs)} min of ${runs} plus ${starts}${stored}.`,
    ];
}
/** The comment's fold of how it was decided: the mode, the baseline, the GPU time, what the runs catch, the method. */
function methodFold(verdict) {
    const detection = detectionLine(verdict);
    const looks = verdict.settings.looks;
    return fold(`How it was decided: ${verdict.mode === "interleaved" ? "interleaved runs" : "a stored baseline"}, looks at ${looks.join("/")} runs per side, ${verdict.settings.gatedFamily ? `Holm over ${verdict.settings.gatedFamily.regression.total} gated tests` : "Holm over the gated checks"}`, [
        modeSection(verdict, false).replace(/^### Comparison\n\n/, ""),
        ...(detection ? ["", detection] : []),
        "",
        "The method, step by step, is in the full report.",
    ].join("\n"));
}

/** Guard rows shown in full; beyond it the within-tolerance ones are only counted. */
const guardRowLimit = 40;
const guardVerdictLabels = {
    regression: "🔴 regression",
    "within-tolerance": "⚪ within tolerance",
    inconclusive: "🟡 not judged",
};
function guardRow(check) {
    const tolerance = check.toleranceKind === "points"
        ? `+${Number((check.tolerance * 100).toPrecision(3))} pts`
        : `±${formatFractionAsPercent(check.tolerance)}`;
    const side = (value, counts) => check.toleranceKind === "points"
        ? `${formatMetricValue(check.metric, value)} (${counts.count}/${counts.requests})`
        : formatMetricValue(check.metric, value);
    return [
        guardVerdictLabels[check.verdict] + (check.note ? ` (${escapeCell(check.note, 160)})` : ""),
        escapeCell(check.cell, 60),
        describeMetric(check.metric),
        tolerance,
        side(check.baseline, check.counts.baseline),
        side(check.candidate, check.counts.candidate),
        formatP(check.p),
    ];
}
/**
 * The quality guards of the report (docs/quality.md): every regression and check not judged in a table,
 * the within-tolerance ones too while the table stays short. Empty when the verdict has no guards.
 */
function qualityGuardSection(verdict) {
    const guards = verdict.quality?.guards;
    if (guards === undefined || guards.length === 0)
        return "";
    const flagged = guards.filter((check) => check.verdict !== "within-tolerance");
    const shown = guards.length <= guardRowLimit ? guards : flagged.slice(0, guardRowLimit);
    const hidden = guards.length - shown.length;
    const regressions = guards.filter((check) => check.verdict === "regression").length;
    const summary = regressions > 0
        ? `**${regressions}** of ${guards.length} guard checks regressed: the outputs changed, so no speed result here is an improvement.`
        : `All ${guards.length - flagged.length} judged guard checks are within tolerance.`;
    const header = ["Verdict", "Cell", "Guard", "Tolerance", "Baseline", "Candidate", "p (adj.)"];
    return [
        "### Quality guards",
        "",
        summary,
        ...(shown.length > 0 ? ["", table(header, shown.map(guardRow))] : []),
        ...(hidden > 0 ? ["", `_${hidden} more guard checks within tolerance (verdict.json has them)._`] : []),
        "",
        "Shares of the measured requests pooled over a side's runs (requests counted / measured); a share is a regression when it rose significantly (Fisher's exact test) by more than its points, the output length when its mean moved significantly either way by more than its tolerance; p is Holm-adjusted in the gated family with the speed and task checks (a test that cannot reach the level, such as a share that is 0 on both sides, is left out).",
    ].join("\n");
}
/** Characters of each side of an example shown in the report (verdict.json keeps exampleChars). */
const exampleShownChars$1 = 120;
function agreementCells(a) {
    const pct = (x) => `${(x * 100).toFixed(1)}%`;
    return [
        String(a.prompts),
        pct(1 - a.changedShare),
        pct(1 - a.prefixChangedShare),
        a.similarity === null ? "–" : a.similarity.toFixed(3),
        a.logprobDrift === null ? "–" : `${a.logprobDrift.toFixed(3)} nats`,
    ];
}
/** An output excerpt as inline code-free text: escaped for markdown, newlines shown as ⏎, cut short. */
function excerpt(text) {
    const flat = text.replace(/\r\n|\r|\n/g, "⏎");
    const cut = flat.length > exampleShownChars$1 ? `${flat.slice(0, exampleShownChars$1)}…` : flat;
    return escapeInline(cut, exampleShownChars$1 * 4);
}
/**
 * The greedy-output checks (docs/quality.md): per cell the candidate's agreement with the baseline beside
 * the baseline's own run-to-run agreement, the reasons of a regression, and the most-changed prompts.
 */
function qualityGreedySection(verdict) {
    const checks = verdict.quality?.greedy ?? [];
    if (checks.length === 0)
        return "";
    const header = [
        "Verdict",
        "Cell",
        "Compared",
        "Prompts",
        "Identical",
        "Same first tokens",
        "Similarity",
        "Logprob drift",
    ];
    const rows = [];
    for (const check of checks) {
        const label = check.verdict === "regression" ? "🔴 regression" : "⚪ within tolerance";
        rows.push([
            label,
            escapeCell(check.cell, 60),
            "candidate vs baseline",
            ...agreementCells(check.candidate),
        ]);
        if (check.baselineNoise !== null)
            rows.push([
                "",
                "",
                check.baselineNoiseRuns?.acrossStarts ? "baseline start to start" : "baseline run to run",
                ...agreementCells(check.baselineNoise),
            ]);
    }
    const details = [];
    for (const check of checks) {
        for (const reason of check.reasons)
            details.push(`- ${escapeInline(check.cell, 60)}: ${escapeInline(reason, 300)}`);
        if (check.examples.length > 0) {
            details.push("", `<details><summary>Most-changed outputs: ${escapeHtml(check.cell, 60)}</summary>`, "", ...check.examples.flatMap((example) => [
                `- prompt ${example.index}, first difference at token ${example.firstDifference}, similarity ${example.similarity.toFixed(3)}`,
                `  - baseline: ${excerpt(example.baseline)}`,
                `  - candidate: ${excerpt(example.candidate)}`,
            ]), "", "</details>");
        }
    }
    const source = checks.some((c) => c.tokenSource === "words")
        ? "tokens are the server's where it returned logprobs, else whitespace-separated words"
        : "tokens are the server's (logprobs returned)";
    return [
        "### Greedy outputs",
        "",
        table(header, rows),
        ...(details.length > 0 ? ["", ...details] : []),
        "",
        `Same prompts, temperature 0, outputs kept per prompt; ${source}; similarity: 1 − token edit distance / longer length; logprob drift: mean |change| over the tokens both chose alike; the tolerances (quality.greedy) are over the baseline's own differences between two runs, on two server starts where it has them.`,
    ].join("\n");
}
/** Every quality section of the report, in order. */
function qualitySection$1(verdict) {
    return [qualityGuardSection(verdict), qualityGreedySection(verdict), qualityTaskSection(verdict)]
        .filter((s) => s.length > 0)
        .join("\n\n");
}
/** The task-accuracy checks: each side's accuracy with its Wilson interval, the discordant pairs, p. */
function qualityTaskSection(verdict) {
    const checks = verdict.quality?.tasks ?? [];
    if (checks.length === 0)
        return "";
    const pct = (x) => `${(x * 100).toFixed(1)}%`;
    const side = (s) => `${pct(s.accuracy)} (${pct(s.wilson[0])} – ${pct(s.wilson[1])})`;
    const header = [
        "Verdict",
        "Cell",
        "Tasks",
        "Baseline",
        "Candidate",
        "Change",
        "Only baseline right / only candidate",
        "Tolerance",
        "p (adj.)",
    ];
    const rows = checks.map((check) => {
        const change = (check.candidate.accuracy - check.baseline.accuracy) * 100;
        return [
            (check.verdict === "regression" ? "🔴 regression" : "⚪ within tolerance") +
                (check.note ? ` (${escapeCell(check.note, 160)})` : ""),
            escapeCell(check.external === undefined ? check.cell : `${check.cell}: external ${check.external}`, 80),
            check.method === "two-proportion"
                ? `${check.baseline.n ?? "?"} / ${check.candidate.n ?? "?"}`
                : String(check.prompts),
            side(check.baseline),
            side(check.candidate),
            `${change > 0 ? "+" : change < 0 ? "−" : "±"}${Math.abs(change).toFixed(1)} pts`,
            check.method === "two-proportion" ? "unpaired" : `${check.onlyBaseline} / ${check.onlyCandidate}`,
            `−${Number((check.tolerancePoints * 100).toPrecision(3))} pts`,
            formatP(check.p),
        ];
    });
    const confidence = formatFractionAsPercent(checks[0].confidence);
    return [
        "### Task accuracy",
        "",
        table(header, rows),
        "",
        `Same tasks on both sides, scored per prompt; accuracy with its ${confidence} Wilson interval; a regression when the exact McNemar test on the discordant pairs (Holm-adjusted in the gated family with the speed and guard checks) finds the candidate worse and the drop exceeds the tolerance (quality.tasks.tolerance_points).` +
            (checks.some((check) => check.method === "two-proportion")
                ? " An external task without per-sample results on both sides is compared unpaired (one-sided two-proportion z-test; its Tasks column shows each side's samples)."
                : ""),
    ].join("\n");
}
/**
 * The comment's quality folds (the first screen has the regressions): the guards within tolerance as a
 * matrix of cells and guards, each side's value; the greedy-output and task tables.
 */
function qualityFolds(verdict) {
    const quality = verdict.quality;
    if (quality === undefined)
        return "";
    const folds = [];
    const within = quality.guards.filter((check) => check.verdict === "within-tolerance");
    const notJudged = quality.guards.filter((check) => check.verdict === "inconclusive").length;
    if (within.length > 0)
        folds.push(fold(`${within.length} guard${within.length === 1 ? "" : "s"} within tolerance${notJudged > 0 ? ` (${notJudged} not judged)` : ""}`, checkMatrix("Cell", within.map((check) => ({
            cell: escapeCell(check.cell, 40),
            column: describeMetric(check.metric),
            value: valuesOnBothSides(check),
        })))));
    const greedy = quality.greedy ?? [];
    if (greedy.length > 0)
        folds.push(fold(`Greedy outputs of ${greedy.length} cell${greedy.length === 1 ? "" : "s"} against the baseline`, qualityGreedySection(verdict).replace(/^### .*\n/, "")));
    const tasks = quality.tasks ?? [];
    if (tasks.length > 0)
        folds.push(fold(`Task accuracy of ${tasks.length} check${tasks.length === 1 ? "" : "s"}`, qualityTaskSection(verdict).replace(/^### .*\n/, "")));
    return folds.join("\n\n");
}

/**
 * How the report names files: relative to the results they belong to, never as a path of the machine
 * that ran the comparison (a temporary directory of the runner means nothing to a reviewer).
 */
/**
 * A run's file relative to its side's results: `candidate/chat/run-0/run.json`, which is its path in the
 * action's evidence artifact; a `vllm bench serve` file by its name (`baseline/vllm-0.json`).
 */
function runFileLabel(ref) {
    const parts = ref.source.split(/[\\/]+/).filter((part) => part.length > 0);
    const tail = parts.at(-1) === "run.json" ? parts.slice(-3) : parts.slice(-1);
    return [ref.side, ...tail].join("/");
}
/**
 * A message with every absolute path (four segments or more) shortened to its last segments, "…/chat/
 * run-0/run.json", so compare's warnings and notes publish no path of the machine.
 */
function withoutMachinePaths(text) {
    return text.replace(/(?<![\w:/.~-])(?:[A-Za-z]:)?(?:[\\/][^\s\\/:;,()'"`]+){4,}/g, (path) => {
        const parts = path.split(/[\\/]+/).filter((part) => part.length > 0);
        return `…/${parts.slice(-3).join("/")}`;
    });
}

/**
 * Speculative decoding in the report (docs/metrics.md, "Speculative decoding"), from verdict.json's
 * `specDecode`: each side's acceptance per cell, and each taken-apart change in words: "TPOT p95 +12%
 * (+9 … +15%): acceptance length −9% (…) (the drafter), time per step +2% (…) (within noise)". The long
 * form has every spec-decode cell; the comment folds the cells where something changed. The words here are
 * shared with report.html (`specDecodeLines`), so both say the same.
 */
const rateMetric = "spec_decode_acceptance_rate";
const lengthMetric = "spec_decode_acceptance_length";
/** "+12.0% (+9.1 … +15.0%)": a factor's change and its interval. */
function factorText(factor) {
    return `${formatChange(factor.ratio)} (${formatIntervalOneLine(factor.ci)})`;
}
const minorWords = {
    minor: "a small part",
    "within-noise": "within noise",
};
/** Which way the engine step moved, in words; a small part, or within the runs' noise. */
function stepWords(d) {
    if (d.perStep.role !== "main")
        return minorWords[d.perStep.role];
    const up = d.perStep.ratio > 1;
    if (d.perStep.kind === "time-per-step")
        return up ? "slower steps" : "faster steps";
    return up ? "more steps per second" : "fewer steps per second";
}
/**
 * One taken-apart change as a sentence (plain text, the cell name left to the caller):
 * "TPOT p95 +35.2% (+33.1 … +37.4%): acceptance length −26.1% (…) (the drafter), time per step −0.4% (…) (within noise)".
 */
function decompositionSentence(d) {
    const perStep = d.perStep.kind === "time-per-step" ? "time per step" : "engine steps per second";
    const drafter = d.acceptanceLength.role === "main" ? "the drafter" : minorWords[d.acceptanceLength.role];
    return `${describeMetric(d.metric)} ${factorText(d.change)}: acceptance length ${factorText(d.acceptanceLength)} (${drafter}), ${perStep} ${factorText(d.perStep)} (${stepWords(d)})`;
}
/** The assumptions every decomposition rests on, said once under it. */
const decompositionAssumptions = "Tokens per engine step of a request = the mean acceptance length (1 + accepted tokens / draft rounds), assuming one draft round per step; the counters are vLLM's, as deltas over the measured phase (scraped right before and after it); time per step = TPOT × tokens per step, engine steps per second = output throughput / tokens per step. Intervals are the plain two-sided ones of the checks (ci90); within noise: the interval holds 0%; a small part: beyond noise, but less than a quarter of the other factor's change.";
function comparisonOf(verdict, cell, metric) {
    return verdict.comparisons.find((c) => c.cell === cell && c.metric === metric);
}
/** A comparison moved beyond the runs' noise: its plain interval excludes no change. */
function moved(c) {
    return c?.ci90 != null && (c.ci90[0] > 1 || c.ci90[1] < 1);
}
/** Acceptance or a taken-apart change moved in this cell: what the comment shows. */
function changed(verdict, cell) {
    return (moved(comparisonOf(verdict, cell.cell, rateMetric)) ||
        moved(comparisonOf(verdict, cell.cell, lengthMetric)) ||
        cell.decompositions.some((d) => d.change.significant));
}
/** "79.8% → 59.9% (−24.9%, −26.0 … −23.8%)": both sides and, when compared, the change with its interval. */
function acceptanceCell(verdict, cell, metric, pick) {
    const values = formatValuePair(metric, pick(cell.baseline), pick(cell.candidate));
    const c = comparisonOf(verdict, cell.cell, metric);
    if (!c || c.ratio === null)
        return values;
    return `${values} (${formatChange(c.ratio)}${c.ci90 ? `, ${formatIntervalOneLine(c.ci90)}` : ""})`;
}
function acceptanceTable$1(verdict, cells) {
    return table(["Cell", "Draft acceptance rate", "Mean acceptance length", "Runs with counters"], cells.map((cell) => [
        escapeCell(cell.cell, 60),
        acceptanceCell(verdict, cell, rateMetric, (side) => side.acceptanceRate),
        acceptanceCell(verdict, cell, lengthMetric, (side) => side.acceptanceLength),
        `${cell.baseline.runs} / ${cell.candidate.runs}`,
    ]));
}
/** Per cell its sentences (plain text): each decomposition, or why there is none. */
function specDecodeLines(cell) {
    if (cell.decompositions.length === 0)
        return cell.note ? [`not taken apart: ${cell.note}`] : [];
    return cell.decompositions.map(decompositionSentence);
}
function sentences(cells) {
    return cells.flatMap((cell) => specDecodeLines(cell).map((line) => `- **${escapeInline(cell.cell, 60)}**: ${escapeInline(line, 400)}`));
}
/** The long form's section: every spec-decode cell's acceptance and taken-apart changes; "" without any. */
function specDecodeSection(verdict) {
    const cells = verdict.specDecode ?? [];
    if (cells.length === 0)
        return "";
    return [
        "### Speculative decoding",
        "",
        acceptanceTable$1(verdict, cells),
        "",
        "Baseline → candidate, geometric means over the runs with the counters; the change and its interval (ci90) as the advisory checks have them.",
        "",
        ...sentences(cells),
        "",
        `_${decompositionAssumptions}_`,
    ].join("\n");
}
/** The comment's fold: the cells whose acceptance or taken-apart change moved; "" when none did. */
function specDecodeFold(verdict) {
    const cells = (verdict.specDecode ?? []).filter((cell) => changed(verdict, cell));
    if (cells.length === 0)
        return "";
    const names = cells.map((cell) => cell.cell);
    const shown = names.slice(0, 3).join(", ") + (names.length > 3 ? `, and ${names.length - 3} more` : "");
    return fold(escapeHtml(`Speculative decoding: acceptance and the engine step, taken apart (${shown})`, 200), [
        acceptanceTable$1(verdict, cells),
        "",
        ...sentences(cells),
        "",
        "One draft round per engine step assumed; the full report says how it is computed.",
    ].join("\n"));
}

/**
 * The markdown report, in two forms rendered from the same verdict by the same sections: the comment
 * (`comment.md`, what the action posts on the pull request: the first screen, then a fold for each part a
 * reviewer may want, with a summary that says what is inside) and the long form (`report.md`, the job
 * summary: the first screen, then every table in full). Each section has its comment form and its long
 * form; both shed detail in the same order when they exceed the budget.
 */
/** GitHub's limit on a comment body. */
const commentBudget = 65_536;
/**
 * The long form's: half the job summary's 1 MiB (a character can take several bytes there), so every
 * cell's every metric stays in the summary of a large matrix.
 */
const reportBudget = 512 * 1024;
/** The headline's words, for report.html: verdict title, headline, counts (plain text). */
function headlineWords(verdict) {
    const c = verdict.counts;
    const counts = `${c.regression} regressed · ${c.improvement} improved · ${c.withinTolerance} within tolerance · ${c.inconclusive} inconclusive — ${c.gated} gated checks in ${verdict.cells.length} cell${verdict.cells.length === 1 ? "" : "s"}`;
    // The counts line says the tally the headline ends with: it is said once.
    const tally = ` (${tallyOf(verdict.counts)})`;
    const said = verdict.headline.endsWith(tally) ? verdict.headline.slice(0, -tally.length) : verdict.headline;
    return { title: verdictTitles[verdict.verdict], said, counts };
}
/** A warning as published: no path of the machine, escaped for text. */
function warningText(warning, max) {
    return escapeInline(withoutMachinePaths(warning), max);
}
function warningsSection(verdict, limit) {
    if (verdict.warnings.length === 0)
        return "";
    const shown = verdict.warnings.slice(0, limit).map((w) => `- ${warningText(w, 300)}`);
    if (verdict.warnings.length > limit)
        shown.push(`- … and ${verdict.warnings.length - limit} more (see verdict.json)`);
    return ["### Warnings", "", ...shown].join("\n");
}
function warningsFold(verdict) {
    const count = verdict.warnings.length;
    if (count === 0)
        return "";
    return fold(`${count} warning${count === 1 ? "" : "s"}`, warningsSection(verdict, 10).replace(/^### Warnings\n\n/, ""));
}
/** Excluded runs the comment lists; the long form lists them all. */
const maxExcludedRows = 10;
function excludedRows(verdict, reasonChars, limit = Number.POSITIVE_INFINITY) {
    return verdict.runs.excluded
        .slice(0, limit)
        .map((run) => [
        escapeCell(runFileLabel(run), 120),
        escapeCell(withoutMachinePaths(run.reasons.join("; ")), reasonChars),
    ]);
}
function excludedSection(verdict, full) {
    const excluded = verdict.runs.excluded;
    if (excluded.length === 0)
        return "";
    if (!full)
        return `### Runs excluded\n\n${excluded.length} runs were excluded (details in verdict.json).`;
    return ["### Runs excluded", "", table(["Run", "Why"], excludedRows(verdict, 300))].join("\n");
}
function excludedFold(verdict) {
    const count = verdict.runs.excluded.length;
    if (count === 0)
        return "";
    return fold(`${count} run${count === 1 ? "" : "s"} excluded, and why`, [
        table(["Run (in the evidence)", "Why"], excludedRows(verdict, 90, maxExcludedRows)),
        "",
        `${count > maxExcludedRows ? `${count - maxExcludedRows} more, and ` : ""}the full reasons are in the full report; files are named relative to each side's results.`,
    ].join("\n"));
}
/** The pictures, folded in the comment (GitHub draws mermaid inside a fold when it is opened). */
function picturesFold(verdict) {
    const pictures = commentChartsSection(verdict, undefined, { pointer: false });
    if (pictures === "")
        return "";
    // The charts' own titles (mermaid-safe labels: letters, digits and a few marks) say what is inside.
    const titles = [...pictures.matchAll(/^ {2}title "([^"]*)"$/gm)].map((m) => m[1]);
    return fold(escapeHtml(`Pictures: ${titles.join("; ")}`, 200), pictures.replace(/^### Pictures\n\n/, ""));
}
/** The history section's comment form: folded under its heading, unless it says main already regressed. */
function extraSectionFold(section) {
    if (/Main already regressed/.test(section))
        return section;
    const heading = /^### (.+)\n/.exec(section);
    return heading ? fold(escapeHtml(heading[1], 80), section.slice(heading[0].length)) : section;
}
/**
 * The comment or the long form. Sections shed in a fixed order when the body would exceed the budget:
 * the pictures, then per-cell detail, then all conditions, then the excluded-run table, then the
 * environment differences, then warnings. The first screen and the gated checks are never shed.
 */
function renderMarkdown(verdict, options) {
    const { form } = options;
    const budget = options.budget ?? (form === "comment" ? commentBudget : reportBudget);
    return fitToBudget(verdictSections(verdict, options), verdict, form, budget);
}
/**
 * The sections of a verdict, each in its long form, its comment form (folded), its short form (null: never
 * shed), and its rank in the order they are shed.
 */
function verdictSections(verdict, options) {
    const { form } = options;
    const context = options.context ?? besideFiles;
    const firstScreen = blocksToMarkdown(firstScreenBlocks(verdict, { ...context, form }, markdownMarkup));
    // A comparison of capacity cells only has no per-metric checks: its acceptance is the capacity section's.
    const capacityOnly = verdict.cells.length === 0 && (verdict.capacity?.length ?? 0) > 0;
    return [
        { report: firstScreen, comment: firstScreen, short: null, shedRank: Number.POSITIVE_INFINITY },
        ...(options.extraSections ?? []).map((section) => ({
            report: section,
            comment: extraSectionFold(section),
            short: "",
            shedRank: 4.5,
        })),
        {
            report: capacityOnly ? "" : acceptanceSection(verdict),
            comment: withinToleranceFold(verdict),
            short: form === "comment" ? "" : null,
            shedRank: 3.5,
        },
        // A family finding is in the first screen's table; the long form says it in its own words too.
        { report: familyFindingsSection(verdict), comment: "", short: null, shedRank: Infinity },
        { report: capacitySection(verdict), comment: capacityFolds(verdict), short: null, shedRank: Infinity },
        { report: qualitySection$1(verdict), comment: qualityFolds(verdict), short: null, shedRank: Infinity },
        { report: specDecodeSection(verdict), comment: specDecodeFold(verdict), short: "", shedRank: 2.5 },
        // The pictures (mermaid, report/charts/mermaid.ts) go first when the comment is over budget.
        { report: commentChartsSection(verdict), comment: picturesFold(verdict), short: "", shedRank: -1 },
        {
            report: modeSection(verdict),
            comment: methodFold(verdict),
            short: modeSection(verdict, false),
            shedRank: 7,
        },
        {
            report: warningsSection(verdict, 50),
            comment: warningsFold(verdict),
            short: warningsSection(verdict, 3),
            shedRank: 4,
        },
        {
            report: excludedSection(verdict, true),
            comment: excludedFold(verdict),
            short: excludedSection(verdict, false),
            shedRank: 2,
        },
        {
            report: environmentSection(verdict, true),
            comment: environmentFold(verdict),
            short: environmentSection(verdict, false),
            shedRank: 3,
        },
        { report: fingerprintDetails(verdict), comment: "", short: "", shedRank: 1 },
        { report: perCellDetails(verdict), comment: "", short: "", shedRank: 0 },
    ];
}
/**
 * The sections in `form`, joined with the footer; while over the budget, sections take their short form
 * in shed order (the text then says so), and a text still over it is cut with a note.
 */
function fitToBudget(sections, verdict, form, budget) {
    const footer = `<sub>vllm-perf-gate ${escapeHtml(verdict.tool.version, 40)} · verdict.json schema ${verdict.schemaVersion}</sub>`;
    const render = (parts) => `${[...parts.filter((p) => p.length > 0), footer].join("\n\n")}\n`;
    const current = sections.map((s) => s[form]);
    let text = render(current);
    const order = sections
        .map((s, i) => ({ s, i }))
        .filter(({ s }) => s.short !== null && s[form] !== "")
        .sort((a, b) => a.s.shedRank - b.s.shedRank);
    let shedAny = false;
    for (const { s, i } of order) {
        if (text.length <= budget)
            break;
        current[i] = s.short;
        shedAny = true;
        text = render([
            ...current,
            "_Some detail was left out to fit the comment size limit; verdict.json has everything._",
        ]);
    }
    if (text.length > budget) {
        // Only reachable with hundreds of gated checks: keep the head, say so plainly.
        const note = "\n\n_Truncated to fit the comment size limit; verdict.json has everything._\n";
        text = text.slice(0, budget - note.length) + note;
    }
    else if (!shedAny)
        text = render(current);
    return text;
}
/** Both forms of one verdict in one place: report.md (and the job summary) and comment.md. */
function renderReports(verdict, options = {}) {
    return {
        report: renderMarkdown(verdict, { ...options, form: "report" }),
        comment: renderMarkdown(verdict, { ...options, form: "comment" }),
    };
}

const runsSection = "Every run against the tolerance";
const distributionSection = "Latency distributions (used runs pooled per side)";
const timelineSection = "One run over time";
const depthSection = "TTFT p95 against context depth (session metrics)";
const loadSection = "Load curves and the capacity point of each side";
const sweepSection = "Load curves of the sweep (no capacity config: no capacity point)";
const defaultChartProviders = [
    (cell) => cell.checks.map((check) => ({
        section: runsSection,
        name: `${check.comparison.metric}-runs`,
        render: (standalone) => runDotsChart(check, { standalone }),
    })),
    (cell) => cell.distributions.map((d) => ({
        section: distributionSection,
        name: `${d.phase}-distribution`,
        render: (standalone) => distributionChart(cell.cell, d, { standalone }),
    })),
    (cell) => cell.timeline
        ? [
            {
                section: timelineSection,
                name: "timeline",
                render: (standalone) => timelineChart(cell.cell, cell.timeline, { standalone }),
            },
        ]
        : [],
    (cell) => cell.depth
        ? [
            {
                section: depthSection,
                name: "ttft-depth",
                render: (standalone) => depthChart(cell.depth, { standalone }),
            },
        ]
        : [],
    (cell) => {
        const picture = cellLoadPicture(cell);
        if (!picture)
            return [];
        return drawnLoadFigures(picture).map((figure) => ({
            section: picture.kind === "capacity" ? loadSection : sweepSection,
            name: `load-${figure}`,
            render: (standalone) => loadCurveChart(picture, figure, { standalone }),
        }));
    },
];
/** The directory beside report.html that holds the same charts as SVG files. */
const chartsDirName = "report-charts";
const pageStyle = [
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#111;background:#fff}",
    "h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:14px;margin:18px 0 6px}",
    "table{border-collapse:collapse;font-size:13px;margin:8px 0}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}th{background:#f6f6f6}",
    ".charts{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0;border:1px solid #eee;padding:4px}figcaption{font-size:11px;color:#666}",
    ".note{color:#555;font-size:13px}.headline{font-size:16px}",
    ".examples td{white-space:pre-wrap;word-break:break-word;max-width:360px;font-family:ui-monospace,monospace;font-size:12px}",
].join("");
/** One self-contained page: the title escaped here, the body's parts as given (already escaped), empty ones left out. */
function htmlPage(title, body) {
    return [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/>',
        `<title>${esc(title)}</title><style>${pageStyle}</style></head>`,
        "<body>",
        ...body.filter((part) => part.length > 0),
        "</body>",
        "</html>",
        "",
    ].join("\n");
}
function esc(value, max = 200) {
    return escapeHtml(value, max);
}
/** A safe file-name piece: lower-case letters, digits, dash and underscore. */
function slug(value) {
    const cleaned = value
        .toLowerCase()
        .replace(/[^a-z0-9_-]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 40);
    return cleaned.length > 0 ? cleaned : "cell";
}
function headerSection(pictures) {
    const verdict = pictures.verdict;
    const words = headlineWords(verdict);
    const lines = [
        `<h1>${verdictIcons[verdict.verdict]} vllm-perf-gate: ${esc(words.title)}</h1>`,
        `<p class="headline"><strong>${esc(words.said, 600)}</strong></p>`,
        `<p>${esc(words.counts, 400)}</p>`,
    ];
    // As in the comment's headline: the reason for "not comparable" is the verdict itself.
    const blocking = verdict.fingerprints.differences.filter((d) => !d.allowed && !d.informational);
    if (blocking.length > 0) {
        const shown = blocking.slice(0, 5).map((d) => {
            const value = (v) => v === undefined || v === null ? "–" : typeof v === "string" ? v : JSON.stringify(v);
            return `<li>not comparable: ${esc(d.field, 80)}: ${esc(value(d.baseline), 60)} (baseline) vs ${esc(value(d.candidate), 60)} (candidate)</li>`;
        });
        if (blocking.length > 5)
            shown.push(`<li>… and ${blocking.length - 5} more (see verdict.json)</li>`);
        lines.push(`<ul>${shown.join("")}</ul>`);
    }
    if (verdict.nextLook)
        lines.push(`<p><strong>More runs needed:</strong> ${verdict.nextLook.runsPerSide} runs per side: ${esc(verdict.nextLook.reason, 400)}.</p>`);
    // Plain text, escaped for HTML below.
    const settle = settleSentence(verdict, terminalMarkup(false));
    if (settle)
        lines.push(`<p>${esc(settle, 600)}</p>`);
    return lines.join("\n");
}
function acceptanceTable(pictures) {
    const gated = pictures.verdict.comparisons.filter((c) => c.gated);
    if (gated.length === 0)
        return (pictures.verdict.capacity ?? []).length > 0
            ? "<p><em>No fixed-load gated metric; the capacity checks are under their cells below.</em></p>"
            : "<p><em>No gated metric could be compared.</em></p>";
    const head = [
        "Cell",
        "Metric",
        "Tolerance",
        "Baseline",
        "Candidate",
        "Change",
        "Decision interval",
        "Verdict",
    ];
    const rows = gated.map((c) => [
        esc(c.cell, 80),
        esc(`${describeMetric(c.metric)} ${c.higherIsBetter ? "↑" : "↓"}`),
        `±${formatFractionAsPercent(c.tolerance)}`,
        esc(formatMetricValue(c.metric, c.baseline)),
        esc(formatMetricValue(c.metric, c.candidate)),
        esc(formatChange(c.ratio)),
        esc(formatInterval(c.ci)),
        esc(metricVerdictLabel(c) + (c.note ? ` (${c.note})` : ""), 300),
    ]
        .map((cell) => `<td>${cell}</td>`)
        .join(""));
    return [
        "<h2>Acceptance (gated metrics)</h2>",
        `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>`,
        ...rows.map((row) => `<tr>${row}</tr>`),
        "</tbody></table>",
        '<p class="note">Regression when the whole decision interval lies beyond the tolerance band; within tolerance when its worse end is inside. Baseline and candidate are geometric means over runs.</p>',
    ].join("\n");
}
/** Characters of each side of a greedy-output example shown in the page. */
const exampleShownChars = 160;
function percent(x) {
    return `${(x * 100).toFixed(1)}%`;
}
/**
 * The quality checks when the verdict has them (docs/quality.md): the task accuracy of each side with
 * its Wilson interval as a chart, the greedy-output agreement and its most-changed outputs as text
 * (outside strings: escaped, cut short, newlines shown as ⏎).
 */
function qualitySection(pictures) {
    const quality = pictures.verdict.quality;
    const tasks = quality?.tasks ?? [];
    const greedy = quality?.greedy ?? [];
    if (tasks.length === 0 && greedy.length === 0)
        return { html: [], chart: null };
    const html = ["<h2>Quality</h2>"];
    const chart = tasks.length === 0
        ? null
        : {
            section: "Quality",
            name: "task-accuracy",
            render: (standalone) => accuracyChart(tasks, { standalone }),
        };
    if (tasks.length > 0)
        html.push("<h3>Task accuracy (same prompts, both sides)</h3>", "<table><thead><tr><th>Cell</th><th>Prompts</th><th>Baseline</th><th>Candidate</th><th>Only baseline right</th><th>Only candidate right</th><th>Tolerance</th><th>p (test)</th><th>Verdict</th></tr></thead><tbody>", ...tasks.map((t) => `<tr><td>${esc(t.external ? `${t.cell}: ${t.external}` : t.cell, 80)}</td><td>${t.prompts}</td><td>${percent(t.baseline.accuracy)} (${percent(t.baseline.wilson[0])} to ${percent(t.baseline.wilson[1])})</td><td>${percent(t.candidate.accuracy)} (${percent(t.candidate.wilson[0])} to ${percent(t.candidate.wilson[1])})</td><td>${t.onlyBaseline}</td><td>${t.onlyCandidate}</td><td>−${Number((t.tolerancePoints * 100).toPrecision(3))} pts</td><td>${t.p.toPrecision(2)} (${t.method === "mcnemar" ? "exact McNemar" : "two-proportion, unpaired"})</td><td>${t.verdict === "regression" ? "regression" : "within tolerance"}${t.note ? `: ${esc(t.note, 300)}` : ""}</td></tr>`), "</tbody></table>");
    if (greedy.length > 0) {
        const excerpt = (text) => {
            const flat = text.replace(/\r\n|\r|\n/g, "⏎");
            return esc(flat.length > exampleShownChars ? `${flat.slice(0, exampleShownChars)}…` : flat, exampleShownChars * 2);
        };
        html.push("<h3>Greedy outputs (temperature 0, same prompts)</h3>", "<table><thead><tr><th>Cell</th><th>Prompts</th><th>Same output</th><th>Similarity</th><th>Baseline vs itself</th><th>Verdict</th></tr></thead><tbody>", ...greedy.map((g) => `<tr><td>${esc(g.cell, 80)}</td><td>${g.candidate.prompts}</td><td>${percent(1 - g.candidate.changedShare)}</td><td>${g.candidate.similarity === null ? "–" : g.candidate.similarity.toFixed(3)}</td><td>${g.baselineNoise ? `${percent(1 - g.baselineNoise.changedShare)} same` : "–"}</td><td>${g.verdict === "regression" ? "regression" : "within tolerance"}${g.reasons.length > 0 ? `: ${esc(g.reasons.join("; "), 400)}` : ""}</td></tr>`), "</tbody></table>");
        const examples = greedy.flatMap((g) => g.examples.map((example) => ({ cell: g.cell, example })));
        if (examples.length > 0)
            html.push("<h3>Worst greedy-output differences</h3>", '<table class="examples"><thead><tr><th>Cell</th><th>Prompt</th><th>Similarity</th><th>First difference (token)</th><th>Baseline</th><th>Candidate</th></tr></thead><tbody>', ...examples.map(({ cell, example }) => `<tr><td>${esc(cell, 80)}</td><td>${example.index}</td><td>${example.similarity.toFixed(3)}</td><td>${example.firstDifference}</td><td>${excerpt(example.baseline)}</td><td>${excerpt(example.candidate)}</td></tr>`), "</tbody></table>");
    }
    return { html, chart };
}
/**
 * Speculative decoding (verdict.json `specDecode`): each spec-decode cell's acceptance on both sides and
 * its taken-apart changes, in the words of the markdown report (report/spec-decode.ts).
 */
function specDecodeHtml(pictures) {
    const cells = pictures.verdict.specDecode ?? [];
    if (cells.length === 0)
        return [];
    const side = (value, format) => value === null ? "–" : format(value);
    const rate = (x) => percent(x);
    const length = (x) => `${formatNumber(x)} tokens`;
    return [
        "<h2>Speculative decoding</h2>",
        "<table><thead><tr><th>Cell</th><th>Draft acceptance rate</th><th>Mean acceptance length</th><th>Runs with counters</th></tr></thead><tbody>",
        ...cells.map((cell) => `<tr><td>${esc(cell.cell, 80)}</td><td>${side(cell.baseline.acceptanceRate, rate)} → ${side(cell.candidate.acceptanceRate, rate)}</td><td>${side(cell.baseline.acceptanceLength, length)} → ${side(cell.candidate.acceptanceLength, length)}</td><td>${cell.baseline.runs} / ${cell.candidate.runs}</td></tr>`),
        "</tbody></table>",
        "<ul>",
        ...cells.flatMap((cell) => specDecodeLines(cell).map((line) => `<li><strong>${esc(cell.cell, 80)}</strong>: ${esc(line, 400)}</li>`)),
        "</ul>",
        `<p class="note">${esc(decompositionAssumptions, 800)}</p>`,
    ];
}
/** A capacity cell's figures in words, above its load curves. */
function capacityNote(cell) {
    const check = cell.capacity;
    if (!check)
        return "";
    const side = (name) => {
        const s = check[name];
        if (s.capacity === null)
            return `${name}: no capacity (${esc(s.note ?? "no usable runs", 200)})`;
        const bound = s.bound === "above" ? "at least " : s.bound === "below" ? "below " : "";
        return `${name} capacity ${bound}${formatNumber(s.capacity)}${s.interval ? ` (${formatNumber(s.interval[0])} to ${formatNumber(s.interval[1])})` : ""} over ${s.runs} runs at ${s.loads} loads`;
    };
    const ratio = check.ratio === null
        ? ""
        : `; candidate/baseline ${formatChange(check.ratio)}, interval ${esc(formatInterval(check.ci))}`;
    const words = check.verdict.replace(/-/g, " ");
    return `<p class="note">Capacity at the SLOs (${esc(check.percentile, 8)}, ${check.dimension}): ${side("baseline")}; ${side("candidate")}${ratio}; ${words}${check.gated ? "" : " (not gated)"}${check.note ? `: ${esc(check.note, 300)}` : ""}.</p>`;
}
/** A sweep cell's loads in words, above its load curves: what was measured and how it was judged. */
function sweepNote(cell) {
    const sweep = cell.sweep;
    if (!sweep || cell.capacity)
        return "";
    const side = (name) => {
        const points = sweep.curve[name];
        if (points.length === 0)
            return `${name}: no usable runs with a load`;
        const runs = points.reduce((sum, p) => sum + p.runs, 0);
        return `${name} ${points.length} load${points.length === 1 ? "" : "s"} (${formatNumber(points[0].load)} to ${formatNumber(points.at(-1).load)}), ${runs} usable run${runs === 1 ? "" : "s"}`;
    };
    const unit = sweep.dimension === "concurrency" ? "requests in flight" : "requests/s offered";
    return `<p class="note">A load sweep (${unit}): ${side("baseline")}; ${side("candidate")}. The verdict above judges its runs pooled as one fixed-load cell; give compare the config with capacity on this cell to compare the capacity at the SLOs (docs/capacity.md).</p>`;
}
/** The page and its chart files, with the default chart kinds plus any `extraProviders`. */
async function renderHtmlReport(pictures, options = {}) {
    const providers = [...defaultChartProviders, ...(options.extraProviders ?? [])];
    const charts = [];
    const body = [headerSection(pictures), acceptanceTable(pictures)];
    const quality = qualitySection(pictures);
    if (quality.chart) {
        const path = `${chartsDirName}/0-quality-${slug(quality.chart.name)}.svg`;
        charts.push({ path, svg: `${await quality.chart.render(true)}\n` });
        body.push("<h2>Quality</h2>", `<div class="charts"><figure>${await quality.chart.render(false)}<figcaption>${esc(path)}</figcaption></figure></div>`, ...quality.html.slice(1));
    }
    else
        body.push(...quality.html);
    body.push(...specDecodeHtml(pictures));
    for (const [index, cell] of pictures.cells.entries()) {
        const status = pictures.verdict.cells.find((c) => c.name === cell.cell);
        body.push(`<h2>Cell ${esc(cell.cell, 120)}</h2>`, status
            ? `<p class="note">${status.baselineRuns} baseline and ${status.candidateRuns} candidate usable runs; ${esc(status.status.replace(/-/g, " "))}${status.note ? `: ${esc(status.note, 300)}` : ""}.</p>`
            : "", capacityNote(cell), sweepNote(cell), ...cell.notes.map((note) => `<p class="note">${esc(note, 400)}</p>`));
        const named = providers.flatMap((provider) => provider(cell));
        const sections = [...new Set(named.map((chart) => chart.section))];
        const taken = new Set();
        for (const section of sections) {
            body.push(`<h3>${esc(section)}</h3>`, '<div class="charts">');
            for (const chart of named.filter((c) => c.section === section)) {
                let stem = `${index + 1}-${slug(cell.cell)}-${slug(chart.name)}`;
                for (let k = 2; taken.has(stem); k++)
                    stem = `${index + 1}-${slug(cell.cell)}-${slug(chart.name)}-${k}`;
                taken.add(stem);
                const path = `${chartsDirName}/${stem}.svg`;
                // Rendered once per form, one after the other: the renderer's id counters are global.
                charts.push({ path, svg: `${await chart.render(true)}\n` });
                body.push(`<figure>${await chart.render(false)}<figcaption>${esc(path)}</figcaption></figure>`);
            }
            body.push("</div>");
        }
    }
    const verdict = pictures.verdict;
    body.push(`<p class="note">vllm-perf-gate ${esc(verdict.tool.version, 40)} · verdict.json schema ${verdict.schemaVersion} · the same charts are SVG files in ${chartsDirName}/ (drawn with Vega-Lite; each mark's value is in its accessible label).</p>`);
    const title = `vllm-perf-gate: ${headlineWords(verdict).title}`;
    return { html: htmlPage(title, body), charts };
}

/**
 * The largest standard error of the difference at which a check is decided: the detectable change is
 * exp(ln(1 + tolerance) + q·se) − 1 with q fixed by the df and the levels, so q is read off one call of
 * the report's own function.
 */
function standardErrorToDecide(input, df) {
    const q = detectableQuantile(input, df);
    return (logRatioOf(input.detectChange) - toleranceMargin(input.tolerance)) / q;
}
/** q of the detectable change at `df` (its value at 3 significant digits of df: the planner asks often). */
const quantiles = new Map();
function detectableQuantile(input, df) {
    const grid = Number.isFinite(df) ? Number(df.toPrecision(3)) : df;
    const key = `${input.tolerance}\u0000${input.alpha}\u0000${grid}`;
    const known = quantiles.get(key);
    if (known !== undefined)
        return known;
    const probe = 0.01;
    const detectable = minimumDetectableChange({
        baselineVariance: probe ** 2,
        candidateVariance: 0,
        baselineRuns: 1,
        candidateRuns: 1,
        extraVariance: 0,
        tolerance: input.tolerance,
        alpha: input.alpha,
        df: grid,
    });
    const q = (logRatioOf(detectable) - toleranceMargin(input.tolerance)) / probe;
    if (quantiles.size > 10_000)
        quantiles.clear();
    quantiles.set(key, q);
    return q;
}
function levelsAt(input, check, runs, schedule) {
    const starts = Math.max(1, Math.min(runs, input.startsPerSide(runs, schedule)));
    if (starts >= runs)
        return { fixed: check.runVariance + check.startVariance, startWeight: 0, starts, ownStarts: true };
    return {
        fixed: check.runVariance,
        startWeight: input.startWeightAt(runs, schedule),
        starts,
        ownStarts: false,
    };
}
/**
 * Satterthwaite's df of the run part of the difference as compare estimates it (stats/two-level.ts
 * runLevelDfTerms): each of `sides` sides' variance from its own `own` df pooled with a prior of `prior`
 * df that both share, so counted once: s·(own + prior)² / (own + s·prior) when the variances agree.
 */
function runPartDf(sides, own, prior) {
    if (!Number.isFinite(prior))
        return Number.POSITIVE_INFINITY;
    const total = own + prior;
    return Math.max(1, (sides * total * total) / Math.max(1e-9, own + sides * prior));
}
/**
 * Satterthwaite's df of the difference's variance from its two parts, as the two-level test estimates
 * them (stats/two-level.ts): the run part from the runs within starts (a side's R − G) pooled with the
 * calibration's within-start prior, the start part from the starts (G − 1 a side) pooled with the
 * prior's weight and a calibration's start df. With every run on a start of its own there is one part:
 * the runs' whole spread (R − 1 a side) pooled with the calibration's variance of a run on its own start.
 * `levels`: the check's at R runs in the schedule (levelsAt), worked out once by the caller.
 */
function checkDf(input, check, runs, levels, requests) {
    if (levels.ownStarts)
        return runPartDf(input.sides, runs - 1, check.perRunDf ?? 0);
    const runPart = (levels.fixed + check.withinVariance1 / Math.max(1, requests)) / runs;
    const startPart = check.startVariance * levels.startWeight;
    const runDf = runPartDf(input.sides, runs - levels.starts, check.priorDf);
    const startDf = Math.max(1, input.sides * (levels.starts - 1) + input.startPriorDf + (check.startDf ?? check.priorDf));
    if (startPart <= 0)
        return runDf;
    return (runPart + startPart) ** 2 / (runPart ** 2 / runDf + startPart ** 2 / startDf);
}
/** Requests that bring a check to detect_change at R runs in a schedule; null when none up to the cap. */
function requestsToDecide(input, cell, check, runs, schedule) {
    const levels = levelsAt(input, check, runs, schedule);
    const roomAt = (requests) => {
        const se = standardErrorToDecide(input, checkDf(input, check, runs, levels, requests));
        // se² = 2·(fixed + withinVariance1/n)/R + 2·startVariance·Σn²/N²
        return (se ** 2 / 2 - check.startVariance * levels.startWeight) * runs;
    };
    const fits = (requests) => levels.fixed + check.withinVariance1 / requests <= roomAt(requests);
    if (cell.secondsPerRequest === null)
        return fits(cell.declaredRequests) ? cell.declaredRequests : null;
    const floor = Math.max(1, cell.minRequests);
    if (fits(floor))
        return floor;
    // The df grow as the run part shrinks: two rounds from the floor's df settle the length.
    let needed = floor;
    for (let round = 0; round < 3; round++) {
        const room = roomAt(needed);
        if (room <= levels.fixed)
            return null;
        needed = Math.max(floor, Math.ceil(check.withinVariance1 / (room - levels.fixed)));
        if (needed > input.maxRequests)
            return null;
    }
    while (!fits(needed)) {
        needed = Math.ceil(needed * 1.05);
        if (needed > input.maxRequests)
            return null;
    }
    return needed;
}
/** The report's detectable-change input for a check at R runs a side in a schedule, `requests` per run. */
function detectableInput(input, check, runs, schedule, requests) {
    const levels = levelsAt(input, check, runs, schedule);
    const perRun = levels.fixed + check.withinVariance1 / Math.max(1, requests);
    const weight = levels.startWeight;
    // Against a stored baseline the other side is the baseline's, taken as measured like ours.
    return {
        baselineVariance: perRun,
        candidateVariance: perRun,
        baselineRuns: runs,
        candidateRuns: runs,
        extraVariance: 0,
        ...(weight > 0
            ? {
                start: {
                    startVariance: check.startVariance,
                    runsPerStart: Math.ceil(runs / levels.starts),
                    fixedWeights: { baseline: weight, candidate: weight },
                },
            }
            : {}),
        tolerance: input.tolerance,
        alpha: input.alpha,
        df: checkDf(input, check, runs, levels, requests),
    };
}
/** The minimum detectable change of a check at R runs a side in a schedule, at `requests` per run. */
function detectableAt(input, check, runs, schedule, requests) {
    return minimumDetectableChange(detectableInput(input, check, runs, schedule, requests));
}
/** The power at detect_change of a check at R runs a side in a schedule, its variances taken as true. */
function powerAt(input, check, runs, schedule, requests) {
    return powerAtChange(detectableInput(input, check, runs, schedule, requests), input.detectChange);
}
/** A cell's fewest requests per run: a fixed-length run's own, else its floor (gate.min_requests). */
function floorRequests(cell) {
    return cell.secondsPerRequest === null ? cell.declaredRequests : Math.max(1, cell.minRequests);
}
function secondsPerRun(cell, requests) {
    return cell.secondsPerRequest === null
        ? cell.fixedSecondsPerRun
        : requests * cell.secondsPerRequest + cell.fixedSecondsPerRun;
}
/** GPU-minutes of a plan: every run of every cell on each side, and every server start. */
function minutesOf(input, runs, schedule, runSeconds) {
    return (input.sides * runs * runSeconds + input.startsFor(runs, schedule) * input.startSeconds) / 60;
}
/** Lengths between a cell's floor and its longest affordable run the planner also weighs for power. */
const powerGridSteps = 12;
/**
 * A cell's choices at R runs in a schedule within `runSeconds` a run of every cell: its floor (every cell
 * is measured, decided or not), each length at which one more of its checks is decided, and a geometric
 * grid of lengths up to the longest affordable for the power of the checks it cannot decide.
 */
function cellOptions(input, cell, runs, schedule, runSeconds) {
    const floor = floorRequests(cell);
    const needs = cell.checks
        .map((check) => requestsToDecide(input, cell, check, runs, schedule))
        .filter((n) => n !== null);
    const lengths = new Set([floor, ...needs.filter((n) => n > floor)]);
    if (cell.secondsPerRequest !== null) {
        const top = Math.min(input.maxRequests, Math.floor((runSeconds - cell.fixedSecondsPerRun) / cell.secondsPerRequest));
        for (let g = 1; g <= powerGridSteps && top > floor; g++)
            lengths.add(Math.round(floor * (top / floor) ** (g / powerGridSteps)));
    }
    const options = [...lengths]
        .sort((x, y) => x - y)
        .map((requests) => ({
        requests,
        seconds: secondsPerRun(cell, requests),
        decided: needs.filter((n) => n <= requests).length,
        power: cell.checks.reduce((sum, check) => sum + powerAt(input, check, runs, schedule, requests), 0),
    }));
    // A longer run worth no more than a shorter one is never bought.
    const kept = [];
    for (const option of options)
        if (kept.length === 0 || worth(option) > worth(kept.at(-1)))
            kept.push(option);
    return kept;
}
/** Cost units of the knapsack over cells: a GPU-minute budget cut into this many steps. */
const costSteps = 2000;
/**
 * Power gains smaller than this (summed over the checks) do not buy GPU time: within it, plans count as
 * equally powerful and the cheaper is taken.
 */
const powerStep = 0.01;
/** An option's worth in the knapsack: a decided check outweighs any power, power counts in whole steps. */
const worth = (option) => option.decided * 1e6 + Math.floor(option.power / powerStep + 1e-9);
/**
 * The options (one per cell) worth the most within `seconds` of runs, cheapest among the best: a knapsack
 * over cells on a grid of costSteps (costs rounded up, so never over budget).
 */
function bestOptions(options, seconds) {
    if (!(seconds >= 0))
        return null;
    const unit = Math.max(seconds / costSteps, 1e-9);
    const steps = Math.floor(seconds / unit + 1e-9);
    // At cost ≤ c units after each cell: worth, exact seconds, and the option taken (-1: none).
    let value = new Float64Array(steps + 1);
    let spent = new Float64Array(steps + 1);
    const taken = [];
    const from = [];
    for (const list of options) {
        const nextValue = new Float64Array(steps + 1).fill(-1);
        const nextSpent = new Float64Array(steps + 1);
        const choice = new Int16Array(steps + 1).fill(-1);
        const previous = new Int32Array(steps + 1);
        const costs = list.map((option) => Math.ceil(option.seconds / unit - 1e-9));
        const worths = list.map(worth);
        for (let c = 0; c <= steps; c++) {
            for (let o = 0; o < list.length; o++) {
                const before = c - costs[o];
                if (before < 0 || value[before] < 0)
                    continue;
                const v = value[before] + worths[o];
                const s = spent[before] + list[o].seconds;
                if (v > nextValue[c] || (v === nextValue[c] && s < nextSpent[c])) {
                    nextValue[c] = v;
                    nextSpent[c] = s;
                    choice[c] = o;
                    previous[c] = before;
                }
            }
        }
        value = nextValue;
        spent = nextSpent;
        taken.push(choice);
        from.push(previous);
    }
    if (value[steps] < 0)
        return null;
    const chosen = [];
    let c = steps;
    for (let i = options.length - 1; i >= 0; i--) {
        chosen.unshift(options[i][taken[i][c]]);
        c = from[i][c];
    }
    return chosen;
}
/** Plan a beats plan b: more checks decided, else more power by a step, else as powerful and cheaper. */
function better(a, b) {
    if (a.decided !== b.decided)
        return a.decided > b.decided;
    if (Math.abs(a.power - b.power) >= powerStep)
        return a.power > b.power;
    return a.gpuMinutes < b.gpuMinutes - 1e-9;
}
/** Runs per side the planner weighs, from the fewest to the most. */
function runCounts(input) {
    const counts = [];
    for (let runs = Math.max(2, input.minRuns); runs <= Math.max(input.minRuns, input.maxRuns); runs++)
        counts.push(runs);
    return counts;
}
/**
 * The plan within the budget: over runs per side and schedules, the options that decide the most
 * checks, then have the most power at detect_change, the cheapest of those. Null when not even the
 * fewest runs of every cell at its floor fit.
 */
function planWithinBudget(input) {
    let best = null;
    const checks = input.cells.reduce((n, cell) => n + cell.checks.length, 0);
    const floorSeconds = input.cells.reduce((sum, cell) => sum + secondsPerRun(cell, floorRequests(cell)), 0);
    for (const runs of runCounts(input)) {
        for (const schedule of input.schedulesAt(runs)) {
            const startMinutes = minutesOf(input, runs, schedule, 0);
            const runSecondsLeft = ((input.budgetMinutes - startMinutes) * 60) / (input.sides * runs);
            if (!(runSecondsLeft >= 0) || floorSeconds > runSecondsLeft)
                continue;
            const options = input.cells.map((cell) => cellOptions(input, cell, runs, schedule, runSecondsLeft));
            const chosen = bestOptions(options, runSecondsLeft);
            if (chosen === null)
                continue;
            const seconds = chosen.reduce((sum, option) => sum + option.seconds, 0);
            const plan = describe(input, runs, schedule, chosen, minutesOf(input, runs, schedule, seconds), checks);
            if (best === null || better(plan, best))
                best = plan;
        }
    }
    return best;
}
function describe(input, runs, schedule, chosen, gpuMinutes, checks) {
    const cells = input.cells.map((cell, i) => {
        const option = chosen[i];
        return {
            name: cell.name,
            requests: cell.secondsPerRequest === null ? null : option.requests,
            secondsPerRun: option.seconds,
            checks: cell.checks.map((check) => {
                const detectable = detectableAt(input, check, runs, schedule, option.requests);
                const power = powerAt(input, check, runs, schedule, option.requests);
                return { metric: check.metric, detectable, decided: detectable <= input.detectChange, power };
            }),
        };
    });
    return {
        runsPerSide: runs,
        schedule,
        serverStarts: input.startsFor(runs, schedule),
        gpuMinutes,
        budgetMinutes: input.budgetMinutes,
        cells,
        decided: cells.reduce((n, cell) => n + cell.checks.filter((c) => c.decided).length, 0),
        checks,
        power: cells.reduce((sum, cell) => sum + cell.checks.reduce((p, c) => p + c.power, 0), 0),
    };
}
/**
 * The least GPU-minutes at which one check is decided (with the checks the plan decides kept decided):
 * the budget that would decide it, or null when no plan up to the largest runs and requests does.
 */
function budgetToDecide(input, plan, cellName, metric) {
    const keep = (cell, check) => check.decided || (cell.name === cellName && check.metric === metric);
    let least = null;
    for (const runs of runCounts(input)) {
        for (const schedule of input.schedulesAt(runs)) {
            let seconds = 0;
            let possible = true;
            for (const [i, cell] of input.cells.entries()) {
                const planned = plan.cells[i];
                let requests = floorRequests(cell);
                for (const [j, check] of cell.checks.entries()) {
                    if (!keep(planned, planned.checks[j]))
                        continue;
                    const needed = requestsToDecide(input, cell, check, runs, schedule);
                    if (needed === null) {
                        possible = false;
                        break;
                    }
                    requests = Math.max(requests, needed);
                }
                if (!possible)
                    break;
                seconds += secondsPerRun(cell, requests);
            }
            if (!possible)
                continue;
            const minutes = minutesOf(input, runs, schedule, seconds);
            if (least === null || minutes < least)
                least = minutes;
        }
    }
    return least;
}
/** GPU-minutes of the cheapest plan that measures every cell: the fewest runs, each cell at its floor. */
function leastMinutes(input) {
    const floorSeconds = input.cells.reduce((sum, cell) => sum + secondsPerRun(cell, floorRequests(cell)), 0);
    const runs = input.minRuns;
    return Math.min(...input.schedulesAt(runs).map((schedule) => minutesOf(input, runs, schedule, floorSeconds)));
}

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
    const margin = toleranceMargin(input.tolerance);
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
    const margin = toleranceMargin(input.tolerance);
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
    const group = alternation(config);
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
 * How R runs a side alternating in groups of `group` (runner/interleaved.ts alternatingBlocks; a number
 * of runs per group, or the alternation) fall into server starts: the starts of the side with fewer of
 * them, and Σn²/N² of the side whose runs share starts the most (the start variance's share of its mean).
 */
function interleavedStartShape(runs, group) {
    const blocks = alternatingBlocks(0, runs, ["a", "b"], group);
    const ofSide = (side) => blocks.filter((b) => b.side === side);
    const weight = (side) => ofSide(side).reduce((sum, b) => sum + b.runs * b.runs, 0) / (runs * runs);
    return {
        fewestStarts: Math.min(ofSide("a").length, ofSide("b").length),
        weight: Math.max(weight("a"), weight("b")),
    };
}
/** Σn²/N² of the side whose runs share starts the most (interleavedStartShape). */
function interleavedStartWeight(runs, group) {
    return interleavedStartShape(runs, group).weight;
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
    const group = alternation(config);
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
        {
            mode: "baseline",
            plan: oneSide(config.repeats.baseline, servers *
                serverStartsPerCell("baseline", config.repeats.baseline, [], lifecycle, baselineRunsPerStart(config))),
        },
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

/**
 * A pull request's budget applied (gate.budget_gpu_minutes, docs/action.md "Choosing a budget"): the
 * plan of stats/budget-plan.ts for the config's fixed-load cells and gated metrics, each check with its
 * own noise (gate.noise_prior of its family at both levels, or what a calibration measured), and the
 * config that measures it. `run`, the action, `compare` and `validate` all take the config through
 * `configWithinBudget`, so what validate prints is what is measured and judged.
 */
/**
 * A percentile's sampling sd on the ln scale at 1,000 requests, by the statistic a gated metric is
 * judged on (bench/noise.ts measures the p95's: 1.66% over heavy-tailed, autocorrelated latencies; the
 * others scale with the tail's sparsity). A rate or a mean over the run: 0.5%.
 */
const samplingSdAt1000 = { p90: 0.013, p95: 0.0166, p99: 0.03, p99_9: 0.06, none: 0.005 };
/** The prior noise of one gated metric: gate.noise_prior of its family and its statistic's sampling. */
function priorCheckNoise(config, metric) {
    const spec = metricSpecs[metric];
    const prior = config.gate.noise_prior[spec.noise];
    const sampling = samplingSdAt1000[spec.minRequests ?? "none"];
    return {
        metric,
        startVariance: prior.start_sd ** 2,
        runVariance: prior.run_sd ** 2,
        withinVariance1: sampling ** 2 * 1000,
        priorDf: 0,
    };
}
/**
 * The noise a calibration measured on this runner (compare/calibration/calibration.ts
 * calibratedNoiseByFamily), per cell and metric family, with its degrees of freedom: the run-to-run variance
 * within a start, split into the part more requests do not shrink and the statistic's sampling noise (at most
 * the prior's at the calibration's run length), and the start-to-start variance where it measured starts. A
 * level it did not measure keeps gate.noise_prior's, with no df.
 */
function calibratedCheckNoise(config, file, now) {
    const byCell = calibratedNoiseByFamily(file, now);
    return (cell, metric) => {
        const measured = byCell.get(cell)?.get(metricSpecs[metric].noise);
        if (!measured)
            return null;
        const prior = priorCheckNoise(config, metric);
        const within = measured.withinStart ?? measured.perRun;
        if (!within)
            return null;
        const requests = measured.requestsPerRun ?? 1000;
        const sampling = Math.min(within.variance, prior.withinVariance1 / requests);
        return {
            metric,
            // The measured start level pooled with the config's, as compare pools it (compare/start-noise.ts).
            startVariance: measured.start
                ? withConfigStartPrior(measured.start, {
                    variance: prior.startVariance,
                    df: config.gate.noise_prior.weight_starts,
                }).variance
                : prior.startVariance,
            runVariance: Math.max(0, within.variance - sampling),
            withinVariance1: sampling * requests,
            priorDf: within.df,
            startDf: measured.start?.df ?? 0,
            // What compare pools the runs of a start each with (two-level.ts RunVariancePrior.perRun).
            perRunDf: measured.perRun?.df ?? 0,
        };
    };
}
/** Runs per side per group the budget planner chooses from, consecutive groups of a side sharing a start. */
const blockChoices = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 40];
/** Every run of a side on a start of its own (repeats.block fresh): a choice where the runner starts its server. */
const freshStarts = { runsPerGroup: 1, startEachGroup: true };
/** Most runs per side a budget plan considers (the largest standard look). */
const budgetMaxRuns = 40;
/** Fewest runs per side a budget plan measures: fewer can rarely support a verdict. */
const budgetMinRuns = 3;
/** The planner's input for a config and budget: its cells, checks, costs and how runs fall into starts. */
function budgetPlanInput(config, budgetMinutes, options = {}) {
    const mode = options.mode ?? "interleaved";
    const gated = config.gate.metrics.filter((metric) => metricSpecs[metric].judged === "per-run");
    // A unit sampling variance shows each cell's scale: 1 per request, 1/turns per session of a session cell.
    const unit = { runVariance: 0, withinVariance1: 1, basis: "unit" };
    const twice = planCells(doubledSizes(config), () => unit, options.traces);
    const cells = planCells(config, () => unit, options.traces).map((cell, i) => ({
        name: cell.name,
        ...runSecondsOf(cell, twice[i]),
        declaredRequests: cell.declaredRequests,
        minRequests: cell.minRequests,
        checks: gated.map((metric) => {
            const noise = options.noiseOf?.(cell.name, metric) ?? priorCheckNoise(config, metric);
            // A session cell's "requests" are sessions of several turns (run-plan.ts planCells).
            return { ...noise, withinVariance1: noise.withinVariance1 * cell.noise.withinVariance1 };
        }),
    }));
    const lifecycle = serverLifecycle(config);
    const servers = startedServers(lifecycle, cells.length);
    const familyAlpha = 1 - config.gate.confidence;
    const checks = cells.reduce((n, cell) => n + cell.checks.length, 0);
    return {
        cells,
        budgetMinutes,
        tolerance: config.gate.tolerance,
        detectChange: config.gate.detect_change,
        // One look (the plan is measured at once): the family level, at Holm's strictest step.
        alpha: familyAlpha / Math.max(1, checks),
        minRuns: budgetMinRuns,
        maxRuns: budgetMaxRuns,
        maxRequests: configLimits.requestsPerRun,
        schedulesAt: schedulesOf(config, mode),
        startsFor: bySchedule((runs, schedule) => servers * serverStartsPerCell(mode, runs, [], lifecycle, schedule)),
        startWeightAt: bySchedule((runs, schedule) => lifecycle === "per-run"
            ? 1 / runs
            : mode === "interleaved"
                ? interleavedStartWeight(runs, schedule)
                : 1),
        startsPerSide: bySchedule((runs, schedule) => lifecycle === "per-run"
            ? runs
            : mode === "interleaved"
                ? interleavedStartShape(runs, schedule).fewestStarts
                : 1),
        startPriorDf: config.gate.noise_prior.weight_starts,
        startSeconds: serverStartSeconds(config),
        sides: mode === "interleaved" ? 2 : 1,
    };
}
/**
 * The schedules a budget plan chooses from at R runs a side, each once: interleaved, groups of the
 * blockChoices' runs (at most R) whose consecutive groups of a side share a start, and where the runner
 * starts its server, every run on a start of its own (freshStarts: 2·R starts per server, the start
 * level inside the runs' own spread); against a stored baseline, the side's runs on one start a step.
 */
function schedulesOf(config, mode) {
    const fresh = serverKindFacts[config.server.kind].launchesProcess ? [freshStarts] : [];
    const known = new Map();
    return (runs) => {
        let schedules = known.get(runs);
        if (schedules === undefined) {
            const groups = mode === "interleaved" ? [...new Set(blockChoices.map((k) => Math.min(runs, k)))] : [runs];
            schedules = [
                ...groups.map((runsPerGroup) => ({ runsPerGroup, startEachGroup: false })),
                ...(mode === "interleaved" ? fresh : []),
            ];
            known.set(runs, schedules);
        }
        return schedules;
    };
}
/** A function of (runs, schedule) remembered per pair: the planner asks each thousands of times a plan. */
function bySchedule(f) {
    const known = new Map();
    return (runs, schedule) => {
        let byRuns = known.get(schedule);
        if (byRuns === undefined) {
            byRuns = new Map();
            known.set(schedule, byRuns);
        }
        let value = byRuns.get(runs);
        if (value === undefined) {
            value = f(runs, schedule);
            byRuns.set(runs, value);
        }
        return value;
    };
}
/** The config with every request-sized cell at twice its requests per run (the run length's slope). */
function doubledSizes(config) {
    return {
        ...config,
        cells: config.cells.map((cell) => "requests" in cell.size ? { ...cell, size: { requests: 2 * cell.size.requests } } : cell),
    };
}
/**
 * A run's seconds as a + b·requests, from validate's estimate at the config's size and at twice it: the
 * schedule's requests over its rate plus one request's answer. The plan then prices a size the same
 * whatever size the config declares, so a config with a plan applied, planned again (compare and the base
 * side of the action do), buys the same plan. A run whose estimate does not grow with its requests keeps
 * the estimate's share per request.
 */
function runSecondsOf(at, twice) {
    if (at.secondsPerRequest === null || twice.secondsPerRequest === null)
        return { secondsPerRequest: at.secondsPerRequest, fixedSecondsPerRun: at.fixedSecondsPerRun };
    const n = at.declaredRequests;
    const seconds = n * at.secondsPerRequest;
    const slope = (2 * n * twice.secondsPerRequest - seconds) / n;
    if (!(slope > 0))
        return { secondsPerRequest: at.secondsPerRequest, fixedSecondsPerRun: at.fixedSecondsPerRun };
    const warmup = at.secondsPerRequest > 0 ? at.fixedSecondsPerRun / at.secondsPerRequest : 0;
    return { secondsPerRequest: slope, fixedSecondsPerRun: seconds - slope * n + warmup * slope };
}
/** A budget that cannot measure every cell once at its floor: an input error (exit 2), before any GPU time. */
class BudgetError extends InputError {
}
/** The plan of a budget, or a BudgetError naming the field when the budget cannot measure every cell. */
function decideBudget(config, budgetMinutes, options = {}) {
    const input = budgetPlanInput(config, budgetMinutes, options);
    const plan = planWithinBudget(input);
    if (plan === null)
        throw new BudgetError(`${options.file ? `${options.file}: ` : ""}gate.budget_gpu_minutes: ${budgetMinutes} GPU-minutes cannot measure ${budgetMinRuns} runs a side of every cell at its fewest requests with its server starts (the least: ${Math.ceil(leastMinutes(input))} GPU-minutes); raise the budget or measure fewer cells`);
    const undecided = new Map();
    for (const cell of plan.cells)
        for (const check of cell.checks)
            if (!check.decided)
                undecided.set(`${cell.name}\u0000${check.metric}`, budgetToDecide(input, plan, cell.name, check.metric));
    return { plan, input, budgetToDecide: undecided };
}
/**
 * The config that measures a budget plan: each fixed-load cell at its planned requests per run, and the
 * runs per side in one look (repeats.min = repeats.max) in the planned schedule (repeats.block: its
 * runs per group, or "fresh" for every run on a start of its own).
 */
function applyBudgetPlan(config, plan) {
    const requests = new Map(plan.cells.map((cell) => [cell.name, cell.requests]));
    const block = repeatsBlockOf(plan.schedule);
    return {
        ...config,
        repeats: { ...config.repeats, min: plan.runsPerSide, max: plan.runsPerSide, block },
        cells: config.cells.map((cell) => {
            const planned = requests.get(cell.name);
            return planned != null && "requests" in cell.size ? { ...cell, size: { requests: planned } } : cell;
        }),
    };
}
/**
 * The config as a budget measures it: unchanged without gate.budget_gpu_minutes; else with its plan
 * applied, and the plan. Every use case calls this once after loading.
 */
function configWithinBudget(config, options = {}) {
    const budget = config.gate.budget_gpu_minutes;
    if (budget === undefined)
        return { config, budget: null };
    const measured = options.cells
        ? { ...config, cells: config.cells.filter((cell) => options.cells.includes(cell.name)) }
        : config;
    const decision = decideBudget(measured, budget, options);
    return { config: applyBudgetPlan(config, decision.plan), budget: decision };
}
/**
 * compare's settings for runs measured under the config: under its budget when it has one, the plan
 * `run` and the action measured (`configWithinBudget` over the measured cells, for the comparison's mode
 * and the noise the plan was chosen with), recorded in the verdict. A budget that could not buy a plan
 * still limits the judgement: the runs are measured, judged without the plan.
 */
function budgetedSettings(config, options) {
    const limit = config.gate.budget_gpu_minutes;
    if (limit === undefined)
        return settingsFromConfig(config);
    let within;
    try {
        within = configWithinBudget(config, options);
    }
    catch (error) {
        if (!(error instanceof BudgetError))
            throw error;
        return { ...settingsFromConfig(config), budget: { limitGpuMinutes: limit, plan: null } };
    }
    const { config: planned, budget } = within;
    const settings = settingsFromConfig(planned);
    if (budget === null)
        return settings;
    const plan = budget.plan;
    return {
        ...settings,
        budget: {
            limitGpuMinutes: plan.budgetMinutes,
            plan: {
                gpuMinutes: plan.gpuMinutes,
                runsPerSide: plan.runsPerSide,
                runsPerStart: plan.schedule.runsPerGroup,
                ...(plan.schedule.startEachGroup ? { startEachGroup: true } : {}),
                requests: Object.fromEntries(plan.cells.map((cell) => [cell.name, cell.requests])),
            },
        },
    };
}
const unlimited = Number.MAX_SAFE_INTEGER / 1e6;
/** validate --budget's table: each cell alone, the set a budget decides, and the plan of them all. */
function budgetOverview(config, budgetMinutes, options = {}) {
    const fixedLoad = planCells(config, undefined, options.traces).map((cell) => cell.name);
    const only = (names) => ({
        ...config,
        cells: config.cells.filter((cell) => names.includes(cell.name)),
    });
    const rows = fixedLoad.map((name) => {
        const alone = only([name]);
        const tolerancePlan = runPlans(alone, undefined, options.traces)[0].plan;
        const all = planWithinBudget(budgetPlanInput(alone, unlimited, options));
        const atDetectChange = all && all.decided === all.checks ? all.gpuMinutes : null;
        const within = planWithinBudget(budgetPlanInput(alone, budgetMinutes, options));
        return {
            cell: name,
            atTolerance: tolerancePlan.gpuMinutes,
            atDetectChange,
            detectable: within
                ? new Map(within.cells[0].checks.map((check) => [check.metric, check.detectable]))
                : null,
        };
    });
    // Cheapest to decide first; a cell joins while the joint plan still decides every check of the set.
    const order = rows
        .filter((row) => row.atDetectChange !== null && row.atDetectChange <= budgetMinutes)
        .sort((a, b) => a.atDetectChange - b.atDetectChange);
    let affordable = { cells: [], plan: null };
    for (const row of order) {
        const cells = [...affordable.cells, row.cell];
        const plan = planWithinBudget(budgetPlanInput(only(cells), budgetMinutes, options));
        if (plan && plan.decided === plan.checks)
            affordable = { cells, plan };
    }
    let whole;
    try {
        whole = decideBudget(config, budgetMinutes, options).plan;
    }
    catch (error) {
        if (!(error instanceof BudgetError))
            throw error;
        whole = error.message;
    }
    return { budgetMinutes, rows, affordable, whole };
}

function rendered(outcome) {
    const { report, comment } = renderReports(outcome.verdict);
    return { ...outcome, reportMarkdown: report, commentMarkdown: comment };
}
function isLoaded(config) {
    return "interpolation" in config;
}
/** Loads both sides from disk (InputError on bad input), compares them and renders the report. */
async function compareResults(input) {
    let settings = defaultCompareSettings();
    const loaded = input.config;
    const config = loaded && isLoaded(loaded) ? loaded.config : loaded;
    const freshStarts = input.freshStarts === true || config?.gate.runs_are_fresh_starts === true;
    const limits = input.limits ?? defaultInputLimits;
    const { baseline, candidate, notes } = await loadSides(input.baseline, input.candidate, limits, {
        freshStarts,
    });
    // The budget's plan as it was measured: with the calibration given, whatever its conditions (the
    // runs were planned before any baseline was read).
    if (config)
        settings = budgetedSettings(config, {
            cells: [...new Set(candidate.map((run) => run.cell))],
            mode: input.mode === "interleaved" ? "interleaved" : "stored",
            ...(input.calibration
                ? { noiseOf: calibratedCheckNoise(config, input.calibration.file, input.now ?? new Date()) }
                : {}),
        });
    const loadedHistory = input.history && input.history.length > 0
        ? await loadRuns(input.history, "history", { limits, freshStarts })
        : [];
    const history = [...loadedHistory, ...(input.historyRuns ?? [])];
    const conditions = baseline[0] ? conditionsHash(baseline[0].fingerprint) : null;
    let priors = input.baselineVariancePriors;
    let priorOrigin = priors ? input.baselineVariancePriorOrigin : undefined;
    let calibrationStarts;
    let runPriors;
    const inputNotes = [...notes];
    if (input.calibration) {
        const { file, source } = input.calibration;
        if (file.conditions !== null && file.conditions === conditions) {
            priorOrigin = calibrationPriorOrigin(file, source, priors ? priorOrigin : undefined);
            priors = calibrationPriors(file, priors);
            calibrationStarts = calibrationStartPriors(file, source);
            runPriors = calibrationRunPriors(file, source);
        }
        else
            inputNotes.push(`calibration ${source} not used: it was measured under other conditions than the baseline (conditions ${file.conditions ?? "unknown"}, baseline ${conditions ?? "unknown"}); run \`calibrate\` again on this runner and config`);
    }
    // The start level measured on this runner: a calibration's and main's history's, pooled by df. Main's
    // history from the gate was read under the baseline's conditions; sessions given as directories are
    // checked here, as a calibration is.
    const sameConditions = loadedHistory.filter((run) => conditionsHash(run.fingerprint) === conditions);
    const startPriors = pooledStartPriors(calibrationStarts, historyStartPriors([...sameConditions, ...(input.historyRuns ?? [])]));
    const decided = compareRecords({
        baseline,
        candidate,
        history,
        ...(priors ? { baselineVariancePriors: priors } : {}),
        ...(priors && priorOrigin ? { baselineVariancePriorOrigin: priorOrigin } : {}),
        ...(startPriors.size > 0 ? { startVariancePriors: startPriors } : {}),
        ...(runPriors && runPriors.size > 0 ? { runVariancePriors: runPriors } : {}),
        inputNotes,
        settings,
        mode: input.mode,
        baselineInfo: input.baselineInfo,
        now: input.now,
    });
    // Cleaned of the job's secrets before it is rendered (redact before you escape: the renderer escapes,
    // and an escaped secret no longer matches its value).
    return rendered({ ...decided, verdict: input.outbound.clean(decided.verdict) });
}
/**
 * Writes DIR/verdict.json, DIR/report.md, DIR/comment.md, DIR/report.html and the same charts as SVG
 * files in DIR/report-charts/ (replaced whole) through the job's output seam, the one the verdict was
 * cleaned through; returns their paths.
 */
async function writeCompareOutputs(outDir, outcome, outbound) {
    await mkdir(outDir, { recursive: true });
    const verdictPath = join(outDir, "verdict.json");
    const reportPath = join(outDir, "report.md");
    const commentPath = join(outDir, "comment.md");
    await outbound.writeFile(verdictPath, `${JSON.stringify(outcome.verdict, null, 2)}\n`);
    await outbound.writeFile(reportPath, outcome.reportMarkdown);
    await outbound.writeFile(commentPath, outcome.commentMarkdown);
    const htmlPath = await writeHtmlReport(outDir, outcome, outbound);
    return { verdictPath, reportPath, commentPath, htmlPath };
}
/** The dashboard exports `compare --format` asks for (export-formats.ts), written in DIR; returns their paths. */
async function writeComparisonExports(outDir, outcome, exports, outbound) {
    const written = [];
    for (const format of exports) {
        const { fileName, ofComparison } = exportFormats[format];
        const path = join(outDir, fileName);
        await outbound.writeFile(path, `${JSON.stringify(ofComparison(outcome.verdict, outcome.runs), null, 2)}\n`);
        written.push(path);
    }
    return written;
}
/** report.html and report-charts/*.svg from the verdict, the run records and the used runs' samples. */
async function writeHtmlReport(outDir, outcome, outbound) {
    // The run records are matched to the verdict by their names as it holds them.
    const asInVerdict = (text) => outbound.clean(text);
    const loaded = await loadRunSamples(outcome.verdict, outcome.runs, asInVerdict);
    const pictures = reportPictures(outcome.verdict, outcome.runs, loaded.samples, asInVerdict, loaded.notes);
    const report = await renderHtmlReport(pictures);
    const htmlPath = join(outDir, "report.html");
    const chartsDir = join(outDir, "report-charts");
    await rm(chartsDir, { recursive: true, force: true });
    for (const chart of report.charts) {
        const path = join(outDir, chart.path);
        await mkdir(dirname(path), { recursive: true });
        await outbound.writeFile(path, chart.svg);
    }
    await outbound.writeFile(htmlPath, report.html);
    return htmlPath;
}
/** Reads a calibration file (InputError naming the file and the field on a bad one). */
async function readCalibration(path, source) {
    const text = await readFile(path, "utf8").catch((error) => {
        throw new InputError(`calibration ${source}: cannot be read (${error.message})`);
    });
    return { file: parseCalibrationFile(text, source), source };
}
/**
 * The comparison of a gate's look: the job's loaded config (fail-on overriding gate.fail_on), both sides
 * and the baseline history, verdict.json and report.md written to the request's directory.
 */
async function compareForGate(request) {
    const loaded = request.config;
    const config = request.failOn
        ? { ...loaded.config, gate: { ...loaded.config.gate, fail_on: request.failOn } }
        : loaded.config;
    const calibration = request.calibrationPath
        ? await readCalibration(resolve(request.workingDirectory, request.calibrationPath), request.calibrationPath)
        : undefined;
    const outcome = await compareResults({
        baseline: [request.baselineDir],
        ...(calibration ? { calibration } : {}),
        history: request.historyDirs,
        ...(request.historyRuns ? { historyRuns: request.historyRuns } : {}),
        ...(request.baselineVariancePriors ? { baselineVariancePriors: request.baselineVariancePriors } : {}),
        ...(request.baselineVariancePriorOrigin
            ? { baselineVariancePriorOrigin: request.baselineVariancePriorOrigin }
            : {}),
        candidate: [request.candidateDir],
        config,
        mode: request.mode,
        baselineInfo: request.baselineInfo,
        outbound: request.outbound,
    });
    await writeCompareOutputs(request.outDir, outcome, request.outbound);
    return {
        verdict: outcome.verdict.verdict,
        exitCode: outcome.exitCode,
        report: outcome.reportMarkdown,
        nextLook: outcome.verdict.nextLook,
        verdictFile: outcome.verdict,
    };
}

export { loadCurveChart as A, BudgetError as B, htmlPage as C, blocksToTerminal as D, firstScreenBlocks as E, cleanForTerminal as F, withoutMachinePaths as G, terminalMarkup as H, configWithinBudget as a, calibratedCheckNoise as b, compareForGate as c, applyBudgetPlan as d, renderReports as e, markdownMarkup as f, budgetPlanLines as g, budgetCutWarning as h, runPlans as i, configuredPassChance as j, applyRunPlan as k, budgetOverview as l, methodChangeLine as m, budgetOverviewLines as n, overrideLine as o, isExportFormat as p, exportFormatNames as q, readCalibration as r, exportFormats as s, compareResults as t, writeComparisonExports as u, esc as v, writeCompareOutputs as w, drawnLoadFigures as x, chartsDirName as y, slug as z };
