import { describe, expect, it } from "vitest";
import { type MetricsScrape, summarizeServerMetrics } from "../../src/metrics/server-metrics.js";
import { startSimulator } from "../../src/sim/index.js";
import { formatValue } from "../../src/sim/metrics-text.js";
import { postStream, promptOf } from "./sse-client.js";

/**
 * The exported metric families per vLLM line (the `vllm_version` knob), and the client's reader
 * (src/metrics/server-metrics.ts) against each: a family a version renames reads as missing, never 0.
 * Sources: vllm/v1/metrics/loggers.py @ 005a810b (0.10 line), @ v0.11.0 (0.11 line: "Deprecated in 0.11 -
 * Renamed as vllm:inter_token_latency_seconds"), and the 0.12+ line (the deprecated per-step name hidden,
 * vllm:request_time_per_output_token_seconds added; still so at v0.30.0).
 */
const common = [
  "vllm:cache_config_info",
  "vllm:e2e_request_latency_seconds",
  "vllm:generation_tokens_total",
  "vllm:iteration_tokens_total",
  "vllm:kv_cache_usage_perc",
  "vllm:num_preemptions_total",
  "vllm:num_requests_running",
  "vllm:num_requests_waiting",
  "vllm:prefix_cache_hits_total",
  "vllm:prefix_cache_queries_total",
  "vllm:prompt_tokens_total",
  "vllm:request_decode_time_seconds",
  "vllm:request_generation_tokens",
  "vllm:request_inference_time_seconds",
  "vllm:request_max_num_generation_tokens",
  "vllm:request_params_max_tokens",
  "vllm:request_params_n",
  "vllm:request_prefill_time_seconds",
  "vllm:request_prompt_tokens",
  "vllm:request_queue_time_seconds",
  "vllm:request_success_total",
  "vllm:time_to_first_token_seconds",
];
const sets: Record<string, string[]> = {
  "0.10.2": [
    ...common,
    "vllm:gpu_cache_usage_perc",
    "vllm:gpu_prefix_cache_hits_total",
    "vllm:gpu_prefix_cache_queries_total",
    "vllm:time_per_output_token_seconds",
    "vllm:time_per_prefill_token_request_seconds",
  ],
  "0.11.0": [...common, "vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"],
  "0.12.0": [
    ...common,
    "vllm:engine_sleep_state",
    "vllm:external_prefix_cache_hits_total",
    "vllm:external_prefix_cache_queries_total",
    "vllm:inter_token_latency_seconds",
    "vllm:mm_cache_hits_total",
    "vllm:mm_cache_queries_total",
    "vllm:request_time_per_output_token_seconds",
  ],
};

function families(text: string): string[] {
  return text
    .split("\n")
    .map((line) => /^# TYPE (vllm:\S+) /.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && !name.endsWith("_created"))
    .sort();
}

async function scrapeRun(
  version: string,
  set: Record<string, string | number | boolean> = {},
  body: Record<string, unknown> = {},
) {
  const sim = await startSimulator({ set: { vllm_version: version, ...set } });
  try {
    const reported = await (await fetch(`${sim.baseUrl}/version`)).json();
    const scrape = async (phase: MetricsScrape["phase"]): Promise<MetricsScrape> => {
      const response = await fetch(`${sim.baseUrl}/metrics`);
      return { phase, atMs: 0, status: response.status, text: await response.text(), error: null };
    };
    const before = await scrape("before");
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        postStream(`${sim.baseUrl}/v1/completions`, {
          prompt: promptOf(20, `v${i}`),
          max_tokens: 12,
          ignore_eos: true,
          stream: true,
          ...body,
        }),
      ),
    );
    const after = await scrape("after");
    return { reported, before, after };
  } finally {
    await sim.close();
  }
}

