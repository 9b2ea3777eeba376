import { n as normalCdf, a as normalQuantile, l as guardShareCount } from './server-start.js';
import { f as metricNames, m as metricSpecs, b as latencyStatisticSpec, i as isMetricName, d as describeMetric } from './metric-names.js';

function midRanks(values) {
    const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
    const ranks = new Array(values.length);
    const tieSizes = [];
    let k = 0;
    while (k < order.length) {
        let j = k;
        while (j + 1 < order.length && order[j + 1].v === order[k].v)
            j++;
        const rank = (k + j) / 2 + 1;
        for (let m = k; m <= j; m++)
            ranks[order[m].i] = rank;
        tieSizes.push(j - k + 1);
        k = j + 1;
    }
    return { ranks, tieSizes };
}
const exactCache = new Map();
/** Counts of U = 0..n1·n2 over all C(n1+n2, n1) arrangements (no ties); memoised, it is reused a lot. */
function exactUDistribution(n1, n2) {
    const key = `${n1},${n2}`;
    let counts = exactCache.get(key);
    if (!counts) {
        counts = computeExactUDistribution(n1, n2);
        exactCache.set(key, counts);
    }
    return counts;
}
function computeExactUDistribution(n1, n2) {
    // f(i, j)[u]: number of arrangements of i x's and j y's with U = u (recursion on the largest value).
    let previous = [];
    for (let i = 0; i <= n1; i++) {
        const row = [];
        for (let j = 0; j <= n2; j++) {
            if (i === 0 || j === 0) {
                row.push([1]);
                continue;
            }
            const withX = previous[j]; // largest is an x: it beats all j y's
            const withY = row[j - 1]; // largest is a y
            const size = i * j + 1;
            const counts = new Array(size).fill(0);
            withX.forEach((c, u) => {
                counts[u + j] = (counts[u + j] ?? 0) + c;
            });
            withY.forEach((c, u) => {
                counts[u] = (counts[u] ?? 0) + c;
            });
            row.push(counts);
        }
        previous = row;
    }
    return previous[n2];
}
function mannWhitney(x, y) {
    const n1 = x.length;
    const n2 = y.length;
    if (n1 === 0 || n2 === 0)
        throw new RangeError("Mann-Whitney needs values on both sides");
    const { ranks, tieSizes } = midRanks([...x, ...y]);
    let rankSum = 0;
    for (let i = 0; i < n1; i++)
        rankSum += ranks[i];
    const u = rankSum - (n1 * (n1 + 1)) / 2;
    const hasTies = tieSizes.some((t) => t > 1);
    // scipy's 'auto': exact when a side has <= 8 values and there are no ties.
    if (!hasTies && Math.min(n1, n2) <= 8) {
        const counts = exactUDistribution(n1, n2);
        const total = counts.reduce((s, c) => s + c, 0);
        let atMost = 0;
        let atLeast = 0;
        counts.forEach((c, k) => {
            if (k <= u)
                atMost += c;
            if (k >= u)
                atLeast += c;
        });
        const pLess = atMost / total;
        const pGreater = atLeast / total;
        return { u, method: "exact", pLess, pGreater, pTwoSided: Math.min(1, 2 * Math.min(pLess, pGreater)) };
    }
    const n = n1 + n2;
    const mu = (n1 * n2) / 2;
    const tieTerm = tieSizes.reduce((s, t) => s + (t ** 3 - t), 0) / (n * (n - 1));
    const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm));
    // Every value tied (identical runs of a deterministic simulator): no evidence either way.
    if (!(sigma > 0))
        return { u, method: "asymptotic", pLess: 1, pGreater: 1, pTwoSided: 1 };
    const pLess = normalCdf((u - mu + 0.5) / sigma);
    const pGreater = 1 - normalCdf((u - mu - 0.5) / sigma);
    const zTwo = (Math.abs(u - mu) - 0.5) / sigma;
    return { u, method: "asymptotic", pLess, pGreater, pTwoSided: Math.min(1, 2 * (1 - normalCdf(zTwo))) };
}
function hodgesLehmann(x, y, confidence = 0.95) {
    // A typed array sorts numerically in native code: a million differences (1000 runs a side) in ~0.1 s.
    const differences = new Float64Array(x.length * y.length);
    let at = 0;
    for (const yj of y)
        for (const xi of x)
            differences[at++] = yj - xi;
    differences.sort();
    const mn = differences.length;
    const mid = Math.floor(mn / 2);
    const shift = mn % 2 === 1 ? differences[mid] : (differences[mid - 1] + differences[mid]) / 2;
    const { c, coverage } = x.length < exactMosesBelow && y.length < exactMosesBelow
        ? exactMosesRank(x.length, y.length, confidence)
        : asymptoticMosesRank(x.length, y.length, confidence);
    if (c < 1)
        return { shift, interval: null, coverage: null };
    return { shift, interval: [differences[c - 1], differences[mn - c]], coverage };
}
/**
 * The Moses interval is exact while both sides have fewer than this many values (R's wilcox.test rule,
 * `n < 50`); the exact distribution of U costs about (n1·n2)² / 4 additions, minutes past a few hundred
 * runs a side, so larger sides use its normal approximation.
 */
