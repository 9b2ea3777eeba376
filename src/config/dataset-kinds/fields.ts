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

/** The mean of a length (a lognormal's e^(σ²/2)·median, its clipping aside), for validate's estimates. */
export function lengthMean(length: LengthConfig): number {
  if (typeof length === "number") return length;
  switch (length.distribution) {
    case "fixed":
      return length.value;
    case "uniform":
      return (length.min + length.max) / 2;
    case "normal":
      return length.mean;
    case "lognormal":
      return length.median * Math.exp((length.sigma * length.sigma) / 2);
  }
}

/** The largest (or, for an unbounded distribution, typical) value of a length, for the config's limits. */
export function lengthCeiling(length: LengthConfig): number {
  if (typeof length === "number") return length;
  switch (length.distribution) {
    case "fixed":
      return length.value;
    case "uniform":
      return Math.max(length.min, length.max);
    case "normal":
      return length.max ?? length.mean;
    case "lognormal":
      return length.max ?? length.median;
  }
}

/**
 * The mean of a delay in seconds (think time, tool latency): an exponential clipped at `max` has mean
 * mean·(1 − e^(−max/mean)); a lognormal's mean e^(σ²/2)·median, no more than its `max`.
 */
export function delayMean(delay: DelayConfig): number {
  if (typeof delay === "number") return delay;
  switch (delay.distribution) {
    case "fixed":
      return delay.value;
    case "uniform":
      return (delay.min + delay.max) / 2;
    case "exponential":
      return delay.max === undefined || delay.mean === 0
        ? delay.mean
        : delay.mean * (1 - Math.exp(-delay.max / delay.mean));
    case "lognormal":
      return Math.min(
        delay.median * Math.exp((delay.sigma * delay.sigma) / 2),
        delay.max ?? Number.POSITIVE_INFINITY,
      );
  }
}

/**
 * Tokens validate's estimates assume for a prompt or an answer whose length the config does not give (a
 * file's, a task's) until the file is read: an estimate's assumption, never a request's length.
 */
export const assumedTokens = 256;

/** Turns per session validate assumes for a file's sessions (conversations, a trace's) it has not read. */
export const assumedFileSessionTurns = 4;

/** A length the config may leave to the file: its mean when given, else `assumedTokens`. */
export function meanOrAssumed(length: LengthConfig | undefined): number {
  return length === undefined ? assumedTokens : lengthMean(length);
}

/** Why a file's prompts have no designed sharing the client knows: the cache check cannot run on them. */
export const fileSharing =
  "a file's prompts may share prefixes (a common system prompt, repeated entries), which the client does not count";
