import { m as metricSpecs } from './metric-names.js';
import { f as flattenFingerprint } from './format.js';
import { r as record, s as string, o as object, n as number, a as array } from './schemas.js';

/** The per-run values behind one side of a comparison: runs the verdict used, in this cell. */
function usedRunValues(verdict, runs, comparison, side) {
    if (!runs)
        return [];
    const used = new Set(verdict.runs.used
        .filter((ref) => ref.side === side && ref.cell === comparison.cell)
        .map((ref) => ref.source));
    return runs[side]
        .filter((run) => used.has(run.source))
        .map((run) => run.metrics[comparison.metric])
        .filter((value) => typeof value === "number" && Number.isFinite(value));
}
/** The model of one run, from its recorded conditions (as modelOf reads a side's). */
function runModelOf(run) {
    const fingerprint = flattenFingerprint(run.fingerprint);
    const name = fingerprint["model.name"] ?? fingerprint.model_id;
    return typeof name === "string" && name.length > 0 ? name : "unknown";
}
/** A run's metrics that have a finite value, in the order metricSpecs lists them. */
function finiteRunMetrics(run) {
    return Object.keys(metricSpecs).flatMap((metric) => {
        const value = run.metrics[metric];
        return typeof value === "number" && Number.isFinite(value)
            ? [[metric, value]]
            : [];
    });
}
/** The model of one side, from its recorded conditions (run.json's `model.name`, vLLM's `model_id`). */
function modelOf(verdict, side) {
    const fingerprint = verdict.fingerprints[side];
    const name = fingerprint["model.name"] ?? fingerprint.model_id;
    return typeof name === "string" && name.length > 0 ? name : "unknown";
}

/**
 * A comparison's candidate as Bencher Metric Format JSON (bencher.dev docs, reference/bencher-metric-format):
 * `{benchmark: {measure: {value, lower_value?, upper_value?}}}`. One benchmark per cell
 * (`vllm-perf-gate/<cell>`), one measure per metric (its name in kebab case with the unit, e.g.
 * `ttft-p95-ms`, at most 64 characters as Bencher's measure slugs). `value` is the candidate's geometric
 * mean over runs; `lower_value`/`upper_value` are the baseline times the ends of the decision interval
 * (the range of candidate values the interval allows), when there is one. Upload with
 * `bencher run --adapter json --file bencher.json`.
 */
const bencherMetricSchema = object({
    value: number().finite(),
    lower_value: number().finite().optional(),
    upper_value: number().finite().optional(),
})
    .strict();
const bencherReportSchema = record(string().min(1).max(1024), record(string().min(1).max(64), bencherMetricSchema));
/** Each unit's slug in a measure name; typed by the catalogue's units, so a new unit must name its slug. */
const unitSlug = {
    ms: "ms",
    "req/s": "req-s",
    "sessions/s": "sessions-s",
    "tok/s": "tok-s",
    fraction: "fraction",
    tokens: "tokens",
};
function bencherMeasure(metric) {
    return `${metric.replace(/_/g, "-")}-${unitSlug[metricSpecs[metric].unit]}`;
}
function bencherBenchmark(cell) {
    return `vllm-perf-gate/${cell}`;
}
/**
 * One run (`run --format bencher`) as Bencher Metric Format: the cell's benchmark with one measure per
 * metric, `value` the run's own value (no bounds: one run has no interval).
 */
function runToBencherReport(run) {
    const measures = {};
    for (const [metric, value] of finiteRunMetrics(run))
        measures[bencherMeasure(metric)] = { value };
    return bencherReportSchema.parse({ [bencherBenchmark(run.cell)]: measures });
}
function toBencherReport(verdict) {
    const report = {};
    for (const c of verdict.comparisons) {
        if (c.candidate === null || !Number.isFinite(c.candidate))
            continue;
        const metric = { value: c.candidate };
        if (c.ci && c.baseline !== null) {
            const [low, high] = [c.baseline * c.ci[0], c.baseline * c.ci[1]];
            if (Number.isFinite(low) && Number.isFinite(high)) {
                metric.lower_value = Math.min(low, high);
                metric.upper_value = Math.max(low, high);
            }
        }
        const benchmark = bencherBenchmark(c.cell);
        report[benchmark] = { ...report[benchmark], [bencherMeasure(c.metric)]: metric };
    }
    return bencherReportSchema.parse(report);
}
const bencherExport = {
    fileName: "bencher.json",
    ofComparison: (verdict) => toBencherReport(verdict),
    ofRun: (run) => runToBencherReport(run),
};

