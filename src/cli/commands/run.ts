import { jobOutbound } from "../../app/job-outbound.js";
import { parseRunFormats } from "../../app/run-exports.js";
import {
  cutShortFailure,
  interruptSummary,
  planRunJob,
  type RunJobRequest,
  runJob,
} from "../../app/run-job.js";
import { loadConfig } from "../../config/load.js";
import { type ProgressSink, silentProgress, streamProgress } from "../../runner/progress.js";
import { handleInterrupts, interactiveInterrupts } from "../../server/signals.js";
import { UsageError } from "../../util/errors.js";
import type { CliCommand, ParsedArgs } from "../command.js";
import { integerOption, parseCommandArgs, stringOption } from "../command.js";
import type { CliIo } from "../io.js";
import { throughOutbound } from "../io.js";

const usage = `Usage: vllm-perf-gate run --config FILE --out DIR [options]

Runs each cell of the config N times against a server and writes, per run,
DIR/<cell>/run-<k>/{requests.jsonl, warmup.jsonl, scrapes.jsonl, run.json}. Runs are numbered from 0
everywhere: the directory run-<k>, run.json's "run", the progress lines ("run-3 (1 of 2)": the run,
and how far this invocation is) and the report.

Options:
  -c, --config FILE   the config (default vllm-perf-gate.yml)
  -o, --out DIR       results directory (required)
      --base-url URL  use a running OpenAI-compatible server instead of starting config.server
      --api-key-env NAME
                      with --base-url: send the API key in environment variable NAME (it must
                      be set); without it the key comes from the variable server.api_key_env
                      names, else VLLM_API_KEY, else OPENAI_API_KEY, when set. The key is never
                      printed or written
      --cells a,b     run only these cells
      --runs N        runs per cell (default: repeats.min of the config)
      --format LIST   also write each run in these formats (comma-separated), beside run.json:
                      vllm (vllm-result.json, a \`vllm bench serve\` result), pytorch
                      (pytorch-benchmark.json, PyTorch OSS benchmark records as vLLM's dashboard
                      ingests) and bencher (bencher.json, Bencher Metric Format); runs compare
                      would not use (interrupted, cut short, client-bound) get no pytorch/bencher
      --side LABEL    label written into run.json (e.g. baseline, candidate)
      --server-start ID
                      with --base-url or server.kind external: the id of the server's start
                      recorded in run.json (serverStart.id); default: one start per invocation.
                      Give invocations against one server left running the same ID, so compare
                      knows their runs share a start (a server run starts records its own)
      --sweep         measure each selected cell over loads (docs/capacity.md): a capacity cell
                      is searched for the highest load meeting its SLOs (at most repeats.max
                      runs), a cell with sweep measures its loads; runs go to DIR/<cell>/run-<k>
                      with their load in run.json, the curve to DIR/<cell>/curve.json and its
                      charts to DIR/<cell>/report.html and report-charts/*.svg
      --stall-report-s N
                      print a line naming each request in flight that has gone N s without a
                      chunk, and again every N s it stays quiet (default 30); the request itself
                      still ends at the cell's timeout_s
      --append        add runs after the existing ones of each cell in DIR (run-<k> continues from
                      the highest k there); without it, a DIR that already has runs of a selected
                      cell is refused (exit 2) rather than overwritten
      --calibration FILE
                      this runner's calibration.json (\`calibrate\`): under gate.budget_gpu_minutes the
                      budget's plan takes the noise it measured, as the action's calibration input
                      and compare --calibration do
  -q, --quiet         no progress output
  -h, --help          show this help

Budget: under gate.budget_gpu_minutes the runs per side, runs per server start and requests per run
are the budget's plan (printed first; docs/action.md, Choosing a budget), for the cells selected.

Devices: with runner.devices in the config, the cells are balanced over the devices and measured on
them at once, one server per device, as the action measures (docs/run.md); with --base-url the
devices are not used (a warning says so).

Interrupts: on SIGINT or SIGTERM the run in progress stops sending, its requests in flight are
recorded as cancelled (error kind "aborted"), its run.json is written with flags.interrupted (compare
excludes it), every server started is stopped, and the exit code is 130 (SIGINT) or 143 (SIGTERM).
The first signal ends the process within 2 s: what is not wound down after 1.2 s (a server slow to
stop) gets SIGTERM, then SIGKILL 0.3 s later. A second signal kills the servers (their process
groups) and exits at once.

Exit codes: 0 all runs measured (failed requests are data, see run.json), 1 a run was cut short
(server crash) or the server could not be started, 2 invalid input, 130/143 interrupted.
`;

