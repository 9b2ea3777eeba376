import { m as metricSpecs, d as describeMetric, e as metricNames, f as isGuardMetric, h as metricsMeasuredIn, j as latencyMetricName, k as guardMetrics, c as latencyStatistics, b as latencyStatisticSpec, l as latencyPhases } from './metric-names.js';
import { V as studentTCdf, I as studentTQuantile, W as noncentralityForPower, X as relativeChangeOf, H as toleranceMargin, J as normalCdf, Y as chiSquareQuantile, G as logRatioOf, Z as startWeightFor, K as normalQuantile, _ as twoLevelWelch, $ as optimalRunsPerStart, a0 as diffFingerprints, a1 as describeDifference, a2 as binomialCdf, a3 as logGamma, a4 as pooledDesignEffect, a5 as mannWhitney, a6 as hodgesLehmann, a7 as startOf, a8 as guardShareCount, o as flattenFingerprint, a9 as startLevels, p as pooledRunVariances, b as conditionsHash, aa as maxServerStartIdLength, ab as runGuardsSchema, ac as runOutputSchema, ad as unknownSource, R as specDecodeValue, ae as errorRate, af as assignServerStarts, ag as summarizeServerStarts, i as runRecordFromRunFile, l as formatChange, A as formatIntervalOneLine, v as escapeCell, t as formatFractionAsPercent, w as formatP, q as escapeHtml, u as formatMetricValue, B as formatValuePair, n as formatInterval, k as escapeInline } from './format.js';
import { t as toolVersion, a as toolName, I as InputError } from './version.js';
import { a as mulberry32, b as boxMuller } from './random.js';
import { e as serverKinds, b as serverKindFacts, t as templateView, q as describeServer, u as serverWarnings, i as isSearchedCell, f as serverLifecycle, j as isSessionDataset, a as isTraceDataset, v as describeDataset, w as sessionShape, x as lengthMean, y as meanBranches, z as promptTokensMean, A as outputTokensMean, B as assumedFileSessionTurns, C as configSchema, c as configLimits } from './load.js';
import { o as object, b as boolean, s as string, _ as _enum, n as number, a as array, t as tuple, r as record, d as unknown, u as union, l as literal, p as partialRecord, e as looseObject, f as custom } from './schemas.js';
import { createHash } from 'node:crypto';
import { stat, readdir, readFile } from 'node:fs/promises';
import { join, basename, dirname } from 'node:path';
import { spawn } from 'node:child_process';
import { mkdirSync, existsSync, readFileSync } from 'node:fs';

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
function interval$2(result, alphaEachSide) {
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
        ...(options.runPrior ? { runPrior: options.runPrior } : {}),
    });
    const raw = {
        difference: levels.difference,
        standardError: levels.standardError,
        df: levels.df,
        t: levels.t,
    };
    const sign = options.higherIsBetter ? -1 : 1;
    const oriented = { ...raw, difference: sign * raw.difference};
    const margin = toleranceMargin(options.tolerance);
    const [lo, hi] = interval$2(raw, options.alphaEachSide);
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
 * The estimate's median bias: an estimated variance with ν degrees of freedom is σ²·χ²_ν/ν, whose median
 * is below σ² (by 7% at ν = 10, 3% at ν = 20). Dividing an estimated sd by √(median χ²_ν / ν) makes it
 * median-unbiased for σ, so the detectable change computed from it is too. 1 for a known variance.
 */
function medianSdRatio(df) {
    if (!(df > 0) || !Number.isFinite(df) || df > 1e7)
        return 1;
    return Math.sqrt(chiSquareQuantile(0.5, df) / df);
}
/**
 * Minimum detectable change: the smallest true relative worsening that these run counts block with
 * probability `power` (0.9) when the regression test is at level `alpha`, against the tolerance margin
 * d = ln(1 + tolerance) (docs/compare.md, "The minimum detectable change"). The test rejects when
 * (worse − d)/ŝ > t(1 − α, ν); for a true worsening δ that statistic is noncentral t with ν df and
 * noncentrality (δ − d)/σ_d, so δ = d + λ·σ_d with λ the noncentrality at which it rejects with the
 * power (exact, not t(1 − α) + z(power): the normal's z ignores that ŝ is estimated, which matters at
 * few df and small α). σ_d is the sd of the difference from the estimated variances, corrected for the
 * median bias of an estimate with `df` degrees of freedom, so the printed value is median-unbiased.
 */
function minimumDetectableChange(input) {
    const se = standardErrorAt(input);
    const estimateDf = input.df ?? Number.POSITIVE_INFINITY;
    const testDf = input.testDf ?? estimateDf;
    const alpha = Math.min(0.5, Math.max(input.alpha, 1e-300));
    const critical = studentTQuantile(1 - alpha, testDf);
    const lambda = noncentralityForPower(critical, testDf, input.power ?? plannedPower);
    return relativeChangeOf(toleranceMargin(input.tolerance) + (lambda * se) / medianSdRatio(estimateDf));
}
/** t(1 − α, ν) for the planner's many power evaluations: ν on a grid of 3 significant digits. */
const criticalValues = new Map();
function criticalAt(alpha, df) {
    const grid = Number.isFinite(df) ? Number(df.toPrecision(3)) : df;
    const key = `${alpha}\u0000${grid}`;
    let value = criticalValues.get(key);
    if (value === undefined) {
        value = studentTQuantile(1 - alpha, grid);
        if (criticalValues.size > 10_000)
            criticalValues.clear();
        criticalValues.set(key, value);
    }
    return value;
}
/**
 * The power of the regression test against a true worsening `change` when the variances given are the
 * true ones: the probability that (worse − d)/ŝ exceeds c = t(1 − α, ν), for a noncentral t with ν df
 * and noncentrality λ = (ln(1 + change) − d)/σ_d, by the normal approximation of c·S (Jennett and Welch,
 * the start of noncentralityForPower): Φ((λ − c·(1 − 1/(4ν))) / √(1 + c²/(2ν))), within two points of power
 * of the exact value at ν ≥ 3, one at ν ≥ 5. The budget planner ranks plans that decide no more checks by it,
 * thousands of times a plan, where the exact integral would cost seconds.
 */
function powerAtChange(input, change) {
    const se = standardErrorAt(input);
    const lambda = logRatioOf(change) - toleranceMargin(input.tolerance);
    if (!(se > 0))
        return lambda > 0 ? 1 : 0;
    const df = input.testDf ?? input.df ?? Number.POSITIVE_INFINITY;
    const alpha = Math.min(0.5, Math.max(input.alpha, 1e-300));
    const c = criticalAt(alpha, df);
    if (!Number.isFinite(df) || df > 1e7)
        return normalCdf(lambda / se - c);
    return normalCdf((lambda / se - c * (1 - 1 / (4 * df))) / Math.sqrt(1 + (c * c) / (2 * df)));
}
/**
 * Could this metric become decisive with the given run counts, if the point estimate and run
 * variances stayed as they are? (The futility check of adaptive repeats and the "runs to settle"
 * estimate.)
 */
