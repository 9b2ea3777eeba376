/**
 * Whether the simulator's own process, not the engine it models, limited the run: its step loop handled
 * step boundaries late because the host (shared with the client) did not run it on time. The measurement
 * apparatus analogue of a client-bound run, read from the simulator-only family sim:step_lateness_seconds
 * (run.json `server.sim_step_lateness_p99_ms`). A server that does not export that family (every real
 * vLLM) is never judged here.
 */
export function serverStarvedReasons(input: {
  /** p99 of the simulator's step lateness over the measured phase, ms; undefined or null when unknown. */
  stepLatenessP99Ms: number | null | undefined;
  steps: number | null | undefined;
  maxServerLatenessMs: number;
}): string[] {
  const p99 = input.stepLatenessP99Ms;
  if (p99 === null || p99 === undefined || !(input.steps && input.steps > 0)) return [];
  if (p99 <= input.maxServerLatenessMs) return [];
  return [
    `simulator step lateness p99 ${p99.toFixed(1)} ms over ${input.steps} steps > ${input.maxServerLatenessMs} ms (client.max_server_lateness_ms)`,
  ];
}
