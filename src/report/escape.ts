/**
 * Every string that came from outside (labels, model names, file paths, error messages, fingerprint
 * values) goes through one of these before it reaches the PR comment, so it renders as the literal
 * text and cannot open markdown structure, HTML, links or @-mentions. Secrets are redacted before
 * (compare redacts the verdict it renders): escaping changes a value, and a redactor looks for values.
 */

const maxOutsideLength = 120;
const zeroWidthSpace = "\u200b";

function clip(text: string, max: number): string {
  const flat = text.replace(/[\r\n\t\u2028\u2029]+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Breaks @-mentions and #-references without changing how the text reads. */
function defuseMentions(text: string): string {
  return text.replace(/@/g, `@${zeroWidthSpace}`);
}

/** For markdown text and table cells: entities for HTML, backslashes for all other punctuation. */
export function escapeMarkdown(text: string, max = maxOutsideLength): string {
  return markdownCharacters(clip(text, max));
}

function markdownCharacters(text: string): string {
  let out = "";
  for (const ch of text) {
    if (ch === "&") out += "&amp;";
    else if (ch === "<") out += "&lt;";
    else if (ch === ">") out += "&gt;";
    else if (ch === "@") out += "@";
    else if (/[!-/:-?[-`{-~]/.test(ch)) out += `\\${ch}`;
    else out += ch;
  }
  return defuseMentions(out);
}

/** For text inside HTML elements (e.g. <summary>), where markdown is not parsed. */
export function escapeHtml(text: string, max = maxOutsideLength): string {
  return htmlCharacters(clip(text, max));
}

function htmlCharacters(text: string): string {
  const escaped = text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
  return defuseMentions(escaped);
}

/** Any JSON-ish value from a fingerprint, rendered as escaped markdown. */
export function escapeValue(value: unknown, max = maxOutsideLength): string {
  if (value === undefined || value === null) return "–";
  return escapeMarkdown(typeof value === "string" ? value : JSON.stringify(value), max);
}

/**
 * The forms a value takes once escaped here, for the redactor's last pass over a finished report (see
 * server/redact.ts). Text from outside is redacted before it is escaped; this catches any that was not.
 */
export function renderedForms(value: string): string[] {
  return [markdownCharacters(value), htmlCharacters(value)];
}

/** Inline code for short untrusted text: backticks and newlines cannot close or break the span. */
export function inlineCode(text: string): string {
  return `\`${text.replace(/[`\r\n]/g, "'")}\``;
}
