import { z } from "zod";
import { usageIssueKinds } from "../runner/request-schema.js";
import { maxServerStartIdLength } from "../server/server-start.js";
import { runGuardsSchema, runOutputSchema } from "./guards.js";

/**
 * `run.json`: everything measured in one run of one cell. It is the contract between `run` (writer)
 * and `compare` (reader), so it is versioned: a reader accepts every version it knows and says exactly
 * why it rejects any other.
 */
export const runFileSchemaVersion = 1;

const nullableNumber = z.number().nullable();

/** mean/std/median/percentiles of one latency phase, in milliseconds; null when there was no sample. */
const latencySummarySchema = z.object({
  count: z.number().int().nonnegative(),
  mean: nullableNumber,
  std: nullableNumber,
  median: nullableNumber,
  p50: nullableNumber,
  p90: nullableNumber,
  p95: nullableNumber,
  p99: nullableNumber,
  p99_9: nullableNumber,
});

export type LatencySummary = z.output<typeof latencySummarySchema>;

/** The summary of no samples (a phase a run never measured: every statistic missing, never zero). */
export const noSamples: LatencySummary = {
  count: 0,
  mean: null,
  std: null,
  median: null,
  p50: null,
  p90: null,
  p95: null,
  p99: null,
  p99_9: null,
};

/** A phase that run.json files of earlier versions do not have: read as no samples. */
const laterPhase = (description: string) => latencySummarySchema.default(noSamples).describe(description);

/** What the answers were made of (docs/run.md, "Reasoning and tool calls"). */
const runAnswerSchema = z.object({
  reasoningRequests: z.number().int().nonnegative().describe("Completed requests with reasoning tokens."),
  reasoningTokens: latencySummarySchema.describe("Reasoning tokens per completed request (not ms)."),
  reasoningFields: z
    .record(z.string(), z.number().int().nonnegative())
    .describe("Requests per delta field that carried the reasoning (reasoning, reasoning_content)."),
  toolCalls: z.number().int().nonnegative().describe("Well-formed tool calls of the completed requests."),
  malformedToolCalls: z.number().int().nonnegative(),
});

/** A value the server may not expose: `null` means missing, never zero. */
const serverValue = z.number().nullable();

/**
 * What a histogram really knows about one of its quantiles: the bucket the rank falls in. The _ms figure
 * beside it is interpolated inside this bucket, so it is no finer than [lower_ms, upper_ms].
 */
const percentileResolutionSchema = z.object({
  lower_ms: z.number(),
  upper_ms: z.number().nullable().describe("null: the +Inf bucket"),
  display: z.string().describe('What is known, e.g. "< 300 ms" or "300 ms to 500 ms".'),
});
export type PercentileResolution = z.output<typeof percentileResolutionSchema>;

const serverMetricsSummarySchema = z.object({
  notFinite: z
    .array(z.string())
    .optional()
    .describe("Fields below whose samples were NaN or +-Inf in /metrics: recorded as null."),
  preemptions: serverValue,
  prefix_cache_queries: serverValue,
  prefix_cache_hits: serverValue,
  prefix_cache_hit_rate: serverValue,
  kv_cache_usage_max: serverValue,
  kv_cache_usage_mean: serverValue,
  running_max: serverValue,
  waiting_max: serverValue,
  prompt_tokens: serverValue,
  generation_tokens: serverValue,
  server_ttft_p50_ms: serverValue,
  server_ttft_p95_ms: serverValue,
  server_queue_p50_ms: serverValue,
  server_queue_p95_ms: serverValue,
  requests_completed: serverValue,
  missing: z.array(z.string()).describe("Metric names the server did not expose."),
  server_percentile_resolution: z
    .record(z.string(), percentileResolutionSchema)
    .optional()
    .describe("Per server_*_p*_ms figure read from a histogram: the bucket it lies in."),
  spec_decode_drafts: serverValue.optional(),
  spec_decode_draft_tokens: serverValue.optional(),
  spec_decode_accepted_tokens: serverValue.optional(),
  spec_decode_acceptance_rate: serverValue
    .optional()
    .describe("Accepted / draft tokens over the run; null without speculative decoding."),
  sim_steps: serverValue
    .optional()
    .describe("Simulator only (sim:step_lateness_seconds): steps its loop handled in the run."),
  sim_step_lateness_p99_ms: serverValue
    .optional()
    .describe(
      "Simulator only: p99 of how late its loop handled a step (ms) over the run; client.max_server_lateness_ms.",
    ),
});

