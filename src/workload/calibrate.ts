import { FailureError } from "../util/errors.js";
import { createRng } from "../util/random.js";
import type { ChatMessage } from "./dataset-file.js";
import { randomWords } from "./text.js";
import type { TokenModel } from "./token-model.js";
import { defaultTokenModel } from "./token-model.js";

/**
 * Counts a prompt's tokens on the server (POST /tokenize): a text, or the chat messages as sent (a session
 * turn's system prompt and conversation so far); null when the server has no tokenizer endpoint.
 */
export type TokenCounter = (prompt: string | readonly ChatMessage[]) => Promise<number | null>;

const probeWords = [64, 512] as const;

/**
 * Bounds of a believable fit (docs/run.md, "Exact input lengths"). The prompts are common English words:
 * a BPE tokenizer spends about one token on each, a byte-level one up to about six; a chat template adds a
 * few dozen tokens (a default system prompt, special tokens). A fit outside these would size prompts
 * from a tokenizer that cannot be right (1e-4 tokens per word made prompts 10,000 times too long).
 */
const plausibleTokensPerWord = { min: 0.25, max: 8 } as const;
const plausibleOffsetTokens = { min: -16, max: 2048 } as const;

/**
 * Fits tokens = a * words + b from two probes through the server's own tokenizer, so synthetic prompts hit
 * their input lengths on any model. Without /tokenize the default (one token per word) stays and the
 * achieved lengths (usage.prompt_tokens) are what the run records.
 */
export async function calibrateTokenModel(
  countTokens: (text: string) => Promise<number | null>,
  seed: number,
): Promise<TokenModel> {
  const counts: number[] = [];
  for (const words of probeWords) {
    const text = randomWords(createRng(seed, "calibration", words), words);
    const tokens = await countTokens(text);
    if (tokens === null || !Number.isFinite(tokens) || tokens <= 0) return defaultTokenModel;
    counts.push(tokens);
  }
  const [small, large] = counts as [number, number];
  const tokensPerWord = (large - small) / (probeWords[1] - probeWords[0]);
  const offset = small - tokensPerWord * probeWords[0];
  if (
    !(tokensPerWord >= plausibleTokensPerWord.min && tokensPerWord <= plausibleTokensPerWord.max) ||
    !(offset >= plausibleOffsetTokens.min && offset <= plausibleOffsetTokens.max)
  ) {
    throw new FailureError(
      `POST /tokenize counted ${small} tokens for ${probeWords[0]} words and ${large} for ${probeWords[1]}: ` +
        `${tokensPerWord.toPrecision(3)} tokens per word + ${offset.toPrecision(3)}, outside the plausible ` +
        `${plausibleTokensPerWord.min}-${plausibleTokensPerWord.max} tokens per word and ` +
        `${plausibleOffsetTokens.min}..${plausibleOffsetTokens.max} tokens of template; ` +
        "the prompts will not be sized from this tokenizer (check what answers /tokenize at this server)",
    );
  }
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
  prompts: readonly { prompt: string | readonly ChatMessage[]; target: number }[],
): Promise<CalibrationCheck | null> {
  const errors: number[] = [];
  for (const prompt of prompts) {
    const tokens = await countTokens(prompt.prompt);
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
