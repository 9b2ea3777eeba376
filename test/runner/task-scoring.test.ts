import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createStreamClient, type StreamClient } from "../../src/client/stream-client.js";
import { toRecord } from "../../src/runner/request-record.js";
import { type FakeServer, startFakeServer } from "./helpers/fake-openai-server.js";

/**
 * A task's answer is scored when its request finishes (src/runner/request-record.ts): a scorer that
 * cannot run marks the answer wrong and records why, and the request (and the run) goes on. The load-time
 * check of a tasks_jsonl file refuses such a scorer before anything is measured
 * (test/workload/tasks-jsonl.test.ts); this is the guard behind it, for a task that reaches the runner.
 * The answer streams over loopback in vLLM's completions chunk shape (vllm-protocol-and-metrics.md §2.1).
 */
let server: FakeServer | undefined;
let client: StreamClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
});

async function answer(textOut: string) {
  server = await startFakeServer({
    behaviour: () => ({
      kind: "raw",
      respond: (response: ServerResponse) => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write(
          `data: ${JSON.stringify({ id: "cmpl-1", object: "text_completion", created: 1, model: "m", choices: [{ index: 0, text: textOut, logprobs: null, finish_reason: "stop", stop_reason: null }] })}\n\n`,
        );
        response.end("data: [DONE]\n\n");
      },
    }),
  });
  client = createStreamClient({ baseUrl: server.baseUrl, connections: 1 });
  return client.stream({
    path: "/v1/completions",
    body: Buffer.from(JSON.stringify({ model: "m", prompt: "q", max_tokens: 8, stream: true })),
    timeoutMs: 5000,
    requestId: "r-7",
    keepOutput: true,
  });
}

const record = (
  outcome: Awaited<ReturnType<typeof answer>>,
  scorer: Parameters<typeof toRecord>[3]["task"],
) =>
  toRecord(
    "measure",
    { index: 7, stage: 0, scheduledAt: outcome.sentAt, readyAt: outcome.sentAt, slotAt: outcome.sentAt },
    outcome,
    { targetInputTokens: 1, maxTokens: 8, prefixGroup: null, ...(scorer ? { task: scorer } : {}) },
    outcome.sentAt,
    "tasks",
    0,
  );

describe("scoring a task's answer in the runner", () => {
  it("scores a kept answer against its reference", async () => {
    const outcome = await answer(" 444");
    expect(outcome.ok).toBe(true);
    const scored = record(outcome, { reference: "444", scorer: { kind: "numeric", tolerance: 0 } });
    expect(scored.task).toEqual({ reference: "444", correct: true });
  });

  it("a scorer that throws marks the answer wrong and says why; the request is kept", async () => {
    const outcome = await answer(" anything");
    const scored = record(outcome, { reference: "x", scorer: { kind: "regex", pattern: "([" } });
    expect(scored.ok).toBe(true);
    expect(scored.task!.correct).toBe(false);
    expect(scored.task!.error).toMatch(/regex scorer: "\(\[" is not a regular expression/);
  });
});
