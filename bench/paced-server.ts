/**
 * The reference server of peer-tools.md §7, where vLLM's client was measured: a plain Node SSE server in
 * vLLM's completions chunk shapes that writes a request's first chunk as soon as the request is read and
 * then one chunk every `itlMs`, one timeline per stream, with no batching and no engine. It keeps the
 * truth (when each chunk was really written) like the simulator, so a client's timing error can be
 * measured against it and its throughput compared with vLLM's figure on the same footing.
 */
import { createServer, type ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { writeEventChunk } from "../src/sim/event-stream.js";

interface PacedStream {
  res: ServerResponse;
  clientRequestId: string;
  head: string;
  /** Due time of the next chunk, ms (performance.now() scale). */
  due: number;
  sent: number;
  total: number;
  promptTokens: number;
}

export interface PacedServer {
  baseUrl: string;
  /** [clientRequestId, epoch ms written, tokens] for every content chunk. */
  truth(): [string, number, number][];
  /** How late each chunk was written against its due time, ms. */
  lateness(): number[];
  close(): Promise<void>;
}

const spinWindowMs = 1.2;

export async function startPacedServer(itlMs: number): Promise<PacedServer> {
  const truth: [string, number, number][] = [];
  const lateness: number[] = [];
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let nextId = 0;

  const chunk = (stream: PacedStream, finish: boolean) =>
    `${stream.head}{"index":0,"text":" baba","logprobs":null,"finish_reason":${finish ? '"length"' : "null"},"stop_reason":null}]}\n\n`;

  // A min-heap by due time: each wake-up writes only what is due, whatever the number of streams.
  const heap: PacedStream[] = [];
  const swap = (a: number, b: number) => {
    const t = heap[a]!;
    heap[a] = heap[b]!;
    heap[b] = t;
  };
  const push = (stream: PacedStream) => {
    heap.push(stream);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.due <= heap[i]!.due) break;
      swap(parent, i);
      i = parent;
    }
  };
  const pop = (): PacedStream => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < heap.length && heap[left]!.due < heap[least]!.due) least = left;
        if (right < heap.length && heap[right]!.due < heap[least]!.due) least = right;
        if (least === i) break;
        swap(least, i);
        i = least;
      }
    }
    return top;
  };

  const writeDue = () => {
    timer = undefined;
    immediate = undefined;
    while (heap.length > 0 && heap[0]!.due <= performance.now()) {
      const stream = pop();
      const now = performance.now();
      stream.sent++;
      lateness.push(now - stream.due);
      truth.push([stream.clientRequestId, performance.timeOrigin + now, 1]);
      if (stream.sent === stream.total) {
        const usage = `${stream.head}],"usage":{"prompt_tokens":${stream.promptTokens},"total_tokens":${stream.promptTokens + stream.total},"completion_tokens":${stream.total}}}\n\n`;
        stream.res.end(`${chunk(stream, true)}${usage}data: [DONE]\n\n`);
        continue;
      }
      writeEventChunk(stream.res, chunk(stream, false));
      stream.due += itlMs;
      push(stream);
    }
    if (heap.length > 0) schedule(heap[0]!.due);
  };

  const schedule = (at: number) => {
    if (timer || immediate) return;
    const wait = at - performance.now();
    if (wait > spinWindowMs) timer = setTimeout(writeDue, Math.floor(wait - spinWindowMs));
    else immediate = setImmediate(writeDue);
  };

  const server = createServer({ noDelay: true, keepAlive: true }, (request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      if (request.method === "GET") {
        const known = request.url === "/v1/models";
        response.writeHead(known ? 200 : 404, { "content-type": "application/json" });
        response.end(known ? '{"object":"list","data":[{"id":"sim-model","max_model_len":4096}]}' : "");
        return;
      }
      if (request.url !== "/v1/completions") {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as {
        max_tokens: number;
        prompt: string;
      };
      response.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
      });
      response.flushHeaders();
      const id = `cmpl-${(nextId++).toString(16).padStart(16, "0")}`;
      const stream: PacedStream = {
        res: response,
        clientRequestId: String(request.headers["x-request-id"] ?? ""),
        head: `data: {"id":"${id}","object":"text_completion","created":1764475200,"model":"sim-model","choices":[`,
        due: performance.now(),
        sent: 0,
        total: Math.max(1, body.max_tokens),
        promptTokens: body.prompt.split(/\s+/).filter(Boolean).length,
      };
      push(stream);
      if (immediate) return;
      if (timer) clearTimeout(timer);
      timer = undefined;
      immediate = setImmediate(writeDue);
    });
  });
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    truth: () => truth,
    lateness: () => lateness,
    close: () =>
      new Promise<void>((resolve) => {
        if (timer) clearTimeout(timer);
        if (immediate) clearImmediate(immediate);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
