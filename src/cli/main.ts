import { ExitCode, FailureError, InputError, UsageError } from "../util/errors.js";
import { toolName, toolVersion } from "../version.js";
import type { CliCommand } from "./command.js";
import type { CliIo } from "./io.js";

/**
 * A subcommand as the top-level usage lists it. Its module, and what that module imports (the chart
 * libraries, the GitHub toolkit, the runner), is loaded only when the command runs: `--version`,
 * `--help` and `validate` do not pay for what `compare` or `demo` need (docs/benchmarks.md).
 */
export interface CommandEntry {
  readonly name: string;
  /** One line for the top-level usage. */
  readonly summary: string;
  load(): Promise<CliCommand>;
}

export const commands: readonly CommandEntry[] = [
  {
    name: "validate",
    summary: "check a config file and print what it will run",
    load: async () => (await import("./commands/validate.js")).validateCommand,
  },
  {
    name: "init",
    summary: "write a commented starter config from a preset",
    load: async () => (await import("./commands/init.js")).initCommand,
  },
  {
    name: "sim",
    summary: "run the vLLM-compatible serving simulator",
    load: async () => (await import("./commands/sim.js")).simCommand,
  },
  {
    name: "run",
    summary: "run the config's cells N times against a server and write the measurements",
    load: async () => (await import("./commands/run.js")).runCommand,
  },
  {
    name: "compare",
    summary: "compare candidate runs against a baseline and decide the gate",
    load: async () => (await import("./commands/compare.js")).compareCommand,
  },
  {
    name: "demo",
    summary: "see the gate work on this machine: simulated baseline vs candidate, verdict",
    load: async () => (await import("./commands/demo.js")).demoCommand,
  },
  {
    name: "history",
    summary: "print a cell/metric series of main's history with its change points; export it",
    load: async () => (await import("./commands/history.js")).historyCommand,
  },
  {
    name: "calibrate",
    summary: "A/A-calibrate this runner: noise, drift, what the gate can catch, false blocks",
    load: async () => (await import("./commands/calibrate.js")).calibrateCommand,
  },
];

function topLevelUsage(): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return [
    `${toolName} ${toolVersion}: gate pull requests on vLLM serving performance`,
    "",
    `Usage: ${toolName} <command> [options]`,
    "",
    "Commands:",
    ...lines,
    "",
    "Options:",
    "  -h, --help     show help (also after a command: <command> --help)",
    "  -V, --version  print the version",
    "",
    "Exit codes: 0 success or gate passed, 1 gate failed or the work failed, 2 invalid input or usage,",
    "130/143 interrupted by SIGINT/SIGTERM (what was measured is kept; the servers started are stopped).",
    "",
  ].join("\n");
}

/** Runs the CLI in-process and returns the exit code; never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "-h" || name === "--help" || name === "help") {
    if (name === "help" && rest[0]) return runCli([rest[0], "--help"], io);
    (name === undefined ? io.stderr : io.stdout).write(topLevelUsage());
    return name === undefined ? ExitCode.invalidInput : ExitCode.ok;
  }
  if (name === "-V" || name === "--version" || name === "version") {
    io.stdout.write(`${toolVersion}\n`);
    return ExitCode.ok;
  }
  const entry = commands.find((candidate) => candidate.name === name);
  if (!entry) {
    io.stderr.write(`${toolName}: unknown command "${name}"\n\n${topLevelUsage()}`);
    return ExitCode.invalidInput;
  }
  let usage = "";
  try {
    const command = await entry.load();
    usage = command.usage;
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${toolName} ${entry.name}: ${error.message}\n\n${usage}`);
      return ExitCode.invalidInput;
    }
    if (error instanceof InputError) {
      io.stderr.write(`${error.message}\n`);
      return ExitCode.invalidInput;
    }
    if (error instanceof FailureError) {
      io.stderr.write(`${toolName} ${entry.name}: ${error.message}\n`);
      return ExitCode.failure;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr.write(`${toolName} ${entry.name}: unexpected error: ${detail}\n`);
    return ExitCode.failure;
  }
}
