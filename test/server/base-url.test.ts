import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrlProvider } from "../../src/server/base-url.js";

/** A server that wants `Bearer right-key-123` on every route, as `vllm serve --api-key` does. */
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.headers.authorization !== "Bearer right-key-123") {
      res.statusCode = 401;
      return res.end(JSON.stringify({ error: "Unauthorized" }));
    }
    if (req.url === "/metrics") {
      res.setHeader("content-type", "text/plain; version=0.0.4");
      return res.end('vllm:cache_config_info{block_size="16",engine="0"} 1.0\n');
    }
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ object: "list", data: [{ id: "m", object: "model" }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("--base-url against a server that wants an API key", () => {
  it("says unauthorized at once, and whether a key was sent", async () => {
    const start = (apiKey?: string) =>
      baseUrlProvider({ baseUrl, model: { name: "m" }, ...(apiKey ? { apiKey } : {}) }).start({
        cell: "chat",
        logDir: "/nonexistent",
      });
    await expect(start()).rejects.toThrow(
      /GET \/v1\/models answered HTTP 401 \(unauthorized\): the server wants an API key and none is sent/,
    );
    await expect(start("wrong-key-456")).rejects.toThrow(
      /answered HTTP 401 \(unauthorized\): the server refuses the API key sent/,
    );
    const session = await start("right-key-123");
    expect(session.endpoint.apiKey).toBe("right-key-123");
    // The one fingerprint collector sends the key to /metrics too (the old --base-url one did not, and
    // recorded no cache config for a server that guards every route).
    const fingerprint = (await session.fingerprint()) as { server: { cacheConfig: unknown } };
    expect(fingerprint.server.cacheConfig).toEqual({ block_size: "16", engine: "0" });
  });
});
