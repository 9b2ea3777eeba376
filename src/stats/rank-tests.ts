import { normalCdf, normalQuantile } from "./distributions.js";

/**
 * Cross-checks for the Welch decision at R >= 5: Mann-Whitney U and the Hodges-Lehmann shift with its
 * exact (Moses) interval. Shown in the report, never used to block.
 */

export interface MannWhitneyResult {
  /** U of the first sample: rank sum − n1(n1+1)/2. */
  u: number;
  method: "exact" | "asymptotic";
  /** One-sided p for "x tends to be smaller than y". */
  pLess: number;
  /** One-sided p for "x tends to be larger than y". */
  pGreater: number;
  pTwoSided: number;
}

function midRanks(values: readonly number[]): { ranks: number[]; tieSizes: number[] } {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const ranks = new Array<number>(values.length);
  const tieSizes: number[] = [];
  let k = 0;
  while (k < order.length) {
    let j = k;
    while (j + 1 < order.length && order[j + 1]!.v === order[k]!.v) j++;
    const rank = (k + j) / 2 + 1;
    for (let m = k; m <= j; m++) ranks[order[m]!.i] = rank;
    tieSizes.push(j - k + 1);
    k = j + 1;
  }
  return { ranks, tieSizes };
}

const exactCache = new Map<string, readonly number[]>();

/** Counts of U = 0..n1·n2 over all C(n1+n2, n1) arrangements (no ties); memoised, it is reused a lot. */
function exactUDistribution(n1: number, n2: number): readonly number[] {
  const key = `${n1},${n2}`;
  let counts = exactCache.get(key);
  if (!counts) {
    counts = computeExactUDistribution(n1, n2);
    exactCache.set(key, counts);
  }
  return counts;
}

function computeExactUDistribution(n1: number, n2: number): number[] {
  // f(i, j)[u]: number of arrangements of i x's and j y's with U = u (recursion on the largest value).
  let previous: number[][] = [];
  for (let i = 0; i <= n1; i++) {
    const row: number[][] = [];
    for (let j = 0; j <= n2; j++) {
      if (i === 0 || j === 0) {
        row.push([1]);
        continue;
      }
      const withX = previous[j]!; // largest is an x: it beats all j y's
      const withY = row[j - 1]!; // largest is a y
      const size = i * j + 1;
      const counts = new Array<number>(size).fill(0);
      withX.forEach((c, u) => {
        counts[u + j] = (counts[u + j] ?? 0) + c;
      });
      withY.forEach((c, u) => {
        counts[u] = (counts[u] ?? 0) + c;
      });
      row.push(counts);
    }
    previous = row;
  }
  return previous[n2]!;
}

export function mannWhitney(x: readonly number[], y: readonly number[]): MannWhitneyResult {
  const n1 = x.length;
  const n2 = y.length;
  if (n1 === 0 || n2 === 0) throw new RangeError("Mann-Whitney needs values on both sides");
  const { ranks, tieSizes } = midRanks([...x, ...y]);
  let rankSum = 0;
  for (let i = 0; i < n1; i++) rankSum += ranks[i]!;
  const u = rankSum - (n1 * (n1 + 1)) / 2;
  const hasTies = tieSizes.some((t) => t > 1);
  // scipy's 'auto': exact when a side has <= 8 values and there are no ties.
  if (!hasTies && Math.min(n1, n2) <= 8) {
    const counts = exactUDistribution(n1, n2);
    const total = counts.reduce((s, c) => s + c, 0);
    let atMost = 0;
    let atLeast = 0;
    counts.forEach((c, k) => {
      if (k <= u) atMost += c;
      if (k >= u) atLeast += c;
    });
    const pLess = atMost / total;
    const pGreater = atLeast / total;
    return { u, method: "exact", pLess, pGreater, pTwoSided: Math.min(1, 2 * Math.min(pLess, pGreater)) };
  }
  const n = n1 + n2;
  const mu = (n1 * n2) / 2;
  const tieTerm = tieSizes.reduce((s, t) => s + (t ** 3 - t), 0) / (n * (n - 1));
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm));
  // Every value tied (identical runs of a deterministic simulator): no evidence either way.
  if (!(sigma > 0)) return { u, method: "asymptotic", pLess: 1, pGreater: 1, pTwoSided: 1 };
  const pLess = normalCdf((u - mu + 0.5) / sigma);
  const pGreater = 1 - normalCdf((u - mu - 0.5) / sigma);
  const zTwo = (Math.abs(u - mu) - 0.5) / sigma;
  return { u, method: "asymptotic", pLess, pGreater, pTwoSided: Math.min(1, 2 * (1 - normalCdf(zTwo))) };
}

export interface HodgesLehmannResult {
  /** Median of all pairwise differences y_j − x_i. */
  shift: number;
  /** Moses interval [D_(C), D_(mn+1−C)] (exact below exactMosesBelow values a side); null when no C achieves the confidence. */
  interval: [number, number] | null;
  coverage: number | null;
}

export function hodgesLehmann(
  x: readonly number[],
  y: readonly number[],
  confidence = 0.95,
): HodgesLehmannResult {
  // A typed array sorts numerically in native code: a million differences (1000 runs a side) in ~0.1 s.
  const differences = new Float64Array(x.length * y.length);
  let at = 0;
  for (const yj of y) for (const xi of x) differences[at++] = yj - xi;
  differences.sort();
  const mn = differences.length;
  const mid = Math.floor(mn / 2);
  const shift = mn % 2 === 1 ? differences[mid]! : (differences[mid - 1]! + differences[mid]!) / 2;
  const { c, coverage } =
    x.length < exactMosesBelow && y.length < exactMosesBelow
      ? exactMosesRank(x.length, y.length, confidence)
      : asymptoticMosesRank(x.length, y.length, confidence);
  if (c < 1) return { shift, interval: null, coverage: null };
  return { shift, interval: [differences[c - 1]!, differences[mn - c]!], coverage };
}

/**
 * The Moses interval is exact while both sides have fewer than this many values (R's wilcox.test rule,
 * `n < 50`); the exact distribution of U costs about (n1·n2)² / 4 additions, minutes past a few hundred
 * runs a side, so larger sides use its normal approximation.
 */
const exactMosesBelow = 50;

/** C = the largest c with P0(U <= c − 1) <= α/2, from the exact distribution of U. */
function exactMosesRank(n1: number, n2: number, confidence: number): { c: number; coverage: number } {
  const counts = exactUDistribution(n1, n2);
  const total = counts.reduce((s, c) => s + c, 0);
  const alpha = 1 - confidence;
  let cumulative = 0;
  let c = 0;
  for (let k = 0; k < counts.length; k++) {
    if ((cumulative + counts[k]!) / total > alpha / 2) break;
    cumulative += counts[k]!;
    c = k + 1;
  }
  return { c, coverage: 1 - (2 * cumulative) / total };
}

/** The same C from U's normal approximation (mean n1·n2/2, variance n1·n2·(n1+n2+1)/12, continuity-corrected). */
function asymptoticMosesRank(n1: number, n2: number, confidence: number): { c: number; coverage: number } {
  const mean = (n1 * n2) / 2;
  const sd = Math.sqrt((n1 * n2 * (n1 + n2 + 1)) / 12);
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const c = Math.floor(mean - z * sd + 0.5);
  return { c, coverage: 1 - 2 * normalCdf((c - 0.5 - mean) / sd) };
}
