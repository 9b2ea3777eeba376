import { f as metricNames, h as isGuardMetric, m as metricSpecs, d as describeMetric, j as metricsMeasuredIn, k as latencyMetricName, c as latencyStatistics, b as latencyStatisticSpec, l as latencyPhases } from './metric-names.js';
import { h as isSessionDataset, c as configLimits } from './load.js';
import { a as mulberry32, b as boxMuller } from './random.js';
import { o as fSurvival, p as studentTCdf, s as studentTQuantile, a as normalQuantile, m as binomialCdf, q as logGamma, t as maxServerStartIdLength, f as escapeCell, d as escapeHtml, e as escapeInline } from './server-start.js';
import { L as defaultServerStartSeconds, b as serverStartsPerCell, M as interleavedStepStarts, N as nextLookAfter, q as percentileSorted, j as capacityMaxRuns, p as sortNumbers, F as runFileSchemaVersion, h as runFileSchema, i as runFileInvariantIssues } from './session-metrics.js';
import { t as mannWhitney, u as hodgesLehmann, v as unknownSource, o as specDecodeValue, w as errorRate, x as assignServerStarts, y as summarizeServerStarts, r as runRecordFromRunFile, b as formatChange, j as formatIntervalOneLine, d as formatFractionAsPercent, g as formatP, e as formatMetricValue, k as formatValuePair, c as formatInterval } from './format.js';
import { createHash } from 'node:crypto';
import { stat, readdir, readFile } from 'node:fs/promises';
import { join, basename, dirname } from 'node:path';
import { n as number, e as looseObject, a as array, u as union, l as literal, s as string, f as custom, o as object, b as boolean } from './schemas.js';
import { spawn } from 'node:child_process';
import { mkdirSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { I as InputError, F as FailureError, g as terminateGroup, o as describeDockerCli, d as dockerExec, p as dockerSpawn, k as dockerCliOf } from './version.js';
import { fileURLToPath } from 'node:url';

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
function sideLevels(m, floor, runPrior) {
    const starts = m.groups.length;
    const single = starts === m.n;
    const startWeight = m.groups.reduce((sum, g) => sum + g.n * g.n, 0) / (m.n * m.n);
    // Within starts, N − G df; a side of single-run starts has only its total spread (N − 1 df).
    let df = single ? m.n - 1 : m.n - starts;
    let variance = single ? (m.n > 1 ? m.ssBetween / (m.n - 1) : 0) : m.ssWithin / df;
    if (runPrior && runPrior.df > 0) {
        variance = (df * variance + runPrior.df * runPrior.variance) / (df + runPrior.df);
        df += runPrior.df;
    }
    return {
        runs: m.n,
        starts,
        startWeight,
        runVariance: Math.max(variance, floor),
        runVarianceDf: df,
        singleRunStarts: single,
        floored: variance < floor,
    };
}
/**
 * σ_s² from the start means of both sides (moments): E[SS between] = (G − 1)·σ_r² + c·σ_s² per side.
 * Sides of single-run starts cannot separate the levels and are left out. Null when no side has two
 * starts with a run-level estimate beside them.
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
    return { variance: Math.max(0, numerator / coefficient), df: betweenDf };
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
    const lb = sideLevels(mb, floor, options.baselineVariancePrior);
    const lc = sideLevels(mc, floor);
    const measured = measuredStartVariance([
        { m: mb, levels: lb },
        { m: mc, levels: lc },
    ]);
    const prior = options.startPrior && options.startPrior.df > 0 ? options.startPrior : null;
    // A prior the starts contradict (their variance significantly above it: one-sided F at 10%) is not
    // pooled: the runner got noisier than believed, so the starts' own estimate stands, with its df.
    const contradicted = prior !== null &&
        measured !== null &&
        measured.variance > prior.variance &&
        (prior.variance <= 0 ||
            fSurvival(measured.variance / prior.variance, measured.df, prior.df) < priorContradictionLevel);
    const usedPrior = contradicted ? null : prior;
    const measuredDf = measured?.df ?? 0;
    const priorDf = usedPrior?.df ?? 0;
    const startDf = measuredDf + priorDf;
    const startVariance = startDf > 0
        ? (measuredDf * (measured?.variance ?? 0) + priorDf * (usedPrior?.variance ?? 0)) / startDf
        : 0;
    // A side of single-run starts carries σ_s² inside its total run variance already.
    const startWeightOf = (levels) => (levels.singleRunStarts ? 0 : levels.startWeight);
    const startPart = (startWeightOf(lb) + startWeightOf(lc)) * startVariance;
    const vb = lb.runVariance / lb.runs;
    const vc = lc.runVariance / lc.runs;
    const runPart = vb + vc;
    const extra = options.extraVariance ?? 0;
    const variance = startPart + runPart + extra;
    // Satterthwaite over the estimated components; the extra variance is treated as known.
    let denominator = 0;
    if (lb.runVarianceDf > 0)
        denominator += (vb * vb) / lb.runVarianceDf;
    if (lc.runVarianceDf > 0)
        denominator += (vc * vc) / lc.runVarianceDf;
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
        startVariance,
        startVarianceDf: startDf,
        measuredStartVariance: measured,
        priorContradicted: contradicted,
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

/** One-sided p for H0: difference <= margin (large when the data say "not above the margin"). */
function pAbove(result, margin = 0) {
    if (result.standardError === 0)
        return result.difference > margin ? 0 : 1;
    return 1 - studentTCdf((result.difference - margin) / result.standardError, result.df);
}
/** One-sided p for H0: difference >= margin. */
function pBelow(result, margin = 0) {
    if (result.standardError === 0)
        return result.difference < margin ? 0 : 1;
    return studentTCdf((result.difference - margin) / result.standardError, result.df);
}
/** Two-sided (1 − 2·alphaEachSide) interval for the difference. */
function interval(result, alphaEachSide) {
    if (result.standardError === 0)
        return [result.difference, result.difference];
    const q = Number.isFinite(result.df)
        ? studentTQuantile(1 - alphaEachSide, result.df)
        : studentTQuantile(1 - alphaEachSide, Number.POSITIVE_INFINITY);
    return [result.difference - q * result.standardError, result.difference + q * result.standardError];
}

function logRatioTest(baseline, candidate, options) {
    const lb = baseline.map(Math.log);
    const lc = candidate.map(Math.log);
    const floor = (options.minRunSd ?? 0) ** 2;
    const levels = twoLevelWelch({ values: lb, ...(options.starts ? { starts: options.starts.baseline } : {}) }, { values: lc, ...(options.starts ? { starts: options.starts.candidate } : {}) }, {
        extraVariance: options.extraVariance ?? 0,
        varianceFloor: floor,
        ...(options.startPrior ? { startPrior: options.startPrior } : {}),
        ...(options.baselineVariancePrior ? { baselineVariancePrior: options.baselineVariancePrior } : {}),
    });
    const raw = {
        difference: levels.difference,
        standardError: levels.standardError,
        df: levels.df,
        t: levels.t,
    };
    const sign = options.higherIsBetter ? -1 : 1;
    const oriented = { ...raw, difference: sign * raw.difference};
    const margin = Math.log(1 + options.tolerance);
    const [lo, hi] = interval(raw, options.alphaEachSide);
    // The oriented interval is the raw one, mirrored for higher-is-better metrics.
    const [wLo, wHi] = sign > 0 ? [lo, hi] : [-hi, -lo];
    return {
        ratio: Math.exp(raw.difference),
        worse: oriented.difference,
        standardError: raw.standardError,
        df: raw.df,
        pWorse: pAbove(oriented, 0),
        pBetter: pBelow(oriented, 0),
        pBeyondTolerance: pAbove(oriented, margin),
        pBetterBeyondTolerance: pBelow(oriented, -margin),
        pWithinTolerance: pBelow(oriented, margin),
        ratioInterval: [Math.exp(lo), Math.exp(hi)],
        worseInterval: [wLo, wHi],
        baselineVariance: levels.baseline.runVariance,
        candidateVariance: levels.candidate.runVariance,
        floored: levels.baseline.floored || levels.candidate.floored,
        levels,
    };
}
/** One-sided bound of the oriented difference at level `alpha` (lower: worse − t·se; upper: +). */
function worseBound(test, alpha, side) {
    if (test.standardError === 0)
        return test.worse;
    const a = Math.min(0.5, Math.max(alpha, 1e-300));
    const q = studentTQuantile(1 - a, test.df);
    return side === "lower" ? test.worse - q * test.standardError : test.worse + q * test.standardError;
}
/**
 * regression = significantly worse than the tolerance (the lower bound is beyond it); improvement =
 * the mirror; within tolerance = the upper bound is inside the tolerance; otherwise inconclusive.
 */
function classify(input) {
    if (input.pBeyondToleranceAdjusted <= input.alpha)
        return "regression";
    if (input.pBetterBeyondToleranceAdjusted <= input.alpha)
        return "improvement";
    if (input.pWithinTolerance <= (input.passAlpha ?? input.alpha))
        return "within-tolerance";
    return "inconclusive";
}
/** Power the run plan is sized for at gate.detect_change (statistics.md §6 target). */
const plannedPower = 0.9;
function standardErrorAt(input) {
    return Math.sqrt(input.baselineVariance / input.baselineRuns +
        input.candidateVariance / input.candidateRuns +
        input.extraVariance +
        startPartAt(input));
}
/** The start level's part of the variance of the difference at these run counts (stats/two-level.ts). */
function startPartAt(input) {
    const start = input.start;
    if (!start || start.startVariance <= 0)
        return 0;
    const baselineWeight = start.fixedWeights?.baseline ?? startWeightFor(input.baselineRuns, start.runsPerStart);
    const candidateWeight = start.fixedWeights?.candidate ?? startWeightFor(input.candidateRuns, start.runsPerStart);
    return start.startVariance * (baselineWeight + candidateWeight);
}
/**
 * Minimum detectable effect: the smallest true relative worsening that this run count blocks with
 * probability `power` (0.9) at level `alpha`, for a test against the tolerance margin (normal
 * approximation with the t quantile at the Welch df of the current data).
 */
function minimumDetectableChange(input) {
    const se = standardErrorAt(input);
    const df = input.df ?? Number.POSITIVE_INFINITY;
    const q = studentTQuantile(1 - input.alpha, df) + normalQuantile(input.power ?? plannedPower);
    return Math.exp(Math.log(1 + input.tolerance) + q * se) - 1;
}
/**
 * Could this metric become decisive with the given run counts, if the point estimate and run
 * variances stayed as they are? (The futility check of adaptive repeats and the "runs to settle"
 * estimate.)
 */
function resolvableWithMoreRuns(input) {
    const se = standardErrorAt(input);
    const margin = Math.log(1 + input.tolerance);
    const canPass = input.worse + normalQuantile(1 - input.passAlpha) * se < margin;
    const canBlock = input.worse - normalQuantile(1 - input.regressionAlpha) * se > margin;
    return canPass || canBlock;
}
/**
 * Fewest runs per side (from `from` up to `max`) at which resolvableWithMoreRuns holds, or null when
 * even `max` would not settle it. `interleaved`: both sides grow; otherwise only the candidate.
 */
function runsToSettle(input, current, max, interleaved) {
    for (let runs = Math.max(current.candidate, 2); runs <= max; runs++) {
        const ok = resolvableWithMoreRuns({
            ...input,
            baselineRuns: interleaved ? Math.max(runs, current.baseline) : current.baseline,
            candidateRuns: runs,
        });
        if (ok)
            return runs;
    }
    return null;
}
/**
 * Runs per side (from `from` up to `max`) at which the minimum detectable change reaches `target`
 * (gate.detect_change), or null when `max` runs do not get there (a stored baseline's drift or too
 * wide a run variance). `interleaved`: both sides grow; otherwise the baseline stays as it is.
 */
function runsToDetect(input, current, target, max, interleaved) {
    for (let runs = Math.max(2, current.candidate); runs <= max; runs++) {
        const mde = minimumDetectableChange({
            ...input,
            baselineRuns: interleaved ? Math.max(runs, current.baseline) : current.baseline,
            candidateRuns: runs,
        });
        if (mde <= target)
            return runs;
    }
    return null;
}

/**
 * The largest and smallest of many numbers, in one pass. `Math.max(...values)` passes every value as an
 * argument, and past about a hundred thousand of them (a run's requests, a forged file's fields) the call
 * fails with "Maximum call stack size exceeded"; these take any number.
 */
function largest(values, whenEmpty = Number.NEGATIVE_INFINITY) {
    let result = whenEmpty;
    let first = true;
    for (const value of values) {
        // As Math.max: NaN wins.
        if (first || value > result || Number.isNaN(value))
            result = value;
        first = false;
        if (Number.isNaN(result))
            return result;
    }
    return result;
}
function smallest(values, whenEmpty = Number.POSITIVE_INFINITY) {
    let result = whenEmpty;
    let first = true;
    for (const value of values) {
        if (first || value < result || Number.isNaN(value))
            result = value;
        first = false;
        if (Number.isNaN(result))
            return result;
    }
    return result;
}
/** Appends every item of `items` to `target` without spreading them into one call. */
function appendAll(target, items) {
    for (const item of items)
        target.push(item);
    return target;
}

/**
 * One-sided exact conditional test for "the candidate fails more often": given k failures in total,
 * under H0 (same rate) the candidate's share is Binomial(k, n_c / (n_b + n_c)). Works with zero
 * failures, where a log-scale test cannot.
 */
function errorIncreaseP(baseline, candidate) {
    const k = baseline.failed + candidate.failed;
    if (k === 0 || candidate.total === 0 || baseline.total === 0)
        return 1;
    const share = candidate.total / (baseline.total + candidate.total);
    // P(X >= k_c) = 1 − P(X <= k_c − 1)
    return 1 - binomialCdf(candidate.failed - 1, k, share);
}
/**
 * The smallest p `errorIncreaseP` can attain given its conditioning (the k failures in total): all k
 * on the candidate's side, share^k; 1 without a failure. For the gated family's Tarone refinement.
 */
function errorIncreaseMinP(baseline, candidate) {
    const k = baseline.failed + candidate.failed;
    if (k === 0 || candidate.total === 0 || baseline.total === 0)
        return 1;
    return (candidate.total / (baseline.total + candidate.total)) ** k;
}
function logChoose(n, k) {
    return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}
/**
 * One-sided Fisher exact test of "the candidate's share is higher": given the counted requests of both
 * sides together (k of n_b + n_c), the candidate's count is hypergeometric under H0 (same share), and
 * p = P(X ≥ x_c). Exact for shares of any size (the binomial form of `errorIncreaseP` holds only for
 * rare events). `minP` is the smallest p this conditioning allows (all of k on the candidate's side as
 * far as it can hold them): 1 when the count is forced (no event, or every request counted), so such a
 * test can never reject.
 */
function shareIncreaseP(baseline, candidate) {
    const n = baseline.total + candidate.total;
    const k = baseline.count + candidate.count;
    if (baseline.total === 0 || candidate.total === 0)
        return { p: 1, minP: 1 };
    const low = Math.max(0, k - baseline.total);
    const high = Math.min(k, candidate.total);
    const logDenominator = logChoose(n, candidate.total);
    const term = (x) => Math.exp(logChoose(k, x) + logChoose(n - k, candidate.total - x) - logDenominator);
    // P(X >= from), summed from the nearer end (the lower tail's complement below the mean).
    const tail = (from) => {
        let sum = 0;
        if (from > (k * candidate.total) / n) {
            for (let x = high; x >= from; x--)
                sum += term(x);
            return Math.min(1, sum);
        }
        for (let x = low; x < from; x++)
            sum += term(x);
        return Math.min(1, Math.max(0, 1 - sum));
    };
    const x = Math.max(low, Math.min(high, candidate.count));
    return { p: x <= low ? 1 : tail(x), minP: high <= low ? 1 : tail(high) };
}

/** The server start a run was measured on; a run that says none is its own start. */
function startOf(run) {
    return run.serverStart?.id ?? `run:${run.source}:${run.run ?? ""}`;
}
/**
 * Stage 3: the per-metric drafts of one compared cell: the test on per-run logs (or the pooled error
 * count), a stand-in percentile for one the inputs lack, and the reasons a check is forced. Metrics absent
 * from every input and not gated get no draft.
 */
function draftsForCell(compared, settings, warnings) {
    const { base, cand } = compared;
    const runs = [...base, ...cand];
    const drafts = [];
    for (const metric of metricNames) {
        // The guards are a family of their own (guards.ts), never traded against speed.
        if (isGuardMetric(metric))
            continue;
        // The floor counts the requests the metric's value summarises (a depth bucket's, not the run's).
        const fewestCompleted = smallest(runs.map((run) => Math.min(run.requests.completed, run.metricRequests?.[metric] ?? Number.POSITIVE_INFINITY)));
        const draft = metricDraft(compared, metric, fewestCompleted, settings, warnings);
        if (draft !== null)
            drafts.push(draft);
    }
    return drafts;
}
function metricDraft({ cell, base, cand, tooFew }, metric, fewestCompleted, { gate, gatedSet: configured, passAlpha, driftVarianceFor, advisoryCells, baselineVariancePriorFor, startPriorFor, }, warnings) {
    const gatedSet = advisoryCells?.has(cell) ? new Set() : configured;
    const higher = metricSpecs[metric].higherIsBetter;
    const tolerance = toleranceFor(gate, metric);
    const runs = { baseline: base.length, candidate: cand.length };
    if (metricSpecs[metric].judged === "pooled-failures") {
        return pooledCountDraft(cell, metric, base, cand, gatedSet.has(metric), tolerance, gate.error_rate_limit);
    }
    let b = metricValues(base, metric);
    let c = metricValues(cand, metric);
    const draft = {
        cell,
        metric,
        gated: gatedSet.has(metric),
        higherIsBetter: higher,
        tolerance,
        baseline: null,
        candidate: null,
        ratio: null,
        ci: null,
        worse: null,
        pWorse: null,
        pBetter: null,
        pWithinTolerance: null,
        pBeyond: null,
        pBetterBeyond: null,
        test: null,
        judgedOn: null,
        forced: null,
        unfixable: null,
        notes: [],
        runs,
        crossCheck: null,
        variances: null,
        noise: null,
    };
    const absent = (v) => v.values.length === 0 && v.nonPositive === 0;
    let statistic = metricSpecs[metric].minRequests;
    if (absent(b) && absent(c)) {
        // Absent from every input: vLLM's `--metric-percentiles` defaults to 99, so p95 is often missing.
        if (!draft.gated)
            return null;
        // A session metric is measured by a session dataset's cells only, a fan-out metric by those with
        // fan-outs (docs/workloads.md): a cell without that part has none to gate, which is no gap in its inputs.
        const part = metricSpecs[metric].measuredIn;
        if (part !== undefined && withoutPart(base, part) && withoutPart(cand, part))
            return null;
        // Nor is acceptance a gap where neither side's server speculates (docs/metrics.md).
        if (metricSpecs[metric].source.kind === "spec-decode")
            return null;
        const substitute = judgeOnStandIn(draft, base, cand, warnings);
        if (substitute === null)
            return draft;
        b = metricValues(base, substitute);
        c = metricValues(cand, substitute);
        statistic = metricSpecs[substitute].minRequests;
    }
    if (draft.gated && statistic !== null && fewestCompleted < gate.min_requests[statistic]) {
        // A few short runs (failed requests in a run planned near the floor) are left out of this check
        // rather than turning it advisory, which would let a regression pass unblocked.
        const floor = gate.min_requests[statistic];
        const enough = (run) => Math.min(run.requests.completed, run.metricRequests?.[metric] ?? Number.POSITIVE_INFINITY) >= floor;
        const keptBase = base.filter(enough);
        const keptCand = cand.filter(enough);
        const most = (kept, all) => kept.length >= Math.max(2, all.length / 2);
        if (draft.judgedOn === null && most(keptBase, base) && most(keptCand, cand)) {
            const left = base.length - keptBase.length + cand.length - keptCand.length;
            b = metricValues(keptBase, metric);
            c = metricValues(keptCand, metric);
            draft.runs = { baseline: keptBase.length, candidate: keptCand.length };
            draft.notes.push(`${left} run${left === 1 ? "" : "s"} with fewer than ${floor} successful requests left out of this check (gate.min_requests.${statistic})`);
            fewestCompleted = floor;
        }
    }
    draft.baseline = b.values.length > 0 ? geometricMean(b.values) : null;
    draft.candidate = c.values.length > 0 ? geometricMean(c.values) : null;
    if (draft.gated && statistic !== null && fewestCompleted < gate.min_requests[statistic]) {
        const why = `gating ${statistic} needs >= ${gate.min_requests[statistic]} successful requests in every run (fewest: ${fewestCompleted})`;
        if (draft.judgedOn !== null) {
            // A stand-in for a gated metric must not turn into an advisory one: that would let it pass.
            draft.forced = "inconclusive";
            draft.unfixable = `${describeMetric(metric)} is missing and its stand-in cannot be gated: ${why}`;
            draft.notes.push(why);
            return draft;
        }
        draft.gated = false;
        draft.notes.push(`advisory: ${why}`);
    }
    if (b.missing + c.missing + b.nonPositive + c.nonPositive > 0) {
        draft.forced = "inconclusive";
        const note = `missing or zero in ${b.missing + b.nonPositive} baseline and ${c.missing + c.nonPositive} candidate runs`;
        draft.notes.push(note);
        // Those runs stay in the sample, so more runs cannot fill the gap.
        draft.unfixable = `${describeMetric(metric)} is ${note} of cell "${cell}"`;
        return draft;
    }
    if (tooFew) {
        draft.forced = "inconclusive";
        draft.ratio = draft.candidate / draft.baseline;
        draft.notes.push("fewer than 2 usable runs on a side");
        return draft;
    }
    const judged = draft.judgedOn ?? metric;
    testOnRunLogs(draft, b, c, {
        extraVariance: driftVarianceFor(metric),
        minRunSd: gate.min_run_sd,
        passAlpha,
        baselineVariancePrior: baselineVariancePriorFor?.(cell, judged),
        startPrior: startPriorFor?.(cell, judged),
    });
    return draft;
}
/**
 * A gated metric in none of the inputs: the nearest percentile every run has stands in for it (noted and
 * warned), or the check is forced inconclusive, for good, when there is none. Returns the stand-in.
 */
function judgeOnStandIn(draft, base, cand, warnings) {
    const { cell, metric } = draft;
    const substitute = fallbackPercentile(metric, base, cand);
    const flag = "add --metric-percentiles 95,99 (or --save-detailed) to vllm bench serve";
    if (substitute === null) {
        draft.forced = "inconclusive";
        draft.unfixable = `${describeMetric(metric)} is in none of the inputs; ${flag}`;
        draft.notes.push(`not in the inputs; ${flag}`);
        warnings.push(`${describeMetric(metric)} is gated but not in the inputs of cell "${cell}", so the cell cannot pass: ${flag}`);
        return null;
    }
    draft.judgedOn = substitute;
    draft.notes.push(`judged on ${describeMetric(substitute)}: the inputs have no ${describeMetric(metric)}; ${flag}`);
    warnings.push(`${describeMetric(metric)} is not in the inputs of cell "${cell}"; it was judged on ${describeMetric(substitute)} instead (${flag})`);
    return substitute;
}
/** The test on per-run logs (both levels: runs and server starts), with the rank tests as a cross-check from 5 runs a side: fills the draft. */
function testOnRunLogs(draft, baseline, candidate, options) {
    const { extraVariance, minRunSd, passAlpha, baselineVariancePrior, startPrior } = options;
    const test = logRatioTest(baseline.values, candidate.values, {
        higherIsBetter: draft.higherIsBetter,
        tolerance: draft.tolerance,
        alphaEachSide: passAlpha,
        extraVariance,
        minRunSd,
        starts: { baseline: baseline.starts, candidate: candidate.starts },
        ...(baselineVariancePrior ? { baselineVariancePrior } : {}),
        ...(startPrior ? { startPrior } : {}),
    });
    draft.test = test;
    draft.ratio = test.ratio;
    draft.ci = test.ratioInterval;
    draft.worse = test.worse;
    draft.pWorse = test.pWorse;
    draft.pBetter = test.pBetter;
    draft.pBeyond = test.pBeyondTolerance;
    draft.pBetterBeyond = test.pBetterBeyondTolerance;
    draft.pWithinTolerance = test.pWithinTolerance;
    if (test.floored)
        draft.notes.push(`runs nearly identical: run-to-run sd floored at ${minRunSd} (gate.min_run_sd)`);
    const levels = test.levels;
    const sharedStarts = !levels.baseline.singleRunStarts || !levels.candidate.singleRunStarts;
    draft.variances = {
        baseline: test.baselineVariance,
        candidate: test.candidateVariance,
        extra: extraVariance,
        start: sharedStarts ? levels.startVariance : 0,
        startWeights: {
            baseline: levels.baseline.singleRunStarts ? 0 : levels.baseline.startWeight,
            candidate: levels.candidate.singleRunStarts ? 0 : levels.candidate.startWeight,
        },
    };
    draft.noise = noiseLevels(levels, sharedStarts, startPrior);
    if (baseline.values.length >= 5 && candidate.values.length >= 5) {
        const mwu = mannWhitney(candidate.values, baseline.values);
        const hl = hodgesLehmann(baseline.values.map(Math.log), candidate.values.map(Math.log));
        draft.crossCheck = {
            mannWhitneyP: draft.higherIsBetter ? mwu.pLess : mwu.pGreater,
            hodgesLehmannRatio: Math.exp(hl.shift),
        };
    }
}
/**
 * The start level of a draft's projections (stats/metric-test.ts StartProjection): future runs in starts
 * of `runsPerStart`; a stored baseline keeps its measured share; `current`: both sides as measured.
 */
function startProjectionOf(draft, runsPerStart, how) {
    const v = draft.variances;
    if (!v || v.start <= 0)
        return undefined;
    const fixedWeights = how === "current"
        ? { baseline: v.startWeights.baseline, candidate: v.startWeights.candidate }
        : how === "stored"
            ? { baseline: v.startWeights.baseline }
            : undefined;
    return { startVariance: v.start, runsPerStart, ...(fixedWeights ? { fixedWeights } : {}) };
}
function noiseLevels(levels, sharedStarts, prior) {
    const measured = levels.measuredStartVariance !== null;
    const withPrior = prior !== undefined && prior.df > 0 && !levels.priorContradicted;
    const basis = !sharedStarts
        ? "fresh"
        : measured && withPrior
            ? "measured+prior"
            : measured
                ? "measured"
                : withPrior
                    ? "prior"
                    : "none";
    const total = levels.standardError ** 2;
    return {
        starts: { baseline: levels.baseline.starts, candidate: levels.candidate.starts },
        startSd: sharedStarts ? Math.sqrt(levels.startVariance) : 0,
        startDf: sharedStarts ? levels.startVarianceDf : 0,
        startBasis: basis,
        priorSource: sharedStarts && withPrior ? prior.source : null,
        ...(levels.priorContradicted ? { priorContradicted: true } : {}),
        runSd: {
            baseline: Math.sqrt(levels.baseline.runVariance),
            candidate: Math.sqrt(levels.candidate.runVariance),
        },
        startShare: total > 0 ? levels.startPart / total : 0,
    };
}
function toleranceFor(gate, metric) {
    return gate.metric_tolerance[metric] ?? gate.tolerance;
}
function geometricMean(values) {
    let sum = 0;
    for (const v of values)
        sum += Math.log(v);
    return Math.exp(sum / values.length);
}
/**
 * Runs without that part (a cell of single requests or vLLM's results have no sessions; sessions without
 * fan_out no fan-outs): every metric of the part is missing.
 */
function withoutPart(runs, part) {
    const names = metricsMeasuredIn(part);
    return runs.every((run) => names.every((name) => run.metrics[name] == null));
}
function metricValues(runs, metric) {
    const values = [];
    const starts = [];
    let missing = 0;
    let nonPositive = 0;
    for (const run of runs) {
        const value = run.metrics[metric];
        if (value === undefined || value === null || !Number.isFinite(value))
            missing++;
        else if (value <= 0)
            nonPositive++;
        else {
            values.push(value);
            starts.push(startOf(run));
        }
    }
    return { values, starts, missing, nonPositive };
}
/** A pooled count's draft (error_rate, malformed_tool_call_share); null when neither side has anything to count. */
function pooledCountDraft(cell, metric, base, cand, gated, tolerance, limit) {
    // The pooled count: failed of all requests, or malformed of all tool calls.
    const toolCalls = metricSpecs[metric].source.kind === "malformed-tool-calls";
    const counts = (run) => toolCalls
        ? {
            failed: run.toolCalls?.malformed ?? 0,
            total: (run.toolCalls?.wellFormed ?? 0) + (run.toolCalls?.malformed ?? 0),
        }
        : { failed: run.requests.failed, total: run.requests.total };
    const pool = (runs) => runs.reduce((acc, run) => {
        const count = counts(run);
        return { failed: acc.failed + count.failed, total: acc.total + count.total };
    }, { failed: 0, total: 0 });
    const b = pool(base);
    const c = pool(cand);
    // No tool call on either side: nothing to judge (a workload without tools).
    if (toolCalls && b.total === 0 && c.total === 0 && !gated)
        return null;
    const baseRate = b.total > 0 ? b.failed / b.total : null;
    const candRate = c.total > 0 ? c.failed / c.total : null;
    const pWorse = errorIncreaseP(b, c);
    const pBetter = errorIncreaseP(c, b);
    const draft = {
        cell,
        metric,
        gated,
        higherIsBetter: metricSpecs[metric].higherIsBetter,
        tolerance,
        baseline: baseRate,
        candidate: candRate,
        ratio: baseRate !== null && candRate !== null && baseRate > 0 ? candRate / baseRate : null,
        ci: null,
        // Orientation for the shared rule: beyond tolerance only when the rate rose by more than δ relative.
        worse: baseRate !== null && candRate !== null ? Math.log((candRate + 1e-12) / (baseRate + 1e-12)) : null,
        pWorse,
        pBetter,
        // No estimate of run-to-run spread for a pooled count: "no change" means no significant increase.
        pWithinTolerance: null,
        pBeyond: pWorse,
        pBetterBeyond: pBetter,
        minPBeyond: errorIncreaseMinP(b, c),
        minPBetterBeyond: errorIncreaseMinP(c, b),
        test: null,
        judgedOn: null,
        forced: null,
        unfixable: null,
        notes: [],
        runs: { baseline: base.length, candidate: cand.length },
        crossCheck: null,
        variances: null,
        noise: null,
    };
    if (!toolCalls && candRate !== null && candRate > limit) {
        // A candidate that fails more requests than allowed cannot pass on latency: always blocking.
        draft.gated = true;
        draft.forced = "regression";
        draft.notes.push(`candidate error rate ${(candRate * 100).toFixed(2)}% is above the ${(limit * 100).toFixed(2)}% limit`);
    }
    if (b.total === 0 || c.total === 0) {
        const what = toolCalls ? "tool calls" : "requests";
        draft.forced = "inconclusive";
        draft.notes.push(`no ${what} recorded on a side`);
        if (b.total === 0)
            draft.unfixable = `no baseline ${what} recorded in cell "${cell}"`;
    }
    return draft;
}
/** Nearest percentile of the same phase that every run on both sides has (p95 → p99, then p90). */
const fallbackOrder = {
    p90: ["p95", "p99"],
    p95: ["p99", "p90"],
    p99: ["p99_9", "p95"],
    p99_9: ["p99"],
};
function fallbackPercentile(metric, base, cand) {
    const source = metricSpecs[metric].source;
    if (source.kind !== "latency")
        return null;
    for (const statistic of fallbackOrder[source.statistic] ?? []) {
        const other = latencyMetricName(source.phase, statistic);
        const complete = (runs) => metricValues(runs, other).values.length === runs.length;
        if (complete(base) && complete(cand))
            return other;
    }
    return null;
}

/**
 * The one redaction function. Secrets must never reach a file we keep or upload (logs are artifacts;
 * GitHub's masking covers only the job log), a message or the PR comment. A redactor replaces every
 * known secret value wherever it appears in a text, and also the forms the value takes once encoded
 * (JSON string escapes, URL encoding, and any forms the caller adds, e.g. markdown escaping), so a value
 * that was written escaped is still found. Text from outside is redacted *before* it is escaped.
 */
const redactionMark = "***";
/**
 * Values shorter than this are not searched for in free text: "8000", "true" or "main" would match
 * ordinary output (ports, flags, branch names) and destroy it. Such a value is still never printed by
 * `validate` or recorded in a fingerprint, which show its template; it is only not scrubbed from text
 * (server output, error messages) that happens to contain it. Documented in the README (Secrets).
 */
const minimumSecretLength = 8;
/** What a value looks like as JSON string content and URL-encoded: how files and URLs hold it. */
function builtInForms(value) {
    return [JSON.stringify(value).slice(1, -1), encodeURIComponent(value)];
}
function createRedactor(secrets, options = {}) {
    const known = [...secrets];
    const marks = new Map();
    const distinct = new Set();
    for (const secret of known) {
        if (!secret)
            continue;
        const { value, mark } = typeof secret === "string" ? { value: secret, mark: redactionMark } : secret;
        if (value.length < minimumSecretLength || distinct.has(value))
            continue;
        distinct.add(value);
        for (const form of [value, ...builtInForms(value), ...(options.forms?.(value) ?? [])]) {
            if (!marks.has(form))
                marks.set(form, mark);
        }
    }
    // Longest first, so a secret that contains another (or a form that contains the value) is replaced whole.
    const replacements = [...marks].sort(([a], [b]) => b.length - a.length);
    return {
        secretCount: distinct.size,
        with: (more) => createRedactor([...known, ...more], options),
        redact(text) {
            let result = text;
            for (const [form, mark] of replacements) {
                if (result.includes(form))
                    result = result.split(form).join(mark);
            }
            return result;
        },
    };
}
/** Every string in a JSON-like value redacted (keys too: a record may be keyed by outside text). */
function redactValue(value, redactor) {
    if (redactor.secretCount === 0)
        return value;
    const visit = (node) => {
        if (typeof node === "string")
            return redactor.redact(node);
        if (Array.isArray(node))
            return node.map(visit);
        if (node !== null && typeof node === "object") {
            return Object.fromEntries(Object.entries(node).map(([key, inner]) => [redactor.redact(key), visit(inner)]));
        }
        return node;
    };
    return visit(value);
}
/** Names that look like credentials; their values are redacted whether or not a config reads them. */
const credentialName = /TOKEN|SECRET|PASSWORD|API_KEY|APIKEY|PRIVATE/i;

/**
 * Multiplicity adjustments returning adjusted p-values in input order, so a hypothesis is rejected at
 * level α exactly when its adjusted p <= α.
 */
/** Holm step-down: family-wise error control under any dependence (the blocking family). */
function holmAdjust(pValues) {
    const m = pValues.length;
    const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
    const adjusted = new Array(m).fill(1);
    let running = 0;
    order.forEach(({ p, i }, rank) => {
        running = Math.max(running, Math.min(1, (m - rank) * p));
        adjusted[i] = running;
    });
    return adjusted;
}
/** Benjamini-Hochberg step-up: false-discovery-rate control for the advisory metrics. */
function bhAdjust(pValues) {
    const m = pValues.length;
    const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => b.p - a.p);
    const adjusted = new Array(m).fill(1);
    let running = 1;
    order.forEach(({ p, i }, index) => {
        const rank = m - index;
        running = Math.min(running, Math.min(1, (m * p) / rank));
        adjusted[i] = running;
    });
    return adjusted;
}
/**
 * The graph's adjusted p-values, in input order: hypothesis j is rejected at level α exactly when its
 * adjusted p <= α (Bretz et al. 2009: at each step the open hypothesis with the smallest
 * p / weight is rejected, its adjusted p the running maximum of those ratios, then the graph is updated).
 * Holm is the graph with equal weights 1/m and edges 1/(m − 1) between every pair.
 */
