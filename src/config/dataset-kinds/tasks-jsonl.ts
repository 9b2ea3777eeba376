import { z } from "zod";
import { nonEmptyString, strictObject } from "../fields.js";
import { assumedTokens, describeLength, fileSharing, lengthMean, lengthSchema } from "./fields.js";
import type { DatasetKindModule } from "./kind.js";

/**
 * The team's own tasks: a JSONL file, one task a line: `prompt` (or `messages`), `reference`, and optionally
 * `scorer` (exact, contains, regex, numeric; default exact), `pattern` (regex) and `tolerance` (numeric).
 */
const tasksJsonlDataset = strictObject({
  type: z.literal("tasks_jsonl"),
  path: nonEmptyString("a path to a JSONL file of tasks"),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "expected a 64-character hex sha256")
    .optional(),
  output_tokens: lengthSchema.default(24).describe("max_tokens of an answer (a line's max_tokens wins)."),
});

export const tasksJsonlKind = {
  schema: tasksJsonlDataset,
  fileBacked: true,
  sessions: false,
  scoresAnswers: true,
  describe: (dataset) => `tasks JSONL ${dataset.path} / out ${describeLength(dataset.output_tokens)}, scored`,
  sharing: () => ({ kind: "unknown", why: fileSharing }),
  promptTokensMean: () => assumedTokens,
  outputTokensMean: (dataset) => lengthMean(dataset.output_tokens),
  promptTokensCeiling: () => null,
} as const satisfies DatasetKindModule<typeof tasksJsonlDataset>;