/**
 * A session dataset's fan-outs in one run (metrics/fan-out-metrics.ts, docs/workloads.md): each a turn sent
 * as branches at once and joined; times in ms over the completed fan-outs.
 */
const fanOutSummarySchema = z.object({
  /** Fan-outs started (a branch sent). */
  fanOuts: z.number().int().nonnegative(),
  /** Fan-outs whose every branch was sent and answered (their tool rounds too). */
  completed: z.number().int().nonnegative(),
  /** Branches sent. */
  branches: z.number().int().nonnegative(),
  /** The first branch's send to the slowest branch's last answer's end: when the session can go on. */
  completion: latencySummarySchema,
  /** The fastest branch's end to the slowest's: how far apart the branches finished. */
  spread: latencySummarySchema,
});

export type FanOutSummary = z.output<typeof fanOutSummarySchema>;

/** A session dataset's per-run summary (metrics/session-metrics.ts, docs/workloads.md). */
const sessionsSummarySchema = z.object({
  started: z.number().int().nonnegative(),
  /** Sessions whose every planned turn was answered. */
  completed: z.number().int().nonnegative(),
  /** Requests the sessions sent (turns and tool-result rounds). */
  requests: z.number().int().nonnegative(),
  /** Completed sessions per second of the measured phase. */
  throughput: z.number().nonnegative(),
  /** Sessions per second whose every request met every SLO; null without SLOs. */
  goodput: z.number().nonnegative().nullable(),
  /** Completed sessions' duration in ms: first send to the last answer's end (think times included). */
  duration: latencySummarySchema,
  /** Mean over sessions of cached / prompt tokens (usage's cached_tokens); null when the server sent none. */
  cacheHitRate: z.number().min(0).max(1).nullable(),
  /** The server's prefix-cache hits / queries over the run (its counters); null without them. */
  serverCacheHitRate: z.number().min(0).max(1).nullable(),
  /** TTFT by context depth (1-based turn number buckets), ms. */
  ttftByDepth: z.array(
    z.object({
      bucket: z.string(),
      from: z.number().int().positive(),
      to: z.number().int().positive().nullable(),
      requests: z.number().int().nonnegative(),
      p50: nullableNumber,
      p95: nullableNumber,
    }),
  ),
  /**
   * First turns served from the cache beyond the common prefix, into their own text: an earlier run's
   * cache (flagged when more than a tenth of the first turns were).
   */
  contamination: z.object({
    firstTurns: z.number().int().nonnegative(),
    aboveSharedPrefix: z.number().int().nonnegative(),
    flagged: z.boolean(),
    checked: z
      .boolean()
      .optional()
      .describe(
        "false when no check was possible (a trace's first turns share prefix blocks by design): then flagged says nothing; absent in files of earlier versions.",
      ),
  }),
  /** The sub-agent fan-outs; absent when the sessions had none (and in files of earlier versions). */
  fanOut: fanOutSummarySchema.optional(),
});

/**
 * The cache-state check of a run (metrics/cache-check.ts, docs/workloads.md "Cache state"): a `prefix:
 * fresh` run's prefix-cache hits against what its dataset shares by design.
 */
const cacheCheckSchema = z.object({
  /** flagged: more hits than the design allows (the run is unusable); not-checked: no check was possible. */
  status: z.enum(["passed", "flagged", "not-checked"]),
  /** Hits / queried prompt tokens over the measured phase; null when the server reported neither. */
  hitRate: z.number().min(0).max(1).nullable(),
  /** Where the hit rate came from: the server's /metrics counters, or the usage's cached_tokens. */
  hitRateSource: z.enum(["server", "usage"]).nullable(),
  /** The most the dataset shares by design, a chat template's head included; null when not checked. */
  designedHitRate: z.number().min(0).max(1).nullable(),
  /** What was found, or why nothing was checked. */
  reason: z.string(),
});

