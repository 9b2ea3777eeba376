import { parseArgs } from 'node:util';
import { U as UsageError } from './version.js';

/**
 * Strict parsing: an unknown flag or a missing value is a UsageError (exit 2 with usage on stderr).
 * `--help` is always accepted and reported as `help: true`.
 */
function parseCommandArgs(argv, options, { allowPositionals = false } = {}) {
    try {
        const parsed = parseArgs({
            args: [...argv],
            options: { ...options, help: { type: "boolean", short: "h" } },
            strict: true,
            allowPositionals,
        });
        const { help, ...values } = parsed.values;
        return { values, positionals: parsed.positionals, help: help === true };
    }
    catch (error) {
        throw new UsageError(error instanceof Error ? error.message : String(error));
    }
}
function stringOption(args, name) {
    const value = args.values[name];
    if (value === undefined)
        return undefined;
    if (typeof value !== "string")
        throw new UsageError(`--${name} expects a value`);
    return value;
}
function stringListOption(args, name) {
    const value = args.values[name];
    if (value === undefined)
        return [];
    const list = Array.isArray(value) ? value : [value];
    return list.map((item) => {
        if (typeof item !== "string")
            throw new UsageError(`--${name} expects a value`);
        return item;
    });
}
function integerOption(args, name, { min = 0 } = {}) {
    const raw = stringOption(args, name);
    if (raw === undefined)
        return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) {
        throw new UsageError(`--${name} expects a whole number >= ${min}, got "${raw}"`);
    }
    return value;
}
function numberOption(args, name) {
    const raw = stringOption(args, name);
    if (raw === undefined)
        return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value))
        throw new UsageError(`--${name} expects a number, got "${raw}"`);
    return value;
}

export { stringListOption as a, integerOption as i, numberOption as n, parseCommandArgs as p, stringOption as s };
