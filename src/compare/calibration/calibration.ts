import { z } from "zod";
import { type MetricName, metricNames, metricSpecs, type NoiseFamily } from "../../config/metric-names.js";
import type { RunRecord } from "../../metrics/run-record.js";
import { minimumDetectableChange } from "../../stats/metric-test.js";
import { type RunVariancePrior, twoLevelWelch, type VariancePrior } from "../../stats/two-level.js";
import { InputError } from "../../util/errors.js";
import { appendAll } from "../../util/extremes.js";
import { mulberry32 } from "../../util/random.js";
import { selectUsableRuns } from "../analyze/usable-runs.js";
import { conditionsHash, pooledRunVariances } from "../history/history.js";
import { type CompareSettings, compareRecords } from "../index.js";
import { startOf } from "../inputs/server-starts.js";
import { type PriorOrigin, priorAgeDays } from "../noise/prior-basis.js";
import { cellSessionDrift } from "../noise/session-drift.js";

/**
 * A/A calibration of a runner (docs/calibration.md): the same config measured as two sides in
 * alternation, summarised per cell and metric as the run-to-run spread, the between-session drift
 * (with main's history), the smallest change the gate can catch and the false-block rate of the gate's
 * own rule on A/A splits. The file is the gate's noise prior (calibrationPriors).
 */

const calibrationSchemaVersion = 1;

const calibrationMetricSchema = z.object({
  metric: z.string(),
  gated: z.boolean(),
  /** Run-to-run standard deviation of ln(value), pooled within both A/A sides (≈ relative spread). */
  runSpread: z.number().nonnegative(),
  /** Its square and degrees of freedom: the noise prior the gate pools with a baseline's own variance. */
  variance: z.number().nonnegative(),
  df: z.number().int().positive(),
  /** Between-session drift (sd of ln session means beyond run noise); null without history sessions. */
  drift: z.object({ sd: z.number().nonnegative(), sessions: z.number().int().min(2) }).nullable(),
  /** Smallest true worsening the gate blocks at 90% power with `runsPerSide` runs each (0.07 = +7%). */
  detectableChange: z.number().nullable(),
  /** A/A splits compared and how many of them the gate's rule blocked on this check. */
  aaSplits: z.number().int().nonnegative(),
  aaBlocks: z.number().int().nonnegative(),
  falseBlockRate: z.number().min(0).max(1).nullable(),
  /**
   * The two levels of the noise (docs/compare.md, "Server starts"), from the runs grouped by the server
   * start that measured them: the start-to-start variance of ln(value) with its degrees of freedom (null
   * with fewer than two starts on a side), and the run-to-run variance within a start. Absent in files
   * written before the start level was measured.
   */
  levels: z
    .object({
      starts: z.number().int().nonnegative(),
      startVariance: z.number().nonnegative().nullable(),
      startDf: z.number().nonnegative(),
      runVariance: z.number().nonnegative(),
      runDf: z.number().nonnegative(),
      /**
       * True when every run was measured on its own start: `runVariance` is then the spread of a run on
       * its own start (both levels in one). Absent in files written before it was recorded.
       */
      fresh: z.boolean().optional(),
      /**
       * The variance of one run on a start of its own (σ_r² + σ_s²) from runs that shared starts: the
       * within-start variance plus the starts' moment estimate unclamped (unbiased; clamping the start
       * level at 0 first would overstate a quiet runner's), with Satterthwaite's degrees of freedom: the
       * per-run prior of pull requests that give every run its own start. Absent in files written before
       * it was recorded (the two levels' sum stands in) and for a fresh-start calibration (`runVariance`
       * is it).
       */
      perRunVariance: z.number().positive().optional(),
      perRunDf: z.number().nonnegative().optional(),
    })
    .optional(),
});

