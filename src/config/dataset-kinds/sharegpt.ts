import { z } from "zod";
import { nonEmptyString, strictObject } from "../fields.js";
import { assumedTokens, fileSharing, lengthSchema, meanOrAssumed, tokenCount } from "./fields.js";
import type { DatasetKindModule } from "./kind.js";

/** Conversations of a ShareGPT JSON file: the first human turn of each is a prompt. */
const sharegptDataset = strictObject({
  type: z.literal("sharegpt"),
  path: nonEmptyString("a path to a ShareGPT JSON file"),
  output_tokens: lengthSchema.optional().describe("Override the dataset's own answer lengths."),
  max_input_tokens: tokenCount().optional().describe("Skip conversations whose prompt is longer."),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "expected a 64-character hex sha256")
    .optional()
    .describe("Expected checksum; the run fails when the file differs."),
});

export const sharegptKind = {
  schema: sharegptDataset,
  fileBacked: true,
  sessions: false,
  scoresAnswers: false,
  describe: (dataset) => `ShareGPT ${dataset.path}`,
  sharing: () => ({ kind: "unknown", why: fileSharing }),
  promptTokensMean: () => assumedTokens,
  outputTokensMean: (dataset) => meanOrAssumed(dataset.output_tokens),
  promptTokensCeiling: () => null,
} as const satisfies DatasetKindModule<typeof sharegptDataset>;