function graphAdjust(pValues, graph) {
    const n = pValues.length;
    if (graph.weights.length !== n || graph.transitions.length !== n)
        throw new RangeError(`graphAdjust: ${n} p-values, ${graph.weights.length} weights, ${graph.transitions.length} rows`);
    const weights = Float64Array.from(graph.weights);
    let edges = graph.transitions.map((row) => Float64Array.from(row));
    const open = new Array(n).fill(true);
    const adjusted = new Array(n).fill(1);
    let running = 0;
    for (let step = 0; step < n; step++) {
        let chosen = -1;
        let smallest = Number.POSITIVE_INFINITY;
        for (let i = 0; i < n; i++) {
            if (!open[i] || weights[i] <= 0)
                continue;
            const ratio = pValues[i] / weights[i];
            if (ratio < smallest) {
                smallest = ratio;
                chosen = i;
            }
        }
        // Every open hypothesis left has an adjusted p of 1 (the ratios only grow from here, capped at 1).
        if (chosen < 0 || smallest >= 1)
            break;
        running = Math.max(running, smallest);
        adjusted[chosen] = running;
        open[chosen] = false;
        const j = chosen;
        const from = edges[j];
        const next = edges.map((row) => Float64Array.from(row));
        for (let l = 0; l < n; l++) {
            if (!open[l])
                continue;
            weights[l] += weights[j] * from[l];
            const row = edges[l];
            const loop = row[j] * from[l];
            for (let k = 0; k < n; k++) {
                if (k === l || !open[k])
                    next[l][k] = 0;
                else
                    next[l][k] = loop < 1 ? (row[k] + row[j] * from[k]) / (1 - loop) : 0;
            }
        }
        weights[j] = 0;
        edges = next;
    }
    return adjusted;
}

/** `{ start }` when there is a start level to project, else nothing (exactOptionalPropertyTypes). */
function withStart(start) {
    return start === undefined ? {} : { start };
}
/** The gated drafts that have tests against the tolerance: the speed checks' part of the gated family. */
function familyDrafts(drafts) {
    return drafts.filter((d) => d.gated && d.forced === null && d.pBeyond !== null && d.pBetterBeyond !== null);
}
/** The group key of a family and metric (compare/gated-family.ts groups by it). */
function familyGroupKey(group) {
    return `${group.family}\u0000${group.metric}`;
}
/**
 * The gated family's members of those drafts (compare/gated-family.ts). A check tested on per-run logs
 * of its own metric pools with the other cells of its workload family (`familyOf`); an error rate (a
 * pooled count) and a check judged on a stand-in percentile stay single.
 */
function speedMembers(drafts, familyOf) {
    return drafts.map((d) => ({
        source: "speed",
        regression: { p: d.pBeyond, minP: d.minPBeyond ?? 0 },
        improvement: { p: d.pBetterBeyond, minP: d.minPBetterBeyond ?? 0 },
        ...(d.test !== null && d.judgedOn === null
            ? {
                pool: {
                    group: familyGroupKey({ family: familyOf(d.cell), metric: d.metric }),
                    tolerance: d.tolerance,
                    component: {
                        worse: d.test.worse,
                        standardError: d.test.standardError,
                        df: d.test.df,
                        // The start level is shared by every cell a server start measured (one server per side):
                        // like the drift, it is taken as fully correlated across the family's cells.
                        extraVariance: (d.variances?.extra ?? 0) + Math.max(d.test.levels.startPart, 0),
                    },
                },
            }
            : {}),
    }));
}
/**
 * Stage 4: multiplicity and classification. The gated checks' tests against the tolerance come adjusted
 * from the gated family (Holm together with the capacity and quality checks: `familyAdjusted`);
 * Benjamini-Hochberg over the advisory ones. The tests of any change (pChange, for the mixed-results
 * summary) are Holm-adjusted over the gated speed checks. Each draft is classified on its adjusted
 * p-values, with the interval it was decided on. `familySize` is the number of regression tests in the
 * gated family (the strictest Holm step, for the detectable change).
 */
function decide(drafts, alpha, passAlpha, familySize, familyAdjusted) {
    const gatedCount = familySize;
    const adjusted = new Map();
    for (const gatedFamily of [true, false]) {
        const family = drafts.filter((d) => d.gated === gatedFamily && d.forced === null && d.pBeyond !== null && d.pBetterBeyond !== null);
        const adjust = gatedFamily ? holmAdjust : bhAdjust;
        const beyond = adjust(family.map((d) => d.pBeyond));
        const betterBeyond = adjust(family.map((d) => d.pBetterBeyond));
        const worse = adjust(family.map((d) => d.pWorse));
        const better = adjust(family.map((d) => d.pBetter));
        family.forEach((d, i) => {
            const joined = gatedFamily ? familyAdjusted.get(d) : undefined;
            if (gatedFamily && joined === undefined)
                throw new Error(`internal: gated check ${d.cell}/${d.metric} is missing from the gated family`);
            adjusted.set(d, {
                beyond: joined?.beyond ?? beyond[i],
                betterBeyond: joined?.betterBeyond ?? betterBeyond[i],
                worse: worse[i],
                better: better[i],
            });
        });
    }
    return drafts.map((draft) => {
        const adj = adjusted.get(draft);
        let verdict;
        if (draft.forced !== null)
            verdict = draft.forced;
        else if (metricSpecs[draft.metric].judged === "pooled-failures") {
            // A pooled count has no run-to-run spread: significance against 0 plus the relative tolerance.
            const margin = Math.log(1 + draft.tolerance);
            // Its tests against the tolerance are the tests of any rise / fall (pBeyond = pWorse): a gated
            // one is adjusted in the gated family, an advisory one with the advisory tests of any change.
            const pRise = draft.gated ? adj.beyond : adj.worse;
            const pFall = draft.gated ? adj.betterBeyond : adj.better;
            if (pRise <= alpha && (draft.worse ?? 0) > margin)
                verdict = "regression";
            else if (pFall <= alpha && (draft.worse ?? 0) < -margin)
                verdict = "improvement";
            else
                verdict = "within-tolerance";
        }
        else {
            verdict = classify({
                pBeyondToleranceAdjusted: adj.beyond,
                pBetterBeyondToleranceAdjusted: adj.betterBeyond,
                pWithinTolerance: draft.pWithinTolerance,
                alpha,
                passAlpha,
            });
        }
        const towardsWorse = (draft.worse ?? 0) >= 0;
        let ci = draft.ci;
        let ciLevels = null;
        let detectable = null;
        if (draft.test && adj) {
            ({ ci, ciLevels } = decisionInterval({
                test: draft.test,
                higherIsBetter: draft.higherIsBetter,
                regression: { p: draft.pBeyond, adjusted: adj.beyond },
                improvement: { p: draft.pBetterBeyond, adjusted: adj.betterBeyond },
                improved: verdict === "improvement",
                alpha,
                passAlpha,
            }));
            if (draft.gated && draft.variances)
                detectable = minimumDetectableChange({
                    baselineVariance: draft.variances.baseline,
                    candidateVariance: draft.variances.candidate,
                    baselineRuns: draft.runs.baseline,
                    candidateRuns: draft.runs.candidate,
                    extraVariance: draft.variances.extra,
                    tolerance: draft.tolerance,
                    alpha: alpha / Math.max(1, gatedCount),
                    df: draft.test.df,
                    ...withStart(startProjectionOf(draft, 1, "current")),
                });
        }
        return {
            cell: draft.cell,
            metric: draft.metric,
            judgedOn: draft.judgedOn,
            gated: draft.gated,
            higherIsBetter: draft.higherIsBetter,
            tolerance: draft.tolerance,
            baseline: draft.baseline,
            candidate: draft.candidate,
            ratio: draft.ratio,
            ci,
            ciLevels,
            ci90: draft.ci,
            p: adj ? (towardsWorse ? adj.beyond : adj.betterBeyond) : null,
            pRaw: draft.pBeyond === null ? null : towardsWorse ? draft.pBeyond : draft.pBetterBeyond,
            pChange: adj ? (towardsWorse ? adj.worse : adj.better) : null,
            detectableChange: detectable,
            verdict,
            note: draft.notes.length > 0 ? draft.notes.join("; ") : null,
            runs: draft.runs,
            ...(draft.noise ? { noise: draft.noise } : {}),
            crossCheck: draft.crossCheck,
        };
    });
}
/**
 * The interval a verdict was decided on, in the metric's own direction: the worse-side bound at the level
 * the regression test was passed after the family's adjustment (p·α/p_adj), the better-side bound at the
 * within-tolerance level, or at the improvement test's level when that decided. Regression ⇔ the worse
 * end's bound is beyond the tolerance. Shared by the checks and the family tests.
 */
function decisionInterval(input) {
    const { test, alpha } = input;
    const effective = (p, pAdj) => (pAdj > 0 ? (alpha * p) / pAdj : alpha);
    const lowerLevel = effective(input.regression.p, input.regression.adjusted);
    const upperLevel = input.improved
        ? effective(input.improvement.p, input.improvement.adjusted)
        : input.passAlpha;
    const lower = worseBound(test, lowerLevel, "lower");
    const upper = worseBound(test, upperLevel, "upper");
    // Back to the metric's own direction (higher-is-better metrics mirror).
    return input.higherIsBetter
        ? { ci: [Math.exp(-upper), Math.exp(-lower)], ciLevels: [upperLevel, lowerLevel] }
        : { ci: [Math.exp(lower), Math.exp(upper)], ciLevels: [lowerLevel, upperLevel] };
}

/**
 * The GPU-time cost model, in one place: what a plan will cost (the report's "about N GPU-minutes would
 * settle it", bench/gate.ts) and what a comparison spent (`gpuMinutesSpent`, verdict.json). Every server
 * start costs `startMinutes` (load weights, compile, warm up: a vLLM container's 3 min by default), every
 * run of one cell costs `runMinutes` (the run length; 1 min unless the config gives a duration). How many
 * starts a schedule needs is one rule, `serverStartsPerCell` (config/summary.ts, which `validate` prints
 * from).
 */
const defaultStartMinutes = defaultServerStartSeconds.docker / 60;
const defaultRunMinutes = 1;
/** Cells whose server starts are counted separately: 1 under the per-side lifecycle, else each cell. */
function startedCells(cells, rates) {
    return rates.lifecycle === "per-side" ? Math.min(1, cells) : cells;
}
/** Minutes of one run of a cell from its `size`: duration_s when given, else the default. */
function runMinutesOf(size) {
    return "duration_s" in size && typeof size.duration_s === "number"
        ? size.duration_s / 60
        : defaultRunMinutes;
}
/**
 * GPU-minutes to go from `from` to `to` runs per side in `cells` cells in one more measuring step: the
 * step's runs (both sides when interleaved) and its server starts (interleaved: the blocks of the step,
 * as serverStartsPerCell counts them; stored: one more round).
 */
