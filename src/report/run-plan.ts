import type { RunPlan } from "../stats/run-plan.js";

/** validate's lines for the run plan of each mode: its runs, run lengths, starts, cost and basis. */
export function runPlanLines(
  plans: readonly { mode: "interleaved" | "stored" | "baseline"; plan: RunPlan }[],
  configured: { first: number; max: number },
  repeats: { min: number; max: number },
): string[] {
  if (plans.length === 0) return [];
  const first = plans[0]!.plan;
  const chance = (p: number) => (p < 0.005 ? "<1%" : `${Math.round(p * 100)}%`);
  const minutes = (value: number) => (value < 10 ? value.toFixed(1) : String(Math.round(value)));
  const sized = first.cells.filter((cell) => cell.requests !== null);
  const sizes = (unit: "requests" | "sessions") =>
    sized.filter((cell) => cell.sizeUnit === unit).map((cell) => cell.requests!);
  const requests = sizes("requests");
  const sessions = sizes("sessions");
  const lengths = first.cells.map((cell) => cell.secondsPerRun);
  const range = (values: readonly number[], unit: string) =>
    values.length === 0
      ? "none"
      : Math.min(...values) === Math.max(...values)
        ? `${Math.round(values[0]!)}${unit}`
        : `${Math.round(Math.min(...values))}-${Math.round(Math.max(...values))}${unit}`;
  const label = {
    interleaved: "per PR, interleaved (both sides)",
    stored: "per PR, stored baseline (PR side only)",
    baseline: "per baseline job",
  };
  return [
    `run plan (sized by information; basis: ${first.basis}):`,
    `  requests per run: ${range(requests, "")}${sessions.length > 0 ? `, sessions per run: ${range(sessions, "")} (${sessions.length} session cells)` : ""} (${sized.length} sized cells; ${first.cells.length - sized.length} of fixed length), ${range(lengths, " s")} a run`,
    ...plans.map(
      ({ mode, plan }) =>
        `  ${label[mode]}: ${minutes(plan.gpuMinutes)} GPU-minutes at ${plan.runsPerSide} runs a side (${plan.serverStarts} starts)`,
    ),
    `  the plan's first look decides a PR with no change 90% of the time by this model; the config's runs as declared: ${chance(configured.first)} at ${repeats.min} runs, ${chance(configured.max)} at ${repeats.max}`,
  ];
}