export type CacheCheck = z.output<typeof cacheCheckSchema>;

export type SessionsSummary = z.output<typeof sessionsSummarySchema>;

/** How a session cell's cache was prepared before measuring (docs/workloads.md, Cache protocol). */
const cacheProtocolSchema = z.object({
  /** The prefix cache was reset before the run (POST /reset_prefix_cache answered 200). */
  reset: z.boolean(),
  /** Requests carry a per-run cache_salt: nothing cached by an earlier run can be hit. */
  salted: z.boolean(),
  /**
   * The warm-up as configured (sessions, or seconds of sessions), and the requests it sent: its sessions
   * are their own conversations; only the common system prompt is shared with the measured sessions.
   */
  warmup: z.union([
    z.object({ sessions: z.number().int().nonnegative() }),
    z.object({ durationS: z.number().nonnegative() }),
  ]),
  warmupRequests: z.number().int().nonnegative(),
});

/**
 * The server start that measured a run (docs/server.md, Server starts): the runs of one start share what
 * it drew, so compare groups them by it. Absent in files of earlier versions
 * (compare/inputs/server-starts.ts).
 */
const runServerStartSchema = z.object({
  id: z
    .string()
    .min(1)
    .max(maxServerStartIdLength)
    .describe("Unique per server start (a random UUID for a server vllm-perf-gate launched)."),
  startedAt: z
    .string()
    .describe(
      "ISO-8601: when the server was launched; for a server only reached (--base-url, kind external), when the process first reached it.",
    ),
  side: z
    .string()
    .nullable()
    .describe("The side the start served (baseline, candidate, ...), null when unlabelled."),
});

