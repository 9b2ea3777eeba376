import { z } from "zod";
import {
  datasetProblems,
  datasetSchema,
  isSessionDataset,
  isTraceDataset,
  promptTokensCeiling,
  type TraceDatasetConfig,
} from "./dataset-kinds.js";
import {
  choice,
  describeValue,
  fraction,
  nonEmptyString,
  nonNegativeInt,
  nonNegativeNumber,
  positiveInt,
  positiveNumber,
  strictObject,
} from "./fields.js";
import { atMost, configLimits } from "./limits.js";
import { gatableMetricNames, gatedMetricNames, metricNames } from "./metric-names.js";
import { type ServerConfig, serverDeviceProblems, serverKindFacts, serverSchema } from "./server-kinds.js";

export type {
  DelayConfig,
  LengthConfig,
} from "./dataset-kinds/fields.js";
export {
  datasetReadsFile,
  datasetSchema,
  type FileDatasetConfig,
  isFileBacked,
  isSessionDataset,
  isTraceDataset,
  scoresAnswers,
} from "./dataset-kinds.js";
export { configLimits } from "./limits.js";
export { type ServerLifecycle, serverSchema } from "./server-kinds.js";

/**
 * The config file `vllm-perf-gate.yml`: the single source of truth for its shape, its defaults and its
 * documentation. The JSON Schema in `schema/` and the README's reference are generated from it.
 */

const modelSchema = strictObject({
  name: nonEmptyString().describe(
    "The served model name sent in requests (vLLM's --served-model-name or the model id).",
  ),
  source: z.string().optional().describe("Hugging Face repository id when it differs from name."),
  revision: nonEmptyString("a commit hash or tag")
    .optional()
    .describe("Model revision (commit) pinned and recorded."),
  tokenizer_revision: z.string().optional().describe("Tokenizer revision pinned and recorded."),
  max_model_len: positiveInt()
    .optional()
    .describe("Expected max_model_len; prompts longer than it are rejected by validate."),
});

const samplingSchema = strictObject({
  temperature: nonNegativeNumber()
    .default(0)
    .describe("Sent with every request (vLLM's default changed across versions, so it is always explicit)."),
  top_p: z.number().gt(0).max(1).default(1),
  top_k: z.number().int().min(-1).optional(),
  min_p: fraction().optional(),
  seed: nonNegativeInt().optional().describe("Per-request sampling seed; omitted when unset."),
  ignore_eos: z
    .boolean()
    .default(true)
    .describe("Generate exactly the requested output length (recommended for gating: fewer moving parts)."),
  min_tokens: nonNegativeInt()
    .max(configLimits.tokens, atMost(configLimits.tokens, "token counts"))
    .optional(),
  repetition_penalty: positiveNumber().optional(),
  extra_body: z
    .record(z.string(), z.unknown())
    .default({})
    .describe("Extra JSON fields merged into every request body."),
});

const concurrencyLoad = strictObject({
  type: z.literal("concurrency"),
  concurrency: positiveInt()
    .max(configLimits.concurrency, atMost(configLimits.concurrency, "requests in flight"))
    .describe("Requests kept in flight (closed loop)."),
});
const rateLoad = strictObject({
  type: z.literal("rate"),
  rate: positiveNumber()
    .max(configLimits.ratePerSecond, atMost(configLimits.ratePerSecond, "requests per second"))
    .describe("Requests per second (open loop, on an absolute schedule)."),
  burstiness: positiveNumber()
    .default(1)
    .describe("Gamma shape of inter-arrival gaps: 1 = Poisson, < 1 burstier, large = regular."),
  max_concurrency: positiveInt()
    .max(configLimits.concurrency, atMost(configLimits.concurrency, "requests in flight"))
    .optional()
    .describe("Cap on requests in flight; arrivals beyond it wait in the client (measured)."),
});
const stageSchema = strictObject({
  duration_s: positiveNumber("a positive number of seconds").max(
    configLimits.seconds,
    atMost(configLimits.seconds, "seconds"),
  ),
  rate: positiveNumber()
    .max(configLimits.ratePerSecond, atMost(configLimits.ratePerSecond, "requests per second"))
    .optional(),
  concurrency: positiveInt()
    .max(configLimits.concurrency, atMost(configLimits.concurrency, "requests in flight"))
    .optional(),
  burstiness: positiveNumber().default(1),
}).refine((stage) => (stage.rate === undefined) !== (stage.concurrency === undefined), {
  message: "expected exactly one of rate or concurrency in each stage",
});
const stagesLoad = strictObject({
  type: z.literal("stages"),
  stages: z
    .array(stageSchema)
    .min(1, "expected at least one stage")
    .max(
      configLimits.stages,
      `expected at most ${configLimits.stages} stages (the limit on stages; see docs/config-reference.md#limits)`,
    ),
  max_concurrency: positiveInt()
    .max(configLimits.concurrency, atMost(configLimits.concurrency, "requests in flight"))
    .optional(),
});

const loadSchema = choice("type", [concurrencyLoad, rateLoad, stagesLoad], ["concurrency", "rate", "stages"]);

const sizeSchema = z.union(
  [
    strictObject({
      requests: positiveInt()
        .max(configLimits.requestsPerRun, atMost(configLimits.requestsPerRun, "measured requests per run"))
        .describe("Measured requests per run (sessions, for a session dataset: docs/workloads.md)."),
    }),
    strictObject({
      duration_s: positiveNumber("a positive number of seconds")
        .max(configLimits.seconds, atMost(configLimits.seconds, "seconds"))
        .describe("Measured seconds per run."),
    }),
  ],
  { error: () => "expected { requests: N } or { duration_s: S }" },
);

