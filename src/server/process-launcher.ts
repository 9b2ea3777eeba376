import { type ChildProcess, spawn } from "node:child_process";
import type { LaunchedServerKind } from "../config/server-kinds.js";
import type { LaunchServices, TeardownNotes } from "./launch.js";
import { terminateGroup } from "./process-group.js";

export interface SpawnedServer {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<{ reason: string }>;
  stop(): Promise<TeardownNotes>;
}

/**
 * Starts a server command as the leader of its own process group (vLLM forks engine and worker processes
 * that must die with it), streams its output into the redacted log and records it in the state file.
 */
export async function spawnServerProcess(
  argv: readonly string[],
  options: { cwd?: string | undefined; env: NodeJS.ProcessEnv; kind: LaunchedServerKind; port?: number },
  services: LaunchServices,
): Promise<SpawnedServer | { spawnError: string }> {
  const [command, ...args] = argv;
  if (command === undefined) return { spawnError: "the command line is empty" };
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const spawned = await new Promise<{ ok: true } | { ok: false; message: string }>((resolve) => {
    child.once("spawn", () => resolve({ ok: true }));
    child.once("error", (error: NodeJS.ErrnoException) =>
      resolve({
        ok: false,
        message:
          error.code === "ENOENT"
            ? `"${command}" was not found (is it installed and on PATH${options.cwd ? `, relative to ${options.cwd}` : ""}?)`
            : `"${command}" could not be started: ${error.message}`,
      }),
    );
  });
  if (!spawned.ok || child.pid === undefined)
    return { spawnError: spawned.ok ? "no process id" : spawned.message };
  const pid = child.pid;
  services.log.follow(child.stdout);
  services.log.follow(child.stderr);
  let stopping = false;
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const exited = closed.then(
    ({ code, signal }) =>
      new Promise<{ reason: string }>((resolve) => {
        if (stopping) return;
        resolve({
          reason: signal
            ? `the server process was killed by ${signal}`
            : `the server process exited with code ${code}`,
        });
      }),
  );
  let stopped: Promise<TeardownNotes> | undefined;
  const server: SpawnedServer = {
    child,
    pid,
    exited,
    stop() {
      stopping = true;
      stopped ??= (async () => {
        const result = await terminateGroup(pid, { graceMs: services.stopGraceMs, clock: services.clock });
        const notes: string[] = [];
        if (result.escalated)
          notes.push(`the server ignored SIGTERM for ${services.stopGraceMs} ms and was killed (SIGKILL)`);
        if (result.survived) notes.push(`process group ${pid} survived SIGKILL`);
        // The leader is reaped by Node; give the exit event a moment so pipes are drained into the log.
        await Promise.race([closed, services.clock.sleep(2_000)]);
        return { ...result, notes };
      })();
      return stopped;
    },
  };
  try {
    await services.remember({
      kind: options.kind,
      pid,
      processGroup: pid,
      port: options.port,
      logFile: services.log.path,
    });
  } catch (error) {
    // A server nobody could clean up after a cancellation must not be left running.
    await server.stop();
    throw error;
  }
  return server;
}
