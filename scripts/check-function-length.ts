import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { sourcesUnder } from "./check-imports.js";

/**
 * The function-length check (`npm run check:functions`, a step of `.ci/run`): no function in `src/` is
 * longer than `maxFunctionLines` lines, so each reads as a few named steps. A function is any function
 * declaration or expression, arrow function, method, constructor or accessor; its lines run from its
 * first token (its doc comment not counted) to its closing brace, the functions nested in it included.
 * The only exceptions are the entries of `allowedLongFunctions`, each with its reason; an entry that
 * matches no long function fails the check too.
 */
export const maxFunctionLines = 80;

/** A function allowed to be longer than the limit: a table in a function's clothing, with the reason. */
export interface AllowedLongFunction {
  /** Its file, relative to src/. */
  file: string;
  /** Its name as the check reports it. */
  name: string;
  reason: string;
}

export const allowedLongFunctions: readonly AllowedLongFunction[] = [];

export interface LongFunction {
  /** Relative to src/ (posix separators). */
  file: string;
  name: string;
  /** 1-based line of its first token. */
  line: number;
  lines: number;
}

export interface FunctionLengthResult {
  tooLong: LongFunction[];
  /** Allowed entries that matched no long function (stale: remove them). */
  unusedAllowances: AllowedLongFunction[];
}

/** The name a function is known by: its own, else the variable, property or method it is assigned to. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)) &&
    parent.name
  )
    return parent.name.getText();
  return "<anonymous>";
}

/** The functions of one source longer than `limit` lines, in the order they start. */
export function longFunctions(file: string, source: string, limit = maxFunctionLines): LongFunction[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const first = tree.getLineAndCharacterOfPosition(node.getStart(tree)).line;
      const last = tree.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > limit)
        found.push({ file, name: nameOf(node as ts.FunctionLikeDeclaration), line: first + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

/** Checks sources given as paths relative to src/ and their text against the limit and the allowed entries. */
export function checkFunctionLengths(
  files: ReadonlyMap<string, string>,
  allowed: readonly AllowedLongFunction[] = allowedLongFunctions,
  limit = maxFunctionLines,
): FunctionLengthResult {
  const used = new Set<AllowedLongFunction>();
  const tooLong: LongFunction[] = [];
  for (const [file, source] of files) {
    if (!/\.(ts|mts|cts)$/.test(file) || file.endsWith(".d.ts")) continue;
    for (const found of longFunctions(file, source, limit)) {
      const allowance = allowed.find((entry) => entry.file === found.file && entry.name === found.name);
      if (allowance) used.add(allowance);
      else tooLong.push(found);
    }
  }
  return { tooLong, unusedAllowances: allowed.filter((entry) => !used.has(entry)) };
}

/** The check's messages and exit code for the tree at `src` (what `main` prints). */
export async function runFunctionLengthCheck(
  src: string,
): Promise<{ code: number; errors: string[]; summary: string }> {
  const files = await sourcesUnder(src);
  const result = checkFunctionLengths(files);
  const errors = [
    ...result.tooLong.map(
      (found) =>
        `src/${found.file}:${found.line}: ${found.name} is ${found.lines} lines, over the ${maxFunctionLines}-line limit: cut it into named steps (or, for a table, add it to allowedLongFunctions in scripts/check-function-length.ts with the reason)`,
    ),
    ...result.unusedAllowances.map(
      (entry) =>
        `allowed long function ${entry.file} ${entry.name} is no longer over ${maxFunctionLines} lines (or is gone): remove it from scripts/check-function-length.ts`,
    ),
  ];
  if (errors.length > 0)
    return {
      code: 1,
      errors,
      summary: `check-functions: ${errors.length} problem(s) in ${files.size} files under src/`,
    };
  return {
    code: 0,
    errors,
    summary: `check-functions: ${files.size} files under src/, no function over ${maxFunctionLines} lines (${allowedLongFunctions.length} allowed, listed in scripts/check-function-length.ts)`,
  };
}

/** `tsx scripts/check-function-length.ts [src-dir]`: checks the tree's src/ (or the directory given). */
async function main(): Promise<number> {
  const src = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "..", "src");
  const { code, errors, summary } = await runFunctionLengthCheck(src);
  for (const error of errors) console.error(error);
  (code === 0 ? console.log : console.error)(summary);
  return code;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
