import { m as metricSpecs, d as describeMetric, e as guardMetrics, f as metricNames } from './metric-names.js';
import { M as appendAll, N as decisionInterval, O as pAbove, P as pBelow, Q as holmAdjust, R as graphAdjust, T as shareIncreaseP, U as logRatioTest, V as startOf, h as loadCurveOf, W as loadOfRecord, X as draftsForCell, Y as familyDrafts, Z as familyGroupKey, _ as speedMembers, $ as decide, a0 as countGated, a1 as overallVerdict, a2 as planNextLook, a3 as atToleranceChecks, a4 as futilityWarnings, a5 as settleEstimate, a6 as detectionSummary, a7 as impactOf, a8 as mixedResults, a9 as withFamilyHeadline, aa as headlineFor, ab as exitCodeFor, ac as futilityModel, ad as runMinutesOf, ae as capacityCells, af as capacityDrafts, ag as capacityMembers, ah as gpuMinutesSpent, ai as decideCapacity, aj as withCapacity, ak as mixedLoadWarnings, E as redactValue, al as defaultCostModel, am as minimumDetectableChange, an as twoLevelWelch } from './secrets.js';
import { t as toolVersion, a as toolName, I as InputError } from './version.js';
import { a as mulberry32 } from './random.js';
import { p as pooledRunVariances, b as conditionsHash } from './history.js';
import { s as serverLifecycle, o as configSchema } from './load.js';
import { H as percentile, l as lookSchedule, I as perLookLevel, J as passLevel, j as capacityMaxRuns, K as lookIndex, r as runsPerBlock, a as serverStartSeconds } from './session-metrics.js';
import { p as diffFingerprints, q as describeDifference, f as flattenFingerprint } from './format.js';
import { l as guardShareCount, n as normalCdf, m as binomialCdf, a as normalQuantile } from './server-start.js';
import { t as tuple, o as object, s as string, n as number, _ as _enum, a as array, b as boolean, r as record, d as unknown, u as union, l as literal } from './schemas.js';

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
 * The greedy-output check of each compared cell named in quality.greedy.cells whose runs kept outputs:
 * the candidate's first run against the baseline's first, beside the baseline's first two runs against
 * each other (the run-to-run floor, which real GPUs have without batch invariance). A regression when
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
        const noise = base.length > 1 ? compareOutputs(base[0].outputs, base[1].outputs, settings.first_tokens) : null;
        const floor = noise?.agreement;
        const a = main.agreement;
        const reasons = [];
        const pct = (x) => `${(x * 100).toFixed(1)}%`;
        const changedFloor = floor?.changedShare ?? 0;
        if (a.changedShare - changedFloor > settings.max_changed_share)
            reasons.push(`${pct(a.changedShare)} of ${a.prompts} outputs changed (baseline run to run: ${pct(changedFloor)}; quality.greedy.max_changed_share ${pct(settings.max_changed_share)})`);
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
            tokenSource: main.serverTokens ? "server" : "words",
            verdict: reasons.length > 0 ? "regression" : "within-tolerance",
            reasons,
            examples: main.examples.slice(0, settings.examples),
        });
    }
    return checks;
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
    const margin = (tolerance) => Math.log(1 + tolerance);
    const worseP = families.map((f) => pAbove(f.test, margin(f.tolerance)));
    const betterP = families.map((f) => pBelow(f.test, -margin(f.tolerance)));
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
    return runs.flatMap((run) => (run.guards === undefined ? [] : [run.guards]));
}
function guardDraft(cell, metric, base, cand, settings) {
    const source = metricSpecs[metric].source;
    const override = settings.metricTolerance[metric];
    if (source.kind === "guard-share") {
        const tolerance = override ?? settings.guards.share_points;
        const pool = (runs) => ({
            count: runs.reduce((sum, g) => sum + guardShareCount(g, source.field), 0),
            requests: runs.reduce((sum, g) => sum + g.requests, 0),
        });
        const b = pool(base);
        const c = pool(cand);
        const share = (side) => side.requests > 0 ? side.count / side.requests : null;
        const baseline = share(b);
        const candidate = share(c);
        const empty = baseline === null || candidate === null;
        const test = empty
            ? null
            : shareIncreaseP({ count: b.count, total: b.requests }, { count: c.count, total: c.requests });
        const beyond = !empty && candidate - baseline > tolerance;
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
            beyond,
            untested: empty ? "inconclusive" : null,
            note: empty ? "no measured requests on a side" : null,
        };
    }
    const tolerance = override ?? settings.guards.output_length_tolerance;
    const b = pooledLengths(base);
    const c = pooledLengths(cand);
    const counts = {
        baseline: { count: b.count, requests: base.reduce((sum, g) => sum + g.requests, 0) },
        candidate: { count: c.count, requests: cand.reduce((sum, g) => sum + g.requests, 0) },
    };
    const eosIgnored = [...base, ...cand].every((g) => g.ignoreEos === true);
    const ignoredNote = eosIgnored ? "ignore_eos: lengths are set by the workload, not by the model" : null;
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
    const shift = lengthShiftP(b, c, tolerance);
    // Without spread on either side there is no test: the observed ratio decides, outside the family.
    const noSpread = b.variance === 0 && c.variance === 0;
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
        note: noSpread
            ? [
                ignoredNote,
                "no spread in the lengths on either side: decided by the observed ratio, outside the gated family",
            ]
                .filter((n) => n !== null)
                .join("; ")
            : ignoredNote,
    };
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
    const upper = Math.log(1 + tolerance);
    const lower = tolerance < 1 ? Math.log(1 - tolerance) : Number.NEGATIVE_INFINITY;
    const beyond = logRatio > upper || logRatio < lower;
    const se = Math.sqrt(baseline.variance / (baseline.count * mb * mb) + candidate.variance / (candidate.count * mc * mc));
    if (!(se > 0))
        return { p: beyond ? 0 : 1, beyond };
    const pLonger = 1 - normalCdf((logRatio - upper) / se);
    const pShorter = lower === Number.NEGATIVE_INFINITY ? 1 : 1 - normalCdf((lower - logRatio) / se);
    return { p: Math.min(1, 2 * Math.min(pLonger, pShorter)), beyond };
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
function sideOf(runs) {
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
        const baseline = sideOf(base);
        const candidate = sideOf(cand);
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
function mean(values) {
    return values.reduce((s, v) => s + v, 0) / values.length;
}
function sampleVariance(values) {
    const m = mean(values);
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
        const means = screened.map(([, values]) => mean(values));
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
    const means = kept.map(([, values]) => mean(values));
    const inverseRuns = mean(kept.map(([, values]) => 1 / values.length));
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
        const historyT2 = mean(perCell.map((c) => c.t2));
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
/** One load of a side's curve: means over the side's usable runs at that load (compare/load-curve.ts). */
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
    /** Each side's load curve, drawn by report.html and the comment; absent in older verdicts. */
    curve: object({ baseline: array(capacityCurvePointSchema), candidate: array(capacityCurvePointSchema) })
        .optional(),
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
     * capacity, guard and task checks, compare/gated-family.ts), and the raw one; null without a test.
     */
    p: number().nullable(),
    pRaw: number().nullable(),
    /** Whether the test is one of the gated family's (false: no test, or it cannot reach the level; p is then the raw p). */
    inFamily: boolean().optional(),
    verdict: _enum(["regression", "within-tolerance", "inconclusive"]),
    note: string().nullable(),
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
    /** The baseline's first two runs against each other: the run-to-run floor; null with one baseline run. */
    baselineNoise: outputAgreementSchema.nullable(),
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
     * Holm-adjusted over the comparison's gated family (compare/gated-family.ts).
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
 * The load curves of sweeps compared without a capacity config (docs/capacity.md, docs/compare.md): a
 * cell whose runs ran at two or more loads (a `sweep` cell, `run --sweep`, several `vllm bench serve`
 * files of one label at different rates) is still judged as one fixed-load cell (with the mixed-load
 * warning), and verdict.json's `sweeps` carries both sides' curves so report.html and the comment can
 * draw them: offered load against completed requests/s, goodput, TTFT and E2E p95 and output tok/s, with
 * the cell's SLO lines when the config states them, and no capacity point (no capacity was searched).
 */
/** The percentile a sweep's latencies are drawn at (a sweep has no capacity percentile of its own). */
const sweepPercentile = "p95";
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
/**
 * The two levels of noise under a tested check (docs/compare.md, "Server starts"): the server starts each
 * side's runs were measured on, the start-to-start sd used and where it came from, each side's
 * run-to-run sd within a start, and the share of the difference's variance that the start level makes.
 */
const noiseLevelsSchema = object({
    starts: object({ baseline: number().int(), candidate: number().int() }),
    /** sd of ln(metric) between server starts used in the test (0 when every run was its own start). */
    startSd: number(),
    /** Degrees of freedom of that start variance (measured starts plus the prior's weight). */
    startDf: number(),
    /**
     * Where the start sd came from: "fresh" (every run its own start: in the runs' own spread), "prior"
     * (too few starts: the prior alone), "measured" (the starts alone), "measured+prior" (pooled).
     */
    startBasis: _enum(["fresh", "prior", "measured", "measured+prior", "none"]),
    /** What the prior was (gate.noise_prior, a calibration, main's history), when one was used. */
    priorSource: string().nullable(),
    /** The starts varied significantly more than the prior said (one-sided F at 10%): the prior was set aside. */
    priorContradicted: boolean().optional(),
    runSd: object({ baseline: number(), candidate: number() }),
    /** Share of the variance of the difference due to the start level. */
    startShare: number(),
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
    /** GPU-minutes the added runs cost (src/compare/cost.ts: 3 min per server start, run length per cell-run). */
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
         * The gated family Holm ran over at this look (compare/gated-family.ts, docs/compare.md "The gated
         * family"): its regression tests per kind of check, and the tests left out because they cannot reach
         * the level (Tarone); its improvement tests (speed and capacity checks). Absent in older files.
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
    /** Capacity at the SLO per capacity cell (compare/capacity.ts, docs/capacity.md). */
    capacity: array(capacityComparisonSchema).optional(),
    /**
     * Load curves of both sides per cell whose runs ran at several loads and that has no capacity config
     * (compare/sweep-curves.ts): drawn by report.html and the comment; the cell is still judged at a fixed load.
     */
    sweeps: array(sweepCurveSchema).optional(),
    /**
     * Speculative decoding per cell whose server speculates (compare/spec-decode-schema.ts): each side's
     * acceptance, and TPOT's and output throughput's change taken apart into the acceptance length and the
     * engine step. Absent when no run had the counters, and in files written before it.
     */
    specDecode: array(specDecodeCellSchema).optional(),
});

const defaultGuardSettings = {
    enabled: true,
    share_points: 0.02,
    output_length_tolerance: 0.1,
};
function levelsOf$1(input) {
    const familyAlpha = 1 - input.gate.confidence;
    const looks = lookSchedule(input.repeats.min, input.repeats.max);
    // The stage of the PR: the most candidate runs measured in any cell (screened runs included).
    const stage = Math.max(0, ...[...groupByCell(input.candidate).values()].map((runs) => runs.length));
    const alpha = perLookLevel(familyAlpha, looks, stage, input.mode);
    return { familyAlpha, looks, alpha, passAlpha: passLevel(familyAlpha) };
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
 * The start-to-start variance believed for a check before its runs: a measured one for this runner (a
 * calibration, main's history) where there is one, else gate.noise_prior's for the metric's family,
 * weighted gate.noise_prior.weight_starts degrees of freedom.
 */
function startPriorOf(input) {
    const prior = input.gate.noise_prior;
    return (cell, metric) => {
        const measured = input.startVariancePriors?.get(`${cell}\u0000${metric}`);
        if (measured)
            return measured;
        const family = metricSpecs[metric].noise;
        const sd = prior[family].start_sd;
        return { variance: sd * sd, df: prior.weight_starts, source: `gate.noise_prior.${family}` };
    };
}
/** `analyze`, and the gated family's adjustment of `input.familyExtras` (in their order). */
function analyzeWithFamily(input) {
    const { gate, mode } = input;
    const levels = levelsOf$1(input);
    const { alpha, passAlpha, looks } = levels;
    const drift = sessionDriftOf(input);
    const warnings = [];
    warnings.push(...startWarnings(input.baseline, input.candidate));
    const runs = selectUsableRuns(input.baseline, input.candidate, gate, warnings);
    const pairing = pairCells(runs, mode);
    const { cells, unfixableCells } = pairing;
    const draftSettings = {
        gate,
        gatedSet: new Set(gate.metrics),
        advisoryCells: outputCells(input.baseline, input.candidate),
        passAlpha,
        driftVarianceFor: drift.varianceFor,
        ...(mode === "stored" && input.baselineVariancePriors
            ? {
                baselineVariancePriorFor: (cell, metric) => input.baselineVariancePriors?.get(`${cell}\u0000${metric}`),
            }
            : {}),
        ...(mode === "interleaved" ? { startPriorFor: startPriorOf(input) } : {}),
    };
    const drafts = pairing.compared.flatMap((cell) => draftsForCell(cell, draftSettings, warnings));
    const rates = {
        ...(input.runMinutes === undefined ? {} : { runMinutes: input.runMinutes }),
        ...(input.repeats.block === undefined ? {} : { runsPerBlock: input.repeats.block }),
        ...(input.cost === undefined
            ? {}
            : { startMinutes: input.cost.serverStartS / 60, lifecycle: input.cost.lifecycle }),
    };
    // The quality checks read what the outputs were: a run excluded from the speed checks (client-bound,
    // an outlier) still answered its prompts, so every run of a cell present on both sides counts.
    const qualityCells = qualityCellsOf(input.baseline, input.candidate);
    const guardDraftList = guardDrafts(qualityCells, { guards: input.quality?.guards ?? defaultGuardSettings, metricTolerance: gate.metric_tolerance }, warnings);
    const taskDraftList = taskDrafts(qualityCells, {
        tasks: input.quality?.tasks ?? { tolerance_points: 0.02 },
        confidence: gate.confidence,
    });
    // The gated family, one per comparison: the speed checks' tests against the tolerance, the capacity
    // checks', the guards' and the task checks', and the family tests of each gated metric across the
    // cells of a workload family, adjusted together at the look's α (compare/gated-family.ts).
    const speedDrafts = familyDrafts(drafts);
    const extras = input.familyExtras ?? [];
    const familyOf = (cell) => input.cellFamilies?.[cell] ?? cellFamily({ name: cell });
    const groups = new Map();
    for (const d of speedDrafts) {
        const group = { family: familyOf(d.cell), metric: d.metric };
        groups.set(familyGroupKey(group), group);
    }
    const family = adjustGatedFamily([
        ...speedMembers(speedDrafts, familyOf),
        ...extras,
        ...guardMembers(guardDraftList ?? []),
        ...taskMembers(taskDraftList ?? []),
    ], alpha, gate.family_weight);
    const at = (offset, count) => family.members.slice(offset, offset + count);
    const speedAdjusted = at(0, speedDrafts.length);
    const extrasAdjusted = at(speedDrafts.length, extras.length);
    const guardOffset = speedDrafts.length + extras.length;
    const guardAdjusted = at(guardOffset, guardDraftList?.length ?? 0);
    const taskAdjusted = at(guardOffset + (guardDraftList?.length ?? 0), taskDraftList?.length ?? 0);
    // The strictest level a check of the family starts at, as a count of tests (Holm's first step is α/m;
    // a grouped check's (1 − family_weight)·α/m): for the detectable change and the futility checks.
    const gatedCount = Math.max(1, 1 / family.summary.strictestShare);
    const comparisons = decide(drafts, alpha, passAlpha, gatedCount, new Map(speedDrafts.map((d, i) => [
        d,
        { beyond: speedAdjusted[i].regression, betterBeyond: speedAdjusted[i].improvement },
    ])));
    const { differences, notComparable } = checkComparability(pairing.fingerprintPairs, gate, warnings);
    const counts = countGated(comparisons);
    const families = decideFamilies(family.familyTests, (key) => groups.get(key), (index) => speedDrafts[index].cell, comparisons, alpha, passAlpha);
    const familyRegressions = families.filter((f) => f.verdict === "regression");
    const brokenCells = cells.filter((cell) => cell.status === "missing-baseline" || cell.status === "missing-candidate");
    const guards = guardDraftList === null ? null : decideGuards(guardDraftList, guardAdjusted, alpha);
    const greedy = greedyChecks(qualityCells, input.quality?.greedy, warnings);
    const tasks = taskDraftList === null ? null : decideTasks(taskDraftList, taskAdjusted, alpha);
    const guardRegressions = (guards?.filter((check) => check.verdict === "regression").length ?? 0) +
        (greedy?.filter((check) => check.verdict === "regression").length ?? 0) +
        (tasks?.filter((check) => check.verdict === "regression").length ?? 0);
    // The greedy and task checks are the compared checks of quality cells (whose speed checks are advisory).
    const qualityChecks = (greedy?.length ?? 0) + (tasks?.length ?? 0);
    const speedVerdict = overallVerdict(
    // So a config of quality cells alone is no empty comparison.
    { ...counts, gated: counts.gated + qualityChecks }, brokenCells.length, pairing.allCells.length, notComparable.length, gate.on_not_comparable);
    // A family regression (docs/compare.md, "Family tests") and a guard regression (docs/quality.md) are
    // regressions whatever the single checks found.
    const speedAndFamilies = familyRegressions.length > 0 && speedVerdict !== "not-comparable" ? "regression" : speedVerdict;
    const verdict = guardRegressions > 0 && speedAndFamilies !== "not-comparable" ? "regression" : speedAndFamilies;
    const maxRuns = input.repeats.max;
    const runsPerStart = mode === "interleaved" ? (input.repeats.block ?? 1) : maxRuns;
    const { draftOf, futilityInput, resolvable } = futilityModel(drafts, unfixableCells, { alpha, passAlpha, gatedCount }, mode, maxRuns, runsPerStart);
    const nextLook = planNextLook({
        verdict,
        cells,
        comparisons,
        looks,
        mode,
        maxRuns,
        resolvable,
        unfixableCells,
        measuredRuns: pairing.measuredRuns,
        rates,
    });
    const atTolerance = verdict === "inconclusive" ? atToleranceChecks(comparisons, resolvable, draftOf) : [];
    if ((verdict === "inconclusive" || verdict === "error") && nextLook === null) {
        warnings.push(...futilityWarnings(comparisons, cells, maxRuns, resolvable, draftOf, unfixableCells));
    }
    const settle = verdict === "inconclusive"
        ? settleEstimate(comparisons, draftOf, futilityInput, resolvable, mode, maxRuns, rates, looks)
        : null;
    const detection = detectionSummary(comparisons, draftOf, gate.detect_change, alpha / Math.max(1, gatedCount), mode, maxRuns, runsPerStart);
    const specDecode = explainSpecDecode(pairing.compared, {
        gatedMetrics: gate.metrics,
        passAlpha,
        minRunSd: gate.min_run_sd,
        driftVarianceFor: drift.varianceFor,
        ...(draftSettings.startPriorFor ? { startPriorFor: draftSettings.startPriorFor } : {}),
    });
    const firstFingerprint = (side) => flattenFingerprint(runs.sides[side][0]?.fingerprint ?? {});
    const verdictFile = {
        schemaVersion: verdictSchemaVersion,
        tool: input.tool,
        generatedAt: input.now,
        verdict,
        exitCode: exitCodeFor(verdict, gate.fail_on),
        headline: withGuardHeadline(withFamilyHeadline(headlineFor(speedVerdict, counts, comparisons, brokenCells.length, notComparable.length), speedVerdict, familyRegressions, counts), verdict, speedAndFamilies, guardRegressions, counts.improvement),
        counts,
        mode,
        baselineInfo: input.baselineInfo ?? null,
        settings: settingsOf(gate, levels, drift),
        cells,
        comparisons,
        mixed: mixedResults(comparisons, alpha),
        impact: impactOf(cells, comparisons),
        fingerprints: {
            baseline: firstFingerprint("baseline"),
            candidate: firstFingerprint("candidate"),
            differences,
        },
        runs: { used: runs.used, excluded: runs.excluded },
        nextLook,
        settle,
        ...(atTolerance.length > 0 ? { atTolerance } : {}),
        detection,
        warnings,
        families,
        ...(guards !== null || greedy !== null || tasks !== null
            ? {
                quality: {
                    guards: guards ?? [],
                    ...(greedy !== null ? { greedy } : {}),
                    ...(tasks !== null ? { tasks } : {}),
                },
            }
            : {}),
        ...(specDecode.length > 0 ? { specDecode } : {}),
    };
    verdictFile.settings.gatedFamily = {
        regression: family.summary.regression,
        improvement: family.summary.improvement,
        familyTests: family.summary.familyTests,
    };
    return { verdict: verdictFile, extras: extrasAdjusted };
}
/**
 * Runs whose files did not say which server start measured them: they were taken as one start per side
 * and input (compare/load.ts), the conservative reading, and the report says so.
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

function defaultCompareSettings() {
    return {
        gate: configSchema.shape.gate.parse(undefined),
        // Without a config nothing says how future runs fall into server starts: one start each.
        repeats: { ...configSchema.shape.repeats.parse(undefined), block: 1 },
    };
}
function settingsFromConfig(config) {
    const minutes = config.cells.map((cell) => runMinutesOf(cell.size));
    const runMinutes = minutes.reduce((sum, m) => sum + m, 0) / Math.max(1, minutes.length);
    return {
        gate: config.gate,
        repeats: { ...config.repeats, block: runsPerBlock(config) },
        quality: config.quality,
        runMinutes,
        cost: {
            serverStartS: serverStartSeconds(config),
            lifecycle: serverLifecycle(config),
            runsPerBlock: runsPerBlock(config),
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
        now: (input.now ?? new Date()).toISOString(),
        tool: { name: toolName, version: toolVersion },
        familyExtras: capacityMembers(capacity),
        ...(settings.cellFamilies === undefined ? {} : { cellFamilies: settings.cellFamilies }),
    });
    let decided = analyzed.verdict;
    decided.gpuMinutes = gpuMinutesSpent(decided.mode, { baseline: input.baseline, candidate: input.candidate }, decided.settings.looks, settings.cost ?? { ...defaultCostModel, runsPerBlock: settings.repeats.block ?? 1 });
    if (capacityStage) {
        const cells = capacityStage.cells;
        const looks = capacityLooks(settings.repeats.max, cells);
        const alpha = capacityLookLevel(1 - settings.gate.confidence, looks, cells, input.candidate, decided.mode);
        const checks = decideCapacity({ ...capacityStage, alpha }, capacity, analyzed.extras);
        decided = withCapacity(decided, checks, settings.gate.fail_on);
        // An undecided capacity verdict asks for its next look once the fixed-load cells ask for none.
        if (decided.verdict === "inconclusive" && decided.nextLook === null)
            decided.nextLook = capacityNextLook({
                checks,
                looks,
                baseline: input.baseline,
                candidate: input.candidate,
                mode: decided.mode,
            });
    }
    const sweeps = sweepCurves(fixedLoad(input.baseline), fixedLoad(input.candidate), settings.sweepCells);
    if (sweeps.length > 0)
        decided.sweeps = sweeps;
    const mixedLoads = mixedLoadWarnings([...fixedLoad(input.baseline), ...fixedLoad(input.candidate)]);
    if (mixedLoads.length > 0)
        decided.warnings = [...decided.warnings, ...mixedLoads];
    if (input.inputNotes && input.inputNotes.length > 0)
        decided.warnings = [...input.inputNotes, ...decided.warnings];
    // Redacted before any rendering: the renderer escapes, and an escaped secret no longer matches its value.
    const verdict = input.redactor ? redactValue(decided, input.redactor) : decided;
    return {
        verdict,
        exitCode: verdict.exitCode,
        runs: { baseline: input.baseline, candidate: input.candidate },
        redact: input.redactor ? (text) => input.redactor.redact(text) : (text) => text,
    };
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
    })
        .optional(),
});
const calibrationFileSchema = object({
    schemaVersion: literal(calibrationSchemaVersion),
    kind: literal("vllm-perf-gate-calibration"),
    createdAt: string(),
    /** The measuring conditions' hash (compare/history.ts conditionsHash): a prior applies only under them. */
    conditions: string().nullable(),
    runsPerSide: number().int().min(2),
    /** The gate's settings the A/A splits were judged with. */
    gate: object({ alpha: number(), tolerance: number(), failOn: string() }),
    cells: array(object({ cell: string(), metrics: array(calibrationMetricSchema) })),
    /** Over every split: how often the gate's overall verdict was a block (regression). */
    overall: object({
        aaSplits: number().int().nonnegative(),
        blocked: number().int().nonnegative(),
        falseBlockRate: number().min(0).max(1).nullable(),
    }),
});
const healthy = (run) => run.exclusionReasons.length === 0;
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
    const splits = [{ a, b }];
    const random = mulberry32(input.seed ?? 20);
    for (let i = 0; i < (input.resplits ?? 19); i++)
        splits.push(resplit([...a, ...b], random));
    const blocks = new Map();
    const judged = new Map();
    let overallBlocked = 0;
    // The gate's family level and tolerance as its analysis applied them (set by the first split).
    let gateAlpha = 0;
    let tolerance = 0;
    const detectable = new Map();
    const gated = new Map();
    splits.forEach((split, index) => {
        const { verdict } = compareRecords({
            baseline: split.a,
            candidate: split.b,
            settings: input.settings,
            mode: "interleaved",
            ...(input.now ? { now: input.now } : {}),
        });
        gateAlpha = verdict.settings.familyAlpha;
        tolerance = verdict.settings.tolerance;
        if (verdict.verdict === "regression")
            overallBlocked++;
        for (const c of verdict.comparisons) {
            const key = `${c.cell}\u0000${c.metric}`;
            if (index === 0) {
                gated.set(key, c.gated);
                detectable.set(key, c.detectableChange);
            }
            if (!c.gated)
                continue;
            judged.set(key, (judged.get(key) ?? 0) + 1);
            if (c.verdict === "regression")
                blocks.set(key, (blocks.get(key) ?? 0) + 1);
        }
    });
    const variances = pooledRunVariances([...a, ...b]);
    const sessions = (cell, metric) => {
        const groups = new Map();
        for (const run of [...(input.history ?? []), ...a, ...b]) {
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
    };
    const out = cells.map((cell) => ({
        cell,
        metrics: metricNames.flatMap((metric) => {
            const key = `${cell}\u0000${metric}`;
            const pooled = variances.get(key);
            if (!pooled || !gated.has(key))
                return [];
            const drift = input.history && input.history.length > 0 ? cellSessionDrift(sessions(cell, metric)) : null;
            const splitsJudged = judged.get(key) ?? 0;
            const blocked = blocks.get(key) ?? 0;
            return [
                {
                    metric,
                    gated: gated.get(key),
                    runSpread: Math.sqrt(pooled.variance),
                    variance: pooled.variance,
                    df: pooled.df,
                    drift: drift && drift.sessions >= 2 ? { sd: Math.sqrt(drift.t2), sessions: drift.sessions } : null,
                    detectableChange: detectable.get(key) ??
                        (gated.get(key)
                            ? minimumDetectableChange({
                                baselineVariance: pooled.variance,
                                candidateVariance: pooled.variance,
                                baselineRuns: runsPerSide,
                                candidateRuns: runsPerSide,
                                extraVariance: 0,
                                tolerance,
                                alpha: gateAlpha,
                                df: pooled.df,
                            })
                            : null),
                    aaSplits: splitsJudged,
                    aaBlocks: blocked,
                    falseBlockRate: splitsJudged > 0 ? blocked / splitsJudged : null,
                    ...levelsOf(a, b, cell, metric),
                },
            ];
        }),
    }));
    const first = [...a, ...b][0];
    return calibrationFileSchema.parse({
        schemaVersion: calibrationSchemaVersion,
        kind: "vllm-perf-gate-calibration",
        createdAt: (input.now ?? new Date()).toISOString(),
        conditions: first ? conditionsHash(first.fingerprint) : null,
        runsPerSide,
        gate: { alpha: gateAlpha, tolerance, failOn: String(input.settings.gate.fail_on) },
        cells: out,
        overall: {
            aaSplits: splits.length,
            blocked: overallBlocked,
            falseBlockRate: overallBlocked / splits.length,
        },
    });
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
    return {
        levels: {
            starts,
            // Runs on their own starts hold both levels in one spread: the start level cannot be told apart.
            startVariance: fresh ? null : (result.measuredStartVariance?.variance ?? null),
            startDf: fresh ? 0 : (result.measuredStartVariance?.df ?? 0),
            runVariance,
            runDf: pooledRunDf,
        },
    };
}
/**
 * The calibration's start-to-start variances as compare's start priors (interleaved mode), per cell and
 * metric, where it measured them (two starts or more on a side).
 */
function calibrationStartPriors(file, source) {
    const priors = new Map();
    for (const cell of file.cells)
        for (const m of cell.metrics) {
            const levels = m.levels;
            if (!levels || levels.startVariance === null || levels.startDf <= 0)
                continue;
            priors.set(`${cell.cell}\u0000${m.metric}`, {
                variance: levels.startVariance,
                df: levels.startDf,
                source: `calibration ${source} (${levels.starts} starts, ${file.createdAt.slice(0, 10)})`,
            });
        }
    return priors;
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
 * The calibration as the gate's noise prior per cell and metric (the key of compare's
 * baselineVariancePriors), pooled with priors already known (main's history) by degrees of freedom.
 */
function calibrationPriors(file, others) {
    const priors = new Map(others ?? []);
    for (const cell of file.cells)
        for (const m of cell.metrics) {
            const key = `${cell.cell}\u0000${m.metric}`;
            const known = priors.get(key);
            const df = m.df + (known?.df ?? 0);
            priors.set(key, {
                variance: (m.variance * m.df + (known ? known.variance * known.df : 0)) / df,
                df,
            });
        }
    return priors;
}

export { calibrationPriors as a, calibrationStartPriors as b, calibrateFromRuns as c, defaultCompareSettings as d, compareRecords as e, parseCalibrationFile as p, settingsFromConfig as s };
