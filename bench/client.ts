/**
 * `npm run bench:client`: how fast the load client is, so it is never the hidden bottleneck.
 *  1. Burst parsing on one core: a 256-token response (vLLM chunk shapes) fed as one network read,
 *     our byte scanner side by side with a split-and-JSON.parse-every-event parser (vLLM client's approach).
 *  2. End to end over loopback HTTP, every response written in one piece (parsing-bound), concurrency 64.
 *  3. The simulator with zero latency (its own process) at 64 / 256 / 1,024 concurrency: the chunk rate
 *     sustained and the client's CPU time per 1,000 chunks.
 * Flags: --quick (smaller runs), --only parse|burst|sim.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runCells } from "../src/app/run-cells.js";
import { CompletionStreamReader } from "../src/client/sse-stream.js";
import { configSchema } from "../src/config/schema.js";
import { baseUrlProvider } from "../src/server/base-url.js";
import { percentile } from "../src/stats/percentile.js";
import { burstBody, flatSteps, startSimProcess } from "./sim-child.js";

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

if (!only || only === "parse") parseBench();
if (!only || only === "burst") await burstBench();
if (!only || only === "sim") await simBench();
