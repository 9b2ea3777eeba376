import { z } from "zod";
import { nonEmptyString, positiveInt, strictObject } from "../fields.js";
import { atMost, configLimits } from "../limits.js";
import { describeFanOut, fanOutProblems, fanOutSchema } from "./fan-out.js";
import {
  assumedFileSessionTurns,
  assumedTokens,
  delayMean,
  delaySchema,
  describeDelay,
  lengthSchema,
  meanOrAssumed,
} from "./fields.js";
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
  fan_out: fanOutSchema.optional(),
});

export const sharegptSessionsKind = {
  schema: sharegptSessionsDataset,
  fileBacked: true,
  sessions: true,
  scoresAnswers: false,
  describe: (dataset) =>
    `ShareGPT sessions ${dataset.path}${dataset.max_turns ? ` (at most ${dataset.max_turns} turns)` : ""}, think ${describeDelay(dataset.think_time_s)}${dataset.fan_out ? describeFanOut(dataset.fan_out) : ""}`,
  sharing: () => ({ kind: "conversation", firstTurnTokens: 0 }),
  sessionShape: (dataset) => ({
    turns: Math.min(assumedFileSessionTurns, dataset.max_turns ?? assumedFileSessionTurns),
    thinkSeconds: delayMean(dataset.think_time_s),
    toolLatencySeconds: null,
    fanOut: dataset.fan_out,
  }),
  promptTokensMean: () => assumedTokens,
  outputTokensMean: (dataset) => meanOrAssumed(dataset.output_tokens),
  promptTokensCeiling: () => null,
  problems: (dataset, cell) =>
    dataset.fan_out === undefined
      ? []
      : fanOutProblems(dataset.fan_out, {
          mostTurns: dataset.max_turns ?? null,
          turnsField: "dataset.max_turns",
          hasTools: false,
          sessionsInFlight: cell.sessionsInFlight,
        }),
} as const satisfies DatasetKindModule<typeof sharegptSessionsDataset>;
