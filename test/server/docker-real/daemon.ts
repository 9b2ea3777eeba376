import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { type Config, configSchema } from "../../../src/config/schema.js";

/**
 * The real Docker daemon of the docker-real tests, and the stand-in for `vllm/vllm-openai` they run: an
 * image made with `docker import` from a root file system holding this machine's node (and the shared
 * libraries it links), the built simulator (dist/) and an entrypoint that takes `vllm serve`'s arguments
 * (the model positionally, or `--model`) and starts the simulator on 0.0.0.0. No registry is needed.
 */

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const dockerCommand = process.env.VPG_DOCKER ?? "docker";

/** The daemon's version when `docker info` answers within 10 s, else why not. */
function probeDaemon(): { version: string } | { problem: string } {
  const info = spawnSync(dockerCommand, ["info", "--format", "{{.ServerVersion}}"], {
    encoding: "utf8",
    timeout: 10_000,
  });
  if (info.error) return { problem: `${dockerCommand} could not be run (${info.error.message})` };
  if (info.status !== 0)
    return { problem: (info.stderr || info.stdout).trim().split("\n")[0] ?? "no answer" };
  return { version: info.stdout.trim() };
}

const probe = probeDaemon();
/** Set when the tests must run: VPG_REQUIRE_DOCKER=1 turns a missing daemon into a failure. */
const daemonRequired = process.env.VPG_REQUIRE_DOCKER === "1";
const daemon = "version" in probe ? probe : null;
if (!daemon) {
  const message = `docker-real tests: no Docker daemon reachable (${"problem" in probe ? probe.problem : ""}); ${daemonRequired ? "VPG_REQUIRE_DOCKER=1, so they FAIL" : "SKIPPING them (set VPG_REQUIRE_DOCKER=1 to make this a failure)"}`;
  process.stderr.write(`\n${"!".repeat(100)}\n${message}\n${"!".repeat(100)}\n\n`);
}
/** Run the suite: a daemon answers, or one is required (then the suite fails in its first test). */
export const runSuite = daemon !== null || daemonRequired;

export function docker(args: readonly string[], input?: Buffer): string {
  return execFileSync(dockerCommand, args, { encoding: "utf8", input, timeout: 60_000 }).trim();
}

