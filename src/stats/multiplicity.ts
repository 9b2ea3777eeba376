/**
 * Multiplicity adjustments returning adjusted p-values in input order, so a hypothesis is rejected at
 * level α exactly when its adjusted p <= α.
 */

/** Holm step-down: family-wise error control under any dependence (the blocking family). */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
  const adjusted = new Array<number>(m).fill(1);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

/** Benjamini-Hochberg step-up: false-discovery-rate control for the advisory metrics. */
export function bhAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => b.p - a.p);
  const adjusted = new Array<number>(m).fill(1);
  let running = 1;
  order.forEach(({ p, i }, index) => {
    const rank = m - index;
    running = Math.min(running, Math.min(1, (m * p) / rank));
    adjusted[i] = running;
  });
  return adjusted;
}
