import { isTraceDataset } from "../config/dataset-kinds.js";
import type { CellConfig, SessionDatasetConfig } from "../config/schema.js";
import { createRng } from "../util/random.js";
import type { ChatMessage, DatasetFile, FileSession, ToolDefinition } from "./dataset-file.js";
import { drawDelayMs } from "./delays.js";
import { planFanOuts, type SessionFanOut } from "./fan-out.js";
import { drawLength } from "./lengths.js";
import type { Phase } from "./phase.js";
import { randomWords, shuffledIndexes } from "./text.js";
import { type TokenModel, wordsForPart, wordsForPrompt } from "./token-model.js";

/**
 * Sessions (docs/workloads.md): a session is a seeded script of turns. A turn's request carries the
 * conversation so far, with the server's own answers, as a chat client sends it; the script fixes only
 * what the client writes (messages, lengths asked for, waits), so the same session asks the same things
 * of both sides whatever they answer.
 */
interface SessionTurn {
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

interface SessionTools {
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

/** Fallback answer length for a file turn without a reply to estimate it from. */
const defaultOutputTokens = 128;

export function sessionSource(
  cell: CellConfig,
  dataset: SessionDatasetConfig,
  options: { seed: number; tokenModel: TokenModel; file: DatasetFile | undefined },
): SessionSource {
  const { seed, tokenModel } = options;
  // Warm-up sessions come from their own stream: they never share a conversation (or a cached prefix
  // beyond the common system prompt) with the measured sessions.
  const stream = (phase: Phase) => (phase === "warmup" ? "warmup" : "measure");
  // A session's fan-outs come from a stream of their own (./fan-out.ts).
  const fanOutRng = (phase: Phase, index: number) =>
    createRng(seed, cell.name, stream(phase), "fan-out", index);
  switch (dataset.type) {
    case "sessions": {
      const sharedSystems = new Map<string, string>();
      const sharedSystem = (phase: Phase) => {
        let text = sharedSystems.get(stream(phase));
        if (text === undefined) {
          const words = wordsForPrompt(tokenModel, dataset.system_prompt_tokens);
          text = randomWords(createRng(seed, cell.name, stream(phase), "system"), words);
          sharedSystems.set(stream(phase), text);
        }
        return text;
      };
      const tools = dataset.tools;
      return {
        arrivalsMs: null,
        session(index, phase) {
          const rng = createRng(seed, cell.name, stream(phase), "session", index);
          const turnCount = drawLength(dataset.turns, rng);
          let system: string | null = null;
          let shared = false;
          if (dataset.system_prompt_tokens > 0) {
            shared = rng.next() < dataset.shared_system_prompt;
            system = shared
              ? sharedSystem(phase)
              : randomWords(rng, wordsForPrompt(tokenModel, dataset.system_prompt_tokens));
          }
          const fanOuts = planFanOuts(dataset.fan_out, turnCount, fanOutRng(phase, index), tokenModel);
          const turns: SessionTurn[] = [];
          for (let turn = 0; turn < turnCount; turn++) {
            const messageTokens = drawLength(dataset.message_tokens, rng);
            const maxTokens = drawLength(dataset.output_tokens, rng);
            const delayMs = turn === 0 ? 0 : drawDelayMs(dataset.think_time_s, rng);
            const content = randomWords(rng, wordsForPart(tokenModel, messageTokens));
            turns.push({
              content,
              messageTokens,
              maxTokens,
              delayMs,
              notBeforeMs: null,
              fanOut: fanOuts[turn]!,
            });
          }
          return {
            index,
            phase,
            system,
            sharedSystem: shared,
            systemTokens: system === null ? null : dataset.system_prompt_tokens,
            context: "conversation",
            turns,
            tools:
              tools === undefined
                ? null
                : {
                    names: tools.names,
                    definitions: sessionToolDefinitions(tools.names),
                    // A branch's draws are streams of their own; the session's turns keep theirs.
                    latencyMs: (turn, round, branch) =>
                      drawDelayMs(
                        tools.latency_s,
                        createRng(
                          seed,
                          cell.name,
                          stream(phase),
                          "tool",
                          index,
                          turn,
                          round,
                          ...(branch === undefined ? [] : ["branch", branch]),
                        ),
                      ),
                    result: (turn, round, call, branch) => {
                      const toolRng = createRng(
                        seed,
                        cell.name,
                        stream(phase),
                        "result",
                        index,
                        turn,
                        round,
                        call,
                        ...(branch === undefined ? [] : ["branch", branch]),
                      );
                      return randomWords(
                        toolRng,
                        wordsForPart(tokenModel, drawLength(tools.result_tokens, toolRng)),
                      );
                    },
                  },
          };
        },
      };
    }
    case "sharegpt_sessions":
    case "mooncake_trace":
    case "azure_trace":
    case "burstgpt_trace":
    case "trace": {
      const file = options.file;
      if (!file?.sessions)
        throw new Error(
          `cell ${cell.name}: the ${dataset.type} file was not read before building the workload`,
        );
      const sessions = file.sessions;
      const trace = isTraceDataset(dataset) ? dataset : null;
      const blockTexts = new Map<string, string>();
      const blockText = (phase: Phase, hashId: number, words: number) => {
        const key = `${stream(phase)}:${hashId}`;
        let text = blockTexts.get(key);
        if (text === undefined) {
          text = randomWords(createRng(seed, cell.name, stream(phase), "block", hashId), trace!.block_tokens);
          blockTexts.set(key, text);
        }
        return words >= trace!.block_tokens ? text : text.split(" ").slice(0, words).join(" ");
      };
      const pick = (index: number, phase: Phase): FileSession => {
        // A trace replays its sessions in its own order; a conversation file in a seeded order per block
        // of the file's length, as the single-turn file kinds do.
        if (trace !== null) return sessions[index % sessions.length]!;
        const block = Math.floor(index / sessions.length);
        const order = shuffledIndexes(
          createRng(seed, cell.name, stream(phase), "order", block),
          sessions.length,
        );
        return sessions[order[index % sessions.length]!]!;
      };
      return {
        arrivalsMs:
          trace === null
            ? null
            : (count) => traceArrivals(sessions, count).map((offset) => offset * trace.time_scale),
        session(index, phase) {
          const entry = pick(index, phase);
          const rng = createRng(seed, cell.name, stream(phase), "session", index);
          const limit =
            dataset.type === "sharegpt_sessions" && dataset.max_turns !== undefined
              ? dataset.max_turns
              : entry.turns.length;
          const fanOuts = planFanOuts(
            dataset.type === "sharegpt_sessions" ? dataset.fan_out : undefined,
            Math.min(limit, entry.turns.length),
            fanOutRng(phase, index),
            tokenModel,
          );
          const turns = entry.turns.slice(0, limit).map((turn, position): SessionTurn => {
            if (trace !== null) {
              const hashIds = turn.hashIds ?? [];
              const input = turn.inputTokens ?? 1;
              const parts: string[] = [];
              let left = input;
              for (const hashId of hashIds) {
                if (left <= 0) break;
                const words = Math.min(left, trace.block_tokens);
                parts.push(blockText(phase, hashId, words));
                left -= words;
              }
              if (left > 0) parts.push(randomWords(rng, left));
              const start = entry.turns[0]!.timestampMs ?? 0;
              return {
                content: parts.join(" "),
                messageTokens: null,
                maxTokens: turn.maxTokens ?? defaultOutputTokens,
                delayMs: 0,
                notBeforeMs: position === 0 ? null : ((turn.timestampMs ?? start) - start) * trace.time_scale,
                fanOut: null,
              };
            }
            const configured = dataset.type === "sharegpt_sessions" ? dataset.output_tokens : undefined;
            const maxTokens =
              configured !== undefined
                ? drawLength(configured, rng)
                : (turn.maxTokens ??
                  (turn.answer !== null
                    ? Math.max(1, Math.round(turn.answer.length / 4))
                    : defaultOutputTokens));
            const delayMs =
              position === 0 || dataset.type !== "sharegpt_sessions"
                ? 0
                : drawDelayMs(dataset.think_time_s, rng);
            return {
              content: turn.content,
              messageTokens: null,
              maxTokens,
              delayMs,
              notBeforeMs: null,
              fanOut: fanOuts[position]!,
            };
          });
          return {
            index,
            phase,
            system: entry.system,
            sharedSystem: false,
            systemTokens: null,
            context: trace === null ? "conversation" : "as-given",
            turns,
            tools: null,
          };
        },
      };
    }
  }
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
function sessionToolDefinitions(names: readonly string[]): ToolDefinition[] {
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
