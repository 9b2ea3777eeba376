import { z } from "zod";
import { strictObject } from "../fields.js";
import { describeLength, lengthCeiling, lengthMean, lengthSchema } from "./fields.js";
import type { DatasetKindModule } from "./kind.js";

/** Generated prompts of exact token counts (lengths fixed or drawn from a distribution). */
const syntheticDataset = strictObject({
  type: z.literal("synthetic"),
  input_tokens: lengthSchema,
  output_tokens: lengthSchema,
});

export const syntheticKind = {
  schema: syntheticDataset,
  fileBacked: false,
  sessions: false,
  scoresAnswers: false,
  sharing: () => ({ kind: "none" }),
  promptTokensMean: (dataset) => lengthMean(dataset.input_tokens),
  outputTokensMean: (dataset) => lengthMean(dataset.output_tokens),
  promptTokensCeiling: (dataset) => lengthCeiling(dataset.input_tokens),
  describe: (dataset) =>
    `synthetic in ${describeLength(dataset.input_tokens)} / out ${describeLength(dataset.output_tokens)}`,
} as const satisfies DatasetKindModule<typeof syntheticDataset>;
