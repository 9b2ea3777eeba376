import { o as object, n as number, b as boolean, s as string, a as array } from './schemas.js';
import { randomUUID } from 'node:crypto';

/**
 * Every string that came from outside (cell names, labels, model names, notes, file names, error
 * messages, fingerprint values) goes through the one escaper of the place it lands in, so it renders as
 * the literal text and cannot open markdown structure, HTML, links, images, headings or @-mentions:
 *
 * - `escapeInline`: markdown text (a paragraph, a list item, bold text);
 * - `escapeCell`: a cell of a markdown table (inline text, and `|` cannot end the cell);
 * - `escapeHtml`: text inside an HTML element where markdown is not parsed (a fold's `<summary>`, `<pre>`),
 *   and report.html.
 *
 * Each escapes only what its context needs, so the raw markdown stays readable (`max_tokens`,
 * `gate.min_run_sd` and paths keep their `_`, `.`, `-` and `/`). What GitHub would turn into a link or a
 * notification without any markup (a bare `https://` URL, `www.`, an e-mail address, `@user`, `#123`,
 * `:emoji:`) gets a zero-width space that breaks the pattern without changing how the text reads.
 * Secrets are redacted before (compare redacts the verdict it renders): escaping changes a value, and a
 * redactor looks for values.
 */
