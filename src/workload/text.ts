import type { Rng } from "../util/random.js";
import { vocabulary } from "./vocabulary.js";

/** `count` seeded words joined by single spaces. */
export function randomWords(rng: Rng, count: number): string {
  const words = new Array<string>(count);
  for (let index = 0; index < count; index++) words[index] = vocabulary[rng.int(0, vocabulary.length - 1)]!;
  return words.join(" ");
}

/** A seeded permutation of 0..n-1 (Fisher-Yates). */
export function shuffledIndexes(rng: Rng, n: number): number[] {
  const order = Array.from({ length: n }, (_, index) => index);
  for (let index = n - 1; index > 0; index--) {
    const other = rng.int(0, index);
    const held = order[index]!;
    order[index] = order[other]!;
    order[other] = held;
  }
  return order;
}
