import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readRequestRecords } from "../../bench/kit/request-records.js";
import { runCells } from "../../src/app/run-cells.js";
import { usageIssueLimit } from "../../src/app/run-file.js";
import type { CliIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/main.js";
import { primeTimeoutMs } from "../../src/client/stream-client.js";
import { runRecordFromRunFile } from "../../src/metrics/run-record.js";
import { type RunFile, runFileSchema } from "../../src/metrics/run-schema.js";
import { baseUrlProvider } from "../../src/server/base-url.js";
import { noSecrets } from "../job-outbound.js";
import { type Behaviour, type FakeServer, startFakeServer } from "./helpers/fake-openai-server.js";
import { testConfig, tinyCell } from "./helpers/run-config.js";

/**
 * `run` against a loopback server that misbehaves in ways a real gateway or a buggy server does: legal but
 * unusual /metrics samples, garbage, usage that lies, a /health that never answers. Chunk shapes as in
 * fake-openai-server.ts (vLLM's completions stream).
 */

let server: FakeServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

function fakeIo(cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text), isTTY: false },
    stderr: { write: (text: string) => err.push(text), isTTY: false },
    env: {},
    cwd,
  };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

const config = `version: 1
server: { kind: external, base_url: "http://127.0.0.1:1" }
model: { name: m }
telemetry: { metrics_interval_s: 0.2 }
# A shared machine: a late event loop is not what these tests are about (under a full suite's load a run
# was flagged client-bound too, and its exclusion reasons were more than the usage checks').
client: { max_event_loop_lag_ms: 1000, max_schedule_lag_ms: 1000 }
cells:
  - name: first
    dataset: { type: synthetic, input_tokens: 4, output_tokens: 8 }
    load: { type: concurrency, concurrency: 2 }
    size: { requests: 40 }
    warmup: { requests: 0 }
  - name: second
    dataset: { type: synthetic, input_tokens: 4, output_tokens: 8 }
    load: { type: concurrency, concurrency: 2 }
    size: { requests: 10 }
    warmup: { requests: 0 }
`;

async function runCommand(
  runs = 2,
): Promise<{ code: number; err: string; file: (cell: string, run: number) => RunFile }> {
  dir = mkdtempSync(join(tmpdir(), "vpg-hostile-"));
  writeFileSync(join(dir, "gate.yml"), config);
  const { io, err } = fakeIo(dir);
  const code = await runCli(
    ["run", "-c", "gate.yml", "-o", "results", "--base-url", server!.baseUrl, "--runs", String(runs)],
    io,
  );
  const root = dir;
  return {
    code,
    err: err(),
    file: (cell, run) =>
      runFileSchema.parse(
        JSON.parse(readFileSync(join(root, "results", cell, `run-${run}`, "run.json"), "utf8")),
      ),
  };
}

/** A vLLM-shaped completions stream of `tokens` chunks with the given usage (or none). */
function stream(tokens: number, usage: Record<string, unknown> | null) {
  return (response: ServerResponse) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    for (let index = 0; index < tokens; index++) {
      const finish = index === tokens - 1 ? "length" : null;
      response.write(
        `data: ${JSON.stringify({ id: "cmpl-1", object: "text_completion", created: 1, model: "m", choices: [{ index: 0, text: ` w${index}`, logprobs: null, finish_reason: finish, stop_reason: null }] })}\n\n`,
      );
    }
    if (usage !== null) {
      response.write(
        `data: ${JSON.stringify({ id: "cmpl-1", object: "text_completion", created: 1, model: "m", choices: [], usage })}\n\n`,
      );
    }
    response.end("data: [DONE]\n\n");
  };
}

const raw = (respond: (response: ServerResponse) => void): Behaviour => ({ kind: "raw", respond });

