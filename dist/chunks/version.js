import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { readdirSync, readFileSync } from 'node:fs';

const spinWindowMs = 1.5;
const systemClock = {
    now: () => performance.now(),
    sleepUntil(at) {
        if (at - performance.now() <= 0)
            return Promise.resolve();
        return new Promise((resolve) => {
            // Timers fire on whole milliseconds, often a millisecond late: sleep on a timer to within
            // `spinWindowMs`, then yield turn by turn (I/O still runs between turns) until the moment comes.
            const wait = () => {
                const delay = at - performance.now();
                if (delay <= 0)
                    resolve();
                else if (delay <= spinWindowMs)
                    setImmediate(wait);
                else
                    setTimeout(wait, Math.max(1, Math.floor(delay - spinWindowMs)));
            };
            wait();
        });
    },
    sleep: (ms, signal) => new Promise((resolve) => {
        if (signal?.aborted)
            return resolve();
        const timer = setTimeout(done, ms);
        function done() {
            clearTimeout(timer);
            signal?.removeEventListener("abort", done);
            resolve();
        }
        signal?.addEventListener("abort", done, { once: true });
    }),
    wallTime: () => new Date(),
};
/** performance.timeOrigin + now() as epoch milliseconds, for ISO timestamps tied to the monotonic clock. */
function epochMsOf(monotonicMs) {
    return performance.timeOrigin + monotonicMs;
}

/** Runs a short-lived helper (docker CLI, nvidia-smi) to completion and captures its output. */
function execFileCapture(command, args, options = {}) {
    return new Promise((resolve) => {
        let stdout = "";
        let stderr = "";
        let timedOut = false;
        let settled = false;
        const child = spawn(command, args, {
            env: options.env ?? process.env,
            stdio: ["ignore", "pipe", "pipe"],
        });
        options.onSpawn?.(child.pid);
        const timer = options.timeoutMs === undefined
            ? undefined
            : setTimeout(() => {
                timedOut = true;
                child.kill("SIGKILL");
            }, options.timeoutMs);
        const lineSplitter = () => {
            let pending = "";
            return (chunk) => {
                if (!options.onLine)
                    return;
                pending += chunk;
                const lines = pending.split("\n");
                pending = lines.pop() ?? "";
                for (const line of lines)
                    options.onLine(line);
            };
        };
        const outLines = lineSplitter();
        const errLines = lineSplitter();
        child.stdout.setEncoding("utf8").on("data", (chunk) => {
            stdout += chunk;
            outLines(chunk);
        });
        child.stderr.setEncoding("utf8").on("data", (chunk) => {
            stderr += chunk;
            errLines(chunk);
        });
        const finish = (result) => {
            if (settled)
                return;
            settled = true;
            if (timer)
                clearTimeout(timer);
            resolve(result);
        };
        child.once("error", (error) => finish({ code: null, stdout, stderr, spawnError: error, timedOut }));
        child.once("close", (code) => finish({ code: timedOut ? null : code, stdout, stderr, timedOut }));
    });
}

const defaultDockerCli = ["docker"];
/** The docker command line of a docker server config (`server.docker_command`). */
function dockerCliOf(server) {
    const [command, ...rest] = server.docker_command;
    return command === undefined ? defaultDockerCli : [command, ...rest];
}
/** The docker command line recorded for a server (state file, signal tracking); docker when none was. */
function dockerCliOfRecord(recorded) {
    return recorded && recorded.length > 0 ? dockerCliOf({ docker_command: recorded }) : defaultDockerCli;
}
/** Runs `CLI ARGS...` to completion (see execFileCapture). */
function dockerExec(cli, args, options = {}) {
    return execFileCapture(cli[0], [...cli.slice(1), ...args], options);
}
/** Starts `CLI ARGS...` as a long-lived child (docker logs --follow, docker wait). */
function dockerSpawn(cli, args, options) {
    return spawn(cli[0], [...cli.slice(1), ...args], options);
}
/** The label of every container this tool starts (`docker run --label`), by which its containers are found. */
const containerLabel = "vllm-perf-gate=1";
/**
 * Names of the running containers labelled `containerLabel` that publish `port`, for the error
 * of a start whose port is busy. Bounded (a few seconds of docker at most) and never throws: empty
 * when docker cannot tell.
 */