function addedGpuMinutes(mode, cells, from, to, rates = {}) {
    if (to <= from)
        return 0;
    const runMinutes = rates.runMinutes ?? defaultRunMinutes;
    const startMinutes = rates.startMinutes ?? defaultStartMinutes;
    // A new measuring step: its first block is a new server start even when it continues the last side.
    // Under per-side servers the step's starts serve every cell (counted once), else each cell's own.
    const startsPerCell = mode === "interleaved" ? interleavedStepStarts(from, to, rates.runsPerBlock) : 1;
    const sides = mode === "interleaved" ? 2 : 1;
    return startedCells(cells, rates) * startsPerCell * startMinutes + cells * sides * (to - from) * runMinutes;
}
/** Without a config: the issue's model of a vLLM container, 3 minutes a start, one server per cell. */
const defaultCostModel = { serverStartS: 180, lifecycle: "per-cell" };
/**
 * GPU-minutes this comparison spent: the measured phases of the runs it read (both sides when
 * interleaved; the candidate's only for a stored baseline, measured once in another job) plus the server
 * starts their schedule needed (counted as validate counts them, per cell, from the runs and the looks).
 */
function gpuMinutesSpent(mode, runs, looks, model) {
    const counted = mode === "interleaved" ? [...runs.baseline, ...runs.candidate] : [...runs.candidate];
    let runSeconds = 0;
    let withoutDuration = 0;
    for (const run of counted) {
        if (typeof run.durationS === "number" && Number.isFinite(run.durationS))
            runSeconds += run.durationS;
        else
            withoutDuration++;
    }
    const perCell = new Map();
    for (const run of runs.candidate)
        perCell.set(run.cell, (perCell.get(run.cell) ?? 0) + 1);
    const costMode = mode === "interleaved" ? "interleaved" : "stored";
    let serverStarts = 0;
    // Per side's server (per-side: every cell shares the starts of the side's longest schedule), else per cell.
    const counts = model.lifecycle === "per-side" && perCell.size > 0 ? [Math.max(...perCell.values())] : perCell.values();
    for (const count of counts)
        serverStarts += serverStartsPerCell(costMode, count, looks, model.lifecycle, model.runsPerBlock);
    const startMinutes = (serverStarts * model.serverStartS) / 60;
    return {
        total: runSeconds / 60 + startMinutes,
        runs: runSeconds / 60,
        serverStarts,
        serverStartMinutes: startMinutes,
        serverStartS: model.serverStartS,
        sides: mode === "interleaved" ? "both" : "candidate",
        runsWithoutDuration: withoutDuration,
    };
}
/**
 * Dollars per 1,000 successful requests at a throughput (docs/capacity.md): the hourly price of the
 * server's GPUs (cost.gpu_hourly_usd per GPU x cost.gpus) over the successful requests it completes in
 * an hour, x 1,000. Null without a price or without throughput.
 */
function costPerThousandRequests(gpuHourlyUsd, gpus, successfulPerHour) {
    if (gpuHourlyUsd === undefined || successfulPerHour === null || !(successfulPerHour > 0))
        return null;
    return ((gpuHourlyUsd * gpus) / successfulPerHour) * 1000;
}

/** The gated checks counted by verdict. */
function countGated(comparisons) {
    const gated = comparisons.filter((comparison) => comparison.gated);
    const count = (verdict) => gated.filter((comparison) => comparison.verdict === verdict).length;
    return {
        gated: gated.length,
        regression: count("regression"),
        improvement: count("improvement"),
        withinTolerance: count("within-tolerance"),
        inconclusive: count("inconclusive"),
    };
}
/**
 * Stage 5: the overall verdict. Not comparable (when the gate fails on it) before a regression, a
 * regression before a broken or empty comparison, then inconclusive, else pass.
 */
function overallVerdict(counts, brokenCells, cellCount, notComparable, onNotComparable) {
    if (notComparable > 0 && onNotComparable === "fail")
        return "not-comparable";
    if (counts.regression > 0)
        return "regression";
    if (brokenCells > 0 || cellCount === 0 || counts.gated === 0)
        return "error";
    if (counts.inconclusive > 0)
        return "inconclusive";
    return "pass";
}
/**
 * Runs per side both sides need before an interleaved check may be called undecidable at the
 * tolerance (more runs up to repeats.max projected not to decide it at its current estimate).
 */
const atToleranceMinRuns = 10;
/**
 * The gated checks left inconclusive because their estimate sits on the tolerance: more runs up to
 * repeats.max would not decide them (no stored baseline's drift involved), with their intervals.
 */
function atToleranceChecks(comparisons, resolvable, draftOf) {
    return comparisons
        .filter((c) => c.gated && c.verdict === "inconclusive" && c.ci90 !== null && !resolvable(c))
        .filter((c) => {
        const draft = draftOf(c);
        return draft?.variances && !draft.unfixable && draft.variances.extra === 0;
    })
        .map((c) => ({ cell: c.cell, metric: c.metric, ci: c.ci90, tolerance: c.tolerance }));
}
/** What more runs can and cannot do for each check: its draft, the futility inputs, resolvability. */
function futilityModel(drafts, unfixableCells, levels, mode, maxRuns, runsPerStart = 1) {
    const { alpha, passAlpha, gatedCount } = levels;
    const draftOf = (c) => drafts.find((d) => d.cell === c.cell && d.metric === c.metric);
    const futilityInput = (draft) => ({
        worse: draft.worse,
        tolerance: draft.tolerance,
        baselineVariance: draft.variances.baseline,
        candidateVariance: draft.variances.candidate,
        extraVariance: draft.variances.extra,
        regressionAlpha: alpha / Math.max(1, gatedCount),
        passAlpha,
        ...withStart(startProjectionOf(draft, runsPerStart, mode)),
    });
    const resolvable = (c) => {
        const draft = draftOf(c);
        if (draft?.unfixable || unfixableCells.has(c.cell))
            return false;
        if (!draft?.variances || draft.worse === null)
            return true;
        // A floor that more runs cannot lower (a stored baseline's drift) justifies stopping early. Without
        // one, more runs always narrow the interval, but a check whose estimate sits on the tolerance is
        // not decided by any number of them within repeats.max: once both sides have atToleranceMinRuns
        // runs (few-run variance estimates are too noisy to predict with), it is "at the tolerance".
        const atMax = (worse) => resolvableWithMoreRuns({
            ...futilityInput(draft),
            worse,
            baselineRuns: mode === "interleaved" ? Math.max(maxRuns, draft.runs.baseline) : draft.runs.baseline,
            candidateRuns: Math.max(maxRuns, draft.runs.candidate),
        });
        if (draft.variances.extra > 0)
            return atMax(draft.worse);
        if (Math.min(draft.runs.baseline, draft.runs.candidate) < atToleranceMinRuns)
            return true;
        // Undecidable only if no change within one standard error of the estimate could be decided at
        // repeats.max: both ends of that band sit where the projected interval would still span the
        // tolerance. (The point estimate alone stops too many real changes that read low at 10 runs;
        // the full interval's ends never stop before the maximum, its lower end always passable.)
        const v = draft.variances;
        const current = startProjectionOf(draft, runsPerStart, "current");
        const startPart = current
            ? current.startVariance * (v.startWeights.baseline + v.startWeights.candidate)
            : 0;
        const se = Math.sqrt(v.baseline / draft.runs.baseline + v.candidate / draft.runs.candidate + startPart);
        return atMax(draft.worse - se) || atMax(draft.worse + se);
    };
    return { draftOf, futilityInput, resolvable };
}
function exitCodeFor(verdict, failOn) {
    if (failOn === "never")
        return 0;
    if (verdict === "pass")
        return 0;
    if (verdict === "inconclusive")
        return failOn === "inconclusive" ? 1 : 0;
    return 1;
}
/**
 * The next look, in measured runs per side (screened and excluded runs are replaced, so the usable
 * count reaches the look), never beyond repeats.max measured runs and never for cells that more
 * candidate runs cannot help.
 */
function planNextLook(input) {
    const { verdict, cells, comparisons, looks, mode, maxRuns, resolvable } = input;
    if (verdict !== "inconclusive" && verdict !== "error")
        return null;
    const needy = cells.filter((cell) => !input.unfixableCells.has(cell.name) &&
        ((cell.status !== "compared" && cell.status !== "missing-baseline") ||
            comparisons.some((c) => c.cell === cell.name && c.gated && c.verdict === "inconclusive" && resolvable(c))));
    if (needy.length === 0)
        return null;
    const candidateRuns = Math.min(...needy.map((cell) => cell.candidateRuns));
    const baselineRuns = Math.min(...needy.map((cell) => cell.baselineRuns));
    const measuredCandidate = Math.max(...needy.map((cell) => input.measuredRuns("candidate", cell.name)));
    const measuredBaseline = Math.max(...needy.map((cell) => input.measuredRuns("baseline", cell.name)));
    if (measuredCandidate >= maxRuns)
        return null;
    const undecided = comparisons.filter((c) => c.gated && c.verdict === "inconclusive").length;
    const screened = measuredCandidate - candidateRuns;
    const reason = (undecided > 0
        ? `${undecided} gated check${undecided === 1 ? " is" : "s are"} inconclusive at ${candidateRuns} usable candidate run${candidateRuns === 1 ? "" : "s"}`
        : "too few usable runs") +
        (screened > 0 ? ` (${screened} excluded run${screened === 1 ? "" : "s"} replaced)` : "");
    const next = nextLookAfter(candidateRuns, baselineRuns, looks, mode === "interleaved", reason);
    if (!next)
        return null;
    const add = Math.min(next.addCandidateRuns, maxRuns - measuredCandidate);
    const runsPerSide = measuredCandidate + add;
    const addBaselineRuns = mode === "interleaved" ? Math.max(0, Math.min(maxRuns, runsPerSide) - measuredBaseline) : 0;
    return {
        runsPerSide,
        addCandidateRuns: add,
        addBaselineRuns,
        cells: needy.map((cell) => cell.name),
        reason: next.reason,
        gpuMinutes: addedGpuMinutes(mode, needy.length, measuredCandidate, runsPerSide, input.rates),
    };
}
/** Why no more runs are asked for although the verdict is undecided: the real cause, per check. */
function futilityWarnings(comparisons, cells, maxRuns, resolvable, draftOf, unfixableCells) {
    const warnings = [];
    for (const reason of new Set(unfixableCells.values()))
        warnings.push(`more runs cannot settle this: ${reason}`);
    const stuck = comparisons.filter((c) => c.gated && c.verdict === "inconclusive" && !resolvable(c));
    const fixedReasons = new Set();
    for (const c of stuck) {
        const draft = draftOf(c);
        if (draft?.unfixable && !unfixableCells.has(c.cell))
            fixedReasons.add(draft.unfixable);
    }
    for (const reason of fixedReasons)
        warnings.push(`more runs cannot settle this: ${reason}`);
    // At the tolerance (interleaved, no drift floor): said by the report's at-the-tolerance line instead.
    const byNoise = stuck.filter((c) => {
        const draft = draftOf(c);
        return (draft && !draft.unfixable && !unfixableCells.has(c.cell) && draft.variances && draft.variances.extra > 0);
    });
    const runsLeft = Math.min(...cells.map((c) => c.candidateRuns)) < maxRuns;
    if (byNoise.length > 0 && runsLeft) {
        // Name the larger part of the variance at the maximum: the runs' own spread or the session drift.
        const spread = byNoise.map((c) => {
            const v = draftOf(c).variances;
            return { c, runVar: v.baseline / c.runs.baseline + v.candidate / maxRuns, extra: v.extra, v };
        });
        const driftBound = spread.filter((s) => s.extra >= s.runVar);
        const noiseBound = spread.filter((s) => s.extra < s.runVar);
        const plural = (n) => `${n} inconclusive check${n === 1 ? "" : "s"}`;
        if (driftBound.length > 0)
            warnings.push(`more runs would not settle the ${plural(driftBound.length)}: the stored baseline's session drift does not shrink with runs; compare against a baseline run in the same job (mode interleaved) or widen the tolerance`);
        if (noiseBound.length > 0) {
            const widest = noiseBound.reduce((a, b) => Math.max(b.v.baseline, b.v.candidate) > Math.max(a.v.baseline, a.v.candidate) ? b : a);
            const side = widest.v.baseline >= widest.v.candidate ? "baseline" : "candidate";
            const sd = Math.sqrt(Math.max(widest.v.baseline, widest.v.candidate));
            warnings.push(`more runs would not settle the ${plural(noiseBound.length)}: the runs vary too widely (run-to-run sd ${(sd * 100).toFixed(1)}% on the ${side} side of ${describeMetric(widest.c.metric)} in cell "${widest.c.cell}"; look for an odd run in the table of runs), not the session drift`);
        }
    }
    return warnings;
}
/** How many runs per side and about how many GPU-minutes would settle every inconclusive gated check. */
function settleEstimate(comparisons, draftOf, futilityInput, resolvable, mode, maxRuns, rates, looks) {
    const stuck = comparisons.filter((c) => c.gated && c.verdict === "inconclusive");
    if (stuck.length === 0)
        return null;
    let runsPerSide = 0;
    let from = Number.POSITIVE_INFINITY;
    const cells = new Set();
    for (const c of stuck) {
        const draft = draftOf(c);
        from = Math.min(from, c.runs.candidate);
        // Missing data or a stored baseline that cannot grow: no number of runs settles it.
        if (!resolvable(c))
            return { runsPerSide: null, addRuns: null, gpuMinutes: null, cells: [c.cell] };
        // Too few runs to estimate the spread yet: no estimate for this check.
        if (!draft?.variances || draft.worse === null)
            continue;
        const runs = runsToSettle(futilityInput(draft), c.runs, maxRuns, mode === "interleaved");
        if (runs === null)
            return { runsPerSide: null, addRuns: null, gpuMinutes: null, cells: [c.cell] };
        runsPerSide = Math.max(runsPerSide, runs);
        cells.add(c.cell);
    }
    if (!Number.isFinite(from) || runsPerSide === 0)
        return null;
    // Decisions are taken at looks only: round up to the first look at or above the estimate.
    runsPerSide = Math.max(runsPerSide, from + 1);
    runsPerSide = looks.find((look) => look >= runsPerSide) ?? runsPerSide;
    return {
        runsPerSide,
        addRuns: runsPerSide - from,
        gpuMinutes: addedGpuMinutes(mode, cells.size, from, runsPerSide, rates),
        cells: [...cells],
    };
}
/** The least sensitive gated check: what these runs can catch, and the runs gate.detect_change needs. */
function detectionSummary(comparisons, draftOf, detectChange, alpha, mode, maxRuns, runsPerStart = 1) {
    const checks = comparisons.filter((c) => c.gated && c.detectableChange !== null);
    if (checks.length === 0)
        return null;
    const worst = checks.reduce((a, b) => (b.detectableChange > a.detectableChange ? b : a));
    const draft = draftOf(worst);
    if (!draft?.variances || !draft.test)
        return null;
    const runs = runsToDetect({
        baselineVariance: draft.variances.baseline,
        candidateVariance: draft.variances.candidate,
        extraVariance: draft.variances.extra,
        tolerance: draft.tolerance,
        alpha,
        df: draft.test.df,
        ...withStart(startProjectionOf(draft, runsPerStart, mode)),
    }, worst.runs, detectChange, Math.max(maxRuns, 100), mode === "interleaved");
    return {
        cell: worst.cell,
        metric: worst.metric,
        detectableChange: worst.detectableChange,
        detectChange,
        runsPerSideForDetectChange: runs,
    };
}

/** The parts of the verdict written for people: headline, mixed results, impact at this load. */
/** "1 regressed, 0 improved, ... of 9 gated checks": the counts the headline ends with, in brackets. */
function tallyOf(counts) {
    return `${counts.regression} regressed, ${counts.improvement} improved, ${counts.withinTolerance} within tolerance, ${counts.inconclusive} inconclusive of ${counts.gated} gated checks`;
}
function headlineFor(verdict, counts, comparisons, brokenCells, notComparable) {
    const tally = tallyOf(counts);
    switch (verdict) {
        case "pass":
            return `Pass: no gated metric got worse beyond tolerance (${tally})`;
        case "regression": {
            const worst = comparisons.filter((c) => c.gated && c.verdict === "regression").length;
            return `Regression: ${worst} gated check${worst === 1 ? "" : "s"} got worse beyond tolerance (${tally})`;
        }
        case "inconclusive":
            return `Inconclusive: the runs cannot yet tell a change within tolerance from a regression (${tally})`;
        case "not-comparable":
            return `Not comparable: ${notComparable} condition${notComparable === 1 ? " differs" : "s differ"} between baseline and candidate outside the allowed differences`;
        case "error":
            return brokenCells > 0
                ? `Error: ${brokenCells} cell${brokenCells === 1 ? " has" : "s have"} no usable runs on one side`
                : "Error: nothing could be compared";
    }
}
/** "TTFT p95 across the 6 rag cells +10.2%": a family test's finding in words (docs/compare.md, "Family tests"). */
function familyFindingWords(finding) {
    const change = (finding.ratio - 1) * 100;
    return `${describeMetric(finding.metric)} across the ${finding.cells.length} ${finding.family} cells ${change >= 0 ? "+" : "−"}${Math.abs(change).toFixed(1)}%`;
}
/**
 * The headline when family tests found a regression: said after the single checks' regressions, or in
 * place of the headline when no single check is one (the verdict is a regression because of them).
 */
function withFamilyHeadline(headline, speedVerdict, familyRegressions, counts) {
    if (familyRegressions.length === 0 || speedVerdict === "not-comparable")
        return headline;
    const found = `${familyRegressions.map(familyFindingWords).join("; ")} on average, beyond tolerance`;
    const tally = ` (${tallyOf(counts)})`;
    if (speedVerdict === "regression") {
        const said = headline.endsWith(tally) ? headline.slice(0, -tally.length) : headline;
        return `${said}; ${found}${tally}`;
    }
    return `Regression: ${found}${tally}`;
}
/**
 * A cell is mixed when one phase got better and another worse. At least one side must be a verdict
 * (beyond tolerance); the other may be a significant change within tolerance, as in the FP8 KV-cache
 * case (throughput +2-5%, median TTFT +7-11%).
 */
function mixedResults(comparisons, alpha) {
    const byCell = new Map();
    for (const c of comparisons) {
        if (!metricSpecs[c.metric].mixed || c.ratio === null || c.pChange === null)
            continue;
        const decisive = c.verdict === "improvement" || c.verdict === "regression";
        // Within tolerance but significantly moved (against 0) counts as the other side of a mix.
        if (!decisive && c.pChange > alpha)
            continue;
        const worse = c.higherIsBetter ? c.ratio < 1 : c.ratio > 1;
        const entry = byCell.get(c.cell) ?? { better: [], worse: [], decisive: false };
        (worse ? entry.worse : entry.better).push(c.metric);
        entry.decisive ||= decisive;
        byCell.set(c.cell, entry);
    }
    const perCell = [...byCell.entries()]
        .filter(([, entry]) => entry.decisive && entry.better.length > 0 && entry.worse.length > 0)
        .map(([cell, { better, worse }]) => ({ cell, better, worse }));
    // Across cells: a change that makes long outputs faster and first tokens later shows up as an
    // improvement in one cell and a regression in another; a reader must see both together.
    const decided = (verdict) => comparisons
        .filter((c) => metricSpecs[c.metric].mixed && c.verdict === verdict)
        .map((c) => `${c.cell}/${c.metric}`);
    const better = decided("improvement");
    const worse = decided("regression");
    const coveredByOneCell = perCell.length > 0 && better.every((ref) => perCell.some((m) => ref.startsWith(`${m.cell}/`)));
    if (better.length > 0 && worse.length > 0 && !coveredByOneCell) {
        perCell.push({ cell: acrossCells, better, worse });
    }
    return perCell;
}
/** The `cell` of a mixed entry that spans cells; its metrics are written `cell/metric`. */
const acrossCells = "(across cells)";
/** The comparison behind each figure of verdict.json's `impact`. */
const impactMetrics = {
    successfulPerHour: "request_throughput",
    ttftP95Ms: "ttft_p95",
    e2elP95Ms: "e2el_p95",
};
function impactOf(cells, comparisons) {
    const find = (cell, metric) => {
        const c = comparisons.find((comparison) => comparison.cell === cell && comparison.metric === metric);
        return c && c.baseline !== null && c.candidate !== null
            ? { baseline: c.baseline, candidate: c.candidate }
            : null;
    };
    const withChange = (pair, scale = 1) => pair
        ? {
            baseline: pair.baseline * scale,
            candidate: pair.candidate * scale,
            change: (pair.candidate - pair.baseline) * scale,
        }
        : null;
    return cells
        .filter((cell) => cell.status === "compared" || cell.status === "too-few-runs")
        .map((cell) => ({
        cell: cell.name,
        // request_throughput counts completed (successful) requests per second, as vLLM's does.
        successfulPerHour: withChange(find(cell.name, impactMetrics.successfulPerHour), 3600),
        ttftP95Ms: withChange(find(cell.name, impactMetrics.ttftP95Ms)),
        e2elP95Ms: withChange(find(cell.name, impactMetrics.e2elP95Ms)),
    }));
}

/** The load a run was offered in `dimension` (null when the run does not say). */
function loadOfRecord(dimension, record) {
    const load = record.load;
    if (!load)
        return null;
    return dimension === "concurrency" ? load.targetConcurrency : load.targetRate;
}
function loadCurveOf(cell, dimension, percentile, records) {
    const byLoad = new Map();
    for (const record of records) {
        if (record.cell !== cell || record.exclusionReasons.length > 0)
            continue;
        const load = loadOfRecord(dimension, record);
        if (load === null || !(load > 0))
            continue;
        byLoad.set(load, [...(byLoad.get(load) ?? []), record]);
    }
    return [...byLoad.entries()]
        .sort(([a], [b]) => a - b)
        .map(([load, runs]) => {
        const mean = (metric) => {
            const values = runs
                .map((run) => run.metrics[metric])
                .filter((v) => v !== null && v !== undefined && Number.isFinite(v));
            return values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length;
        };
        return {
            load,
            runs: runs.length,
            completedPerSecond: mean("request_throughput"),
            goodput: mean("request_goodput"),
            outputTokensPerSecond: mean("output_throughput"),
            ttftMs: mean(`ttft_${percentile}`),
            e2elMs: mean(`e2el_${percentile}`),
        };
    });
}

