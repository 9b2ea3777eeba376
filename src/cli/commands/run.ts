import { dirname, resolve } from "node:path";
import { loadConfig } from "../../config/load.js";
import { baseUrlProvider } from "../../runner/base-url-provider.js";
import { silentProgress, streamProgress } from "../../runner/progress.js";
import { runCells } from "../../runner/run-cells.js";
import { providerForConfig } from "../../server/index.js";
import type { ServerProvider } from "../../server/types.js";
import type { CliCommand } from "../command.js";
import { integerOption, parseCommandArgs, stringOption } from "../command.js";
import { FailureError, UsageError } from "../errors.js";

const usage = `Usage: vllm-perf-gate run --config FILE --out DIR [options]

Runs each cell of the config N times against a server and writes, per run,
DIR/<cell>/run-<k>/{requests.jsonl, warmup.jsonl, scrapes.jsonl, run.json}.

Options:
  -c, --config FILE   the config (default vllm-perf-gate.yml)
  -o, --out DIR       results directory (required)
      --base-url URL  use a running OpenAI-compatible server instead of starting config.server
      --cells a,b     run only these cells
      --runs N        runs per cell (default: repeats.min of the config)
      --format vllm   also write each run as a \`vllm bench serve\` result JSON (vllm-result.json)
      --side LABEL    label written into run.json (e.g. baseline, candidate)
  -q, --quiet         no progress output
  -h, --help          show this help

Exit codes: 0 all runs measured (failed requests are data, see run.json), 1 a run was cut short
(server crash, interrupt) or the server could not be started, 2 invalid input.
`;

export const runCommand: CliCommand = {
  name: "run",
  summary: "run the config's cells N times against a server and write the measurements",
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {
      config: { type: "string", short: "c" },
      out: { type: "string", short: "o" },
      "base-url": { type: "string" },
      cells: { type: "string" },
      runs: { type: "string" },
      format: { type: "string" },
      side: { type: "string" },
      quiet: { type: "boolean", short: "q" },
    });
    if (args.help) {
      io.stdout.write(usage);
      return 0;
    }
    const out = stringOption(args, "out");
    if (!out) throw new UsageError("--out DIR is required");
    const format = stringOption(args, "format");
    if (format !== undefined && format !== "vllm")
      throw new UsageError(`--format expects "vllm", got "${format}"`);
    const runs = integerOption(args, "runs", { min: 1 });
    const baseUrl = stringOption(args, "base-url");
    if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(baseUrl)) {
      throw new UsageError(`--base-url expects an http(s) URL, got "${baseUrl}"`);
    }
    const cells = stringOption(args, "cells")
      ?.split(",")
      .map((name) => name.trim())
      .filter(Boolean);

    const loaded = await loadConfig(stringOption(args, "config") ?? "vllm-perf-gate.yml", {
      env: io.env,
      cwd: io.cwd,
    });
    const config = loaded.config;
    const quiet = args.values.quiet === true;
    const progress = quiet ? silentProgress : streamProgress(io.stderr);
    const apiKeyEnv = "api_key_env" in config.server ? config.server.api_key_env : undefined;
    const apiKey = apiKeyEnv ? io.env[apiKeyEnv] : undefined;
    const managed =
      baseUrl === undefined
        ? providerForConfig(config, {
            env: { ...io.env },
            interpolation: loaded.interpolation,
            warn: (message) => progress.message(`warning: ${message}`),
          })
        : null;
    const provider: ServerProvider =
      managed ??
      baseUrlProvider({
        baseUrl: baseUrl!,
        ...(apiKey ? { apiKey } : {}),
        model: config.model,
        sampling: config.sampling,
        env: io.env,
        interpolation: loaded.interpolation,
      });

    let interrupted = false;
    const onSignal = () => {
      interrupted = true;
      progress.message("interrupted: finishing the current run's bookkeeping; press Ctrl-C again to force");
      process.once("SIGINT", () => process.exit(130));
    };
    process.once("SIGINT", onSignal);
    try {
      const result = await runCells({
        config,
        provider,
        outDir: resolve(io.cwd, out),
        baseDir: dirname(loaded.path),
        ...(cells ? { cells } : {}),
        ...(runs !== undefined ? { runs } : {}),
        formats: format === "vllm" ? ["vllm"] : [],
        ...(stringOption(args, "side") ? { side: stringOption(args, "side")! } : {}),
        progress,
        shouldAbort: () => interrupted,
      });
      const cut = result.runs.filter((run) => run.file.flags.cutShort);
      const bound = result.runs.filter((run) => run.file.flags.clientBound);
      if (bound.length > 0) {
        progress.message(
          `warning: ${bound.length} run(s) were client-bound (the client, not the server, limited them): ${bound.map((run) => `${run.cell}/run-${run.run}`).join(", ")}`,
        );
      }
      if (!quiet) io.stdout.write(`wrote ${result.runs.length} run(s) to ${resolve(io.cwd, out)}\n`);
      if (interrupted) throw new FailureError("interrupted; the runs measured so far are kept");
      if (cut.length > 0) {
        throw new FailureError(
          `${cut.length} run(s) were cut short: ${cut.map((run) => `${run.cell}/run-${run.run} (${run.file.flags.notes[0] ?? "cut short"})`).join(", ")}`,
        );
      }
      return 0;
    } catch (error) {
      if (error instanceof Error && error.name === "ServerStartError") throw new FailureError(error.message);
      throw error;
    } finally {
      process.removeListener("SIGINT", onSignal);
      await managed?.stopAll();
    }
  },
};