describe("run against a misbehaving server keeps every run", () => {
  it("records NaN, +Inf and garbage in /metrics as such instead of crashing after measuring", async () => {
    let scrapes = 0;
    server = await startFakeServer({
      metrics: () => {
        scrapes++;
        // Legal exposition text (NaN and +Inf are valid sample values), then garbage lines.
        return [
          "# TYPE vllm:kv_cache_usage_perc gauge",
          `vllm:kv_cache_usage_perc{engine="0",model_name="m"} NaN`,
          `vllm:num_requests_running{engine="0",model_name="m"} +Inf`,
          `vllm:num_preemptions_total{engine="0",model_name="m"} ${scrapes % 2 === 0 ? "+Inf" : "3"}`,
          `vllm:prompt_tokens_total{engine="0",model_name="m"} ${scrapes * 10}`,
          `vllm:time_to_first_token_seconds_bucket{le="0.1",model_name="m"} NaN`,
          `vllm:time_to_first_token_seconds_bucket{le="oops",model_name="m"} 4`,
          `vllm:time_to_first_token_seconds_bucket{le="+Inf",model_name="m"} ${scrapes}`,
          "%%% not prometheus at all {{{ 1 2 3",
          'vllm:num_requests_waiting{engine="0" 7',
          "\u0000\u0001 binary",
        ].join("\n");
      },
    });
    const result = await runCommand();
    expect(result.err).not.toMatch(/ZodError|at .*\.ts:\d+/);
    expect(result.code).toBe(0);
    for (const cell of ["first", "second"]) {
      for (const run of [0, 1]) {
        const file = result.file(cell, run);
        expect(file.server).not.toBeNull();
        expect(file.server!.kv_cache_usage_max).toBeNull();
        expect(file.server!.running_max).toBeNull();
        expect(file.server!.notFinite).toEqual(expect.arrayContaining(["kv_cache_usage_max", "running_max"]));
        expect(file.server!.prompt_tokens).toBeGreaterThan(0);
        expect(file.flags.notes.join("\n")).toMatch(/\/metrics gave no finite number .*kv_cache_usage_max/);
      }
    }
  });

  it("keeps a run whose server sends negative, fractional and absurd usage, and makes it unusable", async () => {
    const usages = [
      { prompt_tokens: 4, completion_tokens: -5, total_tokens: -1 },
      { prompt_tokens: 4, completion_tokens: 2.5, total_tokens: 6.5 },
      { prompt_tokens: -1, completion_tokens: 8, total_tokens: 7 },
      { prompt_tokens: 4, completion_tokens: 1_000_000, total_tokens: 1_000_004 },
    ];
    server = await startFakeServer({
      behaviour: (_body, index) => raw(stream(8, usages[index % 4]!)),
    });
    const result = await runCommand(1);
    expect(result.err).not.toMatch(/ZodError/);
    expect(result.code).toBe(0);
    const file = result.file("first", 0);
    expect(file.requests).toMatchObject({ total: 40, completed: 40 });
    // Every record passes the tool's own schema (readRequestRecords validates each line).
    const records = readRequestRecords(join(dir!, "results"), "first");
    expect(records).toHaveLength(40);
    expect(records.every((record) => record.outputTokens === 8)).toBe(true);
    expect(records.filter((record) => record.usageIssue?.kind === "invalid_usage")).toHaveLength(30);
    expect(file.tokens.output).toBe(40 * 8);
    expect(file.flags.usageIssues).toEqual({ invalid_usage: 30, usage_exceeds_chunks: 10 });
    expect(file.flags.unusableReasons?.[0]).toMatch(
      /40 of 40 requests \(100\.0%\) had usage that failed its checks .* more than 5% makes the run unusable/,
    );
    // compare excludes it with that reason.
    expect(runRecordFromRunFile(file, "run.json").exclusionReasons).toEqual(file.flags.unusableReasons);
    expect(result.err).toMatch(/UNUSABLE/);
  });
});

