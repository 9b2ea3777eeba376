import { readdir, readFile } from "node:fs/promises";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * The import-direction check (`npm run check:imports`, a step of `.ci/run`): every relative import in
 * `src/` must point down the pipeline, never against it. A folder may import from its own folder and
 * from any folder on a lower layer; two folders on one layer (server and sim) do not
 * import each other. Type-only and dynamic imports count like any other. A folder with an `index.ts`
 * is imported through it alone (`indexModules`).
 */
export const layers: readonly (readonly string[])[] = [
  // The ground floor: errors, the seeded random module, the clock, exit handling, the version.
  ["util", "version"],
  // Pure math (distributions, tests, percentiles, capacity fits) on util alone: every layer above may use it.
  ["stats"],
  ["config"],
  // The simulator sits beside server/: it is the server the runner talks to when there is no vLLM,
  // launched by server/ as a command (never imported by it) and importing only the floors below.
  ["server", "sim"],
  ["workload"],
  ["client"],
  ["runner"],
  ["metrics"],
  ["compare"],
  ["report"],
  ["github"],
  // The demo's scenarios: data (configs and what each should show) that the demo use case reads.
  ["demo"],
  // The use cases (compare, gate, record a baseline, run cells, the demo): the entry points above call them.
  ["app"],
  ["action"],
  // The CLI dispatches every use case, the demo's among them.
  ["cli"],
];

/** Imports against the flow that are known and allowed, each with its reason; an entry no import uses fails the check. */
export interface AllowedImport {
  /** A file or folder under src/ (folder ending in "/"). */
  from: string;
  to: string;
  reason: string;
}

export const allowedImports: readonly AllowedImport[] = [
  {
    from: "version.ts",
    to: "../package.json",
    reason: "the tool's one version string is package.json's (rollup inlines it into dist/)",
  },
];

/**
 * A folder with an `index.ts` has an interface: the other folders import it only through that file, so
 * what the folder offers is one file to read and the rest of it can change freely. The folders whose
 * `index.ts` is a module like any other, imported module by module, are listed here with their reason;
 * an entry whose folder has no `index.ts` fails the check.
 */
export interface IndexModule {
  folder: string;
  reason: string;
}

export const indexModules: readonly IndexModule[] = [
  {
    folder: "compare",
    reason:
      "compare/index.ts holds compareRecords, one module of the analysis; compare/ is imported module by module",
  },
];

export interface Violation {
  file: string;
  specifier: string;
  target: string;
  message: string;
}

export interface CheckResult {
  violations: Violation[];
  /** Allowed entries that matched no import (stale: remove them). */
  unusedAllowances: AllowedImport[];
  /** Listed index modules whose folder has no index.ts (stale: remove them). */
  missingIndexModules: IndexModule[];
  /** Files whose folder is on no layer. */
  unplaced: string[];
}

const staticImport = /(?:^|\n)[ \t]*(?:import|export)[ \t]+[\w\s{},*$]*?from[ \t]*["']([^"']+)["']/g;
const sideEffectImport = /(?:^|\n)[ \t]*import[ \t]*["']([^"']+)["']/g;
const dynamicImport = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The module specifiers a TypeScript source imports or re-exports from. */
export function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  for (const pattern of [staticImport, sideEffectImport, dynamicImport]) {
    for (const match of source.matchAll(pattern)) found.push(match[1]!);
  }
  return found;
}

/** The unit a path under src/ belongs to: its folder, or for a top-level file its name ("cli.ts" is with "cli/"). */
function unitOf(path: string): string {
  const slash = path.indexOf("/");
  return slash === -1 ? path.replace(/\.[cm]?ts$/, "") : path.slice(0, slash);
}

/**
 * Folders layered inside as src/ is, bottom first: a subfolder imports only from its own subfolder and
 * from those on a lower layer; two on one layer do not import each other. "." is the folder's own files.
 */
export const innerLayers: Readonly<Record<string, readonly (readonly string[])[]>> = {
  compare: [
    // The noise a check believes before its runs: where a prior came from, the start level, session drift.
    ["noise"],
    // verdict.json: its schema and its parts', the exit code, the headline's words.
    ["verdict"],
    // Reading both sides: files and their limits, server starts, fingerprints (comparability), run samples.
    ["inputs"],
    // GPU-minute costs and the pull request's budget; main's history of baseline sessions.
    ["budget", "history"],
    // The per-metric analysis in stages, the gated family and the quality checks.
    ["analyze"],
    ["capacity"],
    // index.ts: compareRecords, the folder's entry.
    ["."],
    // An A/A calibration judges its splits with compareRecords.
    ["calibration"],
  ],
};

