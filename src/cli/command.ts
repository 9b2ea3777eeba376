import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "../util/errors.js";
import type { CliIo } from "./io.js";

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

export interface CliCommand {
  readonly name: string;
  /** The full `--help` text. */
  readonly usage: string;
  run(argv: readonly string[], io: CliIo): Promise<number>;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/**
 * Strict parsing: an unknown flag or a missing value is a UsageError (exit 2 with usage on stderr).
 * `--help` is always accepted and reported as `help: true`.
 */
export function parseCommandArgs(
  argv: readonly string[],
  options: OptionSpec,
  { allowPositionals = false }: { allowPositionals?: boolean } = {},
): ParsedArgs & { help: boolean } {
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: { ...options, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals,
    });
    const { help, ...values } = parsed.values as Record<string, string | boolean | undefined>;
    return { values, positionals: parsed.positionals, help: help === true };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new UsageError(`--${name} expects a value`);
  return value;
}

export function stringListOption(args: ParsedArgs, name: string): string[] {
  const value = args.values[name];
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((item) => {
    if (typeof item !== "string") throw new UsageError(`--${name} expects a value`);
    return item;
  });
}

export function integerOption(args: ParsedArgs, name: string, { min = 0 } = {}): number | undefined {
  const raw = stringOption(args, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new UsageError(`--${name} expects a whole number >= ${min}, got "${raw}"`);
  }
  return value;
}

export function numberOption(args: ParsedArgs, name: string): number | undefined {
  const raw = stringOption(args, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new UsageError(`--${name} expects a number, got "${raw}"`);
  return value;
}
