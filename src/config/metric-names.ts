/**
 * The metric catalogue: every metric the tool measures, compares and reports is declared here once,
 * with the facts each folder needs: config (the names `gate.metrics` accepts, the default blocking
 * family), metrics (what the value is, so run.json and `vllm bench serve` results are read the same
 * way; the vLLM result keys), compare (direction, how it is judged, the `gate.min_requests`
 * percentile, whether it counts toward a mixed result) and report (label, unit, format). It is the
 * lowest file on the pipeline and imports nothing, so every folder can read it.
 *
 * A latency metric is `<phase>_<statistic>`: one entry in `latencyPhaseSpecs` adds a phase with every
 * statistic, one in `latencyStatisticSpecs` a statistic for every phase. A rate is one entry in
 * `rateSpecs`. The tables are `satisfies`-checked and the readers switch exhaustively on
 * `MetricSource`, so the compiler lists what a new entry still needs (ARCHITECTURE.md, "Adding a metric").
 */

/** The `gate.min_requests` keys: percentiles gated only when every run has that many successful requests. */
type MinRequestsStatistic = "p90" | "p95" | "p99" | "p99_9";

interface LatencyStatisticSpec {
  /** As shown after the phase label: "TTFT p99.9". */
  label: string;
  /** The quantile (numpy-linear), null for the mean. */
  quantile: number | null;
  /** vLLM's aggregate key `{mean|median}_{phase}_ms` (both also LatencySummary fields), if any. */
  vllmAggregate: "mean" | "median" | null;
  /** P of vLLM's `p{P}_{phase}_ms`, as `--metric-percentiles` spells it, if any. */
  vllmPercentile: string | null;
  minRequests: MinRequestsStatistic | null;
}

const latencyStatisticSpecs = {
  mean: { label: "mean", quantile: null, vllmAggregate: "mean", vllmPercentile: null, minRequests: null },
  p50: { label: "p50", quantile: 0.5, vllmAggregate: "median", vllmPercentile: "50", minRequests: null },
  p90: { label: "p90", quantile: 0.9, vllmAggregate: null, vllmPercentile: "90", minRequests: "p90" },
  p95: { label: "p95", quantile: 0.95, vllmAggregate: null, vllmPercentile: "95", minRequests: "p95" },
  p99: { label: "p99", quantile: 0.99, vllmAggregate: null, vllmPercentile: "99", minRequests: "p99" },
  p99_9: {
    label: "p99.9",
    quantile: 0.999,
    vllmAggregate: null,
    vllmPercentile: "99.9",
    minRequests: "p99_9",
  },
} as const satisfies Record<string, LatencyStatisticSpec>;

export type LatencyStatistic = keyof typeof latencyStatisticSpecs;

interface LatencyPhaseSpec {
  label: string;
  /** What users wait for in this phase, as "What it means" says it: "the slowest 5% wait 30 ms longer {waitFor}". */
  waitFor: string;
  /** Statistics of this phase in the default blocking family (`gate.metrics`; statistics.md §4). */
  defaultGated: readonly LatencyStatistic[];
  /** Statistics that count toward a mixed result (one phase better, another worse). */
  mixed: readonly LatencyStatistic[];
  /** A phase of `vllm bench serve`'s results (its keys are read and written); false for ours alone. */
  vllm: boolean;
  noise: NoiseFamily;
}

