import type { Alternation } from "../config/alternation.js";
import { metricSpecs } from "../config/metric-names.js";
import { type Config, configLimits, isSearchedCell } from "../config/schema.js";
import {
  alternation,
  baselineRunsPerStart,
  noisiestGatedFamily,
  serverLifecycle,
  serverStartSeconds,
  serverStartsPerCell,
  sessionEstimate,
  startedServers,
  summarizeConfig,
  type TraceReplays,
} from "../config/summary.js";
import { depthBuckets } from "../metrics/session-metrics.js";
import { alternatingBlocks } from "../runner/interleaved.js";
import {
  cleanPassChance,
  type PlanCell,
  planRuns,
  priorRunNoise,
  type RunNoise,
  type RunPlan,
} from "../stats/run-plan.js";

/**
 * The run plan of a config (stats/run-plan.ts) for each mode: the fixed-load cells' requests per run
 * and the runs per side of the first look, from a noise model (the prior, or what was measured), priced
 * with every server start at the config's start cost and lifecycle. `applyRunPlan` gives the config
 * that measures it, so the device plan, validate's wall-clock and the runner read one shape.
 */

export interface ModeRunPlan {
  mode: "interleaved" | "stored" | "baseline";
  plan: RunPlan;
}

/**
 * The chance, by the plan's model, that the config's own first look (repeats.min runs a side at the
 * declared requests) and its last (repeats.max) decide a PR with no change: what the plan is against.
 */
export function configuredPassChance(
  config: Config,
  noiseOf: (cell: string) => RunNoise = () => priorNoise(config),
  traces?: TraceReplays,
): { first: number; max: number } {
  const cells = planCells(config, noiseOf, traces);
  const group = alternation(config);
  const input = {
    cells,
    tolerance: config.gate.tolerance,
    passAlpha: 1 - config.gate.confidence,
    checks: cells.length * config.gate.metrics.length,
    startWeightAt: (runs: number) =>
      serverLifecycle(config) === "per-run" ? 1 / runs : interleavedStartWeight(runs, group),
  };
  const declared = (cell: PlanCell) => cell.declaredRequests;
  return {
    first: cleanPassChance(input, config.repeats.min, declared),
    max: cleanPassChance(input, config.repeats.max, declared),
  };
}

/**
 * The noise the plan assumes before anything was measured: gate.noise_prior of the gated per-run family
 * with the most noise (start and run levels), and a p95's sampling noise at the prior's rate
 * (stats/run-plan.ts priorRunNoise).
 */
function priorNoise(config: Config): RunNoise {
  const prior = config.gate.noise_prior;
  const widest = noisiestGatedFamily(
    config,
    (family) => prior[family].start_sd ** 2 + prior[family].run_sd ** 2,
  );
  if (widest === null) return priorRunNoise;
  const { start_sd: start, run_sd: run } = prior[widest];
  const percent = (sd: number) => `${Number((sd * 100).toPrecision(3))}%`;
  return {
    startVariance: start ** 2,
    runVariance: run ** 2,
    withinVariance1: priorRunNoise.withinVariance1,
    basis: `prior (gate.noise_prior.${widest}: start sd ${percent(start)}, run sd ${percent(run)}; p95 sampling sd 1.66% at 1,000 requests)`,
  };
}

/**
 * How R runs a side alternating in groups of `group` (runner/interleaved.ts alternatingBlocks; a number
 * of runs per group, or the alternation) fall into server starts: the starts of the side with fewer of
 * them, and Σn²/N² of the side whose runs share starts the most (the start variance's share of its mean).
 */
export function interleavedStartShape(
  runs: number,
  group: number | Alternation,
): { fewestStarts: number; weight: number } {
  const blocks = alternatingBlocks(0, runs, ["a", "b"] as const, group);
  const ofSide = (side: "a" | "b") => blocks.filter((b) => b.side === side);
  const weight = (side: "a" | "b") =>
    ofSide(side).reduce((sum, b) => sum + b.runs * b.runs, 0) / (runs * runs);
  return {
    fewestStarts: Math.min(ofSide("a").length, ofSide("b").length),
    weight: Math.max(weight("a"), weight("b")),
  };
}

/** Σn²/N² of the side whose runs share starts the most (interleavedStartShape). */
export function interleavedStartWeight(runs: number, group: number | Alternation): number {
  return interleavedStartShape(runs, group).weight;
}

/** Chance the first look decides a PR with no change (every gated check passes) the plan aims at. */
export const planPower = 0.9;

/**
 * Most runs per side the plan considers (the largest standard look): above repeats.max when the
 * config's maximum cannot decide the first look, which the plan then says.
 */
const planMaxRuns = 40;

/**
 * The fewest requests a run may have so that every gated percentile stays gated (gate.min_requests, its
 * successful requests, with room for the failures gate.error_rate_limit allows).
 * For a session cell of about `turns` turns the floor is in sessions: a request-level percentile needs
 * floor / turns of them, a depth bucket's TTFT p95 (compare counts the bucket's own requests) floor /
 * the turns a session has in that bucket (at the mean length; a bucket no session reaches stays
 * advisory, as compare will find).
 */
