import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseRunFormats, writeRunExports } from "../../src/app/run-exports.js";
import { parseCompareFormats } from "../../src/cli/commands/compare.js";
import { compareRecords, defaultCompareSettings } from "../../src/compare/index.js";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { toBencherReport } from "../../src/report/export-bencher.js";
import { toPytorchRecords } from "../../src/report/export-pytorch.js";
import { cli } from "../cli/helpers.js";
import { noisyRuns, writeResultsDir } from "../compare/fixtures.js";
import { noSecrets } from "../job-outbound.js";
import { startFakeServer } from "../runner/helpers/fake-openai-server.js";

/**
 * The published shapes, transcribed here independently of src/report/export-*.ts so a test cannot
 * pass by checking the writer against itself.
 *
 * PyTorch OSS benchmark v3: the columns a record supplies of the ClickHouse table in
 * pytorch/test-infra clickhouse_db_schema/oss_ci_benchmark_v3/schema.sql (commit 3c0eb5c3):
 * benchmark Tuple(name, mode, dtype String, extra_info Map(String, String)); model Tuple(name, type,
 * backend String, origins Array(String), extra_info Map(String, String)); metric Tuple(name String,
 * benchmark_values Array(Float32), target_value Float32, extra_info Map(String, String)); the
 * metadata columns (timestamp, repo, head_sha, workflow_id, job_id, ...) are filled by the uploader,
 * as for the records of vLLM's convert_to_pytorch_benchmark_format (vllm-project/vllm
 * benchmarks/benchmark_utils.py), which writes one record per metric with a list of values.
 */
const float32Max = 3.4028234663852886e38;
const chString = z.string();
const chMap = z.record(z.string(), z.string());
const pytorchV3Record = z
  .object({
    benchmark: z.object({ name: chString, mode: chString, dtype: chString, extra_info: chMap }).strict(),
    model: z
      .object({
        name: chString,
        type: chString,
        backend: chString,
        origins: z.array(chString),
        extra_info: chMap,
      })
      .strict(),
    metric: z
      .object({
        name: chString,
        benchmark_values: z.array(z.number().min(-float32Max).max(float32Max)),
        target_value: z.number().min(-float32Max).max(float32Max),
        extra_info: chMap,
      })
      .strict(),
  })
  .strict();

/**
 * Bencher Metric Format: the JSON Schema published at https://bencher.dev/bmf.json (docs
 * reference/bencher-metric-format): an object of benchmarks (any non-empty name), each an object of
 * measures (any non-empty name), each {value: number (required), lower_value?: number,
 * upper_value?: number}; names at most 1024 (benchmark) and 64 (measure slug) characters.
 */
const bmfMetric = z.object({
  value: z.number(),
  lower_value: z.number().optional(),
  upper_value: z.number().optional(),
});
const bmf = z.record(z.string().regex(/.+/).max(1024), z.record(z.string().regex(/.+/).max(64), bmfMetric));

function outcome() {
  const base = [...noisyRuns(5, { seed: 1, cell: "chat" }), ...noisyRuns(5, { seed: 3, cell: "docs" })];
  const cand = [
    ...noisyRuns(5, { seed: 2, cell: "chat", ttftFactor: 1.6 }),
    ...noisyRuns(5, { seed: 4, cell: "docs" }),
  ];
  const records = (runs: typeof base, side: string) =>
    runs.map((run) => runRecordFromRunFile(run, `${side}/${run.cell}/run-${run.run}/run.json`));
  return compareRecords({
    baseline: records(base, "base"),
    candidate: records(cand, "cand"),
    settings: defaultCompareSettings(),
    mode: "interleaved",
    now: new Date("2026-11-30T05:00:00Z"),
  });
}