export const calibrationFileSchema = z.object({
  schemaVersion: z.literal(calibrationSchemaVersion),
  kind: z.literal("vllm-perf-gate-calibration"),
  createdAt: z.string(),
  /**
   * The measuring conditions' hash (compare/history/history.ts conditionsHash): a prior applies only under
   * them.
   */
  conditions: z.string().nullable(),
  runsPerSide: z.number().int().min(2),
  /** The gate's settings the A/A splits were judged with. */
  gate: z.object({ alpha: z.number(), tolerance: z.number(), failOn: z.string() }),
  cells: z.array(
    z.object({
      cell: z.string(),
      /** Median successful requests of the cell's runs: the run length the variances belong to. */
      requestsPerRun: z.number().nonnegative().optional(),
      /** Runs the gate's outlier screen left out of the variances (absent in older files). */
      screenedRuns: z.number().int().nonnegative().optional(),
      metrics: z.array(calibrationMetricSchema),
    }),
  ),
  /** Over every split: how often the gate's overall verdict was a block (regression). */
  overall: z.object({
    aaSplits: z.number().int().nonnegative(),
    blocked: z.number().int().nonnegative(),
    falseBlockRate: z.number().min(0).max(1).nullable(),
  }),
});

export type CalibrationFile = z.output<typeof calibrationFileSchema>;
type CalibrationMetric = z.output<typeof calibrationMetricSchema>;

export interface CalibrateInput {
  /** The two A/A sides: the same config, measured alternately in one job. */
  a: readonly RunRecord[];
  b: readonly RunRecord[];
  settings: CompareSettings;
  /** Runs of earlier sessions of this config (each with its `session`), for the drift. */
  history?: readonly RunRecord[];
  /** Seeded re-splits of the pooled runs compared besides the measured A/B split (default 19). */
  resplits?: number;
  seed?: number;
  now?: Date;
}

const healthy = (run: RunRecord) => run.exclusionReasons.length === 0;

/** The key of a cell's metric in the priors and the A/A tallies. */
const noiseKey = (cell: string, metric: string) => `${cell}\u0000${metric}`;

/** A seeded re-split: per cell the pooled runs shuffled, the first half one side, the rest the other. */
function resplit(runs: readonly RunRecord[], random: () => number): { a: RunRecord[]; b: RunRecord[] } {
  const byCell = new Map<string, RunRecord[]>();
  for (const run of runs) byCell.set(run.cell, [...(byCell.get(run.cell) ?? []), run]);
  const a: RunRecord[] = [];
  const b: RunRecord[] = [];
  for (const cellRuns of byCell.values()) {
    const shuffled = [...cellRuns];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const half = Math.floor(shuffled.length / 2);
    appendAll(a, shuffled.slice(0, half));
    appendAll(b, shuffled.slice(half, 2 * half));
  }
  return { a, b };
}

/**
 * Summarises an A/A measurement (pure, seeded). The false-block rate compares each split with the gate's
 * own analysis (compareRecords, interleaved mode, the config's gate settings); the re-splits share runs,
 * so they are not independent trials: the rate is an estimate of the rule's behaviour on this runner's
 * noise, not a precise probability (docs/calibration.md).
 */
export function calibrateFromRuns(input: CalibrateInput): CalibrationFile {
  const sides = healthySides(input);
  const { a, b, runsPerSide } = sides;
  const judged = judgeSplits(sides, input);
  // The variances are of the runs the gate's tests keep: its outlier screen applied to each A/A side, so
  // a prior is no wider than the noise a comparison's screened runs carry.
  const kept = selectUsableRuns(a, b, input.settings.gate, []).usable;
  const measured: MeasuredSides = {
    ...sides,
    kept,
    variances: pooledRunVariances([...kept.baseline, ...kept.candidate]),
  };
  const first = [...a, ...b][0];
  return calibrationFileSchema.parse({
    schemaVersion: calibrationSchemaVersion,
    kind: "vllm-perf-gate-calibration",
    createdAt: (input.now ?? new Date()).toISOString(),
    conditions: first ? conditionsHash(first.fingerprint) : null,
    runsPerSide,
    gate: {
      alpha: judged.gateAlpha,
      tolerance: judged.tolerance,
      failOn: String(input.settings.gate.fail_on),
    },
    cells: sides.cells.map((cell) => cellSummary(cell, measured, judged, input.history)),
    overall: {
      aaSplits: judged.splits,
      blocked: judged.overallBlocked,
      falseBlockRate: judged.overallBlocked / judged.splits,
    },
  });
}

/** The A/A sides' healthy runs (each side one session), their cells and the fewest runs a side has in one. */
interface AaSides {
  a: RunRecord[];
  b: RunRecord[];
  cells: string[];
  runsPerSide: number;
}

