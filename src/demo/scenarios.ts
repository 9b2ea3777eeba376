/**
 * The demo's scenarios: one workload, a baseline simulator and a candidate whose profile differs the way
 * real changes do. Profiles are illustrative (see docs/sim.md), not measurements of any GPU.
 */
export const scenarioNames = ["tradeoff", "clean", "regression", "flaky"] as const;
export type ScenarioName = (typeof scenarioNames)[number];

export interface Scenario {
  name: ScenarioName;
  /** What the candidate changed, in the user's words. */
  story: string;
  /** What a reader should see in the verdict, and why. */
  expectation: string;
  /** The gate verdicts this scenario is built to show (the demo says when it saw something else). */
  expectedVerdicts: readonly string[];
  /** Simulator overrides of each side (`sim --set`). */
  baselineSet: Record<string, string | number | boolean>;
  candidateSet: Record<string, string | number | boolean>;
  repeats: { min: number; max: number };
}

/**
 * The demo's engine: decode-bound steps (as on a GPU, where decode reads the whole KV cache) with a
 * visible prefill cost, and the run-to-run noise of a quiet dedicated host.
 */
const engine = { step_overhead_ms: 1, decode_per_seq_ms: 0.08, prefill_per_token_ms: 0.02 };
const quietNoise = { ...engine, speed_sigma: 0.01, jitter_sigma: 0.02 };

export const scenarios: Record<ScenarioName, Scenario> = {
  tradeoff: {
    name: "tradeoff",
    story:
      "the candidate switches the KV cache to fp8: twice the cache capacity and cheaper decode steps, but each prompt token costs more to prefill",
    expectation:
      "a mixed result: time to first token gets worse while decode speed and end-to-end latency improve; the gate blocks on the TTFT regression and says that throughput went up",
    expectedVerdicts: ["regression"],
    baselineSet: { ...quietNoise },
    candidateSet: { ...quietNoise, cache_dtype: "fp8", fp8_prefill_factor: 1.35, fp8_decode_factor: 0.8 },
    // Room to replace runs the client-health check excludes on a loaded machine.
    repeats: { min: 3, max: 8 },
  },
  clean: {
    name: "clean",
    story: "the candidate changes nothing that matters to serving speed",
    expectation: "every gated metric within tolerance: the gate passes",
    expectedVerdicts: ["pass"],
    baselineSet: { ...quietNoise },
    candidateSet: { ...quietNoise },
    // Room to replace runs the client-health check excludes on a loaded machine.
    repeats: { min: 3, max: 8 },
  },
  regression: {
    name: "regression",
    story: "the candidate makes every decode step 25% slower (e.g. a kernel fallback)",
    expectation: "TPOT, end-to-end latency and throughput regress beyond tolerance: the gate fails",
    expectedVerdicts: ["regression"],
    baselineSet: { ...quietNoise },
    candidateSet: { ...quietNoise, decode_per_seq_ms: 0.1, step_overhead_ms: 1.25 },
    repeats: { min: 3, max: 6 },
  },
  flaky: {
    name: "flaky",
    story:
      "the candidate changes nothing, but the host is noisy: each server start runs up to 30% faster or slower than the last",
    expectation:
      "the data cannot tell a real change from noise within the runs allowed, so the verdict is inconclusive: the gate neither blocks nor claims a pass; add runs, quiet the host or use interleaved mode",
    expectedVerdicts: ["inconclusive"],
    baselineSet: { ...engine, speed_sigma: 0.15, jitter_sigma: 0.05 },
    candidateSet: { ...engine, speed_sigma: 0.15, jitter_sigma: 0.05 },
    repeats: { min: 3, max: 4 },
  },
};

function setBlock(set: Record<string, string | number | boolean>): string {
  return Object.entries(set)
    .map(([key, value]) => `    ${key}: ${typeof value === "string" ? JSON.stringify(value) : String(value)}`)
    .join("\n");
}

/**
 * The demo's config for one side, as YAML text, so it is validated like a user's file and can be written
 * next to the results for the curious reader.
 */
export function demoConfigText(scenario: Scenario, side: "baseline" | "candidate", seed: number): string {
  const set = side === "baseline" ? scenario.baselineSet : scenario.candidateSet;
  return `# Written by \`vllm-perf-gate demo --scenario ${scenario.name}\` (${side}).
version: 1
name: demo-${scenario.name}-${side}
seed: 7
server:
  kind: sim
  profile: small-gpu
  seed: ${seed}
  lifecycle: per-run
  set:
${setBlock(set)}
model:
  name: sim-model
  revision: demo
sampling:
  temperature: 0
  ignore_eos: true
cells:
  - name: chat
    description: short conversations arriving at a steady rate
    endpoint: chat
    dataset:
      type: synthetic
      input_tokens: { distribution: uniform, min: 64, max: 192 }
      output_tokens: { distribution: uniform, min: 24, max: 72 }
    # Open loop: with a closed loop of 24, the first wave of 24 requests (12% of a 200-request run)
    # queued their prefills together and made TTFT p95 jump between runs by up to 1.7x. 400 requests:
    # a stall of the shared CPU (tens of ms, hitting a few requests) no longer moves the p95.
    load: { type: rate, rate: 90, burstiness: 1, max_concurrency: 48 }
    size: { requests: 400 }
    warmup: { requests: 32 }
    prefix: fresh
    slo: { ttft_ms: 60, tpot_ms: 4, e2el_ms: 400 }
  - name: rag
    description: short questions over one long document, prefix reused
    endpoint: completions
    dataset:
      type: long_document
      num_documents: 2
      document_tokens: 2000
      question_tokens: { distribution: uniform, min: 16, max: 48 }
      output_tokens: { distribution: uniform, min: 16, max: 48 }
    load: { type: rate, rate: 150, burstiness: 1, max_concurrency: 48 }
    size: { requests: 400 }
    warmup: { requests: 32 }
    prefix: reuse
    slo: { ttft_ms: 150, tpot_ms: 8, e2el_ms: 600 }
  - name: longgen
    description: long outputs at high concurrency
    endpoint: completions
    dataset:
      type: synthetic
      input_tokens: { distribution: uniform, min: 32, max: 96 }
      output_tokens: { distribution: fixed, value: 128 }
    load: { type: concurrency, concurrency: 64 }
    size: { requests: 200 }
    warmup: { requests: 32 }
    prefix: fresh
# block 1: A B B A per run. Every run restarts the simulator here (lifecycle per-run), so larger
# blocks would save nothing and leave the first look less balanced against a drifting host.
repeats: { min: ${scenario.repeats.min}, max: ${scenario.repeats.max}, block: 1 }
gate:
  # Wider than the 5% default: here the simulator and the client share the CPU of a laptop or a CI
  # machine, which is noisier than a dedicated GPU runner.
  tolerance: 0.1
  # The simulator's knobs are the thing under test here, as engine flags or the image would be for vLLM.
  allowed_differences: [server.args, server.command, server.cacheConfig, configHash]
# The client shares the CPU with the simulator (and, on a CI machine, with other jobs): a run during
# which its event loop stalled for more than 20 ms measured the stall, not the server (TTFT p95 of
# 40 ms went to 100-290 ms in such runs on a loaded 2-core machine), so it is excluded and replaced.
client:
  max_event_loop_lag_ms: 20
cost:
  gpu_hourly_usd: 2.5
`;
}