describe("metric families per vLLM version", () => {
  for (const [version, expected] of Object.entries(sets)) {
    it(`${version}: /version reports it, the families are that line's, and the reader misses nothing`, async () => {
      const { reported, before, after } = await scrapeRun(version);
      expect(reported).toEqual({ version });
      expect(families(after.text!)).toEqual([...expected].sort());
      const summary = summarizeServerMetrics([before, after])!;
      expect(summary.missing).toEqual([]);
      expect(summary.prompt_tokens).toBe(6 * 20);
      expect(summary.generation_tokens).toBe(6 * 12);
      expect(summary.requests_completed).toBe(6);
      expect(summary.prefix_cache_queries).toBe(6 * 20);
      expect(summary.server_ttft_p50_ms).not.toBeNull();
      expect(summary.spec_decode_acceptance_rate).toBeNull();
    });
  }

  it("a family renamed away reads as missing (null), never as 0", async () => {
    const { before, after } = await scrapeRun("0.11.0");
    const rename = (scrape: MetricsScrape): MetricsScrape => ({
      ...scrape,
      text: scrape
        .text!.replaceAll("vllm:request_queue_time_seconds", "vllm:request_waiting_time_seconds")
        .replaceAll("vllm:prefix_cache_queries", "vllm:prefix_cache_lookups"),
    });
    const summary = summarizeServerMetrics([rename(before), rename(after)])!;
    expect(summary.server_queue_p50_ms).toBeNull();
    expect(summary.prefix_cache_queries).toBeNull();
    expect(summary.prefix_cache_hit_rate).toBeNull();
    expect(summary.missing).toEqual(["vllm:prefix_cache_queries_total", "vllm:request_queue_time_seconds"]);
    expect(summary.server_percentile_resolution?.server_queue_p50_ms).toBeUndefined();
  });

  it("the 0.10 line's deprecated gpu_ names are read when the new ones are absent", async () => {
    const { before, after } = await scrapeRun("0.10.2");
    const onlyOld = (scrape: MetricsScrape): MetricsScrape => ({
      ...scrape,
      text: scrape
        .text!.split("\n")
        .filter((line) => !/vllm:(prefix_cache_|kv_cache_usage)/.test(line))
        .join("\n"),
    });
    const summary = summarizeServerMetrics([onlyOld(before), onlyOld(after)])!;
    expect(summary.missing).toEqual([]);
    expect(summary.prefix_cache_queries).toBe(6 * 20);
  });
});

describe("server percentiles from histograms", () => {
  it("record the bucket each lies in: a queue of ~0 is '< 300 ms', not an interpolated 150 ms", async () => {
    const { before, after } = await scrapeRun("0.11.0");
    const summary = summarizeServerMetrics([before, after])!;
    // vLLM's request-latency buckets start at 0.3 s (loggers.py @ v0.11.0): all a queue of ~0 shows.
    expect(summary.server_queue_p50_ms).toBeCloseTo(150, 6);
    expect(summary.server_percentile_resolution!.server_queue_p50_ms).toEqual({
      lower_ms: 0,
      upper_ms: 300,
      display: "< 300 ms",
    });
    const ttft = summary.server_percentile_resolution!.server_ttft_p50_ms!;
    expect(summary.server_ttft_p50_ms!).toBeGreaterThanOrEqual(ttft.lower_ms);
    expect(summary.server_ttft_p50_ms!).toBeLessThanOrEqual(ttft.upper_ms!);
    expect(ttft.display).toMatch(/ms$/);
  });
});

describe("speculative decoding in run.json", () => {
  it("reports the run's acceptance rate, lower at a higher temperature", async () => {
    const rate = async (temperature: number) => {
      const { before, after } = await scrapeRun(
        "0.11.0",
        { spec_decode_num_tokens: 3, max_num_seqs: 2 },
        { temperature, max_tokens: 40 },
      );
      expect(after.text).toContain(
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="sim-model",engine="0",position="2"}',
      );
      const summary = summarizeServerMetrics([before, after])!;
      expect(summary.spec_decode_draft_tokens).toBeGreaterThan(0);
      expect(summary.generation_tokens).toBe(6 * 40);
      return summary.spec_decode_acceptance_rate!;
    };
    const cold = await rate(0);
    const hot = await rate(1);
    expect(cold).toBeGreaterThan(hot);
    expect(cold).toBeGreaterThan(0.5);
  });
});

describe("the vllm_version knob", () => {
  it("takes release, rc and dev versions of 0.10 and later, and names the field otherwise", async () => {
    const { applyOverrides, builtInProfile, metricSetOf } = await import("../../src/sim/profile.js");
    const base = builtInProfile("small-gpu");
    for (const [version, set] of [
      ["0.10.0", "0.10"],
      ["0.10.2", "0.10"],
      ["0.11.1rc2.dev5+g1234abc", "0.11"],
      ["0.12.0", "current"],
      ["0.30.0", "current"],
      ["1.0.0", "current"],
    ] as const) {
      expect(metricSetOf(applyOverrides(base, { vllm_version: version }).vllm_version)).toBe(set);
    }
    for (const bad of ["0.9.2", "v0.11.0", "latest", "0.11.0 "]) {
      expect(() => applyOverrides(base, { vllm_version: bad }), bad).toThrow(/field "vllm_version"/);
    }
  });
});

describe("values as prometheus_client writes them (floatToGoString)", () => {
  it("whole numbers get .0, seven or more integer digits an exponent, tiny values Python's repr", () => {
    expect(formatValue(0)).toBe("0.0");
    expect(formatValue(12)).toBe("12.0");
    expect(formatValue(0.25)).toBe("0.25");
    expect(formatValue(123456)).toBe("123456.0");
    expect(formatValue(12345678)).toBe("1.2345678e+07");
    expect(formatValue(1796116896.873)).toBe("1.796116896873e+09");
    expect(formatValue(1e10)).toBe("1e+010");
    expect(formatValue(0.000004)).toBe("4e-06");
    expect(formatValue(1.5e-5)).toBe("1.5e-05");
    expect(formatValue(Number.POSITIVE_INFINITY)).toBe("+Inf");
  });
});
