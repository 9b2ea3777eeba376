import { e as metricNames, m as metricSpecs, b as latencyStatisticSpec, i as isMetricName, d as describeMetric } from './metric-names.js';
import { a as mulberry32, m as mixSeed } from './random.js';
import { randomUUID, createHash } from 'node:crypto';
import { h as _isoDateTime, Z as ZodISODateTime, o as object, n as number, b as boolean, s as string, a as array, _ as _enum, l as literal } from './schemas.js';
import { I as InputError } from './version.js';

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
 * Secrets are cleaned before (compare cleans the verdict it renders, through the job's output seam):
 * escaping changes a value, and the seam looks for values.
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
 * The forms a value takes once escaped here, for the last pass of the job's output seam over a finished
 * report (server/outbound.ts). Text from outside is cleaned before it is escaped; this catches any that
 * was not.
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

function datetime(params) {
    return _isoDateTime(ZodISODateTime, params);
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
/** The p-quantile of the chi-square distribution with df degrees of freedom (df may be fractional). */
function chiSquareQuantile(p, df) {
    if (!(df > 0))
        throw new RangeError(`chi-square needs df > 0 (got ${df})`);
    const half = df / 2;
    // Wilson-Hilferty's cube-root normal approximation as the start, then Newton on the CDF in a bracket.
    const z = normalQuantile(p);
    const h = 2 / (9 * df);
    let x = Math.max(1e-300, df * (1 - h + z * Math.sqrt(h)) ** 3);
    let lo = 0;
    let hi = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 200; i++) {
        const excess = regularizedLowerGamma(half, x / 2) - p;
        if (excess < 0)
            lo = x;
        else
            hi = x;
        if (Math.abs(excess) <= 1e-15)
            return x;
        const density = Math.exp((half - 1) * Math.log(x) - x / 2 - half * Math.LN2 - logGamma(half));
        let next = x - excess / density;
        if (!(next > lo && next < hi))
            next = Number.isFinite(hi) ? 0.5 * (lo + hi) : 2 * x + 1;
        if (Math.abs(next - x) <= 1e-14 * x)
            return next;
        x = next;
    }
    return x;
}
/**
 * Nodes of E[f(S)] for S = √(V/df), V ~ χ²_df: the trapezoid rule on w = ln(V/df) over the whole line
 * (both tails below e^−40 of the peak), which converges geometrically for a smooth integrand that decays
 * at both ends. `width` is the smallest scale (in w) on which f changes; the step is a fifth of it and of
 * the density's width √(2/df). Weights are normalised to sum to 1.
 */
function chiQuadrature(df, width) {
    const half = df / 2;
    // ln density of w relative to its mode (w = 0): (df/2)·(w − e^w + 1), falling on both sides.
    const fall = (w) => half * (w - Math.expm1(w));
    const edge = (from, to) => {
        // Bisection for fall(w) = −cutoff between the mode and a point beyond the cut-off.
        let inner = from;
        let outer = to;
        while (fall(outer) > -40)
            outer *= 2;
        for (let i = 0; i < 60; i++) {
            const mid = 0.5 * (inner + outer);
            if (fall(mid) > -40)
                inner = mid;
            else
                outer = mid;
        }
        return outer;
    };
    const lo = edge(0, -80 / df - 1);
    const hi = edge(0, 1);
    const step = Math.min(Math.sqrt(2 / df), width) / 5;
    const n = Math.ceil((hi - lo) / step);
    const h = (hi - lo) / n;
    const s = new Float64Array(n + 1);
    const weight = new Float64Array(n + 1);
    let total = 0;
    for (let i = 0; i <= n; i++) {
        const w = lo + i * h;
        s[i] = Math.exp(w / 2);
        weight[i] = Math.exp(fall(w));
        total += weight[i];
    }
    for (let i = 0; i <= n; i++)
        weight[i] /= total;
    return { s, weight };
}
function normalDensity(z) {
    return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}
/** Beyond this many df the noncentral t is taken as the normal shifted by its noncentrality. */
const noncentralNormalDf = 1e7;
/**
 * The noncentrality at which a one-sided t test with critical value `critical` (≥ 0) and df degrees of
 * freedom rejects with probability `power`: the λ with P(T′_df(λ) > critical) = power. Newton steps on
 * E[Φ(λ − c·S)] (its slope is E[φ(λ − c·S)] > 0), from the normal approximation of c·S (Jennett and
 * Welch): λ ≈ c·(1 − 1/(4·df)) + z_power·√(1 + c²/(2·df)).
 */
function noncentralityForPower(critical, df, power) {
    if (!(power > 0 && power < 1))
        throw new RangeError(`power needs 0 < power < 1 (got ${power})`);
    if (!(df > 0))
        throw new RangeError(`t distribution needs df > 0 (got ${df})`);
    const zPower = normalQuantile(power);
    if (df > noncentralNormalDf)
        return critical + zPower;
    const { s, weight } = chiQuadrature(df, 2 / Math.max(1, Math.abs(critical)));
    let lambda = critical * (1 - 1 / (4 * df)) + zPower * Math.sqrt(1 + (critical * critical) / (2 * df));
    let lo = Number.NEGATIVE_INFINITY;
    let hi = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 100; i++) {
        let excess = -power;
        let slope = 0;
        for (let k = 0; k < s.length; k++) {
            const x = lambda - critical * s[k];
            excess += weight[k] * normalCdf(x);
            slope += weight[k] * normalDensity(x);
        }
        if (excess < 0)
            lo = lambda;
        else
            hi = lambda;
        if (Math.abs(excess) <= 1e-13)
            return lambda;
        let next = lambda - excess / slope;
        if (!(next > lo && next < hi))
            next = Number.isFinite(lo) && Number.isFinite(hi) ? 0.5 * (lo + hi) : lambda + (excess < 0 ? 1 : -1);
        if (Math.abs(next - lambda) <= 1e-12 * Math.max(1, Math.abs(lambda)))
            return next;
        lambda = next;
    }
    return lambda;
}

/**
 * The log scale the gate's statistics work on, and the tolerance margin on it. A relative change c
 * (0.05: 5% higher) is the log ratio ln(1 + c); a log ratio x is the relative change exp(x) − 1. The
 * tests compare the worse-side log ratio of a check with its margin ln(1 + tolerance): beyond it is a
 * regression, within it a pass (docs/compare.md). log1p and expm1 keep small changes exact.
 */
/** A relative change (0.05 = +5%, -0.05 = −5%) as a log ratio: ln(1 + change). */
function logRatioOf(change) {
    return Math.log1p(change);
}
/** A log ratio as a relative change: exp(logRatio) − 1 (ln 1.05 → 0.05). */
function relativeChangeOf(logRatio) {
    return Math.expm1(logRatio);
}
/** The tolerance margin: a check's relative tolerance (gate.tolerance, 0.05 = 5%) on the log scale. */
function toleranceMargin(tolerance) {
    return logRatioOf(tolerance);
}

/** One-sided level at which the starts' variance is taken to contradict the prior's. */
const priorContradictionLevel = 0.1;
function moments(sample) {
    const { values } = sample;
    const starts = sample.starts ?? values.map((_, i) => `run-${i}`);
    if (values.length !== starts.length)
        throw new RangeError(`two-level: ${values.length} values but ${starts.length} start identities`);
    const byStart = new Map();
    values.forEach((value, i) => {
        const key = starts[i];
        const list = byStart.get(key);
        if (list)
            list.push(value);
        else
            byStart.set(key, [value]);
    });
    const n = values.length;
    const mean = values.reduce((sum, v) => sum + v, 0) / n;
    let ssWithin = 0;
    let ssBetween = 0;
    let sumSquares = 0;
    const groups = [];
    for (const list of byStart.values()) {
        const groupMean = list.reduce((sum, v) => sum + v, 0) / list.length;
        for (const v of list)
            ssWithin += (v - groupMean) ** 2;
        ssBetween += list.length * (groupMean - mean) ** 2;
        sumSquares += list.length * list.length;
        groups.push({ n: list.length, mean: groupMean });
    }
    return { n, groups, mean, ssWithin, ssBetween, startCoefficient: n - sumSquares / n };
}
/** What one side's runs alone say of the run-to-run level: within starts, or their total spread. */
function measuredRunLevel(m) {
    const single = m.groups.length === m.n;
    // Within starts, N − G df; a side of single-run starts has only its total spread (N − 1 df).
    const df = single ? m.n - 1 : m.n - m.groups.length;
    const variance = single ? (m.n > 1 ? m.ssBetween / (m.n - 1) : 0) : m.ssWithin / df;
    return { variance, df, single };
}
/**
 * True when a variance measured with its degrees of freedom is significantly above the prior's
 * (one-sided F test at 10%): the runner is noisier than the prior believes.
 */