describe("PyTorch OSS benchmark records", () => {
  it("match the oss_ci_benchmark_v3 record shape, one record per cell, metric and side, every used run's value", () => {
    const result = outcome();
    const records = toPytorchRecords(result.verdict, result.runs);
    expect(records.length).toBe(result.verdict.comparisons.length * 2);
    for (const record of records) pytorchV3Record.parse(record);
    const ttft = records.find(
      (r) =>
        r.metric.name === "ttft_p95" &&
        r.benchmark.extra_info.cell === "chat" &&
        r.benchmark.extra_info.side === "candidate",
    )!;
    expect(ttft.model.name).toBe("Qwen/Qwen3-0.6B");
    expect(ttft.metric.benchmark_values).toHaveLength(5);
    const perRun = result.runs.candidate.filter((r) => r.cell === "chat").map((r) => r.metrics.ttft_p95);
    expect(ttft.metric.benchmark_values).toEqual(perRun);
    expect(ttft.metric.extra_info).toMatchObject({ unit: "ms", verdict: "regression", gated: "true" });
    expect(ttft.benchmark.extra_info).toMatchObject({
      comparison_mode: "interleaved",
      overall_verdict: "regression",
    });
  });

  it("keep a side's geometric mean as the value when the runs are not at hand (a verdict read back)", () => {
    const { verdict } = outcome();
    const records = toPytorchRecords(verdict);
    for (const record of records) {
      pytorchV3Record.parse(record);
      expect(record.metric.benchmark_values).toEqual([Number(record.metric.extra_info.geometric_mean)]);
    }
  });
});

describe("Bencher Metric Format", () => {
  it("matches the published BMF schema: one benchmark per cell, the candidate's value inside its interval", () => {
    const { verdict } = outcome();
    const report = bmf.parse(toBencherReport(verdict));
    expect(Object.keys(report).sort()).toEqual(["vllm-perf-gate/chat", "vllm-perf-gate/docs"]);
    const ttft = report["vllm-perf-gate/chat"]!["ttft-p95-ms"]!;
    const c = verdict.comparisons.find((x) => x.cell === "chat" && x.metric === "ttft_p95")!;
    expect(ttft.value).toBe(c.candidate);
    expect(ttft.lower_value!).toBeLessThanOrEqual(ttft.value);
    expect(ttft.upper_value!).toBeGreaterThanOrEqual(ttft.value);
    expect(report["vllm-perf-gate/chat"]!["output-throughput-tok-s"]).toBeDefined();
  });
});

describe("compare --format", () => {
  it("adds the chosen files to DIR and prints the chosen format", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-export-"));
    await writeResultsDir(join(dir, "base"), noisyRuns(3, { seed: 1, sd: 0.01 }));
    await writeResultsDir(join(dir, "cand"), noisyRuns(3, { seed: 2, sd: 0.01 }));
    const result = await cli(
      [
        "compare",
        "--baseline",
        "base",
        "--candidate",
        "cand",
        "--out",
        "o",
        "--format",
        "json,pytorch",
        "--format",
        "bencher",
      ],
      { cwd: dir },
    );
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout).schemaVersion).toBeDefined();
    const records = JSON.parse(await readFile(join(dir, "o", "pytorch-benchmark.json"), "utf8")) as unknown[];
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) pytorchV3Record.parse(record);
    bmf.parse(JSON.parse(await readFile(join(dir, "o", "bencher.json"), "utf8")));
  });

  it("keeps today's default, refuses two printed formats and accepts html", () => {
    expect(parseCompareFormats([])).toEqual({ print: "text", files: [] });
    expect(parseCompareFormats(["md"])).toEqual({ print: "markdown", files: [] });
    expect(parseCompareFormats(["html"])).toEqual({ print: "html", files: [] });
    expect(parseCompareFormats(["pytorch,bencher"])).toEqual({
      print: "text",
      files: ["pytorch", "bencher"],
    });
    expect(() => parseCompareFormats(["json,md"])).toThrow(
      /at most one of text, md, comment, html, json and none/,
    );
    expect(() => parseCompareFormats(["csv"])).toThrow(/got "csv"/);
  });
});