/** Per-request latencies in ms, as `vllm bench serve` defines them (metrics/run-metrics.ts computes them). */
const latencyPhaseSpecs = {
  ttft: {
    label: "TTFT",
    waitFor: "for their first token",
    defaultGated: ["p95"],
    mixed: ["p50", "p95"],
    vllm: true,
    noise: "ttft",
  },
  tpot: {
    label: "TPOT",
    waitFor: "for each next token",
    defaultGated: ["p95"],
    mixed: ["p50", "p95"],
    vllm: true,
    noise: "tpot",
  },
  itl: {
    label: "ITL",
    waitFor: "between two chunks of the answer",
    defaultGated: [],
    mixed: ["p95"],
    vllm: true,
    noise: "tpot",
  },
  /** The first chunk with answer text or a tool call, after any reasoning (requests.jsonl firstAnswerTokenMs). */
  answer_ttft: {
    label: "First answer token",
    waitFor: "for the first token of the answer, after the reasoning",
    defaultGated: [],
    mixed: [],
    vllm: false,
    noise: "ttft",
  },
  /** The gaps between chunks from the first answer chunk on. */
  answer_itl: {
    label: "Answer ITL",
    waitFor: "between two chunks of the answer, after the reasoning",
    defaultGated: [],
    mixed: [],
    vllm: false,
    noise: "tpot",
  },
  e2el: {
    label: "E2E latency",
    waitFor: "for the whole answer",
    defaultGated: ["p95"],
    mixed: ["p50", "p95"],
    vllm: true,
    noise: "e2e",
  },
} as const satisfies Record<string, LatencyPhaseSpec>;

export type LatencyPhase = keyof typeof latencyPhaseSpecs;
/** The phases of `vllm bench serve`'s results (metrics/vllm-result-writer.ts writes each). */
export type VllmLatencyPhase = {
  [P in LatencyPhase]: (typeof latencyPhaseSpecs)[P]["vllm"] extends true ? P : never;
}[LatencyPhase];

/** A run.json `throughput` field (per second of the measured phase). */
type ThroughputField = "request" | "output" | "total" | "goodput";

/**
 * What a metric's value is. Each reader (metrics/metric-values.ts for run.json, metrics/vllm-result.ts
 * for `vllm bench serve` results) switches on the kind exhaustively.
 */
export type MetricSource =
  | { kind: "latency"; phase: LatencyPhase; statistic: LatencyStatistic }
  | { kind: "throughput"; field: ThroughputField }
  /** Failed / total requests of the run. */
  | { kind: "failed-fraction" }
  /** A guard share of run.json `guards` (metrics/guards.ts): requests counted / measured requests. */
  | { kind: "guard-share"; field: GuardShareField }
  /** Mean output tokens per completed request (run.json `guards.outputTokens`). */
  | { kind: "guard-length" }
  /** Mean reasoning tokens per completed request (run.json `answer`); null when no request reasoned. */
  | { kind: "reasoning-tokens" }
  /** Malformed tool calls / tool calls of the run (run.json `answer`); null without tool calls. */
  | { kind: "malformed-tool-calls" }
  /** A session dataset's per-run session summary (run.json `sessions`, metrics/session-metrics.ts). */
  | { kind: "session"; field: SessionField }
  /**
   * Speculative decoding over the measured phase, from vLLM's counters (run.json `server`): accepted /
   * draft tokens, or 1 + accepted tokens / drafts; null without a drafter.
   */
  | { kind: "spec-decode"; field: SpecDecodeField };

/** The acceptance figures of speculative decoding (metrics/metric-values.ts `specDecodeValue`). */
export type SpecDecodeField = "acceptance_rate" | "acceptance_length";

/**
 * The values of run.json `sessions` a session metric reads: a duration statistic, the good or completed
 * sessions per second, the mean cache hit rate per session, a fan-out completion statistic, TTFT p95 of
 * a context-depth bucket.
 */
export type SessionField =
  | "duration_p50"
  | "duration_p95"
  | "fan_out_completion_p50"
  | "fan_out_completion_p95"
  | "goodput"
  | "throughput"
  | "cache_hit_rate"
  | `ttft_p95_depth_${"1" | "2_3" | "4_7" | "8_up"}`;

/** The counts of run.json `guards` a guard share is made of (metrics/guards.ts `guardShareCount`). */
export type GuardShareField = "finish_length" | "finish_abort" | "zero_output" | "usage_mismatch";