function contradictsPrior(measured, prior) {
    if (!(measured.df > 0) || !(prior.df > 0) || !(measured.variance > prior.variance))
        return false;
    return (prior.variance <= 0 ||
        fSurvival(measured.variance / prior.variance, measured.df, prior.df) < priorContradictionLevel);
}
function sideLevels(m, floor, runPrior, widened) {
    const starts = m.groups.length;
    const measured = measuredRunLevel(m);
    const startWeight = m.groups.reduce((sum, g) => sum + g.n * g.n, 0) / (m.n * m.n);
    const pooled = runPrior !== null && !widened;
    const df = measured.df + (pooled ? runPrior.df : 0);
    const variance = pooled
        ? (measured.df * measured.variance + runPrior.df * runPrior.variance) / df
        : measured.variance;
    return {
        runs: m.n,
        starts,
        startWeight,
        runVariance: Math.max(variance, floor),
        runVarianceDf: df,
        singleRunStarts: measured.single,
        floored: variance < floor,
        measuredRunVariance: measured.variance,
        measuredRunDf: measured.df,
        runPrior: runPrior === null ? "none" : widened ? "widened" : "pooled",
        runPriorDf: pooled ? runPrior.df : 0,
        betweenStarts: starts < 2
            ? null
            : {
                meanSquare: m.ssBetween / (starts - 1),
                df: starts - 1,
                coefficient: m.startCoefficient / (starts - 1),
            },
    };
}
/**
 * The run-level prior each side is offered and whether its runs contradict it: each side's runs are
 * tested alone (a change that made the candidate noisier widens the candidate's only) and, when neither
 * does and both share the prior (a calibration's, of the kind both sides' runs hold), both sides' runs
 * pooled: a runner that got noisier shows on both.
 */
function runPriorsOf(mb, mc, options) {
    const usable = (prior) => (prior && prior.df > 0 ? prior : null);
    const rb = measuredRunLevel(mb);
    const rc = measuredRunLevel(mc);
    const pick = (level) => usable(level.single ? options.runPrior?.perRun : options.runPrior?.withinStart);
    const baseline = options.runPrior ? pick(rb) : usable(options.baselineVariancePrior);
    const candidate = options.runPrior ? pick(rc) : null;
    let widenedB = baseline !== null && contradictsPrior(rb, baseline);
    let widenedC = candidate !== null && contradictsPrior(rc, candidate);
    // Both sides' runs pooled have more power to show a runner noisier on both; a side that alone
    // contradicts the prior already names where the extra noise is.
    if (baseline !== null && baseline === candidate && !widenedB && !widenedC) {
        const df = rb.df + rc.df;
        const both = { variance: (rb.df * rb.variance + rc.df * rc.variance) / df, df };
        if (contradictsPrior(both, baseline)) {
            widenedB = true;
            widenedC = true;
        }
    }
    return { baseline, candidate, widened: [widenedB, widenedC] };
}
/**
 * Satterthwaite's denominator terms of the run level: a side's variance pooled with a prior is a
 * linear combination of two independent mean squares, its runs' (their df) and the prior's (its df); a
 * prior shared by both sides is one mean square, counted once. A floored side's variance is believed
 * with the df it had.
 */
function runLevelDfTerms(sides) {
    let denominator = 0;
    const priorParts = new Map();
    for (const { levels, prior } of sides) {
        const n = levels.runs;
        if (prior === null || levels.runPrior !== "pooled" || levels.floored) {
            const part = levels.runVariance / n;
            if (levels.runVarianceDf > 0)
                denominator += (part * part) / levels.runVarianceDf;
            continue;
        }
        const total = levels.measuredRunDf + levels.runPriorDf;
        const own = (levels.measuredRunDf * levels.measuredRunVariance) / total / n;
        if (levels.measuredRunDf > 0)
            denominator += (own * own) / levels.measuredRunDf;
        const shared = (levels.runPriorDf * prior.variance) / total / n;
        priorParts.set(prior, (priorParts.get(prior) ?? 0) + shared);
    }
    for (const [prior, part] of priorParts)
        denominator += (part * part) / prior.df;
    return denominator;
}
/**
 * σ_s² from the start means of both sides (moments): E[SS between] = (G − 1)·σ_r² + c·σ_s² per side.
 * Sides of single-run starts cannot separate the levels and are left out. Null when no side has two
 * starts with a run-level estimate beside them. `estimate` is the moment estimate itself, unbiased and
 * below 0 when the starts agree more closely than the runs within them; `variance` is it clamped at 0.
 */
function measuredStartVariance(sides) {
    let numerator = 0;
    let coefficient = 0;
    let betweenDf = 0;
    for (const { m, levels } of sides) {
        if (levels.singleRunStarts || levels.starts < 2)
            continue;
        const g1 = levels.starts - 1;
        numerator += m.ssBetween - g1 * levels.runVariance;
        coefficient += m.startCoefficient;
        betweenDf += g1;
    }
    if (betweenDf === 0 || coefficient <= 0)
        return null;
    // Its degrees of freedom are the starts' (G − 1 a side): for balanced starts the variance of a side's
    // mean, σ_s²/G + σ_r²/N, is exactly the start means' mean square / G, with G − 1 df. (Satterthwaite's
    // df of the moment difference alone collapse towards 1 when σ_s² is near 0, which would let the prior
    // outweigh many starts that agree.)
    const estimate = numerator / coefficient;
    return { variance: Math.max(0, estimate), estimate, df: betweenDf };
}
function pooledStartLevel(sides, startPrior) {
    const measured = measuredStartVariance(sides);
    const prior = startPrior && startPrior.df > 0 ? startPrior : null;
    // A prior the starts contradict (their variance significantly above it: one-sided F at 10%) is widened
    // to what they show: the runner got noisier than believed, so the starts' own estimate stands, with
    // its df (docs/compare.md, "Noise known in advance").
    const contradicted = prior !== null && measured !== null && contradictsPrior(measured, prior);
    const usedPrior = contradicted ? null : prior;
    const measuredDf = measured?.df ?? 0;
    const priorDf = usedPrior?.df ?? 0;
    const startDf = measuredDf + priorDf;
    // The starts' moment estimate enters the pool unclamped and only the pooled value is kept at 0 or
    // above: clamping each estimate first would add E[max(0, estimate)] > 0 to the pool at the starts'
    // full degrees of freedom whenever the true start level is small, the PR's own starts and the prior
    // both pointing at a start level that is not there (docs/compare.md, "Server starts").
    const startVariance = startDf > 0
        ? Math.max(0, (measuredDf * (measured?.estimate ?? 0) + priorDf * (usedPrior?.variance ?? 0)) / startDf)
        : 0;
    return {
        startVariance,
        startVarianceDf: startDf,
        measuredStartVariance: measured,
        priorContradicted: contradicted,
    };
}
/**
 * The two levels of the noise from samples grouped by server start (one per side, or one for a single
 * set of runs; no run-level prior): each sample's run-to-run variance within its starts, and the
 * start-to-start variance from the start means of every sample, pooled with the prior by degrees of
 * freedom unless the starts contradict it. The one estimator of the levels: the two-level test, the
 * capacity interval, the pooled counts' design effect and main's history read it.
 */
