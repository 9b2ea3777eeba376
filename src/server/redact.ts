/**
 * The one redaction function. Secrets must never reach a file we keep or upload (logs are artifacts;
 * GitHub's masking covers only the job log), a message or the PR comment. A redactor replaces every
 * known secret value wherever it appears in a text, and also the forms the value takes once encoded
 * (JSON string escapes, URL encoding, and any forms the caller adds, e.g. markdown escaping), so a value
 * that was written escaped is still found. Text from outside is redacted *before* it is escaped.
 */
const redactionMark = "***";

/**
 * Values shorter than this are not searched for in free text: "8000", "true" or "main" would match
 * ordinary output (ports, flags, branch names) and destroy it. Such a value is still never printed by
 * `validate` or recorded in a fingerprint, which show its template; it is only not scrubbed from text
 * (server output, error messages) that happens to contain it. Documented in the README (Secrets).
 */
export const minimumSecretLength = 8;

/** A value to hide, and what to show instead (default `***`; a fingerprint shows `${NAME}`). */
export type Secret = string | { readonly value: string; readonly mark: string };

export interface Redactor {
  readonly redact: (text: string) => string;
  /** Distinct values searched for (forms not counted). */
  readonly secretCount: number;
  /** A redactor that also knows these (same options). */
  readonly with: (more: Iterable<Secret | undefined | null>) => Redactor;
}

export interface RedactorOptions {
  /** More encodings of a value to search for (the report adds its markdown and HTML escaping). */
  readonly forms?: (value: string) => readonly string[];
}

/** What a value looks like as JSON string content and URL-encoded: how files and URLs hold it. */
function builtInForms(value: string): string[] {
  return [JSON.stringify(value).slice(1, -1), encodeURIComponent(value)];
}

export function createRedactor(
  secrets: Iterable<Secret | undefined | null>,
  options: RedactorOptions = {},
): Redactor {
  const known = [...secrets];
  const marks = new Map<string, string>();
  const distinct = new Set<string>();
  for (const secret of known) {
    if (!secret) continue;
    const { value, mark } = typeof secret === "string" ? { value: secret, mark: redactionMark } : secret;
    if (value.length < minimumSecretLength || distinct.has(value)) continue;
    distinct.add(value);
    for (const form of [value, ...builtInForms(value), ...(options.forms?.(value) ?? [])]) {
      if (!marks.has(form)) marks.set(form, mark);
    }
  }
  // Longest first, so a secret that contains another (or a form that contains the value) is replaced whole.
  const replacements = [...marks].sort(([a], [b]) => b.length - a.length);
  return {
    secretCount: distinct.size,
    with: (more) => createRedactor([...known, ...more], options),
    redact(text) {
      let result = text;
      for (const [form, mark] of replacements) {
        if (result.includes(form)) result = result.split(form).join(mark);
      }
      return result;
    },
  };
}

/** Every string in a JSON-like value redacted (keys too: a record may be keyed by outside text). */
export function redactValue<T>(value: T, redactor: Redactor): T {
  if (redactor.secretCount === 0) return value;
  const visit = (node: unknown): unknown => {
    if (typeof node === "string") return redactor.redact(node);
    if (Array.isArray(node)) return node.map(visit);
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(
        Object.entries(node).map(([key, inner]) => [redactor.redact(key), visit(inner)]),
      );
    }
    return node;
  };
  return visit(value) as T;
}

/** Names that look like credentials; their values are redacted whether or not a config reads them. */
export const credentialName = /TOKEN|SECRET|PASSWORD|API_KEY|APIKEY|PRIVATE/i;
