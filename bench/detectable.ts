/**
 * Is the minimum detectable change the gate prints honest? (bench:gate --only mdc.) For each row (a gated
 * check, the noise under it, the runs a side and the look they are decided at), through the real decision
 * code (`analyze`, the decision `compare` makes), 3 cells × 5 gated metrics, default config:
 *   1. clean PRs: the detectable change printed for the check (cell-0) at these runs; their median;
 *   2. PRs whose check is truly worse by exactly that median (a latency × (1 + m), throughput ÷ (1 + m)),
 *      everything else unchanged: how often the check is a regression (the promise: 90%), with its 95%
 *      Wilson interval, and how often the PR is blocked (family tests and the other checks included).
 * One analysis per PR at the row's run count: the look the runs fall in (one look when repeats.min =
 * repeats.max; the first look of the default schedule 5..25 otherwise), which is what the printed value
 * speaks of ("these runs catch").
 */
import { analyze } from "../src/compare/analyze/analyze.js";
import { defaultCompareSettings } from "../src/compare/index.js";
import type { MetricName } from "../src/config/metric-names.js";
import type { RunRecord } from "../src/metrics/run-record.js";
import { alternatingBlocks } from "../src/runner/interleaved.js";
import { wilsonInterval } from "../src/stats/accuracy.js";
import { percentileSorted } from "../src/stats/percentile.js";
import {
  type Change,
  type ModelMetric,
  noStarts,
  publishedStartLevel,
  publishedStarts,
  type RunNoise,
  type StartNoise,
  sigmaW1,
  World,
} from "./noise.js";

interface DetectableRow {
  metric: ModelMetric;
  noise: RunNoise;
  starts: StartNoise;
  /** Whether the runs say which start measured them; false: each is read as its own start. */
  startsRecorded: boolean;
  runsPerSide: number;
  /** Runs of a side measured back to back on one start (repeats.block). */
  runsPerBlock: number;
  repeats: { min: number; max: number };
}

const cells = 3;
const runMinutes = 0.5;

/** Gaussian run noise of one sd on every metric: no sampling draws, no outlier runs (the issue's setting). */
function gaussianRuns(sd: number): RunNoise {
  return {
    runSd: { ttft_p95: sd, tpot_p95: sd, e2el_p95: sd, output_throughput: sd },
    sampling: { ttft_p95: false, tpot_p95: false, e2el_p95: false },
    shape: "normal",
    outlierRate: 0,
    label: `Gaussian run noise ${sd * 100}% on every metric`,
  };
}

/** How far the published levels follow the model the detectable change assumes. */
type LevelsKind = "gaussian" | "run-tails" | "all-tails";

/**
 * The published magnitudes (docs/compare.md, "Server starts"): within a start, runs vary by 0.5% on
 * throughput, 1.5% on TPOT and E2E p95, 3% on TTFT p95 plus its p95 sampling noise at 30 s runs; between
 * starts, throughput, TPOT and E2E 1%, TTFT 3%. "gaussian": both levels normal, no outlier runs, no slow
 * starts (the model the test and the detectable change assume; the p95 sampling draws keep their shape);
 * "run-tails": the default model's run effect (Student t, 3 df) and 5% outlier runs (1.3x slower);
 * "all-tails": those and 3% of the starts 1.08x slower.
 */
function publishedLevels(kind: LevelsKind): { noise: RunNoise; starts: StartNoise } {
  const runTails = kind !== "gaussian";
  const labels: Record<LevelsKind, string> = {
    gaussian:
      "published levels, Gaussian (runs: throughput 0.5%, TPOT p95 1.5%, TTFT p95 3% + sampling; starts 1%, 1%, 3%)",
    "run-tails": "published levels, the model's run tails (t, 3 df; 5% outlier runs 1.3x slower)",
    "all-tails": "published levels, the model's run tails and slow starts (3% of starts 1.08x slower)",
  };
  return {
    noise: {
      runSd: { ttft_p95: 0.03, tpot_p95: 0.015, e2el_p95: 0.015, output_throughput: 0.005 },
      sampling: { ttft_p95: true, tpot_p95: false, e2el_p95: false },
      shape: runTails ? "t3" : "normal",
      outlierRate: runTails ? 0.05 : 0,
      label: labels[kind],
    },
    starts: kind === "all-tails" ? publishedStarts : publishedStartLevel,
  };
}

const metricLabel: Record<ModelMetric, string> = {
  ttft_p95: "TTFT p95",
  tpot_p95: "TPOT p95",
  e2el_p95: "E2E p95",
  output_throughput: "output throughput",
};

function rows(defaultRepeats: { min: number; max: number }): DetectableRow[] {
  const issue = { noise: gaussianRuns(0.03), starts: noStarts, startsRecorded: false, runsPerBlock: 1 };
  const oneLook = (runs: number) => ({ runsPerSide: runs, repeats: { min: runs, max: runs } });
  // repeats.block auto is 1 for this shape (TTFT p95 gated, 3 cells on one server a side).
  const published = (kind: LevelsKind) => ({
    ...publishedLevels(kind),
    startsRecorded: true,
    runsPerBlock: 1,
    ...oneLook(10),
  });
  const metrics: ModelMetric[] = ["output_throughput", "tpot_p95", "ttft_p95"];
  return [
    { ...issue, metric: "ttft_p95", runsPerSide: 6, repeats: defaultRepeats },
    { ...issue, metric: "ttft_p95", ...oneLook(10) },
    ...metrics.map((metric) => ({ ...published("gaussian"), metric })),
    ...metrics.map((metric) => ({ ...published("run-tails"), metric })),
    ...metrics.map((metric) => ({ ...published("all-tails"), metric })),
  ];
}

