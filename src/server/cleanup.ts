import { systemClock, type TimerClock } from "../util/clock.js";
import { containerLabel, dockerCliOfRecord, dockerExec } from "./docker-cli.js";
import { isGroupAlive, terminateGroup } from "./process-group.js";
import { isProcessAlive, type LiveServer, readServerState, removeLiveServer } from "./state.js";

export interface CleanupOutcome {
  readonly server: LiveServer;
  readonly stopped: boolean;
  readonly detail: string;
}

/**
 * The action's post step: stops every server a cancelled or failed main step left running, as recorded in
 * the state file, and removes the entries it handled. Never throws for a single server; the outcome says
 * what happened to each.
 */
export async function cleanupFromState(
  stateFile: string,
  options: StopOptions = {},
): Promise<CleanupOutcome[]> {
  return stopRecordedServers(
    stateFile,
    options,
    () => true,
    (server) => describe(server),
  );
}

interface StopOptions {
  env?: NodeJS.ProcessEnv;
  clock?: TimerClock;
  stopGraceMs?: number;
  log?: (message: string) => void;
}

/**
 * The one loop of both cleanups: stops the state file's servers that `select` picks, logs each outcome
 * after `label`, and removes the entries it stopped.
 */
async function stopRecordedServers(
  stateFile: string,
  options: StopOptions,
  select: (server: LiveServer) => boolean,
  label: (server: LiveServer) => string,
): Promise<CleanupOutcome[]> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => {});
  const state = await readServerState(stateFile);
  const outcomes: CleanupOutcome[] = [];
  for (const server of state.servers) {
    if (!select(server)) continue;
    const outcome = await stopRecordedServer(server, { ...options, clock });
    log(`${label(server)}: ${outcome.detail}`);
    outcomes.push(outcome);
    if (outcome.stopped) await removeLiveServer(stateFile, server.id);
  }
  return outcomes;
}

function describe(server: LiveServer): string {
  const where = server.container
    ? `container ${server.container}`
    : `process group ${server.processGroup ?? server.pid}`;
  return `${server.kind} server for cell ${server.cell}${server.run === null ? "" : ` run ${server.run}`} (${where})`;
}

async function stopRecordedServer(
  server: LiveServer,
  options: { env?: NodeJS.ProcessEnv; clock: TimerClock; stopGraceMs?: number },
): Promise<CleanupOutcome> {
  const graceMs = options.stopGraceMs ?? 10_000;
  if (server.container) {
    const removed = await dockerExec(
      dockerCliOfRecord(server.dockerCommand),
      ["rm", "--force", server.container],
      {
        env: options.env ?? process.env,
        timeoutMs: 60_000,
      },
    );
    if (removed.code === 0) return { server, stopped: true, detail: "container removed" };
    if (/No such container/i.test(removed.stderr)) return { server, stopped: true, detail: "already gone" };
    return {
      server,
      stopped: false,
      detail: `docker rm --force failed: ${removed.stderr.trim() || removed.spawnError?.message}`,
    };
  }
  const group = server.processGroup ?? server.pid;
  if (group === undefined) return { server, stopped: true, detail: "nothing recorded to stop" };
  if (!isGroupAlive(group)) return { server, stopped: true, detail: "already gone" };
  const result = await terminateGroup(group, { graceMs, clock: options.clock });
  if (result.survived) return { server, stopped: false, detail: "survived SIGKILL" };
  return {
    server,
    stopped: true,
    detail: result.escalated ? "killed (ignored SIGTERM)" : "stopped (SIGTERM)",
  };
}

/**
 * Before a start: stops the servers of the state file whose owner (`ownerPid`) is gone, a killed CLI or
 * main step, and removes their entries; one log line per server. Entries whose owner is alive belong to
 * another job still running and entries without an owner to a file of an earlier version: both are left.
 */
export async function removeLeftoverServers(
  stateFile: string,
  options: StopOptions & { isAlive?: (pid: number) => boolean } = {},
): Promise<CleanupOutcome[]> {
  const isAlive = options.isAlive ?? isProcessAlive;
  return stopRecordedServers(
    stateFile,
    options,
    (server) => server.ownerPid !== undefined && !isAlive(server.ownerPid),
    (server) => `leftover ${describe(server)} of pid ${server.ownerPid} (gone)`,
  );
}

/**
 * What holds a busy port, for the start's error: the state file's servers on that port (with whether
 * their owner still runs) and the servers the kind itself finds there (`running`: its kind entry's
 * `runningOnPort`, e.g. docker's labelled containers), those already named by the state file skipped.
 * Never throws: an empty list when nothing could be learnt.
 */
export async function portHolders(
  port: number,
  options: {
    stateFile?: string | undefined;
    isAlive?: (pid: number) => boolean;
    /** Names of containers of this tool publishing the port (bounded; never throws). */
    running?: (() => Promise<readonly string[]>) | undefined;
  },
): Promise<string[]> {
  const isAlive = options.isAlive ?? isProcessAlive;
  const holders: string[] = [];
  const recordedContainers = new Set<string>();
  if (options.stateFile) {
    const state = await readServerState(options.stateFile).catch(() => null);
    for (const server of state?.servers.filter((s) => s.port === port) ?? []) {
      const what = server.container
        ? `container ${server.container}`
        : `${server.kind} server (process group ${server.processGroup ?? server.pid ?? "unknown"})`;
      if (server.container) recordedContainers.add(server.container);
      const owner =
        server.ownerPid === undefined
          ? "recorded by an earlier version"
          : `recorded by pid ${server.ownerPid} (${isAlive(server.ownerPid) ? "still running" : "gone"})`;
      holders.push(`${what} ${owner}`);
    }
  }
  const running = (await options.running?.().catch(() => [])) ?? [];
  for (const name of running.filter((name) => !recordedContainers.has(name)).slice(0, 5))
    holders.push(`running container ${name} (label ${containerLabel})`);
  return holders;
}
