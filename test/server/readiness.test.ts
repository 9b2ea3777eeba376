import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { waitForReady } from "../../src/server/readiness.js";
import { systemClock } from "../../src/util/clock.js";

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