const maxOutsideLength = 120;
const zeroWidthSpace = "\u200b";
function clip(text, max) {
    const flat = text.replace(/[\r\n\t\u2028\u2029]+/g, " ");
    return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
/**
 * Breaks what GitHub links or notifies on in plain text: @-mentions (and e-mail addresses), #-references,
 * bare URLs (`scheme://`, `www.`) and emoji short codes, by a zero-width space inside each.
 */
function defuseAutolinks(text) {
    return text
        .replace(/@/g, `@${zeroWidthSpace}`)
        .replace(/#(?=\d)/g, `#${zeroWidthSpace}`)
        .replace(/:(?=\/\/)/g, `:${zeroWidthSpace}`)
        .replace(/(www)(?=\.)/gi, `$1${zeroWidthSpace}`)
        .replace(/:(?=[a-z0-9_+-]+:)/gi, `:${zeroWidthSpace}`);
}
const letterOrDigit = /[\p{L}\p{N}]/u;
/** Characters that open inline markdown anywhere in a line: code spans, emphasis, strikethrough, math. */
const inlineMarkers = new Set(["\\", "`", "*", "~", "$"]);
/**
 * A block marker at the start of the text (a heading, a quote, a list item, a task box or a link
 * definition) is escaped.
 */
const leadingBlockMarker = /^(?:#{1,6}(?=\s|$)|[-+](?=\s|$)|[-=_]{3,}|\d{1,9}[.)](?=\s|$)|[>[|])/;
function markdownCharacters(raw, { cell }) {
    let out = "";
    const chars = [...defuseAutolinks(raw)];
    for (let i = 0; i < chars.length; i++) {
        const ch = chars[i];
        if (ch === "&")
            out += "&amp;";
        else if (ch === "<")
            out += "&lt;";
        // A link or an image needs "](" or "][": a bracket alone stays ("[\"--flag\"]").
        else if (ch === "]" && (chars[i + 1] === "(" || chars[i + 1] === "["))
            out += "\\]";
        else if (inlineMarkers.has(ch) || (cell && ch === "|"))
            out += `\\${ch}`;
        else if (ch === "_") {
            // An underscore run between two letters or digits never opens or closes emphasis (GFM's
            // intraword rule), so `max_tokens` stays as it is; any other is escaped.
            let end = i;
            while (chars[end + 1] === "_")
                end++;
            const intraword = letterOrDigit.test(chars[i - 1] ?? " ") && letterOrDigit.test(chars[end + 1] ?? " ");
            out += (intraword ? "_" : "\\_").repeat(end - i + 1);
            i = end;
        }
        else
            out += ch;
    }
    // A table cell is inline content: no block starts in it.
    const leading = cell ? null : leadingBlockMarker.exec(out);
    if (leading) {
        // "12. x": the dot is escaped (a backslash before a digit would show); anything else, its first mark.
        const at = /^\d/.test(leading[0]) ? leading[0].length - 1 : 0;
        out = `${out.slice(0, at)}\\${out.slice(at)}`;
    }
    return out;
}
/** For markdown text: a paragraph, a list item, inside `**bold**`. */
function escapeInline(text, max = maxOutsideLength) {
    return markdownCharacters(clip(text, max), { cell: false });
}
/** For a cell of a markdown table. */
function escapeCell(text, max = maxOutsideLength) {
    return markdownCharacters(clip(text, max), { cell: true });
}
/** For text inside HTML elements (a fold's <summary>, <pre>; report.html), where markdown is not parsed. */
function escapeHtml(text, max = maxOutsideLength) {
    return htmlCharacters(clip(text, max));
}
function htmlCharacters(text) {
    return defuseAutolinks(text)
        .replace(/&/g, "&amp;")
        .replace(/</g, "&lt;")
        .replace(/>/g, "&gt;")
        .replace(/"/g, "&quot;")
        .replace(/'/g, "&#39;");
}
/** Any JSON-ish value from a fingerprint, for a table cell. */
function escapeValue(value, max = maxOutsideLength) {
    if (value === undefined || value === null)
        return "–";
    return escapeCell(typeof value === "string" ? value : JSON.stringify(value), max);
}
/**
 * The forms a value takes once escaped here, for the redactor's last pass over a finished report (see
 * server/redact.ts). Text from outside is redacted before it is escaped; this catches any that was not.
 * Where an escape depends on the neighbours (an underscore at either end, a block marker at the start),
 * the value is escaped both alone and between letters.
 */
function renderedForms(value) {
    const between = (escapeText) => escapeText(`a${value}a`).slice(1, -1);
    const forms = [
        markdownCharacters(value, { cell: false }),
        markdownCharacters(value, { cell: true }),
        between((text) => markdownCharacters(text, { cell: false })),
        between((text) => markdownCharacters(text, { cell: true })),
        htmlCharacters(value),
    ];
    return [...new Set(forms)];
}
/** Inline code for short untrusted text: backticks and newlines cannot close or break the span. */
function inlineCode(text) {
    return `\`${text.replace(/[`\r\n]/g, "'")}\``;
}

/**
 * Distribution functions the gate needs (Student t, normal, binomial), implemented here (no statistics
 * package is a dependency; see ARCHITECTURE.md, Dependencies). Accuracy target: ~1e-10 relative, checked against scipy
 * values in the tests.
 */
const lanczosCoefficients = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.6150291621406,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];
/** ln Γ(x) for x > 0 (Lanczos, g = 7). */
function logGamma(x) {
    if (x < 0.5)
        return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
    const shifted = x - 1;
    let sum = lanczosCoefficients[0];
    for (let i = 1; i < lanczosCoefficients.length; i++)
        sum += lanczosCoefficients[i] / (shifted + i);
    const t = shifted + 7.5;
    return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(sum);
}
/** Continued fraction for the incomplete beta (modified Lentz). */
function betaContinuedFraction(a, b, x) {
    const tiny = 1e-300;
    let c = 1;
    let d = 1 - ((a + b) * x) / (a + 1);
    if (Math.abs(d) < tiny)
        d = tiny;
    d = 1 / d;
    let h = d;
    for (let m = 1; m <= 10_000; m++) {
        const m2 = 2 * m;
        let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
        d = 1 + aa * d;
        if (Math.abs(d) < tiny)
            d = tiny;
        c = 1 + aa / c;
        if (Math.abs(c) < tiny)
            c = tiny;
        d = 1 / d;
        h *= d * c;
        aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d;
        if (Math.abs(d) < tiny)
            d = tiny;
        c = 1 + aa / c;
        if (Math.abs(c) < tiny)
            c = tiny;
        d = 1 / d;
        const delta = d * c;
        h *= delta;
        if (Math.abs(delta - 1) < 1e-15)
            break;
    }
    return h;
}
/** Regularized incomplete beta I_x(a, b). */
function regularizedIncompleteBeta(x, a, b) {
    if (!(a > 0 && b > 0))
        throw new RangeError(`incomplete beta needs a, b > 0 (got ${a}, ${b})`);
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    const logFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
    const front = Math.exp(logFront);
    // The continued fraction converges fast only on one side of the mean; use the symmetry otherwise.
    if (x < (a + 1) / (a + b + 2))
        return (front * betaContinuedFraction(a, b, x)) / a;
    return 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}
/** P(T <= t) for Student's t with df degrees of freedom (df may be fractional, as in Welch). */
function studentTCdf(t, df) {
    if (!(df > 0))
        throw new RangeError(`t distribution needs df > 0 (got ${df})`);
    if (Number.isNaN(t))
        return Number.NaN;
    if (t === Number.POSITIVE_INFINITY)
        return 1;
    if (t === Number.NEGATIVE_INFINITY)
        return 0;
    // Beyond 1e7 df the t and the normal differ by < 1e-7, and lgamma of huge df loses precision.
    if (df > 1e7)
        return normalCdf(t);
    const tail = 0.5 * regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
    return t > 0 ? 1 - tail : tail;
}
/** Upper tail P(T > t), accurate for large t (no 1 - x cancellation). */
function studentTSurvival(t, df) {
    return studentTCdf(-t, df);
}
/** Density of Student's t. */
function studentTPdf(t, df) {
    const logDensity = logGamma((df + 1) / 2) -
        logGamma(df / 2) -
        0.5 * Math.log(df * Math.PI) -
        ((df + 1) / 2) * Math.log1p((t * t) / df);
    return Math.exp(logDensity);
}
/** The p-quantile of Student's t: Newton steps on the survival function, guarded by a bracket. */
function studentTQuantile(p, df) {
    if (!(p > 0 && p < 1))
        throw new RangeError(`quantile needs 0 < p < 1 (got ${p})`);
    if (df > 1e7)
        return normalQuantile(p);
    if (p === 0.5)
        return 0;
    if (p < 0.5)
        return -studentTQuantile(1 - p, df);
    const target = 1 - p;
    let lo = 0;
    let hi = Number.POSITIVE_INFINITY;
    // Start from the Cornish-Fisher expansion around the normal quantile.
    const z = normalQuantile(p);
    let x = z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df);
    if (!(x > 0) || !Number.isFinite(x))
        x = 1;
    for (let i = 0; i < 100; i++) {
        const excess = studentTSurvival(x, df) - target;
        if (excess > 0)
            lo = x;
        else
            hi = x;
        if (Math.abs(excess) <= 1e-15 * target)
            return x;
        let next = x + excess / studentTPdf(x, df);
        // Newton can overshoot in the heavy tails of small df: fall back to bisection inside the bracket.
        if (!(next > lo && next < hi))
            next = Number.isFinite(hi) ? 0.5 * (lo + hi) : Math.max(2 * x, lo + 1);
        if (Math.abs(next - x) <= 1e-14 * Math.max(1, Math.abs(x)))
            return next;
        x = next;
    }
    return x;
}
/** Regularized lower incomplete gamma P(a, x): series below a + 1, continued fraction above. */
function regularizedLowerGamma(a, x) {
    if (x <= 0)
        return 0;
    const logFront = a * Math.log(x) - x - logGamma(a);
    if (x < a + 1) {
        let term = 1 / a;
        let sum = term;
        for (let n = 1; n < 10_000; n++) {
            term *= x / (a + n);
            sum += term;
            if (Math.abs(term) < Math.abs(sum) * 1e-16)
                break;
        }
        return sum * Math.exp(logFront);
    }
    return 1 - upperGammaContinuedFraction(a, x) * Math.exp(logFront);
}
function upperGammaContinuedFraction(a, x) {
    const tiny = 1e-300;
    let b = x + 1 - a;
    let c = 1 / tiny;
    let d = 1 / b;
    let h = d;
    for (let i = 1; i < 10_000; i++) {
        const an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (Math.abs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (Math.abs(c) < tiny)
            c = tiny;
        d = 1 / d;
        const delta = d * c;
        h *= delta;
        if (Math.abs(delta - 1) < 1e-16)
            break;
    }
    return h;
}
/** Standard normal CDF: Φ(z) = P(1/2, z²/2)-based, exact to double precision in both tails. */
function normalCdf(z) {
    if (Number.isNaN(z))
        return Number.NaN;
    if (z === 0)
        return 0.5;
    const x = (z * z) / 2;
    const logFront = 0.5 * Math.log(x) - x - logGamma(0.5);
    // Upper tail Q(1/2, x) computed directly to avoid cancellation far from the centre.
    const upper = x < 1.5 ? 1 - regularizedLowerGamma(0.5, x) : upperGammaContinuedFraction(0.5, x) * Math.exp(logFront);
    return z > 0 ? 1 - upper / 2 : upper / 2;
}
/** Standard normal quantile (Acklam's rational approximation refined by one Halley step). */
function normalQuantile(p) {
    if (!(p > 0 && p < 1))
        throw new RangeError(`quantile needs 0 < p < 1 (got ${p})`);
    const a = [
        -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
        2.506628277459239,
    ];
    const b = [
        -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
    ];
    const c = [
        -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
        2.938163982698783,
    ];
    const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
    const pLow = 0.02425;
    let x;
    if (p < pLow) {
        const q = Math.sqrt(-2 * Math.log(p));
        x =
            (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    else if (p <= 1 - pLow) {
        const q = p - 0.5;
        const r = q * q;
        x =
            ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
                (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    else {
        const q = Math.sqrt(-2 * Math.log(1 - p));
        x =
            -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    const e = normalCdf(x) - p;
    const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
    return x - u / (1 + (x * u) / 2);
}
/** P(X <= k) for X ~ Binomial(n, q), exact via the incomplete beta. */
function binomialCdf(k, n, q) {
    if (k < 0)
        return 0;
    if (k >= n)
        return 1;
    return regularizedIncompleteBeta(1 - q, n - k, k + 1);
}
/** Upper tail of Fisher's F with (d1, d2) degrees of freedom: P(F > x). */
function fSurvival(x, d1, d2) {
    if (!(x > 0))
        return 1;
    return 1 - regularizedIncompleteBeta((d1 * x) / (d1 * x + d2), d1 / 2, d2 / 2);
}

/**
 * The guard counts of one run (run.json `guards`): what the outputs were, beside how fast they came. A
 * faster candidate that truncates, stops answering or runs on to max_tokens is not an improvement
 * (docs/quality.md), and these counts need no extra request: they come from the measured requests.
 *
 * - `finish`: the finish reasons of the completed requests, as the server sent them (vLLM: stop, length,
 *   abort; anything else is `other`).
 * - `zeroOutput`: requests that produced no output token (a stream without any choices chunk, or usage
 *   saying 0 completion tokens).
 * - `usageMismatch`: requests whose usage disagreed with the chunks actually received, or was not a
 *   count (runner/request-record.ts `checkUsage`; `exceeds_max_tokens` is not a mismatch of usage).
 * - `outputTokens`: output tokens per completed request (count, mean, population sd), and
 *   `outputToMaxTokens` their mean share of the request's max_tokens.
 */
const runGuardsSchema = object({
    ignoreEos: boolean()
        .nullable()
        .describe("Whether the requests asked for ignore_eos (output lengths then say little); null if unknown."),
    requests: number().int().nonnegative().describe("Measured requests (the denominator of every share)."),
    finish: object({
        stop: number().int().nonnegative(),
        length: number().int().nonnegative(),
        abort: number().int().nonnegative(),
        other: number().int().nonnegative(),
    }),
    zeroOutput: number().int().nonnegative(),
    usageMismatch: number().int().nonnegative(),
    outputTokens: object({
        count: number().int().nonnegative(),
        mean: number().nonnegative().nullable(),
        std: number().nonnegative().nullable(),
    }),
    outputToMaxTokens: number().nonnegative().nullable(),
});
/**
 * The outputs of a greedy-output cell's run (run.json `outputs`), one per measured request in index order:
 * the same seeded workload sends the same prompt at the same index on both sides.
 */
const runOutputSchema = object({
    index: number().int().nonnegative(),
    ok: boolean(),
    finishReason: string().nullable(),
    text: string(),
    tokens: array(string()).nullable(),
    logprobs: array(number().nullable()).nullable(),
    /** A task cell's score of this answer. */
    task: object({ reference: string(), correct: boolean(), error: string().optional() }).optional(),
});
/** The kept outputs of these records, in index order (pure); empty when none kept any. */
function collectOutputs(records) {
    return records
        .filter((record) => record.output !== undefined)
        .sort((a, b) => a.index - b.index)
        .map((record) => ({
        index: record.index,
        ok: record.ok,
        finishReason: record.finishReason,
        text: record.output.text,
        tokens: record.output.tokens,
        logprobs: record.output.logprobs,
        ...(record.task !== undefined ? { task: record.task } : {}),
    }));
}
/** The guard counts of these measured requests (pure). */
function computeGuards(records, ignoreEos) {
    const finish = { stop: 0, length: 0, abort: 0, other: 0 };
    let zeroOutput = 0;
    let usageMismatch = 0;
    let count = 0;
    let sum = 0;
    let squares = 0;
    let ratioSum = 0;
    const lengths = [];
    for (const record of records) {
        const output = record.ok ? (record.outputTokens ?? record.chunksUs.length) : null;
        if (record.errorKind === "no_output" || output === 0)
            zeroOutput++;
        const kind = record.usageIssue?.kind;
        if (kind === "invalid_usage" || kind === "usage_exceeds_chunks" || kind === "usage_below_chunks")
            usageMismatch++;
        if (!record.ok || record.chunksUs.length === 0 || output === null)
            continue;
        const reason = record.finishReason;
        if (reason === "stop" || reason === "length" || reason === "abort")
            finish[reason]++;
        else
            finish.other++;
        count++;
        sum += output;
        lengths.push(output);
        if (record.maxTokens > 0)
            ratioSum += output / record.maxTokens;
    }
    const mean = count > 0 ? sum / count : null;
    if (mean !== null)
        for (const length of lengths)
            squares += (length - mean) ** 2;
    return {
        ignoreEos,
        requests: records.length,
        finish,
        zeroOutput,
        usageMismatch,
        outputTokens: { count, mean, std: mean === null ? null : Math.sqrt(squares / count) },
        outputToMaxTokens: count > 0 ? ratioSum / count : null,
    };
}
/** One guard share of a run: the count and its denominator (all measured requests). */
function guardShareCount(guards, field) {
    switch (field) {
        case "finish_length":
            return guards.finish.length;
        case "finish_abort":
            return guards.finish.abort;
        case "zero_output":
            return guards.zeroOutput;
        case "usage_mismatch":
            return guards.usageMismatch;
    }
}

/** The longest server start id accepted anywhere (run --server-start, run.json, vLLM's server_start). */
const maxServerStartIdLength = 200;
/** A new start of a server we launch. */
function newServerStart(clock) {
    return { id: randomUUID(), startedAt: clock.wallTime().toISOString() };
}
/**
 * The starts of servers someone else runs, by address (and declared id): the same server reached again
 * in this process is the same start. Kept for the life of the process, one entry per address.
 */
const reachedStarts = new Map();
/**
 * The start of a server we only reach (`--base-url`, kind external): we cannot see it restart, so within
 * one process (one `run`, one action job) its runs share one start, unless the caller names the start
 * (`run --server-start ID`, e.g. the same ID for several invocations against a server left running).
 */
function reachedServerStart(baseUrl, clock, declaredId) {
    const key = `${baseUrl}\u0000${declaredId ?? ""}`;
    let start = reachedStarts.get(key);
    if (!start) {
        start =
            declaredId === undefined
                ? newServerStart(clock)
                : { id: declaredId, startedAt: clock.wallTime().toISOString() };
        reachedStarts.set(key, start);
    }
    return start;
}
/** Why a declared server start id is refused (names `what`, e.g. "--server-start"), or null when valid. */
function serverStartIdProblem(id, what) {
    if (id.length === 0)
        return `${what}: expected a server start id, got an empty string`;
    if (id.length > maxServerStartIdLength)
        return `${what}: ${id.length} characters, more than the ${maxServerStartIdLength} allowed (limit maxServerStartIdLength)`;
    if (!/^[\x21-\x7e]+$/.test(id))
        return `${what}: expected printable ASCII without spaces (e.g. a UUID), got ${JSON.stringify(id)}`;
    return null;
}

export { normalQuantile as a, reachedServerStart as b, serverStartIdProblem as c, escapeHtml as d, escapeInline as e, escapeCell as f, escapeValue as g, newServerStart as h, inlineCode as i, collectOutputs as j, computeGuards as k, guardShareCount as l, binomialCdf as m, normalCdf as n, fSurvival as o, studentTCdf as p, logGamma as q, renderedForms as r, studentTQuantile as s, maxServerStartIdLength as t, runGuardsSchema as u, runOutputSchema as v, studentTSurvival as w };