function startLevels(samples, options = {}) {
    const floor = options.varianceFloor ?? 0;
    const sides = samples.map((sample) => {
        const m = moments(sample);
        return { m, levels: sideLevels(m, floor, null, false) };
    });
    return { sides: sides.map((side) => side.levels), ...pooledStartLevel(sides, options.startPrior) };
}
/**
 * Welch's test of candidate minus baseline on per-run values grouped by server start, with both levels
 * of the noise in the variance of each side's mean. With every run its own start it is Welch's test on
 * the runs (plus nothing); with one start per side the prior's start variance is added to each side.
 */
function twoLevelWelch(baseline, candidate, options = {}) {
    if (baseline.values.length < 2 || candidate.values.length < 2)
        throw new RangeError(`two-level Welch needs at least 2 values per side (got ${baseline.values.length} and ${candidate.values.length})`);
    const floor = options.varianceFloor ?? 0;
    const mb = moments(baseline);
    const mc = moments(candidate);
    const runPriors = runPriorsOf(mb, mc, options);
    const lb = sideLevels(mb, floor, runPriors.baseline, runPriors.widened[0]);
    const lc = sideLevels(mc, floor, runPriors.candidate, runPriors.widened[1]);
    const start = pooledStartLevel([
        { m: mb, levels: lb },
        { m: mc, levels: lc },
    ], options.startPrior);
    const { startVariance, startVarianceDf: startDf } = start;
    // A side of single-run starts carries σ_s² inside its total run variance already.
    const startWeightOf = (levels) => (levels.singleRunStarts ? 0 : levels.startWeight);
    const startPart = (startWeightOf(lb) + startWeightOf(lc)) * startVariance;
    const vb = lb.runVariance / lb.runs;
    const vc = lc.runVariance / lc.runs;
    const runPart = vb + vc;
    const extra = options.extraVariance ?? 0;
    const variance = startPart + runPart + extra;
    // Satterthwaite over the estimated components; the extra variance is treated as known.
    let denominator = runLevelDfTerms([
        { levels: lb, prior: runPriors.baseline },
        { levels: lc, prior: runPriors.candidate },
    ]);
    if (startPart > 0 && startDf > 0)
        denominator += (startPart * startPart) / startDf;
    const df = denominator > 0 ? (variance * variance) / denominator : Number.POSITIVE_INFINITY;
    const difference = mc.mean - mb.mean;
    const standardError = Math.sqrt(variance);
    const t = standardError > 0
        ? difference / standardError
        : difference === 0
            ? 0
            : Math.sign(difference) * Number.POSITIVE_INFINITY;
    return {
        difference,
        standardError,
        df,
        t,
        baseline: lb,
        candidate: lc,
        ...start,
        startPart,
        runPart,
    };
}
/**
 * The share of σ_s² that stays in a side's mean of `runs` runs measured in starts of `perStart` runs
 * (the last start may be shorter): Σ n_g² / N². One start: 1; every run its own start: 1/N.
 */
function startWeightFor(runs, perStart) {
    if (runs <= 0)
        return 1;
    const k = Math.max(1, Math.min(runs, Math.floor(perStart)));
    const full = Math.floor(runs / k);
    const rest = runs - full * k;
    return (full * k * k + rest * rest) / (runs * runs);
}
/**
 * Runs per server start that minimise the variance of a side's mean for its GPU time (Kalibera and Jones,
 * "Rigorous benchmarking in reasonable time": repetitions at a level ∝ √(variance / cost) of that level):
 * √(startCost·σ_r² / (runCost·σ_s²)), at least 1. Infinity when the start level has no variance.
 */
function optimalRunsPerStart(input) {
    if (input.startVariance <= 0)
        return Number.POSITIVE_INFINITY;
    if (input.runCost <= 0)
        return Number.POSITIVE_INFINITY;
    const ratio = (input.startCost * input.runVariance) / (input.runCost * input.startVariance);
    return Math.max(1, Math.sqrt(ratio));
}
/** One-sided level at which the runs' spread is taken to exceed what a pooled test assumes. */
const overdispersionLevel = 0.1;
/** Degrees of freedom standing in for "known" in the chi-square form of the F test below. */
const knownDf = 1e6;
/**
 * The design effect of a test on counts pooled over a side's runs (a share of requests, a mean output
 * length): such a test takes every request as independent, but the requests of one run share its moment
 * and the runs of one start share what it drew. The variance of the difference of the sides' per-run
 * means with both levels (twoLevelWelch) over the variance the pooled test assumes for it is the factor
 * its counts are divided by (Rao and Scott's first-order correction), when it is significantly above 1
 * (one-sided chi-square at 10% on the two-level variance's degrees of freedom, as a prior the starts
 * contradict); 1 otherwise, and when a side has fewer than 2 runs (null levels) or the pooled test
 * assumes no variance.
 */
