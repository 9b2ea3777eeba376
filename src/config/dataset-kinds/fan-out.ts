import { z } from "zod";
import { describeValue, fraction, positiveInt, strictObject } from "../fields.js";
import { atMost, configLimits } from "../limits.js";
import { describeLength, lengthSchema } from "./fields.js";

const branchCount = (what = "a number of branches (whole number >= 1)") =>
  positiveInt(what).max(
    configLimits.fanOutBranches,
    atMost(configLimits.fanOutBranches, "branches per fan-out"),
  );

const turnNumber = positiveInt("a turn number (1-based whole number >= 1)").max(
  configLimits.sessionTurns,
  atMost(configLimits.sessionTurns, "turns per session"),
);

/**
 * Sub-agent fan-out in a session (docs/workloads.md, Sub-agent fan-out): at the chosen turns the session
 * sends B branches at once instead of one request, each the conversation so far, the turn's message and a
 * message of its own; the session goes on once every branch answered, with their answers as the turn's.
 */
export const fanOutSchema = strictObject({
  turns: z
    .array(turnNumber)
    .min(1, "expected at least one turn number")
    .optional()
    .describe("The turns that fan out (1-based turn numbers); or give `share`."),
  share: fraction()
    .optional()
    .describe("Instead of `turns`: the chance that a turn fans out, drawn per turn from the session's seed."),
  branches: z
    .union(
      [
        branchCount("a number of branches (whole number >= 1) or { min, max }"),
        strictObject({ min: branchCount(), max: branchCount() }),
      ],
      {
        error: (issue) =>
          `expected a number of branches (whole number >= 1) or { min, max }, got ${describeValue(issue.input)}`,
      },
    )
    .describe("Branches per fan-out: a count, or { min, max } drawn uniformly per fan-out (at most 32)."),
  message_tokens: lengthSchema.describe("Tokens of each branch's own message (its task, after the turn's)."),
  output_tokens: lengthSchema.describe("max_tokens of each branch's answer."),
  tools: z
    .boolean()
    .default(false)
    .describe(
      "The branches declare the session's tools (dataset.tools) and take their own tool rounds; without it they declare none.",
    ),
}).superRefine((fanOut, context) => {
  if ((fanOut.turns === undefined) === (fanOut.share === undefined))
    context.addIssue({
      code: "custom",
      path: fanOut.turns === undefined ? [] : ["share"],
      message:
        fanOut.turns === undefined
          ? "expected `turns` (the turn numbers that fan out) or `share` (the chance a turn does), got neither"
          : "expected `turns` or `share`, not both",
    });
  if (fanOut.turns !== undefined) {
    const seen = new Set<number>();
    fanOut.turns.forEach((turn, index) => {
      if (seen.has(turn))
        context.addIssue({
          code: "custom",
          path: ["turns", index],
          message: `expected each turn number once, got ${turn} again`,
        });
      seen.add(turn);
    });
  }
  if (typeof fanOut.branches === "object" && fanOut.branches.min > fanOut.branches.max)
    context.addIssue({
      code: "custom",
      path: ["branches", "min"],
      message: `expected min <= max, got min ${fanOut.branches.min} > max ${fanOut.branches.max}`,
    });
});

export type FanOutConfig = z.output<typeof fanOutSchema>;

/** The most branches one fan-out of this config sends at once. */
export function mostBranches(fanOut: FanOutConfig): number {
  return typeof fanOut.branches === "number" ? fanOut.branches : fanOut.branches.max;
}

/** The mean branches per fan-out. */
export function meanBranches(fanOut: FanOutConfig): number {
  return typeof fanOut.branches === "number"
    ? fanOut.branches
    : (fanOut.branches.min + fanOut.branches.max) / 2;
}

/**
 * Requests one session of a dataset may have in flight at once: a fan-out's branches, else 1. The client's
 * connections are sized by it (a session's branches must not wait for one another's connection).
 */
export function requestsPerSessionInFlight(dataset: {
  type: string;
  fan_out?: FanOutConfig | undefined;
}): number {
  return dataset.fan_out === undefined ? 1 : mostBranches(dataset.fan_out);
}

/** The fan-out's part of a cell's `validate` line. */
export function describeFanOut(fanOut: FanOutConfig): string {
  const where =
    fanOut.turns !== undefined
      ? `at turn${fanOut.turns.length > 1 ? "s" : ""} ${fanOut.turns.join(", ")}`
      : `at ${typeof fanOut.share === "number" ? `${Math.round(fanOut.share * 100)}%` : fanOut.share} of turns`;
  // The template view may hold a `${VAR}` template where a number was: shown as written.
  const branches =
    typeof fanOut.branches === "object"
      ? `${fanOut.branches.min}-${fanOut.branches.max}`
      : String(fanOut.branches);
  return `, fan-out ${where} to ${branches} branches (message ${describeLength(fanOut.message_tokens)} / out ${describeLength(fanOut.output_tokens)}${fanOut.tools ? ", with tools" : ""})`;
}

/**
 * What a fan-out config asks that the rest of its cell cannot give (paths from the dataset): a turn
 * number beyond the session's turns, tool rounds without tools, more requests in flight than the limit.
 */
export function fanOutProblems(
  fanOut: FanOutConfig,
  cell: {
    mostTurns: number | null;
    hasTools: boolean;
    sessionsInFlight: number | null;
    turnsField: string;
  },
): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  const { mostTurns } = cell;
  if (mostTurns !== null)
    fanOut.turns?.forEach((turn, index) => {
      if (turn > mostTurns)
        problems.push({
          path: ["fan_out", "turns", index],
          message: `expected a turn number within the session's turns (at most ${mostTurns}, ${cell.turnsField}), got ${turn}`,
        });
    });
  if (fanOut.tools && !cell.hasTools)
    problems.push({
      path: ["fan_out", "tools"],
      message: "expected tools declared in dataset.tools for the branches' tool rounds, got none",
    });
  const inFlight = cell.sessionsInFlight === null ? null : cell.sessionsInFlight * mostBranches(fanOut);
  if (inFlight !== null && inFlight > configLimits.concurrency)
    problems.push({
      path: ["fan_out", "branches"],
      message: `expected at most ${configLimits.concurrency} requests in flight (the limit on concurrency; see docs/config-reference.md#limits), got up to ${inFlight} (${cell.sessionsInFlight} sessions x ${mostBranches(fanOut)} branches)`,
    });
  return problems;
}
