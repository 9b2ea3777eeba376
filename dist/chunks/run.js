import { e as externalEndpoint, j as jobOutbound } from './job-outbound.js';
import { join, resolve, dirname } from 'node:path';
import { e as readRunFile } from './interleaved.js';
import { p as isExportFormat, q as exportFormatNames, s as exportFormats, r as readCalibration, a as configWithinBudget, b as calibratedCheckNoise, g as budgetPlanLines } from './compare.js';
import { U as UsageError, t as toolVersion, I as InputError, F as FailureError, b as systemClock, h as handleInterrupts, i as interactiveInterrupts } from './version.js';
import { s as selectCells } from './trace-replay.js';
import { t as templateView, b as serverKindFacts, l as loadConfig } from './load.js';
import { g as getServedModels, P as ProbeStatusError, i as isUnauthorizedStatus, d as describeConnectionFailure, a as collectFingerprint, r as runCells, b as defaultServerStateFile, p as providerForConfig, f as firstRunsIn, s as silentProgress, e as streamProgress } from './run-cells.js';
import 'node:child_process';
import 'node:fs';
import 'node:url';
import { d as reachedServerStart, e as serverStartIdProblem } from './format.js';
import { J as deviceBlockLine } from './status.js';
import { m as measureOnDevices } from './measure-on-devices.js';
import { r as runSweepCells } from './run-sweep.js';
import { p as parseCommandArgs, s as stringOption, i as integerOption } from './command.js';
import { t as throughOutbound } from '../cli.js';
import 'node:fs/promises';
import './metric-names.js';
import './random.js';
import './schemas.js';
import 'node:crypto';
import 'node:perf_hooks';
import './index.js';
import 'process';
import 'buffer';
import 'node:os';
import 'node:net';
import 'node:events';
import 'node:assert';
import 'node:http';
import 'node:stream';
import 'node:querystring';
import 'node:diagnostics_channel';
import 'node:util';
import 'node:buffer';
import 'node:tls';
import 'node:zlib';
import 'node:util/types';
import 'node:worker_threads';
import 'node:async_hooks';
import 'node:console';
import 'node:timers';
import 'node:dns';
import './number-words.js';

const runFormatNames = ["vllm", ...exportFormatNames];
/** Parses `--format vllm,pytorch,bencher` (any of them, comma-separated; the exports are export-formats.ts's); none when not given. */
function parseRunFormats(value) {
    const runner = [];
    const exports = [];
    if (value === undefined)
        return { runner, exports };
    for (const name of value.split(",").map((part) => part.trim())) {
        if (name === "vllm")
            runner.push("vllm");
        else if (isExportFormat(name))
            exports.push(name);
        else {
            throw new UsageError(`--format expects ${runFormatNames.join(", ")} (comma-separated), got "${name || value}"`);
        }
    }
    return { runner: [...new Set(runner)], exports: [...new Set(exports)] };
}
/**
 * Writes each run's dashboard exports beside its run.json (the same file names and shapes as compare's:
 * pytorch-benchmark.json, bencher.json), from run.json as written, through the job's output seam.
 * A run compare would not use (interrupted, cut short, client-bound) gets none: a dashboard would chart
 * it as a measurement. Returns the lines to print: what was written, what was skipped and why.
 */
async function writeRunExports(runs, exports, side, outbound) {
    if (exports.length === 0)
        return [];
    const written = [];
    const skipped = [];
    for (const run of runs) {
        const record = await readRunFile(join(run.dir, "run.json"), run.run);
        if (record.exclusionReasons.length > 0) {
            skipped.push(`${run.cell}/run-${run.run} (${record.exclusionReasons.join("; ")})`);
            continue;
        }
        for (const format of exports) {
            const { fileName, ofRun } = exportFormats[format];
            const content = ofRun(record, { side, toolVersion });
            await outbound.writeFile(join(run.dir, fileName), `${JSON.stringify(content, null, 2)}\n`);
        }
        written.push(`${run.cell}/run-${run.run}`);
    }
    const names = exports.map((format) => exportFormats[format].fileName).join(" and ");
    return [
        ...(written.length > 0 ? [`wrote ${names} for ${written.length} run(s)`] : []),
        ...(skipped.length > 0 ? [`no ${names} for runs compare would not use: ${skipped.join(", ")}`] : []),
    ];
}

