import type { CellConfig } from "../config/schema.js";

type Segment =
  | { kind: "rate"; rate: number; burstiness: number; durationMs: number | null }
  | { kind: "concurrency"; concurrency: number; durationMs: number | null };

/** What the dispatcher executes: segments in order, stopped by a request count and/or a duration. */
export interface LoadPlan {
  segments: Segment[];
  maxRequests: number | null;
  maxDurationMs: number | null;
  /** Cap on requests in flight for open-loop segments; arrivals beyond it wait for a slot (measured). */
  maxConcurrency: number | null;
}

export function loadPlanOf(cell: CellConfig): LoadPlan {
  const size = cell.size;
  const maxRequests = "requests" in size ? size.requests : null;
  const sizeDurationMs = "duration_s" in size ? size.duration_s * 1000 : null;
  const load = cell.load;
  switch (load.type) {
    case "concurrency":
      return {
        segments: [{ kind: "concurrency", concurrency: load.concurrency, durationMs: null }],
        maxRequests,
        maxDurationMs: sizeDurationMs,
        maxConcurrency: load.concurrency,
      };
    case "rate":
      return {
        segments: [{ kind: "rate", rate: load.rate, burstiness: load.burstiness, durationMs: null }],
        maxRequests,
        maxDurationMs: sizeDurationMs,
        maxConcurrency: load.max_concurrency ?? null,
      };
    case "stages": {
      const segments: Segment[] = load.stages.map((stage) =>
        stage.rate !== undefined
          ? {
              kind: "rate",
              rate: stage.rate,
              burstiness: stage.burstiness,
              durationMs: stage.duration_s * 1000,
            }
          : { kind: "concurrency", concurrency: stage.concurrency!, durationMs: stage.duration_s * 1000 },
      );
      const stagesMs = segments.reduce((sum, segment) => sum + (segment.durationMs ?? 0), 0);
      return {
        segments,
        maxRequests,
        maxDurationMs: sizeDurationMs === null ? stagesMs : Math.min(stagesMs, sizeDurationMs),
        maxConcurrency: load.max_concurrency ?? null,
      };
    }
  }
}

/**
 * Connections the client pool needs: the most requests the plan can have in flight, never more than its
 * request count (null = unbounded). `perUnit`: requests one unit of the schedule may have in flight at
 * once (a session's fan-out branches; 1 otherwise).
 */
export function poolSizeOf(plan: LoadPlan, perUnit = 1): number | null {
  let most = 0;
  for (const segment of plan.segments) {
    if (segment.kind === "concurrency") most = Math.max(most, segment.concurrency);
    else if (plan.maxConcurrency === null) return null;
  }
  const size = Math.max(most, plan.maxConcurrency ?? 0);
  // No more requests than maxRequests can be in flight: connections beyond that are opened for nothing
  // (concurrency 100000 with 10 requests spent minutes opening them).
  return (plan.maxRequests === null ? size : Math.min(size, plan.maxRequests)) * perUnit;
}

/** The concurrency a run asks for, to check against what the client achieved; null for open loop. */
export function targetConcurrencyOf(plan: LoadPlan): number | null {
  const closed = plan.segments.filter((segment) => segment.kind === "concurrency");
  if (closed.length === 0) return null;
  return Math.max(...closed.map((segment) => (segment.kind === "concurrency" ? segment.concurrency : 0)));
}

export function targetRateOf(plan: LoadPlan): number | null {
  const open = plan.segments.filter((segment) => segment.kind === "rate");
  if (open.length === 0) return null;
  return Math.max(...open.map((segment) => (segment.kind === "rate" ? segment.rate : 0)));
}

/**
 * Warm-up: closed loop at the run's concurrency (the pool gets warm connections, the server warm kernels),
 * for a request count or a duration; null when there is none.
 */
export function warmupPlanOf(cell: CellConfig, plan: LoadPlan): LoadPlan | null {
  const warmup = cell.warmup;
  const concurrency = Math.max(1, poolSizeOf(plan) ?? targetConcurrencyOf(plan) ?? 8);
  if ("requests" in warmup) {
    if (warmup.requests === 0) return null;
    return {
      segments: [
        { kind: "concurrency", concurrency: Math.min(concurrency, warmup.requests), durationMs: null },
      ],
      maxRequests: warmup.requests,
      maxDurationMs: null,
      maxConcurrency: null,
    };
  }
  if (warmup.duration_s === 0) return null;
  return {
    segments: [{ kind: "concurrency", concurrency, durationMs: null }],
    maxRequests: null,
    maxDurationMs: warmup.duration_s * 1000,
    maxConcurrency: null,
  };
}
