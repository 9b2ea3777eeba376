import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
} from "yaml";
import { formatPath } from "./interpolate.js";

/**
 * Limits on the YAML a config may use, checked before anything is built from it, so that no file, however
 * crafted, makes `validate` or `run` crash, hang or exhaust memory. Documented in docs/config-reference.md#limits (generated from these constants).
 */
export const yamlLimits = {
  /** Bytes in a config file. */
  maxBytes: 1024 * 1024,
  /** Mappings and lists nested in each other. */
  maxDepth: 64,
  /** Values the document holds once every alias (`*name`) is expanded: bounds alias bombs. */
  maxExpandedValues: 100_000,
} as const;

interface YamlProblem {
  path: string;
  message: string;
  line?: number;
  column?: number;
}

export type ParsedYaml =
  | { ok: true; value: unknown; document: Document; lineCounter: LineCounter }
  | { ok: false; problems: YamlProblem[] };

const tooDeep = `nested deeper than ${yamlLimits.maxDepth} levels (the limit on mappings and lists inside each other)`;

/**
 * YAML text to plain data, within `yamlLimits`: size, nesting depth, aliases that are undefined, refer to
 * a node that contains them, or expand to too much data, and duplicate keys. Linear in the size of the
 * text; never throws for any input.
 */
export function parseConfigYaml(text: string): ParsedYaml {
  if (text.length > yamlLimits.maxBytes) {
    return {
      ok: false,
      problems: [
        {
          path: "(file)",
          message: `the file has ${text.length} characters; the limit is ${yamlLimits.maxBytes} (1 MiB)`,
        },
      ],
    };
  }
  const lineCounter = new LineCounter();
  let document: Document;
  try {
    // Duplicate keys are found below in linear time (the parser's own check is quadratic in the keys).
    document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: false, logLevel: "error" });
  } catch (error) {
    return { ok: false, problems: [{ path: "(YAML syntax)", message: parserFailure(error) }] };
  }
  if (document.errors.length > 0) {
    return {
      ok: false,
      problems: document.errors.map((error) => {
        const position = error.linePos?.[0];
        const message = /Maximum call stack/.test(error.message)
          ? tooDeep
          : error.code === "MULTIPLE_DOCS"
            ? "the file holds more than one YAML document (a second ---); a config is a single document"
            : (error.message.split("\n")[0] ?? error.message).replace(/ at line \d+, column \d+:?$/, "");
        return {
          path: "(YAML syntax)",
          message,
          ...(position ? { line: position.line, column: position.col } : {}),
        };
      }),
    };
  }
  const problems = checkStructure(document.contents as Node | null, lineCounter);
  if (problems.length > 0) return { ok: false, problems };
  try {
    // Aliases were bounded above (checkStructure), so the library's own heuristic is not needed.
    return { ok: true, value: document.toJS({ maxAliasCount: -1 }), document, lineCounter };
  } catch (error) {
    return { ok: false, problems: [{ path: "(YAML syntax)", message: parserFailure(error) }] };
  }
}

function parserFailure(error: unknown): string {
  if (error instanceof RangeError) return tooDeep;
  return `the YAML could not be read: ${error instanceof Error ? error.message : String(error)}`;
}

interface Frame {
  node: unknown;
  path: PropertyKey[];
  depth: number;
  /** Second visit: the node's children are done, its expanded size is known. */
  exit: boolean;
}

/**
 * One iterative walk (no recursion: depth is what is being checked) over the document in order: nesting
 * depth, aliases (defined before use, not inside the node they name, total expansion bounded), duplicate
 * keys. Stops at the first limit exceeded; reports every duplicate key and bad alias otherwise.
 */
