import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/sim/index.js";
import {
  iterationTokenBuckets,
  itlBuckets,
  requestLatencyBuckets,
  ttftBuckets,
} from "../../src/sim/stats.js";
import { postStream, promptOf } from "./sse-client.js";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A strict reader of the Prometheus text format 0.0.4: throws on any line it does not understand. */
function parsePrometheus(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  expect(text.endsWith("\n")).toBe(true);
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("# HELP ")) continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      expect(types.has(type[1]!)).toBe(false);
      types.set(type[1]!, type[2]!);
      continue;
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    if (match[3]) {
      const labelPattern = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;
      let consumed = 0;
      for (let m = labelPattern.exec(match[3]); m; m = labelPattern.exec(match[3])) {
        labels[m[1]!] = m[2]!;
        consumed = labelPattern.lastIndex;
      }
      if (consumed !== match[3].length) throw new Error(`bad labels: ${line}`);
    }
    const raw = match[4]!;
    const value = raw === "+Inf" ? Number.POSITIVE_INFINITY : Number(raw);
    if (Number.isNaN(value)) throw new Error(`bad value: ${line}`);
    const family = [...types.keys()].find((name) => match[1] === name || match[1]!.startsWith(`${name}_`));
    if (!family) throw new Error(`sample before its TYPE: ${line}`);
    samples.push({ name: match[1]!, labels, value });
  }
  return { samples, types };
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length !== 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0]!.value;
}

function buckets(samples: Sample[], name: string): number[] {
  return samples
    .filter((s) => s.name === `${name}_bucket` && s.labels.le !== "+Inf")
    .map((s) => Number(s.labels.le));
}

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({
    profile: "small-gpu",
    model: "m1",
    seed: 3,
    set: { max_num_seqs: 8, eos_mean_tokens: 10 },
  });
});
afterAll(async () => {
  await sim.close();
});

