import type { StreamClient, StreamOutcome } from "../client/stream-client.js";
import type { ServerSession } from "../server/types.js";
import type { ScheduleClock } from "../util/clock.js";
import type { Phase } from "../workload/phase.js";
import type { DeferredWork } from "./deferred-work.js";
import type { Ticket } from "./dispatch.js";
import type { JsonlAppender } from "./jsonl-appender.js";
import type { LoadPlan } from "./load-plan.js";
import type { ProgressSink } from "./progress.js";
import type { PhaseBodies, RequestBody } from "./request-bodies.js";
import { requestIdOf, toRecord } from "./request-record.js";
import type { RequestRecord } from "./request-schema.js";
import { runSession } from "./session-runner.js";

/** Consecutive refused connections after which a run stops (and is marked cut short). */
const unreachableAfterRefusals = 20;

/**
 * How long a run whose server refuses every connection waits for the server's exit to be known before it
 * is recorded: the port of a killed container refuses about 0.2 s after the kill, `docker wait` answers
 * about 0.5 s after it. An exit within this is a crash (recorded with its code, the server restarted for
 * the next run); a server that is up and refuses stays "unreachable".
 */
export const exitSettleMs = 3_000;

/** Why a run stops early: the server exited, refuses every connection, or the caller interrupted. */
export interface RunGuard {
  /** The server's exit reason once it exited during the run, else null. */
  crashed: () => string | null;
  unreachable: () => boolean;
  refusedInARow: () => number;
  noteRefusal: (record: RequestRecord) => void;
  aborted: () => boolean;
  /** Stop sending: any of the above. */
  stop: () => boolean;
  /** When the run stopped on refused connections: waits (up to exitSettleMs) for the server's exit. */
  settle: (clock: ScheduleClock) => Promise<void>;
}

export function runGuard(session: ServerSession, shouldAbort: (() => boolean) | undefined): RunGuard {
  let crashed: string | null = null;
  const exited = session.exited.then(({ reason }) => {
    crashed = reason;
  });
  // A server that refuses every connection would otherwise be hammered for the whole duration.
  let refusedInARow = 0;
  const unreachable = () => refusedInARow >= unreachableAfterRefusals;
  const noteRefusal = (record: RequestRecord) => {
    refusedInARow = record.errorKind === "connect" ? refusedInARow + 1 : 0;
  };
  const aborted = () => shouldAbort?.() === true;
  const stop = () => crashed !== null || unreachable() || aborted();
  return {
    crashed: () => crashed,
    unreachable,
    refusedInARow: () => refusedInARow,
    noteRefusal,
    aborted,
    stop,
    settle: async (clock) => {
      if (crashed !== null || !unreachable()) return;
      await Promise.race([exited, clock.sleepUntil(clock.now() + exitSettleMs)]);
    },
  };
}

export interface PhaseSenderSetup {
  client: StreamClient;
  path: string;
  cell: string;
  runIndex: number;
  runs: number;
  timeoutMs: number;
  clock: ScheduleClock;
  progress: ProgressSink;
  bookkeeping: DeferredWork;
  guard: RunGuard;
}

export interface PhaseSender {
  /** Sends one unit of the schedule (a request, or a session's turns) and resolves when it ended. */
  send: (ticket: Ticket) => Promise<{ endAt: number }>;
  tally: { done: number; errors: number };
}

/**
 * Sends the requests of one phase. A request's record is built, logged and counted after the next
 * request is on its way (closed-loop waves), in `bookkeeping`. For a session dataset the schedule's unit
 * is a session: its turns are sent one after the other by `runSession`, each a request with its record.
 */
export function phaseSender(
  setup: PhaseSenderSetup,
  phase: Phase,
  phasePlan: LoadPlan,
  log: JsonlAppender,
  phaseOrigin: () => number,
  bodies: PhaseBodies,
  kept: RequestRecord[] | null = null,
): PhaseSender {
  const { client, path, cell, runIndex, timeoutMs, clock, progress, bookkeeping, guard } = setup;
  const tally = { done: 0, errors: 0 };
  // The plan counts sessions for a session dataset: progress says sessions done of sessions planned (a
  // count of requests against it ran past the total at the first session's second turn).
  const unit = bodies.kind === "requests" ? "requests" : "sessions";
  let sessionsDone = 0;
  const reportProgress = (done: number) =>
    progress.update({
      cell,
      run: runIndex,
      runs: setup.runs,
      phase,
      done,
      total: phasePlan.maxRequests,
      unit,
      errors: tally.errors,
      elapsedS: (clock.now() - phaseOrigin()) / 1000,
      plannedS: phasePlan.maxDurationMs === null ? null : phasePlan.maxDurationMs / 1000,
    });
  const sendRequest = async (ticket: Ticket, body: RequestBody): Promise<StreamOutcome> => {
    const outcome = await client.stream({
      path,
      body: body.bytes,
      requestId: requestIdOf(cell, runIndex, phase, ticket),
      timeoutMs,
      perChunkUsage: body.perChunkUsage,
      expectedChunks: body.meta.maxTokens + 1,
      keepOutput: body.keepOutput,
    });
    bookkeeping.later(() => {
      const record = toRecord(
        phase,
        ticket,
        outcome,
        { ...body.meta, recordOutput: body.recordOutput },
        phaseOrigin(),
        cell,
        runIndex,
      );
      log.append(record);
      kept?.push(record);
      tally.done++;
      if (!record.ok) tally.errors++;
      guard.noteRefusal(record);
      if (unit === "requests") reportProgress(tally.done);
    });
    return outcome;
  };
  if (bodies.kind === "requests")
    return { send: (ticket) => sendRequest(ticket, bodies.bodyOf(ticket.index)), tally };
  let nextRequest = 0;
  const send = (ticket: Ticket) =>
    runSession({
      script: bodies.sessions.session(ticket.index, phase),
      ticket,
      clock,
      nextIndex: () => nextRequest++,
      shouldStop: guard.stop,
      send: async (turn) => {
        const body = bodies.build(
          {
            index: turn.ticket.index,
            phase,
            prompt: null,
            messages: turn.messages,
            targetInputTokens: turn.targetMessageTokens,
            maxTokens: turn.maxTokens,
            prefixGroup: turn.prefixGroup,
            ...(turn.tools !== null ? { tools: turn.tools } : {}),
          },
          phase,
        );
        const outcome = await sendRequest(turn.ticket, body);
        return {
          endAt: outcome.endAt,
          ok: outcome.ok,
          text: outcome.output?.text ?? "",
          toolCalls: outcome.answer.toolCalls,
        };
      },
    }).then((endAt) => {
      // After the bookkeeping of the session's last turn, so its errors are counted.
      bookkeeping.later(() => reportProgress(++sessionsDone));
      return { endAt };
    });
  return { send, tally };
}
