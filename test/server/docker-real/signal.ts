import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { freePort } from "../docker-helpers.js";
import {
  dockerCommand,
  labelledContainers,
  runSuite,
  standInConfig,
  startCli,
  useStandIn,
} from "./daemon.js";

const standIn = useStandIn();

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
    const marker = join(standIn.dir, "run-spawned");
    const wrapper = join(standIn.dir, "slow-docker.sh");
    writeFileSync(
      wrapper,
      `#!/bin/sh\nif [ "$1" != run ]; then exec ${dockerCommand} "$@"; fi\ntouch "${marker}"\nsleep 1.5\n${dockerCommand} "$@"\ncode=$?\ntouch "${marker}-returned"\nexit $code\n`,
    );
    chmodSync(wrapper, 0o755);
    const config = standInConfig(standIn.image, { port: await freePort(), docker_command: [wrapper] });
    const configFile = join(standIn.dir, "config.yml");
    writeFileSync(configFile, stringify({ ...config, server: { ...config.server } }));
    const cli = startCli(["run", "--config", configFile, "--out", join(standIn.dir, "out")], standIn.dir);
    expect(await until(() => existsSync(marker), 30_000)).toBe(true);
    cli.child.kill("SIGINT");
    const code = await cli.closed;
    expect(code, cli.output()).toBe(130);
    // The container docker run creates after the CLI is gone is removed by name, until it is gone.
    expect(await until(() => existsSync(`${marker}-returned`), 20_000)).toBe(true);
    const clean = await until(() => labelledContainers().length === 0, 10_000);
    expect(clean, `${JSON.stringify(labelledContainers())}\n${cli.output()}`).toBe(true);
    await sleep(6_000);
    expect(labelledContainers()).toEqual([]);
  }, 60_000);
});
