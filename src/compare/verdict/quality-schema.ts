import { z } from "zod";
import { guardMetrics } from "../../config/metric-names.js";
import { noiseLevelsSchema } from "../noise/start-noise.js";

/**
 * The quality part of `verdict.json` (docs/quality.md): the guard checks of every compared cell. A guard
 * regression makes the overall verdict a regression, whatever the speed checks say.
 */
const guardCheckSchema = z.object({
  cell: z.string(),
  metric: z.enum(guardMetrics),
  /** "points": an absolute rise of a share; "relative": a shift of the mean output length either way. */
  toleranceKind: z.enum(["points", "relative"]),
  tolerance: z.number(),
  /** Pooled over the side's runs: the share of requests, or the mean output tokens per completed request. */
  baseline: z.number().nullable(),
  candidate: z.number().nullable(),
  /** Requests counted / measured (shares), or completed requests (length), per side. */
  counts: z.object({
    baseline: z.object({ count: z.number().int(), requests: z.number().int() }),
    candidate: z.object({ count: z.number().int(), requests: z.number().int() }),
  }),
  /**
   * The p of the test against the tolerance, Holm-adjusted over the comparison's gated family (speed,
   * capacity, guard and task checks, compare/analyze/gated-family.ts), and the raw one; null without a test.
   */
  p: z.number().nullable(),
  pRaw: z.number().nullable(),
  /** Whether the test is one of the gated family's (false: no test, or it cannot reach the level; p is then the raw p). */
  inFamily: z.boolean().optional(),
  verdict: z.enum(["regression", "within-tolerance", "inconclusive"]),
  note: z.string().nullable(),
  /**
   * The runs' and starts' levels of the pooled figure (per-run values grouped by server start) and the
   * design effect the counts were divided by (docs/compare.md, "Server starts"); absent with fewer than
   * two runs a side, and in older verdicts.
   */
  noise: noiseLevelsSchema.optional(),
});

export type GuardCheck = z.output<typeof guardCheckSchema>;

/** One side-by-side comparison of kept outputs (candidate vs baseline, or baseline vs itself). */
const outputAgreementSchema = z.object({
  prompts: z.number().int().describe("Prompts answered on both sides."),
  changedShare: z.number().describe("Share of prompts whose output text differs."),
  prefixChangedShare: z.number().describe("Share whose first first_tokens tokens differ."),
  similarity: z
    .number()
    .nullable()
    .describe("Mean token-level similarity: 1 - edit distance / longer length."),
  logprobDrift: z
    .number()
    .nullable()
    .describe("Mean |logprob change| (nats) over the tokens both chose alike; null without logprobs."),
  logprobTokens: z.number().int().describe("Tokens the drift is over."),
});
export type OutputAgreement = z.output<typeof outputAgreementSchema>;

const greedyCheckSchema = z.object({
  cell: z.string(),
  /** Which runs were compared (their run indexes). */
  runs: z.object({ baseline: z.number().int().nullable(), candidate: z.number().int().nullable() }),
  candidate: outputAgreementSchema,
  /**
   * The baseline's first run against its first run on another server start (else its second run): the
   * floor; null with one baseline run.
   */
  baselineNoise: outputAgreementSchema.nullable(),
  /** Which baseline runs the floor compared, and whether they were on different server starts; absent in older verdicts. */
  baselineNoiseRuns: z
    .object({
      first: z.number().int().nullable(),
      second: z.number().int().nullable(),
      acrossStarts: z.boolean(),
    })
    .optional(),
  /** Tokens are the server's (logprobs returned) or whitespace-separated words. */
  tokenSource: z.enum(["server", "words"]),
  verdict: z.enum(["regression", "within-tolerance"]),
  reasons: z.array(z.string()),
  examples: z.array(
    z.object({
      index: z.number().int(),
      similarity: z.number(),
      firstDifference: z.number().int().describe("Token position of the first difference."),
      baseline: z.string().describe("Excerpt around the first difference, raw (the report escapes it)."),
      candidate: z.string(),
    }),
  ),
});
export type GreedyCheck = z.output<typeof greedyCheckSchema>;

/** The task-accuracy check of one tasks cell: both sides scored on the same prompts. */
const taskCheckSchema = z.object({
  cell: z.string(),
  /** Set for an external task (quality.tasks.external): its name; absent for a tasks cell's own answers. */
  external: z.string().optional(),
  /** The test: McNemar on paired prompts, or (an external task without per-sample results) two proportions. */
  method: z.enum(["mcnemar", "two-proportion"]).default("mcnemar"),
  runs: z.object({ baseline: z.number().int().nullable(), candidate: z.number().int().nullable() }),
  /** Prompts scored on both sides. */
  prompts: z.number().int(),
  baseline: z.object({
    correct: z.number().int(),
    accuracy: z.number(),
    wilson: z.tuple([z.number(), z.number()]),
    /** Samples behind this side's accuracy when the sides are not paired (two-proportion). */
    n: z.number().int().optional(),
  }),
  candidate: z.object({
    correct: z.number().int(),
    accuracy: z.number(),
    wilson: z.tuple([z.number(), z.number()]),
    n: z.number().int().optional(),
  }),
  /** Discordant pairs: only the baseline right, only the candidate right. */
  onlyBaseline: z.number().int(),
  onlyCandidate: z.number().int(),
  tolerancePoints: z.number(),
  /**
   * Exact one-sided McNemar p of "the candidate is worse" (or the two-proportion test's), raw and
   * Holm-adjusted over the comparison's gated family (compare/analyze/gated-family.ts).
   */
  pRaw: z.number(),
  p: z.number(),
  /** Whether the test is one of the gated family's (false: it cannot reach the level, e.g. no discordant pair; p is then pRaw). */
  inFamily: z.boolean().optional(),
  confidence: z.number().describe("Level of the Wilson intervals."),
  verdict: z.enum(["regression", "within-tolerance"]),
  note: z.string().nullable(),
});
export type TaskCheck = z.output<typeof taskCheckSchema>;

export const qualityVerdictSchema = z.object({
  guards: z.array(guardCheckSchema),
  greedy: z.array(greedyCheckSchema).optional(),
  tasks: z.array(taskCheckSchema).optional(),
});
