import { z } from "zod";
import { fraction, strictObject } from "../fields.js";
import { atMost, configLimits } from "../limits.js";
import { delaySchema, describeDelay, describeLength, lengthSchema } from "./fields.js";
import type { DatasetKindModule } from "./kind.js";

/**
 * Tool-call turns of a session (docs/workloads.md): the tools the requests declare; when an answer is a
 * tool call, the client answers it with a mocked tool result of `result_tokens` after `latency_s`.
 */
const sessionToolsSchema = strictObject({
  names: z
    .array(
      z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "expected a function name of letters, digits, '_' or '-'"),
    )
    .min(1, "expected at least one tool name")
    .max(32, "expected at most 32 tools (the limit on tools per session; see docs/workloads.md)")
    .describe("Function names declared in every request's `tools` (each takes one string argument)."),
  latency_s: delaySchema.default(0).describe("The mocked tool's latency before its result is sent."),
  result_tokens: lengthSchema.default(64).describe("Length of the mocked tool result."),
});

/**
 * Generated sessions (docs/workloads.md): each session a seeded number of turns; turn k sends the whole
 * conversation so far (the server's own answers included) and one new user message.
 */
const sessionsDataset = strictObject({
  type: z.literal("sessions"),
  turns: lengthSchema.describe("Turns per session (a count or a distribution, at most 256)."),
  message_tokens: lengthSchema.describe("Tokens of each new user message."),
  output_tokens: lengthSchema.describe("max_tokens of each answer."),
  system_prompt_tokens: z
    .number()
    .int()
    .min(0)
    .max(configLimits.tokens, atMost(configLimits.tokens, "token counts"))
    .default(0)
    .describe("Tokens of the system prompt each session starts with (0: none)."),
  shared_system_prompt: fraction()
    .default(1)
    .describe(
      "Share of sessions whose system prompt is the common one (a prefix the server can cache across sessions); the others get one of their own, of the same length.",
    ),
  think_time_s: delaySchema.default(0),
  tools: sessionToolsSchema.optional(),
});

export const sessionsKind = {
  schema: sessionsDataset,
  fileBacked: false,
  sessions: true,
  scoresAnswers: false,
  describe: (dataset) =>
    `sessions of ${describeLength(dataset.turns)} turns, message ${describeLength(dataset.message_tokens)} / out ${describeLength(dataset.output_tokens)}${dataset.system_prompt_tokens > 0 ? `, system prompt ${dataset.system_prompt_tokens}` : ""}, think ${describeDelay(dataset.think_time_s)}${dataset.tools ? `, tools ${dataset.tools.names.join(", ")}` : ""}`,
  // The common system prompt and its role token, where sessions share one.
  sharing: (dataset) => ({
    kind: "conversation",
    firstTurnTokens:
      dataset.shared_system_prompt > 0 && dataset.system_prompt_tokens > 0
        ? dataset.system_prompt_tokens + 1
        : 0,
  }),
} as const satisfies DatasetKindModule<typeof sessionsDataset>;
