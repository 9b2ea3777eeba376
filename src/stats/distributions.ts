/**
 * Distribution functions the gate needs (Student t, normal, binomial), implemented here (no statistics
 * package is a dependency; see ARCHITECTURE.md, Dependencies). Accuracy target: ~1e-10 relative, checked against scipy
 * values in the tests.
 */

const lanczosCoefficients = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const shifted = x - 1;
  let sum = lanczosCoefficients[0]!;
  for (let i = 1; i < lanczosCoefficients.length; i++) sum += lanczosCoefficients[i]! / (shifted + i);
  const t = shifted + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Continued fraction for the incomplete beta (modified Lentz). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/** Regularized incomplete beta I_x(a, b). */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0 && b > 0)) throw new RangeError(`incomplete beta needs a, b > 0 (got ${a}, ${b})`);
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const logFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  const front = Math.exp(logFront);
  // The continued fraction converges fast only on one side of the mean; use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(a, b, x)) / a;
  return 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** P(T <= t) for Student's t with df degrees of freedom (df may be fractional, as in Welch). */
export function studentTCdf(t: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`t distribution needs df > 0 (got ${df})`);
  if (Number.isNaN(t)) return Number.NaN;
  if (t === Number.POSITIVE_INFINITY) return 1;
  if (t === Number.NEGATIVE_INFINITY) return 0;
  // Beyond 1e7 df the t and the normal differ by < 1e-7, and lgamma of huge df loses precision.
  if (df > 1e7) return normalCdf(t);
  const tail = 0.5 * regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/** Upper tail P(T > t), accurate for large t (no 1 - x cancellation). */
export function studentTSurvival(t: number, df: number): number {
  return studentTCdf(-t, df);
}

/** Density of Student's t. */
function studentTPdf(t: number, df: number): number {
  const logDensity =
    logGamma((df + 1) / 2) -
    logGamma(df / 2) -
    0.5 * Math.log(df * Math.PI) -
    ((df + 1) / 2) * Math.log1p((t * t) / df);
  return Math.exp(logDensity);
}

/** The p-quantile of Student's t: Newton steps on the survival function, guarded by a bracket. */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`quantile needs 0 < p < 1 (got ${p})`);
  if (df > 1e7) return normalQuantile(p);
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  const target = 1 - p;
  let lo = 0;
  let hi = Number.POSITIVE_INFINITY;
  // Start from the Cornish-Fisher expansion around the normal quantile.
  const z = normalQuantile(p);
  let x = z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df);
  if (!(x > 0) || !Number.isFinite(x)) x = 1;
  for (let i = 0; i < 100; i++) {
    const excess = studentTSurvival(x, df) - target;
    if (excess > 0) lo = x;
    else hi = x;
    if (Math.abs(excess) <= 1e-15 * target) return x;
    let next = x + excess / studentTPdf(x, df);
    // Newton can overshoot in the heavy tails of small df: fall back to bisection inside the bracket.
    if (!(next > lo && next < hi)) next = Number.isFinite(hi) ? 0.5 * (lo + hi) : Math.max(2 * x, lo + 1);
    if (Math.abs(next - x) <= 1e-14 * Math.max(1, Math.abs(x))) return next;
    x = next;
  }
  return x;
}

/** Regularized lower incomplete gamma P(a, x): series below a + 1, continued fraction above. */
function regularizedLowerGamma(a: number, x: number): number {
  if (x <= 0) return 0;
  const logFront = a * Math.log(x) - x - logGamma(a);
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 10_000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-16) break;
    }
    return sum * Math.exp(logFront);
  }
  return 1 - upperGammaContinuedFraction(a, x) * Math.exp(logFront);
}

function upperGammaContinuedFraction(a: number, x: number): number {
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 10_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return h;
}

