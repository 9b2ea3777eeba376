import { readFile } from "node:fs/promises";
import { join } from "node:path";
import rehypeRaw from "rehype-raw";
import rehypeSanitize from "rehype-sanitize";
import rehypeStringify from "rehype-stringify";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import remarkRehype from "remark-rehype";
import { unified } from "unified";

/**
 * Markdown to HTML as GitHub renders a comment: GitHub Flavored Markdown (tables, autolink literals for
 * bare URLs, `www.` and e-mail addresses, strikethrough, task lists, footnotes), raw HTML kept and then
 * sanitised to an allow-list (rehype-sanitize's default schema follows GitHub's: `<details>`, `<summary>`,
 * `<sub>`, `<b>`, `<pre>` and `<img>` stay, scripts, styles and event handlers go). What it does not do,
 * GitHub does after rendering, on text outside code: @-mentions, #-references and emoji short codes;
 * `mentionsIn` finds those.
 */
const processor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkRehype, { allowDangerousHtml: true })
  .use(rehypeRaw)
  .use(rehypeSanitize)
  .use(rehypeStringify);

export function renderGfm(markdown: string): string {
  return String(processor.processSync(markdown));
}

/** The element names of rendered HTML, in document order: its structure, whatever its text. */
export function tagSequence(html: string): string[] {
  return [...html.matchAll(/<([a-z][a-z0-9]*)\b/g)].map((m) => m[1]!);
}

/**
 * What GitHub would turn into a notification or a link in the text of rendered HTML (outside code): an
 * @-mention or a #-reference not broken by a zero-width space.
 */
export function mentionsIn(html: string): string[] {
  const text = html
    .replace(/<(code|pre)\b[\s\S]*?<\/\1>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x26;/g, "&")
    .replace(/&#x3C;/g, "<");
  return [...text.matchAll(/(?<![\w`@\u200b])(@[A-Za-z0-9][A-Za-z0-9-]*|#\d+)/g)].map((m) => m[1]!);
}

/** GitHub's light markdown stylesheet, from the npm package github-markdown-css. */
async function githubMarkdownCss(repoRoot: string): Promise<string> {
  return readFile(join(repoRoot, "node_modules/github-markdown-css/github-markdown-light.css"), "utf8");
}

/** The width of a pull request's conversation column. */
export const conversationWidth = 900;

/** A page holding `markdown` as GitHub shows a comment body: rendered, its styles, 16 px of padding. */
export async function commentPage(markdown: string, repoRoot: string): Promise<string> {
  const css = await githubMarkdownCss(repoRoot);
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><style>${css}</style><style>body { margin: 0; } .markdown-body { box-sizing: border-box; width: ${conversationWidth}px; padding: 16px; }</style></head><body><article class="markdown-body">${renderGfm(markdown)}</article></body></html>`;
}
