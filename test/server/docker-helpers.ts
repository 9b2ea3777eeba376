import { createServer } from "node:net";
import { expect } from "vitest";
import { configSchema, type ServerConfig } from "../../src/config/schema.js";
import { createFakeHost, type FakeHost, groupAlive } from "./fake-host.js";

export const image = "vllm/vllm-openai:v0.11.0";
export const digest = "sha256:4f6b0bd1a4b8f0b3e7d9a1c2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c";
export const pinned = `vllm/vllm-openai@${digest}`;
export const model = { name: "Qwen/Qwen3-0.6B", revision: "c1899de289a04d12100db370d81485cdf75e47ca" };
export const hfToken = "hf_secretTokenValue123";

export function dockerConfig(fields: Record<string, unknown>): ServerConfig {
  return configSchema.parse({
    version: 1,
    server: { kind: "docker", image: pinned, startup_timeout_s: 20, ...fields },
    model,
    cells: [
      {
        name: "c",
        dataset: { type: "synthetic", input_tokens: 8, output_tokens: 8 },
        load: { type: "concurrency", concurrency: 1 },
        size: { requests: 2 },
      },
    ],
  }).server;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function complete(baseUrl: string, modelName: string): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: modelName, prompt: "a b c d", max_tokens: 4, ignore_eos: true }),
  });
  await response.text();
  return response.status;
}

/** Fake hosts made by a test file; dispose them in afterEach. */
export function fakeHosts() {
  const made: FakeHost[] = [];
  return {
    setup(images: Record<string, readonly string[]> = {}, local: string[] = []): FakeHost {
      const host = createFakeHost({
        images: Object.fromEntries(
          Object.entries(images).map(([ref, entrypoint]) => [ref, { digest, entrypoint }]),
        ),
        localImages: local,
        extraEnv: { HF_TOKEN: hfToken },
      });
      made.push(host);
      return host;
    },
    disposeAll() {
      for (const host of made.splice(0)) host.dispose();
    },
  };
}

export function expectNoOrphans(fake: FakeHost) {
  const pids = fake.containerPids();
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) expect(groupAlive(pid), `container process group ${pid} still alive`).toBe(false);
}
