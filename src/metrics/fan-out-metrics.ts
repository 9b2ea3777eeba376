import type { RequestRecord } from "../runner/request-schema.js";
import type { FanOutSummary } from "./run-schema.js";
import { summarize } from "./summary.js";

/** One fan-out of a run (docs/workloads.md, Sub-agent fan-out): a session's turn sent as branches. */
export interface FanOutTime {
  session: number;
  turn: number;
  /** Branches the turn planned. */
  branches: number;
  /** Branches whose first request was sent. */
  sent: number;
  /** Every planned branch sent and every request of every branch (its tool rounds too) answered. */
  completed: boolean;
  /** ms from the first branch's send to the slowest branch's last answer's end (the join); null unless completed. */
  completionMs: number | null;
  /** ms from the fastest branch's last answer's end to the slowest's; null unless completed. */
  spreadMs: number | null;
}

/**
 * Each fan-out of a run's session records (pure): the records of one session's turn that carry a branch,
 * a branch's end its last request's (its tool rounds included), in the order of (session, turn).
 */
export function fanOutTimes(records: readonly RequestRecord[]): FanOutTime[] {
  const turns = new Map<string, RequestRecord[]>();
  for (const record of records) {
    const position = record.session;
    if (position?.branch === undefined) continue;
    const key = `${position.index}:${position.turn}`;
    const list = turns.get(key);
    if (list) list.push(record);
    else turns.set(key, [record]);
  }
  const times: FanOutTime[] = [];
  for (const list of turns.values()) {
    const position = list[0]!.session!;
    const branches = position.branches ?? 1;
    const ends = new Map<number, number>();
    let start = Number.POSITIVE_INFINITY;
    let allOk = true;
    for (const record of list) {
      const branch = record.session!.branch!;
      if (record.session!.toolRound === 0) start = Math.min(start, record.sentMs);
      ends.set(branch, Math.max(ends.get(branch) ?? Number.NEGATIVE_INFINITY, record.endMs));
      if (!record.ok) allOk = false;
    }
    const sent = new Set(
      list.filter((record) => record.session!.toolRound === 0).map((record) => record.session!.branch!),
    ).size;
    const completed = allOk && sent === branches && Number.isFinite(start);
    const branchEnds = [...ends.values()];
    const last = Math.max(...branchEnds);
    times.push({
      session: position.index,
      turn: position.turn,
      branches,
      sent,
      completed,
      completionMs: completed ? last - start : null,
      spreadMs: completed ? last - Math.min(...branchEnds) : null,
    });
  }
  return times.sort((a, b) => a.session - b.session || a.turn - b.turn);
}

/** A run's fan-outs (`fanOutTimes`) summarised (run.json `sessions.fanOut`); undefined when there were none. */
export function summarizeFanOuts(times: readonly FanOutTime[]): FanOutSummary | undefined {
  if (times.length === 0) return undefined;
  const completed = times.filter((time) => time.completed);
  return {
    fanOuts: times.length,
    completed: completed.length,
    branches: times.reduce((sum, time) => sum + time.sent, 0),
    completion: summarize(completed.map((time) => time.completionMs!)),
    spread: summarize(completed.map((time) => time.spreadMs!)),
  };
}
