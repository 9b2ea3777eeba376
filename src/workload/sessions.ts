import type { FanOutConfig } from "../config/dataset-kinds/fan-out.js";
import type { CellConfig } from "../config/schema.js";
import { createRng, type Rng } from "../util/random.js";
import type { ChatMessage, DatasetFile, FileSession, ToolDefinition } from "./dataset-file.js";
import { planFanOuts, type SessionFanOut } from "./fan-out.js";
import type { Phase } from "./phase.js";
import type { TokenModel } from "./token-model.js";

/**
 * Sessions (docs/workloads.md): a session is a seeded script of turns. A turn's request carries the
 * conversation so far, with the server's own answers, as a chat client sends it; the script fixes only
 * what the client writes (messages, lengths asked for, waits), so the same session asks the same things
 * of both sides whatever they answer.
 */
export interface SessionTurn {
  /** The new user message, or (a trace) the whole prompt as the trace gives it. */
  content: string;
  /** Tokens asked for the new message (generated sessions); null when the text comes from a file. */
  messageTokens: number | null;
  maxTokens: number;
  /** Wait after the previous turn's answer before this turn is sent (think time); 0 for the first. */
  delayMs: number;
  /** A trace's own clock: not sent before this offset from the session's start (null: no such bound). */
  notBeforeMs: number | null;
  /** A fan-out turn's branches, sent at once instead of one request (./fan-out.ts); null otherwise. */
  fanOut: SessionFanOut | null;
}

export interface SessionTools {
  names: readonly string[];
  /** The `tools` every request of the session declares. */
  definitions: ToolDefinition[];
  /** The mocked tool's latency for round `round` of turn `turn` (of fan-out branch `branch`), seeded. */
  latencyMs(turn: number, round: number, branch?: number): number;
  /** The mocked result's text for call `call` of round `round` of turn `turn` (of branch `branch`), seeded. */
  result(turn: number, round: number, call: number, branch?: number): string;
}

export interface SessionScript {
  index: number;
  phase: Phase;
  /** The system prompt the session starts with, or null. */
  system: string | null;
  /** Whether the system prompt is the common one (shared by sessions: a cacheable prefix). */
  sharedSystem: boolean;
  /** Tokens asked for the system prompt (generated sessions), else null. */
  systemTokens: number | null;
  /**
   * "conversation": each turn adds its message to the conversation so far (the answers included);
   * "as-given": each turn's content is the whole prompt (a trace, whose lengths and prefix blocks are its own).
   */
  context: "conversation" | "as-given";
  turns: SessionTurn[];
  tools: SessionTools | null;
}

/** Sessions of a cell: session i is a pure function of (cell, seed, token model, i, phase). */
export interface SessionSource {
  session(index: number, phase: Phase): SessionScript;
  /** Session start offsets on a trace's own clock (ms from the first), null when the load times them. */
  arrivalsMs: ((count: number) => number[]) | null;
}

/** Tool-call rounds a turn may take before the session goes on (a model that keeps calling tools). */
export const maxToolRoundsPerTurn = 4;

/**
 * The seeded draws of one cell's sessions, by phase and keys (`"session", index`, `"tool", ...`): warm-up
 * sessions draw from their own stream, so they never share a conversation (or a cached prefix beyond the
 * common system prompt) with the measured sessions.
 */
export type SessionDraws = (phase: Phase, ...keys: (string | number)[]) => Rng;

export function sessionDraws(seed: number, cell: CellConfig): SessionDraws {
  return (phase, ...keys) => createRng(seed, cell.name, phase, ...keys);
}

/** What every session kind's source is made from (its entry in workload/dataset-kinds/). */
export interface SessionSourceOptions {
  readonly draws: SessionDraws;
  readonly tokenModel: TokenModel;
  readonly file: DatasetFile | undefined;
}

/** A session's fan-outs, drawn from a stream of their own (./fan-out.ts). */
export function sessionFanOuts(
  fanOut: FanOutConfig | undefined,
  turns: number,
  { draws, tokenModel }: SessionSourceOptions,
  phase: Phase,
  index: number,
): (SessionFanOut | null)[] {
  return planFanOuts(fanOut, turns, draws(phase, "fan-out", index), tokenModel);
}

/** The sessions a session kind's file holds, read once per cell by the runner. */
export function fileSessions(cell: CellConfig, type: string, file: DatasetFile | undefined): FileSession[] {
  if (!file?.sessions)
    throw new Error(`cell ${cell.name}: the ${type} file was not read before building the workload`);
  return file.sessions;
}

