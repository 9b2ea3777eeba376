import { binomialCdf } from "./distributions.js";

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
