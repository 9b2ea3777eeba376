import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configSchema, type ServerConfig } from "../../src/config/schema.js";
import { diagnoseLog } from "../../src/server/diagnose.js";
import { dockerEngineArgs, dockerRunArgs, pickRepoDigest } from "../../src/server/docker-launcher.js";
import { parseCsvRows, parseNumber } from "../../src/server/nvidia-smi.js";
import { createOutbound } from "../../src/server/outbound.js";
import { isPortFree } from "../../src/server/port.js";
import { isGroupAlive, terminateGroup } from "../../src/server/process-group.js";
import { ServerLog } from "../../src/server/server-log.js";
import {
  addLiveServer,
  defaultServerStateFile,
  readServerState,
  removeLiveServer,
} from "../../src/server/state.js";
import { systemClock } from "../../src/util/clock.js";

const work = mkdtempSync(join(tmpdir(), "vpg-server-pieces-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("likely cause from the log", () => {
  it.each([
    ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.", "gpu-out-of-memory"],
    [
      "ValueError: Free memory on device (10.2/79.1 GiB) on startup is less than desired GPU memory utilization (0.9, 71.2 GiB).",
      "gpu-out-of-memory",
    ],
    [
      "ValueError: To serve at least one request with the models's max seq len (40960), (4.38 GiB KV cache is needed, which is larger than the available KV cache memory",
      "kv-cache-too-small",
    ],
    [
      "ValueError: The model's max seq len (40960) is larger than the maximum number of tokens that can be stored in KV cache (20000).",
      "kv-cache-too-small",
    ],
    ["RuntimeError: CUDA error: no kernel image is available for execution on the device", "cuda-error"],
    ["RuntimeError: The NVIDIA driver on your system is too old (found version 11040).", "cuda-error"],
    [
      "OSError: [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use",
      "port-in-use",
    ],
    [
      "docker: Error response from daemon: driver failed programming external connectivity: Bind for 0.0.0.0:8000 failed: port is already allocated.",
      "port-in-use",
    ],
    [
      "huggingface_hub.errors.RepositoryNotFoundError: 404 Client Error. Repository Not Found for url: https://huggingface.co/api/models/x/y",
      "model-not-found",
    ],
    [
      "OSError: x/y is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models'",
      "model-not-found",
    ],
    [
      "huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json.",
      "missing-hf-token",
    ],
    [
      "Error response from daemon: pull access denied for vllm/nope, repository does not exist or may require 'docker login'",
      "image-not-found",
    ],
    [
      'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
      "no-gpu-runtime",
    ],
  ])("%s", (line, cause) => {
    expect(diagnoseLog(["INFO starting", line, "INFO shutting down"])?.cause).toBe(cause);
  });

  it("prefers the latest evidence and says nothing without any", () => {
    expect(diagnoseLog(["CUDA out of memory (recovered)", "address already in use"])?.cause).toBe(
      "port-in-use",
    );
    expect(diagnoseLog(["INFO all good"])).toBeUndefined();
  });
});

describe("the server's log", () => {
  it("never writes a secret into the log file: its lines leave through the job's output seam", async () => {
    const path = join(work, "log", "server.log");
    const log = new ServerLog(path, createOutbound({ named: [{ name: "KEY", value: "sk-very-secret" }] }));
    log.line("Authorization: Bearer sk-very-secret");
    log.note("done");
    await log.close();
    expect(readFileSync(path, "utf8")).toMatch(
      /^Authorization: Bearer \*\*\*\n\[vllm-perf-gate \+\d+\.\ds\] done\n$/,
    );
    expect(log.lastLines(2)).toEqual(["Authorization: Bearer ***", expect.stringMatching(/ done$/)]);
  });
});

describe("nvidia-smi csv", () => {
  it("parses rows and missing values", () => {
    expect(parseCsvRows("0, 87, 72000, [N/A], 1980\n1, 0, 1, 69.80, [Not Supported]\n")).toEqual([
      ["0", "87", "72000", "[N/A]", "1980"],
      ["1", "0", "1", "69.80", "[Not Supported]"],
    ]);
    expect(parseNumber("[N/A]")).toBeNull();
    expect(parseNumber("69.80")).toBe(69.8);
  });
});