describe("run --format pytorch,bencher (each run exported)", () => {
  it("writes each run's records beside its run.json, in the published shapes, with run.json's values", async () => {
    const server = await startFakeServer();
    const dir = await mkdtemp(join(tmpdir(), "vpg-run-export-"));
    try {
      await writeFile(
        join(dir, "gate.yml"),
        [
          "version: 1",
          'server: { kind: external, base_url: "http://127.0.0.1:1" }',
          "model: { name: m }",
          "cells:",
          "  - name: chat",
          "    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }",
          "    load: { type: concurrency, concurrency: 2 }",
          "    size: { requests: 6 }",
          "    warmup: { requests: 0 }",
          "",
        ].join("\n"),
      );
      const result = await cli(
        [
          "run",
          "--config",
          "gate.yml",
          "--out",
          "out",
          "--runs",
          "2",
          "--base-url",
          server.baseUrl,
          "--side",
          "candidate",
          "--format",
          "vllm,pytorch,bencher",
        ],
        { cwd: dir },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain("wrote pytorch-benchmark.json and bencher.json for 2 run(s)");
      for (const run of [0, 1]) {
        const runDir = join(dir, "out", "chat", `run-${run}`);
        const file = runFileSchema.parse(JSON.parse(await readFile(join(runDir, "run.json"), "utf8")));
        const metrics = runRecordFromRunFile(file, runDir).metrics;
        await readFile(join(runDir, "vllm-result.json"), "utf8");

        const records = z
          .array(pytorchV3Record)
          .min(1)
          .parse(JSON.parse(await readFile(join(runDir, "pytorch-benchmark.json"), "utf8")));
        const ttft = records.find((record) => record.metric.name === "ttft_p95")!;
        expect(ttft.metric.benchmark_values).toEqual([metrics.ttft_p95]);
        expect(ttft.model.name).toBe("m");
        expect(ttft.benchmark.extra_info).toMatchObject({
          cell: "chat",
          run: String(run),
          side: "candidate",
        });
        expect(ttft.metric.extra_info).toMatchObject({ unit: "ms", higher_is_better: "false" });
        // One record per metric the run has a value for.
        expect(new Set(records.map((record) => record.metric.name)).size).toBe(records.length);

        const report = bmf.parse(JSON.parse(await readFile(join(runDir, "bencher.json"), "utf8")));
        expect(Object.keys(report)).toEqual(["vllm-perf-gate/chat"]);
        expect(report["vllm-perf-gate/chat"]!["ttft-p95-ms"]).toEqual({ value: metrics.ttft_p95 });
        expect(report["vllm-perf-gate/chat"]!["output-throughput-tok-s"]!.value).toBe(
          metrics.output_throughput,
        );
      }
    } finally {
      await server.close();
    }
  });

  it("exports no run compare would not use, and says which and why", async () => {
    const dir = await mkdtemp(join(tmpdir(), "vpg-run-export-"));
    const [whole, cut] = noisyRuns(2, { seed: 5 });
    cut!.flags.interrupted = "SIGINT";
    cut!.flags.cutShort = true;
    await writeResultsDir(dir, [whole!, cut!]);
    const runs = [whole!, cut!].map((run) => ({
      cell: run.cell,
      run: run.run,
      dir: join(dir, run.cell, `run-${run.run}`),
    }));
    const lines = await writeRunExports(runs, ["bencher"], undefined, noSecrets);
    expect(lines).toEqual([
      "wrote bencher.json for 1 run(s)",
      `no bencher.json for runs compare would not use: ${cut!.cell}/run-${cut!.run} (interrupted by SIGINT)`,
    ]);
    await readFile(join(runs[0]!.dir, "bencher.json"), "utf8");
    await expect(readFile(join(runs[1]!.dir, "bencher.json"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("refuses an unknown format with exit 2", async () => {
    expect(parseRunFormats("vllm,bencher")).toEqual({ runner: ["vllm"], exports: ["bencher"] });
    expect(() => parseRunFormats("vllm,csv")).toThrow(
      /--format expects vllm, pytorch, bencher \(comma-separated\), got "csv"/,
    );
  });
});
