/**
 * `npm run bench:client`: how fast the load client is, so it is never the hidden bottleneck.
 *  1. Burst parsing on one core: a 256-token response (vLLM chunk shapes) fed as one network read,
 *     our byte scanner side by side with a split-and-JSON.parse-every-event parser (vLLM client's approach).
 *  2. End to end over loopback HTTP, every response written in one piece (parsing-bound), concurrency 64.
 *  3. The simulator with zero latency (its own process) at 64 / 256 / 1,024 concurrency: the chunk rate
 *     sustained and the client's CPU time per 1,000 chunks.
 *  4. Sessions: 1,024 agent sessions in flight against the simulator (10 ms steps; a reasoning model that
 *     answers a share of the turns with a tool call), each turn carrying the conversation so far, think
 *     time between turns: the client must stay off the critical path (schedule lag p99, event-loop delay,
 *     the client-bound flag).
 * Flags: --quick (smaller runs), --only parse|burst|sim|sessions.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { jobOutbound } from "../src/app/job-outbound.js";
import { runCells } from "../src/app/run-cells.js";
import { CompletionStreamReader } from "../src/client/sse-stream.js";
import { configSchema } from "../src/config/schema.js";
import { baseUrlProvider } from "../src/server/base-url.js";
import { percentile } from "../src/stats/percentile.js";
import { burstBody, flatSteps, runQueueWaitMs, startSimProcess } from "./sim-child.js";

/** The runs write through a job's output seam; a bench plants no secret. */
const noSecrets = jobOutbound({ env: {} });

const quick = process.argv.includes("--quick");
const onlyIndex = process.argv.indexOf("--only");
const only = onlyIndex > 0 ? process.argv[onlyIndex + 1] : undefined;
const outputTokens = 256;

function naiveParse(chunk: Buffer): number {
  // What a straightforward client does per read: decode, split on blank lines, JSON.parse every event.
  let tokens = 0;
  for (const event of chunk.toString("utf8").split("\n\n")) {
    if (!event.startsWith("data: ")) continue;
    const data = event.slice(6);
    if (data === "[DONE]") continue;
    const parsed = JSON.parse(data) as { choices: { text: string }[] };
    if (parsed.choices.length > 0) tokens++;
  }
  return tokens;
}

function ours(chunk: Buffer): number {
  const reader = new CompletionStreamReader();
  reader.feed(chunk, performance.now());
  reader.finishReason();
  return reader.chunkCount;
}

function tokensPerSecond(parse: (chunk: Buffer) => number, body: Buffer, seconds: number): number {
  let tokens = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) for (let index = 0; index < 50; index++) tokens += parse(body);
  return tokens / ((performance.now() - start) / 1000);
}

const median = (values: number[]) => percentile(values, 0.5);

function parseBench(): void {
  const body = burstBody(outputTokens);
  tokensPerSecond(ours, body, 0.3);
  tokensPerSecond(naiveParse, body, 0.3);
  const oursRates: number[] = [];
  const naiveRates: number[] = [];
  for (let round = 0; round < 5; round++) {
    oursRates.push(tokensPerSecond(ours, body, quick ? 0.2 : 0.5));
    naiveRates.push(tokensPerSecond(naiveParse, body, quick ? 0.2 : 0.5));
  }
  const a = median(oursRates);
  const b = median(naiveRates);
  console.log(
    `parse (one core, ${outputTokens}-chunk response in one read): ours ${(a / 1000).toFixed(0)}k tok/s, ` +
      `split+JSON.parse ${(b / 1000).toFixed(0)}k tok/s, ratio ${(a / b).toFixed(2)}x (medians of 5)`,
  );
}