async function labelledContainersOnPort(cli, port, options) {
    const listed = await dockerExec(cli, ["ps", "--filter", `label=${containerLabel}`, "--filter", `publish=${port}`, "--format", "{{.Names}}"], { env: options.env, timeoutMs: options.timeoutMs ?? 5_000 }).catch(() => null);
    if (listed === null || listed.code !== 0)
        return [];
    return listed.stdout
        .split("\n")
        .map((line) => line.trim())
        .filter((name) => name.length > 0);
}
/** The command line as printed in the server log. */
function describeDockerCli(cli) {
    return cli.join(" ");
}

/**
 * Servers run in their own process group (vLLM forks engine-core and worker processes), so stopping one
 * means signalling the whole group, not just the process we spawned.
 */
function isGroupAlive(processGroup) {
    try {
        process.kill(-processGroup, 0);
    }
    catch (error) {
        // EPERM: the group exists but belongs to someone else (a reused id); it is alive, just not ours to kill.
        return error.code === "EPERM";
    }
    // kill(0) also succeeds for zombies: exited members whose parent (often init, for a daemonised server)
    // has not reaped them yet. They hold no memory, GPU or port, so they do not count as alive.
    const members = livingGroupMembers(processGroup);
    return members === undefined || members > 0;
}
/** Every process /proc lists (those that exit while it is read are skipped); undefined without /proc. */
function processStats() {
    let entries;
    try {
        entries = readdirSync("/proc");
    }
    catch {
        return undefined;
    }
    const stats = [];
    for (const entry of entries) {
        if (!/^\d+$/.test(entry))
            continue;
        let stat;
        try {
            stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        }
        catch {
            continue;
        }
        // Fields after the command name (which may contain spaces and parentheses): state ppid pgrp ...
        const [state = "", ppid, group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        stats.push({ pid: Number(entry), state, ppid: Number(ppid), group: Number(group) });
    }
    return stats;
}
/** Non-zombie processes in the group, from /proc; undefined where /proc is not available. */
function livingGroupMembers(processGroup) {
    const stats = processStats();
    if (stats === undefined)
        return undefined;
    return stats.filter((p) => p.group === processGroup && p.state !== "Z" && p.state !== "X").length;
}
function signalGroup(processGroup, signal) {
    try {
        process.kill(-processGroup, signal);
    }
    catch {
        // Already gone: nothing to signal.
    }
}
/** SIGTERM to the group, up to `graceMs` for it to go, then SIGKILL and a short wait. */
async function terminateGroup(processGroup, options) {
    const pollMs = options.pollMs ?? 100;
    if (!isGroupAlive(processGroup))
        return { escalated: false, survived: false };
    signalGroup(processGroup, "SIGTERM");
    if (await waitForGroupExit(processGroup, options.graceMs, options.clock, pollMs)) {
        return { escalated: false, survived: false };
    }
    signalGroup(processGroup, "SIGKILL");
    const gone = await waitForGroupExit(processGroup, options.killWaitMs ?? 5_000, options.clock, pollMs);
    return { escalated: true, survived: !gone };
}
async function waitForGroupExit(processGroup, timeoutMs, clock, pollMs = 100) {
    const deadline = clock.now() + timeoutMs;
    while (isGroupAlive(processGroup)) {
        if (clock.now() >= deadline)
            return false;
        await clock.sleep(pollMs);
    }
    return true;
}

const launched = new Map();
function trackLaunchedServer(server) {
    launched.set(server.id, server);
}
/** Notes that the command creating a tracked server is in flight (see LaunchServices.launching). */
function trackLaunching(id, pid, returned) {
    const server = launched.get(id);
    if (!server)
        return;
    const settled = returned.then(() => { }, () => { });
    launched.set(id, { ...server, launching: { pid, returned: settled } });
    void settled.then(() => {
        const current = launched.get(id);
        if (current?.launching)
            launched.set(id, { ...current, launching: undefined });
    });
}
/** How long a forced stop waits for an in-flight `docker run` before removing by name anyway. */
const launchWaitMs = 10_000;
/**
 * A detached remover for the last moments of a process: `docker rm --force NAME`, again every 0.5 s while
 * the `docker run` creating it (pid) is alive and for 5 s after it returned (60 s at most), so a container
 * created after this process is gone is removed too. Node runs it: the docker command may be any CLI.
 */
const removerScript = `
const { spawnSync } = require("node:child_process");
const [cli, name, pid] = JSON.parse(process.argv[1]);
const alive = () => { if (!pid) return false; try { process.kill(pid, 0); return true; } catch { return false; } };
const rm = () => spawnSync(cli[0], [...cli.slice(1), "rm", "--force", name], { stdio: "ignore", timeout: 30000 });
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const deadline = Date.now() + 60000;
rm();
while (alive() && Date.now() < deadline) { sleep(500); rm(); }
const after = Date.now() + 5000;
while (pid && Date.now() < after) { sleep(500); rm(); }
`;
function untrackLaunchedServer(id) {
    launched.delete(id);
}
/** Servers launched and not stopped yet (for messages and tests). */
function launchedServers() {
    return [...launched.values()];
}
/**
 * Kills every launched server now, synchronously: SIGKILL to each process group; for containers a detached
 * `docker rm --force` that outlives this process. For the last moments of a process (a second signal,
 * `process.on("exit")`), when there is no time to wait. Returns how many servers it signalled.
 */
function killLaunchedServersNow() {
    let count = 0;
    for (const server of launched.values()) {
        if (server.processGroup !== undefined) {
            try {
                process.kill(-server.processGroup, "SIGKILL");
                count++;
            }
            catch {
                // Already gone.
            }
        }
        if (server.container) {
            try {
                const cli = dockerCliOfRecord(server.dockerCommand);
                const remover = spawn(process.execPath, ["-e", removerScript, JSON.stringify([cli, server.container, server.launching?.pid ?? null])], { env: server.env ?? process.env, detached: true, stdio: "ignore" });
                remover.on("error", () => { });
                remover.unref();
                count++;
            }
            catch {
                // No docker to ask: the post step's cleanup is the last resort.
            }
        }
    }
    launched.clear();
    return count;
}
/**
 * Stops every launched server, bounded: SIGTERM to each process group, `graceMs` for it to go, then
 * SIGKILL; `docker rm --force` for containers. For a first signal whose orderly wind-down took too long,
 * and for uncaught errors. Never throws.
 */
async function stopLaunchedServers(graceMs = 3_000) {
    const servers = [...launched.values()];
    await Promise.all(servers.map(async (server) => {
        try {
            if (server.processGroup !== undefined && isGroupAlive(server.processGroup)) {
                await terminateGroup(server.processGroup, { graceMs, killWaitMs: 2_000, clock: systemClock });
            }
            if (server.container) {
                // A container still being created would outlive a removal now: wait for its docker run first.
                if (server.launching) {
                    await Promise.race([
                        server.launching.returned,
                        new Promise((resolve) => setTimeout(resolve, launchWaitMs)),
                    ]);
                }
                await dockerExec(dockerCliOfRecord(server.dockerCommand), ["rm", "--force", server.container], {
                    env: server.env ?? process.env,
                    timeoutMs: graceMs + 10_000,
                });
            }
        }
        catch {
            // Best effort: whatever is left, the exit handler kills and the post step finds in the state file.
        }
        launched.delete(server.id);
    }));
}
const signalNumbers = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };
/** The shell's exit code for death by a signal: 128 + its number (SIGINT 130, SIGTERM 143). */
function signalExitCode(signal) {
    return 128 + (signalNumbers[signal] ?? 15);
}
/**
 * The wind-down limit and forced-stop grace of an interactive command (`run`): the first Ctrl-C ends the
 * process within 2 s, whatever the servers do (1.2 s to wind down, 0.3 s from SIGTERM to SIGKILL, the rest
 * for the kill to land and the process to exit).
 */
