import { z } from "zod";
import { positiveInt, strictObject } from "../fields.js";
import { atMost, configLimits } from "../limits.js";
import { describeLength, lengthCeiling, lengthMean, lengthSchema, tokenCount } from "./fields.js";
import type { DatasetKindModule } from "./kind.js";

/** Generated prompts in groups that share a prefix (the server's prefix cache). */
const sharedPrefixDataset = strictObject({
  type: z.literal("shared_prefix"),
  num_prefixes: positiveInt().max(
    configLimits.datasetItems,
    atMost(configLimits.datasetItems, "generated dataset items"),
  ),
  prefix_tokens: tokenCount(),
  suffix_tokens: lengthSchema,
  output_tokens: lengthSchema,
});

export const sharedPrefixKind = {
  schema: sharedPrefixDataset,
  fileBacked: false,
  sessions: false,
  scoresAnswers: false,
  describe: (dataset) =>
    `${dataset.num_prefixes} prefixes x ${dataset.prefix_tokens} + ${describeLength(dataset.suffix_tokens)} / out ${describeLength(dataset.output_tokens)}`,
  // A group's requests after its first find its prefix cached.
  sharing: (dataset) => ({ kind: "groups", tokens: dataset.prefix_tokens }),
  promptTokensMean: (dataset) => dataset.prefix_tokens + lengthMean(dataset.suffix_tokens),
  outputTokensMean: (dataset) => lengthMean(dataset.output_tokens),
  promptTokensCeiling: (dataset) => dataset.prefix_tokens + lengthCeiling(dataset.suffix_tokens),
} as const satisfies DatasetKindModule<typeof sharedPrefixDataset>;