function gatedMinRequests(config: Config, turns: number | null = null): number {
  let floor = 1;
  for (const metric of config.gate.metrics) {
    const spec = metricSpecs[metric];
    const statistic = spec.minRequests;
    if (!statistic) continue;
    // Successful requests count: with the failures gate.error_rate_limit allows, a run planned at the
    // floor itself would fall below it and its gated percentile turn advisory (a regression let pass).
    const needed = Math.ceil(config.gate.min_requests[statistic] / (1 - config.gate.error_rate_limit));
    if (turns === null) floor = Math.max(floor, needed);
    else if (spec.source.kind !== "session") floor = Math.max(floor, Math.ceil(needed / turns));
    else {
      const { field } = spec.source;
      const bucket = depthBuckets.find((entry) => field === `ttft_p95_depth_${entry.name}`);
      const inBucket = bucket ? Math.min(bucket.to ?? turns, turns) - bucket.from + 1 : 0;
      if (inBucket > 0) floor = Math.max(floor, Math.ceil(needed / inBucket));
    }
  }
  return floor;
}

/** The planner's view of the fixed-load cells: seconds per request and per run from validate's estimate. */
export function planCells(
  config: Config,
  noiseOf: (cell: string) => RunNoise = () => priorNoise(config),
  traces?: TraceReplays,
): PlanCell[] {
  // The trace cells' replays where validate read their files (their turns per session).
  const summary = summarizeConfig(config, [], undefined, traces);
  const floor = gatedMinRequests(config);
  return config.cells.flatMap((cell, index): PlanCell[] => {
    if (isSearchedCell(cell)) return [];
    const seconds = summary.cells[index]!.estimatedSecondsPerRun;
    const warmup = "requests" in cell.warmup ? cell.warmup.requests : 0;
    if (!("requests" in cell.size)) {
      const requests =
        cell.load.type === "stages"
          ? Math.round(cell.load.stages.reduce((n, s) => n + (s.rate ?? 0) * s.duration_s, 0))
          : floor;
      return [
        {
          name: cell.name,
          secondsPerRequest: null,
          fixedSecondsPerRun: seconds,
          declaredRequests: Math.max(1, requests),
          minRequests: floor,
          noise: noiseOf(cell.name),
        },
      ];
    }
    const perRequest = seconds / cell.size.requests;
    // A session dataset's size counts sessions of about `turns` requests each: planned per session, with
    // the percentile's sampling variance shrinking with the requests (sessions x turns), not the sessions.
    const session = sessionEstimate(cell, undefined, traces?.(cell) ?? null);
    const turns = session === null ? 1 : Math.max(1, session.turns);
    const noise = noiseOf(cell.name);
    return [
      {
        name: cell.name,
        secondsPerRequest: perRequest,
        fixedSecondsPerRun: warmup * perRequest,
        declaredRequests: cell.size.requests,
        minRequests: session === null ? floor : gatedMinRequests(config, turns),
        noise: session === null ? noise : { ...noise, withinVariance1: noise.withinVariance1 / turns },
        ...(session === null ? {} : { sizeUnit: "sessions" as const }),
      },
    ];
  });
}

/** The plan of each mode: the PR interleaved (both sides), against a stored baseline, a baseline job. */
export function runPlans(
  config: Config,
  noiseOf: (cell: string) => RunNoise = () => priorNoise(config),
  traces?: TraceReplays,
): ModeRunPlan[] {
  const cells = planCells(config, noiseOf, traces);
  const lifecycle = serverLifecycle(config);
  const servers = startedServers(lifecycle, cells.length);
  const base = {
    cells,
    tolerance: config.gate.tolerance,
    passAlpha: 1 - config.gate.confidence,
    power: planPower,
    checks: cells.length * config.gate.metrics.length,
    minRuns: 3,
    maxRuns: Math.max(config.repeats.max, planMaxRuns),
    startSeconds: serverStartSeconds(config),
    maxRequests: configLimits.requestsPerRun,
  };
  const group = alternation(config);
  const interleaved = planRuns({
    ...base,
    sides: 2,
    startWeightAt: (runs) => (lifecycle === "per-run" ? 1 / runs : interleavedStartWeight(runs, group)),
    startsFor: (runs) => servers * serverStartsPerCell("interleaved", runs, [], lifecycle, group),
  });
  // The same runs against a stored baseline: the candidate's side only, one start per server.
  const storedStarts = servers * serverStartsPerCell("stored", interleaved.runsPerSide, [], lifecycle);
  const oneSide = (runs: number, starts: number): RunPlan => {
    const runSeconds = interleaved.cells.reduce((sum, cell) => sum + cell.secondsPerRun, 0);
    const minutes = (runs * runSeconds + starts * base.startSeconds) / 60;
    return {
      ...interleaved,
      runsPerSide: runs,
      serverStarts: starts,
      gpuMinutes: minutes,
      nextLookGpuMinutes: minutes,
    };
  };
  return [
    { mode: "interleaved", plan: interleaved },
    { mode: "stored", plan: oneSide(interleaved.runsPerSide, storedStarts) },
    {
      mode: "baseline",
      plan: oneSide(
        config.repeats.baseline,
        servers *
          serverStartsPerCell(
            "baseline",
            config.repeats.baseline,
            [],
            lifecycle,
            baselineRunsPerStart(config),
          ),
      ),
    },
  ];
}

/**
 * The config that measures a plan: each planned fixed-load cell at its planned requests per run, and
 * the first look at the planned runs per side (repeats.min; repeats.max at least that).
 */
export function applyRunPlan(config: Config, plan: RunPlan): Config {
  const requests = new Map(plan.cells.map((cell) => [cell.name, cell.requests]));
  return {
    ...config,
    repeats: {
      ...config.repeats,
      min: plan.runsPerSide,
      max: Math.max(config.repeats.max, plan.runsPerSide),
    },
    cells: config.cells.map((cell) => {
      const planned = requests.get(cell.name);
      return planned != null && "requests" in cell.size ? { ...cell, size: { requests: planned } } : cell;
    }),
  };
}
