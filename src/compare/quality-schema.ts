import { z } from "zod";
import { guardMetrics } from "../config/metric-names.js";

/**
 * The quality part of `verdict.json` (docs/quality.md): the guard checks of every compared cell. A guard
 * regression makes the overall verdict a regression, whatever the speed checks say.
 */
export const guardCheckSchema = z.object({
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
  /** Holm-adjusted p over the guard family (all cells), and the raw one. */
  p: z.number().nullable(),
  pRaw: z.number().nullable(),
  verdict: z.enum(["regression", "within-tolerance", "inconclusive"]),
  note: z.string().nullable(),
});

export type GuardCheck = z.output<typeof guardCheckSchema>;

export const qualityVerdictSchema = z.object({
  guards: z.array(guardCheckSchema),
});

export type QualityVerdict = z.output<typeof qualityVerdictSchema>;