/** Read for `--base-url` when neither --api-key-env nor server.api_key_env names a variable, in this order. */
const defaultApiKeyVariables = ["VLLM_API_KEY", "OPENAI_API_KEY"];
/**
 * Where `--base-url`'s API key comes from: the variable `--api-key-env` names (which must be set), else
 * the one server.api_key_env names, else VLLM_API_KEY, else OPENAI_API_KEY (as vLLM's and OpenAI's own
 * clients read them); none when none is set. Returns the variable's name for messages, never printing
 * the value.
 */
function baseUrlApiKey(env, names) {
    if (names.flag !== undefined) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(names.flag)) {
            throw new UsageError(`--api-key-env expects an environment variable name, got "${names.flag}"`);
        }
        const value = env[names.flag];
        if (!value) {
            throw new InputError(`--api-key-env names ${names.flag}, but that environment variable is not set (or empty); nothing was run`);
        }
        return { apiKey: value, variable: names.flag };
    }
    for (const variable of [names.config, ...defaultApiKeyVariables]) {
        const value = variable === undefined ? undefined : env[variable];
        if (variable !== undefined && value)
            return { apiKey: value, variable };
    }
    return null;
}
/**
 * `--base-url`: an `external` server given on the command line instead of in the config. It is reached
 * and fingerprinted as the registry's external kind is (kinds.ts, collect-fingerprint.ts); unlike a
 * config's external server it is probed once, not polled, and nothing is written for it but the runs:
 * it fails at once when nothing answers there, it refuses the key, or it serves another model.
 */
function baseUrlProvider(options) {
    const templates = options.interpolation?.templates ?? [];
    const server = {
        kind: "external",
        base_url: options.baseUrl,
        ...(options.metricsUrl ? { metrics_url: options.metricsUrl } : {})};
    const { baseUrl, metricsUrl } = externalEndpoint(server);
    const endpoint = { baseUrl, metricsUrl, ...(options.apiKey ? { apiKey: options.apiKey } : {}) };
    const target = { baseUrl, apiKey: options.apiKey };
    // Nothing is written here: what the runner writes for it goes through the job's output seam, and its
    // errors (which may quote what the server says) are cleaned by the job's root as they leave.
    return {
        lifecycle: "per-cell",
        async start() {
            // Fail before measuring anything when nothing answers there, or it serves another model.
            const served = await getServedModels(target).catch((error) => {
                if (error instanceof ProbeStatusError && isUnauthorizedStatus(error.status)) {
                    throw new FailureError(`--base-url ${baseUrl}: GET /v1/models answered HTTP ${error.status} (unauthorized): the server ${options.apiKey
                        ? `refuses the API key sent (read from ${options.apiKeyVariable ?? "the variable server.api_key_env names"})`
                        : `wants an API key and none is sent (pass --api-key-env NAME, set ${defaultApiKeyVariables.join(" or ")}, or set server.api_key_env in the config)`}`);
                }
                throw new FailureError(`--base-url ${baseUrl}: GET /v1/models failed: ${describeConnectionFailure(error, baseUrl) ??
                    (error instanceof Error ? error.message : String(error))}`);
            });
            if (served.length > 0 && !served.some((model) => model.id === options.model.name)) {
                // The served names are the server's own text: a misbehaving one may echo the key (the root cleans it).
                throw new InputError(`model.name: "${options.model.name}" is not served at ${baseUrl}; it serves ${served.map((model) => `"${model.id}"`).join(", ")}`);
            }
            return {
                endpoint,
                // Someone else's server: we cannot see it restart, so one start per process (or as declared).
                start: reachedServerStart(baseUrl, options.clock ?? systemClock, options.serverStartId),
                fingerprint: () => collectFingerprint({
                    target,
                    metricsUrl,
                    // As before the registry: no settings (the command line gives none), so stored baselines still compare.
                    server: { kind: server.kind, args: [] },
                    readyModels: served,
                    model: templateView(options.model, templates, ["model"]),
                    sampling: templateView(options.sampling ?? null, templates, ["sampling"]),
                    nvidiaSmi: null,
                    env: options.env ?? {},
                }),
                // Never resolves: we cannot see an external server's process, only its failed requests.
                exited: new Promise(() => { }),
                async stop() { },
            };
        },
    };
}