function checkStructure(root: Node | null, lineCounter: LineCounter): YamlProblem[] {
  const problems: YamlProblem[] = [];
  const at = (node: unknown, path: readonly PropertyKey[], message: string): YamlProblem => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    const position = range ? lineCounter.linePos(range[0]) : undefined;
    // A path 64 levels deep says nothing more than its first ten segments do.
    const shown = path.length > 10 ? `${formatPath(path.slice(0, 10))}...` : formatPath(path);
    return {
      path: path.length === 0 ? "(top level)" : shown,
      message,
      ...(position ? { line: position.line, column: position.col } : {}),
    };
  };
  if (root === null || root === undefined) return problems;
  /** Anchors defined so far (the last one of a name wins, as in YAML). */
  const anchors = new Map<string, Node>();
  /** Nodes being walked (ancestors of the current one). */
  const open = new Set<unknown>();
  /** Values each finished node expands to, aliases included. */
  const sizes = new Map<unknown, number>();
  const stack: Frame[] = [{ node: root, path: [], depth: 0, exit: false }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { node, path } = frame;
    if (frame.exit) {
      open.delete(node);
      let size = 1;
      for (const child of childrenOf(node)) size += sizes.get(child.node) ?? 0;
      sizes.set(node, size);
      if (size > yamlLimits.maxExpandedValues) {
        problems.push(
          at(
            node,
            path,
            `aliases expand this to more than ${yamlLimits.maxExpandedValues} values (the limit on the expanded document; an alias bomb?)`,
          ),
        );
        return problems;
      }
      continue;
    }
    if (isAlias(node)) {
      // As YAML resolves it: the last anchor of that name before the alias, in document order.
      const target = anchors.get(node.source);
      if (target === undefined || open.has(target)) {
        problems.push(
          at(
            node,
            path,
            target === undefined
              ? `alias *${node.source} is not defined (define &${node.source} before using it)`
              : `alias *${node.source} refers to a node that contains it (a self-reference has no finite value)`,
          ),
        );
        sizes.set(node, 1);
      } else sizes.set(node, sizes.get(target) ?? 1);
      continue;
    }
    const anchor = (node as { anchor?: string }).anchor;
    if (anchor) anchors.set(anchor, node as Node);
    const container = isMap(node) || isSeq(node);
    const depth = frame.depth + (container ? 1 : 0);
    if (depth > yamlLimits.maxDepth) {
      problems.push(at(node, path, tooDeep));
      return problems;
    }
    if (isMap(node)) duplicateKeys(node.items, path, at, lineCounter, problems);
    open.add(node);
    stack.push({ node, path, depth, exit: true });
    const children = childrenOf(node);
    for (let index = children.length - 1; index >= 0; index--) {
      const child = children[index]!;
      stack.push({ node: child.node, path: [...path, ...child.segment], depth, exit: false });
    }
  }
  return problems;
}

function childrenOf(node: unknown): { node: unknown; segment: PropertyKey[] }[] {
  if (isMap(node) || isSeq(node)) {
    const inSeq = isSeq(node);
    return node.items.flatMap((item, index) => {
      if (isPair(item)) {
        const key = isScalar(item.key) ? String(item.key.value) : "(key)";
        const prefix = inSeq ? [index] : [];
        return [
          ...(item.key !== null && typeof item.key === "object" && !isScalar(item.key)
            ? [{ node: item.key, segment: [...prefix, key] }]
            : []),
          ...(item.value !== null && item.value !== undefined
            ? [{ node: item.value, segment: [...prefix, key] }]
            : []),
        ];
      }
      return item === null || item === undefined ? [] : [{ node: item, segment: [index] }];
    });
  }
  return [];
}

function duplicateKeys(
  pairs: readonly unknown[],
  path: readonly PropertyKey[],
  at: (node: unknown, path: readonly PropertyKey[], message: string) => YamlProblem,
  lineCounter: LineCounter,
  problems: YamlProblem[],
): void {
  const seen = new Map<string, unknown>();
  for (const pair of pairs) {
    if (!isPair(pair) || !isScalar(pair.key)) continue;
    const key = String(pair.key.value);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, pair.key);
      continue;
    }
    const range = (first as { range?: [number, number, number] }).range;
    const line = range ? ` (first on line ${lineCounter.linePos(range[0]).line})` : "";
    problems.push(at(pair.key, [...path, key], `duplicate key "${key}"${line}; keys must be unique`));
  }
}
