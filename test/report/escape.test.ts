import { describe, expect, it } from "vitest";
import { escapeHtml, escapeMarkdown, escapeValue, renderedForms } from "../../src/report/escape.js";

describe("escaping outside strings", () => {
  it("neutralises markdown structure, links and HTML", () => {
    const out = escapeMarkdown(
      "# [click](https://evil.example) <img src=x onerror=alert(1)> **bold** | col `code`",
    );
    expect(out).not.toMatch(/<img/);
    expect(out).toContain("&lt;img");
    expect(out).toContain("\\[click\\]\\(https\\:");
    expect(out).toContain("\\*\\*bold\\*\\*");
    expect(out).toContain("\\|");
    expect(out).toContain("\\`code\\`");
    expect(out.startsWith("\\#")).toBe(true);
  });

  it("breaks @-mentions with a zero-width space", () => {
    expect(escapeMarkdown("ping @octocat and @org/team")).toBe("ping @\u200boctocat and @\u200borg\\/team");
    expect(escapeHtml("@octocat")).toBe("@\u200boctocat");
  });

  it("flattens newlines so a value cannot start a new block, and clips long text", () => {
    expect(escapeMarkdown("a\n# heading\r\n- item")).toBe("a \\# heading \\- item");
    const long = escapeMarkdown("x".repeat(500), 50);
    expect(long).toHaveLength(50);
    expect(long.endsWith("…")).toBe(true);
  });

  it("escapes for HTML contexts without backslashes", () => {
    expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe(
      "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;",
    );
  });

  it("renders JSON values and missing values", () => {
    expect(escapeValue(null)).toBe("–");
    expect(escapeValue(["--flag", "1"])).toBe('\\[\\"\\-\\-flag\\"\\,\\"1\\"\\]');
  });
});

describe("escaped forms of a value", () => {
  it("are what escapeMarkdown and escapeHtml make of it (unclipped)", () => {
    const value = "mst_SECRET555qq-x.y:z*|<`";
    const [markdown, html] = renderedForms(value);
    expect(escapeMarkdown(value)).toBe(markdown);
    expect(escapeHtml(value)).toBe(html);
    expect(markdown).toBe("mst\\_SECRET555qq\\-x\\.y\\:z\\*\\|&lt;\\`");
  });
});
