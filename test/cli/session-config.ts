/**
 * The agent-like session cell the session end-to-end tests share (the CLI's and the action's): sessions of
 * tool-calling turns over a shared system prompt against a reasoning simulator, whose `speed_factor` the
 * candidate changes; `gate` is the config's gate section without the difference under test.
 */
export const sessions = 12;
export const turns = 5;
export const systemTokens = 200;
export const messageTokens = 40;
export const outputTokens = 48;

export function sessionConfig(speedFactor: number, gate: string): string {
  return `version: 1
server:
  kind: sim
  profile: noiseless
  set:
    max_num_seqs: 16
    speed_factor: ${speedFactor}
    reasoning_tokens_mean: 12
    tool_call_share: 0.5
    enable_prompt_tokens_details: true
  startup_timeout_s: 120
model: { name: sim-model }
cells:
  - name: agent
    endpoint: chat
    dataset:
      type: sessions
      turns: ${turns}
      system_prompt_tokens: ${systemTokens}
      shared_system_prompt: 1
      message_tokens: ${messageTokens}
      output_tokens: ${outputTokens}
      think_time_s: 0.05
      tools: { names: [read_file, run_tests], latency_s: 0.02, result_tokens: 30 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: ${sessions} }
    warmup: { requests: 1 }
    prefix: fresh
    slo: { ttft_ms: 1000, tpot_ms: 100 }
repeats: { min: 3, max: 3 }
gate:
${gate}  # The candidate's simulator is set slower: the difference under test.
  allowed_differences: [server.command]
# This machine is shared: a late event loop is not what this test is about.
client: { max_event_loop_lag_ms: 500, max_schedule_lag_ms: 200 }
`;
}

/**
 * The fan-out cell the fan-out end-to-end tests share (the CLI's and the action's): one session at a time,
 * each of 4 turns whose 2nd and 4th fan out to 4 sub-agent branches with tools of their own, against a
 * simulator whose `max_num_seqs` the candidate sets to 1: its branches then run one after the other.
 */
export const fanOut = {
  sessions: 6,
  turns: 4,
  fanOutTurns: [2, 4],
  branches: 4,
  branchMessageTokens: 16,
  branchOutputTokens: 32,
};

export function fanOutConfig(maxNumSeqs: number, gate: string): string {
  return `version: 1
server:
  kind: sim
  profile: noiseless
  set:
    max_num_seqs: ${maxNumSeqs}
    tool_call_share: 0.3
    enable_prompt_tokens_details: true
  startup_timeout_s: 120
model: { name: sim-model }
sampling: { ignore_eos: true }
cells:
  - name: fanout
    endpoint: chat
    dataset:
      type: sessions
      turns: ${fanOut.turns}
      system_prompt_tokens: 200
      message_tokens: 40
      output_tokens: 24
      think_time_s: 0.02
      tools: { names: [read_file], latency_s: 0.02, result_tokens: 20 }
      fan_out:
        turns: [${fanOut.fanOutTurns.join(", ")}]
        branches: ${fanOut.branches}
        message_tokens: ${fanOut.branchMessageTokens}
        output_tokens: ${fanOut.branchOutputTokens}
        tools: true
    load: { type: concurrency, concurrency: 1 }
    size: { requests: ${fanOut.sessions} }
    warmup: { requests: 1 }
    prefix: fresh
repeats: { min: 3, max: 3 }
gate:
${gate}  # The candidate's simulator runs one sequence at a time: the difference under test.
  allowed_differences: [server.command]
# This machine is shared: a late event loop is not what this test is about.
client: { max_event_loop_lag_ms: 500, max_schedule_lag_ms: 200 }
`;
}