/**
 * How compare judges it: `per-run` tests one value per run (Welch on the logs); `pooled-failures`
 * pools a count over a side's runs (failed / total requests, malformed / all tool calls: a count has no
 * run-to-run spread); the failed fraction also holds the candidate to `gate.error_rate_limit`.
 */
type MetricJudgement = "per-run" | "pooled-failures" | GuardJudgement;

/**
 * The guard checks (compare/analyze/guards.ts; their tests join the gated family,
 * compare/analyze/gated-family.ts): `guard-share` pools a share over a side's runs and is a regression when
 * it rose significantly by more than `quality.guards.share_points`; `guard-length` pools the output lengths
 * and is a regression when the mean moved significantly, either way, by more than
 * `quality.guards.output_length_tolerance`.
 */
type GuardJudgement = "guard-share" | "guard-length";

/**
 * How the report says a change of a metric to users ("What it means", report/findings.ts): a latency as a
 * wait ("the slowest 5% wait 30 ms longer for their first token"), a count per hour ("1,200 more
 * successful requests per hour"), an amount in its unit ("more output tokens per second"), a share of
 * the requests ("failed requests: 0.1% → 1.2%").
 */
type PlainTerms =
  | { kind: "wait"; waitFor: string }
  | { kind: "per-hour"; noun: string }
  | { kind: "amount"; noun: string }
  | { kind: "share"; noun: string };

/** A metric's unit; "fraction" values are shown as percentages. */
export type MetricUnit = "ms" | "req/s" | "sessions/s" | "tok/s" | "fraction" | "tokens";

interface MetricFacts {
  label: string;
  plain: PlainTerms;
  unit: MetricUnit;
  format: "number" | "percent";
  higherIsBetter: boolean;
  source: MetricSource;
  /** Keys of a `vllm bench serve` result holding the value, read in order (a later one wins); empty when derived. */
  vllmKeys: readonly string[];
  judged: MetricJudgement;
  /** Accepted in `gate.metrics`. */
  gatable: boolean;
  /** In the default `gate.metrics`. */
  defaultGated: boolean;
  /** The `gate.min_requests` entry that decides whether it may block; null when any count may. */
  minRequests: MinRequestsStatistic | null;
  /** Counts toward a mixed result (compare/verdict/summary.ts). */
  mixed: boolean;
  /** Whose noise prior it takes (gate.noise_prior, docs/compare.md "Server starts"). */
  noise: NoiseFamily;
  /**
   * For a metric only some cells measure, the part of a run it needs: a session dataset's sessions, or
   * their fan-outs (docs/workloads.md). A gated one is skipped in a cell where neither side has a value of
   * any metric of that part (`metricsMeasuredIn`): a cell without that part has nothing to gate.
   */
  measuredIn?: "sessions" | "fan-outs";
}

/**
 * The metric families of the noise prior: published run-to-run and start-to-start noise differs by
 * phase (throughput steadiest, TTFT tails noisiest), so each metric names the family whose prior it takes.
 */
const noiseFamilies = ["throughput", "tpot", "e2e", "ttft"] as const;
export type NoiseFamily = (typeof noiseFamilies)[number];

