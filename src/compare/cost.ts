/**
 * The GPU-time cost model, in one place for the report ("about N GPU-minutes would settle it"),
 * `validate`'s plan and bench/gate.ts: every server start costs `startMinutes` (load weights, compile,
 * warm up: 3 min by default), every run of one cell costs `runMinutes` (the run length; 1 min unless the
 * config gives a duration).
 */
export const defaultStartMinutes = 3;
export const defaultRunMinutes = 1;

export interface CostRates {
  startMinutes?: number;
  runMinutes?: number;
}

export function gpuMinutes(serverStarts: number, cellRuns: number, rates: CostRates = {}): number {
  return (
    serverStarts * (rates.startMinutes ?? defaultStartMinutes) +
    cellRuns * (rates.runMinutes ?? defaultRunMinutes)
  );
}

/** Minutes of one run of a cell from its `size`: duration_s when given, else the default. */
export function runMinutesOf(size: { duration_s?: number } | { requests?: number }): number {
  return "duration_s" in size && typeof size.duration_s === "number"
    ? size.duration_s / 60
    : defaultRunMinutes;
}

/**
 * Server starts to measure `runs` runs per side of one cell, alternating A B B A A B ... with the
 * server kept up across consecutive runs of the same side: R + 1 starts for R runs per side (R >= 1).
 * With the alternation in blocks of `runsPerBlock` runs (A^k B^k B^k A^k ...), ⌈R / k⌉ + 1.
 */
export function interleavedStarts(runsPerSide: number, runsPerBlock = 1): number {
  return runsPerSide <= 0 ? 0 : Math.ceil(runsPerSide / Math.max(1, runsPerBlock)) + 1;
}

export interface PlanCost {
  mode: "stored" | "interleaved";
  cells: number;
  /** Runs per side of each cell measured in this PR's job. */
  candidateRuns: number;
  /** Baseline runs measured in this PR's job (interleaved only; a stored baseline costs the PR nothing). */
  baselineRuns?: number;
  /** Separate measuring rounds (looks) in stored mode: each starts the candidate's server again. */
  rounds?: number;
  /** Interleaved: runs per side measured back to back on one server start (1: A B B A per run). */
  runsPerBlock?: number;
}

/** GPU-minutes a PR spends on a plan (every server start counted). */
export function planGpuMinutes(plan: PlanCost, rates: CostRates = {}): number {
  if (plan.mode === "interleaved") {
    const runs = Math.max(plan.candidateRuns, plan.baselineRuns ?? plan.candidateRuns);
    return (
      plan.cells *
      gpuMinutes(
        interleavedStarts(runs, plan.runsPerBlock),
        plan.candidateRuns + (plan.baselineRuns ?? plan.candidateRuns),
        rates,
      )
    );
  }
  return plan.cells * gpuMinutes(plan.candidateRuns > 0 ? (plan.rounds ?? 1) : 0, plan.candidateRuns, rates);
}

/**
 * GPU-minutes to go from `from` to `to` runs per side in `cells` cells: the difference of the plans,
 * so interleaved starts are counted as the alternation continues (stored: one more round).
 */
export function addedGpuMinutes(
  mode: "stored" | "interleaved",
  cells: number,
  from: number,
  to: number,
  rates: CostRates = {},
): number {
  if (to <= from) return 0;
  if (mode === "interleaved")
    return (
      planGpuMinutes({ mode, cells, candidateRuns: to }, rates) -
      planGpuMinutes({ mode, cells, candidateRuns: from }, rates)
    );
  return cells * gpuMinutes(1, to - from, rates);
}
