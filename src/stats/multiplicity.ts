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

/**
 * A multiple test procedure as a graph (Bretz, Maurer, Brannath & Posch 2009, "A graphical approach to
 * sequentially rejective multiple test procedures", Statistics in Medicine 28:586-604): each hypothesis
 * holds a share of α (`weights`, summing to at most 1); when one is rejected its share moves along the
 * graph's edges (`transitions[j][k]`: the fraction of j's share that k receives; rows sum to at most 1,
 * no self-loops) and the graph is rewired around it. It is the closed test (Marcus, Peritz & Gabriel
 * 1976) with weighted Bonferroni tests of every intersection, so the family-wise error rate is at most α
 * in the strong sense under any dependence between the p-values, and it holds whatever the hypotheses
 * are: some may imply others (a hypothesis about several cells beside those about each cell).
 */
export interface TestGraph {
  weights: readonly number[];
  transitions: readonly (readonly number[])[];
}

/**
 * The graph's adjusted p-values, in input order: hypothesis j is rejected at level α exactly when its
 * adjusted p <= α (Bretz et al. 2009: at each step the open hypothesis with the smallest
 * p / weight is rejected, its adjusted p the running maximum of those ratios, then the graph is updated).
 * Holm is the graph with equal weights 1/m and edges 1/(m − 1) between every pair.
 */
export function graphAdjust(pValues: readonly number[], graph: TestGraph): number[] {
  const n = pValues.length;
  if (graph.weights.length !== n || graph.transitions.length !== n)
    throw new RangeError(
      `graphAdjust: ${n} p-values, ${graph.weights.length} weights, ${graph.transitions.length} rows`,
    );
  const weights = Float64Array.from(graph.weights);
  let edges = graph.transitions.map((row) => Float64Array.from(row));
  const open = new Array<boolean>(n).fill(true);
  const adjusted = new Array<number>(n).fill(1);
  let running = 0;
  for (let step = 0; step < n; step++) {
    let chosen = -1;
    let smallest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      if (!open[i] || weights[i]! <= 0) continue;
      const ratio = pValues[i]! / weights[i]!;
      if (ratio < smallest) {
        smallest = ratio;
        chosen = i;
      }
    }
    // Every open hypothesis left has an adjusted p of 1 (the ratios only grow from here, capped at 1).
    if (chosen < 0 || smallest >= 1) break;
    running = Math.max(running, smallest);
    adjusted[chosen] = running;
    open[chosen] = false;
    const j = chosen;
    const from = edges[j]!;
    const next = edges.map((row) => Float64Array.from(row));
    for (let l = 0; l < n; l++) {
      if (!open[l]) continue;
      weights[l]! += weights[j]! * from[l]!;
      const row = edges[l]!;
      const loop = row[j]! * from[l]!;
      for (let k = 0; k < n; k++) {
        if (k === l || !open[k]) next[l]![k] = 0;
        else next[l]![k] = loop < 1 ? (row[k]! + row[j]! * from[k]!) / (1 - loop) : 0;
      }
    }
    weights[j] = 0;
    edges = next;
  }
  return adjusted;
}
