import { describe, expect, it } from "vitest";
import { diffFingerprints as diffPerCell, flattenFingerprint } from "../../src/compare/inputs/fingerprint.js";
import {
  buildFingerprint,
  type FingerprintFacts,
  fingerprintSchema,
  hashConfig,
} from "../../src/server/fingerprint.js";
import { cacheConfigFromMetrics, parsePrometheusText } from "../../src/server/prometheus-text.js";

/** The comparability rule (src/compare/inputs/fingerprint.ts) on one cell's pair of built fingerprints. */
const diffFingerprints = (
  baseline: Record<string, unknown>,
  candidate: Record<string, unknown>,
  allowed: readonly string[] = [],
) => diffPerCell([{ cell: "chat", baseline, candidate }], allowed);

const facts: FingerprintFacts = {
  tool: { name: "vllm-perf-gate", version: "0.1.0" },
  server: {
    kind: "docker",
    image: "vllm/vllm-openai:v0.11.0",
    imageDigest: "vllm/vllm-openai@sha256:aa",
    args: ["--max-num-seqs", "256"],
  },
  probes: {
    vllmVersion: "0.11.0",
    servedModels: [
      { id: "b-model", root: null, maxModelLen: 2048 },
      { id: "Qwen/Qwen3-0.6B", root: "Qwen/Qwen3-0.6B", maxModelLen: 40960 },
    ],
    cacheConfig: { block_size: "16", cache_dtype: "auto" },
  },
  model: { name: "Qwen/Qwen3-0.6B", revision: "c1899de" },
  sampling: { temperature: 0, top_p: 1, ignore_eos: true, extra_body: {} },
  gpu: {
    count: 1,
    names: ["NVIDIA H100 80GB HBM3"],
    memoryTotalMiB: [81559],
    driverVersion: "550.54.15",
    cudaVersion: "12.4",
  },
  env: { RUNNER_OS: "Linux", RUNNER_NAME: "gpu-runner-3", RUNNER_ARCH: "X64", HF_TOKEN: "secret" },
  configHash: "f".repeat(64),
};