const warmupSchema = z
  .union(
    [
      strictObject({
        requests: nonNegativeInt().max(
          configLimits.warmupRequests,
          atMost(configLimits.warmupRequests, "warm-up requests per run"),
        ),
      }),
      strictObject({
        duration_s: nonNegativeNumber("a number of seconds >= 0").max(
          configLimits.seconds,
          atMost(configLimits.seconds, "seconds"),
        ),
      }),
    ],
    { error: () => "expected { requests: N } or { duration_s: S }" },
  )
  .default({ requests: 4 });

const sloSchema = strictObject({
  ttft_ms: positiveNumber().optional(),
  tpot_ms: positiveNumber().optional(),
  e2el_ms: positiveNumber().optional(),
}).describe("Latency objectives for goodput: a successful request is good when it meets every one given.");

const latencyPercentile = z
  .enum(["p50", "p90", "p95", "p99"], {
    error: (issue) =>
      `expected one of p50, p90, p95, p99 (the percentile every SLO of the cell is read at), got ${describeValue(issue.input)}`,
  })
  .describe(
    "The percentile of each run's latencies the SLOs are read at (p95: the slowest 5% wait this long).",
  );

const loadValue = positiveNumber("a positive load (requests per second or requests in flight)").max(
  configLimits.ratePerSecond,
  atMost(configLimits.ratePerSecond, "requests per second"),
);

/**
 * A capacity cell (docs/capacity.md): the highest load, in the dimension of `load` (rate with its
 * max_concurrency kept, or concurrency), at which every SLO of `slo` holds at `percentile` and the
 * failed fraction stays within `error_rate`.
 */
const capacitySchema = strictObject({
  percentile: latencyPercentile.default("p95"),
  error_rate: fraction()
    .default(0.01)
    .describe("Most failed-request fraction per run at which the load still counts as meeting the SLOs."),
  range: strictObject({
    min: loadValue.describe("Lowest load the search measures."),
    max: loadValue.describe("Highest load the search measures."),
  })
    .refine((range) => range.max > range.min, { message: "expected max > min", path: ["max"] })
    .describe(
      "Loads searched: the load dimension of `load` (requests/s for rate, in flight for concurrency).",
    ),
  precision: fraction()
    .default(0.05)
    .describe(
      "Stop when the capacity interval's width is at most this share of the capacity (0.05 = 5%); otherwise at repeats.max runs. Smaller costs more runs and narrows the capacity ratio's interval (docs/capacity.md, measured).",
    ),
  gated: z
    .boolean()
    .default(true)
    .describe("The capacity ratio joins the blocking (Holm) family; false: advisory."),
  initial_loads: z
    .number()
    .int()
    .min(2, "expected a whole number >= 2 (the search brackets the capacity between two loads)")
    .max(32, "expected at most 32 (the limit on initial loads; see docs/capacity.md)")
    .default(4)
    .describe("Loads of the first, geometric pass over range (one run each) before the search refines."),
  max_runs: positiveInt()
    .max(configLimits.runs, atMost(configLimits.runs, "runs per side"))
    .optional()
    .describe(
      "Most runs per side of this cell while its capacity verdict stays inconclusive: the search stops at precision or repeats.max runs (the first look), then the gate adds runs up to this (the second look). Default: twice repeats.max (docs/capacity.md, measured).",
    ),
});

/** A load sweep (docs/capacity.md): loads listed, or a geometric series from..to of count loads. */
const sweepSchema = z
  .union(
    [
      strictObject({
        loads: z
          .array(loadValue)
          .min(1, "expected at least one load")
          .max(64, "expected at most 64 loads (the limit on sweep loads; see docs/capacity.md)"),
        runs: positiveInt()
          .max(configLimits.runs, atMost(configLimits.runs, "runs per side"))
          .default(3)
          .describe("Runs per load."),
      }),
      strictObject({
        from: loadValue,
        to: loadValue,
        count: z
          .number()
          .int()
          .min(2, "expected a whole number >= 2")
          .max(64, "expected at most 64 loads (the limit on sweep loads; see docs/capacity.md)"),
        runs: positiveInt()
          .max(configLimits.runs, atMost(configLimits.runs, "runs per side"))
          .default(3)
          .describe("Runs per load."),
      }),
    ],
    { error: () => "expected { loads: [L, ...] } or { from: L, to: L, count: N }" },
  )
  .describe(
    "A load sweep (run --sweep): the loads listed, or a geometric series from..to of count loads, in the dimension of `load`.",
  );

/** How open-loop arrivals are timed (docs/run.md, Schedules). */
const scheduleKind = z
  .enum(["idle-elided", "real-time"], {
    error: (issue) =>
      `expected idle-elided or real-time (how open-loop arrivals are timed), got ${describeValue(issue.input)}`,
  })
  .describe(
    "idle-elided: when no request is in flight, the next arrival is sent after settle_ms instead of at its time, and the rest of the schedule moves as much earlier (in-flight sets and queues stay as on real time; a low-load cell takes a fraction of its wall-clock). real-time: every arrival at its time (keep it where the server is not the same after an idle gap, e.g. GPU clocks that drop when idle).",
  );

