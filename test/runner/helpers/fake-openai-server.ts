import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback server speaking vLLM's streaming protocol (chunk shapes from
 * shared/reference/vllm-protocol-and-metrics.md §2.1-2.2: completions chunks, usage chunk, `data: [DONE]`,
 * mid-stream `data: {"error":...}` over HTTP 200), with per-request behaviours for failure tests.
 */
export type Behaviour =
  | { kind: "ok"; tokens: number; ttftMs?: number; itlMs?: number; usage?: boolean; chat?: boolean }
  | { kind: "http"; status: number }
  | { kind: "mid-error"; after: number }
  | { kind: "reset"; after: number }
  | { kind: "hang" }
  | { kind: "no-done"; tokens: number }
  /** Full control of the response, for hostile-server tests. */
  | {
      kind: "raw";
      respond: (response: ServerResponse, body: Record<string, unknown>) => void | Promise<void>;
    };

export interface FakeServer {
  baseUrl: string;
  requests: { path: string; body: Record<string, unknown>; headers: IncomingMessage["headers"] }[];
  resets: number;
  maxOpen: number;
  close(): Promise<void>;
}

function chunk(text: string, finish: string | null, chat: boolean): string {
  const choice = chat
    ? { index: 0, delta: { content: text }, logprobs: null, finish_reason: finish }
    : { index: 0, text, logprobs: null, finish_reason: finish, stop_reason: null };
  return `data: ${JSON.stringify({ id: "cmpl-1", object: chat ? "chat.completion.chunk" : "text_completion", created: 1, model: "m", choices: [choice] })}\n\n`;
}

export async function startFakeServer(
  options: {
    behaviour?: (body: Record<string, unknown>, index: number) => Behaviour;
    resetStatus?: number;
    metrics?: () => string;
    /** Answers any other path first (e.g. a /health that never answers); return false to fall through. */
    route?: (url: string, request: IncomingMessage, response: ServerResponse) => boolean;
    /** The /tokenize count for a prompt of `words` words (default words + 1). */
    tokenize?: (words: number) => number;
  } = {},
): Promise<FakeServer> {
  const requests: FakeServer["requests"] = [];
  let count = 0;
  let open = 0;
  const state = { resets: 0, maxOpen: 0 };
  const behaviour =
    options.behaviour ??
    ((body: Record<string, unknown>) =>
      ({ kind: "ok", tokens: Number(body.max_tokens ?? 4), itlMs: 0 }) as Behaviour);

  const stream = async (
    request: IncomingMessage,
    response: ServerResponse,
    body: Record<string, unknown>,
  ) => {
    const chat = request.url === "/v1/chat/completions";
    const plan = behaviour(body, count++);
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    if (plan.kind === "raw") {
      await plan.respond(response, body);
      return;
    }
    if (plan.kind === "http") {
      response.writeHead(plan.status, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: { message: "injected failure", type: "InternalServerError", param: null, code: plan.status },
        }),
      );
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream" });
    if (plan.kind === "hang") return;
    const prompt = String(body.prompt ?? JSON.stringify(body.messages ?? ""));
    const promptTokens = prompt.split(/\s+/).filter(Boolean).length;
    if (plan.kind === "ok") {
      if (plan.ttftMs) await sleep(plan.ttftMs);
      if (chat)
        response.write(
          `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }] })}\n\n`,
        );
      for (let index = 0; index < plan.tokens; index++) {
        if (index > 0 && plan.itlMs) await sleep(plan.itlMs);
        response.write(chunk(` w${index}`, index === plan.tokens - 1 ? "length" : null, chat));
      }
      if (plan.usage !== false) {
        response.write(
          `data: ${JSON.stringify({ id: "cmpl-1", object: "text_completion", created: 1, model: "m", choices: [], usage: { prompt_tokens: promptTokens, total_tokens: promptTokens + plan.tokens, completion_tokens: plan.tokens } })}\n\n`,
        );
      }
      response.end("data: [DONE]\n\n");
      return;
    }
    if (plan.kind === "no-done") {
      for (let index = 0; index < plan.tokens; index++) response.write(chunk(` w${index}`, null, chat));
      response.end();
      return;
    }
    for (let index = 0; index < plan.after; index++) response.write(chunk(` w${index}`, null, chat));
    await sleep(5);
    if (plan.kind === "mid-error") {
      response.write(
        `data: ${JSON.stringify({ error: { object: "error", message: "engine died", type: "InternalServerError", param: null, code: 500 } })}\n\n`,
      );
      response.end("data: [DONE]\n\n");
    } else {
      request.socket.destroy();
    }
  };

  const server = createServer((request, response) => {
    open++;
    state.maxOpen = Math.max(state.maxOpen, open);
    response.on("close", () => {
      open--;
    });
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      const text = Buffer.concat(parts).toString("utf8");
      let body: Record<string, unknown> = {};
      try {
        body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        // not JSON: routes that read no body
      }
      requests.push({ path: request.url ?? "", body, headers: request.headers });
      const url = request.url ?? "";
      if (options.route?.(url, request, response) === true) return;
      if (url === "/v1/completions" || url === "/v1/chat/completions") {
        void stream(request, response, body);
      } else if (url === "/reset_prefix_cache") {
        state.resets++;
        response.writeHead(options.resetStatus ?? 200).end();
      } else if (url === "/tokenize") {
        const prompt = String(body.prompt ?? "");
        response.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            count: (options.tokenize ?? ((words: number) => words + 1))(
              prompt.split(/\s+/).filter(Boolean).length,
            ),
            max_model_len: 4096,
            tokens: [],
          }),
        );
      } else if (url === "/metrics") {
        response.writeHead(200, { "content-type": "text/plain" }).end(options.metrics?.() ?? "");
      } else if (url === "/version") {
        response
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ version: "0.0.0-fake" }));
      } else if (url === "/v1/models") {
        response.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            object: "list",
            data: [{ id: "m", object: "model", root: "m", max_model_len: 4096 }],
          }),
        );
      } else response.writeHead(404).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    get resets() {
      return state.resets;
    },
    get maxOpen() {
      return state.maxOpen;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
