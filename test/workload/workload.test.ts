import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CellConfig, cellSchema } from "../../src/config/schema.js";
import { createRng } from "../../src/util/random.js";
import { calibrateTokenModel } from "../../src/workload/calibrate.js";
import { readDatasetFile } from "../../src/workload/dataset-file.js";
import { drawLength } from "../../src/workload/lengths.js";
import { buildRequestBody } from "../../src/workload/request-body.js";
import { createWorkload } from "../../src/workload/workload.js";
import { testConfig } from "../runner/helpers/run-config.js";

const cell = (dataset: unknown, extra: Record<string, unknown> = {}): CellConfig =>
  cellSchema.parse({
    name: "c",
    dataset,
    load: { type: "concurrency", concurrency: 1 },
    size: { requests: 10 },
    ...extra,
  });

const words = (text: string | null) => (text ?? "").split(" ").length;
const dir = mkdtempSync(join(tmpdir(), "vpg-workload-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("seeded workloads", () => {
  const synthetic = cell({
    type: "synthetic",
    input_tokens: { distribution: "uniform", min: 10, max: 50 },
    output_tokens: 16,
  });

  it("gives identical prompts for the same seed, whatever the order of generation", () => {
    const a = createWorkload(synthetic, { seed: 3 });
    const b = createWorkload(synthetic, { seed: 3 });
    const forward = Array.from({ length: 50 }, (_, index) => a.request(index));
    const backward = Array.from({ length: 50 }, (_, index) => b.request(49 - index)).reverse();
    expect(backward).toEqual(forward);
    const other = createWorkload(synthetic, { seed: 4 });
    expect(other.request(0).prompt).not.toBe(forward[0]!.prompt);
  });

  it("pins prompt text for a seed so it is the same on every machine", () => {
    const request = createWorkload(cell({ type: "synthetic", input_tokens: 6, output_tokens: 2 }), {
      seed: 0,
    }).request(0);
    expect(request.prompt).toMatchInlineSnapshot(`"point center week mother face home"`);
  });

  it("reaches exact input lengths under the token model and keeps warm-up prompts apart", () => {
    const workload = createWorkload(synthetic, { seed: 1 });
    for (let index = 0; index < 100; index++) {
      const request = workload.request(index);
      expect(words(request.prompt)).toBe(request.targetInputTokens);
      expect(request.targetInputTokens).toBeGreaterThanOrEqual(10);
      expect(request.targetInputTokens).toBeLessThanOrEqual(50);
      expect(request.maxTokens).toBe(16);
      expect(workload.request(index, "warmup").prompt).not.toBe(request.prompt);
    }
    const fitted = createWorkload(synthetic, {
      seed: 1,
      tokenModel: { tokensPerWord: 1, offset: 1, source: "tokenize" },
    });
    expect(words(fitted.request(0).prompt)).toBe(workload.request(0).targetInputTokens! - 1);
  });

  it("wraps prompts as chat messages for the chat endpoint", () => {
    const request = createWorkload(
      cell({ type: "synthetic", input_tokens: 5, output_tokens: 3 }, { endpoint: "chat" }),
      { seed: 0 },
    ).request(0);
    expect(request.prompt).toBeNull();
    expect(request.messages).toHaveLength(1);
    expect(request.messages![0]!.role).toBe("user");
  });

  it("shares prefixes in balanced, seeded groups", () => {
    const workload = createWorkload(
      cell({ type: "shared_prefix", num_prefixes: 4, prefix_tokens: 30, suffix_tokens: 5, output_tokens: 3 }),
      { seed: 2 },
    );
    const requests = Array.from({ length: 40 }, (_, index) => workload.request(index));
    const groups = new Map<number, string[]>();
    for (const request of requests) {
      expect(words(request.prompt)).toBe(35);
      const list = groups.get(request.prefixGroup!) ?? [];
      list.push(request.prompt!.split(" ").slice(0, 30).join(" "));
      groups.set(request.prefixGroup!, list);
    }
    expect([...groups.values()].map((list) => list.length)).toEqual([10, 10, 10, 10]);
    for (const list of groups.values()) expect(new Set(list).size).toBe(1);
  });

  it("asks long-document questions about a few documents", () => {
    const workload = createWorkload(
      cell({
        type: "long_document",
        num_documents: 2,
        document_tokens: 200,
        question_tokens: 8,
        output_tokens: 4,
      }),
      { seed: 2 },
    );
    const documents = new Set(
      Array.from({ length: 10 }, (_, index) =>
        workload.request(index).prompt!.split(" ").slice(0, 200).join(" "),
      ),
    );
    expect(documents.size).toBe(2);
  });

  it("reads ShareGPT files, records their checksum and rejects a changed file", async () => {
    const path = join(dir, "sg.json");
    writeFileSync(
      path,
      JSON.stringify([
        {
          conversations: [
            { from: "human", value: "What is a cat?" },
            { from: "gpt", value: "x".repeat(400) },
          ],
        },
        { conversations: [{ from: "gpt", value: "no question" }] },
        {
          conversations: [
            { from: "human", value: "Hi" },
            { from: "gpt", value: "Hello there!" },
          ],
        },
      ]),
    );
    const file = await readDatasetFile({
      dataset: { type: "sharegpt", path: "sg.json" },
      baseDir: dir,
      field: "cells[0].dataset",
      seed: 0,
    });
    expect(file.entries).toHaveLength(2);
    expect(file.skipped).toBe(1);
    expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
    const workload = createWorkload(cell({ type: "sharegpt", path: "sg.json" }), { seed: 0, file });
    const lengths = new Set(Array.from({ length: 4 }, (_, index) => workload.request(index).maxTokens));
    expect(lengths).toEqual(new Set([100, 3]));
    expect(workload.info.datasetSha256).toBe(file.sha256);
    await expect(
      readDatasetFile({
        dataset: { type: "sharegpt", path: "sg.json", sha256: "0".repeat(64) },
        baseDir: dir,
        field: "cells[0].dataset",
        seed: 0,
      }),
    ).rejects.toThrow(/cells\[0\]\.dataset\.sha256: .* expected 0{64}/);
  });

  it("reads JSONL prompts and messages with their max_tokens", async () => {
    const path = join(dir, "d.jsonl");
    writeFileSync(
      path,
      `${JSON.stringify({ prompt: "one two", max_tokens: 7 })}\n\n${JSON.stringify({ messages: [{ role: "user", content: "hey" }] })}\n`,
    );
    const read = () =>
      readDatasetFile({ dataset: { type: "jsonl", path }, baseDir: dir, field: "f", seed: 0 });
    const file = await read();
    const workload = createWorkload(cell({ type: "jsonl", path, output_tokens: 9 }, { endpoint: "chat" }), {
      seed: 0,
      file,
    });
    const requests = [workload.request(0), workload.request(1)];
    expect(requests.every((request) => request.messages !== null)).toBe(true);
    expect(requests.map((request) => request.maxTokens)).toEqual([9, 9]);
    writeFileSync(path, "{bad\n");
    await expect(read()).rejects.toThrow(/d\.jsonl:1: not valid JSON/);
  });

  it("draws clipped normal and log-normal lengths", () => {
    const rng = createRng(9);
    const normal = Array.from({ length: 2000 }, () =>
      drawLength({ distribution: "normal", mean: 100, sd: 30, min: 80, max: 120 }, rng),
    );
    expect(Math.min(...normal)).toBe(80);
    expect(Math.max(...normal)).toBe(120);
    const lognormal = Array.from({ length: 4001 }, () =>
      drawLength({ distribution: "lognormal", median: 200, sigma: 0.5, min: 1 }, rng),
    );
    const sorted = [...lognormal].sort((a, b) => a - b);
    expect(Math.abs(sorted[2000]! - 200)).toBeLessThan(12);
  });
});