export const cellSchema = strictObject({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_.-]*$/, "expected a name of lower-case letters, digits, '.', '_' or '-'"),
  description: z.string().optional(),
  family: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_.-]*$/, "expected a family name of lower-case letters, digits, '.', '_' or '-'")
    .optional()
    .describe(
      "Workload family: the cells a change is likely to move together (docs/compare.md#family-tests). The gate tests each gated metric across a family's cells as one combined test beside the per-cell tests. Default: the part of the cell's name before its first '-' (chat-fresh-low -> chat), the whole name when it has none.",
    ),
  endpoint: z.enum(["completions", "chat"]).default("completions"),
  dataset: datasetSchema,
  load: loadSchema,
  size: sizeSchema,
  warmup: warmupSchema,
  prefix: z
    .enum(["fresh", "reuse"])
    .default("fresh")
    .describe(
      "fresh: a new cache_salt per run and a cache reset where the server allows it. reuse: prefixes stay warm; the hit rate is reported.",
    ),
  slo: sloSchema.optional(),
  capacity: capacitySchema
    .optional()
    .describe(
      "Makes the cell a capacity cell: searched for the highest load meeting `slo` (docs/capacity.md).",
    ),
  sweep: sweepSchema.optional(),
  timeout_s: positiveNumber()
    .max(configLimits.seconds, atMost(configLimits.seconds, "seconds"))
    .default(600)
    .describe("Per-request timeout in seconds."),
  seed: nonNegativeInt().optional().describe("Workload seed; defaults to the top-level seed."),
  schedule: scheduleKind.optional().describe("This cell's schedule; defaults to runner.schedule."),
});

/** The family tests' share of a grouped check's level (gate.family_weight): default and limit. */
const defaultFamilyWeight = 0.2;
export const maxFamilyWeight = 0.9;
const familyWeightExpected = {
  error: (issue: { input?: unknown }) =>
    `expected a fraction from 0 to ${maxFamilyWeight} (the limit on gate.family_weight: the rest of a check's level keeps it testable on its own), got ${describeValue(issue.input)}`,
};

/**
 * The noise believed before a PR's own runs, per metric family and level (docs/compare.md, "Server
 * starts"): the sd of ln(metric) between server starts and between runs on one start. Published GPU
 * figures (vLLM and SGLang on H100/H200): throughput about 0.5% run to run and 1% start to start, TPOT
 * and E2E about 1.5% and 1%, TTFT p95 about 3% and 3%.
 */
const levelPrior = (start: number, run: number, what: string) =>
  strictObject({
    start_sd: nonNegativeNumber()
      .default(start)
      .describe(`sd of ln(${what}) between server starts of one configuration.`),
    run_sd: nonNegativeNumber()
      .default(run)
      .describe(
        `sd of ln(${what}) between runs on one server start, beyond the sampling noise of its requests.`,
      ),
  }).default({ start_sd: start, run_sd: run });

const defaultNoisePrior = {
  throughput: { start_sd: 0.01, run_sd: 0.005 },
  tpot: { start_sd: 0.01, run_sd: 0.015 },
  e2e: { start_sd: 0.01, run_sd: 0.015 },
  ttft: { start_sd: 0.03, run_sd: 0.03 },
  weight_starts: 4,
  max_age_days: 30,
} as const;

const noisePriorSchema = strictObject({
  throughput: levelPrior(
    defaultNoisePrior.throughput.start_sd,
    defaultNoisePrior.throughput.run_sd,
    "throughput, goodput of sessions, counts per request",
  ),
  tpot: levelPrior(defaultNoisePrior.tpot.start_sd, defaultNoisePrior.tpot.run_sd, "TPOT and ITL"),
  e2e: levelPrior(
    defaultNoisePrior.e2e.start_sd,
    defaultNoisePrior.e2e.run_sd,
    "E2E latency, goodput and session durations",
  ),
  ttft: levelPrior(defaultNoisePrior.ttft.start_sd, defaultNoisePrior.ttft.run_sd, "TTFT"),
  weight_starts: nonNegativeNumber()
    .default(defaultNoisePrior.weight_starts)
    .describe(
      "Weight of the prior start-to-start variance, in degrees of freedom (server starts' worth of evidence), when pooled with what the runs' own starts show; 0 trusts the starts alone.",
    ),
  max_age_days: nonNegativeNumber()
    .default(defaultNoisePrior.max_age_days)
    .describe(
      "Days a noise prior measured on this runner (a calibration, main's history) is taken as current: an older one is still used (and widened where the runs contradict it), but the verdict warns and the report marks it stale (docs/compare.md#noise-known-in-advance).",
    ),
})
  .default({
    throughput: { ...defaultNoisePrior.throughput },
    tpot: { ...defaultNoisePrior.tpot },
    e2e: { ...defaultNoisePrior.e2e },
    ttft: { ...defaultNoisePrior.ttft },
    weight_starts: defaultNoisePrior.weight_starts,
    max_age_days: defaultNoisePrior.max_age_days,
  })
  .describe(
    "Noise believed before the runs, per metric family: start_sd (between server starts) and run_sd (between runs on one start). The start level is added to a side whose runs share few starts; a calibration or main's history replaces it where it has measured it.",
  );

