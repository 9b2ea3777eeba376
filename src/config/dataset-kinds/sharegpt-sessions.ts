import { z } from "zod";
import { nonEmptyString, positiveInt, strictObject } from "../fields.js";
import { atMost, configLimits } from "../limits.js";
import { delaySchema, describeDelay, lengthSchema } from "./fields.js";
import type { DatasetKindModule } from "./kind.js";

const turnsCount = positiveInt("a number of turns (whole number >= 1)").max(
  configLimits.sessionTurns,
  atMost(configLimits.sessionTurns, "turns per session"),
);

/**
 * ShareGPT-style multi-turn conversations (docs/workloads.md): every human turn of a conversation is a
 * turn of its session, sent with the conversation so far (the server's answers, not the file's).
 */
const sharegptSessionsDataset = strictObject({
  type: z.literal("sharegpt_sessions"),
  path: nonEmptyString("a path to a ShareGPT JSON file"),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "expected a 64-character hex sha256")
    .optional()
    .describe("Expected checksum; the run fails when the file differs."),
  output_tokens: lengthSchema.optional().describe("Override the answer lengths the file's answers give."),
  max_turns: turnsCount.optional().describe("Use at most this many turns of each conversation."),
  think_time_s: delaySchema.default(0),
});

export const sharegptSessionsKind = {
  schema: sharegptSessionsDataset,
  fileBacked: true,
  sessions: true,
  scoresAnswers: false,
  describe: (dataset) =>
    `ShareGPT sessions ${dataset.path}${dataset.max_turns ? ` (at most ${dataset.max_turns} turns)` : ""}, think ${describeDelay(dataset.think_time_s)}`,
  sharing: () => ({ kind: "conversation", firstTurnTokens: 0 }),
} as const satisfies DatasetKindModule<typeof sharegptSessionsDataset>;
