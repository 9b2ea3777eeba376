import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkFunctionLengths,
  longFunctions,
  maxFunctionLines,
  runFunctionLengthCheck,
} from "../../scripts/check-function-length.js";

/** A function whose declaration spans `lines` lines in all (its braces included). */
function functionOf(name: string, lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`);
  return [`export function ${name}(): void {`, ...body, "}"].join("\n");
}

const tree = (files: Record<string, string>) => new Map(Object.entries(files));

describe("the function-length check", () => {
  it("passes a function of exactly the limit and fails one a line longer, naming file, line and length", () => {
    const source = `${functionOf("short", maxFunctionLines)}\n\n${functionOf("long", maxFunctionLines + 1)}\n`;
    expect(longFunctions("app/steps.ts", source)).toEqual([
      { file: "app/steps.ts", name: "long", line: maxFunctionLines + 2, lines: maxFunctionLines + 1 },
    ]);
  });

  it("counts from the first token, not the doc comment above it", () => {
    const comment = Array.from({ length: 10 }, () => " * why").join("\n");
    const source = `/**\n${comment}\n */\n${functionOf("documented", maxFunctionLines)}\n`;
    expect(longFunctions("a.ts", source)).toEqual([]);
  });

  it("names arrow functions, methods and object members by what they are assigned to", () => {
    const body = Array.from({ length: 5 }, (_, i) => `    const v${i} = ${i};`).join("\n");
    const source = [
      `const arrow = () => {\n${body}\n};`,
      `class Holder {\n  method(): void {\n${body}\n  }\n  constructor() {\n${body}\n  }\n}`,
      `const command = {\n  async run() {\n${body}\n  },\n  field: function () {\n${body}\n  },\n};`,
      `[1].map((x) => {\n${body}\n  return x;\n});`,
    ].join("\n");
    expect(longFunctions("a.ts", source, 4).map((found) => found.name)).toEqual([
      "arrow",
      "method",
      "constructor",
      "run",
      "field",
      "<anonymous>",
    ]);
  });

  it("counts the functions nested in a function as its lines, and each nested one on its own", () => {
    const inner = functionOf("inner", 10).replace("export ", "");
    const source = `function outer(): void {\n${inner}\n${inner.replace("inner", "other")}\n}\n`;
    expect(longFunctions("a.ts", source, 12).map((found) => [found.name, found.lines])).toEqual([
      ["outer", 22],
    ]);
    expect(longFunctions("a.ts", source, 9).map((found) => found.name)).toEqual(["outer", "inner", "other"]);
  });

  it("ignores signatures without a body (interfaces, overloads, declarations)", () => {
    const members = Array.from({ length: 100 }, (_, i) => `  m${i}(): void;`).join("\n");
    expect(longFunctions("a.ts", `interface Big {\n${members}\n}\n`, 1)).toEqual([]);
  });

  it("lets an allowed table through, and fails an allowance that no long function uses", () => {
    const allowed = [
      { file: "report/table.ts", name: "table", reason: "a table" },
      { file: "report/table.ts", name: "gone", reason: "was a table" },
    ];
    const result = checkFunctionLengths(
      tree({ "report/table.ts": functionOf("table", maxFunctionLines + 5) }),
      allowed,
    );
    expect(result).toEqual({ tooLong: [], unusedAllowances: [allowed[1]] });
  });
});

describe("check:functions on a source tree", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function treeWith(files: Record<string, string>): Promise<string> {
    dir = await mkdtemp(join(tmpdir(), "vpg-fnlen-"));
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return dir;
  }

  it("exits 0 for a tree of short functions", async () => {
    const src = await treeWith({
      "app/short.ts": functionOf("short", 20),
      "util/tiny.ts": "export const x = 1;\n",
    });
    const outcome = await runFunctionLengthCheck(src);
    expect(outcome.code).toBe(0);
    expect(outcome.errors).toEqual([]);
    expect(outcome.summary).toContain("2 files under src/, no function over 80 lines");
  });

  it("exits 1 naming the long function and where it is", async () => {
    const src = await treeWith({
      "app/short.ts": functionOf("short", 20),
      "app/long.ts": `\n${functionOf("runEverything", 120)}\n`,
    });
    const outcome = await runFunctionLengthCheck(src);
    expect(outcome.code).toBe(1);
    expect(outcome.errors).toEqual([
      expect.stringMatching(
        /^src\/app\/long\.ts:2: runEverything is 120 lines, over the 80-line limit: cut it/,
      ),
    ]);
    expect(outcome.summary).toBe("check-functions: 1 problem(s) in 2 files under src/");
  });
});
