import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configSchema, type ServerConfig } from "../../src/config/schema.js";
import {
  cleanupFromState,
  createServerProvider,
  readServerState,
  ServerStartError,
  startTelemetry,
} from "../../src/server/index.js";
import { NvidiaSmi } from "../../src/server/nvidia-smi.js";
import { createFakeHost, type FakeHost, fakeVllmArgv, groupAlive, simArgv } from "./fake-host.js";

const image = "vllm/vllm-openai:v0.11.0";
const digest = "sha256:4f6b0bd1a4b8f0b3e7d9a1c2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c";
const pinned = `vllm/vllm-openai@${digest}`;
const model = { name: "Qwen/Qwen3-0.6B", revision: "c1899de289a04d12100db370d81485cdf75e47ca" };

function dockerConfig(fields: Record<string, unknown>): ServerConfig {
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

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function complete(baseUrl: string, modelName: string): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: modelName, prompt: "a b c d", max_tokens: 4, ignore_eos: true }),
  });
  await response.text();
  return response.status;
}

let host: FakeHost | undefined;
afterEach(() => {
  host?.dispose();
  host = undefined;
});

function setup(images: Record<string, string[]> = {}, local: string[] = []) {
  host = createFakeHost({
    images: Object.fromEntries(
      Object.entries(images).map(([ref, entrypoint]) => [ref, { digest, entrypoint }]),
    ),
    localImages: local,
    extraEnv: { HF_TOKEN: "hf_secretTokenValue123" },
  });
  return host;
}

function expectNoOrphans(fake: FakeHost) {
  const pids = fake.containerPids();
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) expect(groupAlive(pid), `container process group ${pid} still alive`).toBe(false);
}