describe("/metrics", () => {
  it("parses as Prometheus text with vLLM's names, types, labels and buckets", async () => {
    const response = await fetch(`${sim.baseUrl}/metrics`);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const { samples, types } = parsePrometheus(await response.text());
    for (const [name, type] of Object.entries({
      "vllm:num_requests_running": "gauge",
      "vllm:num_requests_waiting": "gauge",
      "vllm:kv_cache_usage_perc": "gauge",
      "vllm:num_preemptions_total": "counter",
      "vllm:prompt_tokens_total": "counter",
      "vllm:generation_tokens_total": "counter",
      "vllm:request_success_total": "counter",
      "vllm:prefix_cache_queries_total": "counter",
      "vllm:prefix_cache_hits_total": "counter",
      "vllm:time_to_first_token_seconds": "histogram",
      "vllm:inter_token_latency_seconds": "histogram",
      "vllm:time_per_output_token_seconds": "histogram",
      "vllm:iteration_tokens_total": "histogram",
      "vllm:request_params_n": "histogram",
      "vllm:request_max_num_generation_tokens": "histogram",
      "vllm:e2e_request_latency_seconds": "histogram",
      "vllm:request_queue_time_seconds": "histogram",
      "vllm:request_inference_time_seconds": "histogram",
      "vllm:request_prefill_time_seconds": "histogram",
      "vllm:request_decode_time_seconds": "histogram",
      "vllm:cache_config_info": "gauge",
    })) {
      expect(types.get(name), name).toBe(type);
    }
    expect(value(samples, "vllm:num_requests_running")).toBe(0);
    expect(samples.find((s) => s.name === "vllm:num_requests_running")!.labels).toEqual({
      model_name: "m1",
      engine: "0",
    });
    expect(buckets(samples, "vllm:time_to_first_token_seconds")).toEqual([...ttftBuckets]);
    expect(buckets(samples, "vllm:inter_token_latency_seconds")).toEqual([...itlBuckets]);
    expect(buckets(samples, "vllm:e2e_request_latency_seconds")).toEqual([...requestLatencyBuckets]);
    // Fixed boundaries, not 1-2-5 (vllm/v1/metrics/loggers.py @ v0.11.0).
    expect(buckets(samples, "vllm:iteration_tokens_total")).toEqual([...iterationTokenBuckets]);
    expect(buckets(samples, "vllm:request_params_n")).toEqual([1, 2, 5, 10, 20]);
    // prometheus_client writes a _created gauge after each counter and histogram.
    expect(types.get("vllm:prompt_tokens_created")).toBe("gauge");
    expect(types.get("vllm:e2e_request_latency_seconds_created")).toBe("gauge");
    const info = samples.find((s) => s.name === "vllm:cache_config_info")!;
    // Every CacheConfig field as a label (CacheConfig.metrics_info, vllm/config/cache.py @ v0.11.0).
    expect(info.labels).toMatchObject({
      block_size: "16",
      cache_dtype: "auto",
      enable_prefix_caching: "True",
      gpu_memory_utilization: "0.9",
      num_gpu_blocks: "8192",
      num_gpu_blocks_override: "None",
      swap_space: "4",
      prefix_caching_hash_algo: "sha256",
      engine: "0",
    });
    expect(info.value).toBe(1);
  });

  it("agrees with what the client saw", async () => {
    const before = parsePrometheus(await (await fetch(`${sim.baseUrl}/metrics`)).text()).samples;
    const shared = promptOf(64, "p");
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        postStream(`${sim.baseUrl}/v1/completions`, {
          prompt: i % 2 === 0 ? shared : promptOf(40, `q${i}`),
          max_tokens: 30,
          ignore_eos: i % 3 === 0,
          stream: true,
          stream_options: { include_usage: true },
        }),
      ),
    );
    const after = parsePrometheus(await (await fetch(`${sim.baseUrl}/metrics`)).text()).samples;
    const delta = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    let prompt = 0;
    let completion = 0;
    const reasons = { stop: 0, length: 0 };
    for (const r of results) {
      const usage = (r.events.at(-2)!.json as { usage: { prompt_tokens: number; completion_tokens: number } })
        .usage;
      prompt += usage.prompt_tokens;
      completion += usage.completion_tokens;
      const choices = r.events.filter((e) => e.json && (e.json as { choices: unknown[] }).choices.length > 0);
      const reason = (choices.at(-1)!.json as { choices: { finish_reason: "stop" | "length" }[] }).choices[0]!
        .finish_reason;
      reasons[reason]++;
    }
    expect(reasons.stop).toBeGreaterThan(0);
    expect(reasons.length).toBeGreaterThan(0);
    expect(delta("vllm:prompt_tokens_total")).toBe(prompt);
    expect(delta("vllm:generation_tokens_total")).toBe(completion);
    expect(delta("vllm:request_success_total", { finished_reason: "stop" })).toBe(reasons.stop);
    expect(delta("vllm:request_success_total", { finished_reason: "length" })).toBe(reasons.length);
    for (const name of [
      "vllm:time_to_first_token_seconds",
      "vllm:e2e_request_latency_seconds",
      "vllm:request_queue_time_seconds",
      "vllm:request_prefill_time_seconds",
      "vllm:request_decode_time_seconds",
    ]) {
      expect(delta(`${name}_count`), name).toBe(24);
      expect(delta(`${name}_bucket`, { le: "+Inf" }), name).toBe(24);
    }
    expect(delta("vllm:inter_token_latency_seconds_count")).toBe(completion - 24);
    expect(delta("vllm:prefix_cache_hits_total")).toBeGreaterThan(0);
    expect(delta("vllm:prefix_cache_queries_total")).toBeGreaterThanOrEqual(prompt);
    // Server TTFT starts when the request arrives, the client's when it sends: server <= client.
    const clientTtftSum = results.reduce((sum, r) => sum + (r.events[0]!.at - r.sentAt) / 1000, 0);
    expect(delta("vllm:time_to_first_token_seconds_sum")).toBeLessThanOrEqual(clientTtftSum);
    expect(delta("vllm:time_to_first_token_seconds_sum")).toBeGreaterThan(0);
    expect(value(after, "vllm:num_requests_running")).toBe(0);
    expect(value(after, "vllm:kv_cache_usage_perc")).toBe(0);
    const http = after.filter(
      (s) => s.name === "http_requests_total" && s.labels.handler === "/v1/completions",
    );
    expect(http.map((s) => [s.labels.method, s.labels.status, s.value])).toEqual([["POST", "2xx", 24]]);
  });

  it("--disable-log-stats leaves only the HTTP metrics, as in vLLM", async () => {
    const quiet = await startSimulator({ set: { disable_log_stats: true } });
    try {
      await fetch(`${quiet.baseUrl}/v1/models`);
      const { samples } = parsePrometheus(await (await fetch(`${quiet.baseUrl}/metrics`)).text());
      expect(samples.length).toBeGreaterThan(0);
      expect(samples.every((s) => s.name.startsWith("http_"))).toBe(true);
    } finally {
      await quiet.close();
    }
  });
});
