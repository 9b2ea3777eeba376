import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ServerStartError } from "../../src/server/errors.js";
import { createServerProvider } from "../../src/server/provider.js";
import { readServerState } from "../../src/server/state.js";
import { startTelemetry } from "../../src/server/telemetry.js";
import { noSecrets } from "../job-outbound.js";
import {
  complete,
  dockerConfig,
  expectNoOrphans,
  fakeHosts,
  freePort,
  model,
  pinned,
} from "./docker-helpers.js";
import { fakeVllmArgv, simArgv } from "./fake-host.js";

const hosts = fakeHosts();
const setup = hosts.setup;
afterEach(() => hosts.disposeAll());

describe("docker kind failures, against fake docker and nvidia-smi", () => {
  it("reports a crash mid-run through `exited` and keeps what was measured before it", async () => {
    const fake = setup({ [pinned]: simArgv }, [pinned]);
    const provider = createServerProvider(
      dockerConfig({ port: await freePort(), args: ["--fault", "exit-after:2"] }),
      { outbound: noSecrets, model, env: fake.env, pollIntervalMs: 100, releaseTimeoutMs: 5_000 },
    );
    const session = await provider.start({ cell: "c", logDir: join(fake.dir, "logs") });
    const telemetry = startTelemetry({
      metricsUrl: session.endpoint.metricsUrl,
      metricsIntervalMs: 100,
      gpuIntervalMs: 100,
    });
    const served: number[] = [];
    for (let index = 0; index < 2; index++) served.push(await complete(session.endpoint.baseUrl, model.name));
    const exit = await Promise.race([
      session.exited,
      new Promise<undefined>((resolve) => setTimeout(resolve, 10_000, undefined)),
    ]);
    expect(served).toEqual([200, 200]);
    expect(exit?.reason).toMatch(/exited with code 1/);
    // Scrapes after the crash fail; the samples taken before it are kept.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const record = await telemetry.stop();
    await session.stop();
    expectNoOrphans(fake);
    expect(record.metrics.length).toBeGreaterThan(0);
    expect(record.failedScrapes.metrics).toBeGreaterThan(0);
    expect(existsSync(session.logFile)).toBe(true);
    expect(readFileSync(session.logFile, "utf8")).toMatch(
      /server exited on its own: container .* exited with code 1/,
    );
  });

  it("names the likely cause from the container log (GPU out of memory) and removes the container", async () => {
    const oom =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB";
    const fake = setup({ [pinned]: [...fakeVllmArgv, "--fail-with", oom] }, [pinned]);
    const stateFile = join(fake.dir, "state.json");
    const provider = createServerProvider(dockerConfig({ port: await freePort() }), {
      outbound: noSecrets,
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
      outbound: noSecrets,
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
      outbound: noSecrets,
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

  it("warns when GPU memory is still in use after teardown", async () => {
    const fake = setup({ [pinned]: fakeVllmArgv }, [pinned]);
    const held = join(fake.dir, "gpu-held");
    const warnings: string[] = [];
    const provider = createServerProvider(dockerConfig({ port: await freePort() }), {
      outbound: noSecrets,
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
});
