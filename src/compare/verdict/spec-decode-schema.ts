import { z } from "zod";
import { metricNames } from "../../config/metric-names.js";

/**
 * verdict.json's `specDecode` (compare/analyze/spec-decode.ts, docs/metrics.md "Speculative decoding"):
 * per cell whose server speculates, each side's acceptance and the change of its TPOT and output
 * throughput taken apart into tokens per engine step and the step's own time.
 */

/** A change candidate / baseline with its plain two-sided interval (1 − 2·passAlpha, as a check's ci90). */
const factorSchema = z.object({
  ratio: z.number(),
  ci: z.tuple([z.number(), z.number()]),
  /** The interval excludes 1: the change is beyond the runs' noise. */
  significant: z.boolean(),
});

/**
 * A factor's part in the change: `main` (beyond noise, and at least a quarter of the larger factor's
 * change on the log scale), `minor` (beyond noise, smaller than that), `within-noise`.
 */
const roleSchema = z.enum(["main", "minor", "within-noise"]);

const sideSchema = z.object({
  /** Usable runs whose server reported the acceptance counters. */
  runs: z.number().int().nonnegative(),
  /** Accepted / draft tokens, the geometric mean over those runs; null without drafts. */
  acceptanceRate: z.number().nullable(),
  /** 1 + accepted tokens / draft rounds (tokens per engine step of a request), the geometric mean. */
  acceptanceLength: z.number().nullable(),
});

const decompositionSchema = z.object({
  /** A TPOT statistic (time per step = TPOT × tokens per step) or output_throughput (steps per second = throughput / tokens per step). */
  metric: z.enum(metricNames),
  higherIsBetter: z.boolean(),
  /** Runs with both the metric and the acceptance length, the ones the factors are computed over. */
  runs: z.object({ baseline: z.number().int(), candidate: z.number().int() }),
  /** The metric's change over those runs: the product (throughput) or quotient (TPOT) of the two factors. */
  change: factorSchema,
  /** Tokens per engine step of a request: the mean acceptance length (the drafter's part). */
  acceptanceLength: factorSchema.extend({ role: roleSchema }),
  /** The engine step's part: its time (for TPOT) or the steps per second (for throughput). */
  perStep: factorSchema.extend({
    kind: z.enum(["time-per-step", "steps-per-second"]),
    role: roleSchema,
  }),
  /** The factors whose role is `main`: the change comes from the drafter, the step, both or neither. */
  explainedBy: z.enum(["acceptance", "step", "both", "neither"]),
});

export const specDecodeCellSchema = z.object({
  cell: z.string(),
  baseline: sideSchema,
  candidate: sideSchema,
  decompositions: z.array(decompositionSchema),
  /** Why a side's runs could not be taken apart (fewer than 2 with the counters), else null. */
  note: z.string().nullable(),
});

export type SpecDecodeCell = z.output<typeof specDecodeCellSchema>;
export type SpecDecodeDecomposition = z.output<typeof decompositionSchema>;
export type SpecDecodeFactor = z.output<typeof factorSchema>;
export type SpecDecodeRole = z.output<typeof roleSchema>;