export const runCommand: CliCommand = {
  name: "run",
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {
      config: { type: "string", short: "c" },
      out: { type: "string", short: "o" },
      "base-url": { type: "string" },
      "api-key-env": { type: "string" },
      cells: { type: "string" },
      runs: { type: "string" },
      format: { type: "string" },
      side: { type: "string" },
      "server-start": { type: "string" },
      quiet: { type: "boolean", short: "q" },
      append: { type: "boolean" },
      sweep: { type: "boolean" },
      "stall-report-s": { type: "string" },
      calibration: { type: "string" },
    });
    if (args.help) {
      io.stdout.write(usage);
      return 0;
    }
    const flags = runFlags(args);
    const loaded = await loadConfig(stringOption(args, "config") ?? "vllm-perf-gate.yml", {
      env: io.env,
      cwd: io.cwd,
    });
    const plan = await planRunJob({ ...flags, loaded, cwd: io.cwd, env: io.env });
    // The command's one way out (server/outbound.ts), from its one secret set: the environment the config
    // was loaded with, the config, and --base-url's key variable. Progress lines, warnings and the summary
    // may quote a server's text: they leave through it too, as do the servers' logs and the run files.
    const outbound = jobOutbound({ env: io.env, configs: [loaded], variables: [plan.key?.variable] });
    io = throughOutbound(io, outbound);
    const quiet = args.values.quiet === true;
    const progress = quiet ? silentProgress : streamProgress(io.stderr);
    const interruption = runInterrupts(io, progress);
    try {
      const result = await runJob(plan, { outbound, progress, signal: interruption.signal });
      if (!quiet) io.stdout.write(`wrote ${result.runs.length} run(s) to ${result.outDir}\n`);
      const signal = interruption.received();
      if (signal !== null) {
        io.stderr.write(`${interruptSummary(signal, result.runs, result.outDir)}\n`);
        return interruption.exitCode()!;
      }
      const failure = cutShortFailure(result.runs);
      if (failure !== null) throw failure;
      return 0;
    } catch (error) {
      const signal = interruption.received();
      if (signal !== null) {
        // Interrupted while a server was starting (or stopping): the runs already written are all there is.
        const detail = error instanceof Error ? error.message : String(error);
        io.stderr.write(
          `${detail.startsWith("interrupted by") ? detail : `interrupted by ${signal}: ${detail}`}; the runs finished before are kept in ${plan.outDir}; the servers it started are stopped\n`,
        );
        return interruption.exitCode()!;
      }
      // A server that would not start is a ServerStartError, a FailureError: exit 1 with its message,
      // cleaned in place (the class is kept).
      throw outbound.error(error);
    } finally {
      interruption.dispose();
    }
  },
};

/** The command's flags as the job takes them; a UsageError for a flag that is wrong on its own. */
function runFlags(args: ParsedArgs): Omit<RunJobRequest, "loaded" | "cwd" | "env"> {
  const out = stringOption(args, "out");
  if (!out) throw new UsageError("--out DIR is required");
  const formats = parseRunFormats(stringOption(args, "format"));
  const runs = integerOption(args, "runs", { min: 1 });
  const stallReportS = integerOption(args, "stall-report-s", { min: 1 });
  const baseUrl = stringOption(args, "base-url");
  const apiKeyEnv = stringOption(args, "api-key-env");
  if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(baseUrl)) {
    throw new UsageError(`--base-url expects an http(s) URL, got "${baseUrl}"`);
  }
  if (baseUrl === undefined && apiKeyEnv !== undefined) {
    throw new UsageError(
      "--api-key-env goes with --base-url; a server the config starts or names gets its key from server.api_key_env",
    );
  }
  const cells = stringOption(args, "cells")
    ?.split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  return {
    out,
    cells,
    runs,
    formats,
    side: stringOption(args, "side"),
    baseUrl,
    apiKeyEnv,
    serverStartId: stringOption(args, "server-start"),
    append: args.values.append === true,
    sweep: args.values.sweep === true,
    stallReportMs: stallReportS === undefined ? undefined : stallReportS * 1000,
    calibrationPath: stringOption(args, "calibration"),
  };
}

/**
 * SIGINT/SIGTERM: stop sending, cancel what is in flight, write the files, stop the servers, exit
 * 130/143; a second signal kills the servers and exits at once (server/signals.ts).
 */
function runInterrupts(io: CliIo, progress: ProgressSink) {
  return handleInterrupts({
    // Within 2 s of the first signal, whatever the servers do.
    ...interactiveInterrupts,
    // Even with --quiet: the user must learn that servers were killed or the wind-down limit was hit.
    log: (line) => io.stderr.write(`${line}\n`),
    onFirstSignal: (signal) =>
      progress.message(
        `${signal}: stopping; cancelling requests in flight and writing this run's files (again to force)`,
      ),
  });
}
