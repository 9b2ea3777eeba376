import { stat, readFile, mkdir, writeFile, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { p as parseCalibrationFile, d as defaultCompareSettings, s as settingsFromConfig, a as calibrationPriors, b as calibrationStartPriors, e as compareRecords } from './calibration.js';
import { b as conditionsHash } from './history.js';
import { o as scrapeSeries, c as collectJobSecrets, p as loadSides, l as loadRuns, d as defaultInputLimits } from './secrets.js';
import { k as requestRecordSchema, m as requestLatencies, o as answerLatencies } from './session-metrics.js';
import { l as loadConfig, n as noInterpolation } from './load.js';
import { r as renderReports, i as reportPictures, j as renderHtmlReport } from './report-html.js';
import { I as InputError } from './version.js';

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
async function loadRunSamples(verdict, runs, redact) {
    const used = new Set(verdict.runs.used.map((r) => JSON.stringify([r.side, r.cell, r.run, r.source])));
    const budget = { bytes: 0 };
    const samples = [];
    const notes = [];
    for (const side of ["baseline", "candidate"]) {
        for (const record of runs[side]) {
            const cell = redact(record.cell);
            if (!used.has(JSON.stringify([side, cell, record.run, redact(record.source)])))
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

/** Decides from run records in memory and renders both forms of the report (pure). */
function compareAndRender(input) {
    const outcome = compareRecords(input);
    const { report, comment } = renderReports(outcome.verdict);
    return { ...outcome, reportMarkdown: report, commentMarkdown: comment };
}
function isLoaded(config) {
    return "interpolation" in config;
}
/** Loads both sides from disk (InputError on bad input), compares them and renders the report. */
async function compareResults(input) {
    let settings = defaultCompareSettings();
    const loaded = typeof input.config === "string"
        ? await loadConfig(input.config, { env: input.env, cwd: input.cwd })
        : input.config;
    const config = loaded && isLoaded(loaded) ? loaded.config : loaded;
    if (config)
        settings = settingsFromConfig(config);
    const freshStarts = input.freshStarts === true || config?.gate.runs_are_fresh_starts === true;
    // The one set of secrets (server/secrets.ts): api_key_env's value, the values read, credential-like names.
    const redactor = input.redactor ??
        collectJobSecrets({
            env: input.env ?? {},
            configs: !loaded
                ? []
                : [isLoaded(loaded) ? loaded : { config: loaded, interpolation: noInterpolation }],
        }).redactor;
    const limits = input.limits ?? defaultInputLimits;
    const { baseline, candidate, notes } = await loadSides(input.baseline, input.candidate, limits, {
        freshStarts,
    });
    const history = [
        ...(input.history && input.history.length > 0
            ? await loadRuns(input.history, "history", { limits, freshStarts })
            : []),
        ...(input.historyRuns ?? []),
    ];
    let priors = input.baselineVariancePriors;
    let startPriors;
    const inputNotes = [...notes];
    if (input.calibration) {
        const { file, source } = input.calibration;
        const conditions = baseline[0] ? conditionsHash(baseline[0].fingerprint) : null;
        if (file.conditions !== null && file.conditions === conditions) {
            priors = calibrationPriors(file, priors);
            startPriors = calibrationStartPriors(file, source);
        }
        else
            inputNotes.push(`calibration ${source} not used: it was measured under other conditions than the baseline (conditions ${file.conditions ?? "unknown"}, baseline ${conditions ?? "unknown"}); run \`calibrate\` again on this runner and config`);
    }
    return compareAndRender({
        baseline,
        candidate,
        history,
        ...(priors ? { baselineVariancePriors: priors } : {}),
        ...(startPriors && startPriors.size > 0 ? { startVariancePriors: startPriors } : {}),
        inputNotes,
        settings,
        mode: input.mode,
        baselineInfo: input.baselineInfo,
        now: input.now,
        redactor,
    });
}
/**
 * Writes DIR/verdict.json, DIR/report.md, DIR/comment.md, DIR/report.html and the same charts as SVG
 * files in DIR/report-charts/ (replaced whole); returns their paths.
 */
async function writeCompareOutputs(outDir, outcome) {
    await mkdir(outDir, { recursive: true });
    const verdictPath = join(outDir, "verdict.json");
    const reportPath = join(outDir, "report.md");
    const commentPath = join(outDir, "comment.md");
    await writeFile(verdictPath, `${JSON.stringify(outcome.verdict, null, 2)}\n`);
    await writeFile(reportPath, outcome.reportMarkdown);
    await writeFile(commentPath, outcome.commentMarkdown);
    const htmlPath = await writeHtmlReport(outDir, outcome);
    return { verdictPath, reportPath, commentPath, htmlPath };
}
/** report.html and report-charts/*.svg from the verdict, the run records and the used runs' samples. */
async function writeHtmlReport(outDir, outcome) {
    const redact = outcome.redact ?? ((text) => text);
    const loaded = await loadRunSamples(outcome.verdict, outcome.runs, redact);
    const pictures = reportPictures(outcome.verdict, outcome.runs, loaded.samples, redact, loaded.notes);
    const report = await renderHtmlReport(pictures);
    const htmlPath = join(outDir, "report.html");
    const chartsDir = join(outDir, "report-charts");
    await rm(chartsDir, { recursive: true, force: true });
    for (const chart of report.charts) {
        const path = join(outDir, chart.path);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, redact(chart.svg));
    }
    await writeFile(htmlPath, redact(report.html));
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
        candidate: [request.candidateDir],
        config,
        mode: request.mode,
        baselineInfo: request.baselineInfo,
        cwd: request.workingDirectory,
        // Before the verdict is rendered: the job's one set of secrets.
        redactor: request.secrets.redactor,
    });
    await writeCompareOutputs(request.outDir, outcome);
    return {
        verdict: outcome.verdict.verdict,
        exitCode: outcome.exitCode,
        report: outcome.reportMarkdown,
        nextLook: outcome.verdict.nextLook,
        verdictFile: outcome.verdict,
    };
}

export { compareResults as a, compareForGate as c, readCalibration as r, writeCompareOutputs as w };
