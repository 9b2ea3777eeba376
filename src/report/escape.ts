/**
 * Every string that came from outside (cell names, labels, model names, notes, file names, error
 * messages, fingerprint values) goes through the one escaper of the place it lands in, so it renders as
 * the literal text and cannot open markdown structure, HTML, links, images, headings or @-mentions:
 *
 * - `escapeInline`: markdown text (a paragraph, a list item, bold text);
 * - `escapeCell`: a cell of a markdown table (inline text, and `|` cannot end the cell);
 * - `escapeHtml`: text inside an HTML element where markdown is not parsed (a fold's `<summary>`, `<pre>`),
 *   and report.html.
 *
 * Each escapes only what its context needs, so the raw markdown stays readable (`max_tokens`,
 * `gate.min_run_sd` and paths keep their `_`, `.`, `-` and `/`). What GitHub would turn into a link or a
 * notification without any markup (a bare `https://` URL, `www.`, an e-mail address, `@user`, `#123`,
 * `:emoji:`) gets a zero-width space that breaks the pattern without changing how the text reads.
 * Secrets are cleaned before (compare cleans the verdict it renders, through the job's output seam):
 * escaping changes a value, and the seam looks for values.
 */

const maxOutsideLength = 120;
const zeroWidthSpace = "\u200b";

function clip(text: string, max: number): string {
  const flat = text.replace(/[\r\n\t\u2028\u2029]+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Breaks what GitHub links or notifies on in plain text: @-mentions (and e-mail addresses), #-references,
 * bare URLs (`scheme://`, `www.`) and emoji short codes, by a zero-width space inside each.
 */
function defuseAutolinks(text: string): string {
  return text
    .replace(/@/g, `@${zeroWidthSpace}`)
    .replace(/#(?=\d)/g, `#${zeroWidthSpace}`)
    .replace(/:(?=\/\/)/g, `:${zeroWidthSpace}`)
    .replace(/(www)(?=\.)/gi, `$1${zeroWidthSpace}`)
    .replace(/:(?=[a-z0-9_+-]+:)/gi, `:${zeroWidthSpace}`);
}

const letterOrDigit = /[\p{L}\p{N}]/u;

/** Characters that open inline markdown anywhere in a line: code spans, emphasis, strikethrough, math. */
const inlineMarkers = new Set(["\\", "`", "*", "~", "$"]);

/**
 * A block marker at the start of the text (a heading, a quote, a list item, a task box or a link
 * definition) is escaped.
 */
const leadingBlockMarker = /^(?:#{1,6}(?=\s|$)|[-+](?=\s|$)|[-=_]{3,}|\d{1,9}[.)](?=\s|$)|[>[|])/;

function markdownCharacters(raw: string, { cell }: { cell: boolean }): string {
  let out = "";
  const chars = [...defuseAutolinks(raw)];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === "&") out += "&amp;";
    else if (ch === "<") out += "&lt;";
    // A link or an image needs "](" or "][": a bracket alone stays ("[\"--flag\"]").
    else if (ch === "]" && (chars[i + 1] === "(" || chars[i + 1] === "[")) out += "\\]";
    else if (inlineMarkers.has(ch) || (cell && ch === "|")) out += `\\${ch}`;
    else if (ch === "_") {
      // An underscore run between two letters or digits never opens or closes emphasis (GFM's
      // intraword rule), so `max_tokens` stays as it is; any other is escaped.
      let end = i;
      while (chars[end + 1] === "_") end++;
      const intraword = letterOrDigit.test(chars[i - 1] ?? " ") && letterOrDigit.test(chars[end + 1] ?? " ");
      out += (intraword ? "_" : "\\_").repeat(end - i + 1);
      i = end;
    } else out += ch;
  }
  // A table cell is inline content: no block starts in it.
  const leading = cell ? null : leadingBlockMarker.exec(out);
  if (leading) {
    // "12. x": the dot is escaped (a backslash before a digit would show); anything else, its first mark.
    const at = /^\d/.test(leading[0]) ? leading[0].length - 1 : 0;
    out = `${out.slice(0, at)}\\${out.slice(at)}`;
  }
  return out;
}

/** For markdown text: a paragraph, a list item, inside `**bold**`. */
export function escapeInline(text: string, max = maxOutsideLength): string {
  return markdownCharacters(clip(text, max), { cell: false });
}

/** For a cell of a markdown table. */
export function escapeCell(text: string, max = maxOutsideLength): string {
  return markdownCharacters(clip(text, max), { cell: true });
}

/** For text inside HTML elements (a fold's <summary>, <pre>; report.html), where markdown is not parsed. */
export function escapeHtml(text: string, max = maxOutsideLength): string {
  return htmlCharacters(clip(text, max));
}

function htmlCharacters(text: string): string {
  return defuseAutolinks(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Any JSON-ish value from a fingerprint, for a table cell. */
export function escapeValue(value: unknown, max = maxOutsideLength): string {
  if (value === undefined || value === null) return "–";
  return escapeCell(typeof value === "string" ? value : JSON.stringify(value), max);
}

/**
 * The forms a value takes once escaped here, for the last pass of the job's output seam over a finished
 * report (server/outbound.ts). Text from outside is cleaned before it is escaped; this catches any that
 * was not.
 * Where an escape depends on the neighbours (an underscore at either end, a block marker at the start),
 * the value is escaped both alone and between letters.
 */
export function renderedForms(value: string): string[] {
  const between = (escapeText: (text: string) => string) => escapeText(`a${value}a`).slice(1, -1);
  const forms = [
    markdownCharacters(value, { cell: false }),
    markdownCharacters(value, { cell: true }),
    between((text) => markdownCharacters(text, { cell: false })),
    between((text) => markdownCharacters(text, { cell: true })),
    htmlCharacters(value),
  ];
  return [...new Set(forms)];
}

/** Inline code for short untrusted text: backticks and newlines cannot close or break the span. */
export function inlineCode(text: string): string {
  return `\`${text.replace(/[`\r\n]/g, "'")}\``;
}
