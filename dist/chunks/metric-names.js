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
};
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
};
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
};
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
};
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
};
const specDecodeMetrics = Object.keys(specDecodeSpecs);
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
};
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
};
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
};
/**
 * `short` names the bucket in the label, which the comment's first-screen table shows in its check
 * column: "turn 8 and deeper" there made the table wider than 900 px; sentences keep the long words.
 */
const depthSpec = (bucket, words, short = words) => ({
    ...sessionFacts,
    label: `TTFT p95 at ${short}`,
    plain: { kind: "wait", waitFor: `for their first token at ${words}` },
    unit: "ms",
    format: "number",
    higherIsBetter: false,
    source: { kind: "session", field: `ttft_p95_depth_${bucket}` },
    minRequests: "p95",
    noise: "ttft",
});
/**
 * A fan-out's completion time (docs/workloads.md, Sub-agent fan-out): its first branch's send to its
 * slowest branch's answer, the time the session waits before it goes on.
 */
const fanOutSpec = (statistic) => ({
    ...sessionFacts,
    measuredIn: "fan-outs",
    label: `Fan-out completion ${statistic}`,
    plain: { kind: "wait", waitFor: "for a fan-out's slowest branch" },
    unit: "ms",
    format: "number",
    higherIsBetter: false,
    source: { kind: "session", field: `fan_out_completion_${statistic}` },
});
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
};
const sessionMetrics = Object.keys(sessionSpecs);
const guardMetrics = Object.keys(guardSpecs);
const latencyPhases = Object.keys(latencyPhaseSpecs);
function isVllmLatencyPhase(phase) {
    return latencyPhaseSpecs[phase].vllm;
}
const vllmLatencyPhases = latencyPhases.filter(isVllmLatencyPhase);
const latencyStatistics = Object.keys(latencyStatisticSpecs);
const rateMetrics = Object.keys(rateSpecs);
function latencyMetricName(phase, statistic) {
    return `${phase}_${statistic}`;
}
/** The statistic as vLLM's writer names it for `phase`: `mean_ttft_ms`, `median_ttft_ms`, `p99.9_ttft_ms`. */
function latencyVllmKeys(phase, statistic) {
    const spec = latencyStatisticSpecs[statistic];
    const keys = [];
    if (!isVllmLatencyPhase(phase))
        return keys;
    if (spec.vllmAggregate !== null)
        keys.push(`${spec.vllmAggregate}_${phase}_ms`);
    if (spec.vllmPercentile !== null)
        keys.push(`p${spec.vllmPercentile}_${phase}_ms`);
    return keys;
}
/** "TTFT", "E2E latency": the phase's label without a statistic (the report's distribution charts). */
function latencyPhaseLabel(phase) {
    return latencyPhaseSpecs[phase].label;
}
function latencyStatisticSpec(statistic) {
    return latencyStatisticSpecs[statistic];
}
function latencySpec(phase, statistic) {
    const phaseSpec = latencyPhaseSpecs[phase];
    const statisticSpec = latencyStatisticSpecs[statistic];
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
const metricNames = [
    ...latencyPhases.flatMap((phase) => latencyStatistics.map((statistic) => latencyMetricName(phase, statistic))),
    ...rateMetrics,
    ...specDecodeMetrics,
    ...sessionMetrics,
    ...guardMetrics,
];
/** The catalogue, by name. */
const metricSpecs = Object.fromEntries([
    ...latencyPhases.flatMap((phase) => latencyStatistics.map((statistic) => [
        latencyMetricName(phase, statistic),
        latencySpec(phase, statistic),
    ])),
    ...rateMetrics.map((name) => [name, { name, ...rateSpecs[name] }]),
    ...specDecodeMetrics.map((name) => [name, { name, ...specDecodeSpecs[name] }]),
    ...sessionMetrics.map((name) => [name, { name, ...sessionSpecs[name] }]),
    ...guardMetrics.map((name) => [name, { name, ...guardSpecs[name] }]),
]);
/** The metrics that need this part of a run (`MetricFacts.measuredIn`). */
function metricsMeasuredIn(part) {
    return metricNames.filter((name) => metricSpecs[name].measuredIn === part);
}
/** Whether compare judges this metric as a quality guard (compare/analyze/guards.ts), not in gate.metrics. */
function isGuardMetric(metric) {
    const judged = metricSpecs[metric].judged;
    return judged === "guard-share" || judged === "guard-length";
}
function isMetricName(value) {
    return Object.hasOwn(metricSpecs, value);
}
/** Accepted in `gate.metrics`. */
const gatableMetricNames = metricNames.filter((name) => metricSpecs[name].gatable);
/** The default blocking family per cell (statistics.md §4: keep it small). */
const gatedMetricNames = metricNames.filter((name) => metricSpecs[name].defaultGated);
/** "TTFT p95", "Output throughput". */
function describeMetric(metric) {
    return metricSpecs[metric].label;
}

export { latencyPhaseLabel as a, latencyStatisticSpec as b, latencyStatistics as c, describeMetric as d, metricNames as e, isGuardMetric as f, gatedMetricNames as g, metricsMeasuredIn as h, isMetricName as i, latencyMetricName as j, guardMetrics as k, latencyPhases as l, metricSpecs as m, gatableMetricNames as n, vllmLatencyPhases as v };
