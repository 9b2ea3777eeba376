import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { ServerStartError } from "../../src/server/errors.js";
import { createServerProvider } from "../../src/server/provider.js";
import { formatReadinessWait, type ReadinessWait, waitForReady } from "../../src/server/readiness.js";
import { systemClock } from "../../src/util/clock.js";
import { noSecrets } from "../job-outbound.js";
import { VirtualClock } from "../util/virtual-clock.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A loopback server answering each path with a status (vLLM's --api-key answers 401 on /v1/*). */
async function serve(statuses: Record<string, number>): Promise<string> {
  server = createServer((request, response) => {
    const status = statuses[request.url ?? ""] ?? 404;
    response.writeHead(status, { "content-type": "application/json" });
    response.end(
      status === 200 ? JSON.stringify({ object: "list", data: [{ id: "m" }] }) : '{"error":"Unauthorized"}',
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const wait = (baseUrl: string, apiKey?: string) =>
  waitForReady({
    target: { baseUrl, apiKey },
    timeoutMs: 60_000,
    pollMs: 200,
    clock: systemClock,
    exited: new Promise(() => {}),
  });

describe("waitForReady", () => {
  it("fails at once with unauthorized when /health answers 401, instead of polling until startup_timeout_s", async () => {
    const outcome = await wait(await serve({ "/health": 401 }));
    expect(outcome).toMatchObject({ ready: false, reason: "unauthorized" });
    expect(!outcome.ready && outcome.detail).toMatch(
      /GET \/health answered HTTP 401 \(unauthorized\): the server wants an API key and none is sent/,
    );
    expect(outcome.waitedMs).toBeLessThan(5_000);
  });

  it("fails at once when /v1/models answers 403 to the key sent", async () => {
    const outcome = await wait(await serve({ "/health": 200, "/v1/models": 403 }), "wrong-key");
    expect(outcome).toMatchObject({ ready: false, reason: "unauthorized" });
    expect(!outcome.ready && outcome.detail).toMatch(
      /GET \/v1\/models answered HTTP 403 .*refuses the API key sent/,
    );
    expect(outcome.waitedMs).toBeLessThan(5_000);
  });

  it("still waits through other errors until the server is ready", async () => {
    const baseUrl = await serve({ "/health": 503, "/v1/models": 200 });
    setTimeout(() => {
      server!.removeAllListeners("request");
      server!.on("request", (_request, response) =>
        response.writeHead(200).end(JSON.stringify({ object: "list", data: [{ id: "m" }] })),
      );
    }, 500);
    const outcome = await wait(baseUrl);
    expect(outcome).toMatchObject({ ready: true });
  });
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Moves virtual time on one second at a time, giving the real probes (loopback I/O) time between steps. */
async function advanceSeconds(clock: VirtualClock, seconds: number): Promise<void> {
  for (let second = 0; second < seconds; second++) {
    await clock.advance(1_000, 1_000);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

describe("waitForReady progress (virtual time)", () => {
  it("says every 10 s what it awaits, since when, the last problem and the limit while nothing listens", async () => {
    const clock = new VirtualClock();
    const port = await closedPort();
    const waits: ReadinessWait[] = [];
    const outcome = waitForReady({
      target: { baseUrl: `http://127.0.0.1:${port}` },
      timeoutMs: 45_000,
      pollMs: 1_000,
      clock,
      exited: new Promise(() => {}),
      onWaiting: (wait) => waits.push(wait),
    });
    await advanceSeconds(clock, 35);
    expect(waits.map((wait) => wait.elapsedMs)).toEqual([10_000, 20_000, 30_000]);
    const line = formatReadinessWait(waits[2]!, { seconds: 45, name: "server.startup_timeout_s" });
    expect(line).toBe(
      `waiting for the server at http://127.0.0.1:${port}: 30 s since 00:00:00 UTC, awaiting GET /health to answer 200; last probe: connection refused by 127.0.0.1:${port} (nothing listens there: check that the server is running and that http://127.0.0.1:${port} has the host and port it listens on); gives up after 45 s (server.startup_timeout_s)`,
    );
    await advanceSeconds(clock, 12);
    expect(await outcome).toMatchObject({ ready: false, reason: "timeout" });
    const reported = waits.length;
    await advanceSeconds(clock, 20);
    // The reports end with the wait.
    expect(waits.length).toBe(reported);
    expect(reported).toBe(4);
  });

  it("keeps reporting while a probe hangs (a server that accepts connections and never answers)", async () => {
    server = createServer(() => {});
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const clock = new VirtualClock();
    const waits: ReadinessWait[] = [];
    void waitForReady({
      target: { baseUrl },
      timeoutMs: 900_000,
      pollMs: 1_000,
      clock,
      exited: new Promise(() => {}),
      onWaiting: (wait) => waits.push(wait),
    });
    // The first probe is still waiting for its (real) 5 s deadline: the reports come on the virtual clock.
    await advanceSeconds(clock, 21);
    expect(waits.map((wait) => [wait.elapsedMs, wait.lastProblem])).toEqual([
      [10_000, "no answer yet"],
      [20_000, "no answer yet"],
    ]);
  });
});

describe("a provider's start-up", () => {
  it("passes the wait's progress lines to the user, naming the cell and the config's limit", async () => {
    const clock = new VirtualClock();
    const port = await closedPort();
    const lines: string[] = [];
    const provider = createServerProvider(
      configSchema.parse({
        version: 1,
        server: { kind: "external", base_url: `http://127.0.0.1:${port}`, startup_timeout_s: 25 },
        model: { name: "m" },
        cells: [
          {
            name: "chat",
            dataset: { type: "synthetic", input_tokens: 8, output_tokens: 8 },
            load: { type: "concurrency", concurrency: 1 },
            size: { requests: 1 },
          },
        ],
      }).server,
      {
        outbound: noSecrets,
        model: { name: "m" },
        clock,
        nvidiaSmiCommand: null,
        progress: (line) => lines.push(line),
      },
    );
    const logDir = mkdtempSync(join(tmpdir(), "vpg-readiness-"));
    try {
      const started = provider.start({ cell: "chat", logDir }).catch((error: Error) => error);
      await advanceSeconds(clock, 27);
      expect(await started).toBeInstanceOf(ServerStartError);
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(
        new RegExp(
          `^chat: waiting for the server at http://127\\.0\\.0\\.1:${port}: 20 s since 00:00:0\\d UTC, awaiting GET /health to answer 200; last probe: connection refused by 127\\.0\\.0\\.1:${port} .*; gives up after 25 s \\(server\\.startup_timeout_s, from the launch\\)$`,
        ),
      );
    } finally {
      rmSync(logDir, { recursive: true, force: true });
    }
  });
});