const interactiveInterrupts = { windDownMs: 1_200, forceGraceMs: 300 };
/**
 * Interrupt handling for a command that launches servers (run, demo, the action's main step):
 * - first SIGINT/SIGTERM: `signal` aborts, so the work stops sending, cancels what is in flight, writes its
 *   files and stops its servers on its own; if it has not finished after `windDownMs`, the launched servers
 *   are stopped (SIGTERM, then SIGKILL) and the process exits with 130/143;
 * - a second signal: every launched server's process group gets SIGKILL (containers `docker rm --force`)
 *   and the process exits at once with 130/143.
 * The work itself returns `exitCode()` when `received()` is set.
 */
function handleInterrupts(options = {}) {
    const signals = options.signals ?? ["SIGINT", "SIGTERM"];
    const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    const exit = options.exit ?? ((code) => process.exit(code));
    const windDownMs = options.windDownMs ?? 5_000;
    const forceGraceMs = options.forceGraceMs ?? 3_000;
    const controller = new AbortController();
    let first = null;
    let deadline;
    let forcing = false;
    const handler = (signal) => {
        if (first === null) {
            first = signal;
            controller.abort(signal);
            options.onFirstSignal?.(signal);
            deadline = setTimeout(() => {
                forcing = true;
                const count = launchedServers().length;
                log(`${signal}: not wound down within ${windDownMs / 1000} s; stopping ${count} launched server(s) and exiting ${signalExitCode(signal)}; files already written are kept`);
                // Bounded too: a docker daemon slow to answer gets a detached `docker rm --force` that outlives us.
                let exited = false;
                const leave = () => {
                    if (exited)
                        return;
                    exited = true;
                    killLaunchedServersNow();
                    exit(signalExitCode(signal));
                };
                setTimeout(leave, forceGraceMs + 500).unref();
                void stopLaunchedServers(forceGraceMs).finally(leave);
            }, windDownMs);
            return;
        }
        const killed = killLaunchedServersNow();
        log(`${signal} again: killed ${killed} launched server(s) and exiting ${signalExitCode(first)}${forcing ? "" : "; the interrupted run's files may be incomplete"}`);
        exit(signalExitCode(first));
    };
    for (const signal of signals)
        process.on(signal, handler);
    return {
        signal: controller.signal,
        received: () => first,
        exitCode: () => (first === null ? null : signalExitCode(first)),
        dispose() {
            if (deadline)
                clearTimeout(deadline);
            for (const signal of signals)
                process.off(signal, handler);
        },
    };
}
let crashHandlersInstalled = false;
/**
 * For entry points (src/cli.ts, the action's main step): an uncaught exception or unhandled rejection
 * prints its stack, stops every launched server (bounded) and exits 1; any exit with servers still running
 * (process.exit from anywhere, the end of the event loop) kills them with SIGKILL on the way out.
 */