/** Rates and fractions of one run (not per request), declared one by one. */
const rateSpecs = {
  request_throughput: {
    label: "Request throughput",
    plain: { kind: "per-hour", noun: "successful requests" },
    unit: "req/s",
    format: "number",
    higherIsBetter: true,
    source: { kind: "throughput", field: "request" },
    vllmKeys: ["request_throughput"],
    judged: "per-run",
    gatable: true,
    defaultGated: false,
    minRequests: null,
    mixed: true,
    noise: "throughput",
  },
  output_throughput: {
    label: "Output throughput",
    plain: { kind: "amount", noun: "output tokens per second" },
    unit: "tok/s",
    format: "number",
    higherIsBetter: true,
    source: { kind: "throughput", field: "output" },
    vllmKeys: ["output_throughput"],
    judged: "per-run",
    gatable: true,
    defaultGated: true,
    minRequests: null,
    mixed: true,
    noise: "throughput",
  },
  total_token_throughput: {
    label: "Total token throughput",
    plain: { kind: "amount", noun: "tokens per second (prompt and output)" },
    unit: "tok/s",
    format: "number",
    higherIsBetter: true,
    source: { kind: "throughput", field: "total" },
    vllmKeys: ["total_token_throughput"],
    judged: "per-run",
    gatable: true,
    defaultGated: false,
    minRequests: null,
    mixed: false,
    noise: "throughput",
  },
  request_goodput: {
    label: "Goodput",
    plain: { kind: "per-hour", noun: "requests within the SLOs" },
    unit: "req/s",
    format: "number",
    higherIsBetter: true,
    source: { kind: "throughput", field: "goodput" },
    vllmKeys: ["request_goodput"],
    judged: "per-run",
    gatable: true,
    defaultGated: false,
    minRequests: null,
    mixed: true,
    noise: "e2e",
  },
  reasoning_tokens_mean: {
    label: "Reasoning tokens per request",
    plain: { kind: "amount", noun: "reasoning tokens per request" },
    unit: "tokens",
    format: "number",
    // More thinking for the same prompts costs time before the answer and GPU time.
    higherIsBetter: false,
    source: { kind: "reasoning-tokens" },
    vllmKeys: [],
    judged: "per-run",
    gatable: true,
    defaultGated: false,
    minRequests: null,
    mixed: false,
    noise: "throughput",
  },
  malformed_tool_call_share: {
    label: "Malformed tool calls",
    plain: { kind: "share", noun: "tool calls that were malformed" },
    unit: "fraction",
    format: "percent",
    higherIsBetter: false,
    source: { kind: "malformed-tool-calls" },
    vllmKeys: [],
    judged: "pooled-failures",
    gatable: true,
    defaultGated: false,
    minRequests: null,
    mixed: false,
    noise: "throughput",
  },
  error_rate: {
    label: "Error rate",
    plain: { kind: "share", noun: "failed requests" },
    unit: "fraction",
    format: "percent",
    higherIsBetter: false,
    source: { kind: "failed-fraction" },
    vllmKeys: [],
    judged: "pooled-failures",
    gatable: true,
    defaultGated: true,
    minRequests: null,
    mixed: false,
    noise: "throughput",
  },
} as const satisfies Record<string, MetricFacts>;

/**
 * Speculative decoding's acceptance (docs/metrics.md, "Speculative decoding"): per run, from the server's
 * counters over the measured phase; no value (null) where the server has no drafter. Gatable, advisory
 * unless `gate.metrics` names them. vLLM's result file writes the rate in percent, so both are read from
 * its counts (metrics/vllm-result.ts), not from a key.
 */
const specDecodeFacts = {
  higherIsBetter: true,
  // A run-wide count of thousands of draft rounds: as steady from run to run as a throughput.
  noise: "throughput",
  vllmKeys: [],
  judged: "per-run",
  gatable: true,
  defaultGated: false,
  minRequests: null,
  mixed: false,
} as const;

const specDecodeSpecs = {
  spec_decode_acceptance_rate: {
    ...specDecodeFacts,
    label: "Draft acceptance rate",
    plain: { kind: "share", noun: "draft tokens the target model accepted" },
    unit: "fraction",
    format: "percent",
    source: { kind: "spec-decode", field: "acceptance_rate" },
  },
  spec_decode_acceptance_length: {
    ...specDecodeFacts,
    label: "Mean acceptance length",
    plain: { kind: "amount", noun: "tokens per engine step of a request (mean acceptance length)" },
    unit: "tokens",
    format: "number",
    source: { kind: "spec-decode", field: "acceptance_length" },
  },
} as const satisfies Record<string, MetricFacts>;

export type SpecDecodeMetric = keyof typeof specDecodeSpecs;
export const specDecodeMetrics = Object.keys(specDecodeSpecs) as SpecDecodeMetric[];

