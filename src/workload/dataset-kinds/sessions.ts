import type { DatasetConfigOf } from "../../config/dataset-kinds.js";
import { drawDelayMs } from "../delays.js";
import { drawLength } from "../lengths.js";
import type { Phase } from "../phase.js";
import {
  type SessionDraws,
  type SessionScript,
  type SessionSource,
  type SessionSourceOptions,
  type SessionTools,
  type SessionTurn,
  sessionDraws,
  sessionFanOuts,
  sessionToolDefinitions,
} from "../sessions.js";
import { randomWords } from "../text.js";
import { type TokenModel, wordsForPart, wordsForPrompt } from "../token-model.js";
import type { Workload } from "../workload-types.js";
import type { KindContext } from "./context.js";
import { sessionWorkload } from "./session-workload.js";

// Generated sessions (docs/workloads.md): each session a seeded script of turns, its system prompt,
// its tools and its fan-outs; request i is session i's first turn, the runner sends the rest.

type SessionsDataset = DatasetConfigOf<"sessions">;

export function generatedSessionsWorkload(
  dataset: SessionsDataset,
  { cell, seed, tokenModel, file, info }: KindContext,
): Workload {
  return sessionWorkload(
    info,
    generatedSessions(dataset, { draws: sessionDraws(seed, cell), tokenModel, file }),
  );
}

/** Session i of a phase: a pure function of the cell, its seed, the token model, i and the phase. */
function generatedSessions(dataset: SessionsDataset, options: SessionSourceOptions): SessionSource {
  const { draws, tokenModel } = options;
  const sharedSystem = sharedSystemPrompts(dataset, draws, tokenModel);
  return {
    arrivalsMs: null,
    session(index, phase): SessionScript {
      const rng = draws(phase, "session", index);
      const turnCount = drawLength(dataset.turns, rng);
      let system: string | null = null;
      let shared = false;
      if (dataset.system_prompt_tokens > 0) {
        shared = rng.next() < dataset.shared_system_prompt;
        system = shared
          ? sharedSystem(phase)
          : randomWords(rng, wordsForPrompt(tokenModel, dataset.system_prompt_tokens));
      }
      const fanOuts = sessionFanOuts(dataset.fan_out, turnCount, options, phase, index);
      const turns = Array.from({ length: turnCount }, (_, turn): SessionTurn => {
        const messageTokens = drawLength(dataset.message_tokens, rng);
        const maxTokens = drawLength(dataset.output_tokens, rng);
        const delayMs = turn === 0 ? 0 : drawDelayMs(dataset.think_time_s, rng);
        const content = randomWords(rng, wordsForPart(tokenModel, messageTokens));
        return { content, messageTokens, maxTokens, delayMs, notBeforeMs: null, fanOut: fanOuts[turn]! };
      });
      return {
        index,
        phase,
        system,
        sharedSystem: shared,
        systemTokens: system === null ? null : dataset.system_prompt_tokens,
        context: "conversation",
        turns,
        tools: dataset.tools === undefined ? null : mockedTools(dataset.tools, options, phase, index),
      };
    },
  };
}

/** The common system prompt of a phase's sessions (a prefix the server can cache across them), drawn once. */
function sharedSystemPrompts(
  dataset: SessionsDataset,
  draws: SessionDraws,
  tokenModel: TokenModel,
): (phase: Phase) => string {
  const texts = new Map<Phase, string>();
  return (phase) => {
    let text = texts.get(phase);
    if (text === undefined) {
      text = randomWords(draws(phase, "system"), wordsForPrompt(tokenModel, dataset.system_prompt_tokens));
      texts.set(phase, text);
    }
    return text;
  };
}

/** The mocked tools of one session: its seeded latencies and results, a branch's draws streams of their own. */
function mockedTools(
  tools: NonNullable<SessionsDataset["tools"]>,
  { draws, tokenModel }: SessionSourceOptions,
  phase: Phase,
  index: number,
): SessionTools {
  const branchKeys = (branch: number | undefined) => (branch === undefined ? [] : ["branch", branch]);
  return {
    names: tools.names,
    definitions: sessionToolDefinitions(tools.names),
    latencyMs: (turn, round, branch) =>
      drawDelayMs(tools.latency_s, draws(phase, "tool", index, turn, round, ...branchKeys(branch))),
    result: (turn, round, call, branch) => {
      const rng = draws(phase, "result", index, turn, round, call, ...branchKeys(branch));
      return randomWords(rng, wordsForPart(tokenModel, drawLength(tools.result_tokens, rng)));
    },
  };
}