export function dockerTry(args: readonly string[]): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(dockerCommand, args, { encoding: "utf8", timeout: 60_000 });
  return { code: result.status ?? -1, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

/** The entrypoint: `vllm serve`'s argument shape mapped onto the simulator's (which accepts vLLM's flags). */
const entrypoint = `// vllm serve, as the simulator: vllm serve [MODEL] [--model MODEL] [flags]
const args = process.argv.slice(2);
if (args.includes("--model")) {
  console.log("WARNING stand-in: with vllm serve, pass the model as a positional argument instead of --model");
}
if (!args.includes("--host")) args.push("--host", "0.0.0.0");
process.argv = [process.argv[0], "/app/dist/cli.js", "sim", ...args];
await import("/app/dist/cli.js");
`;

/** The shared libraries node links, from ldd. */
function sharedLibraries(binary: string): string[] {
  const out = execFileSync("ldd", [binary], { encoding: "utf8" });
  return [...out.matchAll(/(\/[^\s]+\.so[^\s]*)/g)].map((match) => match[1]!);
}

/**
 * Builds the stand-in image once per content (tag from a hash of node, the built simulator and the
 * entrypoint) and returns its reference. Skips the build when the tag is already present.
 */
function standInImage(): string {
  if (!daemon) throw new Error("no Docker daemon");
  const node = process.execPath;
  const dist = join(repoRoot, "dist");
  const hash = createHash("sha256")
    .update(entrypoint)
    .update(node)
    .update(readFileSync(join(dist, "cli.js")))
    .digest("hex")
    .slice(0, 12);
  const ref = `vpg-standin/vllm-openai:${hash}`;
  if (dockerTry(["image", "inspect", ref]).code === 0) return ref;
  const root = mkdtempSync(join(tmpdir(), "vpg-standin-"));
  try {
    const put = (from: string, to: string) => {
      mkdirSync(dirname(join(root, to)), { recursive: true });
      copyFileSync(from, join(root, to));
    };
    put(node, "/usr/local/bin/node");
    for (const library of sharedLibraries(node)) put(library, library);
    mkdirSync(join(root, "app"), { recursive: true });
    execFileSync("cp", ["-r", dist, join(root, "app", "dist")]);
    writeFileSync(join(root, "app", "vllm-serve.mjs"), entrypoint);
    mkdirSync(join(root, "tmp"), { mode: 0o1777 });
    mkdirSync(join(root, "root", ".cache", "huggingface"), { recursive: true });
    const tar = execFileSync("tar", ["-C", root, "-c", "."], { maxBuffer: 1 << 30 });
    docker(
      [
        "import",
        "--change",
        'ENTRYPOINT ["/usr/local/bin/node", "/app/vllm-serve.mjs"]',
        "--change",
        "ENV HOME=/root",
        "-",
        ref,
      ],
      tar,
    );
    return ref;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Removes every container of the docker kind's label (leftovers of a failed test). */
function removeLabelledContainers(): void {
  const ids = docker(["ps", "--all", "--quiet", "--filter", "label=vllm-perf-gate=1"])
    .split("\n")
    .filter(Boolean);
  if (ids.length > 0) dockerTry(["rm", "--force", ...ids]);
}

/** A config of one small cell served by the stand-in image (no GPU: `gpus: none`). */
export function standInConfig(
  image: string,
  server: Record<string, unknown>,
  cell: Record<string, unknown> = {},
): Config {
  return configSchema.parse({
    version: 1,
    server: { kind: "docker", image, gpus: "none", startup_timeout_s: 30, ...server },
    model: { name: "sim-model" },
    cells: [
      {
        name: "c",
        dataset: { type: "synthetic", input_tokens: 8, output_tokens: 8 },
        load: { type: "concurrency", concurrency: 1 },
        size: { requests: 4 },
        warmup: { requests: 0 },
        ...cell,
      },
    ],
  });
}

/** The containers of the docker kind's label, by name, with their state. */
export function labelledContainers(): { name: string; state: string }[] {
  return docker(["ps", "--all", "--filter", "label=vllm-perf-gate=1", "--format", "{{.Names}} {{.State}}"])
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [name = "", state = ""] = line.split(" ");
      return { name, state };
    });
}

/**
 * The setting every docker-real case shares: the stand-in image (built once per content), a temporary
 * directory, and at the end every container of the kind's label removed and the directory deleted.
 * Registers its own beforeAll/afterAll; read `image` and `dir` inside the tests.
 */
export function useStandIn(cleanup: () => void | Promise<void> = () => {}): { image: string; dir: string } {
  const setting = { image: "", dir: "" };
  beforeAll(() => {
    setting.image = standInImage();
    setting.dir = mkdtempSync(join(tmpdir(), "vpg-docker-real-"));
  }, 60_000);
  afterAll(async () => {
    removeLabelledContainers();
    await cleanup();
    if (setting.dir) rmSync(setting.dir, { recursive: true, force: true });
  });
  return setting;
}

/** The CLI as a process (the built one, as the stand-in image holds it), its output collected. */
export interface CliProcess {
  child: ChildProcess;
  output(): string;
  closed: Promise<number | null>;
}

/**
 * Starts `node dist/cli.js ARGS` (no transpiling at start, which costs seconds a process on a loaded
 * machine), with TMPDIR set to `tempDir` and no RUNNER_TEMP, so its
 * server state file is the test's own.
 */
export function startCli(args: readonly string[], tempDir: string): CliProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tempDir };
  delete env.RUNNER_TEMP;
  const child = spawn(process.execPath, [join(repoRoot, "dist", "cli.js"), ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  return { child, output: () => output, closed: new Promise((resolve) => child.once("close", resolve)) };
}
