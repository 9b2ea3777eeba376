import { binomialCdf } from "./distributions.js";

/**
 * numpy's default ("linear", Hyndman-Fan type 7) percentile of already-sorted values: rank h = (n-1)q,
 * interpolated between neighbours. vLLM's client uses exactly this, so our numbers match theirs.
 */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  if (!(q >= 0 && q <= 1)) throw new RangeError(`percentile needs 0 <= q <= 1 (got ${q})`);
  const h = (n - 1) * q;
  const lower = Math.floor(h);
  const upper = Math.min(lower + 1, n - 1);
  const a = sorted[lower]!;
  const b = sorted[upper]!;
  return a + (h - lower) * (b - a);
}

export function sortNumbers(values: Iterable<number>): Float64Array {
  const sorted = Float64Array.from(values);
  sorted.sort();
  return sorted;
}

/** numpy-linear percentile of unsorted values (q in [0, 1]). */
export function percentile(values: Iterable<number>, q: number): number {
  return percentileSorted(sortNumbers(values), q);
}

export interface OrderStatisticInterval {
  /** 1-based ranks of the bounds, null when the sample is too small for that bound. */
  lowerRank: number | null;
  upperRank: number | null;
  lower: number | null;
  upper: number | null;
  /** Exact coverage B(u-1) - B(l-1) of the interval (1 when a bound is missing, as it is unbounded). */
  coverage: number;
}

/**
 * Distribution-free equal-tailed CI for the q-quantile from order statistics (binomial): l is the
 * largest rank with B(l-1) <= α/2, u the smallest with B(u-1) >= 1-α/2.
 */
export function orderStatisticInterval(
  sorted: ArrayLike<number>,
  q: number,
  confidence = 0.95,
): OrderStatisticInterval {
  const n = sorted.length;
  const alpha = 1 - confidence;
  let lowerRank: number | null = null;
  // Ranks near nq bound the search: walk from the centre outwards.
  const centre = Math.max(1, Math.min(n, Math.floor(n * q)));
  for (let l = centre; l >= 1; l--) {
    if (binomialCdf(l - 1, n, q) <= alpha / 2) {
      lowerRank = l;
      break;
    }
  }
  let upperRank: number | null = null;
  for (let u = Math.max(1, centre); u <= n; u++) {
    if (binomialCdf(u - 1, n, q) >= 1 - alpha / 2) {
      upperRank = u;
      break;
    }
  }
  const lowerCdf = lowerRank === null ? 0 : binomialCdf(lowerRank - 1, n, q);
  const upperCdf = upperRank === null ? 1 : binomialCdf(upperRank - 1, n, q);
  return {
    lowerRank,
    upperRank,
    lower: lowerRank === null ? null : sorted[lowerRank - 1]!,
    upper: upperRank === null ? null : sorted[upperRank - 1]!,
    coverage: upperCdf - lowerCdf,
  };
}