/**
 * The script of a session read from a file (a conversation, a trace's session): its system prompt as the
 * file gives it (never a shared one), its turns, no tools.
 */
export function fileSessionScript(
  index: number,
  phase: Phase,
  entry: FileSession,
  context: SessionScript["context"],
  turns: SessionTurn[],
): SessionScript {
  return {
    index,
    phase,
    system: entry.system,
    sharedSystem: false,
    systemTokens: null,
    context,
    turns,
    tools: null,
  };
}

/**
 * Session start offsets of a trace (ms from its first session), for `count` sessions: the trace in its
 * order, then again from its start, each repetition one trace span plus one mean gap later.
 */
export function traceArrivals(sessions: readonly FileSession[], count: number): number[] {
  const starts = sessions.map((session) => session.turns[0]?.timestampMs ?? 0);
  const first = starts[0] ?? 0;
  const offsets = starts.map((start) => Math.max(0, start - first));
  const span = offsets.at(-1) ?? 0;
  const period = span + (offsets.length > 1 ? span / (offsets.length - 1) : 1000);
  return Array.from(
    { length: count },
    (_, index) => offsets[index % offsets.length]! + Math.floor(index / offsets.length) * period,
  );
}

/**
 * The tools a session's requests declare: each a function of one string argument (the mocked tool's
 * result does not depend on it), in the OpenAI chat API's `tools` shape.
 */
export function sessionToolDefinitions(names: readonly string[]): ToolDefinition[] {
  return names.map((name) => ({
    type: "function",
    function: {
      name,
      description: `The benchmark's mocked ${name} tool: returns a seeded text.`,
      parameters: {
        type: "object",
        properties: { input: { type: "string" } },
        required: ["input"],
      },
    },
  }));
}

/**
 * The conversation of one session as the client holds it: what each turn sends is every message so far
 * and the new one (the server's answers as it gave them), or, for a trace, the turn's prompt as given.
 */
export class Conversation {
  private readonly history: ChatMessage[];

  /** `history`: a branch's start (the conversation it forks); a session starts from its system prompt. */
  constructor(
    private readonly script: SessionScript,
    history?: readonly ChatMessage[],
  ) {
    this.history =
      history !== undefined
        ? [...history]
        : script.system !== null
          ? [{ role: "system", content: script.system }]
          : [];
  }

  /** The messages of turn `turn`'s request (the new message appended to the conversation). */
  ask(turn: number): ChatMessage[] {
    const content = this.script.turns[turn]!.content;
    if (this.script.context === "as-given") {
      this.history.length = 0;
      if (this.script.system !== null) this.history.push({ role: "system", content: this.script.system });
    }
    this.history.push({ role: "user", content });
    return [...this.history];
  }

  /** The server's answer (its text, and its tool calls when it called tools). */
  answer(text: string, toolCalls: readonly { id: string; name: string; arguments: string }[] = []): void {
    const message: ChatMessage = { role: "assistant", content: text };
    if (toolCalls.length > 0)
      message.tool_calls = toolCalls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      }));
    this.history.push(message);
  }

  /**
   * Branch `branch` of fan-out turn `turn`: a conversation of its own that starts as the conversation so
   * far, the turn's message and the branch's message (what its first request sends, `messages`); its tool
   * rounds go on in it, apart from the session's.
   */
  branch(turn: number, branch: number): { conversation: Conversation; messages: ChatMessage[] } {
    const planned = this.script.turns[turn]!;
    const own = planned.fanOut!.branches[branch]!;
    const conversation = new Conversation(this.script, [
      ...this.history,
      { role: "user", content: planned.content },
      { role: "user", content: own.content },
    ]);
    return { conversation, messages: [...conversation.history] };
  }

  /**
   * A fan-out turn joined: the conversation goes on with the turn's message and, as the answer the next
   * turn reads, the branches' answers in branch order (the sub-agents' results).
   */
  join(turn: number, answers: readonly string[]): void {
    this.history.push({ role: "user", content: this.script.turns[turn]!.content });
    this.history.push({ role: "assistant", content: answers.join("\n\n") });
  }

  /** The mocked tool results answering the last tool calls; returns the next request's messages. */
  toolResults(results: readonly { id: string; content: string }[]): ChatMessage[] {
    for (const result of results)
      this.history.push({ role: "tool", tool_call_id: result.id, content: result.content });
    return [...this.history];
  }
}
