import { randomUUID } from "node:crypto";
import { mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import { launchedServerKinds } from "../config/server-kinds.js";
import { type Clock, systemClock } from "../util/clock.js";

/**
 * The list of servers this job started and has not stopped yet. The action's main step and the CLI write
 * it as they launch and stop servers; the action's post step reads it to stop whatever a cancelled or
 * failed main step left running, and the next start stops what a killed process left (see cleanup.ts).
 */
const serverStateSchemaVersion = 1;

export const liveServerSchema = z.object({
  id: z.string().min(1),
  kind: z.enum(launchedServerKinds),
  startedAt: z.string(),
  cell: z.string(),
  run: z.number().int().nonnegative().nullable(),
  /** The process that started the server (absent in files of earlier versions); gone means a leftover. */
  ownerPid: z.number().int().positive().optional(),
  /** Leader of the server's process group (command and sim kinds). */
  pid: z.number().int().positive().optional(),
  processGroup: z.number().int().positive().optional(),
  /** Container name (docker kind) and the docker executable that started it. */
  container: z.string().optional(),
  /** The docker command line (server.docker_command); a single executable in files of earlier versions. */
  dockerCommand: z
    .union([
      z
        .string()
        .min(1)
        .transform((command) => [command]),
      z.array(z.string().min(1)).min(1),
    ])
    .optional(),
  port: z.number().int().min(0).max(65535).optional(),
  logFile: z.string().optional(),
});

const serverStateSchema = z.object({
  schemaVersion: z.literal(serverStateSchemaVersion),
  servers: z.array(liveServerSchema),
});

export type LiveServer = z.output<typeof liveServerSchema>;
export type ServerState = z.output<typeof serverStateSchema>;

/**
 * Where the CLI records its servers (and the action, off a job's work directory, may). On a GitHub runner RUNNER_TEMP
 * is per job and emptied after it, so both steps agree on the path without passing state; elsewhere a
 * per-user temporary directory.
 */
export function defaultServerStateFile(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  if (env.RUNNER_TEMP) return join(env.RUNNER_TEMP, "vllm-perf-gate", "servers.json");
  return join(tmpdir(), `vllm-perf-gate-${userInfo().uid}`, "servers.json");
}

export function newServerId(): string {
  return randomUUID().slice(0, 12);
}

export async function readServerState(path: string): Promise<ServerState> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { schemaVersion: serverStateSchemaVersion, servers: [] };
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${path}: expected a JSON server state file, got text that is not JSON`);
  }
  const parsed = serverStateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `${path}: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid server state"}`,
    );
  }
  return parsed.data;
}

/** Whether a process of this id exists (a process of another user counts: EPERM is not ESRCH). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * How long a writer waits for another process's lock on the state file before it gives up, and the age at
 * which a lock whose holder cannot be read is taken as stale. A write takes milliseconds; these are limits
 * for a machine under load, named in the error.
 */
const stateLockWaitMs = 10_000;
const stateLockStaleMs = 30_000;
const stateLockPollMs = 25;

/** The holder's pid written in a lock file, or null while it is being written or unreadable. */
async function lockHolder(lock: string): Promise<number | null> {
  const text = await readFile(lock, "utf8").catch(() => "");
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Runs `write` holding `<path>.lock`, created exclusively: several CLI runs on one machine share the file,
 * and without it two read-modify-writes at once lose one's entry (a server nobody would stop). A lock whose
 * holder is gone (killed mid-write), or that nobody could read for stateLockStaleMs, is removed.
 */
async function withStateFileLock<T>(
  path: string,
  write: () => Promise<T>,
  clock: Clock = systemClock,
): Promise<T> {
  const lock = `${path}.lock`;
  await mkdir(dirname(path), { recursive: true });
  const deadline = clock.now() + stateLockWaitMs;
  for (;;) {
    try {
      const handle = await open(lock, "wx");
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await lockHolder(lock);
    const age = await stat(lock).then(
      (info) => clock.wallTime().getTime() - info.mtimeMs,
      () => 0,
    );
    if ((holder !== null && !isProcessAlive(holder)) || (holder === null && age > stateLockStaleMs)) {
      await rm(lock, { force: true });
      continue;
    }
    if (clock.now() > deadline)
      throw new Error(
        `${lock}: held by ${holder === null ? "another process" : `pid ${holder}`} for longer than stateLockWaitMs (${stateLockWaitMs / 1000} s); remove it if no vllm-perf-gate process is running`,
      );
    await clock.sleep(stateLockPollMs);
  }
  try {
    return await write();
  } finally {
    await rm(lock, { force: true });
  }
}

const queues = new Map<string, Promise<unknown>>();

/**
 * Read-modify-write, serialised per file within this process and across processes by a lock file, and
 * written atomically (a half-written file would strand servers).
 */
function updateServerState(path: string, change: (state: ServerState) => ServerState): Promise<ServerState> {
  const previous = queues.get(path) ?? Promise.resolve();
  const next = previous
    .catch(() => {})
    .then(() =>
      withStateFileLock(path, async () => {
        const updated = change(await readServerState(path));
        const temporary = `${path}.${process.pid}.tmp`;
        await writeFile(temporary, `${JSON.stringify(updated, null, 2)}\n`);
        await rename(temporary, path);
        return updated;
      }),
    );
  queues.set(path, next);
  return next;
}

export function addLiveServer(path: string, server: LiveServer): Promise<ServerState> {
  return updateServerState(path, (state) => ({
    ...state,
    servers: [...state.servers.filter((s) => s.id !== server.id), server],
  }));
}

export function removeLiveServer(path: string, id: string): Promise<ServerState> {
  return updateServerState(path, (state) => ({
    ...state,
    servers: state.servers.filter((s) => s.id !== id),
  }));
}