function healthySides(input: CalibrateInput): AaSides {
  const a = input.a.filter(healthy).map((run) => ({ ...run, session: "aa-a" }));
  const b = input.b.filter(healthy).map((run) => ({ ...run, session: "aa-b" }));
  const perCell = (runs: readonly RunRecord[]) => {
    const counts = new Map<string, number>();
    for (const run of runs) counts.set(run.cell, (counts.get(run.cell) ?? 0) + 1);
    return counts;
  };
  const countsA = perCell(a);
  const countsB = perCell(b);
  const cells = [...new Set([...countsA.keys(), ...countsB.keys()])].sort();
  const runsPerSide = Math.min(
    ...cells.map((cell) => Math.min(countsA.get(cell) ?? 0, countsB.get(cell) ?? 0)),
  );
  if (cells.length === 0 || !(runsPerSide >= 2))
    throw new InputError(
      `calibration: every cell needs at least 2 healthy runs on each A/A side, got ${cells.length === 0 ? "no cell" : `${runsPerSide} in the fewest`}`,
    );
  return { a, b, cells, runsPerSide };
}

/** What the gate's own rule said on the A/A splits, per `cell\u0000metric` and overall. */
interface JudgedSplits {
  splits: number;
  /** Splits the gate judged a check on (gated), and blocked it on. */
  judged: Map<string, number>;
  blocks: Map<string, number>;
  overallBlocked: number;
  /** The gate's family level and tolerance as its analysis applied them. */
  gateAlpha: number;
  tolerance: number;
  /** The measured split's detectable change and gating of each check. */
  detectable: Map<string, number | null>;
  gated: Map<string, boolean>;
}

/** The measured A/B split and the seeded re-splits of the pooled runs, each compared as the gate does. */
function judgeSplits({ a, b }: AaSides, input: CalibrateInput): JudgedSplits {
  const splits: { a: RunRecord[]; b: RunRecord[] }[] = [{ a, b }];
  const random = mulberry32(input.seed ?? 20);
  for (let i = 0; i < (input.resplits ?? 19); i++) splits.push(resplit([...a, ...b], random));
  const judged: JudgedSplits = {
    splits: splits.length,
    judged: new Map(),
    blocks: new Map(),
    overallBlocked: 0,
    gateAlpha: 0,
    tolerance: 0,
    detectable: new Map(),
    gated: new Map(),
  };
  splits.forEach((split, index) => {
    const { verdict } = compareRecords({
      baseline: split.a,
      candidate: split.b,
      settings: input.settings,
      mode: "interleaved",
      ...(input.now ? { now: input.now } : {}),
    });
    judged.gateAlpha = verdict.settings.familyAlpha;
    judged.tolerance = verdict.settings.tolerance;
    if (verdict.verdict === "regression") judged.overallBlocked++;
    for (const c of verdict.comparisons) {
      const key = noiseKey(c.cell, c.metric);
      if (index === 0) {
        judged.gated.set(key, c.gated);
        judged.detectable.set(key, c.detectableChange);
      }
      if (!c.gated) continue;
      judged.judged.set(key, (judged.judged.get(key) ?? 0) + 1);
      if (c.verdict === "regression") judged.blocks.set(key, (judged.blocks.get(key) ?? 0) + 1);
    }
  });
  return judged;
}

/** The A/A sides with the runs the gate's outlier screen kept and their pooled run-to-run variances. */
interface MeasuredSides extends AaSides {
  kept: { baseline: RunRecord[]; candidate: RunRecord[] };
  variances: ReturnType<typeof pooledRunVariances>;
}

/** One cell of the calibration file: its run length, screened runs and each gated metric's noise. */
function cellSummary(
  cell: string,
  sides: MeasuredSides,
  judged: JudgedSplits,
  history: readonly RunRecord[] | undefined,
): CalibrationFile["cells"][number] {
  const { a, b, kept } = sides;
  return {
    cell,
    ...requestsPerRunOf([...a, ...b], cell),
    screenedRuns: [...a, ...b].filter(
      (run) => run.cell === cell && !kept.baseline.includes(run) && !kept.candidate.includes(run),
    ).length,
    metrics: metricNames.flatMap((metric): CalibrationMetric[] => {
      const summary = metricSummary(cell, metric, sides, judged, history);
      return summary === null ? [] : [summary];
    }),
  };
}