const gateSchema = strictObject({
  metrics: z
    .array(z.enum(gatableMetricNames))
    .default([...gatedMetricNames])
    .describe("Metrics in the blocking family (per cell); all others are advisory."),
  tolerance: fraction()
    .default(0.05)
    .describe(
      "Relative change that is acceptable (0.05 = 5%): a true change at or inside it is blocked with probability at most 1 − confidence.",
    ),
  detect_change: fraction()
    .optional()
    .describe(
      "Smallest regression the gate must catch (0.1 = 10%), larger than tolerance: the report states each check's minimum detectable change against it and how many more runs would reach it. Default: twice the tolerance (0.1 at the default 0.05).",
    ),
  budget_gpu_minutes: positiveNumber("a number of GPU-minutes > 0")
    .max(configLimits.budgetGpuMinutes, atMost(configLimits.budgetGpuMinutes, "GPU-minutes per pull request"))
    .optional()
    .describe(
      "Most GPU-minutes one pull request may spend, every server start counted (docs/action.md, Choosing a budget). The gate then measures the plan that decides the most gated checks at detect_change within it (runs per side, runs per server start, requests per run of each cell), in one look; a check the budget cannot decide is reported with the smallest change it could catch and the budget that would decide it. Absent: the run plan of the config's repeats and sizes, with sequential looks up to repeats.max.",
    ),
  metric_tolerance: z
    .partialRecord(z.enum(metricNames), fraction())
    .default({})
    .describe("Per-metric tolerance overrides."),
  confidence: z
    .number()
    .gt(0.5)
    .lt(1)
    .default(0.95)
    .describe("Family-wise confidence of the blocking decision."),
  fail_on: z.enum(["regression", "inconclusive", "never"]).default("regression"),
  error_rate_limit: fraction()
    .default(0.01)
    .describe("Absolute limit on the candidate's failed-request fraction."),
  min_requests: strictObject({
    p90: positiveInt().default(100),
    p95: positiveInt().default(200),
    p99: positiveInt().default(1000),
    p99_9: positiveInt().default(10000),
  })
    .default({ p90: 100, p95: 200, p99: 1000, p99_9: 10000 })
    .describe(
      "Successful requests every run needs before that percentile is gated; below it the metric is advisory.",
    ),
  allowed_differences: z
    .array(z.string())
    .default([])
    .describe(
      "Fingerprint fields allowed to differ between baseline and candidate (the thing under test), e.g. server.image, server.args.",
    ),
  on_not_comparable: z.enum(["fail", "warn"]).default("fail"),
  session_drift_sd: nonNegativeNumber()
    .default(0.02)
    .describe(
      "Prior for the sd of the ln shift between two sessions (jobs) in stored mode; the baseline history's estimate is shrunk towards it.",
    ),
  baseline_sessions: positiveInt()
    .max(configLimits.baselineSessions, atMost(configLimits.baselineSessions, "baseline sessions"))
    .default(10)
    .describe(
      "Stored baselines of the base branch a pull request reads (stored mode): the one it compares with plus up to this many minus one earlier ones, from which the between-session drift is estimated.",
    ),
  min_run_sd: nonNegativeNumber()
    .default(0.005)
    .describe(
      "Floor on the run-to-run sd of ln(metric) per side: identical runs (a deterministic simulator) are treated as varying by this much, never as infinite certainty.",
    ),
  noise_prior: noisePriorSchema,
  family_weight: z
    .number(familyWeightExpected)
    .min(0, familyWeightExpected)
    .max(maxFamilyWeight, familyWeightExpected)
    .default(defaultFamilyWeight)
    .describe(
      "Share of each grouped check's level given to its workload family's combined test (docs/compare.md#family-tests): a change that moves a metric in every cell of a family is caught from the family's pooled runs, at the price of this share on each single-cell test until the family test is rejected. 0 turns the family tests off (Holm over the checks alone).",
    ),
  runs_are_fresh_starts: z
    .boolean()
    .default(false)
    .describe(
      "Declares that every compared run whose file records no server start (run.json files of earlier versions, vLLM results without server_start) was measured on a fresh server start (docs/compare.md#server-starts). Default false: such runs of one input are taken to share one start, the conservative reading. Runs that record their start keep it.",
    ),
  outlier_threshold: nonNegativeNumber()
    .default(5)
    .describe(
      "Screen out a run whose gated metrics sit, on average, more than this many robust sd from its side's median (sides of >= 5 runs; at most 1 in 5 runs); 0 turns the screen off.",
    ),
})
  .refine((gate) => gate.detect_change === undefined || gate.detect_change > gate.tolerance, {
    message: "expected detect_change > tolerance (the change to catch must be larger than the one accepted)",
    path: ["detect_change"],
  })
  // Derived when absent, so raising the tolerance alone never makes a config invalid.
  .transform((gate) => ({ ...gate, detect_change: gate.detect_change ?? 2 * gate.tolerance }));

const repeatsSchema = strictObject({
  min: positiveInt()
    .max(configLimits.runs, atMost(configLimits.runs, "runs per side"))
    .default(5)
    .describe("Runs per side before the first decision."),
  max: positiveInt()
    .max(configLimits.runs, atMost(configLimits.runs, "runs per side"))
    .default(25)
    .describe(
      "Most runs per side (measured, screened outlier runs included) while the verdict stays inconclusive; looks at 5, 10, 15, 20 and 25 by default.",
    ),
  baseline: z
    .number()
    .int()
    .min(2, "expected a whole number >= 2 (a stored baseline needs 2 runs to estimate run-to-run noise)")
    .max(configLimits.runs, atMost(configLimits.runs, "runs per side"))
    .default(10)
    .describe(
      "Runs per cell a stored baseline records (mode baseline, or auto on the default branch). A pull request adds runs only on its own side, so the baseline is measured once with enough runs.",
    ),
  block: z
    .union([
      positiveInt().max(configLimits.runs, atMost(configLimits.runs, "runs per side")),
      z.literal("auto"),
      z.literal("fresh"),
    ])
    .default("auto")
    .describe(
      'Interleaved mode: runs per side measured back to back on one server start, alternating in groups (A5 B10 A10 B10 A5 for 20 runs at 5). Larger blocks cost fewer server starts; 1 (A B B A per run) protects best against drift within the job and lets compare see the start-to-start noise. "fresh": every run of a side on a server start of its own (A B B A per run), so each run is an independent replicate and the start-to-start noise is inside the runs\' own spread (a server the runner starts only). "auto" chooses by cost (docs/compare.md, "Server starts"): runs per start in proportion to the square root of the run-level over the start-level variance and of a start\'s cost over a run\'s; fresh when that is below two runs, else at least two starts per side at the first look when the start level matters for the tolerance.',
    ),
}).refine((repeats) => repeats.max >= repeats.min, { message: "expected max >= min" });

