import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { noInterpolation } from "../../src/config/interpolate.js";
import { cleanupFromState } from "../../src/server/cleanup.js";
import { ServerStartError } from "../../src/server/errors.js";
import { createServerProvider } from "../../src/server/provider.js";
import { readServerState } from "../../src/server/state.js";
import { noSecrets, outboundFor } from "../job-outbound.js";
import {
  complete,
  digest,
  dockerConfig,
  expectNoOrphans,
  fakeHosts,
  freePort,
  hfToken,
  image,
  model,
  pinned,
} from "./docker-helpers.js";
import { fakeVllmArgv, groupAlive, simArgv } from "./fake-host.js";

const hosts = fakeHosts();
const setup = hosts.setup;
afterEach(() => hosts.disposeAll());

describe("docker kind against fake docker and nvidia-smi", () => {
  it("pulls, starts the simulator, records the conditions, samples telemetry and stops cleanly", async () => {
    const fake = setup({ [pinned]: simArgv });
    const port = await freePort();
    const warnings: string[] = [];
    const stateFile = join(fake.dir, "state.json");
    const provider = createServerProvider(
      dockerConfig({ port, env: ["HF_TOKEN"], args: ["--max-num-seqs", "8"] }),
      {
        outbound: noSecrets,
        model,
        env: fake.env,
        stateFile,
        pollIntervalMs: 100,
        stopGraceMs: 5_000,
        releaseTimeoutMs: 5_000,
        warn: (message) => warnings.push(message),
        configHash: "abc",
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
    // The docker settings compare diffs field by field: names of passed variables, never values.
    expect(fingerprint.server.settings).toEqual({
      dockerArgs: [],
      env: ["HF_TOKEN"],
      gpus: "all",
      lifecycle: "per-side",
    });
    expect(fingerprint.server.args).toEqual([
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
      model: { revision: model.revision },
    });

    // The session wires its endpoint and the GPU query (nvidia-smi of the fake host) into the sampler.
    const telemetry = session.startTelemetry({ metricsIntervalMs: 50, gpuIntervalMs: 50 });
    await complete(session.endpoint.baseUrl, model.name);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const record = await telemetry.stop();
    expect(record.metrics.length).toBeGreaterThan(0);
    expect(record.metrics.at(-1)!.values["vllm:num_requests_running"]).toBe(0);
    expect(record.gpu.length).toBeGreaterThan(0);
    expect(record.summary.gpuUtilizationMax).toBe(87);
    expect(record.summary.gpuMemoryUsedMaxMiB).toBe(Math.round(81559 * 0.9));

    await session.stop();
    await session.stop();
    expectNoOrphans(fake);
    expect((await readServerState(stateFile)).servers).toEqual([]);
    expect(warnings).toEqual([]);

    const run = fake.dockerCalls().find((call) => call[0] === "run")!;
    expect(run).toEqual(
      expect.arrayContaining([
        "--detach",
        "--gpus",
        "all",
        "--ipc=host",
        "--publish",
        `127.0.0.1:${port}:8000`,
      ]),
    );
    // Passed by name: the value never appears on a command line.
    expect(run.join(" ")).toContain("--env HF_TOKEN");
    expect(run.join(" ")).not.toContain(hfToken);
    expect(fake.dockerCalls().map((call) => call[0])).toEqual(
      expect.arrayContaining(["pull", "run", "logs", "wait", "stop", "rm"]),
    );
    expect(readFileSync(session.logFile, "utf8")).toContain("vllm-perf-gate sim listening on");
  });

  it("warns about a tag-only pin, records the resolved digest and redacts passed secrets from the log", async () => {
    const fake = setup({ [image]: fakeVllmArgv }, [image]);
    const warnings: string[] = [];
    const server = dockerConfig({ image, port: await freePort(), env: ["HF_TOKEN"] });
    const provider = createServerProvider(server, {
      // As the job's root builds it: the set of its environment and its config (HF_TOKEN passed by name).
      outbound: outboundFor(fake.env, [{ config: { server }, interpolation: noInterpolation }]),
      model,
      env: fake.env,
      pollIntervalMs: 100,
      releaseTimeoutMs: 5_000,
      warn: (message) => warnings.push(message),
    });
    const session = await provider.start({ cell: "c", run: 0, logDir: join(fake.dir, "logs") });
    expect((await session.fingerprint()).server.imageDigest).toBe(`vllm/vllm-openai@${digest}`);
    await session.stop();
    expect(warnings.join("\n")).toMatch(/pinned by tag only/);
    expect(fake.dockerCalls().some((call) => call[0] === "pull")).toBe(false);
    // The fake server prints the token it was given; the kept log must not.
    const log = readFileSync(session.logFile, "utf8");
    expect(log).toContain("token in use: ***");
    expect(log).not.toContain(hfToken);
  });

  it("records and notes the engine arguments with ${VAR} templates, never the value", async () => {
    const fake = setup({ [pinned]: simArgv });
    const secret = "mst_SECRET555qq-x.y:z";
    const server = dockerConfig({
      port: await freePort(),
      args: ["--max-num-seqs", "8", `--revision=${secret}`],
    });
    // What loading `args: [..., "--revision=${DEPLOY_REF}"]` and `revision: "${DEPLOY_REF}"` leaves.
    const interpolation = {
      templates: [
        { path: ["server", "args", 2], template: "--revision=${DEPLOY_REF}" },
        { path: ["model", "revision"], template: "${DEPLOY_REF}" },
      ],
      values: [{ name: "DEPLOY_REF", value: secret }],
    };
    const provider = createServerProvider(server, {
      outbound: outboundFor(fake.env, [{ config: { server }, interpolation }]),
      model: { ...model, revision: secret },
      env: fake.env,
      pollIntervalMs: 100,
      releaseTimeoutMs: 5_000,
      interpolation,
    });
    const session = await provider.start({ cell: "c", logDir: join(fake.dir, "logs") });
    const fingerprint = await session.fingerprint();
    await session.stop();
    expect(fingerprint.server.args).toContain("--revision=${DEPLOY_REF}");
    expect(fingerprint.model.revision).toBe("${DEPLOY_REF}");
    expect(JSON.stringify(fingerprint)).not.toContain("SECRET555qq");
    const log = readFileSync(session.logFile, "utf8");
    expect(log).toMatch(/ run .*--revision=\$\{DEPLOY_REF\}/);
    expect(log).not.toContain("SECRET555qq");
    // The container got the value itself.
    expect(fake.dockerCalls().find((call) => call[0] === "run")).toContain(`--revision=${secret}`);
  });

  it("fails early and clearly when the image cannot be pulled", async () => {
    const fake = setup({});
    const stateFile = join(fake.dir, "state.json");
    const provider = createServerProvider(
      dockerConfig({ image: "vllm/vllm-openai:no-such-tag", port: await freePort() }),
      { outbound: noSecrets, model, env: fake.env, stateFile, pollIntervalMs: 100 },
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

  it("refuses to start when the port is already in use, without launching anything", async () => {
    const fake = setup({ [pinned]: simArgv }, [pinned]);
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const provider = createServerProvider(dockerConfig({ port }), {
        outbound: noSecrets,
        model,
        env: fake.env,
      });
      const error = (await provider
        .start({ cell: "c", logDir: join(fake.dir, "logs") })
        .catch((e: unknown) => e)) as ServerStartError;
      expect(error).toBeInstanceOf(ServerStartError);
      expect(error.message).toMatch(new RegExp(`Port ${port} is already in use`));
      expect(error.likelyCause).toBe("port-in-use");
      // Only the lookup of labelled containers publishing the port; nothing launched.
      expect(fake.dockerCalls()).toEqual([
        ["ps", "--filter", "label=vllm-perf-gate=1", "--filter", `publish=${port}`, "--format", "{{.Names}}"],
      ]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("post step: removes a container a killed main step left behind", async () => {
    const fake = setup({ [pinned]: fakeVllmArgv }, [pinned]);
    const stateFile = join(fake.dir, "state.json");
    const provider = createServerProvider(dockerConfig({ port: await freePort() }), {
      outbound: noSecrets,
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
