/**
 * The idle-elided schedule against real time, on the simulator's engine on virtual time (the runner's
 * own dispatcher, request records and metric definitions: src/app/virtual-run.ts), for the cells of
 * examples/matrix-18.yml on the gpu-shaped profile.
 * Usage: npx tsx bench/schedule.ts [--seeds 5] [--all] [--settle-ms 100]
 *
 * Per cell and seed (the workload seed and the server's seed: another arrival schedule, other prompts,
 * another per-start speed), one run on each schedule. Printed per cell: the wall-clock of a run on real
 * time and idle-elided (median over seeds), and the largest |ln(elided / real)| over the seeds of each
 * gated metric (TTFT, TPOT, E2E p95, output throughput). The criterion: within a tenth of the gate's
 * tolerance (0.5% at 5%) for every metric and seed. For contrast, the same run on real time with the
 * arrival rate raised until it takes the idle-elided wall-clock (a schedule compressed uniformly,
 * which does change what is in flight): its largest |ln(change)|.
 * --all adds the usual and peak cells (less idle time to cut as the load rises).
 */
import { resolve } from "node:path";
import { runCellVirtually, type VirtualRunResult } from "../src/app/virtual-run.js";
import { loadConfig } from "../src/config/load.js";
import type { CellConfig, Config } from "../src/config/schema.js";
import { applyOverrides, builtInProfile } from "../src/sim/index.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const seeds = option("seeds", 5);
const settleMs = option("settle-ms", 100);
const all = process.argv.includes("--all");

// gpu-shaped, with room for the rag cells' 4,000-8,000-token prompts.
const profile = applyOverrides(
  builtInProfile("gpu-shaped"),
  { max_model_len: 16384, num_gpu_blocks: 16384 },
  "bench",
);

const metrics = {
  "TTFT p95": (run: VirtualRunResult) => run.metrics.latency.ttft.p95,
  "TPOT p95": (run: VirtualRunResult) => run.metrics.latency.tpot.p95,
  "E2E p95": (run: VirtualRunResult) => run.metrics.latency.e2el.p95,
  "out tok/s": (run: VirtualRunResult) => run.metrics.throughput.output,
} as const;
type MetricLabel = keyof typeof metrics;

const logChange = (a: number | null, b: number | null) =>
  a !== null && b !== null && a > 0 && b > 0 ? Math.abs(Math.log(a / b)) : Number.NaN;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const loaded = await loadConfig(resolve(import.meta.dirname, "../examples/matrix-18.yml"), { env: {} });
const base: Config = loaded.config;
const tolerance = base.gate.tolerance;
const cells = base.cells.filter((cell) => cell.load.type === "rate" && (all || cell.name.endsWith("-low")));

console.log(
  `idle-elided against real time: ${cells.length} cells of examples/matrix-18.yml, gpu-shaped profile, ${seeds} seeds, settle ${settleMs} ms; criterion |ln ratio| <= ${((tolerance / 10) * 100).toFixed(1)}% (a tenth of the tolerance)\n`,
);
const header = [
  "cell",
  "real s",
  "elided s",
  "wall",
  ...Object.keys(metrics).map((label) => `${label} max|d|`),
  "within",
  "uniform max|d|",
];
const rows: string[][] = [];
let failures = 0;
for (const cell of cells) {
  const real: number[] = [];
  const elided: number[] = [];
  const worst = Object.fromEntries(Object.keys(metrics).map((label) => [label, 0])) as Record<
    MetricLabel,
    number
  >;
  let uniformWorst = 0;
  let within = true;
  for (let seed = 0; seed < seeds; seed++) {
    const config: Config = { ...base, seed, runner: { ...base.runner, settle_ms: settleMs } };
    const run = (c: CellConfig, schedule: "real-time" | "idle-elided") =>
      runCellVirtually({
        config,
        cell: c,
        profile,
        serverSeed: seed,
        schedule:
          schedule === "real-time"
            ? { kind: "real-time", reason: "configured" }
            : { kind: "idle-elided", settleMs },
      });
    const onRealTime = await run(cell, "real-time");
    const idleElided = await run(cell, "idle-elided");
    real.push(onRealTime.wallClockS);
    elided.push(idleElided.wallClockS);
    for (const [label, read] of Object.entries(metrics) as [
      MetricLabel,
      (run: VirtualRunResult) => number | null,
    ][]) {
      const change = logChange(read(idleElided), read(onRealTime));
      worst[label] = Math.max(worst[label], change);
      if (!(change <= tolerance / 10)) within = false;
    }
    // A uniformly compressed schedule taking the same wall-clock: the rate raised by real / elided.
    if (cell.load.type === "rate") {
      const factor = onRealTime.wallClockS / idleElided.wallClockS;
      const faster: CellConfig = { ...cell, load: { ...cell.load, rate: cell.load.rate * factor } };
      const uniform = await run(faster, "real-time");
      for (const read of Object.values(metrics))
        uniformWorst = Math.max(uniformWorst, logChange(read(uniform), read(onRealTime)));
    }
  }
  if (!within) failures++;
  const pct = (value: number) => `${(100 * value).toFixed(3)}%`;
  rows.push([
    cell.name,
    median(real).toFixed(0),
    median(elided).toFixed(0),
    `${((100 * median(elided)) / median(real)).toFixed(0)}%`,
    ...Object.keys(metrics).map((label) => pct(worst[label as MetricLabel])),
    within ? "yes" : "NO",
    pct(uniformWorst),
  ]);
}
const widths = header.map((title, column) =>
  Math.max(title.length, ...rows.map((row) => row[column]!.length)),
);
const line = (row: string[]) => row.map((value, column) => value.padStart(widths[column]!)).join("  ");
console.log(line(header));
for (const row of rows) console.log(line(row));
console.log(
  `\n${failures === 0 ? "every cell within the criterion" : `${failures} cell(s) outside the criterion`}; "wall" is the idle-elided run's wall-clock as a share of real time (median over seeds)`,
);
