import { z } from "zod";
import { positiveInt, strictObject } from "../fields.js";
import { atMost, configLimits } from "../limits.js";
import { assumedTokens, describeLength, lengthMean, lengthSchema } from "./fields.js";
import type { DatasetKindModule } from "./kind.js";

/**
 * The built-in task set (docs/quality.md): arithmetic and number-word questions made from the seed, each
 * exactly checkable. A tasks cell's requests are sent greedy (temperature 0, ignore_eos false) and its
 * answers scored per prompt for the task-accuracy check.
 */
const tasksDataset = strictObject({
  type: z.literal("tasks"),
  count: positiveInt()
    .max(configLimits.datasetItems, atMost(configLimits.datasetItems, "generated dataset items"))
    .default(500)
    .describe("Distinct tasks; request i asks task i mod count."),
  kinds: z
    .array(z.enum(["arithmetic", "number_words"]))
    .min(1, "expected at least one task kind")
    .default(["arithmetic", "number_words"])
    .describe("Task kinds, taken in turn."),
  output_tokens: lengthSchema.default(24).describe("max_tokens of an answer."),
});

export const tasksKind = {
  schema: tasksDataset,
  fileBacked: false,
  sessions: false,
  scoresAnswers: true,
  describe: (dataset) =>
    `${dataset.count} built-in tasks (${dataset.kinds.join(", ")}) / out ${describeLength(dataset.output_tokens)}, scored`,
  // Request i asks task i mod count: past `count`, the prompts repeat.
  sharing: (dataset) => ({ kind: "repeats", every: dataset.count }),
  // A task's question is a few words: not bounded per run, and estimated as any unread prompt.
  promptTokensMean: () => assumedTokens,
  outputTokensMean: (dataset) => lengthMean(dataset.output_tokens),
  promptTokensCeiling: () => null,
} as const satisfies DatasetKindModule<typeof tasksDataset>;