function pooledDesignEffect(baseline, candidate, pooledVariance, options = {}) {
    if (baseline.values.length < 2 || candidate.values.length < 2)
        return { factor: 1, levels: null };
    const levels = twoLevelWelch(baseline, candidate, options);
    if (!(pooledVariance > 0))
        return { factor: 1, levels };
    const ratio = levels.standardError ** 2 / pooledVariance;
    const df = Number.isFinite(levels.df) ? levels.df : knownDf;
    const significant = ratio > 1 && fSurvival(ratio, df, knownDf) < overdispersionLevel;
    return { factor: significant ? ratio : 1, levels };
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

function midRanks$1(values) {
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
    const { ranks, tieSizes } = midRanks$1([...x, ...y]);
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

/**
 * alpha 0.012 per window: calibrated by `npm run bench:history` (window 60) so that clean series stay
 * inside the goal of at most 1 false alarm per 100 commits per family of 3 metrics, at 0.71 (the detector
 * runs after every commit on overlapping windows, so alarms per commit are far fewer than alpha).
 */
const defaultChangePointOptions = Object.freeze({
    method: "rank",
    alpha: 0.012,
    minMagnitude: 0.03,
    minSegment: 4,
    confidence: 0.95,
    maxChangePoints: 5,
});
function median(values) {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
function bestTSplit(values, minSegment) {
    const n = values.length;
    if (n < 2 * minSegment)
        return null;
    // Prefix sums make each split O(1): the whole scan is linear in the window.
    const sum = [0];
    const sumSq = [0];
    for (const v of values) {
        sum.push(sum.at(-1) + v);
        sumSq.push(sumSq.at(-1) + v * v);
    }
    let best = null;
    for (let k = minSegment; k <= n - minSegment; k++) {
        const nl = k;
        const nr = n - k;
        const ml = sum[k] / nl;
        const mr = (sum[n] - sum[k]) / nr;
        const ssl = Math.max(0, sumSq[k] - nl * ml * ml);
        const ssr = Math.max(0, sumSq[n] - sumSq[k] - nr * mr * mr);
        const df = n - 2;
        const pooled = (ssl + ssr) / df;
        const se = Math.sqrt(pooled * (1 / nl + 1 / nr));
        const diff = mr - ml;
        const t = se > 0 ? diff / se : diff === 0 ? 0 : Math.sign(diff) * Number.POSITIVE_INFINITY;
        if (!best || Math.abs(t) > Math.abs(best.statistic))
            best = { index: k, statistic: t, diff, se, df };
    }
    return best;
}
/** Mid-ranks (1-based) of the values: tied values share the mean of their ranks. */
function midRanks(values) {
    const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
    const ranks = new Float64Array(values.length);
    let k = 0;
    while (k < order.length) {
        let j = k;
        while (j + 1 < order.length && order[j + 1].v === order[k].v)
            j++;
        for (let m = k; m <= j; m++)
            ranks[order[m].i] = (k + j) / 2 + 1;
        k = j + 1;
    }
    return ranks;
}
/**
 * The split with the largest Wilcoxon rank-sum |z| of the right part: (S − nr·r̄) over its permutation sd
 * √(nl·nr / (n(n − 1)) · Σ(r − r̄)²), exact for ties too. (The pooled t of the ranks is a monotone
 * function of it at every split, the ranks' total variance being fixed: the same test.) Ranks cap it:
 * with 10 points after a step in 40 it cannot exceed 4.69 however large the step.
 */
function bestRankSplit(ranks, minSegment) {
    const n = ranks.length;
    if (n < 2 * minSegment)
        return null;
    let total = 0;
    for (let i = 0; i < n; i++)
        total += ranks[i];
    const mean = total / n;
    let ss = 0;
    for (let i = 0; i < n; i++)
        ss += (ranks[i] - mean) ** 2;
    if (!(ss > 0))
        return null;
    let right = 0;
    for (let i = n - minSegment; i < n; i++)
        right += ranks[i];
    let best = null;
    // From the split nearest the end backwards, adding one point to the right part each step.
    for (let k = n - minSegment; k >= minSegment; k--) {
        if (k < n - minSegment)
            right += ranks[k];
        const nr = n - k;
        const z = (right - nr * mean) / Math.sqrt(((k * nr) / (n * (n - 1))) * ss);
        if (!best || Math.abs(z) > Math.abs(best.statistic))
            best = { index: k, statistic: z };
    }
    return best;
}
/** Permutations drawn for each window length's null distribution of the largest |z|. */
const nullDraws = 20_000;
const nullCache = new Map();
/**
 * The null distribution of the best split's |z| for `n` points (sorted ascending): `nullDraws` random
 * orders of the scores of the ranks 1..n, from a seed fixed by n and the minimum segment. Memoised.
 */
function rankSplitNull(n, minSegment) {
    const key = `${n},${minSegment}`;
    let draws = nullCache.get(key);
    if (draws)
        return draws;
    const random = mulberry32(mixSeed(n, minSegment));
    const values = Float64Array.from({ length: n }, (_, i) => i + 1);
    draws = new Float64Array(nullDraws);
    for (let d = 0; d < nullDraws; d++) {
        for (let i = n - 1; i > 0; i--) {
            const j = Math.floor(random() * (i + 1));
            const swap = values[i];
            values[i] = values[j];
            values[j] = swap;
        }
        draws[d] = Math.abs(bestRankSplit(values, minSegment).statistic);
    }
    draws.sort();
    nullCache.set(key, draws);
    return draws;
}
/** Permutation p of an observed best-split |z|: (1 + draws at least as large) / (draws + 1). */
function rankSplitP(n, minSegment, z) {
    const draws = rankSplitNull(n, minSegment);
    // First draw >= |z| - a hair (float noise between the observed and the permuted sums).
    const target = Math.abs(z) - 1e-9;
    let lo = 0;
    let hi = draws.length;
    while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (draws[mid] < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (1 + draws.length - lo) / (draws.length + 1);
}
/** Exact Moses intervals while the two sides' product is small; the normal approximation beyond. */
const exactIntervalLimit = 1_000;
function shiftInterval(left, right, confidence) {
    const m = left.length;
    const r = right.length;
    if (m * r <= exactIntervalLimit) {
        const hl = hodgesLehmann(left, right, confidence);
        if (hl.interval)
            return { shift: hl.shift, low: hl.interval[0], high: hl.interval[1] };
    }
    const differences = [];
    for (const y of right)
        for (const x of left)
            differences.push(y - x);
    differences.sort((a, b) => a - b);
    const mn = differences.length;
    const mid = mn >> 1;
    const shift = mn % 2 === 1 ? differences[mid] : (differences[mid - 1] + differences[mid]) / 2;
    const z = normalQuantile(1 - (1 - confidence) / 2);
    const c = Math.max(1, Math.floor((m * r) / 2 - z * Math.sqrt((m * r * (m + r + 1)) / 12)));
    return { shift, low: differences[c - 1], high: differences[mn - c] };
}
function testRank(segment, settings) {
    const split = bestRankSplit(midRanks(segment), settings.minSegment);
    if (!split)
        return null;
    const p = rankSplitP(segment.length, settings.minSegment, split.statistic);
    if (p > settings.alpha)
        return null;
    const { shift, low, high } = shiftInterval(segment.slice(0, split.index), segment.slice(split.index), settings.confidence);
    if (Math.sign(shift) !== Math.sign(split.statistic) ||
        Math.abs(relativeChangeOf(shift)) < settings.minMagnitude)
        return null;
    return {
        split: split.index,
        ratio: Math.exp(shift),
        ratioLow: Math.exp(low),
        ratioHigh: Math.exp(high),
        statistic: split.statistic,
        p,
    };
}
function testT(segment, settings) {
    const split = bestTSplit(segment, settings.minSegment);
    if (!split || !Number.isFinite(split.diff))
        return null;
    const splits = segment.length - 2 * settings.minSegment + 1;
    const rawP = Number.isFinite(split.statistic)
        ? 2 * studentTSurvival(Math.abs(split.statistic), split.df)
        : 0;
    const p = Math.min(1, rawP * splits);
    if (p > settings.alpha || Math.abs(relativeChangeOf(split.diff)) < settings.minMagnitude)
        return null;
    // The medians of the parts must have moved as far, the same way: one outlier session at the end of
    // the window drags a part's mean, not its median (the false change point Otava's review met).
    const medianShift = median(segment.slice(split.index)) - median(segment.slice(0, split.index));
    if (Math.sign(medianShift) !== Math.sign(split.diff) ||
        Math.abs(relativeChangeOf(medianShift)) < settings.minMagnitude)
        return null;
    const q = studentTQuantile(1 - (1 - settings.confidence) / 2, split.df);
    return {
        split: split.index,
        ratio: Math.exp(split.diff),
        ratioLow: Math.exp(split.diff - q * split.se),
        ratioHigh: Math.exp(split.diff + q * split.se),
        statistic: split.statistic,
        p,
    };
}
/** The change points of one series (ln scale, oldest first), in index order. Pure. */
function detectChangePoints(values, options = {}) {
    const settings = { ...defaultChangePointOptions, ...options };
    const test = settings.method === "t" ? testT : testRank;
    // Binary segmentation: the best split of the window, then of each part, while splits pass.
    const candidates = [];
    const search = (from, to) => {
        if (candidates.length >= settings.maxChangePoints)
            return;
        const result = test(values.slice(from, to), settings);
        if (!result)
            return;
        candidates.push(from + result.split);
        search(from, from + result.split);
        search(from + result.split, to);
    };
    search(0, values.length);
    // Each change point is tested again between its neighbours and moved to that segment's best split;
    // one that fails there goes, and the rest are tested again. A staircase of two steps can make the
    // first best split land inside the middle stair (ranks see order, not size): between its neighbours
    // that split has nothing on either side and is dropped.
    let points = candidates.sort((a, b) => a - b);
    for (let round = 0; round < 4 * settings.maxChangePoints + 4; round++) {
        const tested = points.map((_, i) => {
            const from = i > 0 ? points[i - 1] : 0;
            const to = i + 1 < points.length ? points[i + 1] : values.length;
            return { from, to, result: test(values.slice(from, to), settings) };
        });
        const failed = tested.findIndex((t) => !t.result);
        if (failed >= 0) {
            points = points.filter((_, i) => i !== failed);
            continue;
        }
        const moved = tested.map((t) => t.from + t.result.split);
        if (moved.every((index, i) => index === points[i])) {
            return tested.map(({ from, to, result }) => {
                const { split, ...rest } = result;
                return { ...rest, index: from + split, before: split, after: to - from - split };
            });
        }
        points = [...new Set(moved)].sort((a, b) => a - b);
    }
    // Did not settle (moving splits): report the last consistent set, each from its own segment.
    return points.flatMap((index, i) => {
        const from = i > 0 ? points[i - 1] : 0;
        const to = i + 1 < points.length ? points[i + 1] : values.length;
        const result = test(values.slice(from, to), settings);
        if (!result || from + result.split !== index)
            return [];
        const { split, ...rest } = result;
        return [{ ...rest, index, before: split, after: to - from - split }];
    });
}
function levelShift(before, after, confidence = 0.95) {
    if (before.length < 1 || after.length < 1 || before.length + after.length < 3)
        return null;
    const mean = (xs) => xs.reduce((s, v) => s + v, 0) / xs.length;
    const ml = mean(before);
    const mr = mean(after);
    const ss = (xs, m) => xs.reduce((s, v) => s + (v - m) ** 2, 0);
    const df = before.length + after.length - 2;
    const se = Math.sqrt(((ss(before, ml) + ss(after, mr)) / df) * (1 / before.length + 1 / after.length));
    const q = studentTQuantile(1 - (1 - confidence) / 2, df);
    const diff = mr - ml;
    return { ratio: Math.exp(diff), ratioLow: Math.exp(diff - q * se), ratioHigh: Math.exp(diff + q * se) };
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
 * after hash alike (compare/history/history.ts `conditionsHash`).
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
 * Two servers run from an image (`server.image` recorded on both sides) whose images have no repo digest
 * and not both an image ID: which image ran is unknown on at least one side, and an unknown image is never
 * the same image (a local tag can point at different images on the two sides).
 */
function unknownImage(base, cand) {
    const fromImages = (base["server.image"] ?? null) !== null && (cand["server.image"] ?? null) !== null;
    const noDigest = (side) => (side["server.imageDigest"] ?? null) === null;
    const noId = (side) => (side["server.imageId"] ?? null) === null;
    return fromImages && noDigest(base) && noDigest(cand) && (noId(base) || noId(cand));
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

/** The server start a run was measured on; a run that says none is its own start. */
function startOf(run) {
    return run.serverStart?.id ?? `run:${run.source}:${run.run ?? ""}`;
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

/**
 * Main's history: one compact record per baseline session, cell and metric (the per-run values, the
 * conditions' fingerprint, commit, time and each run's health), stored as JSON Lines (one record a line)
 * where it outlives artifact retention (github/history-store.ts). This module is the pure part: the
 * schema (the single source of truth of the file), the records made from a session's runs, reading a
 * history text as untrusted input (size, line and schema checks; any failure refuses the whole file), the
 * compaction that keeps it inside its size bound, and the runs a gate reads back from it.
 */
const historyRecordSchemaVersion = 1;
const defaultHistoryLimits = Object.freeze({
    maxBytes: 8_000_000,
    maxLineBytes: 64 * 1024,
    maxSessions: 200,
});
const sha = string().regex(/^[0-9a-f]{40,64}$/, "expected a full commit sha");
const cellName = string()
    .regex(/^[a-z0-9][a-z0-9_.-]*$/)
    .max(200);
const historySessionSchema = object({
    /** `<runId>-<runAttempt>`: unique per baseline job. */
    id: string()
        .regex(/^[0-9]+-[0-9]+$/, "expected <runId>-<runAttempt>")
        .max(50),
    commit: sha,
    ref: string().max(255),
    runId: number().int().nonnegative(),
    runAttempt: number().int().positive(),
    recordedAt: datetime(),
});
const historyRecordSchema = object({
    schemaVersion: literal(historyRecordSchemaVersion),
    session: historySessionSchema,
    cell: cellName,
    metric: _enum(metricNames),
    /** Per run, in run order: the metric's value (ms, per second, fraction), null when the run has none. */
    values: array(number().finite().nonnegative().nullable()).min(1).max(1000),
    /** The run's health: indices (into `values`) of runs the gate must not use, and why (deduplicated). */
    health: object({
        excluded: array(number().int().nonnegative()).max(1000),
        reasons: array(string().max(300)).max(20),
    }),
    /** The comparable conditions (fingerprint without the informational fields): sha256, first 16 hex digits. */
    fingerprint: string().regex(/^[0-9a-f]{16}$/, "expected 16 hex digits (a truncated sha256)"),
    /**
     * The server start of each run (absent in records of earlier versions: their runs are taken to share
     * one start per session): the distinct starts (`ids`, each with its `basis`) and, per run in `values`'
     * order, the index of its start in `ids`. A start the run recorded keeps its id; one compare assumed or
     * the user declared is stored as `<basis>:<hash>` (no machine paths).
     */
    serverStarts: object({
        ids: array(string().min(1).max(maxServerStartIdLength)).min(1).max(1000),
        basis: array(_enum(serverStartBases)).min(1).max(1000),
        runs: array(number().int().nonnegative()).min(1).max(1000),
    })
        .optional(),
});
/** A history that failed a check: the gate falls back to the artifacts' history and says why. */
class UntrustedHistoryError extends InputError {
}
/**
 * The hash that says two sessions ran under the same conditions: every recorded field but the
 * informational ones (tool build, runner name, config hash; compare/inputs/fingerprint.ts), in a stable
 * order. A retired field (`retiredFields`) counts at the value it always had, recorded or not.
 */
function conditionsHash(fingerprint) {
    const flat = flattenFingerprint(fingerprint);
    for (const [field, value] of Object.entries(retiredFields))
        if (!Object.keys(flat).some((key) => key === field || key.startsWith(`${field}.`)))
            flat[field] = value;
    const kept = Object.keys(flat)
        .filter((field) => !isInformationalField(field))
        .sort()
        .map((field) => [field, flat[field]]);
    return createHash("sha256").update(JSON.stringify(kept)).digest("hex").slice(0, 16);
}
/** One record per cell and per-run metric of one baseline session, from its runs (run order kept). */
function historyRecordsFromRuns(runs, session) {
    const byCell = new Map();
    for (const run of runs)
        byCell.set(run.cell, [...(byCell.get(run.cell) ?? []), run]);
    const records = [];
    for (const [cell, cellRuns] of [...byCell].sort(([a], [b]) => a.localeCompare(b))) {
        const ordered = [...cellRuns].sort((a, b) => (a.run ?? 0) - (b.run ?? 0));
        const excluded = ordered.flatMap((run, index) => (run.exclusionReasons.length > 0 ? [index] : []));
        const reasons = [...new Set(ordered.flatMap((run) => run.exclusionReasons))]
            .slice(0, 20)
            .map((reason) => reason.slice(0, 300));
        const fingerprint = conditionsHash(ordered[0]?.fingerprint ?? {});
        const serverStarts = serverStartsOf(ordered);
        for (const metric of metricNames) {
            if (metricSpecs[metric].judged !== "per-run")
                continue;
            const values = ordered.map((run) => {
                const value = run.metrics[metric];
                // Six significant digits: far below run-to-run noise, and about half the bytes of a full double.
                return typeof value === "number" && Number.isFinite(value) && value >= 0
                    ? Number(value.toPrecision(6))
                    : null;
            });
            if (values.every((value) => value === null))
                continue;
            records.push(historyRecordSchema.parse({
                schemaVersion: historyRecordSchemaVersion,
                session,
                cell,
                metric,
                values,
                health: { excluded, reasons },
                fingerprint,
                ...(serverStarts ? { serverStarts } : {}),
            }));
        }
    }
    return records;
}
/**
 * A cell's runs' server starts as a history record keeps them (see `serverStarts` in the schema); none
 * when a run has no start assigned. A start compare assumed or the user declared is named by a hash of
 * its id, which holds the input's path on the machine.
 */
function serverStartsOf(runs) {
    if (runs.length === 0 || runs.some((run) => run.serverStart === undefined))
        return undefined;
    const ids = [];
    const basis = [];
    const runsStart = runs.map((run) => {
        const start = run.serverStart;
        const id = start.basis === "recorded"
            ? start.id
            : `${start.basis}:${createHash("sha256").update(start.id).digest("hex").slice(0, 16)}`;
        let index = ids.indexOf(id);
        if (index < 0) {
            index = ids.push(id) - 1;
            basis.push(start.basis);
        }
        return index;
    });
    return { ids, basis, runs: runsStart };
}
/** JSON Lines: one record a line, each line ending in a newline. */
function serializeHistory(records) {
    return records.map((record) => `${JSON.stringify(record)}\n`).join("");
}
/**
 * Reads a history text as untrusted input: over `maxBytes`, a line over `maxLineBytes`, a line that is
 * not JSON or not a record of this schema, or two records for one session, cell and metric, refuse the
 * whole file (a partly read history would bias the drift and the change points without saying so).
 * `source` names the file in messages.
 */
function parseHistory(text, source, limits = defaultHistoryLimits) {
    const bytes = Buffer.byteLength(text);
    if (bytes > limits.maxBytes)
        throw new UntrustedHistoryError(`history ${source}: ${bytes} bytes, more than the ${limits.maxBytes} allowed (limit maxHistoryBytes)`);
    const records = [];
    const seen = new Set();
    const lines = text.split("\n");
    for (let index = 0; index < lines.length; index++) {
        const line = lines[index];
        if (line.trim() === "")
            continue;
        const where = `history ${source} line ${index + 1}`;
        if (Buffer.byteLength(line) > limits.maxLineBytes)
            throw new UntrustedHistoryError(`${where}: longer than ${limits.maxLineBytes} bytes (limit maxHistoryLineBytes)`);
        let raw;
        try {
            raw = JSON.parse(line);
        }
        catch (error) {
            throw new UntrustedHistoryError(`${where}: not JSON (${error.message})`);
        }
        const result = historyRecordSchema.safeParse(raw);
        if (!result.success) {
            const issue = result.error.issues[0];
            throw new UntrustedHistoryError(`${where}: field ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
        }
        const record = result.data;
        const bad = record.health.excluded.find((i) => i >= record.values.length);
        if (bad !== undefined)
            throw new UntrustedHistoryError(`${where}: field health.excluded: run ${bad} is not among the ${record.values.length} values`);
        const startsProblem = serverStartsProblem(record);
        if (startsProblem)
            throw new UntrustedHistoryError(`${where}: field serverStarts.${startsProblem}`);
        const key = `${record.session.id}\u0000${record.cell}\u0000${record.metric}`;
        if (seen.has(key))
            throw new UntrustedHistoryError(`${where}: a second record for session ${record.session.id}, cell ${record.cell}, metric ${record.metric}`);
        seen.add(key);
        records.push(record);
    }
    return records;
}
/** What is inconsistent in a record's server starts (field and message), or null. */
function serverStartsProblem(record) {
    const starts = record.serverStarts;
    if (starts === undefined)
        return null;
    if (starts.basis.length !== starts.ids.length)
        return `basis: ${starts.basis.length} entries, but ${starts.ids.length} ids (one basis per id)`;
    if (starts.runs.length !== record.values.length)
        return `runs: ${starts.runs.length} entries, but ${record.values.length} values (one start per run)`;
    const outside = starts.runs.find((index) => index >= starts.ids.length);
    if (outside !== undefined)
        return `runs: start ${outside} is not among the ${starts.ids.length} ids`;
    return null;
}
/** The sessions of a history, oldest first (by recording time, then run id). */
function historySessions(records) {
    const sessions = new Map();
    for (const record of records)
        if (!sessions.has(record.session.id))
            sessions.set(record.session.id, record.session);
    return [...sessions.values()].sort((a, b) => a.recordedAt.localeCompare(b.recordedAt) || a.runId - b.runId || a.runAttempt - b.runAttempt);
}
/**
 * Keeps a history inside its bound: while it has more than `maxSessions` sessions or its text is over
 * `maxBytes`, the oldest sessions go; when the bytes were the reason, down to three quarters of the bound,
 * so that the next appends do not compact again at once. Whole sessions only: a session is never split.
 */
function compactHistory(records, limits = defaultHistoryLimits) {
    const sessions = historySessions(records);
    const bytesOf = new Map();
    for (const record of records)
        bytesOf.set(record.session.id, (bytesOf.get(record.session.id) ?? 0) + Buffer.byteLength(JSON.stringify(record)) + 1);
    let total = [...bytesOf.values()].reduce((s, b) => s + b, 0);
    const target = total > limits.maxBytes ? Math.floor(limits.maxBytes * 0.75) : limits.maxBytes;
    const dropped = new Set();
    let kept = sessions.length;
    for (const session of sessions) {
        if (kept <= 1)
            break;
        if (kept <= limits.maxSessions && total <= target)
            break;
        dropped.add(session.id);
        total -= bytesOf.get(session.id) ?? 0;
        kept--;
    }
    return {
        records: records.filter((record) => !dropped.has(record.session.id)),
        droppedSessions: sessions.filter((s) => dropped.has(s.id)).map((s) => s.id),
    };
}
/**
 * The runs a gate reads from a history: the last `lastSessions` sessions whose conditions hash equals
 * `fingerprint` (the stored baseline's), rebuilt as run records (one per session, cell and run; the
 * excluded runs keep their reasons). A session under other conditions (another GPU, driver, image) is
 * left out and named: its level says nothing about this baseline's drift.
 *
 * With `alignTo`, main's steps are taken out first: per cell and metric, the change points of the series
 * of matching sessions (stats/change-point.ts) cut it into stretches, and each stretch's runs are scaled
 * so its mean ln equals that of the stretch holding session `alignTo` (the stored baseline's; the last
 * stretch when it is not in the history). A step main took then reads as the step it is (reported by
 * "main already regressed"), not as between-session drift, which session-drift.ts estimates around one
 * level. The spread within sessions and between the sessions of a stretch is untouched.
 */
function runsFromHistory(records, options) {
    const excluded = new Set(options.excludeSessions ?? []);
    const leftOut = [];
    const matching = historySessions(records).filter((session) => {
        if (options.fingerprint === null)
            return true;
        const other = records.find((r) => r.session.id === session.id && r.fingerprint !== options.fingerprint);
        if (other) {
            if (!excluded.has(session.id))
                leftOut.push({
                    session,
                    reason: `recorded under other conditions (fingerprint ${other.fingerprint.slice(0, 12)}, the baseline's ${options.fingerprint.slice(0, 12)})`,
                });
            return false;
        }
        return true;
    });
    const sessions = matching
        .filter((session) => !excluded.has(session.id))
        .slice(-Math.max(0, options.lastSessions));
    const kept = new Set(sessions.map((session) => session.id));
    const factors = options.alignTo === undefined
        ? new Map()
        : stepFactors(records, matching, options.alignTo);
    const runs = new Map();
    for (const record of records) {
        if (!kept.has(record.session.id))
            continue;
        const factor = factors.get(`${record.session.id}\u0000${record.cell}\u0000${record.metric}`) ?? 1;
        record.values.forEach((value, index) => {
            const key = `${record.session.id}/${record.cell}/${index}`;
            let run = runs.get(key);
            if (!run) {
                run = {
                    source: `history:${record.session.id}/${record.cell}/run-${index}`,
                    cell: record.cell,
                    run: index,
                    // The record keeps no run's own start time: the session's, for the age of what it measured.
                    startedAt: record.session.recordedAt,
                    metrics: {},
                    requests: { total: 0, completed: 0, failed: 0 },
                    fingerprint: {},
                    exclusionReasons: record.health.excluded.includes(index)
                        ? record.health.reasons.length > 0
                            ? [...record.health.reasons]
                            : ["excluded when recorded"]
                        : [],
                    session: record.session.id,
                    ...serverStartOfRun(record, index),
                };
                runs.set(key, run);
            }
            run.metrics[record.metric] = value === null ? null : value * factor;
        });
    }
    // Records of earlier versions: a session's runs are taken to share one start (the conservative reading).
    return {
        runs: assignServerStarts([...runs.values()], "history", { freshStarts: false }),
        sessions,
        leftOut,
    };
}
/**
 * Run `index`'s server start as the record keeps it; an assumed or declared start is prefixed with the
 * session, so that two sessions measured from the same directory never share one.
 */
function serverStartOfRun(record, index) {
    const starts = record.serverStarts;
    const at = starts?.runs[index];
    if (starts === undefined || at === undefined)
        return {};
    const basis = starts.basis[at];
    const id = starts.ids[at];
    return { serverStart: { id: basis === "recorded" ? id : `history:${record.session.id}:${id}`, basis } };
}
/**
 * The history a calibration uses for the between-session drift (the CLI's `calibrate --history` and the
 * action's calibrate mode): the last `lastSessions` sessions under the A/A runs' conditions, main's steps
 * taken out with every stretch scaled to the newest one's level (the level the A/A runs measure now),
 * so a merged regression does not read as drift.
 */
function calibrationHistoryRuns(records, fingerprint, lastSessions) {
    return runsFromHistory(records, { fingerprint, lastSessions, alignTo: null });
}
/** Per `session\u0000cell\u0000metric`, the factor that moves its stretch to the reference stretch's level. */
function stepFactors(records, sessions, alignTo) {
    const order = new Map(sessions.map((session, index) => [session.id, index]));
    const groups = new Map();
    for (const record of records) {
        if (!order.has(record.session.id))
            continue;
        const key = `${record.cell}\u0000${record.metric}`;
        groups.set(key, [...(groups.get(key) ?? []), record]);
    }
    const factors = new Map();
    for (const group of groups.values()) {
        const points = group
            .map((record) => ({
            record,
            logs: record.values.flatMap((value, index) => value !== null && value > 0 && !record.health.excluded.includes(index) ? [Math.log(value)] : []),
        }))
            .filter((point) => point.logs.length > 0)
            .sort((a, b) => (order.get(a.record.session.id) ?? 0) - (order.get(b.record.session.id) ?? 0));
        const means = points.map((p) => p.logs.reduce((s, v) => s + v, 0) / p.logs.length);
        const steps = detectChangePoints(means).map((cp) => cp.index);
        if (steps.length === 0)
            continue;
        const bounds = [0, ...steps, means.length];
        const stretchOf = (index) => bounds.findIndex((bound, b) => index >= bound && index < bounds[b + 1]);
        const stretchMean = (b) => means.slice(bounds[b], bounds[b + 1]).reduce((s, v) => s + v, 0) / (bounds[b + 1] - bounds[b]);
        const at = points.findIndex((p) => p.record.session.id === alignTo);
        const reference = stretchMean(at >= 0 ? stretchOf(at) : bounds.length - 2);
        points.forEach((point, index) => {
            const { record } = point;
            factors.set(`${record.session.id}\u0000${record.cell}\u0000${record.metric}`, Math.exp(reference - stretchMean(stretchOf(index))));
        });
    }
    return factors;
}
function seriesOf(records, cell, metric) {
    const order = new Map(historySessions(records).map((session, index) => [session.id, index]));
    return records
        .filter((record) => record.cell === cell && record.metric === metric)
        .map((record) => ({
        session: record.session,
        logs: record.values.flatMap((value, index) => value !== null && value > 0 && !record.health.excluded.includes(index) ? [Math.log(value)] : []),
    }))
        .filter((point) => point.logs.length > 0)
        .sort((a, b) => (order.get(a.session.id) ?? 0) - (order.get(b.session.id) ?? 0));
}
/**
 * The base's run-to-run variance pooled across the history's sessions, per `cell\u0000metric`: for each
 * session with 2 or more healthy runs, the sample variance of the ln values; sessions whose variance is
 * more than 9 times the median session's (an sd 3 times the usual: a broken runner that day) are left out;
 * the rest pooled as Σ(n−1)s² / Σ(n−1), with Σ(n−1) degrees of freedom. The test pools it with the
 * baseline's own runs (stats/welch.ts), so a baseline of 3 runs is no longer judged on 2 degrees of freedom.
 */
function pooledRunVariances(runs) {
    const groups = new Map();
    for (const run of runs) {
        if (run.exclusionReasons.length > 0 || !run.session)
            continue;
        for (const [metric, value] of Object.entries(run.metrics)) {
            if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value))
                continue;
            const key = `${run.cell}\u0000${metric}`;
            const sessions = groups.get(key) ?? new Map();
            sessions.set(run.session, [...(sessions.get(run.session) ?? []), Math.log(value)]);
            groups.set(key, sessions);
        }
    }
    const pooled = new Map();
    for (const [key, sessions] of groups) {
        const stats = [...sessions.values()]
            .filter((logs) => logs.length >= 2)
            .map((logs) => {
            const mean = logs.reduce((s, v) => s + v, 0) / logs.length;
            const ss = logs.reduce((s, v) => s + (v - mean) ** 2, 0);
            return { variance: ss / (logs.length - 1), df: logs.length - 1, ss };
        });
        if (stats.length === 0)
            continue;
        const sorted = stats.map((s) => s.variance).sort((a, b) => a - b);
        const mid = sorted.length >> 1;
        const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
        const kept = stats.filter((s) => median === 0 || s.variance <= 9 * median);
        const df = kept.reduce((s, k) => s + k.df, 0);
        if (df === 0)
            continue;
        pooled.set(key, { variance: kept.reduce((s, k) => s + k.ss, 0) / df, df });
    }
    return pooled;
}

const sessionMean = (point) => point.logs.reduce((s, v) => s + v, 0) / point.logs.length;
function pairsOf(records, metrics) {
    const wanted = new Set(metrics);
    const seen = new Set();
    const pairs = [];
    for (const record of records) {
        const key = `${record.cell}\u0000${record.metric}`;
        if (!wanted.has(record.metric) || seen.has(key))
            continue;
        seen.add(key);
        pairs.push([record.cell, record.metric]);
    }
    return pairs.sort(([a, m], [b, n]) => a.localeCompare(b) || m.localeCompare(n));
}
/**
 * Change points over the last `window` sessions of each gated series. A change point is new when the
 * series without its newest session shows none within 2 sessions of it: that is the session that
 * reports it, so a step is reported once however many sessions later still show it.
 */
function scanChangePoints(records, metrics, options) {
    const found = [];
    const pairs = pairsOf(records, metrics);
    for (const [cell, metric] of pairs) {
        const full = seriesOf(records, cell, metric);
        const means = full.map(sessionMean);
        // Absolute indices into the full series, now and as the previous session saw it.
        const scan = (end) => {
            const start = Math.max(0, end - options.window);
            return detectChangePoints(means.slice(start, end), options.detector).map((cp) => ({
                ...cp,
                index: cp.index + start,
            }));
        };
        const now = scan(means.length);
        const before = scan(means.length - 1).map((cp) => cp.index);
        const higherIsBetter = metricSpecs[metric].higherIsBetter;
        for (const cp of now) {
            found.push({
                cell,
                metric,
                lastBefore: full[cp.index - 1].session,
                firstAfter: full[cp.index].session,
                ratio: cp.ratio,
                ratioLow: cp.ratioLow,
                ratioHigh: cp.ratioHigh,
                worse: higherIsBetter ? cp.ratio < 1 : cp.ratio > 1,
                isNew: !before.some((index) => Math.abs(index - cp.index) <= 2),
                movedWith: [],
                at: sessionPosition(records, cell, full[cp.index].session.id),
            });
        }
    }
    for (const cp of found)
        cp.movedWith = found
            .filter((other) => other !== cp && other.cell === cp.cell && Math.abs(other.at - cp.at) <= 2)
            .map((other) => other.metric);
    return {
        window: options.window,
        series: pairs.length,
        changePoints: found.map(({ at: _at, ...cp }) => cp),
    };
}
/** A session's position among the sessions of a cell's history, oldest first. */
function sessionPosition(records, cell, id) {
    const sessions = new Map();
    for (const record of records)
        if (record.cell === cell)
            sessions.set(record.session.id, record.session);
    return [...sessions.values()]
        .sort((a, b) => a.recordedAt.localeCompare(b.recordedAt) || a.runId - b.runId)
        .findIndex((session) => session.id === id);
}
/**
 * "Main already regressed": for each metric the verdict calls a regression, main's sessions recorded
 * after the stored baseline's session (found in the history by its commit) are compared with the
 * sessions up to it (pooled t on session means, at `confidence`). When main's latest level is worse
 * than the baseline by more than the metric's tolerance, significantly, and the pull request is not
 * worse than main's latest level by more than the tolerance, the regression is main's: it arrived
 * between the commits named (the change point after the baseline, when the detector finds one).
 * The stored baseline is not touched: the report says what happened and where.
 */
function mainAlreadyRegressed(verdict, records, options = {}) {
    const latestCount = options.latestSessions ?? 5;
    const baselineCount = options.baselineSessions ?? 5;
    const regressions = verdict.comparisons.filter((c) => c.verdict === "regression" && c.ratio !== null);
    const commit = verdict.baselineInfo?.commit;
    const explained = [];
    if (!commit || regressions.length === 0)
        return { explained, onlyReproduces: false };
    for (const comparison of regressions) {
        const series = seriesOf(records, comparison.cell, comparison.metric);
        let at = -1;
        for (let i = series.length - 1; i >= 0; i--)
            if (series[i].session.commit === commit) {
                at = i;
                break;
            }
        if (at < 0 || at === series.length - 1)
            continue;
        const before = series.slice(Math.max(0, at + 1 - baselineCount), at + 1).map(sessionMean);
        const since = series.slice(at + 1);
        const after = since.slice(-latestCount).map(sessionMean);
        const shift = levelShift(before, after, options.confidence ?? 0.95);
        if (!shift)
            continue;
        // Both in the metric's worse direction: > 1 is worse.
        const worse = (ratio) => (comparison.higherIsBetter ? 1 / ratio : ratio);
        const mainWorse = worse(shift.ratio);
        const mainWorseLow = comparison.higherIsBetter ? 1 / shift.ratioHigh : shift.ratioLow;
        const prWorse = worse(comparison.ratio);
        const tolerance = comparison.tolerance;
        if (!(mainWorse > 1 + tolerance && mainWorseLow > 1))
            continue;
        if (prWorse / mainWorse > 1 + tolerance)
            continue;
        const window = series.slice(Math.max(0, at + 1 - baselineCount));
        const steps = detectChangePoints(window.map(sessionMean), options.detector).filter((cp) => cp.index > at - Math.max(0, at + 1 - baselineCount));
        const step = steps[0];
        const offset = Math.max(0, at + 1 - baselineCount);
        explained.push({
            cell: comparison.cell,
            metric: comparison.metric,
            prRatio: comparison.ratio,
            mainRatio: shift.ratio,
            mainLow: shift.ratioLow,
            mainHigh: shift.ratioHigh,
            lastBefore: step ? series[offset + step.index - 1].session : series[at].session,
            firstAfter: step ? series[offset + step.index].session : series.at(-1).session,
            sessionsSince: since.length,
        });
    }
    return { explained, onlyReproduces: explained.length === regressions.length };
}
/** One-sided level of the F test that takes a baseline session's starts to be odd beside the history's other baseline sessions. */
const oddStartLevel = 0.01;
const positiveLog = (value) => typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.log(value) : null;
/**
 * Per `cell\u0000metric`, the start and run levels of main's history (its runs as compare reads them,
 * each with its session and server start; healthy runs only). A session counts when it holds two
 * starts or more and a start with two runs or more (a baseline job records at least two,
 * config/summary.ts baselineRunsPerStart; older sessions had one). Robust to an odd start: with three
 * such sessions or more, a session whose start means spread beyond what the others' levels make likely
 * (one-sided F at 1% against σ_r² + c·σ_s² of the others) is left out and named; a start that is odd
 * only beside its own session's other start cannot be told from it, so the session goes whole.
 */
function historyLevels(runs) {
    const groups = new Map();
    for (const run of runs) {
        if (run.exclusionReasons.length > 0 || !run.session)
            continue;
        for (const [metric, value] of Object.entries(run.metrics)) {
            const log = positiveLog(value);
            if (log === null || metricSpecs[metric]?.judged !== "per-run")
                continue;
            const key = `${run.cell}\u0000${metric}`;
            const sessions = groups.get(key) ?? new Map();
            const sample = sessions.get(run.session) ?? { values: [], starts: [], times: [] };
            sample.values.push(log);
            sample.starts.push(startOf(run));
            if (run.startedAt)
                sample.times.push(run.startedAt);
            sessions.set(run.session, sample);
            groups.set(key, sessions);
        }
    }
    const levels = new Map();
    for (const [key, sessions] of groups) {
        const usable = [...sessions].filter(([, sample]) => {
            const distinct = new Set(sample.starts).size;
            return distinct >= 2 && distinct < sample.starts.length;
        });
        if (usable.length === 0)
            continue;
        const screened = oddSessions(usable);
        const kept = usable.filter(([session]) => !screened.includes(session));
        const estimate = startLevels(kept.map(([, sample]) => sample));
        const measured = estimate.measuredStartVariance;
        if (measured === null)
            continue;
        const run = pooledRunLevel(estimate);
        const times = kept.flatMap(([, sample]) => sample.times).sort();
        levels.set(key, {
            startVariance: measured.variance,
            startDf: measured.df,
            runVariance: run.variance,
            runDf: run.df,
            sessions: kept.length,
            starts: kept.reduce((sum, [, sample]) => sum + new Set(sample.starts).size, 0),
            screenedSessions: screened,
            newest: times.at(-1) ?? null,
            oldest: times[0] ?? null,
        });
    }
    return levels;
}
/** The run level of every sample, pooled by degrees of freedom. */
function pooledRunLevel(levels) {
    const df = levels.sides.reduce((sum, side) => sum + side.runVarianceDf, 0);
    const ss = levels.sides.reduce((sum, side) => sum + side.runVariance * side.runVarianceDf, 0);
    return { variance: df > 0 ? ss / df : 0, df };
}
/** Baseline sessions whose start means spread improbably far beside the levels of the history's other baseline sessions (≥ 3 of them). */
function oddSessions(sessions) {
    if (sessions.length < 3)
        return [];
    return sessions.flatMap(([session, sample], index) => {
        const between = startLevels([sample]).sides[0]?.betweenStarts;
        const others = startLevels(sessions.filter((_, i) => i !== index).map(([, other]) => other));
        if (!between || others.measuredStartVariance === null)
            return [];
        const expected = pooledRunLevel(others).variance + between.coefficient * others.measuredStartVariance.variance;
        if (!(expected > 0))
            return [];
        const p = fSurvival(between.meanSquare / expected, between.df, others.measuredStartVariance.df);
        return p < oddStartLevel ? [session] : [];
    });
}
/**
 * Main's history as compare's start priors (interleaved mode; docs/compare.md, "Server starts"): per
 * cell and metric where it measured the start level, its start variance, degrees of freedom and what it
 * came from ("history: N sessions, M starts").
 */
function historyStartPriors(runs) {
    const priors = new Map();
    for (const [key, level] of historyLevels(runs)) {
        if (level.startDf <= 0)
            continue;
        const odd = level.screenedSessions.length;
        priors.set(key, {
            variance: level.startVariance,
            df: level.startDf,
            source: `history: ${level.sessions} session${level.sessions === 1 ? "" : "s"}, ${level.starts} starts${odd > 0 ? `; ${odd} session${odd === 1 ? "" : "s"} with an odd start left out` : ""}`,
            basis: "history",
            measuredAt: level.newest,
            since: level.oldest,
        });
    }
    return priors;
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

export { optimalRunsPerStart as $, formatIntervalOneLine as A, formatValuePair as B, noBreakSpace as C, nonZeroCounts as D, describeMetricRef as E, escapeValue as F, logRatioOf as G, toleranceMargin as H, studentTQuantile as I, normalCdf as J, normalQuantile as K, historyStartPriors as L, defaultHistoryLimits as M, parseHistory as N, serializeHistory as O, compactHistory as P, newServerStart as Q, specDecodeValue as R, collectOutputs as S, computeGuards as T, UntrustedHistoryError as U, studentTCdf as V, noncentralityForPower as W, relativeChangeOf as X, chiSquareQuantile as Y, startWeightFor as Z, twoLevelWelch as _, historySessions as a, diffFingerprints as a0, describeDifference as a1, binomialCdf as a2, logGamma as a3, pooledDesignEffect as a4, mannWhitney as a5, hodgesLehmann as a6, startOf as a7, guardShareCount as a8, startLevels as a9, maxServerStartIdLength as aa, runGuardsSchema as ab, runOutputSchema as ac, unknownSource as ad, errorRate as ae, assignServerStarts as af, summarizeServerStarts as ag, seriesOf as ah, historyLevels as ai, renderedForms as aj, conditionsHash as b, calibrationHistoryRuns as c, reachedServerStart as d, serverStartIdProblem as e, datetime as f, formatNumber as g, historyRecordsFromRuns as h, runRecordFromRunFile as i, inlineCode as j, escapeInline as k, formatChange as l, mainAlreadyRegressed as m, formatInterval as n, flattenFingerprint as o, pooledRunVariances as p, escapeHtml as q, runsFromHistory as r, scanChangePoints as s, formatFractionAsPercent as t, formatMetricValue as u, escapeCell as v, formatP as w, slowestUsers as x, formatSignedNumber as y, formatDuration as z };