function stopLaunchedServersOnCrash(log = (text) => process.stderr.write(text)) {
    if (crashHandlersInstalled)
        return;
    crashHandlersInstalled = true;
    let crashing = false;
    const crash = (error) => {
        if (crashing)
            return;
        crashing = true;
        log(`unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        void stopLaunchedServers().finally(() => process.exit(1));
    };
    process.on("uncaughtException", crash);
    process.on("unhandledRejection", crash);
    process.on("exit", () => {
        killLaunchedServersNow();
    });
}

/**
 * Ends a finished entry point once stdout and stderr are flushed. The work is done at this point; an
 * idle keep-alive socket or a library's timer must not hold a CI step open until the job times out.
 */
function exitWhenFlushed(code = undefined) {
    const exitCode = code ?? (typeof process.exitCode === "number" ? process.exitCode : 0);
    if (process.env.VLLM_PERF_GATE_DEBUG_HANDLES) {
        process.stderr.write(`active resources at exit: ${process.getActiveResourcesInfo().join(", ")}\n`);
    }
    process.stdout.write("", () => process.stderr.write("", () => process.exit(exitCode)));
}

/** Exit codes shared by every command. */
const ExitCode = {
    ok: 0,
    /** The gate failed, or the work could not be done (server never ready, run aborted). */
    failure: 1,
    /** The command line or an input file is wrong; the message says which and why. */
    invalidInput: 2,
};
/** The command line itself is wrong: print the message and the command's usage, exit 2. */
class UsageError extends Error {
    name = "UsageError";
}
/** An input file or value is wrong: print the message (no stack), exit 2. */
class InputError extends Error {
    name = "InputError";
}
/** The work failed for a reason the user can act on: print the message (no stack), exit 1. */
class FailureError extends Error {
    name = "FailureError";
}

var version = "0.1.0";
var packageJson = {
	version: version};

/** The tool's own version, recorded in every file it writes and in the fingerprint. */
const toolVersion = packageJson.version;
const toolName = "vllm-perf-gate";

export { ExitCode as E, FailureError as F, InputError as I, UsageError as U, toolName as a, systemClock as b, dockerCliOfRecord as c, dockerExec as d, exitWhenFlushed as e, isGroupAlive as f, terminateGroup as g, handleInterrupts as h, interactiveInterrupts as i, containerLabel as j, execFileCapture as k, trackLaunchedServer as l, trackLaunching as m, epochMsOf as n, describeDockerCli as o, dockerSpawn as p, labelledContainersOnPort as q, dockerCliOf as r, stopLaunchedServersOnCrash as s, toolVersion as t, untrackLaunchedServer as u };
