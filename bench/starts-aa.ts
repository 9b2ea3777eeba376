/**
 * `npx tsx bench/starts-aa.ts [--prs N] [--seed N] [--block 1|auto|fresh|N]`: A/A pull requests through
 * the real pipeline on the simulator, with its per-start noise (docs/sim.md, Server starts): the demo's
 * `clean` scenario (three cells, both sides the same simulator), each side's runs measured in the groups
 * of `repeats.block` (default 1: one run a side with a side's consecutive groups on one start, A, BB,
 * AA, ..., so that the test needs the start level; `auto`, the demo's own, gives this shape a start per
 * run and the level is in the runs' own spread), on virtual time (app/virtual-run.ts: the runner's dispatcher, its request records, run.json
 * assembly), one engine seed per server start, so every run of a start shares that start's speed
 * draws. Each PR's first look (repeats.min runs a side) goes through compare's decision
 * (`compareRecords`, interleaved) twice: with the runs' recorded starts, and with every run read as
 * its own start (how compare read runs before it knew their starts). Prints how often a PR was
 * blocked and how often a gated check's 90% interval excluded "no change" (at most 10% by its
 * confidence; far fewer once the gate's own levels apply), with their 95% intervals (Wilson).
 */
import { runCellVirtually } from "../src/app/virtual-run.js";
import { compareRecords, settingsFromConfig } from "../src/compare/index.js";
import { parseConfigText } from "../src/config/load.js";
import { alternation } from "../src/config/summary.js";
import { demoConfigText, scenarios } from "../src/demo/scenarios.js";
import { type RunRecord, runRecordFromRunFile } from "../src/metrics/run-record.js";
import { alternatingBlocks } from "../src/runner/interleaved.js";
import { applyOverrides, builtInProfile, coerceOverrides } from "../src/sim/profile.js";
import { normalQuantile } from "../src/stats/distributions.js";

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!(Number.isInteger(value) && value > 0)) throw new Error(`${name} expects a whole number > 0`);
  return value;
}

/** repeats.block from `--block`: a whole number of runs a group, "auto" or "fresh". */
function blockOption(): number | "auto" | "fresh" {
  const at = process.argv.indexOf("--block");
  if (at < 0) return 1;
  const value = process.argv[at + 1];
  if (value === "auto" || value === "fresh") return value;
  const runs = Number(value);
  if (!(Number.isInteger(runs) && runs > 0))
    throw new Error("--block expects a whole number > 0, auto or fresh");
  return runs;
}

const prs = option("--prs", 40);
const seed = option("--seed", 1);
const scenario = scenarios.clean;
const parsed = parseConfigText(demoConfigText(scenario, "baseline", 1000), "clean-baseline.yml", {
  env: {},
}).config;
// By default two runs a start (A, BB, AA, ...): the schedule whose test estimates the start level beside the runs.
const config = { ...parsed, repeats: { ...parsed.repeats, block: blockOption() } };
const profile = applyOverrides(builtInProfile("small-gpu"), coerceOverrides(scenario.baselineSet));
const settings = settingsFromConfig(config);
const group = alternation(config);
const runs = config.repeats.min;

/** Wilson's 95% interval of k of n. */
function wilson(k: number, n: number): string {
  const z = normalQuantile(0.975);
  const p = k / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  const pct = (x: number) => `${(Math.max(0, x) * 100).toFixed(1)}%`;
  return `${k}/${n} (${pct(p)}; 95% CI ${pct(centre - half)}-${pct(centre + half)})`;
}

/** One side's first look: its runs of every cell, each group of runs on one engine seed (a start). */
async function measureSide(side: "baseline" | "candidate", pr: number): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for (const block of alternatingBlocks(0, runs, ["baseline", "candidate"] as const, group)) {
    if (block.side !== side) continue;
    const serverSeed = seed * 1_000_003 + pr * 1000 + (side === "baseline" ? 0 : 500) + block.firstRun;
    for (const cell of config.cells)
      for (let run = block.firstRun; run < block.firstRun + block.runs; run++) {
        const { file } = await runCellVirtually({ config, cell, profile, serverSeed, runIndex: run, side });
        records.push(runRecordFromRunFile(file, `${side}/${cell.name}/run-${run}/run.json`));
      }
  }
  return records;
}

const tally = {
  recorded: { blocked: 0, excluded: 0, checks: 0 },
  ownStarts: { blocked: 0, excluded: 0, checks: 0 },
};
const started = performance.now();
for (let pr = 0; pr < prs; pr++) {
  const baseline = await measureSide("baseline", pr);
  const candidate = await measureSide("candidate", pr);
  const withoutStarts = (records: RunRecord[]) => records.map(({ serverStart: _, ...rest }) => rest);
  for (const [name, b, c] of [
    ["recorded", baseline, candidate],
    ["ownStarts", withoutStarts(baseline), withoutStarts(candidate)],
  ] as const) {
    const { verdict } = compareRecords({ baseline: b, candidate: c, settings, mode: "interleaved" });
    const t = tally[name];
    if (verdict.verdict === "regression") t.blocked++;
    for (const check of verdict.comparisons) {
      if (!check.gated || check.ci90 === null) continue;
      t.checks++;
      if (check.ci90[0] > 1 || check.ci90[1] < 1) t.excluded++;
    }
  }
}
console.log(
  `A/A through the pipeline on virtual time: ${prs} PRs of the clean scenario (3 cells), ${runs} runs a side in groups of ${group.runsPerGroup}${group.startEachGroup ? ", each on a start of its own" : ""} (repeats.block ${config.repeats.block}), engine per-start noise speed_sigma ${profile.speed_sigma}, prefill_speed_sigma ${profile.prefill_speed_sigma}`,
);
console.log("| runs read as | PRs blocked | gated checks whose 90% interval excludes no change |");
console.log("|---|---|---|");
console.log(
  `| their recorded starts | ${wilson(tally.recorded.blocked, prs)} | ${wilson(tally.recorded.excluded, tally.recorded.checks)} |`,
);
console.log(
  `| each its own start | ${wilson(tally.ownStarts.blocked, prs)} | ${wilson(tally.ownStarts.excluded, tally.ownStarts.checks)} |`,
);
console.log(`Elapsed ${((performance.now() - started) / 1000).toFixed(1)} s`);