async function runCellsOnDevices(options) {
    const { config, providerFor, ...rest } = options;
    const selected = selectCells(config, options.cells).map((cell) => cell.name);
    const runs = options.runs ?? config.repeats.min;
    // `run --append`: each cell's runs numbered on after the ones already in its directory.
    const offset = (cell) => options.firstRunByCell?.[cell] ?? 0;
    const outputs = [];
    const measureBlock = async (block) => {
        const cells = block.cells ?? selected;
        const firstRunByCell = Object.fromEntries(cells.map((cell) => [cell, offset(cell) + (block.firstRunByCell?.[cell] ?? block.firstRun)]));
        if (block.device)
            options.progress?.message(deviceBlockLine(block.device.spec, cells, block.runsByCell ?? block.runs));
        const provider = providerFor(block.device);
        try {
            const result = await runCells({
                ...rest,
                config,
                provider,
                cells,
                runs: block.runs,
                firstRunByCell,
                ...(block.runsByCell ? { runsByCell: block.runsByCell } : {}),
            });
            outputs.push(...result.runs);
        }
        finally {
            await provider.stopAll();
        }
    };
    await measureOnDevices({
        sides: [{ side: "run", config }],
        step: { firstRun: 0, runs, cells: options.cells ? selected : null },
        config,
        // A side measured alone keeps one start per block unless the config says `fresh` (a user's, or a
        // budget plan's): `auto` weighs the starts of two alternating sides, and restarting a server the
        // user asked to measure once is not what `run` was asked for (docs/run.md).
        aloneStartsEachGroup: config.repeats.block === "fresh",
        measureBlock: (_side, block) => measureBlock(block),
        stopped: () => options.signal?.aborted === true,
    });
    return { runs: outputs };
}

/** Checks the flags against the config and applies its budget; a UsageError or InputError names a problem. */
async function planRunJob(request) {
    const { loaded, baseUrl } = request;
    // Under gate.budget_gpu_minutes the config measures its budget's plan (app/budget-plan.ts), as the
    // action and compare read it: the runs per side, runs per start and requests per run it chose.
    const calibration = request.calibrationPath === undefined
        ? null
        : await readCalibration(resolve(request.cwd, request.calibrationPath), request.calibrationPath);
    const { config, budget } = configWithinBudget(loaded.config, {
        ...(request.cells ? { cells: request.cells } : {}),
        ...(calibration ? { noiseOf: calibratedCheckNoise(loaded.config, calibration.file, new Date()) } : {}),
        file: loaded.path,
    });
    checkServerStartId(request, config);
    // --base-url's key: --api-key-env NAME, else server.api_key_env, else VLLM_API_KEY, else OPENAI_API_KEY.
    const key = baseUrl === undefined
        ? null
        : baseUrlApiKey(request.env, {
            flag: request.apiKeyEnv,
            config: "api_key_env" in config.server ? config.server.api_key_env : undefined,
        });
    return { request, config, budget, key, outDir: resolve(request.cwd, request.out) };
}
/** `--server-start` names the start of a server run does not start itself. */
function checkServerStartId(request, config) {
    const id = request.serverStartId;
    if (id === undefined)
        return;
    const problem = serverStartIdProblem(id, "--server-start");
    if (problem !== null)
        throw new UsageError(problem);
    if (request.baseUrl === undefined && serverKindFacts[config.server.kind].launchesProcess)
        throw new UsageError(`--server-start names the start of a server run does not start (--base-url, or server.kind external); this config's server (kind ${config.server.kind}) is started by run, which records each of its starts`);
}
/**
 * Measures the plan: the servers it starts, one per block of the device plan (or `--base-url`'s for
 * every cell), stopped when it returns or throws; then the warnings on the runs and their exports.
 */
