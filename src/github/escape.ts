/**
 * GitHub-specific guards for text from outside this job. Free text goes through report/escape.ts, the
 * one markdown escaper; these recognise ids and logins, which are shown as they are or not at all.
 */
/** A commit id is shown only when it looks like one; anything else is reported as invalid. */
export function safeSha(value: string): string | null {
  return /^[0-9a-f]{7,64}$/i.test(value) ? value.toLowerCase() : null;
}

/** A GitHub login, or null when the text is not one (so it is never rendered as markup). */
export function safeLogin(value: string): string | null {
  return /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/.test(value) ? value : null;
}
