import { dirname, join, basename, relative } from 'node:path';
import { i as isSearchedCell } from './load.js';
import { s as selectCells } from './trace-replay.js';
import { L as cutShortLine } from './status.js';
import { p as providerForConfig, r as runCells, h as existingRunIndices } from './run-cells.js';
import { r as runSweepCells } from './run-sweep.js';
import { lstat, readFile, readdir, writeFile } from 'node:fs/promises';
import { k as defaultInputLimits, n as runFileSchema, o as runFileInvariantIssues } from './interleaved.js';
import { t as toolVersion, a as toolName } from './version.js';
import { o as object, a as array, s as string, n as number, l as literal } from './schemas.js';
import { f as datetime } from './format.js';

/**
 * The runs a job asked for, on servers of the config it loaded (recorded in the state file so the
 * post step can stop what a cancelled job left), stopped afterwards. An interrupt keeps the runs so
 * far and then throws; cut-short runs are kept and flagged, compare decides what they may still prove.
 */
async function measureRequestedRuns(request, adapters) {
    const { signal } = adapters;
    const loaded = request.config;
    const provider = providerForConfig(loaded.config, {
        env: { ...adapters.env },
        interpolation: loaded.interpolation,
        outbound: request.outbound,
        stateFile: request.serverStateFile,
        warn: adapters.warn,
        // A server start is never silent in the job's log: what it awaits, every 10 s (server/readiness.ts).
        progress: (line) => adapters.progress.message(line),
        ...(request.device ? { device: request.device } : {}),
    });
    try {
        const runs = await runRequestedCells(request, {
            config: loaded.config,
            provider,
            baseDir: dirname(loaded.path),
            progress: adapters.progress,
            env: adapters.env,
            outbound: request.outbound,
            ...(signal ? { signal } : {}),
        });
        if (signal?.aborted) {
            throw new Error(`interrupted by ${String(signal.reason)}: ${runs.length} run(s) kept in ${request.resultsDir}, the interrupted one marked in its run.json`);
        }
        const cut = runs.filter((run) => run.file.flags.cutShort);
        if (cut.length > 0)
            adapters.warn(cutShortLine(cut));
    }
    finally {
        await provider.stopAll();
    }
}
/**
 * The one split of a measuring step (the action's, the demo's): the cells measured at one load get the
 * runs asked for; a capacity cell's search decides its own runs (at most repeats.max per side); asked
 * again (a later look, a later block of interleaved runs) it resumes from the runs in its directory and
 * adds runs only while its interval is wider than its precision. A stored baseline's search
 * (`searchToMaxRuns`) goes on to capacity.max_runs. A sweep cell is measured once, when its directory
 * holds no runs yet. Servers come from `measuring.provider`, which the caller stops.
 */
async function runRequestedCells(request, measuring) {
    const { config, signal } = measuring;
    const selected = selectCells(config, request.cells ?? undefined);
    const fixed = selected.filter((cell) => !isSearchedCell(cell)).map((cell) => cell.name);
    const searched = [];
    const firstRunByCell = {};
    for (const cell of selected.filter(isSearchedCell)) {
        // A resumed search numbers on after the runs already there (the job's firstRun counts the
        // fixed-load cells' runs, not the search's).
        const next = request.firstRun === 0 ? 0 : nextRunIndex(join(request.resultsDir, cell.name));
        if (cell.capacity === undefined && next > 0)
            continue;
        searched.push(cell.name);
        firstRunByCell[cell.name] = next;
    }
    const common = {
        config,
        provider: measuring.provider,
        outDir: request.resultsDir,
        baseDir: measuring.baseDir,
        ...(request.side ? { side: request.side } : {}),
        progress: measuring.progress,
        env: measuring.env,
        outbound: measuring.outbound,
        ...(signal ? { signal } : {}),
    };
    const runs = [];
    if (fixed.length > 0) {
        const result = await runCells({
            ...common,
            cells: fixed,
            ...(request.runs !== null ? { runs: request.runs } : {}),
            firstRun: request.firstRun,
            ...(request.firstRunByCell ? { firstRunByCell: request.firstRunByCell } : {}),
            ...(request.runsByCell ? { runsByCell: request.runsByCell } : {}),
        });
        runs.push(...result.runs);
    }
    if (searched.length > 0 && !signal?.aborted) {
        const result = await runSweepCells({
            ...common,
            cells: searched,
            firstRun: request.firstRun,
            firstRunByCell,
            // A later look: the searches refine on to the runs per side it asks for
            // (compare/capacity/capacity-looks.ts); a stored baseline's to capacity.max_runs.
            ...(request.searchToMaxRuns === true
                ? { targetRuns: "capacity.max_runs" }
                : request.firstRun > 0 && request.runs !== null
                    ? { targetRuns: request.firstRun + request.runs }
                    : {}),
        });
        runs.push(...result.runs);
    }
    return runs;
}
/** One past the highest run-<k> of a cell directory (0 when it has none). */
function nextRunIndex(cellDir) {
    const indices = existingRunIndices(cellDir);
    return indices.length === 0 ? 0 : Math.max(...indices) + 1;
}

/**
 * A baseline artifact is a results directory (`<cell>/run-<k>/run.json`, logs, scrapes) plus a manifest
 * saying which commit and run produced it. A downloaded one is untrusted input (any PR of the base branch
 * could have shaped it): it is size-limited, every file we read is schema-validated, symlinks are
 * refused, and strings from it are escaped before they reach markdown.
 */
