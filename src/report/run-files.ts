import type { VerdictFile } from "../compare/verdict/verdict-schema.js";

/**
 * How the report names files: relative to the results they belong to, never as a path of the machine
 * that ran the comparison (a temporary directory of the runner means nothing to a reviewer).
 */

/**
 * A run's file relative to its side's results: `candidate/chat/run-0/run.json`, which is its path in the
 * action's evidence artifact; a `vllm bench serve` file by its name (`baseline/vllm-0.json`).
 */
export function runFileLabel(ref: Pick<VerdictFile["runs"]["used"][number], "side" | "source">): string {
  const parts = ref.source.split(/[\\/]+/).filter((part) => part.length > 0);
  const tail = parts.at(-1) === "run.json" ? parts.slice(-3) : parts.slice(-1);
  return [ref.side, ...tail].join("/");
}

/** Segments of a path kept when a message's absolute path is shortened. */
const keptSegments = 3;

/**
 * A message with every absolute path (four segments or more) shortened to its last segments, "…/chat/
 * run-0/run.json", so compare's warnings and notes publish no path of the machine.
 */
export function withoutMachinePaths(text: string): string {
  return text.replace(/(?<![\w:/.~-])(?:[A-Za-z]:)?(?:[\\/][^\s\\/:;,()'"`]+){4,}/g, (path) => {
    const parts = path.split(/[\\/]+/).filter((part) => part.length > 0);
    return `…/${parts.slice(-keptSegments).join("/")}`;
  });
}
