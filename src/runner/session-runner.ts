import type { ToolCall } from "../client/answer-stream.js";
import type { ScheduleClock } from "../util/clock.js";
import type { ChatMessage, ToolDefinition } from "../workload/dataset-file.js";
import { Conversation, maxToolRoundsPerTurn, type SessionScript } from "../workload/sessions.js";
import type { Ticket } from "./dispatch.js";

/** What a turn's answer gives the session: when it ended, and what to put in the conversation. */
export interface TurnAnswer {
  endAt: number;
  ok: boolean;
  text: string;
  /** The answer's tool calls, as the client assembled them from `delta.tool_calls`. */
  toolCalls: readonly ToolCall[];
}

/** One request of a session: its ticket (with its place in the session) and what it asks. */
export interface TurnRequest {
  ticket: Ticket & { session: NonNullable<Ticket["session"]> };
  messages: ChatMessage[];
  maxTokens: number;
  /** Tokens asked for the new message plus the system prompt on the first turn (generated sessions). */
  targetMessageTokens: number | null;
  /** 0 when the session starts with the common system prompt (a shared prefix), else null. */
  prefixGroup: number | null;
  /** The tools the request declares (a session with tools), else null. */
  tools: ToolDefinition[] | null;
}

/**
 * Runs one session (docs/workloads.md): its turns closed-loop, each sent with the conversation so far after
 * the previous answer ended and the turn's think time passed (or, on a trace's clock, not before its own
 * offset); an answer that calls tools gets the mocked results after the tool latency, as one more request
 * of the same turn, up to maxToolRoundsPerTurn rounds. A fan-out turn sends its branches at once, each with
 * its own tool rounds, and joins them: the next turn waits for the last branch. A failed turn (any failed
 * branch) ends the session (there is no answer to go on from); so does `shouldStop`. Pure scheduling on the
 * injected clock: the session's ticket is the dispatcher's, each request gets its index from `nextIndex`.
 * Resolves with the last answer's end.
 */
export async function runSession(options: SessionRunOptions): Promise<number> {
  return new SessionRun(options).run();
}

interface SessionRunOptions {
  script: SessionScript;
  ticket: Ticket;
  clock: ScheduleClock;
  nextIndex: () => number;
  send: (request: TurnRequest) => Promise<TurnAnswer>;
  shouldStop?: () => boolean;
}

/** A request's outcome as the session reads it: the final answer's text, or ok false (the session ends). */
interface Reply {
  ok: boolean;
  endAt: number;
  text: string;
}

/** One session being run: its conversation, and when its last answer ended. */
class SessionRun {
  private readonly conversation: Conversation;
  private lastEnd: number;

  constructor(private readonly options: SessionRunOptions) {
    this.conversation = new Conversation(options.script);
    this.lastEnd = options.ticket.readyAt;
  }

  async run(): Promise<number> {
    const { script, ticket, clock } = this.options;
    for (let turn = 0; turn < script.turns.length; turn++) {
      const planned = script.turns[turn]!;
      let scheduledAt = ticket.scheduledAt;
      if (turn > 0) {
        scheduledAt = this.lastEnd + planned.delayMs;
        if (planned.notBeforeMs !== null)
          scheduledAt = Math.max(scheduledAt, ticket.readyAt + planned.notBeforeMs);
        await clock.sleepUntil(scheduledAt);
        if (this.options.shouldStop?.() === true) break;
      }
      const ok =
        planned.fanOut === null
          ? await this.singleTurn(turn, scheduledAt)
          : await this.fanOutTurn(turn, scheduledAt);
      if (!ok) break;
    }
    return this.lastEnd;
  }

  /** A turn of one request (and its tool rounds) in the session's conversation. */
  private async singleTurn(turn: number, scheduledAt: number): Promise<boolean> {
    const conversation = this.conversation;
    const reply = await this.answer(
      conversation,
      { turn, branch: null },
      conversation.ask(turn),
      scheduledAt,
    );
    this.lastEnd = reply.endAt;
    return reply.ok;
  }