async function runJob(plan, services) {
    const { request, config, outDir } = plan;
    const { outbound, progress } = services;
    const servers = jobServers(plan, services);
    if (plan.budget !== null)
        for (const line of budgetPlanLines(plan.budget.plan, config.gate.detect_change, plan.budget.budgetToDecide))
            progress.message(line);
    const firstRunByCell = firstRunsAfterExisting(plan, progress);
    try {
        const common = {
            config: servers.measured,
            outDir,
            baseDir: dirname(request.loaded.path),
            // The command's environment, for the external task commands (quality.tasks.external).
            env: request.env,
            outbound,
            ...(request.cells ? { cells: request.cells } : {}),
            ...(request.runs !== undefined ? { runs: request.runs } : {}),
            formats: request.formats.runner,
            firstRunByCell,
            ...(request.side ? { side: request.side } : {}),
            progress,
            signal: services.signal,
            ...(request.stallReportMs !== undefined ? { stallReportMs: request.stallReportMs } : {}),
        };
        // A sweep's capacity and sweep cells are measured one server at a time (validate keeps them out
        // of a config with runner.devices); fixed-load cells go through the device plan.
        const result = request.sweep
            ? await runSweepCells({ ...common, provider: servers.providerFor(undefined) })
            : await runCellsOnDevices({ ...common, providerFor: servers.providerFor });
        warnAboutRuns(result.runs, progress);
        const exported = await writeRunExports(result.runs, request.formats.exports, request.side, outbound);
        for (const line of exported)
            progress.message(line);
        return { runs: result.runs, outDir };
    }
    finally {
        await servers.stopAll();
    }
}
function jobServers(plan, { outbound, progress }) {
    const { request, config, key } = plan;
    const { loaded, baseUrl, serverStartId } = request;
    if (baseUrl !== undefined) {
        if (config.runner.devices !== undefined)
            progress.message(`warning: runner.devices (${config.runner.devices.join(", ")}) is not used with --base-url: the cells run one after the other on the server given`);
        // Someone else's server: nothing of ours to stop after a block.
        const external = withoutStop(baseUrlProvider({
            baseUrl,
            ...(key ? { apiKey: key.apiKey, apiKeyVariable: key.variable } : {}),
            model: config.model,
            sampling: config.sampling,
            env: request.env,
            interpolation: loaded.interpolation,
            ...(serverStartId !== undefined ? { serverStartId } : {}),
        }));
        return {
            measured: { ...config, runner: { ...config.runner, devices: undefined } },
            providerFor: () => external,
            stopAll: async () => { },
        };
    }
    const providerOptions = {
        env: { ...request.env },
        interpolation: loaded.interpolation,
        outbound,
        // As the action does: a killed run's servers are stopped by the next start (server/cleanup.ts).
        stateFile: defaultServerStateFile(request.env),
        warn: (message) => progress.message(`warning: ${message}`),
        progress: (line) => progress.message(line),
        // An external server's start as --server-start names it (server/server-start.ts).
        ...(serverStartId !== undefined ? { serverStartId } : {}),
    };
    // Each on its device when runner.devices names several (app/run-on-devices.ts).
    const managed = new Set();
    return {
        measured: config,
        providerFor: (device) => {
            const provider = providerForConfig(config, { ...providerOptions, ...(device ? { device } : {}) });
            managed.add(provider);
            return provider;
        },
        stopAll: () => Promise.all([...managed].map((provider) => provider.stopAll())),
    };
}
/** A provider whose servers are not ours to stop (--base-url), as a block's provider. */
function withoutStop(provider) {
    return { ...provider, stopAll: async () => { } };
}
/** Each selected cell's first run number: 0, or with `--append` after the runs already in the directory. */
function firstRunsAfterExisting(plan, progress) {
    const { request, config, outDir } = plan;
    const firstRunByCell = firstRunsIn(outDir, selectCells(config, request.cells).map((cell) => cell.name), request.append);
    const appended = Object.entries(firstRunByCell).filter(([, first]) => first > 0);
    if (appended.length > 0)
        progress.message(`--append: adding runs after the existing ones in ${outDir}: ${appended.map(([cell, first]) => `${cell} from run-${first}`).join(", ")}`);
    return firstRunByCell;
}
/** Warnings on runs that are data with a flag: client-bound runs and runs on a starved simulator host. */
function warnAboutRuns(runs, progress) {
    const named = (list) => list.map((run) => `${run.cell}/run-${run.run}`).join(", ");
    const bound = runs.filter((run) => run.file.flags.clientBound);
    if (bound.length > 0)
        progress.message(`warning: ${bound.length} run(s) were client-bound (the client, not the server, limited them): ${named(bound)}`);
    const starved = runs.filter((run) => run.file.flags.serverStarved);
    if (starved.length > 0)
        progress.message(`warning: ${starved.length} run(s) were server host starved (the simulator's own process ran late): ${named(starved)}`);
}
/** The failure of a job some of whose runs a crashed server cut short (exit 1), or null. */
function cutShortFailure(runs) {
    const cut = runs.filter((run) => run.file.flags.cutShort);
    if (cut.length === 0)
        return null;
    return new FailureError(`${cut.length} run(s) were cut short: ${cut.map((run) => `${run.cell}/run-${run.run} (${run.file.flags.notes[0] ?? "cut short"})`).join(", ")}`);
}
/** The one line an interrupted `run` ends with: what was kept, and where. */
function interruptSummary(signal, runs, outDir) {
    const whole = runs.filter((run) => !run.file.flags.interrupted);
    const cut = runs.filter((run) => run.file.flags.interrupted);
    const parts = [`${whole.length} complete run(s)`];
    for (const run of cut) {
        const cancelled = run.file.requests.errorsByKind.aborted ?? 0;
        parts.push(`${run.cell}/run-${run.run} interrupted (${run.file.requests.total} request(s) recorded, ${cancelled} cancelled; excluded from comparisons)`);
    }
    return `interrupted by ${signal}: kept ${parts.join(" and ")} in ${outDir}; the servers it started are stopped`;
}

