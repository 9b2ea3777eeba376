import { z } from "zod";
import { startNoiseSchema } from "../noise/start-noise.js";

/**
 * The capacity checks of verdict.json (`capacity`, docs/capacity.md): per capacity cell, each side's
 * capacity at the SLOs with its interval, the ratio candidate/baseline with its verdict, and the figures
 * at the capacity point (requests per hour, cost per 1,000, tokens per second per GPU and per user).
 */
const interval = z.tuple([z.number(), z.number()]);

const capacitySideSchema = z.object({
  /** The highest load meeting every SLO (an edge of the loads measured when `bound` is not inside). */
  capacity: z.number().nullable(),
  bound: z.enum(["inside", "above", "below"]).nullable(),
  /** The SLO whose crossing is the capacity (metric name, or error_rate). */
  limiting: z.string().nullable(),
  interval: interval.nullable(),
  runs: z.number().int(),
  loads: z.number().int().describe("Distinct loads measured."),
  successfulPerHour: z.number().nullable(),
  /**
   * A session cell's completed sessions per GPU-hour at the capacity (session_throughput there x 3600 /
   * cost.gpus); null for other cells, and when the side meets the SLOs at no load.
   */
  sessionsPerGpuHour: z.number().nullable().default(null),
  outputTokensPerSecondPerGpu: z.number().nullable(),
  outputTokensPerSecondPerUser: z.number().nullable().describe("1000 / median TPOT (ms) at the capacity."),
  /** The SLO percentile of TTFT at the capacity: how long the slowest users wait for their first token. */
  ttftAtCapacityMs: z.number().nullable(),
  costPer1000: z.number().nullable().describe("Only when the side meets the SLOs at some load."),
  note: z.string().nullable(),
});

/**
 * One load of a side's curve: means over the side's usable runs at that load
 * (compare/capacity/load-curve.ts).
 */
/** A cell's `slo` as verdict.json records it (capacity checks and sweeps). */
const sloSchema = z.object({
  ttft_ms: z.number().optional(),
  tpot_ms: z.number().optional(),
  e2el_ms: z.number().optional(),
});

const capacityCurvePointSchema = z.object({
  load: z.number(),
  runs: z.number().int(),
  completedPerSecond: z.number().nullable(),
  goodput: z.number().nullable().describe("Requests/s meeting the cell's slo; null without goodput."),
  outputTokensPerSecond: z.number().nullable(),
  ttftMs: z.number().nullable().describe("TTFT at the comparison's percentile."),
  e2elMs: z.number().nullable().describe("E2E latency at the comparison's percentile."),
});

export const capacityComparisonSchema = z.object({
  cell: z.string(),
  dimension: z.enum(["rate", "concurrency"]),
  /** What the load counts: requests, or a session dataset's sessions (its rate is sessions/s). */
  unit: z.enum(["requests", "sessions"]).default("requests"),
  percentile: z.string(),
  slo: sloSchema,
  errorRateLimit: z.number(),
  gated: z.boolean(),
  tolerance: z.number(),
  baseline: capacitySideSchema,
  candidate: capacitySideSchema,
  ratio: z.number().nullable(),
  /** Interval of the ratio at `ciLevel` (two-sided), from the two sides' bootstrap draws. */
  ci: interval.nullable(),
  ciLevel: z.number(),
  /** One-sided p of the test against the tolerance in the direction observed, Holm-adjusted with the gated family when gated. */
  p: z.number().nullable(),
  verdict: z.enum(["regression", "improvement", "within-tolerance", "inconclusive"]),
  /** Cost per 1,000 successful requests, candidate / baseline; null unless both sides meet the SLOs. */
  costRatio: z.number().nullable(),
  /**
   * Per SLO at the stated load (the highest load measured at which the baseline met every SLO): threshold,
   * each side's value there (mean of its runs at that load, interpolated between loads otherwise), pass/fail.
   */
  acceptance: z.object({
    load: z.number().nullable(),
    rows: z.array(
      z.object({
        objective: z.string(),
        threshold: z.number(),
        baseline: z.number().nullable(),
        candidate: z.number().nullable(),
        baselinePass: z.boolean().nullable(),
        candidatePass: z.boolean().nullable(),
      }),
    ),
  }),
  note: z.string().nullable(),
  /**
   * The server-start level the intervals carried (docs/capacity.md, "Server starts"): a start's speed
   * shifts every load its runs measured, an sd on ln(capacity); absent in older verdicts.
   */
  noise: startNoiseSchema.optional(),
  /** Each side's load curve, drawn by report.html and the comment; absent in older verdicts. */
  curve: z
    .object({ baseline: z.array(capacityCurvePointSchema), candidate: z.array(capacityCurvePointSchema) })
    .optional(),
});

export type CapacityCurvePoint = z.output<typeof capacityCurvePointSchema>;
export type CapacitySide = z.output<typeof capacitySideSchema>;
export type CapacityComparison = z.output<typeof capacityComparisonSchema>;

/**
 * A sweep's load curves on both sides (verdict.json `sweeps`, compare/capacity/sweep-curves.ts): no capacity
 * point.
 */
export const sweepCurveSchema = z.object({
  cell: z.string(),
  dimension: z.enum(["rate", "concurrency"]),
  percentile: z.string(),
  /** The cell's `slo` from the config given to compare; empty without one. */
  slo: sloSchema,
  curve: z.object({
    baseline: z.array(capacityCurvePointSchema),
    candidate: z.array(capacityCurvePointSchema),
  }),
});

export type SweepCurve = z.output<typeof sweepCurveSchema>;