/**
 * The guard metrics: what the outputs were, from the same measured requests (metrics/guards.ts). Never in
 * `gate.metrics`: they are judged as a family of their own, always (docs/quality.md).
 */
const guardFacts = {
  noise: "throughput",
  unit: "fraction",
  format: "percent",
  higherIsBetter: false,
  vllmKeys: [],
  judged: "guard-share",
  gatable: false,
  defaultGated: false,
  minRequests: null,
  mixed: false,
} as const;

const guardSpecs = {
  finish_length_share: {
    ...guardFacts,
    label: "Finished at max_tokens",
    plain: { kind: "share", noun: "requests that stopped at max_tokens" },
    source: { kind: "guard-share", field: "finish_length" },
  },
  finish_abort_share: {
    ...guardFacts,
    label: "Aborted by the server",
    plain: { kind: "share", noun: "requests the server aborted" },
    source: { kind: "guard-share", field: "finish_abort" },
  },
  zero_output_share: {
    ...guardFacts,
    label: "Zero-output requests",
    plain: { kind: "share", noun: "requests with no output token" },
    source: { kind: "guard-share", field: "zero_output" },
  },
  usage_mismatch_share: {
    ...guardFacts,
    label: "Usage vs chunks mismatch",
    plain: { kind: "share", noun: "requests whose usage disagrees with the chunks" },
    source: { kind: "guard-share", field: "usage_mismatch" },
  },
  output_tokens_mean: {
    ...guardFacts,
    label: "Output tokens per request",
    plain: { kind: "amount", noun: "output tokens per request" },
    unit: "tokens",
    format: "number",
    source: { kind: "guard-length" },
    judged: "guard-length",
  },
} as const satisfies Record<string, MetricFacts>;

/**
 * Session metrics (docs/workloads.md): per run of a session dataset, from its sessions; no value (null) in
 * any other cell. Gatable, advisory unless `gate.metrics` names them.
 */
const sessionFacts = {
  measuredIn: "sessions",
  vllmKeys: [],
  noise: "e2e",
  judged: "per-run",
  gatable: true,
  defaultGated: false,
  minRequests: null,
  mixed: false,
} as const;

/**
 * `short` names the bucket in the label, which the comment's first-screen table shows in its check
 * column: "turn 8 and deeper" there made the table wider than 900 px; sentences keep the long words.
 */
const depthSpec = (bucket: "1" | "2_3" | "4_7" | "8_up", words: string, short = words) =>
  ({
    ...sessionFacts,
    label: `TTFT p95 at ${short}`,
    plain: { kind: "wait", waitFor: `for their first token at ${words}` },
    unit: "ms",
    format: "number",
    higherIsBetter: false,
    source: { kind: "session", field: `ttft_p95_depth_${bucket}` },
    minRequests: "p95",
    noise: "ttft",
  }) as const;

/**
 * A fan-out's completion time (docs/workloads.md, Sub-agent fan-out): its first branch's send to its
 * slowest branch's answer, the time the session waits before it goes on.
 */
const fanOutSpec = (statistic: "p50" | "p95") =>
  ({
    ...sessionFacts,
    measuredIn: "fan-outs",
    label: `Fan-out completion ${statistic}`,
    plain: { kind: "wait", waitFor: "for a fan-out's slowest branch" },
    unit: "ms",
    format: "number",
    higherIsBetter: false,
    source: { kind: "session", field: `fan_out_completion_${statistic}` },
  }) as const;

