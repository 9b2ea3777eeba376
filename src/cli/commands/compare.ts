import { isAbsolute, resolve } from "node:path";
import { compareResults, writeCompareOutputs } from "../../compare/index.js";
import { defaultInputLimits, type InputLimits, mebibyte } from "../../compare/input-limits.js";
import type { BaselineInfo, ComparisonMode } from "../../compare/verdict-schema.js";
import { renderTerminal } from "../../report/terminal.js";
import { UsageError } from "../../util/errors.js";
import type { CliCommand } from "../command.js";
import { numberOption, parseCommandArgs, stringListOption, stringOption } from "../command.js";

const usage = `Usage: vllm-perf-gate compare --baseline PATH... --candidate PATH... [options]

Compares repeated runs of a candidate against a baseline, per cell and metric, and decides whether the
gate passes. PATH is a results directory written by \`run\` (DIR/<cell>/run-<k>/run.json) or
\`vllm bench serve --save-result\` JSON files (one run each, grouped into cells by their label).
Writes DIR/verdict.json and DIR/report.md and prints the verdict.

Options:
  --baseline PATH...       baseline results (repeat the flag or list several paths)
  --candidate PATH...      candidate results
  --history PATH...        earlier baseline sessions (one results directory each), read only to estimate
                           the between-session drift in stored mode
  --config FILE            config whose gate and repeats sections apply (default: built-in defaults)
  --out DIR                where verdict.json and report.md go (default: perf-gate-compare)
  --mode MODE              stored (baseline from another job: adds session drift, default) or
                           interleaved (both sides ran in this job on this runner)
  --baseline-commit SHA    provenance of the baseline, shown in the report
  --baseline-ref REF
  --baseline-run-id ID
  --baseline-date DATE
  --baseline-url URL
  --baseline-note TEXT
  --format FORMAT          what to print: text (default), markdown, json or none
  --max-file-mb N          largest result file read, in MiB (default 16, the action's limit)
  --max-total-mb N         all result files of both sides together, in MiB (default 512)
  -h, --help               show this help

Inputs are untrusted: a file over a limit, a run found on both sides or a file whose fields
contradict each other is exit 2; duplicated runs are counted once (see docs/compare.md).

Exit codes: 0 the gate passes, 1 the gate fails (per gate.fail_on), 2 invalid input.
`;

const listFlags = new Set(["--baseline", "--candidate", "--history"]);

/** `--baseline a b c` → `--baseline a --baseline b --baseline c` (node's parser wants one value per flag). */
export function expandListFlags(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    out.push(arg);
    if (!listFlags.has(arg)) continue;
    if (i + 1 < argv.length) out.push(argv[++i]!);
    while (i + 1 < argv.length && !argv[i + 1]!.startsWith("-")) out.push(arg, argv[++i]!);
  }
  return out;
}

/** The action's input limits (compare/input-limits.ts), raised or lowered by the size flags. */
function inputLimitsFrom(args: Parameters<typeof stringOption>[0]): InputLimits {
  const megabytes = (flag: string): number | undefined => {
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

export const compareCommand: CliCommand = {
  name: "compare",
  summary: "compare candidate runs against a baseline and decide the gate",
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(expandListFlags(argv), {
      baseline: { type: "string", multiple: true },
      candidate: { type: "string", multiple: true },
      history: { type: "string", multiple: true },
      config: { type: "string" },
      out: { type: "string" },
      mode: { type: "string" },
      "baseline-commit": { type: "string" },
      "baseline-ref": { type: "string" },
      "baseline-run-id": { type: "string" },
      "baseline-date": { type: "string" },
      "baseline-url": { type: "string" },
      "baseline-note": { type: "string" },
      format: { type: "string" },
      "max-file-mb": { type: "string" },
      "max-total-mb": { type: "string" },
    });
    if (args.help) {
      io.stdout.write(usage);
      return 0;
    }
    const abs = (path: string) => (isAbsolute(path) ? path : resolve(io.cwd, path));
    const baseline = stringListOption(args, "baseline").map(abs);
    const candidate = stringListOption(args, "candidate").map(abs);
    const history = stringListOption(args, "history").map(abs);
    if (baseline.length === 0) throw new UsageError("--baseline is required");
    if (candidate.length === 0) throw new UsageError("--candidate is required");
    const mode = stringOption(args, "mode") ?? "stored";
    if (mode !== "stored" && mode !== "interleaved")
      throw new UsageError(`--mode expects stored or interleaved, got "${mode}"`);
    const format = stringOption(args, "format") ?? "text";
    if (!["text", "markdown", "json", "none"].includes(format)) {
      throw new UsageError(`--format expects text, markdown, json or none, got "${format}"`);
    }
    const info: BaselineInfo = {};
    const provenance = [
      ["commit", "baseline-commit"],
      ["ref", "baseline-ref"],
      ["runId", "baseline-run-id"],
      ["date", "baseline-date"],
      ["url", "baseline-url"],
      ["note", "baseline-note"],
    ] as const;
    for (const [key, flag] of provenance) {
      const value = stringOption(args, flag);
      if (value !== undefined) info[key] = value;
    }
    const limits = inputLimitsFrom(args);
    const config = stringOption(args, "config");
    const outcome = await compareResults({
      baseline,
      candidate,
      history,
      config: config === undefined ? undefined : abs(config),
      mode: mode as ComparisonMode,
      baselineInfo: Object.keys(info).length > 0 ? info : null,
      env: io.env,
      cwd: io.cwd,
      limits,
    });
    const out = abs(stringOption(args, "out") ?? "perf-gate-compare");
    const { verdictPath, reportPath } = await writeCompareOutputs(out, outcome);
    if (format === "text") {
      const color = io.stdout.isTTY === true && io.env.NO_COLOR === undefined;
      io.stdout.write(renderTerminal(outcome.verdict, { color }));
      io.stdout.write(`\nWrote ${verdictPath} and ${reportPath}\n`);
    } else if (format === "markdown") io.stdout.write(outcome.reportMarkdown);
    else if (format === "json") io.stdout.write(`${JSON.stringify(outcome.verdict, null, 2)}\n`);
    return outcome.exitCode;
  },
};
