import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listFilesRecursively } from "../../src/github/files.js";
import { cli } from "../cli/helpers.js";

/**
 * A server that echoes the API key it was sent: in every error body and in a /metrics label. Whatever
 * `run` writes from it (requests.jsonl, warmup.jsonl, scrapes.jsonl, run.json, the vLLM result) must hold
 * the redaction mark, never the key, in any of the forms the redactor knows.
 */
const secret = "sk-live_ECHOED777zz.q:w";

let server: Server;
let baseUrl: string;
let dir: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const key = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    if (req.method === "GET" && req.url === "/health") return res.end();
    if (req.method === "GET" && req.url === "/v1/models") {
      res.setHeader("content-type", "application/json");
      return res.end(JSON.stringify({ object: "list", data: [{ id: "m", object: "model" }] }));
    }
    if (req.method === "GET" && req.url === "/metrics") {
      res.setHeader("content-type", "text/plain; version=0.0.4");
      return res.end(`# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{key="${key}"} 0\n`);
    }
    req.resume();
    req.on("end", () => {
      res.statusCode = 500;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ error: { message: `upstream refused key ${key}`, type: "InternalError" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), "vpg-runner-redaction-"));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

describe("what run writes passes through the server's redactor", () => {
  it("an API key echoed in error bodies and metric labels is never written, in any form", async () => {
    const config = join(dir, "external.yml");
    await writeFile(
      config,
      `version: 1
server:
  kind: external
  base_url: ${baseUrl}
  api_key_env: SERVING_KEY
  startup_timeout_s: 10
model:
  name: m
cells:
  - name: chat
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: concurrency, concurrency: 2 }
    size: { requests: 6 }
    warmup: { requests: 2 }
    timeout_s: 10
repeats: { min: 1, max: 2 }
`,
    );
    const out = join(dir, "out");
    const run = await cli(["run", "--config", config, "--out", out, "--runs", "1", "--format", "vllm"], {
      cwd: dir,
      env: { SERVING_KEY: secret },
    });
    expect(run.code, run.stderr).toBeLessThan(2);
    const files = await listFilesRecursively(out);
    const names = files.map((file) => file.slice(out.length + 1)).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        "chat/run-0/requests.jsonl",
        "chat/run-0/run.json",
        "chat/run-0/scrapes.jsonl",
        "chat/run-0/vllm-result.json",
        "chat/run-0/warmup.jsonl",
      ]),
    );
    const forms = [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), "ECHOED777zz"];
    for (const file of files) {
      const text = await readFile(file, "utf8");
      for (const form of forms) expect(text.includes(form), `${file} holds ${form}`).toBe(false);
    }
    // The echo itself was recorded, redacted: the failed requests say what the server answered.
    const requests = await readFile(join(out, "chat", "run-0", "requests.jsonl"), "utf8");
    expect(requests).toContain("upstream refused key ***");
    const scrapes = await readFile(join(out, "chat", "run-0", "scrapes.jsonl"), "utf8");
    expect(scrapes).toContain('key=\\"***\\"');
    for (const line of requests.trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
    expect(`${run.stdout}\n${run.stderr}`.includes("ECHOED777zz")).toBe(false);
  }, 60_000);
});
