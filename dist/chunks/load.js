import { createHash } from 'node:crypto';
import { stat, readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { a as describeValue, s as strictObject, n as nonNegativeNumber, p as positiveNumber, c as choice, b as positiveInt, e as nonEmptyString, f as fraction, g as envVarName, h as port, i as httpUrl, j as nonNegativeInt, d as distExports, m as maxListedKeys } from './index.js';
import { I as InputError } from './version.js';
import { l as literal, u as union, s as string, a as array, b as boolean, n as number, _ as _enum, r as record, d as unknown, p as partialRecord } from './schemas.js';
import { e as metricNames, n as gatableMetricNames, g as gatedMetricNames } from './metric-names.js';

/**
 * The most `run` can execute: validate rejects anything beyond (docs/config-reference.md#limits), so a config that
 * validates never crashes or stalls the runner by its size alone.
 */
const configLimits = {
    /** Requests in flight (closed-loop concurrency, max_concurrency, a stage's concurrency). */
    concurrency: 4096,
    /** Measured requests per run. */
    requestsPerRun: 100_000,
    /** Warm-up requests per run. */
    warmupRequests: 10_000,
    /** Requests per second (open loop, a stage's rate). */
    ratePerSecond: 10_000,
    /** Any duration or timeout, in seconds (one day). */
    seconds: 86_400,
    /** Any token count or length. */
    tokens: 1_000_000,
    /** Prompt tokens of one run's requests together (size.requests x the longest prompt). */
    promptTokensPerRun: 100_000_000,
    /** Prefixes or documents of a generated dataset. */
    datasetItems: 100_000,
    /** sigma of a lognormal length (larger spreads overflow any token limit). */
    lognormalSigma: 5,
    stages: 100,
    cells: 1000,
    /** repeats.min, repeats.max, repeats.baseline and repeats.block. */
    runs: 1000,
    /** gate.baseline_sessions: the stored baselines a pull request reads (each one artifact download). */
    baselineSessions: 100,
    /** gate.budget_gpu_minutes: one pull request's GPU time (a week of one GPU). */
    budgetGpuMinutes: 10_080,
    /** runner.devices: servers a runner runs at once. */
    devices: 64,
    /** runner.settle_ms: the wait after the last response before an idle-elided arrival (one minute). */
    settleMs: 60_000,
    /** Turns of one session (session datasets: generated, read from a file or a trace). */
    sessionTurns: 256,
    /** Branches of one sub-agent fan-out (session datasets' fan_out.branches). */
    fanOutBranches: 32,
    /** Think time or tool latency between two turns, in seconds (one hour). */
    turnDelaySeconds: 3_600,
    /** Requests (rows) a trace keeps after its filters, window, max_rows and sample. */
    traceRequests: 1_000_000,
    /** Bytes of one line of a trace file (a CSV record or a JSON Lines object). */
    traceLineBytes: 1_048_576,
    /** Bytes of a trace file (what Node reads into memory at once: 2 GiB less a byte). */
    traceFileBytes: 2_147_483_647,
    /** Bytes of any other dataset file, read as one text (the longest string Node holds). */
    datasetFileBytes: 536_870_888,
};
/** The message of a limit: names the limit and where it is documented. */
function atMost(limit, name) {
    return {
        error: (issue) => `expected at most ${limit} (the limit on ${name}; see docs/config-reference.md#limits), got ${describeValue(issue.input)}`,
    };
}

// The fields the dataset kinds' schema branches share (each kind's module in this folder uses them).
const tokenCount = (what) => positiveInt(what).max(configLimits.tokens, atMost(configLimits.tokens, "token counts"));
const fixedLength = strictObject({ distribution: literal("fixed"), value: tokenCount() });
const uniformLength = strictObject({
    distribution: literal("uniform"),
    min: tokenCount(),
    max: tokenCount(),
});
const normalLength = strictObject({
    distribution: literal("normal"),
    mean: positiveNumber().max(configLimits.tokens, atMost(configLimits.tokens, "token counts")),
    sd: nonNegativeNumber().max(configLimits.tokens, atMost(configLimits.tokens, "token counts")),
    min: tokenCount().default(1),
    max: tokenCount().optional(),
});
const lognormalLength = strictObject({
    distribution: literal("lognormal"),
    median: positiveNumber().max(configLimits.tokens, atMost(configLimits.tokens, "token counts")),
    sigma: nonNegativeNumber().max(configLimits.lognormalSigma, atMost(configLimits.lognormalSigma, "a lognormal sigma")),
    min: tokenCount().default(1),
    max: tokenCount().optional(),
});
const lengthSchema = union([
    tokenCount("a token count (whole number >= 1) or a distribution mapping"),
    choice("distribution", [fixedLength, uniformLength, normalLength, lognormalLength], ["fixed", "uniform", "normal", "lognormal"]),
], {
    error: (issue) => `expected a token count (whole number >= 1) or a distribution mapping, got ${describeValue(issue.input)}`,
})
    .describe("A token count, or a distribution: fixed, uniform (min..max), normal (mean, sd) or lognormal (median, sigma), clipped to [min, max].");
const delaySeconds = (what = "a number of seconds >= 0") => nonNegativeNumber(what).max(configLimits.turnDelaySeconds, atMost(configLimits.turnDelaySeconds, "the delay between two turns"));
/**
 * The wait between two turns of a session (a user's think time, a tool's latency), in seconds: a fixed
 * number, or a distribution drawn from the session's seed: fixed, uniform (min..max), exponential (mean)
 * or lognormal (median, sigma), clipped to `max` when given.
 */
const delaySchema = union([
    delaySeconds("a number of seconds >= 0 or a distribution mapping"),
    choice("distribution", [
        strictObject({ distribution: literal("fixed"), value: delaySeconds() }),
        strictObject({ distribution: literal("uniform"), min: delaySeconds(), max: delaySeconds() }),
        strictObject({
            distribution: literal("exponential"),
            mean: delaySeconds(),
            max: delaySeconds().optional(),
        }),
        strictObject({
            distribution: literal("lognormal"),
            median: delaySeconds(),
            sigma: nonNegativeNumber().max(configLimits.lognormalSigma, atMost(configLimits.lognormalSigma, "a lognormal sigma")),
            max: delaySeconds().optional(),
        }),
    ], ["fixed", "uniform", "exponential", "lognormal"]),
], {
    error: (issue) => `expected a number of seconds >= 0 or a distribution mapping, got ${describeValue(issue.input)}`,
})
    .describe("Seconds between the end of one turn and the next request of its session: a number, or a distribution (fixed, uniform min..max, exponential mean, lognormal median and sigma), drawn from the session's seed.");
function describeLength(length) {
    // A template (a value from `${VAR}` in the printed view) is shown as written.
    if (typeof length !== "object")
        return String(length);
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
function describeDelay(delay) {
    if (typeof delay !== "object")
        return `${delay} s`;
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
function lengthMean(length) {
    if (typeof length === "number")
        return length;
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
function lengthCeiling(length) {
    if (typeof length === "number")
        return length;
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
function delayMean(delay) {
    if (typeof delay === "number")
        return delay;
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
            return Math.min(delay.median * Math.exp((delay.sigma * delay.sigma) / 2), delay.max ?? Number.POSITIVE_INFINITY);
    }
}
/**
 * Tokens validate's estimates assume for a prompt or an answer whose length the config does not give (a
 * file's, a task's) until the file is read: an estimate's assumption, never a request's length.
 */
const assumedTokens = 256;
/** Turns per session validate assumes for a file's sessions (conversations, a trace's) it has not read. */
const assumedFileSessionTurns = 4;
/** A length the config may leave to the file: its mean when given, else `assumedTokens`. */
function meanOrAssumed(length) {
    return length === undefined ? assumedTokens : lengthMean(length);
}
/** Why a file's prompts have no designed sharing the client knows: the cache check cannot run on them. */
const fileSharing = "a file's prompts may share prefixes (a common system prompt, repeated entries), which the client does not count";

// What the trace kinds (docs/workloads.md, "Traces") share: the fields of their schema branches and the
// layout each declares as data, which workload/trace-file.ts reads (one pipeline for every trace kind).
/** How a trace's arrival column counts time: seconds, milliseconds, microseconds, or a date and time. */
const timestampUnits = ["s", "ms", "us", "datetime"];
const sha256 = string()
    .regex(/^[0-9a-f]{64}$/, "expected a 64-character hex sha256")
    .optional()
    .describe("Expected checksum; the run fails when the file differs.");
const windowSchema = strictObject({
    start_s: nonNegativeNumber()
        .default(0)
        .describe("Seconds after the file's first row: rows that arrived earlier are not replayed."),
    end_s: positiveNumber()
        .optional()
        .describe("Seconds after the file's first row: rows that arrived at or after it are not replayed."),
}).describe("Replay the rows that arrived in [start_s, end_s) seconds after the file's first row (on the trace's own clock, before time_scale).");
/**
 * The fields every trace kind has: the file, its replay clock (`time_scale`), the prompt blocks of its
 * prefix-hash ids, and the selection that keeps a replay reproducible: a time window, the first N rows,
 * a seeded sample of sessions.
 */
function traceFields(what) {
    return {
        path: nonEmptyString(`a path to ${what}`),
        sha256,
        time_scale: positiveNumber()
            .max(1000, "expected at most 1000 (the limit on a trace's time scale; see docs/workloads.md)")
            .default(1)
            .describe("Multiplies the trace's arrival times (and the gaps between a session's turns): 1 replays it on its own clock, 0.5 twice as fast."),
        block_tokens: tokenCount()
            .default(512)
            .describe("Prompt tokens per prefix-hash id (Mooncake's traces use 512); unused without hash ids."),
        window: windowSchema.optional(),
        max_rows: positiveInt()
            .max(configLimits.traceRequests, atMost(configLimits.traceRequests, "a trace's requests"))
            .optional()
            .describe("Replay only the first N rows that pass the filters and the window, in the file's order."),
        sample: positiveInt()
            .max(configLimits.traceRequests, atMost(configLimits.traceRequests, "a trace's requests"))
            .optional()
            .describe("Replay a seeded sample of this many sessions (a row without a session is a session of one) of those selected, in time order; drawn from the cell's seed, so both sides replay the same."),
    };
}
/** A list of column values to keep (at least one). */
const filterValues = (what) => array(nonEmptyString(`a ${what}`)).min(1, `expected at least one ${what}`);
/** The selection and clock of a trace cell as `validate` shows it: "first 1000 rows, time x0.5". */
function describeTraceSelection(dataset, filters = []) {
    const parts = [...filters];
    if (dataset.window)
        parts.push(`window ${dataset.window.start_s}-${dataset.window.end_s === undefined ? "end" : dataset.window.end_s} s`);
    if (dataset.max_rows !== undefined)
        parts.push(`first ${dataset.max_rows} rows`);
    if (dataset.sample !== undefined)
        parts.push(`sample ${dataset.sample}`);
    parts.push(`time x${dataset.time_scale}`);
    return parts.join(", ");
}
/**
 * A trace's sessions as validate estimates them (the `sessionShape` of every trace kind): its own turns
 * per session where validate read it (`replay`), else one where its format has no sessions and
 * `assumedFileSessionTurns` where it has; no think time (its gaps are its timestamps'), no tools, no fan-out.
 */
function traceSessionShape(layout, replay) {
    return {
        turns: replay !== null && replay.sessions > 0
            ? replay.requests / replay.sessions
            : layout.session === null
                ? 1
                : assumedFileSessionTurns,
        thinkSeconds: 0,
        toolLatencySeconds: null,
        fanOut: undefined,
    };
}
/**
 * What validate's estimates take of every trace kind's requests: their lengths are the file's, so a
 * prompt is `assumedTokens` and is not bounded per run; an answer is the file's own mean where validate
 * read it (`replay`), else `assumedTokens`.
 */
const traceEstimates = {
    promptTokensMean: () => assumedTokens,
    outputTokensMean: (_dataset, replay) => replay?.outputTokensMean ?? assumedTokens,
    promptTokensCeiling: () => null,
};

/**
 * The Azure LLM inference traces as Azure/AzurePublicDataset publishes them (AzureLLMInferenceDataset2023.md
 * and 2024.md): CSV with `TIMESTAMP` (the invocation's date and time: "2023-11-16 18:15:46.6805900", or
 * with a zone, "2024-05-10 00:00:00.009930+00:00"), `ContextTokens` and `GeneratedTokens`. Every row is a
 * request of its own; the prompts' text is not published, so each prompt is seeded text of its length.
 */
const azureTraceDataset = strictObject({
    type: literal("azure_trace"),
    ...traceFields("an Azure LLM inference trace (CSV)"),
});
const azureLayout = {
    format: "csv",
    name: "Azure LLM inference trace",
    arrival: { column: "TIMESTAMP", unit: "datetime" },
    inputTokens: "ContextTokens",
    outputTokens: "GeneratedTokens",
    session: null,
    hashIds: null,
    filters: [],
};
const azureTraceKind = {
    schema: azureTraceDataset,
    fileBacked: true,
    sessions: true,
    scoresAnswers: false,
    trace: () => azureLayout,
    describe: (dataset) => `Azure trace ${dataset.path} (${describeTraceSelection(dataset)})`,
    sharing: () => ({
        kind: "unknown",
        why: "a trace's requests are its rows as given (their own lengths and prefix blocks), which the client does not count",
    }),
    sessionShape: (_dataset, replay) => traceSessionShape(azureLayout, replay),
    ...traceEstimates,
};

/**
 * BurstGPT as HPMLL/BurstGPT publishes it (its README's schema): CSV with `Timestamp` (seconds from
 * midnight of the first day), `Model` (`ChatGPT`, `GPT-4`), `Request tokens`, `Response tokens`,
 * `Total tokens` and `Log Type` (`Conversation log`, `API log`). Rows whose `Response tokens` is 0 are the
 * trace's failed requests: they are skipped and counted. `models` and `log_types` keep the rows of those
 * models and log types.
 */
const burstgptTraceDataset = strictObject({
    type: literal("burstgpt_trace"),
    ...traceFields("a BurstGPT trace (CSV)"),
    models: filterValues("model name")
        .optional()
        .describe("Replay only the rows of these models (the `Model` column: ChatGPT, GPT-4)."),
    log_types: filterValues("log type")
        .optional()
        .describe("Replay only the rows of these log types (the `Log Type` column: Conversation log, API log)."),
});
function burstgptFilters(dataset) {
    return [
        ...(dataset.models ? [{ column: "Model", values: dataset.models, field: "models" }] : []),
        ...(dataset.log_types ? [{ column: "Log Type", values: dataset.log_types, field: "log_types" }] : []),
    ];
}
function burstgptLayout(dataset) {
    return {
        format: "csv",
        name: "BurstGPT trace",
        arrival: { column: "Timestamp", unit: "s" },
        inputTokens: "Request tokens",
        outputTokens: "Response tokens",
        session: null,
        hashIds: null,
        filters: burstgptFilters(dataset),
    };
}
const burstgptTraceKind = {
    schema: burstgptTraceDataset,
    fileBacked: true,
    sessions: true,
    scoresAnswers: false,
    trace: burstgptLayout,
    describe: (dataset) => `BurstGPT trace ${dataset.path} (${describeTraceSelection(dataset, burstgptFilters(dataset).map((filter) => filter.values.join(" or ")))})`,
    sharing: () => ({
        kind: "unknown",
        why: "a trace's requests are its rows as given (their own lengths and prefix blocks), which the client does not count",
    }),
    sessionShape: (dataset, replay) => traceSessionShape(burstgptLayout(dataset), replay),
    ...traceEstimates,
};

/** Prompts (or messages) of a JSONL file, one request a line. */
const jsonlDataset = strictObject({
    type: literal("jsonl"),
    path: nonEmptyString("a path to a JSONL file"),
    output_tokens: lengthSchema.optional().describe("Used for lines without max_tokens."),
    sha256: string()
        .regex(/^[0-9a-f]{64}$/, "expected a 64-character hex sha256")
        .optional(),
});
const jsonlKind = {
    schema: jsonlDataset,
    fileBacked: true,
    sessions: false,
    scoresAnswers: false,
    describe: (dataset) => `JSONL ${dataset.path}`,
    sharing: () => ({ kind: "unknown", why: fileSharing }),
    promptTokensMean: () => assumedTokens,
    outputTokensMean: (dataset) => meanOrAssumed(dataset.output_tokens),
    promptTokensCeiling: () => null,
};

/** Questions about generated long documents (a document is a prefix its questions share). */
const longDocumentDataset = strictObject({
    type: literal("long_document"),
    num_documents: positiveInt()
        .max(configLimits.datasetItems, atMost(configLimits.datasetItems, "generated dataset items"))
        .default(1),
    document_tokens: tokenCount(),
    question_tokens: lengthSchema,
    output_tokens: lengthSchema,
});
const longDocumentKind = {
    schema: longDocumentDataset,
    fileBacked: false,
    sessions: false,
    scoresAnswers: false,
    describe: (dataset) => `${dataset.num_documents} doc x ${dataset.document_tokens} + q ${describeLength(dataset.question_tokens)} / out ${describeLength(dataset.output_tokens)}`,
    // A document's questions after its first find the document cached.
    sharing: (dataset) => ({ kind: "groups", tokens: dataset.document_tokens }),
    promptTokensMean: (dataset) => dataset.document_tokens + lengthMean(dataset.question_tokens),
    outputTokensMean: (dataset) => lengthMean(dataset.output_tokens),
    promptTokensCeiling: (dataset) => dataset.document_tokens + lengthCeiling(dataset.question_tokens),
};

/**
 * A Mooncake-style request trace (docs/workloads.md, the format of kvcache-ai/Mooncake's
 * FAST25-release/traces): JSON Lines of `timestamp` (ms), `input_length`, `output_length` and, optionally,
 * `hash_ids` (one id per block of `block_tokens` prompt tokens; equal ids are equal text, so the trace's
 * prefix sharing reaches the server's cache). Lines with the same `session_id` are the turns of one
 * session; lines without one are sessions of a single turn.
 */
const mooncakeTraceDataset = strictObject({
    type: literal("mooncake_trace"),
    ...traceFields("a Mooncake-style JSONL trace"),
});
const mooncakeLayout = {
    format: "jsonl",
    name: "Mooncake trace",
    arrival: { column: "timestamp", unit: "ms" },
    inputTokens: "input_length",
    outputTokens: "output_length",
    session: "session_id",
    hashIds: "hash_ids",
    filters: [],
};
const mooncakeTraceKind = {
    schema: mooncakeTraceDataset,
    fileBacked: true,
    sessions: true,
    scoresAnswers: false,
    trace: () => mooncakeLayout,
    describe: (dataset) => `Mooncake trace ${dataset.path} (blocks of ${dataset.block_tokens}, ${describeTraceSelection(dataset)})`,
    sharing: () => ({
        kind: "unknown",
        why: "a trace's requests share prefix blocks by design (its hash_ids), which the client does not count",
    }),
    sessionShape: (_dataset, replay) => traceSessionShape(mooncakeLayout, replay),
    ...traceEstimates,
};

const branchCount = (what = "a number of branches (whole number >= 1)") => positiveInt(what).max(configLimits.fanOutBranches, atMost(configLimits.fanOutBranches, "branches per fan-out"));
const turnNumber = positiveInt("a turn number (1-based whole number >= 1)").max(configLimits.sessionTurns, atMost(configLimits.sessionTurns, "turns per session"));
/**
 * Sub-agent fan-out in a session (docs/workloads.md, Sub-agent fan-out): at the chosen turns the session
 * sends B branches at once instead of one request, each the conversation so far, the turn's message and a
 * message of its own; the session goes on once every branch answered, with their answers as the turn's.
 */
const fanOutSchema = strictObject({
    turns: array(turnNumber)
        .min(1, "expected at least one turn number")
        .optional()
        .describe("The turns that fan out (1-based turn numbers); or give `share`."),
    share: fraction()
        .optional()
        .describe("Instead of `turns`: the chance that a turn fans out, drawn per turn from the session's seed."),
    branches: union([
        branchCount("a number of branches (whole number >= 1) or { min, max }"),
        strictObject({ min: branchCount(), max: branchCount() }),
    ], {
        error: (issue) => `expected a number of branches (whole number >= 1) or { min, max }, got ${describeValue(issue.input)}`,
    })
        .describe("Branches per fan-out: a count, or { min, max } drawn uniformly per fan-out (at most 32)."),
    message_tokens: lengthSchema.describe("Tokens of each branch's own message (its task, after the turn's)."),
    output_tokens: lengthSchema.describe("max_tokens of each branch's answer."),
    tools: boolean()
        .default(false)
        .describe("The branches declare the session's tools (dataset.tools) and take their own tool rounds; without it they declare none."),
}).superRefine((fanOut, context) => {
    if ((fanOut.turns === undefined) === (fanOut.share === undefined))
        context.addIssue({
            code: "custom",
            path: fanOut.turns === undefined ? [] : ["share"],
            message: fanOut.turns === undefined
                ? "expected `turns` (the turn numbers that fan out) or `share` (the chance a turn does), got neither"
                : "expected `turns` or `share`, not both",
        });
    if (fanOut.turns !== undefined) {
        const seen = new Set();
        fanOut.turns.forEach((turn, index) => {
            if (seen.has(turn))
                context.addIssue({
                    code: "custom",
                    path: ["turns", index],
                    message: `expected each turn number once, got ${turn} again`,
                });
            seen.add(turn);
        });
    }
    if (typeof fanOut.branches === "object" && fanOut.branches.min > fanOut.branches.max)
        context.addIssue({
            code: "custom",
            path: ["branches", "min"],
            message: `expected min <= max, got min ${fanOut.branches.min} > max ${fanOut.branches.max}`,
        });
});
/** The most branches one fan-out of this config sends at once. */
function mostBranches(fanOut) {
    return typeof fanOut.branches === "number" ? fanOut.branches : fanOut.branches.max;
}
/** The mean branches per fan-out. */
function meanBranches(fanOut) {
    return typeof fanOut.branches === "number"
        ? fanOut.branches
        : (fanOut.branches.min + fanOut.branches.max) / 2;
}
/**
 * Requests one session of a dataset may have in flight at once: a fan-out's branches, else 1. The client's
 * connections are sized by it (a session's branches must not wait for one another's connection).
 */
function requestsPerSessionInFlight(dataset) {
    return dataset.fan_out === undefined ? 1 : mostBranches(dataset.fan_out);
}
/** The fan-out's part of a cell's `validate` line. */
function describeFanOut(fanOut) {
    const where = fanOut.turns !== undefined
        ? `at turn${fanOut.turns.length > 1 ? "s" : ""} ${fanOut.turns.join(", ")}`
        : `at ${typeof fanOut.share === "number" ? `${Math.round(fanOut.share * 100)}%` : fanOut.share} of turns`;
    // The template view may hold a `${VAR}` template where a number was: shown as written.
    const branches = typeof fanOut.branches === "object"
        ? `${fanOut.branches.min}-${fanOut.branches.max}`
        : String(fanOut.branches);
    return `, fan-out ${where} to ${branches} branches (message ${describeLength(fanOut.message_tokens)} / out ${describeLength(fanOut.output_tokens)}${fanOut.tools ? ", with tools" : ""})`;
}
/**
 * What a fan-out config asks that the rest of its cell cannot give (paths from the dataset): a turn
 * number beyond the session's turns, tool rounds without tools, more requests in flight than the limit.
 */
function fanOutProblems(fanOut, cell) {
    const problems = [];
    const { mostTurns } = cell;
    if (mostTurns !== null)
        fanOut.turns?.forEach((turn, index) => {
            if (turn > mostTurns)
                problems.push({
                    path: ["fan_out", "turns", index],
                    message: `expected a turn number within the session's turns (at most ${mostTurns}, ${cell.turnsField}), got ${turn}`,
                });
        });
    if (fanOut.tools && !cell.hasTools)
        problems.push({
            path: ["fan_out", "tools"],
            message: "expected tools declared in dataset.tools for the branches' tool rounds, got none",
        });
    const inFlight = cell.sessionsInFlight === null ? null : cell.sessionsInFlight * mostBranches(fanOut);
    if (inFlight !== null && inFlight > configLimits.concurrency)
        problems.push({
            path: ["fan_out", "branches"],
            message: `expected at most ${configLimits.concurrency} requests in flight (the limit on concurrency; see docs/config-reference.md#limits), got up to ${inFlight} (${cell.sessionsInFlight} sessions x ${mostBranches(fanOut)} branches)`,
        });
    return problems;
}

/**
 * Tool-call turns of a session (docs/workloads.md): the tools the requests declare; when an answer is a
 * tool call, the client answers it with a mocked tool result of `result_tokens` after `latency_s`.
 */
const sessionToolsSchema = strictObject({
    names: array(string().regex(/^[A-Za-z0-9_-]{1,64}$/, "expected a function name of letters, digits, '_' or '-'"))
        .min(1, "expected at least one tool name")
        .max(32, "expected at most 32 tools (the limit on tools per session; see docs/workloads.md)")
        .describe("Function names declared in every request's `tools` (each takes one string argument)."),
    latency_s: delaySchema.default(0).describe("The mocked tool's latency before its result is sent."),
    result_tokens: lengthSchema.default(64).describe("Length of the mocked tool result."),
});
/**
 * Generated sessions (docs/workloads.md): each session a seeded number of turns; turn k sends the whole
 * conversation so far (the server's own answers included) and one new user message.
 */
const sessionsDataset = strictObject({
    type: literal("sessions"),
    turns: lengthSchema.describe("Turns per session (a count or a distribution, at most 256)."),
    message_tokens: lengthSchema.describe("Tokens of each new user message."),
    output_tokens: lengthSchema.describe("max_tokens of each answer."),
    system_prompt_tokens: number()
        .int()
        .min(0)
        .max(configLimits.tokens, atMost(configLimits.tokens, "token counts"))
        .default(0)
        .describe("Tokens of the system prompt each session starts with (0: none)."),
    shared_system_prompt: fraction()
        .default(1)
        .describe("Share of sessions whose system prompt is the common one (a prefix the server can cache across sessions); the others get one of their own, of the same length."),
    think_time_s: delaySchema.default(0),
    tools: sessionToolsSchema.optional(),
    fan_out: fanOutSchema.optional(),
});
/**
 * What a generated session asks that its cell cannot give: a fan-out beyond its turns or without its
 * tools, more turns than configLimits.sessionTurns, a deepest context beyond the token limit.
 */
function sessionsProblems(dataset, cell) {
    const fanOut = dataset.fan_out;
    const turns = lengthCeiling(dataset.turns);
    const problems = fanOut === undefined
        ? []
        : fanOutProblems(fanOut, {
            mostTurns: turns,
            turnsField: "dataset.turns",
            hasTools: dataset.tools !== undefined,
            sessionsInFlight: cell.sessionsInFlight,
        });
    if (turns > configLimits.sessionTurns)
        problems.push({
            path: ["turns"],
            message: `expected at most ${configLimits.sessionTurns} turns (the limit on turns per session; see docs/config-reference.md#limits), got up to ${turns}`,
        });
    const deepest = deepestContext(dataset, turns);
    if (deepest > configLimits.tokens)
        problems.push({
            path: [],
            message: `expected a deepest context of at most ${configLimits.tokens} tokens (the limit on token counts; see docs/config-reference.md#limits), got up to ${deepest} (system prompt + turns x (message + answer)${fanOut === undefined ? "" : ", a fan-out turn's answer its branches' answers"})`,
        });
    return problems;
}
/** The most tokens a session's last request carries: system prompt + turns x (message + answer). */
function deepestContext(dataset, turns) {
    const fanOut = dataset.fan_out;
    // A fan-out turn's answer is its branches' answers together, and its last branch adds a message.
    const fanOutTurns = fanOut === undefined ? 0 : Math.min(turns, fanOut.turns?.filter((turn) => turn <= turns).length ?? turns);
    const branchAnswers = fanOut === undefined ? 0 : mostBranches(fanOut) * lengthCeiling(fanOut.output_tokens);
    return (dataset.system_prompt_tokens +
        turns * lengthCeiling(dataset.message_tokens) +
        (turns - fanOutTurns) * lengthCeiling(dataset.output_tokens) +
        fanOutTurns * branchAnswers +
        (fanOut === undefined ? 0 : lengthCeiling(fanOut.message_tokens)));
}
const sessionsKind = {
    schema: sessionsDataset,
    fileBacked: false,
    sessions: true,
    scoresAnswers: false,
    describe: (dataset) => `sessions of ${describeLength(dataset.turns)} turns, message ${describeLength(dataset.message_tokens)} / out ${describeLength(dataset.output_tokens)}${dataset.system_prompt_tokens > 0 ? `, system prompt ${dataset.system_prompt_tokens}` : ""}, think ${describeDelay(dataset.think_time_s)}${dataset.tools ? `, tools ${dataset.tools.names.join(", ")}` : ""}${dataset.fan_out ? describeFanOut(dataset.fan_out) : ""}`,
    // The common system prompt and its role token, where sessions share one.
    sharing: (dataset) => ({
        kind: "conversation",
        firstTurnTokens: dataset.shared_system_prompt > 0 && dataset.system_prompt_tokens > 0
            ? dataset.system_prompt_tokens + 1
            : 0,
    }),
    sessionShape: (dataset) => ({
        turns: lengthMean(dataset.turns),
        thinkSeconds: delayMean(dataset.think_time_s),
        toolLatencySeconds: dataset.tools ? delayMean(dataset.tools.latency_s) : null,
        fanOut: dataset.fan_out,
    }),
    // Its prompts are the conversation so far: bounded by `problems` (the deepest context), not per request.
    promptTokensMean: () => assumedTokens,
    outputTokensMean: (dataset) => lengthMean(dataset.output_tokens),
    promptTokensCeiling: () => null,
    problems: sessionsProblems,
};

/** Generated prompts in groups that share a prefix (the server's prefix cache). */
const sharedPrefixDataset = strictObject({
    type: literal("shared_prefix"),
    num_prefixes: positiveInt().max(configLimits.datasetItems, atMost(configLimits.datasetItems, "generated dataset items")),
    prefix_tokens: tokenCount(),
    suffix_tokens: lengthSchema,
    output_tokens: lengthSchema,
});
const sharedPrefixKind = {
    schema: sharedPrefixDataset,
    fileBacked: false,
    sessions: false,
    scoresAnswers: false,
    describe: (dataset) => `${dataset.num_prefixes} prefixes x ${dataset.prefix_tokens} + ${describeLength(dataset.suffix_tokens)} / out ${describeLength(dataset.output_tokens)}`,
    // A group's requests after its first find its prefix cached.
    sharing: (dataset) => ({ kind: "groups", tokens: dataset.prefix_tokens }),
    promptTokensMean: (dataset) => dataset.prefix_tokens + lengthMean(dataset.suffix_tokens),
    outputTokensMean: (dataset) => lengthMean(dataset.output_tokens),
    promptTokensCeiling: (dataset) => dataset.prefix_tokens + lengthCeiling(dataset.suffix_tokens),
};

/** Conversations of a ShareGPT JSON file: the first human turn of each is a prompt. */
const sharegptDataset = strictObject({
    type: literal("sharegpt"),
    path: nonEmptyString("a path to a ShareGPT JSON file"),
    output_tokens: lengthSchema.optional().describe("Override the dataset's own answer lengths."),
    max_input_tokens: tokenCount().optional().describe("Skip conversations whose prompt is longer."),
    sha256: string()
        .regex(/^[0-9a-f]{64}$/, "expected a 64-character hex sha256")
        .optional()
        .describe("Expected checksum; the run fails when the file differs."),
});
const sharegptKind = {
    schema: sharegptDataset,
    fileBacked: true,
    sessions: false,
    scoresAnswers: false,
    describe: (dataset) => `ShareGPT ${dataset.path}`,
    sharing: () => ({ kind: "unknown", why: fileSharing }),
    promptTokensMean: () => assumedTokens,
    outputTokensMean: (dataset) => meanOrAssumed(dataset.output_tokens),
    promptTokensCeiling: () => null,
};

const turnsCount = positiveInt("a number of turns (whole number >= 1)").max(configLimits.sessionTurns, atMost(configLimits.sessionTurns, "turns per session"));
/**
 * ShareGPT-style multi-turn conversations (docs/workloads.md): every human turn of a conversation is a
 * turn of its session, sent with the conversation so far (the server's answers, not the file's).
 */
const sharegptSessionsDataset = strictObject({
    type: literal("sharegpt_sessions"),
    path: nonEmptyString("a path to a ShareGPT JSON file"),
    sha256: string()
        .regex(/^[0-9a-f]{64}$/, "expected a 64-character hex sha256")
        .optional()
        .describe("Expected checksum; the run fails when the file differs."),
    output_tokens: lengthSchema.optional().describe("Override the answer lengths the file's answers give."),
    max_turns: turnsCount.optional().describe("Use at most this many turns of each conversation."),
    think_time_s: delaySchema.default(0),
    fan_out: fanOutSchema.optional(),
});
const sharegptSessionsKind = {
    schema: sharegptSessionsDataset,
    fileBacked: true,
    sessions: true,
    scoresAnswers: false,
    describe: (dataset) => `ShareGPT sessions ${dataset.path}${dataset.max_turns ? ` (at most ${dataset.max_turns} turns)` : ""}, think ${describeDelay(dataset.think_time_s)}${dataset.fan_out ? describeFanOut(dataset.fan_out) : ""}`,
    sharing: () => ({ kind: "conversation", firstTurnTokens: 0 }),
    sessionShape: (dataset) => ({
        turns: Math.min(assumedFileSessionTurns, dataset.max_turns ?? assumedFileSessionTurns),
        thinkSeconds: delayMean(dataset.think_time_s),
        toolLatencySeconds: null,
        fanOut: dataset.fan_out,
    }),
    promptTokensMean: () => assumedTokens,
    outputTokensMean: (dataset) => meanOrAssumed(dataset.output_tokens),
    promptTokensCeiling: () => null,
    problems: (dataset, cell) => dataset.fan_out === undefined
        ? []
        : fanOutProblems(dataset.fan_out, {
            mostTurns: dataset.max_turns ?? null,
            turnsField: "dataset.max_turns",
            hasTools: false,
            sessionsInFlight: cell.sessionsInFlight,
        }),
};

/** Generated prompts of exact token counts (lengths fixed or drawn from a distribution). */
const syntheticDataset = strictObject({
    type: literal("synthetic"),
    input_tokens: lengthSchema,
    output_tokens: lengthSchema,
});
const syntheticKind = {
    schema: syntheticDataset,
    fileBacked: false,
    sessions: false,
    scoresAnswers: false,
    sharing: () => ({ kind: "none" }),
    promptTokensMean: (dataset) => lengthMean(dataset.input_tokens),
    outputTokensMean: (dataset) => lengthMean(dataset.output_tokens),
    promptTokensCeiling: (dataset) => lengthCeiling(dataset.input_tokens),
    describe: (dataset) => `synthetic in ${describeLength(dataset.input_tokens)} / out ${describeLength(dataset.output_tokens)}`,
};

/**
 * The built-in task set (docs/quality.md): arithmetic and number-word questions made from the seed, each
 * exactly checkable. A tasks cell's requests are sent greedy (temperature 0, ignore_eos false) and its
 * answers scored per prompt for the task-accuracy check.
 */
const tasksDataset = strictObject({
    type: literal("tasks"),
    count: positiveInt()
        .max(configLimits.datasetItems, atMost(configLimits.datasetItems, "generated dataset items"))
        .default(500)
        .describe("Distinct tasks; request i asks task i mod count."),
    kinds: array(_enum(["arithmetic", "number_words"]))
        .min(1, "expected at least one task kind")
        .default(["arithmetic", "number_words"])
        .describe("Task kinds, taken in turn."),
    output_tokens: lengthSchema.default(24).describe("max_tokens of an answer."),
});
const tasksKind = {
    schema: tasksDataset,
    fileBacked: false,
    sessions: false,
    scoresAnswers: true,
    describe: (dataset) => `${dataset.count} built-in tasks (${dataset.kinds.join(", ")}) / out ${describeLength(dataset.output_tokens)}, scored`,
    // Request i asks task i mod count: past `count`, the prompts repeat.
    sharing: (dataset) => ({ kind: "repeats", every: dataset.count }),
    // A task's question is a few words: not bounded per run, and estimated as any unread prompt.
    promptTokensMean: () => assumedTokens,
    outputTokensMean: (dataset) => lengthMean(dataset.output_tokens),
    promptTokensCeiling: () => null,
};

/**
 * The team's own tasks: a JSONL file, one task a line: `prompt` (or `messages`), `reference`, and optionally
 * `scorer` (exact, contains, regex, numeric; default exact), `pattern` (regex) and `tolerance` (numeric).
 */
const tasksJsonlDataset = strictObject({
    type: literal("tasks_jsonl"),
    path: nonEmptyString("a path to a JSONL file of tasks"),
    sha256: string()
        .regex(/^[0-9a-f]{64}$/, "expected a 64-character hex sha256")
        .optional(),
    output_tokens: lengthSchema.default(24).describe("max_tokens of an answer (a line's max_tokens wins)."),
});
const tasksJsonlKind = {
    schema: tasksJsonlDataset,
    fileBacked: true,
    sessions: false,
    scoresAnswers: true,
    describe: (dataset) => `tasks JSONL ${dataset.path} / out ${describeLength(dataset.output_tokens)}, scored`,
    sharing: () => ({ kind: "unknown", why: fileSharing }),
    promptTokensMean: () => assumedTokens,
    outputTokensMean: (dataset) => lengthMean(dataset.output_tokens),
    promptTokensCeiling: () => null,
};

const column = (what) => nonEmptyString(`the name of the column (CSV header or JSON key) of ${what}`).describe(`The column (CSV header or JSON key) of ${what}.`);
/**
 * Which column holds what (a CSV header, or a key of each JSON Lines object): the arrival time and its unit,
 * the input and output lengths, and optionally the session, the prefix-hash ids and the model.
 */
const traceColumnsSchema = strictObject({
    arrival: column("the arrival time"),
    arrival_unit: _enum(timestampUnits, {
        error: (issue) => `expected one of ${timestampUnits.map((unit) => `"${unit}"`).join(", ")}, got ${JSON.stringify(issue.input ?? null)}`,
    })
        .describe("How the arrival column counts time: s, ms or us (numbers on any origin), or datetime (a date and time such as 2023-11-16 18:15:46.68 or ISO 8601; UTC unless it names a zone)."),
    input_tokens: column("the prompt length in tokens"),
    output_tokens: column("the answer length in tokens"),
    session: column("the session id (rows sharing it are one session's turns, in time order)").optional(),
    hash_ids: column("the prefix-hash ids (a JSON list, or whole numbers separated by spaces, ';' or '|')").optional(),
    model: column("the model name (for `models`)").optional(),
});
/**
 * Any CSV or JSON Lines trace, through a mapping of its columns (docs/workloads.md, "Traces"): what
 * inference-perf, GuideLLM and vLLM's custom datasets read, in whichever columns a trace has them.
 */
const traceDataset = strictObject({
    type: literal("trace"),
    ...traceFields("a CSV or JSON Lines trace"),
    format: _enum(["csv", "jsonl"], {
        error: (issue) => `expected "csv" or "jsonl", got ${JSON.stringify(issue.input ?? null)}`,
    })
        .optional()
        .describe("The file's format; by default from its extension (.csv, or .jsonl / .json)."),
    columns: traceColumnsSchema.describe("Which column holds what: the arrival time and its unit, the input and output lengths, optionally the session, the prefix-hash ids and the model."),
    models: filterValues("model name")
        .optional()
        .describe("Replay only the rows whose `columns.model` value is one of these."),
});
/** The format of a mapped trace: as configured, else from the file's extension; null when neither says. */
function mappedTraceFormat(dataset) {
    if (dataset.format)
        return dataset.format;
    const extension = /\.([A-Za-z]+)$/.exec(dataset.path)?.[1]?.toLowerCase();
    return extension === "csv" ? "csv" : extension === "jsonl" || extension === "json" ? "jsonl" : null;
}
function mappedLayout(dataset) {
    return {
        // A path without a known extension and no `format` is a config problem (`problems` below).
        format: mappedTraceFormat(dataset) ?? "csv",
        name: "trace",
        arrival: { column: dataset.columns.arrival, unit: dataset.columns.arrival_unit },
        inputTokens: dataset.columns.input_tokens,
        outputTokens: dataset.columns.output_tokens,
        session: dataset.columns.session ?? null,
        hashIds: dataset.columns.hash_ids ?? null,
        filters: dataset.models && dataset.columns.model
            ? [{ column: dataset.columns.model, values: dataset.models, field: "models" }]
            : [],
    };
}
/** A mapped trace's format is known (configured, or the path's extension) and its model filter's column named. */
function mappedTraceProblems(dataset) {
    const problems = [];
    if (mappedTraceFormat(dataset) === null)
        problems.push({
            path: ["format"],
            message: `expected csv or jsonl (the path ${JSON.stringify(dataset.path)} does not end in .csv, .jsonl or .json), got nothing`,
        });
    if (dataset.models !== undefined && dataset.columns.model === undefined)
        problems.push({
            path: ["columns", "model"],
            message: "expected the column of the model name (dataset.models filters on it), got nothing",
        });
    return problems;
}
const traceKind = {
    schema: traceDataset,
    fileBacked: true,
    sessions: true,
    scoresAnswers: false,
    trace: mappedLayout,
    describe: (dataset) => `trace ${dataset.path} (${mappedTraceFormat(dataset) ?? "csv"}, ${describeTraceSelection(dataset, dataset.models ? [dataset.models.join(" or ")] : [])})`,
    sharing: () => ({
        kind: "unknown",
        why: "a trace's requests are its rows as given (their own lengths and prefix blocks), which the client does not count",
    }),
    sessionShape: (dataset, replay) => traceSessionShape(mappedLayout(dataset), replay),
    ...traceEstimates,
    problems: mappedTraceProblems,
};

/**
 * The dataset kinds, one module each in dataset-kinds/ (its schema branch, traits, `validate` line, and
 * what validate's estimates and checks take of it), registered here once. `datasetSchema` and the lists of kinds with a trait (file-backed, sessions, scored)
 * are derived from this list; how a kind's requests are made is its entry in workload/, keyed by these
 * kinds, so the compiler demands one for a new kind.
 */
const datasetKindModules = [
    syntheticKind,
    sharegptKind,
    jsonlKind,
    sharedPrefixKind,
    longDocumentKind,
    tasksKind,
    tasksJsonlKind,
    sessionsKind,
    sharegptSessionsKind,
    mooncakeTraceKind,
    azureTraceKind,
    burstgptTraceKind,
    traceKind,
];
const datasetSchema = choice("type", datasetKindModules.map((module) => module.schema));
/** Each kind's module by its name. */
const datasetKinds = Object.fromEntries(datasetKindModules.map((module) => [module.schema.shape.type.value, module]));
function moduleOf(dataset) {
    return datasetKinds[dataset.type];
}
/** Per dataset kind: whether it reads a file (the `fileBacked` trait). */
Object.fromEntries(datasetKindModules.map((module) => [module.schema.shape.type.value, module.fileBacked]));
/** True when the dataset's prompts come from a file (the `fileBacked` trait). */
function isFileBacked(dataset) {
    return moduleOf(dataset).fileBacked;
}
/** True for a session dataset (the `sessions` trait: the load's unit is a session). */
function isSessionDataset(dataset) {
    return moduleOf(dataset).sessions;
}
/** True for a trace (the `trace` trait): replayed on its own timestamps, each row's prompt as given. */
function isTraceDataset(dataset) {
    return moduleOf(dataset).trace !== undefined;
}
/** Where a trace dataset's format keeps its columns (its kind's `trace`), for the trace pipeline. */
function traceLayoutOf(dataset) {
    return moduleOf(dataset).trace(dataset);
}
/** Whether a dataset's answers are scored (the task-accuracy check): its cells are sent greedy. */
function scoresAnswers(dataset) {
    return moduleOf(dataset).scoresAnswers;
}
/** The dataset's part of a cell's `validate` line (pass the template view: it is printed). */
function describeDataset(dataset) {
    return moduleOf(dataset).describe(dataset);
}
/** What the dataset's requests share by design (the `sharing` of its kind; metrics/cache-check.ts). */
function designedSharing(dataset) {
    return moduleOf(dataset).sharing(dataset);
}
/** Mean prompt tokens of one request, for validate's estimates (the kind's `promptTokensMean`). */
function promptTokensMean(dataset) {
    return moduleOf(dataset).promptTokensMean(dataset);
}
/** Mean answer tokens of one request, for validate's estimates (`replay`: a trace as validate read it). */
function outputTokensMean(dataset, replay) {
    return moduleOf(dataset).outputTokensMean(dataset, replay);
}
/** The longest prompt one request asks for, bounded per run; null when the kind's prompts are not. */
function promptTokensCeiling(dataset) {
    return moduleOf(dataset).promptTokensCeiling(dataset);
}
/** A session dataset's session as validate estimates it (its kind's `sessionShape`). */
function sessionShape(dataset, replay) {
    const module = moduleOf(dataset);
    if (!module.sessions)
        throw new Error(`the ${dataset.type} dataset kind has no sessions`);
    return module.sessionShape(dataset, replay);
}
/** What the dataset asks that its cell cannot give (the kind's `problems`; paths from the dataset). */
function datasetProblems(dataset, cell) {
    return moduleOf(dataset).problems?.(dataset, cell) ?? [];
}

/** The fields every server kind's schema branch shares (each kind's module in this folder uses them). */
const startupTimeout = positiveNumber("a positive number of seconds")
    .max(configLimits.seconds, atMost(configLimits.seconds, "seconds"))
    .default(900)
    .describe("Seconds to wait for /health and /v1/models to answer before giving up.");
const serverLifecycle$1 = _enum(["per-side", "per-cell", "per-run"])
    .default("per-side")
    .describe("per-side: one server for every cell of a side (one start per block of runs), its prefix cache reset between cells; a server that cannot reset it gets a new server per cell, and the runs say so (the cheapest). per-cell: one server for all runs of a cell. per-run: a fresh server for every run (captures start-to-start variance, costs a start-up per run).");
const apiKeyEnv = envVarName()
    .optional()
    .describe("Name of the environment variable holding the API key sent as a Bearer token.");

/** Any command line that serves vLLM's API (vLLM from a virtualenv, a wrapper script), started as its own process group. */
const commandServer = strictObject({
    kind: literal("command"),
    argv: array(string())
        .min(1, "expected a non-empty list such as [vllm, serve, MODEL]")
        .describe("The command and its arguments, e.g. [.venv/bin/vllm, serve, Qwen/Qwen3-0.6B, --port, '8000']."),
    env: record(string(), string()).default({}).describe("Extra environment for the process."),
    cwd: string().optional().describe("Working directory of the process."),
    port: port().default(8000).describe("Port the command's server listens on."),
    host: nonEmptyString().default("127.0.0.1").describe("Host the client connects to."),
    api_key_env: apiKeyEnv,
    startup_timeout_s: startupTimeout,
    lifecycle: serverLifecycle$1,
});
const commandKind = {
    schema: commandServer,
    launchesProcess: true,
    sidesShareOneServer: null,
    defaultStartSeconds: 180,
    lifecycle: (server) => server.lifecycle,
    describe: (server) => `command ${server.argv.join(" ")}`,
    deviceProblems: (server, devices) => devices.length > 1 && !server.argv.some((arg) => arg.includes("{port}"))
        ? [
            {
                path: ["server", "argv"],
                message: `expected {port} in server.argv with ${devices.length} runner.devices (each device's server listens on server.port + its position: --port, "{port}")`,
            },
        ]
        : [],
    preset: {
        server: `
# How the server is started: any command line, e.g. vLLM from a virtualenv on the runner.
server:
  kind: command
  argv: [.venv/bin/vllm, serve, Qwen/Qwen3-0.6B, --port, "8000", --max-num-seqs, "256", --generation-config, vllm]
  env: { VLLM_SERVER_DEV_MODE: "1" }   # lets the gate reset the prefix cache between runs
  port: 8000
  startup_timeout_s: 900
  lifecycle: per-side
`,
        modelName: "Qwen/Qwen3-0.6B",
    },
};

/** A pinned vLLM container (docker or podman), started per the lifecycle. */
const dockerServer = strictObject({
    kind: literal("docker"),
    image: nonEmptyString("a container image such as vllm/vllm-openai@sha256:...").describe("The vLLM image, pinned by digest (vllm/vllm-openai@sha256:...) for reproducibility; a tag-only pin gets a warning."),
    args: array(string())
        .default([])
        .describe("vLLM engine arguments passed after the image, e.g. [--max-num-seqs, '256']."),
    env: array(envVarName())
        .default([])
        .describe("Names of environment variables passed through to the container, e.g. [HF_TOKEN]. Their values are redacted from logs."),
    gpus: nonEmptyString()
        .default("all")
        .describe("Value for docker --gpus (all, a count, or device=0,1); none: no --gpus flag (a CPU-only image, or a runtime that hands out GPUs itself)."),
    port: port().default(8000).describe("Host port the server listens on."),
    publish_address: nonEmptyString()
        .default("127.0.0.1")
        .describe("Host address the port is published on (docker --publish ADDRESS:PORT:...): loopback by default, so the dev-mode endpoints of a shared server are not reachable from the network; 0.0.0.0 publishes on every interface."),
    hf_cache_dir: string()
        // docker takes a bare name as a named volume (an empty cache) and does not expand ~.
        .refine((path) => path.startsWith("/"), {
        message: "expected an absolute host directory such as /home/runner/.cache/huggingface (docker takes a bare name as a named volume, and does not expand ~)",
    })
        .optional()
        .describe("Host directory mounted as /root/.cache/huggingface so weights are not downloaded each run."),
    docker_args: array(string())
        .default([])
        .refine((args) => !args.some((arg, i) => /^--net(work)?=host$/.test(arg) || (/^--net(work)?$/.test(arg) && args[i + 1] === "host")), {
        message: "--network host is not supported: docker then drops --publish, and the server is never reached at server.port (remove it; the port is published on server.publish_address)",
    })
        .describe("Extra arguments for docker run itself (before the image)."),
    docker_command: array(nonEmptyString())
        .min(1, "expected a non-empty list such as [docker] or [podman]")
        .default(["docker"])
        .describe("The docker command line, before each subcommand: [docker], [podman], [sudo, docker], a wrapper script, or [docker, --context, NAME] for a remote daemon."),
    api_key_env: apiKeyEnv,
    startup_timeout_s: startupTimeout,
    lifecycle: serverLifecycle$1,
});
const dockerKind = {
    schema: dockerServer,
    launchesProcess: true,
    sidesShareOneServer: null,
    defaultStartSeconds: 180,
    lifecycle: (server) => server.lifecycle,
    describe: (server) => `docker ${server.image}${server.args.length ? ` ${server.args.join(" ")}` : ""}`,
    warnings: (server, shown) => /@sha256:[0-9a-f]{64}$/.test(server.image)
        ? []
        : [
            `server.image is pinned by tag only (${shown.image}): a re-pushed tag changes the server silently; pin it by digest (image@sha256:...)`,
        ],
    preset: {
        server: `
# How the server is started. The image is pinned by digest so that a new image is a declared change, not noise.
# REPLACE the zeros below with the digest of the tag you want; it is printed by:
#   docker pull vllm/vllm-openai:v0.11.0 && docker inspect --format '{{index .RepoDigests 0}}' vllm/vllm-openai:v0.11.0
# (until then pulling the image fails: no image has that digest).
server:
  kind: docker
  image: vllm/vllm-openai:v0.11.0@sha256:0000000000000000000000000000000000000000000000000000000000000000
  args: [--max-num-seqs, "256", --max-num-batched-tokens, "8192", --generation-config, vllm]
  env: [HF_TOKEN]            # names only: values come from the runner's environment and are redacted from logs
  gpus: all
  port: 8000
  hf_cache_dir: /opt/hf-cache
  startup_timeout_s: 900
  lifecycle: per-side        # one server per side for every cell, prefix cache reset between cells; per-cell / per-run start more often
`,
        modelName: "Qwen/Qwen3-0.6B",
    },
};

/** A server someone else runs: nothing is started, it is probed and measured. */
const externalServer = strictObject({
    kind: literal("external"),
    base_url: httpUrl().describe("Base URL of a running OpenAI-compatible server, e.g. https://vllm.internal:8000."),
    metrics_url: httpUrl()
        .optional()
        .describe("Where Prometheus metrics are scraped, when not base_url + /metrics."),
    api_key_env: apiKeyEnv,
    startup_timeout_s: startupTimeout,
});
const externalKind = {
    schema: externalServer,
    launchesProcess: false,
    // An endpoint this job does not start is one deployment: both sides would measure the same server.
    sidesShareOneServer: "the server is external (server.kind: external): both sides would measure the same deployment",
    // Someone else started it: no start is ours to pay for, and one server serves every run (its cache is
    // not reset between cells: it is a deployment, not ours to reset beyond the fresh policy's).
    defaultStartSeconds: 0,
    lifecycle: () => "per-cell",
    describe: (server) => `external ${server.base_url}`,
    deviceProblems: () => [
        {
            path: ["runner", "devices"],
            message: "expected no runner.devices with server.kind external (a deployment we do not start cannot be placed on a device)",
        },
    ],
    preset: {
        server: `
# A server the team already runs (e.g. a multi-node deployment): nothing is started, it is probed and measured.
server:
  kind: external
  base_url: \${VLLM_BASE_URL:-http://127.0.0.1:8000}
  api_key_env: VLLM_API_KEY  # the name of the variable holding the key, never the key itself
  startup_timeout_s: 60
`,
        modelName: "Qwen/Qwen3-0.6B",
    },
};

/** The built-in vLLM-compatible simulator, started as a `vllm-perf-gate sim` process. */
const simServer = strictObject({
    kind: literal("sim"),
    profile: nonEmptyString()
        .default("small-gpu")
        .describe("A built-in simulator profile name or a path to a profile file."),
    set: record(string(), union([number(), string(), boolean()]))
        .default({})
        .describe("Profile overrides, as `vllm-perf-gate sim --set key=value`."),
    seed: nonNegativeInt()
        .default(0)
        .describe("Seed of the simulator's speed noise; each server start draws from it."),
    port: port().default(0).describe("Port to listen on; 0 picks a free one."),
    args: array(string())
        .default([])
        .describe("Extra vLLM engine flags for the simulator, e.g. [--max-num-seqs, '64']."),
    api_key_env: apiKeyEnv,
    startup_timeout_s: startupTimeout,
    lifecycle: serverLifecycle$1,
});
const simKind = {
    schema: simServer,
    launchesProcess: true,
    sidesShareOneServer: null,
    defaultStartSeconds: 1,
    lifecycle: (server) => server.lifecycle,
    describe: (server) => `simulator, profile ${server.profile}${Object.keys(server.set).length
        ? ` (${Object.entries(server.set)
            .map(([key, value]) => `${key}=${value}`)
            .join(", ")})`
        : ""}`,
    preset: {
        server: `
# The built-in vLLM-compatible simulator: no GPU needed (demos, trying the tool, testing the workflow).
server:
  kind: sim
  profile: small-gpu
  seed: 0
  lifecycle: per-side
`,
        modelName: "sim-model",
    },
};

/**
 * The server kinds, one module each in server-kinds/ (its schema branch and its facts), registered here
 * once. Everything else is derived from this list: `serverSchema` and its messages, `serverKinds` (init's
 * `--server`, presets, the fingerprint's `server.kind`), and the kinds with a trait (`launchedServerKinds`).
 * How a kind is launched is its entry in server/kinds/, keyed by these kinds, so the compiler demands one
 * for a new kind; `docs/server.md` has its row.
 */
const serverKindModules = [dockerKind, commandKind, externalKind, simKind];
const serverSchema = choice("kind", serverKindModules.map((module) => module.schema)).describe("How to get a server: start a pinned container, run a command, use a running endpoint, or the built-in simulator.");
/** Each kind's module by its name. */
const serverKindFacts = Object.fromEntries(serverKindModules.map((module) => [module.schema.shape.kind.value, module]));
/** The module of a config's kind, typed for that config. */
function factsOf(server) {
    return serverKindFacts[server.kind];
}
/** Every server kind, in the order of the registry (init's --server choices, presets, tests). */
const serverKinds = serverKindModules.map((module) => module.schema.shape.kind.value);
/** See LaunchedServerKind: the kinds the server state file records. */
const launchedServerKinds = serverKinds.filter((kind) => serverKindFacts[kind].launchesProcess);
/** Whether each run gets its own server or a cell's runs share one. */
function serverLifecycle(config) {
    return factsOf(config.server).lifecycle(config.server);
}
/** Why both sides of one job would measure one server (the kind's `sidesShareOneServer`), or null. */
function sidesShareOneServer(server) {
    return factsOf(server).sidesShareOneServer;
}
/** One line for the server section of `validate` (pass the template view: it is printed). */
function describeServer(server) {
    return factsOf(server).describe(server);
}
/** The warnings `validate` prints for the server (`shown`: the template view, for the text). */
function serverWarnings(server, shown) {
    return factsOf(server).warnings?.(server, shown) ?? [];
}
/** What runner.devices cannot do with this server (each kind says; most have nothing to say). */
function serverDeviceProblems(server, devices) {
    return factsOf(server).deviceProblems?.(server, devices) ?? [];
}

/**
 * The config file `vllm-perf-gate.yml`: the single source of truth for its shape, its defaults and its
 * documentation. The JSON Schema in `schema/` and the README's reference are generated from it.
 */
const modelSchema = strictObject({
    name: nonEmptyString().describe("The served model name sent in requests (vLLM's --served-model-name or the model id)."),
    source: string().optional().describe("Hugging Face repository id when it differs from name."),
    revision: nonEmptyString("a commit hash or tag")
        .optional()
        .describe("Model revision (commit) pinned and recorded."),
    tokenizer_revision: string().optional().describe("Tokenizer revision pinned and recorded."),
    max_model_len: positiveInt()
        .optional()
        .describe("Expected max_model_len; prompts longer than it are rejected by validate."),
});
const samplingSchema = strictObject({
    temperature: nonNegativeNumber()
        .default(0)
        .describe("Sent with every request (vLLM's default changed across versions, so it is always explicit)."),
    top_p: number().gt(0).max(1).default(1),
    top_k: number().int().min(-1).optional(),
    min_p: fraction().optional(),
    seed: nonNegativeInt().optional().describe("Per-request sampling seed; omitted when unset."),
    ignore_eos: boolean()
        .default(true)
        .describe("Generate exactly the requested output length (recommended for gating: fewer moving parts)."),
    min_tokens: nonNegativeInt()
        .max(configLimits.tokens, atMost(configLimits.tokens, "token counts"))
        .optional(),
    repetition_penalty: positiveNumber().optional(),
    extra_body: record(string(), unknown())
        .default({})
        .describe("Extra JSON fields merged into every request body."),
});
const concurrencyLoad = strictObject({
    type: literal("concurrency"),
    concurrency: positiveInt()
        .max(configLimits.concurrency, atMost(configLimits.concurrency, "requests in flight"))
        .describe("Requests kept in flight (closed loop)."),
});
const rateLoad = strictObject({
    type: literal("rate"),
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
    duration_s: positiveNumber("a positive number of seconds").max(configLimits.seconds, atMost(configLimits.seconds, "seconds")),
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
    type: literal("stages"),
    stages: array(stageSchema)
        .min(1, "expected at least one stage")
        .max(configLimits.stages, `expected at most ${configLimits.stages} stages (the limit on stages; see docs/config-reference.md#limits)`),
    max_concurrency: positiveInt()
        .max(configLimits.concurrency, atMost(configLimits.concurrency, "requests in flight"))
        .optional(),
});
const loadSchema = choice("type", [concurrencyLoad, rateLoad, stagesLoad], ["concurrency", "rate", "stages"]);
const sizeSchema = union([
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
], { error: () => "expected { requests: N } or { duration_s: S }" });
const warmupSchema = union([
    strictObject({
        requests: nonNegativeInt().max(configLimits.warmupRequests, atMost(configLimits.warmupRequests, "warm-up requests per run")),
    }),
    strictObject({
        duration_s: nonNegativeNumber("a number of seconds >= 0").max(configLimits.seconds, atMost(configLimits.seconds, "seconds")),
    }),
], { error: () => "expected { requests: N } or { duration_s: S }" })
    .default({ requests: 4 });
const sloSchema = strictObject({
    ttft_ms: positiveNumber().optional(),
    tpot_ms: positiveNumber().optional(),
    e2el_ms: positiveNumber().optional(),
}).describe("Latency objectives for goodput: a successful request is good when it meets every one given.");
const latencyPercentile = _enum(["p50", "p90", "p95", "p99"], {
    error: (issue) => `expected one of p50, p90, p95, p99 (the percentile every SLO of the cell is read at), got ${describeValue(issue.input)}`,
})
    .describe("The percentile of each run's latencies the SLOs are read at (p95: the slowest 5% wait this long).");
const loadValue = positiveNumber("a positive load (requests per second or requests in flight)").max(configLimits.ratePerSecond, atMost(configLimits.ratePerSecond, "requests per second"));
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
        .describe("Loads searched: the load dimension of `load` (requests/s for rate, in flight for concurrency)."),
    precision: fraction()
        .default(0.05)
        .describe("Stop when the capacity interval's width is at most this share of the capacity (0.05 = 5%); otherwise at repeats.max runs. Smaller costs more runs and narrows the capacity ratio's interval (docs/capacity.md, measured)."),
    gated: boolean()
        .default(true)
        .describe("The capacity ratio joins the blocking (Holm) family; false: advisory."),
    initial_loads: number()
        .int()
        .min(2, "expected a whole number >= 2 (the search brackets the capacity between two loads)")
        .max(32, "expected at most 32 (the limit on initial loads; see docs/capacity.md)")
        .default(4)
        .describe("Loads of the first, geometric pass over range (one run each) before the search refines."),
    max_runs: positiveInt()
        .max(configLimits.runs, atMost(configLimits.runs, "runs per side"))
        .optional()
        .describe("Most runs per side of this cell while its capacity verdict stays inconclusive: the search stops at precision or repeats.max runs (the first look), then the gate adds runs up to this (the second look). Default: twice repeats.max (docs/capacity.md, measured)."),
});
/** A load sweep (docs/capacity.md): loads listed, or a geometric series from..to of count loads. */
const sweepSchema = union([
    strictObject({
        loads: array(loadValue)
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
        count: number()
            .int()
            .min(2, "expected a whole number >= 2")
            .max(64, "expected at most 64 loads (the limit on sweep loads; see docs/capacity.md)"),
        runs: positiveInt()
            .max(configLimits.runs, atMost(configLimits.runs, "runs per side"))
            .default(3)
            .describe("Runs per load."),
    }),
], { error: () => "expected { loads: [L, ...] } or { from: L, to: L, count: N }" })
    .describe("A load sweep (run --sweep): the loads listed, or a geometric series from..to of count loads, in the dimension of `load`.");
/** How open-loop arrivals are timed (docs/run.md, Schedules). */
const scheduleKind = _enum(["idle-elided", "real-time"], {
    error: (issue) => `expected idle-elided or real-time (how open-loop arrivals are timed), got ${describeValue(issue.input)}`,
})
    .describe("idle-elided: when no request is in flight, the next arrival is sent after settle_ms instead of at its time, and the rest of the schedule moves as much earlier (in-flight sets and queues stay as on real time; a low-load cell takes a fraction of its wall-clock). real-time: every arrival at its time (keep it where the server is not the same after an idle gap, e.g. GPU clocks that drop when idle).");
const cellSchema = strictObject({
    name: string()
        .regex(/^[a-z0-9][a-z0-9_.-]*$/, "expected a name of lower-case letters, digits, '.', '_' or '-'"),
    description: string().optional(),
    family: string()
        .regex(/^[a-z0-9][a-z0-9_.-]*$/, "expected a family name of lower-case letters, digits, '.', '_' or '-'")
        .optional()
        .describe("Workload family: the cells a change is likely to move together (docs/compare.md#family-tests). The gate tests each gated metric across a family's cells as one combined test beside the per-cell tests. Default: the part of the cell's name before its first '-' (chat-fresh-low -> chat), the whole name when it has none."),
    endpoint: _enum(["completions", "chat"]).default("completions"),
    dataset: datasetSchema,
    load: loadSchema,
    size: sizeSchema,
    warmup: warmupSchema,
    prefix: _enum(["fresh", "reuse"])
        .default("fresh")
        .describe("fresh: a new cache_salt per run and a cache reset where the server allows it. reuse: prefixes stay warm; the hit rate is reported."),
    slo: sloSchema.optional(),
    capacity: capacitySchema
        .optional()
        .describe("Makes the cell a capacity cell: searched for the highest load meeting `slo` (docs/capacity.md)."),
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
const maxFamilyWeight = 0.9;
const familyWeightExpected = {
    error: (issue) => `expected a fraction from 0 to ${maxFamilyWeight} (the limit on gate.family_weight: the rest of a check's level keeps it testable on its own), got ${describeValue(issue.input)}`,
};
/**
 * The noise believed before a PR's own runs, per metric family and level (docs/compare.md, "Server
 * starts"): the sd of ln(metric) between server starts and between runs on one start. Published GPU
 * figures (vLLM and SGLang on H100/H200): throughput about 0.5% run to run and 1% start to start, TPOT
 * and E2E about 1.5% and 1%, TTFT p95 about 3% and 3%.
 */
const levelPrior = (start, run, what) => strictObject({
    start_sd: nonNegativeNumber()
        .default(start)
        .describe(`sd of ln(${what}) between server starts of one configuration.`),
    run_sd: nonNegativeNumber()
        .default(run)
        .describe(`sd of ln(${what}) between runs on one server start, beyond the sampling noise of its requests.`),
}).default({ start_sd: start, run_sd: run });
const defaultNoisePrior = {
    throughput: { start_sd: 0.01, run_sd: 0.005 },
    tpot: { start_sd: 0.01, run_sd: 0.015 },
    e2e: { start_sd: 0.01, run_sd: 0.015 },
    ttft: { start_sd: 0.03, run_sd: 0.03 },
    weight_starts: 4,
    max_age_days: 30,
};
const noisePriorSchema = strictObject({
    throughput: levelPrior(defaultNoisePrior.throughput.start_sd, defaultNoisePrior.throughput.run_sd, "throughput, goodput of sessions, counts per request"),
    tpot: levelPrior(defaultNoisePrior.tpot.start_sd, defaultNoisePrior.tpot.run_sd, "TPOT and ITL"),
    e2e: levelPrior(defaultNoisePrior.e2e.start_sd, defaultNoisePrior.e2e.run_sd, "E2E latency, goodput and session durations"),
    ttft: levelPrior(defaultNoisePrior.ttft.start_sd, defaultNoisePrior.ttft.run_sd, "TTFT"),
    weight_starts: nonNegativeNumber()
        .default(defaultNoisePrior.weight_starts)
        .describe("Weight of the prior start-to-start variance, in degrees of freedom (server starts' worth of evidence), when pooled with what the runs' own starts show; 0 trusts the starts alone."),
    max_age_days: nonNegativeNumber()
        .default(defaultNoisePrior.max_age_days)
        .describe("Days a noise prior measured on this runner (a calibration, main's history) is taken as current: an older one is still used (and widened where the runs contradict it), but the verdict warns and the report marks it stale (docs/compare.md#noise-known-in-advance)."),
})
    .default({
    throughput: { ...defaultNoisePrior.throughput },
    tpot: { ...defaultNoisePrior.tpot },
    e2e: { ...defaultNoisePrior.e2e },
    ttft: { ...defaultNoisePrior.ttft },
    weight_starts: defaultNoisePrior.weight_starts,
    max_age_days: defaultNoisePrior.max_age_days,
})
    .describe("Noise believed before the runs, per metric family: start_sd (between server starts) and run_sd (between runs on one start). The start level is added to a side whose runs share few starts; a calibration or main's history replaces it where it has measured it.");
const gateSchema = strictObject({
    metrics: array(_enum(gatableMetricNames))
        .default([...gatedMetricNames])
        .describe("Metrics in the blocking family (per cell); all others are advisory."),
    tolerance: fraction()
        .default(0.05)
        .describe("Relative change that is acceptable (0.05 = 5%): a true change at or inside it is blocked with probability at most 1 − confidence."),
    detect_change: fraction()
        .optional()
        .describe("Smallest regression the gate must catch (0.1 = 10%), larger than tolerance: the report states each check's minimum detectable change against it and how many more runs would reach it. Default: twice the tolerance (0.1 at the default 0.05)."),
    budget_gpu_minutes: positiveNumber("a number of GPU-minutes > 0")
        .max(configLimits.budgetGpuMinutes, atMost(configLimits.budgetGpuMinutes, "GPU-minutes per pull request"))
        .optional()
        .describe("Most GPU-minutes one pull request may spend, every server start counted (docs/action.md, Choosing a budget). The gate then measures the plan that decides the most gated checks at detect_change within it (runs per side, runs per server start, requests per run of each cell), in one look; a check the budget cannot decide is reported with the smallest change it could catch and the budget that would decide it. Absent: the run plan of the config's repeats and sizes, with sequential looks up to repeats.max."),
    metric_tolerance: partialRecord(_enum(metricNames), fraction())
        .default({})
        .describe("Per-metric tolerance overrides."),
    confidence: number()
        .gt(0.5)
        .lt(1)
        .default(0.95)
        .describe("Family-wise confidence of the blocking decision."),
    fail_on: _enum(["regression", "inconclusive", "never"]).default("regression"),
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
        .describe("Successful requests every run needs before that percentile is gated; below it the metric is advisory."),
    allowed_differences: array(string())
        .default([])
        .describe("Fingerprint fields allowed to differ between baseline and candidate (the thing under test), e.g. server.image, server.args."),
    on_not_comparable: _enum(["fail", "warn"]).default("fail"),
    session_drift_sd: nonNegativeNumber()
        .default(0.02)
        .describe("Prior for the sd of the ln shift between two sessions (jobs) in stored mode; the baseline history's estimate is shrunk towards it."),
    baseline_sessions: positiveInt()
        .max(configLimits.baselineSessions, atMost(configLimits.baselineSessions, "baseline sessions"))
        .default(10)
        .describe("Stored baselines of the base branch a pull request reads (stored mode): the one it compares with plus up to this many minus one earlier ones, from which the between-session drift is estimated."),
    min_run_sd: nonNegativeNumber()
        .default(0.005)
        .describe("Floor on the run-to-run sd of ln(metric) per side: identical runs (a deterministic simulator) are treated as varying by this much, never as infinite certainty."),
    noise_prior: noisePriorSchema,
    family_weight: number(familyWeightExpected)
        .min(0, familyWeightExpected)
        .max(maxFamilyWeight, familyWeightExpected)
        .default(defaultFamilyWeight)
        .describe("Share of each grouped check's level given to its workload family's combined test (docs/compare.md#family-tests): a change that moves a metric in every cell of a family is caught from the family's pooled runs, at the price of this share on each single-cell test until the family test is rejected. 0 turns the family tests off (Holm over the checks alone)."),
    runs_are_fresh_starts: boolean()
        .default(false)
        .describe("Declares that every compared run whose file records no server start (run.json files of earlier versions, vLLM results without server_start) was measured on a fresh server start (docs/compare.md#server-starts). Default false: such runs of one input are taken to share one start, the conservative reading. Runs that record their start keep it."),
    outlier_threshold: nonNegativeNumber()
        .default(5)
        .describe("Screen out a run whose gated metrics sit, on average, more than this many robust sd from its side's median (sides of >= 5 runs; at most 1 in 5 runs); 0 turns the screen off."),
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
        .describe("Most runs per side (measured, screened outlier runs included) while the verdict stays inconclusive; looks at 5, 10, 15, 20 and 25 by default."),
    baseline: number()
        .int()
        .min(2, "expected a whole number >= 2 (a stored baseline needs 2 runs to estimate run-to-run noise)")
        .max(configLimits.runs, atMost(configLimits.runs, "runs per side"))
        .default(10)
        .describe("Runs per cell a stored baseline records (mode baseline, or auto on the default branch). A pull request adds runs only on its own side, so the baseline is measured once with enough runs."),
    block: union([
        positiveInt().max(configLimits.runs, atMost(configLimits.runs, "runs per side")),
        literal("auto"),
        literal("fresh"),
    ])
        .default("auto")
        .describe('Interleaved mode: runs per side measured back to back on one server start, alternating in groups (A5 B10 A10 B10 A5 for 20 runs at 5). Larger blocks cost fewer server starts; 1 (A B B A per run) protects best against drift within the job and lets compare see the start-to-start noise. "fresh": every run of a side on a server start of its own (A B B A per run), so each run is an independent replicate and the start-to-start noise is inside the runs\' own spread (a server the runner starts only). "auto" chooses by cost (docs/compare.md, "Server starts"): runs per start in proportion to the square root of the run-level over the start-level variance and of a start\'s cost over a run\'s; fresh when that is below two runs, else at least two starts per side at the first look when the start level matters for the tolerance.'),
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
        .describe("GPU seconds one server start costs (image pull aside: weights load, compile, warm-up), for the GPU-minutes validate estimates and the report prints. Default 180 for docker and command, 0 for external, 1 for sim."),
});
/** One server's devices: an index (`3`) or a comma list for a server spanning several (`"0,1"`). */
const deviceSpec = union([
    nonNegativeInt("a device index"),
    string().regex(/^\d+(,\d+)*$/, 'expected a device index or a comma list such as "0,1"'),
])
    .transform(String);
/**
 * The measuring machine: its GPUs, one server on each (docs/action.md, Several GPUs), and how the open-loop
 * schedules are timed (docs/run.md, Schedules).
 */
const runnerSchema = strictObject({
    devices: union([
        positiveInt("a number of devices").max(configLimits.devices, atMost(configLimits.devices, "devices")),
        array(deviceSpec)
            .min(1, "expected at least one device")
            .max(configLimits.devices, atMost(configLimits.devices, "devices")),
    ], {
        error: (issue) => `expected a number of devices or a list of device indices (each a number or "0,1" for a server on two), got ${describeValue(issue.input)}`,
    })
        .optional()
        .transform((devices) => devices === undefined
        ? undefined
        : typeof devices === "number"
            ? Array.from({ length: devices }, (_, index) => String(index))
            : devices)
        .describe('GPUs to measure on at once, one server on each: a count (4: devices 0-3) or a list ([0, 2] or ["0,1", "2,3"] for servers on two GPUs). Docker gets --gpus device=K, a command CUDA_VISIBLE_DEVICES=K, the simulator --device K. Cells and both sides run in parallel, each cell\'s sides on one device (a crossover). Unset: one server at a time, on the GPUs server.gpus names.'),
    schedule: scheduleKind.default("idle-elided"),
    settle_ms: nonNegativeNumber("a number of milliseconds >= 0")
        .max(configLimits.settleMs, atMost(configLimits.settleMs, "runner.settle_ms"))
        .default(100)
        .describe("idle-elided: how long after the last request ended the next arrival is sent, where its time is later."),
}).refine((runner) => runner.devices === undefined || new Set(runner.devices).size === runner.devices.length, {
    message: "expected each device once",
    path: ["devices"],
});
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
        .describe("Simulator only: p99 of its step loop's lateness (sim:step_lateness_seconds) beyond which a run is excluded as server host starved. Real vLLM exports no such family: no effect there."),
});
/**
 * Quality beside speed (docs/quality.md): the guard checks every compared cell gets from its measured
 * requests, judged as a family of their own.
 */
const qualityGuardsSchema = strictObject({
    enabled: boolean()
        .default(true)
        .describe("Judge the guard metrics (finish reasons, zero outputs, usage vs chunks, output length)."),
    share_points: fraction()
        .default(0.02)
        .describe("Rise of a guard share (requests finished at max_tokens, aborted, with zero output, with usage unlike the chunks) that is a regression when significant: 0.02 = 2 percentage points."),
    output_length_tolerance: fraction()
        .default(0.1)
        .describe("Relative shift of the mean output tokens per request, either way, that is a regression when significant (MLPerf's TEST09 allows 10%)."),
});
/**
 * The greedy-output check: its cells' requests are sent greedy (temperature 0, ignore_eos false, logprobs
 * asked), their outputs kept per prompt in run.json and compared with the baseline's.
 */
const qualityGreedySchema = strictObject({
    cells: array(string())
        .min(1, "expected at least one cell name")
        .describe("Cells whose outputs are kept and compared (a few hundred prompts at low load); their requests are sent with temperature 0 and ignore_eos false whatever `sampling` says."),
    logprobs: nonNegativeInt()
        .max(20, atMost(20, "logprobs (vLLM's default --max-logprobs is 20)"))
        .default(1)
        .describe("logprobs asked per token (completions `logprobs: k`, chat `top_logprobs: k`); 0 asks for none."),
    first_tokens: positiveInt()
        .max(configLimits.tokens, atMost(configLimits.tokens, "token counts"))
        .default(32)
        .describe("N of the share of prompts whose output is identical up to the first N tokens."),
    max_changed_share: fraction()
        .default(0.02)
        .describe("Share of prompts whose output may differ from the baseline's beyond the baseline's own run-to-run differences (0.02 = 2%)."),
    max_prefix_changed_share: fraction().default(0.02).describe("The same for the first first_tokens tokens."),
    min_similarity: fraction()
        .default(0.98)
        .describe("Lowest acceptable mean token-level similarity (1 - edit distance / longer length)."),
    max_logprob_drift: nonNegativeNumber()
        .default(0.05)
        .describe("Largest acceptable mean |logprob change| (nats) of the chosen tokens, over the tokens both sides chose alike."),
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
const externalTaskLimits = { commands: 8, timeoutS: 86_400 };
const qualityExternalTaskSchema = strictObject({
    name: string()
        .regex(/^[A-Za-z0-9_.-]{1,64}$/, "expected 1-64 letters, digits, '_', '.' or '-' (it names a file)")
        .describe("Names the check in the report and its result file external-<name>.json in the run's directory."),
    cell: nonEmptyString("a cell name").describe("The cell whose server the command runs against, once per side, after that cell's first run (run 0)."),
    command: array(string())
        .min(1, "expected the command and its arguments, e.g. [lm_eval, --model, local-completions, ...]")
        .describe("Program and arguments, run without a shell; {base_url}, {model}, {output_dir} and {result_file} are replaced in each argument. The environment is inherited (an API key is read from it by the command, never written into the arguments)."),
    accuracy_path: nonEmptyString("a dotted path, e.g. results.gsm8k.exact_match,strict-match").describe("Dotted path of the accuracy (a number from 0 to 1) in the JSON result."),
    count_path: string()
        .min(1)
        .optional()
        .describe("Dotted path of the number of samples scored (needed for the interval when samples_path is absent)."),
    samples_path: string()
        .min(1)
        .optional()
        .describe("Dotted path of an array of per-sample results; when both sides have it, the paired test (McNemar) applies."),
    id_field: nonEmptyString().default("doc_id").describe("A sample's id (pairs the sides' samples)."),
    score_field: nonEmptyString()
        .default("score")
        .describe("A sample's score: true/false or 1/0 (a number >= 0.5 counts as correct)."),
    timeout_s: positiveInt()
        .max(externalTaskLimits.timeoutS, atMost(externalTaskLimits.timeoutS, "seconds of an external command"))
        .default(3600)
        .describe("Longest the command may run before it is stopped (the limit quality.tasks.external[].timeout_s)."),
}).refine((spec) => spec.samples_path !== undefined || spec.count_path !== undefined, {
    message: "expected samples_path or count_path (the number of samples is needed for the Wilson interval)",
    path: ["count_path"],
});
/** The task-accuracy check of every `tasks` cell (docs/quality.md). */
const qualityTasksSchema = strictObject({
    tolerance_points: fraction()
        .default(0.02)
        .describe("Drop in accuracy that is a regression when the paired test (exact McNemar) says it is real: 0.02 = 2 points."),
    external: array(qualityExternalTaskSchema)
        .max(externalTaskLimits.commands, atMost(externalTaskLimits.commands, "external task commands"))
        .default([])
        .describe("External task-accuracy commands (e.g. lm-eval-harness) run against a cell's server."),
});
const qualitySchema = strictObject({
    guards: qualityGuardsSchema.default(qualityGuardsSchema.parse({})),
    tasks: qualityTasksSchema.default(qualityTasksSchema.parse({})),
    greedy: qualityGreedySchema.optional(),
});
const configSchema = strictObject({
    version: literal(1, {
        error: (issue) => `expected 1 (the only config version), got ${JSON.stringify(issue.input)}`,
    }),
    name: string().optional().describe("A label for reports."),
    seed: nonNegativeInt().default(0).describe("Workload seed shared by all cells unless a cell sets its own."),
    server: serverSchema,
    model: modelSchema,
    sampling: samplingSchema.default({ temperature: 0, top_p: 1, ignore_eos: true, extra_body: {} }),
    cells: array(cellSchema)
        .min(1, "expected at least one cell")
        .max(configLimits.cells, `expected at most ${configLimits.cells} cells (the limit on cells; see docs/config-reference.md#limits)`),
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
    for (const problem of duplicateCellNames(config.cells))
        context.addIssue({ code: "custom", ...problem });
    for (const problem of promptTokenBudget(config.cells))
        context.addIssue({ code: "custom", ...problem });
    for (const problem of capacityProblems(config.cells))
        context.addIssue({ code: "custom", ...problem });
    for (const problem of datasetCellProblems(config.cells))
        context.addIssue({ code: "custom", ...problem });
    for (const problem of unknownQualityCells(config))
        context.addIssue({ code: "custom", ...problem });
    for (const problem of deviceProblems(config))
        context.addIssue({ code: "custom", ...problem });
    for (const problem of freshStartProblems(config))
        context.addIssue({ code: "custom", ...problem });
});
/**
 * repeats.block fresh restarts the server for every run: a server someone else started (server.kind
 * external) cannot be, and its runs would be labelled as starts they never had.
 */
function freshStartProblems(config) {
    if (config.repeats.block !== "fresh" || serverKindFacts[config.server.kind].launchesProcess)
        return [];
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
function deviceProblems(config) {
    const devices = config.runner.devices;
    if (devices === undefined)
        return [];
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
function capacityProblems(cells) {
    const problems = [];
    cells.forEach((cell, index) => {
        for (const key of ["capacity", "sweep"]) {
            if (cell[key] === undefined)
                continue;
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
        if (cell.capacity === undefined)
            return;
        const slo = cell.slo ?? {};
        if (slo.ttft_ms === undefined && slo.tpot_ms === undefined && slo.e2el_ms === undefined)
            problems.push({
                path: ["cells", index, "slo"],
                message: "expected at least one of ttft_ms, tpot_ms, e2el_ms in a capacity cell's slo (the objectives the capacity is the highest load meeting)",
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
function unknownQualityCells(config) {
    const names = new Set(config.cells.map((cell) => cell.name));
    const unknown = (name, path) => names.has(name)
        ? []
        : [{ path, message: `expected the name of a cell (${[...names].join(", ")}), got "${name}"` }];
    const seen = new Set();
    const twice = (name, index) => {
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
        ...(config.quality.greedy?.cells ?? []).flatMap((name, index) => unknown(name, ["quality", "greedy", "cells", index])),
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
function promptTokenBudget(cells) {
    const problems = [];
    cells.forEach((cell, index) => {
        if (!("requests" in cell.size))
            return;
        const perRequest = promptTokensCeiling(cell.dataset);
        if (perRequest === null)
            return;
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
function datasetCellProblems(cells) {
    const problems = [];
    cells.forEach((cell, index) => {
        const dataset = cell.dataset;
        if (isSessionDataset(dataset) && !isTraceDataset(dataset) && cell.endpoint !== "chat")
            problems.push({
                path: ["cells", index, "endpoint"],
                message: `expected chat for a ${dataset.type} dataset (a session sends its conversation as messages), got ${cell.endpoint}`,
            });
        for (const problem of datasetProblems(dataset, { sessionsInFlight: sessionsInFlight(cell.load) }))
            problems.push({ path: ["cells", index, "dataset", ...problem.path], message: problem.message });
        if (isTraceDataset(dataset))
            problems.push(...traceWindowProblems(dataset, index));
    });
    return problems;
}
/**
 * Sessions a cell's load can hold in flight at once (its closed-loop concurrency or max_concurrency);
 * null when an open-loop load has no cap.
 */
function sessionsInFlight(load) {
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
function traceWindowProblems(dataset, index) {
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
function duplicateCellNames(cells) {
    const seen = new Map();
    const problems = [];
    cells.forEach((cell, index) => {
        const name = cell?.name;
        if (typeof name !== "string")
            return;
        const first = seen.get(name);
        if (first === undefined)
            seen.set(name, index);
        else
            problems.push({
                path: ["cells", index, "name"],
                message: `duplicate cell name "${name}" (also cells[${first}].name)`,
            });
    });
    return problems;
}
/** A cell measured over loads instead of N times at one: a capacity search or a sweep (docs/capacity.md). */
function isSearchedCell(cell) {
    return cell.capacity !== undefined || cell.sweep !== undefined;
}

const noInterpolation = { templates: []};
const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\$/g;
function interpolateEnvironment(value, env) {
    const fromEnvironment = new Map();
    const templates = [];
    const values = new Map();
    const problems = [];
    const visit = (node, path) => {
        if (typeof node === "string") {
            if (!node.includes("$"))
                return node;
            let used = false;
            const replaced = node.replace(reference, (match, name, fallback) => {
                if (match === "$$")
                    return "$";
                used = true;
                const found = env[name];
                if (found !== undefined && found !== "") {
                    values.set(name, found);
                    return found;
                }
                if (fallback !== undefined)
                    return fallback;
                problems.push({
                    path,
                    message: `environment variable ${name} is not set (referenced as \${${name}})`,
                });
                return "";
            });
            if (used) {
                fromEnvironment.set(formatPath(path), node);
                templates.push({ path, template: node });
            }
            return replaced;
        }
        if (Array.isArray(node))
            return node.map((item, index) => visit(item, [...path, index]));
        if (node !== null && typeof node === "object") {
            return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, visit(item, [...path, key])]));
        }
        return node;
    };
    const result = visit(value, []);
    return {
        value: result,
        fromEnvironment,
        templates,
        values: [...values].map(([name, found]) => ({ name, value: found })),
        problems,
    };
}
/**
 * A deep copy of `value` (a parsed config or a part of it, found at `base` in the whole) with every value
 * that came from the environment replaced by its template. What is printed and recorded; never run it:
 * a number field filled from `${N}` holds the string "${N}" here.
 */
function templateView(value, templates, base = []) {
    const copy = structuredClone(value);
    let root = copy;
    for (const { path, template } of templates) {
        if (!startsWith(path, base))
            continue;
        const inner = path.slice(base.length);
        if (inner.length === 0) {
            root = template;
            continue;
        }
        let node = root;
        for (const segment of inner.slice(0, -1)) {
            node =
                node !== null && typeof node === "object" ? node[segment] : undefined;
        }
        const last = inner[inner.length - 1];
        if (node !== null && typeof node === "object" && Object.hasOwn(node, last)) {
            node[last] = template;
        }
    }
    return root;
}
function startsWith(path, base) {
    return base.length <= path.length && base.every((segment, index) => path[index] === segment);
}
/** `cells[2].load.rate` */
function formatPath(path) {
    let text = "";
    for (const segment of path) {
        if (typeof segment === "number")
            text += `[${segment}]`;
        else
            text += text === "" ? String(segment) : `.${String(segment)}`;
    }
    return text === "" ? "(top level)" : text;
}

/**
 * Limits on the YAML a config may use, checked before anything is built from it, so that no file, however
 * crafted, makes `validate` or `run` crash, hang or exhaust memory. Documented in docs/config-reference.md#limits (generated from these constants).
 */
const yamlLimits = {
    /** Bytes in a config file. */
    maxBytes: 1024 * 1024,
    /** Mappings and lists nested in each other. */
    maxDepth: 64,
    /** Values the document holds once every alias (`*name`) is expanded: bounds alias bombs. */
    maxExpandedValues: 100_000,
};
const tooDeep = `nested deeper than ${yamlLimits.maxDepth} levels (the limit on mappings and lists inside each other)`;
/**
 * YAML text to plain data, within `yamlLimits`: size, nesting depth, aliases that are undefined, refer to
 * a node that contains them, or expand to too much data, and duplicate keys. Linear in the size of the
 * text; never throws for any input.
 */
function parseConfigYaml(text) {
    if (text.length > yamlLimits.maxBytes) {
        return {
            ok: false,
            problems: [
                {
                    path: "(file)",
                    message: `the file has ${text.length} characters; the limit is ${yamlLimits.maxBytes} (1 MiB)`,
                },
            ],
        };
    }
    const lineCounter = new distExports.LineCounter();
    let document;
    try {
        // Duplicate keys are found below in linear time (the parser's own check is quadratic in the keys).
        document = distExports.parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: false, logLevel: "error" });
    }
    catch (error) {
        return { ok: false, problems: [{ path: "(YAML syntax)", message: parserFailure(error) }] };
    }
    if (document.errors.length > 0) {
        return {
            ok: false,
            problems: document.errors.map((error) => {
                const position = error.linePos?.[0];
                const message = /Maximum call stack/.test(error.message)
                    ? tooDeep
                    : error.code === "MULTIPLE_DOCS"
                        ? "the file holds more than one YAML document (a second ---); a config is a single document"
                        : (error.message.split("\n")[0] ?? error.message).replace(/ at line \d+, column \d+:?$/, "");
                return {
                    path: "(YAML syntax)",
                    message,
                    ...(position ? { line: position.line, column: position.col } : {}),
                };
            }),
        };
    }
    const problems = checkStructure(document.contents, lineCounter);
    if (problems.length > 0)
        return { ok: false, problems };
    try {
        // Aliases were bounded above (checkStructure), so the library's own heuristic is not needed.
        return { ok: true, value: document.toJS({ maxAliasCount: -1 }), document, lineCounter };
    }
    catch (error) {
        return { ok: false, problems: [{ path: "(YAML syntax)", message: parserFailure(error) }] };
    }
}
function parserFailure(error) {
    if (error instanceof RangeError)
        return tooDeep;
    return `the YAML could not be read: ${error instanceof Error ? error.message : String(error)}`;
}
/**
 * One iterative walk (no recursion: depth is what is being checked) over the document in order: nesting
 * depth, aliases (defined before use, not inside the node they name, total expansion bounded), duplicate
 * keys. Stops at the first limit exceeded; reports every duplicate key and bad alias otherwise.
 */
function checkStructure(root, lineCounter) {
    const problems = [];
    const at = (node, path, message) => {
        const range = node?.range;
        const position = range ? lineCounter.linePos(range[0]) : undefined;
        // A path 64 levels deep says nothing more than its first ten segments do.
        const shown = path.length > 10 ? `${formatPath(path.slice(0, 10))}...` : formatPath(path);
        return {
            path: path.length === 0 ? "(top level)" : shown,
            message,
            ...(position ? { line: position.line, column: position.col } : {}),
        };
    };
    if (root === null || root === undefined)
        return problems;
    /** Anchors defined so far (the last one of a name wins, as in YAML). */
    const anchors = new Map();
    /** Nodes being walked (ancestors of the current one). */
    const open = new Set();
    /** Values each finished node expands to, aliases included. */
    const sizes = new Map();
    const stack = [{ node: root, path: [], depth: 0, exit: false }];
    while (stack.length > 0) {
        const frame = stack.pop();
        const { node, path } = frame;
        if (frame.exit) {
            open.delete(node);
            let size = 1;
            for (const child of childrenOf(node))
                size += sizes.get(child.node) ?? 0;
            sizes.set(node, size);
            if (size > yamlLimits.maxExpandedValues) {
                problems.push(at(node, path, `aliases expand this to more than ${yamlLimits.maxExpandedValues} values (the limit on the expanded document; an alias bomb?)`));
                return problems;
            }
            continue;
        }
        if (distExports.isAlias(node)) {
            // As YAML resolves it: the last anchor of that name before the alias, in document order.
            const target = anchors.get(node.source);
            if (target === undefined || open.has(target)) {
                problems.push(at(node, path, target === undefined
                    ? `alias *${node.source} is not defined (define &${node.source} before using it)`
                    : `alias *${node.source} refers to a node that contains it (a self-reference has no finite value)`));
                sizes.set(node, 1);
            }
            else
                sizes.set(node, sizes.get(target) ?? 1);
            continue;
        }
        const anchor = node.anchor;
        if (anchor)
            anchors.set(anchor, node);
        const container = distExports.isMap(node) || distExports.isSeq(node);
        const depth = frame.depth + (container ? 1 : 0);
        if (depth > yamlLimits.maxDepth) {
            problems.push(at(node, path, tooDeep));
            return problems;
        }
        if (distExports.isMap(node))
            duplicateKeys(node.items, path, at, lineCounter, problems);
        open.add(node);
        stack.push({ node, path, depth, exit: true });
        const children = childrenOf(node);
        for (let index = children.length - 1; index >= 0; index--) {
            const child = children[index];
            stack.push({ node: child.node, path: [...path, ...child.segment], depth, exit: false });
        }
    }
    return problems;
}
function childrenOf(node) {
    if (distExports.isMap(node) || distExports.isSeq(node)) {
        const inSeq = distExports.isSeq(node);
        return node.items.flatMap((item, index) => {
            if (distExports.isPair(item)) {
                const key = distExports.isScalar(item.key) ? String(item.key.value) : "(key)";
                const prefix = inSeq ? [index] : [];
                return [
                    ...(item.key !== null && typeof item.key === "object" && !distExports.isScalar(item.key)
                        ? [{ node: item.key, segment: [...prefix, key] }]
                        : []),
                    ...(item.value !== null && item.value !== undefined
                        ? [{ node: item.value, segment: [...prefix, key] }]
                        : []),
                ];
            }
            return item === null || item === undefined ? [] : [{ node: item, segment: [index] }];
        });
    }
    return [];
}
function duplicateKeys(pairs, path, at, lineCounter, problems) {
    const seen = new Map();
    for (const pair of pairs) {
        if (!distExports.isPair(pair) || !distExports.isScalar(pair.key))
            continue;
        const key = String(pair.key.value);
        const first = seen.get(key);
        if (first === undefined) {
            seen.set(key, pair.key);
            continue;
        }
        const range = first.range;
        const line = range ? ` (first on line ${lineCounter.linePos(range[0]).line})` : "";
        problems.push(at(pair.key, [...path, key], `duplicate key "${key}"${line}; keys must be unique`));
    }
}

/** Problems listed in a ConfigError's message; the rest are counted (all stay in `problems`). */
const maxListedProblems = 50;
/** Characters of one problem's message that are printed; the rest are counted. */
const maxProblemChars = 2_000;
function clip(message) {
    if (message.length <= maxProblemChars)
        return message;
    return `${message.slice(0, maxProblemChars)}... (${message.length - maxProblemChars} more characters)`;
}
class ConfigError extends InputError {
    file;
    problems;
    constructor(file, problems) {
        const rest = problems.length - maxListedProblems;
        super(`${file}: ${problems.length} problem${problems.length === 1 ? "" : "s"} in the config\n` +
            problems
                .slice(0, maxListedProblems)
                .map((problem) => {
                const where = problem.line ? `${file}:${problem.line}:${problem.column ?? 1} ` : "";
                return `  ${where}${problem.path}: ${clip(problem.message)}`;
            })
                .join("\n") +
            (rest > 0
                ? `\n  ... and ${rest} more problem${rest === 1 ? "" : "s"} (only the first ${maxListedProblems} are listed)`
                : ""));
        this.file = file;
        this.problems = problems;
    }
}
const defaultConfigFile = "vllm-perf-gate.yml";
async function loadConfig(file, options = {}) {
    const path = isAbsolute(file) ? file : resolve(options.cwd ?? process.cwd(), file);
    let bytes;
    try {
        const size = (await stat(path)).size;
        if (size > yamlLimits.maxBytes) {
            throw new ConfigError(file, [
                {
                    path: "(file)",
                    message: `the file has ${size} bytes; the limit is ${yamlLimits.maxBytes} (1 MiB)`,
                },
            ]);
        }
        bytes = await readFile(path);
    }
    catch (error) {
        if (error instanceof ConfigError)
            throw error;
        const code = error.code;
        const reason = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : String(error);
        throw new InputError(`${file}: cannot read the config (${reason}). Create one with \`vllm-perf-gate init --preset chat\`.`);
    }
    return parseConfigText(bytes.toString("utf8"), file, {
        env: options.env ?? process.env,
        absolutePath: path,
        sha256: createHash("sha256").update(bytes).digest("hex"),
    });
}
function parseConfigText(text, file, options = {}) {
    const parsed = parseConfigYaml(text);
    if (!parsed.ok)
        throw new ConfigError(file, parsed.problems);
    const { document, lineCounter } = parsed;
    const raw = parsed.value;
    if (raw === null || raw === undefined) {
        throw new ConfigError(file, [
            {
                path: "(top level)",
                message: "the file is empty; expected a mapping with version, server, model and cells",
            },
        ]);
    }
    const interpolated = interpolateEnvironment(raw, options.env ?? {});
    const locate = (path) => locateNode(document.contents, path, lineCounter);
    const problems = interpolated.problems.map((problem) => ({
        path: formatPath(problem.path),
        message: problem.message,
        ...locate(problem.path),
    }));
    problems.push(...credentialsInUrls(interpolated.value, locate));
    const result = parseCoercingTemplates(interpolated.value, interpolated.templates);
    if (!result.success) {
        problems.push(...issuesToProblems(result.error.issues, interpolated.fromEnvironment, locate));
        // Refinements do not run while fields are invalid, but a duplicate name is worth reporting at once.
        const cells = interpolated.value?.cells;
        if (Array.isArray(cells)) {
            for (const problem of duplicateCellNames(cells)) {
                problems.push({ path: formatPath(problem.path), message: problem.message, ...locate(problem.path) });
            }
        }
    }
    if (problems.length > 0 || !result.success)
        throw new ConfigError(file, orderProblems(problems));
    return {
        config: result.data,
        path: options.absolutePath ?? file,
        sha256: options.sha256 ?? createHash("sha256").update(text).digest("hex"),
        fromEnvironment: interpolated.fromEnvironment,
        interpolation: { templates: interpolated.templates, values: interpolated.values },
    };
}
/**
 * Schema validation where a number or boolean field may be written as `"${N}"`: interpolation yields a
 * string, so a field that rejects it as the wrong type gets the string's number (or true/false) and the
 * config is checked again. A string that is no number stays an error naming the field and the template.
 */
function parseCoercingTemplates(value, templates) {
    const templated = new Set(templates.map((entry) => formatPath(entry.path)));
    let current = value;
    let result = configSchema.safeParse(current, { reportInput: true });
    // Each round fixes every field the previous one rejected; a union can reveal a nested field once.
    for (let round = 0; round < 4 && !result.success; round++) {
        const coercions = [];
        for (const issue of flattenIssues(result.error.issues)) {
            if (issue.code !== "invalid_type" || !templated.has(formatPath(issue.path)))
                continue;
            const input = issue.input;
            if (typeof input !== "string")
                continue;
            const coerced = issue.expected === "number"
                ? toNumber(input)
                : issue.expected === "boolean"
                    ? toBoolean(input)
                    : undefined;
            if (coerced !== undefined)
                coercions.push({ path: issue.path, value: coerced });
        }
        if (coercions.length === 0)
            break;
        current = structuredClone(current);
        for (const coercion of coercions)
            setAt(current, coercion.path, coercion.value);
        result = configSchema.safeParse(current, { reportInput: true });
    }
    return result;
}
/** Issues with those inside a union's branches, every path from the top. */
function flattenIssues(issues, prefix = []) {
    const out = [];
    for (const issue of issues) {
        const path = [...prefix, ...issue.path];
        if (issue.code === "invalid_union") {
            for (const branch of issue.errors)
                out.push(...flattenIssues(branch, path));
        }
        else
            out.push({ ...issue, path });
    }
    return out;
}
function toNumber(text) {
    const trimmed = text.trim();
    if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(trimmed))
        return undefined;
    const number = Number(trimmed);
    return Number.isFinite(number) ? number : undefined;
}
function toBoolean(text) {
    const trimmed = text.trim();
    return trimmed === "true" ? true : trimmed === "false" ? false : undefined;
}
function setAt(root, path, value) {
    let node = root;
    for (const segment of path.slice(0, -1)) {
        if (node === null || typeof node !== "object")
            return;
        node = node[segment];
    }
    if (node !== null && typeof node === "object" && path.length > 0)
        node[path[path.length - 1]] = value;
}
/**
 * A URL with `user:password@` validates as a URL but cannot work (vLLM authenticates with a Bearer key)
 * and would put the password in every message and record: refused, without echoing the URL.
 */
function credentialsInUrls(value, locate) {
    const server = value?.server;
    if (server === null || typeof server !== "object")
        return [];
    const problems = [];
    for (const key of ["base_url", "metrics_url"]) {
        const url = server[key];
        if (typeof url !== "string" || !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url))
            continue;
        problems.push({
            path: `server.${key}`,
            message: "credentials in the URL (user:password@host) are not supported: they would be sent nowhere useful and shown in messages and records; remove them, put the API key in an environment variable and name it in server.api_key_env",
            ...locate(["server", key]),
        });
    }
    return problems;
}
/** By position in the file, without repeats (a refinement and a field check can say the same thing). */
function orderProblems(problems) {
    const seen = new Set();
    return problems
        .filter((problem) => {
        const key = `${problem.path}\u0000${problem.message}`;
        if (seen.has(key))
            return false;
        seen.add(key);
        return true;
    })
        .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}
function issuesToProblems(issues, fromEnvironment, locate) {
    const problems = [];
    for (const issue of issues) {
        // A union reports each branch's failure; the user needs the branch closest to what they wrote, i.e.
        // one whose errors are not simply "this is the wrong type of value".
        if (issue.code === "invalid_union" && issue.errors.length > 0) {
            const plausible = issue.errors.filter((branch) => !branch.every((inner) => inner.path.length === 0 && inner.code === "invalid_type"));
            if (plausible.length > 0) {
                const best = plausible.reduce((a, b) => (a.length <= b.length ? a : b));
                problems.push(...issuesToProblems(best.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })), fromEnvironment, locate));
                continue;
            }
        }
        const path = formatPath(issue.path);
        let message = issue.message;
        const template = fromEnvironment.get(path);
        if (template !== undefined) {
            // The value may be a secret: replace any echo of it with the template that produced it.
            message = message.replace(/, got .*$/, `, got the value of ${template} (not shown)`);
        }
        if (issue.code === "invalid_value" && !/^expected /.test(message)) {
            const got = template !== undefined
                ? `the value of ${template} (not shown)`
                : describeValue(issue.input);
            message = `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}, got ${got}`;
        }
        if (issue.code === "unrecognized_keys" && message.startsWith("Unrecognized key")) {
            const rest = issue.keys.length - maxListedKeys;
            message = `unknown key${issue.keys.length === 1 ? "" : "s"} ${issue.keys
                .slice(0, maxListedKeys)
                .map((key) => JSON.stringify(key))
                .join(", ")}${rest > 0 ? ` and ${rest} more (only the first ${maxListedKeys} are listed)` : ""}`;
        }
        if (issue.code === "invalid_type" && !/^expected /.test(message)) {
            const got = template !== undefined
                ? `the value of ${template} (not shown)`
                : describeValue(issue.input);
            message = `expected ${issue.expected}, got ${got}`;
        }
        if (template !== undefined && issue.code === "invalid_type" && issue.expected === "number")
            message += ", which is not a number";
        problems.push({ path, message, ...locate(issue.path) });
    }
    return problems;
}
/** Each mapping's pairs by key, built once: locating every problem stays linear in the problems. */
const pairIndexes = new WeakMap();
function pairIndex(map) {
    let index = pairIndexes.get(map);
    if (!index) {
        index = new Map();
        for (const item of map.items) {
            if (distExports.isScalar(item.key) && !index.has(item.key.value))
                index.set(item.key.value, item);
        }
        pairIndexes.set(map, index);
    }
    return index;
}
function locateNode(root, path, lineCounter) {
    let node = root;
    let lastFound = root;
    for (const segment of path) {
        if (distExports.isMap(node)) {
            const pair = pairIndex(node).get(segment);
            node = pair ? (pair.value ?? pair.key) : undefined;
        }
        else if (distExports.isSeq(node) && typeof segment === "number") {
            node = node.items[segment];
        }
        else
            node = undefined;
        if (node === undefined)
            break;
        lastFound = node;
    }
    const range = lastFound?.range;
    if (!range)
        return {};
    const position = lineCounter.linePos(range[0]);
    return { line: position.line, column: position.col };
}

export { outputTokensMean as A, assumedFileSessionTurns as B, configSchema as C, isTraceDataset as a, serverKindFacts as b, configLimits as c, defaultConfigFile as d, serverKinds as e, serverLifecycle as f, launchedServerKinds as g, isFileBacked as h, isSearchedCell as i, isSessionDataset as j, scoresAnswers as k, loadConfig as l, designedSharing as m, noInterpolation as n, traceLayoutOf as o, parseConfigText as p, describeServer as q, requestsPerSessionInFlight as r, sidesShareOneServer as s, templateView as t, serverWarnings as u, describeDataset as v, sessionShape as w, lengthMean as x, meanBranches as y, promptTokensMean as z };
