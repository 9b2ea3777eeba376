import { join, dirname, resolve } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { ab as calibrationAlternation, i as alternation, l as loadRuns, c as calibrateFromRuns, s as settingsFromConfig } from './interleaved.js';
import { c as calibrationHistoryRuns, b as conditionsHash } from './format.js';
import { p as providerForConfig, r as runCells, s as silentProgress, e as streamProgress, b as defaultServerStateFile } from './run-cells.js';
import { m as measureAlternately } from './adaptive.js';
import { r as readHistoryFile } from './history-series.js';
import { j as jobOutbound } from './job-outbound.js';
import { l as loadConfig } from './load.js';
import { a as renderCalibration } from './calibration.js';
import { U as UsageError, h as handleInterrupts, i as interactiveInterrupts } from './version.js';
import { p as parseCommandArgs, s as stringOption, i as integerOption } from './command.js';
import { t as throughOutbound } from '../cli.js';
import './metric-names.js';
import './random.js';
import './schemas.js';
import 'node:crypto';
import 'node:child_process';
import 'node:fs';
import 'node:os';
import 'node:net';
import 'node:events';
import 'node:perf_hooks';
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
import 'node:url';
import 'node:async_hooks';
import 'node:console';
import 'node:timers';
import 'node:dns';
import './trace-replay.js';
import './number-words.js';
import './index.js';
import 'process';
import 'buffer';
import './history.js';

async function calibrateRunner(options) {
    const { config } = options.config;
    const provider = providerForConfig(config, {
        env: { ...options.env },
        interpolation: options.config.interpolation,
        outbound: options.outbound,
        ...(options.serverStateFile ? { stateFile: options.serverStateFile } : {}),
        warn: options.warn,
        progress: (line) => options.progress.message(line),
    });
    const sides = [
        { name: "a", dir: join(options.outDir, "a") },
        { name: "b", dir: join(options.outDir, "b") },
    ];
    try {
        await measureAlternately(sides, { firstRun: 0, runs: options.runs, cells: options.cells ?? null }, calibrationAlternation(alternation(config)), async (side, block) => {
            await runCells({
                config,
                provider,
                outDir: side.dir,
                baseDir: dirname(options.config.path),
                runs: block.runs,
                firstRun: block.firstRun,
                side: `calibration-${side.name}`,
                ...(block.cells ? { cells: block.cells } : {}),
                progress: options.progress,
                outbound: options.outbound,
                ...(options.signal ? { signal: options.signal } : {}),
            });
        }, () => options.signal?.aborted === true);
    }
    finally {
        await provider.stopAll();
    }
    if (options.signal?.aborted)
        throw new Error(`interrupted by ${String(options.signal.reason)}: the A/A runs so far are kept in ${options.outDir}`);
    const [a, b] = await Promise.all(sides.map((side) => loadRuns([side.dir], `calibration ${side.name}`)));
    const first = a[0] ?? b[0];
    const history = options.history && first
        ? calibrationHistoryRuns(options.history, conditionsHash(first.fingerprint), 40).runs
        : undefined;
    const file = calibrateFromRuns({
        a: a,
        b: b,
        settings: settingsFromConfig(config),
        ...(history ? { history } : {}),
        ...(options.now ? { now: options.now } : {}),
    });
    await mkdir(options.outDir, { recursive: true });
    const path = join(options.outDir, "calibration.json");
    await options.outbound.writeFile(path, `${JSON.stringify(file, null, 2)}\n`);
    return { file, path };
}

const usage = `Usage: vllm-perf-gate calibrate --config FILE --out DIR [options]

A/A calibration of this runner (docs/calibration.md): measures the config as two sides A and B in
alternation (A B, B A, ... in blocks of repeats.block, as the interleaved gate does), writes the runs to
DIR/a and DIR/b and summarises them into DIR/calibration.json: per cell and gated metric the run-to-run
spread, the between-session drift (with --history), the smallest worsening the gate catches at 90% power
with these runs, and how often the gate's own rule blocked A/A splits (its false-block rate here).
Give the file to \`compare --calibration\` (or the action's calibration input) as the noise prior.

Options:
  -c, --config FILE   the config (default vllm-perf-gate.yml)
  -o, --out DIR       where the runs and calibration.json go (required)
      --runs N        runs per side, 2 to 50 (default: repeats.max of the config)
      --cells a,b     calibrate only these cells
      --history FILE  main's history (JSON Lines, docs/history.md): the drift between its sessions
  -q, --quiet         no progress output
  -h, --help          show this help

Exit codes: 0 written, 1 the measuring failed, 2 invalid input, 130/143 interrupted (runs kept).
`;
const calibrateCommand = {
    name: "calibrate",
    usage,
    async run(argv, io) {
        const args = parseCommandArgs(argv, {
            config: { type: "string", short: "c" },
            out: { type: "string", short: "o" },
            runs: { type: "string" },
            cells: { type: "string" },
            history: { type: "string" },
            quiet: { type: "boolean", short: "q" },
        });
        if (args.help) {
            io.stdout.write(usage);
            return 0;
        }
        const out = stringOption(args, "out");
        if (!out)
            throw new UsageError("--out is required");
        const loaded = await loadConfig(stringOption(args, "config") ?? "vllm-perf-gate.yml", {
            env: io.env,
            cwd: io.cwd,
        });
        // The command's one way out (server/outbound.ts), from its one secret set (the environment the config
        // was loaded with, the config): the servers' logs, the runs, calibration.json and every line.
        const outbound = jobOutbound({ env: io.env, configs: [loaded] });
        io = throughOutbound(io, outbound);
        const runs = integerOption(args, "runs") ?? loaded.config.repeats.max;
        if (runs < 2 || runs > 50)
            throw new UsageError(`--runs expects 2 to 50 runs per side, got ${runs}`);
        const cells = stringOption(args, "cells")
            ?.split(",")
            .map((cell) => cell.trim())
            .filter(Boolean);
        const historyPath = stringOption(args, "history");
        const history = historyPath !== undefined
            ? await readHistoryFile(resolve(io.cwd, historyPath), historyPath).catch((error) => {
                // Its errors may quote the file, untrusted input.
                throw outbound.error(error);
            })
            : undefined;
        const progress = args.values.quiet === true ? silentProgress : streamProgress(io.stderr);
        const interruption = handleInterrupts({
            ...interactiveInterrupts,
            log: (line) => io.stderr.write(`${line}\n`),
            onFirstSignal: (signal) => progress.message(`${signal}: stopping; the A/A runs so far are kept`),
        });
        try {
            const result = await calibrateRunner({
                config: loaded,
                outDir: resolve(io.cwd, out),
                runs,
                ...(cells && cells.length > 0 ? { cells } : {}),
                ...(history ? { history } : {}),
                env: io.env,
                outbound,
                progress,
                warn: (message) => progress.message(`warning: ${message}`),
                serverStateFile: defaultServerStateFile(io.env),
                signal: interruption.signal,
            });
            io.stdout.write(renderCalibration(result.file));
            io.stdout.write(`Wrote ${result.path}\n`);
            return 0;
        }
        catch (error) {
            if (interruption.received() !== null) {
                io.stderr.write(`${error.message}\n`);
                return interruption.exitCode();
            }
            throw outbound.error(error);
        }
        finally {
            interruption.dispose();
        }
    },
};

export { calibrateCommand };
