import type { DatasetConfigOf } from "../../config/dataset-kinds.js";
import { createRng } from "../../util/random.js";
import { drawLength } from "../lengths.js";
import { randomWords } from "../text.js";
import { wordsForPrompt } from "../token-model.js";
import type { Workload } from "../workload-types.js";
import type { KindContext } from "./context.js";

// The synthetic kind: prompts of exact token counts drawn from its lengths, each of its own random words.

export function syntheticWorkload(
  dataset: DatasetConfigOf<"synthetic">,
  { cell, seed, tokenModel, info, shape, stream }: KindContext,
): Workload {
  return {
    info,
    sessions: null,
    request(index, phase = "measure") {
      const rng = createRng(seed, cell.name, stream(phase), index);
      const inputTokens = drawLength(dataset.input_tokens, rng);
      const maxTokens = drawLength(dataset.output_tokens, rng);
      const text = randomWords(rng, wordsForPrompt(tokenModel, inputTokens));
      return shape({ index, phase, targetInputTokens: inputTokens, maxTokens, prefixGroup: null }, text);
    },
  };
}