const baselineManifestFile = "vllm-perf-gate-baseline.json";
const baselineManifestSchemaVersion = 1;
const baselineManifestSchema = object({
    schemaVersion: literal(baselineManifestSchemaVersion),
    tool: object({ name: string().max(100), version: string().max(100) }),
    commit: string().regex(/^[0-9a-f]{40,64}$/, "expected a full commit sha"),
    ref: string().max(255),
    runId: number().int().nonnegative(),
    runAttempt: number().int().positive(),
    createdAt: datetime(),
    cells: array(string()
        .regex(/^[a-z0-9][a-z0-9_.-]*$/)
        .max(200))
        .max(1000),
});
const defaultBaselineLimits = Object.freeze({
    ...defaultInputLimits,
    maxCompressionRatio: 200,
});
class UntrustedBaselineError extends Error {
    name = "UntrustedBaselineError";
}
function createBaselineManifest(fields) {
    return baselineManifestSchema.parse({
        schemaVersion: baselineManifestSchemaVersion,
        tool: { name: toolName, version: toolVersion },
        commit: fields.commit,
        ref: fields.ref,
        runId: fields.runId,
        runAttempt: fields.runAttempt,
        createdAt: fields.now.toISOString(),
        cells: [...fields.cells].sort(),
    });
}
async function writeBaselineManifest(resultsDir, manifest) {
    await writeFile(join(resultsDir, baselineManifestFile), `${JSON.stringify(manifest, null, 2)}\n`);
}
/** Cells that have at least one run.json (`<cell>/run-<k>/run.json`), with their run counts. */
async function countRuns(resultsDir) {
    const counts = new Map();
    let cells;
    try {
        cells = await readdir(resultsDir, { withFileTypes: true });
    }
    catch (error) {
        if (error.code === "ENOENT")
            return counts;
        throw error;
    }
    for (const cell of cells.filter((entry) => entry.isDirectory())) {
        const runs = await readdir(join(resultsDir, cell.name), { withFileTypes: true });
        let count = 0;
        for (const run of runs) {
            if (!run.isDirectory() || !/^run-\d+$/.test(run.name))
                continue;
            if (await lstat(join(resultsDir, cell.name, run.name, "run.json")).then((s) => s.isFile(), () => false))
                count++;
        }
        if (count > 0)
            counts.set(cell.name, count);
    }
    return counts;
}
/**
 * Checks a downloaded baseline before anything reads it. The manifest is optional (a `baseline-path`
 * of plain results has none); run files are mandatory.
 */
async function validateBaselineDir(dir, limits = defaultBaselineLimits) {
    const fail = (file, message) => {
        throw new UntrustedBaselineError(`baseline ${relative(dir, file) || file}: ${message}`);
    };
    let totalBytes = 0;
    let files = 0;
    const runFiles = [];
    const walk = async (current) => {
        for (const entry of await readdir(current, { withFileTypes: true })) {
            const path = join(current, entry.name);
            if (entry.isSymbolicLink())
                fail(path, "symbolic links are not allowed in a baseline");
            if (entry.isDirectory()) {
                await walk(path);
                continue;
            }
            if (!entry.isFile())
                fail(path, "only regular files are allowed in a baseline");
            files++;
            totalBytes += (await lstat(path)).size;
            if (files > limits.maxFiles)
                fail(dir, `more than ${limits.maxFiles} files (limit maxFiles)`);
            if (totalBytes > limits.maxTotalBytes)
                fail(dir, `larger than ${limits.maxTotalBytes} bytes (limit maxTotalBytes)`);
            if (entry.name === "run.json")
                runFiles.push(path);
        }
    };
    await walk(dir);
    if (runFiles.length === 0)
        fail(dir, "no <cell>/run-<k>/run.json file found");
    const cells = new Set();
    for (const file of runFiles) {
        const size = (await lstat(file)).size;
        if (size > limits.maxRunFileBytes)
            fail(file, `${size} bytes, more than the ${limits.maxRunFileBytes} allowed (limit maxRunFileBytes)`);
        let parsed;
        try {
            parsed = JSON.parse(await readFile(file, "utf8"));
        }
        catch (error) {
            fail(file, `not JSON (${error.message})`);
        }
        const result = runFileSchema.safeParse(parsed);
        if (!result.success) {
            const issue = result.error.issues[0];
            fail(file, `field ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
        }
        else {
            const inconsistent = runFileInvariantIssues(result.data)[0];
            if (inconsistent)
                fail(file, `field ${inconsistent.field}: ${inconsistent.message}`);
            const cellDir = basename(dirname(dirname(file)));
            if (result.data.cell !== cellDir)
                fail(file, `field cell: expected "${cellDir}" (its directory)`);
            cells.add(result.data.cell);
        }
    }
    let manifest = null;
    const manifestPath = join(dir, baselineManifestFile);
    const manifestText = await readFile(manifestPath, "utf8").catch(() => null);
    if (manifestText !== null) {
        if (manifestText.length > 1024 * 1024)
            fail(manifestPath, "manifest larger than 1 MiB");
        let raw;
        try {
            raw = JSON.parse(manifestText);
        }
        catch (error) {
            fail(manifestPath, `not JSON (${error.message})`);
        }
        const result = baselineManifestSchema.safeParse(raw);
        if (!result.success) {
            const issue = result.error.issues[0];
            fail(manifestPath, `field ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
        }
        manifest = result.data ?? null;
    }
    return { manifest, runFiles: runFiles.length, cells: [...cells].sort() };
}

export { UntrustedBaselineError as U, createBaselineManifest as a, countRuns as c, defaultBaselineLimits as d, measureRequestedRuns as m, runRequestedCells as r, validateBaselineDir as v, writeBaselineManifest as w };
