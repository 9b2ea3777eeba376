import { systemClock, type TimerClock } from "../util/clock.js";
import { dockerCliOfRecord, dockerExec } from "./docker-cli.js";
import { isGroupAlive, terminateGroup } from "./process-group.js";
import { type LiveServer, readServerState, removeLiveServer } from "./state.js";

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
  options: {
    env?: NodeJS.ProcessEnv;
    clock?: TimerClock;
    stopGraceMs?: number;
    log?: (message: string) => void;
  } = {},
): Promise<CleanupOutcome[]> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => {});
  const state = await readServerState(stateFile);
  const outcomes: CleanupOutcome[] = [];
  for (const server of state.servers) {
    const outcome = await stopRecordedServer(server, { ...options, clock });
    log(`${describe(server)}: ${outcome.detail}`);
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