describe("request bodies and calibration", () => {
  it("sends every sampling parameter explicitly, the salt, and usage", () => {
    const config = testConfig(
      [
        {
          name: "c",
          dataset: { type: "synthetic", input_tokens: 2, output_tokens: 3 },
          load: { type: "concurrency", concurrency: 1 },
          size: { requests: 1 },
        },
      ],
      {
        sampling: { temperature: 0.5, top_k: 20, extra_body: { priority: 1 } },
      },
    );
    const request = createWorkload(config.cells[0]!, { seed: 0 }).request(0);
    const body = buildRequestBody(request, { model: "m", sampling: config.sampling, cacheSalt: "s1" });
    expect(body).toMatchObject({
      model: "m",
      max_tokens: 3,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.5,
      top_p: 1,
      top_k: 20,
      ignore_eos: true,
      cache_salt: "s1",
      priority: 1,
    });
  });

  it("fits tokens = a * words + b from the server's tokenizer, or keeps one token per word", async () => {
    const model = await calibrateTokenModel(async (text) => Math.round(text.split(" ").length * 1.25) + 2, 0);
    expect(model.source).toBe("tokenize");
    expect(model.tokensPerWord).toBeCloseTo(1.25, 2);
    expect(model.offset).toBeCloseTo(2, 0);
    expect(await calibrateTokenModel(async () => null, 0)).toMatchObject({
      tokensPerWord: 1,
      offset: 0,
      source: "default",
    });
  });
});
