/**
 * A comment.md as a reviewer sees it on a pull request: rendered as GitHub renders a comment
 * (test/report/gfm.ts) with GitHub's markdown styles (github-markdown-css), in Debian's chromium at
 * 900 px, saved as a PNG of its first 1,000 px (or of the whole comment with --full, folds opened).
 *
 * Usage: npx tsx scripts/render-comment.ts COMMENT.md OUT.png [--full]
 * (docs/images/comment.png is `demo`'s comment.md rendered this way.)
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { launchChromium } from "../test/report/browser.js";
import { commentPage } from "../test/report/gfm.js";

const [input, output, ...flags] = process.argv.slice(2);
if (!input || !output) {
  process.stderr.write("usage: npx tsx scripts/render-comment.ts COMMENT.md OUT.png [--full]\n");
  process.exit(2);
}
const full = flags.includes("--full");
const repoRoot = resolve(import.meta.dirname, "..");
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 900, height: 1000 } });
  await page.route("**/*", (route) => route.abort("blockedbyclient"));
  await page.setContent(await commentPage(await readFile(input, "utf8"), repoRoot));
  if (full)
    await page.evaluate(() => {
      const doc = (
        globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<{ open: boolean }> } }
      ).document;
      for (const fold of doc.querySelectorAll("details")) fold.open = true;
    });
  await page.screenshot({ path: output, fullPage: full });
  process.stdout.write(`wrote ${output}\n`);
} finally {
  await browser.close();
}
