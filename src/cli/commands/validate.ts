import { firstLookPlans } from "../../app/measure-on-devices.js";
import { applyRunPlan, configuredPassChance, runPlans } from "../../app/run-plan.js";
import { describeCapacityCost } from "../../config/capacity-summary.js";
import { templateView } from "../../config/interpolate.js";
import { defaultConfigFile, loadConfig } from "../../config/load.js";
import { isSearchedCell } from "../../config/schema.js";
import { renderSummary, summarizeConfig } from "../../config/summary.js";
import { runPlanLines } from "../../report/run-plan.js";
import { wallClockLines } from "../../report/status.js";
import { lookSchedule } from "../../stats/sequential.js";
import { ExitCode, UsageError } from "../../util/errors.js";
import { type CliCommand, integerOption, parseCommandArgs, stringOption } from "../command.js";

export const validateCommand: CliCommand = {
  name: "validate",
  summary: "check a config file and print what it will run",
  usage: `Usage: vllm-perf-gate validate [--config FILE] [--json]

Reads the config, checks it against the schema and prints a normalised summary: cells, load,
requests per run, runs per side and an estimate of GPU time.

Options:
  -c, --config FILE  config file (default: ${defaultConfigFile})
      --json         print the normalised config as JSON instead of the summary
      --devices N    estimate the wall-clock on N devices (as runner.devices: N would)
  -h, --help         show this help

Every problem is reported at once, each with the file, line, the path in the YAML
(e.g. cells[2].load.rate) and what was expected. \${VAR} and \${VAR:-default} in values are read
from the environment; their values are never printed.
Exit codes: 0 valid, 2 invalid (or unreadable).
`,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {
      config: { type: "string", short: "c" },
      json: { type: "boolean" },
      devices: { type: "string" },
    });
    if (args.help) {
      io.stdout.write(this.usage);
      return ExitCode.ok;
    }
    const file = stringOption(args, "config") ?? defaultConfigFile;
    const loaded = await loadConfig(file, { env: io.env, cwd: io.cwd });
    if (args.values.json === true) {
      // Values that came from the environment are shown as their template: they may be secrets.
      const masked = templateView(loaded.config, loaded.interpolation.templates);
      io.stdout.write(`${JSON.stringify(masked, null, 2)}\n`);
      return ExitCode.ok;
    }
    const { repeats } = loaded.config;
    const looks = lookSchedule(repeats.min, repeats.max);
    io.stdout.write(
      renderSummary(file, summarizeConfig(loaded.config, loaded.interpolation.templates, looks)),
    );
    for (const line of describeCapacityCost(loaded.config)) io.stdout.write(`${line}\n`);
    const devices = integerOption(args, "devices");
    if (devices !== undefined && devices < 1)
      throw new UsageError(`--devices expects a whole number >= 1, got ${devices}`);
    if (!loaded.config.cells.every(isSearchedCell)) {
      const plans = firstLookPlans(loaded.config, devices);
      const source =
        devices !== undefined
          ? "--devices"
          : loaded.config.runner.devices
            ? "runner.devices"
            : "no runner.devices: one server at a time";
      for (const line of wallClockLines(plans, source)) io.stdout.write(`${line}\n`);
      const runPlan = runPlans(loaded.config);
      for (const line of runPlanLines(runPlan, configuredPassChance(loaded.config), loaded.config.repeats))
        io.stdout.write(`${line}\n`);
      const planned = firstLookPlans(applyRunPlan(loaded.config, runPlan[0]!.plan), devices);
      for (const line of wallClockLines(planned, source).slice(0, 2))
        io.stdout.write(`  planned ${line.trimStart()}\n`);
    }
    return ExitCode.ok;
  },
};