const exactMosesBelow = 50;
/** C = the largest c with P0(U <= c − 1) <= α/2, from the exact distribution of U. */
function exactMosesRank(n1, n2, confidence) {
    const counts = exactUDistribution(n1, n2);
    const total = counts.reduce((s, c) => s + c, 0);
    const alpha = 1 - confidence;
    let cumulative = 0;
    let c = 0;
    for (let k = 0; k < counts.length; k++) {
        if ((cumulative + counts[k]) / total > alpha / 2)
            break;
        cumulative += counts[k];
        c = k + 1;
    }
    return { c, coverage: 1 - (2 * cumulative) / total };
}
/** The same C from U's normal approximation (mean n1·n2/2, variance n1·n2·(n1+n2+1)/12, continuity-corrected). */
function asymptoticMosesRank(n1, n2, confidence) {
    const mean = (n1 * n2) / 2;
    const sd = Math.sqrt((n1 * n2 * (n1 + n2 + 1)) / 12);
    const z = normalQuantile(1 - (1 - confidence) / 2);
    const c = Math.floor(mean - z * sd + 0.5);
    return { c, coverage: 1 - 2 * normalCdf((c - 0.5 - mean) / sd) };
}

/** Failed / total requests; null without requests. */
function errorRate(requests) {
    return requests.total > 0 ? requests.failed / requests.total : null;
}
/** Malformed / all tool calls; null without any tool call (or in files without `answer`). */
function malformedToolCallShare(answer) {
    if (answer === undefined)
        return null;
    const calls = answer.toolCalls + answer.malformedToolCalls;
    return calls > 0 ? answer.malformedToolCalls / calls : null;
}
/** Marks a switch as exhaustive: a new `MetricSource` kind fails to compile until each reader handles it. */
function unknownSource(source) {
    throw new Error(`unknown metric source ${JSON.stringify(source)}`);
}
/** One catalogue metric of a run.json; null when the run has no value for it. */
function runFileMetric(file, source) {
    switch (source.kind) {
        case "latency": {
            const summary = file.latency[source.phase];
            return source.statistic === "p50" ? (summary.p50 ?? summary.median) : summary[source.statistic];
        }
        case "throughput":
            return file.throughput[source.field];
        case "failed-fraction":
            return errorRate(file.requests);
        case "guard-share": {
            // A run.json from before the guards (or without requests) has no value.
            const guards = file.guards;
            if (guards === undefined || guards.requests === 0)
                return null;
            return guardShareCount(guards, source.field) / guards.requests;
        }
        case "guard-length":
            return file.guards?.outputTokens.mean ?? null;
        case "reasoning-tokens": {
            const answer = file.answer;
            return answer !== undefined && answer.reasoningRequests > 0 ? answer.reasoningTokens.mean : null;
        }
        case "malformed-tool-calls":
            return malformedToolCallShare(file.answer);
        case "session":
            return file.sessions === undefined ? null : sessionValue(file.sessions, source.field);
        case "spec-decode": {
            const server = file.server;
            return specDecodeValue({
                drafts: server?.spec_decode_drafts ?? null,
                draftTokens: server?.spec_decode_draft_tokens ?? null,
                acceptedTokens: server?.spec_decode_accepted_tokens ?? null,
            }, source.field);
        }
        default:
            return unknownSource(source);
    }
}
/**
 * An acceptance figure of the counters, as vLLM defines it (vllm/v1/spec_decode/metrics.py @ 016a8587):
 * the rate is accepted / draft tokens, the mean acceptance length 1 + accepted tokens / drafts (the
 * tokens one draft round gives a request, the target model's own token included); null without drafts.
 */
