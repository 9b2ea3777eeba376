/**
 * The simulator in a process of its own, as `server.kind: sim` runs it: the client's CPU time, event loop
 * and heap are then its own. Started by startSimProcess(); speaks over IPC: {baseUrl} once listening, then
 * answers "truth" with the chunk records (content chunks: [clientRequestId, timeMs, tokens]), "loop" with
 * the step loop's lateness and delivery times since the last "reset-loop", and "close" by exiting.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface LoopFigures {
  lateness: number[];
  delivery: number[];
  /** Per step: how long the loop's thread waited on the run queue for a CPU, ms (Linux; else empty). */
  runQueueWait: number[];
  /** The simulator process's CPU time so far, ms. */
  cpuMs: number;
}

export interface SimProcess {
  baseUrl: string;
  truth(): Promise<[string, number, number][]>;
  /** Starts the loop figures afresh (e.g. once every stream is under way). */
  resetLoop(): void;
  loop(): Promise<LoopFigures>;
  close(): Promise<void>;
}

/**
 * mode "sim": the simulator; "burst": every response's 256 chunks in one write (a parsing-bound load);
 * "paced": the plain paced SSE server of bench/paced-server.ts (set.itl_ms), vLLM's client's reference.
 */
export async function startSimProcess(
  set: Record<string, number | string | boolean>,
  recordChunkTimes = false,
  mode: "sim" | "burst" | "paced" = "sim",
  profile = "noiseless",
): Promise<SimProcess> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      fileURLToPath(import.meta.url),
      JSON.stringify({ set, recordChunkTimes, mode, profile }),
    ],
    {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.once("message", (message: { baseUrl: string }) => resolve(message.baseUrl));
    child.once("exit", (code) => reject(new Error(`simulator process exited (${code})`)));
  });
  return {
    baseUrl,
    truth: () =>
      new Promise((resolve) => {
        child.once("message", (message: [string, number, number][]) => resolve(message));
        child.send("truth");
      }),
    resetLoop: () => child.send("reset-loop"),
    loop: () =>
      new Promise((resolve) => {
        child.once("message", (message: LoopFigures) => resolve(message));
        child.send("loop");
      }),
    close: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.send("close");
      }),
  };
}

/**
 * Simulator settings for the client benchmarks: every step takes exactly `stepMs` (0 = as fast as it
 * can), outputs run to max_tokens, and up to 1,024 streams decode together with room for all of them.
 */
export function flatSteps(stepMs: number): Record<string, number> {
  return {
    step_overhead_ms: stepMs,
    prefill_per_token_ms: 0,
    decode_per_seq_ms: 0,
    attention_per_context_token_ms: 0,
    eos_mean_tokens: 0,
    max_num_seqs: 1024,
    max_num_batched_tokens: 262144,
    num_gpu_blocks: 65536,
  };
}

/** A completions stream in vLLM's chunk shapes (shared/reference/vllm-protocol-and-metrics.md §2.1). */
export function burstBody(tokens: number, promptTokens = 64): Buffer {
  let text = "";
  for (let index = 0; index < tokens; index++) {
    const finish = index === tokens - 1 ? '"length"' : "null";
    text += `data: {"id":"cmpl-8f3a9c2e1b7d4e6f","object":"text_completion","created":1764475200,"model":"sim-model","choices":[{"index":0,"text":" baba","logprobs":null,"finish_reason":${finish},"stop_reason":null}]}\n\n`;
  }
  text += `data: {"id":"cmpl-8f3a9c2e1b7d4e6f","object":"text_completion","created":1764475200,"model":"sim-model","choices":[],"usage":{"prompt_tokens":${promptTokens},"total_tokens":${promptTokens + tokens},"completion_tokens":${tokens}}}\n\n`;
  return Buffer.from(`${text}data: [DONE]\n\n`);
}

async function startBurstServer(): Promise<void> {
  const { createServer } = await import("node:http");
  const bodies = new Map<number, Buffer>();
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      if (request.method === "GET") {
        response.writeHead(request.url === "/v1/models" ? 200 : 404, { "content-type": "application/json" });
        response.end(request.url === "/v1/models" ? '{"object":"list","data":[{"id":"sim-model"}]}' : "");
        return;
      }
      if (request.url !== "/v1/completions") {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as { max_tokens: number };
      let bytes = bodies.get(body.max_tokens);
      if (!bytes) {
        bytes = burstBody(body.max_tokens);
        bodies.set(body.max_tokens, bytes);
      }
      response.writeHead(200, { "content-type": "text/event-stream", "content-length": bytes.length });
      response.end(bytes);
    });
  });
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  process.on("message", (message) => {
    if (message === "truth") process.send!([]);
    else if (message === "close") server.close(() => process.exit(0));
  });
  process.send!({ baseUrl: `http://127.0.0.1:${address.port}` });
}

async function runPacedServer(itlMs: number): Promise<void> {
  const { startPacedServer } = await import("./paced-server.js");
  const server = await startPacedServer(itlMs);
  process.on("message", (message) => {
    if (message === "truth") process.send!(server.truth());
    else if (message === "loop") {
      const cpu = process.cpuUsage();
      process.send!({
        lateness: server.lateness(),
        delivery: [],
        runQueueWait: [],
        cpuMs: (cpu.user + cpu.system) / 1000,
      });
    } else if (message === "close") void server.close().then(() => process.exit(0));
  });
  process.send!({ baseUrl: server.baseUrl });
}

/**
 * How long the calling thread has waited on a run queue for a CPU, ms (Linux schedstat: "<ns on CPU> <ns
 * waiting on a run queue> <timeslices>"); undefined elsewhere. A shared machine's load shows here.
 */
const schedstat = "/proc/thread-self/schedstat";
export const runQueueWaitMs = existsSync(schedstat)
  ? () => Number(readFileSync(schedstat, "utf8").split(" ")[1]) / 1e6
  : undefined;

const childArgs = process.send && process.argv[2] ? JSON.parse(process.argv[2]) : undefined;
if (childArgs?.mode === "burst") {
  await startBurstServer();
} else if (childArgs?.mode === "paced") {
  await runPacedServer(Number(childArgs.set.itl_ms));
} else if (process.send && process.argv[2]) {
  const { set, recordChunkTimes, profile } = JSON.parse(process.argv[2]) as {
    set: Record<string, number>;
    recordChunkTimes: boolean;
    profile: string;
  };
  const { startSimulator } = await import("../src/sim/index.js");
  const sim = await startSimulator({
    profile,
    ...(runQueueWaitMs ? { loopProbe: runQueueWaitMs } : {}),
    set,
    devMode: true,
    recordChunkTimes,
    model: "sim-model",
  });
  process.on("message", (message) => {
    if (message === "truth") {
      const records = sim
        .chunkRecords()
        .filter((record) => record.kind === "content")
        .map((record) => [record.clientRequestId ?? "", record.timeMs, record.tokens]);
      process.send!(records);
    } else if (message === "reset-loop") {
      sim.resetLoopLateness();
    } else if (message === "loop") {
      const { lateness, delivery, probe } = sim.loopLateness();
      const cpu = process.cpuUsage();
      process.send!({
        lateness: Array.from(lateness),
        delivery: Array.from(delivery),
        runQueueWait: Array.from(probe),
        cpuMs: (cpu.user + cpu.system) / 1000,
      });
    } else if (message === "close") {
      void sim.close().then(() => process.exit(0));
    }
  });
  process.send({ baseUrl: sim.baseUrl });
}
