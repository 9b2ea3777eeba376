import type { TaskScorer } from "./tasks.js";

/** Longest answer a scorer reads: 64 KiB (the client keeps no more, client/output-capture.ts). */
const answerLimit = 64 * 1024;

/** Trimmed, whitespace runs as one space, lower case, trailing full stop dropped. */
function normalizeAnswer(text: string): string {
  return text
    .trim()
    .replace(/\s+/g, " ")
    .toLowerCase()
    .replace(/[.!]+$/, "");
}

/** The first number in the text (an optional sign, digits with optional , thousands and a decimal part). */
export function firstNumber(text: string): number | null {
  const match = /[-+]?\d[\d,]*(?:\.\d+)?/.exec(text);
  if (match === null) return null;
  const value = Number(match[0].replaceAll(",", ""));
  return Number.isFinite(value) ? value : null;
}

export class ScorerError extends Error {
  override readonly name = "ScorerError";
}

/**
 * Whether an answer is right (pure): `exact` after normalizeAnswer, `contains` the normalised reference,
 * `regex` the scorer's pattern (or the reference as one) matches, `numeric` the first number is within
 * the tolerance of the reference's. A scorer that cannot run (a bad pattern, a reference that is no
 * number) throws ScorerError naming what is wrong.
 */
export function scoreAnswer(answer: string, reference: string, scorer: TaskScorer): boolean {
  const text = answer.length > answerLimit ? answer.slice(0, answerLimit) : answer;
  switch (scorer.kind) {
    case "exact":
      return normalizeAnswer(text) === normalizeAnswer(reference);
    case "contains":
      return normalizeAnswer(text).includes(normalizeAnswer(reference));
    case "regex": {
      let pattern: RegExp;
      try {
        pattern = new RegExp(scorer.pattern || reference, "iu");
      } catch (error) {
        throw new ScorerError(
          `regex scorer: ${JSON.stringify(scorer.pattern || reference)} is not a regular expression (${(error as Error).message})`,
        );
      }
      return pattern.test(text);
    }
    case "numeric": {
      const expected = firstNumber(reference);
      if (expected === null)
        throw new ScorerError(`numeric scorer: the reference ${JSON.stringify(reference)} has no number`);
      const got = firstNumber(text);
      return got !== null && Math.abs(got - expected) <= scorer.tolerance;
    }
  }
}