describe("docker kind against fake docker and nvidia-smi", () => {
  it("pulls, starts the simulator, records the conditions, samples telemetry and stops cleanly", async () => {
    const fake = setup({ [pinned]: simArgv });
    const port = await freePort();
    const warnings: string[] = [];
    const stateFile = join(fake.dir, "state.json");
    const provider = createServerProvider(
      dockerConfig({ port, env: ["HF_TOKEN"], args: ["--max-num-seqs", "8"] }),
      {
        model,
        env: fake.env,
        stateFile,
        pollIntervalMs: 100,
        stopGraceMs: 5_000,
        releaseTimeoutMs: 5_000,
        warn: (message) => warnings.push(message),
        configHash: "abc",
        datasetChecksums: { c: "0".repeat(64) },
      },
    );
    const session = await provider.start({ cell: "c", logDir: join(fake.dir, "logs") });
    expect(session.endpoint.baseUrl).toBe(`http://127.0.0.1:${port}`);
    expect((await readServerState(stateFile)).servers).toHaveLength(1);
    expect(await complete(session.endpoint.baseUrl, model.name)).toBe(200);

    const fingerprint = await session.fingerprint();
    expect(fingerprint.server).toMatchObject({
      kind: "docker",
      image: pinned,
      imageDigest: pinned,
      servedModels: [model.name],
    });
    expect(fingerprint.server.args).toEqual([
      "--model",
      model.name,
      "--served-model-name",
      model.name,
      "--revision",
      model.revision,
      "--max-num-seqs",
      "8",
    ]);
    expect(fingerprint.server.vllmVersion).toEqual(expect.any(String));
    expect(fingerprint.server.cacheConfig).not.toBeNull();
    expect(fingerprint.gpu).toEqual({
      count: 1,
      names: ["NVIDIA H100 80GB HBM3"],
      memoryTotalMiB: [81559],
      driverVersion: "550.54.15",
      cudaVersion: "12.4",
    });
    expect(fingerprint).toMatchObject({
      configHash: "abc",
      datasets: { c: "0".repeat(64) },
      model: { revision: model.revision },
    });

    const telemetry = startTelemetry({
      metricsUrl: session.endpoint.metricsUrl,
      metricsIntervalMs: 50,
      gpuIntervalMs: 50,
      queryGpus: () => new NvidiaSmi("nvidia-smi", fake.env).usage(),
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const record = await telemetry.stop();
    expect(record.metrics.length).toBeGreaterThan(0);
    expect(record.summary.gpuUtilizationMax).toBe(87);
    expect(record.summary.gpuMemoryUsedMaxMiB).toBe(Math.round(81559 * 0.9));

    await session.stop();
    await session.stop();
    expectNoOrphans(fake);
    expect((await readServerState(stateFile)).servers).toEqual([]);
    expect(warnings).toEqual([]);

    const run = fake.dockerCalls().find((call) => call[0] === "run")!;
    expect(run).toEqual(
      expect.arrayContaining(["--detach", "--gpus", "all", "--ipc=host", "--publish", `${port}:8000`]),
    );
    // Passed by name: the value never appears on a command line.
    expect(run.join(" ")).toContain("--env HF_TOKEN");
    expect(run.join(" ")).not.toContain("hf_secretTokenValue123");
    expect(fake.dockerCalls().map((call) => call[0])).toEqual(
      expect.arrayContaining(["pull", "run", "logs", "wait", "stop", "rm"]),
    );
    expect(readFileSync(session.logFile, "utf8")).toContain("vllm-perf-gate sim listening on");
  });

  it("warns about a tag-only pin, records the resolved digest and redacts passed secrets from the log", async () => {
    const fake = setup({ [image]: fakeVllmArgv }, [image]);
    const warnings: string[] = [];
    const provider = createServerProvider(
      dockerConfig({ image, port: await freePort(), env: ["HF_TOKEN"] }),
      {
        model,
        env: fake.env,
        pollIntervalMs: 100,
        releaseTimeoutMs: 5_000,
        warn: (message) => warnings.push(message),
      },
    );
    const session = await provider.start({ cell: "c", run: 0, logDir: join(fake.dir, "logs") });
    expect((await session.fingerprint()).server.imageDigest).toBe(`vllm/vllm-openai@${digest}`);
    await session.stop();
    expect(warnings.join("\n")).toMatch(/pinned by tag only/);
    expect(fake.dockerCalls().some((call) => call[0] === "pull")).toBe(false);
    // The fake server prints the token it was given; the kept log must not.
    const log = readFileSync(session.logFile, "utf8");
    expect(log).toContain("token in use: ***");
    expect(log).not.toContain("hf_secretTokenValue123");
  });

  it("fails early and clearly when the image cannot be pulled", async () => {
    const fake = setup({});
    const stateFile = join(fake.dir, "state.json");
    const provider = createServerProvider(
      dockerConfig({ image: "vllm/vllm-openai:no-such-tag", port: await freePort() }),
      {
        model,
        env: fake.env,
        stateFile,
        pollIntervalMs: 100,
      },
    );
    const error = await provider
      .start({ cell: "c", logDir: join(fake.dir, "logs") })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerStartError);
    expect((error as ServerStartError).message).toMatch(/docker pull vllm\/vllm-openai:no-such-tag failed/);
    expect((error as ServerStartError).likelyCause).toBe("image-not-found");
    expect((error as Error).message).toMatch(/pull access denied/);
    expect(fake.dockerCalls().some((call) => call[0] === "run")).toBe(false);
    expect((await readServerState(stateFile)).servers).toEqual([]);
  });

  it("reports a crash mid-run through `exited` and keeps the log of what was served", async () => {
    const fake = setup({ [pinned]: simArgv }, [pinned]);
    const provider = createServerProvider(
      dockerConfig({ port: await freePort(), args: ["--fault", "exit-after:2"] }),
      {
        model,
        env: fake.env,
        pollIntervalMs: 100,
        releaseTimeoutMs: 5_000,
      },
    );
    const session = await provider.start({ cell: "c", logDir: join(fake.dir, "logs") });
    const served: number[] = [];
    for (let index = 0; index < 2; index++) served.push(await complete(session.endpoint.baseUrl, model.name));
    const exit = await Promise.race([
      session.exited,
      new Promise<undefined>((resolve) => setTimeout(resolve, 10_000, undefined)),
    ]);
    expect(served).toEqual([200, 200]);
    expect(exit?.reason).toMatch(/exited with code 1/);
    await session.stop();
    expectNoOrphans(fake);
    expect(existsSync(session.logFile)).toBe(true);
  });

  it("names the likely cause from the container log (GPU out of memory) and removes the container", async () => {
    const oom =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB";
    const fake = setup({ [pinned]: [...fakeVllmArgv, "--fail-with", oom] }, [pinned]);
    const stateFile = join(fake.dir, "state.json");
    const provider = createServerProvider(dockerConfig({ port: await freePort() }), {
      model,
      env: fake.env,
      stateFile,
      pollIntervalMs: 100,
      releaseTimeoutMs: 5_000,
    });
    const error = (await provider
      .start({ cell: "c", logDir: join(fake.dir, "logs") })
      .catch((e: unknown) => e)) as ServerStartError;
    expect(error).toBeInstanceOf(ServerStartError);
    expect(error.message).toMatch(
      /stopped before it was ready \(container vllm-perf-gate-[\w-]+ exited with code 1\)/,
    );
    expect(error.likelyCause).toBe("gpu-out-of-memory");
    expect(error.lastLogLines.join("\n")).toContain("CUDA out of memory");
    expectNoOrphans(fake);
    expect((await readServerState(stateFile)).servers).toEqual([]);
  });

  it("gives up at the startup timeout when the server never becomes healthy, and removes the container", async () => {
    const fake = setup({ [pinned]: [...fakeVllmArgv, "--unhealthy"] }, [pinned]);
    const stateFile = join(fake.dir, "state.json");
    const provider = createServerProvider(dockerConfig({ port: await freePort(), startup_timeout_s: 1.5 }), {
      model,
      env: fake.env,
      stateFile,
      pollIntervalMs: 100,
      releaseTimeoutMs: 5_000,
    });
    const error = (await provider
      .start({ cell: "c", logDir: join(fake.dir, "logs") })
      .catch((e: unknown) => e)) as ServerStartError;
    expect(error).toBeInstanceOf(ServerStartError);
    expect(error.message).toMatch(/not ready within server.startup_timeout_s \(1.5 s\)/);
    expect(error.message).toMatch(/last probe: (\/health answered HTTP 503|connection refused)/);
    expectNoOrphans(fake);
    expect((await readServerState(stateFile)).servers).toEqual([]);
    expect(fake.dockerCalls().map((call) => call[0])).toEqual(expect.arrayContaining(["stop", "rm"]));
  });

  it("escalates to SIGKILL when the server ignores SIGTERM (docker stop --time)", async () => {
    const fake = setup({ [pinned]: [...fakeVllmArgv, "--ignore-sigterm"] }, [pinned]);
    const warnings: string[] = [];
    const provider = createServerProvider(dockerConfig({ port: await freePort() }), {
      model,
      env: fake.env,
      pollIntervalMs: 100,
      stopGraceMs: 1_000,
      releaseTimeoutMs: 5_000,
      warn: (message) => warnings.push(message),
    });
    const session = await provider.start({ cell: "c", logDir: join(fake.dir, "logs") });
    await session.stop();
    expectNoOrphans(fake);
    expect(warnings.join("\n")).toMatch(/ignored SIGTERM/);
  });

  it("refuses to start when the port is already in use, without launching anything", async () => {
    const fake = setup({ [pinned]: simArgv }, [pinned]);
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const provider = createServerProvider(dockerConfig({ port }), { model, env: fake.env });
      const error = (await provider
        .start({ cell: "c", logDir: join(fake.dir, "logs") })
        .catch((e: unknown) => e)) as ServerStartError;
      expect(error).toBeInstanceOf(ServerStartError);
      expect(error.message).toMatch(new RegExp(`Port ${port} is already in use`));
      expect(error.likelyCause).toBe("port-in-use");
      expect(fake.dockerCalls()).toEqual([]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("warns when GPU memory is still in use after teardown", async () => {
    const fake = setup({ [pinned]: fakeVllmArgv }, [pinned]);
    const held = join(fake.dir, "gpu-held");
    const warnings: string[] = [];
    const provider = createServerProvider(dockerConfig({ port: await freePort() }), {
      model,
      env: { ...fake.env, FAKE_GPU_HELD_FILE: held },
      pollIntervalMs: 100,
      releaseTimeoutMs: 500,
      warn: (message) => warnings.push(message),
    });
    const session = await provider.start({ cell: "c", logDir: join(fake.dir, "logs") });
    // Another process grabs the GPU while ours runs, and keeps it after ours stops.
    writeFileSync(held, "");
    await session.stop();
    expect(warnings.join("\n")).toMatch(
      /GPU memory was not released after the server stopped \(used before start: 1 MiB\)/,
    );
    expectNoOrphans(fake);
  });

  it("post step: removes a container a killed main step left behind", async () => {
    const fake = setup({ [pinned]: fakeVllmArgv }, [pinned]);
    const stateFile = join(fake.dir, "state.json");
    const provider = createServerProvider(dockerConfig({ port: await freePort() }), {
      model,
      env: fake.env,
      stateFile,
      pollIntervalMs: 100,
    });
    // Started but never stopped: what a cancelled main step leaves.
    await provider.start({ cell: "c", logDir: join(fake.dir, "logs") });
    const [pid] = fake.containerPids();
    expect(groupAlive(pid!)).toBe(true);
    const outcomes = await cleanupFromState(stateFile, { env: fake.env });
    expect(outcomes.map((outcome) => [outcome.stopped, outcome.detail])).toEqual([
      [true, "container removed"],
    ]);
    expectNoOrphans(fake);
    expect((await readServerState(stateFile)).servers).toEqual([]);
  });
});
