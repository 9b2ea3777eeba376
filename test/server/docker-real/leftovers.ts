import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { freePort } from "../docker-helpers.js";
import { labelledContainers, runSuite, standInConfig, startCli, useStandIn } from "./daemon.js";

const standIn = useStandIn();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cliRun = (configFile: string, out: string) =>
  startCli(["run", "--config", configFile, "--out", out], standIn.dir);

describe.skipIf(!runSuite)("docker kind on a real daemon: a CLI killed with SIGKILL", () => {
  it("leaves its container, which the next run on that port removes, naming it", async () => {
    const port = await freePort();
    // Enough requests that the first CLI is still measuring when it is killed.
    const config = standInConfig(standIn.image, { port }, { size: { requests: 100_000 } });
    const configFile = join(standIn.dir, "config.yml");
    writeFileSync(configFile, stringify(config));
    const first = cliRun(configFile, join(standIn.dir, "out-1"));
    const deadline = Date.now() + 45_000;
    while (Date.now() < deadline && !/measure|run-0/.test(first.output())) await sleep(100);
    const running = labelledContainers().filter((container) => container.state === "running");
    expect(running, first.output()).toHaveLength(1);
    // No handler runs on SIGKILL: an OOM-killed runner process leaves its container like this.
    first.child.kill("SIGKILL");
    await first.closed;
    await sleep(500);
    expect(labelledContainers()).toEqual(running);

    writeFileSync(configFile, stringify(standInConfig(standIn.image, { port })));
    const second = cliRun(configFile, join(standIn.dir, "out-2"));
    const code = await second.closed;
    expect(code, second.output()).toBe(0);
    expect(second.output()).toMatch(
      new RegExp(`leftover .*${running[0]!.name}.* of pid ${first.child.pid} \\(gone\\)`),
    );
    expect(labelledContainers()).toEqual([]);
  }, 120_000);
});
