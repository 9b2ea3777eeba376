import { resolve } from "node:path";
import { demoClosing, demoIntro, demoSides, runDemo } from "../../app/demo.js";
import { jobOutbound } from "../../app/job-outbound.js";
import { type ScenarioName, scenarioNames, scenarios } from "../../demo/scenarios.js";
import { streamProgress } from "../../runner/progress.js";
import { handleInterrupts } from "../../server/signals.js";
import { ExitCode, FailureError, UsageError } from "../../util/errors.js";
import { type CliCommand, parseCommandArgs, stringOption } from "../command.js";
import { throughOutbound } from "../io.js";

const defaultOut = "vllm-perf-gate-demo";

const usage = `Usage: vllm-perf-gate demo [--scenario NAME] [--out DIR] [--no-color]

Runs the whole gate on this machine, no GPU and no network: the built-in simulator plays the
baseline and a candidate server, a 3-cell workload (chat, long document + short answer, long output)
runs alternately on both with repeats, and the comparison prints the verdict the pull request
comment would carry, its first screen in the terminal. Writes comment.md (the PR comment),
report.md (the full report), report.html (with charts), verdict.json, both configs and the raw results
under DIR. The capacity scenario measures one capacity cell instead: each side's requests per hour at
the SLOs and how long the slowest users wait there. The sessions scenario measures single requests
beside multi-turn conversations: TTFT by turn depth, session goodput, prefix-cache hits per session.

Options:
  -s, --scenario NAME  what the candidate changed (default: tradeoff)
${scenarioNames.map((name) => `                         ${name.padEnd(10)} ${scenarios[name].story}`).join("\n")}
  -o, --out DIR        output directory (default: ./${defaultOut}; cleared when it holds a previous demo)
      --no-color       plain output even on a terminal (also NO_COLOR=1)
  -h, --help           show this help

Exit codes: 0 when the demo ran as intended, whatever the verdict (it prints the exit code the gate
itself would have given); 1 when it could not run; 2 on invalid options; 130/143 when interrupted
by SIGINT/SIGTERM (the simulators are stopped; a second signal kills them and exits at once).
`;

export const demoCommand: CliCommand = {
  name: "demo",
  usage,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {
      scenario: { type: "string", short: "s" },
      out: { type: "string", short: "o" },
      "no-color": { type: "boolean" },
    });
    if (args.help) {
      io.stdout.write(usage);
      return ExitCode.ok;
    }
    const name = stringOption(args, "scenario") ?? "tradeoff";
    if (!scenarioNames.includes(name as ScenarioName)) {
      throw new UsageError(`unknown scenario "${name}"; expected one of: ${scenarioNames.join(", ")}`);
    }
    const scenario = scenarios[name as ScenarioName];
    const outDir = resolve(io.cwd, stringOption(args, "out") ?? defaultOut);
    // The demo's one way out (server/outbound.ts), from its one secret set: the environment its two
    // configs are loaded with (a VLLM_API_KEY set for other servers is a secret here too) and the configs.
    const sides = demoSides(scenario, outDir, io.env);
    const outbound = jobOutbound({ env: io.env, configs: sides.map((side) => side.loaded) });
    io = throughOutbound(io, outbound);
    const color = io.stdout.isTTY === true && args.values["no-color"] !== true && !io.env.NO_COLOR;
    const progress = streamProgress(io.stderr, { intervalMs: 10_000 });
    io.stdout.write(demoIntro(scenario));
    const started = Date.now();
    // SIGINT/SIGTERM: the run in progress ends, both simulators stop, exit 130/143; again: kill and exit.
    const interruption = handleInterrupts({
      log: (line) => progress.message(line),
      onFirstSignal: (signal) =>
        progress.message(`${signal}: stopping the demo and its simulators (again to force)`),
    });
    let result: Awaited<ReturnType<typeof runDemo>>;
    try {
      result = await runDemo({
        scenario,
        sides,
        outDir,
        color,
        progress,
        env: io.env,
        outbound,
        signal: interruption.signal,
      });
    } catch (error) {
      if (interruption.received() !== null) {
        const detail = error instanceof Error ? error.message : String(error);
        io.stderr.write(
          `${detail.startsWith("interrupted by") ? detail : `interrupted by ${interruption.received()}: ${detail}`}; nothing was compared; the simulators are stopped\n`,
        );
        return interruption.exitCode()!;
      }
      throw outbound.error(
        new FailureError(`the demo could not run: ${error instanceof Error ? error.message : String(error)}`),
      );
    } finally {
      interruption.dispose();
    }
    if ("interrupted" in result) {
      io.stderr.write(
        `interrupted by ${result.interrupted}: kept ${result.runsWritten} run(s) under ${outDir} (the interrupted one is marked in its run.json); nothing was compared; the simulators are stopped\n`,
      );
      return interruption.exitCode() ?? ExitCode.failure;
    }
    io.stdout.write(`\n${result.terminalReport}\n`);
    io.stdout.write(demoClosing(result, scenario, outDir, Math.round((Date.now() - started) / 1000)));
    return ExitCode.ok;
  },
};
