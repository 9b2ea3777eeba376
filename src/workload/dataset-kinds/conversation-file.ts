import type { DatasetConfigOf } from "../../config/dataset-kinds.js";
import type { Rng } from "../../util/random.js";
import type { FileSession } from "../dataset-file.js";
import { drawDelayMs } from "../delays.js";
import { drawLength } from "../lengths.js";
import {
  fileSessionScript,
  fileSessions,
  type SessionSource,
  type SessionSourceOptions,
  type SessionTurn,
  sessionDraws,
  sessionFanOuts,
} from "../sessions.js";
import { shuffledIndexes } from "../text.js";
import type { Workload } from "../workload-types.js";
import type { KindContext } from "./context.js";
import { sessionWorkload } from "./session-workload.js";

// Conversation files (sharegpt_sessions): every human turn of a conversation is a turn of its session,
// sent with the conversation so far (the server's answers, not the file's).

type ConversationDataset = DatasetConfigOf<"sharegpt_sessions">;

/** Answer length asked for a file turn without max_tokens, a configured length or a reply to estimate it from. */
const defaultOutputTokens = 128;

export function conversationFileWorkload(
  dataset: ConversationDataset,
  { cell, seed, tokenModel, file, info }: KindContext,
): Workload {
  const options = { draws: sessionDraws(seed, cell), tokenModel, file };
  return sessionWorkload(
    info,
    conversationSessions(dataset, fileSessions(cell, dataset.type, file), options),
  );
}

function conversationSessions(
  dataset: ConversationDataset,
  sessions: readonly FileSession[],
  options: SessionSourceOptions,
): SessionSource {
  const { draws } = options;
  return {
    arrivalsMs: null,
    session(index, phase) {
      // A seeded order per block of the file's length, as the single-turn file kinds do.
      const block = Math.floor(index / sessions.length);
      const order = shuffledIndexes(draws(phase, "order", block), sessions.length);
      const entry = sessions[order[index % sessions.length]!]!;
      const rng = draws(phase, "session", index);
      const limit = dataset.max_turns ?? entry.turns.length;
      const fanOuts = sessionFanOuts(
        dataset.fan_out,
        Math.min(limit, entry.turns.length),
        options,
        phase,
        index,
      );
      const turns = entry.turns.slice(0, limit).map(
        (turn, position): SessionTurn => ({
          content: turn.content,
          messageTokens: null,
          maxTokens: answerTokens(dataset, turn, rng),
          delayMs: position === 0 ? 0 : drawDelayMs(dataset.think_time_s, rng),
          notBeforeMs: null,
          fanOut: fanOuts[position]!,
        }),
      );
      return fileSessionScript(index, phase, entry, "conversation", turns);
    },
  };
}

/** A turn's max_tokens: the configured length, else the file's, else its reply's length (about 4 characters a token). */
function answerTokens(dataset: ConversationDataset, turn: FileSession["turns"][number], rng: Rng): number {
  if (dataset.output_tokens !== undefined) return drawLength(dataset.output_tokens, rng);
  return (
    turn.maxTokens ??
    (turn.answer !== null ? Math.max(1, Math.round(turn.answer.length / 4)) : defaultOutputTokens)
  );
}
