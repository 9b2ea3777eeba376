import { readdirSync, readFileSync } from "node:fs";
import type { TimerClock } from "../util/clock.js";

/**
 * Servers run in their own process group (vLLM forks engine-core and worker processes), so stopping one
 * means signalling the whole group, not just the process we spawned.
 */
export function isGroupAlive(processGroup: number): boolean {
  try {
    process.kill(-processGroup, 0);
  } catch (error) {
    // EPERM: the group exists but belongs to someone else (a reused id); it is alive, just not ours to kill.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  // kill(0) also succeeds for zombies: exited members whose parent (often init, for a daemonised server)
  // has not reaped them yet. They hold no memory, GPU or port, so they do not count as alive.
  const members = livingGroupMembers(processGroup);
  return members === undefined || members > 0;
}

/** One process as /proc/<pid>/stat describes it. */
export interface ProcessStat {
  pid: number;
  state: string;
  ppid: number;
  group: number;
}

/** Every process /proc lists (those that exit while it is read are skipped); undefined without /proc. */
export function processStats(): ProcessStat[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const stats: ProcessStat[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the command name (which may contain spaces and parentheses): state ppid pgrp ...
    const [state = "", ppid, group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    stats.push({ pid: Number(entry), state, ppid: Number(ppid), group: Number(group) });
  }
  return stats;
}

/** Non-zombie processes in the group, from /proc; undefined where /proc is not available. */
function livingGroupMembers(processGroup: number): number | undefined {
  const stats = processStats();
  if (stats === undefined) return undefined;
  return stats.filter((p) => p.group === processGroup && p.state !== "Z" && p.state !== "X").length;
}

function signalGroup(processGroup: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-processGroup, signal);
  } catch {
    // Already gone: nothing to signal.
  }
}

export interface GroupTermination {
  /** SIGKILL was needed because the group outlived the grace period. */
  readonly escalated: boolean;
  /** Still alive after SIGKILL and the wait (an unkillable process, e.g. stuck in the GPU driver). */
  readonly survived: boolean;
}

/** SIGTERM to the group, up to `graceMs` for it to go, then SIGKILL and a short wait. */
export async function terminateGroup(
  processGroup: number,
  options: { graceMs: number; killWaitMs?: number; clock: TimerClock; pollMs?: number },
): Promise<GroupTermination> {
  const pollMs = options.pollMs ?? 100;
  if (!isGroupAlive(processGroup)) return { escalated: false, survived: false };
  signalGroup(processGroup, "SIGTERM");
  if (await waitForGroupExit(processGroup, options.graceMs, options.clock, pollMs)) {
    return { escalated: false, survived: false };
  }
  signalGroup(processGroup, "SIGKILL");
  const gone = await waitForGroupExit(processGroup, options.killWaitMs ?? 5_000, options.clock, pollMs);
  return { escalated: true, survived: !gone };
}

async function waitForGroupExit(
  processGroup: number,
  timeoutMs: number,
  clock: TimerClock,
  pollMs = 100,
): Promise<boolean> {
  const deadline = clock.now() + timeoutMs;
  while (isGroupAlive(processGroup)) {
    if (clock.now() >= deadline) return false;
    await clock.sleep(pollMs);
  }
  return true;
}