/** Weighted pool-adjacent-violators: the nondecreasing fit of `values` (in order) with `weights`. */
function isotonicFit(values, weights) {
    const blocks = [];
    values.forEach((value, index) => {
        blocks.push({ mean: value, weight: weights[index], count: 1 });
        while (blocks.length > 1 && blocks[blocks.length - 2].mean > blocks[blocks.length - 1].mean) {
            const last = blocks.pop();
            const previous = blocks[blocks.length - 1];
            const weight = previous.weight + last.weight;
            previous.mean = (previous.mean * previous.weight + last.mean * last.weight) / weight;
            previous.weight = weight;
            previous.count += last.count;
        }
    });
    return blocks.flatMap((block) => new Array(block.count).fill(block.mean));
}
const tinyValue = 1e-9;
function transform(value, scale) {
    return scale === "log" ? Math.log(Math.max(value, tinyValue)) : value;
}
function group(runs, objectives) {
    const byLoad = new Map();
    for (const run of runs) {
        if (!(run.load > 0) || !Number.isFinite(run.load))
            continue;
        const list = byLoad.get(run.load) ?? [];
        list.push(run);
        byLoad.set(run.load, list);
    }
    const loads = [...byLoad.keys()].sort((a, b) => a - b);
    const values = loads.map((load) => objectives.map((objective, k) => byLoad.get(load).flatMap((run) => {
        const value = run.values[k];
        return value === null || value === undefined || !Number.isFinite(value)
            ? []
            : [transform(value, objective.scale)];
    })));
    return { loads, values, counts: loads.map((load) => byLoad.get(load).length) };
}
const mean = (values) => values.reduce((sum, v) => sum + v, 0) / values.length;
/** The crossing of one objective from its fitted values at the loads (those without values skipped). */
function crossingOf(loads, fitted, threshold, name) {
    const points = loads.flatMap((load, i) => (fitted[i] === null ? [] : [{ load, value: fitted[i] }]));
    if (points.length === 0)
        return { name, crossing: loads[0] ?? 0, bound: "below" };
    if (points[0].value > threshold)
        return { name, crossing: points[0].load, bound: "below" };
    const last = points[points.length - 1];
    if (last.value <= threshold)
        return { name, crossing: last.load, bound: "above" };
    let j = 0;
    while (points[j + 1].value <= threshold)
        j++;
    const a = points[j];
    const b = points[j + 1];
    const share = (threshold - a.value) / (b.value - a.value);
    return { name, crossing: a.load + share * (b.load - a.load), bound: "inside" };
}
/** Fitted transformed values per objective at each load (null where no run has a value). */
function fitAll(grouped, objectiveCount) {
    return Array.from({ length: objectiveCount }, (_, k) => {
        const present = grouped.loads.flatMap((_, i) => grouped.values[i][k].length > 0
            ? [{ i, mean: mean(grouped.values[i][k]), w: grouped.values[i][k].length }]
            : []);
        const fit = isotonicFit(present.map((p) => p.mean), present.map((p) => p.w));
        const out = grouped.loads.map(() => null);
        present.forEach((p, index) => {
            out[p.i] = fit[index];
        });
        return out;
    });
}
/** Half-width on ln(load) of the runs a crossing's local line is fitted to: loads within a factor 1.15. */
const localWindow = Math.log(1.15);
/**
 * The local line of objective k around `center` (its isotonic crossing), or null where the runs cannot
 * carry one: fewer than 3 distinct loads or 4 runs within the window, no load on one side of the center,
 * a slope that is not positive, or a crossing outside the window (the step fit's crossing stands then).
 */
function localLine(grouped, k, center, threshold) {
    const xs = [];
    const ys = [];
    let loads = 0;
    let below = false;
    let above = false;
    grouped.loads.forEach((load, i) => {
        const x = Math.log(load / center);
        const values = grouped.values[i][k];
        if (Math.abs(x) > localWindow || values.length === 0)
            return;
        loads++;
        below ||= x < 0;
        above ||= x > 0;
        for (const value of values) {
            xs.push(x);
            ys.push(value);
        }
    });
    if (loads < 3 || xs.length < 4 || !below || !above)
        return null;
    const mx = mean(xs);
    const my = mean(ys);
    let sxx = 0;
    let sxy = 0;
    xs.forEach((x, i) => {
        sxx += (x - mx) ** 2;
        sxy += (x - mx) * (ys[i] - my);
    });
    const b = sxy / sxx;
    if (!(b > 0))
        return null;
    const a = my - b * mx;
    const x = (threshold - a) / b;
    if (Math.abs(x) > localWindow)
        return null;
    const ssr = xs.reduce((sum, xi, i) => sum + (ys[i] - a - b * xi) ** 2, 0);
    const df = xs.length - 2;
    return { center, a, b, sd: Math.sqrt(ssr / df), df, crossing: center * Math.exp(x) };
}
function fitCurves(grouped, objectives) {
    const fitted = fitAll(grouped, objectives.length);
    const lines = objectives.map(() => null);
    const crossings = objectives.map((objective, k) => {
        const threshold = transform(objective.threshold, objective.scale);
        const crossing = crossingOf(grouped.loads, fitted[k], threshold, objective.name);
        if (crossing.bound !== "inside")
            return crossing;
        lines[k] = localLine(grouped, k, crossing.crossing, threshold);
        return lines[k] ? { ...crossing, crossing: lines[k].crossing } : crossing;
    });
    return { fitted, lines, estimate: estimateFromCrossings(grouped, crossings) };
}
function estimateFromCrossings(grouped, crossings) {
    const loads = grouped.loads.map((load, i) => ({ load, runs: grouped.counts[i] }));
    const below = crossings.find((c) => c.bound === "below");
    if (below)
        return {
            capacity: below.crossing,
            bound: "below",
            limiting: below.name,
            objectives: crossings,
            bracket: null,
            loads,
        };
    const inside = crossings.filter((c) => c.bound === "inside");
    if (inside.length === 0) {
        const top = grouped.loads[grouped.loads.length - 1];
        return { capacity: top, bound: "above", limiting: null, objectives: crossings, bracket: null, loads };
    }
    const limiting = inside.reduce((low, c) => (c.crossing < low.crossing ? c : low));
    const passing = grouped.loads.filter((load) => load <= limiting.crossing);
    const failing = grouped.loads.filter((load) => load > limiting.crossing);
    const bracket = passing.length > 0 && failing.length > 0 ? [passing[passing.length - 1], failing[0]] : null;
    return {
        capacity: limiting.crossing,
        bound: "inside",
        limiting: limiting.name,
        objectives: crossings,
        bracket,
        loads,
    };
}
/**
 * The capacity estimate from all runs. Throws on no runs; a capacity "below" means no load measured met
 * every objective, "above" that all did (the capacity is then at least the highest load).
 */
function estimateCapacity(runs, objectives) {
    const grouped = group(runs, objectives);
    if (grouped.loads.length === 0)
        throw new Error("estimateCapacity: no runs with a positive load");
    return fitCurves(grouped, objectives).estimate;
}
const defaultResamples = 1000;
/**
 * The bootstrap interval of the capacity, or null when no objective's run-to-run noise can be estimated
 * (no local line and no load measured twice). Per objective the noise sd is the residual sd of its local
 * line where one was fitted (the noise near the crossing, which grows with the load), else the pure error
 * of the replicated loads (deviations from their load's mean, sqrt(SS / df)); either is widened by t(df)/z
 * at the interval's level. Each draw adds normal noise of that sd to every run's value on the fitted curve
 * (the line within its window, the isotonic fit elsewhere), refits and crosses again.
 */
function capacityInterval(runs, objectives, options) {
    const grouped = group(runs, objectives);
    if (grouped.loads.length === 0)
        return null;
    const { fitted, lines } = fitCurves(grouped, objectives);
    const tail = (1 - options.level) / 2;
    // A t(df)/z widening, so a noise estimate from few runs gives a wider interval, never a falsely tight one.
    const widen = (df) => studentTQuantile(1 - tail, df) / normalQuantile(1 - tail);
    const sds = objectives.map((_, k) => {
        const line = lines[k];
        if (line)
            return line.sd * widen(line.df);
        let ss = 0;
        let df = 0;
        grouped.loads.forEach((_, i) => {
            const values = grouped.values[i][k];
            if (values.length < 2)
                return;
            const m = mean(values);
            for (const v of values)
                ss += (v - m) ** 2;
            df += values.length - 1;
        });
        return df === 0 ? null : Math.sqrt(ss / df) * widen(df);
    });
    if (sds.every((sd) => sd === null))
        return null;
    // The curve the draws are made about: the local line within its window, the isotonic fit elsewhere.
    const model = grouped.loads.map((load, i) => objectives.map((_, k) => {
        const line = lines[k];
        const x = line ? Math.log(load / line.center) : Number.POSITIVE_INFINITY;
        return line && Math.abs(x) <= localWindow ? line.a + line.b * x : fitted[k][i];
    }));
    const random = mulberry32(options.seed ?? 1);
    const resamples = options.resamples ?? defaultResamples;
    const draws = [];
    let censored = 0;
    for (let b = 0; b < resamples; b++) {
        const values = grouped.loads.map((_, i) => objectives.map((_, k) => {
            const count = grouped.values[i][k].length;
            const out = [];
            for (let r = 0; r < count; r++)
                out.push(model[i][k] + (sds[k] ?? 0) * boxMuller(random(), random()));
            return out;
        }));
        const { estimate } = fitCurves({ loads: grouped.loads, values, counts: grouped.counts }, objectives);
        if (estimate.bound !== "inside")
            censored++;
        draws.push(estimate.capacity);
    }
    const sorted = [...draws].sort((a, b) => a - b);
    return {
        low: percentileSorted(sorted, tail),
        high: percentileSorted(sorted, 1 - tail),
        level: options.level,
        draws,
        censored: censored / resamples,
    };
}
/**
 * Interpolation of per-load means of `values` at `load` (clamped to the loads measured): linear, or on ln
 * for a log-scale value (latencies, as the crossing is found), so a latency read at the capacity is its SLO.
 */
function valueAtLoad(points, load, scale = "linear") {
    const byLoad = new Map();
    for (const point of points) {
        if (point.value === null || !Number.isFinite(point.value))
            continue;
        byLoad.set(point.load, [...(byLoad.get(point.load) ?? []), point.value]);
    }
    const loads = [...byLoad.keys()].sort((a, b) => a - b);
    if (loads.length === 0)
        return null;
    const at = (x) => transform(mean(byLoad.get(x)), scale);
    const back = (y) => (scale === "log" ? Math.exp(y) : y);
    if (load <= loads[0])
        return back(at(loads[0]));
    if (load >= loads[loads.length - 1])
        return back(at(loads[loads.length - 1]));
    let j = 0;
    while (loads[j + 1] < load)
        j++;
    const a = loads[j];
    const b = loads[j + 1];
    return back(at(a) + ((load - a) / (b - a)) * (at(b) - at(a)));
}
/**
 * The capacity ratio candidate/baseline and its bootstrap p-values: draw b of each side paired by index
 * (independent seeds per side), w* = ln(base*) - ln(cand*). p of H0 "w <= d" is the share of w* <= d
 * (the level at which the percentile interval's lower bound would pass d), and likewise for the others.
 */
function capacityRatio(baseline, candidate, tolerance, level) {
    const n = Math.min(baseline.draws.length, candidate.draws.length);
    if (n === 0)
        throw new Error("capacityRatio: no bootstrap draws");
    const worse = [];
    for (let i = 0; i < n; i++)
        worse.push(Math.log(baseline.draws[i]) - Math.log(candidate.draws[i]));
    worse.sort((a, b) => a - b);
    const d = Math.log(1 + tolerance);
    const share = (test) => (worse.filter(test).length + 1) / (n + 1);
    const tail = (1 - level) / 2;
    return {
        ratio: candidate.capacity / baseline.capacity,
        ci: [Math.exp(-percentileSorted(worse, 1 - tail)), Math.exp(-percentileSorted(worse, tail))],
        level,
        pBeyond: share((w) => w <= d),
        pBetterBeyond: share((w) => w >= -d),
        pWithinTolerance: share((w) => w >= d),
        pWorse: share((w) => w <= 0),
        pBetter: share((w) => w >= 0),
    };
}

function capacityCells(config) {
    return config.cells.filter((cell) => cell.capacity !== undefined);
}
/** The cell's SLOs at its percentile, plus the error-rate limit, as objectives on catalogue metrics. */
function capacityObjectivesOf(cell) {
    const p = cell.capacity.percentile;
    const slo = cell.slo ?? {};
    const objectives = [];
    if (slo.ttft_ms !== undefined)
        objectives.push({ name: `ttft_${p}`, metric: `ttft_${p}`, threshold: slo.ttft_ms, scale: "log" });
    if (slo.tpot_ms !== undefined)
        objectives.push({ name: `tpot_${p}`, metric: `tpot_${p}`, threshold: slo.tpot_ms, scale: "log" });
    if (slo.e2el_ms !== undefined)
        objectives.push({ name: `e2el_${p}`, metric: `e2el_${p}`, threshold: slo.e2el_ms, scale: "log" });
    objectives.push({
        name: "error_rate",
        metric: "error_rate",
        threshold: cell.capacity.error_rate,
        scale: "linear",
    });
    return objectives;
}
/** The load of a run in the cell's dimension (null when the run does not say). */
function recordLoad(cell, record) {
    const load = record.load;
    if (!load)
        return null;
    return cell.load.type === "concurrency" ? load.targetConcurrency : load.targetRate;
}
/** The cell's usable runs as capacity points; a run without a value for an objective counts as missing it. */
function capacityRunsOf(cell, records) {
    const objectives = capacityObjectivesOf(cell);
    return records.flatMap((record) => {
        if (record.cell !== cell.name || record.exclusionReasons.length > 0)
            return [];
        const load = recordLoad(cell, record);
        if (load === null || !(load > 0))
            return [];
        return [
            {
                load,
                values: objectives.map((objective) => {
                    const value = record.metrics[objective.metric];
                    // A run with no successful request has no latency: it misses every latency SLO, by a factor
                    // of 1,000 (finite, so the noise estimate stays a number; its error rate misses too).
                    return value === null || value === undefined ? objective.threshold * 1000 : value;
                }),
            },
        ];
    });
}
/**
 * The search plan's settings for a capacity cell: at most repeats.max runs per side; with `targetRuns`
 * (a comparison's next look, ./capacity-looks.ts) the search refines on to that many, at most max_runs.
 */
function searchSettingsOf(config, cell, targetRuns) {
    return {
        range: cell.capacity.range,
        initialLoads: cell.capacity.initial_loads,
        precision: cell.capacity.precision,
        maxRuns: targetRuns === undefined
            ? config.repeats.max
            : Math.min(capacityMaxRuns(config.repeats.max, cell), Math.max(config.repeats.max, targetRuns)),
        ...(targetRuns === undefined ? {} : { minRuns: targetRuns }),
        level: intervalLevel(config.gate.confidence),
        seed: 1,
        integer: cell.load.type === "concurrency",
    };
}
/** The two-sided level of the capacity intervals: 1 − 2α with α = 1 − confidence (90% at 0.95). */
function intervalLevel(confidence) {
    return 1 - 2 * (1 - confidence);
}
function sideOf(cell, records, cost, level, seed, resamples) {
    const runs = capacityRunsOf(cell, records);
    const empty = {
        capacity: null,
        bound: null,
        limiting: null,
        interval: null,
        runs: 0,
        loads: 0,
        successfulPerHour: null,
        sessionsPerGpuHour: null,
        outputTokensPerSecondPerGpu: null,
        outputTokensPerSecondPerUser: null,
        ttftAtCapacityMs: null,
        costPer1000: null,
        note: "no usable runs with a load",
    };
    if (runs.length === 0)
        return { side: empty, draws: null, lastMet: null };
    const objectives = capacityObjectivesOf(cell);
    const estimate = estimateCapacity(runs, objectives);
    const interval = capacityInterval(runs, objectives, {
        level,
        seed,
        ...(resamples === undefined ? {} : { resamples }),
    });
    const own = records.filter((record) => record.cell === cell.name && record.exclusionReasons.length === 0 && recordLoad(cell, record) !== null);
    const at = (metric, scale = "linear") => valueAtLoad(own.map((record) => ({ load: recordLoad(cell, record), value: record.metrics[metric] ?? null })), estimate.capacity, scale);
    const meets = estimate.bound !== "below";
    const requestRate = meets ? at("request_throughput") : null;
    const successfulPerHour = requestRate === null ? null : requestRate * 3600;
    const sessionRate = meets && isSessionDataset(cell.dataset) ? at("session_throughput") : null;
    const output = meets ? at("output_throughput") : null;
    const tpot = meets ? at("tpot_p50") : null;
    const notes = [];
    if (estimate.bound === "below")
        notes.push(`no load measured meets the SLOs (${estimate.limiting} is missed at ${estimate.capacity})`);
    if (estimate.bound === "above")
        notes.push(`every load measured meets the SLOs: the capacity is at least ${estimate.capacity}`);
    if (interval === null)
        notes.push("no load was measured twice, so the run-to-run noise and the interval are unknown");
    return {
        side: {
            capacity: estimate.capacity,
            bound: estimate.bound,
            limiting: estimate.limiting,
            interval: interval ? [interval.low, interval.high] : null,
            runs: runs.length,
            loads: estimate.loads.length,
            successfulPerHour,
            sessionsPerGpuHour: sessionRate === null ? null : (sessionRate * 3600) / cost.gpus,
            outputTokensPerSecondPerGpu: output === null ? null : output / cost.gpus,
            outputTokensPerSecondPerUser: tpot === null || !(tpot > 0) ? null : 1000 / tpot,
            ttftAtCapacityMs: meets ? at(`ttft_${cell.capacity.percentile}`, "log") : null,
            costPer1000: costPerThousandRequests(cost.gpu_hourly_usd, cost.gpus, successfulPerHour),
            note: notes.length > 0 ? notes.join("; ") : null,
        },
        draws: interval ? interval.draws : null,
        lastMet: estimate.bracket ? estimate.bracket[0] : null,
    };
}
/** Each capacity cell's sides and ratio test (no multiplicity yet: see capacityMembers, decideCapacity). */
function capacityDrafts(input) {
    const level = intervalLevel(input.gate.confidence);
    return input.cells.map((cell, index) => {
        const baseline = sideOf(cell, input.baseline, input.cost, level, 1000 + index, input.resamples);
        const candidate = sideOf(cell, input.candidate, input.cost, level, 2000 + index, input.resamples);
        const tolerance = input.gate.tolerance;
        const b = baseline.side;
        const c = candidate.side;
        let note = null;
        let test = null;
        if (b.capacity === null || c.capacity === null)
            note = "a side has no usable runs";
        else if (b.bound === "above" && c.bound === "above")
            note =
                "both sides meet the SLOs at every load measured: raise capacity.range.max to compare capacities";
        else if (b.bound === "below" && c.bound === "below")
            note = "neither side meets the SLOs at any load measured: lower capacity.range.min or relax the SLO";
        else if (baseline.draws === null || candidate.draws === null)
            note = "no interval: each side needs a load measured at least twice";
        else
            test = capacityRatio({ capacity: b.capacity, draws: baseline.draws }, { capacity: c.capacity, draws: candidate.draws }, tolerance, level);
        return { cell, baseline, candidate, test, note, tolerance };
    });
}
/**
 * The gated family's members of the capacity drafts, one per draft in order: a gated check with a test
 * brings its two bootstrap p-values against the tolerance (the ratio below 1/(1 + tolerance), above
 * 1 + tolerance); an advisory or untested one brings none.
 */
function capacityMembers(drafts) {
    return drafts.map((draft) => draft.cell.capacity.gated && draft.test !== null
        ? {
            source: "capacity",
            regression: { p: draft.test.pBeyond, minP: 0 },
            improvement: { p: draft.test.pBetterBeyond, minP: 0 },
        }
        : { source: "capacity", regression: null, improvement: null });
}
/**
 * The capacity verdicts from the gated family's adjustment (one entry per draft, from capacityMembers):
 * a gated check decides on its adjusted p-values, an advisory one on its raw ones.
 */
function decideCapacity(input, drafts, adjusted) {
    const alpha = input.alpha ?? 1 - input.gate.confidence;
    const level = intervalLevel(input.gate.confidence);
    return drafts.map((draft, index) => {
        const { cell, test } = draft;
        const member = adjusted[index];
        const pBeyond = test === null ? null : (member.regression ?? test.pBeyond);
        const pBetterBeyond = test === null ? null : (member.improvement ?? test.pBetterBeyond);
        const verdict = test === null
            ? "inconclusive"
            : classify({
                pBeyondToleranceAdjusted: pBeyond,
                pBetterBeyondToleranceAdjusted: pBetterBeyond,
                pWithinTolerance: test.pWithinTolerance,
                alpha,
            });
        const b = draft.baseline.side;
        const c = draft.candidate.side;
        const objectives = capacityObjectivesOf(cell);
        // The stated load is a load measured: the highest at which the baseline met every SLO.
        const stated = draft.baseline.lastMet;
        const valueAt = (records, metric, scale) => stated === null
            ? null
            : valueAtLoad(records
                .filter((r) => r.cell === cell.name && r.exclusionReasons.length === 0 && recordLoad(cell, r) !== null)
                .map((r) => ({ load: recordLoad(cell, r), value: r.metrics[metric] ?? null })), stated, scale);
        return {
            cell: cell.name,
            dimension: cell.load.type === "concurrency" ? "concurrency" : "rate",
            unit: isSessionDataset(cell.dataset) ? "sessions" : "requests",
            percentile: cell.capacity.percentile,
            slo: { ...(cell.slo ?? {}) },
            errorRateLimit: cell.capacity.error_rate,
            gated: cell.capacity.gated,
            tolerance: draft.tolerance,
            baseline: b,
            candidate: c,
            ratio: test ? test.ratio : null,
            ci: test ? test.ci : null,
            ciLevel: level,
            p: test === null ? null : test.ratio <= 1 ? pBeyond : pBetterBeyond,
            verdict,
            costRatio: b.costPer1000 !== null && c.costPer1000 !== null ? c.costPer1000 / b.costPer1000 : null,
            acceptance: {
                load: stated,
                rows: objectives.map((objective) => {
                    const baseline = valueAt(input.baseline, objective.metric, objective.scale);
                    const candidate = valueAt(input.candidate, objective.metric, objective.scale);
                    return {
                        objective: objective.name,
                        threshold: objective.threshold,
                        baseline,
                        candidate,
                        baselinePass: baseline === null ? null : baseline <= objective.threshold,
                        candidatePass: candidate === null ? null : candidate <= objective.threshold,
                    };
                }),
            },
            note: draft.note,
            curve: {
                baseline: capacityCurveOf(cell, input.baseline),
                candidate: capacityCurveOf(cell, input.candidate),
            },
        };
    });
}
/**
 * The verdict with the capacity checks folded in: a gated capacity regression makes it a regression, a
 * gated inconclusive one turns a pass inconclusive; when the config has only capacity cells, they alone
 * decide. The exit code follows gate.fail_on as for any verdict.
 */
function withCapacity(verdict, capacity, failOn) {
    const gated = capacity.filter((check) => check.gated);
    const regressions = gated.filter((check) => check.verdict === "regression");
    const inconclusive = gated.filter((check) => check.verdict === "inconclusive");
    const onlyCapacity = verdict.cells.length === 0 && capacity.length > 0;
    let overall = verdict.verdict;
    let headline = verdict.headline;
    if (onlyCapacity) {
        overall =
            regressions.length > 0
                ? "regression"
                : inconclusive.length > 0
                    ? "inconclusive"
                    : gated.length > 0
                        ? "pass"
                        : "error";
        headline =
            regressions.length > 0
                ? `Capacity regression in ${regressions.map((check) => check.cell).join(", ")}`
                : inconclusive.length > 0
                    ? `Capacity inconclusive in ${inconclusive.map((check) => check.cell).join(", ")}`
                    : gated.length > 0
                        ? "Capacity at the SLOs holds"
                        : "No gated capacity check";
    }
    else if (regressions.length > 0 && overall !== "not-comparable") {
        overall = "regression";
        headline = `${headline}; capacity regression in ${regressions.map((check) => check.cell).join(", ")}`;
    }
    else if (inconclusive.length > 0 && overall === "pass") {
        overall = "inconclusive";
        headline = `${headline}; capacity inconclusive in ${inconclusive.map((check) => check.cell).join(", ")}`;
    }
    return {
        ...verdict,
        verdict: overall,
        headline,
        exitCode: exitCodeFor(overall, failOn),
        capacity: [...capacity],
    };
}
/**
 * Warnings for cells compared at a fixed load whose runs ran at several loads (a sweep, or a capacity
 * cell compared without its config): their runs are pooled as if measured at one load.
 */
