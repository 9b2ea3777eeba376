import type { CliIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/main.js";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured output. */
export async function cli(
  argv: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}