function specDecodeValue(counts, field) {
    const { drafts, draftTokens, acceptedTokens } = counts;
    // A counter that went down (a restarted server) gives no figure.
    if (acceptedTokens === null || acceptedTokens < 0)
        return null;
    if (field === "acceptance_rate")
        return draftTokens !== null && draftTokens > 0 ? acceptedTokens / draftTokens : null;
    return drafts !== null && drafts > 0 ? 1 + acceptedTokens / drafts : null;
}
/** A session metric's value of run.json `sessions` (null when the run has none for it). */
function sessionValue(sessions, field) {
    switch (field) {
        case "duration_p50":
            return sessions.duration.p50;
        case "duration_p95":
            return sessions.duration.p95;
        case "goodput":
            return sessions.goodput;
        case "throughput":
            return sessions.throughput;
        case "cache_hit_rate":
            return sessions.cacheHitRate;
        case "fan_out_completion_p50":
            return sessions.fanOut?.completion.p50 ?? null;
        case "fan_out_completion_p95":
            return sessions.fanOut?.completion.p95 ?? null;
        default: {
            const bucket = field.slice("ttft_p95_depth_".length);
            return sessions.ttftByDepth.find((entry) => entry.bucket === bucket)?.p95 ?? null;
        }
    }
}
/**
 * The requests a metric's value of this run summarises, for the metrics computed from fewer than the
 * run's completed requests: a context-depth bucket's TTFT p95 counts the bucket's requests. Compare's
 * request floor for gating a percentile reads these (a run's 600 turns can leave 40 at depth 4-7).
 */
function runFileMetricRequests(file) {
    const counts = {};
    if (file.sessions === undefined)
        return counts;
    for (const entry of file.sessions.ttftByDepth) {
        counts[`ttft_p95_depth_${entry.bucket}`] = entry.requests;
    }
    return counts;
}
/** Every catalogue metric of a run.json. */
function runFileMetrics(file) {
    const values = {};
    for (const metric of metricNames)
        values[metric] = runFileMetric(file, metricSpecs[metric].source);
    return values;
}

/**
 * How a run's server start is known (docs/compare.md, Server starts): `recorded` in its file (run.json
 * `serverStart`, a vLLM result's `server_start`); `assumed-shared`: not recorded, so every run of its input
 * is taken to share one start (the conservative reading); `declared-fresh`: not recorded, and the user
 * declared each run a fresh start (compare --fresh-starts, gate.runs_are_fresh_starts).
 */
const serverStartBases = ["recorded", "assumed-shared", "declared-fresh"];
function runRecordFromRunFile(file, source) {
    const metrics = runFileMetrics(file);
    const exclusionReasons = [];
    if (file.flags.clientBound) {
        exclusionReasons.push(`client-bound${file.flags.clientBoundReason ? `: ${file.flags.clientBoundReason}` : ""}`);
    }
    if (file.flags.serverStarved) {
        exclusionReasons.push(`server host starved${file.flags.serverStarvedReason ? `: ${file.flags.serverStarvedReason}` : ""}`);
    }
    if (file.flags.serverCrashed)
        exclusionReasons.push("server crashed during the run");
    if (file.flags.interrupted)
        exclusionReasons.push(`interrupted by ${file.flags.interrupted}`);
    else if (file.flags.cutShort)
        exclusionReasons.push("run cut short");
    exclusionReasons.push(...(file.flags.unusableReasons ?? []));
    return {
        source,
        cell: file.cell,
        run: file.run,
        startedAt: file.startedAt,
        durationS: file.load.schedule?.wallClockS ?? file.durationS,
        metrics,
        requests: {
            total: file.requests.total,
            completed: file.requests.completed,
            failed: file.requests.failed,
        },
        ...(file.sessions !== undefined ? { metricRequests: runFileMetricRequests(file) } : {}),
        ...(file.guards !== undefined ? { guards: file.guards } : {}),
        ...(file.answer !== undefined
            ? { toolCalls: { wellFormed: file.answer.toolCalls, malformed: file.answer.malformedToolCalls } }
            : {}),
        ...(file.outputs !== undefined ? { outputs: file.outputs } : {}),
        fingerprint: file.fingerprint,
        exclusionReasons,
        ...(file.serverStart !== undefined
            ? { serverStart: { id: file.serverStart.id, basis: "recorded" } }
            : {}),
        load: { targetRate: file.load.targetRate, targetConcurrency: file.load.targetConcurrency },
    };
}

