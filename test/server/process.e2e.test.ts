import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createControlClient } from "../../src/client/stream-client.js";
import { baseUrlProvider } from "../../src/server/base-url.js";
import { cleanupFromState } from "../../src/server/cleanup.js";
import { ServerStartError } from "../../src/server/errors.js";
import { createServerProvider } from "../../src/server/provider.js";
import { readServerState } from "../../src/server/state.js";
import { noSecrets } from "../job-outbound.js";
import { configWith, fakeVllmArgv, groupAlive, serverConfigOf, testModel } from "./fake-host.js";

/** The runner's cache reset before a fresh-prefix run (run-once.ts): POST /reset_prefix_cache on the control client. */
async function resetsPrefixCache(session: { endpoint: { baseUrl: string } }): Promise<boolean> {
  const control = createControlClient({ baseUrl: session.endpoint.baseUrl });
  try {
    return (await control.post("/reset_prefix_cache", {})).status === 200;
  } finally {
    await control.close();
  }
}

const here = dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(join(tmpdir(), "vpg-server-process-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const model = testModel;
const serverConfig = serverConfigOf;
let counter = 0;
const logDir = () => join(work, `logs-${counter++}`);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function livePids(stateFile: string): Promise<number[]> {
  return (await readServerState(stateFile)).servers.flatMap((server) =>
    server.processGroup ? [server.processGroup] : [],
  );
}

describe("command kind", () => {
  it("runs argv in its own process group, waits for readiness and stops the whole group", async () => {
    const port = await freePort();
    const stateFile = join(work, "command-state.json");
    const provider = createServerProvider(
      serverConfig({
        kind: "command",
        argv: [...fakeVllmArgv, "--served-model-name", "sim-model", "--port", String(port)],
        port,
      }),
      { outbound: noSecrets, model, stateFile, pollIntervalMs: 100, nvidiaSmiCommand: null },
    );
    const session = await provider.start({ cell: "c", run: 1, logDir: logDir() });
    const [pid] = await livePids(stateFile);
    expect(groupAlive(pid!)).toBe(true);
    const fingerprint = await session.fingerprint();
    expect(fingerprint.server.command).toEqual([
      ...fakeVllmArgv,
      "--served-model-name",
      "sim-model",
      "--port",
      String(port),
    ]);
    expect(fingerprint.server.cacheConfig).toEqual({
      block_size: "16",
      cache_dtype: "auto",
      enable_prefix_caching: "True",
      engine: "0",
      gpu_memory_utilization: "0.9",
    });
    expect(fingerprint.server.maxModelLen).toBe(4096);
    expect(session.logFile).toMatch(/server-c-run1\.log$/);
    // Shared by the cells of a side (the default lifecycle): dev mode is on, so the prefix cache can be reset.
    expect(provider.lifecycle).toBe("per-side");
    expect(await resetsPrefixCache(session)).toBe(true);
    await session.stop();
    expect(groupAlive(pid!)).toBe(false);
    expect(await livePids(stateFile)).toEqual([]);
  });

  it("escalates to SIGKILL when the server ignores SIGTERM", async () => {
    const port = await freePort();
    const warnings: string[] = [];
    const stateFile = join(work, "stubborn-state.json");
    const provider = createServerProvider(
      serverConfig({
        kind: "command",
        argv: [
          ...fakeVllmArgv,
          "--ignore-sigterm",
          "--served-model-name",
          "sim-model",
          "--port",
          String(port),
        ],
        port,
        lifecycle: "per-run",
      }),
      {
        outbound: noSecrets,
        model,
        stateFile,
        pollIntervalMs: 100,
        stopGraceMs: 500,
        nvidiaSmiCommand: null,
        warn: (message) => warnings.push(message),
      },
    );
    const session = await provider.start({ cell: "c", run: 0, logDir: logDir() });
    const [pid] = await livePids(stateFile);
    // A fresh server per run needs no reset, and does not get the dev-mode endpoint.
    expect(await resetsPrefixCache(session)).toBe(false);
    await session.stop();
    expect(groupAlive(pid!)).toBe(false);
    expect(warnings.join("\n")).toMatch(/ignored SIGTERM for 500 ms and was killed \(SIGKILL\)/);
    expect(readFileSync(session.logFile, "utf8")).toContain("received SIGTERM, ignoring it");
  });

  it("times out a server that never listens, names the timeout and leaves nothing behind", async () => {
    const port = await freePort();
    const stateFile = join(work, "hang-state.json");
    const provider = createServerProvider(
      serverConfig({
        kind: "command",
        argv: [...fakeVllmArgv, "--never-listen"],
        port,
        startup_timeout_s: 1,
      }),
      {
        outbound: noSecrets,
        model,
        stateFile,
        pollIntervalMs: 100,
        stopGraceMs: 1_000,
        nvidiaSmiCommand: null,
      },
    );
    const error = (await provider
      .start({ cell: "c", logDir: logDir() })
      .catch((e: unknown) => e)) as ServerStartError;
    expect(error).toBeInstanceOf(ServerStartError);
    expect(error.message).toMatch(/not ready within server.startup_timeout_s \(1 s\).*connection refused/);
    expect(error.message).toContain("loading weights (forever)");
    expect(await livePids(stateFile)).toEqual([]);
    const entries = readFileSync(error.logFile!, "utf8");
    expect(entries).toContain("not ready");
  });

  it("fails fast with the likely cause when the process exits during start-up (missing HF token)", async () => {
    const port = await freePort();
    const provider = createServerProvider(
      serverConfig({
        kind: "command",
        argv: [...fakeVllmArgv, "--require-env", "HF_TOKEN"],
        port,
        startup_timeout_s: 60,
      }),
      {
        outbound: noSecrets,
        model,
        env: { ...process.env, HF_TOKEN: "" },
        pollIntervalMs: 100,
        nvidiaSmiCommand: null,
      },
    );
    const started = Date.now();
    const error = (await provider
      .start({ cell: "c", logDir: logDir() })
      .catch((e: unknown) => e)) as ServerStartError;
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(error.message).toMatch(/stopped before it was ready \(the server process exited with code 1\)/);
    expect(error.likelyCause).toBe("missing-hf-token");
  });

  it("says which executable is missing", async () => {
    const provider = createServerProvider(
      serverConfig({ kind: "command", argv: ["/nonexistent/vllm", "serve"], port: await freePort() }),
      { outbound: noSecrets, model, nvidiaSmiCommand: null },
    );
    await expect(provider.start({ cell: "c", logDir: logDir() })).rejects.toThrow(
      /"\/nonexistent\/vllm" was not found/,
    );
  });

  it("reports a model name the server does not serve", async () => {
    const port = await freePort();
    const provider = createServerProvider(
      serverConfig({
        kind: "command",
        argv: [...fakeVllmArgv, "--served-model-name", "other", "--port", String(port)],
        port,
      }),
      { outbound: noSecrets, model, pollIntervalMs: 100, nvidiaSmiCommand: null },
    );
    await expect(provider.start({ cell: "c", logDir: logDir() })).rejects.toThrow(
      /the server serves "other" but model.name is "sim-model"/,
    );
  });
});

describe("sim kind", () => {
  it("starts the simulator on a picked port, records its conditions and survives a crash report", async () => {
    const provider = createServerProvider(
      serverConfig({ kind: "sim", seed: 7, args: ["--max-num-seqs", "4", "--fault", "exit-after:1"] }),
      { outbound: noSecrets, model, pollIntervalMs: 100 },
    );
    const session = await provider.start({ cell: "c", logDir: logDir() });
    expect(session.endpoint.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const fingerprint = await session.fingerprint();
    expect(fingerprint.server.command).toEqual([
      "vllm-perf-gate",
      "sim",
      "--host",
      "127.0.0.1",
      "--profile",
      "small-gpu",
      "--seed",
      "7",
      "--served-model-name",
      "sim-model",
      "--max-num-seqs",
      "4",
      "--fault",
      "exit-after:1",
    ]);
    expect(fingerprint.server.servedModels).toEqual(["sim-model"]);
    expect(fingerprint.gpu).toBeNull();
    // Per-cell (the default): the simulator runs in dev mode, so runs can start with a cold prefix cache.
    expect(await resetsPrefixCache(session)).toBe(true);
    const response = await fetch(`${session.endpoint.baseUrl}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "sim-model", prompt: "one two", max_tokens: 2 }),
    });
    expect(response.status).toBe(200);
    await response.text();
    const exit = await Promise.race([
      session.exited,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000)),
    ]);
    expect(exit?.reason).toMatch(/exited with code 1/);
    await session.stop();
    expect(existsSync(session.logFile)).toBe(true);
  });

  it("requires exactly the key server.api_key_env names, whatever VLLM_API_KEY holds, and writes it nowhere", async () => {
    const simKey = "sk-sim-planted-5e4d3c2b1a";
    const otherKey = "sk-other-planted-a1b2c3d4e5";
    const provider = createServerProvider(serverConfig({ kind: "sim", api_key_env: "SIM_KEY" }), {
      outbound: noSecrets,
      model,
      env: { ...process.env, SIM_KEY: simKey, VLLM_API_KEY: otherKey },
      pollIntervalMs: 100,
    });
    // Ready means /v1/models answered the key the client sends.
    const session = await provider.start({ cell: "c", logDir: logDir() });
    try {
      expect(session.endpoint.apiKey).toBe(simKey);
      const models = async (authorization?: string) => {
        const response = await fetch(`${session.endpoint.baseUrl}/v1/models`, {
          headers: authorization ? { authorization } : {},
        });
        await response.text();
        return response.status;
      };
      expect(await models()).toBe(401);
      expect(await models(`Bearer ${otherKey}`)).toBe(401);
      expect(await models(`Bearer ${simKey}`)).toBe(200);
      expect(JSON.stringify(await session.fingerprint())).not.toMatch(/planted/);
    } finally {
      await session.stop();
    }
    expect(readFileSync(session.logFile, "utf8")).not.toMatch(/planted/);
  });

  it("names the variable server.api_key_env names when it is not set, and starts nothing", async () => {
    const provider = createServerProvider(serverConfig({ kind: "sim", api_key_env: "SIM_KEY" }), {
      outbound: noSecrets,
      model,
      env: { ...process.env, SIM_KEY: undefined, VLLM_API_KEY: "sk-other-planted-a1b2c3d4e5" },
      pollIntervalMs: 100,
    });
    await expect(provider.start({ cell: "c", logDir: logDir() })).rejects.toThrow(
      "server.api_key_env names SIM_KEY, but that environment variable is not set.",
    );
  });
});

describe("cancellation", () => {
  it("post step: stops a server whose main step was killed", async () => {
    const stateFile = join(work, "cancel-state.json");
    const port = await freePort();
    const config = configWith({
      kind: "command",
      argv: [...fakeVllmArgv, "--served-model-name", "sim-model", "--port", String(port)],
      port,
    });
    const { main, ready } = await startMainStep(config, stateFile);
    main.kill("SIGKILL");
    await new Promise((resolve) => main.once("exit", resolve));
    const [pid] = await livePids(stateFile);
    // The server outlives its cancelled main step: that is what the post step is for.
    expect(groupAlive(pid!)).toBe(true);
    expect((await fetch(`${ready}/health`)).status).toBe(200);
    const outcomes = await cleanupFromState(stateFile, { stopGraceMs: 5_000 });
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.stopped).toBe(true);
    expect(groupAlive(pid!)).toBe(false);
    expect(await livePids(stateFile)).toEqual([]);
    expect(await cleanupFromState(stateFile)).toEqual([]);
  });

  it("a main step that handles SIGINT stops its server itself and leaves an empty state file", async () => {
    const port = await freePort();
    const stateFile = join(work, "signal-state.json");
    const config = configWith({
      kind: "command",
      argv: [...fakeVllmArgv, "--served-model-name", "sim-model", "--port", String(port)],
      port,
    });
    const { main } = await startMainStep(config, stateFile, "handle-signals");
    const [pid] = await livePids(stateFile);
    expect(groupAlive(pid!)).toBe(true);
    const exit = new Promise<number | null>((resolve) => main.once("exit", (code) => resolve(code)));
    main.kill("SIGINT");
    expect(await exit).toBe(130);
    expect(groupAlive(pid!)).toBe(false);
    expect(await livePids(stateFile)).toEqual([]);
  });

  it("an uncaught error stops the server before the process exits 1", async () => {
    const port = await freePort();
    const stateFile = join(work, "crash-state.json");
    const config = configWith({
      kind: "command",
      argv: [...fakeVllmArgv, "--ignore-sigterm", "--served-model-name", "sim-model", "--port", String(port)],
      port,
    });
    const { main, stderr } = await startMainStep(config, stateFile, "crash");
    const [pid] = await livePids(stateFile);
    const exit = new Promise<number | null>((resolve) => main.once("exit", (code) => resolve(code)));
    expect(await exit).toBe(1);
    expect(stderr()).toMatch(/unexpected error: Error: boom: a bug after the server started\n\s+at /);
    // The server ignored SIGTERM: it took SIGKILL, before the process ended.
    expect(groupAlive(pid!)).toBe(false);
  });
});

async function startMainStep(config: unknown, stateFile: string, mode = "") {
  const script = join(here, "fixtures", "main-step.ts");
  const main = spawn(
    process.execPath,
    ["--import", "tsx", script, JSON.stringify(config), stateFile, logDir(), mode],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let errors = "";
  main.stderr.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const ready = await new Promise<string>((resolve, reject) => {
    let output = "";
    main.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /READY (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    main.once("exit", (code) => reject(new Error(`main step exited early (${code})`)));
  });
  return { main, ready, stderr: () => errors };
}

describe("external kind", () => {
  it("probes a running server without launching or stopping it", async () => {
    const port = await freePort();
    const owner = createServerProvider(
      serverConfig({
        kind: "command",
        argv: [...fakeVllmArgv, "--served-model-name", "sim-model", "--port", String(port)],
        port,
      }),
      { outbound: noSecrets, model, pollIntervalMs: 100, nvidiaSmiCommand: null },
    );
    const running = await owner.start({ cell: "c", logDir: logDir() });
    try {
      const external = createServerProvider(
        serverConfig({ kind: "external", base_url: `http://127.0.0.1:${port}/` }),
        { outbound: noSecrets, model, pollIntervalMs: 100 },
      );
      expect(external.lifecycle).toBe("per-cell");
      const session = await external.start({ cell: "c", logDir: logDir() });
      expect(session.endpoint).toEqual({
        baseUrl: `http://127.0.0.1:${port}`,
        metricsUrl: `http://127.0.0.1:${port}/metrics`,
      });
      expect((await session.fingerprint()).server).toMatchObject({
        kind: "external",
        vllmVersion: "0.11.0",
        maxModelLen: 4096,
      });
      // --base-url is the same kind given on the command line: same endpoint, same collector, same
      // conditions (it records no settings, as before the registry, so its stored baselines still compare).
      const fromCommandLine = await baseUrlProvider({ baseUrl: `http://127.0.0.1:${port}/`, model }).start({
        cell: "c",
        logDir: logDir(),
      });
      expect(fromCommandLine.endpoint).toEqual(session.endpoint);
      const { settings, ...conditions } = (await session.fingerprint()).server;
      expect(settings).toEqual({});
      expect((await fromCommandLine.fingerprint()).server).toEqual(conditions);
      await session.stop();
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    } finally {
      await running.stop();
    }
  });

  it("fails after the startup timeout when nothing answers", async () => {
    const port = await freePort();
    const provider = createServerProvider(
      serverConfig({ kind: "external", base_url: `http://127.0.0.1:${port}`, startup_timeout_s: 0.5 }),
      { outbound: noSecrets, model, pollIntervalMs: 100 },
    );
    await expect(provider.start({ cell: "c", logDir: logDir() })).rejects.toThrow(
      /not ready within .*connection refused/,
    );
  });
});