const costSchema = strictObject({
  gpus: positiveInt()
    .max(4096, "expected at most 4096 GPUs")
    .default(1)
    .describe("GPUs the server uses, for cost per 1,000 successful requests and tok/s per GPU."),
  gpu_hourly_usd: positiveNumber()
    .optional()
    .describe("Hourly price of the GPUs the server uses, for cost per 1,000 successful requests."),
  server_start_s: nonNegativeNumber()
    .optional()
    .describe(
      "GPU seconds one server start costs (image pull aside: weights load, compile, warm-up), for the GPU-minutes validate estimates and the report prints. Default 180 for docker and command, 0 for external, 1 for sim.",
    ),
});

/** One server's devices: an index (`3`) or a comma list for a server spanning several (`"0,1"`). */
const deviceSpec = z
  .union([
    nonNegativeInt("a device index"),
    z.string().regex(/^\d+(,\d+)*$/, 'expected a device index or a comma list such as "0,1"'),
  ])
  .transform(String);

/**
 * The measuring machine: its GPUs, one server on each (docs/action.md, Several GPUs), and how the open-loop
 * schedules are timed (docs/run.md, Schedules).
 */
const runnerSchema = strictObject({
  devices: z
    .union(
      [
        positiveInt("a number of devices").max(configLimits.devices, atMost(configLimits.devices, "devices")),
        z
          .array(deviceSpec)
          .min(1, "expected at least one device")
          .max(configLimits.devices, atMost(configLimits.devices, "devices")),
      ],
      {
        error: (issue) =>
          `expected a number of devices or a list of device indices (each a number or "0,1" for a server on two), got ${describeValue(issue.input)}`,
      },
    )
    .optional()
    .transform((devices) =>
      devices === undefined
        ? undefined
        : typeof devices === "number"
          ? Array.from({ length: devices }, (_, index) => String(index))
          : devices,
    )
    .describe(
      'GPUs to measure on at once, one server on each: a count (4: devices 0-3) or a list ([0, 2] or ["0,1", "2,3"] for servers on two GPUs). Docker gets --gpus device=K, a command CUDA_VISIBLE_DEVICES=K, the simulator --device K. Cells and both sides run in parallel, each cell\'s sides on one device (a crossover). Unset: one server at a time, on the GPUs server.gpus names.',
    ),
  schedule: scheduleKind.default("idle-elided"),
  settle_ms: nonNegativeNumber("a number of milliseconds >= 0")
    .max(configLimits.settleMs, atMost(configLimits.settleMs, "runner.settle_ms"))
    .default(100)
    .describe(
      "idle-elided: how long after the last request ended the next arrival is sent, where its time is later.",
    ),
}).refine(
  (runner) => runner.devices === undefined || new Set(runner.devices).size === runner.devices.length,
  {
    message: "expected each device once",
    path: ["devices"],
  },
);

const telemetrySchema = strictObject({
  metrics_interval_s: positiveNumber()
    .max(configLimits.seconds, atMost(configLimits.seconds, "seconds"))
    .default(2)
    .describe("How often /metrics is sampled during a run."),
  nvidia_smi_interval_s: positiveNumber()
    .max(configLimits.seconds, atMost(configLimits.seconds, "seconds"))
    .default(1)
    .describe("How often nvidia-smi is sampled, where present."),
});

const clientSchema = strictObject({
  max_schedule_lag_ms: positiveNumber()
    .default(10)
    .describe("Median lateness of sends beyond which a run is flagged client-bound."),
  max_event_loop_lag_ms: positiveNumber()
    .default(50)
    .describe("Event-loop delay (p99) beyond which a run is flagged client-bound."),
  max_server_lateness_ms: positiveNumber()
    .default(100)
    .describe(
      "Simulator only: p99 of its step loop's lateness (sim:step_lateness_seconds) beyond which a run is excluded as server host starved. Real vLLM exports no such family: no effect there.",
    ),
});

/**
 * Quality beside speed (docs/quality.md): the guard checks every compared cell gets from its measured
 * requests, judged as a family of their own.
 */
const qualityGuardsSchema = strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe("Judge the guard metrics (finish reasons, zero outputs, usage vs chunks, output length)."),
  share_points: fraction()
    .default(0.02)
    .describe(
      "Rise of a guard share (requests finished at max_tokens, aborted, with zero output, with usage unlike the chunks) that is a regression when significant: 0.02 = 2 percentage points.",
    ),
  output_length_tolerance: fraction()
    .default(0.1)
    .describe(
      "Relative shift of the mean output tokens per request, either way, that is a regression when significant (MLPerf's TEST09 allows 10%).",
    ),
});

