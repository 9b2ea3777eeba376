import { lstat, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { f as historyInputDefaults } from './history-inputs.js';
import { e as defaultHistoryLimits, f as parseHistory, s as seriesOf, d as detectChangePoints } from './history.js';
import { i as isMetricName, d as describeMetric, m as metricSpecs } from './metric-names.js';
import { e as formatMetricValue } from './format.js';
import { b as renderSeriesTable } from './history2.js';
import { U as UsageError, I as InputError } from './version.js';
import { p as parseCommandArgs, s as stringOption } from './command.js';
import 'node:crypto';
import 'fs';
import 'os';
import 'http';
import 'https';
import 'net';
import 'tls';
import 'events';
import 'assert';
import 'util';
import 'node:assert';
import 'node:net';
import 'node:http';
import 'node:stream';
import 'node:buffer';
import 'node:util';
import 'node:querystring';
import 'node:events';
import 'node:diagnostics_channel';
import 'node:tls';
import 'node:zlib';
import 'node:perf_hooks';
import 'node:util/types';
import 'node:worker_threads';
import 'node:url';
import 'node:async_hooks';
import 'node:console';
import 'node:dns';
import 'string_decoder';
import './random.js';
import './distributions.js';
import './schemas.js';
import 'node:child_process';
import 'node:fs';

const usage = `Usage: vllm-perf-gate history FILE [--cell NAME] [--metric NAME] [--window N] [--format table|json|csv]

Prints one cell/metric series of main's history (a JSON Lines history file, e.g. from
\`git show perf-history:vllm-perf-gate/history.jsonl > history.jsonl\`), oldest session first, with the change
points the action's test finds over the last --window sessions marked (docs/history.md).

  --cell NAME     the cell (required when the history has more than one)
  --metric NAME   the metric (default ttft_p95)
  --window N      sessions the change-point test looks at (default 60, as the action, 8-200)
  --format F      table (default), json (the series and its change points), csv (one line per run)

The file is read as untrusted input: its size (limit maxHistoryBytes), every line's schema; a bad file
is refused naming the line and field (exit 2).
`;
const historyCommand = {
    name: "history",
    usage,
    async run(argv, io) {
        const args = parseCommandArgs(argv, {
            cell: { type: "string" },
            metric: { type: "string" },
            window: { type: "string" },
            format: { type: "string" },
        }, { allowPositionals: true });
        if (args.help) {
            io.stdout.write(usage);
            return 0;
        }
        const [file, ...extra] = args.positionals;
        if (!file || extra.length > 0)
            throw new UsageError("expected one history file");
        const metricText = stringOption(args, "metric") ?? "ttft_p95";
        if (!isMetricName(metricText))
            throw new UsageError(`--metric: unknown metric "${metricText}"`);
        const metric = metricText;
        const windowText = stringOption(args, "window") ?? String(historyInputDefaults.window);
        if (!/^\d+$/.test(windowText) || Number(windowText) < 8 || Number(windowText) > 200)
            throw new UsageError(`--window: expected a whole number from 8 to 200, got "${windowText}"`);
        const format = stringOption(args, "format") ?? "table";
        if (!["table", "json", "csv"].includes(format))
            throw new UsageError(`--format: expected table, json or csv, got "${format}"`);
        const path = resolve(io.cwd, file);
        const stat = await lstat(path).catch(() => null);
        if (!stat?.isFile())
            throw new InputError(`history ${file}: not a file`);
        if (stat.size > defaultHistoryLimits.maxBytes)
            throw new InputError(`history ${file}: ${stat.size} bytes, more than the ${defaultHistoryLimits.maxBytes} allowed (limit maxHistoryBytes)`);
        const records = parseHistory(await readFile(path, "utf8"), file);
        const cells = [...new Set(records.map((r) => r.cell))].sort();
        const cell = stringOption(args, "cell") ?? (cells.length === 1 ? cells[0] : undefined);
        if (!cell)
            throw new UsageError(`--cell: the history has ${cells.length} cells (${cells.join(", ") || "none"})`);
        if (!cells.includes(cell))
            throw new InputError(`history ${file}: no cell "${cell}" (it has ${cells.join(", ")})`);
        const byId = new Map(records.filter((r) => r.cell === cell && r.metric === metric).map((r) => [r.session.id, r]));
        const points = seriesOf(records, cell, metric);
        const window = Number(windowText);
        const start = Math.max(0, points.length - window);
        const means = points.map((p) => p.logs.reduce((s, v) => s + v, 0) / p.logs.length);
        const steps = detectChangePoints(means.slice(start)).map((cp) => ({
            firstAfter: points[start + cp.index].session.id,
            lastBefore: points[start + cp.index - 1].session.id,
            ratio: cp.ratio,
            ratioLow: cp.ratioLow,
            ratioHigh: cp.ratioHigh,
            worse: metricHigherIsBetter(metric) ? cp.ratio < 1 : cp.ratio > 1,
        }));
        const rows = [...byId.values()].map((record) => {
            const point = points.find((p) => p.session.id === record.session.id);
            return {
                session: record.session.id,
                commit: record.session.commit,
                recordedAt: record.session.recordedAt,
                values: record.values,
                excluded: record.health.excluded,
                mean: point ? Math.exp(point.logs.reduce((s, v) => s + v, 0) / point.logs.length) : null,
            };
        });
        rows.sort((a, b) => a.recordedAt.localeCompare(b.recordedAt));
        if (format === "json") {
            io.stdout.write(`${JSON.stringify({ cell, metric, window, sessions: rows, changePoints: steps }, null, 2)}\n`);
        }
        else if (format === "csv") {
            const lines = ["session,commit,recorded_at,run,value,excluded"];
            for (const row of rows)
                row.values.forEach((value, run) => {
                    lines.push(`${row.session},${row.commit},${row.recordedAt},${run},${value ?? ""},${row.excluded.includes(run)}`);
                });
            io.stdout.write(`${lines.join("\n")}\n`);
        }
        else {
            const title = `${describeMetric(metric)} of cell ${cell}: ${rows.length} session(s), ${steps.length} change point(s) in the last ${Math.min(window, points.length)}`;
            io.stdout.write(renderSeriesTable(title, rows, steps, (value) => formatMetricValue(metric, value)));
        }
        return 0;
    },
};
function metricHigherIsBetter(metric) {
    return metricSpecs[metric].higherIsBetter;
}

export { historyCommand };