  /** The join: every branch is sent now and the session waits for the last one, failed or not. */
  private async fanOutTurn(turn: number, scheduledAt: number): Promise<boolean> {
    const conversation = this.conversation;
    const branches = this.options.script.turns[turn]!.fanOut!.branches;
    const replies = await Promise.all(
      branches.map((_, branch) => {
        const fork = conversation.branch(turn, branch);
        return this.answer(fork.conversation, { turn, branch }, fork.messages, scheduledAt);
      }),
    );
    this.lastEnd = Math.max(...replies.map((reply) => reply.endAt));
    if (replies.some((reply) => !reply.ok)) return false;
    conversation.join(
      turn,
      replies.map((reply) => reply.text),
    );
    return true;
  }

  /**
   * One request and its tool rounds, in `thread` (the session's conversation, or a branch's): the final
   * answer's text, or ok false when a request failed or the run stops (the session ends).
   */
  private async answer(
    thread: Conversation,
    at: RequestPlace,
    messages: ChatMessage[],
    scheduledAt: number,
  ): Promise<Reply> {
    const { clock, send } = this.options;
    let reply = await send(this.request(at, 0, messages, scheduledAt));
    if (!reply.ok) return { ok: false, endAt: reply.endAt, text: "" };
    thread.answer(reply.text, reply.toolCalls);
    const tools = this.toolsOf(at);
    const branch = at.branch ?? undefined;
    for (
      let round = 1;
      tools !== null && reply.toolCalls.length > 0 && round <= maxToolRoundsPerTurn;
      round++
    ) {
      const resultAt = reply.endAt + tools.latencyMs(at.turn, round, branch);
      await clock.sleepUntil(resultAt);
      if (this.options.shouldStop?.() === true) return { ok: false, endAt: reply.endAt, text: "" };
      const next = thread.toolResults(
        reply.toolCalls.map((call, position) => ({
          id: call.id,
          content: tools.result(at.turn, round, position, branch),
        })),
      );
      reply = await send(this.request(at, round, next, resultAt));
      if (!reply.ok) return { ok: false, endAt: reply.endAt, text: "" };
      thread.answer(reply.text, reply.toolCalls);
    }
    return { ok: true, endAt: reply.endAt, text: reply.text };
  }

  /** The tools a request of this place declares and answers: a branch's only when its fan-out has them. */
  private toolsOf(at: RequestPlace) {
    const script = this.options.script;
    return at.branch !== null && !script.turns[at.turn]!.fanOut!.tools ? null : script.tools;
  }

  /** The request of a place and tool round: its ticket (its place in the session), messages and lengths. */
  private request(
    at: RequestPlace,
    toolRound: number,
    messages: ChatMessage[],
    scheduledAt: number,
  ): TurnRequest {
    const { script, ticket, clock } = this.options;
    const { turn, branch } = at;
    const planned = script.turns[turn]!;
    const own = branch === null ? null : planned.fanOut!.branches[branch]!;
    // Every first request of the session's first turn (its branches too) is the dispatcher's send.
    const first = turn === 0 && toolRound === 0;
    const readyAt = first ? ticket.readyAt : clock.now();
    const messageTokens =
      planned.messageTokens === null || toolRound > 0
        ? null
        : planned.messageTokens + (own?.messageTokens ?? 0) + (turn === 0 ? (script.systemTokens ?? 0) : 0);
    return {
      ticket: {
        index: this.options.nextIndex(),
        stage: ticket.stage,
        scheduledAt: first ? ticket.scheduledAt : scheduledAt,
        readyAt,
        slotAt: first ? ticket.slotAt : readyAt,
        ...(ticket.elidedMs !== undefined ? { elidedMs: ticket.elidedMs } : {}),
        session: {
          index: script.index,
          turn,
          turns: script.turns.length,
          toolRound,
          ...(branch === null ? {} : { branch, branches: planned.fanOut!.branches.length }),
        },
      },
      messages,
      maxTokens: own?.maxTokens ?? planned.maxTokens,
      targetMessageTokens: messageTokens,
      prefixGroup: script.sharedSystem ? 0 : null,
      tools: this.toolsOf(at) === null ? null : script.tools!.definitions,
    };
  }
}

/** Where a request is in its session's script: its turn, and at a fan-out turn its branch (else null). */
interface RequestPlace {
  turn: number;
  branch: number | null;
}