/** Standard normal CDF: Φ(z) = P(1/2, z²/2)-based, exact to double precision in both tails. */
export function normalCdf(z: number): number {
  if (Number.isNaN(z)) return Number.NaN;
  if (z === 0) return 0.5;
  const x = (z * z) / 2;
  const logFront = 0.5 * Math.log(x) - x - logGamma(0.5);
  // Upper tail Q(1/2, x) computed directly to avoid cancellation far from the centre.
  const upper =
    x < 1.5 ? 1 - regularizedLowerGamma(0.5, x) : upperGammaContinuedFraction(0.5, x) * Math.exp(logFront);
  return z > 0 ? 1 - upper / 2 : upper / 2;
}

/** Standard normal quantile (Acklam's rational approximation refined by one Halley step). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`quantile needs 0 < p < 1 (got ${p})`);
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const pLow = 0.02425;
  let x: number;
  if (p < pLow) {
    const q = Math.sqrt(-2 * Math.log(p));
    x =
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  } else if (p <= 1 - pLow) {
    const q = p - 0.5;
    const r = q * q;
    x =
      ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
      (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x =
      -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  const e = normalCdf(x) - p;
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
  return x - u / (1 + (x * u) / 2);
}

/** P(X <= k) for X ~ Binomial(n, q), exact via the incomplete beta. */
export function binomialCdf(k: number, n: number, q: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  return regularizedIncompleteBeta(1 - q, n - k, k + 1);
}

/** Upper tail of Fisher's F with (d1, d2) degrees of freedom: P(F > x). */
export function fSurvival(x: number, d1: number, d2: number): number {
  if (!(x > 0)) return 1;
  return 1 - regularizedIncompleteBeta((d1 * x) / (d1 * x + d2), d1 / 2, d2 / 2);
}

/** The p-quantile of the chi-square distribution with df degrees of freedom (df may be fractional). */
export function chiSquareQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`quantile needs 0 < p < 1 (got ${p})`);
  if (!(df > 0)) throw new RangeError(`chi-square needs df > 0 (got ${df})`);
  const half = df / 2;
  // Wilson-Hilferty's cube-root normal approximation as the start, then Newton on the CDF in a bracket.
  const z = normalQuantile(p);
  const h = 2 / (9 * df);
  let x = Math.max(1e-300, df * (1 - h + z * Math.sqrt(h)) ** 3);
  let lo = 0;
  let hi = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 200; i++) {
    const excess = regularizedLowerGamma(half, x / 2) - p;
    if (excess < 0) lo = x;
    else hi = x;
    if (Math.abs(excess) <= 1e-15) return x;
    const density = Math.exp((half - 1) * Math.log(x) - x / 2 - half * Math.LN2 - logGamma(half));
    let next = x - excess / density;
    if (!(next > lo && next < hi)) next = Number.isFinite(hi) ? 0.5 * (lo + hi) : 2 * x + 1;
    if (Math.abs(next - x) <= 1e-14 * x) return next;
    x = next;
  }
  return x;
}

/** ln-density cut-off of the chi-square quadrature below: e^−40 ≈ 4e−18 of the peak is left out. */
const chiTailCutoff = 40;

/**
 * Nodes of E[f(S)] for S = √(V/df), V ~ χ²_df: the trapezoid rule on w = ln(V/df) over the whole line
 * (both tails below e^−40 of the peak), which converges geometrically for a smooth integrand that decays
 * at both ends. `width` is the smallest scale (in w) on which f changes; the step is a fifth of it and of
 * the density's width √(2/df). Weights are normalised to sum to 1.
 */