export const runFileSchema = z.object({
  schemaVersion: z.literal(runFileSchemaVersion),
  tool: z.object({ name: z.string(), version: z.string() }),
  cell: z.string(),
  run: z.number().int().nonnegative().describe("Run index within the cell, from 0."),
  /** `baseline` or `candidate` in interleaved jobs; free-form label otherwise. */
  side: z.string().optional(),
  serverStart: runServerStartSchema
    .optional()
    .describe(
      "The server start that measured the run; absent in files of earlier versions (compare then assumes one start per input, docs/compare.md).",
    ),
  startedAt: z.string().describe("ISO-8601 wall-clock time the measured phase began."),
  durationS: z
    .number()
    .nonnegative()
    .describe(
      "Measured phase: first dispatch to last completion, on the schedule's timeline (with idle gaps elided, what it takes on real time; load.schedule.wallClockS is what it took).",
    ),
  /** How the run was sized and loaded, as executed (for re-analysis). */
  load: z.object({
    type: z.enum(["concurrency", "rate", "stages"]),
    targetRate: z.number().nullable(),
    targetConcurrency: z.number().nullable(),
    achievedRate: z.number(),
    achievedConcurrencyMean: z.number(),
    peakConcurrency: z.number().int(),
    scheduleLagP50Ms: z.number().nullable(),
    scheduleLagP99Ms: z.number().nullable(),
    eventLoopLagP99Ms: z.number().nullable(),
    schedule: z
      .object({
        kind: z.enum(["idle-elided", "real-time"]),
        settleMs: z.number().nonnegative().optional(),
        elidedS: z.number().nonnegative().describe("Idle time elided: durationS minus the wall-clock."),
        wallClockS: z.number().nonnegative().describe("Wall-clock of the measured phase (GPU time spent)."),
      })
      .optional()
      .describe(
        "How the arrivals were timed (docs/run.md, Schedules). durationS and every time in requests.jsonl are on the schedule's timeline, as on real time; absent in files of earlier versions (real time).",
      ),
  }),
  requests: z.object({
    total: z.number().int().nonnegative(),
    completed: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    errorsByKind: z.record(z.string(), z.number().int().nonnegative()),
    finishReasons: z.record(z.string(), z.number().int().nonnegative()),
    warmup: z.number().int().nonnegative(),
  }),
  tokens: z.object({
    input: z.number().int().nonnegative(),
    output: z.number().int().nonnegative(),
    inputLengths: latencySummarySchema.describe("Distribution of prompt tokens per request (not ms)."),
    outputLengths: latencySummarySchema.describe("Distribution of output tokens per request (not ms)."),
  }),
  latency: z.object({
    ttft: latencySummarySchema,
    tpot: latencySummarySchema,
    itl: latencySummarySchema,
    e2el: latencySummarySchema,
    answer_ttft: laterPhase("Time to the first answer token (content or tool call, after any reasoning)."),
    answer_itl: laterPhase("Gaps between the chunks from the first answer chunk on."),
    queue: latencySummarySchema.describe("Client-side wait for a concurrency slot."),
  }),
  throughput: z.object({
    request: z.number().nonnegative(),
    output: z.number().nonnegative(),
    total: z.number().nonnegative(),
    goodput: z.number().nonnegative().nullable().describe("Good requests per second; null without SLOs."),
    sloAttainment: z.number().min(0).max(1).nullable(),
  }),
  server: serverMetricsSummarySchema.nullable(),
  answer: runAnswerSchema
    .optional()
    .describe("Reasoning and tool calls of the answers; absent in files of earlier versions."),
  sessions: sessionsSummarySchema
    .optional()
    .describe(
      "A session dataset's sessions: duration, goodput, cache hit rate, TTFT by depth (docs/workloads.md).",
    ),
  cacheProtocol: cacheProtocolSchema.optional(),
  cacheCheck: cacheCheckSchema
    .optional()
    .describe(
      "Whether a prefix: fresh run found only what its dataset shares by design in the prefix cache (docs/workloads.md); absent in files of earlier versions.",
    ),
  guards: runGuardsSchema
    .optional()
    .describe(
      "What the outputs were (finish reasons, zero outputs, usage checks, lengths): docs/quality.md.",
    ),
  outputs: z
    .array(runOutputSchema)
    .optional()
    .describe("A greedy-output cell's outputs per prompt (config quality.greedy), for the greedy check."),
  flags: z.object({
    clientBound: z.boolean(),
    clientBoundReason: z.string().optional(),
    serverCrashed: z.boolean(),
    serverStarved: z
      .boolean()
      .optional()
      .describe(
        "The simulator's own process was kept from running on time (its step lateness beyond client.max_server_lateness_ms); absent for servers that do not export sim:step_lateness_seconds.",
      ),
    serverStarvedReason: z.string().optional(),
    cutShort: z.boolean(),
    interrupted: z
      .string()
      .optional()
      .describe("The signal (SIGINT, SIGTERM) that interrupted the run; such a run is also cut short."),
    notes: z.array(z.string()).default([]),
    usageIssues: z
      .partialRecord(z.enum(usageIssueKinds), z.number().int().nonnegative())
      .optional()
      .describe("Measured requests whose usage failed a check, by kind (docs/run.md, Usage checks)."),
    unusableReasons: z
      .array(z.string())
      .optional()
      .describe("Why compare must not use this run (besides the flags above); empty when it is usable."),
  }),
  prefix: z.object({
    policy: z.enum(["fresh", "reuse"]),
    cacheSalt: z.string().nullable(),
    cacheReset: z.boolean(),
  }),
  /** Conditions of the run; see server/fingerprint. Opaque here so compare can diff it field by field. */
  fingerprint: z.record(z.string(), z.unknown()),
  telemetry: z
    .object({
      gpuUtilizationMean: z.number().nullable(),
      gpuUtilizationMax: z.number().nullable(),
      gpuMemoryUsedMaxMiB: z.number().nullable(),
      gpuPowerMeanW: z.number().nullable(),
      smClockMeanMHz: z.number().nullable(),
    })
    .nullable()
    .default(null),
});

export type RunFile = z.output<typeof runFileSchema>;
export type ServerMetricsSummary = z.output<typeof serverMetricsSummarySchema>;