function mixedLoadWarnings(records) {
    const loads = new Map();
    for (const record of records) {
        if (!record.load)
            continue;
        const key = JSON.stringify([record.load.targetRate, record.load.targetConcurrency]);
        loads.set(record.cell, (loads.get(record.cell) ?? new Set()).add(key));
    }
    return [...loads.entries()]
        .filter(([, set]) => set.size > 1)
        .map(([cell, set]) => `cell "${cell}" has runs at ${set.size} different loads (a sweep?) and is compared as one fixed-load cell; give compare the config with capacity on that cell to compare its capacity (docs/capacity.md)`);
}
/**
 * One side's load curve of a capacity cell, as verdict.json carries it (`capacity[].curve`) for the
 * report's load charts and the comment's latency-vs-load chart: per load measured, the mean over the
 * side's usable runs at that load (the runs the capacity estimate reads) of completed requests/s,
 * goodput, output tokens/s, and TTFT and E2E at the cell's SLO percentile. Rows ascend by load.
 */
function capacityCurveOf(cell, records) {
    const dimension = cell.load.type === "concurrency" ? "concurrency" : "rate";
    return loadCurveOf(cell.name, dimension, cell.capacity.percentile, records);
}

const mebibyte = 1024 * 1024;
const defaultInputLimits = Object.freeze({
    maxTotalBytes: 512 * mebibyte,
    maxFiles: 20_000,
    maxRunFileBytes: 16 * mebibyte,
    maxFingerprintFields: 10_000,
    maxRunsPerCell: configLimits.runs,
});

/**
 * The result file of `vllm bench serve --save-result` (keys per vllm/benchmarks/serve.py@009e6d4a,
 * summarised in shared/reference/vllm-protocol-and-metrics.md §1.6). Per selected metric m it holds
 * `mean_{m}_ms median_{m}_ms std_{m}_ms p{P}_{m}_ms`; `--save-detailed` adds per-request lists.
 * Loose: `--metadata K=V` add keys we keep but do not interpret, except one: `--metadata
 * server_start=<id>` (vLLM writes each pair as a top-level key with a string value, after `num_prompts`)
 * names the server start that measured the run, as `run --format vllm` writes it. With a drafter on the
 * server it also holds `spec_decode_*` (deltas of the server's counters over the benchmark,
 * vllm/benchmarks/serve.py after vllm PR #31739): the acceptance rate in percent, the mean acceptance
 * length, and the counts, from which the acceptance metrics are read.
 */
const count = number().int().nonnegative();
/**
 * Per-request lists hold thousands of numbers per file; a plain loop checks them ~20x faster than an
 * element-by-element schema, which matters when a comparison reads hundreds of detailed results.
 */
function numberList(what) {
    return custom((value) => {
        if (!Array.isArray(value))
            return false;
        for (const item of value)
            if (typeof item !== "number" || !Number.isFinite(item))
                return false;
        return true;
    }, { error: `expected a list of numbers (${what})` });
}
function numberListList(what) {
    return custom((value) => {
        if (!Array.isArray(value))
            return false;
        for (const inner of value) {
            if (!Array.isArray(inner))
                return false;
            for (const item of inner)
                if (typeof item !== "number" || !Number.isFinite(item))
                    return false;
        }
        return true;
    }, { error: `expected a list of lists of numbers (${what})` });
}
const seconds = numberList("seconds per request");
const vllmResultSchema = looseObject({
    date: string().optional(),
    backend: string().optional(),
    endpoint_type: string().optional(),
    label: string().nullable().optional(),
    model_id: string().optional(),
    tokenizer_id: string().optional(),
    num_prompts: count.optional(),
    server_start: string()
        .min(1, "expected the id of the server start that measured the run (--metadata server_start=<id>)")
        .max(maxServerStartIdLength, `expected at most ${maxServerStartIdLength} characters (limit maxServerStartIdLength)`)
        .optional(),
    request_rate: union([number(), literal("inf"), string()]).optional(),
    burstiness: number().nullable().optional(),
    max_concurrency: number().nullable().optional(),
    duration: number().positive(),
    completed: count,
    failed: count.optional(),
    total_input_tokens: count.optional(),
    total_output_tokens: count.optional(),
    request_throughput: number().nonnegative(),
    request_goodput: number().nonnegative().nullable().optional(),
    output_throughput: number().nonnegative(),
    total_token_throughput: number().nonnegative().optional(),
    max_output_tokens_per_s: number().optional(),
    max_concurrent_requests: number().optional(),
    latencies: seconds.optional(),
    queue_times: seconds.optional(),
    input_lens: numberList("tokens per request").optional(),
    output_lens: numberList("tokens per request").optional(),
    start_times: seconds.optional(),
    ttfts: seconds.optional(),
    itls: numberListList("chunk gaps in seconds per request").optional(),
    generated_texts: array(string()).optional(),
    errors: array(string()).optional(),
    spec_decode_num_drafts: count.optional(),
    spec_decode_draft_tokens: count.optional(),
    spec_decode_accepted_tokens: count.optional(),
});
/** Per-request lists of `--save-detailed` (and `latencies`, `queue_times`): one entry per request each. */
const perRequestLists = [
    "latencies",
    "queue_times",
    "ttfts",
    "itls",
    "input_lens",
    "output_lens",
    "start_times",
    "generated_texts",
    "errors",
];
/**
 * Relations vLLM's writer guarantees between the fields of a result (vllm/benchmarks/serve.py@009e6d4a):
 * every per-request list has one entry per request (so all have the same length, between `completed`
 * and `completed + failed`), `completed + failed` never exceeds `num_prompts`, and each metric's
 * percentiles never decrease (median <= p90 <= p99 <= p99.9). A file that breaks one was edited or
 * forged; computing percentiles from misaligned lists would pair one request's TTFT with another's
 * latency. Returns dotted fields and messages, empty when consistent.
 */
function vllmResultInvariantIssues(result) {
    const issues = [];
    const failed = result.failed ?? 0;
    if (result.num_prompts !== undefined && result.completed + failed > result.num_prompts) {
        issues.push({
            field: "completed",
            message: `completed (${result.completed}) + failed (${failed}) = ${result.completed + failed}, more than num_prompts (${result.num_prompts})`,
        });
    }
    const lengths = [];
    for (const key of perRequestLists) {
        const list = result[key];
        if (Array.isArray(list))
            lengths.push({ key, length: list.length });
    }
    const first = lengths[0];
    if (first) {
        for (const other of lengths.slice(1)) {
            if (other.length !== first.length) {
                issues.push({
                    field: other.key,
                    message: `${other.length} entries, but ${first.key} has ${first.length} (per-request lists have one entry per request)`,
                });
            }
        }
        if (first.length < result.completed) {
            issues.push({
                field: first.key,
                message: `${first.length} entries, fewer than the ${result.completed} completed requests`,
            });
        }
        if (result.failed !== undefined && first.length > result.completed + result.failed) {
            issues.push({
                field: first.key,
                message: `${first.length} entries, more than completed + failed = ${result.completed + result.failed} requests`,
            });
        }
    }
    const percentiles = latencyStatistics.filter((statistic) => latencyStatisticSpec(statistic).quantile !== null);
    for (const phase of latencyPhases) {
        const ordered = [];
        for (const key of percentiles.flatMap((statistic) => metricSpecs[`${phase}_${statistic}`].vllmKeys)) {
            const value = result[key];
            if (typeof value === "number")
                ordered.push({ key, value });
        }
        for (let i = 1; i < ordered.length; i++) {
            const previous = ordered[i - 1];
            const current = ordered[i];
            if (current.value < previous.value) {
                issues.push({
                    field: current.key,
                    message: `${current.value} is below ${previous.key} = ${previous.value} (percentiles never decrease)`,
                });
            }
        }
    }
    return issues;
}
/** Keys that describe the conditions of the run rather than its outcome: its fingerprint. */
const conditionKeys = [
    "backend",
    "endpoint_type",
    "model_id",
    "tokenizer_id",
    "num_prompts",
    "request_rate",
    "burstiness",
    "max_concurrency",
];
/** True when a parsed JSON object looks like a vLLM result rather than our run.json. */
function looksLikeVllmResult(value) {
    return (typeof value === "object" &&
        value !== null &&
        !("schemaVersion" in value) &&
        "request_throughput" in value);
}
/** Each latency statistic of the samples (numpy-linear percentiles); empty without samples. */
function summaryFromSamples(samplesMs) {
    if (samplesMs.length === 0)
        return {};
    const sorted = sortNumbers(samplesMs);
    let sum = 0;
    for (const v of samplesMs)
        sum += v;
    const summary = {};
    for (const statistic of latencyStatistics) {
        const { quantile } = latencyStatisticSpec(statistic);
        summary[statistic] = quantile === null ? sum / samplesMs.length : percentileSorted(sorted, quantile);
    }
    return summary;
}
/** Per-request samples (ms) from `--save-detailed` lists, successful requests only. */
function detailedSamples(result) {
    const n = result.ttfts?.length ?? result.latencies?.length ?? 0;
    const ok = new Uint8Array(n);
    const errors = result.errors && result.errors.length === n ? result.errors : null;
    for (let i = 0; i < n; i++) {
        // Without an error list, vLLM leaves 0 for requests that never produced a chunk.
        ok[i] = errors
            ? errors[i] === ""
                ? 1
                : 0
            : (result.ttfts?.[i] ?? result.latencies?.[i] ?? 0) > 0
                ? 1
                : 0;
    }
    const successfulMs = (values) => {
        const out = [];
        for (let i = 0; i < n; i++)
            if (ok[i])
                out.push(values[i] * 1000);
        return out;
    };
    const out = {};
    const { ttfts, latencies, output_lens: outputLens, itls } = result;
    if (ttfts)
        out.ttft = successfulMs(ttfts);
    if (latencies && latencies.length === n)
        out.e2el = successfulMs(latencies);
    if (ttfts && latencies && outputLens && latencies.length === n && outputLens.length === n) {
        const tpot = [];
        for (let i = 0; i < n; i++) {
            const outLen = outputLens[i];
            if (ok[i] && outLen > 1)
                tpot.push(((latencies[i] - ttfts[i]) / (outLen - 1)) * 1000);
        }
        out.tpot = tpot;
    }
    if (itls && itls.length === n) {
        const pooled = [];
        for (let i = 0; i < n; i++)
            if (ok[i])
                for (const gap of itls[i])
                    pooled.push(gap * 1000);
        out.itl = pooled;
    }
    return out;
}
/** Turns one `vllm bench serve` result into a run record; aggregates win, detail fills the gaps. */
function runRecordFromVllmResult(result, source, index) {
    const failed = result.failed ??
        (result.num_prompts !== undefined ? Math.max(0, result.num_prompts - result.completed) : 0);
    const total = result.completed + failed;
    const metrics = {};
    const samples = detailedSamples(result);
    const detail = {};
    for (const phase of latencyPhases) {
        const phaseSamples = samples[phase];
        if (phaseSamples)
            detail[phase] = summaryFromSamples(phaseSamples);
    }
    for (const metric of metricNames) {
        const value = vllmResultMetric(result, metric, detail, { total, failed });
        if (value !== undefined)
            metrics[metric] = value;
    }
    const fingerprint = { source: "vllm bench serve" };
    for (const key of conditionKeys)
        if (result[key] !== undefined)
            fingerprint[key] = result[key];
    return {
        source,
        cell: result.label ? result.label : "default",
        run: index,
        startedAt: result.date ?? null,
        durationS: result.duration,
        metrics,
        requests: { total, completed: result.completed, failed },
        fingerprint,
        exclusionReasons: [],
        ...(result.server_start !== undefined
            ? { serverStart: { id: result.server_start, basis: "recorded" } }
            : {}),
        load: {
            targetRate: typeof result.request_rate === "number" ? result.request_rate : null,
            targetConcurrency: typeof result.max_concurrency === "number" ? result.max_concurrency : null,
        },
    };
}
/**
 * One catalogue metric of a vLLM result: the last of its `vllmKeys` that holds a number; a latency
 * without one falls back to the per-request lists (`detail`), a failed fraction comes from the counts.
 * Undefined when the result does not have the latency at all (vLLM writes only the chosen percentiles).
 */
function vllmResultMetric(result, metric, detail, requests) {
    const { source, vllmKeys } = metricSpecs[metric];
    let aggregate;
    for (const key of vllmKeys) {
        const value = result[key];
        if (typeof value === "number")
            aggregate = value;
    }
    switch (source.kind) {
        case "latency":
            return aggregate ?? detail[source.phase]?.[source.statistic];
        case "throughput":
            return aggregate ?? null;
        case "failed-fraction":
            return errorRate(requests);
        case "guard-share":
        case "guard-length":
            // A vLLM result has no finish reasons or per-request usage checks: the guards are not in it.
            return null;
        case "session":
        case "reasoning-tokens":
        case "malformed-tool-calls":
            // Nor reasoning, tool calls or sessions (vllm bench serve sends single requests).
            return null;
        case "spec-decode":
            // From the counts: vLLM writes the rate in percent, the catalogue's is a fraction.
            return specDecodeValue({
                drafts: result.spec_decode_num_drafts ?? null,
                draftTokens: result.spec_decode_draft_tokens ?? null,
                acceptedTokens: result.spec_decode_accepted_tokens ?? null,
            }, source.field);
        default:
            return unknownSource(source);
    }
}

/**
 * The `external` form of the task-accuracy check (docs/quality.md, External tasks): a command such as an
 * lm-eval-harness invocation, run against the cell's server while it is up, its JSON result read by the
 * configured dotted paths and kept as external-<name>.json beside the run's run.json. The command runs
 * without a shell; its arguments are templates ({base_url}, {model}, {output_dir}, {result_file}) and
 * the file records the templates, not the values.
 */
const externalTaskFileSchemaVersion = 1;
const externalTaskFileSchema = object({
    schemaVersion: literal(externalTaskFileSchemaVersion),
    name: string(),
    cell: string(),
    run: number().int(),
    /** The command as configured (templates, not values). */
    command: array(string()),
    durationS: number().nonnegative(),
    /** The accuracy the result reports (accuracy_path), and the number of samples behind it. */
    accuracy: number().min(0).max(1),
    count: number().int().nonnegative(),
    /** Per-sample outcomes when the result has them (samples_path); null otherwise. */
    samples: array(object({ id: string(), correct: boolean() })).nullable(),
});
function externalTaskFileName(name) {
    return `external-${name}.json`;
}
/** The longest stretch of the command's output kept for a message. */
const outputTail = 2_000;
/** Runs one external task command, reads its JSON result and writes external-<name>.json; throws InputError. */
async function runExternalTask(spec, run) {
    const outputDir = join(run.dir, `external-${spec.name}`);
    mkdirSync(outputDir, { recursive: true });
    const resultFile = join(outputDir, "result.json");
    const values = {
        base_url: run.baseUrl,
        model: run.model,
        output_dir: outputDir,
        result_file: resultFile,
    };
    const argv = spec.command.map((arg) => arg.replace(/\{(base_url|model|output_dir|result_file)\}/g, (_, key) => values[key]));
    const readsFile = spec.command.some((arg) => arg.includes("{result_file}"));
    const what = `quality.tasks.external "${spec.name}" (command \`${spec.command.join(" ")}\`)`;
    const fail = (reason) => {
        throw new InputError(run.redact(`${what}: ${reason}; the runs measured so far are kept`));
    };
    const started = performance.now();
    const ended = await execute(argv, spec.timeout_s * 1000, run.env, run.signal);
    const durationS = (performance.now() - started) / 1000;
    const tail = (text) => (text.length > outputTail ? `…${text.slice(-outputTail)}` : text).trim();
    if (run.signal?.aborted)
        fail(`stopped by ${String(run.signal.reason ?? "an interrupt")}`);
    if (ended.spawnError !== null)
        fail(`could not start: ${ended.spawnError}`);
    if (ended.timedOut) {
        fail(`did not finish within ${spec.timeout_s} s (quality.tasks.external[].timeout_s) and was stopped`);
    }
    if (ended.code !== 0) {
        fail(`exited with ${ended.code === null ? `signal ${ended.signal}` : `code ${ended.code}`}${ended.stderr.trim() ? `: ${tail(ended.stderr)}` : ""}`);
    }
    const source = readsFile ? "{result_file}" : "its standard output";
    const text = readsFile ? (existsSync(resultFile) ? readFileSync(resultFile, "utf8") : null) : ended.stdout;
    if (text === null)
        fail(`wrote no result file at {result_file}`);
    let json;
    try {
        json = JSON.parse(text);
    }
    catch {
        fail(`printed no JSON on ${source} (expected one JSON document${text.trim() ? `, got: ${tail(text).slice(0, 200)}` : ", got nothing"})`);
    }
    const accuracy = at(json, spec.accuracy_path, "accuracy_path", fail);
    if (typeof accuracy !== "number" || !(accuracy >= 0 && accuracy <= 1)) {
        fail(`accuracy_path ${spec.accuracy_path}: expected a number from 0 to 1, got ${JSON.stringify(accuracy)}`);
    }
    const samples = spec.samples_path === undefined ? null : readSamples(json, spec, fail);
    let count = samples?.length ?? 0;
    if (spec.count_path !== undefined) {
        const n = at(json, spec.count_path, "count_path", fail);
        if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
            fail(`count_path ${spec.count_path}: expected a whole number of samples, got ${JSON.stringify(n)}`);
        }
        count = n;
    }
    const file = externalTaskFileSchema.parse({
        schemaVersion: externalTaskFileSchemaVersion,
        name: spec.name,
        cell: run.cell,
        run: run.run,
        command: spec.command,
        durationS,
        accuracy,
        count,
        samples,
    });
    writeFileSync(join(run.dir, externalTaskFileName(spec.name)), run.redact(`${JSON.stringify(file, null, 2)}\n`));
    return file;
}
/** The value at a dotted path; a missing key fails naming the path, the key and the keys there. */
function at(json, path, field, fail) {
    let value = json;
    const walked = [];
    for (const key of path.split(".")) {
        const keys = typeof value === "object" && value !== null ? Object.keys(value) : null;
        if (keys === null || !Object.hasOwn(value, key)) {
            fail(`${field} ${path}: no key "${key}" at ${walked.length > 0 ? walked.join(".") : "the top"} of the JSON result` +
                (keys === null
                    ? " (not an object there)"
                    : ` (keys there: ${keys.slice(0, 20).join(", ") || "none"})`));
        }
        walked.push(key);
        value = value[key];
    }
    return value;
}
function readSamples(json, spec, fail) {
    const list = at(json, spec.samples_path, "samples_path", fail);
    if (!Array.isArray(list))
        fail(`samples_path ${spec.samples_path}: expected an array of samples`);
    return list.map((sample, index) => {
        const row = typeof sample === "object" && sample !== null ? sample : {};
        const id = row[spec.id_field];
        const score = row[spec.score_field];
        if (typeof id !== "string" && typeof id !== "number") {
            fail(`samples_path ${spec.samples_path}[${index}]: expected an id in field "${spec.id_field}"`);
        }
        if (typeof score !== "boolean" && typeof score !== "number") {
            fail(`samples_path ${spec.samples_path}[${index}]: expected a score (true/false or a number) in field "${spec.score_field}"`);
        }
        return { id: String(id), correct: typeof score === "boolean" ? score : score >= 0.5 };
    });
}
function execute(argv, timeoutMs, env, signal) {
    return new Promise((resolve) => {
        const child = spawn(argv[0], argv.slice(1), {
            stdio: ["ignore", "pipe", "pipe"],
            ...(env ? { env: { ...env } } : {}),
            ...(signal ? { signal, killSignal: "SIGTERM" } : {}),
        });
        let stdout = "";
        let stderr = "";
        let timedOut = false;
        let spawnError = null;
        child.stdout.setEncoding("utf8").on("data", (chunk) => {
            stdout += chunk;
        });
        child.stderr.setEncoding("utf8").on("data", (chunk) => {
            stderr = (stderr + chunk).slice(-64e3);
        });
        const timer = setTimeout(() => {
            timedOut = true;
            child.kill("SIGKILL");
        }, timeoutMs);
        child.on("error", (error) => {
            spawnError = error.message;
        });
        child.on("close", (code, signal) => {
            clearTimeout(timer);
            resolve({ code, signal, stdout, stderr, timedOut, spawnError });
        });
    });
}

/**
 * Reads the inputs of one side of a comparison: results directories written by `run`
 * (DIR/<cell>/run-<k>/run.json) and/or `vllm bench serve` result files. Every problem is an
 * InputError naming the file and the field.
 */
function describeIssues(file, error) {
    const lines = error.issues.slice(0, 5).map((issue) => {
        const field = issue.path.length > 0 ? issue.path.map(String).join(".") : "(top level)";
        return `  ${field}: ${issue.message}`;
    });
    const more = error.issues.length > 5 ? `\n  ... and ${error.issues.length - 5} more` : "";
    return `${file}: invalid content\n${lines.join("\n")}${more}`;
}
/** Each field alone was valid; together they cannot be (a forged or edited file). */
function throwOnInconsistency(file, issues) {
    if (issues.length === 0)
        return;
    const lines = issues.slice(0, 5).map((issue) => `  ${issue.field}: ${issue.message}`);
    const more = issues.length > 5 ? `\n  ... and ${issues.length - 5} more` : "";
    throw new InputError(`${file}: inconsistent content\n${lines.join("\n")}${more}`);
}
/**
 * Result files are a few levels deep; JSON.parse accepts any depth, but every recursive walk after
 * it (hashing, the fingerprint diff) would overflow the stack on a million nested brackets.
 */