/** One metric of a cell: its run spread, drift, detectable change, A/A blocks and noise levels. */
function metricSummary(
  cell: string,
  metric: MetricName,
  sides: MeasuredSides,
  judged: JudgedSplits,
  history: readonly RunRecord[] | undefined,
): CalibrationMetric | null {
  const key = noiseKey(cell, metric);
  const pooled = sides.variances.get(key);
  if (!pooled || !judged.gated.has(key)) return null;
  const gated = judged.gated.get(key)!;
  const drift =
    history && history.length > 0
      ? cellSessionDrift(sessionLogs(cell, metric, [...history, ...sides.a, ...sides.b]))
      : null;
  const splitsJudged = judged.judged.get(key) ?? 0;
  const blocked = judged.blocks.get(key) ?? 0;
  return {
    metric,
    gated,
    runSpread: Math.sqrt(pooled.variance),
    variance: pooled.variance,
    df: pooled.df,
    drift: drift && drift.sessions >= 2 ? { sd: Math.sqrt(drift.t2), sessions: drift.sessions } : null,
    detectableChange:
      judged.detectable.get(key) ??
      (gated
        ? minimumDetectableChange({
            baselineVariance: pooled.variance,
            candidateVariance: pooled.variance,
            baselineRuns: sides.runsPerSide,
            candidateRuns: sides.runsPerSide,
            extraVariance: 0,
            tolerance: judged.tolerance,
            alpha: judged.gateAlpha,
            df: pooled.df,
          })
        : null),
    aaSplits: splitsJudged,
    aaBlocks: blocked,
    falseBlockRate: splitsJudged > 0 ? blocked / splitsJudged : null,
    ...levelsOf(sides.kept.baseline, sides.kept.candidate, cell, metric),
  };
}

/** The ln values of a cell's metric per session of the healthy runs (both A/A sides are one session). */
function sessionLogs(cell: string, metric: MetricName, runs: readonly RunRecord[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const run of runs) {
    if (run.cell !== cell || !run.session || !healthy(run)) continue;
    const value = run.metrics[metric];
    if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) continue;
    // Both A/A sides are one session of this runner.
    const session = run.session === "aa-a" || run.session === "aa-b" ? "calibration" : run.session;
    groups.set(session, [...(groups.get(session) ?? []), Math.log(value)]);
  }
  return groups;
}

/** The two levels of one cell's metric from the A/A sides' runs grouped by their server start. */
function levelsOf(
  a: readonly RunRecord[],
  b: readonly RunRecord[],
  cell: string,
  metric: MetricName,
): { levels?: NonNullable<CalibrationMetric["levels"]> } {
  const sample = (runs: readonly RunRecord[]) => {
    const values: number[] = [];
    const starts: string[] = [];
    for (const run of runs) {
      const value = run.cell === cell ? run.metrics[metric] : undefined;
      if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) continue;
      values.push(Math.log(value));
      starts.push(startOf(run));
    }
    return { values, starts };
  };
  const sa = sample(a);
  const sb = sample(b);
  if (sa.values.length < 2 || sb.values.length < 2) return {};
  const result = twoLevelWelch(sa, sb);
  const starts = new Set([...sa.starts, ...sb.starts]).size;
  const fresh = result.baseline.singleRunStarts && result.candidate.singleRunStarts;
  const pooledRunDf = result.baseline.runVarianceDf + result.candidate.runVarianceDf;
  const runVariance =
    pooledRunDf > 0
      ? (result.baseline.runVariance * result.baseline.runVarianceDf +
          result.candidate.runVariance * result.candidate.runVarianceDf) /
        pooledRunDf
      : 0;
  const measured = fresh ? null : result.measuredStartVariance;
  // σ_r² + σ_s² with the starts' estimate unclamped: at least σ_r²·(1 − 1/n) for starts of n runs.
  const perRun = measured
    ? sumOf({ variance: runVariance, df: pooledRunDf }, { variance: measured.estimate, df: measured.df })
    : null;
  return {
    levels: {
      starts,
      // Runs on their own starts hold both levels in one spread: the start level cannot be told apart.
      startVariance: measured?.variance ?? null,
      startDf: measured?.df ?? 0,
      runVariance,
      runDf: pooledRunDf,
      fresh,
      ...(perRun && perRun.variance > 0 ? { perRunVariance: perRun.variance, perRunDf: perRun.df } : {}),
    },
  };
}

