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
const exitSettleMs = 3_000;

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
  const sending = new PhaseSending(
    setup,
    phase,
    phasePlan,
    log,
    phaseOrigin,
    bodies.kind !== "requests",
    kept,
  );
  const send =
    bodies.kind === "requests"
      ? (ticket: Ticket) => sending.sendRequest(ticket, bodies.bodyOf(ticket.index))
      : (ticket: Ticket) => sending.sendSession(ticket, bodies);
  return { send, tally: sending.tally };
}

/** One phase being sent: its requests' records, counts and progress. */
class PhaseSending {
  readonly tally = { done: 0, errors: 0 };
  private sessionsDone = 0;
  /** The index of a session phase's next request (its turns are requests of their own). */
  private nextRequest = 0;

  constructor(
    private readonly setup: PhaseSenderSetup,
    private readonly phase: Phase,
    private readonly phasePlan: LoadPlan,
    private readonly log: JsonlAppender,
    private readonly phaseOrigin: () => number,
    private readonly sessionMode: boolean,
    private readonly kept: RequestRecord[] | null,
  ) {}

  /** Sends one request; its record is built, logged and counted later, in the bookkeeping. */
  async sendRequest(ticket: Ticket, body: RequestBody): Promise<StreamOutcome> {
    const { client, path, cell, runIndex, timeoutMs, bookkeeping, guard } = this.setup;
    const phase = this.phase;
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
        this.phaseOrigin(),
        cell,
        runIndex,
      );
      this.log.append(record);
      this.kept?.push(record);
      this.tally.done++;
      if (!record.ok) this.tally.errors++;
      guard.noteRefusal(record);
      this.report();
    });
    return outcome;
  }

  /** Sends one session: its turns one after the other (runSession), each a request with its record. */
  sendSession(
    ticket: Ticket,
    bodies: Extract<PhaseBodies, { kind: "sessions" }>,
  ): Promise<{ endAt: number }> {
    const { clock, bookkeeping, guard } = this.setup;
    const phase = this.phase;
    return runSession({
      script: bodies.sessions.session(ticket.index, phase),
      ticket,
      clock,
      nextIndex: () => this.nextRequest++,
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
        const outcome = await this.sendRequest(turn.ticket, body);
        return {
          endAt: outcome.endAt,
          ok: outcome.ok,
          text: outcome.output?.text ?? "",
          toolCalls: outcome.answer.toolCalls,
        };
      },
    }).then((endAt) => {
      // Counted once the session's last record is in (its bookkeeping runs before this continuation's
      // next send, or at the phase's end), so the final line has every request.
      bookkeeping.later(() => {
        this.sessionsDone++;
        this.report();
      });
      return { endAt };
    });
  }

  private report(): void {
    const { progress, cell, runIndex, runs, clock } = this.setup;
    const plan = this.phasePlan;
    progress.update({
      cell,
      run: runIndex,
      runs,
      phase: this.phase,
      ...(this.sessionMode ? { unit: "sessions" as const, requests: this.tally.done } : {}),
      done: this.sessionMode ? this.sessionsDone : this.tally.done,
      total: plan.maxRequests,
      errors: this.tally.errors,
      elapsedS: (clock.now() - this.phaseOrigin()) / 1000,
      plannedS: plan.maxDurationMs === null ? null : plan.maxDurationMs / 1000,
    });
  }
}
