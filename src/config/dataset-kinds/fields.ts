import { z } from "zod";
import {
  choice,
  describeValue,
  nonNegativeNumber,
  positiveInt,
  positiveNumber,
  strictObject,
} from "../fields.js";
import { atMost, configLimits } from "../limits.js";

// The fields the dataset kinds' schema branches share (each kind's module in this folder uses them).

export const tokenCount = (what?: string) =>
  positiveInt(what).max(configLimits.tokens, atMost(configLimits.tokens, "token counts"));
const fixedLength = strictObject({ distribution: z.literal("fixed"), value: tokenCount() });
const uniformLength = strictObject({
  distribution: z.literal("uniform"),
  min: tokenCount(),
  max: tokenCount(),
});
const normalLength = strictObject({
  distribution: z.literal("normal"),
  mean: positiveNumber().max(configLimits.tokens, atMost(configLimits.tokens, "token counts")),
  sd: nonNegativeNumber().max(configLimits.tokens, atMost(configLimits.tokens, "token counts")),
  min: tokenCount().default(1),
  max: tokenCount().optional(),
});
const lognormalLength = strictObject({
  distribution: z.literal("lognormal"),
  median: positiveNumber().max(configLimits.tokens, atMost(configLimits.tokens, "token counts")),
  sigma: nonNegativeNumber().max(
    configLimits.lognormalSigma,
    atMost(configLimits.lognormalSigma, "a lognormal sigma"),
  ),
  min: tokenCount().default(1),
  max: tokenCount().optional(),
});

export const lengthSchema = z
  .union(
    [
      tokenCount("a token count (whole number >= 1) or a distribution mapping"),
      choice(
        "distribution",
        [fixedLength, uniformLength, normalLength, lognormalLength],
        ["fixed", "uniform", "normal", "lognormal"],
      ),
    ],
    {
      error: (issue) =>
        `expected a token count (whole number >= 1) or a distribution mapping, got ${describeValue(issue.input)}`,
    },
  )
  .describe(
    "A token count, or a distribution: fixed, uniform (min..max), normal (mean, sd) or lognormal (median, sigma), clipped to [min, max].",
  );

const delaySeconds = (what = "a number of seconds >= 0") =>
  nonNegativeNumber(what).max(
    configLimits.turnDelaySeconds,
    atMost(configLimits.turnDelaySeconds, "the delay between two turns"),
  );

/**
 * The wait between two turns of a session (a user's think time, a tool's latency), in seconds: a fixed
 * number, or a distribution drawn from the session's seed: fixed, uniform (min..max), exponential (mean)
 * or lognormal (median, sigma), clipped to `max` when given.
 */
export const delaySchema = z
  .union(
    [
      delaySeconds("a number of seconds >= 0 or a distribution mapping"),
      choice(
        "distribution",
        [
          strictObject({ distribution: z.literal("fixed"), value: delaySeconds() }),
          strictObject({ distribution: z.literal("uniform"), min: delaySeconds(), max: delaySeconds() }),
          strictObject({
            distribution: z.literal("exponential"),
            mean: delaySeconds(),
            max: delaySeconds().optional(),
          }),
          strictObject({
            distribution: z.literal("lognormal"),
            median: delaySeconds(),
            sigma: nonNegativeNumber().max(
              configLimits.lognormalSigma,
              atMost(configLimits.lognormalSigma, "a lognormal sigma"),
            ),
            max: delaySeconds().optional(),
          }),
        ],
        ["fixed", "uniform", "exponential", "lognormal"],
      ),
    ],
    {
      error: (issue) =>
        `expected a number of seconds >= 0 or a distribution mapping, got ${describeValue(issue.input)}`,
    },
  )
  .describe(
    "Seconds between the end of one turn and the next request of its session: a number, or a distribution (fixed, uniform min..max, exponential mean, lognormal median and sigma), drawn from the session's seed.",
  );

export type LengthConfig = z.output<typeof lengthSchema>;
export type DelayConfig = z.output<typeof delaySchema>;

export function describeLength(length: LengthConfig): string {
  // A template (a value from `${VAR}` in the printed view) is shown as written.
  if (typeof length !== "object") return String(length);
  switch (length.distribution) {
    case "fixed":
      return String(length.value);
    case "uniform":
      return `${length.min}-${length.max}`;
    case "normal":
      return `normal(${length.mean}, sd ${length.sd})`;
    case "lognormal":
      return `lognormal(median ${length.median}, sigma ${length.sigma})`;
  }
}

export function describeDelay(delay: DelayConfig): string {
  if (typeof delay !== "object") return `${delay} s`;
  switch (delay.distribution) {
    case "fixed":
      return `${delay.value} s`;
    case "uniform":
      return `${delay.min}-${delay.max} s`;
    case "exponential":
      return `exponential(mean ${delay.mean} s)`;
    case "lognormal":
      return `lognormal(median ${delay.median} s, sigma ${delay.sigma})`;
  }
}

/** Why a file's prompts have no designed sharing the client knows: the cache check cannot run on them. */
export const fileSharing =
  "a file's prompts may share prefixes (a common system prompt, repeated entries), which the client does not count";