/**
 * A comparison as PyTorch OSS benchmark records (the "v3" shape), the format vLLM writes with
 * SAVE_TO_PYTORCH_BENCHMARK_FORMAT and the PyTorch HUD reads from the ClickHouse table
 * `oss_ci_benchmark_v3` (pytorch/test-infra clickhouse_db_schema/oss_ci_benchmark_v3/schema.sql). One
 * record per cell, metric and side: `metric.benchmark_values` holds the value of every run the verdict
 * used on that side (the schema's list "for multiple runs"), `extra_info` maps hold strings only (the
 * table's Map(String, String)). Job metadata (timestamp, repo, head_sha, workflow_id, ...) is added by
 * the uploader, as for vLLM's records, and is not written here.
 */
const stringMap = record(string(), string());
const pytorchRecordSchema = object({
    benchmark: object({ name: string(), mode: string(), dtype: string(), extra_info: stringMap })
        .strict(),
    model: object({
        name: string(),
        type: string(),
        backend: string(),
        origins: array(string()),
        extra_info: stringMap,
    })
        .strict(),
    metric: object({
        name: string(),
        benchmark_values: array(number().finite()).min(1),
        target_value: number().finite(),
        extra_info: stringMap,
    })
        .strict(),
})
    .strict();
const pytorchBenchmarkName = "vllm-perf-gate";
function text(value) {
    return value === null || value === undefined ? "" : String(value);
}
/** One record: the parts every record shares (benchmark name, mode, backend) and what differs. */
function pytorchRecord(parts) {
    return pytorchRecordSchema.parse({
        benchmark: { name: pytorchBenchmarkName, mode: "inference", dtype: "", extra_info: parts.benchmarkInfo },
        model: { name: parts.model, type: "", backend: "vllm", origins: [], extra_info: parts.modelInfo },
        metric: {
            name: parts.metric,
            benchmark_values: parts.values,
            target_value: 0,
            extra_info: parts.metricInfo,
        },
    });
}
/**
 * One run (`run --format pytorch`) as PyTorch OSS benchmark records: one record per metric with the
 * run's value as its one `benchmark_values` entry; `extra_info` names the cell, the run and its side.
 */
function runToPytorchRecords(run, info) {
    const revision = flattenFingerprint(run.fingerprint)["model.revision"];
    return finiteRunMetrics(run).map(([metric, value]) => pytorchRecord({
        benchmarkInfo: {
            cell: run.cell,
            run: text(run.run),
            ...(info.side ? { side: info.side } : {}),
            started_at: run.startedAt ?? "",
            tool_version: info.toolVersion,
        },
        model: runModelOf(run),
        modelInfo: typeof revision === "string" ? { revision } : {},
        metric,
        values: [value],
        metricInfo: {
            unit: metricSpecs[metric].unit,
            higher_is_better: String(metricSpecs[metric].higherIsBetter),
            requests_completed: String(run.requests.completed),
            requests_failed: String(run.requests.failed),
        },
    }));
}
function toPytorchRecords(verdict, runs) {
    const records = [];
    for (const c of verdict.comparisons) {
        for (const side of ["baseline", "candidate"]) {
            const mean = c[side];
            if (mean === null || !Number.isFinite(mean))
                continue;
            const perRun = usedRunValues(verdict, runs, c, side);
            const revision = verdict.fingerprints[side]["model.revision"];
            records.push(pytorchRecord({
                benchmarkInfo: {
                    cell: c.cell,
                    side,
                    comparison_mode: verdict.mode,
                    overall_verdict: verdict.verdict,
                    tool_version: verdict.tool.version,
                },
                model: modelOf(verdict, side),
                modelInfo: typeof revision === "string" ? { revision } : {},
                metric: c.metric,
                // Without the runs (a verdict read back), the side's geometric mean stands for them.
                values: perRun.length > 0 ? perRun : [mean],
                metricInfo: {
                    unit: metricSpecs[c.metric].unit,
                    higher_is_better: String(c.higherIsBetter),
                    geometric_mean: String(mean),
                    runs: String(c.runs[side]),
                    gated: String(c.gated),
                    ...(side === "candidate"
                        ? {
                            verdict: c.verdict,
                            change_ratio: text(c.ratio),
                            decision_interval_low: text(c.ci?.[0]),
                            decision_interval_high: text(c.ci?.[1]),
                            tolerance: String(c.tolerance),
                        }
                        : {}),
                },
            }));
        }
    }
    return records;
}
const pytorchExport = {
    fileName: "pytorch-benchmark.json",
    ofComparison: toPytorchRecords,
    ofRun: runToPytorchRecords,
};

/**
 * The dashboard export formats, one module each, registered here once: compare's and run's `--format`
 * accept these names, and each writes its module's file. A new format is its module (an `ExportFormat`)
 * and its line here.
 */
const exportFormats = {
    pytorch: pytorchExport,
    bencher: bencherExport,
};
/** Every export format's name, in the order of the registry. */
const exportFormatNames = Object.keys(exportFormats);
function isExportFormat(name) {
    return Object.hasOwn(exportFormats, name);
}

export { exportFormats as a, exportFormatNames as e, isExportFormat as i };
