import { binomialCdf, logGamma } from "./distributions.js";

/**
 * One-sided exact conditional test for "the candidate fails more often": given k failures in total,
 * under H0 (same rate) the candidate's share is Binomial(k, n_c / (n_b + n_c)). Works with zero
 * failures, where a log-scale test cannot.
 */
export function errorIncreaseP(
  baseline: { failed: number; total: number },
  candidate: { failed: number; total: number },
): number {
  const k = baseline.failed + candidate.failed;
  if (k === 0 || candidate.total === 0 || baseline.total === 0) return 1;
  const share = candidate.total / (baseline.total + candidate.total);
  // P(X >= k_c) = 1 − P(X <= k_c − 1)
  return 1 - binomialCdf(candidate.failed - 1, k, share);
}

/**
 * The smallest p `errorIncreaseP` can attain given its conditioning (the k failures in total): all k
 * on the candidate's side, share^k; 1 without a failure. For the gated family's Tarone refinement.
 */
export function errorIncreaseMinP(
  baseline: { failed: number; total: number },
  candidate: { failed: number; total: number },
): number {
  const k = baseline.failed + candidate.failed;
  if (k === 0 || candidate.total === 0 || baseline.total === 0) return 1;
  return (candidate.total / (baseline.total + candidate.total)) ** k;
}

function logChoose(n: number, k: number): number {
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

/**
 * One-sided Fisher exact test of "the candidate's share is higher": given the counted requests of both
 * sides together (k of n_b + n_c), the candidate's count is hypergeometric under H0 (same share), and
 * p = P(X ≥ x_c). Exact for shares of any size (the binomial form of `errorIncreaseP` holds only for
 * rare events). `minP` is the smallest p this conditioning allows (all of k on the candidate's side as
 * far as it can hold them): 1 when the count is forced (no event, or every request counted), so such a
 * test can never reject.
 */
export function shareIncreaseP(
  baseline: { count: number; total: number },
  candidate: { count: number; total: number },
): { p: number; minP: number } {
  const n = baseline.total + candidate.total;
  const k = baseline.count + candidate.count;
  if (baseline.total === 0 || candidate.total === 0) return { p: 1, minP: 1 };
  const low = Math.max(0, k - baseline.total);
  const high = Math.min(k, candidate.total);
  const logDenominator = logChoose(n, candidate.total);
  const term = (x: number) =>
    Math.exp(logChoose(k, x) + logChoose(n - k, candidate.total - x) - logDenominator);
  // P(X >= from), summed from the nearer end (the lower tail's complement below the mean).
  const tail = (from: number) => {
    let sum = 0;
    if (from > (k * candidate.total) / n) {
      for (let x = high; x >= from; x--) sum += term(x);
      return Math.min(1, sum);
    }
    for (let x = low; x < from; x++) sum += term(x);
    return Math.min(1, Math.max(0, 1 - sum));
  };
  const x = Math.max(low, Math.min(high, candidate.count));
  return { p: x <= low ? 1 : tail(x), minP: high <= low ? 1 : tail(high) };
}