function chiQuadrature(df: number, width: number): { s: Float64Array; weight: Float64Array } {
  const half = df / 2;
  // ln density of w relative to its mode (w = 0): (df/2)·(w − e^w + 1), falling on both sides.
  const fall = (w: number) => half * (w - Math.expm1(w));
  const edge = (from: number, to: number) => {
    // Bisection for fall(w) = −cutoff between the mode and a point beyond the cut-off.
    let inner = from;
    let outer = to;
    while (fall(outer) > -chiTailCutoff) outer *= 2;
    for (let i = 0; i < 60; i++) {
      const mid = 0.5 * (inner + outer);
      if (fall(mid) > -chiTailCutoff) inner = mid;
      else outer = mid;
    }
    return outer;
  };
  const lo = edge(0, -(2 * chiTailCutoff) / df - 1);
  const hi = edge(0, 1);
  const step = Math.min(Math.sqrt(2 / df), width) / 5;
  const n = Math.ceil((hi - lo) / step);
  const h = (hi - lo) / n;
  const s = new Float64Array(n + 1);
  const weight = new Float64Array(n + 1);
  let total = 0;
  for (let i = 0; i <= n; i++) {
    const w = lo + i * h;
    s[i] = Math.exp(w / 2);
    weight[i] = Math.exp(fall(w));
    total += weight[i]!;
  }
  for (let i = 0; i <= n; i++) weight[i]! /= total;
  return { s, weight };
}

function normalDensity(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

/** Beyond this many df the noncentral t is taken as the normal shifted by its noncentrality. */
const noncentralNormalDf = 1e7;

/**
 * P(T′ > t) for the noncentral t with df degrees of freedom and noncentrality ncp: T′ = (Z + ncp) / S,
 * S = √(χ²_df/df), so P(T′ > t) = E[Φ(ncp − t·S)] (t ≥ 0 here: an upper critical value), integrated over
 * the chi-square by chiQuadrature. Accuracy ~1e−9 absolute against scipy's nct.sf in the tests.
 */
export function noncentralTSurvival(t: number, df: number, ncp: number): number {
  if (!(df > 0)) throw new RangeError(`t distribution needs df > 0 (got ${df})`);
  if (df > noncentralNormalDf) return normalCdf(ncp - t);
  const { s, weight } = chiQuadrature(df, 2 / Math.max(1, Math.abs(t)));
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += weight[i]! * normalCdf(ncp - t * s[i]!);
  return sum;
}

/**
 * The noncentrality at which a one-sided t test with critical value `critical` (≥ 0) and df degrees of
 * freedom rejects with probability `power`: the λ with P(T′_df(λ) > critical) = power. Newton steps on
 * E[Φ(λ − c·S)] (its slope is E[φ(λ − c·S)] > 0), from the normal approximation of c·S (Jennett and
 * Welch): λ ≈ c·(1 − 1/(4·df)) + z_power·√(1 + c²/(2·df)).
 */
export function noncentralityForPower(critical: number, df: number, power: number): number {
  if (!(power > 0 && power < 1)) throw new RangeError(`power needs 0 < power < 1 (got ${power})`);
  if (!(df > 0)) throw new RangeError(`t distribution needs df > 0 (got ${df})`);
  const zPower = normalQuantile(power);
  if (df > noncentralNormalDf) return critical + zPower;
  const { s, weight } = chiQuadrature(df, 2 / Math.max(1, Math.abs(critical)));
  let lambda = critical * (1 - 1 / (4 * df)) + zPower * Math.sqrt(1 + (critical * critical) / (2 * df));
  let lo = Number.NEGATIVE_INFINITY;
  let hi = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 100; i++) {
    let excess = -power;
    let slope = 0;
    for (let k = 0; k < s.length; k++) {
      const x = lambda - critical * s[k]!;
      excess += weight[k]! * normalCdf(x);
      slope += weight[k]! * normalDensity(x);
    }
    if (excess < 0) lo = lambda;
    else hi = lambda;
    if (Math.abs(excess) <= 1e-13) return lambda;
    let next = lambda - excess / slope;
    if (!(next > lo && next < hi))
      next = Number.isFinite(lo) && Number.isFinite(hi) ? 0.5 * (lo + hi) : lambda + (excess < 0 ? 1 : -1);
    if (Math.abs(next - lambda) <= 1e-12 * Math.max(1, Math.abs(lambda))) return next;
    lambda = next;
  }
  return lambda;
}