/** The median successful requests of a cell's runs (the run length its variances were measured at). */
function requestsPerRunOf(runs: readonly RunRecord[], cell: string): { requestsPerRun?: number } {
  const counts = runs
    .filter((run) => run.cell === cell)
    .map((run) => run.requests.completed)
    .sort((x, y) => x - y);
  if (counts.length === 0) return {};
  const mid = counts.length >> 1;
  return { requestsPerRun: counts.length % 2 === 1 ? counts[mid]! : (counts[mid - 1]! + counts[mid]!) / 2 };
}

/**
 * What a calibration measured of one cell's metric at both levels of the noise (docs/compare.md, "Server
 * starts"), each with its degrees of freedom: the start-to-start variance σ_s², the run-to-run variance
 * within a start σ_r², and the variance of a run on its own start σ_r² + σ_s²; null where the
 * calibration's runs could not tell it (every run its own start, one start a side, a file written before
 * the levels were recorded).
 */
interface CalibratedNoise {
  cell: string;
  metric: MetricName;
  gated: boolean;
  start: VariancePrior | null;
  withinStart: VariancePrior | null;
  perRun: VariancePrior | null;
  /** The run length the variances belong to (median successful requests a run); null in older files. */
  requestsPerRun: number | null;
  /** When the calibration was measured (its `createdAt`). */
  measuredAt: string;
}

/** Satterthwaite's degrees of freedom of a sum of two independent variance estimates. */
function sumOf(a: VariancePrior, b: VariancePrior): VariancePrior {
  const variance = a.variance + b.variance;
  const denominator = (a.df > 0 ? a.variance ** 2 / a.df : 0) + (b.df > 0 ? b.variance ** 2 / b.df : 0);
  return { variance, df: denominator > 0 ? variance ** 2 / denominator : a.df + b.df };
}

/** The calibration's noise per cell and metric, at each level it measured (see CalibratedNoise). */
function calibratedLevels(file: CalibrationFile): CalibratedNoise[] {
  return file.cells.flatMap((cell) =>
    cell.metrics.map((m): CalibratedNoise => {
      const levels = m.levels;
      const base = {
        cell: cell.cell,
        metric: m.metric as MetricName,
        gated: m.gated,
        requestsPerRun: cell.requestsPerRun ?? null,
        measuredAt: file.createdAt,
      };
      const run = levels && levels.runDf > 0 ? { variance: levels.runVariance, df: levels.runDf } : null;
      const start =
        levels && levels.startVariance !== null && levels.startDf > 0
          ? { variance: levels.startVariance, df: levels.startDf }
          : null;
      // Older files do not say whether the runs were fresh starts; a measured start level says they were not.
      const fresh = levels?.fresh ?? (start !== null ? false : null);
      if (run === null || fresh === null) return { ...base, start, withinStart: null, perRun: null };
      if (fresh) return { ...base, start: null, withinStart: null, perRun: run };
      const perRun =
        levels?.perRunVariance !== undefined
          ? { variance: levels.perRunVariance, df: levels.perRunDf ?? 0 }
          : start
            ? sumOf(run, start)
            : null;
      return { ...base, start, withinStart: run, perRun };
    }),
  );
}

function calibrationOrigin(file: CalibrationFile, source: string, detail?: string): PriorOrigin {
  return {
    source: `calibration ${source}${detail ? ` (${detail})` : ""}`,
    basis: "calibration",
    measuredAt: file.createdAt,
  };
}

/**
 * The calibration's start-to-start variances as compare's start priors (interleaved mode), per cell and
 * metric, where it measured them (two starts or more on a side).
 */
export function calibrationStartPriors(
  file: CalibrationFile,
  source: string,
): Map<string, VariancePrior & PriorOrigin> {
  const priors = new Map<string, VariancePrior & PriorOrigin>();
  const startsOf = new Map(
    file.cells.flatMap((cell) =>
      cell.metrics.map((m) => [noiseKey(cell.cell, m.metric), m.levels?.starts ?? 0]),
    ),
  );
  for (const noise of calibratedLevels(file)) {
    if (noise.start === null) continue;
    const key = noiseKey(noise.cell, noise.metric);
    priors.set(key, {
      ...noise.start,
      ...calibrationOrigin(file, source, `${startsOf.get(key)} starts`),
    });
  }
  return priors;
}

/**
 * The calibration's run-to-run variances as compare's run priors for both sides (interleaved mode), per
 * cell and metric: within a start and for a run on its own start, where it measured them.
 */