/**
 * The one comparability rule: which recorded conditions may differ between a baseline and a candidate.
 *
 * - Informational fields are recorded and shown but never block: the tool build, the runner's name (two
 *   runners of one pool are the same machine type), the device a server ran on (runner.devices measures
 *   both sides of a cell on every device it uses, a crossover, so devices differ between runs by design)
 *   and the whole-config hash (it changes whenever the thing
 *   under test is itself in the config; the conditions it covers are compared field by field instead:
 *   `server.*`, `model.*`, `sampling.*`, `workload.*`, `gpu.*`).
 * - Fields named in `allowed_differences` (or under a group named there) are the thing under test, and so
 *   are the fields that follow from them: a new image has a new digest and vLLM version, new engine
 *   arguments a new command line and cache config.
 * - A field one side did not record at all, when the two sides were recorded by different versions of
 *   the tool (a baseline from before the field existed), is informational too: unknown is not different.
 * - Every other difference makes the runs not comparable, and is reported with its value on each side.
 */
const informationalFields = ["tool", "runner.name", "runner.device", "configHash"];
/**
 * Fields that earlier builds recorded and this one no longer writes, each with the one value it always
 * had. `datasets` was never filled (always `{}`): a dataset's identity is a condition of its cell, recorded
 * in `workload.dataset` (kind, path template, configured sha256), `workload.datasetSha256` (the bytes read)
 * and `workload.seed`. The diff skips these fields, so a run.json written before still compares with one
 * written now; the history's conditions hash keeps them at that value, so sessions recorded before and
 * after hash alike (compare/history.ts `conditionsHash`).
 */
const retiredFields = { datasets: {} };
/** Recorded fields that follow from a configured one: allowing the source allows them too. */
const derivedFields = {
    "server.image": ["server.imageDigest", "server.imageId", "server.vllmVersion", "server.cacheConfig"],
    "server.args": ["server.command", "server.cacheConfig", "server.maxModelLen", "server.servedModels"],
    "server.command": [
        "server.args",
        "server.vllmVersion",
        "server.cacheConfig",
        "server.maxModelLen",
        "server.servedModels",
    ],
};
/**
 * Flattens a fingerprint into dotted paths (`server.image`). Arrays stay whole: an inserted engine
 * argument is one readable difference, not a cascade of shifted indices.
 */
function flattenFingerprint(value, prefix = "", out = {}) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        const entries = Object.entries(value);
        if (entries.length === 0 && prefix)
            out[prefix] = {};
        for (const [key, inner] of entries)
            flattenFingerprint(inner, prefix ? `${prefix}.${key}` : key, out);
    }
    else if (prefix) {
        out[prefix] = value;
    }
    return out;
}
const covers = (rule, field) => field === rule || field.startsWith(`${rule}.`);
const isRetired = (field) => Object.keys(retiredFields).some((rule) => covers(rule, field));
/** `server.args` allows `server.args` and everything below it, and the fields derived from it. */
function isAllowedDifference(field, allowed) {
    const expanded = allowed.flatMap((rule) => [rule, ...(derivedFields[rule] ?? [])]);
    return expanded.some((rule) => covers(rule, field));
}
function isInformationalField(field) {
    return informationalFields.some((rule) => covers(rule, field));
}
/**
 * Engine arguments with a leading positional model written as `--model MODEL`: `vllm serve MODEL` and
 * `vllm serve --model MODEL` serve the same thing (the docker kind passed the model as `--model` before it
 * passed it positionally, so a baseline recorded then still compares).
 */
function comparableEngineArgs(field, value) {
    if (field !== "server.args" || !Array.isArray(value))
        return value;
    const [first, ...rest] = value;
    return typeof first === "string" && !first.startsWith("-") ? ["--model", first, ...rest] : value;
}
/**
 * Two docker servers whose images have no repo digest and not both an image ID: which image ran is
 * unknown on at least one side, and an unknown image is never the same image (a local tag can point at
 * different images on the two sides).
 */
