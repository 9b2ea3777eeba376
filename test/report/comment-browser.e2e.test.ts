import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComparisonReport } from "../../src/app/compare.js";
import { scenarioNames } from "../../src/demo/scenarios.js";
import { haveBrowser, inCi, launchChromium } from "./browser.js";
import { demoScenarioComparison, matrixComparison } from "./comment-fixtures.js";
import { commentPage, conversationWidth } from "./gfm.js";

/**
 * The PR comment as a reviewer sees it: comment.md rendered as GitHub renders a comment (gfm.ts), with
 * GitHub's markdown stylesheet (github-markdown-css) in Debian's chromium, 900 px wide (a pull request's
 * conversation). For each demo scenario and a 19-cell comparison with one regression: the verdict and
 * every decided row are inside the first 1,000 px, and the first table does not scroll sideways. A
 * screenshot of each (the first screen and the whole comment) goes to .tmp/screenshots/, which .ci/run
 * keeps, for a person to look at.
 */

const repoRoot = resolve(import.meta.dirname, "../..");
const screenshots = join(repoRoot, ".tmp", "screenshots");
/** How far a reviewer reads without scrolling. */
const firstScreenPx = 1000;

let browser: Browser;

beforeAll(async () => {
  if (!haveBrowser && !inCi) return;
  await mkdir(screenshots, { recursive: true });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

/** A page holding `markdown` as GitHub shows a comment body: its markdown styles, 16 px of padding. */
async function openComment(markdown: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: conversationWidth, height: firstScreenPx } });
  const page = await context.newPage();
  // Nothing is fetched: the page is given whole, and any request (an image from the input) is refused.
  await context.route("**/*", (route) => route.abort("blockedbyclient"));
  await page.setContent(await commentPage(markdown, repoRoot));
  return page;
}

interface Layout {
  headingBottom: number;
  decidedRowBottoms: number[];
  firstTable: { scrollWidth: number; clientWidth: number } | null;
  /** Every table outside a fold: each must fit. */
  openTables: { scrollWidth: number; clientWidth: number }[];
}

/** The few DOM members the layout reads (the test is compiled without the DOM's types). */
interface Node {
  getBoundingClientRect(): { bottom: number };
  scrollWidth: number;
  clientWidth: number;
  textContent: string | null;
  closest(selector: string): Node | null;
  querySelector(selector: string): Node | null;
  querySelectorAll(selector: string): Iterable<Node>;
}

async function layoutOf(page: Page): Promise<Layout> {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: Node }).document;
    const heading = doc.querySelector("h2")!.getBoundingClientRect();
    const table = doc.querySelector("table");
    const rows = table ? [...table.querySelectorAll("tbody tr")] : [];
    const decided = rows.filter((row) => /^(🔴|🟢)/.test(row.querySelector("td")?.textContent ?? ""));
    const size = (t: Node) => ({ scrollWidth: t.scrollWidth, clientWidth: t.clientWidth });
    return {
      headingBottom: heading.bottom,
      decidedRowBottoms: decided.map((row) => row.getBoundingClientRect().bottom),
      firstTable: table && table.closest("details") === null ? size(table) : null,
      openTables: [...doc.querySelectorAll("table")].filter((t) => t.closest("details") === null).map(size),
    };
  });
}

const cases: [string, () => ComparisonReport][] = [
  ...scenarioNames.map((name): [string, () => ComparisonReport] => [
    `demo-${name}`,
    () => demoScenarioComparison(name),
  ]),
  ["matrix-18", matrixComparison],
];

describe.skipIf(!haveBrowser && !inCi)(
  "the PR comment at 900 px with GitHub's styles (Debian's chromium)",
  () => {
    for (const [name, make] of cases) {
      it(`${name}: the verdict and every decided change in the first 1,000 px, no sideways scrolling`, async () => {
        const outcome = make();
        const page = await openComment(outcome.commentMarkdown);
        const layout = await layoutOf(page);
        await page.screenshot({ path: join(screenshots, `comment-${name}.png`) });
        // The whole comment with every fold opened, for a person to check the folded tables too.
        await page.evaluate(() => {
          const doc = (
            globalThis as unknown as {
              document: { querySelectorAll(s: string): Iterable<{ open: boolean }> };
            }
          ).document;
          for (const fold of doc.querySelectorAll("details")) fold.open = true;
        });
        await page.screenshot({ path: join(screenshots, `comment-${name}-full.png`), fullPage: true });
        await page.context().close();
        expect(layout.headingBottom).toBeLessThan(firstScreenPx);
        const decided = outcome.verdict.comparisons.filter(
          (c) => c.gated && (c.verdict === "regression" || c.verdict === "improvement"),
        ).length;
        const decidedCapacity = (outcome.verdict.capacity ?? []).filter(
          (c) => c.gated && (c.verdict === "regression" || c.verdict === "improvement"),
        ).length;
        const decidedFamilies = (outcome.verdict.families ?? []).filter(
          (f) => f.verdict !== "no-finding",
        ).length;
        expect(layout.decidedRowBottoms).toHaveLength(decided + decidedCapacity + decidedFamilies);
        for (const bottom of layout.decidedRowBottoms) expect(bottom).toBeLessThanOrEqual(firstScreenPx);
        if (layout.firstTable)
          expect(layout.firstTable.scrollWidth).toBeLessThanOrEqual(layout.firstTable.clientWidth);
        for (const table of layout.openTables)
          expect(table.scrollWidth).toBeLessThanOrEqual(table.clientWidth);
      }, 60_000);
    }

    it("catches what it looks for: the long form's table of every gated check scrolls sideways at 900 px", async () => {
      const { reportMarkdown } = demoScenarioComparison("tradeoff");
      const wide = reportMarkdown.slice(reportMarkdown.indexOf("### Gated checks"));
      const page = await openComment(`## ❌ vllm-perf-gate: regression\n\n${wide}`);
      const layout = await layoutOf(page);
      await page.context().close();
      expect(layout.firstTable!.scrollWidth).toBeGreaterThan(layout.firstTable!.clientWidth);
    }, 60_000);
  },
);
