/**
 * `npx tsx bench/sim-starts.ts [--starts N] [--quick]`: how much the simulator's server starts differ,
 * per metric, with the demo's engine and cells (the `clean` scenario's baseline) on virtual time.
 * Each start is one run on an engine of its own seed (app/virtual-run.ts), so the spread between runs
 * is the start-to-start spread plus what differs within a run (the step jitter, drawn per step). Rows:
 * the noise knobs turned on one after the other (docs/sim.md, Server starts): jitter only, + the
 * per-start speed factor (speed_sigma), + the per-start prefill factor (prefill_speed_sigma, the
 * default), + slow starts (slow_start_share 0.05 at slow_start_factor 1.15). Prints the sd of ln(metric)
 * across starts in percent, with its 95% interval (chi-square, Wilson-Hilferty).
 */
import { runCellVirtually } from "../src/app/virtual-run.js";
import { parseConfigText } from "../src/config/load.js";
import { demoConfigText, scenarios } from "../src/demo/scenarios.js";
import type { RunFile } from "../src/metrics/run-schema.js";
import { applyOverrides, builtInProfile, coerceOverrides, type SimProfile } from "../src/sim/profile.js";
import { normalQuantile } from "../src/stats/distributions.js";

const quick = process.argv.includes("--quick");
const startsArg = process.argv.indexOf("--starts");
const starts = startsArg > 0 ? Number(process.argv[startsArg + 1]) : quick ? 15 : 60;

const scenario = scenarios.clean;
const { config } = parseConfigText(demoConfigText(scenario, "baseline", 1000), "clean-baseline.yml", {
  env: {},
});
const demoProfile = applyOverrides(builtInProfile("small-gpu"), coerceOverrides(scenario.baselineSet));

const variants: { name: string; set: Partial<SimProfile> }[] = [
  { name: "jitter only", set: { speed_sigma: 0, prefill_speed_sigma: 0, slow_start_share: 0 } },
  { name: "+ speed_sigma 0.01", set: { prefill_speed_sigma: 0, slow_start_share: 0 } },
  { name: "+ prefill_speed_sigma 0.03 (demo)", set: { slow_start_share: 0 } },
  { name: "+ slow_start_share 0.05 x1.15", set: { slow_start_share: 0.05, slow_start_factor: 1.15 } },
];

const metrics: { name: string; of: (file: RunFile) => number | null }[] = [
  { name: "TTFT p95", of: (file) => file.latency.ttft.p95 },
  { name: "TPOT p95", of: (file) => file.latency.tpot.p95 },
  { name: "output tok/s", of: (file) => file.throughput.output },
];

/** The chi-square quantile by Wilson and Hilferty's cube-root normal approximation (within 1% from 10 df). */
function chiSquareQuantile(p: number, df: number): number {
  const k = 2 / (9 * df);
  return df * (1 - k + normalQuantile(p) * Math.sqrt(k)) ** 3;
}

/** Sample sd and its 95% interval (chi-square with n - 1 degrees of freedom). */
function sdWithInterval(values: readonly number[]): { sd: number; low: number; high: number } {
  const n = values.length;
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  const ss = values.reduce((sum, value) => sum + (value - mean) ** 2, 0);
  const df = n - 1;
  return {
    sd: Math.sqrt(ss / df),
    low: Math.sqrt(ss / chiSquareQuantile(0.975, df)),
    high: Math.sqrt(ss / chiSquareQuantile(0.025, df)),
  };
}

const percent = (value: number) => `${(value * 100).toFixed(2)}%`;

console.log(
  `sd of ln(metric) between ${starts} server starts, one run each, demo engine (scenario clean, baseline), virtual time`,
);
console.log(`| noise | cell | ${metrics.map((metric) => metric.name).join(" | ")} |`);
console.log(`|---|---|${metrics.map(() => "---").join("|")}|`);
for (const variant of variants) {
  const profile = applyOverrides(demoProfile, variant.set);
  for (const cell of config.cells) {
    const logs = metrics.map(() => [] as number[]);
    for (let start = 0; start < starts; start++) {
      const { file } = await runCellVirtually({ config, cell, profile, serverSeed: 1000 + start });
      for (const [index, metric] of metrics.entries())
        logs[index]!.push(Math.log(metric.of(file) ?? Number.NaN));
    }
    const cells = logs.map((values) => {
      const { sd, low, high } = sdWithInterval(values);
      return `${percent(sd)} (${percent(low)}-${percent(high)})`;
    });
    console.log(`| ${variant.name} | ${cell.name} | ${cells.join(" | ")} |`);
  }
}
