import type { DatasetConfigOf } from "../../config/dataset-kinds.js";
import type { LengthConfig } from "../../config/schema.js";
import { createRng, type Rng } from "../../util/random.js";
import type { DatasetEntry } from "../dataset-file.js";
import { drawLength } from "../lengths.js";
import { messagesAsPrompt } from "../request-body.js";
import { shuffledIndexes } from "../text.js";
import type { Workload } from "../workload-types.js";
import type { KindContext } from "./context.js";

// The sharegpt and jsonl kinds: the prompts of the file, in a seeded order per block of the entries.

/** Fallback answer length when a ShareGPT entry has neither max_tokens nor a configured output length. */
const defaultOutputTokens = 128;

export function fileWorkload(
  dataset: DatasetConfigOf<"sharegpt" | "jsonl">,
  { cell, seed, chat, file, info, stream }: KindContext,
): Workload {
  if (!file)
    throw new Error(
      `cell ${cell.name}: the ${dataset.type} dataset was not read before building the workload`,
    );
  const entries = file.entries;
  return {
    info,
    sessions: null,
    request(index, phase = "measure") {
      const block = Math.floor(index / entries.length);
      const order = shuffledIndexes(
        createRng(seed, cell.name, stream(phase), "order", block),
        entries.length,
      );
      const entry = entries[order[index % entries.length]!]!;
      const rng = createRng(seed, cell.name, stream(phase), index);
      const maxTokens = entryMaxTokens(entry, dataset.output_tokens, rng);
      const request = { index, phase, targetInputTokens: null, maxTokens, prefixGroup: null };
      if (chat) {
        return {
          ...request,
          prompt: null,
          messages: entry.messages ?? [{ role: "user", content: entry.prompt ?? "" }],
        };
      }
      return {
        ...request,
        prompt: entry.prompt ?? messagesAsPrompt(entry.messages ?? []),
        messages: null,
      };
    },
  };
}

function entryMaxTokens(entry: DatasetEntry, configured: LengthConfig | undefined, rng: Rng): number {
  if (configured !== undefined) return drawLength(configured, rng);
  if (entry.maxTokens !== null) return entry.maxTokens;
  // Without a tokenizer, ~4 characters per token (documented in docs/run.md); vLLM's client re-tokenizes.
  if (entry.answer !== null) return Math.max(1, Math.round(entry.answer.length / 4));
  return defaultOutputTokens;
}