function layerIn(order: readonly (readonly string[])[], unit: string): number {
  return order.findIndex((layer) => layer.includes(unit));
}

/** Why an import from one unit to another runs against `order`; null when it runs down it. */
function againstTheFlow(
  fromUnit: string,
  toUnit: string,
  order: readonly (readonly string[])[],
  name: (unit: string) => string = (unit) => unit,
): string | null {
  const fromLayer = layerIn(order, fromUnit);
  const toLayer = layerIn(order, toUnit);
  if (fromLayer !== -1 && toLayer !== -1 && toLayer < fromLayer) return null;
  if (toLayer === -1) return `${name(toUnit)} is on no layer`;
  if (fromLayer === -1) return `${name(fromUnit)} is on no layer`;
  if (toLayer === fromLayer) return `${name(fromUnit)} and ${name(toUnit)} are on the same layer`;
  return `${name(toUnit)} (layer ${toLayer}) is above ${name(fromUnit)} (layer ${fromLayer})`;
}

/** A path's subfolder in its layered folder ("compare/analyze/x.ts" is in "analyze"); "." for its own files. */
function innerUnitOf(path: string): string {
  const parts = path.split("/");
  return parts.length > 2 ? parts[1]! : ".";
}

/** Why an import between two files runs against the flow, across folders or inside a layered one; null if not. */
function directionProblem(file: string, resolved: string): string | null {
  const fromUnit = unitOf(file);
  const toUnit = unitOf(resolved);
  if (fromUnit !== toUnit) return againstTheFlow(fromUnit, toUnit, layers);
  const inner = innerLayers[fromUnit];
  const fromInner = innerUnitOf(file);
  const toInner = innerUnitOf(resolved);
  if (!inner || fromInner === toInner) return null;
  const name = (unit: string) => (unit === "." ? `${fromUnit}/'s own files` : `${fromUnit}/${unit}`);
  return againstTheFlow(fromInner, toInner, inner, name);
}

/** Whether a file's folder (and its subfolder, in a layered folder) is on a layer. */
function placed(file: string): boolean {
  const unit = unitOf(file);
  const inner = innerLayers[unit];
  return layerIn(layers, unit) !== -1 && (!inner || layerIn(inner, innerUnitOf(file)) !== -1);
}

function matches(pattern: string, path: string): boolean {
  return pattern.endsWith("/") ? path.startsWith(pattern) : path === pattern;
}

/**
 * Checks sources given as paths relative to src/ (posix separators) and their text. Only relative
 * imports are followed; packages and node: builtins are outside the layering.
 */
export function checkImports(
  files: ReadonlyMap<string, string>,
  allowed: readonly AllowedImport[] = allowedImports,
  modules: readonly IndexModule[] = indexModules,
): CheckResult {
  const violations: Violation[] = [];
  const interfaceOf = (unit: string): string | null => {
    const index = `${unit}/index.ts`;
    return files.has(index) && !modules.some((entry) => entry.folder === unit) ? index : null;
  };
  const used = new Set<AllowedImport>();
  const unplaced = new Set<string>();
  for (const [file, source] of files) {
    if (!placed(file)) unplaced.add(file);
    for (const specifier of importSpecifiers(source)) {
      if (!specifier.startsWith(".")) continue;
      const resolved = posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, ".ts");
      const outside = resolved.startsWith("..");
      const entrance = outside || unitOf(resolved) === unitOf(file) ? null : interfaceOf(unitOf(resolved));
      if (entrance !== null && resolved !== entrance)
        violations.push({
          file,
          specifier,
          target: resolved,
          message: `src/${file} imports "${specifier}" (src/${resolved}) past src/${entrance}, the interface of ${unitOf(resolved)}/: import it from there`,
        });
      const where = outside ? null : directionProblem(file, resolved);
      if (!outside && where === null) continue;
      const allowance = allowed.find((entry) => matches(entry.from, file) && matches(entry.to, resolved));
      if (allowance) {
        used.add(allowance);
        continue;
      }
      violations.push({
        file,
        specifier,
        target: resolved,
        message: outside
          ? `src/${file} imports "${specifier}", outside src/`
          : `src/${file} imports "${specifier}" (src/${resolved}) against the flow: ${where}`,
      });
    }
  }
  return {
    violations,
    unusedAllowances: allowed.filter((entry) => !used.has(entry)),
    missingIndexModules: modules.filter((entry) => !files.has(`${entry.folder}/index.ts`)),
    unplaced: [...unplaced].sort(),
  };
}

