import { randomUUID } from "node:crypto";
import type { Clock } from "../util/clock.js";

/**
 * One server start (docs/server.md, Server starts). Whatever a start drew (allocator and KV-cache layout,
 * CUDA graphs, autotuning picks, clocks) is shared by every run measured on it, so the runs of one start
 * are not independent replicates: each run records the start that measured it (run.json `serverStart`).
 */
export interface ServerStart {
  /** Unique per start: a random UUID for a server vllm-perf-gate starts. */
  readonly id: string;
  /**
   * ISO-8601: when the server was launched; for a server we only reach (`--base-url`, kind external),
   * when this process first reached it (its own start is not ours to see).
   */
  readonly startedAt: string;
}

/** The longest server start id accepted anywhere (run --server-start, run.json, vLLM's server_start). */
export const maxServerStartIdLength = 200;

/** A new start of a server we launch. */
export function newServerStart(clock: Pick<Clock, "wallTime">): ServerStart {
  return { id: randomUUID(), startedAt: clock.wallTime().toISOString() };
}

/**
 * The starts of servers someone else runs, by address (and declared id): the same server reached again
 * in this process is the same start. Kept for the life of the process, one entry per address.
 */
const reachedStarts = new Map<string, ServerStart>();

/**
 * The start of a server we only reach (`--base-url`, kind external): we cannot see it restart, so within
 * one process (one `run`, one action job) its runs share one start, unless the caller names the start
 * (`run --server-start ID`, e.g. the same ID for several invocations against a server left running).
 */
export function reachedServerStart(
  baseUrl: string,
  clock: Pick<Clock, "wallTime">,
  declaredId?: string,
): ServerStart {
  const key = `${baseUrl}\u0000${declaredId ?? ""}`;
  let start = reachedStarts.get(key);
  if (!start) {
    start =
      declaredId === undefined
        ? newServerStart(clock)
        : { id: declaredId, startedAt: clock.wallTime().toISOString() };
    reachedStarts.set(key, start);
  }
  return start;
}

/** Why a declared server start id is refused (names `what`, e.g. "--server-start"), or null when valid. */
export function serverStartIdProblem(id: string, what: string): string | null {
  if (id.length === 0) return `${what}: expected a server start id, got an empty string`;
  if (id.length > maxServerStartIdLength)
    return `${what}: ${id.length} characters, more than the ${maxServerStartIdLength} allowed (limit maxServerStartIdLength)`;
  if (!/^[\x21-\x7e]+$/.test(id))
    return `${what}: expected printable ASCII without spaces (e.g. a UUID), got ${JSON.stringify(id)}`;
  return null;
}