function describeRow(row: DetectableRow, defaultRepeats: { min: number; max: number }): string {
  const look =
    row.repeats.min === row.repeats.max
      ? "one look"
      : `first look of ${defaultRepeats.min}..${defaultRepeats.max}`;
  const starts =
    row.starts === noStarts
      ? "no start effect, starts not recorded"
      : `blocks of ${row.runsPerBlock}${row.startsRecorded ? ", starts recorded" : ""}`;
  return `${metricLabel[row.metric]} | ${row.noise.label}; ${starts} | ${row.runsPerSide}, ${look}`;
}

interface PrResult {
  /** The detectable change printed for the row's check. */
  detectable: number | null;
  checkRegression: boolean;
  blocked: boolean;
}

/** One PR: the row's runs a side, interleaved in blocks (a start per block, shared by the cells), one analysis. */
function onePr(world: World, row: DetectableRow, change: Change): PrResult {
  const settings = defaultCompareSettings();
  settings.repeats = { ...row.repeats, block: row.runsPerBlock };
  const sides = { baseline: [] as RunRecord[], candidate: [] as RunRecord[] };
  const startShifts = new Map<string, number[]>();
  const none: Change = { kind: "none" };
  for (const block of alternatingBlocks(
    0,
    row.runsPerSide,
    ["baseline", "candidate"] as const,
    row.runsPerBlock,
  )) {
    const key = `${block.side}:${block.firstRun}`;
    const shift = startShifts.get(key) ?? world.start(row.starts);
    startShifts.set(key, shift);
    const start = { id: row.startsRecorded ? key : null, shift };
    for (let k = block.firstRun; k < block.firstRun + block.runs; k++)
      for (let cell = 0; cell < cells; cell++)
        sides[block.side].push(
          world.run(
            cell,
            k,
            [0, 0, 0, 0],
            block.side === "candidate" ? change : none,
            block.side,
            block.side,
            0,
            start,
          ),
        );
  }
  const verdict = analyze({
    baseline: sides.baseline,
    candidate: sides.candidate,
    gate: settings.gate,
    repeats: settings.repeats,
    mode: "interleaved",
    now: "1970-01-01T00:00:00.000Z",
    tool: { name: "bench", version: "0" },
    runMinutes,
  });
  const check = verdict.comparisons.find(
    (c) => c.cell === "cell-0" && c.metric === (row.metric as MetricName),
  );
  return {
    detectable: check?.detectableChange ?? null,
    checkRegression: check?.verdict === "regression",
    blocked: verdict.verdict === "regression",
  };
}

function median(sorted: readonly number[]): number {
  return percentileSorted(Float64Array.from(sorted), 0.5);
}

function percentWithInterval(k: number, n: number): string {
  const [lo, hi] = wilsonInterval(k, n, 0.95);
  return `${((100 * k) / n).toFixed(1)}% (${(lo * 100).toFixed(1)}-${(hi * 100).toFixed(1)})`;
}

export function detectableSection(options: {
  reps: number;
  seed: number;
  pool: Float64Array;
  print: (line?: string) => void;
}): void {
  const { reps, seed, pool, print } = options;
  const defaults = defaultCompareSettings();
  const defaultRepeats = { min: defaults.repeats.min, max: defaults.repeats.max };
  print(
    `## Is the printed minimum detectable change honest? (${reps} clean PRs, then ${reps} PRs with the check truly worse by their median printed value)`,
  );
  print();
  print(
    `Interleaved, 3 cells × 5 gated metrics, default config (tolerance ${defaults.gate.tolerance}, confidence ${defaults.gate.confidence}), ${runMinutes * 60} s runs; the check is cell-0's; one analysis at the row's runs. "check blocked": the check's own verdict is regression (the promise: 90%); "PR blocked": the overall verdict (family tests and the other checks too). Intervals: 95% Wilson.`,
  );
  print();
  print(
    "| check | noise | runs a side, look | printed MDC, median (IQR) of clean PRs | check blocked at that true change | PR blocked |",
  );
  print("|---|---|---|---|---|---|");
  rows(defaultRepeats).forEach((row, index) => {
    const world = (phase: number) =>
      new World(
        seed * 1_000_003 + (index * 2 + phase) * 7717,
        pool,
        () => ({ withinSd: sigmaW1 / Math.sqrt(runMinutes), requests: Math.round(1000 * runMinutes) }),
        "ignore-eos",
        Array.from({ length: cells }, (_, k) => `cell-${k}`),
        row.noise,
      );
    const cleanWorld = world(0);
    const printed: number[] = [];
    for (let i = 0; i < reps; i++) {
      const value = onePr(cleanWorld, row, { kind: "none" }).detectable;
      if (value !== null) printed.push(value);
    }
    printed.sort((a, b) => a - b);
    const m = median(printed);
    const q = (p: number) => percentileSorted(Float64Array.from(printed), p);
    const changed = world(1);
    const change: Change = { kind: "metric", metric: row.metric, cells: [0], effect: m };
    let check = 0;
    let blocked = 0;
    for (let i = 0; i < reps; i++) {
      const result = onePr(changed, row, change);
      if (result.checkRegression) check++;
      if (result.blocked) blocked++;
    }
    const asPrinted = (x: number) =>
      row.metric === "output_throughput"
        ? `−${((1 - 1 / (1 + x)) * 100).toFixed(1)}%`
        : `+${(x * 100).toFixed(1)}%`;
    print(
      `| ${describeRow(row, defaultRepeats)} | ${asPrinted(m)} (${asPrinted(q(0.25))} – ${asPrinted(q(0.75))}) | ${percentWithInterval(check, reps)} | ${percentWithInterval(blocked, reps)} |`,
    );
  });
  print();
  print("Target: the check blocked 85-95% of the time at a true change equal to the printed value.");
  print();
}