describe("fingerprint", () => {
  it("records every condition, with max_model_len of the configured model", () => {
    const fingerprint = buildFingerprint(facts);
    expect(fingerprintSchema.parse(fingerprint)).toEqual(fingerprint);
    expect(fingerprint.server).toEqual({
      kind: "docker",
      image: "vllm/vllm-openai:v0.11.0",
      imageDigest: "vllm/vllm-openai@sha256:aa",
      command: null,
      args: ["--max-num-seqs", "256"],
      vllmVersion: "0.11.0",
      servedModels: ["Qwen/Qwen3-0.6B", "b-model"],
      maxModelLen: 40960,
      cacheConfig: { block_size: "16", cache_dtype: "auto" },
    });
    expect(fingerprint.model).toEqual({
      name: "Qwen/Qwen3-0.6B",
      source: null,
      revision: "c1899de",
      tokenizerRevision: null,
    });
    expect(fingerprint.runner).toEqual({ os: "Linux", name: "gpu-runner-3", arch: "X64" });
    expect(JSON.stringify(fingerprint)).not.toContain("secret");
  });

  it("diffs built fingerprints field by field: allowed, informational and blocking", () => {
    const baseline = buildFingerprint(facts);
    const candidate = buildFingerprint({
      ...facts,
      server: {
        ...facts.server,
        image: "vllm/vllm-openai:v0.12.0",
        imageDigest: "vllm/vllm-openai@sha256:bb",
      },
      sampling: { ...facts.sampling, temperature: 0.7 },
      env: { ...facts.env, RUNNER_NAME: "gpu-runner-4" },
    });
    expect(diffFingerprints(baseline, baseline)).toEqual([]);
    const differences = diffFingerprints(baseline, candidate, ["server.image"]);
    expect(differences.map(({ field, allowed, informational }) => [field, allowed, informational])).toEqual([
      ["runner.name", true, true],
      ["sampling.temperature", false, false],
      ["server.image", true, false],
      // Follows from the image: allowing server.image allows its digest.
      ["server.imageDigest", true, false],
    ]);
    expect(differences.find((d) => d.field === "sampling.temperature")).toMatchObject({
      baseline: 0,
      candidate: 0.7,
    });
    expect(
      diffFingerprints(baseline, candidate, ["server", "sampling"]).every((difference) => difference.allowed),
    ).toBe(true);
  });

  it("compares a positional model and --model as the same engine arguments (vllm serve takes both)", () => {
    const withFlag = buildFingerprint({
      ...facts,
      server: { ...facts.server, args: ["--model", "m", "--x", "1"] },
    });
    const positional = buildFingerprint({ ...facts, server: { ...facts.server, args: ["m", "--x", "1"] } });
    const other = buildFingerprint({ ...facts, server: { ...facts.server, args: ["n", "--x", "1"] } });
    expect(diffFingerprints(withFlag, positional)).toEqual([]);
    expect(diffFingerprints(withFlag, other).map((difference) => difference.field)).toEqual(["server.args"]);
  });

  it("tells local images apart by image ID, and never calls an unknown image the same", () => {
    const local = (imageId: string | null) =>
      buildFingerprint({
        ...facts,
        server: { ...facts.server, image: "team/vllm:dev", imageDigest: null, imageId },
      });
    const a = local(`sha256:${"a".repeat(64)}`);
    const b = local(`sha256:${"b".repeat(64)}`);
    expect(diffFingerprints(a, a)).toEqual([]);
    expect(diffFingerprints(a, b).map(({ field, allowed }) => [field, allowed])).toEqual([
      ["server.imageId", false],
    ]);
    expect(diffFingerprints(local(null), local(null)).map(({ field, allowed }) => [field, allowed])).toEqual([
      ["server.imageDigest", false],
    ]);
    // The image under test: allowing it allows its ID and an unknown digest too.
    expect(diffFingerprints(a, b, ["server.image"]).every((difference) => difference.allowed)).toBe(true);
    expect(diffFingerprints(local(null), a, ["server.image"]).every((difference) => difference.allowed)).toBe(
      true,
    );
  });

  it("flattens to dotted leaves, arrays whole", () => {
    expect(flattenFingerprint({ a: { b: [1, 2], c: { d: null } }, e: {} })).toEqual({
      "a.b": [1, 2],
      "a.c.d": null,
      e: {},
    });
  });

  it("hashes a config independently of key order", () => {
    expect(hashConfig({ a: 1, b: { c: 2, d: 3 } })).toBe(hashConfig({ b: { d: 3, c: 2 }, a: 1 }));
    expect(hashConfig({ a: 1 })).not.toBe(hashConfig({ a: 2 }));
  });
});

describe("Prometheus text", () => {
  // Shape of vLLM's /metrics (prometheus_client output), see docs/server.md.
  const text = [
    "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig",
    "# TYPE vllm:cache_config_info gauge",
    'vllm:cache_config_info{block_size="16",cache_dtype="fp8",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",num_gpu_blocks="27000"} 1.0',
    'vllm:num_requests_running{engine="0",model_name="Qwen/Qwen3-0.6B"} 3.0',
    'http_requests_total{handler="/v1/completions",method="POST",status="2xx"} 12.0',
    'weird{path="a\\"b\\\\c"} +Inf',
    "no_labels 4.5e-3 1700000000000",
  ].join("\n");

  it("parses samples with labels, escapes, infinities and timestamps", () => {
    const samples = parsePrometheusText(text);
    expect(samples.map((sample) => sample.name)).toEqual([
      "vllm:cache_config_info",
      "vllm:num_requests_running",
      "http_requests_total",
      "weird",
      "no_labels",
    ]);
    expect(samples[3]).toEqual({
      name: "weird",
      labels: { path: 'a"b\\c' },
      value: Number.POSITIVE_INFINITY,
    });
    expect(samples[4]!.value).toBe(0.0045);
  });

  it("reads the cache config labels", () => {
    expect(cacheConfigFromMetrics(parsePrometheusText(text))).toEqual({
      block_size: "16",
      cache_dtype: "fp8",
      enable_prefix_caching: "True",
      engine: "0",
      gpu_memory_utilization: "0.9",
      num_gpu_blocks: "27000",
    });
    expect(cacheConfigFromMetrics(parsePrometheusText("no_labels 1"))).toBeNull();
  });
});
