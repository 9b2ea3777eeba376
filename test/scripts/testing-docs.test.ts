import { existsSync, readdirSync, readFileSync } from "node:fs";
import { sep } from "node:path";
import { describe, expect, it } from "vitest";
import { endToEndPattern } from "../../vitest.config.js";

describe("docs/testing.md", () => {
  const page = readFileSync("docs/testing.md", "utf8");
  const namedIn = (text: string) =>
    new Set([...text.matchAll(/`(test\/[\w./-]+\.test\.ts)`/g)].map((match) => match[1]!));

  it("states the rule vitest.config.ts places test files by", () => {
    expect(endToEndPattern).toBe("test/**/*.e2e.test.ts");
    expect(page).toContain("`*.e2e.test.ts` is the `e2e` project, every other `*.test.ts` is `unit`");
  });

  it("places every test file in a folder that mirrors src/ (or bench/, scripts/), or at the top of test/", () => {
    const mirrored = new Set([
      ...readdirSync("src", { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name),
      "bench",
      "scripts",
    ]);
    const testFiles = readdirSync("test", { recursive: true, encoding: "utf8" }).filter((path) =>
      path.endsWith(".test.ts"),
    );
    expect(testFiles.length).toBeGreaterThan(0);
    const misplaced = testFiles.filter((path) => {
      const parts = path.split(sep);
      return parts.length > 1 && !mirrored.has(parts[0]!);
    });
    expect(misplaced).toEqual([]);
  });

  it("names only test files that exist", () => {
    for (const file of namedIn(page)) expect(existsSync(file), file).toBe(true);
  });

  it("gives reasons only for files of the e2e project, each named *.e2e.test.ts", () => {
    // The first cell of each table row of the e2e section: the file the row gives its reason for.
    const section = page.slice(page.indexOf("## The `e2e` project"), page.indexOf("\n## Order"));
    const rows = [...section.matchAll(/^\| `(test\/[\w./-]+)` \|/gm)].map((match) => match[1]!);
    expect(rows.length).toBeGreaterThan(0);
    for (const file of rows) expect(file).toMatch(/\.e2e\.test\.ts$/);
  });
});