const sessionSpecs = {
  session_duration_p50: {
    ...sessionFacts,
    label: "Session duration p50",
    plain: { kind: "wait", waitFor: "for a whole session" },
    unit: "ms",
    format: "number",
    higherIsBetter: false,
    source: { kind: "session", field: "duration_p50" },
  },
  session_duration_p95: {
    ...sessionFacts,
    label: "Session duration p95",
    plain: { kind: "wait", waitFor: "for a whole session" },
    unit: "ms",
    format: "number",
    higherIsBetter: false,
    source: { kind: "session", field: "duration_p95" },
  },
  session_throughput: {
    ...sessionFacts,
    label: "Session throughput",
    plain: { kind: "per-hour", noun: "completed sessions" },
    unit: "sessions/s",
    format: "number",
    higherIsBetter: true,
    source: { kind: "session", field: "throughput" },
    noise: "throughput",
  },
  session_goodput: {
    ...sessionFacts,
    label: "Session goodput",
    plain: { kind: "per-hour", noun: "sessions whose every turn met the SLOs" },
    unit: "sessions/s",
    format: "number",
    higherIsBetter: true,
    source: { kind: "session", field: "goodput" },
  },
  session_cache_hit_rate: {
    ...sessionFacts,
    label: "Prefix-cache hit rate per session",
    plain: { kind: "share", noun: "prompt tokens per session served from the prefix cache" },
    unit: "fraction",
    format: "percent",
    higherIsBetter: true,
    source: { kind: "session", field: "cache_hit_rate" },
    noise: "throughput",
  },
  fan_out_completion_p50: fanOutSpec("p50"),
  fan_out_completion_p95: fanOutSpec("p95"),
  ttft_p95_depth_1: depthSpec("1", "turn 1"),
  ttft_p95_depth_2_3: depthSpec("2_3", "turns 2-3"),
  ttft_p95_depth_4_7: depthSpec("4_7", "turns 4-7"),
  ttft_p95_depth_8_up: depthSpec("8_up", "turn 8 and deeper", "turn 8+"),
} as const satisfies Record<string, MetricFacts>;

export type SessionMetric = keyof typeof sessionSpecs;
export const sessionMetrics = Object.keys(sessionSpecs) as SessionMetric[];

export type GuardMetric = keyof typeof guardSpecs;
export const guardMetrics = Object.keys(guardSpecs) as GuardMetric[];

type RateMetric = keyof typeof rateSpecs;
export type LatencyMetric = `${LatencyPhase}_${LatencyStatistic}`;
export type MetricName = LatencyMetric | RateMetric | SpecDecodeMetric | SessionMetric | GuardMetric;

/** Everything known about one metric. */
export interface MetricSpec extends MetricFacts {
  name: MetricName;
}

/** vLLM result keys of the `throughput` metrics: metrics/vllm-result-writer.ts must write each. */
export type VllmThroughputKey = {
  [M in RateMetric]: (typeof rateSpecs)[M]["source"]["kind"] extends "throughput"
    ? (typeof rateSpecs)[M]["vllmKeys"][number]
    : never;
}[RateMetric];

export const latencyPhases = Object.keys(latencyPhaseSpecs) as LatencyPhase[];
function isVllmLatencyPhase(phase: LatencyPhase): phase is VllmLatencyPhase {
  return latencyPhaseSpecs[phase].vllm;
}
export const vllmLatencyPhases: readonly VllmLatencyPhase[] = latencyPhases.filter(isVllmLatencyPhase);
export const latencyStatistics = Object.keys(latencyStatisticSpecs) as LatencyStatistic[];
const rateMetrics = Object.keys(rateSpecs) as RateMetric[];

export function latencyMetricName(phase: LatencyPhase, statistic: LatencyStatistic): LatencyMetric {
  return `${phase}_${statistic}`;
}

/** The statistic as vLLM's writer names it for `phase`: `mean_ttft_ms`, `median_ttft_ms`, `p99.9_ttft_ms`. */
function latencyVllmKeys(phase: LatencyPhase, statistic: LatencyStatistic): string[] {
  const spec: LatencyStatisticSpec = latencyStatisticSpecs[statistic];
  const keys: string[] = [];
  if (!isVllmLatencyPhase(phase)) return keys;
  if (spec.vllmAggregate !== null) keys.push(`${spec.vllmAggregate}_${phase}_ms`);
  if (spec.vllmPercentile !== null) keys.push(`p${spec.vllmPercentile}_${phase}_ms`);
  return keys;
}

