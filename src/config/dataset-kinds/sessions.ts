import { z } from "zod";
import { fraction, type KindProblem, strictObject } from "../fields.js";
import { atMost, configLimits } from "../limits.js";
import { describeFanOut, fanOutProblems, fanOutSchema, mostBranches } from "./fan-out.js";
import {
  assumedTokens,
  delayMean,
  delaySchema,
  describeDelay,
  describeLength,
  lengthCeiling,
  lengthMean,
  lengthSchema,
} from "./fields.js";
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
  fan_out: fanOutSchema.optional(),
});

type SessionsDataset = z.output<typeof sessionsDataset>;

/**
 * What a generated session asks that its cell cannot give: a fan-out beyond its turns or without its
 * tools, more turns than configLimits.sessionTurns, a deepest context beyond the token limit.
 */
function sessionsProblems(
  dataset: SessionsDataset,
  cell: { sessionsInFlight: number | null },
): KindProblem[] {
  const fanOut = dataset.fan_out;
  const turns = lengthCeiling(dataset.turns);
  const problems: KindProblem[] =
    fanOut === undefined
      ? []
      : fanOutProblems(fanOut, {
          mostTurns: turns,
          turnsField: "dataset.turns",
          hasTools: dataset.tools !== undefined,
          sessionsInFlight: cell.sessionsInFlight,
        });
  if (turns > configLimits.sessionTurns)
    problems.push({
      path: ["turns"],
      message: `expected at most ${configLimits.sessionTurns} turns (the limit on turns per session; see docs/config-reference.md#limits), got up to ${turns}`,
    });
  const deepest = deepestContext(dataset, turns);
  if (deepest > configLimits.tokens)
    problems.push({
      path: [],
      message: `expected a deepest context of at most ${configLimits.tokens} tokens (the limit on token counts; see docs/config-reference.md#limits), got up to ${deepest} (system prompt + turns x (message + answer)${fanOut === undefined ? "" : ", a fan-out turn's answer its branches' answers"})`,
    });
  return problems;
}

/** The most tokens a session's last request carries: system prompt + turns x (message + answer). */
function deepestContext(dataset: SessionsDataset, turns: number): number {
  const fanOut = dataset.fan_out;
  // A fan-out turn's answer is its branches' answers together, and its last branch adds a message.
  const fanOutTurns =
    fanOut === undefined ? 0 : Math.min(turns, fanOut.turns?.filter((turn) => turn <= turns).length ?? turns);
  const branchAnswers = fanOut === undefined ? 0 : mostBranches(fanOut) * lengthCeiling(fanOut.output_tokens);
  return (
    dataset.system_prompt_tokens +
    turns * lengthCeiling(dataset.message_tokens) +
    (turns - fanOutTurns) * lengthCeiling(dataset.output_tokens) +
    fanOutTurns * branchAnswers +
    (fanOut === undefined ? 0 : lengthCeiling(fanOut.message_tokens))
  );
}

export const sessionsKind = {
  schema: sessionsDataset,
  fileBacked: false,
  sessions: true,
  scoresAnswers: false,
  describe: (dataset) =>
    `sessions of ${describeLength(dataset.turns)} turns, message ${describeLength(dataset.message_tokens)} / out ${describeLength(dataset.output_tokens)}${dataset.system_prompt_tokens > 0 ? `, system prompt ${dataset.system_prompt_tokens}` : ""}, think ${describeDelay(dataset.think_time_s)}${dataset.tools ? `, tools ${dataset.tools.names.join(", ")}` : ""}${dataset.fan_out ? describeFanOut(dataset.fan_out) : ""}`,
  // The common system prompt and its role token, where sessions share one.
  sharing: (dataset) => ({
    kind: "conversation",
    firstTurnTokens:
      dataset.shared_system_prompt > 0 && dataset.system_prompt_tokens > 0
        ? dataset.system_prompt_tokens + 1
        : 0,
  }),
  sessionShape: (dataset) => ({
    turns: lengthMean(dataset.turns),
    thinkSeconds: delayMean(dataset.think_time_s),
    toolLatencySeconds: dataset.tools ? delayMean(dataset.tools.latency_s) : null,
    fanOut: dataset.fan_out,
  }),
  // Its prompts are the conversation so far: bounded by `problems` (the deepest context), not per request.
  promptTokensMean: () => assumedTokens,
  outputTokensMean: (dataset) => lengthMean(dataset.output_tokens),
  promptTokensCeiling: () => null,
  problems: sessionsProblems,
} as const satisfies DatasetKindModule<typeof sessionsDataset>;
