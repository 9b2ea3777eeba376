import { resolve } from 'node:path';
import { c as historyInputDefaults } from './history-inputs.js';
import { h as historySeries } from './history-series.js';
import { j as jobOutbound } from './job-outbound.js';
import { i as isMetricName } from './metric-names.js';
import { b as renderHistorySeries, h as historySeriesFormats } from './history.js';
import { U as UsageError } from './version.js';
import { p as parseCommandArgs, s as stringOption } from './command.js';
import { t as throughOutbound } from '../cli.js';
import 'node:crypto';
import 'node:fs/promises';
import './format.js';
import './random.js';
import './schemas.js';
import 'node:fs';
import 'node:child_process';
import 'node:url';
import 'node:perf_hooks';
import 'node:util';

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
        if (!isHistorySeriesFormat(format))
            throw new UsageError(`--format: expected table, json or csv, got "${format}"`);
        // The command's one way out (server/outbound.ts), from the secret set of its environment: a history
        // file is untrusted input, and a tool that does not redact may have recorded a secret in it.
        const outbound = jobOutbound({ env: io.env });
        io = throughOutbound(io, outbound);
        try {
            const series = await historySeries({
                path: resolve(io.cwd, file),
                file,
                cell: stringOption(args, "cell"),
                metric,
                window: Number(windowText),
            });
            // Cleaned before it is rendered (the table and CSV escape what they show).
            io.stdout.write(renderHistorySeries(outbound.clean(series), format));
            return 0;
        }
        catch (error) {
            throw outbound.error(error);
        }
    },
};
const isHistorySeriesFormat = (text) => historySeriesFormats.includes(text);

export { historyCommand };
