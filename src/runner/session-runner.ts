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
export async function runSession(options: {
  script: SessionScript;
  ticket: Ticket;
  clock: ScheduleClock;
  nextIndex: () => number;
  send: (request: TurnRequest) => Promise<TurnAnswer>;
  shouldStop?: () => boolean;
}): Promise<number> {
  const { script, ticket, clock } = options;
  const conversation = new Conversation(script);
  const turns = script.turns.length;
  const sessionStart = ticket.readyAt;
  let lastEnd = ticket.readyAt;
  const request = (
    at: RequestPlace,
    toolRound: number,
    messages: ChatMessage[],
    scheduledAt: number,
  ): TurnRequest => {
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
        index: options.nextIndex(),
        stage: ticket.stage,
        scheduledAt: first ? ticket.scheduledAt : scheduledAt,
        readyAt,
        slotAt: first ? ticket.slotAt : readyAt,
        ...(ticket.elidedMs !== undefined ? { elidedMs: ticket.elidedMs } : {}),
        session: {
          index: script.index,
          turn,
          turns,
          toolRound,
          ...(branch === null ? {} : { branch, branches: planned.fanOut!.branches.length }),
        },
      },
      messages,
      maxTokens: own?.maxTokens ?? planned.maxTokens,
      targetMessageTokens: messageTokens,
      prefixGroup: script.sharedSystem ? 0 : null,
      tools: toolsOf(at) === null ? null : script.tools!.definitions,
    };
  };
  /** The tools a request of this place declares and answers: a branch's only when its fan-out has them. */
  const toolsOf = (at: RequestPlace) =>
    at.branch !== null && !script.turns[at.turn]!.fanOut!.tools ? null : script.tools;
  /**
   * One request and its tool rounds, in `thread` (the session's conversation, or a branch's): the final
   * answer's text, or ok false when a request failed or the run stops (the session ends).
   */
  const answer = async (
    thread: Conversation,
    at: RequestPlace,
    messages: ChatMessage[],
    scheduledAt: number,
  ): Promise<{ ok: boolean; endAt: number; text: string }> => {
    let reply = await options.send(request(at, 0, messages, scheduledAt));
    if (!reply.ok) return { ok: false, endAt: reply.endAt, text: "" };
    thread.answer(reply.text, reply.toolCalls);
    const tools = toolsOf(at);
    const branch = at.branch ?? undefined;
    for (
      let round = 1;
      tools !== null && reply.toolCalls.length > 0 && round <= maxToolRoundsPerTurn;
      round++
    ) {
      const resultAt = reply.endAt + tools.latencyMs(at.turn, round, branch);
      await clock.sleepUntil(resultAt);
      if (options.shouldStop?.() === true) return { ok: false, endAt: reply.endAt, text: "" };
      const next = thread.toolResults(
        reply.toolCalls.map((call, position) => ({
          id: call.id,
          content: tools.result(at.turn, round, position, branch),
        })),
      );
      reply = await options.send(request(at, round, next, resultAt));
      if (!reply.ok) return { ok: false, endAt: reply.endAt, text: "" };
      thread.answer(reply.text, reply.toolCalls);
    }
    return { ok: true, endAt: reply.endAt, text: reply.text };
  };
  for (let turn = 0; turn < turns; turn++) {
    const planned = script.turns[turn]!;
    let scheduledAt = ticket.scheduledAt;
    if (turn > 0) {
      scheduledAt = lastEnd + planned.delayMs;
      if (planned.notBeforeMs !== null)
        scheduledAt = Math.max(scheduledAt, sessionStart + planned.notBeforeMs);
      await clock.sleepUntil(scheduledAt);
      if (options.shouldStop?.() === true) break;
    }
    const fanOut = planned.fanOut;
    if (fanOut === null) {
      const reply = await answer(conversation, { turn, branch: null }, conversation.ask(turn), scheduledAt);
      lastEnd = reply.endAt;
      if (!reply.ok) break;
      continue;
    }
    // The join: every branch is sent now and the session waits for the last one, failed or not.
    const replies = await Promise.all(
      fanOut.branches.map((_, branch) => {
        const fork = conversation.branch(turn, branch);
        return answer(fork.conversation, { turn, branch }, fork.messages, scheduledAt);
      }),
    );
    lastEnd = Math.max(...replies.map((reply) => reply.endAt));
    if (replies.some((reply) => !reply.ok)) break;
    conversation.join(
      turn,
      replies.map((reply) => reply.text),
    );
  }
  return lastEnd;
}

/** Where a request is in its session's script: its turn, and at a fan-out turn its branch (else null). */
interface RequestPlace {
  turn: number;
  branch: number | null;
}
