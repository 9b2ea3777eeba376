import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listFilesRecursively } from "../../src/github/files.js";
import { type FakeServer, startFakeServer } from "../runner/helpers/fake-openai-server.js";
import { expectNoPlantedSecret, plantedSecret } from "../secret-forms.js";
import { cli } from "./helpers.js";

// `run --base-url` and its API key: --api-key-env NAME, else server.api_key_env, else VLLM_API_KEY, else
// OPENAI_API_KEY. The key reaches the server as `Authorization: Bearer` and nothing we print or write.

let server: FakeServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

const config = `version: 1
server: { kind: external, base_url: "http://127.0.0.1:1" }
model: { name: m }
cells:
  - name: chat
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: concurrency, concurrency: 2 }
    size: { requests: 4 }
    warmup: { requests: 0 }
`;

/** A server that wants `key` (vLLM's --api-key answers 401 on /v1/* without it) and echoes what it got. */
async function serverWanting(key: string): Promise<FakeServer> {
  return startFakeServer({
    route: (url, request, response) => {
      if (url === "/health") return false;
      if (request.headers.authorization === `Bearer ${key}`) return false;
      response.writeHead(401, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: `Unauthorized: got ${request.headers.authorization ?? "no key"}` }),
      );
      return true;
    },
  });
}

async function runWith(args: string[], env: Record<string, string>) {
  dir = mkdtempSync(join(tmpdir(), "vpg-api-key-"));
  writeFileSync(join(dir, "gate.yml"), config);
  const out = join(dir, "out");
  const result = await cli(["run", "--config", "gate.yml", "--out", out, "--runs", "1", ...args], {
    cwd: dir,
    env,
  });
  return { ...result, out };
}

async function expectNoSecretIn(result: { stdout: string; stderr: string; out: string }): Promise<void> {
  expectNoPlantedSecret("stdout", result.stdout);
  expectNoPlantedSecret("stderr", result.stderr);
  for (const file of await listFilesRecursively(result.out).catch(() => [])) {
    expectNoPlantedSecret(file, readFileSync(file, "utf8"));
  }
}

const sentKeys = (fake: FakeServer) =>
  fake.requests.filter((request) => request.path.startsWith("/v1/")).map((r) => r.headers.authorization);

describe("run --base-url and the API key", () => {
  it("--api-key-env NAME sends the key from NAME, and never prints or writes it", async () => {
    server = await serverWanting(plantedSecret);
    const result = await runWith(["--base-url", server.baseUrl, "--api-key-env", "MY_SERVING_KEY"], {
      MY_SERVING_KEY: plantedSecret,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(sentKeys(server).length).toBeGreaterThan(0);
    expect(new Set(sentKeys(server))).toEqual(new Set([`Bearer ${plantedSecret}`]));
    await expectNoSecretIn(result);
  });

  it.each([
    ["VLLM_API_KEY", { VLLM_API_KEY: plantedSecret, OPENAI_API_KEY: "other" }],
    ["OPENAI_API_KEY", { OPENAI_API_KEY: plantedSecret }],
  ])("uses %s when set, as vLLM's and OpenAI's clients do", async (_name, env) => {
    server = await serverWanting(plantedSecret);
    const result = await runWith(["--base-url", server.baseUrl], env);
    expect(result.code, result.stderr).toBe(0);
    expect(new Set(sentKeys(server))).toEqual(new Set([`Bearer ${plantedSecret}`]));
    await expectNoSecretIn(result);
  });

  it("a refused key names the variable it came from, not the key", async () => {
    server = await serverWanting("the-right-key");
    const result = await runWith(["--base-url", server.baseUrl], { OPENAI_API_KEY: plantedSecret });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /answered HTTP 401 \(unauthorized\): the server refuses the API key sent \(read from OPENAI_API_KEY\)/,
    );
    await expectNoSecretIn(result);
  });

  it("no key at all: the 401 says how to send one", async () => {
    server = await serverWanting("the-right-key");
    const result = await runWith(["--base-url", server.baseUrl], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /wants an API key and none is sent \(pass --api-key-env NAME, set VLLM_API_KEY or OPENAI_API_KEY/,
    );
  });

  it("--api-key-env naming an unset variable, or without --base-url, is refused with exit 2", async () => {
    server = await serverWanting("k");
    const unset = await runWith(["--base-url", server.baseUrl, "--api-key-env", "NOT_SET_ANYWHERE"], {});
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(
      /--api-key-env names NOT_SET_ANYWHERE, but that environment variable is not set/,
    );
    rmSync(dir!, { recursive: true, force: true });
    const alone = await runWith(["--api-key-env", "K"], { K: "v" });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--api-key-env goes with --base-url/);
  });
});

describe("run --base-url where nothing listens", () => {
  it("says which address refused and what to check, not 'fetch failed'", async () => {
    const closed = await startFakeServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const result = await runWith(["--base-url", baseUrl], {});
    expect(result.code).toBe(1);
    const port = new URL(baseUrl).port;
    expect(result.stderr).toContain(
      `--base-url ${baseUrl}: GET /v1/models failed: connection refused by 127.0.0.1:${port} (nothing listens there: check that the server is running and that ${baseUrl} has the host and port it listens on)`,
    );
    expect(result.stderr).not.toMatch(/fetch failed/);
  });
});
