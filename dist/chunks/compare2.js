import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { r as readCalibration, t as compareResults, w as writeCompareOutputs, u as writeComparisonExports, p as isExportFormat, q as exportFormatNames } from './compare.js';
import { j as jobOutbound } from './job-outbound.js';
import { k as defaultInputLimits, m as mebibyte } from './interleaved.js';
import { l as loadConfig } from './load.js';
import { r as renderTerminal } from './terminal.js';
import { U as UsageError } from './version.js';
import { p as parseCommandArgs, a as stringListOption, s as stringOption, n as numberOption } from './command.js';
import { t as throughOutbound } from '../cli.js';
import './format.js';
import './metric-names.js';
import './random.js';
import 'node:crypto';
import './schemas.js';
import 'node:fs';
import 'node:child_process';
import 'node:url';
import './index.js';
import 'process';
import 'buffer';
import 'node:perf_hooks';
import 'node:util';

const usage = `Usage: vllm-perf-gate compare --baseline PATH... --candidate PATH... [options]

Compares repeated runs of a candidate against a baseline, per cell and metric, and decides whether the
gate passes. PATH is a results directory written by \`run\` (DIR/<cell>/run-<k>/run.json) or
\`vllm bench serve --save-result\` JSON files (one run each, grouped into cells by their label).
Writes DIR/verdict.json, DIR/report.md, DIR/report.html (the report with charts, one self-contained
file) and the same charts as SVG files in DIR/report-charts/, and prints the verdict.

Options:
  --baseline PATH...       baseline results (repeat the flag or list several paths)
  --candidate PATH...      candidate results
  --history PATH...        earlier baseline sessions (one results directory each), read only to estimate
                           the between-session drift in stored mode
  --config FILE            config whose gate and repeats sections apply (default: built-in defaults)
  --calibration FILE       this runner's calibration.json (\`calibrate\`): in stored mode its A/A
                           run-to-run variances are the noise prior pooled with the baseline's own
                           (used only when measured under the baseline's conditions)
  --out DIR                where the files go (default: perf-gate-compare)
  --mode MODE              stored (baseline from another job: adds session drift, default) or
                           interleaved (both sides ran in this job on this runner)
  --baseline-commit SHA    provenance of the baseline, shown in the report
  --baseline-ref REF
  --baseline-run-id ID
  --baseline-date DATE
  --baseline-url URL
  --baseline-note TEXT
  --format LIST            outputs, comma-separated (or the flag repeated). What to print, at most one:
                           text (default), md (or markdown: report.md, the long form), comment
                           (comment.md, the PR comment as the action posts it), html (report.html),
                           json (the verdict) or none. Files to add to DIR: pytorch
                           (pytorch-benchmark.json, PyTorch OSS benchmark records as vLLM's dashboard
                           ingests) and bencher (bencher.json, Bencher Metric Format). verdict.json,
                           report.md, comment.md, report.html and report-charts/ are always written.
  --fresh-starts           declare that every run whose file records no server start (run.json of
                           earlier versions, vLLM results without --metadata server_start=ID) was
                           measured on a fresh server start; without it such runs of one input are
                           taken to share one start (see docs/compare.md, Server starts)
  --max-file-mb N          largest result file read, in MiB (default 16, the action's limit)
  --max-total-mb N         all result files of both sides together, in MiB (default 512)
  -h, --help               show this help

Inputs are untrusted: a file over a limit, a run found on both sides or a file whose fields
contradict each other is exit 2; duplicated runs are counted once (see docs/compare.md).

Exit codes: 0 the gate passes, 1 the gate fails (per gate.fail_on), 2 invalid input.
`;
const printFormats = {
    text: "text",
    md: "markdown",
    markdown: "markdown",
    comment: "comment",
    html: "html",
    json: "json",
    none: "none",
};
/**
 * `--format` values, comma-separated or repeated: at most one of text|md|markdown|comment|html|json|none (what
 * is printed; text when none is named) and any of pytorch|bencher (files added to DIR).
 */
