import { numberWords } from "../util/number-words.js";
import { mixSeed, seededRandom } from "../util/random.js";

/**
 * How the simulator answers the built-in tasks (dataset type `tasks`, docs/quality.md): it reads the
 * question as a model would and answers it right with probability `task_accuracy`, drawn per prompt and
 * model_revision (so a greedy model answers a prompt the same way every time). Questions it does not
 * recognise get no forced answer: their tokens are the usual seeded words, and a scorer marks them wrong.
 * This is the simulator's stand-in for a model's skill, not a check of the scorers: those are tested on
 * their own (test/workload/task-score.test.ts).
 */
const arithmetic = /What is (-?\d+) ([+\-*]) (-?\d+)\?/;
const numberWordsTask = /Write the number (\d+) in English words\./;

/** The answer's words, right or (with probability 1 - accuracy) wrong; null for any other prompt. */
export function taskAnswer(prompt: string, accuracy: number, seed: number): string[] | null {
  const right = seededRandom(mixSeed(seed, 0x7a5c)).next() < accuracy;
  const sum = arithmetic.exec(prompt);
  if (sum !== null) {
    const a = Number(sum[1]);
    const b = Number(sum[3]);
    const value = sum[2] === "+" ? a + b : sum[2] === "-" ? a - b : a * b;
    return [String(right ? value : value + 1)];
  }
  const words = numberWordsTask.exec(prompt);
  if (words !== null) {
    const n = Number(words[1]);
    if (n > 999_998) return null;
    return numberWords(right ? n : n + 1).split(" ");
  }
  return null;
}

/** The prompt text of a completions or chat body (the last message's text), "" when there is none. */
export function promptText(body: unknown): string {
  const record = body as { prompt?: unknown; messages?: unknown } | null;
  if (typeof record?.prompt === "string") return record.prompt;
  if (Array.isArray(record?.messages)) {
    const last = record.messages[record.messages.length - 1] as { content?: unknown } | undefined;
    if (typeof last?.content === "string") return last.content;
  }
  return "";
}
