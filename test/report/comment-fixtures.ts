import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type ComparisonReport, compareAndRender } from "../../src/app/compare.js";
import { defaultCompareSettings, settingsFromConfig } from "../../src/compare/index.js";
import { parseConfigText } from "../../src/config/load.js";
import { demoConfigText, type ScenarioName, scenarios } from "../../src/demo/scenarios.js";
import type { RunRecord } from "../../src/metrics/run-record.js";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import type { RunFile } from "../../src/metrics/run-schema.js";
import { gaussian, noisyRuns, type RunSpec, seeded } from "../compare/fixtures.js";

/**
 * The comparisons the comment's tests render: one shaped like each demo scenario (the demo's own config
 * and cells, the changes of each scenario as docs/demo.md measured them on the simulator) and a 19-cell
 * comparison of examples/matrix-18.yml's cells with one regression. Deterministic (seeded), so sizes
 * and screenshots compare run to run.
 */

const repoRoot = resolve(import.meta.dirname, "../..");

/** Runs are named as the action's evidence names them, under a runner's temporary directory. */
function records(runs: readonly RunFile[], side: string): RunRecord[] {
  return runs.map((run) =>
    runRecordFromRunFile(
      run,
      `/home/runner/work/_temp/vllm-perf-gate/evidence/${side}/${run.cell}/run-${run.run}/run.json`,
    ),
  );
}

/** The cell names of examples/matrix-18.yml (18 cells and the spike), read from the example itself. */
function matrixCellNames(): string[] {
  const path = resolve(repoRoot, "examples/matrix-18.yml");
  return parseConfigText(readFileSync(path, "utf8"), path, { env: {} }).config.cells.map((cell) => cell.name);
}

/**
 * A comparison of the matrix's 19 cells, 10 runs per side each (sd 2% per run), where one cell's TTFT is
 * 1.6 times the baseline's: one regression, every other gated check within tolerance.
 */
export function matrixComparison(): ComparisonReport {
  const cells = matrixCellNames();
  const base = cells.flatMap((cell, i) => noisyRuns(10, { seed: i, cell, sd: 0.02 }));
  const cand = cells.flatMap((cell, i) =>
    noisyRuns(10, { seed: 100 + i, cell, sd: 0.02, ttftFactor: i === 0 ? 1.6 : 1 }),
  );
  return compareAndRender({
    baseline: records(base, "baseline"),
    candidate: records(cand, "candidate"),
    settings: defaultCompareSettings(),
    mode: "interleaved",
    now: new Date("2026-11-30T05:00:00Z"),
  });
}

/** What each scenario does to a cell's phases (docs/demo.md, "How the scenarios are built"). */
type CellEffects = Record<
  "chat" | "rag" | "longgen",
  Pick<RunSpec, "ttftFactor" | "tpotFactor" | "e2elFactor" | "throughputFactor">
>;

const effects: Record<
  Exclude<ScenarioName, "capacity" | "sessions">,
  { change: CellEffects; sd: number; runs: number }
> = {
  // fp8 KV cache: TTFT p95 +34% in rag and about +20% in longgen, longgen's decode 9% faster and its
  // output throughput +5%, chat slower throughout (TPOT p95 +23%).
  tradeoff: {
    change: {
      chat: { ttftFactor: 1.05, tpotFactor: 1.23, e2elFactor: 1.2 },
      rag: { ttftFactor: 1.34, tpotFactor: 0.97 },
      longgen: { ttftFactor: 1.2, tpotFactor: 0.91, e2elFactor: 0.95, throughputFactor: 1.05 },
    },
    sd: 0.02,
    runs: 5,
  },
  clean: { change: { chat: {}, rag: {}, longgen: {} }, sd: 0.02, runs: 5 },
  // Every decode step 25% slower: TPOT and E2E +25%, longgen's (closed loop) throughput down.
  regression: {
    change: {
      chat: { tpotFactor: 1.25, e2elFactor: 1.25 },
      rag: { tpotFactor: 1.25, e2elFactor: 1.25 },
      longgen: { tpotFactor: 1.25, e2elFactor: 1.25, throughputFactor: 0.8 },
    },
    sd: 0.02,
    runs: 3,
  },
  // Identical servers whose speed varies 15% from start to start, 4 runs per side.
  flaky: { change: { chat: {}, rag: {}, longgen: {} }, sd: 0.15, runs: 4 },
};

function demoSettings(name: ScenarioName) {
  const text = demoConfigText(scenarios[name], "baseline", 1000);
  return settingsFromConfig(parseConfigText(text, `${name}.yml`, { env: {} }).config);
}

/**
 * A capacity search's runs of the demo's capacity cell: loads 4, 8, 16, 32, then four runs around the
 * knee, where the queue makes p95 TTFT grow past its 300 ms SLO (at about `knee` requests/s).
 */
