import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CliIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/main.js";
import { type VerdictFile, verdictFileSchema } from "../../src/compare/verdict/verdict-schema.js";

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

/**
 * `compare` of the results `base` against `cand` in `dir` (interleaved, the gate of `config`, default
 * `base.yml`) into `cmp`: the command's outcome and its verdict.json.
 */
export async function compareSides(
  dir: string,
  config = "base.yml",
): Promise<{ compare: CliResult; verdict: VerdictFile }> {
  const compare = await cli(
    [
      "compare",
      "--baseline",
      "base",
      "--candidate",
      "cand",
      "--config",
      config,
      "--out",
      "cmp",
      "--mode",
      "interleaved",
    ],
    { cwd: dir },
  );
  const verdict = verdictFileSchema.parse(JSON.parse(readFileSync(join(dir, "cmp/verdict.json"), "utf8")));
  return { compare, verdict };
}