export function calibrationRunPriors(
  file: CalibrationFile,
  source: string,
): Map<string, RunVariancePrior & PriorOrigin> {
  const priors = new Map<string, RunVariancePrior & PriorOrigin>();
  for (const noise of calibratedLevels(file)) {
    if (noise.withinStart === null && noise.perRun === null) continue;
    priors.set(noiseKey(noise.cell, noise.metric), {
      ...(noise.withinStart ? { withinStart: noise.withinStart } : {}),
      ...(noise.perRun ? { perRun: noise.perRun } : {}),
      ...calibrationOrigin(file, source),
    });
  }
  return priors;
}

/** What the run planner plans a cell's metric family with: the calibration's noise of its noisiest gated metric. */
export interface CalibratedFamilyNoise extends Omit<CalibratedNoise, "gated"> {
  family: NoiseFamily;
  /** Days from the calibration to `now`. */
  ageDays: number;
}

/**
 * Per cell and metric family (gate.noise_prior's families), the calibrated start and run variances the
 * run planner can plan with in place of gate.noise_prior: the family's gated metric whose runs vary most
 * (σ_s² + σ_r², the binding check), with every level's degrees of freedom and the run length they were
 * measured at. Families without a gated metric the calibration measured at the run level are absent.
 */
export function calibratedNoiseByFamily(
  file: CalibrationFile,
  now: Date = new Date(),
): Map<string, Map<NoiseFamily, CalibratedFamilyNoise>> {
  const ageDays = priorAgeDays(file.createdAt, now.toISOString()) ?? 0;
  const total = (n: Pick<CalibratedNoise, "perRun" | "withinStart" | "start">) =>
    n.perRun?.variance ?? (n.withinStart?.variance ?? 0) + (n.start?.variance ?? 0);
  const byCell = new Map<string, Map<NoiseFamily, CalibratedFamilyNoise>>();
  for (const noise of calibratedLevels(file)) {
    if (!noise.gated || (noise.withinStart === null && noise.perRun === null)) continue;
    const family = metricSpecs[noise.metric].noise;
    const families = byCell.get(noise.cell) ?? new Map<NoiseFamily, CalibratedFamilyNoise>();
    const known = families.get(family);
    if (!known || total(noise) > total(known)) {
      const { gated: _gated, ...rest } = noise;
      families.set(family, { ...rest, family, ageDays });
    }
    byCell.set(noise.cell, families);
  }
  return byCell;
}

/** Reads a calibration file's JSON; InputError naming the file and the field on bad content. */
export function parseCalibrationFile(text: string, path: string): CalibrationFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${path}: not JSON (${(error as Error).message})`);
  }
  const parsed = calibrationFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(
      `${path}: field ${issue.path.join(".") || "(root)"}: ${issue.message} (expected a calibration file of schemaVersion ${calibrationSchemaVersion}, written by \`vllm-perf-gate calibrate\`)`,
    );
  }
  return parsed.data;
}

/**
 * The origin of `calibrationPriors`' result: the calibration, or the calibration pooled with the priors
 * already known (main's history), dated from the oldest to the newest measurement in it.
 */
export function calibrationPriorOrigin(
  file: CalibrationFile,
  source: string,
  others?: PriorOrigin,
): PriorOrigin {
  const own = calibrationOrigin(file, source);
  if (!others) return own;
  const dates = [file.createdAt, others.measuredAt, others.since]
    .filter((d): d is string => typeof d === "string" && Number.isFinite(Date.parse(d)))
    .sort((x, y) => Date.parse(x) - Date.parse(y));
  return {
    source: `${own.source} + ${others.source}`,
    basis: "calibration+history",
    measuredAt: dates.at(-1) ?? null,
    since: dates[0] ?? null,
  };
}

/**
 * The calibration as the gate's noise prior per cell and metric (the key of compare's
 * baselineVariancePriors), pooled with priors already known (main's history) by degrees of freedom.
 */
export function calibrationPriors(
  file: CalibrationFile,
  others?: ReadonlyMap<string, { variance: number; df: number }>,
): Map<string, { variance: number; df: number }> {
  const priors = new Map(others ?? []);
  for (const cell of file.cells)
    for (const m of cell.metrics) {
      const key = noiseKey(cell.cell, m.metric);
      const known = priors.get(key);
      const df = m.df + (known?.df ?? 0);
      priors.set(key, {
        variance: (m.variance * m.df + (known ? known.variance * known.df : 0)) / df,
        df,
      });
    }
  return priors;
}