const usage = `Usage: vllm-perf-gate run --config FILE --out DIR [options]

Runs each cell of the config N times against a server and writes, per run,
DIR/<cell>/run-<k>/{requests.jsonl, warmup.jsonl, scrapes.jsonl, run.json}. Runs are numbered from 0
everywhere: the directory run-<k>, run.json's "run", the progress lines ("run-3 (1 of 2)": the run,
and how far this invocation is) and the report.

Options:
  -c, --config FILE   the config (default vllm-perf-gate.yml)
  -o, --out DIR       results directory (required)
      --base-url URL  use a running OpenAI-compatible server instead of starting config.server
      --api-key-env NAME
                      with --base-url: send the API key in environment variable NAME (it must
                      be set); without it the key comes from the variable server.api_key_env
                      names, else VLLM_API_KEY, else OPENAI_API_KEY, when set. The key is never
                      printed or written
      --cells a,b     run only these cells
      --runs N        runs per cell (default: repeats.min of the config)
      --format LIST   also write each run in these formats (comma-separated), beside run.json:
                      vllm (vllm-result.json, a \`vllm bench serve\` result), pytorch
                      (pytorch-benchmark.json, PyTorch OSS benchmark records as vLLM's dashboard
                      ingests) and bencher (bencher.json, Bencher Metric Format); runs compare
                      would not use (interrupted, cut short, client-bound) get no pytorch/bencher
      --side LABEL    label written into run.json (e.g. baseline, candidate)
      --server-start ID
                      with --base-url or server.kind external: the id of the server's start
                      recorded in run.json (serverStart.id); default: one start per invocation.
                      Give invocations against one server left running the same ID, so compare
                      knows their runs share a start (a server run starts records its own)
      --sweep         measure each selected cell over loads (docs/capacity.md): a capacity cell
                      is searched for the highest load meeting its SLOs (at most repeats.max
                      runs), a cell with sweep measures its loads; runs go to DIR/<cell>/run-<k>
                      with their load in run.json, the curve to DIR/<cell>/curve.json and its
                      charts to DIR/<cell>/report.html and report-charts/*.svg
      --stall-report-s N
                      print a line naming each request in flight that has gone N s without a
                      chunk, and again every N s it stays quiet (default 30); the request itself
                      still ends at the cell's timeout_s
      --append        add runs after the existing ones of each cell in DIR (run-<k> continues from
                      the highest k there); without it, a DIR that already has runs of a selected
                      cell is refused (exit 2) rather than overwritten
      --calibration FILE
                      this runner's calibration.json (\`calibrate\`): under gate.budget_gpu_minutes the
                      budget's plan takes the noise it measured, as the action's calibration input
                      and compare --calibration do
  -q, --quiet         no progress output
  -h, --help          show this help

Budget: under gate.budget_gpu_minutes the runs per side, runs per server start and requests per run
are the budget's plan (printed first; docs/action.md, Choosing a budget), for the cells selected.

Devices: with runner.devices in the config, the cells are balanced over the devices and measured on
them at once, one server per device, as the action measures (docs/run.md); with --base-url the
devices are not used (a warning says so).

Interrupts: on SIGINT or SIGTERM the run in progress stops sending, its requests in flight are
recorded as cancelled (error kind "aborted"), its run.json is written with flags.interrupted (compare
excludes it), every server started is stopped, and the exit code is 130 (SIGINT) or 143 (SIGTERM).
The first signal ends the process within 2 s: what is not wound down after 1.2 s (a server slow to
stop) gets SIGTERM, then SIGKILL 0.3 s later. A second signal kills the servers (their process
groups) and exits at once.

Exit codes: 0 all runs measured (failed requests are data, see run.json), 1 a run was cut short
(server crash) or the server could not be started, 2 invalid input, 130/143 interrupted.
`;
const runCommand = {
    name: "run",
    usage,
    async run(argv, io) {
        const args = parseCommandArgs(argv, {
            config: { type: "string", short: "c" },
            out: { type: "string", short: "o" },
            "base-url": { type: "string" },
            "api-key-env": { type: "string" },
            cells: { type: "string" },
            runs: { type: "string" },
            format: { type: "string" },
            side: { type: "string" },
            "server-start": { type: "string" },
            quiet: { type: "boolean", short: "q" },
            append: { type: "boolean" },
            sweep: { type: "boolean" },
            "stall-report-s": { type: "string" },
            calibration: { type: "string" },
        });
        if (args.help) {
            io.stdout.write(usage);
            return 0;
        }
        const flags = runFlags(args);
        const loaded = await loadConfig(stringOption(args, "config") ?? "vllm-perf-gate.yml", {
            env: io.env,
            cwd: io.cwd,
        });
        const plan = await planRunJob({ ...flags, loaded, cwd: io.cwd, env: io.env });
        // The command's one way out (server/outbound.ts), from its one secret set: the environment the config
        // was loaded with, the config, and --base-url's key variable. Progress lines, warnings and the summary
        // may quote a server's text: they leave through it too, as do the servers' logs and the run files.
        const outbound = jobOutbound({ env: io.env, configs: [loaded], variables: [plan.key?.variable] });
        io = throughOutbound(io, outbound);
        const quiet = args.values.quiet === true;
        const progress = quiet ? silentProgress : streamProgress(io.stderr);
        const interruption = runInterrupts(io, progress);
        try {
            const result = await runJob(plan, { outbound, progress, signal: interruption.signal });
            if (!quiet)
                io.stdout.write(`wrote ${result.runs.length} run(s) to ${result.outDir}\n`);
            const signal = interruption.received();
            if (signal !== null) {
                io.stderr.write(`${interruptSummary(signal, result.runs, result.outDir)}\n`);
                return interruption.exitCode();
            }
            const failure = cutShortFailure(result.runs);
            if (failure !== null)
                throw failure;
            return 0;
        }
        catch (error) {
            const signal = interruption.received();
            if (signal !== null) {
                // Interrupted while a server was starting (or stopping): the runs already written are all there is.
                const detail = error instanceof Error ? error.message : String(error);
                io.stderr.write(`${detail.startsWith("interrupted by") ? detail : `interrupted by ${signal}: ${detail}`}; the runs finished before are kept in ${plan.outDir}; the servers it started are stopped\n`);
                return interruption.exitCode();
            }
            // A server that would not start is a ServerStartError, a FailureError: exit 1 with its message,
            // cleaned in place (the class is kept).
            throw outbound.error(error);
        }
        finally {
            interruption.dispose();
        }
    },
};
/** The command's flags as the job takes them; a UsageError for a flag that is wrong on its own. */
function runFlags(args) {
    const out = stringOption(args, "out");
    if (!out)
        throw new UsageError("--out DIR is required");
    const formats = parseRunFormats(stringOption(args, "format"));
    const runs = integerOption(args, "runs", { min: 1 });
    const stallReportS = integerOption(args, "stall-report-s", { min: 1 });
    const baseUrl = stringOption(args, "base-url");
    const apiKeyEnv = stringOption(args, "api-key-env");
    if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(baseUrl)) {
        throw new UsageError(`--base-url expects an http(s) URL, got "${baseUrl}"`);
    }
    if (baseUrl === undefined && apiKeyEnv !== undefined) {
        throw new UsageError("--api-key-env goes with --base-url; a server the config starts or names gets its key from server.api_key_env");
    }
    const cells = stringOption(args, "cells")
        ?.split(",")
        .map((name) => name.trim())
        .filter(Boolean);
    return {
        out,
        cells,
        runs,
        formats,
        side: stringOption(args, "side"),
        baseUrl,
        apiKeyEnv,
        serverStartId: stringOption(args, "server-start"),
        append: args.values.append === true,
        sweep: args.values.sweep === true,
        stallReportMs: stallReportS === undefined ? undefined : stallReportS * 1000,
        calibrationPath: stringOption(args, "calibration"),
    };
}
/**
 * SIGINT/SIGTERM: stop sending, cancel what is in flight, write the files, stop the servers, exit
 * 130/143; a second signal kills the servers and exits at once (server/signals.ts).
 */
function runInterrupts(io, progress) {
    return handleInterrupts({
        // Within 2 s of the first signal, whatever the servers do.
        ...interactiveInterrupts,
        // Even with --quiet: the user must learn that servers were killed or the wind-down limit was hit.
        log: (line) => io.stderr.write(`${line}\n`),
        onFirstSignal: (signal) => progress.message(`${signal}: stopping; cancelling requests in flight and writing this run's files (again to force)`),
    });
}

export { runCommand };
