import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRuns } from "../../src/compare/inputs/load.js";
import {
  looksLikeVllmResult,
  runRecordFromVllmResult,
  vllmResultInvariantIssues,
  vllmResultSchema,
} from "../../src/metrics/vllm-result.js";
import { vllmResult, vllmResultWithMetadata } from "./vllm-fixtures.js";

describe("vllm bench serve results", () => {
  it("maps aggregate keys to our metric names", () => {
    const record = runRecordFromVllmResult(vllmResultSchema.parse(vllmResult()), "r.json", 0);
    expect(record.cell).toBe("default");
    expect(record.metrics.ttft_p99).toBe(59.7);
    expect(record.metrics.ttft_p50).toBe(51.0);
    expect(record.metrics.ttft_mean).toBe(52.5);
    expect(record.metrics.tpot_p99).toBe(8.1);
    expect(record.metrics.output_throughput).toBe(256);
    expect(record.metrics.request_goodput).toBeNull();
    expect(record.metrics.error_rate).toBe(0);
    expect(record.requests).toEqual({ total: 4, completed: 4, failed: 0 });
    expect(record.fingerprint).toMatchObject({
      model_id: "Qwen/Qwen3-0.6B",
      request_rate: "inf",
      max_concurrency: 2,
    });
  });

  it("computes missing percentiles from the per-request lists (numpy linear)", () => {
    const record = runRecordFromVllmResult(vllmResultSchema.parse(vllmResult()), "r.json", 0);
    // e2el from `latencies` (seconds): h = 0.95·3 = 2.85 → 1100 + 0.85·100 = 1185 ms.
    expect(record.metrics.e2el_p95).toBeCloseTo(1185, 9);
    expect(record.metrics.e2el_p50).toBeCloseTo(1050, 9);
  });

  it("uses --save-detailed fields, skipping failed requests", () => {
    const detailed = vllmResult({
      completed: 3,
      failed: 1,
      latencies: [0.9, 1.0, 0, 1.2],
      ttfts: [0.05, 0.06, 0, 0.08],
      output_lens: [101, 101, 0, 101],
      itls: [[0.01, 0.02], [0.03], [], [0.04]],
      errors: ["", "", "Never received a valid chunk to calculate TTFT.", ""],
      input_lens: [1024, 1024, 1024, 1024],
      start_times: [0, 0.1, 0.2, 0.3],
      generated_texts: ["a", "b", "", "d"],
      p99_ttft_ms: undefined,
    });
    const record = runRecordFromVllmResult(vllmResultSchema.parse(detailed), "r.json", 0);
    // successful TTFTs 50, 60, 80 ms: h = 0.99·2 = 1.98 → 60 + 0.98·20
    expect(record.metrics.ttft_p99).toBeCloseTo(79.6, 9);
    // TPOT = (latency − ttft) / (out − 1): 8.5, 9.4, 11.2 ms; p95 h = 1.9 → 9.4 + 0.9·1.8. The
    // aggregate median_tpot_ms in the file wins over the recomputed median.
    expect(record.metrics.tpot_p95).toBeCloseTo(11.02, 9);
    expect(record.metrics.tpot_p50).toBe(7.4);
    // ITL pools every chunk gap of successful requests: 10, 20, 30, 40 ms.
    expect(record.metrics.itl_p95).toBeCloseTo(38.5, 9);
    expect(record.metrics.error_rate).toBeCloseTo(0.25, 12);
  });

  it("groups runs into cells by label and tells run.json apart", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-vllm-"));
    await writeFile(join(dir, "a.json"), JSON.stringify(vllmResult({ label: "short-chat" })));
    await writeFile(join(dir, "b.json"), JSON.stringify(vllmResult({ label: "long-doc" })));
    const records = await loadRuns([dir], "baseline");
    expect(records.map((r) => r.cell)).toEqual(["short-chat", "long-doc"]);
    expect(looksLikeVllmResult({ schemaVersion: 1, request_throughput: 1 })).toBe(false);
  });

  it("names the file and the field when a key has the wrong type", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-vllm-"));
    const file = join(dir, "bad.json");
    await writeFile(file, JSON.stringify(vllmResult({ completed: "four" })));
    await expect(loadRuns([file], "candidate")).rejects.toThrow(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: invalid content\\n  completed: `),
    );
  });
});

describe("vllm bench serve results: the server start (--metadata server_start=<id>)", () => {
  it("reads the start a file records as recorded, and the rest of the metadata as before", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-vllm-"));
    const file = vllmResultWithMetadata({ server_start: "h100-restart-7", tp: "1" });
    expect(Object.keys(file).slice(6, 10)).toEqual(["num_prompts", "server_start", "tp", "request_rate"]);
    await writeFile(join(dir, "a.json"), JSON.stringify(file));
    const [record] = await loadRuns([join(dir, "a.json")], "candidate");
    expect(record!.serverStart).toEqual({ id: "h100-restart-7", basis: "recorded" });
    expect(record!.metrics.ttft_p99).toBe(59.7);
  });

  it("takes files without it to share one start per input: the conservative reading", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-vllm-"));
    await writeFile(join(dir, "a.json"), JSON.stringify(vllmResult({ label: "chat" })));
    await writeFile(join(dir, "b.json"), JSON.stringify(vllmResult({ label: "chat", duration: 2.5 })));
    const records = await loadRuns([dir], "baseline");
    expect(records.map((record) => record.serverStart)).toEqual([
      { id: `unrecorded:baseline:${dir}`, basis: "assumed-shared" },
      { id: `unrecorded:baseline:${dir}`, basis: "assumed-shared" },
    ]);
  });

  it("refuses an empty server_start, naming the file and the field", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-vllm-"));
    const file = join(dir, "empty.json");
    await writeFile(file, JSON.stringify(vllmResultWithMetadata({ server_start: "" })));
    await expect(loadRuns([file], "candidate")).rejects.toThrow(
      /empty\.json: invalid content\n {2}server_start: expected the id of the server start/,
    );
  });
});

describe("vllm bench serve results: invariants between fields", () => {
  const check = (overrides: Record<string, unknown>) =>
    vllmResultInvariantIssues(vllmResultSchema.parse(vllmResult(overrides)));

  it("accepts the writer's own shape", () => {
    expect(check({})).toEqual([]);
  });

  it("refuses per-request lists of different lengths, and lists shorter than completed", () => {
    expect(check({ ttfts: [0.05, 0.06, 0.07] })).toEqual([
      {
        field: "ttfts",
        message: "3 entries, but latencies has 4 (per-request lists have one entry per request)",
      },
    ]);
    expect(check({ latencies: [1, 1], queue_times: [0, 0] })).toEqual([
      { field: "latencies", message: "2 entries, fewer than the 4 completed requests" },
    ]);
  });

  it("refuses completed + failed over num_prompts, and decreasing percentiles", () => {
    expect(check({ completed: 40 })[0]).toEqual({
      field: "completed",
      message: "completed (40) + failed (0) = 40, more than num_prompts (4)",
    });
    expect(check({ p99_ttft_ms: 10 })).toEqual([
      { field: "p99_ttft_ms", message: "10 is below median_ttft_ms = 51 (percentiles never decrease)" },
    ]);
  });
});
