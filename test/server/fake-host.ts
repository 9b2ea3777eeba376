import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { configSchema, type ServerConfig } from "../../src/config/schema.js";
import { defaultCliCommand } from "../../src/server/sim-command.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const fixtures = join(repoRoot, "test", "fixtures", "bin");

/** Argv that runs the project's simulator (`vllm-perf-gate sim`), as the sim kind and the fake image use it. */
export const simArgv = [...defaultCliCommand(repoRoot), "sim"];
/** Argv of the vLLM stand-in with failure behaviours the simulator lacks. */
export const fakeVllmArgv = [process.execPath, join(fixtures, "fake-vllm.mjs")];

/** The model and the one small cell of the launcher tests' configs. */
export const testModel = { name: "sim-model" };
export const testCells = [
  {
    name: "c",
    dataset: { type: "synthetic", input_tokens: 8, output_tokens: 8 },
    load: { type: "concurrency", concurrency: 1 },
    size: { requests: 2 },
  },
];

/** A config of that cell with this server (its startup timeout 20 s unless it says one). */
export function configWith(server: Record<string, unknown>) {
  return { version: 1, server: { startup_timeout_s: 20, ...server }, model: testModel, cells: testCells };
}

/** The parsed server config of `configWith(server)`. */
export function serverConfigOf(server: Record<string, unknown>): ServerConfig {
  return configSchema.parse(configWith(server)).server;
}

export interface FakeImage {
  readonly digest: string;
  readonly entrypoint: readonly string[];
}

/**
 * A temporary directory with fake `docker` and `nvidia-smi` on PATH (small shell wrappers around the
 * fixtures in test/fixtures/bin) plus the fake docker's state, and the environment that points at both.
 */
export interface FakeHost {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  /** Every docker invocation, in order. */
  dockerCalls(): string[][];
  /** Pids of fake containers (their process groups) ever started. */
  containerPids(): number[];
  dispose(): void;
}

export function createFakeHost(options: {
  images?: Record<string, FakeImage>;
  localImages?: readonly string[];
  nvidiaSmi?: boolean;
  extraEnv?: Record<string, string>;
}): FakeHost {
  const dir = mkdtempSync(join(tmpdir(), "vpg-fake-host-"));
  const bin = join(dir, "bin");
  const home = join(dir, "docker");
  for (const path of [bin, home]) mkdirSync(path, { recursive: true });
  const wrap = (name: string, interpreter: string, script: string) => {
    const path = join(bin, name);
    writeFileSync(path, `#!/bin/sh\nexec "${interpreter}" "${join(fixtures, script)}" "$@"\n`);
    chmodSync(path, 0o755);
  };
  wrap("docker", process.execPath, "fake-docker.mjs");
  if (options.nvidiaSmi !== false) wrap("nvidia-smi", "/bin/sh", "fake-nvidia-smi.sh");
  writeFileSync(join(home, "images.json"), JSON.stringify({ registry: options.images ?? {} }));
  writeFileSync(join(home, "local-images.json"), JSON.stringify(options.localImages ?? []));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.extraEnv,
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    FAKE_DOCKER_HOME: home,
  };
  return {
    dir,
    env,
    dockerCalls() {
      const file = join(home, "calls.log");
      if (!existsSync(file)) return [];
      return readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string[]);
    },
    containerPids() {
      const containers = join(home, "containers");
      if (!existsSync(containers)) return [];
      return readdirSync(containers)
        .filter((file) => file.endsWith(".pid"))
        .map((file) => Number(readFileSync(join(containers, file), "utf8")));
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether any non-zombie process of the group still exists (the check teardown itself relies on). */
export { isGroupAlive as groupAlive } from "../../src/server/process-group.js";