/**
 * The greedy-output check: its cells' requests are sent greedy (temperature 0, ignore_eos false, logprobs
 * asked), their outputs kept per prompt in run.json and compared with the baseline's.
 */
const qualityGreedySchema = strictObject({
  cells: z
    .array(z.string())
    .min(1, "expected at least one cell name")
    .describe(
      "Cells whose outputs are kept and compared (a few hundred prompts at low load); their requests are sent with temperature 0 and ignore_eos false whatever `sampling` says.",
    ),
  logprobs: nonNegativeInt()
    .max(20, atMost(20, "logprobs (vLLM's default --max-logprobs is 20)"))
    .default(1)
    .describe(
      "logprobs asked per token (completions `logprobs: k`, chat `top_logprobs: k`); 0 asks for none.",
    ),
  first_tokens: positiveInt()
    .max(configLimits.tokens, atMost(configLimits.tokens, "token counts"))
    .default(32)
    .describe("N of the share of prompts whose output is identical up to the first N tokens."),
  max_changed_share: fraction()
    .default(0.02)
    .describe(
      "Share of prompts whose output may differ from the baseline's beyond the baseline's own run-to-run differences (0.02 = 2%).",
    ),
  max_prefix_changed_share: fraction().default(0.02).describe("The same for the first first_tokens tokens."),
  min_similarity: fraction()
    .default(0.98)
    .describe("Lowest acceptable mean token-level similarity (1 - edit distance / longer length)."),
  max_logprob_drift: nonNegativeNumber()
    .default(0.05)
    .describe(
      "Largest acceptable mean |logprob change| (nats) of the chosen tokens, over the tokens both sides chose alike.",
    ),
  examples: nonNegativeInt()
    .max(20, atMost(20, "examples"))
    .default(3)
    .describe("Most-changed prompts shown in the report (escaped, cut short)."),
});

/**
 * The `external` form of the task-accuracy check (docs/quality.md, External tasks): a command (e.g. an
 * lm-eval-harness invocation) run against the cell's server after the cell's first run, whose JSON result
 * is read by dotted paths. Arguments are templates: {base_url}, {model}, {output_dir}, {result_file}.
 */
const externalTaskLimits = { commands: 8, timeoutS: 86_400 } as const;
const qualityExternalTaskSchema = strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, "expected 1-64 letters, digits, '_', '.' or '-' (it names a file)")
    .describe(
      "Names the check in the report and its result file external-<name>.json in the run's directory.",
    ),
  cell: nonEmptyString("a cell name").describe(
    "The cell whose server the command runs against, once per side, after that cell's first run (run 0).",
  ),
  command: z
    .array(z.string())
    .min(1, "expected the command and its arguments, e.g. [lm_eval, --model, local-completions, ...]")
    .describe(
      "Program and arguments, run without a shell; {base_url}, {model}, {output_dir} and {result_file} are replaced in each argument. The environment is inherited (an API key is read from it by the command, never written into the arguments).",
    ),
  accuracy_path: nonEmptyString("a dotted path, e.g. results.gsm8k.exact_match,strict-match").describe(
    "Dotted path of the accuracy (a number from 0 to 1) in the JSON result.",
  ),
  count_path: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Dotted path of the number of samples scored (needed for the interval when samples_path is absent).",
    ),
  samples_path: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Dotted path of an array of per-sample results; when both sides have it, the paired test (McNemar) applies.",
    ),
  id_field: nonEmptyString().default("doc_id").describe("A sample's id (pairs the sides' samples)."),
  score_field: nonEmptyString()
    .default("score")
    .describe("A sample's score: true/false or 1/0 (a number >= 0.5 counts as correct)."),
  timeout_s: positiveInt()
    .max(externalTaskLimits.timeoutS, atMost(externalTaskLimits.timeoutS, "seconds of an external command"))
    .default(3600)
    .describe(
      "Longest the command may run before it is stopped (the limit quality.tasks.external[].timeout_s).",
    ),
}).refine((spec) => spec.samples_path !== undefined || spec.count_path !== undefined, {
  message: "expected samples_path or count_path (the number of samples is needed for the Wilson interval)",
  path: ["count_path"],
});

/** The task-accuracy check of every `tasks` cell (docs/quality.md). */
const qualityTasksSchema = strictObject({
  tolerance_points: fraction()
    .default(0.02)
    .describe(
      "Drop in accuracy that is a regression when the paired test (exact McNemar) says it is real: 0.02 = 2 points.",
    ),
  external: z
    .array(qualityExternalTaskSchema)
    .max(externalTaskLimits.commands, atMost(externalTaskLimits.commands, "external task commands"))
    .default([])
    .describe("External task-accuracy commands (e.g. lm-eval-harness) run against a cell's server."),
});

const qualitySchema = strictObject({
  guards: qualityGuardsSchema.default(qualityGuardsSchema.parse({})),
  tasks: qualityTasksSchema.default(qualityTasksSchema.parse({})),
  greedy: qualityGreedySchema.optional(),
});