/**
 * The benches' one rule: nothing under bench/ imports test code (what the benches share with the tests
 * is bench/kit/'s, which the tests may import). `files` are paths relative to bench/ and their text.
 */
export function checkBenchImports(files: ReadonlyMap<string, string>): Violation[] {
  const violations: Violation[] = [];
  for (const [file, source] of files)
    for (const specifier of importSpecifiers(source)) {
      if (!specifier.startsWith(".")) continue;
      const target = posix.normalize(posix.join("bench", posix.dirname(file), specifier));
      if (target === "test" || target.startsWith("test/"))
        violations.push({
          file,
          specifier,
          target,
          message: `bench/${file} imports "${specifier}" (${target}): the benches import no test code (shared helpers go in bench/kit/)`,
        });
    }
  return violations;
}

/**
 * Import cycles among the files under src/ (type-only imports count: a circle of types is still two
 * modules that cannot be read or moved one without the other). Each cycle is one strongly connected
 * component of the import graph, its files sorted; a file importing itself is one too.
 */
export function findImportCycles(files: ReadonlyMap<string, string>): string[][] {
  const edges = new Map<string, string[]>();
  for (const [file, source] of files) {
    const targets = importSpecifiers(source)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, ".ts"))
      .filter((target) => files.has(target));
    edges.set(file, [...new Set(targets)]);
  }
  // Tarjan's strongly connected components, iteratively (deep import chains would overflow recursion).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  for (const root of files.keys()) {
    if (index.has(root)) continue;
    const work: { file: string; edge: number }[] = [{ file: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = edges.get(frame.file)!;
      if (frame.edge < targets.length) {
        const target = targets[frame.edge++]!;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.file, Math.min(low.get(frame.file)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      for (;;) {
        const member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
        if (member === frame.file) break;
      }
      if (component.length > 1 || targets.includes(frame.file)) cycles.push(component.sort());
    }
  }
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

export async function sourcesUnder(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (/\.(ts|mts|cts)$/.test(entry.name)) {
        files.set(relative(root, path).split("\\").join("/"), await readFile(path, "utf8"));
      }
    }
  };
  await walk(root);
  return new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
}

/** `tsx scripts/check-imports.ts [src-dir]`: checks the tree's src/ (or the directory given). */
async function main(): Promise<number> {
  const src = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "..", "src");
  const files = await sourcesUnder(src);
  const result = checkImports(files);
  const bench = join(src, "..", "bench");
  const benchViolations = checkBenchImports(await sourcesUnder(bench).catch(() => new Map<string, string>()));
  const cycles = findImportCycles(files);
  for (const violation of [...result.violations, ...benchViolations]) console.error(violation.message);
  for (const cycle of cycles)
    console.error(
      `import cycle: ${cycle.map((file) => `src/${file}`).join(" <-> ")} (move what they share into a module of its own)`,
    );
  for (const file of result.unplaced)
    console.error(`src/${file}: its folder is on no layer of scripts/check-imports.ts`);
  for (const entry of result.missingIndexModules)
    console.error(
      `index module ${entry.folder}/index.ts does not exist: remove it from indexModules in scripts/check-imports.ts`,
    );
  for (const entry of result.unusedAllowances) {
    console.error(
      `allowed import ${entry.from} -> ${entry.to} is used by no import: remove it from scripts/check-imports.ts`,
    );
  }
  const failed =
    result.violations.length +
    result.unplaced.length +
    result.unusedAllowances.length +
    result.missingIndexModules.length +
    benchViolations.length +
    cycles.length;
  if (failed > 0) {
    console.error(`check-imports: ${failed} problem(s) in ${files.size} files under src/`);
    return 1;
  }
  console.log(
    `check-imports: ${files.size} files under src/, no import against the flow (${allowedImports.length} allowed exceptions, listed in scripts/check-imports.ts), none past a folder's index.ts, no import cycle; bench/ imports no test code`,
  );
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
