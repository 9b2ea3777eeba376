import { numberWords } from "../util/number-words.js";
import { createRng } from "../util/random.js";

/**
 * The built-in task set (dataset type `tasks`, docs/quality.md): arithmetic and number-word tasks made
 * from the seed, each exactly checkable, nothing copied from a published benchmark. Task i is a pure
 * function of (seed, cell, i), so both sides of a comparison ask the same questions.
 */
export type TaskKind = "arithmetic" | "number_words";

/** How an answer is scored against its reference (workload/task-score.ts). */
export type TaskScorer =
  | { kind: "exact" }
  | { kind: "contains" }
  | { kind: "regex"; pattern: string }
  | { kind: "numeric"; tolerance: number };

export interface Task {
  prompt: string;
  reference: string;
  scorer: TaskScorer;
}

export function builtInTask(seed: number, cell: string, index: number, kinds: readonly TaskKind[]): Task {
  const rng = createRng(seed, cell, "tasks", index);
  const kind = kinds[index % kinds.length]!;
  if (kind === "number_words") {
    const n = rng.int(0, 9999);
    return {
      prompt: `Task ${index}: Write the number ${n} in English words. Answer with the words only.`,
      reference: numberWords(n),
      scorer: { kind: "exact" },
    };
  }
  const a = rng.int(2, 999);
  const b = rng.int(2, 999);
  const op = (["+", "-", "*"] as const)[rng.int(0, 2)]!;
  const value = op === "+" ? a + b : op === "-" ? a - b : a * b;
  return {
    prompt: `Task ${index}: What is ${a} ${op} ${b}? Answer with the number only.`,
    reference: String(value),
    scorer: { kind: "numeric", tolerance: 0 },
  };
}
