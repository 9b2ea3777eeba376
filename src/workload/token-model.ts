/**
 * How many words a prompt needs for a token count: tokens(words) = tokensPerWord * words + offset. The
 * default (1, 0) is exact for the simulator's tokenizer (one token per word); against other servers it is
 * fitted from POST /tokenize (see calibrate.ts), and every request's real prompt tokens are recorded anyway.
 */
export interface TokenModel {
  tokensPerWord: number;
  offset: number;
  /** Where the model came from: "default" or "tokenize" (fitted against the server). */
  source: "default" | "tokenize";
}

export const defaultTokenModel: TokenModel = { tokensPerWord: 1, offset: 0, source: "default" };

/** Words for a whole prompt of `tokens` tokens (special tokens included in the offset). */
export function wordsForPrompt(model: TokenModel, tokens: number): number {
  return Math.max(1, Math.round((tokens - model.offset) / model.tokensPerWord));
}

/** Words for a part of a prompt (a suffix or a question): no special tokens. */
export function wordsForPart(model: TokenModel, tokens: number): number {
  return Math.max(1, Math.round(tokens / model.tokensPerWord));
}
