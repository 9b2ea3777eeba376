import { describe, expect, it } from "vitest";
import { escapeCell, escapeHtml, escapeInline, escapeValue, renderedForms } from "../../src/report/escape.js";
import { renderGfm } from "./gfm.js";

const zws = "\u200b";

describe("escaping outside strings, one escaper per context", () => {
  it("neutralises links, images, HTML, code, emphasis and math in text", () => {
    const out = escapeInline(
      "[click](https://evil.example) ![i](x) <img src=x onerror=alert(1)> **bold** `code` ~s~ $x$",
    );
    expect(out).toBe(
      `\\[click\\](https:${zws}//evil.example) ![i\\](x) &lt;img src=x onerror=alert(1)> \\*\\*bold\\*\\* \\\`code\\\` \\~s\\~ \\$x\\$`,
    );
  });

  it("keeps what cannot open markup as it is: paths, intraword underscores, dots and dashes", () => {
    expect(escapeInline("client-bound: p99 72.6 ms > 50 ms (client.max_event_loop_lag_ms) a/b/c")).toBe(
      "client-bound: p99 72.6 ms > 50 ms (client.max_event_loop_lag_ms) a/b/c",
    );
    // An underscore that could open emphasis is escaped; one inside a word is not.
    expect(escapeInline("_x_ max_tokens __y")).toBe("\\_x\\_ max_tokens \\_\\_y");
  });

  it("escapes a block marker only where the text starts", () => {
    expect(escapeInline("# heading")).toBe("\\# heading");
    expect(escapeInline("- item - b")).toBe("\\- item - b");
    expect(escapeInline("12. item")).toBe("12\\. item");
    expect(escapeInline("> quote > b")).toBe("\\> quote > b");
  });

  it("breaks what GitHub links or notifies on without markup: mentions, references, URLs, e-mail, emoji codes", () => {
    expect(escapeInline("ping @octocat and @org/team")).toBe(`ping @${zws}octocat and @${zws}org/team`);
    expect(escapeInline("fixes #12 see www.x.example ftp://x mail a@b.example :rocket:")).toBe(
      `fixes #${zws}12 see www${zws}.x.example ftp:${zws}//x mail a@${zws}b.example :${zws}rocket:`,
    );
    expect(escapeHtml("@octocat https://x")).toBe(`@${zws}octocat https:${zws}//x`);
  });

  it("escapes a table cell's pipes, and backslashes everywhere", () => {
    expect(escapeCell("a|b\\")).toBe("a\\|b\\\\");
    expect(escapeInline("a|b")).toBe("a|b");
  });

  it("flattens newlines so a value cannot start a new block, and clips long text", () => {
    expect(escapeInline("a\n# heading\r\n- item")).toBe("a # heading - item");
    const long = escapeInline("x".repeat(500), 50);
    expect(long).toHaveLength(50);
    expect(long.endsWith("…")).toBe(true);
  });

  it("escapes for HTML contexts without backslashes", () => {
    expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe(
      "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;",
    );
  });

  it("renders JSON values and missing values for a cell", () => {
    expect(escapeValue(null)).toBe("–");
    expect(escapeValue(["--flag", "a|b"])).toBe('["--flag","a\\|b"]');
  });

  it("leaves nothing a GFM renderer turns into an element, in each context", () => {
    const hostile =
      "<img src=https://x.example/p.png> @everyone [click](https://x.example) # h | `c` *e* _u_ ~s~ www.x.example a@b.example";
    const rendered = [
      renderGfm(`- **${escapeInline(hostile, 500)}**: x`),
      renderGfm(`| a | b |\n| --- | --- |\n| ${escapeCell(hostile, 500)} | z |`),
      renderGfm(`<details><summary>${escapeHtml(hostile, 500)}</summary>\n\nbody\n\n</details>`),
    ];
    for (const html of rendered) {
      expect(html).not.toMatch(/<(img|a|em|code|del|h\d)\b/);
      expect(html).toContain(`@${zws}everyone`);
    }
    // The cell stayed one cell.
    expect(rendered[1]!.match(/<td>/g)).toHaveLength(2);
  });
});

describe("escaped forms of a value", () => {
  it("are what the escapers make of it, alone and inside a word (unclipped)", () => {
    const value = "mst_SECRET555qq-x.y:z*|<`_";
    const forms = renderedForms(value);
    expect(forms).toContain(escapeInline(value, 1000));
    expect(forms).toContain(escapeCell(value, 1000));
    expect(forms).toContain(escapeHtml(value, 1000));
    // Between letters the trailing underscore is intraword, and stays.
    expect(forms.some((form) => escapeInline(`a${value}b`, 1000).includes(form))).toBe(true);
  });
});