describe("docker arguments", () => {
  const config = configSchema.parse({
    version: 1,
    server: {
      kind: "docker",
      image: "vllm/vllm-openai:v0.11.0",
      args: ["--port", "9000", "--max-num-seqs", "64"],
      env: ["HF_TOKEN"],
      hf_cache_dir: "/data/hf",
      docker_args: ["--shm-size", "16g"],
      port: 8123,
    },
    model: { name: "m" },
    cells: [
      {
        name: "c",
        dataset: { type: "synthetic", input_tokens: 1, output_tokens: 1 },
        load: { type: "concurrency", concurrency: 1 },
        size: { requests: 1 },
      },
    ],
  }).server as Extract<ServerConfig, { kind: "docker" }>;

  it("adds the model pins the engine arguments do not already set", () => {
    expect(
      dockerEngineArgs(config, { name: "m", source: "org/m", revision: "r1", tokenizer_revision: "t1" }),
    ).toEqual([
      // Positionally, as `vllm serve` (vllm/vllm-openai's entrypoint) takes it.
      "org/m",
      "--served-model-name",
      "m",
      "--revision",
      "r1",
      "--tokenizer-revision",
      "t1",
      "--port",
      "9000",
      "--max-num-seqs",
      "64",
    ]);
    expect(
      dockerEngineArgs(
        { ...config, args: ["org/m", "--served-model-name=x", "--revision", "r0"] },
        { name: "m", revision: "r1" },
      ),
    ).toEqual(["org/m", "--served-model-name=x", "--revision", "r0"]);
    // An image whose entrypoint wants --model says so, and keeps it.
    expect(dockerEngineArgs({ ...config, args: ["--model", "org/m"] }, { name: "m" })).toEqual([
      "--served-model-name",
      "m",
      "--model",
      "org/m",
    ]);
  });

  it("publishes the engine's port, mounts the cache and passes env by name", () => {
    expect(dockerRunArgs(config, ["--port", "9000"], "vpg-1", { devMode: false })).toEqual([
      "run",
      "--detach",
      "--name",
      "vpg-1",
      "--label",
      "vllm-perf-gate=1",
      "--gpus",
      "all",
      "--ipc=host",
      "--publish",
      "127.0.0.1:8123:9000",
      "--volume",
      "/data/hf:/root/.cache/huggingface",
      "--env",
      "HF_TOKEN",
      "--shm-size",
      "16g",
      "vllm/vllm-openai:v0.11.0",
      "--port",
      "9000",
    ]);
    expect(dockerRunArgs(config, [], "vpg-1", { devMode: true })).toContain("VLLM_SERVER_DEV_MODE=1");
  });

  it("picks the digest of the configured repository", () => {
    expect(
      pickRepoDigest(["mirror.io/vllm@sha256:1", "vllm/vllm-openai@sha256:2"], "vllm/vllm-openai:v0.11.0"),
    ).toBe("vllm/vllm-openai@sha256:2");
    expect(pickRepoDigest([], "vllm/vllm-openai:v0.11.0")).toBeNull();
    // Docker Hub's long names match the short ones docker records.
    expect(pickRepoDigest(["vllm/vllm-openai@sha256:2"], "docker.io/vllm/vllm-openai:v0.11.0")).toBe(
      "vllm/vllm-openai@sha256:2",
    );
    expect(pickRepoDigest(["ubuntu@sha256:3"], "docker.io/library/ubuntu:24.04")).toBe("ubuntu@sha256:3");
    // A local tag over an image once pushed elsewhere: that push is not this reference's digest.
    expect(pickRepoDigest(["mirror.io/vllm@sha256:1"], "vpg/local-build:dev")).toBeNull();
  });
});

describe("state file", () => {
  it("lives in the job's RUNNER_TEMP on a runner, so main and post steps agree on it", () => {
    expect(defaultServerStateFile({ RUNNER_TEMP: "/home/runner/work/_temp" })).toBe(
      "/home/runner/work/_temp/vllm-perf-gate/servers.json",
    );
    expect(defaultServerStateFile({})).toMatch(/vllm-perf-gate-\d+\/servers\.json$/);
  });

  it("adds and removes live servers atomically and rejects a malformed file clearly", async () => {
    const path = join(work, "state", "servers.json");
    expect((await readServerState(path)).servers).toEqual([]);
    const base = { startedAt: "2026-01-01T00:00:00Z", cell: "c", run: null };
    await Promise.all([
      addLiveServer(path, { ...base, id: "a", kind: "sim", pid: 10, processGroup: 10 }),
      addLiveServer(path, { ...base, id: "b", kind: "docker", container: "vllm-perf-gate-b" }),
    ]);
    expect((await readServerState(path)).servers.map((server) => server.id)).toEqual(["a", "b"]);
    await removeLiveServer(path, "a");
    expect((await readServerState(path)).servers.map((server) => server.id)).toEqual(["b"]);
    writeFileSync(path, JSON.stringify({ schemaVersion: 1, servers: [{ id: "x" }] }));
    await expect(readServerState(path)).rejects.toThrow(/servers\.json: servers\.0\.kind/);
  });
});

describe("process groups and ports", () => {
  it("kills a whole group, escalating to SIGKILL for members that ignore SIGTERM", async () => {
    // A leader that ignores SIGTERM and a child that does too: only SIGKILL to the group ends both.
    const script = `
      process.on("SIGTERM", () => {});
      require("node:child_process").spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: "ignore" });
      console.log("up");
      setInterval(() => {}, 1000);`;
    const leader = spawn(process.execPath, ["-e", script], {
      detached: true,
      stdio: ["ignore", "pipe", "ignore"],
    });
    await new Promise((resolve) => leader.stdout.once("data", resolve));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isGroupAlive(leader.pid!)).toBe(true);
    const result = await terminateGroup(leader.pid!, { graceMs: 300, clock: systemClock });
    expect(result).toEqual({ escalated: true, survived: false });
    expect(isGroupAlive(leader.pid!)).toBe(false);
  });

  it("sees a port in use and free again", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    expect(await isPortFree(port)).toBe(false);
    await new Promise((resolve) => server.close(resolve));
    expect(await isPortFree(port)).toBe(true);
  });
});
