/**
 * Secrets must never reach a file we keep or upload (logs are artifacts; GitHub's masking covers only the
 * job log). A redactor replaces every known secret value, wherever it appears in a line.
 */
export const redactionMark = "***";

/** Values shorter than this are too likely to match ordinary text ("1", "true") to be replaced safely. */
const minimumSecretLength = 4;

export interface Redactor {
  readonly redact: (text: string) => string;
  readonly secretCount: number;
}

export function createRedactor(secrets: Iterable<string | undefined>): Redactor {
  const values = [
    ...new Set(
      [...secrets].filter((value): value is string => !!value && value.length >= minimumSecretLength),
    ),
  ]
    // Longest first, so a secret that contains another is replaced whole.
    .sort((a, b) => b.length - a.length);
  return {
    secretCount: values.length,
    redact(text) {
      let result = text;
      for (const value of values) result = result.split(value).join(redactionMark);
      return result;
    },
  };
}

/** The values of the named environment variables that are set: what a launcher passes to a server. */
export function secretValues(
  env: Readonly<Record<string, string | undefined>>,
  names: Iterable<string>,
): string[] {
  const values: string[] = [];
  for (const name of names) {
    const value = env[name];
    if (value) values.push(value);
  }
  return values;
}
