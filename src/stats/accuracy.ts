import { binomialCdf, normalCdf, normalQuantile } from "./distributions.js";

/**
 * The Wilson score interval of a proportion (two-sided, `confidence` e.g. 0.95): the interval vLLM's
 * accuracy gate and TRT-LLM's sizing use, sound near 0 and 1 where the normal interval is not.
 */
export function wilsonInterval(successes: number, n: number, confidence: number): [number, number] {
  if (n === 0) return [0, 1];
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  // At 0 and n the bound on that side is exactly 0 or 1 (the closed form loses the last bit there).
  return [successes === 0 ? 0 : Math.max(0, centre - half), successes === n ? 1 : Math.min(1, centre + half)];
}

/**
 * Exact one-sided McNemar test on paired outcomes: of the `b + c` discordant pairs, `b` where only the
 * baseline was right and `c` where only the candidate was. Under "no change" b ~ Binomial(b + c, 1/2);
 * the p-value of "the candidate is worse" is P(X >= b). 1 without discordant pairs.
 */
export function mcnemarWorseP(b: number, c: number): number {
  const n = b + c;
  if (n === 0 || b === 0) return 1;
  return 1 - binomialCdf(b - 1, n, 0.5);
}

/**
 * One-sided two-proportion z-test (pooled) of "the candidate's accuracy is lower", for two samples that
 * cannot be paired (an external task that reports only its aggregate accuracy): z = (p_b − p_c) /
 * sqrt(p̄(1 − p̄)(1/n_b + 1/n_c)), p = 1 − Φ(z). 1 when either side is empty or the pooled share is 0 or 1.
 */
export function twoProportionWorseP(
  baseCorrect: number,
  baseN: number,
  candCorrect: number,
  candN: number,
): number {
  if (baseN === 0 || candN === 0) return 1;
  const pooled = (baseCorrect + candCorrect) / (baseN + candN);
  if (pooled <= 0 || pooled >= 1) return 1;
  const z =
    (baseCorrect / baseN - candCorrect / candN) / Math.sqrt(pooled * (1 - pooled) * (1 / baseN + 1 / candN));
  return 1 - normalCdf(z);
}
