import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readRequestRecords } from "../../bench/kit/request-records.js";
import { runCells } from "../../src/app/run-cells.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { runCells as runCellsWith, SessionCache } from "../../src/runner/run-cells.js";
import { baseUrlProvider } from "../../src/server/base-url.js";
import type { ServerProvider } from "../../src/server/types.js";
import { noSecrets } from "../job-outbound.js";
import { type FakeServer, startFakeServer } from "./helpers/fake-openai-server.js";
import { testConfig, tinyCell } from "./helpers/run-config.js";

let server: FakeServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

const metricsText = (hits: number) =>
  [
    "# TYPE vllm:prefix_cache_queries counter",
    `vllm:prefix_cache_queries_total{engine="0",model_name="m"} ${hits * 10}`,
    `vllm:prefix_cache_hits_total{engine="0",model_name="m"} ${hits}`,
    `vllm:num_requests_running{engine="0",model_name="m"} 3`,
  ].join("\n");

describe("runCells against a loopback server", () => {
  it("counts a mid-stream error, an HTTP 500, a reset and a timeout while the run completes", async () => {
    let scrapes = 0;
    server = await startFakeServer({
      behaviour: (body, index) => {
        const prompt = String(body.prompt);
        if (prompt.startsWith("warm")) return { kind: "ok", tokens: 2 };
        return (
          [
            { kind: "mid-error", after: 2 } as const,
            { kind: "http", status: 500 } as const,
            { kind: "reset", after: 1 } as const,
            { kind: "hang" } as const,
          ][index % 10] ?? { kind: "ok", tokens: 8, itlMs: 1 }
        );
      },
      metrics: () => metricsText(scrapes++),
    });
    dir = mkdtempSync(join(tmpdir(), "vpg-run-"));
    const config = testConfig([
      {
        name: "mixed",
        dataset: { type: "synthetic", input_tokens: 8, output_tokens: 8 },
        load: { type: "concurrency", concurrency: 4 },
        size: { requests: 40 },
        warmup: { requests: 0 },
        timeout_s: 1.5,
      },
    ]);
    const result = await runCells({
      outbound: noSecrets,
      config,
      provider: baseUrlProvider({ baseUrl: server.baseUrl, model: config.model }),
      outDir: dir,
      baseDir: dir,
      runs: 1,
      formats: ["vllm"],
    });
    expect(result.runs).toHaveLength(1);
    const file = runFileSchema.parse(
      JSON.parse(readFileSync(join(dir, "mixed", "run-0", "run.json"), "utf8")),
    );
    expect(file.requests.total).toBe(40);
    // Index order interleaves with concurrency, so count kinds rather than positions.
    expect(file.requests.failed).toBe(16);
    expect(file.requests.errorsByKind).toEqual({ stream_error: 4, http_500: 4, reset: 4, timeout: 4 });
    expect(file.requests.completed).toBe(24);
    expect(file.requests.finishReasons).toEqual({ length: 24 });
    expect(file.tokens.output).toBe(24 * 8);
    // The fake tokenizer adds one special token: calibration fits it, the check finds the prompts exact.
    expect(file.flags.notes).toContain("prompt lengths calibrated with POST /tokenize: 1 tokens/word + 1");
    expect(file.flags.notes).toContain(
      "prompt lengths checked on the server's tokenizer: 16 prompts, max error 0 tokens, mean 0.00",
    );
    expect(file.prefix.policy).toBe("fresh");
    expect(file.prefix.cacheReset).toBe(true);
    expect(file.server?.running_max).toBe(3);
    expect(file.server?.missing).toContain("vllm:num_preemptions_total");
    expect(file.server?.preemptions).toBeNull();
    expect(readRequestRecords(dir, "mixed")).toHaveLength(40);
    const scrapeLines = readFileSync(join(dir, "mixed", "run-0", "scrapes.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(scrapeLines.map((line) => JSON.parse(line).phase)).toContain("after");
    const vllm = JSON.parse(readFileSync(join(dir, "mixed", "run-0", "vllm-result.json"), "utf8"));
    expect(vllm.completed).toBe(24);
    expect(vllm.failed).toBe(16);
    expect(vllm.errors.filter((error: string) => error !== "")).toHaveLength(16);
    // Every measured request carried the run's salt; the fake saw a reset before the run.
    const measured = server.requests.filter((request) => request.path === "/v1/completions");
    expect(new Set(measured.map((request) => request.body.cache_salt)).size).toBe(1);
    expect(measured[0]!.body.cache_salt).toBe(file.prefix.cacheSalt);
    expect(server.resets).toBe(1);
  });

  it("flags a run client-bound when the event loop is blocked, and not otherwise", async () => {
    server = await startFakeServer({ behaviour: () => ({ kind: "ok", tokens: 4, itlMs: 2 }) });
    dir = mkdtempSync(join(tmpdir(), "vpg-run-"));
    const cell = {
      name: "steady",
      dataset: { type: "synthetic", input_tokens: 4, output_tokens: 4 },
      load: { type: "rate", rate: 100 },
      size: { duration_s: 1.2 },
      warmup: { requests: 0 },
      prefix: "reuse",
    };
    const config = testConfig([cell], { client: { max_schedule_lag_ms: 50, max_event_loop_lag_ms: 250 } });
    const provider = baseUrlProvider({ baseUrl: server.baseUrl, model: config.model });
    const clean = await runCells({
      outbound: noSecrets,
      config,
      provider,
      outDir: join(dir, "clean"),
      baseDir: dir,
      runs: 1,
    });
    expect(clean.runs[0]!.file.flags.clientBoundReason).toBeUndefined();
    expect(clean.runs[0]!.file.prefix).toEqual({ policy: "reuse", cacheSalt: null, cacheReset: false });

    // Starve the client: hold the event loop for 400 ms every 450 ms (thresholds sit far above a busy machine's noise).
    const blocker = setInterval(() => {
      const until = Date.now() + 400;
      while (Date.now() < until) {
        // busy: the loop cannot run timers or read sockets
      }
    }, 450);
    try {
      const starved = await runCells({
        outbound: noSecrets,
        config,
        provider,
        outDir: join(dir, "starved"),
        baseDir: dir,
        runs: 1,
      });
      const flags = starved.runs[0]!.file.flags;
      expect(flags.clientBound).toBe(true);
      expect(flags.clientBoundReason).toMatch(/event-loop delay|send lag/);
    } finally {
      clearInterval(blocker);
    }
  });

  it("marks a run cut short when the server dies, keeping what was measured", async () => {
    // The server dies when it is asked for its 12th completion: at concurrency 2, earlier requests were
    // answered by then (event order: a timer could fire before a loaded machine sent a request).
    let die: () => void = () => {};
    const died = new Promise<void>((resolve) => {
      die = resolve;
    });
    server = await startFakeServer({
      behaviour: (_body, index) => {
        if (index === 11) die();
        return { kind: "ok", tokens: 20, itlMs: 10 };
      },
    });
    dir = mkdtempSync(join(tmpdir(), "vpg-run-"));
    const config = testConfig([
      {
        name: "crash",
        dataset: { type: "synthetic", input_tokens: 4, output_tokens: 20 },
        load: { type: "concurrency", concurrency: 2 },
        size: { requests: 1000 },
        warmup: { requests: 0 },
      },
    ]);
    const inner = baseUrlProvider({ baseUrl: server.baseUrl, model: config.model });
    const live = server;
    const provider: ServerProvider = {
      lifecycle: "per-cell",
      async start(context) {
        const session = await inner.start(context);
        const exited = died.then(async () => {
          await live.close();
          return { reason: "process exited with code 137" };
        });
        return { ...session, fingerprint: () => session.fingerprint(), stop: () => session.stop(), exited };
      },
    };
    const result = await runCells({
      outbound: noSecrets,
      config,
      provider,
      outDir: dir,
      baseDir: dir,
      runs: 1,
    });
    const file = result.runs[0]!.file;
    expect(file.flags).toMatchObject({ serverCrashed: true, cutShort: true });
    expect(file.flags.notes[0]).toBe("server exited during the run: process exited with code 137");
    expect(file.requests.completed).toBeGreaterThan(0);
    expect(file.requests.total).toBeLessThan(1000);
    expect(readRequestRecords(dir, "crash")).toHaveLength(file.requests.total);
    server = undefined;
  });

  it("stops a run early when every connection is refused", async () => {
    dir = mkdtempSync(join(tmpdir(), "vpg-run-"));
    const config = testConfig([
      {
        name: "down",
        dataset: { type: "synthetic", input_tokens: 4, output_tokens: 4 },
        load: { type: "concurrency", concurrency: 2 },
        size: { duration_s: 60 },
        warmup: { requests: 0 },
      },
    ]);
    const endpoint = { baseUrl: "http://127.0.0.1:1", metricsUrl: "http://127.0.0.1:1/metrics" };
    const provider: ServerProvider = {
      lifecycle: "per-cell",
      start: async () => ({
        endpoint,
        start: { id: "unreachable", startedAt: new Date().toISOString() },
        fingerprint: async () => ({}),
        exited: new Promise(() => {}),
        stop: async () => {},
      }),
    };
    const started = Date.now();
    const result = await runCells({
      outbound: noSecrets,
      config,
      provider,
      outDir: dir,
      baseDir: dir,
      runs: 1,
      calibrate: false,
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    const file = result.runs[0]!.file;
    expect(file.flags.cutShort).toBe(true);
    expect(file.flags.notes[0]).toMatch(/refused connections in a row: the server is unreachable/);
    expect(file.requests.errorsByKind.connect).toBeGreaterThanOrEqual(20);
    expect(file.server).toBeNull();
  });

  it("delivers 1,000 Poisson arrivals within 2% of the target rate on real time", async () => {
    server = await startFakeServer({ behaviour: () => ({ kind: "ok", tokens: 2 }) });
    dir = mkdtempSync(join(tmpdir(), "vpg-run-"));
    const config = testConfig([
      {
        name: "poisson",
        dataset: { type: "synthetic", input_tokens: 2, output_tokens: 2 },
        load: { type: "rate", rate: 200, burstiness: 1 },
        size: { requests: 1000 },
        warmup: { requests: 0 },
        prefix: "reuse",
      },
    ]);
    const result = await runCells({
      outbound: noSecrets,
      config,
      provider: baseUrlProvider({ baseUrl: server.baseUrl, model: config.model }),
      outDir: dir,
      baseDir: dir,
      runs: 1,
    });
    const file = result.runs[0]!.file;
    expect(file.requests.completed).toBe(1000);
    // Within 2% of the target, or the run says the client fell behind: never a wrong rate, silently.
    if (Math.abs(file.load.achievedRate - 200) / 200 >= 0.02)
      expect(file.flags.clientBoundReason).toMatch(/achieved rate/);
    const records = readRequestRecords(dir, "poisson");
    // The schedule has the burstiness asked for (gamma shape 1: CV of gaps 1) ...
    const scheduled = records.map((record) => record.scheduledMs).sort((a, b) => a - b);
    const gaps = scheduled.slice(1).map((time, index) => time - scheduled[index]!);
    const mean = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
    const cv = Math.sqrt(gaps.reduce((sum, gap) => sum + (gap - mean) ** 2, 0) / gaps.length) / mean;
    expect(cv).toBeGreaterThan(0.9);
    expect(cv).toBeLessThan(1.1);
    // Sends are judged by the run's own lag statistics and the client-bound flag (tested above): on a
    // shared machine a descheduled process sends a few due arrivals late, and the absolute schedule
    // catches up, which is what keeps the achieved rate on target.
    expect(file.load.scheduleLagP50Ms).not.toBeNull();
  });

  it("keeps a cell's server across calls with a session cache (one run at a time)", async () => {
    server = await startFakeServer();
    dir = mkdtempSync(join(tmpdir(), "vpg-run-"));
    const config = testConfig([tinyCell("a")]);
    const inner = baseUrlProvider({ baseUrl: server.baseUrl, model: config.model });
    let starts = 0;
    let stops = 0;
    const provider: ServerProvider = {
      lifecycle: "per-cell",
      async start(context) {
        starts++;
        const session = await inner.start(context);
        return { ...session, stop: async () => void stops++ };
      },
    };
    const sessions = new SessionCache();
    const out = dir;
    const runOne = (run: number, cache?: SessionCache) =>
      runCells({
        outbound: noSecrets,
        config,
        provider,
        outDir: out,
        baseDir: out,
        runs: 1,
        firstRun: run,
        ...(cache ? { sessions: cache } : {}),
      });
    for (const run of [0, 1, 2]) await runOne(run, sessions);
    expect([starts, stops]).toEqual([1, 0]);
    await sessions.close();
    expect(stops).toBe(1);
    for (const run of [3, 4]) await runOne(run);
    expect([starts, stops]).toEqual([3, 3]);
  });

  it("rejects an unknown cell name", async () => {
    const config = testConfig([
      {
        name: "a",
        dataset: { type: "synthetic", input_tokens: 4, output_tokens: 4 },
        load: { type: "concurrency", concurrency: 1 },
        size: { requests: 1 },
      },
    ]);
    await expect(
      runCells({
        outbound: noSecrets,
        config,
        provider: baseUrlProvider({ baseUrl: "http://127.0.0.1:1", model: config.model }),
        outDir: "/nonexistent",
        baseDir: "/",
        cells: ["b"],
      }),
    ).rejects.toThrow(/no cell named "b"; the config has: a/);
  });
});

describe("runCells' recorder seam", () => {
  it("hands each finished run to the injected recorder and restarts a per-cell server only from the run's own facts", async () => {
    server = await startFakeServer();
    dir = mkdtempSync(join(tmpdir(), "vpg-recorder-"));
    const config = testConfig([tinyCell("a")]);
    const seen: string[] = [];
    // Not run.json: the runner neither summarises nor reads what its recorder makes of a run.
    const result = await runCellsWith({
      outbound: noSecrets,
      config,
      provider: baseUrlProvider({ baseUrl: server.baseUrl, model: config.model }),
      outDir: dir,
      baseDir: dir,
      runs: 2,
      calibrate: false,
      recorder: {
        record: (measurement, outcome) => {
          seen.push(`${outcome.context.cell.name}/${outcome.runIndex}`);
          return { requests: measurement.records.length, crashed: outcome.crashReason !== null };
        },
        markInterrupted: (_dir, recorded) => recorded,
        describe: (recorded) => `recorded ${recorded.requests} request(s)`,
      },
    });
    expect(seen).toEqual(["a/0", "a/1"]);
    expect(result.runs.map((run) => run.file)).toEqual([
      { requests: 2, crashed: false },
      { requests: 2, crashed: false },
    ]);
    // The runner still wrote the raw records; run.json is the standard recorder's (src/app/run-cells.ts).
    expect(readRequestRecords(dir, "a")).toHaveLength(2);
    expect(() => readFileSync(join(dir!, "a", "run-0", "run.json"))).toThrow(/ENOENT/);
  });
});