const maxJsonDepth = 64;
/** Depth of a parsed JSON value, walked without recursion; stops counting past `limit`. */
function nestingDepth(value, limit) {
    let deepest = 0;
    const stack = [{ value, depth: 0 }];
    while (stack.length > 0) {
        const { value: current, depth } = stack.pop();
        if (typeof current !== "object" || current === null)
            continue;
        const level = depth + 1;
        if (level > deepest)
            deepest = level;
        if (deepest > limit)
            return deepest;
        for (const child of Array.isArray(current) ? current : Object.values(current))
            if (typeof child === "object" && child !== null)
                stack.push({ value: child, depth: level });
    }
    return deepest;
}
async function readJson(file, 
/** Runs on the parsed value before anything walks it (limits cheaper to check than the walks). */
check = () => { }) {
    let text;
    try {
        text = await readFile(file, "utf8");
    }
    catch (error) {
        throw new InputError(`${file}: cannot read (${error.code ?? String(error)})`);
    }
    let json;
    try {
        json = JSON.parse(text);
    }
    catch (error) {
        throw new InputError(`${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    check(json);
    const depth = nestingDepth(json, maxJsonDepth);
    if (depth > maxJsonDepth) {
        throw new InputError(`${file}: nested deeper than ${maxJsonDepth} levels (limit maxJsonDepth; a result file needs fewer than 10)`);
    }
    // A run.json (a few KiB) is hashed re-serialised, so a copy that was only re-indented is still the
    // same run; a vLLM result can hold hundreds of KiB of per-request lists, where re-serialising costs
    // ~2 ms a file, so its bytes are hashed (byte-identical copies).
    const canonical = typeof json === "object" && json !== null && "schemaVersion" in json;
    const contentHash = createHash("sha256")
        .update(canonical ? JSON.stringify(json) : text)
        .digest("hex");
    return { json, contentHash };
}
/** Parses one file: a run.json (has schemaVersion) or a vLLM result (has request_throughput). */
async function readRunFile(file, index, limits = defaultInputLimits) {
    const { json, contentHash } = await readJson(file, (parsed) => checkFingerprintSize(file, parsed, limits.maxFingerprintFields));
    const record = parseRunJson(file, json, index);
    const positional = looksLikeVllmResult(json);
    const external = positional ? [] : await readExternalTaskFiles(dirname(file));
    return {
        ...record,
        ...(external.length > 0 ? { external } : {}),
        identity: {
            contentHash,
            cell: record.cell,
            run: positional ? null : record.run,
            startedAt: record.startedAt,
        },
    };
}
/**
 * Refuses a run.json whose fingerprint records more than `limit` conditions (flattened fields, as
 * compare diffs them), before the schema walks them: every comparison and report would diff them all.
 */
function checkFingerprintSize(file, json, limit) {
    if (typeof json !== "object" || json === null || !("fingerprint" in json))
        return;
    let fields = 0;
    const stack = [json.fingerprint];
    while (stack.length > 0) {
        const node = stack.pop();
        if (node === null || typeof node !== "object" || Array.isArray(node)) {
            fields++;
        }
        else {
            const values = Object.values(node);
            if (values.length === 0)
                fields++;
            for (const value of values)
                stack.push(value);
        }
        if (fields > limit) {
            throw new InputError(`${file}: fingerprint: more than ${limit} recorded conditions (limit maxFingerprintFields; a run records about a hundred)`);
        }
    }
}
/** The external task results (external-<name>.json) beside a run.json; a malformed one is bad input. */
async function readExternalTaskFiles(dir) {
    const names = (await readdir(dir)).filter((name) => /^external-.+\.json$/.test(name)).sort();
    const files = [];
    for (const name of names) {
        const path = join(dir, name);
        let json;
        try {
            json = JSON.parse(await readFile(path, "utf8"));
        }
        catch (error) {
            throw new InputError(`${path}: not JSON (${error.message})`);
        }
        const parsed = externalTaskFileSchema.safeParse(json);
        if (!parsed.success)
            throw new InputError(describeIssues(path, parsed.error));
        files.push(parsed.data);
    }
    return files;
}
function parseRunJson(file, json, index) {
    if (typeof json === "object" && json !== null && !Array.isArray(json) && "schemaVersion" in json) {
        const version = json.schemaVersion;
        if (version !== runFileSchemaVersion) {
            throw new InputError(`${file}: schemaVersion: expected ${runFileSchemaVersion} (the run.json version this tool reads), got ${JSON.stringify(version)}`);
        }
        const parsed = runFileSchema.safeParse(json);
        if (!parsed.success)
            throw new InputError(describeIssues(file, parsed.error));
        throwOnInconsistency(file, runFileInvariantIssues(parsed.data));
        return runRecordFromRunFile(parsed.data, file);
    }
    if (looksLikeVllmResult(json)) {
        const parsed = vllmResultSchema.safeParse(json);
        if (!parsed.success)
            throw new InputError(describeIssues(file, parsed.error));
        throwOnInconsistency(file, vllmResultInvariantIssues(parsed.data));
        return runRecordFromVllmResult(parsed.data, file, index);
    }
    throw new InputError(`${file}: not a run result: expected a run.json (with schemaVersion) or a \`vllm bench serve\` result (with request_throughput)`);
}
async function findRunFiles(dir, depth) {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
    const found = [];
    for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isFile() && entry.name === "run.json")
            found.push(path);
        else if (entry.isDirectory() && depth > 0)
            appendAll(found, await findRunFiles(path, depth - 1));
    }
    return found;
}
/**
 * A `vllm bench sweep serve` output (vllm/benchmarks/sweep/serve.py): one directory per parameter
 * combination (or the experiment directory itself without --serve-params/--bench-params) holding
 * `run=<n>.json` per measured run, a vLLM result with the combination's parameters added, beside
 * `summary.json` (the list of those runs), `warmup.json` and `run=<n>.failure.json`, which are not runs.
 */
const sweepRunFileName = /^run=\d+\.json$/;
async function findSweepRunFiles(dir, depth) {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
    const found = [];
    for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isFile() && sweepRunFileName.test(entry.name))
            found.push(path);
        else if (entry.isDirectory() && depth > 0)
            appendAll(found, await findSweepRunFiles(path, depth - 1));
    }
    return found;
}
async function expandPath(path) {
    let info;
    try {
        info = await stat(path);
    }
    catch {
        throw new InputError(`${path}: no such file or directory (expected a results directory or a result JSON file)`);
    }
    if (!info.isDirectory())
        return { files: [path], isDirectory: false };
    const runFiles = await findRunFiles(path, 3);
    if (runFiles.length > 0)
        return { files: runFiles, isDirectory: true };
    const sweepFiles = await findSweepRunFiles(path, 2);
    if (sweepFiles.length > 0)
        return { files: sweepFiles, isDirectory: true };
    // A directory of `vllm bench serve` results (one JSON per run).
    const entries = (await readdir(path))
        .filter((name) => name.endsWith(".json") && name !== "verdict.json")
        .sort();
    if (entries.length > 0)
        return { files: entries.map((name) => join(path, name)), isDirectory: true };
    throw new InputError(`${path}: no run.json files (expected ${basename(path)}/<cell>/run-<k>/run.json), no \`vllm bench sweep serve\` runs (run=<n>.json) and no result JSON files`);
}
function mib(bytes) {
    return `${(bytes / mebibyte).toFixed(bytes < 10 * mebibyte ? 2 : 1)} MiB`;
}
/**
 * Checks the sizes before anything is read (a 200 MB file would otherwise take minutes and GBs):
 * each file against maxRunFileBytes, all files of both sides against maxTotalBytes, in input order
 * so the message is stable. Only regular files are read (a FIFO would block forever).
 */
async function checkInputSizes(files, limits, budget) {
    for (const file of files) {
        let info;
        try {
            info = await stat(file);
        }
        catch (error) {
            throw new InputError(`${file}: cannot read (${error.code ?? String(error)})`);
        }
        if (!info.isFile())
            throw new InputError(`${file}: not a regular file (expected a result JSON file)`);
        if (info.size > limits.maxRunFileBytes) {
            throw new InputError(`${file}: ${mib(info.size)} (${info.size} bytes), more than the ${mib(limits.maxRunFileBytes)} allowed for one result file (limit maxRunFileBytes; raise it with compare --max-file-mb)`);
        }
        budget.bytes += info.size;
        if (budget.bytes > limits.maxTotalBytes) {
            throw new InputError(`${file}: the inputs reach ${mib(budget.bytes)} with this file, more than the ${mib(limits.maxTotalBytes)} allowed for all result files together (limit maxTotalBytes; raise it with compare --max-total-mb)`);
        }
    }
}
/**
 * Runs `work` over items with at most `width` at a time, results in input order. After a failure no
 * new item is started (those before it in input order all were), so bad input fails without reading
 * the rest.
 */
async function boundedAll(items, width, work) {
    const settled = new Array(items.length);
    let next = 0;
    let failed = false;
    const lane = async () => {
        while (next < items.length && !failed) {
            const index = next++;
            try {
                settled[index] = { status: "fulfilled", value: await work(items[index], index) };
            }
            catch (reason) {
                settled[index] = { status: "rejected", reason };
                failed = true;
            }
        }
    };
    await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
    return settled;
}
async function loadRuns(paths, side, options = {}) {
    const limits = options.limits ?? defaultInputLimits;
    if (paths.length === 0)
        throw new InputError(`--${side}: expected at least one results directory or result file`);
    // Each directory is one session (one job); loose files together form one.
    const files = [];
    for (const path of paths) {
        const expanded = await expandPath(path);
        for (const file of expanded.files)
            files.push({ file, session: expanded.isDirectory ? path : "(files)" });
        if (files.length > limits.maxFiles) {
            throw new InputError(`--${side}: more than ${limits.maxFiles} result files (limit maxFiles), the last from ${path}`);
        }
    }
    await checkInputSizes(files.map(({ file }) => file), limits, options.budget ?? { bytes: 0 });
    // A few reads overlap (not all: every text is in memory until parsed); the first failure in input
    // order is the one reported, so messages are stable.
    const cap = options.capRunsPerCell ? runsPerCellCap(side, limits.maxRunsPerCell) : null;
    const settled = await boundedAll(files, 4, async ({ file, session }, index) => {
        const record = { ...(await readRunFile(file, index, limits)), session };
        cap?.(record);
        return record;
    });
    const failure = settled.find((result) => result.status === "rejected");
    if (failure)
        throw failure.reason;
    const records = numberPositionalRuns(settled.map((result) => result.value));
    // Every run knows its server start: the recorded one, else the input's shared one (or its own, declared).
    return assignServerStarts(records, side, { freshStarts: options.freshStarts ?? false });
}
/**
 * A `vllm bench serve` file has no run index: its cell is its label and its run is its place among
 * the files of that cell and session (0, 1, ...), so `run 2` of a cell is the third file of that cell
 * rather than the third file given.
 */
function numberPositionalRuns(records) {
    const next = new Map();
    return records.map((record) => {
        if (record.identity === undefined || record.identity.run !== null)
            return record;
        const key = JSON.stringify([record.session ?? "", record.cell]);
        const run = next.get(key) ?? 0;
        next.set(key, run + 1);
        return { ...record, run };
    });
}
function listSources(records, cell) {
    const sources = records.filter((record) => record.cell === cell).map((record) => record.source);
    const shown = sources.slice(0, 3).join(", ");
    return sources.length > 3 ? `${shown} and ${sources.length - 3} more` : shown;
}
/**
 * Refuses two sides that have no cell in common when `vllm bench serve` files are among the inputs
 * (unless each side has exactly one cell, which analysis pairs with a warning): their cells come from
 * labels, and nothing matching means the labels are missing or name something else (files without a
 * label are all cell "default"), so the verdict would blame missing runs. Results directories alone
 * keep their verdict: their cells are the config's, and a cell renamed by the PR is reported per cell.
 */
function checkCellsMatch(baseline, candidate) {
    const baseCells = [...new Set(baseline.map((record) => record.cell))];
    const candCells = [...new Set(candidate.map((record) => record.cell))];
    if (baseCells.length === 0 || candCells.length === 0)
        return;
    if (![...baseline, ...candidate].some((record) => record.identity?.run === null))
        return;
    if (baseCells.some((cell) => candCells.includes(cell)))
        return;
    if (baseCells.length === 1 && candCells.length === 1)
        return;
    const describe = (records, cells) => cells.map((cell) => `  "${cell}": ${listSources(records, cell)}`).join("\n");
    const unlabelled = [...baseline, ...candidate].some((record) => record.cell === "default" && record.identity?.run === null);
    const hint = unlabelled
        ? 'vLLM result files are grouped into cells by their "label"; a file without one is cell "default": give each file its cell name as label (vllm bench serve --label NAME; `run --format vllm` writes it)'
        : "compare results of the same config (the same cell names), or one cell per side";
    throw new InputError(`the baseline and the candidate have no cell in common, so nothing can be compared (exit 2, nothing was judged):\nbaseline cells:\n${describe(baseline, baseCells)}\ncandidate cells:\n${describe(candidate, candCells)}\n${hint}`);
}
function describeRun(record) {
    const run = record.identity ? record.identity.run : record.run;
    const index = run === null ? "" : ` run-${run}`;
    const started = record.startedAt ? ` started ${record.startedAt}` : "";
    return `cell ${record.cell}${index}${started}`;
}
/** What makes two records one run read twice (see dropDuplicateRuns); null without an identity. */
function duplicateKey(record) {
    const id = record.identity;
    return id === undefined ? null : JSON.stringify([id.contentHash, id.cell, id.run, id.startedAt]);
}
/**
 * A run is its content (the hash of its parsed JSON) plus its identity (cell, run index, start
 * time): two records with both equal are one run read twice (a copied file or cell directory, the
 * same directory given twice), and counting it twice would narrow the intervals with no new
 * evidence. Within a side the first is kept and the others dropped, each with a note; the same run
 * on both sides is refused, since a run cannot be its own baseline.
 */
function dropDuplicateRuns(baseline, candidate) {
    const keyOf = duplicateKey;
    const notes = [];
    const dedupe = (records, side) => {
        const seen = new Map();
        const kept = [];
        const dropped = new Map();
        for (const record of records) {
            const key = keyOf(record);
            const first = key === null ? undefined : seen.get(key);
            if (first) {
                dropped.set(first, [...(dropped.get(first) ?? []), record.source]);
                continue;
            }
            if (key !== null)
                seen.set(key, record);
            kept.push(record);
        }
        for (const [first, copies] of dropped) {
            notes.push(`${side}: ${copies.length} duplicate${copies.length === 1 ? "" : "s"} of ${describeRun(first)} (${first.source}) dropped, counted once: ${copies.join(", ")}`);
        }
        return { kept, seen };
    };
    const base = dedupe(baseline, "baseline");
    const cand = dedupe(candidate, "candidate");
    for (const [key, record] of cand.seen) {
        const twin = base.seen.get(key);
        if (twin) {
            throw new InputError(`${record.source}: the same run (${describeRun(record)}, identical content) is on both sides, also as ${twin.source}: a run cannot be its own baseline`);
        }
    }
    return { baseline: base.kept, candidate: cand.kept, notes };
}
/**
 * Counts a side's runs per cell as they are read and refuses the run past `limit`, naming its file:
 * more runs than repeats.max allows are not one job's, and the analysis's cross-checks grow with the
 * product of both sides' runs. Copies of one run (dropDuplicateRuns' key) count once.
 */
function runsPerCellCap(side, limit) {
    const distinct = new Map();
    return (record) => {
        const runs = distinct.get(record.cell) ?? new Set();
        distinct.set(record.cell, runs);
        runs.add(duplicateKey(record) ?? record.source);
        if (runs.size > limit) {
            throw new InputError(`${record.source}: cell: the ${side} has more than ${limit} runs of cell "${record.cell}" (limit maxRunsPerCell, the most repeats.max allows); give compare one job's runs`);
        }
    };
}
/**
 * Loads both sides of a comparison with one size budget, then drops duplicated runs (notes for the
 * verdict's warnings) or refuses a run that is on both sides, and refuses sides without a common cell.
 */
async function loadSides(baselinePaths, candidatePaths, limits = defaultInputLimits, options = {}) {
    const budget = { bytes: 0 };
    const load = (paths, side) => loadRuns(paths, side, { limits, budget, capRunsPerCell: true, ...options });
    const baseline = await load(baselinePaths, "baseline");
    const candidate = await load(candidatePaths, "candidate");
    const sides = dropDuplicateRuns(baseline, candidate);
    checkCellsMatch(sides.baseline, sides.candidate);
    return {
        ...sides,
        serverStarts: {
            baseline: summarizeServerStarts(sides.baseline),
            candidate: summarizeServerStarts(sides.candidate),
        },
    };
}

function parsePrometheusText(text) {
    const samples = [];
    for (const rawLine of text.split("\n")) {
        const line = rawLine.trim();
        if (line === "" || line.startsWith("#"))
            continue;
        const sample = parseSampleLine(line);
        if (sample)
            samples.push(sample);
    }
    return samples;
}
function parseSampleLine(line) {
    const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
    if (!nameMatch)
        return undefined;
    const name = nameMatch[0];
    let rest = line.slice(name.length);
    const labels = {};
    if (rest.startsWith("{")) {
        let index = 1;
        for (;;) {
            while (rest[index] === " " || rest[index] === ",")
                index++;
            if (rest[index] === "}") {
                index++;
                break;
            }
            const keyMatch = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(rest.slice(index));
            if (!keyMatch ||
                rest[index + keyMatch[0].length] !== "=" ||
                rest[index + keyMatch[0].length + 1] !== '"') {
                return undefined;
            }
            index += keyMatch[0].length + 2;
            let value = "";
            while (index < rest.length && rest[index] !== '"') {
                if (rest[index] === "\\") {
                    const next = rest[index + 1];
                    value += next === "n" ? "\n" : (next ?? "");
                    index += 2;
                }
                else
                    value += rest[index++];
            }
            if (index >= rest.length)
                return undefined;
            index++;
            labels[keyMatch[0]] = value;
        }
        rest = rest.slice(index);
    }
    const valueText = rest.trim().split(/\s+/)[0];
    if (valueText === undefined || valueText === "")
        return undefined;
    const value = valueText === "+Inf"
        ? Number.POSITIVE_INFINITY
        : valueText === "-Inf"
            ? Number.NEGATIVE_INFINITY
            : Number(valueText);
    if (Number.isNaN(value) && valueText !== "NaN")
        return undefined;
    return { name, labels, value };
}
/** The labels of `vllm:cache_config_info` (block size, cache dtype, prefix caching, memory utilisation, ...). */
function cacheConfigFromMetrics(samples) {
    const info = samples.find((sample) => sample.name === "vllm:cache_config_info");
    if (!info)
        return null;
    return Object.fromEntries(Object.entries(info.labels).sort(([a], [b]) => a.localeCompare(b)));
}