function unknownImage(base, cand) {
    const docker = base["server.kind"] === "docker" && cand["server.kind"] === "docker";
    const noDigest = (side) => (side["server.imageDigest"] ?? null) === null;
    const noId = (side) => (side["server.imageId"] ?? null) === null;
    return docker && noDigest(base) && noDigest(cand) && (noId(base) || noId(cand));
}
/** Key-order-insensitive equality of JSON values (a re-ordered map is the same condition). */
function canonical(value) {
    return JSON.stringify(value ?? null, (_key, inner) => inner && typeof inner === "object" && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
        : inner);
}
/** Field-by-field differences per cell, merged across cells that differ the same way. */
function diffFingerprints(perCell, allowed) {
    const merged = new Map();
    for (const { cell, baseline, candidate } of perCell) {
        const flatBase = flattenFingerprint(baseline);
        const flatCand = flattenFingerprint(candidate);
        const versionsDiffer = canonical(flatBase["tool.version"]) !== canonical(flatCand["tool.version"]);
        const fields = [...new Set([...Object.keys(flatBase), ...Object.keys(flatCand)])].sort();
        for (const field of fields) {
            if (isRetired(field))
                continue;
            const b = flatBase[field];
            const c = flatCand[field];
            const same = canonical(comparableEngineArgs(field, b)) === canonical(comparableEngineArgs(field, c));
            if (same && !(field === "server.imageDigest" && unknownImage(flatBase, flatCand)))
                continue;
            const key = `${field}\u0000${canonical(b)}\u0000${canonical(c)}`;
            const existing = merged.get(key);
            if (existing)
                existing.cells.push(cell);
            else {
                const recordedByOneVersion = versionsDiffer && (!(field in flatBase) || !(field in flatCand));
                const informational = isInformationalField(field) || recordedByOneVersion;
                merged.set(key, {
                    field,
                    cells: [cell],
                    baseline: b ?? null,
                    candidate: c ?? null,
                    allowed: informational || isAllowedDifference(field, allowed),
                    informational,
                });
            }
        }
    }
    return [...merged.values()];
}
/** `model.revision: "abc" (baseline) vs "def" (candidate)`, for warnings and headlines. */
function describeDifference(difference, max = 80) {
    const show = (value) => {
        const text = value === null || value === undefined ? "not recorded" : JSON.stringify(value);
        return text.length > max ? `${text.slice(0, max - 1)}…` : text;
    };
    return `${difference.field}: ${show(difference.baseline)} (baseline) vs ${show(difference.candidate)} (candidate)`;
}

/** The input a record was read from (loadRuns' `session`): what an unrecorded start is shared within. */
function inputOf(record) {
    return record.session ?? "(files)";
}
/**
 * The records with a server start each (pure): a recorded start kept, an unrecorded one
 * `unrecorded:<side>:<input>` (assumed shared by the input's runs) or, when declared fresh,
 * `fresh:<side>:<file>` (the run's own).
 */
function assignServerStarts(records, side, assumption) {
    return records.map((record) => {
        if (record.serverStart !== undefined)
            return record;
        const serverStart = assumption.freshStarts
            ? { id: `fresh:${side}:${record.source}`, basis: "declared-fresh" }
            : { id: `unrecorded:${side}:${inputOf(record)}`, basis: "assumed-shared" };
        return { ...record, serverStart };
    });
}
/** Counts the server starts of a side's records, by how each is known. */
function summarizeServerStarts(records) {
    const byBasis = {};
    const seen = new Set();
    let unassigned = 0;
    for (const record of records) {
        const start = record.serverStart;
        if (start === undefined) {
            unassigned++;
            continue;
        }
        const entry = byBasis[start.basis] ?? { starts: 0, runs: 0 };
        entry.runs++;
        if (!seen.has(start.id)) {
            seen.add(start.id);
            entry.starts++;
        }
        byBasis[start.basis] = entry;
    }
    return { starts: seen.size, runs: records.length, byBasis, unassigned };
}

