import { z } from "zod";

/** A problem a kind (server or dataset) finds in a config: the YAML path and what was expected there. */
export interface KindProblem {
  readonly path: (string | number)[];
  readonly message: string;
}

/** Renders a value the user wrote, for "got ..." in error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing (the key is missing)";
  if (value === null) return "null";
  if (typeof value === "string")
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return String(value);
}

function expecting(what: string) {
  return { error: (issue: { input?: unknown }) => `expected ${what}, got ${describeValue(issue.input)}` };
}

export const positiveNumber = (what = "a positive number") =>
  z.number(expecting(what)).positive(expecting(what)).finite(expecting(what));
export const nonNegativeNumber = (what = "a number >= 0") =>
  z.number(expecting(what)).nonnegative(expecting(what)).finite(expecting(what));
export const positiveInt = (what = "a whole number >= 1") =>
  z.number(expecting(what)).int(expecting(what)).positive(expecting(what));
export const nonNegativeInt = (what = "a whole number >= 0") =>
  z.number(expecting(what)).int(expecting(what)).nonnegative(expecting(what));
export const fraction = (what = "a fraction between 0 and 1") =>
  z.number(expecting(what)).min(0, expecting(what)).max(1, expecting(what));
export const port = () =>
  z
    .number(expecting("a TCP port (0-65535)"))
    .int(expecting("a TCP port (0-65535)"))
    .min(0, expecting("a TCP port (0-65535)"))
    .max(65535, expecting("a TCP port (0-65535)"));
export const nonEmptyString = (what = "a non-empty string") =>
  z.string(expecting(what)).min(1, expecting(what));
export const envVarName = () =>
  z
    .string(expecting("an environment variable name"))
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, expecting("an environment variable name like HF_TOKEN"));
export const httpUrl = (what = "an http(s) URL") =>
  z.string(expecting(what)).regex(/^https?:\/\/[^\s]+$/, expecting(what));

/** Edit distance, for did-you-mean suggestions on unknown keys. */
function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(
        previous[j]! + 1,
        previous[j - 1]! + 1,
        diagonal + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

function closestKey(unknown: string, known: readonly string[]): string | undefined {
  const normalized = unknown.toLowerCase().replace(/-/g, "_");
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = key === normalized ? 0 : editDistance(normalized, key);
    if (!best || distance < best.distance) best = { key, distance };
  }
  if (!best) return undefined;
  return best.distance <= Math.max(2, Math.floor(best.key.length / 3)) ? best.key : undefined;
}

/**
 * A mapping that rejects unknown keys, naming each with a did-you-mean drawn from the keys it accepts.
 * Every mapping in the config uses it, so a typo is never silently ignored.
 */
/** Unknown keys of one mapping named in its message; the rest are counted. */
export const maxListedKeys = 10;

export function strictObject<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === "unrecognized_keys") {
        const rest = issue.keys.length - maxListedKeys;
        return issue.keys
          .slice(0, maxListedKeys)
          .map((key) => {
            const suggestion = closestKey(key, known);
            return `unknown key "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}; expected one of: ${known.join(", ")}`;
          })
          .concat(
            rest > 0 ? [`and ${rest} more unknown keys (only the first ${maxListedKeys} are listed)`] : [],
          )
          .join("; ");
      }
      if (issue.code === "invalid_type") return `expected a mapping, got ${describeValue(issue.input)}`;
      return undefined;
    },
  });
}

/** The values of the discriminating key, in the order of the variants (each variant's `z.literal`). */
function discriminatorValues(key: string, options: readonly z.core.$ZodTypeDiscriminable[]): string[] {
  return options.map((option) =>
    String((option as unknown as { shape: Record<string, { value: unknown }> }).shape[key]!.value),
  );
}

/**
 * One of several mapping variants chosen by a key such as `kind` or `type`; `names` (for messages)
 * defaults to the variants' own literals, so the list of kinds is written once, by the variants.
 */
export function choice<
  const Key extends string,
  Options extends readonly [z.core.$ZodTypeDiscriminable, ...z.core.$ZodTypeDiscriminable[]],
>(key: Key, options: Options, names: readonly string[] = discriminatorValues(key, options)) {
  return z.discriminatedUnion(key, options as never, {
    error: (issue: { input?: unknown; code?: string }) => {
      const input = issue.input as Record<string, unknown> | undefined;
      if (input === undefined || typeof input !== "object" || input === null || Array.isArray(input)) {
        return `expected a mapping with "${key}: ${names.join(" | ")}", got ${describeValue(input)}`;
      }
      return `expected one of ${names.map((name) => `"${name}"`).join(", ")}, got ${describeValue(input[key])}`;
    },
  }) as unknown as z.ZodDiscriminatedUnion<[...Options]>;
}
