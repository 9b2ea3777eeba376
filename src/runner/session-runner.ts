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
 * of the same turn, up to maxToolRoundsPerTurn rounds. A failed turn ends the session (there is no answer to
 * go on from); so does `shouldStop`. Pure scheduling on the injected clock: the session's ticket is the
 * dispatcher's, each request gets its index from `nextIndex`. Resolves with the last answer's end.
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
    turn: number,
    toolRound: number,
    messages: ChatMessage[],
    scheduledAt: number,
    first: boolean,
  ): TurnRequest => {
    const planned = script.turns[turn]!;
    const readyAt = first ? ticket.readyAt : clock.now();
    return {
      ticket: {
        index: options.nextIndex(),
        stage: ticket.stage,
        scheduledAt: first ? ticket.scheduledAt : scheduledAt,
        readyAt,
        slotAt: first ? ticket.slotAt : readyAt,
        ...(ticket.elidedMs !== undefined ? { elidedMs: ticket.elidedMs } : {}),
        session: { index: script.index, turn, turns, toolRound },
      },
      messages,
      maxTokens: planned.maxTokens,
      targetMessageTokens:
        planned.messageTokens === null || toolRound > 0
          ? null
          : planned.messageTokens + (turn === 0 ? (script.systemTokens ?? 0) : 0),
      prefixGroup: script.sharedSystem ? 0 : null,
      tools: script.tools?.definitions ?? null,
    };
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
    let answer = await options.send(request(turn, 0, conversation.ask(turn), scheduledAt, turn === 0));
    lastEnd = answer.endAt;
    if (!answer.ok) break;
    conversation.answer(answer.text, answer.toolCalls);
    const tools = script.tools;
    for (
      let round = 1;
      tools !== null && answer.toolCalls.length > 0 && round <= maxToolRoundsPerTurn;
      round++
    ) {
      const resultAt = lastEnd + tools.latencyMs(turn, round);
      await clock.sleepUntil(resultAt);
      if (options.shouldStop?.() === true) return lastEnd;
      const messages = conversation.toolResults(
        answer.toolCalls.map((call, position) => ({
          id: call.id,
          content: tools.result(turn, round, position),
        })),
      );
      answer = await options.send(request(turn, round, messages, resultAt, false));
      lastEnd = answer.endAt;
      if (!answer.ok) return lastEnd;
      conversation.answer(answer.text, answer.toolCalls);
    }
  }
  return lastEnd;
}
