import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { endToEndTests } from "../../vitest.config.js";

describe("docs/testing.md", () => {
  const page = readFileSync("docs/testing.md", "utf8");
  const named = new Set([...page.matchAll(/`(test\/[\w./-]+\.test\.ts)`/g)].map((match) => match[1]!));

  it("gives the reason of every file the e2e project lists", () => {
    for (const file of endToEndTests) expect(named, file).toContain(file);
  });

  it("names only files that exist and, besides the e2e-named ones, only those the list holds", () => {
    for (const file of named) {
      expect(existsSync(file), file).toBe(true);
      const byName = /\.e2e\.test\.ts$|-browser\.test\.ts$/.test(file);
      const listed = (endToEndTests as readonly string[]).includes(file);
      const mentionedAsUnit =
        file === "test/server/readiness.test.ts" || file === "test/scripts/testing-docs.test.ts";
      expect(byName || listed || mentionedAsUnit, file).toBe(true);
    }
  });
});
