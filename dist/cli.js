#!/usr/bin/env node
import { E as ExitCode, t as toolVersion, a as toolName, U as UsageError, I as InputError, F as FailureError, s as stopLaunchedServersOnCrash, e as exitWhenFlushed } from './chunks/version.js';
import 'node:child_process';
import 'node:perf_hooks';
import 'node:fs';

function processIo() {
    return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}
/**
 * The io of a command that has built its job's output seam (server/outbound.ts): everything it writes to
 * stdout and stderr leaves through it (a progress line or a note may quote a server's text). Its errors
 * leave through `outbound.error` as the command throws them.
 */
function throughOutbound(io, outbound) {
    const through = (stream) => ({
        write: outbound.through((text) => stream.write(text)),
        ...(stream.isTTY !== undefined ? { isTTY: stream.isTTY } : {}),
    });
    return { ...io, stdout: through(io.stdout), stderr: through(io.stderr) };
}

const commands = [
    {
        name: "validate",
        summary: "check a config file and print what it will run",
        load: async () => (await import('./chunks/validate.js')).validateCommand,
    },
    {
        name: "init",
        summary: "write a commented starter config from a preset",
        load: async () => (await import('./chunks/init.js')).initCommand,
    },
    {
        name: "sim",
        summary: "run the vLLM-compatible serving simulator",
        load: async () => (await import('./chunks/sim.js')).simCommand,
    },
    {
        name: "run",
        summary: "run the config's cells N times against a server and write the measurements",
        load: async () => (await import('./chunks/run.js')).runCommand,
    },
    {
        name: "compare",
        summary: "compare candidate runs against a baseline and decide the gate",
        load: async () => (await import('./chunks/compare2.js')).compareCommand,
    },
    {
        name: "demo",
        summary: "see the gate work on this machine: simulated baseline vs candidate, verdict",
        load: async () => (await import('./chunks/demo.js')).demoCommand,
    },
    {
        name: "history",
        summary: "print a cell/metric series of main's history with its change points; export it",
        load: async () => (await import('./chunks/history2.js')).historyCommand,
    },
    {
        name: "calibrate",
        summary: "A/A-calibrate this runner: noise, drift, what the gate can catch, false blocks",
        load: async () => (await import('./chunks/calibrate.js')).calibrateCommand,
    },
];
function topLevelUsage() {
    const width = Math.max(...commands.map((command) => command.name.length));
    const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
    return [
        `${toolName} ${toolVersion}: gate pull requests on vLLM serving performance`,
        "",
        `Usage: ${toolName} <command> [options]`,
        "",
        "Commands:",
        ...lines,
        "",
        "Options:",
        "  -h, --help     show help (also after a command: <command> --help)",
        "  -V, --version  print the version",
        "",
        "Exit codes: 0 success or gate passed, 1 gate failed or the work failed, 2 invalid input or usage,",
        "130/143 interrupted by SIGINT/SIGTERM (what was measured is kept; the servers started are stopped).",
        "",
    ].join("\n");
}
/** Runs the CLI in-process and returns the exit code; never throws. */
async function runCli(argv, io) {
    const [name, ...rest] = argv;
    if (name === undefined || name === "-h" || name === "--help" || name === "help") {
        if (name === "help" && rest[0])
            return runCli([rest[0], "--help"], io);
        (name === undefined ? io.stderr : io.stdout).write(topLevelUsage());
        return name === undefined ? ExitCode.invalidInput : ExitCode.ok;
    }
    if (name === "-V" || name === "--version" || name === "version") {
        io.stdout.write(`${toolVersion}\n`);
        return ExitCode.ok;
    }
    const entry = commands.find((candidate) => candidate.name === name);
    if (!entry) {
        io.stderr.write(`${toolName}: unknown command "${name}"\n\n${topLevelUsage()}`);
        return ExitCode.invalidInput;
    }
    let usage = "";
    try {
        const command = await entry.load();
        usage = command.usage;
        return await command.run(rest, io);
    }
    catch (error) {
        if (error instanceof UsageError) {
            io.stderr.write(`${toolName} ${entry.name}: ${error.message}\n\n${usage}`);
            return ExitCode.invalidInput;
        }
        if (error instanceof InputError) {
            io.stderr.write(`${error.message}\n`);
            return ExitCode.invalidInput;
        }
        if (error instanceof FailureError) {
            io.stderr.write(`${toolName} ${entry.name}: ${error.message}\n`);
            return ExitCode.failure;
        }
        const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
        io.stderr.write(`${toolName} ${entry.name}: unexpected error: ${detail}\n`);
        return ExitCode.failure;
    }
}

const argv = process.argv.slice(2);
// An uncaught error stops every server this process launched before exiting 1; no exit leaves one running.
stopLaunchedServersOnCrash();
runCli(argv, processIo()).then((code) => {
    process.exitCode = code;
    // `sim` serves until it is signalled; every other command is done here.
    if (argv[0] !== "sim")
        exitWhenFlushed(code);
});

export { throughOutbound as t };