/** The current name first, then the pre-0.9 name vLLM deprecated. */
const names = {
    preemptions: ["vllm:num_preemptions_total"],
    prefixQueries: ["vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"],
    prefixHits: ["vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"],
    kvUsage: ["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
    running: ["vllm:num_requests_running"],
    waiting: ["vllm:num_requests_waiting"],
    promptTokens: ["vllm:prompt_tokens_total"],
    generationTokens: ["vllm:generation_tokens_total"],
    success: ["vllm:request_success_total"],
    ttft: ["vllm:time_to_first_token_seconds"],
    queue: ["vllm:request_queue_time_seconds"],
};
function present(samples, candidates) {
    for (const name of candidates)
        if (samples.some((sample) => sample.name === name))
            return name;
    return null;
}
function total(samples, name) {
    let sum = 0;
    for (const sample of samples)
        if (sample.name === name)
            sum += sample.value;
    return sum;
}
/** Cumulative bucket counts by upper bound, summed over engines and models. */
function buckets(samples, histogram) {
    const out = new Map();
    const bucketName = `${histogram}_bucket`;
    for (const sample of samples) {
        if (sample.name !== bucketName || sample.labels.le === undefined)
            continue;
        const bound = sample.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(sample.labels.le);
        if (Number.isNaN(bound))
            continue;
        out.set(bound, (out.get(bound) ?? 0) + sample.value);
    }
    return out;
}
/**
 * Prometheus' histogram_quantile on the difference of two cumulative histograms: linear within the bucket
 * holding the rank; a rank in the +Inf bucket gives the highest finite bound.
 */
function histogramQuantile(before, after, q) {
    const bounds = [...after.keys()].sort((a, b) => a - b);
    const counts = bounds.map((bound) => (after.get(bound) ?? 0) - (before.get(bound) ?? 0));
    const totalCount = counts[counts.length - 1] ?? 0;
    if (!(totalCount > 0))
        return null;
    const rank = q * totalCount;
    let previousBound = 0;
    let previousCount = 0;
    for (let index = 0; index < bounds.length; index++) {
        const bound = bounds[index];
        const count = counts[index];
        if (count >= rank) {
            if (bound === Number.POSITIVE_INFINITY)
                return previousBound;
            if (count === previousCount)
                return bound;
            return previousBound + ((bound - previousBound) * (rank - previousCount)) / (count - previousCount);
        }
        previousBound = bound;
        previousCount = count;
    }
    return previousBound;
}
/**
 * The server-side view of one run from /metrics scraped before, during and after it: counter deltas,
 * gauge maxima and means, and histogram percentiles. A metric the server does not expose is null and
 * named in `missing`, never zero.
 */
function summarizeServerMetrics(scrapes) {
    const parsed = scrapes
        .filter((scrape) => scrape.text !== null && scrape.status === 200)
        .map((scrape) => ({ phase: scrape.phase, samples: parsePrometheusText(scrape.text) }));
    const before = parsed.find((scrape) => scrape.phase === "before")?.samples;
    const after = [...parsed].reverse().find((scrape) => scrape.phase === "after")?.samples;
    if (!before || !after)
        return null;
    const missing = [];
    const counterDelta = (candidates) => {
        const name = present(after, candidates);
        if (name === null) {
            missing.push(candidates[0]);
            return null;
        }
        return total(after, name) - total(before, name);
    };
    const gauge = (candidates) => {
        const name = present(after, candidates) ?? parsed.map((scrape) => present(scrape.samples, candidates)).find(Boolean);
        if (!name) {
            missing.push(candidates[0]);
            return null;
        }
        const during = parsed.filter((scrape) => scrape.phase === "during");
        const pool = (during.length > 0 ? during : parsed).filter((scrape) => scrape.samples.some((s) => s.name === name));
        const values = pool.map((scrape) => total(scrape.samples, name));
        if (values.length === 0)
            return null;
        return { max: largest(values), mean: values.reduce((sum, value) => sum + value, 0) / values.length };
    };
    const quantiles = (candidates) => {
        const name = present(after, candidates.map((candidate) => `${candidate}_bucket`));
        if (name === null) {
            missing.push(candidates[0]);
            return { p50: null, p95: null };
        }
        const histogram = name.slice(0, -"_bucket".length);
        const start = buckets(before, histogram);
        const end = buckets(after, histogram);
        const toMs = (value) => (value === null ? null : value * 1000);
        return { p50: toMs(histogramQuantile(start, end, 0.5)), p95: toMs(histogramQuantile(start, end, 0.95)) };
    };
    const resolution = {};
    const resolve = (figure, candidates, q) => {
        const name = present(after, candidates.map((candidate) => `${candidate}_bucket`));
        if (name === null)
            return;
        const histogram = name.slice(0, -"_bucket".length);
        const bucket = histogramQuantileBucket(buckets(before, histogram), buckets(after, histogram), q);
        if (bucket)
            resolution[figure] = bucket;
    };
    resolve("server_ttft_p50_ms", names.ttft, 0.5);
    resolve("server_ttft_p95_ms", names.ttft, 0.95);
    resolve("server_queue_p50_ms", names.queue, 0.5);
    resolve("server_queue_p95_ms", names.queue, 0.95);
    const spec = specDecodeSummary(before, after);
    const sim = simulatorLateness(before, after);
    const preemptions = counterDelta(names.preemptions);
    const queries = counterDelta(names.prefixQueries);
    const hits = counterDelta(names.prefixHits);
    const kv = gauge(names.kvUsage);
    const running = gauge(names.running);
    const waiting = gauge(names.waiting);
    const promptTokens = counterDelta(names.promptTokens);
    const generationTokens = counterDelta(names.generationTokens);
    const success = counterDelta(names.success);
    const ttft = quantiles(names.ttft);
    const queue = quantiles(names.queue);
    return {
        preemptions,
        prefix_cache_queries: queries,
        prefix_cache_hits: hits,
        prefix_cache_hit_rate: queries !== null && hits !== null && queries > 0 ? hits / queries : null,
        kv_cache_usage_max: kv?.max ?? null,
        kv_cache_usage_mean: kv?.mean ?? null,
        running_max: running?.max ?? null,
        waiting_max: waiting?.max ?? null,
        prompt_tokens: promptTokens,
        generation_tokens: generationTokens,
        server_ttft_p50_ms: ttft.p50,
        server_ttft_p95_ms: ttft.p95,
        server_queue_p50_ms: queue.p50,
        server_queue_p95_ms: queue.p95,
        requests_completed: success,
        missing,
        server_percentile_resolution: resolution,
        ...spec,
        ...sim,
    };
}
/** The simulator-only family (src/sim/metrics-text.ts): how late its step loop handled each step. */
const simStepLatenessFamily = "sim:step_lateness_seconds";
/**
 * The simulator's lateness over the run, from its own histogram's deltas: the steps it handled and the
 * p99 of their lateness (ms). Absent (undefined) for a server without the family, as every real vLLM;
 * never listed in `missing`.
 */
function simulatorLateness(before, after) {
    if (!after.some((sample) => sample.name === `${simStepLatenessFamily}_bucket`))
        return {};
    const start = buckets(before, simStepLatenessFamily);
    const end = buckets(after, simStepLatenessFamily);
    const steps = (end.get(Number.POSITIVE_INFINITY) ?? 0) - (start.get(Number.POSITIVE_INFINITY) ?? 0);
    const p99 = histogramQuantile(start, end, 0.99);
    return { sim_steps: steps, sim_step_lateness_p99_ms: p99 === null ? null : p99 * 1000 };
}
/**
 * The bucket a histogram quantile falls in, in ms: all that the histogram really knows about it. The
 * interpolated figure (histogramQuantile) is only a guess inside [lower, upper]; `display` says what is
 * known, "< 300 ms" for a rank in the first bucket.
 */
function histogramQuantileBucket(before, after, q) {
    const bounds = [...after.keys()].sort((a, b) => a - b);
    const counts = bounds.map((bound) => (after.get(bound) ?? 0) - (before.get(bound) ?? 0));
    const totalCount = counts[counts.length - 1] ?? 0;
    if (!(totalCount > 0))
        return null;
    const rank = q * totalCount;
    let lower = 0;
    for (let index = 0; index < bounds.length; index++) {
        const bound = bounds[index];
        if (counts[index] >= rank && counts[index] > 0) {
            const upper = bound === Number.POSITIVE_INFINITY ? null : bound * 1000;
            return { lower_ms: lower * 1000, upper_ms: upper, display: describeBucket(lower * 1000, upper) };
        }
        lower = bound;
    }
    return null;
}
function formatMs(ms) {
    if (ms >= 1000)
        return `${Number((ms / 1000).toPrecision(6))} s`;
    return `${Number(ms.toPrecision(6))} ms`;
}
function describeBucket(lowerMs, upperMs) {
    if (upperMs === null)
        return `> ${formatMs(lowerMs)}`;
    if (lowerMs === 0)
        return `< ${formatMs(upperMs)}`;
    return `${formatMs(lowerMs)} to ${formatMs(upperMs)}`;
}
/**
 * Speculative decoding over the run, from vLLM's counters (vllm/v1/spec_decode/metrics.py @ 016a8587):
 * acceptance rate = accepted / draft tokens. All null when the server does not speculate; these are not
 * listed in `missing`, since most servers have no draft model.
 */
function specDecodeSummary(before, after) {
    const delta = (name) => after.some((sample) => sample.name === name) ? total(after, name) - total(before, name) : null;
    const drafts = delta("vllm:spec_decode_num_drafts_total");
    const draftTokens = delta("vllm:spec_decode_num_draft_tokens_total");
    const accepted = delta("vllm:spec_decode_num_accepted_tokens_total");
    return {
        spec_decode_drafts: drafts,
        spec_decode_draft_tokens: draftTokens,
        spec_decode_accepted_tokens: accepted,
        spec_decode_acceptance_rate: specDecodeValue({ drafts, draftTokens, acceptedTokens: accepted }, "acceptance_rate"),
    };
}
/**
 * The time series of one run's scrapes (summed over engines), in scrape order; failed scrapes are left
 * out. The same metric names as summarizeServerMetrics, current name first.
 */
function scrapeSeries(scrapes) {
    const points = [];
    for (const scrape of scrapes) {
        if (scrape.text === null || scrape.status !== 200)
            continue;
        const samples = parsePrometheusText(scrape.text);
        const value = (candidates) => {
            const name = present(samples, candidates);
            return name === null ? null : total(samples, name);
        };
        points.push({
            atMs: scrape.atMs,
            running: value(names.running),
            waiting: value(names.waiting),
            kvUsage: value(names.kvUsage),
            preemptionsTotal: value(names.preemptions),
        });
    }
    return points;
}

/**
 * The markdown building blocks every report section uses: a table and a fold. Cells and summaries are
 * the caller's (already escaped for their context: `escapeCell`, `escapeHtml`); nothing here adds text.
 */
/** A GFM table; `rows` hold escaped cells. */
function table(header, rows) {
    const line = (cells) => `| ${cells.join(" | ")} |`;
    return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
/**
 * A collapsed section: `<details>` with a summary that says what is inside ("76 checks within
 * tolerance"). The summary is HTML, where markdown is not parsed: our own words, with any part from
 * outside through `escapeHtml`. The body is markdown.
 */
function fold(summary, body) {
    // A blank line after the summary and before the end: GitHub renders the body as markdown only then.
    return `<details><summary>${summary}</summary>\n\n${body.trim()}\n\n</details>`;
}
/**
 * Checks as a matrix: a row per cell, a column per check (in the order first seen), `value` in the
 * crossing. For the folds of many checks where nothing happened: 19 rows instead of 95. `cell` is escaped
 * for a table cell by the caller.
 */
function checkMatrix(corner, items, 
/** Column order (default: as first seen). */
order) {
    const seen = new Set(items.map((item) => item.column));
    const columns = order ? order.filter((column) => seen.has(column)) : [...seen];
    const rows = new Map();
    for (const item of items) {
        const row = rows.get(item.cell) ?? new Map();
        row.set(item.column, item.value);
        rows.set(item.cell, row);
    }
    return table([corner, ...columns], [...rows].map(([cell, values]) => [cell, ...columns.map((column) => values.get(column) ?? "")]));
}

/**
 * The tables of the per-metric checks: every gated check (the long form's acceptance table), the gated
 * checks within tolerance (a fold of the comment), and every metric of each cell (the long form's folds).
 * Verdict first; a check's note is a footnote under its table.
 */
const metricVerdictLabels = {
    regression: "🔴 regression",
    improvement: "🟢 improvement",
    "within-tolerance": "⚪ within tolerance",
    inconclusive: "🟡 inconclusive",
};
/**
 * A check's verdict as the tables say it. Within tolerance is decided on the interval's better end at the
 * within-tolerance level, an improvement on the Holm-adjusted improvement test at the gate's level
 * (docs/compare.md): a row can be within tolerance with its whole decision interval past the tolerance
 * on the better side. Its label says so instead of contradicting the interval shown.
 */
function metricVerdictLabel(c) {
    if (c.verdict === "within-tolerance" && c.ci !== null) {
        const [low, high] = c.ci;
        const betterBeyond = c.higherIsBetter ? low > 1 + c.tolerance : high < 1 / (1 + c.tolerance);
        if (betterBeyond)
            return "⚪ within tolerance: better beyond it, but not a significant improvement at the adjusted level";
    }
    return metricVerdictLabels[c.verdict];
}
/** "+12%": the smallest true worsening this run count catches with 90% power. */
function formatDetectable(c) {
    if (c.detectableChange === null)
        return "–";
    // In the metric's own direction: a throughput worsening is a drop.
    if (c.higherIsBetter)
        return `−${((1 - 1 / (1 + c.detectableChange)) * 100).toFixed(1)}%`;
    return `+${(c.detectableChange * 100).toFixed(1)}%`;
}
/** Notes as numbered footnotes: equal notes share a number. */
class Footnotes {
    notes = [];
    /** The mark to put after a cell ("¹"), "" for no note. */
    mark(note) {
        if (!note)
            return "";
        let index = this.notes.indexOf(note);
        if (index < 0)
            index = this.notes.push(note) - 1;
        return footnoteMark(index);
    }
    /** The footnotes, each escaped by `escape`: "¹ runs nearly identical … · ² …", or "" without any. */
    text(escapeNote = (note) => escapeInline(note, 200)) {
        return this.notes.map((note, i) => `${footnoteMark(i)} ${escapeNote(note)}`).join(" · ");
    }
}
const superscripts = ["¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"];
function footnoteMark(index) {
    return superscripts[index] ?? `⁽${index + 1}⁾`;
}
const arrow = (c) => (c.higherIsBetter ? " ↑" : " ↓");
/** The header of checkRow's columns: the two are kept side by side so they cannot drift apart. */
function checkHeader(withCell) {
    return [
        "Verdict",
        ...(withCell ? ["Cell"] : []),
        "Metric",
        "Tolerance",
        "Baseline",
        "Candidate",
        "Change",
        "Decision interval",
        "p (adj.)",
        "Detectable",
    ];
}
function checkRow(c, withCell, notes) {
    return [
        metricVerdictLabel(c) + notes.mark(c.note),
        ...(withCell ? [escapeCell(c.cell, 60)] : []),
        describeMetric(c.metric) + arrow(c),
        `±${formatFractionAsPercent(c.tolerance)}`,
        formatMetricValue(c.metric, c.baseline),
        formatMetricValue(c.metric, c.candidate),
        formatChange(c.ratio),
        formatInterval(c.ci),
        formatP(c.p),
        formatDetectable(c),
    ];
}
/**
 * Per gated check, the smallest worsening this runner and run count catch at 90% power (the
 * comparison's detectable change, with a calibration's or main's pooled variance when one was used):
 * "catches ≥ +7.0% chat TTFT p95, ≥ −9.1% chat Output throughput".
 */
function catchesPerCheckLine(gated) {
    const known = gated.filter((c) => c.detectableChange !== null);
    if (known.length === 0)
        return null;
    const cells = new Set(known.map((c) => c.cell));
    const items = known.map((c) => `≥ ${formatDetectable(c)} ${cells.size > 1 ? `${escapeInline(c.cell, 60)} ` : ""}${describeMetric(c.metric)}`);
    return `Per check at 90% power, these runs catch: ${items.join(", ")}.`;
}
/** What the least sensitive gated check catches, against gate.detect_change; null without one. */
function detectionLine(verdict) {
    const d = verdict.detection;
    if (!d)
        return null;
    const reach = d.detectableChange <= d.detectChange
        ? `that covers the +${formatFractionAsPercent(d.detectChange)} the gate must catch (gate.detect_change).`
        : d.runsPerSideForDetectChange === null
            ? `catching +${formatFractionAsPercent(d.detectChange)} (gate.detect_change) is out of reach with these conditions${verdict.mode === "stored" ? " (the stored baseline's drift does not shrink with runs)" : ""}.`
            : `catching +${formatFractionAsPercent(d.detectChange)} (gate.detect_change) needs about ${d.runsPerSideForDetectChange} runs per side.`;
    return `These runs catch a worsening of ${formatDetectable({ detectableChange: d.detectableChange, higherIsBetter: false })} or more with 90% power (least sensitive check: ${escapeInline(d.cell, 60)} ${describeMetric(d.metric)}); ${reach}`;
}
/** The long form's table of every gated check, with what the runs can catch and how to read it. */
function acceptanceSection(verdict) {
    const gated = verdict.comparisons.filter((c) => c.gated);
    const notes = new Footnotes();
    const body = gated.length > 0
        ? table(checkHeader(true), gated.map((c) => checkRow(c, true, notes)))
        : "_No gated metric could be compared._";
    const detection = detectionLine(verdict);
    const perCheck = catchesPerCheckLine(gated);
    const footnotes = notes.text();
    return [
        "### Gated checks",
        "",
        body,
        ...(footnotes ? ["", footnotes] : []),
        ...(detection ? ["", detection] : []),
        ...(perCheck ? ["", perCheck] : []),
        "",
        "↓ lower is better · ↑ higher is better · baseline and candidate are geometric means over runs · " +
            "decision interval: its worse end at the level the regression test faced (after Holm and the look's α" +
            (verdict.mode === "stored" ? ", with the session drift" : "") +
            "), its better end at the within-tolerance level: regression when the whole interval is beyond the tolerance, within tolerance when its worse end is inside; improvement needs the Holm-adjusted improvement test, so a row within tolerance can lie wholly beyond the tolerance on the better side · " +
            `p (adj.): Holm-adjusted p of the test against the tolerance · detectable: the smallest worsening these runs catch with 90% power (gate.detect_change ${formatFractionAsPercent(verdict.settings.detectChange)})`,
    ].join("\n");
}
/**
 * The comment's fold of the gated checks within tolerance, as a matrix of cells and metrics: each
 * crossing the change and its decision interval (or both values for a pooled count). Empty without any.
 */
function withinToleranceFold(verdict) {
    const within = verdict.comparisons.filter((c) => c.gated && c.verdict === "within-tolerance");
    if (within.length === 0)
        return "";
    const column = (c) => describeMetric(c.metric) + arrow(c);
    const items = within.map((c) => ({
        cell: escapeCell(c.cell, 40),
        column: column(c),
        value: c.ratio === null ? valuesOnBothSides(c) : `${formatChange(c.ratio)} (${formatIntervalOneLine(c.ci)})`,
    }));
    // Columns in the catalogue's order, whatever order the cells list them in.
    const order = [
        ...new Set([...within].sort((a, b) => metricNames.indexOf(a.metric) - metricNames.indexOf(b.metric)).map(column)),
    ];
    return fold(`${within.length} check${within.length === 1 ? "" : "s"} within tolerance`, [
        checkMatrix("Cell", items, order),
        "",
        "Change of each check, its decision interval in brackets; every value is in the full report.",
    ].join("\n"));
}
/** "both 0.00%", or "0.10% → 0.20%". */
function valuesOnBothSides(c) {
    const base = formatMetricValue(c.metric, c.baseline);
    return base === formatMetricValue(c.metric, c.candidate)
        ? `both ${base}`
        : formatValuePair(c.metric, c.baseline, c.candidate);
}
/** The long form's folds: every metric of each cell, gated and advisory. */
function perCellDetails(verdict) {
    const blocks = [];
    for (const cell of verdict.cells) {
        const rows = verdict.comparisons.filter((c) => c.cell === cell.name);
        if (rows.length === 0)
            continue;
        const notes = new Footnotes();
        const body = rows.map((c) => [...checkRow(c, false, notes), c.gated ? "gated" : "advisory"]);
        const cross = rows.filter((c) => c.crossCheck && c.gated);
        const footnotes = notes.text();
        blocks.push(fold(`All metrics: ${escapeHtml(cell.name, 60)} (${cell.baselineRuns} baseline, ${cell.candidateRuns} candidate runs)`, [
            table([...checkHeader(false), "Family"], body),
            ...(footnotes ? ["", footnotes] : []),
            ...(cross.length > 0
                ? [
                    "",
                    `Rank cross-check (never blocks): ${cross
                        .map((c) => `${describeMetric(c.metric)} Mann-Whitney p ${formatP(c.crossCheck.mannWhitneyP)}, Hodges-Lehmann ${formatChange(c.crossCheck.hodgesLehmannRatio)}`)
                        .join("; ")}.`,
                ]
                : []),
        ].join("\n")));
    }
    return blocks.join("\n\n");
}

/**
 * A server that would not start (or could not be reached). The message is complete on its own: what failed,
 * the likely cause and the last log lines, already redacted; the CLI prints it and exits 1.
 */
class ServerStartError extends FailureError {
    stage;
    likelyCause;
    lastLogLines;
    logFile;
    constructor(options) {
        super(formatStartFailure(options));
        this.stage = options.stage;
        this.likelyCause = options.diagnosis?.cause;
        this.lastLogLines = options.lastLogLines ?? [];
        this.logFile = options.logFile;
    }
}
function formatStartFailure(options) {
    const parts = [options.summary];
    if (options.diagnosis)
        parts.push(`Likely cause: ${options.diagnosis.advice} (log: "${options.diagnosis.evidence}").`);
    const lines = options.lastLogLines ?? [];
    if (lines.length > 0)
        parts.push(`Last ${lines.length} log lines:\n${lines.map((line) => `  | ${line}`).join("\n")}`);
    if (options.logFile)
        parts.push(`Full log: ${options.logFile}`);
    return parts.join("\n");
}

// What the kinds that start a process of their own (kinds/command.ts, kinds/sim.ts) hand it.
/** vLLM registers POST /reset_prefix_cache only in dev mode; a server shared by a cell's runs needs it. */
function devModeEnv(devMode) {
    return devMode ? { VLLM_SERVER_DEV_MODE: "1" } : {};
}
/**
 * The devices of one server (runner.devices): the GPUs it sees (CUDA_VISIBLE_DEVICES, as CUDA programs
 * read it) and, in the command's arguments, `{device}` and `{port}` (each device's server on its own port).
 */
function deviceEnv(device) {
    return device ? { CUDA_VISIBLE_DEVICES: device.spec } : {};
}
function withDevice(argv, device, port) {
    return argv.map((arg) => arg.replaceAll("{port}", String(port)).replaceAll("{device}", device?.spec ?? ""));
}

/**
 * Starts a server command as the leader of its own process group (vLLM forks engine and worker processes
 * that must die with it), streams its output into the redacted log and records it in the state file.
 */
async function spawnServerProcess(argv, options, services) {
    const [command, ...args] = argv;
    if (command === undefined)
        return { spawnError: "the command line is empty" };
    const child = spawn(command, args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
    });
    const spawned = await new Promise((resolve) => {
        child.once("spawn", () => resolve({ ok: true }));
        child.once("error", (error) => resolve({
            ok: false,
            message: error.code === "ENOENT"
                ? `"${command}" was not found (is it installed and on PATH${options.cwd ? `, relative to ${options.cwd}` : ""}?)`
                : `"${command}" could not be started: ${error.message}`,
        }));
    });
    if (!spawned.ok || child.pid === undefined)
        return { spawnError: spawned.ok ? "no process id" : spawned.message };
    const pid = child.pid;
    services.log.follow(child.stdout);
    services.log.follow(child.stderr);
    let stopping = false;
    const closed = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    const exited = closed.then(({ code, signal }) => new Promise((resolve) => {
        if (stopping)
            return;
        resolve({
            reason: signal
                ? `the server process was killed by ${signal}`
                : `the server process exited with code ${code}`,
        });
    }));
    let stopped;
    const server = {
        child,
        pid,
        exited,
        stop() {
            stopping = true;
            stopped ??= (async () => {
                const result = await terminateGroup(pid, { graceMs: services.stopGraceMs, clock: services.clock });
                const notes = [];
                if (result.escalated)
                    notes.push(`the server ignored SIGTERM for ${services.stopGraceMs} ms and was killed (SIGKILL)`);
                if (result.survived)
                    notes.push(`process group ${pid} survived SIGKILL`);
                // The leader is reaped by Node; give the exit event a moment so pipes are drained into the log.
                await Promise.race([closed, services.clock.sleep(2_000)]);
                return { ...result, notes };
            })();
            return stopped;
        },
    };
    try {
        await services.remember({
            kind: options.kind,
            pid,
            processGroup: pid,
            port: options.port,
            logFile: services.log.path,
        });
    }
    catch (error) {
        // A server nobody could clean up after a cancellation must not be left running.
        await server.stop();
        throw error;
    }
    return server;
}

async function launchCommand(config, services, options) {
    const argv = withDevice(config.argv, services.device, config.port);
    // Printed and recorded as the config writes it: `${VAR}` stays a template (it may be a secret); the
    // condition keeps `{port}` and `{device}` as written, so the servers of several devices record alike.
    const recordedArgv = (options.recorded ?? config).argv.map(services.log.redact);
    services.log.note(`starting: ${withDevice(recordedArgv, services.device, config.port).join(" ")}`);
    const spawned = await spawnServerProcess(argv, {
        cwd: config.cwd,
        env: { ...services.env, ...devModeEnv(options.devMode), ...deviceEnv(services.device), ...config.env },
        kind: "command",
        port: config.port,
    }, services);
    if ("spawnError" in spawned) {
        throw new ServerStartError({
            summary: `server.argv could not be started: ${spawned.spawnError}.`,
            stage: "launch",
            logFile: services.log.path,
        });
    }
    const baseUrl = `http://${config.host}:${config.port}`;
    return {
        baseUrl,
        metricsUrl: `${baseUrl}/metrics`,
        port: config.port,
        exited: spawned.exited,
        conditions: { command: recordedArgv, args: recordedArgv.slice(1) },
        stop: () => spawned.stop(),
    };
}
/** Any command line, started as the leader of its own process group. */
const commandEntry = {
    launch: ({ config, services, sharedByCell, recorded }) => launchCommand(config, services, { devMode: sharedByCell, recorded: recorded.server }),
    settings: (server) => ({ env: Object.keys(server.env).sort(), lifecycle: server.lifecycle }),
    usesLocalGpu: true,
    fixedPort: (server) => server.port,
    passedEnv: () => [],
};

const causePatterns = [
    {
        cause: "missing-hf-token",
        pattern: /GatedRepoError|Cannot access gated repo|Access to model .* is restricted|401 Client Error|You are trying to access a gated repo|Invalid user token|must be authenticated/i,
        advice: "the model is gated or private: pass a Hugging Face token (server.env: [HF_TOKEN]) that has access to it",
    },
    {
        cause: "model-not-found",
        pattern: /RepositoryNotFoundError|Repository Not Found|is not a local folder and is not a valid model identifier|404 Client Error|RevisionNotFoundError|Invalid repository ID|does not appear to have a file named config\.json/i,
        advice: "the model (or its revision) was not found: check model.name, model.source and model.revision",
    },
    {
        cause: "kv-cache-too-small",
        pattern: /larger than the maximum number of tokens that can be stored in KV cache|KV cache is needed, which is larger than the available KV cache memory|No available memory for the cache blocks/i,
        advice: "the KV cache does not fit max_model_len: lower --max-model-len or raise --gpu-memory-utilization",
    },
    {
        cause: "gpu-out-of-memory",
        pattern: /CUDA out of memory|OutOfMemoryError|out of memory|Free memory on device .* is less than desired GPU memory utilization/i,
        advice: "GPU out of memory: another process may hold the GPU (check nvidia-smi), or lower --gpu-memory-utilization / --max-model-len",
    },
    {
        cause: "no-gpu-runtime",
        pattern: /could not select device driver .* with capabilities: \[\[gpu\]\]|nvidia-container-cli|unknown or invalid runtime name: nvidia/i,
        advice: "docker cannot give the container a GPU: install and configure the NVIDIA Container Toolkit on the runner",
    },
    {
        cause: "cuda-error",
        pattern: /CUDA error|CUDA driver version is insufficient|no CUDA-capable device|NVIDIA driver on your system is too old|cudaErrorNoDevice|NCCL error|Found no NVIDIA driver/i,
        advice: "a CUDA error: check the driver version against the image's CUDA version and that the GPU is visible",
    },
    {
        cause: "port-in-use",
        pattern: /address already in use|EADDRINUSE|port is already allocated|\[Errno 98\]/i,
        advice: "the port is already in use: stop the other server or pick another server.port",
    },
    {
        cause: "image-not-found",
        pattern: /pull access denied|manifest unknown|repository does not exist|not found: manifest|No such image/i,
        advice: "the image could not be pulled: check server.image (and docker login for a private registry)",
    },
    {
        // The daemon's own words when it cannot reach a registry (docker 20.10 to 28).
        cause: "registry-unreachable",
        pattern: /dial tcp .*(connection refused|i\/o timeout|no route to host|network is unreachable)|lookup .* no such host|TLS handshake timeout|Client\.Timeout exceeded while awaiting headers|request canceled while waiting for connection/i,
        advice: "the daemon cannot reach the image's registry (network, proxy or DNS): pull the image beforehand (docker pull, docker load), or use a registry mirror this machine reaches",
    },
];
function diagnoseLog(lines) {
    // The latest lines carry the fatal error; earlier ones may hold recovered warnings.
    for (let index = lines.length - 1; index >= 0; index--) {
        const line = lines[index];
        for (const { cause, pattern, advice } of causePatterns) {
            if (pattern.test(line))
                return { cause, advice, evidence: line.trim() };
        }
    }
    return undefined;
}

/** Engine flags are `--name value` or `--name=value`; finds a value either way. */
function flagValue(args, flag) {
    for (let index = 0; index < args.length; index++) {
        const arg = args[index];
        if (arg === flag)
            return args[index + 1];
        if (arg.startsWith(`${flag}=`))
            return arg.slice(flag.length + 1);
    }
    return undefined;
}
function hasFlag(args, flag) {
    return args.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
}

const defaultContainerPort = 8000;
/**
 * Engine arguments as the container will get them: the configured ones, plus the model pins from the
 * `model` section when the arguments do not already say them, so the recorded pins are the ones served.
 */
function dockerEngineArgs(config, model) {
    const args = [...config.args];
    const positionalModel = args.length > 0 && !args[0].startsWith("-");
    const extra = [];
    // vllm/vllm-openai's entrypoint is `vllm serve`, which takes the model positionally (--model draws a
    // deprecation warning there); an image whose entrypoint wants --model says so in server.args.
    const addModel = !positionalModel && !hasFlag(args, "--model");
    if (!hasFlag(args, "--served-model-name"))
        extra.push("--served-model-name", model.name);
    if (model.revision && !hasFlag(args, "--revision"))
        extra.push("--revision", model.revision);
    if (model.tokenizer_revision && !hasFlag(args, "--tokenizer-revision")) {
        extra.push("--tokenizer-revision", model.tokenizer_revision);
    }
    if (positionalModel)
        return [args[0], ...extra, ...args.slice(1)];
    return addModel ? [model.source ?? model.name, ...extra, ...args] : [...extra, ...args];
}
/** `docker run` arguments: GPUs, shared memory for NCCL (--ipc=host), the port, the HF cache, env by name. */
function dockerRunArgs(config, engineArgs, containerName, options) {
    const containerPort = Number(flagValue(engineArgs, "--port") ?? defaultContainerPort);
    return [
        "run",
        "--detach",
        "--name",
        containerName,
        "--label",
        "vllm-perf-gate=1",
        ...gpusArgs(config, options.device),
        "--ipc=host",
        "--publish",
        `${publishHost(config.publish_address)}:${config.port}:${containerPort}`,
        ...(config.hf_cache_dir ? ["--volume", `${config.hf_cache_dir}:/root/.cache/huggingface`] : []),
        // By name only: docker copies the value from its own environment, so no secret is on a command line.
        ...config.env.flatMap((name) => ["--env", name]),
        ...(options.devMode ? ["--env", "VLLM_SERVER_DEV_MODE=1"] : []),
        ...config.docker_args,
        config.image,
        ...engineArgs,
    ];
}
/**
 * docker's --gpus: one server per device (runner.devices) gets docker's device request, quoted when it
 * lists several; otherwise the config's value, and no flag at all for `gpus: none`.
 */
function gpusArgs(config, device) {
    if (device)
        return ["--gpus", device.spec.includes(",") ? `"device=${device.spec}"` : `device=${device.spec}`];
    return config.gpus === "none" ? [] : ["--gpus", config.gpus];
}
/** An IPv6 address is bracketed in docker's --publish. */
function publishHost(address) {
    return address.includes(":") && !address.startsWith("[") ? `[${address}]` : address;
}
/** Where the tool connects: the published address, or loopback when it is published on every interface. */
function connectHost(address) {
    if (address === "0.0.0.0" || address === "::" || address === "[::]")
        return "127.0.0.1";
    return publishHost(address);
}
/** A repository as docker names it in RepoDigests: Docker Hub's host and `library/` left out. */
function hubShortName(repository) {
    return repository
        .replace(/^(?:docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, "")
        .replace(/^library\//, "");
}
/**
 * The repo digest of the configured repository, from `docker image inspect` RepoDigests, or null. Never
 * another repository's: a local tag over an image once pushed elsewhere would record that push, whose
 * order among RepoDigests differs between machines; the image ID is the identity of such an image.
 */
function pickRepoDigest(repoDigests, image) {
    const repository = hubShortName(image.split("@")[0].replace(/:[^/:]+$/, ""));
    return repoDigests.find((digest) => hubShortName(digest.split("@")[0]) === repository) ?? null;
}
async function launchDocker(config, model, services) {
    const { log, env } = services;
    const docker = services.dockerCommand;
    const fail = (summary, lines) => new ServerStartError({
        summary,
        stage: "launch",
        diagnosis: diagnoseLog(lines),
        lastLogLines: lines.slice(-20),
        logFile: log.path,
    });
    const recorded = services.recorded ?? { server: config, model };
    const { digest: imageDigest, id: imageId } = await resolveImage(config.image, services, fail);
    if (!config.image.includes("@sha256:")) {
        services.warnOnce(`server.image "${recorded.server.image}" is pinned by tag only (resolved to ${imageDigest ?? "an unknown digest"}); a tag can move, so pin the digest (image@sha256:...) for reproducible comparisons.`);
    }
    const engineArgs = dockerEngineArgs(config, model);
    const containerName = `vllm-perf-gate-${services.id}`;
    const runArgs = dockerRunArgs(config, engineArgs, containerName, {
        devMode: services.devMode,
        device: services.device,
    });
    // Remembered before `docker run`: a main step cancelled during the run still leaves a name to remove.
    await services.remember({
        kind: "docker",
        container: containerName,
        dockerCommand: [...docker],
        port: config.port,
        logFile: log.path,
    });
    const recordedEngineArgs = dockerEngineArgs(recorded.server, recorded.model);
    log.note(`${describeDockerCli(docker)} ${dockerRunArgs(recorded.server, recordedEngineArgs, containerName, { devMode: services.devMode, device: services.device }).join(" ")}`);
    let runPid;
    const running = dockerExec(docker, runArgs, {
        env,
        timeoutMs: services.startupTimeoutMs,
        onSpawn: (pid) => {
            runPid = pid;
        },
    });
    services.launching?.(runPid, running);
    const run = await running;
    if (run.code !== 0) {
        const lines = `${run.stdout}\n${run.stderr}`.split("\n").filter((line) => line.trim() !== "");
        for (const line of lines)
            log.line(line);
        await dockerExec(docker, ["rm", "--force", containerName], { env, timeoutMs: 30_000 });
        throw fail(run.timedOut
            ? `docker run did not return within ${Math.round(services.startupTimeoutMs / 1000)} s.`
            : `docker run ${recorded.server.image} failed (exit code ${run.code}).`, log.lastLines(20));
    }
    log.note(`container ${containerName} started (id ${run.stdout.trim().slice(0, 12)})`);
    const logs = dockerSpawn(docker, ["logs", "--follow", containerName], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
    });
    logs.on("error", () => { });
    log.follow(logs.stdout);
    log.follow(logs.stderr);
    let stopping = false;
    const waiter = dockerSpawn(docker, ["wait", containerName], { env, stdio: ["ignore", "pipe", "ignore"] });
    const exited = new Promise((resolve) => {
        let output = "";
        waiter.stdout?.setEncoding("utf8").on("data", (chunk) => {
            output += chunk;
        });
        const report = () => {
            if (stopping)
                return;
            const code = output.trim();
            resolve({
                reason: code
                    ? `container ${containerName} exited with code ${code}`
                    : `container ${containerName} stopped`,
            });
        };
        waiter.once("close", report);
        waiter.once("error", report);
    });
    let stopped;
    return {
        baseUrl: `http://${connectHost(config.publish_address)}:${config.port}`,
        metricsUrl: `http://${connectHost(config.publish_address)}:${config.port}/metrics`,
        port: config.port,
        exited,
        conditions: { image: recorded.server.image, imageDigest, imageId, args: recordedEngineArgs },
        stop() {
            stopping = true;
            stopped ??= stopContainer(containerName, [logs, waiter], services);
            return stopped;
        },
    };
}
async function resolveImage(image, services, fail) {
    const docker = services.dockerCommand;
    const inspect = () => dockerExec(docker, ["image", "inspect", "--format", "{{json .RepoDigests}}", image], {
        env: services.env,
        timeoutMs: 30_000,
    });
    let result = await inspect();
    if (result.spawnError) {
        throw fail(`"${docker[0]}" could not be run (${result.spawnError.code ?? result.spawnError.message}): server.kind docker needs the docker CLI on PATH (or server.docker_command) and a running daemon.`, []);
    }
    if (result.code !== 0) {
        services.log.note(`image ${image} not present locally; pulling`);
        const pull = await dockerExec(docker, ["pull", image], {
            env: services.env,
            timeoutMs: services.startupTimeoutMs,
            onLine: (line) => services.log.line(line),
        });
        if (pull.code !== 0) {
            throw fail(pull.timedOut
                ? `docker pull ${image} did not finish within ${Math.round(services.startupTimeoutMs / 1000)} s.`
                : `docker pull ${image} failed (exit code ${pull.code}): the server was not started.`, services.log.lastLines(20));
        }
        result = await inspect();
    }
    if (result.code !== 0)
        return { digest: null, id: null };
    // The image ID identifies an image that has no repo digest (built, imported, loaded): what a local
    // tag pointed at when the run started.
    const id = await dockerExec(docker, ["image", "inspect", "--format", "{{.Id}}", image], {
        env: services.env,
        timeoutMs: 30_000,
    });
    const imageId = id.code === 0 && /^sha256:[0-9a-f]{64}$/.test(id.stdout.trim()) ? id.stdout.trim() : null;
    try {
        const digests = JSON.parse(result.stdout.trim());
        return {
            digest: Array.isArray(digests) ? pickRepoDigest(digests.map(String), image) : null,
            id: imageId,
        };
    }
    catch {
        return { digest: null, id: imageId };
    }
}
async function stopContainer(containerName, followers, services) {
    const docker = services.dockerCommand;
    const graceS = Math.max(1, Math.ceil(services.stopGraceMs / 1000));
    const notes = [];
    const started = services.clock.now();
    // docker stop sends SIGTERM, waits -t seconds, then SIGKILLs; rm --force removes whatever is left.
    // -t: `--time` in docker 20.10, `--timeout` since 28 (which deprecates --time); -t is both.
    const stop = await dockerExec(docker, ["stop", "-t", String(graceS), containerName], {
        env: services.env,
        timeoutMs: services.stopGraceMs + 30_000,
    });
    const escalated = stop.code === 0 && services.clock.now() - started >= graceS * 1000;
    // `docker logs --follow` ends by itself once the container stops; let it deliver the last lines.
    const [logs] = followers;
    if (logs && logs.exitCode === null && logs.signalCode === null) {
        await Promise.race([new Promise((resolve) => logs.once("close", resolve)), services.clock.sleep(2_000)]);
    }
    if (escalated)
        notes.push(`container ${containerName} ignored SIGTERM for ${graceS} s and was killed`);
    const remove = await dockerExec(docker, ["rm", "--force", containerName], {
        env: services.env,
        timeoutMs: 30_000,
    });
    const survived = remove.code !== 0 && !/No such container/i.test(remove.stderr);
    if (survived)
        notes.push(`docker rm --force ${containerName} failed: ${remove.stderr.trim()}`);
    for (const follower of followers)
        if (follower.exitCode === null)
            follower.kill("SIGKILL");
    return { escalated, survived, notes };
}

/** A pinned container started through the docker CLI (docker-launcher.ts), in dev mode when a cell shares it. */
const dockerEntry = {
    launch: ({ config, model, services, sharedByCell, recorded, dockerCommand }) => launchDocker(config, model, {
        ...services,
        dockerCommand: dockerCommand ?? dockerCliOf(config),
        devMode: sharedByCell,
        recorded,
    }),
    settings: (server) => ({
        gpus: server.gpus,
        dockerArgs: [...server.docker_args],
        env: [...server.env].sort(),
        lifecycle: server.lifecycle,
    }),
    usesLocalGpu: true,
    fixedPort: (server) => server.port,
    passedEnv: (server) => server.env,
};

/** Where an external server (a config's or --base-url's) is reached. */
function externalEndpoint(server) {
    const baseUrl = server.base_url.replace(/\/+$/, "");
    return { baseUrl, metricsUrl: server.metrics_url ?? `${baseUrl}/metrics` };
}
/** A server someone else runs: reached, never started or stopped. */
const externalEntry = {
    launch: ({ config, services, recorded }) => {
        services.log.note(`external server at ${recorded.server.base_url}: nothing to launch`);
        return Promise.resolve({
            ...externalEndpoint(config),
            // An external server is not ours to watch or stop.
            exited: new Promise(() => { }),
            conditions: { args: [] },
            stop: async () => ({ escalated: false, survived: false, notes: [] }),
        });
    },
    settings: () => ({}),
    usesLocalGpu: false,
    fixedPort: () => 0,
    passedEnv: () => [],
};

/**
 * How to run `vllm-perf-gate sim`: the bundled CLI (dist/cli.js) when it exists, which is always the case in
 * the published action; otherwise the TypeScript entry through tsx (a development checkout).
 */
function findPackageRoot(from = dirname(fileURLToPath(import.meta.url))) {
    let directory = from;
    for (;;) {
        const manifest = join(directory, "package.json");
        if (existsSync(manifest)) {
            try {
                if (JSON.parse(readFileSync(manifest, "utf8")).name === "vllm-perf-gate")
                    return directory;
            }
            catch {
                // Not ours; keep climbing.
            }
        }
        const parent = dirname(directory);
        if (parent === directory)
            return undefined;
        directory = parent;
    }
}
/**
 * The argv prefix that runs the CLI; the launcher appends `sim` and its flags. Running from source (this
 * module is a .ts file under tsx or vitest), the simulator runs from source too, so a stale dist/ build
 * never answers for the code under test; the bundled action runs dist/cli.js.
 */
function defaultCliCommand(root = findPackageRoot(), fromSource = import.meta.url.endsWith(".ts")) {
    if (root === undefined)
        return ["vllm-perf-gate"];
    const bundled = join(root, "dist", "cli.js");
    const source = join(root, "src", "cli.ts");
    if (fromSource && existsSync(source))
        return [process.execPath, "--import", resolveTsxLoader(root), source];
    if (existsSync(bundled))
        return [process.execPath, bundled];
    return [process.execPath, "--import", resolveTsxLoader(root), source];
}
function resolveTsxLoader(root) {
    try {
        return import.meta.resolve("tsx");
    }
    catch {
        return join(root, "node_modules", "tsx", "dist", "loader.mjs");
    }
}

/** Simulator flags as the sim command takes them; also what the fingerprint records (no machine paths). */
function simArgs(config, model, seed) {
    return [
        "--host",
        "127.0.0.1",
        "--port",
        String(config.port),
        "--profile",
        config.profile,
        "--seed",
        String(seed),
        ...Object.entries(config.set)
            .sort(([a], [b]) => a.localeCompare(b))
            .flatMap(([key, value]) => ["--set", `${key}=${value}`]),
        "--served-model-name",
        model.name,
        ...config.args,
    ];
}
const listeningLine = /vllm-perf-gate sim listening on (https?:\/\/\S+)/;
/**
 * The simulator's environment: the job's, with `VLLM_API_KEY` (where it reads its key, as vLLM does) set to
 * exactly the key the client sends, or removed when the client sends none. A `VLLM_API_KEY` the job's
 * environment holds for some other server must not make the simulator refuse this tool's own client, and a
 * key named by `server.api_key_env` must be the one it requires. The key travels in the environment, never
 * on the command line, which the log and the process list show.
 */
function simEnv(env, apiKey) {
    const { VLLM_API_KEY: _inherited, ...rest } = env;
    return apiKey === undefined ? rest : { ...rest, VLLM_API_KEY: apiKey };
}
async function launchSim(config, model, services, options) {
    // Each start draws its own noise from the configured seed, so per-run servers are not identical replicas.
    const args = simArgs(config, model, config.seed + options.startIndex);
    // The simulated GPU: its device index (the first of the server's devices) selects its speed.
    const device = services.device ? ["--device", services.device.spec.split(",")[0]] : [];
    const argv = [...(options.cliCommand ?? defaultCliCommand()), "sim", ...args, ...device];
    // Printed as the config writes it: `${VAR}` stays a template (it may be a secret).
    const recordedConfig = options.recorded?.server ?? config;
    const recordedModel = options.recorded?.model ?? model;
    const shownSeed = typeof recordedConfig.seed === "number" ? recordedConfig.seed + options.startIndex : recordedConfig.seed;
    services.log.note(`starting simulator: vllm-perf-gate sim ${[...simArgs(recordedConfig, recordedModel, shownSeed), ...device].join(" ")}`);
    let announced = () => { };
    const listening = new Promise((resolve) => {
        announced = resolve;
    });
    const unsubscribe = services.log.onLine((line) => {
        const url = listeningLine.exec(line)?.[1];
        if (url)
            announced(url.replace("//0.0.0.0:", "//127.0.0.1:").replace(/\/+$/, ""));
    });
    const launchedAt = services.clock.now();
    const spawned = await spawnServerProcess(argv, {
        env: {
            ...simEnv(services.env, options.apiKey),
            ...devModeEnv(options.devMode),
            ...deviceEnv(services.device),
        },
        kind: "sim",
        port: config.port,
    }, services);
    if ("spawnError" in spawned) {
        unsubscribe();
        throw new ServerStartError({
            summary: `The simulator could not be started: ${spawned.spawnError}.`,
            stage: "launch",
            logFile: services.log.path,
        });
    }
    let baseUrl = `http://127.0.0.1:${config.port}`;
    if (config.port === 0) {
        // The port is only known once the simulator says where it listens.
        const timeout = services.clock.sleep(services.startupTimeoutMs).then(() => undefined);
        const url = await Promise.race([listening, spawned.exited.then(() => undefined), timeout]);
        if (url === undefined) {
            await spawned.stop();
            throw new ServerStartError({
                summary: 'The simulator did not announce its address ("vllm-perf-gate sim listening on ...") before it exited or timed out.',
                stage: "readiness",
                lastLogLines: services.log.lastLines(20),
                logFile: services.log.path,
            });
        }
        baseUrl = url;
    }
    unsubscribe();
    const port = Number(new URL(baseUrl).port);
    // The configured seed is the condition; the per-start seed derived from it is in the log. Recorded
    // from the config as written (templates for values from the environment).
    const recordedArgs = simArgs(recordedConfig, recordedModel, recordedConfig.seed);
    return {
        baseUrl,
        metricsUrl: `${baseUrl}/metrics`,
        port,
        exited: spawned.exited,
        launchedAt,
        conditions: {
            command: ["vllm-perf-gate", "sim", ...recordedArgs.filter((_, i) => !isPortPair(recordedArgs, i))],
            args: recordedConfig.args,
        },
        stop: () => spawned.stop(),
    };
}
/** A picked port is incidental, not a condition: drop `--port N` from the recorded command line. */
function isPortPair(args, index) {
    return args[index] === "--port" || args[index - 1] === "--port";
}
/** The built-in simulator, started as a `vllm-perf-gate sim` process that announces its address. */
const simEntry = {
    launch: ({ config, model, apiKey, services, startIndex, sharedByCell, recorded, cliCommand }) => launchSim(config, model, services, {
        apiKey,
        cliCommand,
        startIndex,
        devMode: sharedByCell,
        recorded,
    }),
    settings: (server) => ({ lifecycle: server.lifecycle }),
    usesLocalGpu: false,
    fixedPort: (server) => server.port,
    passedEnv: () => [],
};

/**
 * The server-kind registry: each kind's behaviour, one module per kind in kinds/ (how it is launched or
 * reached, what the fingerprint records of it, its GPU, port and passed variables). Keyed by the kinds of
 * config/server-kinds.ts, so a new kind there fails to compile until its entry is here. `--base-url` is an
 * `external` server given on the command line (base-url.ts), so it is reached and fingerprinted by that entry.
 */
const serverKindRegistry = {
    docker: dockerEntry,
    command: commandEntry,
    external: externalEntry,
    sim: simEntry,
};
/** The registry entry of a config's kind, typed for that config. */
function kindEntry(server) {
    return serverKindRegistry[server.kind];
}

/**
 * Every value of the job's secrets, in this order, each value once: the token; per config,
 * `server.api_key_env`'s value, the values of the variables the server is handed by name (the docker
 * kind's `server.env`), the values the config read through `${VAR}`; the variables named on the command
 * line; and, as a safety net, every variable whose name looks like a credential (`credentialName`).
 */
function secretsOf(sources) {
    const { env } = sources;
    const named = [];
    const seen = new Set();
    const add = (name, value) => {
        if (!value || seen.has(value))
            return;
        seen.add(value);
        named.push({ name, value });
    };
    const fromEnv = (name) => {
        if (name)
            add(name, env[name]);
    };
    add("github-token", sources.token);
    for (const { config, interpolation } of sources.configs ?? []) {
        const server = config.server;
        if ("api_key_env" in server)
            fromEnv(server.api_key_env);
        for (const name of kindEntry(server).passedEnv(server))
            fromEnv(name);
        for (const entry of interpolation.values)
            add(entry.name, entry.value);
    }
    for (const name of sources.variables ?? [])
        fromEnv(name);
    for (const name of Object.keys(env).sort())
        if (credentialName.test(name))
            fromEnv(name);
    return named;
}
/** The job's set (see secretsOf) and its redactor; `options.forms` adds the encodings a report gives a value. */
function collectJobSecrets(sources, options = {}) {
    const named = secretsOf(sources);
    return {
        named,
        redactor: createRedactor(named.map((entry) => entry.value), options),
        with: (more) => collectJobSecrets({
            env: sources.env,
            configs: [...(sources.configs ?? []), ...(more.configs ?? [])],
            variables: [...(sources.variables ?? []), ...(more.variables ?? [])],
            token: sources.token ?? more.token,
        }, options),
    };
}

export { decide as $, tallyOf as A, metricVerdictLabel as B, formatDetectable as C, createRedactor as D, redactValue as E, Footnotes as F, cacheConfigFromMetrics as G, parsePrometheusText as H, kindEntry as I, diagnoseLog as J, runExternalTask as K, summarizeServerMetrics as L, appendAll as M, decisionInterval as N, pAbove as O, pBelow as P, holmAdjust as Q, graphAdjust as R, ServerStartError as S, shareIncreaseP as T, logRatioTest as U, startOf as V, loadOfRecord as W, draftsForCell as X, familyDrafts as Y, familyGroupKey as Z, speedMembers as _, mebibyte as a, countGated as a0, overallVerdict as a1, planNextLook as a2, atToleranceChecks as a3, futilityWarnings as a4, settleEstimate as a5, detectionSummary as a6, impactOf as a7, mixedResults as a8, withFamilyHeadline as a9, headlineFor as aa, exitCodeFor as ab, futilityModel as ac, runMinutesOf as ad, capacityCells as ae, capacityDrafts as af, capacityMembers as ag, gpuMinutesSpent as ah, decideCapacity as ai, withCapacity as aj, mixedLoadWarnings as ak, defaultCostModel as al, minimumDetectableChange as am, twoLevelWelch as an, estimateCapacity as b, collectJobSecrets as c, defaultInputLimits as d, externalEndpoint as e, capacityInterval as f, largest as g, loadCurveOf as h, capacityRunsOf as i, capacityObjectivesOf as j, intervalLevel as k, loadRuns as l, minimumSecretLength as m, searchSettingsOf as n, scrapeSeries as o, loadSides as p, fold as q, readRunFile as r, smallest as s, table as t, detectionLine as u, checkMatrix as v, valuesOnBothSides as w, withinToleranceFold as x, acceptanceSection as y, perCellDetails as z };
