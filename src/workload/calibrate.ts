import { createRng } from "./rng.js";
import { randomWords } from "./text.js";
import type { TokenModel } from "./token-model.js";
import { defaultTokenModel } from "./token-model.js";

/** Counts a prompt's tokens on the server (POST /tokenize); null when the server has no tokenizer endpoint. */
export type TokenCounter = (text: string) => Promise<number | null>;

const probeWords = [64, 512] as const;

/**
 * Fits tokens = a * words + b from two probes through the server's own tokenizer, so synthetic prompts hit
 * their input lengths on any model. Without /tokenize the default (one token per word) stays and the
 * achieved lengths (usage.prompt_tokens) are what the run records.
 */
export async function calibrateTokenModel(countTokens: TokenCounter, seed: number): Promise<TokenModel> {
  const counts: number[] = [];
  for (const words of probeWords) {
    const text = randomWords(createRng(seed, "calibration", words), words);
    const tokens = await countTokens(text);
    if (tokens === null || !Number.isFinite(tokens) || tokens <= 0) return defaultTokenModel;
    counts.push(tokens);
  }
  const [small, large] = counts as [number, number];
  const tokensPerWord = (large - small) / (probeWords[1] - probeWords[0]);
  if (!(tokensPerWord > 0)) return defaultTokenModel;
  const offset = small - tokensPerWord * probeWords[0];
  return { tokensPerWord, offset: Math.round(offset * 1000) / 1000, source: "tokenize" };
}

/** How far sampled prompts are from their target lengths on the server's tokenizer (tokens). */
export interface CalibrationCheck {
  checked: number;
  maxAbsError: number;
  meanAbsError: number;
}

/** Tokenizes the first `count` prompts and compares them with their targets; null without /tokenize. */
export async function checkPromptLengths(
  countTokens: TokenCounter,
  prompts: readonly { text: string; target: number }[],
): Promise<CalibrationCheck | null> {
  const errors: number[] = [];
  for (const prompt of prompts) {
    const tokens = await countTokens(prompt.text);
    if (tokens === null) return null;
    errors.push(Math.abs(tokens - prompt.target));
  }
  if (errors.length === 0) return null;
  return {
    checked: errors.length,
    maxAbsError: Math.max(...errors),
    meanAbsError: errors.reduce((sum, error) => sum + error, 0) / errors.length,
  };
}
