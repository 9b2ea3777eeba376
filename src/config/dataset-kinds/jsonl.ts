import { z } from "zod";
import { nonEmptyString, strictObject } from "../fields.js";
import { assumedTokens, fileSharing, lengthSchema, meanOrAssumed } from "./fields.js";
import type { DatasetKindModule } from "./kind.js";

/** Prompts (or messages) of a JSONL file, one request a line. */
const jsonlDataset = strictObject({
  type: z.literal("jsonl"),
  path: nonEmptyString("a path to a JSONL file"),
  output_tokens: lengthSchema.optional().describe("Used for lines without max_tokens."),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "expected a 64-character hex sha256")
    .optional(),
});

export const jsonlKind = {
  schema: jsonlDataset,
  fileBacked: true,
  sessions: false,
  scoresAnswers: false,
  describe: (dataset) => `JSONL ${dataset.path}`,
  sharing: () => ({ kind: "unknown", why: fileSharing }),
  promptTokensMean: () => assumedTokens,
  outputTokensMean: (dataset) => meanOrAssumed(dataset.output_tokens),
  promptTokensCeiling: () => null,
} as const satisfies DatasetKindModule<typeof jsonlDataset>;