/** "TTFT", "E2E latency": the phase's label without a statistic (the report's distribution charts). */
export function latencyPhaseLabel(phase: LatencyPhase): string {
  return latencyPhaseSpecs[phase].label;
}

export function latencyStatisticSpec(statistic: LatencyStatistic): Readonly<LatencyStatisticSpec> {
  return latencyStatisticSpecs[statistic];
}

function latencySpec(phase: LatencyPhase, statistic: LatencyStatistic): MetricSpec {
  const phaseSpec: LatencyPhaseSpec = latencyPhaseSpecs[phase];
  const statisticSpec: LatencyStatisticSpec = latencyStatisticSpecs[statistic];
  return {
    name: latencyMetricName(phase, statistic),
    label: `${phaseSpec.label} ${statisticSpec.label}`,
    plain: { kind: "wait", waitFor: phaseSpec.waitFor },
    unit: "ms",
    format: "number",
    higherIsBetter: false,
    source: { kind: "latency", phase, statistic },
    vllmKeys: latencyVllmKeys(phase, statistic),
    judged: "per-run",
    gatable: true,
    defaultGated: phaseSpec.defaultGated.includes(statistic),
    minRequests: statisticSpec.minRequests,
    mixed: phaseSpec.mixed.includes(statistic),
    noise: phaseSpec.noise,
  };
}

/**
 * Every metric in report order: each phase with each statistic, then the rates, speculative decoding's,
 * the sessions', the guards.
 */
export const metricNames: readonly MetricName[] = [
  ...latencyPhases.flatMap((phase) =>
    latencyStatistics.map((statistic) => latencyMetricName(phase, statistic)),
  ),
  ...rateMetrics,
  ...specDecodeMetrics,
  ...sessionMetrics,
  ...guardMetrics,
];

/** The catalogue, by name. */
export const metricSpecs: Readonly<Record<MetricName, Readonly<MetricSpec>>> = Object.fromEntries([
  ...latencyPhases.flatMap((phase) =>
    latencyStatistics.map((statistic) => [
      latencyMetricName(phase, statistic),
      latencySpec(phase, statistic),
    ]),
  ),
  ...rateMetrics.map((name) => [name, { name, ...(rateSpecs[name] satisfies MetricFacts) }]),
  ...specDecodeMetrics.map((name) => [name, { name, ...(specDecodeSpecs[name] satisfies MetricFacts) }]),
  ...sessionMetrics.map((name) => [name, { name, ...(sessionSpecs[name] satisfies MetricFacts) }]),
  ...guardMetrics.map((name) => [name, { name, ...(guardSpecs[name] satisfies MetricFacts) }]),
]) as Record<MetricName, MetricSpec>;

/** The metrics that need this part of a run (`MetricFacts.measuredIn`). */
export function metricsMeasuredIn(part: "sessions" | "fan-outs"): readonly MetricName[] {
  return metricNames.filter((name) => metricSpecs[name].measuredIn === part);
}

/** Whether compare judges this metric as a quality guard (compare/analyze/guards.ts), not in gate.metrics. */
export function isGuardMetric(metric: MetricName): metric is GuardMetric {
  const judged = metricSpecs[metric].judged;
  return judged === "guard-share" || judged === "guard-length";
}

export function isMetricName(value: string): value is MetricName {
  return Object.hasOwn(metricSpecs, value);
}

/** Accepted in `gate.metrics`. */
export const gatableMetricNames: readonly MetricName[] = metricNames.filter(
  (name) => metricSpecs[name].gatable,
);

/** The default blocking family per cell (statistics.md §4: keep it small). */
export const gatedMetricNames: readonly MetricName[] = metricNames.filter(
  (name) => metricSpecs[name].defaultGated,
);

/** "TTFT p95", "Output throughput". */
export function describeMetric(metric: MetricName): string {
  return metricSpecs[metric].label;
}