async function clientRun(baseUrl: string, concurrency: number, requests: number) {
  const dir = mkdtempSync(join(tmpdir(), "vpg-bench-"));
  try {
    const config = configSchema.parse({
      version: 1,
      server: { kind: "external", base_url: baseUrl },
      model: { name: "sim-model" },
      cells: [
        {
          name: "bench",
          dataset: { type: "synthetic", input_tokens: 64, output_tokens: outputTokens },
          load: { type: "concurrency", concurrency },
          size: { requests },
          warmup: { requests: concurrency },
          timeout_s: 120,
        },
      ],
      telemetry: { metrics_interval_s: 5 },
    });
    let cpuBefore = process.cpuUsage();
    let cpu = { user: 0, system: 0 };
    let wallBefore = performance.now();
    let wallS = 0;
    const result = await runCells({
      outbound: noSecrets,
      onMeasuredPhase(edge) {
        if (edge === "start") {
          cpuBefore = process.cpuUsage();
          wallBefore = performance.now();
        } else {
          cpu = process.cpuUsage(cpuBefore);
          wallS = (performance.now() - wallBefore) / 1000;
        }
      },
      config,
      provider: baseUrlProvider({ baseUrl, model: config.model }),
      outDir: dir,
      baseDir: dir,
      runs: 1,
      calibrate: false,
    });
    const file = result.runs[0]!.file;
    const chunks = file.latency.itl.count + file.requests.completed;
    const cpuMs = (cpu.user + cpu.system) / 1000;
    return {
      chunkRate: chunks / file.durationS,
      // The client's whole process during the measured phase: parsing, records, the requests.jsonl writes.
      cpuMsPer1000: (cpuMs / chunks) * 1000,
      tokensPerCpuSecond: file.tokens.output / (cpuMs / 1000),
      cpuShare: cpuMs / 1000 / wallS,
      failed: file.requests.failed,
      peak: file.load.peakConcurrency,
      clientBound: file.flags.clientBound ? file.flags.clientBoundReason : "no",
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function burstBench(): Promise<void> {
  const server = await startSimProcess({}, false, "burst");
  try {
    const rates: number[] = [];
    const capacities: number[] = [];
    let last: Awaited<ReturnType<typeof clientRun>> | undefined;
    await clientRun(server.baseUrl, 64, 500);
    for (let round = 0; round < 3; round++) {
      last = await clientRun(server.baseUrl, 64, quick ? 500 : 2000);
      rates.push(last.chunkRate);
      capacities.push(last.tokensPerCpuSecond);
    }
    console.log(
      `burst end to end (HTTP, 64 streams, each response in one write): ${(median(capacities) / 1000).toFixed(0)}k tok per client CPU-second ` +
        `(median of 3 after a warm-up round; the one-core ceiling), achieved ${(median(rates) / 1000).toFixed(0)}k tok/s with the client at ` +
        `${(last!.cpuShare * 100).toFixed(0)}% of one core (the rest is the server's), failed ${last!.failed}`,
    );
  } finally {
    await server.close();
  }
}

async function simBench(): Promise<void> {
  const sim = await startSimProcess(flatSteps(0));
  try {
    for (const concurrency of [64, 256, 1024]) {
      const requests = quick ? concurrency * 2 : Math.max(1000, concurrency * 3);
      const run = await clientRun(sim.baseUrl, concurrency, requests);
      console.log(
        `simulator, zero latency, concurrency ${concurrency} (${requests} x ${outputTokens} tokens): ` +
          `${(run.chunkRate / 1000).toFixed(1)}k chunks/s, client CPU ${run.cpuMsPer1000.toFixed(1)} ms/1,000 chunks ` +
          `(${(run.cpuShare * 100).toFixed(0)}% of one core), peak concurrency ${run.peak}, failed ${run.failed}, client-bound: ${run.clientBound}`,
      );
    }
  } finally {
    await sim.close();
  }
}

/** One run of `sessions` sessions, `inFlight` at a time, against the server at `baseUrl`. */
async function sessionRun(baseUrl: string, inFlight: number, sessions: number) {
  const dir = mkdtempSync(join(tmpdir(), "vpg-bench-"));
  try {
    const config = configSchema.parse({
      version: 1,
      server: { kind: "external", base_url: baseUrl },
      model: { name: "sim-model" },
      cells: [
        {
          name: "sessions",
          endpoint: "chat",
          dataset: {
            type: "sessions",
            turns: 4,
            system_prompt_tokens: 512,
            shared_system_prompt: 1,
            message_tokens: 64,
            output_tokens: 32,
            think_time_s: { distribution: "exponential", mean: 1, max: 5 },
            tools: { names: ["read_file", "run_tests"], latency_s: 0.1, result_tokens: 64 },
          },
          load: { type: "concurrency", concurrency: inFlight },
          size: { requests: sessions },
          warmup: { requests: 0 },
          timeout_s: 120,
        },
      ],
      telemetry: { metrics_interval_s: 5 },
    });
    let cpuBefore = process.cpuUsage();
    let cpu = { user: 0, system: 0 };
    let wallBefore = performance.now();
    let wallS = 0;
    let waitBefore = 0;
    let waitMs: number | null = null;
    const result = await runCells({
      outbound: noSecrets,
      onMeasuredPhase(edge) {
        if (edge === "start") {
          cpuBefore = process.cpuUsage();
          wallBefore = performance.now();
          waitBefore = runQueueWaitMs?.() ?? 0;
        } else {
          cpu = process.cpuUsage(cpuBefore);
          wallS = (performance.now() - wallBefore) / 1000;
          if (runQueueWaitMs) waitMs = runQueueWaitMs() - waitBefore;
        }
      },
      config,
      provider: baseUrlProvider({ baseUrl, model: config.model }),
      outDir: dir,
      baseDir: dir,
      runs: 1,
      calibrate: false,
    });
    const file = result.runs[0]!.file;
    return {
      // The client's main thread waiting for a CPU (another process on it), as a share of the phase.
      runQueueShare: waitMs === null ? null : waitMs / 1000 / wallS,
      requests: file.requests.total,
      failed: file.requests.failed,
      sessions: file.sessions!,
      toolCalls: file.answer?.toolCalls ?? 0,
      peak: file.load.peakConcurrency,
      lagP50: file.load.scheduleLagP50Ms,
      lagP99: file.load.scheduleLagP99Ms,
      loopP99: file.load.eventLoopLagP99Ms,
      cpuShare: (cpu.user + cpu.system) / 1000 / 1000 / wallS,
      cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / file.requests.total,
      durationS: file.durationS,
      clientBound: file.flags.clientBound ? file.flags.clientBoundReason : "no",
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function sessionsBench(): Promise<void> {
  const inFlight = 1024;
  const sessions = quick ? inFlight : 3 * inFlight;
  const sim = await startSimProcess({
    ...flatSteps(10),
    reasoning_tokens_mean: 8,
    tool_call_share: 0.25,
    enable_prompt_tokens_details: true,
  });
  try {
    const rounds = quick ? 1 : 3;
    const runs: Awaited<ReturnType<typeof sessionRun>>[] = [];
    for (let round = 0; round < rounds; round++) {
      const run = await sessionRun(sim.baseUrl, inFlight, sessions);
      runs.push(run);
      console.log(
        `sessions, ${inFlight} in flight (${sessions} sessions of 4 turns, think time exp. mean 1 s, 10 ms steps): ` +
          `${run.requests} requests (${run.toolCalls} tool calls) in ${run.durationS.toFixed(1)} s, failed ${run.failed}, ` +
          `completed sessions ${run.sessions.completed}, peak on sockets ${run.peak}; schedule lag p50 ${run.lagP50?.toFixed(2)} ms ` +
          `p99 ${run.lagP99?.toFixed(2)} ms, event-loop delay p99 ${run.loopP99?.toFixed(1)} ms, client ` +
          `${(run.cpuShare * 100).toFixed(0)}% of one core (${run.cpuMsPerRequest.toFixed(2)} ms per request), waiting for a CPU ${run.runQueueShare === null ? "?" : `${(run.runQueueShare * 100).toFixed(0)}%`} of the time, client-bound: ${run.clientBound}`,
      );
    }
    if (rounds > 1) {
      const of = (pick: (run: (typeof runs)[number]) => number | null) =>
        median(runs.map((run) => pick(run) ?? Number.NaN));
      console.log(
        `sessions, medians of ${rounds}: schedule lag p50 ${of((run) => run.lagP50).toFixed(2)} ms, p99 ${of((run) => run.lagP99).toFixed(2)} ms, ` +
          `event-loop delay p99 ${of((run) => run.loopP99).toFixed(1)} ms, client ${(of((run) => run.cpuShare) * 100).toFixed(0)}% of one core ` +
          `(${of((run) => run.cpuMsPerRequest).toFixed(2)} ms per request), waiting for a CPU ${(of((run) => run.runQueueShare) * 100).toFixed(0)}% of the time, ` +
          `session duration p50 ${of((run) => run.sessions.duration.p50).toFixed(0)} ms; client-bound in ${runs.filter((run) => run.clientBound !== "no").length} of ${rounds}`,
      );
    }
  } finally {
    await sim.close();
  }
}

if (!only || only === "parse") parseBench();
if (!only || only === "burst") await burstBench();
if (!only || only === "sim") await simBench();
if (!only || only === "sessions") await sessionsBench();