/** A relation between fields that every run.json `run` writes satisfies; a file that breaks one was edited or forged. */
export interface InvariantIssue {
  /** Dotted path of the field that breaks it. */
  field: string;
  message: string;
}

const percentileOrder = ["p50", "p90", "p95", "p99", "p99_9"] as const;

/** Checks one summary: ordered percentiles, no negative values, no statistics without samples. */
function latencySummaryIssues(summary: LatencySummary, field: string): InvariantIssue[] {
  const issues: InvariantIssue[] = [];
  const values = [summary.mean, summary.std, summary.median, ...percentileOrder.map((key) => summary[key])];
  if (summary.count === 0 && values.some((value) => value !== null))
    issues.push({ field: `${field}.count`, message: "0 samples, but statistics are given (expected null)" });
  for (const key of ["mean", "std", "median", ...percentileOrder] as const) {
    const value = summary[key];
    if (value !== null && value < 0)
      issues.push({ field: `${field}.${key}`, message: `${value} is negative (expected >= 0)` });
  }
  let previous: { key: string; value: number } | null = null;
  for (const key of percentileOrder) {
    const value = summary[key];
    if (value === null) continue;
    if (previous && value < previous.value) {
      issues.push({
        field: `${field}.${key}`,
        message: `${value} is below ${previous.key} = ${previous.value} (percentiles never decrease)`,
      });
    }
    previous = { key, value };
  }
  return issues;
}

function sum(record: Readonly<Record<string, number>>): number {
  let total = 0;
  for (const value of Object.values(record)) total += value;
  return total;
}

/**
 * The relations `run` guarantees between the fields of a run.json (metrics/run-metrics.ts builds
 * them from the same records): completed + failed = total, the error kinds add up to failed, the
 * finish reasons to completed, no latency has more samples than completed requests, and every
 * summary is ordered. Checked when a run.json is read (compare, baseline validation), not when it
 * is written, so a measured run is never lost to a check.
 */
export function runFileInvariantIssues(file: RunFile): InvariantIssue[] {
  const issues: InvariantIssue[] = [];
  const { total, completed, failed, errorsByKind, finishReasons } = file.requests;
  if (completed + failed !== total) {
    issues.push({
      field: "requests.total",
      message: `${total}, but completed (${completed}) + failed (${failed}) = ${completed + failed} (expected equal)`,
    });
  }
  const errors = sum(errorsByKind);
  if (errors !== failed) {
    issues.push({
      field: "requests.errorsByKind",
      message: `adds up to ${errors}, but failed is ${failed} (expected equal)`,
    });
  }
  const finished = sum(finishReasons);
  if (finished !== completed) {
    issues.push({
      field: "requests.finishReasons",
      message: `adds up to ${finished}, but completed is ${completed} (expected equal)`,
    });
  }
  for (const phase of ["ttft", "tpot", "e2el"] as const) {
    const count = file.latency[phase].count;
    if (count > completed) {
      issues.push({
        field: `latency.${phase}.count`,
        message: `${count} samples, more than the ${completed} completed requests`,
      });
    }
  }
  if (file.latency.queue.count > total) {
    issues.push({
      field: "latency.queue.count",
      message: `${file.latency.queue.count} samples, more than the ${total} requests`,
    });
  }
  for (const which of ["inputLengths", "outputLengths"] as const) {
    const count = file.tokens[which].count;
    if (count > completed) {
      issues.push({
        field: `tokens.${which}.count`,
        message: `${count} samples, more than the ${completed} completed requests`,
      });
    }
  }
  for (const phase of ["ttft", "tpot", "itl", "e2el", "queue"] as const)
    issues.push(...latencySummaryIssues(file.latency[phase], `latency.${phase}`));
  const { goodput, request } = file.throughput;
  if (goodput !== null && goodput > request * (1 + 1e-9)) {
    issues.push({
      field: "throughput.goodput",
      message: `${goodput}/s, more than the request throughput ${request}/s (good requests are a subset)`,
    });
  }
  return issues;
}
