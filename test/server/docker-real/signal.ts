import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { freePort } from "../docker-helpers.js";
import {
  dockerCommand,
  labelledContainers,
  removeLabelledContainers,
  runSuite,
  standInConfig,
  standInImage,
} from "./daemon.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
let image = "";
let dir = "";
beforeAll(() => {
  image = standInImage();
  dir = mkdtempSync(join(tmpdir(), "vpg-docker-real-"));
}, 60_000);
afterAll(() => {
  removeLabelledContainers();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(50);
  }
  return check();
}

describe.skipIf(!runSuite)("docker kind on a real daemon: a signal while docker run is in flight", () => {
  it("leaves no container when SIGINT comes right after docker run is spawned (a docker run taking 1.5 s)", async () => {
    // docker_command: a wrapper that marks the moment `docker run` is spawned and makes it 1.5 s slower,
    // as a daemon busy creating the container is.
    const marker = join(dir, "run-spawned");
    const wrapper = join(dir, "slow-docker.sh");
    writeFileSync(
      wrapper,
      `#!/bin/sh\nif [ "$1" != run ]; then exec ${dockerCommand} "$@"; fi\ntouch "${marker}"\nsleep 1.5\n${dockerCommand} "$@"\ncode=$?\ntouch "${marker}-returned"\nexit $code\n`,
    );
    chmodSync(wrapper, 0o755);
    const config = standInConfig(image, { port: await freePort(), docker_command: [wrapper] });
    const configFile = join(dir, "config.yml");
    writeFileSync(configFile, stringify({ ...config, server: { ...config.server } }));
    const cli = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        join(repoRoot, "src", "cli.ts"),
        "run",
        "--config",
        configFile,
        "--out",
        join(dir, "out"),
      ],
      { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TMPDIR: dir } },
    );
    let output = "";
    cli.stdout.on("data", (chunk) => (output += chunk));
    cli.stderr.on("data", (chunk) => (output += chunk));
    const closed = new Promise<number | null>((resolve) => cli.once("close", resolve));
    expect(await until(() => existsSync(marker), 30_000)).toBe(true);
    cli.kill("SIGINT");
    const code = await closed;
    expect(code, output).toBe(130);
    // The container docker run creates after the CLI is gone is removed by name, until it is gone.
    expect(await until(() => existsSync(`${marker}-returned`), 20_000)).toBe(true);
    const clean = await until(() => labelledContainers().length === 0, 10_000);
    expect(clean, `${JSON.stringify(labelledContainers())}\n${output}`).toBe(true);
    await sleep(6_000);
    expect(labelledContainers()).toEqual([]);
  }, 60_000);
});
