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
