import { mulberry32 } from "../util/random.js";

/** A small seeded generator (mulberry32): the engine's only source of randomness, so runs replay. */
export interface Random {
  next(): number;
  normal(): number;
}

export function seededRandom(seed: number): Random {
  const next = mulberry32(Math.floor(seed) ^ 0x9e3779b9);
  const normal = (): number => {
    // Box-Muller; 1 - next() keeps the log argument away from zero.
    const u = 1 - next();
    const v = next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  return { next, normal };
}

/** Mixes two numbers into a 32-bit seed, for per-request streams derived from the server seed. */
export function mixSeed(a: number, b: number): number {
  let h = Math.imul((a >>> 0) ^ 0x85ebca6b, 0xc2b2ae35);
  h = Math.imul(h ^ (b >>> 0) ^ (h >>> 13), 0x27d4eb2f);
  return (h ^ (h >>> 16)) >>> 0;
}
