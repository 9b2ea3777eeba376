import type { OverallVerdict } from "../compare/verdict/verdict-schema.js";
import { largest } from "../util/extremes.js";
import { escapeCell, escapeInline, inlineCode } from "./escape.js";
import { table } from "./markdown-blocks.js";

/**
 * The first screen's parts (report/first-screen.ts) write blocks through a `Markup`, so the same parts
 * give the markdown of the comment and report.md and the text the terminal prints: markdown escapes
 * every outside string for its context; the terminal strips control characters and colours verdicts.
 */

export type Tone = "bad" | "good" | "open" | "plain";

/** How a part marks its text up. */
export interface Markup {
  /** A string from outside, in running text. */
  text(value: string, max?: number): string;
  /** A string from outside, in a table cell. */
  cell(value: string, max?: number): string;
  strong(text: string): string;
  /** A name of ours shown as code (a label, a file name); backticks and newlines are replaced. */
  code(text: string): string;
  link(label: string, url: string): string;
  tone(tone: Tone, text: string): string;
}

export type Block =
  | { kind: "heading"; verdict: OverallVerdict; title: string; icon: string }
  /** Lines of one paragraph. */
  | { kind: "paragraph"; lines: readonly string[] }
  | { kind: "table"; header: readonly string[]; rows: readonly (readonly string[])[]; notes: string }
  | { kind: "list"; title: string; items: readonly string[] };

export const markdownMarkup: Markup = {
  text: (value, max) => escapeInline(value, max),
  cell: (value, max) => escapeCell(value, max),
  strong: (text) => `**${text}**`,
  code: inlineCode,
  link: (label, url) => `[${label}](${url})`,
  tone: (_tone, text) => text,
};

function blockToMarkdown(block: Block): string {
  switch (block.kind) {
    case "heading":
      return `## ${block.icon} vllm-perf-gate: ${block.title}`;
    case "paragraph":
      // Two trailing spaces: a line break inside the paragraph.
      return block.lines.join("  \n");
    case "table":
      return `${table(block.header, block.rows)}\n\n<sub>${block.notes}</sub>`;
    case "list":
      return [`**${block.title}**`, ...block.items.map((item) => `- ${item}`)].join("\n");
  }
}

/** Blocks as markdown, separated by blank lines. */
export function blocksToMarkdown(blocks: readonly Block[]): string {
  return blocks.map(blockToMarkdown).join("\n\n");
}

const ansi = { bad: 31, good: 32, open: 33, bold: 1, dim: 2 } as const;

/** Control characters from outside strings would move the cursor or recolour the terminal. */
export function cleanForTerminal(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
}

/** Plain text for a terminal, with colours when `color`. */
export function terminalMarkup(color: boolean): Markup {
  const paint = (code: number, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const clip = (value: string, max = Number.POSITIVE_INFINITY) => {
    const clean = cleanForTerminal(value);
    return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
  };
  return {
    text: clip,
    cell: clip,
    strong: (text) => paint(ansi.bold, text),
    code: (text) => cleanForTerminal(text),
    link: (label, url) => `${label} (${cleanForTerminal(url)})`,
    tone: (tone, text) => (tone === "plain" ? text : paint(ansi[tone], text)),
  };
}

/** Columns a string takes in a terminal: colour codes none, an emoji two. */
function visibleLength(text: string): number {
  let columns = 0;
  for (const ch of text.replace(/\u001b\[\d+m/g, ""))
    columns += /\p{Extended_Pictographic}/u.test(ch) ? 2 : 1;
  return columns;
}

function blockToTerminal(block: Block, markup: Markup): string {
  switch (block.kind) {
    case "heading":
      return markup.strong(
        markup.tone(
          block.verdict === "pass" ? "good" : block.verdict === "inconclusive" ? "open" : "bad",
          `vllm-perf-gate: ${block.title.toUpperCase()}`,
        ),
      );
    case "paragraph":
      return block.lines.join("\n");
    case "table": {
      const rows = [block.header, ...block.rows];
      const widths = block.header.map((_, c) => largest(rows.map((row) => visibleLength(row[c] ?? ""))));
      const line = (row: readonly string[]) =>
        row
          .map((cell, c) => cell + " ".repeat(widths[c]! - visibleLength(cell)))
          .join("  ")
          .trimEnd();
      return [line(block.header), ...block.rows.map(line), block.notes].join("\n");
    }
    case "list":
      return [block.title, ...block.items.map((item) => `  - ${item}`)].join("\n");
  }
}

/** Blocks as terminal text: the table's columns padded, lists indented. */
export function blocksToTerminal(blocks: readonly Block[], markup: Markup): string {
  return blocks.map((block) => blockToTerminal(block, markup)).join("\n\n");
}
