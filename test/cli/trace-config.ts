import { traceFixtures } from "../workload/trace-fixtures.js";

/**
 * The trace cells the trace end-to-end tests share (the CLI's and the action's): each published format's
 * fixture (test/fixtures/traces, each citing its source) and a column-mapped CSV, replayed on their own
 * timestamps (time_scale so a run takes a second or two) at a `rate` far above the traces' own, each on
 * the endpoints asked for; the candidate's simulator steps `speedFactor` slower.
 */
export const traceCells = {
  azure: {
    dataset: `{ type: azure_trace, path: ${traceFixtures}/azure-conv.csv, time_scale: 0.25 }`,
    sessions: 20,
  },
  burstgpt: {
    dataset: `{ type: burstgpt_trace, path: ${traceFixtures}/burstgpt.csv, models: [ChatGPT], time_scale: 0.08 }`,
    sessions: 17,
  },
  mooncake: {
    dataset: `{ type: mooncake_trace, path: ${traceFixtures}/mooncake.jsonl, block_tokens: 16, time_scale: 0.5 }`,
    sessions: 20,
  },
  mapped: {
    dataset: `{ type: trace, path: ${traceFixtures}/mapped.csv, models: [llama], time_scale: 0.5, columns: { arrival: arrival_ms, arrival_unit: ms, input_tokens: prompt_len, output_tokens: completion_len, session: conversation, hash_ids: prefix_blocks, model: served_model } }`,
    sessions: 8,
  },
} as const;

export type TraceFormat = keyof typeof traceCells;

export function traceConfig(
  speedFactor: number,
  cells: readonly { format: TraceFormat; endpoint: "chat" | "completions" }[],
  repeats = 3,
): string {
  const cellText = cells
    .map(
      ({ format, endpoint }) => `  - name: ${format}-${endpoint}
    endpoint: ${endpoint}
    dataset: ${traceCells[format].dataset}
    load: { type: rate, rate: 1000 }
    size: { requests: ${traceCells[format].sessions} }
    warmup: { requests: 1 }
    prefix: fresh
`,
    )
    .join("");
  return `version: 1
server:
  kind: sim
  profile: noiseless
  set: { max_num_seqs: 32, speed_factor: ${speedFactor} }
  startup_timeout_s: 120
model: { name: sim-model }
runner: { schedule: real-time }
cells:
${cellText}repeats: { min: ${repeats}, max: ${repeats} }
gate:
  metrics: [tpot_p50]
  # The candidate's simulator is set slower: the difference under test.
  allowed_differences: [server.command]
# This machine is shared: a late event loop is not what this test is about.
client: { max_event_loop_lag_ms: 500, max_schedule_lag_ms: 200 }
`;
}