/** Numbers for people: 3 significant figures is plenty for latencies and rates. */
function formatNumber(value) {
    if (value === null || value === undefined || !Number.isFinite(value))
        return "–";
    const abs = Math.abs(value);
    if (abs >= 100)
        return Math.round(value).toLocaleString("en-US");
    if (abs >= 10)
        return value.toFixed(1);
    if (abs >= 1)
        return value.toFixed(2);
    if (abs === 0)
        return "0";
    return value.toPrecision(3);
}
/** A value in its catalogue unit and format: "1,234 ms", "512 tok/s", "0.50%". */
function formatMetricValue(metric, value) {
    if (value === null)
        return "–";
    const { format, unit } = metricSpecs[metric];
    switch (format) {
        case "percent":
            return `${(value * 100).toFixed(2)}%`;
        case "number":
            return `${formatNumber(value)} ${unit}`;
    }
}
/** A metric, or `cell/metric` for one in a named cell (mixed results across cells). */
function describeMetricRef(ref) {
    const slash = ref.lastIndexOf("/");
    const name = ref.slice(slash + 1);
    const label = isMetricName(name) ? describeMetric(name) : name;
    return slash < 0 ? label : `${ref.slice(0, slash)} ${label}`;
}
function formatChange(ratio) {
    if (ratio === null || !Number.isFinite(ratio))
        return "–";
    const percent = (ratio - 1) * 100;
    const sign = percent > 0 ? "+" : percent < 0 ? "−" : "±";
    return `${sign}${Math.abs(percent).toFixed(1)}%`;
}
function formatInterval(ci) {
    if (ci === null)
        return "–";
    return `${formatChange(ci[0])} … ${formatChange(ci[1])}`;
}
function formatP(p) {
    if (p === null)
        return "–";
    if (p < 0.0001)
        return "<0.0001";
    return p.toFixed(4);
}
function formatSignedNumber(value, unit) {
    const sign = value > 0 ? "+" : value < 0 ? "−" : "±";
    return `${sign}${formatNumber(Math.abs(value))}${unit}`;
}
/** 0.05 → "5%", 0.025 → "2.5%". */
function formatFractionAsPercent(fraction) {
    return `${Number((fraction * 100).toPrecision(3))}%`;
}
/** A no-break space: keeps a figure and its unit, or an interval, on one line in a narrow table. */
const noBreakSpace = "\u00a0";
/** "+15.7 … +23.2%": an interval on one line (no-break spaces), the percent sign once. */
function formatIntervalOneLine(ci) {
    if (ci === null)
        return "–";
    const low = formatChange(ci[0]).replace(/%$/, "");
    return `${low}${noBreakSpace}…${noBreakSpace}${formatChange(ci[1])}`;
}
/** "1,096 → 1,333 ms": both sides' values on one line, the unit once. */
function formatValuePair(metric, baseline, candidate) {
    const { format, unit } = metricSpecs[metric];
    if (format === "number" && baseline !== null && candidate !== null)
        return `${formatNumber(baseline)}${noBreakSpace}→${noBreakSpace}${formatNumber(candidate)}${noBreakSpace}${unit}`;
    return `${formatMetricValue(metric, baseline)}${noBreakSpace}→${noBreakSpace}${formatMetricValue(metric, candidate)}`.replaceAll(" ", noBreakSpace);
}
/** Who a latency statistic speaks for: "the slowest 5%" (p95), "half of the users" (p50), "users on average". */
function slowestUsers(statistic) {
    const { quantile } = latencyStatisticSpec(statistic);
    if (quantile === null)
        return "users on average";
    if (quantile === 0.5)
        return "half of the users";
    return `the slowest ${Number(((1 - quantile) * 100).toPrecision(3))}%`;
}
/** "850 ms", "1.20 s": a duration in milliseconds for people. */
function formatDuration(ms) {
    return ms >= 1000 ? `${formatNumber(ms / 1000)} s` : `${formatNumber(ms)} ms`;
}
/** "4 regressed", "5 within tolerance": each count that is not 0, with its word (`show` marks it up). */
function nonZeroCounts(counts, show = String) {
    return counts.filter(([count]) => count > 0).map(([count, word]) => `${show(count)} ${word}`);
}

export { isInformationalField as A, serverStartBases as B, formatNumber as a, formatChange as b, formatInterval as c, formatFractionAsPercent as d, formatMetricValue as e, flattenFingerprint as f, formatP as g, formatSignedNumber as h, formatDuration as i, formatIntervalOneLine as j, formatValuePair as k, nonZeroCounts as l, describeMetricRef as m, noBreakSpace as n, specDecodeValue as o, diffFingerprints as p, describeDifference as q, runRecordFromRunFile as r, slowestUsers as s, mannWhitney as t, hodgesLehmann as u, unknownSource as v, errorRate as w, assignServerStarts as x, summarizeServerStarts as y, retiredFields as z };
