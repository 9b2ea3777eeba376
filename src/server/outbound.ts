import { writeFileSync } from "node:fs";
import { readFile, stat, writeFile } from "node:fs/promises";
import type { EnvironmentValue } from "../config/interpolate.js";

/** A job's one set of secrets, as secrets.ts collects it at the job's root: what its seam hides. */
export interface JobSecrets {
  /** Every value with its source (a variable's name; `github-token` for the token). */
  readonly named: readonly EnvironmentValue[];
}

/**
 * The one way out of the process for a job, and the only place that redacts. Built once at the job's
 * root (a CLI command, the action's main step) from the job's one secret set (secrets.ts), and handed to
 * everything that writes a file, a log or progress line, a message, the comment or the summary: their
 * text leaves only through it, with every secret value replaced by `***`, wherever it appears and in the
 * forms it takes once encoded (JSON string escapes, URL encoding, and the forms the root adds: our
 * reports' markdown and HTML escaping), so a value written escaped is still found. Secrets must reach no
 * file we keep or upload (logs are artifacts; GitHub's masking covers only the job log), no message and
 * no comment.
 *
 * Two rules for its users. Text from outside is cleaned *before* it is escaped or rendered (`clean`: an
 * escaped value no longer matches itself; the forms are a net, not the method). A record names a secret
 * by its template (`references`: `${NAME}`), never by its value.
 */
export interface Outbound {
  /** The set it was built from: its values' names (GitHub's masking, a fingerprint's references). */
  readonly secrets: JobSecrets;
  /** A text, or every string of a JSON-like value (keys too), with each secret replaced. */
  clean<T>(value: T): T;
  /** `write` with every text it is given cleaned first: a stream, a log or progress line, the comment's poster. */
  through<R>(write: (text: string) => R): (text: string) => R;
  /** A file written whole, its text cleaned. */
  writeFile(path: string, text: string): Promise<void>;
  writeFileSync(path: string, text: string): void;
  /**
   * A file written by someone else (the evidence before it is uploaded), cleaned in place when it is text
   * of at most `maxBytes`; whether it changed.
   */
  cleanFile(path: string, maxBytes: number): Promise<boolean>;
  /** The error as it may be printed: its message and stack cleaned in place, its class kept (the exit code). */
  error<E>(error: E): E;
  /** A value as a record keeps it: each secret value replaced by its reference `${NAME}` (the fingerprint). */
  references<T>(value: T): T;
}

/**
 * Values shorter than this are not searched for in free text: "8000", "true" or "main" would match
 * ordinary output (ports, flags, branch names) and destroy it. Such a value is still never printed by
 * `validate` or recorded in a fingerprint, which show its template; it is only not scrubbed from text
 * (server output, error messages) that happens to contain it. Documented in the README (Secrets).
 */
export const minimumSecretLength = 8;

/** The encodings of a value the root adds to the built-in ones (JSON string content, URL encoding). */
export interface OutboundOptions {
  readonly forms?: (value: string) => readonly string[];
}

/**
 * The seam of a job whose secrets are `secrets`; `options.forms` adds the encodings the job's reports give
 * a value (their markdown and HTML escaping), for the last pass over what was already rendered.
 */
export function createOutbound(secrets: JobSecrets, options: OutboundOptions = {}): Outbound {
  // Also for callers without the compiler's check: a job without its secret set must not start.
  if (!secrets || !Array.isArray(secrets.named)) {
    throw new TypeError("a job's output needs the job's secret set (server/secrets.ts collectJobSecrets)");
  }
  const hidden = replacer(
    secrets.named.map((entry) => ({ value: entry.value, mark: "***" })),
    options.forms,
  );
  const referenced = replacer(
    secrets.named.map((entry) => ({ value: entry.value, mark: `\${${entry.name}}` })),
  );
  return {
    secrets,
    clean: (value) => everyString(value, hidden),
    through: (write) => (text) => write(hidden.replace(text)),
    writeFile: (path, text) => writeFile(path, hidden.replace(text)),
    writeFileSync: (path, text) => writeFileSync(path, hidden.replace(text)),
    async cleanFile(path, maxBytes) {
      if (hidden.empty || (await stat(path)).size > maxBytes) return false;
      const bytes = await readFile(path);
      if (bytes.includes(0)) return false; // binary
      const text = bytes.toString("utf8");
      const cleaned = hidden.replace(text);
      if (cleaned === text) return false;
      await writeFile(path, cleaned);
      return true;
    },
    error(error) {
      if (error instanceof Error) {
        error.message = hidden.replace(error.message);
        if (error.stack) error.stack = hidden.replace(error.stack);
      }
      return error;
    },
    references: (value) => everyString(value, referenced),
  };
}

interface Replacer {
  /** No value long enough to be searched for. */
  readonly empty: boolean;
  replace(text: string): string;
}

/** What a value looks like as JSON string content and URL-encoded: how files and URLs hold it. */
function builtInForms(value: string): string[] {
  return [JSON.stringify(value).slice(1, -1), encodeURIComponent(value)];
}

/** Replaces each value (of at least minimumSecretLength characters) and its forms by its mark. */
function replacer(
  secrets: readonly { value: string; mark: string }[],
  forms?: (value: string) => readonly string[],
): Replacer {
  const marks = new Map<string, string>();
  const distinct = new Set<string>();
  for (const { value, mark } of secrets) {
    if (value.length < minimumSecretLength || distinct.has(value)) continue;
    distinct.add(value);
    for (const form of [value, ...builtInForms(value), ...(forms?.(value) ?? [])]) {
      if (!marks.has(form)) marks.set(form, mark);
    }
  }
  // Longest first, so a secret that contains another (or a form that contains the value) is replaced whole.
  const replacements = [...marks].sort(([a], [b]) => b.length - a.length);
  return {
    empty: distinct.size === 0,
    replace(text) {
      let result = text;
      for (const [form, mark] of replacements) {
        if (result.includes(form)) result = result.split(form).join(mark);
      }
      return result;
    },
  };
}

/** Every string in a JSON-like value replaced (keys too: a record may be keyed by outside text). */
function everyString<T>(value: T, replacer: Replacer): T {
  if (replacer.empty) return value;
  const visit = (node: unknown): unknown => {
    if (typeof node === "string") return replacer.replace(node);
    if (Array.isArray(node)) return node.map(visit);
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(
        Object.entries(node).map(([key, inner]) => [replacer.replace(key), visit(inner)]),
      );
    }
    return node;
  };
  return visit(value) as T;
}