function resolvableWithMoreRuns(input) {
    const se = standardErrorAt(input);
    const margin = toleranceMargin(input.tolerance);
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
/** The test's Satterthwaite df at projected run counts (see DetectionProjection.varianceDf). */
function projectedTestDf(input, measured, runs) {
    const parts = input.varianceDf;
    if (!parts)
        return input.df;
    const start = input.start;
    const perStart = start ? Math.max(1, Math.floor(start.runsPerStart)) : Number.POSITIVE_INFINITY;
    const grows = (side) => start !== undefined && start.startVariance > 0 && start.fixedWeights?.[side] === undefined;
    const newStarts = (side) => {
        const added = Math.max(0, runs[side] - measured[side]);
        return grows(side) && added > 0 ? Math.ceil(added / perStart) : 0;
    };
    const runDf = (side) => parts[side] + Math.max(0, runs[side] - measured[side]) - newStarts(side);
    const at = { ...input, baselineRuns: runs.baseline, candidateRuns: runs.candidate };
    const vb = input.baselineVariance / runs.baseline;
    const vc = input.candidateVariance / runs.candidate;
    const startPart = startPartAt(at);
    const total = vb + vc + startPart + input.extraVariance;
    const startDf = parts.start + newStarts("baseline") + newStarts("candidate");
    let denominator = 0;
    if (parts.baseline > 0)
        denominator += (vb * vb) / runDf("baseline");
    if (parts.candidate > 0)
        denominator += (vc * vc) / runDf("candidate");
    if (startPart > 0 && startDf > 0)
        denominator += (startPart * startPart) / startDf;
    return denominator > 0 ? (total * total) / denominator : Number.POSITIVE_INFINITY;
}
/**
 * Runs per side (from the measured count up to `max`) at which the minimum detectable change reaches
 * `target` (gate.detect_change), or null when `max` runs do not get there (a stored baseline's drift or
 * too wide a run variance). `interleaved`: both sides grow; otherwise the baseline stays as it is. The
 * variances keep their measured estimate (and its median-bias correction at `df`); the test's df and
 * level are those of the projected runs. The detectable change does not rise with runs (the standard
 * error and the df's λ fall, the level does not fall), so the first run count that reaches it is found
 * by bisection.
 */
function runsToDetect(input, current, target, max, interleaved) {
    const at = (runs) => {
        const projected = {
            baseline: interleaved ? Math.max(runs, current.baseline) : current.baseline,
            candidate: runs,
        };
        const testDf = projectedTestDf(input, current, projected);
        return minimumDetectableChange({
            ...input,
            baselineRuns: projected.baseline,
            candidateRuns: projected.candidate,
            alpha: input.alphaAt?.(runs) ?? input.alpha,
            ...(testDf === undefined ? {} : { testDf }),
        });
    };
    let lo = Math.max(2, current.candidate);
    if (lo > max || at(max) > target)
        return null;
    let hi = max;
    while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        if (at(mid) <= target)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
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
 * numpy's default ("linear", Hyndman-Fan type 7) percentile of already-sorted values: rank h = (n-1)q,
 * interpolated between neighbours. vLLM's client uses exactly this, so our numbers match theirs.
 */
function percentileSorted(sorted, q) {
    const n = sorted.length;
    if (n === 0)
        return Number.NaN;
    if (!(q >= 0 && q <= 1))
        throw new RangeError(`percentile needs 0 <= q <= 1 (got ${q})`);
    const h = (n - 1) * q;
    const lower = Math.floor(h);
    const upper = Math.min(lower + 1, n - 1);
    const a = sorted[lower];
    const b = sorted[upper];
    return a + (h - lower) * (b - a);
}
function sortNumbers(values) {
    const sorted = Float64Array.from(values);
    sorted.sort();
    return sorted;
}
/** numpy-linear percentile of unsorted values (q in [0, 1]). */
function percentile(values, q) {
    return percentileSorted(sortNumbers(values), q);
}

const median$1 = (values) => percentile(values, 0.5);
const defaultScreenOptions = {
    threshold: 5,
    minRuns: 5,
    maxShare: 0.2,
    minScale: 0.01,
};
function groupMedians(group, metrics) {
    return Array.from({ length: metrics }, (_, k) => {
        const column = group.values.map((row) => row[k]).filter((v) => Number.isFinite(v));
        return column.length > 0 ? median$1(column) : Number.NaN;
    });
}
function screenOutliers(groups, metrics, options = defaultScreenOptions) {
    const medians = groups.map((group) => groupMedians(group, metrics));
    const poolOf = (group) => group.pool ?? "";
    const scaleOf = (members) => Array.from({ length: metrics }, (_, k) => {
        const deviations = [];
        for (const { group, g } of members) {
            if (group.values.length < options.minRuns)
                continue;
            const centre = medians[g][k];
            const column = group.values.map((row) => row[k]).filter((v) => Number.isFinite(v));
            // The median run of an odd group sits at distance 0 by construction; leaving it out keeps the
            // pooled MAD from being biased low at 5 runs.
            const here = column.map((v) => Math.abs(v - centre)).sort((a, b) => a - b);
            appendAll(deviations, column.length % 2 === 1 ? here.slice(1) : here);
        }
        const mad = deviations.length > 0 ? median$1(deviations) : 0;
        return Math.max(options.minScale, 1.4826 * mad);
    });
    const scaleByPool = new Map();
    for (const key of new Set(groups.map(poolOf)))
        scaleByPool.set(key, scaleOf(groups.map((group, g) => ({ group, g })).filter(({ group }) => poolOf(group) === key)));
    // All groups together give the most stable scale; a pool whose own spread is wider (a noisier cell)
    // keeps its own. Never smaller than the all-groups scale, so a small pool's noisy MAD cannot shrink it.
    const overall = groups.length > 0 ? scaleOf(groups.map((group, g) => ({ group, g }))) : [];
    const scales = groups.map((group) => scaleByPool.get(poolOf(group)).map((scale, k) => Math.max(scale, overall[k] ?? 0)));
    const screened = [];
    const tooManyOutliers = [];
    groups.forEach((group, g) => {
        const n = group.values.length;
        if (n < options.minRuns)
            return;
        const candidates = [];
        group.values.forEach((row, r) => {
            let sum = 0;
            let count = 0;
            const ratios = [];
            for (let k = 0; k < metrics; k++) {
                const v = row[k];
                const centre = medians[g][k];
                if (!Number.isFinite(v) || !Number.isFinite(centre)) {
                    ratios.push(Number.NaN);
                    continue;
                }
                sum += (v - centre) / scales[g][k];
                count++;
                ratios.push(Math.exp(v - centre));
            }
            if (count === 0)
                return;
            const score = sum / count;
            if (Math.abs(score) > options.threshold)
                candidates.push({ group: g, run: r, score, ratios });
        });
        if (candidates.length === 0)
            return;
        if (candidates.length > Math.floor(n * options.maxShare))
            tooManyOutliers.push(g);
        else
            appendAll(screened, candidates);
    });
    return { screened, scales, tooManyOutliers };
}

function groupByCell(runs) {
    const cells = new Map();
    for (const run of runs) {
        const list = cells.get(run.cell);
        if (list)
            list.push(run);
        else
            cells.set(run.cell, [run]);
    }
    return cells;
}
/**
 * Stage 1: the runs the comparison may use. Pairs a single cell per side, drops the runs excluded while
 * measuring, then screens the healthy ones for outlier runs; says what it left out and why.
 */
function selectUsableRuns(baseline, candidate, gate, warnings) {
    const candidateInput = pairSingleCells(baseline, candidate, warnings);
    const sides = { baseline, candidate: candidateInput };
    const excluded = [];
    const healthy = { baseline: [], candidate: [] };
    const refOf = (side, run) => ({ side, cell: run.cell, run: run.run, source: run.source });
    for (const side of ["baseline", "candidate"]) {
        for (const run of sides[side]) {
            if (run.exclusionReasons.length > 0)
                excluded.push({ ...refOf(side, run), reasons: run.exclusionReasons });
            else
                healthy[side].push(run);
        }
    }
    const screened = screenRuns(healthy, gate, warnings);
    const usable = {
        baseline: healthy.baseline.filter((run) => !screened.has(run)),
        candidate: healthy.candidate.filter((run) => !screened.has(run)),
    };
    for (const side of ["baseline", "candidate"])
        for (const run of healthy[side]) {
            const reason = screened.get(run);
            if (reason)
                excluded.push({ ...refOf(side, run), reasons: [reason] });
        }
    const used = [
        ...usable.baseline.map((run) => refOf("baseline", run)),
        ...usable.candidate.map((run) => refOf("candidate", run)),
    ];
    return { sides, usable, used, excluded };
}
/**
 * `vllm bench serve --label` often names the side ("main", "pr") rather than the workload: with one
 * cell per side under different names, they are the same cell. Said in a warning, never silent.
 */
function pairSingleCells(baseline, candidate, warnings) {
    const baseCells = new Set(baseline.map((run) => run.cell));
    const candCells = new Set(candidate.map((run) => run.cell));
    if (baseCells.size !== 1 || candCells.size !== 1)
        return candidate;
    const [baseCell] = baseCells;
    const [candCell] = candCells;
    if (baseCell === candCell)
        return candidate;
    warnings.push(`one cell per side with different names: candidate "${candCell}" compared with baseline "${baseCell}"`);
    return candidate.map((run) => ({ ...run, cell: baseCell }));
}
/** Metrics screened for outlier runs: the gated ones measured per run (error rate is pooled). */
function screenRuns(healthy, gate, warnings) {
    const reasons = new Map();
    if (gate.outlier_threshold <= 0)
        return reasons;
    const metrics = gate.metrics.filter((metric) => metricSpecs[metric].judged === "per-run");
    if (metrics.length === 0)
        return reasons;
    const groups = [];
    for (const side of ["baseline", "candidate"])
        for (const [cell, runs] of groupByCell(healthy[side]))
            groups.push({ side, cell, runs });
    const result = screenOutliers(groups.map((group) => ({
        // Both sides of a cell share a scale: same workload, same spread; other cells may be noisier.
        pool: group.cell,
        values: group.runs.map((run) => metrics.map((metric) => {
            const value = run.metrics[metric];
            if (value === null || value === undefined || !(value > 0))
                return Number.NaN;
            return (metricSpecs[metric].higherIsBetter ? -1 : 1) * Math.log(value);
        })),
    })), metrics.length, { ...defaultScreenOptionsFor(gate) });
    for (const flagged of result.screened) {
        const group = groups[flagged.group];
        const run = group.runs[flagged.run];
        const moved = metrics
            .map((metric, k) => ({ metric, ratio: flagged.ratios[k] }))
            .filter((m) => Number.isFinite(m.ratio))
            .map((m) => `${describeMetric(m.metric)} ${m.ratio >= 1 ? "+" : ""}${((m.ratio - 1) * 100).toFixed(1)}%`)
            .join(", ");
        reasons.set(run, `outlier run: on average ${Math.abs(flagged.score).toFixed(1)} robust sd ${flagged.score > 0 ? "worse" : "better"} than the other ${group.side} runs of this cell on the gated metrics (${moved} vs their median; gate.outlier_threshold ${gate.outlier_threshold})`);
    }
    for (const g of result.tooManyOutliers) {
        const group = groups[g];
        warnings.push(`the ${group.side} runs of cell "${group.cell}" split into groups too far apart to call one an outlier; none were screened`);
    }
    return reasons;
}
function defaultScreenOptionsFor(gate) {
    return {
        threshold: gate.outlier_threshold,
        minRuns: 5,
        maxShare: 0.2,
        minScale: Math.max(0.01, 2 * gate.min_run_sd),
    };
}

/**
 * Workload families (docs/compare.md#family-tests): the cells a change is likely to move together, whose
 * gated metrics the gate also tests as one combined test per metric. Declared on the cell (`family`), or
 * derived from its name: the part before the first '-' (`chat-fresh-low` → `chat`), the whole name when
 * it has none. A grouping fixed before the runs are seen keeps the tests' error control whatever it is; a
 * good one (cells one change moves alike) is what gives the combined tests their power.
 */
function cellFamily(cell) {
    if (cell.family !== undefined)
        return cell.family;
    const dash = cell.name.indexOf("-");
    return dash > 0 ? cell.name.slice(0, dash) : cell.name;
}

/** An alternation from a number of runs per group (consecutive groups of a side sharing a start), or itself. */
function alternationOf(block) {
    return typeof block === "number" ? { runsPerGroup: block, startEachGroup: false } : block;
}
/**
 * The schedule `calibrate` measures in: the interleaved gate's, except that a start per group becomes
 * shared starts (a side's consecutive groups on one start). A calibration must see both levels (the
 * start level from its starts' means, the run level within them): a calibration of runs on their own
 * starts cannot tell them apart, and its runs' whole spread, taken as the per-run prior at all its
 * degrees of freedom, outweighs what a few runs of a pull request can contradict.
 */
function calibrationAlternation(alternation) {
    return { runsPerGroup: alternation.runsPerGroup, startEachGroup: false };
}
/**
 * The repeats.block that measures an alternation (the inverse of config/summary.ts `alternation` for
 * a number or "fresh"): its runs per group, or "fresh" for every run of a side on a start of its own.
 * Groups of several runs each on a start of their own have no repeats.block.
 */
function repeatsBlockOf(alternation) {
    if (!alternation.startEachGroup)
        return alternation.runsPerGroup;
    if (alternation.runsPerGroup === 1)
        return "fresh";
    throw new RangeError(`repeats.block: groups of ${alternation.runsPerGroup} runs each on a start of its own cannot be declared (a number shares starts, "fresh" is one run a start)`);
}
/** How a side's runs fall into server starts, in words: "in starts of 5", "each run on a start of its own". */
function alternationWords(alternation) {
    const k = alternation.runsPerGroup;
    if (!alternation.startEachGroup)
        return `in starts of ${k}`;
    return k === 1 ? "each run on a start of its own" : `in groups of ${k}, each on a start of its own`;
}

function cellSchedule(config, cell) {
    if ((cell.schedule ?? config.runner.schedule) === "real-time")
        return { kind: "real-time", reason: "configured" };
    // Closed loop: each request is sent as the one before it ends, so nothing is ever idle to elide.
    const openLoop = cell.load.type === "rate" ||
        (cell.load.type === "stages" && cell.load.stages.some((stage) => stage.rate !== undefined));
    if (!openLoop)
        return { kind: "real-time", reason: "closed-loop" };
    return { kind: "idle-elided", settleMs: config.runner.settle_ms };
}
/** The schedule as a condition of the run: what the fingerprint records (no reason, only what ran). */
function scheduleCondition(schedule) {
    return schedule.kind === "idle-elided"
        ? { kind: schedule.kind, settleMs: schedule.settleMs }
        : { kind: schedule.kind };
}
function describeSchedule(schedule) {
    if (schedule.kind === "idle-elided")
        return `idle gaps elided (settle ${schedule.settleMs} ms)`;
    return schedule.reason === "configured" ? "real time (configured)" : "real time (closed loop: never idle)";
}

/** Assumed per-stream decode speed for closed-loop estimates; the estimate says so. */
const assumedSecondsPerOutputToken$1 = 0.03;
/**
 * A lone request's speed, for the idle time the idle-elided schedule cuts at low load (a small model on
 * one GPU); the estimate says so.
 */
const assumedLoneSecondsPerOutputToken = 0.01;
const assumedLoneSecondsPerPromptToken = 0.0001;
/** Mean answer tokens of one of the cell's requests (its kind's estimate; a trace's own where read). */
function cellOutputTokensMean(cell, replay = null) {
    return outputTokensMean(cell.dataset, replay);
}
const noTraceReplays = () => null;
/** True when a cell's arrivals come from its trace's timestamps (an open-loop load of a trace). */
function onTraceClock(cell) {
    return isTraceDataset(cell.dataset) && cell.load.type === "rate";
}
/**
 * A load as validate shows it; `unit` is what it counts (a session dataset's load counts sessions). A trace
 * replayed open loop is timed by its timestamps, whatever the rate says: "trace timestamps, N requests
 * over S s" (sessions and requests when its sessions have several turns), or the time scale alone when
 * the file was not read.
 */
function describeLoad(load, unit = "req", trace = null) {
    if (trace !== null && load.type === "rate") {
        const replay = trace.replay;
        const inFlight = load.max_concurrency ? `, max ${load.max_concurrency} in flight` : "";
        if (replay === null)
            return `trace timestamps (time x${trace.timeScale})${inFlight}`;
        const count = replay.requests === replay.sessions
            ? `${replay.requests} requests`
            : `${replay.sessions} sessions (${replay.requests} requests)`;
        return `trace timestamps, ${count} over ${formatSeconds(replay.spanS)} s${inFlight}`;
    }
    switch (load.type) {
        case "concurrency":
            return `concurrency ${load.concurrency}${unit === "sessions" ? " sessions" : ""}`;
        case "rate":
            return `${load.rate} ${unit}/s${load.burstiness === 1 ? " Poisson" : ` burstiness ${load.burstiness}`}${load.max_concurrency ? `, max ${load.max_concurrency} in flight` : ""}`;
        case "stages":
            return `stages ${load.stages.map((stage) => (stage.rate !== undefined ? `${stage.rate}/s` : `c${stage.concurrency}`) + ` ${stage.duration_s}s`).join(" -> ")}`;
    }
}
function formatSeconds(seconds) {
    return seconds >= 100 ? String(Math.round(seconds)) : String(Number(seconds.toFixed(1)));
}
/** Tool rounds per turn assumed when a session declares tools (the server decides whether it calls one). */
const assumedToolRoundsPerTurn = 1;
/**
 * A session's expected duration (null for a dataset of single requests). Its turns are closed loop:
 * each answer, then the think time, then the next turn, so a session takes turns x (answer) + (turns − 1) x
 * (think mean), plus each tool round's latency and its answer (answers at `secondsPerOutputToken`). A file's turns are assumed
 * (`assumedFileSessionTurns`, at most `max_turns`); a trace's gaps between turns are its own (not counted).
 * A fan-out turn takes one branch's answer (and its tool round, where the branches have tools): the
 * branches run at once, each at the assumed per-stream speed.
 */
function sessionEstimate(cell, secondsPerOutputToken = assumedSecondsPerOutputToken$1, replay = null) {
    const dataset = cell.dataset;
    if (!isSessionDataset(dataset))
        return null;
    const answerSeconds = cellOutputTokensMean(cell, replay) * secondsPerOutputToken;
    const shape = sessionShape(dataset, replay);
    const turns = Math.max(1, shape.turns);
    const think = shape.thinkSeconds;
    const toolLatency = shape.toolLatencySeconds;
    const tool = toolLatency === null ? 0 : assumedToolRoundsPerTurn * (toolLatency + answerSeconds);
    const fanOut = shape.fanOut;
    const fanOuts = fanOut === undefined
        ? 0
        : fanOut.turns !== undefined
            ? fanOut.turns.filter((turn) => turn <= turns).length
            : fanOut.share * turns;
    const branchAnswer = fanOut === undefined ? 0 : lengthMean(fanOut.output_tokens) * secondsPerOutputToken;
    const branchTool = fanOut?.tools === true && toolLatency !== null
        ? assumedToolRoundsPerTurn * (toolLatency + branchAnswer)
        : 0;
    const thinkSeconds = (turns - 1) * think;
    const toolSeconds = (turns - fanOuts) * tool + fanOuts * branchTool;
    const fanOutSeconds = fanOuts * branchAnswer;
    return {
        turns,
        fanOuts,
        requests: turns - fanOuts + (fanOut === undefined ? 0 : fanOuts * meanBranches(fanOut)),
        answerSeconds,
        thinkSeconds,
        toolSeconds,
        fanOutSeconds,
        seconds: (turns - fanOuts) * answerSeconds + fanOutSeconds + thinkSeconds + toolSeconds,
    };
}
function estimateSeconds(cell, replay) {
    if ("duration_s" in cell.size)
        return cell.size.duration_s;
    const requests = cell.size.requests;
    // A session dataset's unit is a session: its schedule counts sessions, each as long as its turns.
    const requestSeconds = sessionEstimate(cell, assumedSecondsPerOutputToken$1, replay)?.seconds ??
        cellOutputTokensMean(cell) * assumedSecondsPerOutputToken$1;
    // A trace on its own clock: up to its last request's timestamp (a session's later turns wait for theirs),
    // then that request's answer, or its last session when the answers are what takes longer.
    if (replay !== null && onTraceClock(cell)) {
        const answer = cellOutputTokensMean(cell, replay) * assumedSecondsPerOutputToken$1;
        return Math.max(replay.lastRequestS + answer, replay.spanS + requestSeconds);
    }
    switch (cell.load.type) {
        case "rate":
            return requests / cell.load.rate + requestSeconds;
        case "concurrency":
            return (requests / cell.load.concurrency) * requestSeconds;
        case "stages":
            return cell.load.stages.reduce((total, stage) => total + stage.duration_s, 0);
    }
}
/**
 * Idle seconds per run the idle-elided schedule is expected to cut from an open-loop rate cell at low
 * load. With Poisson-like arrivals at rate λ and requests of S seconds that do not queue, the requests
 * in flight are Poisson with mean λS, so an arrival finds nothing in flight with probability e^(−λS)
 * (PASTA), and the idle gap before it, exponential with mean 1/λ, is cut but for the settle time: per
 * run N·e^(−λS)·e^(−λ·settle)/λ. S is a lone request's time at the assumed speeds above.
 */
function estimateElidedSeconds(cell, schedule, replay) {
    if (schedule.kind !== "idle-elided" || cell.load.type !== "rate" || !("requests" in cell.size))
        return 0;
    // A trace on its own clock arrives at its own mean rate (unknown when its file was not read).
    const rate = onTraceClock(cell)
        ? replay !== null && replay.spanS > 0
            ? replay.sessions / replay.spanS
            : null
        : cell.load.rate;
    if (rate === null)
        return 0;
    // A session is in flight from its first turn to its last answer, its think times included.
    const serviceS = promptTokensMean(cell.dataset) * assumedLoneSecondsPerPromptToken +
        (sessionEstimate(cell, assumedLoneSecondsPerOutputToken, replay)?.seconds ??
            cellOutputTokensMean(cell) * assumedLoneSecondsPerOutputToken);
    return ((cell.size.requests * Math.exp(-rate * serviceS) * Math.exp((-rate * schedule.settleMs) / 1000)) / rate);
}
function describeWarmup(cell) {
    const unit = isSessionDataset(cell.dataset) ? "sessions" : "req";
    return "requests" in cell.warmup ? `${cell.warmup.requests} ${unit}` : `${cell.warmup.duration_s} s`;
}
/**
 * `looks`: the run counts per side at which compare decides (stats/sequential lookSchedule; passed in, as
 * config comes first in the pipeline); each look after the first is another measuring step.
 */
function summarizeConfig(config, templates = [], looks, traces = noTraceReplays) {
    // Text is built from the view that holds templates where values came from `${VAR}` (they may be
    // secrets); estimates and checks use the values.
    const shown = templateView(config, templates);
    const warnings = [];
    const server = config.server;
    const serverText = describeServer(shown.server);
    warnings.push(...serverWarnings(server, shown.server));
    if (!config.model.revision)
        warnings.push("model.revision is not set: the model can change under the same name; pin a commit");
    if (config.repeats.min < 3)
        warnings.push(`repeats.min is ${config.repeats.min}: fewer than 3 runs per side can rarely support a verdict`);
    const cells = config.cells.map((cell, index) => {
        const replay = traces(cell);
        const warning = minRequestsWarning(config, cell, shown.cells[index], replay);
        if (warning !== null)
            warnings.push(warning);
        return summarizeCell(config, cell, shown.cells[index], replay);
    });
    return {
        server: serverText,
        model: `${shown.model.name}${shown.model.revision ? ` @ ${shown.model.revision}` : ""}`,
        cells,
        runs: { min: config.repeats.min, max: config.repeats.max },
        starts: startsOf(config),
        gate: `${shown.gate.metrics.join(", ")}; tolerance ${typeof shown.gate.tolerance === "number" ? `${(shown.gate.tolerance * 100).toFixed(1)}%` : shown.gate.tolerance}, confidence ${shown.gate.confidence}, fail on ${shown.gate.fail_on}`,
        warnings,
        // Capacity and sweep cells spend their own runs (validate costs them apart: capacity-summary.ts).
        gpuMinutes: estimateGpuMinutes(config, cells
            .filter((_, index) => !isSearchedCell(config.cells[index]))
            .map((cell) => cell.estimatedSecondsPerRun), looks ?? [config.repeats.min, config.repeats.max]),
        searchedCells: config.cells.filter(isSearchedCell).map((cell) => cell.name),
    };
}
/**
 * A fixed-size cell whose requests per run fall below gate.min_requests.p95: its gated percentiles will
 * be advisory only. A session dataset's size counts sessions: its requests per run are about sessions x
 * mean turns (tool rounds come on top). Its depth buckets' requests depend on the turns' distribution, not
 * only their mean, so the depth metrics' floor is compare's to apply, not estimated here.
 */
function minRequestsWarning(config, cell, text, replay) {
    if (!("requests" in cell.size))
        return null;
    const session = sessionEstimate(cell, assumedSecondsPerOutputToken$1, replay);
    const requestsPerRun = session === null ? cell.size.requests : Math.round(cell.size.requests * session.requests);
    if (requestsPerRun >= config.gate.min_requests.p95)
        return null;
    const gatedPercentiles = config.gate.metrics.filter((metric) => metricSpecs[metric].minRequests === "p95" &&
        (session === null || metricSpecs[metric].source.kind !== "session"));
    if (gatedPercentiles.length === 0)
        return null;
    const requests = text.size.requests;
    const counted = session === null
        ? `${requests} requests per run`
        : `about ${requestsPerRun} requests per run (${requests} sessions of ${Number(session.turns.toFixed(1))} turns${session.fanOuts > 0 ? `, ${Number(session.requests.toFixed(1))} requests each with the fan-outs' branches` : ""})`;
    return `cells "${text.name}": ${counted} is below gate.min_requests.p95 (${config.gate.min_requests.p95}); ${gatedPercentiles.join(", ")} will be advisory only`;
}
/** One cell's row of the summary: described from its shown view (`text`), estimated from its values. */
function summarizeCell(config, cell, text, replay) {
    const unit = isSessionDataset(cell.dataset) ? "sessions" : "req";
    const schedule = cellSchedule(config, cell);
    const elided = estimateElidedSeconds(cell, schedule, replay);
    const trace = isTraceDataset(cell.dataset) ? { timeScale: cell.dataset.time_scale, replay } : null;
    return {
        name: text.name,
        endpoint: text.endpoint,
        dataset: describeDataset(text.dataset),
        load: describeLoad(text.load, unit, trace),
        size: "requests" in text.size ? `${text.size.requests} ${unit}` : `${text.size.duration_s} s`,
        prefix: text.prefix,
        warmup: describeWarmup(text),
        schedule: describeSchedule(schedule),
        estimatedSecondsPerRun: Math.max(0, estimateSeconds(cell, replay) - elided),
        estimatedElidedSecondsPerRun: elided,
    };
}
function renderSummary(file, summary) {
    const header = ["cell", "endpoint", "dataset", "load", "per run", "warm-up", "prefix"];
    const rows = summary.cells.map((cell) => [
        cell.name,
        cell.endpoint,
        cell.dataset,
        cell.load,
        cell.size,
        cell.warmup,
        cell.prefix,
    ]);
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
    const line = (row) => row
        .map((value, column) => value.padEnd(widths[column]))
        .join("  ")
        .trimEnd();
    const out = [
        `${file}: valid`,
        `server: ${summary.server}`,
        `model:  ${summary.model}`,
        `${summary.cells.length} cell${summary.cells.length === 1 ? "" : "s"}:`,
        `  ${line(header)}`,
        ...rows.map((row) => `  ${line(row)}`),
        ...renderSchedules(summary.cells),
        `runs per side: ${summary.runs.min} to ${summary.runs.max} (more only while the verdict is inconclusive)`,
        startsLine(summary),
        `gated: ${summary.gate}`,
        ...renderGpuMinutes(summary.gpuMinutes, summary.searchedCells, summary.cells.length),
    ];
    for (const warning of summary.warnings)
        out.push(`warning: ${warning}`);
    return `${out.join("\n")}\n`;
}
/** validate's line on how a side's runs fall into server starts, and what the intervals count for it. */
function startsLine(summary) {
    const { starts, runs } = summary;
    const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
    const auto = starts.auto ? " (repeats.block auto)" : "";
    const counts = `${plural(starts.firstLookPerSide, "start")} a side at the first look, ${starts.maxPerSide} at ${runs.max} runs`;
    if (starts.startEachGroup && starts.group === 1)
        return `server starts: every run of a side on a start of its own${auto}, alternating A B, B A: ${counts}; the start-to-start noise is inside the runs' own spread (no prior needed)`;
    const each = starts.startEachGroup ? ", each group on a start of its own" : "";
    return `server starts: groups of ${plural(starts.group, "run")} a side${each}${auto}, alternating A B, B A: ${counts}; the intervals count the start-to-start noise beside the run-to-run (gate.noise_prior)`;
}
/** One line per schedule: which cells run on it, and the idle time it is expected to cut. */
function renderSchedules(cells) {
    const bySchedule = new Map();
    for (const cell of cells)
        bySchedule.set(cell.schedule, [...(bySchedule.get(cell.schedule) ?? []), cell]);
    return [...bySchedule].map(([schedule, members]) => {
        const elided = members.reduce((sum, cell) => sum + cell.estimatedElidedSecondsPerRun, 0);
        const total = members.reduce((sum, cell) => sum + cell.estimatedSecondsPerRun, 0) + elided;
        const names = members.length === cells.length ? "every cell" : members.map((cell) => cell.name).join(", ");
        return `schedule: ${schedule}: ${names}${elided >= 1
            ? `; about ${Math.round(elided)} of ${Math.round(total)} s of schedule per run cut (${Math.round((100 * elided) / total)}%)`
            : ""}`;
    });
}
/** GPU seconds of one server start: cost.server_start_s, else the default of the server kind (server-kinds.ts). */
const defaultServerStartSeconds = Object.fromEntries(serverKinds.map((kind) => [kind, serverKindFacts[kind].defaultStartSeconds]));
function serverStartSeconds(config) {
    return config.cost.server_start_s ?? defaultServerStartSeconds[config.server.kind];
}
/**
 * Server starts per cell to reach `runs` runs per side (under `per-side`, per side's server: every cell
 * of the side shares its starts, see `startedServers`). stored (the PR's side only): one start per
 * measuring step, i.e. per look reached; interleaved (both sides, alternating in groups of
 * `runsPerBlock` runs per side, A B | B A ...): each look's step from a to b runs touches g groups and is
 * g + 1 blocks of consecutive same-side runs, one start each (k = 1: b − a + 1); baseline (the push job):
 * its runs in starts of at most `runsPerBlock` runs (here: `baselineRunsPerStart`), as
 * `baselineStartGroups` splits them. Under `lifecycle: per-run` every run is a start. An alternation
 * whose groups each have a start of their own (`startEachGroup`) costs 2 starts per group touched.
 */
function serverStartsPerCell(mode, runs, looks, lifecycle, runsPerBlock = 1) {
    if (runs <= 0)
        return 0;
    if (lifecycle === "per-run")
        return mode === "interleaved" ? 2 * runs : runs;
    if (mode === "baseline")
        return baselineStartGroups(runs, alternationOf(runsPerBlock).runsPerGroup).length;
    const bounds = [...new Set([0, ...looks.filter((look) => look > 0 && look < runs), runs])].sort((a, b) => a - b);
    if (mode === "stored")
        return bounds.length - 1;
    let starts = 0;
    for (let i = 1; i < bounds.length; i++)
        starts += interleavedStepStarts(bounds[i - 1], bounds[i], runsPerBlock);
    return starts;
}
/**
 * How many servers of one side the starts of `serverStartsPerCell` are counted for: one under `per-side`
 * (every cell of a config shares its engine flags, so one server serves them all, its prefix cache reset
 * between cells), one per cell otherwise.
 */
function startedServers(lifecycle, cells) {
    return lifecycle === "per-side" ? Math.min(1, cells) : cells;
}
/**
 * The gated metrics' noise family (gate.noise_prior) with the largest `noise` (per-run judged metrics
 * only: a pooled count has no run-to-run spread), or null when none is gated.
 */
function noisiestGatedFamily(config, noise) {
    const families = new Set(config.gate.metrics
        .filter((metric) => metricSpecs[metric].judged === "per-run")
        .map((metric) => metricSpecs[metric].noise));
    return [...families].reduce((best, family) => (best === null || noise(family) > noise(best) ? family : best), null);
}
/**
 * How a side's runs alternate and fall into server starts (repeats.block; docs/compare.md, "Server
 * starts"): a number is the runs per side per group, consecutive groups of a side sharing one start;
 * "fresh" is every run of a side on a start of its own; "auto" is chosen by cost (Kalibera and Jones:
 * repetitions at a level ∝ √(its variance / its cost), `autoAlternation`), from gate.noise_prior's start
 * and run variances of the gated family with the largest start sd, a start's cost.server_start_s and the
 * estimated seconds of one run of every cell one server serves.
 */
function alternation(config) {
    const block = config.repeats.block;
    if (block === "fresh")
        return { runsPerGroup: 1, startEachGroup: true };
    if (block !== "auto")
        return { runsPerGroup: block, startEachGroup: false };
    const costs = startCosts(config);
    if (costs === null)
        return { runsPerGroup: config.repeats.min, startEachGroup: false };
    return autoAlternation({
        minRuns: config.repeats.min,
        tolerance: config.gate.tolerance,
        startsItsServer: serverKindFacts[config.server.kind].launchesProcess,
        ...costs,
    });
}
function startCosts(config) {
    const prior = config.gate.noise_prior;
    const widest = noisiestGatedFamily(config, (family) => prior[family].start_sd);
    if (widest === null)
        return null;
    const lifecycle = serverLifecycle(config);
    const fixedLoad = config.cells.filter((cell) => !isSearchedCell(cell));
    // A trace cell's file is not read here: its run is estimated from its rate.
    const seconds = fixedLoad.map((cell) => estimateSeconds(cell, null));
    const total = seconds.reduce((sum, s) => sum + s, 0);
    return {
        startSd: prior[widest].start_sd,
        runSd: prior[widest].run_sd,
        startSeconds: serverStartSeconds(config),
        runSeconds: lifecycle === "per-side" ? total : total / Math.max(1, seconds.length),
    };
}
/**
 * Runs per server start of a baseline job (the push job's repeats.baseline runs; docs/compare.md, "Server
 * starts"): at most half its runs and at least two, so that it has two starts or more and a start with
 * two runs, which main's history needs to tell the start level from the run level; within those bounds
 * what a start of the interleaved schedule holds: two groups of repeats.block, or with `auto` the runs
 * per start that cost least for the variance of the mean (Kalibera and Jones, from gate.noise_prior and
 * the costs as `runsPerBlock`). Under `per-run` every run is a start.
 */
function baselineRunsPerStart(config, runs = config.repeats.baseline) {
    if (serverLifecycle(config) === "per-run")
        return 1;
    const block = config.repeats.block;
    if (block === "auto")
        return baselineRunsPerStartOf(runs, { costs: startCosts(config) });
    // A fresh start per run in the PR's job: the baseline job still needs starts of two runs (the history).
    return baselineRunsPerStartOf(runs, { block: block === "fresh" ? 1 : block });
}
/**
 * `baselineRunsPerStart` from its inputs (also bench:gate's, which has no config): at most half the
 * runs; two groups of `block`, or with `costs` (repeats.block auto) Kalibera and Jones' runs per start.
 */
function baselineRunsPerStartOf(runs, how) {
    const half = Math.max(1, Math.ceil(runs / 2));
    const best = "block" in how
        ? 2 * how.block
        : how.costs === null
            ? half
            : optimalRunsPerStart({
                startVariance: how.costs.startSd ** 2,
                runVariance: how.costs.runSd ** 2,
                startCost: how.costs.startSeconds,
                runCost: how.costs.runSeconds,
            });
    // Two runs a start at least (where the runs allow it): the history separates the levels only within a start.
    return Math.max(Math.min(2, half), Math.min(half, Math.round(best)));
}
/**
 * A baseline job's runs in server starts of at most `runsPerStart` runs, as even as possible (the
 * earlier starts one run longer): the run count of each start, in order. One run: one start.
 */
function baselineStartGroups(runs, runsPerStart) {
    if (runs <= 0)
        return [];
    const starts = Math.ceil(runs / Math.max(1, Math.floor(runsPerStart)));
    const base = Math.floor(runs / starts);
    const longer = runs - base * starts;
    return Array.from({ length: starts }, (_, i) => base + (i < longer ? 1 : 0));
}
/**
 * repeats.block "auto" from its inputs. When the start level does not matter for the tolerance (√2·start
 * sd below a fifth of ln(1 + tolerance)), one start a side serves the first look (groups of
 * repeats.min). Otherwise Kalibera and Jones' runs per start, √(start cost·σ_r² / (run cost·σ_s²)),
 * decides: below two, every run of a side gets a start of its own (groups of one run, A B B A kept),
 * because consecutive groups of a side that share a start hold two runs at the least, and a start per
 * run puts the start level inside the runs' own spread, so the test needs no start prior and keeps all
 * its degrees of freedom (Welch's on independent runs; bench:gate measures both schedules,
 * docs/compare.md "The server start as a level of the noise"); at two or more, groups of half the
 * runs per start share starts (A B | B A merges a side's consecutive groups), small enough that the first
 * look has two starts a side.
 */
function autoAlternation(input) {
    const { minRuns: min, startSd } = input;
    const shared = (runsPerGroup) => ({ runsPerGroup, startEachGroup: false });
    if (Math.SQRT2 * startSd < toleranceMargin(input.tolerance) / 5)
        return shared(min);
    const perStart = input.runSeconds > 0 && startSd > 0
        ? optimalRunsPerStart({
            startVariance: startSd ** 2,
            runVariance: input.runSd ** 2,
            startCost: input.startSeconds,
            runCost: input.runSeconds,
        })
        : min;
    if (perStart < 2 && input.startsItsServer !== false)
        return { runsPerGroup: 1, startEachGroup: true };
    // Two starts a side at the first look need at least 3 groups in it: ⌈min / k⌉ ≥ 3.
    let largest = 1;
    while (largest < min && Math.ceil(min / (largest + 1)) >= 3)
        largest++;
    return shared(Math.max(1, Math.min(largest, Math.round(perStart / 2))));
}
/** A side's server starts at the first look and at repeats.max, in groups of runsPerBlock (interleaved). */
function startsOf(config) {
    const chosen = alternation(config);
    const group = chosen.runsPerGroup;
    // Groups of k alternate A B | B A, a side's consecutive groups merging: g groups give g + 1 blocks,
    // ⌊(g + 1) / 2⌋ or ⌈(g + 1) / 2⌉ a side; the fewer is what a side is sure to have. A start per group:
    // every group of a side is a start.
    const perSide = (runs) => chosen.startEachGroup
        ? Math.ceil(runs / group)
        : Math.max(1, Math.floor((Math.ceil(runs / group) + 1) / 2));
    return {
        group,
        startEachGroup: chosen.startEachGroup,
        auto: config.repeats.block === "auto",
        firstLookPerSide: perSide(config.repeats.min),
        maxPerSide: perSide(config.repeats.max),
    };
}
/**
 * Server starts per cell of one interleaved measuring step from `from` to `to` runs per side: the g
 * groups it touches give g + 1 blocks of consecutive same-side runs, or 2g with a start per group.
 */
function interleavedStepStarts(from, to, runsPerBlock = 1) {
    if (to <= from)
        return 0;
    const chosen = alternationOf(runsPerBlock);
    const k = Math.max(1, Math.floor(chosen.runsPerGroup));
    const groups = Math.floor((to - 1) / k) - Math.floor(from / k) + 1;
    return chosen.startEachGroup ? 2 * groups : groups + 1;
}
function estimateGpuMinutes(config, secondsPerRunByCell, looks) {
    const startSeconds = serverStartSeconds(config);
    const lifecycle = serverLifecycle(config);
    const runSeconds = secondsPerRunByCell.reduce((sum, seconds) => sum + seconds, 0);
    const cells = secondsPerRunByCell.length;
    const price = config.cost.gpu_hourly_usd;
    const at = (mode, runs) => {
        const perGroup = mode === "baseline" ? baselineRunsPerStart(config, runs) : alternation(config);
        const starts = startedServers(lifecycle, cells) * serverStartsPerCell(mode, runs, looks, lifecycle, perGroup);
        const sides = mode === "interleaved" ? 2 : 1;
        return { starts, minutes: (sides * runs * runSeconds + starts * startSeconds) / 60 };
    };
    const entry = (mode, first, max) => {
        const a = at(mode, first);
        const b = at(mode, max);
        return {
            mode,
            runs: { first, max },
            serverStarts: { first: a.starts, max: b.starts },
            minutes: { first: a.minutes, max: b.minutes },
            ...(price !== undefined
                ? { usd: { first: (a.minutes / 60) * price, max: (b.minutes / 60) * price } }
                : {}),
        };
    };
    const { min, max, baseline } = config.repeats;
    return [entry("stored", min, max), entry("interleaved", min, max), entry("baseline", baseline, baseline)];
}
function renderGpuMinutes(estimates, searchedCells, cellCount) {
    if (searchedCells.length > 0 && searchedCells.length === cellCount)
        return ["estimated GPU-minutes: every cell is a capacity or sweep cell, costed below"];
    const minutes = (value) => (value < 10 ? value.toFixed(1) : String(Math.round(value)));
    const usd = (e) => e.usd
        ? ` (~$${e.usd.first.toFixed(2)}${e.usd.max !== e.usd.first ? ` to $${e.usd.max.toFixed(2)}` : ""})`
        : "";
    const lines = [
        searchedCells.length === 0
            ? "estimated GPU-minutes (measured runs plus every server start):"
            : `estimated GPU-minutes of the fixed-load cells (measured runs plus every server start; ${searchedCells.join(", ")} costed below):`,
    ];
    for (const e of estimates) {
        const label = e.mode === "stored"
            ? "per PR, stored baseline (PR side only)"
            : e.mode === "interleaved"
                ? "per PR, interleaved (both sides)"
                : "per baseline job (push/schedule)";
        lines.push(e.mode === "baseline"
            ? `  ${label}: ${minutes(e.minutes.first)} at ${e.runs.first} runs, ${e.serverStarts.first} server starts${usd(e)}`
            : `  ${label}: ${minutes(e.minutes.first)} at ${e.runs.first} runs (${e.serverStarts.first} starts), ${minutes(e.minutes.max)} at ${e.runs.max} runs (${e.serverStarts.max} starts)${usd(e)}`);
    }
    lines.push(`  (rough: schedules as declared, closed-loop cells at ${assumedSecondsPerOutputToken$1 * 1000} ms per output token, a session as its turns' answers plus its think and tool times' means (${assumedFileSessionTurns} turns for a file's sessions, ${assumedToolRoundsPerTurn} tool round per turn where tools are declared, a fan-out turn as one branch's answer), idle time cut for a lone request at ${assumedLoneSecondsPerOutputToken * 1000} ms per output token and ${assumedLoneSecondsPerPromptToken * 1000} ms per prompt token; a server start counted as cost.server_start_s)`);
    return lines;
}

/**
 * Stage 2: the cells of both sides paired. Each gets its status (compared, too few runs, a side missing)
 * and the fingerprints to check for comparability; a stored baseline that cannot grow marks its cell unfixable.
 */
function pairCells(runs, mode) {
    const { sides, usable } = runs;
    const cellsBySide = { baseline: groupByCell(usable.baseline), candidate: groupByCell(usable.candidate) };
    const allCells = [
        ...new Set([...sides.baseline.map((r) => r.cell), ...sides.candidate.map((r) => r.cell)]),
    ];
    const measuredRuns = (side, cell) => sides[side].filter((run) => run.cell === cell).length;
    const cells = [];
    const compared = [];
    const unfixableCells = new Map();
    const fingerprintPairs = [];
    const firstBySide = (side, cell) => cellsBySide[side].get(cell)?.[0] ?? sides[side].find((run) => run.cell === cell);
    for (const cell of allCells) {
        const base = cellsBySide.baseline.get(cell) ?? [];
        const cand = cellsBySide.candidate.get(cell) ?? [];
        const baseFirst = firstBySide("baseline", cell);
        const candFirst = firstBySide("candidate", cell);
        if (baseFirst && candFirst)
            fingerprintPairs.push({ cell, baseline: baseFirst.fingerprint, candidate: candFirst.fingerprint });
        if (base.length === 0 || cand.length === 0) {
            const side = base.length === 0 ? "baseline" : "candidate";
            const present = sides[side].some((run) => run.cell === cell);
            cells.push({
                name: cell,
                baselineRuns: base.length,
                candidateRuns: cand.length,
                status: side === "baseline" ? "missing-baseline" : "missing-candidate",
                note: present ? `every ${side} run of this cell was excluded` : `no ${side} runs for this cell`,
            });
            if (side === "baseline" && mode === "stored")
                unfixableCells.set(cell, `the stored baseline has no usable run of cell "${cell}"`);
            continue;
        }
        const tooFew = base.length < 2 || cand.length < 2;
        cells.push({
            name: cell,
            baselineRuns: base.length,
            candidateRuns: cand.length,
            status: tooFew ? "too-few-runs" : "compared",
            note: tooFew ? "at least 2 usable runs per side are needed to estimate run-to-run noise" : null,
        });
        if (mode === "stored" && base.length < 2)
            unfixableCells.set(cell, `the stored baseline has ${base.length} usable run of cell "${cell}" and at least 2 are needed; record the baseline again with more runs`);
        if (base.every((run) => run.requests.completed === 0))
            unfixableCells.set(cell, `every request of every baseline run of cell "${cell}" failed`);
        compared.push({ cell, base, cand, tooFew });
    }
    return { allCells, cells, compared, unfixableCells, fingerprintPairs, measuredRuns };
}
/** The comparability check: fingerprint differences per cell, and the ones the gate does not allow. */
function checkComparability(fingerprintPairs, gate, warnings) {
    const differences = diffFingerprints(fingerprintPairs, gate.allowed_differences);
    const notComparable = differences.filter((difference) => !difference.allowed);
    if (notComparable.length > 0 && gate.on_not_comparable === "warn") {
        warnings.push(`conditions differ outside the allowed differences: ${notComparable.map((d) => describeDifference(d)).join("; ")}`);
    }
    return { differences, notComparable };
}

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

/**
 * The server-start level of a check as verdict.json reports it (docs/compare.md, "Server starts"): the
 * starts each side's runs were measured on, the start-to-start sd the check carried, its degrees of
 * freedom and where it came from. The metric tests, the capacity checks and the pooled counts (guards,
 * error rate) each report it from stats/two-level.ts `startLevels`, so one rule names the basis.
 */
const startNoiseSchema = object({
    starts: object({ baseline: number().int(), candidate: number().int() }),
    /** sd between server starts used in the check (0 when every run was its own start). */
    startSd: number(),
    /** Degrees of freedom of that start variance (measured starts plus the prior's weight). */
    startDf: number(),
    /**
     * Where the start sd came from: "fresh" (every run its own start: in the runs' own spread), "prior"
     * (too few starts: the prior alone), "measured" (the starts alone), "measured+prior" (pooled), "none"
     * (neither: no prior for this check and too few starts to measure it).
     */
    startBasis: _enum(["fresh", "prior", "measured", "measured+prior", "none"]),
    /** What the prior was (gate.noise_prior, a calibration, main's history), when one was used. */
    priorSource: string().nullable(),
    /**
     * The starts varied significantly more than the prior said (one-sided F at 10%): the prior was widened
     * to what the starts show (their own estimate, with their df).
     */
    priorContradicted: boolean().optional(),
});
/**
 * A prior a check's noise was offered at one level (docs/compare.md, "Noise known in advance"): where it
 * came from, its sd and degrees of freedom, when it was measured and how old it was, and what the test
 * did with it.
 */
const priorUseSchema = object({
    /** "config" (gate.noise_prior), "calibration" (this runner's A/A), "history" (main's baseline sessions). */
    basis: _enum(["config", "calibration", "history", "calibration+history"]),
    source: string(),
    /** sd of ln(metric) the prior believes at this level, and its weight in degrees of freedom. */
    sd: number(),
    df: number(),
    /** The day it was measured (the newest measurement it holds); null for the config's figures. */
    date: string().nullable(),
    /** The oldest measurement it holds (a history's first session); null for one. */
    since: string().nullable(),
    ageDays: number().nullable(),
    /** Older than gate.noise_prior.max_age_days: used, and flagged. */
    stale: boolean(),
    /**
     * "pooled" with the runs' own estimate by degrees of freedom; "widened": the runs were significantly
     * noisier (one-sided F at 10%), so on `widenedOn` their own estimate stands with their own df;
     * "unused": the level was already in the runs' own spread (every run its own start).
     */
    use: _enum(["pooled", "widened", "unused"]),
    widenedOn: array(_enum(["baseline", "candidate"])),
});
/**
 * The two levels of noise under a check tested on per-run values (verdict.json `comparisons[].noise`,
 * `quality.guards[].noise`): the start level, each side's run-to-run sd within a start, and the share of
 * the difference's variance that the start level makes.
 */
const noiseLevelsSchema = startNoiseSchema.extend({
    runSd: object({ baseline: number(), candidate: number() }),
    /** Share of the variance of the difference due to the start level. */
    startShare: number(),
    /**
     * Where the run-to-run sd came from: the runs alone ("measured") or pooled with a prior measured on
     * this runner ("measured+prior"), and each side's degrees of freedom. Absent in files written before.
     */
    runBasis: _enum(["measured", "measured+prior"]).optional(),
    runDf: object({ baseline: number(), candidate: number() }).optional(),
    /** The priors offered at each level (null: none); absent in files written before they were recorded. */
    priors: object({ start: priorUseSchema.nullable(), run: priorUseSchema.nullable() }).optional(),
    /**
     * A check on counts pooled over the runs (error_rate, malformed_tool_call_share, the quality guards):
     * the factor its request-level variance was widened by for what the runs and starts showed beyond it
     * (1: none), its counts divided by it (docs/compare.md, "Server starts"). Its sds are on the
     * count's own scale: a share of requests (the mean output length: ln).
     */
    designEffect: number().optional(),
});
/**
 * The start level's report fields from an estimate of the levels. `sharedStarts`: some side has a start
 * holding two or more runs (otherwise every run was its own start and the basis is "fresh").
 */
function startNoiseOf(levels, starts, sharedStarts, prior) {
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
    return {
        starts,
        startSd: sharedStarts ? Math.sqrt(levels.startVariance) : 0,
        startDf: sharedStarts ? levels.startVarianceDf : 0,
        startBasis: basis,
        priorSource: sharedStarts && withPrior ? prior.source : null,
        ...(levels.priorContradicted ? { priorContradicted: true } : {}),
    };
}
/**
 * The start priors measured on this runner, per `cell\u0000metric`, from each source that has them (a
 * calibration, main's history), pooled by degrees of freedom where more than one measured a check: both
 * estimate the same start-to-start variance under the baseline's conditions (each checked against
 * them), so neither wins; the pooled prior names every source, its basis both, its date the newest
 * measurement and `since` the oldest. compare adds gate.noise_prior's where none measured a check.
 */
function pooledStartPriors(...sources) {
    const pooled = new Map();
    for (const source of sources)
        for (const [key, prior] of source ?? []) {
            if (!(prior.df > 0))
                continue;
            const known = pooled.get(key);
            if (!known) {
                pooled.set(key, { ...prior });
                continue;
            }
            const df = known.df + prior.df;
            const times = [known.measuredAt, prior.measuredAt, known.since, prior.since]
                .filter((time) => typeof time === "string")
                .sort();
            pooled.set(key, {
                variance: (known.variance * known.df + prior.variance * prior.df) / df,
                df,
                source: `${known.source} + ${prior.source}`,
                basis: known.basis === prior.basis ? known.basis : "calibration+history",
                measuredAt: [known.measuredAt, prior.measuredAt]
                    .filter((t) => t !== null)
                    .sort()
                    .at(-1) ?? null,
                since: times[0] ?? null,
            });
        }
    return pooled;
}
/**
 * A start variance measured on this runner pooled with gate.noise_prior's for the metric's family
 * (weighted gate.noise_prior.weight_starts df): a calibration or a history measures the start level from
 * a handful of starts, and a handful that happened to agree reads as no start effect at all (its moment
 * estimate is clamped at 0); the published figure keeps its weight beside them, as it does beside a pull
 * request's own starts. Many measured starts outweigh it. compare's checks and the budget planner both
 * take a measured start prior through here.
 */
function withConfigStartPrior(measured, config) {
    if (!(config.df > 0))
        return measured;
    const df = measured.df + config.df;
    return { ...measured, variance: (measured.variance * measured.df + config.variance * config.df) / df, df };
}

/**
 * The design effect of a pooled check and its noise fields: `pooledVariance` is the variance of the
 * difference of the sides' pooled figures that the check's test assumes (requests independent). Without
 * two runs with a value on each side, a factor of 1 and no noise.
 */
function pooledCountsDesign(baseline, candidate, pooledVariance) {
    const sample = (runs) => {
        const kept = runs.filter((run) => run.value !== null);
        return { values: kept.map((run) => run.value), starts: kept.map((run) => run.start) };
    };
    const b = sample(baseline);
    const c = sample(candidate);
    const { factor, levels } = pooledDesignEffect(b, c, pooledVariance);
    if (levels === null)
        return { factor, noise: null };
    const shared = !levels.baseline.singleRunStarts || !levels.candidate.singleRunStarts;
    const total = levels.standardError ** 2;
    return {
        factor,
        noise: {
            // No prior: published start-to-start figures are for speed, not for what the outputs were.
            ...startNoiseOf(levels, { baseline: levels.baseline.starts, candidate: levels.candidate.starts }, shared, undefined),
            runSd: {
                baseline: Math.sqrt(levels.baseline.runVariance),
                candidate: Math.sqrt(levels.candidate.runVariance),
            },
            startShare: total > 0 ? levels.startPart / total : 0,
            designEffect: factor,
        },
    };
}
/** A count and its total divided by a design effect (whole numbers, for the exact tests). */
function effectiveCounts(counts, factor) {
    if (factor <= 1)
        return counts;
    const count = Math.round(counts.count / factor);
    return { count, total: Math.max(count, Math.round(counts.total / factor)) };
}
/** The note of a pooled test whose counts a design effect divided (null: none). */
function designNote(factor) {
    return factor > 1
        ? `the runs and their server starts vary ${factor.toFixed(1)}x more than independent requests would: the counts were divided by that design effect`
        : null;
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
function metricDraft(compared, metric, fewestCompleted, settings, warnings) {
    const { cell, base, cand, tooFew } = compared;
    const { gate } = settings;
    const gatedSet = settings.advisoryCells?.has(cell) ? new Set() : settings.gatedSet;
    const tolerance = toleranceFor(gate, metric);
    if (metricSpecs[metric].judged === "pooled-failures") {
        return pooledCountDraft(cell, metric, base, cand, gatedSet.has(metric), tolerance, gate.error_rate_limit);
    }
    const draft = untestedDraft(cell, metric, gatedSet.has(metric), tolerance, {
        baseline: base.length,
        candidate: cand.length,
    });
    const found = sampleOf(draft, compared, fewestCompleted, warnings);
    if (found === "no-check")
        return null;
    if (found === "forced")
        return draft;
    const sample = leaveOutShortRuns(draft, compared, found, gate);
    const { b, c } = sample;
    draft.baseline = b.values.length > 0 ? geometricMean$1(b.values) : null;
    draft.candidate = c.values.length > 0 ? geometricMean$1(c.values) : null;
    if (decidedWithoutTest(draft, sample, tooFew, gate))
        return draft;
    const judged = draft.judgedOn ?? metric;
    testOnRunLogs(draft, b, c, {
        extraVariance: settings.driftVarianceFor(metric),
        minRunSd: gate.min_run_sd,
        passAlpha: settings.passAlpha,
        baselineVariancePrior: settings.baselineVariancePriorFor?.(cell, judged),
        startPrior: settings.startPriorFor?.(cell, judged),
        runPrior: settings.runPriorFor?.(cell, judged),
    });
    return draft;
}
/** A draft with nothing measured yet: every estimate and p-value null, no note. */
function untestedDraft(cell, metric, gated, tolerance, runs) {
    return {
        cell,
        metric,
        gated,
        higherIsBetter: metricSpecs[metric].higherIsBetter,
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
}
/**
 * The values of the draft's metric, or of its stand-in percentile when the inputs lack it. "no-check":
 * nothing to check (not gated, or a part or a server feature neither side has); "forced": gated, with no
 * stand-in, the draft is forced inconclusive.
 */
function sampleOf(draft, { base, cand }, fewestCompleted, warnings) {
    const { metric } = draft;
    const b = metricValues(base, metric);
    const c = metricValues(cand, metric);
    const absent = (v) => v.values.length === 0 && v.nonPositive === 0;
    if (!absent(b) || !absent(c))
        return { b, c, statistic: metricSpecs[metric].minRequests, fewestCompleted };
    // Absent from every input: vLLM's `--metric-percentiles` defaults to 99, so p95 is often missing.
    if (!draft.gated)
        return "no-check";
    // A session metric is measured by a session dataset's cells only, a fan-out metric by those with
    // fan-outs (docs/workloads.md): a cell without that part has none to gate, which is no gap in its inputs.
    const part = metricSpecs[metric].measuredIn;
    if (part !== undefined && withoutPart(base, part) && withoutPart(cand, part))
        return "no-check";
    // Nor is acceptance a gap where neither side's server speculates (docs/metrics.md).
    if (metricSpecs[metric].source.kind === "spec-decode")
        return "no-check";
    const substitute = judgeOnStandIn(draft, base, cand, warnings);
    if (substitute === null)
        return "forced";
    return {
        b: metricValues(base, substitute),
        c: metricValues(cand, substitute),
        statistic: metricSpecs[substitute].minRequests,
        fewestCompleted,
    };
}
/**
 * A few short runs (failed requests in a run planned near the floor) are left out of a gated check rather
 * than turning it advisory, which would let a regression pass unblocked: when most runs of each side
 * (two at least) reach gate.min_requests, the others are left out, with a note.
 */
function leaveOutShortRuns(draft, { base, cand }, sample, gate) {
    const { statistic, fewestCompleted } = sample;
    if (!draft.gated || statistic === null || fewestCompleted >= gate.min_requests[statistic])
        return sample;
    const { metric } = draft;
    const floor = gate.min_requests[statistic];
    const enough = (run) => Math.min(run.requests.completed, run.metricRequests?.[metric] ?? Number.POSITIVE_INFINITY) >= floor;
    const keptBase = base.filter(enough);
    const keptCand = cand.filter(enough);
    const most = (kept, all) => kept.length >= Math.max(2, all.length / 2);
    if (draft.judgedOn !== null || !most(keptBase, base) || !most(keptCand, cand))
        return sample;
    const left = base.length - keptBase.length + cand.length - keptCand.length;
    draft.runs = { baseline: keptBase.length, candidate: keptCand.length };
    draft.notes.push(`${left} run${left === 1 ? "" : "s"} with fewer than ${floor} successful requests left out of this check (gate.min_requests.${statistic})`);
    return {
        b: metricValues(keptBase, metric),
        c: metricValues(keptCand, metric),
        statistic,
        fewestCompleted: floor,
    };
}
/**
 * The reasons a check is decided without a test, applied to the draft: runs too short to gate its
 * statistic (advisory, or inconclusive for a stand-in), values missing or zero, fewer than 2 usable runs
 * on a side. True when one applied and the draft is final.
 */
function decidedWithoutTest(draft, sample, tooFew, gate) {
    const { b, c, statistic, fewestCompleted } = sample;
    const { cell, metric } = draft;
    if (draft.gated && statistic !== null && fewestCompleted < gate.min_requests[statistic]) {
        const why = `gating ${statistic} needs >= ${gate.min_requests[statistic]} successful requests in every run (fewest: ${fewestCompleted})`;
        if (draft.judgedOn !== null) {
            // A stand-in for a gated metric must not turn into an advisory one: that would let it pass.
            draft.forced = "inconclusive";
            draft.unfixable = `${describeMetric(metric)} is missing and its stand-in cannot be gated: ${why}`;
            draft.notes.push(why);
            return true;
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
        return true;
    }
    if (tooFew) {
        draft.forced = "inconclusive";
        draft.ratio = draft.candidate / draft.baseline;
        draft.notes.push("fewer than 2 usable runs on a side");
        return true;
    }
    return false;
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
    const { extraVariance, minRunSd, passAlpha, baselineVariancePrior, startPrior, runPrior } = options;
    const test = logRatioTest(baseline.values, candidate.values, {
        higherIsBetter: draft.higherIsBetter,
        tolerance: draft.tolerance,
        alphaEachSide: passAlpha,
        extraVariance,
        minRunSd,
        starts: { baseline: baseline.starts, candidate: candidate.starts },
        ...(baselineVariancePrior ? { baselineVariancePrior } : {}),
        ...(startPrior ? { startPrior } : {}),
        ...(runPrior ? { runPrior } : {}),
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
    draft.noise = noiseLevels(levels, sharedStarts, startPrior, runPrior ?? baselineVariancePrior);
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
function noiseLevels(levels, sharedStarts, prior, runPrior) {
    const total = levels.standardError ** 2;
    const sides = [levels.baseline, levels.candidate];
    return {
        ...startNoiseOf(levels, { baseline: levels.baseline.starts, candidate: levels.candidate.starts }, sharedStarts, prior),
        runSd: {
            baseline: Math.sqrt(levels.baseline.runVariance),
            candidate: Math.sqrt(levels.candidate.runVariance),
        },
        startShare: total > 0 ? levels.startPart / total : 0,
        runBasis: sides.some((side) => side.runPrior === "pooled") ? "measured+prior" : "measured",
        runDf: { baseline: levels.baseline.runVarianceDf, candidate: levels.candidate.runVarianceDf },
        priors: {
            start: startPriorUse(levels, sharedStarts, prior),
            run: runPriorUse(levels, runPrior),
        },
    };
}
function priorUse(description, prior, use, widenedOn) {
    return { ...description, sd: Math.sqrt(prior.variance), df: prior.df, use, widenedOn };
}
function startPriorUse(levels, sharedStarts, prior) {
    if (!prior?.description || !(prior.df > 0))
        return null;
    if (!sharedStarts)
        return priorUse(prior.description, prior, "unused", []);
    return levels.priorContradicted
        ? priorUse(prior.description, prior, "widened", ["baseline", "candidate"])
        : priorUse(prior.description, prior, "pooled", []);
}
/** The run-level prior as offered to the sides: the kind each side's runs hold (two-level.ts). */
function runPriorUse(levels, prior) {
    if (!prior?.description)
        return null;
    const offeredTo = (side) => {
        if (!("withinStart" in prior || "perRun" in prior))
            return "variance" in prior ? prior : undefined;
        return side.singleRunStarts ? prior.perRun : prior.withinStart;
    };
    const sides = [
        ["candidate", levels.candidate],
        ["baseline", levels.baseline],
    ];
    const offered = sides.filter(([, side]) => side.runPrior !== "none");
    const shown = offered.map(([, side]) => offeredTo(side)).find((p) => p !== undefined);
    if (!shown)
        return null;
    const widenedOn = offered.filter(([, side]) => side.runPrior === "widened").map(([name]) => name);
    return priorUse(prior.description, shown, widenedOn.length > 0 ? "widened" : "pooled", widenedOn.sort());
}
function toleranceFor(gate, metric) {
    return gate.metric_tolerance[metric] ?? gate.tolerance;
}
function geometricMean$1(values) {
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
/** What a pooled count counts in a run: its failed requests, or its malformed tool calls. */
function countOf(metric) {
    if (metricSpecs[metric].source.kind !== "malformed-tool-calls")
        return (run) => ({ failed: run.requests.failed, total: run.requests.total });
    return (run) => ({
        failed: run.toolCalls?.malformed ?? 0,
        total: (run.toolCalls?.wellFormed ?? 0) + (run.toolCalls?.malformed ?? 0),
    });
}
/** A pooled count's draft (error_rate, malformed_tool_call_share); null when neither side has anything to count. */
function pooledCountDraft(cell, metric, base, cand, gated, tolerance, limit) {
    const toolCalls = metricSpecs[metric].source.kind === "malformed-tool-calls";
    const counts = countOf(metric);
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
    const design = countDesign(base, cand, counts, b, c);
    const asFailures = (side) => {
        const effective = effectiveCounts({ count: side.failed, total: side.total }, design.factor);
        return { failed: effective.count, total: effective.total };
    };
    const eb = asFailures(b);
    const ec = asFailures(c);
    const pWorse = errorIncreaseP(eb, ec);
    const pBetter = errorIncreaseP(ec, eb);
    const draft = {
        ...untestedDraft(cell, metric, gated, tolerance, { baseline: base.length, candidate: cand.length }),
        baseline: baseRate,
        candidate: candRate,
        ratio: baseRate !== null && candRate !== null && baseRate > 0 ? candRate / baseRate : null,
        // Orientation for the shared rule: beyond tolerance only when the rate rose by more than δ relative.
        worse: baseRate !== null && candRate !== null ? Math.log((candRate + 1e-12) / (baseRate + 1e-12)) : null,
        pWorse,
        pBetter,
        // No estimate of run-to-run spread for a pooled count: "no change" means no significant increase.
        pWithinTolerance: null,
        pBeyond: pWorse,
        pBetterBeyond: pBetter,
        minPBeyond: errorIncreaseMinP(eb, ec),
        minPBetterBeyond: errorIncreaseMinP(ec, eb),
        noise: design.noise,
    };
    const note = designNote(design.factor);
    if (note !== null)
        draft.notes.push(note);
    forcePooledCount(draft, { toolCalls, candRate, limit, b, c });
    return draft;
}
/**
 * The exact test takes every request as independent; failures come in bursts of a run or a start, so
 * the counts are divided by the design effect the per-run rates grouped by start show (pooled-counts.ts).
 */
function countDesign(base, cand, counts, b, c) {
    if (!(b.total > 0 && c.total > 0))
        return { factor: 1, noise: null };
    const perRun = (runs) => runs.map((run) => {
        const count = counts(run);
        return { value: count.total > 0 ? count.failed / count.total : null, start: startOf(run) };
    });
    const pooledRate = (b.failed + c.failed) / Math.max(1, b.total + c.total);
    return pooledCountsDesign(perRun(base), perRun(cand), pooledRate * (1 - pooledRate) * (1 / b.total + 1 / c.total));
}
/** A pooled count's forced verdicts: an error rate above the limit blocks; a side without counts is inconclusive. */
function forcePooledCount(draft, { toolCalls, candRate, limit, b, c, }) {
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
            draft.unfixable = `no baseline ${what} recorded in cell "${draft.cell}"`;
    }
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

/** `{ start }` when there is a start level to project, else nothing (exactOptionalPropertyTypes). */
function withStart(start) {
    return start === undefined ? {} : { start };
}
/** The gated drafts that have tests against the tolerance: the speed checks' part of the gated family. */
function familyDrafts(drafts) {
    return drafts.filter((d) => d.gated && d.forced === null && d.pBeyond !== null && d.pBetterBeyond !== null);
}
/** The group key of a family and metric (compare/analyze/gated-family.ts groups by it). */
function familyGroupKey(group) {
    return `${group.family}\u0000${group.metric}`;
}
/**
 * The gated family's members of those drafts (compare/analyze/gated-family.ts). A check tested on per-run
 * logs of its own metric pools with the other cells of its workload family (`familyOf`); an error rate (a
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
    const adjusted = adjustedPValues(drafts, familyAdjusted);
    return drafts.map((draft) => {
        const adj = adjusted.get(draft);
        const verdict = verdictOf(draft, adj, alpha, passAlpha);
        const towardsWorse = (draft.worse ?? 0) >= 0;
        const { ci, ciLevels, detectable } = decidedOn(draft, adj, verdict, { alpha, passAlpha, familySize });
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
 * The adjusted p-values of the tested drafts: the gated ones' tests against the tolerance from the gated
 * family, their tests of any change Holm-adjusted among themselves; the advisory ones' Benjamini-Hochberg.
 */
function adjustedPValues(drafts, familyAdjusted) {
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
    return adjusted;
}
/** A draft's verdict: the forced one, a pooled count's against its margin, else the classification. */
function verdictOf(draft, adj, alpha, passAlpha) {
    if (draft.forced !== null)
        return draft.forced;
    if (metricSpecs[draft.metric].judged === "pooled-failures") {
        // A pooled count has no run-to-run spread: significance against 0 plus the relative tolerance.
        const margin = toleranceMargin(draft.tolerance);
        // Its tests against the tolerance are the tests of any rise / fall (pBeyond = pWorse): a gated
        // one is adjusted in the gated family, an advisory one with the advisory tests of any change.
        const pRise = draft.gated ? adj.beyond : adj.worse;
        const pFall = draft.gated ? adj.betterBeyond : adj.better;
        if (pRise <= alpha && (draft.worse ?? 0) > margin)
            return "regression";
        if (pFall <= alpha && (draft.worse ?? 0) < -margin)
            return "improvement";
        return "within-tolerance";
    }
    return classify({
        pBeyondToleranceAdjusted: adj.beyond,
        pBetterBeyondToleranceAdjusted: adj.betterBeyond,
        pWithinTolerance: draft.pWithinTolerance,
        alpha,
        passAlpha,
    });
}
/**
 * The interval a tested draft was decided on (decisionInterval) and, for a gated one, the smallest change
 * it could detect at the family's strictest level (`familySize` regression tests); the draft's own 90%
 * interval and no detectable change for an untested one.
 */
function decidedOn(draft, adj, verdict, levels) {
    const { alpha, passAlpha, familySize } = levels;
    if (!draft.test || !adj)
        return { ci: draft.ci, ciLevels: null, detectable: null };
    const { ci, ciLevels } = decisionInterval({
        test: draft.test,
        higherIsBetter: draft.higherIsBetter,
        regression: { p: draft.pBeyond, adjusted: adj.beyond },
        improvement: { p: draft.pBetterBeyond, adjusted: adj.betterBeyond },
        improved: verdict === "improvement",
        alpha,
        passAlpha,
    });
    const detectable = draft.gated && draft.variances
        ? minimumDetectableChange({
            baselineVariance: draft.variances.baseline,
            candidateVariance: draft.variances.candidate,
            baselineRuns: draft.runs.baseline,
            candidateRuns: draft.runs.candidate,
            extraVariance: draft.variances.extra,
            tolerance: draft.tolerance,
            alpha: alpha / Math.max(1, familySize),
            df: draft.test.df,
            ...withStart(startProjectionOf(draft, 1, "current")),
        })
        : null;
    return { ci, ciLevels, detectable };
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

function pooledLogRatio(components) {
    const n = components.length;
    if (n === 0)
        throw new RangeError("pooledLogRatio needs at least one cell");
    let worse = 0;
    let estimated = 0;
    let denominator = 0;
    let sharedSd = 0;
    for (const c of components) {
        const total = c.standardError * c.standardError;
        worse += c.worse / n;
        estimated += Math.max(0, total - c.extraVariance) / (n * n);
        // The cell's Satterthwaite denominator is total² / df (welch.ts); scaling its components by 1/n²
        // scales it by 1/n⁴.
        if (total > 0 && c.df > 0)
            denominator += (total * total) / c.df / (n * n * n * n);
        sharedSd += Math.sqrt(Math.max(0, c.extraVariance)) / n;
    }
    const variance = estimated + sharedSd * sharedSd;
    const standardError = Math.sqrt(variance);
    const df = denominator > 0 ? (variance * variance) / denominator : Number.POSITIVE_INFINITY;
    const t = standardError > 0 ? worse / standardError : worse === 0 ? 0 : Math.sign(worse) * Number.POSITIVE_INFINITY;
    return { difference: worse, standardError, df, t };
}

/** The family tests: per group of at least two testable checks, the pooled log ratio. */
function familyTestsOf(members, joined) {
    const groups = new Map();
    members.forEach((member, i) => {
        if (!member.pool || !joined[i])
            return;
        const key = `${member.pool.group}\u0000${member.pool.tolerance}`;
        groups.set(key, [...(groups.get(key) ?? []), i]);
    });
    return [...groups.values()]
        .filter((indexes) => indexes.length >= 2)
        .map((indexes) => {
        const first = members[indexes[0]].pool;
        return {
            group: first.group,
            members: indexes,
            tolerance: first.tolerance,
            test: pooledLogRatio(indexes.map((i) => members[i].pool.component)),
        };
    });
}
/**
 * The graph over the family's tests (the joined checks, then the family tests): the initial shares and
 * the edges described above.
 */
function familyGraph(joinedIndexes, groups, weight) {
    const m = joinedIndexes.length;
    const position = new Map(joinedIndexes.map((index, k) => [index, k]));
    const grouped = new Set(groups.flatMap((g) => g.members));
    const shares = [
        ...joinedIndexes.map((index) => (grouped.has(index) ? 1 - weight : 1) / m),
        ...groups.map((g) => (weight * g.members.length) / m),
    ];
    const n = shares.length;
    const transitions = shares.map((share, j) => {
        const row = new Array(n).fill(0);
        if (j < m) {
            // A rejected check: Holm's step, its share to every open test in proportion to the initial shares.
            for (let k = 0; k < n; k++)
                if (k !== j && share < 1)
                    row[k] = shares[k] / (1 - share);
        }
        else {
            // A rejected family test: its share back to its own cells.
            const members = groups[j - m].members;
            for (const index of members)
                row[position.get(index)] = 1 / members.length;
        }
        return row;
    });
    return { graph: { weights: shares, transitions }, shares };
}
function adjustDirection(tests, familyP, groups, weight, alpha) {
    const joined = tests.map((test) => test !== null && test.minP <= alpha);
    const indexes = tests.flatMap((_, i) => (joined[i] ? [i] : []));
    const adjusted = tests.map((test) => (test === null ? null : test.p));
    const leftOut = tests.filter((test, i) => test !== null && !joined[i]).length;
    const p = indexes.map((i) => tests[i].p);
    if (groups.length === 0 || weight === 0) {
        holmAdjust(p).forEach((value, k) => {
            adjusted[indexes[k]] = value;
        });
        return { adjusted, joined, leftOut, familyAdjusted: [], strictestShare: 1 / Math.max(1, indexes.length) };
    }
    const { graph, shares } = familyGraph(indexes, groups, weight);
    const all = graphAdjust([...p, ...familyP], graph);
    indexes.forEach((i, k) => {
        adjusted[i] = all[k];
    });
    return {
        adjusted,
        joined,
        leftOut,
        familyAdjusted: all.slice(indexes.length),
        strictestShare: Math.min(...shares.slice(0, indexes.length)),
    };
}
/**
 * The family's adjustment at the look's α, the regression tests and, apart, the improvement tests, each
 * with the family tests of their direction (`familyWeight`: gate.family_weight).
 */
function adjustGatedFamily(members, alpha, familyWeight = 0) {
    const reaches = (test) => test !== null && test.minP <= alpha;
    // A family test pools checks that are in both directions' families.
    const joinedBoth = members.map((m) => reaches(m.regression) && reaches(m.improvement));
    const families = familyWeight > 0 ? familyTestsOf(members, joinedBoth) : [];
    const worseP = families.map((f) => pAbove(f.test, toleranceMargin(f.tolerance)));
    const betterP = families.map((f) => pBelow(f.test, -toleranceMargin(f.tolerance)));
    const regression = adjustDirection(members.map((m) => m.regression), worseP, families, familyWeight, alpha);
    const improvement = adjustDirection(members.map((m) => m.improvement), betterP, families, familyWeight, alpha);
    const count = (source) => members.filter((m, i) => m.source === source && regression.joined[i]).length;
    return {
        members: members.map((_, i) => ({
            regression: regression.adjusted[i],
            improvement: improvement.adjusted[i],
            inFamily: regression.joined[i],
        })),
        familyTests: families.map((family, k) => ({
            ...family,
            regression: { p: worseP[k], adjusted: regression.familyAdjusted[k] },
            improvement: { p: betterP[k], adjusted: improvement.familyAdjusted[k] },
        })),
        summary: {
            alpha,
            regression: {
                speed: count("speed"),
                capacity: count("capacity"),
                guard: count("guard"),
                task: count("task"),
                total: regression.joined.filter(Boolean).length,
                leftOut: regression.leftOut,
            },
            improvement: { total: improvement.joined.filter(Boolean).length, leftOut: improvement.leftOut },
            familyTests: { weight: familyWeight, total: families.length },
            strictestShare: regression.strictestShare,
        },
    };
}

/**
 * The guard checks' drafts: for each compared cell whose runs carry guard counts (run.json `guards`),
 * each guard metric pooled over a side's runs and tested. A share is a regression when it rose
 * significantly (Fisher's exact test, `shareIncreaseP`) and by more than `share_points`; the mean output
 * length when it moved significantly, either way, by more than `output_length_tolerance` (two one-sided
 * tests on the pooled request lengths). Each test joins the gated family (`gated-family.ts`): Holm
 * over it with the speed, capacity and task checks, in `decideGuards`. Null when guards are off or no
 * run has guard counts.
 */
function guardDrafts(compared, settings, warnings) {
    if (!settings.guards.enabled)
        return null;
    const drafts = [];
    let anyGuards = false;
    for (const cell of compared) {
        const base = guardsOf(cell.base);
        const cand = guardsOf(cell.cand);
        if (base.length > 0 || cand.length > 0)
            anyGuards = true;
        if (base.length === 0 || cand.length === 0) {
            if (base.length + cand.length > 0)
                warnings.push(`cell "${cell.cell}": the ${base.length === 0 ? "baseline" : "candidate"} runs have no guard counts (run.json from an older version or a vLLM result): its quality guards were not judged`);
            continue;
        }
        for (const metric of guardMetrics)
            drafts.push(guardDraft(cell.cell, metric, base, cand, settings));
    }
    return anyGuards ? drafts : null;
}
/** The gated family's members of the guard drafts (regression direction only: a guard never improves). */
function guardMembers(drafts) {
    return drafts.map((draft) => ({ source: "guard", regression: draft.test, improvement: null }));
}
/**
 * The guard verdicts from the family's adjustment (one entry per draft, in order): a regression when the
 * adjusted p is at most α and the change is beyond the tolerance; a check without spread is decided by
 * the observed change; without data it is inconclusive. Guards block or let pass, they never ask for
 * more runs.
 */
function decideGuards(drafts, adjusted, alpha) {
    return drafts.map((draft, i) => {
        const { test, beyond, untested, ...check } = draft;
        const member = adjusted[i];
        const p = test === null ? null : member.regression;
        const verdict = untested === "inconclusive"
            ? "inconclusive"
            : untested === "observed"
                ? beyond
                    ? "regression"
                    : "within-tolerance"
                : p !== null && p <= alpha && beyond
                    ? "regression"
                    : "within-tolerance";
        return { ...check, p, inFamily: member.inFamily, verdict };
    });
}
function guardsOf(runs) {
    return runs.flatMap((run) => run.guards === undefined ? [] : [{ guards: run.guards, start: startOf(run) }]);
}
/** Each run's value of a guard (null: none) with its start, for the design effect. */
function perRun(runs, measure) {
    return runs.map((run) => ({ value: measure(run.guards), start: run.start }));
}
function guardDraft(cell, metric, baseRuns, candRuns, settings) {
    const source = metricSpecs[metric].source;
    const override = settings.metricTolerance[metric];
    if (source.kind === "guard-share") {
        const tolerance = override ?? settings.guards.share_points;
        return shareDraft({ cell, metric, baseRuns, candRuns, tolerance }, source.field);
    }
    const tolerance = override ?? settings.guards.output_length_tolerance;
    return lengthDraft({ cell, metric, baseRuns, candRuns, tolerance });
}
/**
 * A share guard: the pooled share of a side's requests, tested with Fisher's exact test on counts divided
 * by the design effect; beyond when it rose by more than the tolerance (points).
 */
function shareDraft(guard, field) {
    const { cell, metric, baseRuns, candRuns, tolerance } = guard;
    const pool = (runs) => ({
        count: runs.reduce((sum, run) => sum + guardShareCount(run.guards, field), 0),
        requests: runs.reduce((sum, run) => sum + run.guards.requests, 0),
    });
    const b = pool(baseRuns);
    const c = pool(candRuns);
    const share = (side) => side.requests > 0 ? side.count / side.requests : null;
    const baseline = share(b);
    const candidate = share(c);
    const empty = baseline === null || candidate === null;
    // Fisher's test takes every request as independent: the runs and their starts say by how much more
    // the pooled share varies, and the counts are divided by that design effect.
    const shareOf = (g) => (g.requests > 0 ? guardShareCount(g, field) / g.requests : null);
    const pooledShare = (b.count + c.count) / Math.max(1, b.requests + c.requests);
    const design = empty
        ? { factor: 1, noise: null }
        : pooledCountsDesign(perRun(baseRuns, shareOf), perRun(candRuns, shareOf), pooledShare * (1 - pooledShare) * (1 / b.requests + 1 / c.requests));
    const test = empty
        ? null
        : shareIncreaseP(effectiveCounts({ count: b.count, total: b.requests }, design.factor), effectiveCounts({ count: c.count, total: c.requests }, design.factor));
    return {
        cell,
        metric,
        toleranceKind: "points",
        tolerance,
        baseline,
        candidate,
        counts: { baseline: b, candidate: c },
        pRaw: test?.p ?? null,
        test,
        beyond: !empty && candidate - baseline > tolerance,
        untested: empty ? "inconclusive" : null,
        note: empty ? "no measured requests on a side" : designNote(design.factor),
        ...(design.noise ? { noise: design.noise } : {}),
    };
}
/**
 * The mean output length guard: the pooled request lengths of each side, two one-sided tests of a move
 * beyond ±tolerance (relative) on counts divided by the design effect (lengthShiftP).
 */
function lengthDraft(guard) {
    const { cell, metric, baseRuns, candRuns, tolerance } = guard;
    const base = baseRuns.map((run) => run.guards);
    const cand = candRuns.map((run) => run.guards);
    const b = pooledLengths(base);
    const c = pooledLengths(cand);
    const counts = {
        baseline: { count: b.count, requests: base.reduce((sum, g) => sum + g.requests, 0) },
        candidate: { count: c.count, requests: cand.reduce((sum, g) => sum + g.requests, 0) },
    };
    if (b.mean === null || c.mean === null || b.mean <= 0 || c.mean <= 0) {
        return {
            cell,
            metric,
            toleranceKind: "relative",
            tolerance,
            baseline: b.mean,
            candidate: c.mean,
            counts,
            pRaw: null,
            test: null,
            beyond: false,
            untested: "inconclusive",
            note: `no output tokens on a side: ${describeMetric(metric)} cannot be compared`,
        };
    }
    // The delta method takes every request's length as independent: divided by the design effect of
    // the runs' mean lengths (ln) grouped by start, as the shares are.
    const lengthOf = (g) => g.outputTokens.mean !== null && g.outputTokens.mean > 0 ? Math.log(g.outputTokens.mean) : null;
    const design = pooledCountsDesign(perRun(baseRuns, lengthOf), perRun(candRuns, lengthOf), b.variance / (b.count * b.mean * b.mean) + c.variance / (c.count * c.mean * c.mean));
    const shift = lengthShiftP({ ...b, count: b.count / design.factor }, { ...c, count: c.count / design.factor }, tolerance);
    // Without spread on either side there is no test: the observed ratio decides, outside the family.
    const noSpread = b.variance === 0 && c.variance === 0;
    const eosIgnored = [...base, ...cand].every((g) => g.ignoreEos === true);
    return {
        cell,
        metric,
        toleranceKind: "relative",
        tolerance,
        baseline: b.mean,
        candidate: c.mean,
        counts,
        pRaw: shift.p,
        test: noSpread ? null : { p: shift.p, minP: 0 },
        beyond: shift.beyond,
        untested: noSpread ? "observed" : null,
        note: lengthNote(eosIgnored, noSpread, design.factor),
        ...(design.noise ? { noise: design.noise } : {}),
    };
}
/** What the length guard's reader needs told: lengths set by the workload, no spread, the design effect. */
function lengthNote(eosIgnored, noSpread, designFactor) {
    const ignoredNote = eosIgnored ? "ignore_eos: lengths are set by the workload, not by the model" : null;
    const notes = noSpread
        ? [
            ignoredNote,
            "no spread in the lengths on either side: decided by the observed ratio, outside the gated family",
        ]
        : [ignoredNote, designNote(designFactor)];
    const kept = notes.filter((n) => n !== null);
    return kept.length > 0 ? kept.join("; ") : null;
}
/** The request lengths of a side's runs pooled from each run's count, mean and population sd. */
function pooledLengths(runs) {
    let count = 0;
    let sum = 0;
    for (const g of runs) {
        if (g.outputTokens.mean === null)
            continue;
        count += g.outputTokens.count;
        sum += g.outputTokens.count * g.outputTokens.mean;
    }
    if (count === 0)
        return { count, mean: null, variance: 0 };
    const mean = sum / count;
    let squares = 0;
    for (const g of runs) {
        if (g.outputTokens.mean === null)
            continue;
        const sd = g.outputTokens.std ?? 0;
        squares += g.outputTokens.count * (sd * sd + (g.outputTokens.mean - mean) ** 2);
    }
    return { count, mean, variance: count > 1 ? squares / (count - 1) : 0 };
}
/**
 * Whether the mean length moved beyond ±tolerance (relative), and the p-value of that: the smaller of the
 * two one-sided tests (longer than 1 + tolerance, shorter than 1 - tolerance) on the log ratio of the
 * means (delta method, normal), doubled for the two directions. Without spread on either side the
 * observed ratio decides (p 0 beyond, 1 inside).
 */
function lengthShiftP(baseline, candidate, tolerance) {
    const mb = baseline.mean;
    const mc = candidate.mean;
    const logRatio = Math.log(mc / mb);
    const upper = toleranceMargin(tolerance);
    const lower = tolerance < 1 ? logRatioOf(-tolerance) : Number.NEGATIVE_INFINITY;
    const beyond = logRatio > upper || logRatio < lower;
    const se = Math.sqrt(baseline.variance / (baseline.count * mb * mb) + candidate.variance / (candidate.count * mc * mc));
    if (!(se > 0))
        return { p: beyond ? 0 : 1, beyond };
    const pLonger = 1 - normalCdf((logRatio - upper) / se);
    const pShorter = lower === Number.NEGATIVE_INFINITY ? 1 : 1 - normalCdf((lower - logRatio) / se);
    return { p: Math.min(1, 2 * Math.min(pLonger, pShorter)), beyond };
}

/**
 * Where a variance believed before a comparison's runs came from, and how old it is (docs/compare.md,
 * "Noise known in advance"): the config's published figures, a calibration of this runner, main's history
 * of baseline sessions. The verdict records it per check and level; the report names it with its age.
 */
/** Whole days from `measuredAt` to `now` (ISO times); null when either is not a time. */
function priorAgeDays(measuredAt, now) {
    if (!measuredAt)
        return null;
    const from = Date.parse(measuredAt);
    const to = Date.parse(now);
    if (!Number.isFinite(from) || !Number.isFinite(to))
        return null;
    return Math.max(0, Math.floor((to - from) / 86_400_000));
}
/** The origin at `now`: its date, age and whether it is older than `maxAgeDays`. */
function describePrior(origin, now, maxAgeDays) {
    const ageDays = priorAgeDays(origin.measuredAt, now);
    return {
        basis: origin.basis,
        source: origin.source,
        date: origin.measuredAt ? origin.measuredAt.slice(0, 10) : null,
        since: origin.since ? origin.since.slice(0, 10) : null,
        ageDays,
        stale: ageDays !== null && ageDays > maxAgeDays,
    };
}
/** The warning for a prior older than the limit, naming the limit. */
function stalePriorWarning(description, maxAgeDays) {
    const what = description.basis === "history" ? "main's history" : description.source;
    return `${what} of ${description.date} is ${description.ageDays} days old, older than gate.noise_prior.max_age_days (${maxAgeDays}): its variances are still used (widened where this pull request's runs contradict them), but this runner may have changed since; ${description.basis === "history" ? "record newer baseline sessions on main" : "run `calibrate` again on it"}`;
}

function describeAt(sources, origin) {
    return describePrior(origin, sources.now, sources.gate.noise_prior.max_age_days);
}
/**
 * The start-to-start variance believed for a check before its runs: a measured one for this runner (a
 * calibration, main's history) where there is one, else gate.noise_prior's for the metric's family,
 * weighted gate.noise_prior.weight_starts degrees of freedom.
 */
function startPriorOf(sources) {
    const prior = sources.gate.noise_prior;
    return (cell, metric) => {
        const family = metricSpecs[metric].noise;
        const sd = prior[family].start_sd;
        const source = `gate.noise_prior.${family}`;
        const configPrior = { variance: sd * sd, df: prior.weight_starts };
        const found = sources.startVariancePriors?.get(`${cell}\u0000${metric}`);
        if (found) {
            const measured = withConfigStartPrior(found, configPrior);
            const origin = {
                source: measured.source,
                basis: measured.basis ?? (/history/i.test(measured.source) ? "history" : "calibration"),
                measuredAt: measured.measuredAt ?? null,
                ...(measured.since ? { since: measured.since } : {}),
            };
            const pooledSource = configPrior.df > 0 ? `${measured.source} + ${source}` : measured.source;
            return { ...measured, source: pooledSource, description: describeAt(sources, origin) };
        }
        return {
            ...configPrior,
            source,
            description: describeAt(sources, { source, basis: "config", measuredAt: null }),
        };
    };
}
/** Interleaved mode: the run-to-run variance measured on this runner for a check, for both sides. */
function runPriorOf(sources) {
    return (cell, metric) => {
        const measured = sources.runVariancePriors?.get(`${cell}\u0000${metric}`);
        return measured ? { ...measured, description: describeAt(sources, measured) } : undefined;
    };
}
/** Stored mode: the baseline's run-to-run variance from earlier sessions, with where it came from. */
function baselinePriorOf(sources, priors) {
    const description = describeAt(sources, sources.baselineVariancePriorOrigin ?? { source: "main's history", basis: "history", measuredAt: null });
    return (cell, metric) => {
        const prior = priors.get(`${cell}\u0000${metric}`);
        return prior ? { ...prior, description } : undefined;
    };
}
/** One warning per stale prior a check used, naming gate.noise_prior.max_age_days. */
function stalePriorWarnings(drafts, maxAgeDays) {
    const stale = new Map();
    for (const draft of drafts)
        for (const prior of [draft.noise?.priors?.start, draft.noise?.priors?.run])
            if (prior?.stale && prior.use !== "unused")
                stale.set(`${prior.basis}:${prior.date}`, prior);
    return [...stale.values()].map((prior) => stalePriorWarning(prior, maxAgeDays));
}

/**
 * The Wilson score interval of a proportion (two-sided, `confidence` e.g. 0.95): the interval vLLM's
 * accuracy gate and TRT-LLM's sizing use, sound near 0 and 1 where the normal interval is not.
 */
function wilsonInterval(successes, n, confidence) {
    if (n === 0)
        return [0, 1];
    const z = normalQuantile(1 - (1 - confidence) / 2);
    const p = successes / n;
    const z2 = z * z;
    const denominator = 1 + z2 / n;
    const centre = (p + z2 / (2 * n)) / denominator;
    const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
    // At 0 and n the bound on that side is exactly 0 or 1 (the closed form loses the last bit there).
    return [successes === 0 ? 0 : Math.max(0, centre - half), successes === n ? 1 : Math.min(1, centre + half)];
}
/**
 * Exact one-sided McNemar test on paired outcomes: of the `b + c` discordant pairs, `b` where only the
 * baseline was right and `c` where only the candidate was. Under "no change" b ~ Binomial(b + c, 1/2);
 * the p-value of "the candidate is worse" is P(X >= b). 1 without discordant pairs.
 */
function mcnemarWorseP(b, c) {
    const n = b + c;
    if (n === 0 || b === 0)
        return 1;
    return 1 - binomialCdf(b - 1, n, 0.5);
}
/**
 * One-sided two-proportion z-test (pooled) of "the candidate's accuracy is lower", for two samples that
 * cannot be paired (an external task that reports only its aggregate accuracy): z = (p_b − p_c) /
 * sqrt(p̄(1 − p̄)(1/n_b + 1/n_c)), p = 1 − Φ(z). 1 when either side is empty or the pooled share is 0 or 1.
 */
function twoProportionWorseP(baseCorrect, baseN, candCorrect, candN) {
    if (baseN === 0 || candN === 0)
        return 1;
    const pooled = (baseCorrect + candCorrect) / (baseN + candN);
    if (pooled <= 0 || pooled >= 1)
        return 1;
    const z = (baseCorrect / baseN - candCorrect / candN) / Math.sqrt(pooled * (1 - pooled) * (1 / baseN + 1 / candN));
    return 1 - normalCdf(z);
}

function scored(run) {
    return (run.outputs ?? []).filter((output) => output.task !== undefined);
}
function firstScoredRun(runs) {
    return [...runs].sort((a, b) => (a.run ?? 0) - (b.run ?? 0)).find((run) => scored(run).length > 0);
}
/**
 * The task-accuracy drafts of every compared cell whose runs scored answers: the first scored run of each
 * side, paired prompt by prompt (same index = same task of the seeded set), with the exact McNemar test on
 * the discordant pairs of "the candidate is worse"; and the external task results (quality.tasks.external,
 * see externalDrafts). Each side's accuracy has its Wilson interval. Null without any. Pure.
 */
function taskDrafts(compared, settings) {
    const drafts = [];
    for (const cell of compared) {
        const base = firstScoredRun(cell.base);
        const cand = firstScoredRun(cell.cand);
        if (base === undefined || cand === undefined)
            continue;
        const candidate = new Map(scored(cand).map((output) => [output.index, output.task.correct]));
        let prompts = 0;
        let baseCorrect = 0;
        let candCorrect = 0;
        let onlyBaseline = 0;
        let onlyCandidate = 0;
        for (const output of scored(base)) {
            const other = candidate.get(output.index);
            if (other === undefined)
                continue;
            prompts++;
            const right = output.task.correct;
            if (right)
                baseCorrect++;
            if (other)
                candCorrect++;
            if (right && !other)
                onlyBaseline++;
            if (!right && other)
                onlyCandidate++;
        }
        const side = (correct) => ({
            correct,
            accuracy: prompts > 0 ? correct / prompts : 0,
            wilson: wilsonInterval(correct, prompts, settings.confidence),
        });
        drafts.push({
            cell: cell.cell,
            method: "mcnemar",
            runs: { baseline: base.run, candidate: cand.run },
            prompts,
            baseline: side(baseCorrect),
            candidate: side(candCorrect),
            onlyBaseline,
            onlyCandidate,
            tolerancePoints: settings.tasks.tolerance_points,
            pRaw: mcnemarWorseP(onlyBaseline, onlyCandidate),
            confidence: settings.confidence,
            note: prompts === 0 ? "no task was answered on both sides" : null,
        });
    }
    drafts.push(...compared.flatMap((cell) => externalDrafts(cell, settings)));
    return drafts.length === 0 ? null : drafts;
}
/**
 * The smallest p a task test can attain: McNemar conditions on the discordant pairs n, so 0.5^n (1
 * without one); the two-proportion z-test is continuous (1 when its pooled share is 0 or 1).
 */
function minimumP(draft) {
    if (draft.method === "mcnemar") {
        const n = draft.onlyBaseline + draft.onlyCandidate;
        return n === 0 ? 1 : 0.5 ** n;
    }
    return draft.pRaw >= 1 ? 1 : 0;
}
/** The gated family's members of the task drafts (regression direction: the candidate worse). */
function taskMembers(drafts) {
    return drafts.map((draft) => ({
        source: "task",
        regression: { p: draft.pRaw, minP: minimumP(draft) },
        improvement: null,
    }));
}
/**
 * The task verdicts from the family's adjustment (one entry per draft): a regression when the adjusted p
 * is at most α and the accuracy fell by more than `tolerance_points`.
 */
function decideTasks(drafts, adjusted, alpha) {
    return drafts.map((draft, i) => {
        const member = adjusted[i];
        const p = member.regression ?? draft.pRaw;
        const drop = draft.baseline.accuracy - draft.candidate.accuracy;
        const regression = draft.prompts > 0 && p <= alpha && drop > draft.tolerancePoints;
        return {
            ...draft,
            p,
            inFamily: member.inFamily,
            verdict: regression ? "regression" : "within-tolerance",
        };
    });
}
/** Each side's result of every external task of the cell: the first run that has it. */
function externalResults(runs) {
    const found = new Map();
    for (const run of [...runs].sort((a, b) => (a.run ?? 0) - (b.run ?? 0))) {
        for (const file of run.external ?? [])
            if (!found.has(file.name))
                found.set(file.name, { run: run.run, file });
    }
    return found;
}
/**
 * The external tasks of a cell present on both sides. With per-sample results on both sides, paired by
 * sample id: the exact McNemar test, as for a tasks cell. Without them, each side's aggregate accuracy
 * of its own n samples: the one-sided two-proportion z-test (unpaired, so less sensitive), each side's
 * correct count taken as round(accuracy × n).
 */
function externalDrafts(cell, settings) {
    const base = externalResults(cell.base);
    const cand = externalResults(cell.cand);
    const drafts = [];
    for (const [name, b] of [...base].sort(([x], [y]) => x.localeCompare(y))) {
        const c = cand.get(name);
        if (c === undefined)
            continue;
        const common = {
            cell: cell.cell,
            external: name,
            runs: { baseline: b.run, candidate: c.run },
            tolerancePoints: settings.tasks.tolerance_points,
            confidence: settings.confidence,
        };
        const side = (correct, n, paired) => ({
            correct,
            accuracy: n > 0 ? correct / n : 0,
            wilson: wilsonInterval(correct, n, settings.confidence),
            ...(paired ? {} : { n }),
        });
        if (b.file.samples !== null && c.file.samples !== null) {
            const other = new Map(c.file.samples.map((sample) => [sample.id, sample.correct]));
            let prompts = 0;
            let baseCorrect = 0;
            let candCorrect = 0;
            let onlyBaseline = 0;
            let onlyCandidate = 0;
            for (const sample of b.file.samples) {
                const right = other.get(sample.id);
                if (right === undefined)
                    continue;
                prompts++;
                if (sample.correct)
                    baseCorrect++;
                if (right)
                    candCorrect++;
                if (sample.correct && !right)
                    onlyBaseline++;
                if (!sample.correct && right)
                    onlyCandidate++;
            }
            drafts.push({
                ...common,
                method: "mcnemar",
                prompts,
                baseline: side(baseCorrect, prompts, true),
                candidate: side(candCorrect, prompts, true),
                onlyBaseline,
                onlyCandidate,
                pRaw: mcnemarWorseP(onlyBaseline, onlyCandidate),
                note: prompts === 0 ? "no sample id is on both sides" : null,
            });
            continue;
        }
        const baseCorrect = Math.round(b.file.accuracy * b.file.count);
        const candCorrect = Math.round(c.file.accuracy * c.file.count);
        drafts.push({
            ...common,
            method: "two-proportion",
            prompts: Math.min(b.file.count, c.file.count),
            baseline: side(baseCorrect, b.file.count, false),
            candidate: side(candCorrect, c.file.count, false),
            onlyBaseline: 0,
            onlyCandidate: 0,
            pRaw: twoProportionWorseP(baseCorrect, b.file.count, candCorrect, c.file.count),
            note: "no per-sample results on both sides: unpaired two-proportion test",
        });
    }
    return drafts;
}

const defaultGuardSettings = {
    enabled: true,
    share_points: 0.02,
    output_length_tolerance: 0.1,
};
/** Stages 1 to 3: the usable runs (outliers screened), the cells paired and each cell's drafts. */
function draftSpeedChecks(input, levels, drift, warnings) {
    const { gate, mode } = input;
    const runs = selectUsableRuns(input.baseline, input.candidate, gate, warnings);
    const pairing = pairCells(runs, mode);
    const startPriorFor = mode === "interleaved" ? startPriorOf(input) : undefined;
    const settings = {
        gate,
        gatedSet: new Set(gate.metrics),
        advisoryCells: outputCells(input.baseline, input.candidate),
        passAlpha: levels.passAlpha,
        driftVarianceFor: drift.varianceFor,
        ...(mode === "stored" && input.baselineVariancePriors
            ? { baselineVariancePriorFor: baselinePriorOf(input, input.baselineVariancePriors) }
            : {}),
        ...(startPriorFor ? { startPriorFor, runPriorFor: runPriorOf(input) } : {}),
    };
    const drafts = pairing.compared.flatMap((cell) => draftsForCell(cell, settings, warnings));
    warnings.push(...stalePriorWarnings(drafts, gate.noise_prior.max_age_days));
    return { runs, pairing, drafts, ...(startPriorFor ? { startPriorFor } : {}) };
}
function draftQualityChecks(input, warnings) {
    // The quality checks read what the outputs were: a run excluded from the speed checks (client-bound,
    // an outlier) still answered its prompts, so every run of a cell present on both sides counts.
    const cells = qualityCellsOf(input.baseline, input.candidate);
    const guards = guardDrafts(cells, { guards: input.quality?.guards ?? defaultGuardSettings, metricTolerance: input.gate.metric_tolerance }, warnings);
    const tasks = taskDrafts(cells, {
        tasks: input.quality?.tasks ?? { tolerance_points: 0.02 },
        confidence: input.gate.confidence,
    });
    return { cells, guards, tasks };
}
/**
 * The gated family, one per comparison: the speed checks' tests against the tolerance, the capacity
 * checks', the guards' and the task checks', and the family tests of each gated metric across the cells
 * of a workload family, adjusted together at the look's α (compare/analyze/gated-family.ts).
 */
function adjustFamily(input, drafts, quality, alpha) {
    const speedDrafts = familyDrafts(drafts);
    const extras = input.familyExtras ?? [];
    const guards = quality.guards ?? [];
    const tasks = quality.tasks ?? [];
    const familyOf = (cell) => input.cellFamilies?.[cell] ?? cellFamily({ name: cell });
    const groups = new Map();
    for (const d of speedDrafts) {
        const group = { family: familyOf(d.cell), metric: d.metric };
        groups.set(familyGroupKey(group), group);
    }
    const family = adjustGatedFamily([...speedMembers(speedDrafts, familyOf), ...extras, ...guardMembers(guards), ...taskMembers(tasks)], alpha, input.gate.family_weight);
    const at = (offset, count) => family.members.slice(offset, offset + count);
    const speedAdjusted = at(0, speedDrafts.length);
    const guardOffset = speedDrafts.length + extras.length;
    return {
        speedDrafts,
        speedAdjusted: new Map(speedDrafts.map((d, i) => [
            d,
            { beyond: speedAdjusted[i].regression, betterBeyond: speedAdjusted[i].improvement },
        ])),
        extrasAdjusted: at(speedDrafts.length, extras.length),
        guardsAdjusted: at(guardOffset, guards.length),
        tasksAdjusted: at(guardOffset + guards.length, tasks.length),
        groups,
        family,
        gatedCount: Math.max(1, 1 / family.summary.strictestShare),
    };
}
/** Cells whose runs kept outputs (greedy-output and task cells): their speed checks are advisory. */
function outputCells(baseline, candidate) {
    const cells = new Set();
    for (const run of [...baseline, ...candidate])
        if ((run.outputs?.length ?? 0) > 0)
            cells.add(run.cell);
    return cells;
}
/** The cells both sides measured, with every run of each (the quality checks' input). */
function qualityCellsOf(baseline, candidate) {
    const base = groupByCell(baseline);
    const cand = groupByCell(candidate);
    return [...base.keys()]
        .filter((cell) => cand.has(cell))
        .sort()
        .map((cell) => ({ cell, base: base.get(cell), cand: cand.get(cell), tooFew: false }));
}

/**
 * Adaptive repeats (statistics.md §7): decide at a few looks (5, 10, 15, 20, 25 runs per side by default),
 * adding runs only while the verdict is inconclusive. The family level is spent over the looks in
 * proportion to their run counts (Bonferroni with unequal weights, so the sum over looks is the family
 * level): early looks, with little information, test strictly and catch only large regressions; the last
 * look gets the largest share, which is where a change near the tolerance is decided.
 */
const standardLooks = [3, 5, 10, 15, 20, 25, 30, 40];
/**
 * Fraction of the family level spent over all looks, by comparison mode. The regression test is against
 * the tolerance margin, so the binding case is a true change at the tolerance, and Holm within a look
 * plus Bonferroni over looks (share 1) bounds the chance of blocking it by the family level under any
 * dependence between looks and metrics. bench/gate.ts measures how far below the bound it stays.
 */
const lookLevelShare = { interleaved: 1, stored: 1 };
/** Look points within [min, max]: min, every standard look above it, and max. */
function lookSchedule(minRuns, maxRuns) {
    const looks = new Set([minRuns]);
    for (const look of standardLooks)
        if (look > minRuns && look < maxRuns)
            looks.add(look);
    looks.add(maxRuns);
    return [...looks].sort((a, b) => a - b);
}
/** The look a decision at `runs` measured runs per side belongs to: the last look at or below it. */
function lookIndex(looks, runs) {
    let index = 0;
    looks.forEach((look, i) => {
        if (look <= runs)
            index = i;
    });
    return index;
}
/**
 * One-sided level of the regression and improvement tests (before Holm) at the look `runs` falls in:
 * familyAlpha × share × look / Σ looks.
 */
function perLookLevel(familyAlpha, looks, runs, mode) {
    const total = looks.reduce((sum, look) => sum + look, 0);
    if (total <= 0)
        return familyAlpha * lookLevelShare[mode];
    return (familyAlpha * lookLevelShare[mode] * looks[lookIndex(looks, runs)]) / total;
}
/**
 * Level of the non-inferiority bound behind "within tolerance" (U < d). A false pass can only happen
 * for a change at or near the tolerance itself, so it is not split over looks; it is the family level.
 */
function passLevel(familyAlpha) {
    return familyAlpha;
}
function nextLookAfter(candidateRuns, baselineRuns, looks, interleaved, reason) {
    const target = looks.find((look) => look > candidateRuns);
    if (target === undefined)
        return null;
    return {
        runsPerSide: target,
        addCandidateRuns: target - candidateRuns,
        addBaselineRuns: interleaved ? Math.max(0, target - baselineRuns) : 0,
        reason,
    };
}

const driftDefaults = {
    priorWeight: 4,
    runCutoff: 4,
    sessionCutoff: 3.5,
    minSessionsToScreen: 4,
};
function median(values) {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
function mean$1(values) {
    return values.reduce((s, v) => s + v, 0) / values.length;
}
function sampleVariance(values) {
    const m = mean$1(values);
    return values.reduce((s, v) => s + (v - m) ** 2, 0) / (values.length - 1);
}
/** Median of χ²_ν/ν (Wilson-Hilferty): turns a median of sample variances into a variance estimate. */
function chiSquareMedianFactor(df) {
    return (1 - 2 / (9 * df)) ** 3;
}
/** One cell, one metric: sessions of ln values in, T² out (null with fewer than 2 usable sessions). */
function cellSessionDrift(sessions, settings = {}) {
    const runCutoff = settings.runCutoff ?? driftDefaults.runCutoff;
    const sessionCutoff = settings.sessionCutoff ?? driftDefaults.sessionCutoff;
    const minToScreen = settings.minSessionsToScreen ?? driftDefaults.minSessionsToScreen;
    const entries = [...sessions].filter(([, values]) => values.length > 0);
    const withSpread = entries.filter(([, values]) => values.length >= 2);
    const withinVariance = (groups) => {
        const usable = groups.filter((g) => g.length >= 2);
        if (usable.length === 0)
            return 0;
        const df = median(usable.map((g) => g.length - 1));
        return median(usable.map(sampleVariance)) / chiSquareMedianFactor(df);
    };
    // 1. Runs far from their session's median, in pooled within-session sds.
    const within = withinVariance(withSpread.map(([, values]) => values));
    let screenedRuns = 0;
    const screened = entries
        .map(([name, values]) => {
        if (values.length < 3 || within === 0)
            return [name, [...values]];
        const center = median(values);
        const kept = values.filter((v) => Math.abs(v - center) <= runCutoff * Math.sqrt(within));
        screenedRuns += values.length - kept.length;
        return [name, kept];
    })
        // A session split in two clusters can lose every run around a median between them: it is left
        // out, never averaged as an empty session (which made the drift NaN and the gate throw).
        .filter(([, values]) => values.length > 0);
    // 2. Sessions far from the others, in robust sds of the session means.
    let kept = screened;
    const screenedSessions = [];
    if (screened.length >= minToScreen) {
        const means = screened.map(([, values]) => mean$1(values));
        const center = median(means);
        const mad = 1.4826 * median(means.map((m) => Math.abs(m - center)));
        // The spread a session mean has from its own runs alone: a MAD below it is luck, not a scale.
        const floor = Math.sqrt(within / Math.max(1, median(screened.map(([, v]) => v.length))));
        const scale = Math.max(mad, floor);
        if (scale > 0) {
            kept = screened.filter(([name], i) => {
                const outlier = Math.abs(means[i] - center) > sessionCutoff * scale;
                if (outlier)
                    screenedSessions.push(name);
                return !outlier;
            });
        }
    }
    if (kept.length < 2)
        return null;
    // 3. Between-session variance beyond what the runs' own noise explains.
    const keptWithin = withinVariance(kept.map(([, values]) => values));
    const means = kept.map(([, values]) => mean$1(values));
    const inverseRuns = mean$1(kept.map(([, values]) => 1 / values.length));
    const t2 = Math.max(0, sampleVariance(means) - keptWithin * inverseRuns);
    return { t2, sessions: kept.length, screenedSessions, screenedRuns };
}
/**
 * The drift to add per metric, from the runs of the baseline history (each with its `session`). Every
 * metric but error_rate gets an estimate: from the prior alone when fewer than 2 sessions are usable.
 */
function estimateSessionDrift(runs, settings) {
    const priorWeight = settings.priorWeight ?? driftDefaults.priorWeight;
    const priorT2 = (settings.priorSd * settings.priorSd) / 2;
    const difference = (t2) => t2 * (1 + 1 / Math.max(1, settings.baselineSessions));
    const byCell = new Map();
    for (const run of runs) {
        if (!run.session)
            continue;
        byCell.set(run.cell, [...(byCell.get(run.cell) ?? []), run]);
    }
    const estimates = new Map();
    for (const metric of metricNames) {
        if (metricSpecs[metric].judged !== "per-run")
            continue;
        const perCell = [];
        for (const cellRuns of byCell.values()) {
            const sessions = new Map();
            for (const run of cellRuns) {
                const value = run.metrics[metric];
                if (value === null || value === undefined || !(value > 0) || !Number.isFinite(value))
                    continue;
                sessions.set(run.session, [...(sessions.get(run.session) ?? []), Math.log(value)]);
            }
            const drift = cellSessionDrift(sessions, settings);
            if (drift)
                perCell.push(drift);
        }
        if (perCell.length === 0) {
            estimates.set(metric, {
                differenceVariance: difference(priorT2),
                source: "prior",
                sessions: 0,
                historyT2: null,
                historyWeight: 0,
                screenedSessions: [],
                screenedRuns: 0,
            });
            continue;
        }
        const historyT2 = mean$1(perCell.map((c) => c.t2));
        const sessions = Math.min(...perCell.map((c) => c.sessions));
        const weight = (sessions - 1) / (priorWeight + sessions - 1);
        const t2 = (1 - weight) * priorT2 + weight * historyT2;
        estimates.set(metric, {
            differenceVariance: difference(t2),
            source: "history",
            sessions,
            historyT2,
            historyWeight: weight,
            screenedSessions: [...new Set(perCell.flatMap((c) => c.screenedSessions))].sort(),
            screenedRuns: perCell.reduce((s, c) => s + c.screenedRuns, 0),
        });
    }
    return estimates;
}

function levelsOf$1(input) {
    const familyAlpha = 1 - input.gate.confidence;
    const looks = lookSchedule(input.repeats.min, input.repeats.max);
    // The stage of the PR: the most candidate runs measured in any cell (screened runs included).
    const stage = Math.max(0, ...[...groupByCell(input.candidate).values()].map((runs) => runs.length));
    const alphaAtRuns = (runs) => perLookLevel(familyAlpha, looks, Math.max(stage, runs), input.mode);
    return { familyAlpha, looks, alpha: alphaAtRuns(stage), passAlpha: passLevel(familyAlpha), alphaAtRuns };
}
/** Stored mode: the between-session drift per metric from the baseline and its history, shrunk towards the prior. */
function sessionDriftOf(input) {
    const { gate, mode } = input;
    const driftSd = mode === "stored" ? gate.session_drift_sd : 0;
    const defaultDriftVariance = driftSd * driftSd;
    const driftBaseline = input.baseline.filter((run) => run.exclusionReasons.length === 0);
    const driftRuns = [...driftBaseline];
    const driftSources = new Set(driftBaseline.map((run) => run.source));
    for (const run of input.history ?? [])
        if (run.exclusionReasons.length === 0 && !driftSources.has(run.source))
            driftRuns.push(run);
    const estimates = mode === "stored"
        ? estimateSessionDrift(driftRuns, {
            priorSd: driftSd,
            baselineSessions: Math.max(1, new Set(driftBaseline.map((run) => run.session ?? "")).size),
        })
        : new Map();
    // The history's estimate, shrunk towards the prior, replaces it (up or down): the prior is no floor.
    const varianceFor = (metric) => estimates.get(metric)?.differenceVariance ?? defaultDriftVariance;
    return { driftSd, estimates, varianceFor };
}

/**
 * The plain interval of candidate / baseline from per-run values, by the machinery compare judges a
 * metric with (stats/metric-test.ts: the per-run logs at both levels, runs and server starts, the run sd
 * floored, the drift added):
 * one place, so a change to the variance model reaches every interval built on it. At least 2 values
 * per side, all positive.
 */
function logRatioInterval(baseline, candidate, options) {
    const test = logRatioTest(baseline, candidate, {
        higherIsBetter: false,
        tolerance: 0,
        alphaEachSide: options.alphaEachSide,
        extraVariance: options.extraVariance ?? 0,
        minRunSd: options.minRunSd ?? 0,
        ...(options.starts ? { starts: options.starts } : {}),
        ...(options.startPrior ? { startPrior: options.startPrior } : {}),
    });
    return { ratio: test.ratio, interval: test.ratioInterval };
}

/**
 * Speculative decoding explained (docs/metrics.md, "Speculative decoding"): per compared cell whose runs
 * carry the acceptance counters, each side's acceptance, and the change of its TPOT and output throughput
 * taken apart into its two factors.
 *
 * A request's decode is a sequence of engine steps; with one draft round per step, a step gives it the
 * mean acceptance length L = 1 + accepted tokens / draft rounds (vLLM's counters, deltas over the measured
 * phase). So TPOT = (time per step) / L and output throughput = (request-steps per second) × L. Per run,
 * time per step = TPOT × L and steps per second = throughput / L; each factor is compared as a metric is
 * (per-run logs, `logRatioInterval`), so on the same runs the metric's ratio is exactly the factors'
 * quotient (TPOT) or product (throughput), each with its own interval.
 *
 * Which factor explains the change: one whose interval excludes no change and whose change (log scale) is
 * at least `mainShare` of the larger factor's. The smaller one can still be beyond noise (fewer prefills
 * share a step when each request needs more steps; a few draws of acceptance), which the report says
 * as a small part, not as a cause.
 */
const mainShare = 0.25;
const lengthMetric = "spec_decode_acceptance_length";
const rateMetric = "spec_decode_acceptance_rate";
function isTpot(metric) {
    const source = metricSpecs[metric].source;
    return source.kind === "latency" && source.phase === "tpot";
}
/**
 * The metrics taken apart: the TPOT statistics of gate.metrics (TPOT mean when it names none, the one the
 * relation holds for most directly) and output throughput.
 */
function decomposedMetrics(gatedMetrics) {
    const gatedTpot = gatedMetrics.filter(isTpot);
    return [...(gatedTpot.length > 0 ? gatedTpot : ["tpot_mean"]), "output_throughput"];
}
function positive(run, metric) {
    const value = run.metrics[metric];
    return value !== undefined && value !== null && Number.isFinite(value) && value > 0 ? value : null;
}
function geometricMean(values) {
    if (values.length === 0)
        return null;
    return Math.exp(values.reduce((sum, value) => sum + Math.log(value), 0) / values.length);
}
function sideOf$1(runs) {
    const lengths = runs.flatMap((run) => positive(run, lengthMetric) ?? []);
    const rates = runs.flatMap((run) => positive(run, rateMetric) ?? []);
    return {
        runs: lengths.length,
        acceptanceRate: geometricMean(rates),
        acceptanceLength: geometricMean(lengths),
    };
}
function explainSpecDecode(compared, settings) {
    const metrics = decomposedMetrics(settings.gatedMetrics);
    const cells = [];
    for (const { cell, base, cand } of compared) {
        const baseline = sideOf$1(base);
        const candidate = sideOf$1(cand);
        // A cell whose server does not speculate has nothing to explain.
        if (baseline.runs === 0 && candidate.runs === 0)
            continue;
        const decompositions = [];
        for (const metric of metrics) {
            const decomposition = decompose(cell, metric, base, cand, settings);
            if (decomposition !== null)
                decompositions.push(decomposition);
        }
        const fewest = Math.min(baseline.runs, candidate.runs);
        cells.push({
            cell,
            baseline,
            candidate,
            decompositions,
            note: decompositions.length > 0
                ? null
                : fewest < 2
                    ? `${fewest === baseline.runs ? "the baseline" : "the candidate"} has ${fewest} usable run${fewest === 1 ? "" : "s"} with the acceptance counters: taking a change apart needs 2 per side`
                    : "no run has both the acceptance counters and TPOT or output throughput",
        });
    }
    return cells;
}
/** One metric's change taken apart over the runs that have it and the acceptance length; null under 2 a side. */
function decompose(cell, metric, base, cand, settings) {
    const pairs = (runs) => runs.flatMap((run) => {
        const value = positive(run, metric);
        const length = positive(run, lengthMetric);
        return value !== null && length !== null ? [{ value, length, start: startOf(run) }] : [];
    });
    const b = pairs(base);
    const c = pairs(cand);
    if (b.length < 2 || c.length < 2)
        return null;
    const throughput = metricSpecs[metric].higherIsBetter;
    // Time per step = TPOT × L; request-steps per second = throughput / L.
    const perStep = (pair) => throughput ? pair.value / pair.length : pair.value * pair.length;
    const starts = { baseline: b.map((pair) => pair.start), candidate: c.map((pair) => pair.start) };
    // Each factor with the drift and start prior of the metric whose noise it carries.
    const factor = (baseline, candidate, noiseOf) => {
        const startPrior = settings.startPriorFor?.(cell, noiseOf);
        const { ratio, interval } = logRatioInterval(baseline, candidate, {
            alphaEachSide: settings.passAlpha,
            minRunSd: settings.minRunSd,
            extraVariance: settings.driftVarianceFor(noiseOf),
            starts,
            ...(startPrior ? { startPrior } : {}),
        });
        return { ratio, ci: interval, significant: interval[0] > 1 || interval[1] < 1 };
    };
    const change = factor(b.map((pair) => pair.value), c.map((pair) => pair.value), metric);
    const acceptanceLength = factor(b.map((pair) => pair.length), c.map((pair) => pair.length), lengthMetric);
    const step = factor(b.map(perStep), c.map(perStep), metric);
    const larger = Math.max(Math.abs(Math.log(acceptanceLength.ratio)), Math.abs(Math.log(step.ratio)));
    const role = (f) => !f.significant ? "within-noise" : Math.abs(Math.log(f.ratio)) >= mainShare * larger ? "main" : "minor";
    const acceptanceRole = role(acceptanceLength);
    const stepRole = role(step);
    return {
        metric,
        higherIsBetter: throughput,
        runs: { baseline: b.length, candidate: c.length },
        change,
        acceptanceLength: { ...acceptanceLength, role: acceptanceRole },
        perStep: { ...step, kind: throughput ? "steps-per-second" : "time-per-step", role: stepRole },
        explainedBy: acceptanceRole === "main"
            ? stepRole === "main"
                ? "both"
                : "acceptance"
            : stepRole === "main"
                ? "step"
                : "neither",
    };
}

/**
 * The GPU-time cost model, in one place: what a plan will cost (the report's "about N GPU-minutes would
 * settle it", bench/gate.ts) and what a comparison spent (`gpuMinutesSpent`, verdict.json). Every server
 * start costs `startMinutes` (load weights, compile, warm up: a vLLM container's 3 min by default), every
 * run of one cell costs `runMinutes` (the measured run length, else validate's estimate of it:
 * config/summary.ts, the one estimate the run plan and the budget use; 1 min without a config). How many
 * starts a schedule needs is one rule, `serverStartsPerCell` (config/summary.ts, which `validate` prints
 * from).
 */
const defaultStartMinutes = defaultServerStartSeconds.docker / 60;
const defaultRunMinutes = 1;
/** Cells whose server starts are counted separately: 1 under the per-side lifecycle, else each cell. */
function startedCells(cells, rates) {
    return rates.lifecycle === "per-side" ? Math.min(1, cells) : cells;
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
/** The rates of a comparison: its runs' length, the runs per start and the config's start cost and lifecycle. */
function costRatesOf(runMinutes, runsPerBlock, cost) {
    return {
        ...(runMinutes === undefined ? {} : { runMinutes }),
        ...(runsPerBlock === undefined ? {} : { runsPerBlock }),
        ...(cost === undefined ? {} : { startMinutes: cost.serverStartS / 60, lifecycle: cost.lifecycle }),
    };
}
/** Without a config: a vLLM container's 3 minutes a start, one server per cell. */
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

/**
 * The family tests decided (docs/compare.md, "Family tests"): per workload family and gated metric, the
 * pooled change of its cells with the interval it was decided on, and the verdict from its adjusted p in
 * the gated family. A regression is a finding about the family's average change, beyond the tolerance at
 * the family-wise level; the cells that are regressions on their own are named beside it.
 */
function decideFamilies(tests, groupOf, cellsOf, comparisons, alpha, passAlpha) {
    return tests.map((family) => {
        const { family: name, metric } = groupOf(family.group);
        const higherIsBetter = metricSpecs[metric].higherIsBetter;
        const verdict = family.regression.adjusted <= alpha
            ? "regression"
            : family.improvement.adjusted <= alpha
                ? "improvement"
                : "no-finding";
        const { ci, ciLevels } = decisionInterval({
            test: {
                worse: family.test.difference,
                standardError: family.test.standardError,
                df: family.test.df,
            },
            higherIsBetter,
            regression: family.regression,
            improvement: family.improvement,
            improved: verdict === "improvement",
            alpha,
            passAlpha,
        });
        const cells = family.members.map(cellsOf);
        const towardsWorse = family.test.difference >= 0;
        return {
            family: name,
            metric,
            cells,
            higherIsBetter,
            tolerance: family.tolerance,
            ratio: Math.exp(higherIsBetter ? -family.test.difference : family.test.difference),
            ci,
            ciLevels,
            p: towardsWorse ? family.regression.adjusted : family.improvement.adjusted,
            pRaw: towardsWorse ? family.regression.p : family.improvement.p,
            standardError: family.test.standardError,
            df: Number.isFinite(family.test.df) ? family.test.df : null,
            verdict,
            regressedCells: comparisons
                .filter((c) => c.metric === metric && cells.includes(c.cell) && c.verdict === "regression")
                .map((c) => c.cell),
        };
    });
}

/** Tokens per output the similarity looks at: the edit distance costs their product (documented limit). */
const similarityTokenLimit = 2048;
/** Characters of each side shown around the first difference of an example. */
const exampleChars = 160;
/** The tokens of an output: the server's (logprobs returned), else whitespace-led words. */
function outputTokens(output) {
    return output.tokens ?? output.text.match(/\s*\S+|\s+$/g) ?? [];
}
/** Levenshtein distance of two token lists (two rows, O(n·m) time). */
function editDistance(a, b) {
    if (a.length === 0)
        return b.length;
    if (b.length === 0)
        return a.length;
    let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
    let current = new Array(b.length + 1);
    for (let i = 1; i <= a.length; i++) {
        current[0] = i;
        for (let j = 1; j <= b.length; j++) {
            const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
            current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, substitution);
        }
        [previous, current] = [current, previous];
    }
    return previous[b.length];
}
/** 1 - edit distance / longer length over the first similarityTokenLimit tokens (1 for two empty outputs). */
function tokenSimilarity(a, b) {
    const x = a.slice(0, similarityTokenLimit);
    const y = b.slice(0, similarityTokenLimit);
    const longer = Math.max(x.length, y.length);
    return longer === 0 ? 1 : 1 - editDistance(x, y) / longer;
}
function firstDifference(a, b) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++)
        if (a[i] !== b[i])
            return i;
    return n;
}
/**
 * How far two runs' kept outputs agree, prompt by prompt (same index = same prompt of the seeded
 * workload; only prompts answered on both sides count): the share changed, the share changed within
 * the first `firstTokens` tokens, the mean token similarity, and the mean |logprob change| over the
 * positions before the first differing token (where both chose alike). Pure.
 */
function compareOutputs(baseline, candidate, firstTokens) {
    const byIndex = new Map(candidate.filter((o) => o.ok).map((o) => [o.index, o]));
    let prompts = 0;
    let changed = 0;
    let prefixChanged = 0;
    let similaritySum = 0;
    let driftSum = 0;
    let driftTokens = 0;
    let serverTokens = true;
    const examples = [];
    for (const b of baseline) {
        const c = byIndex.get(b.index);
        if (!b.ok || c === undefined)
            continue;
        prompts++;
        if (b.tokens === null || c.tokens === null)
            serverTokens = false;
        const bt = outputTokens(b);
        const ct = outputTokens(c);
        const differs = b.text !== c.text;
        const at = firstDifference(bt, ct);
        if (differs)
            changed++;
        if (at < Math.min(firstTokens, Math.max(bt.length, ct.length)))
            prefixChanged++;
        const similarity = differs ? tokenSimilarity(bt, ct) : 1;
        similaritySum += similarity;
        if (b.logprobs !== null && c.logprobs !== null && b.tokens !== null && c.tokens !== null) {
            const alike = Math.min(at, b.logprobs.length, c.logprobs.length);
            for (let i = 0; i < alike; i++) {
                const x = b.logprobs[i];
                const y = c.logprobs[i];
                if (x === null || x === undefined || y === null || y === undefined)
                    continue;
                driftSum += Math.abs(y - x);
                driftTokens++;
            }
        }
        if (differs) {
            const char = bt.slice(0, at).join("").length;
            const from = Math.max(0, char - 40);
            examples.push({
                index: b.index,
                similarity,
                firstDifference: at,
                baseline: b.text.slice(from, from + exampleChars),
                candidate: c.text.slice(from, from + exampleChars),
            });
        }
    }
    examples.sort((x, y) => x.similarity - y.similarity || x.index - y.index);
    return {
        agreement: {
            prompts,
            changedShare: prompts > 0 ? changed / prompts : 0,
            prefixChangedShare: prompts > 0 ? prefixChanged / prompts : 0,
            similarity: prompts > 0 ? similaritySum / prompts : null,
            logprobDrift: driftTokens > 0 ? driftSum / driftTokens : null,
            logprobTokens: driftTokens,
        },
        examples,
        serverTokens,
    };
}
function runsWithOutputs(runs) {
    return runs
        .filter((run) => run.outputs !== undefined && run.outputs.length > 0)
        .sort((a, b) => (a.run ?? 0) - (b.run ?? 0));
}
/**
 * The baseline run the floor compares the first with: the first run measured on another server start
 * (the candidate's run is always on another start than the baseline's, and a start's kernel and
 * autotuning picks can change greedy tokens on their own), else the second run.
 */
function floorPartner(base) {
    const first = base[0];
    if (first === undefined)
        return undefined;
    return base.slice(1).find((run) => startOf(run) !== startOf(first)) ?? base[1];
}
/**
 * The greedy-output check of each compared cell named in quality.greedy.cells whose runs kept outputs:
 * the candidate's first run against the baseline's first, beside the baseline's first run against its
 * first run on another server start, else its second (the floor, which real GPUs have without batch
 * invariance, and between starts without deterministic kernel choices). A regression when
 * the changed shares exceed the floor by more than their tolerance, the similarity falls below its
 * minimum, or the logprobs drift beyond the floor by more than theirs. Null without the setting.
 */
function greedyChecks(compared, settings, warnings) {
    if (settings === undefined)
        return null;
    const checks = [];
    for (const cell of compared) {
        if (!settings.cells.includes(cell.cell))
            continue;
        const base = runsWithOutputs(cell.base);
        const cand = runsWithOutputs(cell.cand);
        if (base.length === 0 || cand.length === 0) {
            warnings.push(`cell "${cell.cell}" is a greedy-output cell but its ${base.length === 0 ? "baseline" : "candidate"} runs kept no outputs (measured before quality.greedy named it): the greedy check was skipped`);
            continue;
        }
        const main = compareOutputs(base[0].outputs, cand[0].outputs, settings.first_tokens);
        const floorRun = floorPartner(base);
        const noise = floorRun === undefined
            ? null
            : compareOutputs(base[0].outputs, floorRun.outputs, settings.first_tokens);
        const floor = noise?.agreement;
        const a = main.agreement;
        const reasons = [];
        const pct = (x) => `${(x * 100).toFixed(1)}%`;
        const changedFloor = floor?.changedShare ?? 0;
        const acrossStarts = floorRun !== undefined && startOf(floorRun) !== startOf(base[0]);
        if (a.changedShare - changedFloor > settings.max_changed_share)
            reasons.push(`${pct(a.changedShare)} of ${a.prompts} outputs changed (baseline ${acrossStarts ? "start to start" : "run to run"}: ${pct(changedFloor)}; quality.greedy.max_changed_share ${pct(settings.max_changed_share)})`);
        const prefixFloor = floor?.prefixChangedShare ?? 0;
        if (a.prefixChangedShare - prefixFloor > settings.max_prefix_changed_share)
            reasons.push(`${pct(a.prefixChangedShare)} changed within the first ${settings.first_tokens} tokens (baseline: ${pct(prefixFloor)}; max_prefix_changed_share ${pct(settings.max_prefix_changed_share)})`);
        if (a.similarity !== null && a.similarity < settings.min_similarity)
            reasons.push(`mean token similarity ${a.similarity.toFixed(3)} is below quality.greedy.min_similarity ${settings.min_similarity}`);
        const driftFloor = floor?.logprobDrift ?? 0;
        if (a.logprobDrift !== null && a.logprobDrift - driftFloor > settings.max_logprob_drift)
            reasons.push(`chosen tokens' logprobs moved ${a.logprobDrift.toFixed(3)} nats on average (baseline: ${driftFloor.toFixed(3)}; max_logprob_drift ${settings.max_logprob_drift})`);
        if (a.prompts === 0)
            reasons.push("no prompt was answered on both sides");
        checks.push({
            cell: cell.cell,
            runs: { baseline: base[0].run, candidate: cand[0].run },
            candidate: a,
            baselineNoise: floor ?? null,
            ...(floorRun !== undefined
                ? { baselineNoiseRuns: { first: base[0].run, second: floorRun.run, acrossStarts } }
                : {}),
            tokenSource: main.serverTokens ? "server" : "words",
            verdict: reasons.length > 0 ? "regression" : "within-tolerance",
            reasons,
            examples: main.examples.slice(0, settings.examples),
        });
    }
    return checks;
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
/**
/**
 * Runs per side at which a gated check would catch gate.detect_change with 90% power (both sides growing
 * when interleaved), null when not within 100 runs or when the check has no variance to project.
 * `alphaAt`: the one-sided level its regression test faces decided at that many runs per side (this
 * look's now, a later look's share for more runs), Holm's strictest step included.
 */
function runsToDetectChange(comparison, draft, detectChange, alphaAt, mode, maxRuns, runsPerStart = 1) {
    if (!draft?.variances || !draft.test)
        return null;
    const levels = draft.test.levels;
    return runsToDetect({
        baselineVariance: draft.variances.baseline,
        candidateVariance: draft.variances.candidate,
        extraVariance: draft.variances.extra,
        tolerance: draft.tolerance,
        alpha: alphaAt(comparison.runs.candidate),
        alphaAt,
        df: draft.test.df,
        varianceDf: {
            baseline: levels.baseline.runVarianceDf,
            candidate: levels.candidate.runVarianceDf,
            start: draft.variances.start > 0 ? levels.startVarianceDf : 0,
        },
        ...withStart(startProjectionOf(draft, runsPerStart, mode)),
    }, comparison.runs, detectChange, Math.max(maxRuns, 100), mode === "interleaved");
}
/**
 * The least sensitive gated check: what these runs can catch, and the runs gate.detect_change needs
 * (runsToDetectChange).
 */
function detectionSummary(comparisons, draftOf, detectChange, alphaAt, mode, maxRuns, runsPerStart = 1) {
    const checks = comparisons.filter((c) => c.gated && c.detectableChange !== null);
    if (checks.length === 0)
        return null;
    const worst = checks.reduce((a, b) => (b.detectableChange > a.detectableChange ? b : a));
    const draft = draftOf(worst);
    if (!draft?.variances || !draft.test)
        return null;
    return {
        cell: worst.cell,
        metric: worst.metric,
        detectableChange: worst.detectableChange,
        detectChange,
        runsPerSideForDetectChange: runsToDetectChange(worst, draft, detectChange, alphaAt, mode, maxRuns, runsPerStart),
    };
}

/** Stage 5: the family tests and the quality checks decided, and the overall verdict. */
function decideVerdict(input, levels, checks, warnings) {
    const { gate } = input;
    const { speed, family, comparisons } = checks;
    const { alpha, passAlpha } = levels;
    const counts = countGated(comparisons);
    const families = decideFamilies(family.family.familyTests, (key) => family.groups.get(key), (index) => family.speedDrafts[index].cell, comparisons, alpha, passAlpha);
    const familyRegressions = families.filter((f) => f.verdict === "regression");
    const brokenCells = speed.pairing.cells.filter((cell) => cell.status === "missing-baseline" || cell.status === "missing-candidate");
    const quality = decideQuality(input, checks.quality, family, alpha, warnings);
    const speedVerdict = overallVerdict(
    // So a config of quality cells alone is no empty comparison.
    { ...counts, gated: counts.gated + quality.compared }, brokenCells.length, speed.pairing.allCells.length, checks.comparability.notComparable.length, gate.on_not_comparable);
    // A family regression (docs/compare.md, "Family tests") and a guard regression (docs/quality.md) are
    // regressions whatever the single checks found.
    const speedAndFamilies = familyRegressions.length > 0 && speedVerdict !== "not-comparable" ? "regression" : speedVerdict;
    const verdict = quality.regressions > 0 && speedAndFamilies !== "not-comparable" ? "regression" : speedAndFamilies;
    return {
        verdict,
        speedVerdict,
        speedAndFamilies,
        counts,
        families,
        familyRegressions,
        brokenCells,
        quality,
    };
}
function decideQuality(input, quality, family, alpha, warnings) {
    const guards = quality.guards === null ? null : decideGuards(quality.guards, family.guardsAdjusted, alpha);
    const greedy = greedyChecks(quality.cells, input.quality?.greedy, warnings);
    const tasks = quality.tasks === null ? null : decideTasks(quality.tasks, family.tasksAdjusted, alpha);
    const regressions = (checks) => checks?.filter((check) => check.verdict === "regression").length ?? 0;
    return {
        guards,
        greedy,
        tasks,
        regressions: regressions(guards) + regressions(greedy) + regressions(tasks),
        compared: (greedy?.length ?? 0) + (tasks?.length ?? 0),
    };
}
/**
 * Stage 6: the next look and what settling would cost; a verdict that no look can change says why (the
 * futility warnings), and each gated check gets the runs that would detect gate.detect_change.
 */
function lookAhead(input, levels, speed, gatedCount, comparisons, verdict, warnings) {
    const { gate, mode } = input;
    const { alpha, passAlpha, looks } = levels;
    const { cells, unfixableCells } = speed.pairing;
    const rates = costRatesOf(input.runMinutes, input.repeats.block, input.cost);
    const maxRuns = input.repeats.max;
    const runsPerStart = mode === "interleaved" ? alternationOf(input.repeats.block ?? 1).runsPerGroup : maxRuns;
    const { draftOf, futilityInput, resolvable } = futilityModel(speed.drafts, unfixableCells, { alpha, passAlpha, gatedCount }, mode, maxRuns, runsPerStart);
    const nextLook = planNextLook({
        verdict,
        cells,
        comparisons,
        looks,
        mode,
        maxRuns,
        resolvable,
        unfixableCells,
        measuredRuns: speed.pairing.measuredRuns,
        rates,
    });
    const atTolerance = verdict === "inconclusive" ? atToleranceChecks(comparisons, resolvable, draftOf) : [];
    if ((verdict === "inconclusive" || verdict === "error") && nextLook === null) {
        warnings.push(...futilityWarnings(comparisons, cells, maxRuns, resolvable, draftOf, unfixableCells));
    }
    const settle = verdict === "inconclusive"
        ? settleEstimate(comparisons, draftOf, futilityInput, resolvable, mode, maxRuns, rates, looks)
        : null;
    const alphaAtRuns = (runs) => levels.alphaAtRuns(runs) / Math.max(1, gatedCount);
    const detect = [gate.detect_change, alphaAtRuns, mode, maxRuns, runsPerStart];
    const detection = detectionSummary(comparisons, draftOf, ...detect);
    for (const comparison of comparisons)
        if (comparison.gated && comparison.detectableChange !== null)
            comparison.runsToDetectChange = runsToDetectChange(comparison, draftOf(comparison), ...detect);
    return { nextLook, atTolerance, settle, detection };
}

/** The job's exit code for a verdict under gate.fail_on: 1 blocks the pull request, 0 lets it pass. */
function exitCodeFor(verdict, failOn) {
    if (failOn === "never")
        return 0;
    if (verdict === "pass")
        return 0;
    if (verdict === "inconclusive")
        return failOn === "inconclusive" ? 1 : 0;
    return 1;
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

/**
 * The capacity checks of verdict.json (`capacity`, docs/capacity.md): per capacity cell, each side's
 * capacity at the SLOs with its interval, the ratio candidate/baseline with its verdict, and the figures
 * at the capacity point (requests per hour, cost per 1,000, tokens per second per GPU and per user).
 */
const interval$1 = tuple([number(), number()]);
const capacitySideSchema = object({
    /** The highest load meeting every SLO (an edge of the loads measured when `bound` is not inside). */
    capacity: number().nullable(),
    bound: _enum(["inside", "above", "below"]).nullable(),
    /** The SLO whose crossing is the capacity (metric name, or error_rate). */
    limiting: string().nullable(),
    interval: interval$1.nullable(),
    runs: number().int(),
    loads: number().int().describe("Distinct loads measured."),
    successfulPerHour: number().nullable(),
    /**
     * A session cell's completed sessions per GPU-hour at the capacity (session_throughput there x 3600 /
     * cost.gpus); null for other cells, and when the side meets the SLOs at no load.
     */
    sessionsPerGpuHour: number().nullable().default(null),
    outputTokensPerSecondPerGpu: number().nullable(),
    outputTokensPerSecondPerUser: number().nullable().describe("1000 / median TPOT (ms) at the capacity."),
    /** The SLO percentile of TTFT at the capacity: how long the slowest users wait for their first token. */
    ttftAtCapacityMs: number().nullable(),
    costPer1000: number().nullable().describe("Only when the side meets the SLOs at some load."),
    note: string().nullable(),
});
/**
 * One load of a side's curve: means over the side's usable runs at that load
 * (compare/capacity/load-curve.ts).
 */
/** A cell's `slo` as verdict.json records it (capacity checks and sweeps). */
const sloSchema = object({
    ttft_ms: number().optional(),
    tpot_ms: number().optional(),
    e2el_ms: number().optional(),
});
const capacityCurvePointSchema = object({
    load: number(),
    runs: number().int(),
    completedPerSecond: number().nullable(),
    goodput: number().nullable().describe("Requests/s meeting the cell's slo; null without goodput."),
    outputTokensPerSecond: number().nullable(),
    ttftMs: number().nullable().describe("TTFT at the comparison's percentile."),
    e2elMs: number().nullable().describe("E2E latency at the comparison's percentile."),
});
const capacityComparisonSchema = object({
    cell: string(),
    dimension: _enum(["rate", "concurrency"]),
    /** What the load counts: requests, or a session dataset's sessions (its rate is sessions/s). */
    unit: _enum(["requests", "sessions"]).default("requests"),
    percentile: string(),
    slo: sloSchema,
    errorRateLimit: number(),
    gated: boolean(),
    tolerance: number(),
    baseline: capacitySideSchema,
    candidate: capacitySideSchema,
    ratio: number().nullable(),
    /** Interval of the ratio at `ciLevel` (two-sided), from the two sides' bootstrap draws. */
    ci: interval$1.nullable(),
    ciLevel: number(),
    /** One-sided p of the test against the tolerance in the direction observed, Holm-adjusted with the gated family when gated. */
    p: number().nullable(),
    verdict: _enum(["regression", "improvement", "within-tolerance", "inconclusive"]),
    /** Cost per 1,000 successful requests, candidate / baseline; null unless both sides meet the SLOs. */
    costRatio: number().nullable(),
    /**
     * Per SLO at the stated load (the highest load measured at which the baseline met every SLO): threshold,
     * each side's value there (mean of its runs at that load, interpolated between loads otherwise), pass/fail.
     */
    acceptance: object({
        load: number().nullable(),
        rows: array(object({
            objective: string(),
            threshold: number(),
            baseline: number().nullable(),
            candidate: number().nullable(),
            baselinePass: boolean().nullable(),
            candidatePass: boolean().nullable(),
        })),
    }),
    note: string().nullable(),
    /**
     * The server-start level the intervals carried (docs/capacity.md, "Server starts"): a start's speed
     * shifts every load its runs measured, an sd on ln(capacity); absent in older verdicts.
     */
    noise: startNoiseSchema.optional(),
    /** Each side's load curve, drawn by report.html and the comment; absent in older verdicts. */
    curve: object({ baseline: array(capacityCurvePointSchema), candidate: array(capacityCurvePointSchema) })
        .optional(),
});
/**
 * A sweep's load curves on both sides (verdict.json `sweeps`, compare/capacity/sweep-curves.ts): no capacity
 * point.
 */
const sweepCurveSchema = object({
    cell: string(),
    dimension: _enum(["rate", "concurrency"]),
    percentile: string(),
    /** The cell's `slo` from the config given to compare; empty without one. */
    slo: sloSchema,
    curve: object({
        baseline: array(capacityCurvePointSchema),
        candidate: array(capacityCurvePointSchema),
    }),
});

/**
 * The quality part of `verdict.json` (docs/quality.md): the guard checks of every compared cell. A guard
 * regression makes the overall verdict a regression, whatever the speed checks say.
 */
const guardCheckSchema = object({
    cell: string(),
    metric: _enum(guardMetrics),
    /** "points": an absolute rise of a share; "relative": a shift of the mean output length either way. */
    toleranceKind: _enum(["points", "relative"]),
    tolerance: number(),
    /** Pooled over the side's runs: the share of requests, or the mean output tokens per completed request. */
    baseline: number().nullable(),
    candidate: number().nullable(),
    /** Requests counted / measured (shares), or completed requests (length), per side. */
    counts: object({
        baseline: object({ count: number().int(), requests: number().int() }),
        candidate: object({ count: number().int(), requests: number().int() }),
    }),
    /**
     * The p of the test against the tolerance, Holm-adjusted over the comparison's gated family (speed,
     * capacity, guard and task checks, compare/analyze/gated-family.ts), and the raw one; null without a test.
     */
    p: number().nullable(),
    pRaw: number().nullable(),
    /** Whether the test is one of the gated family's (false: no test, or it cannot reach the level; p is then the raw p). */
    inFamily: boolean().optional(),
    verdict: _enum(["regression", "within-tolerance", "inconclusive"]),
    note: string().nullable(),
    /**
     * The runs' and starts' levels of the pooled figure (per-run values grouped by server start) and the
     * design effect the counts were divided by (docs/compare.md, "Server starts"); absent with fewer than
     * two runs a side, and in older verdicts.
     */
    noise: noiseLevelsSchema.optional(),
});
/** One side-by-side comparison of kept outputs (candidate vs baseline, or baseline vs itself). */
const outputAgreementSchema = object({
    prompts: number().int().describe("Prompts answered on both sides."),
    changedShare: number().describe("Share of prompts whose output text differs."),
    prefixChangedShare: number().describe("Share whose first first_tokens tokens differ."),
    similarity: number()
        .nullable()
        .describe("Mean token-level similarity: 1 - edit distance / longer length."),
    logprobDrift: number()
        .nullable()
        .describe("Mean |logprob change| (nats) over the tokens both chose alike; null without logprobs."),
    logprobTokens: number().int().describe("Tokens the drift is over."),
});
const greedyCheckSchema = object({
    cell: string(),
    /** Which runs were compared (their run indexes). */
    runs: object({ baseline: number().int().nullable(), candidate: number().int().nullable() }),
    candidate: outputAgreementSchema,
    /**
     * The baseline's first run against its first run on another server start (else its second run): the
     * floor; null with one baseline run.
     */
    baselineNoise: outputAgreementSchema.nullable(),
    /** Which baseline runs the floor compared, and whether they were on different server starts; absent in older verdicts. */
    baselineNoiseRuns: object({
        first: number().int().nullable(),
        second: number().int().nullable(),
        acrossStarts: boolean(),
    })
        .optional(),
    /** Tokens are the server's (logprobs returned) or whitespace-separated words. */
    tokenSource: _enum(["server", "words"]),
    verdict: _enum(["regression", "within-tolerance"]),
    reasons: array(string()),
    examples: array(object({
        index: number().int(),
        similarity: number(),
        firstDifference: number().int().describe("Token position of the first difference."),
        baseline: string().describe("Excerpt around the first difference, raw (the report escapes it)."),
        candidate: string(),
    })),
});
/** The task-accuracy check of one tasks cell: both sides scored on the same prompts. */
const taskCheckSchema = object({
    cell: string(),
    /** Set for an external task (quality.tasks.external): its name; absent for a tasks cell's own answers. */
    external: string().optional(),
    /** The test: McNemar on paired prompts, or (an external task without per-sample results) two proportions. */
    method: _enum(["mcnemar", "two-proportion"]).default("mcnemar"),
    runs: object({ baseline: number().int().nullable(), candidate: number().int().nullable() }),
    /** Prompts scored on both sides. */
    prompts: number().int(),
    baseline: object({
        correct: number().int(),
        accuracy: number(),
        wilson: tuple([number(), number()]),
        /** Samples behind this side's accuracy when the sides are not paired (two-proportion). */
        n: number().int().optional(),
    }),
    candidate: object({
        correct: number().int(),
        accuracy: number(),
        wilson: tuple([number(), number()]),
        n: number().int().optional(),
    }),
    /** Discordant pairs: only the baseline right, only the candidate right. */
    onlyBaseline: number().int(),
    onlyCandidate: number().int(),
    tolerancePoints: number(),
    /**
     * Exact one-sided McNemar p of "the candidate is worse" (or the two-proportion test's), raw and
     * Holm-adjusted over the comparison's gated family (compare/analyze/gated-family.ts).
     */
    pRaw: number(),
    p: number(),
    /** Whether the test is one of the gated family's (false: it cannot reach the level, e.g. no discordant pair; p is then pRaw). */
    inFamily: boolean().optional(),
    confidence: number().describe("Level of the Wilson intervals."),
    verdict: _enum(["regression", "within-tolerance"]),
    note: string().nullable(),
});
const qualityVerdictSchema = object({
    guards: array(guardCheckSchema),
    greedy: array(greedyCheckSchema).optional(),
    tasks: array(taskCheckSchema).optional(),
});

/**
 * verdict.json's `specDecode` (compare/analyze/spec-decode.ts, docs/metrics.md "Speculative decoding"):
 * per cell whose server speculates, each side's acceptance and the change of its TPOT and output
 * throughput taken apart into tokens per engine step and the step's own time.
 */
/** A change candidate / baseline with its plain two-sided interval (1 − 2·passAlpha, as a check's ci90). */
const factorSchema = object({
    ratio: number(),
    ci: tuple([number(), number()]),
    /** The interval excludes 1: the change is beyond the runs' noise. */
    significant: boolean(),
});
/**
 * A factor's part in the change: `main` (beyond noise, and at least a quarter of the larger factor's
 * change on the log scale), `minor` (beyond noise, smaller than that), `within-noise`.
 */
const roleSchema = _enum(["main", "minor", "within-noise"]);
const sideSchema = object({
    /** Usable runs whose server reported the acceptance counters. */
    runs: number().int().nonnegative(),
    /** Accepted / draft tokens, the geometric mean over those runs; null without drafts. */
    acceptanceRate: number().nullable(),
    /** 1 + accepted tokens / draft rounds (tokens per engine step of a request), the geometric mean. */
    acceptanceLength: number().nullable(),
});
const decompositionSchema = object({
    /** A TPOT statistic (time per step = TPOT × tokens per step) or output_throughput (steps per second = throughput / tokens per step). */
    metric: _enum(metricNames),
    higherIsBetter: boolean(),
    /** Runs with both the metric and the acceptance length, the ones the factors are computed over. */
    runs: object({ baseline: number().int(), candidate: number().int() }),
    /** The metric's change over those runs: the product (throughput) or quotient (TPOT) of the two factors. */
    change: factorSchema,
    /** Tokens per engine step of a request: the mean acceptance length (the drafter's part). */
    acceptanceLength: factorSchema.extend({ role: roleSchema }),
    /** The engine step's part: its time (for TPOT) or the steps per second (for throughput). */
    perStep: factorSchema.extend({
        kind: _enum(["time-per-step", "steps-per-second"]),
        role: roleSchema,
    }),
    /** The factors whose role is `main`: the change comes from the drafter, the step, both or neither. */
    explainedBy: _enum(["acceptance", "step", "both", "neither"]),
});
const specDecodeCellSchema = object({
    cell: string(),
    baseline: sideSchema,
    candidate: sideSchema,
    decompositions: array(decompositionSchema),
    /** Why a side's runs could not be taken apart (fewer than 2 with the counters), else null. */
    note: string().nullable(),
});

/**
 * `verdict.json`: the machine-readable outcome of `compare`, read by the action (to label the PR,
 * add runs, fail the job) and by people re-analysing a decision. Versioned like every file we write.
 */
const verdictSchemaVersion = 2;
const overallVerdicts = ["pass", "regression", "inconclusive", "not-comparable", "error"];
const metricVerdicts = ["regression", "improvement", "within-tolerance", "inconclusive"];
const comparisonModes = ["stored", "interleaved"];
const baselineInfoSchema = object({
    commit: string().optional(),
    runId: string().optional(),
    date: string().optional(),
    ref: string().optional(),
    url: string().optional(),
    note: string().optional(),
});
const interval = tuple([number(), number()]);
/** What a budget could do for one gated check (docs/compare.md, "A budget per pull request"). */
const checkBudgetSchema = object({
    /** More runs within gate.budget_gpu_minutes could catch gate.detect_change (90% power). */
    decidable: boolean(),
    /** The smallest worsening the runs measured catch with 90% power (the check's detectableChange). */
    detectableAtSpend: number().nullable(),
    /** About how many GPU-minutes in all would catch gate.detect_change in this check; null: not within 100 runs. */
    gpuMinutesToDecide: number().nullable(),
});
const comparisonSchema = object({
    cell: string(),
    metric: _enum(metricNames),
    /** The metric whose values were judged when `metric` is absent from the inputs (e.g. p99 for p95). */
    judgedOn: _enum(metricNames).nullable(),
    /** In the blocking family (Holm) or advisory (BH). */
    gated: boolean(),
    higherIsBetter: boolean(),
    tolerance: number(),
    /** Geometric mean of the per-run values (error_rate: pooled failed / total). */
    baseline: number().nullable(),
    candidate: number().nullable(),
    /** candidate / baseline. */
    ratio: number().nullable(),
    /**
     * The interval the verdict was decided on, in the metric's direction: its worse end at the level the
     * regression test faced after Holm and the look's α (regression exactly when it is beyond the
     * tolerance), its better end at the within-tolerance level (or the improvement test's level when that
     * decided). Stored-mode drift is included. error_rate: null.
     */
    ci: interval.nullable(),
    /** One-sided levels of ci's lower and upper end. */
    ciLevels: interval.nullable(),
    /** The plain two-sided 1 − 2·passAlpha interval (same width on both sides), for reference. */
    ci90: interval.nullable(),
    /** Adjusted one-sided p of the test against the tolerance, in the direction observed (worse or better). */
    p: number().nullable(),
    pRaw: number().nullable(),
    /** Adjusted one-sided p of "moved at all" (against 0) in the direction observed: used for mixed results. */
    pChange: number().nullable(),
    /**
     * Minimum detectable change: the smallest true worsening this run count blocks with 90% power at the
     * strictest level the check can face (gated, tested checks only).
     */
    detectableChange: number().nullable(),
    /** Runs per side at which the check would catch gate.detect_change with 90% power; null: not within 100. */
    runsToDetectChange: number().int().nullable().optional(),
    /** What a budget (gate.budget_gpu_minutes) could do for this check; absent without a budget. */
    budget: checkBudgetSchema.optional(),
    verdict: _enum(metricVerdicts),
    note: string().nullable(),
    runs: object({ baseline: number().int(), candidate: number().int() }),
    noise: noiseLevelsSchema.nullable().optional(),
    crossCheck: object({ mannWhitneyP: number(), hodgesLehmannRatio: number() })
        .nullable()
        .describe("Rank-based cross-check at >= 5 runs per side (one-sided MWU p for 'worse'; never blocks)."),
});
/**
 * A family test (docs/compare.md, "Family tests"): one gated metric across the cells of one workload
 * family, the hypothesis "their average change (the mean of the cells' log ratios) is within the
 * tolerance" tested beside the per-cell checks in the gated family.
 */
const familyFindingSchema = object({
    family: string(),
    metric: _enum(metricNames),
    /** The cells pooled (those whose check of this metric was tested on per-run logs). */
    cells: array(string()),
    higherIsBetter: boolean(),
    tolerance: number(),
    /** The geometric mean over the cells of candidate / baseline. */
    ratio: number(),
    /** The decision interval of that ratio, as a check's `ci` (worse end at the level the test faced). */
    ci: interval,
    ciLevels: interval,
    /** One-sided p of the family test against the tolerance in the direction observed, adjusted in the gated family. */
    p: number(),
    pRaw: number(),
    standardError: number().describe("Of the mean log ratio."),
    df: number()
        .nullable()
        .describe("Satterthwaite degrees of freedom; null when no variance was estimated."),
    /** regression: the family's average change is beyond the tolerance (blocking); improvement: the mirror. */
    verdict: _enum(["regression", "improvement", "no-finding"]),
    /** The pooled cells whose own check of this metric is a regression (named on their own). */
    regressedCells: array(string()),
});
/** The budget a comparison was measured under (gate.budget_gpu_minutes) and what it decided. */
const budgetSchema = object({
    limitGpuMinutes: number(),
    spentGpuMinutes: number(),
    /** The plan the budget bought (app/budget-plan.ts): its predicted GPU-minutes, runs and starts. */
    plan: object({
        gpuMinutes: number(),
        runsPerSide: number().int(),
        /** Runs per side per group of the A/B alternation (repeats.block). */
        runsPerStart: number().int(),
        /** Every group of a side on a server start of its own (groups of one run: repeats.block fresh). */
        startEachGroup: boolean().optional(),
        requests: record(string(), number().int().nullable()),
    })
        .nullable(),
    /** Gated checks left undecided because the budget cannot catch gate.detect_change in them. */
    notDecidable: number().int(),
});
const runRefSchema = object({
    side: _enum(["baseline", "candidate"]),
    cell: string(),
    run: number().int().nullable(),
    source: string(),
});
const fingerprintDifferenceSchema = object({
    field: string(),
    cells: array(string()),
    baseline: unknown(),
    candidate: unknown(),
    /** Does not block: the thing under test (allowed_differences and what follows from it) or informational. */
    allowed: boolean(),
    /** Recorded only (tool build, runner name, whole-config hash): never a reason to call runs not comparable. */
    informational: boolean().default(false),
});
const nextLookSchema = object({
    runsPerSide: number().int().positive(),
    addCandidateRuns: number().int().nonnegative(),
    addBaselineRuns: number().int().nonnegative(),
    cells: array(string()),
    reason: string(),
    /**
     * GPU-minutes the added runs cost (src/compare/budget/cost.ts: 3 min per server start, run length per
     * cell-run).
     */
    gpuMinutes: number().nonnegative().optional(),
});
const settleSchema = object({
    /** Runs per side at which every inconclusive gated check would decide if its estimates held; null: not within repeats.max. */
    runsPerSide: number().int().nullable(),
    addRuns: number().int().nullable(),
    gpuMinutes: number().nullable(),
    cells: array(string()),
});
const impactSchema = object({
    cell: string(),
    successfulPerHour: object({ baseline: number(), candidate: number(), change: number() }).nullable(),
    ttftP95Ms: object({ baseline: number(), candidate: number(), change: number() }).nullable(),
    e2elP95Ms: object({ baseline: number(), candidate: number(), change: number() }).nullable(),
});
const gpuMinutesSpentSchema = object({
    total: number().nonnegative(),
    /** Measured phases of the runs read (durationS), in minutes. */
    runs: number().nonnegative(),
    /** Server starts the runs' schedule needed (per cell: one per measuring step, R + 1 per interleaved look). */
    serverStarts: number().int().nonnegative(),
    serverStartMinutes: number().nonnegative(),
    serverStartS: number().nonnegative(),
    /** Which runs were this job's: both sides (interleaved) or the candidate's (stored baseline). */
    sides: _enum(["both", "candidate"]),
    runsWithoutDuration: number().int().nonnegative(),
});
object({
    schemaVersion: literal(verdictSchemaVersion),
    tool: object({ name: string(), version: string() }),
    generatedAt: string(),
    verdict: _enum(overallVerdicts),
    /** 0 passes, 1 fails, under the fail_on policy. */
    exitCode: union([literal(0), literal(1)]),
    headline: string(),
    counts: object({
        gated: number().int(),
        regression: number().int(),
        improvement: number().int(),
        withinTolerance: number().int(),
        inconclusive: number().int(),
    }),
    mode: _enum(comparisonModes),
    baselineInfo: baselineInfoSchema.nullable(),
    settings: object({
        tolerance: number(),
        detectChange: number().describe("gate.detect_change: the regression the run plan is sized to catch."),
        metricTolerance: record(string(), number()),
        confidence: number(),
        familyAlpha: number(),
        lookAlpha: number()
            .describe("One-sided level of the regression/improvement tests (against the tolerance) at this look, before Holm: α × look / Σ looks."),
        passAlpha: number()
            .describe("One-sided level of the non-inferiority bound behind within-tolerance (the better end of the decision interval); ci90 is 1 − 2·passAlpha."),
        looks: array(number().int()),
        failOn: _enum(["regression", "inconclusive", "never"]),
        errorRateLimit: number(),
        sessionDriftSd: number()
            .describe("Prior sd of the ln shift between two sessions (gate.session_drift_sd) in stored mode; 0 in interleaved."),
        sessionDriftEstimates: record(string(), object({
            sd: number()
                .describe("sd of the ln shift between the candidate's session and the baseline, as used."),
            sessions: number()
                .int()
                .describe("Baseline sessions the estimate rests on (0: the prior alone)."),
            source: _enum(["prior", "history"]).default("history"),
            historySd: number()
                .nullable()
                .default(null)
                .describe("The history's own estimate of the shift between two sessions, before shrinking."),
            historyWeight: number().default(1).describe("Weight of the history against the prior."),
            screenedSessions: array(string()).default([]),
            screenedRuns: number().int().default(0),
        }))
            .describe("Stored mode, per metric: the drift used, estimated from the baseline sessions (the last N of the base branch) and shrunk towards the prior session_drift_sd, or the prior alone with fewer than 2 sessions."),
        minRunSd: number().describe("Floor on the per-side run-to-run sd of ln(metric) (gate.min_run_sd)."),
        outlierThreshold: number().describe("Robust-sd threshold of the outlier-run screen; 0 = off."),
        gatedMetrics: array(string()),
        minRequests: record(string(), number()),
        allowedDifferences: array(string()),
        onNotComparable: _enum(["fail", "warn"]),
        /**
         * The gated family Holm ran over at this look (compare/analyze/gated-family.ts, docs/compare.md "The
         * gated family"): its regression tests per kind of check, and the tests left out because they cannot
         * reach the level (Tarone); its improvement tests (speed and capacity checks). Absent in older files.
         */
        gatedFamily: object({
            regression: object({
                total: number().int(),
                speed: number().int(),
                capacity: number().int(),
                guard: number().int(),
                task: number().int(),
                leftOut: number().int(),
            }),
            improvement: object({ total: number().int(), leftOut: number().int() }),
            /**
             * The family tests beside the checks (docs/compare.md, "Family tests"): each grouped check's share
             * given to them (gate.family_weight) and how many there are per direction. Absent in older files.
             */
            familyTests: object({ weight: number(), total: number().int() }).optional(),
        })
            .optional(),
    }),
    cells: array(object({
        name: string(),
        baselineRuns: number().int(),
        candidateRuns: number().int(),
        status: _enum(["compared", "too-few-runs", "missing-baseline", "missing-candidate"]),
        note: string().nullable(),
    })),
    comparisons: array(comparisonSchema),
    mixed: array(object({ cell: string(), better: array(string()), worse: array(string()) })),
    impact: array(impactSchema),
    fingerprints: object({
        baseline: record(string(), unknown()),
        candidate: record(string(), unknown()),
        differences: array(fingerprintDifferenceSchema),
    }),
    runs: object({
        used: array(runRefSchema),
        excluded: array(runRefSchema.extend({ reasons: array(string()) })),
    }),
    nextLook: nextLookSchema.nullable(),
    /** For an inconclusive verdict: how many runs and about how many GPU-minutes would settle it. */
    settle: settleSchema.nullable(),
    /**
     * The least sensitive gated check: the smallest worsening these runs catch with 90% power, and the
     * runs per side at which gate.detect_change would be caught (null: not within 100 runs).
     */
    detection: object({
        cell: string(),
        metric: _enum(metricNames),
        detectableChange: number(),
        detectChange: number(),
        runsPerSideForDetectChange: number().int().nullable(),
    })
        .nullable(),
    warnings: array(string()),
    /**
     * The family tests of this look (docs/compare.md, "Family tests"), found or not; a regression among
     * them makes the verdict a regression. Absent in files written before them.
     */
    families: array(familyFindingSchema).optional(),
    /**
     * Gated checks whose estimate sits on the tolerance, so that more runs up to repeats.max would not
     * decide them (docs/compare.md, "At the tolerance"): the adaptive loop stopped asking for runs for
     * them. Their plain interval (ci90, as ratios). Absent in files written before it.
     */
    atTolerance: array(object({ cell: string(), metric: string(), ci: interval, tolerance: number() }))
        .optional(),
    /** Quality beside speed (docs/quality.md); absent when no run had guard counts. */
    quality: qualityVerdictSchema.optional(),
    /** GPU-minutes the comparison's runs cost, every server start counted (set by compare, after analyze). */
    gpuMinutes: gpuMinutesSpentSchema.optional(),
    budget: budgetSchema.optional(),
    /** Capacity at the SLO per capacity cell (compare/capacity/capacity.ts, docs/capacity.md). */
    capacity: array(capacityComparisonSchema).optional(),
    /**
     * Load curves of both sides per cell whose runs ran at several loads and that has no capacity config
     * (compare/capacity/sweep-curves.ts): drawn by report.html and the comment; the cell is still judged at a
     * fixed load.
     */
    sweeps: array(sweepCurveSchema).optional(),
    /**
     * Speculative decoding per cell whose server speculates (compare/verdict/spec-decode-schema.ts): each
     * side's acceptance, and TPOT's and output throughput's change taken apart into the acceptance length and
     * the engine step. Absent when no run had the counters, and in files written before it.
     */
    specDecode: array(specDecodeCellSchema).optional(),
});

/** Stage 7: verdict.json assembled from the stages' results. */
function assembleVerdictFile(input, levels, drift, parts) {
    const { gate } = input;
    const { speed, comparisons, decided, ahead, specDecode } = parts;
    const { counts, quality } = decided;
    const cells = speed.pairing.cells;
    const firstFingerprint = (side) => flattenFingerprint(speed.runs.sides[side][0]?.fingerprint ?? {});
    const summary = parts.family.family.summary;
    const settings = settingsOf(gate, levels, drift);
    settings.gatedFamily = {
        regression: summary.regression,
        improvement: summary.improvement,
        familyTests: summary.familyTests,
    };
    return {
        schemaVersion: verdictSchemaVersion,
        tool: input.tool,
        generatedAt: input.now,
        verdict: decided.verdict,
        exitCode: exitCodeFor(decided.verdict, gate.fail_on),
        headline: headlineOf(decided, comparisons, parts.comparability.notComparable.length),
        counts,
        mode: input.mode,
        baselineInfo: input.baselineInfo ?? null,
        settings,
        cells,
        comparisons,
        mixed: mixedResults(comparisons, levels.alpha),
        impact: impactOf(cells, comparisons),
        fingerprints: {
            baseline: firstFingerprint("baseline"),
            candidate: firstFingerprint("candidate"),
            differences: parts.comparability.differences,
        },
        runs: { used: speed.runs.used, excluded: speed.runs.excluded },
        nextLook: ahead.nextLook,
        settle: ahead.settle,
        ...(ahead.atTolerance.length > 0 ? { atTolerance: ahead.atTolerance } : {}),
        detection: ahead.detection,
        warnings: parts.warnings,
        families: decided.families,
        ...(quality.guards !== null || quality.greedy !== null || quality.tasks !== null
            ? {
                quality: {
                    guards: quality.guards ?? [],
                    ...(quality.greedy !== null ? { greedy: quality.greedy } : {}),
                    ...(quality.tasks !== null ? { tasks: quality.tasks } : {}),
                },
            }
            : {}),
        ...(specDecode.length > 0 ? { specDecode } : {}),
    };
}
/** The headline: the speed checks', then the family tests', then the quality checks' say. */
function headlineOf(decided, comparisons, notComparable) {
    const { speedVerdict, counts } = decided;
    return withGuardHeadline(withFamilyHeadline(headlineFor(speedVerdict, counts, comparisons, decided.brokenCells.length, notComparable), speedVerdict, decided.familyRegressions, counts), decided.verdict, decided.speedAndFamilies, decided.quality.regressions, counts.improvement);
}
/**
 * The headline when quality guards regressed: it leads with them, and a speed improvement beside them is
 * named as coming with the regression, never as a plain improvement.
 */
function withGuardHeadline(speedHeadline, verdict, speedVerdict, guardRegressions, speedImprovements) {
    if (guardRegressions === 0 || verdict !== "regression")
        return speedHeadline;
    const guards = `${guardRegressions} quality check${guardRegressions === 1 ? "" : "s"} got worse beyond tolerance`;
    if (speedVerdict === "regression")
        return `Regression: ${guards}; and ${speedHeadline.replace(/^Regression: /, "")}`;
    const speed = speedImprovements > 0
        ? `the speed ${speedImprovements === 1 ? "improvement comes" : `improvements (${speedImprovements}) come`} with changed outputs, not an improvement`
        : "the outputs changed";
    return `Regression: ${guards}: ${speed} (speed alone: ${speedHeadline})`;
}
/** The settings block of verdict.json: what the verdict was decided with. */
function settingsOf(gate, levels, drift) {
    return {
        tolerance: gate.tolerance,
        detectChange: gate.detect_change,
        metricTolerance: gate.metric_tolerance,
        confidence: gate.confidence,
        familyAlpha: levels.familyAlpha,
        lookAlpha: levels.alpha,
        passAlpha: levels.passAlpha,
        looks: levels.looks,
        failOn: gate.fail_on,
        errorRateLimit: gate.error_rate_limit,
        sessionDriftSd: drift.driftSd,
        sessionDriftEstimates: Object.fromEntries([...drift.estimates].map(([metric, estimate]) => [
            metric,
            {
                sd: Math.sqrt(estimate.differenceVariance),
                sessions: estimate.sessions,
                source: estimate.source,
                historySd: estimate.historyT2 === null ? null : Math.sqrt(2 * estimate.historyT2),
                historyWeight: estimate.historyWeight,
                screenedSessions: estimate.screenedSessions,
                screenedRuns: estimate.screenedRuns,
            },
        ])),
        minRunSd: gate.min_run_sd,
        outlierThreshold: gate.outlier_threshold,
        gatedMetrics: [...gate.metrics],
        minRequests: { ...gate.min_requests },
        allowedDifferences: [...gate.allowed_differences],
        onNotComparable: gate.on_not_comparable,
    };
}

/** `analyze`, and the gated family's adjustment of `input.familyExtras` (in their order). */
function analyzeWithFamily(input) {
    const levels = levelsOf$1(input);
    const drift = sessionDriftOf(input);
    const warnings = startWarnings(input.baseline, input.candidate);
    const speed = draftSpeedChecks(input, levels, drift, warnings);
    const quality = draftQualityChecks(input, warnings);
    const family = adjustFamily(input, speed.drafts, quality, levels.alpha);
    const comparisons = decide(speed.drafts, levels.alpha, levels.passAlpha, family.gatedCount, family.speedAdjusted);
    const comparability = checkComparability(speed.pairing.fingerprintPairs, input.gate, warnings);
    const decided = decideVerdict(input, levels, { speed, quality, family, comparisons, comparability }, warnings);
    const ahead = lookAhead(input, levels, speed, family.gatedCount, comparisons, decided.verdict, warnings);
    const specDecode = explainSpecDecode(speed.pairing.compared, {
        gatedMetrics: input.gate.metrics,
        passAlpha: levels.passAlpha,
        minRunSd: input.gate.min_run_sd,
        driftVarianceFor: drift.varianceFor,
        ...(speed.startPriorFor ? { startPriorFor: speed.startPriorFor } : {}),
    });
    const verdict = assembleVerdictFile(input, levels, drift, {
        speed,
        family,
        comparisons,
        comparability,
        decided,
        ahead,
        specDecode,
        warnings,
    });
    return { verdict, extras: family.extrasAdjusted };
}
/**
 * Runs whose files did not say which server start measured them: they were taken as one start per side
 * and input (compare/inputs/load.ts), the conservative reading, and the report says so.
 */
function startWarnings(baseline, candidate) {
    const warnings = [];
    for (const [side, runs] of [
        ["baseline", baseline],
        ["candidate", candidate],
    ]) {
        const assumed = runs.filter((run) => run.serverStart?.basis === "assumed-shared").length;
        if (assumed > 0)
            warnings.push(`${assumed} ${side} run${assumed === 1 ? "" : "s"} did not record the server start that measured ${assumed === 1 ? "it" : "them"} (older files, or vllm bench serve without --metadata server_start=<id>): the runs of each input were taken as one start, so the start-to-start noise is the prior's (declare each run a fresh start with --fresh-starts if it was)`);
    }
    return warnings;
}

function checkBudget(comparison, limit, spent, mode, rates) {
    const runs = comparison.runsToDetectChange ?? null;
    const now = comparison.runs.candidate;
    const toDecide = runs === null
        ? null
        : runs <= now
            ? spent
            : spent + addedGpuMinutes(mode === "interleaved" ? "interleaved" : "stored", 1, now, runs, rates);
    return {
        decidable: toDecide !== null && toDecide <= limit,
        detectableAtSpend: comparison.detectableChange,
        gpuMinutesToDecide: toDecide,
    };
}
/** The checks the budget cannot decide that were left undecided: inconclusive and out of its reach. */
function notDecidableAtBudget(comparisons) {
    return comparisons.filter((c) => c.gated && c.verdict === "inconclusive" && c.budget?.decidable === false);
}
function withBudget(verdict, budget, rates) {
    const spent = verdict.gpuMinutes?.total ?? 0;
    const limit = budget.limitGpuMinutes;
    const comparisons = verdict.comparisons.map((c) => c.gated ? { ...c, budget: checkBudget(c, limit, spent, verdict.mode, rates) } : c);
    const undecidable = notDecidableAtBudget(comparisons);
    const warnings = [...verdict.warnings];
    let nextLook = verdict.nextLook;
    if (nextLook && spent + (nextLook.gpuMinutes ?? 0) > limit) {
        warnings.push(`no further look: it would cost about ${Math.round(nextLook.gpuMinutes ?? 0)} GPU-minutes, past the budget (${Math.round(spent)} of ${limit} spent; gate.budget_gpu_minutes)`);
        nextLook = null;
    }
    // Undecided only where the budget cannot reach: every other check settled, nothing left to measure.
    let overall = verdict.verdict;
    const stillOpen = verdict.counts.inconclusive - undecidable.length;
    if (overall === "inconclusive" && stillOpen === 0 && undecidable.length > 0 && !capacityOpen(verdict)) {
        overall = "pass";
        nextLook = null;
    }
    return {
        ...verdict,
        verdict: overall,
        exitCode: exitCodeFor(overall, verdict.settings.failOn),
        headline: overall === verdict.verdict
            ? verdict.headline
            : `Pass at this budget: no gated check it can decide is worse; ${undecidable.length} ${undecidable.length === 1 ? "check is" : "checks are"} not decidable at ${limit} GPU-minutes`,
        comparisons,
        nextLook,
        settle: overall === "pass" ? null : verdict.settle,
        warnings,
        budget: {
            limitGpuMinutes: limit,
            spentGpuMinutes: spent,
            plan: budget.plan,
            notDecidable: undecidable.length,
        },
    };
}
/** A capacity check still undecided holds the verdict whatever the budget says of the speed checks. */
function capacityOpen(verdict) {
    return (verdict.capacity ?? []).some((check) => check.gated && check.verdict === "inconclusive");
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
    runs.forEach((run, index) => {
        if (!(run.load > 0) || !Number.isFinite(run.load))
            return;
        const list = byLoad.get(run.load) ?? [];
        list.push({ run, start: run.start ?? `run-${index}` });
        byLoad.set(run.load, list);
    });
    const loads = [...byLoad.keys()].sort((a, b) => a - b);
    const present = (value) => value !== null && value !== undefined && Number.isFinite(value);
    const values = loads.map((load) => objectives.map((objective, k) => byLoad.get(load).flatMap(({ run }) => {
        const value = run.values[k];
        return present(value) ? [transform(value, objective.scale)] : [];
    })));
    const starts = loads.map((load) => objectives.map((_, k) => byLoad.get(load).flatMap(({ run, start }) => (present(run.values[k]) ? [start] : []))));
    return { loads, values, counts: loads.map((load) => byLoad.get(load).length), starts };
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
/** The values of objective k's runs within its local line's window, less the line, with their runs' starts. */
function lineResiduals(grouped, k, line) {
    const values = [];
    const starts = [];
    grouped.loads.forEach((load, i) => {
        const x = Math.log(load / line.center);
        if (Math.abs(x) > localWindow)
            return;
        grouped.values[i][k].forEach((value, r) => {
            values.push(value - line.a - line.b * x);
            starts.push(grouped.starts[i][k][r]);
        });
    });
    return { values, starts };
}
/** Whether some start holds two or more of these runs (else every run was its own start). */
function sharesStarts(starts) {
    return new Set(starts).size < starts.length;
}
/**
 * The runs near the capacity's crossing as deviations in ln(load) (docs/capacity.md, "Server starts"):
 * each run's value of the limiting objective less its local line, over the line's slope, i.e. how much
 * higher a load the run behaved like. A start's speed shifts all its runs alike, so their start means
 * carry the start level and their spread within a start the run level (stats/two-level.ts). Null when
 * the capacity is not crossed inside the loads measured or its objective has no local line.
 */
function crossingDeviations(runs, objectives) {
    const grouped = group(runs, objectives);
    if (grouped.loads.length === 0)
        return null;
    const { lines, estimate } = fitCurves(grouped, objectives);
    if (estimate.bound !== "inside")
        return null;
    const k = objectives.findIndex((objective) => objective.name === estimate.limiting);
    const line = k >= 0 ? lines[k] : null;
    if (!line)
        return null;
    const residuals = lineResiduals(grouped, k, line);
    if (residuals.values.length < 2)
        return null;
    return { values: residuals.values.map((value) => value / line.b), starts: residuals.starts };
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
    const sds = objectives.map((_, k) => objectiveNoiseSd(grouped, k, lines[k] ?? null, widen));
    if (sds.every((sd) => sd === null))
        return null;
    // The curve the draws are made about: the local line within its window, the isotonic fit elsewhere.
    const model = grouped.loads.map((load, i) => objectives.map((_, k) => {
        const line = lines[k];
        const x = line ? Math.log(load / line.center) : Number.POSITIVE_INFINITY;
        return line && Math.abs(x) <= localWindow ? line.a + line.b * x : fitted[k][i];
    }));
    const resamples = options.resamples ?? defaultResamples;
    const { draws, censored } = bootstrapCapacities(grouped, objectives, {
        model,
        sds,
        startSd: startEffectSd(runs, options, widen),
        random: mulberry32(options.seed ?? 1),
        resamples,
    });
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
 * One objective's run-to-run noise sd, widened by `widen(df)`: about its local line (within a start when
 * runs of several starts share it, the start level being drawn on its own), else the pure error of the
 * replicated loads; null when neither can be estimated.
 */
function objectiveNoiseSd(grouped, k, line, widen) {
    if (line) {
        // Runs of several starts near the crossing: their spread within a start is the run level; one
        // start, or every run its own: the spread about the line.
        const residuals = lineResiduals(grouped, k, line);
        if (new Set(residuals.starts).size > 1 && sharesStarts(residuals.starts)) {
            const [within] = startLevels([residuals]).sides;
            if (within && within.runVarianceDf > 0)
                return Math.sqrt(within.runVariance) * widen(within.runVarianceDf);
        }
        return line.sd * widen(line.df);
    }
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
}
/** The sd of the start effect each draw adds, widened by its df; 0 when none is given or no start holds two runs. */
function startEffectSd(runs, options, widen) {
    const effect = options.startEffect;
    if (!effect || effect.variance <= 0)
        return 0;
    if (!sharesStarts(runs.flatMap((run, index) => (run.load > 0 ? [run.start ?? `run-${index}`] : []))))
        return 0;
    return Math.sqrt(effect.variance) * (effect.df > 0 && Number.isFinite(effect.df) ? widen(effect.df) : 1);
}
/**
 * The bootstrap: each draw puts normal noise of its objective's sd on every run's value on the model
 * curve, moves each start's loads by a drawn start effect, refits and crosses again.
 */
function bootstrapCapacities(grouped, objectives, draw) {
    const { model, sds, startSd, random } = draw;
    const startsOfRuns = [...new Set(grouped.starts.flat(2))].sort();
    const draws = [];
    let censored = 0;
    for (let b = 0; b < draw.resamples; b++) {
        const values = grouped.loads.map((_, i) => objectives.map((_, k) => {
            const count = grouped.values[i][k].length;
            const out = [];
            for (let r = 0; r < count; r++)
                out.push(model[i][k] + (sds[k] ?? 0) * boxMuller(random(), random()));
            return out;
        }));
        const drawn = { loads: grouped.loads, values, counts: grouped.counts, starts: grouped.starts };
        const shifts = startSd > 0
            ? new Map(startsOfRuns.map((start) => [start, startSd * boxMuller(random(), random())]))
            : null;
        const { estimate } = fitCurves(shifts ? shiftedByStart(drawn, shifts) : drawn, objectives);
        if (estimate.bound !== "inside")
            censored++;
        draws.push(estimate.capacity);
    }
    return { draws, censored };
}
/**
 * A draw's runs with each start's loads moved by its start effect: a run of a start drawn `shift`
 * slower is placed at load·e^shift, the load it behaved like. Runs regroup by their moved loads.
 */
function shiftedByStart(grouped, shifts) {
    const objectives = grouped.values[0]?.length ?? 0;
    const byLoad = new Map();
    grouped.loads.forEach((load, i) => {
        for (let k = 0; k < objectives; k++) {
            grouped.values[i][k].forEach((value, r) => {
                const start = grouped.starts[i][k][r];
                const moved = load * Math.exp(shifts.get(start) ?? 0);
                let entry = byLoad.get(moved);
                if (!entry) {
                    entry = {
                        values: Array.from({ length: objectives }, () => []),
                        starts: Array.from({ length: objectives }, () => []),
                    };
                    byLoad.set(moved, entry);
                }
                entry.values[k].push(value);
                entry.starts[k].push(start);
            });
        }
    });
    const loads = [...byLoad.keys()].sort((a, b) => a - b);
    return {
        loads,
        values: loads.map((load) => byLoad.get(load).values),
        starts: loads.map((load) => byLoad.get(load).starts),
        // Runs at a moved load: those of the objective with the most values there.
        counts: loads.map((load) => Math.max(...byLoad.get(load).values.map((values) => values.length))),
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
    const d = toleranceMargin(tolerance);
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

/**
 * What `validate` says a capacity search or a sweep will cost before it starts (docs/capacity.md): per cell
 * with `capacity` or `sweep`, the loads, the most runs per side, and the GPU-minutes of those runs plus one
 * server start (the server is kept across loads). A run's length is its requests at the load measured
 * (the geometric middle of the range for a search, each load for a sweep) plus the output time a request
 * takes, as validate's other estimates assume; for a session dataset the load counts sessions and a
 * session takes its turns' answers plus its think and tool times (summary.ts `sessionEstimate`).
 */
const assumedSecondsPerOutputToken = 0.03;
/** A request's answer time at the assumed speed: its kind's mean answer length. */
function outputSeconds(cell) {
    return outputTokensMean(cell.dataset, null) * assumedSecondsPerOutputToken;
}
function runSeconds(cell, load) {
    if ("duration_s" in cell.size)
        return cell.size.duration_s;
    const requests = cell.size.requests;
    const each = sessionEstimate(cell)?.seconds ?? outputSeconds(cell);
    return cell.load.type === "concurrency"
        ? (requests / Math.max(1, Math.round(load))) * each
        : requests / load + each;
}
function sweepLoadList(sweep) {
    if ("loads" in sweep)
        return [...new Set(sweep.loads)];
    return Array.from({ length: sweep.count }, (_, i) => sweep.from * (sweep.to / sweep.from) ** (i / (sweep.count - 1)));
}
const unitOf = (cell) => {
    const sessions = isSessionDataset(cell.dataset);
    if (cell.load.type === "concurrency")
        return sessions ? "sessions in flight" : "in flight";
    return sessions ? "sessions/s" : "req/s";
};
const round1 = (minutes) => (minutes < 10 ? minutes.toFixed(1) : Math.round(minutes).toString());
/**
 * The most runs per side a capacity cell spends (docs/capacity.md): `capacity.max_runs`, by default twice
 * repeats.max, never fewer than repeats.max (the search's own budget, its first look).
 */
function capacityMaxRuns(repeatsMax, cell) {
    return Math.max(repeatsMax, cell.capacity.max_runs ?? 2 * repeatsMax);
}
function describeCapacityCost(config) {
    const startMinutes = serverStartSeconds(config) / 60;
    const price = config.cost.gpu_hourly_usd;
    const usd = (minutes) => price === undefined ? "" : `, about $${((minutes / 60) * price).toFixed(2)}`;
    const lines = [];
    for (const cell of config.cells) {
        if (cell.capacity) {
            const { min, max } = cell.capacity.range;
            const runs = config.repeats.max;
            const perRun = runSeconds(cell, Math.sqrt(min * max)) / 60;
            const minutes = runs * perRun + startMinutes;
            const most = capacityMaxRuns(runs, cell);
            const extra = most > runs
                ? `; an undecided capacity verdict adds runs up to ${most} per side (capacity.max_runs), about ${round1(most * perRun + startMinutes)} GPU-minutes per side at most, and a stored baseline is recorded with ${most}`
                : "";
            lines.push(`capacity search ${cell.name} (run --sweep): ${min} to ${max} ${unitOf(cell)}, ${cell.capacity.initial_loads} loads first, then 4 runs per round until the interval is within ${Math.round(cell.capacity.precision * 100)}%; at most ${runs} runs per side (repeats.max), about ${round1(minutes)} GPU-minutes per side${usd(minutes)}, twice that for an A/B comparison${extra}`);
        }
        else if (cell.sweep) {
            const loads = sweepLoadList(cell.sweep);
            const seconds = loads.reduce((sum, load) => sum + cell.sweep.runs * runSeconds(cell, load), 0);
            const minutes = seconds / 60 + startMinutes;
            lines.push(`load sweep ${cell.name} (run --sweep): ${loads.length} loads x ${cell.sweep.runs} runs = ${loads.length * cell.sweep.runs} runs per side, about ${round1(minutes)} GPU-minutes per side${usd(minutes)}`);
        }
    }
    return lines;
}

/** The looks (runs per side) of the capacity verdicts: repeats.max, and the largest max_runs above it. */
function capacityLooks(repeatsMax, cells) {
    const last = Math.max(repeatsMax, ...cells.map((cell) => capacityMaxRuns(repeatsMax, cell)));
    return last > repeatsMax ? [repeatsMax, last] : [repeatsMax];
}
/** Runs of a cell on one side as measured (excluded runs included: they count against the budget). */
function measured(records, cell) {
    return records.filter((record) => record.cell === cell).length;
}
/**
 * The one-sided level of the capacity regression and improvement tests at this look: the family level
 * spent over `looks` by the most candidate runs of any capacity cell (as the fixed-load checks' stage).
 */
function capacityLookLevel(familyAlpha, looks, cells, candidate, mode) {
    const stage = Math.max(0, ...cells.map((cell) => measured(candidate, cell.name)));
    return perLookLevel(familyAlpha, looks, stage, mode);
}
/**
 * The next look for the gated capacity checks that are inconclusive with a ratio (both sides found a
 * capacity with an interval): the next look's runs per side, the candidate's searches resumed (and, in
 * interleaved mode, the baseline's); null when none is undecided or the last look is reached.
 */
function capacityNextLook(input) {
    const undecided = input.checks.filter((check) => check.gated && check.verdict === "inconclusive" && check.ratio !== null);
    if (undecided.length === 0)
        return null;
    const names = undecided.map((check) => check.cell);
    const stage = Math.max(...names.map((name) => measured(input.candidate, name)));
    // The look after the one this comparison belongs to (a search that stopped before repeats.max is at
    // the first look already), so that each look's level is spent once.
    const target = input.looks[lookIndex(input.looks, stage) + 1];
    if (target === undefined)
        return null;
    const fewest = (records) => Math.min(...names.map((name) => measured(records, name)));
    const candidateRuns = fewest(input.candidate);
    return {
        runsPerSide: target,
        addCandidateRuns: Math.max(0, target - candidateRuns),
        addBaselineRuns: input.mode === "interleaved" ? Math.max(0, target - fewest(input.baseline)) : 0,
        cells: names,
        reason: `capacity of ${names.join(", ")} inconclusive at ${candidateRuns} candidate run${candidateRuns === 1 ? "" : "s"}: the search refines on to ${target} runs per side (capacity.max_runs)`,
    };
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
                start: startOf(record),
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
function sideOf(cell, records, cost, level, seed, resamples, startEffect) {
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
        startEffect,
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
/**
 * The start-to-start variance of ln(load) of a capacity cell (docs/capacity.md, "Server starts"): what
 * the starts of both sides show near their crossings (stats/capacity.ts crossingDeviations, the levels
 * from stats/two-level.ts), pooled with gate.noise_prior's throughput start sd (a start's speed moves
 * its capacity as it moves its throughput) by degrees of freedom.
 */
function capacityStartLevels(cell, sides, prior) {
    const objectives = capacityObjectivesOf(cell);
    const runs = sides.map((records) => capacityRunsOf(cell, records));
    const deviations = runs.flatMap((side) => {
        const sample = crossingDeviations(side, objectives);
        return sample ? [sample] : [];
    });
    const starts = runs.map((side) => new Set(side.map((run) => run.start)).size);
    const shared = runs.some((side) => new Set(side.map((run) => run.start)).size < side.length);
    return { levels: startLevels(deviations, { startPrior: prior }), starts, shared };
}
/** Each capacity cell's sides and ratio test (no multiplicity yet: see capacityMembers, decideCapacity). */
function capacityDrafts(input) {
    const level = intervalLevel(input.gate.confidence);
    const noisePrior = input.gate.noise_prior;
    const prior = {
        variance: noisePrior.throughput.start_sd ** 2,
        df: noisePrior.weight_starts,
        source: "gate.noise_prior.throughput",
    };
    return input.cells.map((cell, index) => {
        const { levels, starts, shared } = capacityStartLevels(cell, [input.baseline, input.candidate], prior);
        const startEffect = { variance: levels.startVariance, df: levels.startVarianceDf };
        const noise = startNoiseOf(levels, { baseline: starts[0], candidate: starts[1] }, shared, prior);
        const sideAt = (records, seed) => sideOf(cell, records, input.cost, level, seed, input.resamples, startEffect);
        const baseline = sideAt(input.baseline, 1000 + index);
        const candidate = sideAt(input.candidate, 2000 + index);
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
        return { cell, baseline, candidate, test, note, tolerance, noise };
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
            noise: draft.noise,
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

/**
 * The load curves of sweeps compared without a capacity config (docs/capacity.md, docs/compare.md): a
 * cell whose runs ran at two or more loads (a `sweep` cell, `run --sweep`, several `vllm bench serve`
 * files of one label at different rates) is still judged as one fixed-load cell (with the mixed-load
 * warning), and verdict.json's `sweeps` carries both sides' curves so report.html and the comment can
 * draw them: offered load against completed requests/s, goodput, TTFT and E2E p95 and output tok/s, with
 * the cell's SLO lines when the config states them, and no capacity point (no capacity was searched).
 */
/** The percentile a sweep's latencies are drawn at (a sweep has no capacity percentile of its own). */
const sweepPercentile = "p95";
/**
 * The dimension a cell's runs were swept in: the config's (rate or concurrency) when it names the cell,
 * else the one whose target varies over the runs (rate first); null when the runs ran at one load (or
 * the config's load is stages, which has no single dimension).
 */
function sweptDimension(records, hint) {
    const distinct = (dimension) => new Set(records.flatMap((record) => {
        const load = loadOfRecord(dimension, record);
        return load !== null && load > 0 ? [load] : [];
    })).size;
    if (hint) {
        if (hint.load.type === "stages")
            return null;
        const dimension = hint.load.type;
        return distinct(dimension) >= 2 ? dimension : null;
    }
    if (distinct("rate") >= 2)
        return "rate";
    if (distinct("concurrency") >= 2)
        return "concurrency";
    return null;
}
/**
 * The sweeps among the cells compared at a fixed load (capacity cells are left out by the caller), in
 * the order the cells first appear; a cell is a sweep when its runs (both sides together) ran at two or
 * more loads and one side's usable runs give a curve of two or more points.
 */
function sweepCurves(baseline, candidate, hints = []) {
    const cells = [...new Set([...baseline, ...candidate].map((record) => record.cell))];
    return cells.flatMap((cell) => {
        const hint = hints.find((h) => h.name === cell);
        const own = [...baseline, ...candidate].filter((record) => record.cell === cell);
        const dimension = sweptDimension(own, hint);
        if (dimension === null)
            return [];
        const curve = {
            baseline: loadCurveOf(cell, dimension, sweepPercentile, baseline),
            candidate: loadCurveOf(cell, dimension, sweepPercentile, candidate),
        };
        if (curve.baseline.length < 2 && curve.candidate.length < 2)
            return [];
        const slo = hint?.slo ?? {};
        return [
            {
                cell,
                dimension,
                percentile: sweepPercentile,
                slo: {
                    ...(slo.ttft_ms === undefined ? {} : { ttft_ms: slo.ttft_ms }),
                    ...(slo.tpot_ms === undefined ? {} : { tpot_ms: slo.tpot_ms }),
                    ...(slo.e2el_ms === undefined ? {} : { e2el_ms: slo.e2el_ms }),
                },
                curve,
            },
        ];
    });
}

function defaultCompareSettings() {
    return {
        gate: configSchema.shape.gate.parse(undefined),
        // Without a config nothing says how future runs fall into server starts: one start each.
        repeats: { ...configSchema.shape.repeats.parse(undefined), block: 1 },
    };
}
function settingsFromConfig(config) {
    // The one estimate of a run's length (config/summary.ts), as validate, the run plan and the budget use it.
    const summary = summarizeConfig(config);
    const minutes = config.cells
        .map((cell, index) => (isSearchedCell(cell) ? null : summary.cells[index].estimatedSecondsPerRun / 60))
        .filter((m) => m !== null);
    const runMinutes = minutes.length > 0 ? minutes.reduce((sum, m) => sum + m, 0) / minutes.length : undefined;
    // A number where consecutive groups of a side share a start (as repeats.block states it), the
    // alternation itself where every group has a start of its own.
    const chosen = alternation(config);
    const block = chosen.startEachGroup ? chosen : chosen.runsPerGroup;
    return {
        gate: config.gate,
        repeats: { ...config.repeats, block },
        quality: config.quality,
        runMinutes,
        cost: {
            serverStartS: serverStartSeconds(config),
            lifecycle: serverLifecycle(config),
            runsPerBlock: block,
        },
        ...(capacityCells(config).length > 0
            ? { capacity: { cells: capacityCells(config), cost: config.cost } }
            : {}),
        cellFamilies: Object.fromEntries(config.cells.map((cell) => [cell.name, cellFamily(cell)])),
        sweepCells: config.cells.map((cell) => ({
            name: cell.name,
            load: { type: cell.load.type },
            ...(cell.slo ? { slo: cell.slo } : {}),
        })),
    };
}
/**
 * The run length the next look is costed at: the mean measured length of the runs read (what the next
 * runs will take), else the config's.
 */
function runMinutesOfLook(records, configured) {
    const lengths = records
        .map((record) => record.durationS)
        .filter((s) => typeof s === "number" && Number.isFinite(s) && s > 0);
    if (lengths.length > 0)
        return { runMinutes: lengths.reduce((a, b) => a + b, 0) / lengths.length / 60 };
    return configured === undefined ? {} : { runMinutes: configured };
}
/** Pure: decide from run records already in memory. */
function compareRecords(input) {
    const settings = input.settings ?? defaultCompareSettings();
    const capacityNames = new Set((settings.capacity?.cells ?? []).map((cell) => cell.name));
    const fixedLoad = (records) => records.filter((record) => !capacityNames.has(record.cell));
    // The capacity checks' tests join the gated family that analyze assembles and adjusts.
    const capacityStage = settings.capacity
        ? {
            cells: settings.capacity.cells,
            baseline: input.baseline,
            candidate: input.candidate,
            gate: settings.gate,
            cost: settings.capacity.cost,
        }
        : null;
    const capacity = capacityStage ? capacityDrafts(capacityStage) : [];
    const analyzed = analyzeWithFamily({
        ...analyzeInputOf(input, settings, fixedLoad),
        familyExtras: capacityMembers(capacity),
    });
    let decided = analyzed.verdict;
    decided.gpuMinutes = gpuMinutesSpent(decided.mode, { baseline: input.baseline, candidate: input.candidate }, decided.settings.looks, settings.cost ?? { ...defaultCostModel, runsPerBlock: settings.repeats.block ?? 1 });
    if (capacityStage)
        decided = withCapacityChecks(decided, settings, capacityStage, capacity, analyzed.extras);
    if (settings.budget) {
        const look = runMinutesOfLook(fixedLoad(input.candidate), settings.runMinutes);
        decided = withBudget(decided, settings.budget, costRatesOf(look.runMinutes, settings.repeats.block, settings.cost));
    }
    const sweeps = sweepCurves(fixedLoad(input.baseline), fixedLoad(input.candidate), settings.sweepCells);
    if (sweeps.length > 0)
        decided.sweeps = sweeps;
    const mixedLoads = mixedLoadWarnings([...fixedLoad(input.baseline), ...fixedLoad(input.candidate)]);
    if (mixedLoads.length > 0)
        decided.warnings = [...decided.warnings, ...mixedLoads];
    if (input.inputNotes && input.inputNotes.length > 0)
        decided.warnings = [...input.inputNotes, ...decided.warnings];
    // The use case cleans the verdict of secrets before it renders it (app/compare.ts).
    return {
        verdict: decided,
        exitCode: decided.exitCode,
        runs: { baseline: input.baseline, candidate: input.candidate },
    };
}
/** What the per-metric analysis is given: the fixed-load runs, the settings and the priors, but no capacity checks. */
function analyzeInputOf(input, settings, fixedLoad) {
    return {
        baseline: fixedLoad(input.baseline),
        candidate: fixedLoad(input.candidate),
        gate: settings.gate,
        repeats: settings.repeats,
        ...runMinutesOfLook(fixedLoad(input.candidate), settings.runMinutes),
        ...(settings.cost === undefined ? {} : { cost: settings.cost }),
        ...(settings.quality === undefined ? {} : { quality: settings.quality }),
        mode: input.mode ?? "stored",
        baselineInfo: input.baselineInfo ?? null,
        ...(input.history ? { history: input.history } : {}),
        ...(input.baselineVariancePriors ? { baselineVariancePriors: input.baselineVariancePriors } : {}),
        ...(input.startVariancePriors ? { startVariancePriors: input.startVariancePriors } : {}),
        ...(input.runVariancePriors ? { runVariancePriors: input.runVariancePriors } : {}),
        ...(input.baselineVariancePriorOrigin
            ? { baselineVariancePriorOrigin: input.baselineVariancePriorOrigin }
            : {}),
        now: (input.now ?? new Date()).toISOString(),
        tool: { name: toolName, version: toolVersion },
        ...(settings.cellFamilies === undefined ? {} : { cellFamilies: settings.cellFamilies }),
    };
}
/**
 * The capacity checks decided at this look's level from their adjustment in the gated family, joined to
 * the verdict; an undecided capacity verdict asks for its next look once the fixed-load cells ask for none.
 */
function withCapacityChecks(decided, settings, stage, drafts, adjusted) {
    const { cells } = stage;
    const looks = capacityLooks(settings.repeats.max, cells);
    const alpha = capacityLookLevel(1 - settings.gate.confidence, looks, cells, stage.candidate, decided.mode);
    const checks = decideCapacity({ ...stage, alpha }, drafts, adjusted);
    const joined = withCapacity(decided, checks, settings.gate.fail_on);
    if (joined.verdict === "inconclusive" && joined.nextLook === null)
        joined.nextLook = capacityNextLook({
            checks,
            looks,
            baseline: stage.baseline,
            candidate: stage.candidate,
            mode: joined.mode,
        });
    return joined;
}

/**
 * A/A calibration of a runner (docs/calibration.md): the same config measured as two sides in
 * alternation, summarised per cell and metric as the run-to-run spread, the between-session drift
 * (with main's history), the smallest change the gate can catch and the false-block rate of the gate's
 * own rule on A/A splits. The file is the gate's noise prior (calibrationPriors).
 */
const calibrationSchemaVersion = 1;
const calibrationMetricSchema = object({
    metric: string(),
    gated: boolean(),
    /** Run-to-run standard deviation of ln(value), pooled within both A/A sides (≈ relative spread). */
    runSpread: number().nonnegative(),
    /** Its square and degrees of freedom: the noise prior the gate pools with a baseline's own variance. */
    variance: number().nonnegative(),
    df: number().int().positive(),
    /** Between-session drift (sd of ln session means beyond run noise); null without history sessions. */
    drift: object({ sd: number().nonnegative(), sessions: number().int().min(2) }).nullable(),
    /** Smallest true worsening the gate blocks at 90% power with `runsPerSide` runs each (0.07 = +7%). */
    detectableChange: number().nullable(),
    /** A/A splits compared and how many of them the gate's rule blocked on this check. */
    aaSplits: number().int().nonnegative(),
    aaBlocks: number().int().nonnegative(),
    falseBlockRate: number().min(0).max(1).nullable(),
    /**
     * The two levels of the noise (docs/compare.md, "Server starts"), from the runs grouped by the server
     * start that measured them: the start-to-start variance of ln(value) with its degrees of freedom (null
     * with fewer than two starts on a side), and the run-to-run variance within a start. Absent in files
     * written before the start level was measured.
     */
    levels: object({
        starts: number().int().nonnegative(),
        startVariance: number().nonnegative().nullable(),
        startDf: number().nonnegative(),
        runVariance: number().nonnegative(),
        runDf: number().nonnegative(),
        /**
         * True when every run was measured on its own start: `runVariance` is then the spread of a run on
         * its own start (both levels in one). Absent in files written before it was recorded.
         */
        fresh: boolean().optional(),
        /**
         * The variance of one run on a start of its own (σ_r² + σ_s²) from runs that shared starts: the
         * within-start variance plus the starts' moment estimate unclamped (unbiased; clamping the start
         * level at 0 first would overstate a quiet runner's), with Satterthwaite's degrees of freedom: the
         * per-run prior of pull requests that give every run its own start. Absent in files written before
         * it was recorded (the two levels' sum stands in) and for a fresh-start calibration (`runVariance`
         * is it).
         */
        perRunVariance: number().positive().optional(),
        perRunDf: number().nonnegative().optional(),
    })
        .optional(),
});
const calibrationFileSchema = object({
    schemaVersion: literal(calibrationSchemaVersion),
    kind: literal("vllm-perf-gate-calibration"),
    createdAt: string(),
    /**
     * The measuring conditions' hash (compare/history/history.ts conditionsHash): a prior applies only under
     * them.
     */
    conditions: string().nullable(),
    runsPerSide: number().int().min(2),
    /** The gate's settings the A/A splits were judged with. */
    gate: object({ alpha: number(), tolerance: number(), failOn: string() }),
    cells: array(object({
        cell: string(),
        /** Median successful requests of the cell's runs: the run length the variances belong to. */
        requestsPerRun: number().nonnegative().optional(),
        /** Runs the gate's outlier screen left out of the variances (absent in older files). */
        screenedRuns: number().int().nonnegative().optional(),
        metrics: array(calibrationMetricSchema),
    })),
    /** Over every split: how often the gate's overall verdict was a block (regression). */
    overall: object({
        aaSplits: number().int().nonnegative(),
        blocked: number().int().nonnegative(),
        falseBlockRate: number().min(0).max(1).nullable(),
    }),
});
const healthy = (run) => run.exclusionReasons.length === 0;
/** The key of a cell's metric in the priors and the A/A tallies. */
const noiseKey = (cell, metric) => `${cell}\u0000${metric}`;
/** A seeded re-split: per cell the pooled runs shuffled, the first half one side, the rest the other. */
function resplit(runs, random) {
    const byCell = new Map();
    for (const run of runs)
        byCell.set(run.cell, [...(byCell.get(run.cell) ?? []), run]);
    const a = [];
    const b = [];
    for (const cellRuns of byCell.values()) {
        const shuffled = [...cellRuns];
        for (let i = shuffled.length - 1; i > 0; i--) {
            const j = Math.floor(random() * (i + 1));
            [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
        }
        const half = Math.floor(shuffled.length / 2);
        appendAll(a, shuffled.slice(0, half));
        appendAll(b, shuffled.slice(half, 2 * half));
    }
    return { a, b };
}
/**
 * Summarises an A/A measurement (pure, seeded). The false-block rate compares each split with the gate's
 * own analysis (compareRecords, interleaved mode, the config's gate settings); the re-splits share runs,
 * so they are not independent trials: the rate is an estimate of the rule's behaviour on this runner's
 * noise, not a precise probability (docs/calibration.md).
 */
function calibrateFromRuns(input) {
    const sides = healthySides(input);
    const { a, b, runsPerSide } = sides;
    const judged = judgeSplits(sides, input);
    // The variances are of the runs the gate's tests keep: its outlier screen applied to each A/A side, so
    // a prior is no wider than the noise a comparison's screened runs carry.
    const kept = selectUsableRuns(a, b, input.settings.gate, []).usable;
    const measured = {
        ...sides,
        kept,
        variances: pooledRunVariances([...kept.baseline, ...kept.candidate]),
    };
    const first = [...a, ...b][0];
    return calibrationFileSchema.parse({
        schemaVersion: calibrationSchemaVersion,
        kind: "vllm-perf-gate-calibration",
        createdAt: (input.now ?? new Date()).toISOString(),
        conditions: first ? conditionsHash(first.fingerprint) : null,
        runsPerSide,
        gate: {
            alpha: judged.gateAlpha,
            tolerance: judged.tolerance,
            failOn: String(input.settings.gate.fail_on),
        },
        cells: sides.cells.map((cell) => cellSummary(cell, measured, judged, input.history)),
        overall: {
            aaSplits: judged.splits,
            blocked: judged.overallBlocked,
            falseBlockRate: judged.overallBlocked / judged.splits,
        },
    });
}
function healthySides(input) {
    const a = input.a.filter(healthy).map((run) => ({ ...run, session: "aa-a" }));
    const b = input.b.filter(healthy).map((run) => ({ ...run, session: "aa-b" }));
    const perCell = (runs) => {
        const counts = new Map();
        for (const run of runs)
            counts.set(run.cell, (counts.get(run.cell) ?? 0) + 1);
        return counts;
    };
    const countsA = perCell(a);
    const countsB = perCell(b);
    const cells = [...new Set([...countsA.keys(), ...countsB.keys()])].sort();
    const runsPerSide = Math.min(...cells.map((cell) => Math.min(countsA.get(cell) ?? 0, countsB.get(cell) ?? 0)));
    if (cells.length === 0 || !(runsPerSide >= 2))
        throw new InputError(`calibration: every cell needs at least 2 healthy runs on each A/A side, got ${cells.length === 0 ? "no cell" : `${runsPerSide} in the fewest`}`);
    return { a, b, cells, runsPerSide };
}
/** The measured A/B split and the seeded re-splits of the pooled runs, each compared as the gate does. */
function judgeSplits({ a, b }, input) {
    const splits = [{ a, b }];
    const random = mulberry32(input.seed ?? 20);
    for (let i = 0; i < (input.resplits ?? 19); i++)
        splits.push(resplit([...a, ...b], random));
    const judged = {
        splits: splits.length,
        judged: new Map(),
        blocks: new Map(),
        overallBlocked: 0,
        gateAlpha: 0,
        tolerance: 0,
        detectable: new Map(),
        gated: new Map(),
    };
    splits.forEach((split, index) => {
        const { verdict } = compareRecords({
            baseline: split.a,
            candidate: split.b,
            settings: input.settings,
            mode: "interleaved",
            ...(input.now ? { now: input.now } : {}),
        });
        judged.gateAlpha = verdict.settings.familyAlpha;
        judged.tolerance = verdict.settings.tolerance;
        if (verdict.verdict === "regression")
            judged.overallBlocked++;
        for (const c of verdict.comparisons) {
            const key = noiseKey(c.cell, c.metric);
            if (index === 0) {
                judged.gated.set(key, c.gated);
                judged.detectable.set(key, c.detectableChange);
            }
            if (!c.gated)
                continue;
            judged.judged.set(key, (judged.judged.get(key) ?? 0) + 1);
            if (c.verdict === "regression")
                judged.blocks.set(key, (judged.blocks.get(key) ?? 0) + 1);
        }
    });
    return judged;
}
/** One cell of the calibration file: its run length, screened runs and each gated metric's noise. */
function cellSummary(cell, sides, judged, history) {
    const { a, b, kept } = sides;
    return {
        cell,
        ...requestsPerRunOf([...a, ...b], cell),
        screenedRuns: [...a, ...b].filter((run) => run.cell === cell && !kept.baseline.includes(run) && !kept.candidate.includes(run)).length,
        metrics: metricNames.flatMap((metric) => {
            const summary = metricSummary(cell, metric, sides, judged, history);
            return summary === null ? [] : [summary];
        }),
    };
}
/** One metric of a cell: its run spread, drift, detectable change, A/A blocks and noise levels. */
function metricSummary(cell, metric, sides, judged, history) {
    const key = noiseKey(cell, metric);
    const pooled = sides.variances.get(key);
    if (!pooled || !judged.gated.has(key))
        return null;
    const gated = judged.gated.get(key);
    const drift = history && history.length > 0
        ? cellSessionDrift(sessionLogs(cell, metric, [...history, ...sides.a, ...sides.b]))
        : null;
    const splitsJudged = judged.judged.get(key) ?? 0;
    const blocked = judged.blocks.get(key) ?? 0;
    return {
        metric,
        gated,
        runSpread: Math.sqrt(pooled.variance),
        variance: pooled.variance,
        df: pooled.df,
        drift: drift && drift.sessions >= 2 ? { sd: Math.sqrt(drift.t2), sessions: drift.sessions } : null,
        detectableChange: judged.detectable.get(key) ??
            (gated
                ? minimumDetectableChange({
                    baselineVariance: pooled.variance,
                    candidateVariance: pooled.variance,
                    baselineRuns: sides.runsPerSide,
                    candidateRuns: sides.runsPerSide,
                    extraVariance: 0,
                    tolerance: judged.tolerance,
                    alpha: judged.gateAlpha,
                    df: pooled.df,
                })
                : null),
        aaSplits: splitsJudged,
        aaBlocks: blocked,
        falseBlockRate: splitsJudged > 0 ? blocked / splitsJudged : null,
        ...levelsOf(sides.kept.baseline, sides.kept.candidate, cell, metric),
    };
}
/** The ln values of a cell's metric per session of the healthy runs (both A/A sides are one session). */
function sessionLogs(cell, metric, runs) {
    const groups = new Map();
    for (const run of runs) {
        if (run.cell !== cell || !run.session || !healthy(run))
            continue;
        const value = run.metrics[metric];
        if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value))
            continue;
        // Both A/A sides are one session of this runner.
        const session = run.session === "aa-a" || run.session === "aa-b" ? "calibration" : run.session;
        groups.set(session, [...(groups.get(session) ?? []), Math.log(value)]);
    }
    return groups;
}
/** The two levels of one cell's metric from the A/A sides' runs grouped by their server start. */
function levelsOf(a, b, cell, metric) {
    const sample = (runs) => {
        const values = [];
        const starts = [];
        for (const run of runs) {
            const value = run.cell === cell ? run.metrics[metric] : undefined;
            if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value))
                continue;
            values.push(Math.log(value));
            starts.push(startOf(run));
        }
        return { values, starts };
    };
    const sa = sample(a);
    const sb = sample(b);
    if (sa.values.length < 2 || sb.values.length < 2)
        return {};
    const result = twoLevelWelch(sa, sb);
    const starts = new Set([...sa.starts, ...sb.starts]).size;
    const fresh = result.baseline.singleRunStarts && result.candidate.singleRunStarts;
    const pooledRunDf = result.baseline.runVarianceDf + result.candidate.runVarianceDf;
    const runVariance = pooledRunDf > 0
        ? (result.baseline.runVariance * result.baseline.runVarianceDf +
            result.candidate.runVariance * result.candidate.runVarianceDf) /
            pooledRunDf
        : 0;
    const measured = fresh ? null : result.measuredStartVariance;
    // σ_r² + σ_s² with the starts' estimate unclamped: at least σ_r²·(1 − 1/n) for starts of n runs.
    const perRun = measured
        ? sumOf({ variance: runVariance, df: pooledRunDf }, { variance: measured.estimate, df: measured.df })
        : null;
    return {
        levels: {
            starts,
            // Runs on their own starts hold both levels in one spread: the start level cannot be told apart.
            startVariance: measured?.variance ?? null,
            startDf: measured?.df ?? 0,
            runVariance,
            runDf: pooledRunDf,
            fresh,
            ...(perRun && perRun.variance > 0 ? { perRunVariance: perRun.variance, perRunDf: perRun.df } : {}),
        },
    };
}
/** The median successful requests of a cell's runs (the run length its variances were measured at). */
function requestsPerRunOf(runs, cell) {
    const counts = runs
        .filter((run) => run.cell === cell)
        .map((run) => run.requests.completed)
        .sort((x, y) => x - y);
    if (counts.length === 0)
        return {};
    const mid = counts.length >> 1;
    return { requestsPerRun: counts.length % 2 === 1 ? counts[mid] : (counts[mid - 1] + counts[mid]) / 2 };
}
/** Satterthwaite's degrees of freedom of a sum of two independent variance estimates. */
function sumOf(a, b) {
    const variance = a.variance + b.variance;
    const denominator = (a.df > 0 ? a.variance ** 2 / a.df : 0) + (b.df > 0 ? b.variance ** 2 / b.df : 0);
    return { variance, df: denominator > 0 ? variance ** 2 / denominator : a.df + b.df };
}
/** The calibration's noise per cell and metric, at each level it measured (see CalibratedNoise). */
function calibratedLevels(file) {
    return file.cells.flatMap((cell) => cell.metrics.map((m) => {
        const levels = m.levels;
        const base = {
            cell: cell.cell,
            metric: m.metric,
            gated: m.gated,
            requestsPerRun: cell.requestsPerRun ?? null,
            measuredAt: file.createdAt,
        };
        const run = levels && levels.runDf > 0 ? { variance: levels.runVariance, df: levels.runDf } : null;
        const start = levels && levels.startVariance !== null && levels.startDf > 0
            ? { variance: levels.startVariance, df: levels.startDf }
            : null;
        // Older files do not say whether the runs were fresh starts; a measured start level says they were not.
        const fresh = levels?.fresh ?? (start !== null ? false : null);
        if (run === null || fresh === null)
            return { ...base, start, withinStart: null, perRun: null };
        if (fresh)
            return { ...base, start: null, withinStart: null, perRun: run };
        const perRun = levels?.perRunVariance !== undefined
            ? { variance: levels.perRunVariance, df: levels.perRunDf ?? 0 }
            : start
                ? sumOf(run, start)
                : null;
        return { ...base, start, withinStart: run, perRun };
    }));
}
function calibrationOrigin(file, source, detail) {
    return {
        source: `calibration ${source}${detail ? ` (${detail})` : ""}`,
        basis: "calibration",
        measuredAt: file.createdAt,
    };
}
/**
 * The calibration's start-to-start variances as compare's start priors (interleaved mode), per cell and
 * metric, where it measured them (two starts or more on a side).
 */
function calibrationStartPriors(file, source) {
    const priors = new Map();
    const startsOf = new Map(file.cells.flatMap((cell) => cell.metrics.map((m) => [noiseKey(cell.cell, m.metric), m.levels?.starts ?? 0])));
    for (const noise of calibratedLevels(file)) {
        if (noise.start === null)
            continue;
        const key = noiseKey(noise.cell, noise.metric);
        priors.set(key, {
            ...noise.start,
            ...calibrationOrigin(file, source, `${startsOf.get(key)} starts`),
        });
    }
    return priors;
}
/**
 * The calibration's run-to-run variances as compare's run priors for both sides (interleaved mode), per
 * cell and metric: within a start and for a run on its own start, where it measured them.
 */
function calibrationRunPriors(file, source) {
    const priors = new Map();
    for (const noise of calibratedLevels(file)) {
        if (noise.withinStart === null && noise.perRun === null)
            continue;
        priors.set(noiseKey(noise.cell, noise.metric), {
            ...(noise.withinStart ? { withinStart: noise.withinStart } : {}),
            ...(noise.perRun ? { perRun: noise.perRun } : {}),
            ...calibrationOrigin(file, source),
        });
    }
    return priors;
}
/**
 * Per cell and metric family (gate.noise_prior's families), the calibrated start and run variances the
 * run planner can plan with in place of gate.noise_prior: the family's gated metric whose runs vary most
 * (σ_s² + σ_r², the binding check), with every level's degrees of freedom and the run length they were
 * measured at. Families without a gated metric the calibration measured at the run level are absent.
 */
function calibratedNoiseByFamily(file, now = new Date()) {
    const ageDays = priorAgeDays(file.createdAt, now.toISOString()) ?? 0;
    const total = (n) => n.perRun?.variance ?? (n.withinStart?.variance ?? 0) + (n.start?.variance ?? 0);
    const byCell = new Map();
    for (const noise of calibratedLevels(file)) {
        if (!noise.gated || (noise.withinStart === null && noise.perRun === null))
            continue;
        const family = metricSpecs[noise.metric].noise;
        const families = byCell.get(noise.cell) ?? new Map();
        const known = families.get(family);
        if (!known || total(noise) > total(known)) {
            const { gated: _gated, ...rest } = noise;
            families.set(family, { ...rest, family, ageDays });
        }
        byCell.set(noise.cell, families);
    }
    return byCell;
}
/** Reads a calibration file's JSON; InputError naming the file and the field on bad content. */
function parseCalibrationFile(text, path) {
    let json;
    try {
        json = JSON.parse(text);
    }
    catch (error) {
        throw new InputError(`${path}: not JSON (${error.message})`);
    }
    const parsed = calibrationFileSchema.safeParse(json);
    if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new InputError(`${path}: field ${issue.path.join(".") || "(root)"}: ${issue.message} (expected a calibration file of schemaVersion ${calibrationSchemaVersion}, written by \`vllm-perf-gate calibrate\`)`);
    }
    return parsed.data;
}
/**
 * The origin of `calibrationPriors`' result: the calibration, or the calibration pooled with the priors
 * already known (main's history), dated from the oldest to the newest measurement in it.
 */
function calibrationPriorOrigin(file, source, others) {
    const own = calibrationOrigin(file, source);
    if (!others)
        return own;
    const dates = [file.createdAt, others.measuredAt, others.since]
        .filter((d) => typeof d === "string" && Number.isFinite(Date.parse(d)))
        .sort((x, y) => Date.parse(x) - Date.parse(y));
    return {
        source: `${own.source} + ${others.source}`,
        basis: "calibration+history",
        measuredAt: dates.at(-1) ?? null,
        since: dates[0] ?? null,
    };
}
/**
 * The calibration as the gate's noise prior per cell and metric (the key of compare's
 * baselineVariancePriors), pooled with priors already known (main's history) by degrees of freedom.
 */
function calibrationPriors(file, others) {
    const priors = new Map(others ?? []);
    for (const cell of file.cells)
        for (const m of cell.metrics) {
            const key = noiseKey(cell.cell, m.metric);
            const known = priors.get(key);
            const df = m.df + (known?.df ?? 0);
            priors.set(key, {
                variance: (m.variance * m.df + (known ? known.variance * known.df : 0)) / df,
                df,
            });
        }
    return priors;
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
 * What the choices chunks of a stream carried: reasoning (a reasoning parser's `delta.reasoning`, or
 * `delta.reasoning_content` in older vLLM releases), the answer (`delta.content`, a completion's `text`)
 * or tool calls (`delta.tool_calls`), and the tool calls assembled from their deltas.
 *
 * Shapes read: vLLM's `DeltaMessage` (`role`, `content`, `reasoning`, `tool_calls`) and `DeltaToolCall`
 * (`id`, `type`, `index`, `function: {name, arguments}`) in `vllm/entrypoints/openai/engine/protocol.py`
 * (commit 040a2cc2a629); `reasoning_content` in `vllm/entrypoints/openai/protocol.py` of the releases before
 * the rename (vllm-project/vllm PR #27752, merged November 2025; `reasoning_content` removed from the
 * output by PR #33402, January 2026, first released in 0.16.0). A tool call's first delta carries its id,
 * type and name, the later ones pieces of its arguments, all under the call's `index`
 * (`vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py`, commit 00854322d230). The OpenAI chat
 * API streams the same shapes.
 */
const reasoningFields = ["reasoning", "reasoning_content"];
/** A chunk without text of its own: chat's role chunk, a final chunk with only the finish reason. */
const chunkCarriesNothing = 0;
/** Only reasoning text. */
const chunkCarriesReasoning = 1;
/** Answer text (`content`, or a completion's `text`), maybe with reasoning. */
const chunkCarriesAnswer = 2;
/** Tool-call deltas (answer too: the answer is the call). */
const chunkCarriesToolCalls = 3;
/** Bits 2-3 of classifyChunk's result: which reasoning field the chunk used (0 none, 1 or 2). */
const fieldShift = 2;
const key = (name) => Buffer.from(`"${name}":`);
const REASONING_KEY = key("reasoning");
const REASONING_CONTENT_KEY = key("reasoning_content");
const CONTENT_KEY = key("content");
const TEXT_KEY = key("text");
const TOOL_CALLS_KEY = key("tool_calls");
const QUOTE = 34;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const COMMA = 44;
const isSpace = (byte) => byte === 32 || byte === 9 || byte === 10 || byte === 13;
/**
 * Whether the JSON object text `chunk` has key `name` (with its quotes and colon) as a member whose value
 * starts with `opener` and is not empty (`"x"`, not `""`; `[x`, not `[]`). A key inside a string value
 * cannot match: its quotes are escaped there.
 */
function hasNonEmptyMember(chunk, name, opener, closer) {
    return nonEmptyMemberAt(chunk, name, opener, closer) >= 0;
}
/** Where the first such member's value starts in `chunk` (its opener), or -1 (see hasNonEmptyMember). */
function nonEmptyMemberAt(chunk, name, opener, closer) {
    let from = 0;
    for (;;) {
        const at = chunk.indexOf(name, from);
        if (at < 0)
            return -1;
        from = at + name.length;
        let before = at - 1;
        while (isSpace(chunk[before]))
            before--;
        if (chunk[before] !== OPEN_BRACE && chunk[before] !== COMMA)
            continue;
        let value = from;
        while (isSpace(chunk[value]))
            value++;
        if (chunk[value] !== opener)
            continue;
        let next = value + 1;
        if (opener !== QUOTE)
            while (isSpace(chunk[next]))
                next++;
        if (chunk[next] !== closer)
            return value;
    }
}
const BACKSLASH = 92;
/**
 * The answer text of the choices chunk [start, end): a completion's `text`, else the delta's `content`;
 * null when it carries none. Read from the bytes, no JSON parse of the chunk: a session's turns keep their
 * answers to send them back, and parsing every chunk of 1,024 sessions in flight cost more than reading
 * them. `buffer` must hold one valid JSON object there (the reader validated it), so a string value ends
 * at the first quote not escaped.
 */
function answerTextOf(buffer, start, end) {
    const chunk = buffer.subarray(start, end);
    let value = nonEmptyMemberAt(chunk, TEXT_KEY, QUOTE, QUOTE);
    if (value < 0)
        value = nonEmptyMemberAt(chunk, CONTENT_KEY, QUOTE, QUOTE);
    if (value < 0)
        return null;
    let escaped = false;
    let close = value + 1;
    for (; close < chunk.length; close++) {
        const byte = chunk[close];
        if (byte === BACKSLASH) {
            escaped = true;
            close++;
        }
        else if (byte === QUOTE)
            break;
    }
    return escaped
        ? JSON.parse(chunk.toString("utf8", value, close + 1))
        : chunk.toString("utf8", value + 1, close);
}
/**
 * What the choices chunk [start, end) carried (one of the chunkCarries* values) and, in bits 2-3, the
 * reasoning field it used (1 `reasoning`, 2 `reasoning_content`, 0 none); a few bounded byte searches,
 * no JSON parse. `chunk` must be one valid JSON object (the reader validated it).
 */
function classifyChunk(buffer, start, end) {
    const chunk = buffer.subarray(start, end);
    const field = hasNonEmptyMember(chunk, REASONING_KEY, QUOTE, QUOTE)
        ? 1
        : hasNonEmptyMember(chunk, REASONING_CONTENT_KEY, QUOTE, QUOTE)
            ? 2
            : 0;
    const kind = hasNonEmptyMember(chunk, TOOL_CALLS_KEY, OPEN_BRACKET, CLOSE_BRACKET)
        ? chunkCarriesToolCalls
        : hasNonEmptyMember(chunk, CONTENT_KEY, QUOTE, QUOTE) || hasNonEmptyMember(chunk, TEXT_KEY, QUOTE, QUOTE)
            ? chunkCarriesAnswer
            : field !== 0
                ? chunkCarriesReasoning
                : chunkCarriesNothing;
    return kind | (field << fieldShift);
}
const chunkKindOf = (classified) => classified & ((1 << fieldShift) - 1);
const reasoningFieldOf = (classified) => {
    const field = classified >> fieldShift;
    return field === 0 ? null : reasoningFields[field - 1];
};
/**
 * Limits of the tool calls kept per request (documented in docs/run.md): 64 calls, and 64 KiB of
 * arguments per call. A call beyond them is counted as malformed; the request itself goes on.
 */
const toolCallLimits = { calls: 64, argumentChars: 64 * 1024 };
/** Key of the deltas that name no call (no integer `index`): together one malformed call. */
const unindexed = "unindexed";
/**
 * Assembles the tool calls of one response from its chunks' `delta.tool_calls` (per choice, by the
 * call's `index`). A call is well formed with a non-empty id and name and arguments that are a JSON
 * object; anything else is counted as malformed, never thrown.
 */
class ToolCallAssembler {
    calls = new Map();
    /** One choices chunk's JSON text (already validated as JSON by the reader). */
    add(json) {
        let event;
        try {
            event = JSON.parse(json);
        }
        catch {
            return;
        }
        const choices = event?.choices;
        if (!Array.isArray(choices))
            return;
        for (const choice of choices) {
            if (choice === null || typeof choice !== "object")
                continue;
            const { index: choiceIndex, delta } = choice;
            if (delta === null || typeof delta !== "object")
                continue;
            const deltas = delta.tool_calls;
            if (deltas === undefined || deltas === null)
                continue;
            if (!Array.isArray(deltas)) {
                this.call(unindexed).broken = true;
                continue;
            }
            for (const item of deltas)
                this.addDelta(Number.isSafeInteger(choiceIndex) ? String(choiceIndex) : "0", item);
        }
    }
    addDelta(choice, item) {
        if (item === null || typeof item !== "object") {
            this.call(unindexed).broken = true;
            return;
        }
        const { index, id, function: fn } = item;
        const call = Number.isSafeInteger(index) ? this.call(`${choice}:${String(index)}`) : this.call(unindexed);
        if (call === this.calls.get(unindexed))
            call.broken = true;
        if (call.broken)
            return;
        if (id !== undefined && id !== null) {
            if (typeof id !== "string" || (call.id !== null && call.id !== id))
                call.broken = true;
            else
                call.id = id;
        }
        if (fn === undefined || fn === null)
            return;
        if (typeof fn !== "object") {
            call.broken = true;
            return;
        }
        const { name, arguments: text } = fn;
        if (name !== undefined && name !== null) {
            if (typeof name !== "string" || (call.name !== null && call.name !== name))
                call.broken = true;
            else
                call.name = name;
        }
        if (text !== undefined && text !== null) {
            if (typeof text !== "string")
                call.broken = true;
            else if (call.arguments.length + text.length > toolCallLimits.argumentChars) {
                call.broken = true;
                call.arguments = "";
            }
            else
                call.arguments += text;
        }
    }
    call(key) {
        let call = this.calls.get(key);
        if (call === undefined) {
            call = { id: null, name: null, arguments: "", broken: false };
            // Beyond the limit a call is counted (as malformed), its deltas dropped.
            if (this.calls.size >= toolCallLimits.calls && key !== unindexed)
                call.broken = true;
            this.calls.set(key, call);
        }
        return call;
    }
    /** The well-formed calls in the order their first delta came, and how many were malformed. */
    result() {
        const toolCalls = [];
        let malformed = 0;
        for (const call of this.calls.values()) {
            if (!call.broken && call.id && call.name && isJsonObjectText(call.arguments)) {
                toolCalls.push({ id: call.id, name: call.name, arguments: call.arguments });
            }
            else
                malformed++;
        }
        return { toolCalls, malformed };
    }
}
function isJsonObjectText(text) {
    try {
        const value = JSON.parse(text);
        return value !== null && typeof value === "object" && !Array.isArray(value);
    }
    catch {
        return false;
    }
}

/**
 * One line of `requests.jsonl` (measured requests) or `warmup.jsonl`. Times are milliseconds on the run's
 * monotonic clock, relative to the start of the measured phase (`t0`); chunk times are relative to the
 * request's own send time (in microseconds). Written as each request finishes, so a crash loses nothing already measured.
 */
const requestRecordSchemaVersion = 1;
/**
 * Why a request's usage was not taken as the server reported it (docs/run.md, "Usage checks"):
 * `invalid_usage` (a count that is not a non-negative integer, or cumulative counts that go down),
 * `usage_exceeds_chunks` / `usage_below_chunks` (completion_tokens far from the chunks received),
 * `exceeds_max_tokens` (more output than the request's max_tokens allows).
 */
const usageIssueKinds = [
    "invalid_usage",
    "usage_exceeds_chunks",
    "usage_below_chunks",
    "exceeds_max_tokens",
];
const ms = number();
/** One well-formed tool call the answer made, assembled from its `delta.tool_calls` (arguments as streamed). */
const toolCallSchema = object({
    id: string(),
    name: string(),
    arguments: string(),
});
const requestRecordSchema = object({
    v: literal(requestRecordSchemaVersion),
    index: number().int().nonnegative(),
    phase: _enum(["measure", "warmup"]),
    requestId: string(),
    /** Stage index (stages load) or 0. */
    stage: number().int().nonnegative(),
    /** When the schedule wanted it sent (open loop), or when its slot freed (closed loop). */
    scheduledMs: ms,
    /** When the client got round to it: scheduledMs + lag caused by the client itself. */
    readyMs: ms,
    /** Wait for a concurrency slot (max_concurrency), excluded from latency like vLLM's client_queue_time. */
    queueMs: ms,
    sentMs: ms,
    /** When undici handed it a connection (relative to send); null if it never got one. */
    socketMs: ms.nullable(),
    headersMs: ms.nullable(),
    /**
     * Arrival of every chunk with choices, in whole microseconds after sentMs (integers serialise several
     * times faster than fractional milliseconds, and this list is most of each line).
     */
    chunksUs: array(number().int().nonnegative()),
    /** Tokens per chunk when the server reports cumulative usage on each chunk; otherwise null. */
    chunkTokens: array(number().int().nonnegative()).nullable(),
    endMs: ms,
    /**
     * Idle time elided before this request (schedule idle-elided): its times above are on the schedule's
     * timeline, the monotonic clock plus this. Absent on real time.
     */
    elidedMs: ms.nonnegative().optional(),
    ok: boolean(),
    errorKind: string().nullable(),
    error: string().nullable(),
    httpStatus: number().int().nullable(),
    finishReason: string().nullable(),
    promptTokens: number().int().nonnegative().nullable(),
    /** usage.completion_tokens; when the server sent no usage, the number of chunks (noted in the run). */
    outputTokens: number().int().nonnegative().nullable(),
    outputTokensSource: _enum(["usage", "chunks"]).nullable(),
    /** usage.prompt_tokens_details.cached_tokens (prompt tokens served from the prefix cache); null if not sent. */
    cachedTokens: number().int().nonnegative().nullable(),
    /**
     * When the first answer token arrived (ms after sentMs): the first chunk with content, text or tool
     * calls, after any reasoning. TTFT (the first chunk of any kind) is chunksUs[0]; null without an answer
     * chunk. The answer's ITL is the gaps between the chunks from this one on.
     */
    firstAnswerTokenMs: ms.nullable().default(null),
    /**
     * Reasoning tokens: usage.completion_tokens_details.reasoning_tokens when the server sent it, otherwise
     * the tokens of the chunks that carried only reasoning; 0 when nothing was reasoning; null without output.
     */
    reasoningTokens: number().int().nonnegative().nullable().default(null),
    /** outputTokens minus reasoningTokens; null without output. */
    answerTokens: number().int().nonnegative().nullable().default(null),
    /** Which delta field carried the reasoning (the first seen); null when none did. */
    reasoningField: _enum(reasoningFields).nullable().default(null),
    /** The well-formed tool calls of the answer, in their stream order. */
    toolCalls: array(toolCallSchema).default([]),
    /** Tool calls that could not be assembled (no id or name, arguments not a JSON object, a broken delta). */
    malformedToolCalls: number().int().nonnegative().default(0),
    targetInputTokens: number().int().nullable(),
    maxTokens: number().int(),
    prefixGroup: number().int().nullable(),
    /** A greedy-output cell's output (docs/quality.md): text, and the chosen tokens and logprobs if returned. */
    output: object({
        text: string(),
        tokens: array(string()).nullable(),
        logprobs: array(number().nullable()).nullable(),
    })
        .optional(),
    /** A task cell's answer scored against its reference (docs/quality.md); `error`: why it could not be. */
    task: object({ reference: string(), correct: boolean(), error: string().optional() }).optional(),
    /**
     * A session's turn (session datasets, docs/workloads.md): the session, the turn (0-based: its depth in
     * turns), the session's turns, and 0 for the user's message or r for the r-th tool-result round; at a
     * fan-out turn, which branch (0-based) of how many (each branch's tool rounds counted on their own).
     */
    session: object({
        index: number().int().nonnegative(),
        turn: number().int().nonnegative(),
        turns: number().int().positive(),
        toolRound: number().int().nonnegative(),
        branch: number().int().nonnegative().optional(),
        branches: number().int().positive().optional(),
    })
        .optional(),
    /** Present when the server's usage failed a check; the detail names the values and the margin. */
    usageIssue: object({ kind: _enum(usageIssueKinds), detail: string() }).optional(),
});

/**
 * `run.json`: everything measured in one run of one cell. It is the contract between `run` (writer)
 * and `compare` (reader), so it is versioned: a reader accepts every version it knows and says exactly
 * why it rejects any other.
 */
const runFileSchemaVersion = 1;
const nullableNumber = number().nullable();
/** mean/std/median/percentiles of one latency phase, in milliseconds; null when there was no sample. */
const latencySummarySchema = object({
    count: number().int().nonnegative(),
    mean: nullableNumber,
    std: nullableNumber,
    median: nullableNumber,
    p50: nullableNumber,
    p90: nullableNumber,
    p95: nullableNumber,
    p99: nullableNumber,
    p99_9: nullableNumber,
});
/** The summary of no samples (a phase a run never measured: every statistic missing, never zero). */
const noSamples = {
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
const laterPhase = (description) => latencySummarySchema.default(noSamples).describe(description);
/** What the answers were made of (docs/run.md, "Reasoning and tool calls"). */
const runAnswerSchema = object({
    reasoningRequests: number().int().nonnegative().describe("Completed requests with reasoning tokens."),
    reasoningTokens: latencySummarySchema.describe("Reasoning tokens per completed request (not ms)."),
    reasoningFields: record(string(), number().int().nonnegative())
        .describe("Requests per delta field that carried the reasoning (reasoning, reasoning_content)."),
    toolCalls: number().int().nonnegative().describe("Well-formed tool calls of the completed requests."),
    malformedToolCalls: number().int().nonnegative(),
});
/** A value the server may not expose: `null` means missing, never zero. */
const serverValue = number().nullable();
/**
 * What a histogram really knows about one of its quantiles: the bucket the rank falls in. The _ms figure
 * beside it is interpolated inside this bucket, so it is no finer than [lower_ms, upper_ms].
 */
const percentileResolutionSchema = object({
    lower_ms: number(),
    upper_ms: number().nullable().describe("null: the +Inf bucket"),
    display: string().describe('What is known, e.g. "< 300 ms" or "300 ms to 500 ms".'),
});
const serverMetricsSummarySchema = object({
    notFinite: array(string())
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
    missing: array(string()).describe("Metric names the server did not expose."),
    server_percentile_resolution: record(string(), percentileResolutionSchema)
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
        .describe("Simulator only: p99 of how late its loop handled a step (ms) over the run; client.max_server_lateness_ms."),
});
/**
 * A session dataset's fan-outs in one run (metrics/fan-out-metrics.ts, docs/workloads.md): each a turn sent
 * as branches at once and joined; times in ms over the completed fan-outs.
 */
const fanOutSummarySchema = object({
    /** Fan-outs started (a branch sent). */
    fanOuts: number().int().nonnegative(),
    /** Fan-outs whose every branch was sent and answered (their tool rounds too). */
    completed: number().int().nonnegative(),
    /** Branches sent. */
    branches: number().int().nonnegative(),
    /** The first branch's send to the slowest branch's last answer's end: when the session can go on. */
    completion: latencySummarySchema,
    /** The fastest branch's end to the slowest's: how far apart the branches finished. */
    spread: latencySummarySchema,
});
/** A session dataset's per-run summary (metrics/session-metrics.ts, docs/workloads.md). */
const sessionsSummarySchema = object({
    started: number().int().nonnegative(),
    /** Sessions whose every planned turn was answered. */
    completed: number().int().nonnegative(),
    /** Requests the sessions sent (turns and tool-result rounds). */
    requests: number().int().nonnegative(),
    /** Completed sessions per second of the measured phase. */
    throughput: number().nonnegative(),
    /** Sessions per second whose every request met every SLO; null without SLOs. */
    goodput: number().nonnegative().nullable(),
    /** Completed sessions' duration in ms: first send to the last answer's end (think times included). */
    duration: latencySummarySchema,
    /** Mean over sessions of cached / prompt tokens (usage's cached_tokens); null when the server sent none. */
    cacheHitRate: number().min(0).max(1).nullable(),
    /** The server's prefix-cache hits / queries over the run (its counters); null without them. */
    serverCacheHitRate: number().min(0).max(1).nullable(),
    /** TTFT by context depth (1-based turn number buckets), ms. */
    ttftByDepth: array(object({
        bucket: string(),
        from: number().int().positive(),
        to: number().int().positive().nullable(),
        requests: number().int().nonnegative(),
        p50: nullableNumber,
        p95: nullableNumber,
    })),
    /**
     * First turns served from the cache beyond the common prefix, into their own text: an earlier run's
     * cache (flagged when more than a tenth of the first turns were).
     */
    contamination: object({
        firstTurns: number().int().nonnegative(),
        aboveSharedPrefix: number().int().nonnegative(),
        flagged: boolean(),
        checked: boolean()
            .optional()
            .describe("false when no check was possible (a trace's first turns share prefix blocks by design): then flagged says nothing; absent in files of earlier versions."),
    }),
    /** The sub-agent fan-outs; absent when the sessions had none (and in files of earlier versions). */
    fanOut: fanOutSummarySchema.optional(),
});
/**
 * The cache-state check of a run (metrics/cache-check.ts, docs/workloads.md "Cache state"): a `prefix:
 * fresh` run's prefix-cache hits against what its dataset shares by design.
 */
const cacheCheckSchema = object({
    /** flagged: more hits than the design allows (the run is unusable); not-checked: no check was possible. */
    status: _enum(["passed", "flagged", "not-checked"]),
    /** Hits / queried prompt tokens over the measured phase; null when the server reported neither. */
    hitRate: number().min(0).max(1).nullable(),
    /** Where the hit rate came from: the server's /metrics counters, or the usage's cached_tokens. */
    hitRateSource: _enum(["server", "usage"]).nullable(),
    /** The most the dataset shares by design, a chat template's head included; null when not checked. */
    designedHitRate: number().min(0).max(1).nullable(),
    /** What was found, or why nothing was checked. */
    reason: string(),
});
/** How a session cell's cache was prepared before measuring (docs/workloads.md, Cache protocol). */
const cacheProtocolSchema = object({
    /** The prefix cache was reset before the run (POST /reset_prefix_cache answered 200). */
    reset: boolean(),
    /** Requests carry a per-run cache_salt: nothing cached by an earlier run can be hit. */
    salted: boolean(),
    /**
     * The warm-up as configured (sessions, or seconds of sessions), and the requests it sent: its sessions
     * are their own conversations; only the common system prompt is shared with the measured sessions.
     */
    warmup: union([
        object({ sessions: number().int().nonnegative() }),
        object({ durationS: number().nonnegative() }),
    ]),
    warmupRequests: number().int().nonnegative(),
});
/**
 * The server start that measured a run (docs/server.md, Server starts): the runs of one start share what
 * it drew, so compare groups them by it. Absent in files of earlier versions
 * (compare/inputs/server-starts.ts).
 */
const runServerStartSchema = object({
    id: string()
        .min(1)
        .max(maxServerStartIdLength)
        .describe("Unique per server start (a random UUID for a server vllm-perf-gate launched)."),
    startedAt: string()
        .describe("ISO-8601: when the server was launched; for a server only reached (--base-url, kind external), when the process first reached it."),
    side: string()
        .nullable()
        .describe("The side the start served (baseline, candidate, ...), null when unlabelled."),
});
const runFileSchema = object({
    schemaVersion: literal(runFileSchemaVersion),
    tool: object({ name: string(), version: string() }),
    cell: string(),
    run: number().int().nonnegative().describe("Run index within the cell, from 0."),
    /** `baseline` or `candidate` in interleaved jobs; free-form label otherwise. */
    side: string().optional(),
    serverStart: runServerStartSchema
        .optional()
        .describe("The server start that measured the run; absent in files of earlier versions (compare then assumes one start per input, docs/compare.md)."),
    startedAt: string().describe("ISO-8601 wall-clock time the measured phase began."),
    durationS: number()
        .nonnegative()
        .describe("Measured phase: first dispatch to last completion, on the schedule's timeline (with idle gaps elided, what it takes on real time; load.schedule.wallClockS is what it took)."),
    /** How the run was sized and loaded, as executed (for re-analysis). */
    load: object({
        type: _enum(["concurrency", "rate", "stages"]),
        targetRate: number().nullable(),
        targetConcurrency: number().nullable(),
        achievedRate: number(),
        achievedConcurrencyMean: number(),
        peakConcurrency: number().int(),
        scheduleLagP50Ms: number().nullable(),
        scheduleLagP99Ms: number().nullable(),
        eventLoopLagP99Ms: number().nullable(),
        schedule: object({
            kind: _enum(["idle-elided", "real-time"]),
            settleMs: number().nonnegative().optional(),
            elidedS: number().nonnegative().describe("Idle time elided: durationS minus the wall-clock."),
            wallClockS: number().nonnegative().describe("Wall-clock of the measured phase (GPU time spent)."),
        })
            .optional()
            .describe("How the arrivals were timed (docs/run.md, Schedules). durationS and every time in requests.jsonl are on the schedule's timeline, as on real time; absent in files of earlier versions (real time)."),
    }),
    requests: object({
        total: number().int().nonnegative(),
        completed: number().int().nonnegative(),
        failed: number().int().nonnegative(),
        errorsByKind: record(string(), number().int().nonnegative()),
        finishReasons: record(string(), number().int().nonnegative()),
        warmup: number().int().nonnegative(),
    }),
    tokens: object({
        input: number().int().nonnegative(),
        output: number().int().nonnegative(),
        inputLengths: latencySummarySchema.describe("Distribution of prompt tokens per request (not ms)."),
        outputLengths: latencySummarySchema.describe("Distribution of output tokens per request (not ms)."),
    }),
    latency: object({
        ttft: latencySummarySchema,
        tpot: latencySummarySchema,
        itl: latencySummarySchema,
        e2el: latencySummarySchema,
        answer_ttft: laterPhase("Time to the first answer token (content or tool call, after any reasoning)."),
        answer_itl: laterPhase("Gaps between the chunks from the first answer chunk on."),
        queue: latencySummarySchema.describe("Client-side wait for a concurrency slot."),
    }),
    throughput: object({
        request: number().nonnegative(),
        output: number().nonnegative(),
        total: number().nonnegative(),
        goodput: number().nonnegative().nullable().describe("Good requests per second; null without SLOs."),
        sloAttainment: number().min(0).max(1).nullable(),
    }),
    server: serverMetricsSummarySchema.nullable(),
    answer: runAnswerSchema
        .optional()
        .describe("Reasoning and tool calls of the answers; absent in files of earlier versions."),
    sessions: sessionsSummarySchema
        .optional()
        .describe("A session dataset's sessions: duration, goodput, cache hit rate, TTFT by depth (docs/workloads.md)."),
    cacheProtocol: cacheProtocolSchema.optional(),
    cacheCheck: cacheCheckSchema
        .optional()
        .describe("Whether a prefix: fresh run found only what its dataset shares by design in the prefix cache (docs/workloads.md); absent in files of earlier versions."),
    guards: runGuardsSchema
        .optional()
        .describe("What the outputs were (finish reasons, zero outputs, usage checks, lengths): docs/quality.md."),
    outputs: array(runOutputSchema)
        .optional()
        .describe("A greedy-output cell's outputs per prompt (config quality.greedy), for the greedy check."),
    flags: object({
        clientBound: boolean(),
        clientBoundReason: string().optional(),
        serverCrashed: boolean(),
        serverStarved: boolean()
            .optional()
            .describe("The simulator's own process was kept from running on time (its step lateness beyond client.max_server_lateness_ms); absent for servers that do not export sim:step_lateness_seconds."),
        serverStarvedReason: string().optional(),
        cutShort: boolean(),
        interrupted: string()
            .optional()
            .describe("The signal (SIGINT, SIGTERM) that interrupted the run; such a run is also cut short."),
        notes: array(string()).default([]),
        usageIssues: partialRecord(_enum(usageIssueKinds), number().int().nonnegative())
            .optional()
            .describe("Measured requests whose usage failed a check, by kind (docs/run.md, Usage checks)."),
        unusableReasons: array(string())
            .optional()
            .describe("Why compare must not use this run (besides the flags above); empty when it is usable."),
    }),
    prefix: object({
        policy: _enum(["fresh", "reuse"]),
        cacheSalt: string().nullable(),
        cacheReset: boolean(),
    }),
    /** Conditions of the run; see server/fingerprint. Opaque here so compare can diff it field by field. */
    fingerprint: record(string(), unknown()),
    telemetry: object({
        gpuUtilizationMean: number().nullable(),
        gpuUtilizationMax: number().nullable(),
        gpuMemoryUsedMaxMiB: number().nullable(),
        gpuPowerMeanW: number().nullable(),
        smClockMeanMHz: number().nullable(),
    })
        .nullable()
        .default(null),
});
const percentileOrder = ["p50", "p90", "p95", "p99", "p99_9"];
/** Checks one summary: ordered percentiles, no negative values, no statistics without samples. */
function latencySummaryIssues(summary, field) {
    const issues = [];
    const values = [summary.mean, summary.std, summary.median, ...percentileOrder.map((key) => summary[key])];
    if (summary.count === 0 && values.some((value) => value !== null))
        issues.push({ field: `${field}.count`, message: "0 samples, but statistics are given (expected null)" });
    for (const key of ["mean", "std", "median", ...percentileOrder]) {
        const value = summary[key];
        if (value !== null && value < 0)
            issues.push({ field: `${field}.${key}`, message: `${value} is negative (expected >= 0)` });
    }
    let previous = null;
    for (const key of percentileOrder) {
        const value = summary[key];
        if (value === null)
            continue;
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
function sum(record) {
    let total = 0;
    for (const value of Object.values(record))
        total += value;
    return total;
}
/**
 * The relations `run` guarantees between the fields of a run.json (metrics/run-metrics.ts builds
 * them from the same records): completed + failed = total, the error kinds add up to failed, the
 * finish reasons to completed, no latency has more samples than completed requests, and every
 * summary is ordered. Checked when a run.json is read (compare, baseline validation), not when it
 * is written, so a measured run is never lost to a check.
 */
function runFileInvariantIssues(file) {
    const issues = [];
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
    for (const phase of ["ttft", "tpot", "e2el"]) {
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
    for (const which of ["inputLengths", "outputLengths"]) {
        const count = file.tokens[which].count;
        if (count > completed) {
            issues.push({
                field: `tokens.${which}.count`,
                message: `${count} samples, more than the ${completed} completed requests`,
            });
        }
    }
    for (const phase of ["ttft", "tpot", "itl", "e2el", "queue"])
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
        throw new InputError(`${what}: ${reason}; the runs measured so far are kept`);
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
    run.outbound.writeFileSync(join(run.dir, externalTaskFileName(spec.name)), `${JSON.stringify(file, null, 2)}\n`);
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

/**
 * mean, std (population, ddof=0), median and numpy-linear percentiles, as `vllm bench serve` computes them.
 * Unlike vLLM, an empty sample gives nulls, not zeros: "no data" must never read as "instant".
 */
function summarize(values) {
    const count = values.length;
    if (count === 0)
        return { ...noSamples };
    const sorted = sortNumbers(values);
    let sum = 0;
    for (let index = 0; index < count; index++)
        sum += sorted[index];
    const mean = sum / count;
    let squares = 0;
    for (let index = 0; index < count; index++)
        squares += (sorted[index] - mean) ** 2;
    const median = percentileSorted(sorted, 0.5);
    return {
        count,
        mean,
        std: Math.sqrt(squares / count),
        median,
        p50: median,
        p90: percentileSorted(sorted, 0.9),
        p95: percentileSorted(sorted, 0.95),
        p99: percentileSorted(sorted, 0.99),
        p99_9: percentileSorted(sorted, 0.999),
    };
}

function requestLatencies(record) {
    const chunks = record.chunksUs;
    if (!record.ok || chunks.length === 0)
        return null;
    const ttft = chunks[0] / 1000;
    const e2el = chunks[chunks.length - 1] / 1000;
    const out = record.outputTokens ?? chunks.length;
    return { ttft, e2el, tpot: out > 1 ? (e2el - ttft) / (out - 1) : null };
}
/**
 * The answer's timing of a successful request that reasoned, in ms: its first answer token (null when no
 * chunk carried answer text or a tool call) and the gaps between the chunks from there on. Null for a
 * request without reasoning: its answer's timing is its TTFT and ITL, not repeated as metrics of their own.
 */
function answerLatencies(record) {
    if (!record.ok || record.chunksUs.length === 0)
        return null;
    if ((record.reasoningTokens ?? 0) === 0 && record.reasoningField === null)
        return null;
    const first = record.firstAnswerTokenMs;
    if (first === null)
        return { ttft: null, itl: [] };
    const chunks = record.chunksUs;
    const itl = [];
    let index = chunks.findIndex((us) => us / 1000 >= first);
    if (index < 0)
        index = chunks.length;
    for (index++; index < chunks.length; index++)
        itl.push((chunks[index] - chunks[index - 1]) / 1000);
    return { ttft: first, itl };
}
/** vLLM's rule: good when every given objective is met; a request without TPOT (out <= 1) meets that one. */
function isGood(latencies, slo) {
    if (slo.ttft_ms !== undefined && latencies.ttft > slo.ttft_ms)
        return false;
    if (slo.tpot_ms !== undefined && latencies.tpot !== null && latencies.tpot > slo.tpot_ms)
        return false;
    if (slo.e2el_ms !== undefined && latencies.e2el > slo.e2el_ms)
        return false;
    return true;
}
/**
 * The client-side metrics of one run from its measured request records (pure). TTFT, TPOT and E2E are per
 * request; ITL pools every gap between consecutive choices chunks of all requests (per chunk, not per
 * token, as vLLM's client does). Only successful requests enter latency and throughput.
 */
function computeRunMetrics(records, options) {
    const slo = options.slo;
    const hasSlo = slo !== undefined &&
        (slo.ttft_ms !== undefined || slo.tpot_ms !== undefined || slo.e2el_ms !== undefined);
    const s = collectSamples(records, hasSlo ? slo : undefined);
    const duration = options.durationS;
    const perSecond = (value) => (duration > 0 ? value / duration : 0);
    return {
        requests: {
            total: records.length,
            completed: s.completed,
            failed: records.length - s.completed,
            errorsByKind: s.errorsByKind,
            finishReasons: s.finishReasons,
            warmup: options.warmup ?? 0,
        },
        tokens: {
            input: s.inputTokens,
            output: s.outputTokens,
            inputLengths: summarize(s.inputLengths),
            outputLengths: summarize(s.outputLengths),
        },
        latency: {
            ttft: summarize(s.ttft),
            tpot: summarize(s.tpot),
            itl: summarize(s.itl),
            e2el: summarize(s.e2el),
            answer_ttft: summarize(s.answerTtft),
            answer_itl: summarize(s.answerItl),
            queue: summarize(s.queue),
        },
        answer: {
            reasoningRequests: s.reasoningRequests,
            reasoningTokens: summarize(s.reasoningTokens),
            reasoningFields: s.reasoningFields,
            toolCalls: s.toolCalls,
            malformedToolCalls: s.malformedToolCalls,
        },
        throughput: {
            request: perSecond(s.completed),
            output: perSecond(s.outputTokens),
            total: perSecond(s.inputTokens + s.outputTokens),
            goodput: hasSlo ? perSecond(s.good) : null,
            sloAttainment: hasSlo ? (records.length > 0 ? s.good / records.length : 0) : null,
        },
    };
}
function collectSamples(records, slo) {
    const samples = {
        ttft: [],
        tpot: [],
        itl: [],
        e2el: [],
        answerTtft: [],
        answerItl: [],
        queue: [],
        reasoningTokens: [],
        reasoningFields: {},
        reasoningRequests: 0,
        toolCalls: 0,
        malformedToolCalls: 0,
        inputLengths: [],
        outputLengths: [],
        errorsByKind: {},
        finishReasons: {},
        completed: 0,
        good: 0,
        inputTokens: 0,
        outputTokens: 0,
    };
    for (const record of records) {
        samples.queue.push(record.queueMs);
        const latencies = requestLatencies(record);
        if (latencies === null) {
            const kind = record.errorKind ?? "other";
            samples.errorsByKind[kind] = (samples.errorsByKind[kind] ?? 0) + 1;
            continue;
        }
        samples.completed++;
        addLatencies(samples, record, latencies);
        addAnswer(samples, record);
        const input = record.promptTokens ?? record.targetInputTokens ?? 0;
        const output = record.outputTokens ?? record.chunksUs.length;
        samples.inputTokens += input;
        samples.outputTokens += output;
        samples.inputLengths.push(input);
        samples.outputLengths.push(output);
        if (slo !== undefined && isGood(latencies, slo))
            samples.good++;
    }
    return samples;
}
/** A completed request's TTFT, TPOT, E2E, its chunk gaps (ITL), and the same for its answer proper. */
function addLatencies(samples, record, latencies) {
    samples.ttft.push(latencies.ttft);
    samples.e2el.push(latencies.e2el);
    if (latencies.tpot !== null)
        samples.tpot.push(latencies.tpot);
    const chunks = record.chunksUs;
    for (let index = 1; index < chunks.length; index++)
        samples.itl.push((chunks[index] - chunks[index - 1]) / 1000);
    const answer = answerLatencies(record);
    if (answer !== null) {
        if (answer.ttft !== null)
            samples.answerTtft.push(answer.ttft);
        for (const gap of answer.itl)
            samples.answerItl.push(gap);
    }
}
/** What a completed request's answer carried: reasoning, tool calls, its finish reason. */
function addAnswer(samples, record) {
    const reasoning = record.reasoningTokens ?? 0;
    samples.reasoningTokens.push(reasoning);
    if (reasoning > 0)
        samples.reasoningRequests++;
    if (record.reasoningField !== null)
        samples.reasoningFields[record.reasoningField] =
            (samples.reasoningFields[record.reasoningField] ?? 0) + 1;
    samples.toolCalls += record.toolCalls.length;
    samples.malformedToolCalls += record.malformedToolCalls;
    const reason = record.finishReason ?? "unknown";
    samples.finishReasons[reason] = (samples.finishReasons[reason] ?? 0) + 1;
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
    const run = new RunScrapes(parsed, before, after);
    const resolution = {};
    for (const [figure, candidates, q] of [
        ["server_ttft_p50_ms", names.ttft, 0.5],
        ["server_ttft_p95_ms", names.ttft, 0.95],
        ["server_queue_p50_ms", names.queue, 0.5],
        ["server_queue_p95_ms", names.queue, 0.95],
    ]) {
        const bucket = run.quantileBucket(candidates, q);
        if (bucket)
            resolution[figure] = bucket;
    }
    const spec = specDecodeSummary(before, after);
    const sim = simulatorLateness(before, after);
    const preemptions = run.counterDelta(names.preemptions);
    const queries = run.counterDelta(names.prefixQueries);
    const hits = run.counterDelta(names.prefixHits);
    const kv = run.gauge(names.kvUsage);
    const running = run.gauge(names.running);
    const waiting = run.gauge(names.waiting);
    const promptTokens = run.counterDelta(names.promptTokens);
    const generationTokens = run.counterDelta(names.generationTokens);
    const success = run.counterDelta(names.success);
    const ttft = run.quantiles(names.ttft);
    const queue = run.quantiles(names.queue);
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
        missing: run.missing,
        server_percentile_resolution: resolution,
        ...spec,
        ...sim,
    };
}
/**
 * One run's scrapes read by family: a counter's change from before to after, a gauge's maximum and mean
 * during the run, a histogram's percentiles over the run. Each family is read under the first of its
 * names the server exposes; one it does not expose is null and named in `missing` (its first name).
 */
class RunScrapes {
    parsed;
    before;
    after;
    missing = [];
    constructor(parsed, before, after) {
        this.parsed = parsed;
        this.before = before;
        this.after = after;
    }
    counterDelta(candidates) {
        const name = present(this.after, candidates);
        if (name === null) {
            this.missing.push(candidates[0]);
            return null;
        }
        return total(this.after, name) - total(this.before, name);
    }
    gauge(candidates) {
        const parsed = this.parsed;
        const name = present(this.after, candidates) ??
            parsed.map((scrape) => present(scrape.samples, candidates)).find(Boolean);
        if (!name) {
            this.missing.push(candidates[0]);
            return null;
        }
        const during = parsed.filter((scrape) => scrape.phase === "during");
        const pool = (during.length > 0 ? during : parsed).filter((scrape) => scrape.samples.some((s) => s.name === name));
        const values = pool.map((scrape) => total(scrape.samples, name));
        if (values.length === 0)
            return null;
        return { max: largest(values), mean: values.reduce((sum, value) => sum + value, 0) / values.length };
    }
    quantiles(candidates) {
        const histogram = this.histogram(candidates);
        if (histogram === null) {
            this.missing.push(candidates[0]);
            return { p50: null, p95: null };
        }
        const start = buckets(this.before, histogram);
        const end = buckets(this.after, histogram);
        const toMs = (value) => (value === null ? null : value * 1000);
        return { p50: toMs(histogramQuantile(start, end, 0.5)), p95: toMs(histogramQuantile(start, end, 0.95)) };
    }
    /** The bucket a histogram's quantile falls in (how finely the server's percentile is resolved). */
    quantileBucket(candidates, q) {
        const histogram = this.histogram(candidates);
        if (histogram === null)
            return null;
        return (histogramQuantileBucket(buckets(this.before, histogram), buckets(this.after, histogram), q) ?? null);
    }
    /** The histogram's name as exposed (its `_bucket` samples present), or null. */
    histogram(candidates) {
        const name = present(this.after, candidates.map((candidate) => `${candidate}_bucket`));
        return name === null ? null : name.slice(0, -"_bucket".length);
    }
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
 * Each fan-out of a run's session records (pure): the records of one session's turn that carry a branch,
 * a branch's end its last request's (its tool rounds included), in the order of (session, turn).
 */
function fanOutTimes(records) {
    const turns = new Map();
    for (const record of records) {
        const position = record.session;
        if (position?.branch === undefined)
            continue;
        const key = `${position.index}:${position.turn}`;
        const list = turns.get(key);
        if (list)
            list.push(record);
        else
            turns.set(key, [record]);
    }
    const times = [];
    for (const list of turns.values()) {
        const position = list[0].session;
        const branches = position.branches ?? 1;
        const ends = new Map();
        let start = Number.POSITIVE_INFINITY;
        let allOk = true;
        for (const record of list) {
            const branch = record.session.branch;
            if (record.session.toolRound === 0)
                start = Math.min(start, record.sentMs);
            ends.set(branch, Math.max(ends.get(branch) ?? Number.NEGATIVE_INFINITY, record.endMs));
            if (!record.ok)
                allOk = false;
        }
        const sent = new Set(list.filter((record) => record.session.toolRound === 0).map((record) => record.session.branch)).size;
        const completed = allOk && sent === branches && Number.isFinite(start);
        const branchEnds = [...ends.values()];
        const last = Math.max(...branchEnds);
        times.push({
            session: position.index,
            turn: position.turn,
            branches,
            sent,
            completed,
            completionMs: completed ? last - start : null,
            spreadMs: completed ? last - Math.min(...branchEnds) : null,
        });
    }
    return times.sort((a, b) => a.session - b.session || a.turn - b.turn);
}
/** A run's fan-outs (`fanOutTimes`) summarised (run.json `sessions.fanOut`); undefined when there were none. */
function summarizeFanOuts(times) {
    if (times.length === 0)
        return undefined;
    const completed = times.filter((time) => time.completed);
    return {
        fanOuts: times.length,
        completed: completed.length,
        branches: times.reduce((sum, time) => sum + time.sent, 0),
        completion: summarize(completed.map((time) => time.completionMs)),
        spread: summarize(completed.map((time) => time.spreadMs)),
    };
}

/**
 * The context-depth buckets TTFT is summarised in (1-based turn numbers: how many user turns the
 * conversation holds, the new one included): 1, 2-3, 4-7, 8 and deeper. Doubling widths keep each
 * bucket's requests comparable in number for sessions of a few to tens of turns.
 */
const depthBuckets = [
    { name: "1", from: 1, to: 1 },
    { name: "2_3", from: 2, to: 3 },
    { name: "4_7", from: 4, to: 7 },
    { name: "8_up", from: 8, to: null },
];
/**
 * A first turn whose cached prompt tokens reach more than this many tokens into its own new text (past the
 * common system prompt and the template) was served from a cache an earlier run left: warm-up sessions and
 * measured sessions never share more, so it is contamination (a fixed seed against a long-lived server).
 */
const contaminationSlackTokens = 16;
/** The share of first turns with such hits at which a run is flagged as contaminated. */
const contaminationShare = 0.1;
/**
 * The cached tokens a first turn may have by design: the common prefix, and all of its prompt but its own
 * new text (`targetInputTokens` less the common prefix, where the record has it): a chat template's head
 * and declared tools are the same for every first turn, and only an earlier run can have cached the
 * turn's own text. Undefined for a turn whose own text is too short to tell (two slacks or less), null when
 * no check is possible (a trace: `sharedPrefixTokens` null).
 */
function firstTurnBar(record, sharedPrefixTokens) {
    if (sharedPrefixTokens === null)
        return null;
    if (record.targetInputTokens === null || record.promptTokens === null)
        return sharedPrefixTokens;
    const own = record.targetInputTokens - sharedPrefixTokens;
    if (own <= 2 * contaminationSlackTokens)
        return undefined;
    return Math.max(sharedPrefixTokens, record.promptTokens - own);
}
/**
 * Per-run session metrics of a session dataset's records (pure): a session is its records with the same
 * `session.index`. Completed: every planned turn answered (a fan-out turn: every branch). Good: completed, and every request of it met
 * every SLO (vLLM's rule per request). Duration: first send to last answer's end, think times included (the
 * script gives both sides the same ones). Cache hit rate: per session, cached / prompt tokens of its
 * requests from the usage's cached_tokens, averaged over the sessions that report them; the server's own
 * counters (prefix cache hits / queries over the run) beside it.
 */
function computeSessionMetrics(records, options) {
    const sessions = groupSessions(records);
    if (sessions.size === 0)
        return null;
    // Sessions with a fan-out turn whose branches were not all sent and answered.
    const fanOuts = fanOutTimes(records);
    const fanOutIncomplete = new Set(fanOuts.flatMap((time) => (time.completed ? [] : [time.session])));
    const slo = options.slo;
    const hasSlo = slo !== undefined &&
        (slo.ttft_ms !== undefined || slo.tpot_ms !== undefined || slo.e2el_ms !== undefined);
    const ttftByDepth = new Map(depthBuckets.map((bucket) => [bucket.name, []]));
    const tallies = [...sessions].map(([index, turns]) => {
        const tally = tallySession(turns, hasSlo ? slo : undefined, options.sharedPrefixTokens, ttftByDepth);
        return { ...tally, completed: tally.completed && !fanOutIncomplete.has(index) };
    });
    const done = tallies.filter((tally) => tally.completed);
    const good = done.filter((tally) => hasSlo && tally.good).length;
    const hitRates = tallies.flatMap((tally) => (tally.hitRate === null ? [] : [tally.hitRate]));
    const firstTurns = tallies.filter((tally) => tally.firstTurn !== "unseen").length;
    const contaminated = tallies.filter((tally) => tally.firstTurn === "contaminated").length;
    const perSecond = (count) => (options.durationS > 0 ? count / options.durationS : 0);
    const fanOut = summarizeFanOuts(fanOuts);
    return {
        started: sessions.size,
        completed: done.length,
        requests: records.filter((record) => record.session !== undefined).length,
        throughput: perSecond(done.length),
        goodput: hasSlo ? perSecond(good) : null,
        duration: summarize(done.map((tally) => tally.durationMs)),
        cacheHitRate: hitRates.length > 0 ? hitRates.reduce((sum, rate) => sum + rate, 0) / hitRates.length : null,
        serverCacheHitRate: options.serverHitRate,
        ttftByDepth: depthSummaries(ttftByDepth),
        // A trace's first turns share prefix blocks by design: no check was possible, which is not a pass.
        contamination: {
            firstTurns,
            aboveSharedPrefix: contaminated,
            flagged: firstTurns > 0 && contaminated / firstTurns > contaminationShare,
            checked: options.sharedPrefixTokens !== null,
        },
        ...(fanOut !== undefined ? { fanOut } : {}),
    };
}
/** A run's session records by session index, in the order sessions first appear. */
function groupSessions(records) {
    const sessions = new Map();
    for (const record of records) {
        if (record.session === undefined)
            continue;
        const list = sessions.get(record.session.index);
        if (list)
            list.push(record);
        else
            sessions.set(record.session.index, [record]);
    }
    return sessions;
}
function tallySession(turns, slo, sharedPrefixTokens, ttftByDepth) {
    const planned = turns[0].session.turns;
    // A first turn's cached prefix: at a fan-out, the least any branch found (the first admitted computes
    // the branches' common prefix, the others hit it).
    let firstTurnSeen = false;
    let firstTurnExcess = null;
    const userTurns = new Set();
    let allOk = true;
    let allGood = true;
    let prompt = 0;
    let cached = 0;
    let cacheReported = false;
    let start = Number.POSITIVE_INFINITY;
    let end = Number.NEGATIVE_INFINITY;
    for (const record of turns) {
        const position = record.session;
        if (position.toolRound === 0)
            userTurns.add(position.turn);
        start = Math.min(start, record.sentMs);
        end = Math.max(end, record.endMs);
        const latencies = requestLatencies(record);
        if (latencies === null) {
            allOk = false;
            allGood = false;
        }
        else {
            if (slo !== undefined && !isGood(latencies, slo))
                allGood = false;
            ttftByDepth.get(depthBucketOf(position.turn + 1)).push(latencies.ttft);
        }
        if (record.promptTokens !== null && record.cachedTokens !== null) {
            prompt += record.promptTokens;
            cached += record.cachedTokens;
            cacheReported = true;
            // A fan-out's first turn is several branches over one prefix: the branch that found the least
            // cached speaks for the session (the others may hit what their siblings just computed).
            if (position.turn === 0 && position.toolRound === 0) {
                const bar = firstTurnBar(record, sharedPrefixTokens);
                if (bar !== undefined) {
                    firstTurnSeen = true;
                    if (bar !== null)
                        firstTurnExcess = Math.min(firstTurnExcess ?? Number.POSITIVE_INFINITY, record.cachedTokens - bar);
                }
            }
        }
    }
    return {
        completed: allOk && userTurns.size === planned,
        good: allGood,
        durationMs: end - start,
        hitRate: cacheReported && prompt > 0 ? cached / prompt : null,
        firstTurn: !firstTurnSeen
            ? "unseen"
            : firstTurnExcess !== null && firstTurnExcess > contaminationSlackTokens
                ? "contaminated"
                : "clean",
    };
}
function depthBucketOf(depth) {
    return depthBuckets.find((entry) => depth >= entry.from && (entry.to === null || depth <= entry.to)).name;
}
function depthSummaries(ttftByDepth) {
    return depthBuckets.map((bucket) => {
        const values = ttftByDepth.get(bucket.name);
        const summary = summarize(values);
        return {
            bucket: bucket.name,
            from: bucket.from,
            to: bucket.to,
            requests: values.length,
            p50: summary.p50,
            p95: summary.p95,
        };
    });
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
 * The A/B schedule of interleaved runs: which side runs when, and which consecutive runs of a side share
 * a server start. The use cases measure by it (src/app/adaptive.ts measureAlternately), and bench:gate.
 */
/**
 * The order of the sides in pair k: A B, then B A, ... Each pair flips the order so that slow drift of the
 * machine (temperature, clocks, neighbours) falls on both sides equally instead of on the later one.
 */
function alternatingOrder(pair, sides) {
    return pair % 2 === 0 ? sides : [...sides].reverse();
}
/**
 * The runs firstRun .. firstRun + runs − 1 of every side in alternating order, with consecutive runs of
 * the same side merged into one block. The alternation is in groups of `runsPerBlock` runs per side,
 * group g in the order of pair g (A B, then B A, ...): with 1, A B | B A | A B gives A, BB, AA, B; with
 * 5 and 20 runs, A5 B10 A10 B10 A5. Each block is one server start per cell, so R runs per side cost
 * ⌈R / k⌉ + 1 starts per cell (R + 1 with k = 1) instead of 2R, and every two groups stay balanced
 * against linear drift (A B B A). A group cut by `firstRun` or the end is measured in the same order.
 * With an alternation whose `startEachGroup` is set, the groups are not merged: every group of a side is
 * a block (a start) of its own, in the same order of runs (2⌈R / k⌉ blocks; 2R with k = 1).
 */
function alternatingBlocks(firstRun, runs, sides, runsPerBlock = 1) {
    const alternation = alternationOf(runsPerBlock);
    const k = Math.max(1, Math.floor(alternation.runsPerGroup));
    const end = firstRun + runs;
    const blocks = [];
    for (let group = Math.floor(firstRun / k); group * k < end; group++) {
        const from = Math.max(group * k, firstRun);
        const to = Math.min((group + 1) * k, end);
        for (const side of alternatingOrder(group, sides)) {
            const last = blocks.at(-1);
            const merge = !alternation.startEachGroup && last?.side === side && last.firstRun + last.runs === from;
            if (merge)
                last.runs += to - from;
            else
                blocks.push({ side, firstRun: from, runs: to - from });
        }
    }
    return blocks;
}

export { calibratedNoiseByFamily as $, searchSettingsOf as A, scrapeSeries as B, requestRecordSchema as C, requestLatencies as D, answerLatencies as E, depthBuckets as F, sortNumbers as G, percentileSorted as H, alternationWords as I, table as J, fold as K, Footnotes as L, detectionLine as M, checkMatrix as N, valuesOnBothSides as O, withinToleranceFold as P, acceptanceSection as Q, perCellDetails as R, tallyOf as S, metricVerdictLabel as T, powerAtChange as U, minimumDetectableChange as V, sessionEstimate as W, noisiestGatedFamily as X, startedServers as Y, serverStartsPerCell as Z, alternatingBlocks as _, lookSchedule as a, withConfigStartPrior as a0, repeatsBlockOf as a1, parseCalibrationFile as a2, defaultCompareSettings as a3, loadSides as a4, calibrationPriorOrigin as a5, calibrationPriors as a6, calibrationStartPriors as a7, calibrationRunPriors as a8, pooledStartPriors as a9, compareRecords as aa, calibrationAlternation as ab, formatDetectable as ac, cacheConfigFromMetrics as ad, parsePrometheusText as ae, classifyChunk as af, chunkCarriesAnswer as ag, answerTextOf as ah, chunkCarriesToolCalls as ai, ToolCallAssembler as aj, reasoningFieldOf as ak, chunkCarriesReasoning as al, chunkKindOf as am, requestRecordSchemaVersion as an, cellSchedule as ao, runExternalTask as ap, summarize as aq, computeRunMetrics as ar, summarizeServerMetrics as as, runFileSchemaVersion as at, scheduleCondition as au, computeSessionMetrics as av, summarizeConfig as b, calibrateFromRuns as c, describeCapacityCost as d, readRunFile as e, alternatingOrder as f, baselineStartGroups as g, baselineRunsPerStart as h, alternation as i, serverStartSeconds as j, defaultInputLimits as k, loadRuns as l, mebibyte as m, runFileSchema as n, runFileInvariantIssues as o, estimateCapacity as p, capacityInterval as q, renderSummary as r, settingsFromConfig as s, smallest as t, largest as u, loadCurveOf as v, capacityRunsOf as w, capacityObjectivesOf as x, intervalLevel as y, capacityMaxRuns as z };