function parseCompareFormats(values) {
    const names = values.flatMap((value) => value.split(",")).map((name) => name.trim());
    const prints = [];
    const files = [];
    for (const name of names) {
        if (name in printFormats)
            prints.push(printFormats[name]);
        else if (isExportFormat(name)) {
            if (!files.includes(name))
                files.push(name);
        }
        else {
            const expected = ["text", "md", "comment", "html", "json", "none", ...exportFormatNames];
            throw new UsageError(`--format expects ${expected.slice(0, -1).join(", ")} or ${expected.at(-1)} (comma-separated), got "${name}"`);
        }
    }
    if (new Set(prints).size > 1)
        throw new UsageError(`--format: at most one of text, md, comment, html, json and none is printed, got ${prints.join(", ")}`);
    return { print: prints[0] ?? "text", files };
}
const listFlags = new Set(["--baseline", "--candidate", "--history"]);
/** `--baseline a b c` → `--baseline a --baseline b --baseline c` (node's parser wants one value per flag). */
function expandListFlags(argv) {
    const out = [];
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        out.push(arg);
        if (!listFlags.has(arg))
            continue;
        if (i + 1 < argv.length)
            out.push(argv[++i]);
        while (i + 1 < argv.length && !argv[i + 1].startsWith("-"))
            out.push(arg, argv[++i]);
    }
    return out;
}
/** The action's input limits (compare/inputs/input-limits.ts), raised or lowered by the size flags. */
function inputLimitsFrom(args) {
    const megabytes = (flag) => {
        const value = numberOption(args, flag);
        if (value !== undefined && !(value > 0))
            throw new UsageError(`--${flag} expects a size in MiB above 0, got ${value}`);
        return value;
    };
    const file = megabytes("max-file-mb");
    const total = megabytes("max-total-mb");
    return {
        ...defaultInputLimits,
        ...(file === undefined ? {} : { maxRunFileBytes: Math.floor(file * mebibyte) }),
        ...(total === undefined ? {} : { maxTotalBytes: Math.floor(total * mebibyte) }),
    };
}
const compareCommand = {
    name: "compare",
    usage,
    async run(argv, io) {
        const args = parseCommandArgs(expandListFlags(argv), {
            baseline: { type: "string", multiple: true },
            candidate: { type: "string", multiple: true },
            history: { type: "string", multiple: true },
            config: { type: "string" },
            calibration: { type: "string" },
            out: { type: "string" },
            mode: { type: "string" },
            "baseline-commit": { type: "string" },
            "baseline-ref": { type: "string" },
            "baseline-run-id": { type: "string" },
            "baseline-date": { type: "string" },
            "baseline-url": { type: "string" },
            "baseline-note": { type: "string" },
            format: { type: "string", multiple: true },
            "max-file-mb": { type: "string" },
            "max-total-mb": { type: "string" },
            "fresh-starts": { type: "boolean" },
        });
        if (args.help) {
            io.stdout.write(usage);
            return 0;
        }
        const abs = (path) => (isAbsolute(path) ? path : resolve(io.cwd, path));
        const baseline = stringListOption(args, "baseline").map(abs);
        const candidate = stringListOption(args, "candidate").map(abs);
        const history = stringListOption(args, "history").map(abs);
        if (baseline.length === 0)
            throw new UsageError("--baseline is required");
        if (candidate.length === 0)
            throw new UsageError("--candidate is required");
        const mode = stringOption(args, "mode") ?? "stored";
        if (mode !== "stored" && mode !== "interleaved")
            throw new UsageError(`--mode expects stored or interleaved, got "${mode}"`);
        const { print: format, files: exportFiles } = parseCompareFormats(stringListOption(args, "format"));
        const limits = inputLimitsFrom(args);
        const config = stringOption(args, "config");
        const loaded = config === undefined ? undefined : await loadConfig(abs(config), { env: io.env, cwd: io.cwd });
        // The command's one way out (server/outbound.ts), from its one secret set (the environment the config
        // was loaded with, the config): the verdict is cleaned through it, every file, line and error leaves by it.
        const outbound = jobOutbound({ env: io.env, configs: loaded ? [loaded] : [] });
        io = throughOutbound(io, outbound);
        try {
            const calibrationPath = stringOption(args, "calibration");
            const calibration = calibrationPath === undefined
                ? undefined
                : await readCalibration(abs(calibrationPath), calibrationPath);
            const outcome = await compareResults({
                baseline,
                candidate,
                history,
                ...(args.values["fresh-starts"] === true ? { freshStarts: true } : {}),
                ...(calibration ? { calibration } : {}),
                config: loaded,
                mode: mode,
                baselineInfo: baselineInfoFrom(args),
                limits,
                outbound,
            });
            const out = abs(stringOption(args, "out") ?? "perf-gate-compare");
            const written = await writeCompareOutputs(out, outcome, outbound);
            const exported = await writeComparisonExports(out, outcome, exportFiles, outbound);
            const { verdictPath, reportPath, commentPath, htmlPath } = written;
            const files = [verdictPath, reportPath, commentPath, htmlPath, ...exported];
            await printComparison(io, format, outcome, files, htmlPath);
            return outcome.exitCode;
        }
        catch (error) {
            throw outbound.error(error);
        }
    },
};
/** The baseline's provenance as the flags give it (--baseline-commit, -ref, -run-id, -date, -url, -note); null: none. */
function baselineInfoFrom(args) {
    const info = {};
    const provenance = [
        ["commit", "baseline-commit"],
        ["ref", "baseline-ref"],
        ["runId", "baseline-run-id"],
        ["date", "baseline-date"],
        ["url", "baseline-url"],
        ["note", "baseline-note"],
    ];
    for (const [key, flag] of provenance) {
        const value = stringOption(args, flag);
        if (value !== undefined)
            info[key] = value;
    }
    return Object.keys(info).length > 0 ? info : null;
}
/** What `--format` prints of a comparison written to `files`. */
async function printComparison(io, format, outcome, files, htmlPath) {
    if (format === "text") {
        const color = io.stdout.isTTY === true && io.env.NO_COLOR === undefined;
        io.stdout.write(renderTerminal(outcome.verdict, { color }));
        io.stdout.write(`\nWrote ${files.slice(0, -1).join(", ")} and ${files.at(-1)}\n`);
    }
    else if (format === "markdown")
        io.stdout.write(outcome.reportMarkdown);
    else if (format === "comment")
        io.stdout.write(outcome.commentMarkdown);
    else if (format === "html")
        io.stdout.write(await readFile(htmlPath, "utf8"));
    else if (format === "json")
        io.stdout.write(`${JSON.stringify(outcome.verdict, null, 2)}\n`);
}

export { compareCommand, expandListFlags, parseCompareFormats };