describe("usage that disagrees with what was received", () => {
  const cell = (name: string, requests: number, outputTokens = 8) => ({
    ...tinyCell(name),
    dataset: { type: "synthetic", input_tokens: 4, output_tokens: outputTokens },
    size: { requests },
  });
  const measure = async (behaviour: (index: number) => Behaviour, requests: number) => {
    server = await startFakeServer({ behaviour: (_body, index) => behaviour(index) });
    dir = mkdtempSync(join(tmpdir(), "vpg-usage-"));
    const cfg = testConfig([cell("c", requests)]);
    const result = await runCells({
      outbound: noSecrets,
      config: cfg,
      provider: baseUrlProvider({ baseUrl: server.baseUrl, model: cfg.model }),
      outDir: dir,
      baseDir: dir,
      runs: 1,
    });
    return { file: result.runs[0]!.file, records: readRequestRecords(dir, "c") };
  };

  it("flags one lying usage chunk, counts its chunks instead, and keeps the run usable", async () => {
    const { file, records } = await measure(
      (index) =>
        raw(
          stream(8, { prompt_tokens: 4, completion_tokens: index === 3 ? 1_000_000 : 8, total_tokens: 12 }),
        ),
      40,
    );
    const liar = records.find((record) => record.index === 3)!;
    expect(liar.usageIssue).toEqual({
      kind: "usage_exceeds_chunks",
      detail: "usage.completion_tokens 1000000 > 16 x 8 chunks received",
    });
    expect(liar).toMatchObject({ outputTokens: 8, outputTokensSource: "chunks" });
    expect(file.tokens.output).toBe(40 * 8);
    expect(file.flags.usageIssues).toEqual({ usage_exceeds_chunks: 1 });
    expect(1 / 40).toBeLessThan(usageIssueLimit);
    expect(file.flags.unusableReasons).toBeUndefined();
    expect(file.flags.notes.join("\n")).toMatch(
      /1 of 40 requests \(2\.5%\) had usage that failed its checks/,
    );
  });

  it("makes a run unusable when the server ignores max_tokens", async () => {
    const { file, records } = await measure(
      () => raw(stream(200, { prompt_tokens: 4, completion_tokens: 200, total_tokens: 204 })),
      10,
    );
    expect(records[0]!.usageIssue).toEqual({
      kind: "exceeds_max_tokens",
      detail: "usage.completion_tokens 200 > max_tokens 8",
    });
    // The server did generate them: the count stands, but the run measured another workload.
    expect(records[0]!.outputTokens).toBe(200);
    expect(file.flags.usageIssues).toEqual({ exceeds_max_tokens: 10 });
    expect(file.flags.unusableReasons?.[0]).toMatch(/10 of 10 requests .*exceeds_max_tokens.*unusable/);
  });

  it("believes usage within the margins (several tokens per chunk, chat's role chunk)", async () => {
    const { file } = await measure(
      () => raw(stream(3, { prompt_tokens: 4, completion_tokens: 8, total_tokens: 12 })),
      6,
    );
    expect(file.flags.usageIssues).toBeUndefined();
    expect(file.tokens.output).toBe(6 * 8);
  });
});

describe("waits with deadlines", () => {
  it("runs against a gateway whose /health never answers, noting the priming deadline", async () => {
    server = await startFakeServer({ route: (url) => url === "/health" });
    dir = mkdtempSync(join(tmpdir(), "vpg-health-"));
    const cfg = testConfig([tinyCell("c")]);
    const started = Date.now();
    const result = await runCells({
      outbound: noSecrets,
      config: cfg,
      provider: baseUrlProvider({ baseUrl: server.baseUrl, model: cfg.model }),
      outDir: dir,
      baseDir: dir,
      runs: 1,
    });
    expect(Date.now() - started).toBeLessThan(primeTimeoutMs + 10_000);
    const file = result.runs[0]!.file;
    expect(file.requests).toMatchObject({ total: 2, completed: 2 });
    expect(file.flags.notes.join("\n")).toMatch(
      new RegExp(
        `0 of 1 connections opened before the run \\(GET /health did not answer within ${primeTimeoutMs} ms`,
      ),
    );
  });

  it("stops at once on Ctrl-C while connections are being opened", async () => {
    server = await startFakeServer({ route: (url) => url === "/health" });
    dir = mkdtempSync(join(tmpdir(), "vpg-health-"));
    const cfg = testConfig([tinyCell("c")]);
    let abort = false;
    setTimeout(() => {
      abort = true;
    }, 300);
    const started = Date.now();
    const result = await runCells({
      outbound: noSecrets,
      config: cfg,
      provider: baseUrlProvider({ baseUrl: server.baseUrl, model: cfg.model }),
      outDir: dir,
      baseDir: dir,
      runs: 1,
      shouldAbort: () => abort,
    });
    expect(Date.now() - started).toBeLessThan(primeTimeoutMs - 1_000);
    // Interrupted before or while connections were opened: nothing was measured, nothing is left running.
    expect(result.runs.every((run) => run.file.flags.cutShort)).toBe(true);
  });
});

describe("a lying /tokenize", () => {
  it("is refused with a clear error before any prompt is sized from it", async () => {
    // 1e-4 tokens per word: prompts sized from it would be 10,000 times too long.
    server = await startFakeServer({ tokenize: (words) => Math.max(1, Math.round(words * 1e-4)) });
    const result = await runCommand(1);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /POST \/tokenize counted 1 tokens for 64 words and 1 for 512: 0\.00 tokens per word .* outside the plausible 0\.25-8 tokens per word/,
    );
    expect(server.requests.some((request) => request.path === "/v1/completions")).toBe(false);
  });

  it("is believed within the bounds (a byte-level tokenizer, a chat template)", async () => {
    server = await startFakeServer({ tokenize: (words) => words * 5 + 40 });
    const result = await runCommand(1);
    expect(result.code).toBe(0);
    expect(result.file("first", 0).flags.notes).toContain(
      "prompt lengths calibrated with POST /tokenize: 5 tokens/word + 40",
    );
  });
});
