/**
 * A `vllm bench serve --save-result` file. Keys as written by vllm/benchmarks/serve.py@009e6d4a
 * (see shared/reference/vllm-protocol-and-metrics.md §1.6): default --percentile-metrics ttft,tpot,itl
 * and --metric-percentiles 99, so e2el has no aggregates; `latencies` and `queue_times` are present
 * even without --save-detailed. Values are made up.
 */
export function vllmResult(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    date: "20261130-041500",
    backend: "openai",
    endpoint_type: "openai",
    label: null,
    model_id: "Qwen/Qwen3-0.6B",
    tokenizer_id: "Qwen/Qwen3-0.6B",
    num_prompts: 4,
    request_rate: "inf",
    burstiness: 1.0,
    max_concurrency: 2,
    duration: 2.0,
    completed: 4,
    failed: 0,
    total_input_tokens: 4096,
    total_output_tokens: 512,
    request_throughput: 2.0,
    request_goodput: null,
    output_throughput: 256.0,
    total_token_throughput: 2304.0,
    max_output_tokens_per_s: 300.0,
    max_concurrent_requests: 2,
    latencies: [0.9, 1.0, 1.1, 1.2],
    queue_times: [0, 0, 0.4, 0.5],
    mean_ttft_ms: 52.5,
    median_ttft_ms: 51.0,
    std_ttft_ms: 4.0,
    p99_ttft_ms: 59.7,
    mean_tpot_ms: 7.5,
    median_tpot_ms: 7.4,
    std_tpot_ms: 0.3,
    p99_tpot_ms: 8.1,
    mean_itl_ms: 7.4,
    median_itl_ms: 7.3,
    std_itl_ms: 0.5,
    p99_itl_ms: 9.0,
    ...overrides,
  };
}

/**
 * The same file written with `vllm bench serve ... --metadata server_start=<id> --save-result`. At
 * vllm/benchmarks/serve.py@009e6d4a, `--metadata` takes KEY=VALUE pairs (nargs "*") and the result JSON
 * gets each as a top-level key: the text before the first "=" as the key, the rest as a string value,
 * both stripped, set after `num_prompts` and before `request_rate` (a pair without "=" is refused).
 */
export function vllmResultWithMetadata(metadata: Record<string, string>): Record<string, unknown> {
  const { request_rate: _rate, ...setup } = vllmResult();
  const keys = Object.keys(setup);
  const afterPrompts = keys.indexOf("num_prompts") + 1;
  const entries = Object.entries(setup);
  return Object.fromEntries([
    ...entries.slice(0, afterPrompts),
    ...Object.entries(metadata),
    ["request_rate", "inf"],
    ...entries.slice(afterPrompts),
  ]);
}