export const configSchema = strictObject({
  version: z.literal(1, {
    error: (issue) => `expected 1 (the only config version), got ${JSON.stringify(issue.input)}`,
  }),
  name: z.string().optional().describe("A label for reports."),
  seed: nonNegativeInt().default(0).describe("Workload seed shared by all cells unless a cell sets its own."),
  server: serverSchema,
  model: modelSchema,
  sampling: samplingSchema.default({ temperature: 0, top_p: 1, ignore_eos: true, extra_body: {} }),
  cells: z
    .array(cellSchema)
    .min(1, "expected at least one cell")
    .max(
      configLimits.cells,
      `expected at most ${configLimits.cells} cells (the limit on cells; see docs/config-reference.md#limits)`,
    ),
  repeats: repeatsSchema.default({ min: 5, max: 25, baseline: 10, block: "auto" }),
  gate: gateSchema.default(gateSchema.parse({})),
  cost: costSchema.default({ gpus: 1 }),
  runner: runnerSchema.default(runnerSchema.parse({})),
  telemetry: telemetrySchema.default({ metrics_interval_s: 2, nvidia_smi_interval_s: 1 }),
  client: clientSchema.default({
    max_schedule_lag_ms: 10,
    max_event_loop_lag_ms: 50,
    max_server_lateness_ms: 100,
  }),
  quality: qualitySchema.default(qualitySchema.parse({})),
}).superRefine((config, context) => {
  for (const problem of duplicateCellNames(config.cells)) context.addIssue({ code: "custom", ...problem });
  for (const problem of promptTokenBudget(config.cells)) context.addIssue({ code: "custom", ...problem });
  for (const problem of capacityProblems(config.cells)) context.addIssue({ code: "custom", ...problem });
  for (const problem of datasetCellProblems(config.cells)) context.addIssue({ code: "custom", ...problem });
  for (const problem of unknownQualityCells(config)) context.addIssue({ code: "custom", ...problem });
  for (const problem of deviceProblems(config)) context.addIssue({ code: "custom", ...problem });
  for (const problem of freshStartProblems(config)) context.addIssue({ code: "custom", ...problem });
});

/**
 * repeats.block fresh restarts the server for every run: a server someone else started (server.kind
 * external) cannot be, and its runs would be labelled as starts they never had.
 */
function freshStartProblems(config: {
  repeats: { block: number | "auto" | "fresh" };
  server: ServerConfig;
}): { path: (string | number)[]; message: string }[] {
  if (config.repeats.block !== "fresh" || serverKindFacts[config.server.kind].launchesProcess) return [];
  return [
    {
      path: ["repeats", "block"],
      message: `expected a number or "auto" with server.kind ${config.server.kind}: "fresh" restarts the server for every run, and this server is not started by the runner`,
    },
  ];
}

/**
 * runner.devices runs one server per device at once: each needs its own port (a command's argv says
 * `{port}`), a server we do not start cannot be placed on a device, and capacity and sweep cells (which
 * decide their own runs) are measured one server at a time.
 */
function deviceProblems(config: {
  runner: { devices?: readonly string[] | undefined };
  server: ServerConfig;
  cells: readonly CellConfig[];
}): { path: (string | number)[]; message: string }[] {
  const devices = config.runner.devices;
  if (devices === undefined) return [];
  const problems = serverDeviceProblems(config.server, devices);
  const searched = config.cells.filter((cell) => cell.capacity !== undefined || cell.sweep !== undefined);
  if (searched.length > 0)
    problems.push({
      path: ["runner", "devices"],
      message: `expected no capacity or sweep cells with runner.devices (they are measured one server at a time): ${searched.map((cell) => cell.name).join(", ")}; keep them in a config of their own`,
    });
  return problems;
}

/**
 * A capacity cell needs an objective (an SLO in `slo`) and a load with one dimension to search (rate or
 * concurrency); a sweep needs the same load, and a trace (whose clock times its arrivals) concurrency.
 * Checked here because they span fields of the cell.
 */
function capacityProblems(cells: readonly CellConfig[]): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  cells.forEach((cell, index) => {
    for (const key of ["capacity", "sweep"] as const) {
      if (cell[key] === undefined) continue;
      if (cell.load.type === "stages")
        problems.push({
          path: ["cells", index, "load", "type"],
          message: `expected rate or concurrency in a cell with ${key} (the load dimension searched), got stages`,
        });
      // A trace's own clock (its timestamps x time_scale) sets an open-loop load's arrivals: a searched
      // rate would never be applied. Its closed-loop replay searches sessions in flight.
      else if (cell.load.type === "rate" && isTraceDataset(cell.dataset))
        problems.push({
          path: ["cells", index, "load", "type"],
          message: `expected concurrency in a cell with ${key} and a ${cell.dataset.type} dataset (the trace's timestamps times dataset.time_scale set its arrivals, so a searched rate would not be applied), got rate; search concurrency, or scale the replay with dataset.time_scale in a fixed-load cell`,
        });
    }
    if (cell.capacity === undefined) return;
    const slo = cell.slo ?? {};
    if (slo.ttft_ms === undefined && slo.tpot_ms === undefined && slo.e2el_ms === undefined)
      problems.push({
        path: ["cells", index, "slo"],
        message:
          "expected at least one of ttft_ms, tpot_ms, e2el_ms in a capacity cell's slo (the objectives the capacity is the highest load meeting)",
      });
    if (cell.load.type === "concurrency" && cell.capacity.range.max > configLimits.concurrency)
      problems.push({
        path: ["cells", index, "capacity", "range", "max"],
        message: `expected at most ${configLimits.concurrency} (the limit on requests in flight; see docs/config-reference.md#limits), got ${cell.capacity.range.max}`,
      });
  });
  return problems;
}

