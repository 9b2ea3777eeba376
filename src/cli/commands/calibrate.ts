import { resolve } from "node:path";
import { calibrateRunner } from "../../app/calibrate.js";
import { readHistoryFile } from "../../app/history-series.js";
import { jobOutbound } from "../../app/job-outbound.js";
import { loadConfig } from "../../config/load.js";
import { renderCalibration } from "../../report/calibration.js";
import { silentProgress, streamProgress } from "../../runner/progress.js";
import { handleInterrupts, interactiveInterrupts } from "../../server/signals.js";
import { defaultServerStateFile } from "../../server/state.js";
import { UsageError } from "../../util/errors.js";
import type { CliCommand } from "../command.js";
import { integerOption, parseCommandArgs, stringOption } from "../command.js";
import { throughOutbound } from "../io.js";

const usage = `Usage: vllm-perf-gate calibrate --config FILE --out DIR [options]

A/A calibration of this runner (docs/calibration.md): measures the config as two sides A and B in
alternation (A B, B A, ... in blocks of repeats.block, as the interleaved gate does), writes the runs to
DIR/a and DIR/b and summarises them into DIR/calibration.json: per cell and gated metric the run-to-run
spread, the between-session drift (with --history), the smallest worsening the gate catches at 90% power
with these runs, and how often the gate's own rule blocked A/A splits (its false-block rate here).
Give the file to \`compare --calibration\` (or the action's calibration input) as the noise prior.

Options:
  -c, --config FILE   the config (default vllm-perf-gate.yml)
  -o, --out DIR       where the runs and calibration.json go (required)
      --runs N        runs per side, 2 to 50 (default: repeats.max of the config)
      --cells a,b     calibrate only these cells
      --history FILE  main's history (JSON Lines, docs/history.md): the drift between its sessions
  -q, --quiet         no progress output
  -h, --help          show this help

Exit codes: 0 written, 1 the measuring failed, 2 invalid input, 130/143 interrupted (runs kept).
`;

export const calibrateCommand: CliCommand = {
  name: "calibrate",
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {
      config: { type: "string", short: "c" },
      out: { type: "string", short: "o" },
      runs: { type: "string" },
      cells: { type: "string" },
      history: { type: "string" },
      quiet: { type: "boolean", short: "q" },
    });
    if (args.help) {
      io.stdout.write(usage);
      return 0;
    }
    const out = stringOption(args, "out");
    if (!out) throw new UsageError("--out is required");
    const loaded = await loadConfig(stringOption(args, "config") ?? "vllm-perf-gate.yml", {
      env: io.env,
      cwd: io.cwd,
    });
    // The command's one way out (server/outbound.ts), from its one secret set (the environment the config
    // was loaded with, the config): the servers' logs, the runs, calibration.json and every line.
    const outbound = jobOutbound({ env: io.env, configs: [loaded] });
    io = throughOutbound(io, outbound);
    const runs = integerOption(args, "runs") ?? loaded.config.repeats.max;
    if (runs < 2 || runs > 50) throw new UsageError(`--runs expects 2 to 50 runs per side, got ${runs}`);
    const cells = stringOption(args, "cells")
      ?.split(",")
      .map((cell) => cell.trim())
      .filter(Boolean);
    const historyPath = stringOption(args, "history");
    const history =
      historyPath !== undefined
        ? await readHistoryFile(resolve(io.cwd, historyPath), historyPath).catch((error: unknown) => {
            // Its errors may quote the file, untrusted input.
            throw outbound.error(error);
          })
        : undefined;
    const progress = args.values.quiet === true ? silentProgress : streamProgress(io.stderr);
    const interruption = handleInterrupts({
      ...interactiveInterrupts,
      log: (line) => io.stderr.write(`${line}\n`),
      onFirstSignal: (signal) => progress.message(`${signal}: stopping; the A/A runs so far are kept`),
    });
    try {
      const result = await calibrateRunner({
        config: loaded,
        outDir: resolve(io.cwd, out),
        runs,
        ...(cells && cells.length > 0 ? { cells } : {}),
        ...(history ? { history } : {}),
        env: io.env,
        outbound,
        progress,
        warn: (message) => progress.message(`warning: ${message}`),
        serverStateFile: defaultServerStateFile(io.env),
        signal: interruption.signal,
      });
      io.stdout.write(renderCalibration(result.file));
      io.stdout.write(`Wrote ${result.path}\n`);
      return 0;
    } catch (error) {
      if (interruption.received() !== null) {
        io.stderr.write(`${(error as Error).message}\n`);
        return interruption.exitCode()!;
      }
      throw outbound.error(error);
    } finally {
      interruption.dispose();
    }
  },
};
