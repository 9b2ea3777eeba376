import { spawn } from "node:child_process";
import { systemClock } from "../util/clock.js";
import { dockerCliOfRecord, dockerExec } from "./docker-cli.js";
import { isGroupAlive, terminateGroup } from "./process-group.js";

/**
 * Every server this process launched and has not stopped yet, process-wide: the in-memory twin of the
 * state file (state.ts), kept whether or not a state file is used. The provider adds a server as soon as
 * it is launched (before readiness) and removes it once its teardown is done, so a signal or a crash at
 * any moment knows what to stop.
 */
export interface TrackedServer {
  readonly id: string;
  /** Process group of a command or sim server (the leader's pid). */
  readonly processGroup?: number | undefined;
  /** Container name and docker executable of a docker server, with the environment that reaches its daemon. */
  readonly container?: string | undefined;
  readonly dockerCommand?: readonly string[] | undefined;
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** The `docker run` that creates the container, while it is in flight: its pid, and when it returns. */
  readonly launching?: { readonly pid: number | undefined; readonly returned: Promise<void> } | undefined;
}

const launched = new Map<string, TrackedServer>();

export function trackLaunchedServer(server: TrackedServer): void {
  launched.set(server.id, server);
}

/** Notes that the command creating a tracked server is in flight (see LaunchServices.launching). */
export function trackLaunching(id: string, pid: number | undefined, returned: Promise<unknown>): void {
  const server = launched.get(id);
  if (!server) return;
  const settled = returned.then(
    () => {},
    () => {},
  );
  launched.set(id, { ...server, launching: { pid, returned: settled } });
  void settled.then(() => {
    const current = launched.get(id);
    if (current?.launching) launched.set(id, { ...current, launching: undefined });
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

export function untrackLaunchedServer(id: string): void {
  launched.delete(id);
}

/** Servers launched and not stopped yet (for messages and tests). */
function launchedServers(): readonly TrackedServer[] {
  return [...launched.values()];
}

/**
 * Kills every launched server now, synchronously: SIGKILL to each process group; for containers a detached
 * `docker rm --force` that outlives this process. For the last moments of a process (a second signal,
 * `process.on("exit")`), when there is no time to wait. Returns how many servers it signalled.
 */
function killLaunchedServersNow(): number {
  let count = 0;
  for (const server of launched.values()) {
    if (server.processGroup !== undefined) {
      try {
        process.kill(-server.processGroup, "SIGKILL");
        count++;
      } catch {
        // Already gone.
      }
    }
    if (server.container) {
      try {
        const cli = dockerCliOfRecord(server.dockerCommand);
        const remover = spawn(
          process.execPath,
          ["-e", removerScript, JSON.stringify([cli, server.container, server.launching?.pid ?? null])],
          { env: server.env ?? process.env, detached: true, stdio: "ignore" },
        );
        remover.on("error", () => {});
        remover.unref();
        count++;
      } catch {
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
async function stopLaunchedServers(graceMs = 3_000): Promise<void> {
  const servers = [...launched.values()];
  await Promise.all(
    servers.map(async (server) => {
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
      } catch {
        // Best effort: whatever is left, the exit handler kills and the post step finds in the state file.
      }
      launched.delete(server.id);
    }),
  );
}

const signalNumbers: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };

/** The shell's exit code for death by a signal: 128 + its number (SIGINT 130, SIGTERM 143). */
function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (signalNumbers[signal] ?? 15);
}

export interface Interruption {
  /** Aborted on the first signal; its reason is the signal's name. */
  readonly signal: AbortSignal;
  /** The first signal received, or null. */
  received(): NodeJS.Signals | null;
  /** 130 after SIGINT, 143 after SIGTERM, null when no signal came. */
  exitCode(): number | null;
  /** Removes the handlers and the wind-down deadline (call once the work and its cleanup are done). */
  dispose(): void;
}

export interface InterruptOptions {
  readonly signals?: readonly NodeJS.Signals[];
  /** Called on the first signal, after the abort (e.g. to print what happens next). */
  readonly onFirstSignal?: (signal: NodeJS.Signals) => void;
  /** One line for the user (stderr). */
  readonly log?: (line: string) => void;
  /**
   * How long the work may take to wind down after the first signal (finish its files, stop its servers)
   * before the servers are stopped for it and the process exits; default 5 s, inside the 7.5 s GitHub
   * Actions leaves between SIGINT and SIGTERM on a cancelled job.
   */
  readonly windDownMs?: number;
  /**
   * When the wind-down limit is hit: how long each launched server gets between SIGTERM and SIGKILL;
   * default 3 s.
   */
  readonly forceGraceMs?: number;
  /** Ends the process (default process.exit); tests inject it. */
  readonly exit?: (code: number) => void;
}

/**
 * The wind-down limit and forced-stop grace of an interactive command (`run`): the first Ctrl-C ends the
 * process within 2 s, whatever the servers do (1.2 s to wind down, 0.3 s from SIGTERM to SIGKILL, the rest
 * for the kill to land and the process to exit).
 */
export const interactiveInterrupts = { windDownMs: 1_200, forceGraceMs: 300 } as const;

/**
 * Interrupt handling for a command that launches servers (run, demo, the action's main step):
 * - first SIGINT/SIGTERM: `signal` aborts, so the work stops sending, cancels what is in flight, writes its
 *   files and stops its servers on its own; if it has not finished after `windDownMs`, the launched servers
 *   are stopped (SIGTERM, then SIGKILL) and the process exits with 130/143;
 * - a second signal: every launched server's process group gets SIGKILL (containers `docker rm --force`)
 *   and the process exits at once with 130/143.
 * The work itself returns `exitCode()` when `received()` is set.
 */
export function handleInterrupts(options: InterruptOptions = {}): Interruption {
  const signals = options.signals ?? ["SIGINT", "SIGTERM"];
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const windDownMs = options.windDownMs ?? 5_000;
  const forceGraceMs = options.forceGraceMs ?? 3_000;
  const controller = new AbortController();
  let first: NodeJS.Signals | null = null;
  let deadline: NodeJS.Timeout | undefined;
  let forcing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (first === null) {
      first = signal;
      controller.abort(signal);
      options.onFirstSignal?.(signal);
      deadline = setTimeout(() => {
        forcing = true;
        const count = launchedServers().length;
        log(
          `${signal}: not wound down within ${windDownMs / 1000} s; stopping ${count} launched server(s) and exiting ${signalExitCode(signal)}; files already written are kept`,
        );
        // Bounded too: a docker daemon slow to answer gets a detached `docker rm --force` that outlives us.
        let exited = false;
        const leave = () => {
          if (exited) return;
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
    log(
      `${signal} again: killed ${killed} launched server(s) and exiting ${signalExitCode(first)}${forcing ? "" : "; the interrupted run's files may be incomplete"}`,
    );
    exit(signalExitCode(first));
  };
  for (const signal of signals) process.on(signal, handler);
  return {
    signal: controller.signal,
    received: () => first,
    exitCode: () => (first === null ? null : signalExitCode(first)),
    dispose() {
      if (deadline) clearTimeout(deadline);
      for (const signal of signals) process.off(signal, handler);
    },
  };
}

let crashHandlersInstalled = false;

/**
 * For entry points (src/cli.ts, the action's main step): an uncaught exception or unhandled rejection
 * prints its stack, stops every launched server (bounded) and exits 1; any exit with servers still running
 * (process.exit from anywhere, the end of the event loop) kills them with SIGKILL on the way out.
 */
export function stopLaunchedServersOnCrash(
  log: (text: string) => void = (text) => process.stderr.write(text),
): void {
  if (crashHandlersInstalled) return;
  crashHandlersInstalled = true;
  let crashing = false;
  const crash = (error: unknown) => {
    if (crashing) return;
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
