import type { TraceDatasetConfig } from "../../config/dataset-kinds.js";
import type { Rng } from "../../util/random.js";
import type { FileSession } from "../dataset-file.js";
import type { Phase } from "../phase.js";
import {
  fileSessionScript,
  fileSessions,
  type SessionDraws,
  type SessionSource,
  type SessionTurn,
  sessionDraws,
  traceArrivals,
} from "../sessions.js";
import { randomWords } from "../text.js";
import type { Workload } from "../workload-types.js";
import type { KindContext } from "./context.js";
import { sessionWorkload } from "./session-workload.js";

// The trace kinds (docs/workloads.md, "Traces"): sessions replayed in the trace's order on its own clock
// (times time_scale), each row's prompt as given: its prefix blocks (equal hash ids, equal text) and
// seeded words for the rest of its length.

/** Answer length asked for a trace row without an output length. */
const defaultOutputTokens = 128;

export function traceWorkload(
  dataset: TraceDatasetConfig,
  { cell, seed, file, info }: KindContext,
): Workload {
  return sessionWorkload(
    info,
    traceSessions(dataset, fileSessions(cell, dataset.type, file), sessionDraws(seed, cell)),
  );
}

function traceSessions(
  dataset: TraceDatasetConfig,
  sessions: readonly FileSession[],
  draws: SessionDraws,
): SessionSource {
  const blockText = prefixBlocks(dataset, draws);
  return {
    arrivalsMs: (count) => traceArrivals(sessions, count).map((offset) => offset * dataset.time_scale),
    session(index, phase) {
      const entry = sessions[index % sessions.length]!;
      const rng = draws(phase, "session", index);
      const start = entry.turns[0]!.timestampMs ?? 0;
      const turns = entry.turns.map(
        (turn, position): SessionTurn => ({
          content: promptOf(
            turn,
            dataset.block_tokens,
            (hashId, words) => blockText(phase, hashId, words),
            rng,
          ),
          messageTokens: null,
          maxTokens: turn.maxTokens ?? defaultOutputTokens,
          delayMs: 0,
          notBeforeMs: position === 0 ? null : ((turn.timestampMs ?? start) - start) * dataset.time_scale,
          fanOut: null,
        }),
      );
      return fileSessionScript(index, phase, entry, "as-given", turns);
    },
  };
}

/** A row's prompt: the text of each of its prefix blocks, then seeded words for the rest of its length. */
function promptOf(
  turn: FileSession["turns"][number],
  blockTokens: number,
  blockText: (hashId: number, words: number) => string,
  rng: Rng,
): string {
  const parts: string[] = [];
  let left = turn.inputTokens ?? 1;
  for (const hashId of turn.hashIds ?? []) {
    if (left <= 0) break;
    const words = Math.min(left, blockTokens);
    parts.push(blockText(hashId, words));
    left -= words;
  }
  if (left > 0) parts.push(randomWords(rng, left));
  return parts.join(" ");
}

/** One text per prefix-hash id and phase, drawn once: equal ids are equal text, so the server can cache them. */
function prefixBlocks(
  dataset: TraceDatasetConfig,
  draws: SessionDraws,
): (phase: Phase, hashId: number, words: number) => string {
  const texts = new Map<string, string>();
  return (phase, hashId, words) => {
    const key = `${phase}:${hashId}`;
    let text = texts.get(key);
    if (text === undefined) {
      text = randomWords(draws(phase, "block", hashId), dataset.block_tokens);
      texts.set(key, text);
    }
    return words >= dataset.block_tokens ? text : text.split(" ").slice(0, words).join(" ");
  };
}
