/**
 * The largest and smallest of many numbers, in one pass. `Math.max(...values)` passes every value as an
 * argument, and past about a hundred thousand of them (a run's requests, a forged file's fields) the call
 * fails with "Maximum call stack size exceeded"; these take any number.
 */
export function largest(values: Iterable<number>, whenEmpty = Number.NEGATIVE_INFINITY): number {
  let result = whenEmpty;
  let first = true;
  for (const value of values) {
    // As Math.max: NaN wins.
    if (first || value > result || Number.isNaN(value)) result = value;
    first = false;
    if (Number.isNaN(result)) return result;
  }
  return result;
}

export function smallest(values: Iterable<number>, whenEmpty = Number.POSITIVE_INFINITY): number {
  let result = whenEmpty;
  let first = true;
  for (const value of values) {
    if (first || value < result || Number.isNaN(value)) result = value;
    first = false;
    if (Number.isNaN(result)) return result;
  }
  return result;
}

/** Appends every item of `items` to `target` without spreading them into one call. */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