/** The quality checks name cells: each must be one of `cells`. */
function unknownQualityCells(config: {
  cells: readonly { name: string }[];
  quality: {
    greedy?: { cells: readonly string[] } | undefined;
    tasks: { external: readonly { cell: string; name: string }[] };
  };
}): { path: (string | number)[]; message: string }[] {
  const names = new Set(config.cells.map((cell) => cell.name));
  const unknown = (name: string, path: (string | number)[]) =>
    names.has(name)
      ? []
      : [{ path, message: `expected the name of a cell (${[...names].join(", ")}), got "${name}"` }];
  const seen = new Set<string>();
  const twice = (name: string, index: number) => {
    if (!seen.has(name)) {
      seen.add(name);
      return [];
    }
    return [
      {
        path: ["quality", "tasks", "external", index, "name"],
        message: `expected a unique name, got "${name}" twice`,
      },
    ];
  };
  return [
    ...(config.quality.greedy?.cells ?? []).flatMap((name, index) =>
      unknown(name, ["quality", "greedy", "cells", index]),
    ),
    ...config.quality.tasks.external.flatMap((spec, index) => [
      ...unknown(spec.cell, ["quality", "tasks", "external", index, "cell"]),
      ...twice(spec.name, index),
    ]),
  ];
}

/**
 * Prompt tokens a run of `size.requests` sends at most (the runner builds the bodies before the measured
 * phase): bounded by configLimits.promptTokensPerRun so a run's prompts fit in memory. Datasets whose kind
 * bounds no request's prompt (files, sessions) are not estimated here.
 */
function promptTokenBudget(cells: readonly CellConfig[]): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  cells.forEach((cell, index) => {
    if (!("requests" in cell.size)) return;
    const perRequest = promptTokensCeiling(cell.dataset);
    if (perRequest === null) return;
    const limit = configLimits.promptTokensPerRun;
    if (cell.size.requests * perRequest > limit) {
      problems.push({
        path: ["cells", index, "size", "requests"],
        message: `expected at most ${Math.max(1, Math.floor(limit / perRequest))} requests with prompts of up to ${perRequest} tokens (the limit of ${limit} prompt tokens per run; see docs/config-reference.md#limits), got ${cell.size.requests}`,
      });
    }
  });
  return problems;
}

/**
 * What a cell's dataset asks that the rest of the cell cannot give: a session's conversation is a chat, so
 * its endpoint is chat (a trace's rows are prompts as given, so either endpoint); the kind's own problems
 * (its `problems`: a generated session's turns and deepest context, a fan-out's turns, a mapped trace's
 * format and columns); a trace's window ends after it starts.
 */
function datasetCellProblems(cells: readonly CellConfig[]): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  cells.forEach((cell, index) => {
    const dataset = cell.dataset;
    if (isSessionDataset(dataset) && !isTraceDataset(dataset) && cell.endpoint !== "chat")
      problems.push({
        path: ["cells", index, "endpoint"],
        message: `expected chat for a ${dataset.type} dataset (a session sends its conversation as messages), got ${cell.endpoint}`,
      });
    for (const problem of datasetProblems(dataset, { sessionsInFlight: sessionsInFlight(cell.load) }))
      problems.push({ path: ["cells", index, "dataset", ...problem.path], message: problem.message });
    if (isTraceDataset(dataset)) problems.push(...traceWindowProblems(dataset, index));
  });
  return problems;
}

/**
 * Sessions a cell's load can hold in flight at once (its closed-loop concurrency or max_concurrency);
 * null when an open-loop load has no cap.
 */
function sessionsInFlight(load: LoadConfig): number | null {
  switch (load.type) {
    case "concurrency":
      return load.concurrency;
    case "rate":
      return load.max_concurrency ?? null;
    case "stages": {
      if (load.stages.some((stage) => stage.concurrency === undefined) && load.max_concurrency === undefined)
        return null;
      return Math.max(load.max_concurrency ?? 0, ...load.stages.map((stage) => stage.concurrency ?? 0));
    }
  }
}

/** A trace's window ends after it starts. */
function traceWindowProblems(
  dataset: TraceDatasetConfig,
  index: number,
): { path: (string | number)[]; message: string }[] {
  const window = dataset.window;
  return window?.end_s !== undefined && window.end_s <= window.start_s
    ? [
        {
          path: ["cells", index, "dataset", "window", "end_s"],
          message: `expected more than start_s (${window.start_s}), got ${window.end_s}`,
        },
      ]
    : [];
}

/** Cell names key the results directories and the report, so they must be unique. */
export function duplicateCellNames(
  cells: readonly unknown[],
): { path: (string | number)[]; message: string }[] {
  const seen = new Map<string, number>();
  const problems: { path: (string | number)[]; message: string }[] = [];
  cells.forEach((cell, index) => {
    const name = (cell as { name?: unknown } | null)?.name;
    if (typeof name !== "string") return;
    const first = seen.get(name);
    if (first === undefined) seen.set(name, index);
    else
      problems.push({
        path: ["cells", index, "name"],
        message: `duplicate cell name "${name}" (also cells[${first}].name)`,
      });
  });
  return problems;
}

export type Config = z.output<typeof configSchema>;
export type { ServerConfig } from "./server-kinds.js";
export type CellConfig = Config["cells"][number];

/** A cell measured over loads instead of N times at one: a capacity search or a sweep (docs/capacity.md). */
export function isSearchedCell(cell: CellConfig): boolean {
  return cell.capacity !== undefined || cell.sweep !== undefined;
}

export type LoadConfig = CellConfig["load"];
export type GateConfig = Config["gate"];
export type QualityConfig = Config["quality"];
export type ExternalTaskConfig = QualityConfig["tasks"]["external"][number];
export type SamplingConfig = Config["sampling"];
export type ModelConfig = Config["model"];