function capacityRuns(knee: number, tpotMs: number, seed: number, side: string): RunRecord[] {
  const random = seeded(seed);
  const loads = [4, 8, 16, 32, knee * 0.95, knee, knee, knee * 1.05, knee * 0.97, knee * 1.02];
  return loads.map((load, run) => {
    const noise = Math.exp(0.03 * gaussian(random));
    const ttft = (90 + 210 * (load / knee) ** 6) * noise;
    return {
      source: `/home/runner/work/_temp/vllm-perf-gate/evidence/${side}/chat-capacity/run-${run}/run.json`,
      cell: "chat-capacity",
      run,
      startedAt: null,
      metrics: {
        ttft_p95: ttft,
        tpot_p95: tpotMs * noise,
        e2el_p95: ttft + 16 * tpotMs,
        error_rate: 0,
        request_throughput: Math.min(load, knee * 1.1),
        output_throughput: Math.min(load, knee * 1.1) * 16,
        tpot_p50: tpotMs * 0.95,
      },
      requests: { total: 80, completed: 80, failed: 0 },
      fingerprint: {},
      exclusionReasons: [],
      load: { targetRate: load, targetConcurrency: null },
    };
  });
}

/**
 * The sessions scenario's runs, 3 per side, with the changes its virtual-time runs show (docs/demo.md):
 * single requests 11-13% faster on the candidate (cheaper steps), its sessions' deep turns slower (the
 * smaller KV cache evicts their contexts), with the session metrics of a session cell's run.json: TTFT
 * p95 by depth (the first turns a little faster, turn 8 and deeper 6.3x), the prefix-cache hit rate per
 * session 0.88 -> 0.56, session goodput, throughput and duration.
 */
function sessionScenarioRuns(seed: number, candidate: boolean): RunRecord[] {
  const random = seeded(seed + 1);
  const single = noisyRuns(3, {
    seed,
    cell: "single",
    sd: 0.02,
    ...(candidate ? { ttftFactor: 0.87, tpotFactor: 0.89, e2elFactor: 0.89, throughputFactor: 1.035 } : {}),
  });
  const sessions = noisyRuns(3, {
    seed: seed + 1,
    cell: "sessions",
    sd: 0.02,
    ...(candidate ? { ttftFactor: 4.9, tpotFactor: 1.83, e2elFactor: 2.15, throughputFactor: 0.8 } : {}),
  });
  const sessionMetrics = (base: Record<string, number>, factor: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(base).map(([metric, value]) => [
        metric,
        value * (candidate ? (factor[metric] ?? 1) : 1) * Math.exp(0.02 * gaussian(random)),
      ]),
    );
  return [
    ...records(single, candidate ? "candidate" : "baseline"),
    ...records(sessions, candidate ? "candidate" : "baseline").map((record) => ({
      ...record,
      metrics: {
        ...record.metrics,
        ...sessionMetrics(
          {
            ttft_p95_depth_1: 87,
            ttft_p95_depth_2_3: 90,
            ttft_p95_depth_4_7: 92,
            ttft_p95_depth_8_up: 89,
            session_cache_hit_rate: 0.884,
            session_goodput: 2.64,
            session_throughput: 2.64,
            session_duration_p50: 6220,
            session_duration_p95: 6560,
          },
          {
            ttft_p95_depth_1: 0.85,
            ttft_p95_depth_2_3: 0.95,
            ttft_p95_depth_4_7: 4.3,
            ttft_p95_depth_8_up: 6.3,
            session_cache_hit_rate: 0.63,
            session_goodput: 0.27,
            session_throughput: 0.8,
            session_duration_p50: 1.33,
            session_duration_p95: 1.35,
          },
        ),
      },
    })),
  ];
}

/** A comparison shaped like `demo --scenario NAME`, rendered as the demo renders it. */
export function demoScenarioComparison(name: ScenarioName): ComparisonReport {
  const settings = demoSettings(name);
  const baselineInfo = { note: `demo scenario "${name}": ${scenarios[name].story}` };
  const now = new Date("2026-12-01T12:00:00Z");
  if (name === "capacity")
    return compareAndRender({
      baseline: capacityRuns(11.5, 38, 1, "baseline"),
      candidate: capacityRuns(14.4, 31, 2, "candidate"),
      settings,
      mode: "interleaved",
      baselineInfo,
      now,
    });
  if (name === "sessions")
    return compareAndRender({
      baseline: sessionScenarioRuns(10, false),
      candidate: sessionScenarioRuns(20, true),
      settings,
      mode: "interleaved",
      baselineInfo,
      now,
    });
  const { change, sd, runs } = effects[name];
  const side = (seed: number, apply: boolean) =>
    (["chat", "rag", "longgen"] as const).flatMap((cell, i) =>
      noisyRuns(runs, { seed: seed + i, cell, sd, ...(apply ? change[cell] : {}) }),
    );
  return compareAndRender({
    baseline: records(side(10, false), "baseline"),
    candidate: records(side(20, true), "candidate"),
    settings,
    mode: "interleaved",
    baselineInfo,
    now,
  });
}
