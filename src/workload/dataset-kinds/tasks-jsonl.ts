import type { DatasetConfigOf } from "../../config/dataset-kinds.js";
import { createRng } from "../../util/random.js";
import { drawLength } from "../lengths.js";
import { shuffledIndexes } from "../text.js";
import type { Workload } from "../workload-types.js";
import type { KindContext } from "./context.js";

// The tasks_jsonl kind: the team's tasks from a JSONL file, request i asking line i mod the lines.

export function tasksJsonlWorkload(
  dataset: DatasetConfigOf<"tasks_jsonl">,
  { cell, seed, chat, file, info, shape, stream }: KindContext,
): Workload {
  if (!file) throw new Error(`cell ${cell.name}: the tasks file was not read before building the workload`);
  const entries = file.entries;
  return {
    info,
    sessions: null,
    request(index, phase = "measure") {
      // Task i is line i (mod the lines) on both sides; warm-up asks them in a seeded order of its own.
      const line =
        phase === "warmup"
          ? shuffledIndexes(createRng(seed, cell.name, "warmup", "order"), entries.length)[
              index % entries.length
            ]!
          : index % entries.length;
      const entry = entries[line]!;
      const rng = createRng(seed, cell.name, stream(phase), index);
      const maxTokens = entry.maxTokens ?? drawLength(dataset.output_tokens, rng);
      const text = entry.prompt ?? (entry.messages ?? []).map((message) => message.content).join("\n");
      const request = {
        ...shape({ index, phase, targetInputTokens: null, maxTokens, prefixGroup: null }, text),
      };
      if (chat && entry.messages !== null) request.messages = entry.messages;
      return { ...request, ...(entry.task !== undefined ? { task: entry.task } : {}) };
    },
  };
}
