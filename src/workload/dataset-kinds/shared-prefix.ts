import type { DatasetConfigOf } from "../../config/dataset-kinds.js";
import { createRng } from "../../util/random.js";
import { drawLength } from "../lengths.js";
import type { Phase } from "../phase.js";
import { randomWords, shuffledIndexes } from "../text.js";
import { wordsForPart, wordsForPrompt } from "../token-model.js";
import type { Workload } from "../workload-types.js";
import type { KindContext } from "./context.js";

// The shared_prefix and long_document kinds: prompts in balanced groups that share a prefix (a document), then a part of their own.

export function sharedPrefixWorkload(
  dataset: DatasetConfigOf<"shared_prefix" | "long_document">,
  { cell, seed, tokenModel, info, shape, stream }: KindContext,
): Workload {
  const groups = dataset.type === "shared_prefix" ? dataset.num_prefixes : dataset.num_documents;
  const sharedTokens = dataset.type === "shared_prefix" ? dataset.prefix_tokens : dataset.document_tokens;
  const partLength = dataset.type === "shared_prefix" ? dataset.suffix_tokens : dataset.question_tokens;
  const sharedWords = wordsForPrompt(tokenModel, sharedTokens);
  const sharedTexts = new Map<string, string>();
  const sharedText = (phase: Phase, group: number) => {
    const key = `${stream(phase)}:${group}`;
    let text = sharedTexts.get(key);
    if (text === undefined) {
      text = randomWords(createRng(seed, cell.name, stream(phase), "shared", group), sharedWords);
      sharedTexts.set(key, text);
    }
    return text;
  };
  return {
    info,
    sessions: null,
    request(index, phase = "measure") {
      // Balanced groups: every block of `groups` consecutive requests visits each group once, in a
      // seeded order, so any run size sees the prefixes equally often.
      const block = Math.floor(index / groups);
      const order = shuffledIndexes(createRng(seed, cell.name, stream(phase), "order", block), groups);
      const group = order[index % groups]!;
      const rng = createRng(seed, cell.name, stream(phase), index);
      const partTokens = drawLength(partLength, rng);
      const maxTokens = drawLength(dataset.output_tokens, rng);
      const text = `${sharedText(phase, group)} ${randomWords(rng, wordsForPart(tokenModel, partTokens))}`;
      return shape(
        { index, phase, targetInputTokens: sharedTokens + partTokens, maxTokens, prefixGroup: group },
        text,
      );
    },
  };
}
