/**
 * Text that came from outside this job (a downloaded baseline's note, a label, a login) is shown in
 * markdown escaped, so it cannot inject links, mentions, HTML or a forged comment marker.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
    .replace(/[\\`*_{}[\]()#+\-.!|<>~&@]/g, (character) => `\\${character}`)
    .replace(/\r?\n/g, " ");
}

/** A commit id is shown only when it looks like one; anything else is reported as invalid. */
export function safeSha(value: string): string | null {
  return /^[0-9a-f]{7,64}$/i.test(value) ? value.toLowerCase() : null;
}

/** A GitHub login, or null when the text is not one (so it is never rendered as markup). */
export function safeLogin(value: string): string | null {
  return /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/.test(value) ? value : null;
}

/** Inline code for short untrusted text: backticks and newlines cannot close or break the span. */
export function inlineCode(text: string): string {
  return `\`${text.replace(/[`\r\n]/g, "'")}\``;
}
