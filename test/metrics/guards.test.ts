import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createStreamClient, type StreamClient } from "../../src/client/stream-client.js";
import { computeGuards } from "../../src/metrics/guards.js";
import { toRecord } from "../../src/runner/request-record.js";
import type { RequestRecord } from "../../src/runner/request-schema.js";
import { type FakeServer, startFakeServer } from "../runner/helpers/fake-openai-server.js";

/**
 * The guard counts from crafted streams: each stream goes through the real client (src/client) and the
 * request record (src/runner/request-record.ts), and computeGuards counts what arrived. Chunk shapes are
 * vLLM's completions stream (shared/reference/vllm-protocol-and-metrics.md §2.1-2.2, as the loopback fake
 * server sends them): text chunks, a final usage chunk with `choices: []`, `data: [DONE]`.
 */

let server: FakeServer | undefined;
let client: StreamClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

const sse = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;
const text = (t: string, finish: string | null = null) =>
  sse({
    id: "cmpl-1",
    object: "text_completion",
    created: 1,
    model: "m",
    choices: [{ index: 0, text: t, logprobs: null, finish_reason: finish, stop_reason: null }],
  });
const usage = (completion: number) =>
  sse({
    id: "cmpl-1",
    object: "text_completion",
    created: 1,
    model: "m",
    choices: [],
    usage: { prompt_tokens: 3, completion_tokens: completion, total_tokens: 3 + completion },
  });

/** Stream i of the run, as the server sends it. */
const streams: string[][] = [
  // Stops on EOS after 3 tokens.
  [text(" a"), text(" b"), text(" c", "stop"), usage(3)],
  // Runs to max_tokens (5).
  [text(" a"), text(" b"), text(" c"), text(" d"), text(" e", "length"), usage(5)],
  // Aborted by the server after 2 tokens.
  [text(" a"), text(" b", "abort"), usage(2)],
  // No choices chunk at all: only usage, 0 tokens.
  [usage(0)],
  // Usage that disagrees with the chunks received: 99 tokens over 2 chunks.
  [text(" a"), text(" b", "stop"), usage(99)],
];

const maxTokens = 5;

async function measure(): Promise<RequestRecord[]> {
  server = await startFakeServer({
    behaviour: (_body, index) => ({
      kind: "raw",
      respond: (response: ServerResponse) => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        for (const event of streams[index]!) response.write(event);
        response.end("data: [DONE]\n\n");
      },
    }),
  });
  client = createStreamClient({ baseUrl: server.baseUrl, connections: 1 });
  const records: RequestRecord[] = [];
  for (let index = 0; index < streams.length; index++) {
    const body = Buffer.from(
      JSON.stringify({ model: "m", prompt: "a b c", max_tokens: maxTokens, stream: true }),
    );
    const outcome = await client.stream({
      path: "/v1/completions",
      body,
      timeoutMs: 5000,
      requestId: `r-${index}`,
    });
    const at = outcome.sentAt;
    records.push(
      toRecord(
        "measure",
        { index, stage: 0, scheduledAt: at, readyAt: at, slotAt: at },
        outcome,
        { targetInputTokens: 3, maxTokens, prefixGroup: null },
        at,
        "chat",
        0,
      ),
    );
  }
  return records;
}

describe("computeGuards on crafted streams", () => {
  it("counts finish reasons, zero outputs, usage mismatches and the output lengths of what arrived", async () => {
    const records = await measure();
    expect(records.map((r) => r.ok)).toEqual([true, true, true, false, true]);
    expect(records[3]!.errorKind).toBe("no_output");
    expect(records[4]!.usageIssue?.kind).toBe("usage_exceeds_chunks");
    const guards = computeGuards(records, false);
    expect(guards.requests).toBe(5);
    expect(guards.finish).toEqual({ stop: 2, length: 1, abort: 1, other: 0 });
    expect(guards.zeroOutput).toBe(1);
    expect(guards.usageMismatch).toBe(1);
    // Lengths 3, 5, 2 and 2 (the mismatched usage is set aside: its 2 chunks count): mean 3, population
    // sd sqrt((0 + 4 + 1 + 1) / 4); the mean share of max_tokens 3 / 5.
    expect(guards.outputTokens.count).toBe(4);
    expect(guards.outputTokens.mean).toBe(3);
    expect(guards.outputTokens.std).toBeCloseTo(Math.sqrt(6 / 4), 12);
    expect(guards.outputToMaxTokens).toBeCloseTo(3 / 5, 12);
    expect(guards.ignoreEos).toBe(false);
  });
});
