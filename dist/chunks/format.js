import { m as metricSpecs, b as latencyStatisticSpec, i as isMetricName, d as describeMetric } from './metric-names.js';

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

export { formatNumber as a, formatChange as b, formatInterval as c, formatFractionAsPercent as d, formatMetricValue as e, flattenFingerprint as f, formatP as g, formatSignedNumber as h, formatDuration as i, formatIntervalOneLine as j, formatValuePair as k, nonZeroCounts as l, describeMetricRef as m, noBreakSpace as n, diffFingerprints as o, describeDifference as p, isInformationalField as q, retiredFields as r, slowestUsers as s };
