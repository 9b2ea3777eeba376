import { ExitCode, FailureError, InputError, UsageError } from "../util/errors.js";
import { toolName, toolVersion } from "../version.js";
import type { CliCommand } from "./command.js";
import { calibrateCommand } from "./commands/calibrate.js";
import { compareCommand } from "./commands/compare.js";
import { demoCommand } from "./commands/demo.js";
import { historyCommand } from "./commands/history.js";
import { initCommand } from "./commands/init.js";
import { runCommand } from "./commands/run.js";
import { simCommand } from "./commands/sim.js";
import { validateCommand } from "./commands/validate.js";
import type { CliIo } from "./io.js";

export const commands: readonly CliCommand[] = [
  validateCommand,
  initCommand,
  simCommand,
  runCommand,
  compareCommand,
  demoCommand,
  historyCommand,
  calibrateCommand,
];

export function topLevelUsage(): string {
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
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr.write(`${toolName}: unknown command "${name}"\n\n${topLevelUsage()}`);
    return ExitCode.invalidInput;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${toolName} ${command.name}: ${error.message}\n\n${command.usage}`);
      return ExitCode.invalidInput;
    }
    if (error instanceof InputError) {
      io.stderr.write(`${error.message}\n`);
      return ExitCode.invalidInput;
    }
    if (error instanceof FailureError) {
      io.stderr.write(`${toolName} ${command.name}: ${error.message}\n`);
      return ExitCode.failure;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr.write(`${toolName} ${command.name}: unexpected error: ${detail}\n`);
    return ExitCode.failure;
  }
}
